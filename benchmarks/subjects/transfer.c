/*
 * Two bank accounts, each with its own mutex; transfer(n) moves n from one
 * to the other holding both locks, balance() reads one account under its
 * lock, total() reads both under both locks. Locks are always taken in the
 * same global order (account 0, then account 1), whichever direction the
 * money goes.
 *
 *   correct               linearizable
 *   -DBUG_LOCK_ORDER      transfer locks the source account first, then the
 *                         destination: transfer(1) (0 -> 1) and
 *                         transfer(-1) (1 -> 0) each hold one lock and wait
 *                         for the other's (lock-order deadlock, a stuck
 *                         history with both threads blocked in
 *                         pthread_mutex_lock). Test: transfer(1) |
 *                         transfer(-1).
 *
 * Operations: transfer(n) moves n from account 0 to account 1 (n < 0: the
 * other way) and returns 0; balance() returns account 0; total() returns
 * 1000 * account 0 + account 1 (both start at 10).
 */
#include <lineup.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

struct bank {
    pthread_mutex_t lock[2];
    int64_t balance[2];
};

static void *create(void)
{
    struct bank *b = calloc(1, sizeof *b);
    for (int i = 0; i < 2; i++) {
        pthread_mutex_init(&b->lock[i], NULL);
        b->balance[i] = 10;
    }
    return b;
}

static void destroy(void *obj)
{
    struct bank *b = obj;
    for (int i = 0; i < 2; i++)
        pthread_mutex_destroy(&b->lock[i]);
    free(b);
}

static int64_t transfer(void *obj, int64_t n)
{
    struct bank *b = obj;
    int from = n >= 0 ? 0 : 1, to = 1 - from;
    int64_t amount = n >= 0 ? n : -n;
#ifdef BUG_LOCK_ORDER
    pthread_mutex_lock(&b->lock[from]);
    pthread_mutex_lock(&b->lock[to]);
#else
    pthread_mutex_lock(&b->lock[0]);
    pthread_mutex_lock(&b->lock[1]);
#endif
    b->balance[from] -= amount;
    b->balance[to] += amount;
    pthread_mutex_unlock(&b->lock[1]);
    pthread_mutex_unlock(&b->lock[0]);
    return 0;
}

static int64_t balance(void *obj, int64_t unused)
{
    struct bank *b = obj;
    (void)unused;
    pthread_mutex_lock(&b->lock[0]);
    int64_t v = b->balance[0];
    pthread_mutex_unlock(&b->lock[0]);
    return v;
}

static int64_t total(void *obj, int64_t unused)
{
    struct bank *b = obj;
    (void)unused;
    pthread_mutex_lock(&b->lock[0]);
    pthread_mutex_lock(&b->lock[1]);
    int64_t v = 1000 * b->balance[0] + b->balance[1];
    pthread_mutex_unlock(&b->lock[1]);
    pthread_mutex_unlock(&b->lock[0]);
    return v;
}

LINEUP_HARNESS(transfer, create, destroy, LINEUP_OP(transfer, 1), LINEUP_OP(transfer, -1),
               LINEUP_OP(balance, 0), LINEUP_OP(total, 0));
