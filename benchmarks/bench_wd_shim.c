/*
 * LD_PRELOAD shim for bench_sched only: switches lineup's divergence
 * watchdog to a cheaper mechanism, to measure what the per-thread
 * perf_event counter costs at each context switch.
 *
 *   BENCH_WATCHDOG=timer  pfm_initialize() fails, so lu_sched falls back to
 *                         a POSIX thread CPU-time timer
 *   BENCH_WATCHDOG=none   timer_create() fails as well: no watchdog at all
 *   unset / other         both pass through (the default: perf_event)
 *
 * Not used by lineup itself; nothing in the scheduler is changed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *mode(void)
{
    const char *m = getenv("BENCH_WATCHDOG");
    return m ? m : "";
}

int pfm_initialize(void)
{
    if (strcmp(mode(), "timer") == 0 || strcmp(mode(), "none") == 0)
        return -1; /* PFM_ERR_NOTSUPP */
    int (*real)(void) = (int (*)(void))dlsym(RTLD_NEXT, "pfm_initialize");
    return real ? real() : -1;
}

int timer_create(clockid_t clk, struct sigevent *sev, timer_t *timer)
{
    if (strcmp(mode(), "none") == 0) {
        errno = EPERM;
        return -1;
    }
    int (*real)(clockid_t, struct sigevent *, timer_t *) =
        (int (*)(clockid_t, struct sigevent *, timer_t *))dlsym(RTLD_NEXT, "timer_create");
    return real ? real(clk, sev, timer) : -1;
}
