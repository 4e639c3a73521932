/*
 * fork() under lineup run is an unsupported call (exit status 2), reported
 * where it is made, not at the thread's last scheduling point (the join).
 * With VFORK, vfork(): unsupported too (its child's _exit was taken for the
 * execution's own, a false crash, until session 31), and outside lineup
 * the program still runs.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#ifdef VFORK
#define fork vfork
#endif
static atomic_int x;

static void *worker(void *arg)
{
    (void)arg;
    atomic_fetch_add(&x, 1);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    int sum = 0;
    for (int i = 0; i < 10; i++)
        sum += i;
    pid_t p = fork(); /* line 31 */
    if (p == 0)
        _exit(0);
    return sum == 45 ? 0 : 1;
}
