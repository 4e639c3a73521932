/*
 * LD_PRELOAD shim for bench_sched only: switches lineup's divergence
 * watchdog to a cheaper mechanism, to measure what the per-thread
 * perf_event counter costs at each context switch.
 *
 *   BENCH_WATCHDOG=timer  perf_event_open(2) is refused (EACCES), so lu_sched
 *                         falls back to a POSIX thread CPU-time timer (the
 *                         runtime opens libpfm4 with dlopen, so its calls
 *                         cannot be interposed)
 *   BENCH_WATCHDOG=none   timer_create() fails as well: no watchdog at all
 *   unset / other         both pass through (the default: perf_event)
 *
 * Not used by lineup itself; nothing in the scheduler is changed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

static const char *mode(void)
{
    const char *m = getenv("BENCH_WATCHDOG");
    return m ? m : "";
}

long syscall(long n, ...)
{
    if (n == SYS_perf_event_open && (strcmp(mode(), "timer") == 0 || strcmp(mode(), "none") == 0)) {
        errno = EACCES;
        return -1;
    }
    /* syscall(2) takes at most six arguments, passed like longs */
    va_list ap;
    va_start(ap, n);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    long (*real)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real ? real(n, a[0], a[1], a[2], a[3], a[4], a[5]) : -1;
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
