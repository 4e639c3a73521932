/*
 * A harness whose constructor changes process-wide signal state before
 * lineup controls anything, as a library pulled in by the code under test
 * might. Built with:
 *   -DBLOCK_ALL    blocks every signal: divergence in spin() must still be
 *                  reported by the watchdog, not as a timeout;
 *   -DIGNORE_CHLD  ignores SIGCHLD (the kernel then reaps children at once):
 *                  the lost update of inc() must still be found, not an
 *                  internal error of lineup's process management;
 *   -DEXIT_NOW     calls exit(4), and -DKILL_SELF kills its own process: a
 *                  harness error that says so (it read "(phase 0)" with an
 *                  empty test, and the kill as lineup's own error, exit 3).
 */
#include <lineup.h>

#include <signal.h>
#include <stdlib.h>

struct cell {
    volatile int64_t v;
};

static void *create(void)
{
    return calloc(1, sizeof(struct cell));
}

static int64_t inc(void *o, int64_t unused)
{
    struct cell *c = o;
    (void)unused;
    c->v = c->v + 1;
    return 0;
}

static int64_t get(void *o, int64_t unused)
{
    struct cell *c = o;
    (void)unused;
    return c->v;
}

static int plain;

static int64_t spin(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    while (!plain)
        __asm__ __volatile__("" ::: "memory");
    return 0;
}

__attribute__((constructor)) static void ctor(void)
{
#ifdef BLOCK_ALL
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
#endif
#ifdef IGNORE_CHLD
    signal(SIGCHLD, SIG_IGN);
#endif
#ifdef EXIT_NOW
    exit(4);
#endif
#ifdef KILL_SELF
    raise(SIGKILL);
#endif
}

LINEUP_HARNESS(cell, create, free, LINEUP_OP(inc, 0), LINEUP_OP(get, 0), LINEUP_OP(spin, 0));
