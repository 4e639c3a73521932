/*
 * Michael-Scott lock-free queue (Michael and Scott, PODC 1996): a singly
 * linked list with a dummy head node; enqueue links a node after the last
 * one with a CAS on its next pointer and then swings the tail (helping a
 * lagging tail when it finds one); dequeue swings the head to its successor
 * and returns the successor's value. Nodes come from an arena and are never
 * reused, so there is no ABA (the algorithm needs GC or hazard pointers for
 * that; treiber.c shows the ABA bug).
 *
 *   correct                       linearizable
 *   -DBUG_MISSING_CAS             enqueue checks that the last node has no
 *                                 successor, then links with a plain atomic
 *                                 store instead of a CAS: two enqueues that
 *                                 both saw the same last node overwrite each
 *                                 other's link and one value is lost (a
 *                                 later dequeue returns -1, or the value of
 *                                 the other enqueue twice in a row).
 *   -DBUG_UNPUBLISHED_NODE        enqueue links the node first and writes its
 *                                 value only after swinging the tail: the
 *                                 node is reachable before it is initialized,
 *                                 and a dequeue between the two returns the
 *                                 arena's 0 instead of the value.
 *
 * Operations: enqueue(v) returns 0; dequeue() returns the oldest value or -1.
 * The value is a plain field written before the node is published (release
 * by the CAS) and read after it is reached (acquire), as in the paper. In the
 * unpublished-node variant the tail CAS between the link and the value store
 * is the scheduling point that opens the window: lineup preempts only at
 * atomics and pthread calls, so a store right after the last atomic of an
 * operation could not be observed half-done.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define CAPACITY 64

struct node {
    int64_t value;
    _Atomic(struct node *) next;
};

struct queue {
    _Atomic(struct node *) head;
    _Atomic(struct node *) tail;
    atomic_uint used;
    struct node arena[CAPACITY];
};

static void *create(void)
{
    struct queue *q = calloc(1, sizeof *q);
    struct node *dummy = &q->arena[0];
    atomic_init(&q->used, 1);
    atomic_init(&q->head, dummy);
    atomic_init(&q->tail, dummy);
    return q;
}

static void destroy(void *obj)
{
    free(obj);
}

static int64_t enqueue(void *obj, int64_t value)
{
    struct queue *q = obj;
    struct node *n = &q->arena[atomic_fetch_add(&q->used, 1) % CAPACITY];
#ifndef BUG_UNPUBLISHED_NODE
    n->value = value;
#endif
    struct node *t;
    for (;;) {
        t = atomic_load(&q->tail);
        struct node *next = atomic_load(&t->next);
        if (t != atomic_load(&q->tail))
            continue;
        if (next != NULL) {
            /* the tail lags behind: help the other enqueue, then retry */
            atomic_compare_exchange_strong(&q->tail, &t, next);
            continue;
        }
#ifdef BUG_MISSING_CAS
        atomic_store(&t->next, n);
        break;
#else
        if (atomic_compare_exchange_strong(&t->next, &next, n))
            break;
#endif
    }
    atomic_compare_exchange_strong(&q->tail, &t, n);
#ifdef BUG_UNPUBLISHED_NODE
    n->value = value;
#endif
    return 0;
}

static int64_t dequeue(void *obj, int64_t unused)
{
    struct queue *q = obj;
    (void)unused;
    for (;;) {
        struct node *h = atomic_load(&q->head);
        struct node *t = atomic_load(&q->tail);
        struct node *next = atomic_load(&h->next);
        if (h != atomic_load(&q->head))
            continue;
        if (h == t) {
            if (next == NULL)
                return -1;
            atomic_compare_exchange_strong(&q->tail, &t, next);
            continue;
        }
        int64_t value = next->value;
        if (atomic_compare_exchange_strong(&q->head, &h, next))
            return value;
    }
}

LINEUP_HARNESS(msqueue, create, destroy, LINEUP_OP(enqueue, 1), LINEUP_OP(enqueue, 2), LINEUP_OP(dequeue, 0));
