/*
 * A signal sent to a thread while it runs the handler of another, parked
 * at one of the handler's scheduling points: it takes the second signal
 * there, and after both handlers goes back to the pthread_mutex_lock it
 * was blocked in, which still waits for main to unlock.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

static atomic_int in_usr1, got_usr1, got_usr2, locked;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void on_usr1(int sig)
{
    (void)sig;
    atomic_store(&in_usr1, 1);
    /* main sends SIGUSR2 while this handler waits here */
    while (!atomic_load(&got_usr2))
        sched_yield();
    atomic_store(&got_usr1, 1);
}

static void on_usr2(int sig)
{
    (void)sig;
    atomic_store(&got_usr2, 1);
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    atomic_store(&locked, 1);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = on_usr2;
    sigaction(SIGUSR2, &sa, NULL);
    pthread_mutex_lock(&m);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_kill(t, SIGUSR1);
    while (!atomic_load(&in_usr1))
        sched_yield();
    pthread_kill(t, SIGUSR2);
    while (!atomic_load(&got_usr1))
        sched_yield();
    /* the worker is back in pthread_mutex_lock, which main still holds */
    assert(!atomic_load(&locked));
    pthread_mutex_unlock(&m);
    pthread_join(t, NULL);
    assert(atomic_load(&locked));
    return 0;
}
