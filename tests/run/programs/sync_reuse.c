/*
 * A block that held a mutex is freed and allocated again, and the new
 * object's mutex is initialized by assignment (no pthread_mutex_init): the
 * model must start from what the memory says, not from the old mutex.
 * Default: the last reference frees the object with its lock held (the
 * old model would deadlock the new object's lock). -DKIND: a recursive
 * mutex, freed unlocked, gives way to a normal one, whose relock by its
 * owner must fail with EBUSY (the old model relocked it). -DREALLOC: the
 * same through realloc of a block that moves into a freed object's.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct obj {
    pthread_mutex_t m;
    int ref;
    long pad[4];
};

#ifndef KIND
static void put(struct obj *o)
{
    pthread_mutex_lock(&o->m);
    if (--o->ref == 0) {
        free(o); /* with the lock held */
        return;
    }
    pthread_mutex_unlock(&o->m);
}

static void *worker(void *p)
{
    put(p);
    return NULL;
}
#endif

int main(void)
{
#ifdef KIND
    struct obj *a = malloc(sizeof *a);
    pthread_mutexattr_t at;
    pthread_mutexattr_init(&at);
    pthread_mutexattr_settype(&at, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&a->m, &at);
    pthread_mutex_lock(&a->m);
    pthread_mutex_unlock(&a->m);
    free(a);
    struct obj *b = malloc(sizeof *b);
    *b = (struct obj){.m = PTHREAD_MUTEX_INITIALIZER};
    pthread_mutex_lock(&b->m);
    assert(pthread_mutex_trylock(&b->m) == EBUSY);
    pthread_mutex_unlock(&b->m);
    free(b);
#else
    struct obj *o = malloc(sizeof *o);
    pthread_mutex_init(&o->m, NULL);
    o->ref = 2;
    pthread_t t;
    pthread_create(&t, NULL, worker, o);
    put(o);
    pthread_join(t, NULL);
#ifdef REALLOC
    /* realloc takes no block from the thread cache: fill it (7 blocks of
     * the size), so that the next freed, with its mutex locked, goes where
     * realloc looks */
    struct obj *more[8];
    for (int i = 0; i < 8; i++) {
        more[i] = malloc(sizeof *more[i]);
        *more[i] = (struct obj){.m = PTHREAD_MUTEX_INITIALIZER, .ref = 1};
    }
    for (int i = 0; i < 8; i++)
        put(more[i]);
    void *small = malloc(1), *guard = malloc(1); /* small cannot grow in place */
    struct obj *n = realloc(small, sizeof *n);
    free(guard);
#else
    struct obj *n = malloc(sizeof *n);
#endif
    *n = (struct obj){.m = PTHREAD_MUTEX_INITIALIZER, .ref = 1};
    put(n);
#endif
    return 0;
}
