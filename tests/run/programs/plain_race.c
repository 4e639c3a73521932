/*
 * A plain (non-atomic) write of one thread and a plain read of another
 * race; the read sees the write only in some schedules, and the assertion
 * that it never does fails. The reduction counts plain accesses in its
 * steps (docs/por.md, section 1): it must find the failure as the search
 * without it does.
 *
 *   (default)  the flag is a local of main, passed to the worker by
 *              address: a thread's own stack is taken as private, so the
 *              worker's access to another's stack must be dependent with
 *              everything (the reduction passed this program).
 *   -DBIG      the flag is near the top of a 1 MiB heap block, which glibc
 *              maps below a thread's stack: a stack's bounds must not
 *              reach past its bottom (a pool thread's did, by the size of
 *              glibc's thread control block and static TLS).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_int a, b, c;
static __thread int tls_used; /* thread-local: --tls auto gives each thread TLS of its own */

static void *worker(void *arg)
{
    char *flag = arg;
    tls_used = 1;
    atomic_store(&a, 1);
    *flag = 1;
    return NULL;
}

int main(void)
{
#ifdef BIG
    char *buf = calloc(1 << 20, 1);
    char *flag = &buf[(1 << 20) - 64];
#else
    char local = 0;
    char *flag = &local;
#endif
    pthread_t t;
    pthread_create(&t, NULL, worker, flag);
    (void)atomic_load(&b);
    int r = *flag;
    atomic_store(&c, r);
    pthread_join(t, NULL);
    assert(r == 0);
    return 0;
}
