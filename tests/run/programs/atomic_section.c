/*
 * Two threads increment a counter with a separate load and store inside
 * __VERIFIER_atomic_begin/end: no preemption can split them, so the sum is
 * always 2. Built with -DNO_SECTION the same program loses updates (the
 * control that shows the test can fail). Built with -DPLAIN the counter is
 * a plain int: sections exclude each other, so its accesses do not race.
 */
#include <assert.h>
#include <lineup.h>
#include <pthread.h>
#include <stdatomic.h>

#ifdef PLAIN
static int counter;
#define LOAD(p) (*(p))
#define STORE(p, v) (*(p) = (v))
#else
static atomic_int counter;
#define LOAD(p) atomic_load(p)
#define STORE(p, v) atomic_store(p, v)
#endif

static void *incr(void *arg)
{
    (void)arg;
#ifndef NO_SECTION
    __VERIFIER_atomic_begin();
#endif
    int v = LOAD(&counter);
    STORE(&counter, v + 1);
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
    assert(LOAD(&counter) == 2);
    return 0;
}
