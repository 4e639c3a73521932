/*
 * Thread ids under lineup: every controlled thread of an execution runs
 * on one kernel thread, so a worker's gettid() is made up. It must not
 * be the id of a real thread (lineup's own threads have ids right after
 * the pid): it lies above the kernel's pid_max, /proc/self/task has no
 * entry of that name, and the calls that take a thread id act on the
 * kernel thread the worker runs on while it lives, and fail with ESRCH
 * once it is gone, as natively.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static pid_t worker_tid;

static void *worker(void *arg)
{
    (void)arg;
    pid_t me = gettid();
    worker_tid = me;
    if (!getenv("LINEUP_RUN"))
        return NULL; /* natively, a real id */
    long pid_max = 0;
    FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
    if (f) {
        if (fscanf(f, "%ld", &pid_max) != 1)
            pid_max = 0;
        fclose(f);
    }
    assert(pid_max > 0 && me > pid_max);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d", (int)me);
    assert(access(path, F_OK) != 0);
    /* the worker's own affinity is its kernel thread's */
    cpu_set_t mine, kernel;
    assert(sched_getaffinity(me, sizeof mine, &mine) == 0);
    assert(sched_getaffinity(0, sizeof kernel, &kernel) == 0);
    assert(CPU_EQUAL(&mine, &kernel));
    assert(sched_setaffinity(me, sizeof mine, &mine) == 0);
    assert(syscall(SYS_sched_getaffinity, me, sizeof mine, &mine) > 0);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    /* the worker is gone: its id names no thread */
    cpu_set_t set;
    errno = 0;
    assert(sched_getaffinity(worker_tid, sizeof set, &set) == -1 && errno == ESRCH);
    assert(syscall(SYS_sched_getaffinity, worker_tid, sizeof set, &set) == -1 && errno == ESRCH);
    assert(sched_getaffinity(gettid(), sizeof set, &set) == 0);
    return 0;
}
