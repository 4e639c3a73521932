/*
 * Another thread may run just before an atomic section begins: main reads
 * x in a section after starting a thread that sets it, so the assertion
 * fails in the schedules where the thread runs first. Until the section's
 * begin became a scheduling point, the first step of a section could not
 * be preempted, the failing schedules were never explored, and lineup
 * claimed to have explored every schedule.
 */
#include <assert.h>
#include <lineup.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int x;

static void *setter(void *arg)
{
    (void)arg;
    atomic_store(&x, 1);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, setter, NULL);
    __VERIFIER_atomic_begin();
    int r = atomic_load(&x);
    __VERIFIER_atomic_end();
    assert(r == 0);
    pthread_join(t, NULL);
    return 0;
}
