/*
 * Reader-writer lock built from a mutex and two condition variables, with
 * writer preference: readers wait while a writer holds the lock or waits
 * for it; the last reader out wakes a waiting writer; a writer leaving
 * wakes the next writer if there is one, else every waiting reader. It
 * protects a pair that write(v) sets to (v, v) and read() reads, so readers
 * and writers that overlap show as a torn pair.
 *
 *   correct              linearizable
 *   -DBUG_LOST_WAKEUP    a writer leaving with no writer waiting wakes the
 *                        readers with pthread_cond_signal instead of
 *                        pthread_cond_broadcast: of two readers that queued
 *                        behind the writer only one wakes, and since the
 *                        last reader out wakes only writers, the other one
 *                        waits forever (stuck read()). Needs three threads:
 *                        write(1) | read() | read().
 *
 * Operations: write(v) returns 0; read() returns 10 * first + second. The
 * pair is relaxed atomics so that lineup can preempt between its two words
 * (the lock is what is under test).
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct rwlock {
    pthread_mutex_t m;
    pthread_cond_t readers_cv;
    pthread_cond_t writers_cv;
    int readers;         /* active readers */
    int waiting_writers; /* writers waiting for the lock */
    bool writer;         /* a writer holds the lock */
    _Atomic int64_t first;
    _Atomic int64_t second;
};

static void *create(void)
{
    struct rwlock *l = calloc(1, sizeof *l);
    pthread_mutex_init(&l->m, NULL);
    pthread_cond_init(&l->readers_cv, NULL);
    pthread_cond_init(&l->writers_cv, NULL);
    return l;
}

static void destroy(void *obj)
{
    struct rwlock *l = obj;
    pthread_cond_destroy(&l->writers_cv);
    pthread_cond_destroy(&l->readers_cv);
    pthread_mutex_destroy(&l->m);
    free(l);
}

static void read_lock(struct rwlock *l)
{
    pthread_mutex_lock(&l->m);
    while (l->writer || l->waiting_writers > 0)
        pthread_cond_wait(&l->readers_cv, &l->m);
    l->readers++;
    pthread_mutex_unlock(&l->m);
}

static void read_unlock(struct rwlock *l)
{
    pthread_mutex_lock(&l->m);
    if (--l->readers == 0 && l->waiting_writers > 0)
        pthread_cond_signal(&l->writers_cv);
    pthread_mutex_unlock(&l->m);
}

static void write_lock(struct rwlock *l)
{
    pthread_mutex_lock(&l->m);
    l->waiting_writers++;
    while (l->writer || l->readers > 0)
        pthread_cond_wait(&l->writers_cv, &l->m);
    l->waiting_writers--;
    l->writer = true;
    pthread_mutex_unlock(&l->m);
}

static void write_unlock(struct rwlock *l)
{
    pthread_mutex_lock(&l->m);
    l->writer = false;
    if (l->waiting_writers > 0)
        pthread_cond_signal(&l->writers_cv);
    else
#ifdef BUG_LOST_WAKEUP
        pthread_cond_signal(&l->readers_cv);
#else
        pthread_cond_broadcast(&l->readers_cv);
#endif
    pthread_mutex_unlock(&l->m);
}

static int64_t write(void *obj, int64_t v)
{
    struct rwlock *l = obj;
    write_lock(l);
    atomic_store_explicit(&l->first, v, memory_order_relaxed);
    atomic_store_explicit(&l->second, v, memory_order_relaxed);
    write_unlock(l);
    return 0;
}

static int64_t read(void *obj, int64_t unused)
{
    struct rwlock *l = obj;
    (void)unused;
    read_lock(l);
    int64_t a = atomic_load_explicit(&l->first, memory_order_relaxed);
    int64_t b = atomic_load_explicit(&l->second, memory_order_relaxed);
    read_unlock(l);
    return 10 * a + b;
}

LINEUP_HARNESS(rwlock, create, destroy, LINEUP_OP(write, 1), LINEUP_OP(write, 2), LINEUP_OP(read, 0));
