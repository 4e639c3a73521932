/*
 * flockfile as a lock: two threads hold stdout's across a yield (taking it
 * twice, as it is recursive, and once by ftrylockfile) and check that
 * nobody else is inside. Under lineup's shared TLS glibc's lock had one
 * owner for all threads, so it excluded nobody: the correct program failed
 * (an audit's); with -DBUG the threads take no lock, and it fails rightly.
 * With -DFOREIGN a thread lets go of main's lock: undefined by POSIX, an
 * unsupported call under lineup (it was dropped, and a deadlock followed).
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#ifdef FOREIGN
static void *unlocker(void *arg)
{
    funlockfile(stdout);
    return arg;
}

int main(void)
{
    flockfile(stdout);
    pthread_t t;
    pthread_create(&t, NULL, unlocker, NULL);
    pthread_join(t, NULL);
    return 0;
}
#else
static atomic_int inside;

static void *worker(void *arg)
{
#ifndef BUG
    flockfile(stdout);
    while (ftrylockfile(stdout) != 0) /* its own: recursive, at once */
        sched_yield();
#endif
    assert(atomic_fetch_add(&inside, 1) == 0);
    printf("%ld: in\n", (long)arg);
    sched_yield();
    printf("%ld: out\n", (long)arg);
    atomic_fetch_sub(&inside, 1);
#ifndef BUG
    funlockfile(stdout);
    funlockfile(stdout);
#endif
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, worker, (void *)1L);
    pthread_create(&b, NULL, worker, (void *)2L);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
#endif
