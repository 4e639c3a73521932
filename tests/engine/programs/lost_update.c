/*
 * Lost update: two threads each increment a shared counter twice, the buggy
 * way with a separate atomic load and store, the fixed way with fetch_add.
 * Every atomic access is a scheduling point, so DFS must reach the
 * interleavings where a store overwrites the other thread's increment (final
 * values 2 and 3), and the fetch_add version must end at 4 in all of them.
 */
#include "programs.h"

#include <stdatomic.h>
#include <stdint.h>

int lost_update_final;
static _Atomic int counter;

static void *racy_incr(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++) {
        int x = atomic_load(&counter);
        atomic_store(&counter, x + 1);
    }
    return NULL;
}

static void *atomic_incr(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++)
        atomic_fetch_add(&counter, 1);
    return NULL;
}

void *lost_update_main(void *variant)
{
    void *(*fn)(void *) = variant == PROG_FIXED ? atomic_incr : racy_incr;
    atomic_init(&counter, 0);
    lost_update_final = -1;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, fn, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    lost_update_final = atomic_load(&counter);
    return NULL;
}
