/* zchan built into the bench with ZCHAN_INLINE (zchan/inline.h): the same table entry as
 * impl_zchan.c's, its fast paths inline. Measured where they run: the single-thread rows
 * (1-4) and the task flows (7-9); the blocking calls of the thread rows are the
 * library's either way. Needs an unchecked library (bench/CMakeLists.txt). */
#define ZCHAN_INLINE
#define ZCC_IMPL bench_zchan_inline_impl
#define ZCC_NAME "zchan-inline"
#define ZCC_TASK_FLOW bench_task_flow_inline
#define ZCC_FLAGS IMPL_FAST_ROWS
#define ZCC_NOTE " (inline fast paths: rows 1-4 and the task flows only)"
#include "impl_zchan.c"

const bench_impl *const bench_zchan_inline = &bench_zchan_inline_impl;
