/*
 * glibc's __libc_single_threaded is 1 until the process's first
 * pthread_create and 0 for good after it, and code reads it to skip
 * atomics (libstdc++'s reference counts). Threads that share one TLS under
 * lineup start no kernel thread of glibc's, and until session 32 it stayed
 * 1: such code took its single-threaded path (an audit: a lost update on
 * the atomic path passed). The reference count below takes its plain path
 * while the flag is set, as libstdc++'s does: correct, exit 0; with the
 * flag left at 1 its two releases lose one.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/single_threaded.h>

static atomic_int refs = 3;

static void release(void)
{
    if (__libc_single_threaded) {
        int r = atomic_load_explicit(&refs, memory_order_relaxed);
        atomic_store_explicit(&refs, r - 1, memory_order_relaxed);
    } else {
        atomic_fetch_sub(&refs, 1);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    release();
    return NULL;
}

int main(void)
{
    /* (0 before it is allowed too: glibc promises only that 1 means one
     * thread, and lineup's own threads with --tls per-thread clear it) */
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    assert(!__libc_single_threaded);
    release();
    pthread_join(t, NULL);
    assert(atomic_load(&refs) == 1);
    return 0;
}
