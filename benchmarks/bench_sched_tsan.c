/*
 * The workers of bench_sched's "tsan" mode, compiled with lineup-cc: plain
 * C11 atomics, no lineup call. Each increment reaches the scheduler through
 * lineup's __tsan_atomic64_fetch_add hook (a scheduling point on controlled
 * threads, a pass-through elsewhere).
 */
#include <stdatomic.h>
#include <stddef.h>

static _Atomic long bench_counter;
static int bench_steps;

void *bench_tsan_worker(void *arg);
void bench_tsan_set(int steps);
long bench_tsan_get(void);

void *bench_tsan_worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < bench_steps; i++)
        atomic_fetch_add(&bench_counter, 1);
    return NULL;
}

/* Called by the controller between executions (uncontrolled: no
 * scheduling points). */
void bench_tsan_set(int steps)
{
    bench_steps = steps;
    atomic_store(&bench_counter, 0);
}

long bench_tsan_get(void)
{
    return atomic_load(&bench_counter);
}
