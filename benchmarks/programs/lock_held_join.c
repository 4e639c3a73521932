/*
 * lock_held_join: main stops a worker while holding the state lock.
 *
 * Bug: main takes the state lock, sets `stopping` and joins the worker
 * without releasing the lock first. The worker takes the same lock to look
 * at `stopping`; if it has not finished by then, it blocks on the lock and
 * main blocks in join: a deadlock between a lock and a join.
 *
 * Failing interleaving: the default one: main goes on after creating the
 * worker, takes the lock and joins before the worker has run.
 *
 * Preemptions: 0 (the program deadlocks unless the worker is run to
 * completion before main takes the lock, which needs a preemption of main).
 * Kind: deadlock (natively: a hang).
 * Fixed (-DFIXED): main releases the lock before joining.
 * Native (native.sh): hangs within the first few runs.
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>

#define ROUNDS 2

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static int stopping;
static int rounds_done;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&state_lock);
        int stop = stopping;
        if (!stop)
            rounds_done++;
        pthread_mutex_unlock(&state_lock);
        if (stop)
            break;
    }
    return NULL;
}

int main(void)
{
    pthread_t w;
    pthread_create(&w, NULL, worker, NULL);
    pthread_mutex_lock(&state_lock);
    stopping = 1;
#ifdef FIXED
    pthread_mutex_unlock(&state_lock);
    pthread_join(w, NULL);
#else
    pthread_join(w, NULL);
    pthread_mutex_unlock(&state_lock);
#endif
    assert(rounds_done <= ROUNDS);
    return 0;
}
