/*
 * Two-lock queue (Michael and Scott, PODC 1996): a linked list with a dummy
 * head node, a head lock taken by dequeue and a tail lock taken by enqueue,
 * so that one enqueue and one dequeue can run at the same time. The dummy
 * node is what keeps them apart: enqueue writes only the last node's next
 * pointer and the tail, dequeue only the head, and when the queue is empty
 * the two meet on the dummy's next pointer (an atomic, the one location both
 * sides touch).
 *
 *   correct                   linearizable
 *   -DBUG_NO_DUMMY            the "obvious" version without a dummy node:
 *                             head and tail point at real nodes, NULL when
 *                             empty. Dequeuing the last node sets tail to
 *                             NULL under the head lock while an enqueue,
 *                             under the tail lock, appends to that same
 *                             node: the new value is lost (a later dequeue
 *                             returns -1), or it is put behind a node that
 *                             is gone. head and tail are atomics, as a user
 *                             who sees two locks touch them would write it;
 *                             that does not make the protocol right.
 *
 * Operations: enqueue(v) returns 0; dequeue() returns the oldest value or -1.
 * Nodes come from an arena (never reused).
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define CAPACITY 64

struct node {
    int64_t value;
    _Atomic(struct node *) next;
};

struct queue {
    pthread_mutex_t head_lock;
    pthread_mutex_t tail_lock;
#ifdef BUG_NO_DUMMY
    _Atomic(struct node *) head;
    _Atomic(struct node *) tail;
#else
    struct node *head; /* under head_lock */
    struct node *tail; /* under tail_lock */
#endif
    atomic_uint used;
    struct node arena[CAPACITY];
};

static void *create(void)
{
    struct queue *q = calloc(1, sizeof *q);
    pthread_mutex_init(&q->head_lock, NULL);
    pthread_mutex_init(&q->tail_lock, NULL);
#ifndef BUG_NO_DUMMY
    atomic_init(&q->used, 1);
    q->head = q->tail = &q->arena[0];
#endif
    return q;
}

static void destroy(void *obj)
{
    struct queue *q = obj;
    pthread_mutex_destroy(&q->head_lock);
    pthread_mutex_destroy(&q->tail_lock);
    free(q);
}

static int64_t enqueue(void *obj, int64_t value)
{
    struct queue *q = obj;
    struct node *n = &q->arena[atomic_fetch_add(&q->used, 1) % CAPACITY];
    n->value = value;
    atomic_store(&n->next, NULL);
    pthread_mutex_lock(&q->tail_lock);
#ifdef BUG_NO_DUMMY
    struct node *t = atomic_load(&q->tail);
    if (t == NULL) {
        atomic_store(&q->head, n);
    } else {
        atomic_store(&t->next, n);
    }
    atomic_store(&q->tail, n);
#else
    atomic_store(&q->tail->next, n);
    q->tail = n;
#endif
    pthread_mutex_unlock(&q->tail_lock);
    return 0;
}

static int64_t dequeue(void *obj, int64_t unused)
{
    struct queue *q = obj;
    (void)unused;
    int64_t value = -1;
    pthread_mutex_lock(&q->head_lock);
#ifdef BUG_NO_DUMMY
    struct node *h = atomic_load(&q->head);
    if (h != NULL) {
        value = h->value;
        struct node *next = atomic_load(&h->next);
        atomic_store(&q->head, next);
        if (next == NULL)
            atomic_store(&q->tail, NULL);
    }
#else
    struct node *next = atomic_load(&q->head->next);
    if (next != NULL) {
        value = next->value;
        q->head = next; /* next is the new dummy */
    }
#endif
    pthread_mutex_unlock(&q->head_lock);
    return value;
}

LINEUP_HARNESS(twolock_queue, create, destroy, LINEUP_OP(enqueue, 1), LINEUP_OP(enqueue, 2),
               LINEUP_OP(dequeue, 0));
