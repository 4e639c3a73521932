/*
 * Data races for --races. RACE_PLAIN: two threads increment a plain int
 * without synchronization. RACE_MUTEX: the same under a mutex (no race).
 * RACE_ACQREL: a producer writes plain data and publishes it with a
 * release store; the consumer reads the data after an acquire load of the
 * flag (no race). RACE_MIXED: the writer increments the counter with an
 * atomic fetch_add, the reader reads it plainly (a race: only atomic
 * accesses are exempt from racing with each other). All variants are
 * otherwise correct.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static int data;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int ready;

static void *writer(void *arg)
{
    (void)arg;
#if defined(RACE_MUTEX)
    pthread_mutex_lock(&lock);
    data++;
    pthread_mutex_unlock(&lock);
#elif defined(RACE_ACQREL)
    data = 42;
    atomic_store_explicit(&ready, 1, memory_order_release);
#elif defined(RACE_MIXED)
    __atomic_fetch_add(&data, 1, __ATOMIC_RELAXED);
#else
    data++;
#endif
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
#if defined(RACE_MUTEX)
    pthread_mutex_lock(&lock);
    data++;
    pthread_mutex_unlock(&lock);
#elif defined(RACE_ACQREL)
    if (atomic_load_explicit(&ready, memory_order_acquire))
        printf("race: data %d\n", data);
#elif defined(RACE_MIXED)
    printf("race: data %d\n", data);
#else
    data++;
#endif
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, writer, NULL);
    pthread_create(&b, NULL, reader, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    (void)lock;
    (void)ready;
    return 0;
}
