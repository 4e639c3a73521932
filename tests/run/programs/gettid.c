/*
 * A recursive spin lock keyed by the kernel thread id, as systems code
 * writes it: every thread needs an id of its own (gettid and
 * syscall(SYS_gettid) agree; the main thread's is the pid). With -DTGKILL
 * (the system call) or -DTGKILL_FN (glibc's tgkill()) a worker checks with
 * signal 0 that itself and the main thread exist by those ids.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int owner; /* 0: free */
static int depth;
static atomic_int inside;

static void rlock(void)
{
    int me = gettid();
    assert(me == syscall(SYS_gettid));
    if (atomic_load(&owner) == me) {
        depth++;
        return;
    }
    int expected = 0;
    while (!atomic_compare_exchange_weak(&owner, &expected, me)) {
        expected = 0;
        sched_yield();
    }
    depth = 1;
}

static void runlock(void)
{
    if (--depth == 0)
        atomic_store(&owner, 0);
}

static void *worker(void *arg)
{
    (void)arg;
    assert(gettid() != getpid());
#ifdef TGKILL
    assert(syscall(SYS_tgkill, getpid(), gettid(), 0) == 0);
    assert(syscall(SYS_tgkill, getpid(), getpid(), 0) == 0);
#endif
#ifdef TGKILL_FN
    assert(tgkill(getpid(), gettid(), 0) == 0);
    assert(tgkill(getpid(), getpid(), 0) == 0);
#endif
    rlock();
    rlock();
    assert(atomic_fetch_add(&inside, 1) == 0);
    atomic_fetch_sub(&inside, 1);
    runlock();
    runlock();
    return NULL;
}

int main(void)
{
    assert(gettid() == getpid());
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
