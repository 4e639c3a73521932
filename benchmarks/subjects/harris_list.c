/*
 * Harris-Michael lock-free list set (Harris, DISC 2001; Michael, SPAA 2002):
 * a sorted linked list between two sentinels whose next pointers carry a
 * mark bit. remove first marks the victim's next pointer with a CAS (logical
 * deletion: from then on no CAS can link anything behind the victim), then
 * unlinks it with a CAS on the predecessor; every traversal that meets a
 * marked node helps unlink it (Michael's find), restarting when its CAS
 * fails. add links a new node with a CAS on the predecessor's (unmarked)
 * next pointer.
 *
 *   correct            linearizable
 *   -DBUG_NO_MARK      remove unlinks the victim with the predecessor CAS
 *                      alone, without marking it first (the naive lock-free
 *                      list that motivated Harris's mark bit): an add that
 *                      found the victim as its predecessor links its node
 *                      behind it, the CAS succeeds because the victim's
 *                      next pointer did not change, and the new key is
 *                      lost together with the victim (add(2) returns 1,
 *                      contains(2) then returns 0).
 *
 * Operations: add(k) returns 1 if k was added, 0 if present; remove(k)
 * returns 1 if k was removed, 0 if absent; contains(k) returns 1 or 0. Nodes
 * come from an arena and are never reused (the algorithm needs GC or
 * hazard pointers for that).
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define CAPACITY 32
#define MARK ((uintptr_t)1)

struct node {
    int64_t key;
    _Atomic uintptr_t next; /* struct node * | MARK */
};

struct set {
    struct node *head;
    atomic_uint used;
    struct node arena[CAPACITY];
};

static struct node *ptr(uintptr_t w)
{
    return (struct node *)(w & ~MARK);
}

static struct node *node_new(struct set *s, int64_t key)
{
    struct node *n = &s->arena[atomic_fetch_add(&s->used, 1) % CAPACITY];
    n->key = key;
    return n;
}

static void *create(void)
{
    struct set *s = calloc(1, sizeof *s);
    struct node *tail = node_new(s, INT64_MAX);
    s->head = node_new(s, INT64_MIN);
    atomic_init(&s->head->next, (uintptr_t)tail);
    return s;
}

static void destroy(void *obj)
{
    free(obj);
}

/* Michael's find: pred->key < key <= curr->key, both unmarked when seen,
 * unlinking the marked nodes met on the way. */
static void find(struct set *s, int64_t key, struct node **predp, struct node **currp)
{
retry:;
    struct node *pred = s->head;
    struct node *curr = ptr(atomic_load(&pred->next));
    for (;;) {
        uintptr_t succ = atomic_load(&curr->next);
        while (succ & MARK) {
            uintptr_t expected = (uintptr_t)curr;
            if (!atomic_compare_exchange_strong(&pred->next, &expected, succ & ~MARK))
                goto retry;
            curr = ptr(succ);
            succ = atomic_load(&curr->next);
        }
        if (curr->key >= key) {
            *predp = pred;
            *currp = curr;
            return;
        }
        pred = curr;
        curr = ptr(succ);
    }
}

static int64_t add(void *obj, int64_t key)
{
    struct set *s = obj;
    struct node *n = NULL;
    for (;;) {
        struct node *pred, *curr;
        find(s, key, &pred, &curr);
        if (curr->key == key)
            return 0; /* n, if allocated, stays unused in the arena */
        if (n == NULL)
            n = node_new(s, key);
        atomic_store(&n->next, (uintptr_t)curr);
        uintptr_t expected = (uintptr_t)curr;
        if (atomic_compare_exchange_strong(&pred->next, &expected, (uintptr_t)n))
            return 1;
    }
}

static int64_t remove(void *obj, int64_t key)
{
    struct set *s = obj;
    for (;;) {
        struct node *pred, *curr;
        find(s, key, &pred, &curr);
        if (curr->key != key)
            return 0;
        uintptr_t succ = atomic_load(&curr->next);
        if (succ & MARK)
            continue; /* someone else is removing it: find helps */
#ifdef BUG_NO_MARK
        uintptr_t expected = (uintptr_t)curr;
        if (atomic_compare_exchange_strong(&pred->next, &expected, succ))
            return 1;
#else
        if (!atomic_compare_exchange_strong(&curr->next, &succ, succ | MARK))
            continue;
        uintptr_t expected = (uintptr_t)curr;
        if (!atomic_compare_exchange_strong(&pred->next, &expected, succ))
            find(s, key, &pred, &curr); /* let find unlink it */
        return 1;
#endif
    }
}

static int64_t contains(void *obj, int64_t key)
{
    struct set *s = obj;
    struct node *curr = ptr(atomic_load(&s->head->next));
    while (curr->key < key)
        curr = ptr(atomic_load(&curr->next));
    return curr->key == key && !(atomic_load(&curr->next) & MARK);
}

LINEUP_HARNESS(harris_list, create, destroy, LINEUP_OP(add, 1), LINEUP_OP(add, 2), LINEUP_OP(remove, 1),
               LINEUP_OP(contains, 2));
