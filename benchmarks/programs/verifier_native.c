/*
 * The SV-COMP verifier functions the programs declare, for native builds
 * with plain gcc or clang (native.sh). Under lineup, its runtime defines
 * them: scheduler-controlled choices, discarded executions, non-preemptible
 * sections.
 *
 * Natively: __VERIFIER_nondet_int() returns the next value of
 * LINEUP_BENCH_NONDET (a comma-separated list, cycled) or a random value in
 * 0..7; a false __VERIFIER_assume() ends the program with status 0 (the path
 * is not a behaviour of the program); atomic sections take one global
 * recursive mutex, which excludes other atomic sections only.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t nondet_lock = PTHREAD_MUTEX_INITIALIZER;

int __VERIFIER_nondet_int(void)
{
    static const char *cursor;
    static unsigned seed;
    pthread_mutex_lock(&nondet_lock);
    int v;
    const char *list = getenv("LINEUP_BENCH_NONDET");
    if (list && *list) {
        if (!cursor || !*cursor)
            cursor = list;
        char *end;
        v = (int)strtol(cursor, &end, 0);
        cursor = *end == ',' ? end + 1 : end;
    } else {
        if (!seed)
            seed = (unsigned)time(NULL) ^ (unsigned)getpid() << 16;
        v = (int)(rand_r(&seed) % 8);
    }
    pthread_mutex_unlock(&nondet_lock);
    return v;
}

void __VERIFIER_assume(int cond)
{
    if (!cond)
        exit(0);
}

static pthread_mutex_t atomic_section;
static pthread_once_t atomic_once = PTHREAD_ONCE_INIT;

static void atomic_section_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&atomic_section, &a);
    pthread_mutexattr_destroy(&a);
}

void __VERIFIER_atomic_begin(void)
{
    pthread_once(&atomic_once, atomic_section_init);
    pthread_mutex_lock(&atomic_section);
}

void __VERIFIER_atomic_end(void)
{
    pthread_mutex_unlock(&atomic_section);
}
