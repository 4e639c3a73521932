/*
 * Livelock: each thread raises its own flag and waits for the other's to
 * go down, forever (a broken "polite" protocol). Both stay runnable, both
 * only re-read unchanged memory once both flags are up.
 */
#include <pthread.h>
#include <stdatomic.h>

static atomic_int want[2];

static void *polite(void *arg)
{
    int me = (int)(long)arg, other = 1 - me;
    atomic_store(&want[me], 1);
    while (atomic_load(&want[other]))
        ;
    atomic_store(&want[me], 0);
    return NULL;
}

int main(void)
{
    pthread_t t0, t1;
    pthread_create(&t0, NULL, polite, (void *)0L);
    pthread_create(&t1, NULL, polite, (void *)1L);
    pthread_join(t0, NULL);
    pthread_join(t1, NULL);
    return 0;
}
