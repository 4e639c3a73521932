/*
 * A worker waits 1.5 ms for a semaphore and sets a cancel flag when it gives
 * up; main looks at the flag before each of its three 1 ms sleeps. Natively
 * main most often sees the flag at its third look (seen == 2), and the
 * assertion that it does not fails. Everyone spins there (main's sleeps, the
 * wait that would give up), and giving up is explored at a cost of 1 at the
 * turns after news: until a review in session 30, only at the first, so
 * seen == 0 and 1 were found and 2 never, with every schedule said to be
 * explored.
 */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static sem_t s;
static atomic_int cancel;
static int seen = -1;

static void *worker(void *arg)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 1500000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    if (sem_timedwait(&s, &ts) != 0)
        atomic_store(&cancel, 1);
    return arg;
}

int main(void)
{
    sem_init(&s, 0, 0);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    for (int i = 0; i < 3; i++) {
        if (atomic_load(&cancel)) {
            seen = i;
            break;
        }
        usleep(1000);
    }
    sem_post(&s);
    pthread_join(t, NULL);
    assert(seen != 2);
    return 0;
}
