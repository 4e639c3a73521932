/*
 * A bug for one input value among four: a worker stores the input, main
 * fails only when it is 3. __VERIFIER_assume keeps the values outside 0..3
 * (lineup's domain also has -1) out: those executions are discarded.
 */
#include <lineup.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int slot;

static void *worker(void *arg)
{
    atomic_store(&slot, (int)(long)arg);
    return NULL;
}

int main(void)
{
    int x = __VERIFIER_nondet_int();
    __VERIFIER_assume(x >= 0 && x < 4);
    pthread_t t;
    pthread_create(&t, NULL, worker, (void *)(long)x);
    pthread_join(t, NULL);
    if (atomic_load(&slot) == 3)
        reach_error();
    return 0;
}
