/* README.md, first C block: the whole program, as a user would paste it. Its printf is
 * counted instead of printed, and at exit the frame checks that 0..99 came, in order. */
#include <stdio.h>
#include <unistd.h>

static int printed, out_of_order;
static int count_line(const char *fmt, int v) {
    (void)fmt;
    if (v != printed++)
        out_of_order++;
    return 0;
}
#undef printf
#define printf(fmt, v) count_line(fmt, v)

__attribute__((destructor)) static void check_lines(void) {
    if (printed != 100 || out_of_order != 0)
        _exit(1);
}

@SNIPPET@
