/*
 * Three threads, each writing its own atomic variable twice: most of the
 * interleavings differ only in the order of independent writes, so
 * partial-order reduction needs far fewer executions (the golden counts of
 * run.reduction). -DBUG: the last two threads also increment a shared
 * counter by a load and a store, and main asserts the sum: a lost update
 * that needs one preemption, found with reduction and replayed without.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define N 3

static atomic_int own[N];
#ifdef BUG
static atomic_int counter;
#endif

static void *worker(void *arg)
{
    int i = (int)(long)arg;
    atomic_store(&own[i], 1);
#ifdef BUG
    if (i > 0) {
        int v = atomic_load(&counter);
        atomic_store(&counter, v + 1);
    }
#endif
    atomic_store(&own[i], 2);
    return NULL;
}

int main(void)
{
    pthread_t t[N];
    for (long i = 0; i < N; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < N; i++)
        assert(atomic_load(&own[i]) == 2);
#ifdef BUG
    printf("independent: counter is %d\n", atomic_load(&counter));
    assert(atomic_load(&counter) == N - 1);
#endif
    return 0;
}
