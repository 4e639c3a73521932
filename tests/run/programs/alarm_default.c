/*
 * A signal nobody announced ends the process: alarm(1) with SIGALRM's
 * default action, while main computes without a scheduling point. No
 * handler sees it and no call of the program's sent it, so the report can
 * only say what killed the process and which thread ran last.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_int started;

static void *worker(void *arg)
{
    (void)arg;
    atomic_store(&started, 1);
    return NULL;
}

int main(void)
{
    alarm(1);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    for (unsigned long i = 0;; i++)
        __asm__ volatile("" : : "r"(i));
    return 0;
}
