/*
 * main starts a process it never waits for (posix_spawn of "sleep 987.5",
 * a daemon's way), then two threads. Each execution under lineup run
 * would leave one such process running, after lineup too (an audit's run
 * of 20 executions left 20, until session 31): the process that runs the
 * executions is their subreaper, and kills and reaps what each leaves.
 */
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>

extern char **environ;
static atomic_int x;

static void *worker(void *a)
{
    atomic_fetch_add(&x, 1);
    return a;
}

int main(void)
{
    pid_t p;
    char *argv[] = {"sleep", "987.5", 0};
    if (posix_spawnp(&p, "sleep", 0, 0, argv, environ) != 0)
        return 2;
    pthread_t a, b;
    pthread_create(&a, 0, worker, 0);
    pthread_create(&b, 0, worker, 0);
    pthread_join(a, 0);
    pthread_join(b, 0);
    return atomic_load(&x) == 2 ? 0 : 1;
}
