/*
 * Virtual time: under lineup the wall clocks pass only by what sleeps and
 * timed waits that gave up waited (and a microsecond per read), the same in
 * every execution.
 *
 *   (default)    sleeps last at least what they asked for, by every clock
 *                reader (clock_gettime, gettimeofday, time, timespec_get),
 *                also two threads sleeping at once; a loop of sleeps until
 *                a deadline ends (it was taken for a livelock, time not
 *                passing).
 *   -DTIMEDWAIT  a condition wait nobody signals gives up at its deadline,
 *                by the condition's clock (realtime or monotonic): the
 *                clock reads at least the deadline after it.
 *   -DPOLL       a loop that polls the clock, with no sleep, ends.
 *   -DFOREVER    the clocks start at the fixed point run.md names, and a
 *                wait with a deadline at the end of time that gives up
 *                leaves them saturated, not wrapped.
 *   -DBRANCH     a thread that does more or less by what the clock says:
 *                the same on the same schedule (it was uncontrolled
 *                nondeterminism).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static __attribute__((unused)) uint64_t ns_of(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(TIMEDWAIT)
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void wait_by(clockid_t clk)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, clk);
    pthread_cond_t c;
    pthread_cond_init(&c, &a);
    struct timespec deadline;
    clock_gettime(clk, &deadline);
    deadline.tv_nsec += 100 * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&m);
    int rc = pthread_cond_timedwait(&c, &m, &deadline);
    pthread_mutex_unlock(&m);
    assert(rc == ETIMEDOUT);
    struct timespec now;
    clock_gettime(clk, &now);
    assert(now.tv_sec > deadline.tv_sec ||
           (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec));
}

int main(void)
{
    wait_by(CLOCK_REALTIME);
    wait_by(CLOCK_MONOTONIC);
    return 0;
}
#elif defined(FOREVER)
#include <semaphore.h>
int main(void)
{
    /* the clocks start at the documented fixed point */
    assert(time(NULL) == 1767225600);
    assert(ns_of(CLOCK_MONOTONIC) / 1000000000u == 1000);
    /* a wait nobody ends, with a deadline at the end of time, gives up:
     * the clocks saturate, they do not wrap */
    sem_t s;
    sem_init(&s, 0, 0);
    struct timespec never = {.tv_sec = INT64_MAX, .tv_nsec = 0};
    uint64_t before = ns_of(CLOCK_MONOTONIC);
    assert(sem_clockwait(&s, CLOCK_MONOTONIC, &never) == -1 && errno == ETIMEDOUT);
    uint64_t after = ns_of(CLOCK_MONOTONIC), later = ns_of(CLOCK_MONOTONIC);
    assert(after > before && later >= after);
    assert(time(NULL) > 1767225600);
    return 0;
}
#elif defined(POLL)
int main(void)
{
    uint64_t t0 = ns_of(CLOCK_MONOTONIC);
    while (ns_of(CLOCK_MONOTONIC) - t0 < 5 * 1000000u)
        ;
    return 0;
}
#elif defined(BRANCH)
static atomic_int x;

static void *worker(void *arg)
{
    (void)arg;
    /* natively the parity of the microseconds is anybody's guess */
    if (ns_of(CLOCK_REALTIME) / 1000 % 2)
        atomic_store(&x, 1);
    atomic_fetch_add(&x, 2);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    atomic_fetch_add(&x, 4);
    pthread_join(t, NULL);
    return 0;
}
#else
static void *sleeper(void *arg)
{
    (void)arg;
    uint64_t t0 = ns_of(CLOCK_MONOTONIC);
    usleep(30000);
    assert(ns_of(CLOCK_MONOTONIC) - t0 >= 30 * 1000000u);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, sleeper, NULL);
    uint64_t t0 = ns_of(CLOCK_MONOTONIC);
    usleep(50000);
    assert(ns_of(CLOCK_MONOTONIC) - t0 >= 50 * 1000000u);
    struct timespec d = {.tv_sec = 0, .tv_nsec = 20 * 1000000L};
    uint64_t t1 = ns_of(CLOCK_MONOTONIC);
    nanosleep(&d, NULL);
    assert(ns_of(CLOCK_MONOTONIC) - t1 >= 20 * 1000000u);
    struct timeval a, b;
    gettimeofday(&a, NULL);
    time_t s0 = time(NULL);
    sleep(2);
    gettimeofday(&b, NULL);
    assert((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_usec - a.tv_usec) >= 2000000);
    assert(time(NULL) - s0 >= 2);
    struct timespec abs;
    clock_gettime(CLOCK_MONOTONIC, &abs);
    abs.tv_sec += 1;
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL);
    struct timespec u0, u1;
    timespec_get(&u0, TIME_UTC);
    thrd_sleep(&(struct timespec){.tv_sec = 0, .tv_nsec = 1000000L}, NULL);
    timespec_get(&u1, TIME_UTC);
    assert((u1.tv_sec - u0.tv_sec) * 1000000000L + (u1.tv_nsec - u0.tv_nsec) >= 1000000L);
    assert(ns_of(CLOCK_MONOTONIC) >= (uint64_t)abs.tv_sec * 1000000000u + (uint64_t)abs.tv_nsec);
    /* a loop of sleeps until a deadline */
    uint64_t end = ns_of(CLOCK_MONOTONIC) + 20 * 1000000u;
    while (ns_of(CLOCK_MONOTONIC) < end)
        usleep(1000);
    pthread_join(t, NULL);
    return 0;
}
#endif
