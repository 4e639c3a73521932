/*
 * An _Atomic struct of 12 bytes is not lock-free: the compiler calls
 * libatomic's generic __atomic_load and __atomic_store, which lineup makes
 * scheduling points, wherever the object lies (libatomic takes a lock-free
 * path when it fits in an aligned 16-byte block, which lineup did not see).
 * Two increments by load and store lose one with a preemption; -DFIXED
 * increments with compare-exchange.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

struct s12 {
    int a, b, c;
};
static _Alignas(16) _Atomic struct s12 s;

static void *incr(void *arg)
{
    (void)arg;
    struct s12 v = atomic_load(&s);
#ifdef FIXED
    struct s12 n;
    do {
        n = v;
        n.b++;
    } while (!atomic_compare_exchange_weak(&s, &v, n));
#else
    v.b++;
    atomic_store(&s, v);
#endif
    return NULL;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, NULL, incr, NULL);
    pthread_create(&b, NULL, incr, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    struct s12 zero = {0, 0, 0};
    struct s12 v = atomic_exchange(&s, zero);
    assert(v.b == 2);
    return 0;
}
