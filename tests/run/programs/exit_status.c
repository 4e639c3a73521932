/*
 * A program that reports its own failure through its exit status: main
 * returns 1 when the worker has not set its flag yet when main looks (as in
 * the schedule without preemptions), 0 otherwise. With EXIT_IN_THREAD the
 * worker calls exit(3) itself when it runs after main's store; with
 * EXIT_FN=f (_exit, _Exit, quick_exit, or exit_group: the system call) it
 * calls f(3), after a line printed to a buffered stdout that only exit()
 * flushes.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef EXIT_FN
#define EXIT_IN_THREAD
#include <sys/syscall.h>
#define exit_group(s) syscall(SYS_exit_group, s)
#else
#define EXIT_FN exit
#endif

static atomic_int flag, late;

static void *worker(void *arg)
{
    (void)arg;
#ifdef EXIT_IN_THREAD
    if (atomic_load(&late)) {
        static char buf[BUFSIZ];
        setvbuf(stdout, buf, _IOFBF, sizeof buf);
        fputs("worker: buffered before the exit call\n", stdout);
        EXIT_FN(3);
    }
#endif
    atomic_store(&flag, 1);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    atomic_store(&late, 1);
    int seen = atomic_load(&flag);
    pthread_join(t, NULL);
#ifdef EXIT_IN_THREAD
    (void)seen;
    return 0;
#else
    return seen ? 0 : 1;
#endif
}
