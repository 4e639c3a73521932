/*
 * Spin locks built from atomics: a test-and-set lock (atomic_exchange in a
 * loop) and a ticket lock (fetch_add a ticket, spin on now_serving with
 * atomic_load). A waiting thread re-executes an access that changes
 * nothing; the scheduler must see that as spinning and run the holder
 * instead, never calling a correct lock a livelock or letting an execution
 * run into the step limit. The counter is incremented under the lock with a
 * separate load and store, so a lock that let two threads in would show as
 * a lost increment.
 *
 * Two broken programs must be livelocks: a ticket lock whose first thread
 * never releases it, and a wait for a flag that the only other thread never
 * writes.
 */
#include "programs.h"

#include <stdatomic.h>
#include <stdint.h>

int spin_threads = 2, spin_iters = 2;
int spin_final;

static _Atomic int tas;
static _Atomic unsigned next_ticket, now_serving;
static _Atomic int counter;
static _Atomic int flag, busy;

static void tas_lock(void)
{
    while (atomic_exchange_explicit(&tas, 1, memory_order_acquire))
        ;
}

static void tas_unlock(void)
{
    atomic_store_explicit(&tas, 0, memory_order_release);
}

static void ticket_lock(void)
{
    unsigned me = atomic_fetch_add_explicit(&next_ticket, 1, memory_order_relaxed);
    while (atomic_load_explicit(&now_serving, memory_order_acquire) != me)
        ;
}

static void ticket_unlock(void)
{
    atomic_fetch_add_explicit(&now_serving, 1, memory_order_release);
}

static void increment(void)
{
    int v = atomic_load_explicit(&counter, memory_order_relaxed);
    atomic_store_explicit(&counter, v + 1, memory_order_relaxed);
}

static enum spin_kind kind;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    switch (kind) {
    case SPIN_TAS:
        for (int i = 0; i < spin_iters; i++) {
            tas_lock();
            increment();
            tas_unlock();
        }
        break;
    case SPIN_TICKET:
    case SPIN_TICKET_LEAK:
        for (int i = 0; i < spin_iters; i++) {
            ticket_lock();
            increment();
            if (kind == SPIN_TICKET_LEAK && id == 0 && i == spin_iters - 1)
                break; /* the bug: returns holding the lock */
            ticket_unlock();
        }
        break;
    case SPIN_NEVER_SET:
        if (id == 0) {
            while (!atomic_load(&flag))
                ;
        } else {
            /* busy with something else; the store that would release
             * thread 1 is behind a condition that never holds. It must be
             * there: with no store to flag at all, clang proves the load
             * constant and the wait becomes an empty loop, which is
             * divergence, not a livelock. */
            for (int i = 0; i < spin_iters; i++)
                atomic_fetch_add(&busy, 1);
            if (spin_iters < 0)
                atomic_store(&flag, 1);
        }
        break;
    }
    return NULL;
}

void *spin_locks_main(void *k)
{
    kind = (enum spin_kind)(intptr_t)k;
    atomic_init(&tas, 0);
    atomic_init(&next_ticket, 0);
    atomic_init(&now_serving, 0);
    atomic_init(&counter, 0);
    atomic_init(&flag, 0);
    atomic_init(&busy, 0);
    spin_final = -1;
    pthread_t t[8];
    int n = spin_threads < 8 ? spin_threads : 8;
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    spin_final = atomic_load(&counter);
    return NULL;
}
