/*
 * Threads that end with pthread_exit keep their frames on lineup's shadow
 * stack (they never return from their start routine): the report must
 * still show them finished, not at their last scheduling point.
 *
 * Default: thread 1 calls pthread_exit, main joins it, then fails.
 * MAIN_EXIT: main calls pthread_exit; thread 1 fails after it.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int x;

#ifndef MAIN_EXIT
static void *quitter(void *arg)
{
    (void)arg;
    atomic_store(&x, 1);
    pthread_exit(NULL);
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
