/* The task flows (rows 7-9) of tasks.c built with ZCHAN_INLINE, for the zchan-inline
 * column (impl_zchan_inline.c): only bench_task_flow, as bench_task_flow_inline. */
#define ZCHAN_INLINE
#define BENCH_TASK_FLOW_ONLY
#define bench_task_flow bench_task_flow_inline
#include "tasks.c"
