/*
 * What sharing serial prefixes by forking would cost (issue #4, "phase 1 by
 * construction"): one fork + child touching a page + exit + waitpid, in a
 * process holding MB megabytes of touched heap (a lineup worker holds
 * 10-20 MB). Compare with the cost of one whole serial execution (phase 1 of
 * run_lineup.sh): a fork at a prefix pays only if it is cheaper than
 * re-running the prefix.
 *
 *   bench_fork [MB] [N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 16;
    int n = argc > 2 ? atoi(argv[2]) : 2000;
    char *p = malloc(mb << 20);
    if (!p || n <= 0)
        return 2;
    memset(p, 1, mb << 20);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++) {
        pid_t c = fork();
        if (c < 0)
            return 1;
        if (c == 0) {
            p[(size_t)i * 4096 % (mb << 20)] = 2;
            _exit(0);
        }
        int st;
        waitpid(c, &st, 0);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / n / 1e3;
    printf("%zu MB heap: %.1f us per fork + page touch + exit + waitpid (%d runs)\n", mb, us, n);
    return 0;
}
