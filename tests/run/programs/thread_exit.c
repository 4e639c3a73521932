/*
 * Threads that end with pthread_exit keep their frames on lineup's shadow
 * stack (they never return from their start routine): the report must
 * still show them finished, not at their last scheduling point.
 *
 * Default: thread 1 calls pthread_exit, main joins it, then fails.
 * MAIN_EXIT: main calls pthread_exit; thread 1 fails after it.
 * ATEXIT: main registers an exit handler and calls pthread_exit; thread 1
 * only counts. The process ends when thread 1 does, by exit(0) on it
 * (glibc), and the handler fails there (lineup ran no exit handler then:
 * an audit found the failure missed).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#ifdef ATEXIT
#define MAIN_EXIT
#endif

static atomic_int x;

#ifndef MAIN_EXIT
static void *quitter(void *arg)
{
    (void)arg;
    atomic_store(&x, 1);
    pthread_exit(NULL);
}
#elif defined(ATEXIT)
static void *checker(void *arg)
{
    (void)arg;
    atomic_fetch_add(&x, 1);
    return NULL;
}

static void at_end(void)
{
    assert(atomic_load(&x) == 5);
}
#else
static void *checker(void *arg)
{
    (void)arg;
    atomic_fetch_add(&x, 1);
    assert(atomic_load(&x) == 0);
    return NULL;
}
#endif

int main(void)
{
    pthread_t t;
#ifdef MAIN_EXIT
#ifdef ATEXIT
    atexit(at_end);
#endif
    pthread_create(&t, NULL, checker, NULL);
    atomic_store(&x, 5);
    pthread_exit(NULL);
#else
    pthread_create(&t, NULL, quitter, NULL);
    pthread_join(t, NULL);
    assert(atomic_load(&x) == 0);
    return 0;
#endif
}
