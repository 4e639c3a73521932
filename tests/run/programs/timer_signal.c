/*
 * A timer's signal arrives at a time lineup does not control: its handler
 * runs within the step it interrupts, its atomic accesses are no
 * scheduling points (they were, at a place that changed from one run of a
 * schedule to the next: reported as nondeterminism), and the program's
 * schedules do not depend on it. With -DLOCK the handler calls
 * pthread_mutex_lock: an unsupported call there.
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
    atomic_fetch_add(&ticks, 1);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++)
        atomic_fetch_add(&counter, 1);
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 50}, {0, 50}};
    setitimer(ITIMER_REAL, &it, NULL);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    /* long enough for the timer to fire several times */
    for (int i = 0; i < 5000; i++)
        atomic_fetch_add(&counter, 1);
    pthread_join(t, NULL);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    assert(atomic_load(&counter) == 5003);
    return 0;
}
