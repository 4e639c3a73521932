/*
 * Lazy list set (Heller, Hendler, Herlihy, Luchangco, Moir, Scherer and
 * Shavit, OPODIS 2005): a sorted linked list between two sentinels with a
 * lock per node. add and remove traverse without locks, lock the
 * predecessor and the current node, and validate that both are still in the
 * list (not marked) and adjacent before changing anything; remove marks a
 * node (logical deletion) before unlinking it; contains takes no lock and
 * trusts the mark.
 *
 *   correct                 linearizable
 *   -DBUG_NO_MARK_CHECK     validate only checks that pred->next is still
 *                           curr, not that pred is unmarked: an add that
 *                           found pred = 1 while remove(1) was unlinking it
 *                           inserts its node behind the removed node, out of
 *                           the list; the add returns 1 (added) but
 *                           contains() does not see the key and a second
 *                           add of it succeeds again.
 *
 * Operations: add(k) returns 1 if k was added, 0 if present; remove(k)
 * returns 1 if k was removed, 0 if absent; contains(k) returns 1 or 0.
 * Nodes come from an arena (never reused, as the algorithm assumes a garbage
 * collector); their mutexes are initialized when the node is allocated,
 * before it is published.
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define CAPACITY 32

struct node {
    int64_t key;
    _Atomic(struct node *) next;
    atomic_bool marked;
    pthread_mutex_t lock;
};

struct set {
    struct node *head; /* sentinel, key INT64_MIN */
    atomic_uint used;
    struct node arena[CAPACITY];
};

static struct node *node_new(struct set *s, int64_t key, struct node *next)
{
    struct node *n = &s->arena[atomic_fetch_add(&s->used, 1) % CAPACITY];
    n->key = key;
    atomic_init(&n->next, next);
    atomic_init(&n->marked, false);
    pthread_mutex_init(&n->lock, NULL);
    return n;
}

static void *create(void)
{
    struct set *s = calloc(1, sizeof *s);
    struct node *tail = node_new(s, INT64_MAX, NULL);
    s->head = node_new(s, INT64_MIN, tail);
    return s;
}

static void destroy(void *obj)
{
    struct set *s = obj;
    unsigned n = atomic_load(&s->used);
    for (unsigned i = 0; i < n && i < CAPACITY; i++)
        pthread_mutex_destroy(&s->arena[i].lock);
    free(s);
}

static bool validate(struct node *pred, struct node *curr)
{
#ifdef BUG_NO_MARK_CHECK
    return atomic_load(&pred->next) == curr;
#else
    return !atomic_load(&pred->marked) && !atomic_load(&curr->marked) && atomic_load(&pred->next) == curr;
#endif
}

/* Finds pred < key <= curr, locks both and returns once they validate. */
static void locate(struct set *s, int64_t key, struct node **predp, struct node **currp)
{
    for (;;) {
        struct node *pred = s->head;
        struct node *curr = atomic_load(&pred->next);
        while (curr->key < key) {
            pred = curr;
            curr = atomic_load(&curr->next);
        }
        pthread_mutex_lock(&pred->lock);
        pthread_mutex_lock(&curr->lock);
        if (validate(pred, curr)) {
            *predp = pred;
            *currp = curr;
            return;
        }
        pthread_mutex_unlock(&curr->lock);
        pthread_mutex_unlock(&pred->lock);
    }
}

static int64_t add(void *obj, int64_t key)
{
    struct set *s = obj;
    struct node *pred, *curr;
    locate(s, key, &pred, &curr);
    int64_t added = 0;
    if (curr->key != key) {
        atomic_store(&pred->next, node_new(s, key, curr));
        added = 1;
    }
    pthread_mutex_unlock(&curr->lock);
    pthread_mutex_unlock(&pred->lock);
    return added;
}

static int64_t remove(void *obj, int64_t key)
{
    struct set *s = obj;
    struct node *pred, *curr;
    locate(s, key, &pred, &curr);
    int64_t removed = 0;
    if (curr->key == key) {
        atomic_store(&curr->marked, true);
        atomic_store(&pred->next, atomic_load(&curr->next));
        removed = 1;
    }
    pthread_mutex_unlock(&curr->lock);
    pthread_mutex_unlock(&pred->lock);
    return removed;
}

static int64_t contains(void *obj, int64_t key)
{
    struct set *s = obj;
    struct node *curr = s->head;
    while (curr->key < key)
        curr = atomic_load(&curr->next);
    return curr->key == key && !atomic_load(&curr->marked);
}

LINEUP_HARNESS(lazy_list, create, destroy, LINEUP_OP(add, 1), LINEUP_OP(add, 2), LINEUP_OP(remove, 1),
               LINEUP_OP(contains, 2));
