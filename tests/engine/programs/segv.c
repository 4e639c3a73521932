/*
 * A crash in one interleaving only: the reader checks a shared pointer and
 * loads it again to use it; the clearer sets it to NULL. The reader
 * dereferences NULL only when the clearer runs between its check and its
 * use, which needs a preemption of the reader, so the first (default)
 * execution does not crash and the recorded schedule is what makes the
 * replay crash. Both accesses to the pointer are atomics, hence scheduling
 * points; the dereference itself is plain, and its value goes to a global
 * so that the compiler cannot drop it as a dead load.
 */
#include "programs.h"

#include <stdatomic.h>

static int target = 42;
static int *_Atomic shared_ptr;
int segv_seen;

void *segv_clearer(void *arg)
{
    (void)arg;
    atomic_store(&shared_ptr, (int *)0);
    return NULL;
}

void *segv_reader(void *arg)
{
    (void)arg;
    if (atomic_load(&shared_ptr) != NULL) {
        int *p = atomic_load(&shared_ptr);
        segv_seen = *p;
    }
    return NULL;
}

void *segv_main(void *arg)
{
    (void)arg;
    atomic_store(&shared_ptr, &target);
    segv_seen = 0;
    pthread_t c, r;
    pthread_create(&c, NULL, segv_clearer, NULL);
    pthread_create(&r, NULL, segv_reader, NULL);
    pthread_join(c, NULL);
    pthread_join(r, NULL);
    return NULL;
}
