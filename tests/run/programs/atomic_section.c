/*
 * Two threads increment a counter with a separate load and store inside
 * __VERIFIER_atomic_begin/end: no preemption can split them, so the sum is
 * always 2. Built with -DNO_SECTION the same program loses updates (the
 * control that shows the test can fail).
 */
#include <assert.h>
#include <lineup.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int counter;

static void *incr(void *arg)
{
    (void)arg;
#ifndef NO_SECTION
    __VERIFIER_atomic_begin();
#endif
    int v = atomic_load(&counter);
    atomic_store(&counter, v + 1);
#ifndef NO_SECTION
    __VERIFIER_atomic_end();
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
    assert(atomic_load(&counter) == 2);
    return 0;
}
