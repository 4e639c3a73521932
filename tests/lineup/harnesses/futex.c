/*
 * Futexes called directly (syscall(SYS_futex)): lineup models FUTEX_WAIT and
 * FUTEX_WAKE, so a waiter blocks in the model instead of the kernel.
 *
 * futex_mutex: Drepper's mutex ("Futexes are tricky", mutex 2; 0 free, 1
 * locked, 2 locked with waiters) guarding a two-field record. With
 * -DBUGGY_RELOCK a woken locker takes the lock with exchange(1) instead of
 * exchange(2), so the unlock after it wakes nobody and a third locker sleeps
 * forever (three preemptions deep).
 *
 * timed: a FUTEX_WAIT with a timeout on a word nobody wakes returns
 * ETIMEDOUT; with the wrong value, EAGAIN.
 *
 * requeue: FUTEX_CMP_REQUEUE, which lineup does not model (a clear error).
 *
 * onmutex: a FUTEX_WAKE on the memory of a pthread mutex (a clear error: the
 * model keeps the mutex there).
 */
#include <lineup.h>

#include <errno.h>
#include <pthread.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct obj {
    atomic_int lock;
    atomic_int a, b;
};

static long futex(atomic_int *word, int op, int val, const struct timespec *ts)
{
    return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

static void lock(atomic_int *f)
{
    int c = 0;
    if (atomic_compare_exchange_strong(f, &c, 1))
        return;
    if (c != 2)
        c = atomic_exchange(f, 2);
    while (c != 0) {
        futex(f, FUTEX_WAIT_PRIVATE, 2, NULL);
#ifdef BUGGY_RELOCK
        c = atomic_exchange(f, 1);
#else
        c = atomic_exchange(f, 2);
#endif
    }
}

static void unlock(atomic_int *f)
{
    if (atomic_exchange(f, 0) == 2)
        futex(f, FUTEX_WAKE_PRIVATE, 1, NULL);
}

static void *create(void)
{
    return calloc(1, sizeof(struct obj));
}

static int64_t write_both(void *o, int64_t v)
{
    struct obj *x = o;
    lock(&x->lock);
    atomic_store(&x->a, (int)v);
    atomic_store(&x->b, (int)v);
    unlock(&x->lock);
    return 0;
}

static int64_t read_both(void *o, int64_t unused)
{
    struct obj *x = o;
    (void)unused;
    lock(&x->lock);
    int64_t r = 100 * atomic_load(&x->a) + atomic_load(&x->b);
    unlock(&x->lock);
    return r;
}

LINEUP_HARNESS(futex_mutex, create, free, LINEUP_OP(write_both, 1), LINEUP_OP(write_both, 2),
               LINEUP_OP(read_both, 0));

/* argument: the value to wait for; the word holds 0 */
static int64_t timed_wait(void *o, int64_t val)
{
    struct obj *x = o;
    struct timespec ts = {0, 1000000};
    return futex(&x->lock, FUTEX_WAIT_PRIVATE, (int)val, &ts) == 0 ? 0 : errno;
}

static int64_t wake(void *o, int64_t unused)
{
    struct obj *x = o;
    (void)unused;
    return futex(&x->lock, FUTEX_WAKE_PRIVATE, 1, NULL);
}

LINEUP_HARNESS(timed, create, free, LINEUP_OP(timed_wait, 0), LINEUP_OP(timed_wait, 1), LINEUP_OP(wake, 0));

static int64_t requeue(void *o, int64_t unused)
{
    struct obj *x = o;
    (void)unused;
    return syscall(SYS_futex, &x->lock, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1, &x->a, 0);
}

LINEUP_HARNESS(requeue, create, free, LINEUP_OP(requeue, 0));

static void *mutex_create(void)
{
    pthread_mutex_t *m = malloc(sizeof *m);
    if (m)
        pthread_mutex_init(m, NULL);
    return m;
}

static int64_t wake_mutex(void *o, int64_t unused)
{
    (void)unused;
    return futex(o, FUTEX_WAKE_PRIVATE, 1, NULL);
}

LINEUP_HARNESS(onmutex, mutex_create, free, LINEUP_OP(wake_mutex, 0));
