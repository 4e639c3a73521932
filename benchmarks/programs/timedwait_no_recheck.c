/*
 * timedwait_no_recheck: a consumer waits at most one second for an item.
 *
 * Bug: the consumer treats the return of pthread_cond_timedwait() as "an
 * item arrived": it neither looks at the ETIMEDOUT result nor re-tests the
 * queue. When the wait times out before the producer has put anything, it
 * takes from an empty queue.
 *
 * Failing interleaving: the consumer runs first, finds the queue empty and
 * waits; the wait times out (a choice of the scheduler under lineup: timed
 * waits may time out whenever they block) before the producer runs.
 *
 * Preemptions: 0 (the consumer must run before the producer, then the
 * timeout must be chosen).
 * Kind: assertion in the consumer.
 * Fixed (-DFIXED): the consumer waits in a loop on the predicate and, on
 * ETIMEDOUT with the queue still empty, gives up without an item.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER;
static int queue[2];
static int count;
static int consumed, gave_up;

static void *consumer(void *arg)
{
    (void)arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    pthread_mutex_lock(&lock);
#ifdef FIXED
    int rc = 0;
    while (count == 0 && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&nonempty, &lock, &deadline);
    if (count == 0) {
        gave_up = 1;
        pthread_mutex_unlock(&lock);
        return NULL;
    }
#else
    if (count == 0)
        pthread_cond_timedwait(&nonempty, &lock, &deadline);
#endif
    assert(count > 0);
    consumed = queue[--count];
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *producer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    queue[count++] = 7;
    pthread_cond_signal(&nonempty);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void)
{
    pthread_t c, p;
    pthread_create(&c, NULL, consumer, NULL);
    pthread_create(&p, NULL, producer, NULL);
    pthread_join(c, NULL);
    pthread_join(p, NULL);
    assert(consumed == 7 || (gave_up && count == 1));
    return 0;
}
