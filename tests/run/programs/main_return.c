/*
 * The other threads run on while the process ends: main tears down what
 * the worker checks and then returns (or, with -DEXIT_CALL, calls exit), and
 * the worker can see it in between, natively and under lineup. With -DFIXED
 * main joins the worker first.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_int alive = 1;

static void *worker(void *arg)
{
    (void)arg;
    assert(atomic_load(&alive));
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
#ifdef FIXED
    pthread_join(t, NULL);
#endif
    atomic_store(&alive, 0);
#ifdef EXIT_CALL
    exit(0);
#endif
    return 0;
}
