/*
 * Each thread's own call stack in a report: a lock-order deadlock reached
 * through different callers, via_one() in thread 1 and via_two() in thread
 * 2, so the report must say which called take() in which thread. The
 * program has no thread-local variables, so its threads share one TLS
 * (--tls auto), where the interposer's shadow call stacks still have to be
 * per thread.
 */
#include <pthread.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;

static __attribute__((noinline)) void take(pthread_mutex_t *first, pthread_mutex_t *second)
{
    pthread_mutex_lock(first);
    pthread_mutex_lock(second);
    pthread_mutex_unlock(second);
    pthread_mutex_unlock(first);
}

static __attribute__((noinline)) void via_one(void)
{
    take(&a, &b);
}

static __attribute__((noinline)) void via_two(void)
{
    take(&b, &a);
}

static void *one(void *arg)
{
    (void)arg;
    via_one();
    return NULL;
}

static void *two(void *arg)
{
    (void)arg;
    via_two();
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, one, NULL);
    pthread_create(&t2, NULL, two, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return 0;
}
