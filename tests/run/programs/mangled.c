/*
 * A failure in a function with a C++ name (given here by an asm label, as
 * a C++ compiler would mangle G::check()): the report names it as C++
 * does, not as "_ZN1G5checkEv" (an audit).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int state;

void check(void) __asm__("_ZN1G5checkEv");
__attribute__((noinline)) void check(void)
{
    assert(atomic_load(&state) != 1);
}

static void *worker(void *arg)
{
    (void)arg;
    atomic_store(&state, 1);
    atomic_store(&state, 2);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    check();
    pthread_join(t, NULL);
    return 0;
}
