/*
 * A reader that keeps a pointer to a node another thread frees and whose
 * memory malloc hands out again at once: the reader may read the new
 * node's first value (5), a use after free, which aborts here. The
 * reduction must see the stale read and the new owner's writes as the
 * same bytes: the node comes from before main's execution (a constructor,
 * CTOR) or from main itself (an audit and a review found both lost with
 * reduction on).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct node {
    long pad[2];
    long val;
};

static struct node *_Atomic slot;
static _Atomic int point;

static void publish_first(void)
{
    struct node *n = malloc(sizeof *n);
    if (!n)
        abort();
    n->val = 7;
    atomic_store(&slot, n);
}

#ifdef CTOR
__attribute__((constructor)) static void init(void)
{
    publish_first();
}
#endif

static void *reader(void *arg)
{
    (void)arg;
    struct node *n = atomic_load(&slot);
    if (!n)
        return NULL;
    atomic_load(&point);
    long v = n->val;
    atomic_load(&point);
    if (v == 5) {
        fprintf(stderr, "stale read of 5\n");
        abort();
    }
    return NULL;
}

static void *replace(void *arg)
{
    (void)arg;
    struct node *old = atomic_exchange(&slot, NULL);
    free(old);
    struct node *n = malloc(sizeof *n);
    if (!n)
        abort();
    n->val = 5;
    atomic_fetch_add(&point, 1);
    n->val = 6;
    atomic_store(&slot, n);
    return NULL;
}

int main(void)
{
#ifndef CTOR
    publish_first();
#endif
    pthread_t t1, t2;
    pthread_create(&t1, NULL, reader, NULL);
    pthread_create(&t2, NULL, replace, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return 0;
}
