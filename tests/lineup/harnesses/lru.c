/*
 * A thread-safe LRU cache of capacity 2 guarded by a pthread_rwlock.
 * get(k) (write lock: it moves the entry to the front) returns the cached
 * value or -1; load(k) makes sure k is cached: it returns 0 when k already
 * was, 1 when it loaded it (evicting the least recently used entry);
 * contains(k) (read lock) returns 1 or 0. With -DBUGGY_NO_RECHECK, load() checks under
 * the read lock, unlocks, takes the write lock and inserts without checking
 * again: two loads of one key both load it, and the cache holds it twice.
 *
 * One of the harnesses written as a new user would (tests/lineup/CMakeLists.txt,
 * "New users' objects").
 */
#include <lineup.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define CAP 2
struct lru {
    pthread_rwlock_t rw;
    int64_t keys[CAP + 1]; /* keys[0] most recent */
    int n;
};
static void *create(void)
{
    struct lru *c = calloc(1, sizeof *c);
    pthread_rwlock_init(&c->rw, NULL);
    return c;
}
static void destroy(void *o)
{
    struct lru *c = o;
    pthread_rwlock_destroy(&c->rw);
    free(c);
}
static int find(struct lru *c, int64_t k)
{
    for (int i = 0; i < c->n; i++)
        if (c->keys[i] == k)
            return i;
    return -1;
}
static void to_front(struct lru *c, int i, int64_t k)
{
    for (; i > 0; i--)
        c->keys[i] = c->keys[i - 1];
    c->keys[0] = k;
}
static int64_t get(void *o, int64_t k)
{
    struct lru *c = o;
    pthread_rwlock_wrlock(&c->rw);
    int i = find(c, k);
    if (i >= 0)
        to_front(c, i, k);
    pthread_rwlock_unlock(&c->rw);
    return i >= 0 ? 10 * k : -1;
}
static int64_t contains(void *o, int64_t k)
{
    struct lru *c = o;
    pthread_rwlock_rdlock(&c->rw);
    int r = find(c, k) >= 0;
    pthread_rwlock_unlock(&c->rw);
    return r;
}
static int64_t load(void *o, int64_t k)
{
    struct lru *c = o;
    pthread_rwlock_rdlock(&c->rw);
    int hit = find(c, k) >= 0;
    pthread_rwlock_unlock(&c->rw);
    if (hit)
        return 0;
    pthread_rwlock_wrlock(&c->rw);
#ifndef BUGGY_NO_RECHECK
    if (find(c, k) >= 0) {
        pthread_rwlock_unlock(&c->rw);
        return 0;
    }
#endif
    int i = c->n < CAP ? c->n++ : CAP - 1; /* evict the last */
    to_front(c, i, k);
    pthread_rwlock_unlock(&c->rw);
    return 1;
}
LINEUP_HARNESS(lru, create, destroy, LINEUP_OP(load, 1), LINEUP_OP(load, 2), LINEUP_OP(load, 3),
               LINEUP_OP(get, 1), LINEUP_OP(contains, 2));
