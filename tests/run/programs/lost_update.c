/*
 * Lost update: two threads read a counter and write it back incremented,
 * without a lock (-DFIXED: under a mutex). The bug needs one preemption
 * between a thread's load and its store; main asserts the sum and prints
 * the counter first, so the report must show that line.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int counter;
#ifdef FIXED
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#endif

static void *incr(void *arg)
{
    (void)arg;
#ifdef FIXED
    pthread_mutex_lock(&lock);
#endif
    int v = atomic_load(&counter);
    atomic_store(&counter, v + 1);
#ifdef FIXED
    pthread_mutex_unlock(&lock);
#endif
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, incr, NULL);
    pthread_create(&b, NULL, incr, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("lost_update: counter is %d\n", atomic_load(&counter));
    assert(atomic_load(&counter) == 2);
    return 0;
}
