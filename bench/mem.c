/* zchan_bench_mem: row 14, the bytes a channel holds, counted by wrapping the allocator.
 *
 * This program defines malloc, calloc, realloc, free and the aligned allocators itself
 * (the executable's definitions take precedence over libc's for the static zchan library
 * and for the shared peers alike), forwards each to glibc's __libc_* entry points and
 * keeps a running total of malloc_usable_size of every live block: the bytes a channel
 * holds are the growth of that total. zchan itself is not changed for this. */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);
extern void __libc_free(void *p);

/* Relaxed: a statistic, read by the main thread after the threads it counts are done. */
static atomic_long held;

static void *counted(void *p)
{
    if (p)
        atomic_fetch_add_explicit(&held, (long)malloc_usable_size(p), memory_order_relaxed);
    return p;
}

static void uncount(void *p)
{
    if (p)
        atomic_fetch_sub_explicit(&held, (long)malloc_usable_size(p), memory_order_relaxed);
}

void *malloc(size_t size) { return counted(__libc_malloc(size)); }
void *calloc(size_t n, size_t size) { return counted(__libc_calloc(n, size)); }
void *memalign(size_t align, size_t size) { return counted(__libc_memalign(align, size)); }
void *aligned_alloc(size_t align, size_t size) { return memalign(align, size); }
void *valloc(size_t size) { return memalign((size_t)sysconf(_SC_PAGESIZE), size); }

void *pvalloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return memalign(page, (size + page - 1) / page * page);
}

int posix_memalign(void **out, size_t align, size_t size)
{
    void *p = memalign(align, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *realloc(void *p, size_t size)
{
    size_t before = p ? malloc_usable_size(p) : 0;
    void *q = __libc_realloc(p, size);
    if (q || size == 0)
        atomic_fetch_sub_explicit(&held, (long)before, memory_order_relaxed);
    return counted(q);
}

void free(void *p)
{
    uncount(p);
    __libc_free(p);
}

static long now_held(void) { return atomic_load_explicit(&held, memory_order_relaxed); }

enum { BIG = 1000000 };

/* Emit the bytes held by bounded channels of capacity 1, 1024 and 1,000,000 (empty), and
 * by an unbounded one holding 1,000,000 messages, then drained. */
static void measure(const bench_impl *impl, const char *rows, int run)
{
    static const struct {
        const char *id;
        size_t cap;
    } bounded[] = {{"14-cap1", 1}, {"14-cap1024", 1024}, {"14-cap1000000", BIG}};
    for (size_t i = 0; i < sizeof bounded / sizeof bounded[0]; i++) {
        if (!(impl->flags & IMPL_BOUNDED) || !bench_selected(rows, bounded[i].id))
            continue;
        long before = now_held();
        void *ch = impl->make(bounded[i].cap);
        if (!ch)
            bench_fail(impl->name, "make");
        bench_emit(bounded[i].id, impl->name, run, (double)(now_held() - before), "bytes");
        impl->destroy(ch);
    }
    if (!(impl->flags & IMPL_UNBOUNDED) || !(bench_selected(rows, "14-unbounded-full") ||
                                             bench_selected(rows, "14-unbounded-drained")))
        return;
    long before = now_held();
    void *ch = impl->make(0);
    if (!ch)
        bench_fail(impl->name, "make");
    for (uint64_t v = 1; v <= BIG; v++)
        impl->send(ch, v);
    long full = now_held() - before;
    uint64_t sum = 0;
    for (long i = 0; i < BIG; i++)
        sum += impl->recv(ch);
    if (sum != bench_sum_to(BIG))
        bench_fail(impl->name, "unbounded checksum");
    long drained = now_held() - before;
    impl->destroy(ch);
    if (bench_selected(rows, "14-unbounded-full"))
        bench_emit("14-unbounded-full", impl->name, run, (double)full, "bytes");
    if (bench_selected(rows, "14-unbounded-drained"))
        bench_emit("14-unbounded-drained", impl->name, run, (double)drained, "bytes");
}

int main(int argc, char **argv)
{
    bench_opts o = bench_parse_args(argc, argv, "");
    if (o.list) {
        fprintf(stderr, "zchan_bench_mem: no --list (its rows are row 14's, run once)\n");
        return 2;
    }
    /* GLib's slice allocator (before 2.76) takes slabs and keeps them cached across
     * queues and runs; allocating each list node with malloc counts what one queue
     * holds. GLib reads G_SLICE as it loads, hence the re-exec. */
    if (!getenv("G_SLICE")) {
        setenv("G_SLICE", "always-malloc", 1);
        execv("/proc/self/exe", argv);
        bench_fail("gasyncqueue", "re-exec with G_SLICE=always-malloc");
    }
    fprintf(stderr, "note: row 14 counts malloc_usable_size of live blocks (glibc); "
                    "gasyncqueue runs with G_SLICE=always-malloc (its slice allocator would "
                    "keep its list nodes cached after draining)\n");
    size_t nimpl;
    const bench_impl *const *impls = bench_impls(&nimpl);
    for (int run = 1; run <= o.runs; run++)
        for (size_t j = 0; j < nimpl; j++)
            /* zchan-inline's channels are zchan's (IMPL_FAST_ROWS: not row 14). */
            if (bench_wanted(&o, impls[j]->name) && !(impls[j]->flags & IMPL_FAST_ROWS))
                measure(impls[j], o.rows, run);
    return 0;
}
