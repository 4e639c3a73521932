/*
 * shutdown_notify_race: a one-worker thread pool shut down by main.
 *
 * Bug: pool_shutdown() sets the (atomic) shutdown flag and broadcasts
 * without holding the pool mutex. The worker tests its predicate under the
 * mutex, but the flag can change and the broadcast can happen between the
 * worker's test and its pthread_cond_wait(): the broadcast finds no waiter,
 * the worker then sleeps forever, and main waits for it in join.
 *
 * Failing interleaving: main submits the task and is preempted before the
 * shutdown; the worker runs the task, tests the predicate (empty, not shut
 * down) and is preempted just before pthread_cond_wait; main sets the flag,
 * broadcasts, joins; the worker waits forever.
 *
 * Preemptions: 2 (main after submitting, the worker between its test and
 * its wait).
 * Kind: deadlock (lost wakeup; natively: a hang).
 * Fixed (-DFIXED): the flag is set and the broadcast sent under the mutex.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cond = PTHREAD_COND_INITIALIZER;
static int pending;
static atomic_int shutting_down;
static int tasks_run;

static void *worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&pool_lock);
        while (pending == 0 && !atomic_load(&shutting_down))
            pthread_cond_wait(&pool_cond, &pool_lock);
        if (pending == 0) {
            pthread_mutex_unlock(&pool_lock);
            return NULL;
        }
        pending--;
        pthread_mutex_unlock(&pool_lock);
        tasks_run++; /* the task */
    }
}

static void pool_submit(void)
{
    pthread_mutex_lock(&pool_lock);
    pending++;
    pthread_cond_signal(&pool_cond);
    pthread_mutex_unlock(&pool_lock);
}

static void pool_shutdown(void)
{
#ifdef FIXED
    pthread_mutex_lock(&pool_lock);
    atomic_store(&shutting_down, 1);
    pthread_cond_broadcast(&pool_cond);
    pthread_mutex_unlock(&pool_lock);
#else
    atomic_store(&shutting_down, 1);
    pthread_cond_broadcast(&pool_cond);
#endif
}

int main(void)
{
    pthread_t w;
    pthread_create(&w, NULL, worker, NULL);
    pool_submit();
    pool_shutdown();
    pthread_join(w, NULL);
    assert(tasks_run == 1);
    return 0;
}
