/*
 * lost_wakeup_flag: a one-shot event (start gate) built from a flag, a
 * mutex and a condition variable.
 *
 * Bug: event_wait() has a lock-free fast path for the common case where
 * the event already happened: an atomic load of the flag before taking the
 * mutex. But when the flag is not set yet, it takes the mutex and waits
 * without testing the flag again. If event_set() runs between the fast-path
 * test and the wait, its broadcast finds nobody waiting and the waiter then
 * waits for a wakeup that already happened. (The flag is atomic: the bug is
 * a lost wakeup, not a data race.)
 *
 * Failing interleaving: the waiter reads fired == 0 and is preempted before
 * pthread_mutex_lock; the setter sets the flag and broadcasts; the waiter
 * locks, waits forever.
 *
 * Preemptions: 1 (the waiter between its test and its lock).
 * Kind: deadlock (lost wakeup; natively: a hang).
 * Fixed (-DFIXED): after the fast path, the flag is tested again under the
 * mutex, in a loop.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

struct event {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    atomic_int fired;
};

static struct event start = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
static int work_done;

static void event_wait(struct event *e)
{
    if (atomic_load_explicit(&e->fired, memory_order_acquire))
        return; /* fast path */
    pthread_mutex_lock(&e->lock);
#ifdef FIXED
    while (!atomic_load_explicit(&e->fired, memory_order_relaxed))
        pthread_cond_wait(&e->cond, &e->lock);
#else
    pthread_cond_wait(&e->cond, &e->lock);
#endif
    pthread_mutex_unlock(&e->lock);
}

static void event_set(struct event *e)
{
    pthread_mutex_lock(&e->lock);
    atomic_store_explicit(&e->fired, 1, memory_order_release);
    pthread_cond_broadcast(&e->cond);
    pthread_mutex_unlock(&e->lock);
}

static void *worker(void *arg)
{
    (void)arg;
    event_wait(&start);
    work_done = 1;
    return NULL;
}

static void *starter(void *arg)
{
    (void)arg;
    event_set(&start);
    return NULL;
}

int main(void)
{
    pthread_t w, s;
    pthread_create(&w, NULL, worker, NULL);
    pthread_create(&s, NULL, starter, NULL);
    pthread_join(w, NULL);
    pthread_join(s, NULL);
    assert(work_done == 1);
    return 0;
}
