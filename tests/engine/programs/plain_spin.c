/*
 * Divergence: thread 1 waits on a plain int that nobody ever sets. Plain
 * accesses are not scheduling points, so the scheduler never gets control
 * back from this thread; only the watchdog (CPU time without a scheduling
 * point) can end it, by reporting LU_SCHED_FATAL_DIVERGE through on_fatal
 * and ending the process. The empty asm with a memory clobber keeps the
 * load in the loop at -O2 and gives the loop a side effect, so that the
 * compiler may not assume it terminates and delete it (C11 6.8.5p6).
 */
#include "programs.h"

#include <stdatomic.h>

static int plain_flag;
static _Atomic int started;

static void *plain_waiter(void *arg)
{
    (void)arg;
    atomic_store(&started, 1);
    while (!plain_flag)
        __asm__ __volatile__("" ::: "memory");
    return NULL;
}

void *plain_spin_main(void *arg)
{
    (void)arg;
    plain_flag = 0;
    atomic_init(&started, 0);
    pthread_t t;
    pthread_create(&t, NULL, plain_waiter, NULL);
    pthread_join(t, NULL);
    return NULL;
}
