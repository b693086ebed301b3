/* Null entries for the peers whose library was not found at configure time. */
#include "bench.h"

#ifndef BENCH_HAVE_ZCHAN_INLINE
const bench_impl *const bench_zchan_inline = NULL;
#endif
#ifndef BENCH_HAVE_GASYNC
const bench_impl *const bench_gasync = NULL;
#endif
#ifndef BENCH_HAVE_CK
const bench_impl *const bench_ck = NULL;
#endif
#ifndef BENCH_HAVE_RTE
const bench_impl *const bench_rte = NULL;
#endif
