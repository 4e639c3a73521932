/*
 * twostage: writers update a record in two stages, each under its own
 * lock (stage 1: data1 = v under m1; stage 2: data2 = v + 1 under m2); a
 * reader checks that data2 == data1 + 1 once stage 1 has happened.
 * Compile with -DWRITERS=k for k writers (default 1).
 *
 * Bug: each stage is locked, but nothing makes the two stages one atomic
 * step; a reader between them sees stage 1 done and stage 2 not (or, with
 * several writers, stage 1 of one writer and stage 2 of another).
 *
 * Failing interleaving: the writer does stage 1 and is preempted before
 * locking m2; the reader reads data1 = 1, data2 = 0.
 *
 * Preemptions: 1 (the writer between its stages).
 * Kind: assertion in the reader.
 * Fixed (-DFIXED): the writer holds m1 across both stages and the reader
 * holds m1 while it reads data2 (locks always in the order m1, m2).
 * Native (native.sh): fails rarely: WRITERS=1 once in about 1,200 clang
 * runs, WRITERS=4 once in 1,200 gcc runs.
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdint.h>

#ifndef WRITERS
#define WRITERS 1
#endif

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t m2 = PTHREAD_MUTEX_INITIALIZER;
static int data1, data2;

static void *writer(void *arg)
{
    int v = (int)(intptr_t)arg;
    pthread_mutex_lock(&m1);
    data1 = v;
#ifndef FIXED
    pthread_mutex_unlock(&m1);
#endif
    pthread_mutex_lock(&m2);
    data2 = v + 1;
    pthread_mutex_unlock(&m2);
#ifdef FIXED
    pthread_mutex_unlock(&m1);
#endif
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m1);
    int t1 = data1;
#ifndef FIXED
    pthread_mutex_unlock(&m1);
#endif
    if (t1 != 0) {
        pthread_mutex_lock(&m2);
        int t2 = data2;
        pthread_mutex_unlock(&m2);
        assert(t2 == t1 + 1);
    }
#ifdef FIXED
    pthread_mutex_unlock(&m1);
#endif
    return NULL;
}

int main(void)
{
    pthread_t w[WRITERS], r;
    for (int i = 0; i < WRITERS; i++)
        pthread_create(&w[i], NULL, writer, (void *)(intptr_t)(10 * (i + 1)));
    pthread_create(&r, NULL, reader, NULL);
    for (int i = 0; i < WRITERS; i++)
        pthread_join(w[i], NULL);
    pthread_join(r, NULL);
    return 0;
}
