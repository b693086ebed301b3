/* Harness helpers shared by zchan_bench and zchan_bench_mem: see bench.h. */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

_Noreturn void bench_fail(const char *impl, const char *what)
{
    fprintf(stderr, "bench: %s: %s failed\n", impl, what);
    exit(1);
}

void bench_backoff(unsigned *tries)
{
    if (++*tries < 16)
        CPU_RELAX();
    else
        sched_yield();
}

const bench_impl *const *bench_impls(size_t *n)
{
    static const bench_impl *all[6];
    size_t k = 0;
    all[k++] = &bench_zchan;
    if (bench_zchan_inline)
        all[k++] = bench_zchan_inline;
    all[k++] = &bench_mutex;
    if (bench_gasync)
        all[k++] = bench_gasync;
    if (bench_ck)
        all[k++] = bench_ck;
    if (bench_rte)
        all[k++] = bench_rte;
    *n = k;
    return all;
}

static _Noreturn void usage(const char *prog, const char *extra)
{
    fprintf(stderr,
            "usage: %s [--runs K] [--quick] [--rows LIST] [--impls LIST] [--skip LIST] [--reverse] [--list] [--placement]%s\n"
            "  --runs K      measured runs per row and implementation (default 7, quick 3)\n"
            "  --quick       counts / 10\n"
            "  --rows LIST   comma-separated row ids or prefixes (13 = every 13a/13b/13c row)\n"
            "  --impls LIST  comma-separated implementation names\n"
            "  --skip LIST   implementations to leave out (run.sh: those that timed out)\n"
            "  --reverse     measure a row's implementations in reverse order (run.sh: even runs)\n"
            "  --list        print the ids of the rows selected, one a line, and exit\n"
            "  --placement   thread rows: where each thread ran, and its switches (stderr)\n"
            "Prints row,impl,run,value,unit lines on stdout.\n",
            prog, extra);
    exit(2);
}

/* Every name in list (--impls, --skip) must select an implementation built here, or the
 * floor: a misspelt name would silently measure nothing. */
static void check_impl_names(const char *prog, const char *opt, const char *list)
{
    size_t n;
    const bench_impl *const *all = bench_impls(&n);
    for (const char *p = list; p && *p;) {
        size_t len = strcspn(p, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)len, p);
        bool known = len > 0 && bench_named(name, "floor");
        for (size_t j = 0; j < n && !known; j++)
            known = len > 0 && bench_named(name, all[j]->name);
        if (!known) {
            fprintf(stderr, "%s: %s: no implementation '%s' here; built:", prog, opt, name);
            for (size_t j = 0; j < n; j++)
                fprintf(stderr, " %s", all[j]->name);
            fprintf(stderr, " (and floor)\n");
            exit(2);
        }
        p += len;
        if (*p == ',')
            p++;
    }
}

bench_opts bench_parse_args(int argc, char **argv, const char *usage_extra)
{
    bench_opts o = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) {
            o.quick = true;
        } else if (strcmp(a, "--runs") == 0 && i + 1 < argc) {
            o.runs = atoi(argv[++i]);
            if (o.runs < 1)
                usage(argv[0], usage_extra);
        } else if (strcmp(a, "--rows") == 0 && i + 1 < argc) {
            o.rows = argv[++i];
        } else if (strcmp(a, "--count") == 0 && i + 1 < argc) {
            o.count = atol(argv[++i]);
            if (o.count < 1)
                usage(argv[0], usage_extra);
        } else if (strcmp(a, "--list") == 0) {
            o.list = true;
        } else if (strcmp(a, "--reverse") == 0) {
            o.reverse = true;
        } else if (strcmp(a, "--placement") == 0) {
            o.placement = true;
        } else if (strcmp(a, "--impls") == 0 && i + 1 < argc) {
            o.impls = argv[++i];
        } else if (strcmp(a, "--skip") == 0 && i + 1 < argc) {
            o.skip = argv[++i];
        } else {
            usage(argv[0], usage_extra);
        }
    }
    if (o.runs == 0)
        o.runs = o.quick ? 3 : 7;
    check_impl_names(argv[0], "--impls", o.impls);
    check_impl_names(argv[0], "--skip", o.skip);
    return o;
}

/* Whether an item of a comma-separated list selects id: equal to it, or (prefix) one
 * that id starts with and continues with a non-digit. NULL selects everything. */
static bool list_selects(const char *list, const char *id, bool prefix)
{
    if (!list)
        return true;
    size_t idlen = strlen(id);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len > 0 && len <= idlen && strncmp(p, id, len) == 0 &&
            (len == idlen || (prefix && !(id[len] >= '0' && id[len] <= '9'))))
            return true;
        p += len;
        if (*p == ',')
            p++;
    }
    return false;
}

bool bench_named(const char *list, const char *name) { return list_selects(list, name, false); }

bool bench_selected(const char *list, const char *id) { return list_selects(list, id, true); }

bool bench_wanted(const bench_opts *o, const char *name)
{
    return bench_named(o->impls, name) && !(o->skip && bench_named(o->skip, name));
}

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void bench_emit(const char *row, const char *impl, int run, double value, const char *unit)
{
    /* Whole numbers (bytes) in full; times to six significant digits. */
    if (value == (double)(long long)value)
        printf("%s,%s,%d,%lld,%s\n", row, impl, run, (long long)value, unit);
    else
        printf("%s,%s,%d,%.6g,%s\n", row, impl, run, value, unit);
    fflush(stdout);
}
