/*
 * A crash in one interleaving: the reader checks a shared pointer and
 * loads it again to use it; the clearer sets it to NULL in between only
 * when the reader is preempted after its check.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static int target = 42;
static int *_Atomic shared = &target;
static int seen;

static void *clearer(void *arg)
{
    (void)arg;
    atomic_store(&shared, (int *)0);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    if (atomic_load(&shared) != NULL) {
        int *p = atomic_load(&shared);
        seen = *p;
    }
    return NULL;
}

int main(void)
{
    pthread_t c, r;
    pthread_create(&r, NULL, reader, NULL);
    pthread_create(&c, NULL, clearer, NULL);
    pthread_join(r, NULL);
    pthread_join(c, NULL);
    printf("segv: saw %d\n", seen);
    return 0;
}
