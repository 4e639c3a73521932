/*
 * What each thread keeps in thread-local storage across the points where
 * others run: errno (the C library's), and with -DOWN_TLS a _Thread_local
 * variable of the program's own. Each thread sets both, lets the others run
 * (an atomic step), and asserts it still sees its own values. Without
 * -DOWN_TLS the program has no TLS of its own, so lineup run shares one TLS
 * among its threads and must keep errno per thread by itself; with it,
 * --tls auto keeps every thread on TLS of its own, and only a forced
 * --tls shared makes the threads overwrite each other's variable.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static atomic_int turns;
#ifdef OWN_TLS
static _Thread_local int mine;
#endif

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < 2; i++) {
        errno = 100 + id;
#ifdef OWN_TLS
        mine = id;
#endif
        atomic_fetch_add(&turns, 1); /* the others may run here */
        assert(errno == 100 + id);
#ifdef OWN_TLS
        assert(mine == id);
#endif
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)(i + 1));
    worker((void *)0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
