/*
 * A search that takes long: three threads each add to a counter five
 * times by a load and a store (-DFIXED: under a mutex), so that there
 * are millions of schedules. The lost update needs one preemption, and
 * main asserts the sum. For the tests of searches that stop short: the
 * budget, an interruption.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define THREADS 3
#define ROUNDS 5

static atomic_int counter;
#ifdef FIXED
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#endif

static void *add(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
#ifdef FIXED
        pthread_mutex_lock(&lock);
#endif
        int v = atomic_load(&counter);
        atomic_store(&counter, v + 1);
#ifdef FIXED
        pthread_mutex_unlock(&lock);
#endif
    }
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, add, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    assert(atomic_load(&counter) == THREADS * ROUNDS);
    return 0;
}
