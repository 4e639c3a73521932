/*
 * Steps on semaphores and rwlocks are dependent in the partial-order
 * reduction: each program fails only when one thread's operation comes
 * before another's, and the reduction must not take the two for
 * independent (a mutation that did passed every test until these).
 *
 *   (default)  a sem_trywait before the sem_post fails with EAGAIN.
 *   -DRW       a trywrlock before main's unlock fails with EBUSY.
 *   -DSPIN=N   a waiter looks at a flag N times, then gives up: with N up
 *              to --spin-bound the search reaches the give-up (the flag's
 *              setter chosen after N looks).
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

#if defined(SPIN)
static atomic_int flag;
static int gave_up;

static void *waiter(void *arg)
{
    (void)arg;
    int i;
    for (i = 0; i < SPIN; i++)
        if (atomic_load(&flag))
            break;
    gave_up = i == SPIN;
    return NULL;
}

static void *setter(void *arg)
{
    (void)arg;
    atomic_store(&flag, 1);
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, waiter, NULL);
    pthread_create(&b, NULL, setter, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert(!gave_up);
    return 0;
}
#elif defined(RW)
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int r = -1;

static void *trier(void *arg)
{
    (void)arg;
    r = pthread_rwlock_trywrlock(&rw);
    if (r == 0)
        pthread_rwlock_unlock(&rw);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_rwlock_wrlock(&rw);
    pthread_create(&t, NULL, trier, NULL);
    pthread_rwlock_unlock(&rw);
    pthread_join(t, NULL);
    assert(r == 0);
    return 0;
}
#else
static sem_t s;
static int got = -1;

static void *poster(void *arg)
{
    (void)arg;
    sem_post(&s);
    return NULL;
}

static void *taker(void *arg)
{
    (void)arg;
    got = sem_trywait(&s);
    return NULL;
}

int main(void)
{
    sem_init(&s, 0, 0);
    pthread_t a, b;
    pthread_create(&a, NULL, poster, NULL);
    pthread_create(&b, NULL, taker, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert(got == 0);
    return 0;
}
#endif
