/*
 * A timer's signal arrives at a time lineup does not control: its handler
 * runs within the step it interrupts, its atomic accesses are no
 * scheduling points (they were, at a place that changed from one run of a
 * schedule to the next: reported as nondeterminism), and the program's
 * schedules do not depend on it. The worker arms the timer and works while
 * main waits for it: its first act is a scheduling point, where the first
 * execution leaves it until main blocks in pthread_join, so that the timer
 * is armed only then, however late a loaded machine lets it fire (armed at
 * once, it fired in main's steps there). With -DLOCK the handler calls pthread_mutex_lock: an
 * unsupported call there. With -DASSERT its assertion fails: a failure of
 * the thread it interrupted, the worker.
 */
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/time.h>

static atomic_int ticks, counter;
#ifdef LOCK
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
#endif

static void on_alarm(int sig)
{
    (void)sig;
#ifdef LOCK
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
#endif
#ifdef ASSERT
    assert(atomic_load(&ticks) < 0);
#endif
    atomic_fetch_add(&ticks, 1);
}

static void *worker(void *arg)
{
    (void)arg;
    atomic_fetch_add(&counter, 1);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    /* first after 1 ms, when main waits in pthread_join; then often */
    struct itimerval it = {{0, 50}, {0, 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
    /* long enough for the timer to fire several times */
    for (int i = 0; i < 20000; i++)
        atomic_fetch_add(&counter, 1);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    for (int i = 0; i < 3; i++)
        atomic_fetch_add(&counter, 1);
    pthread_join(t, NULL);
    assert(atomic_load(&counter) == 20004);
    return 0;
}
