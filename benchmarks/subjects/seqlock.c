/*
 * Sequence lock (Lameter, 2005; the C11 form of Boehm, MSPC 2012): writers
 * serialize on a mutex and make the sequence number odd while they write;
 * readers take no lock, read the sequence number, the data, and the
 * sequence number again, and retry when it was odd or changed. The data is
 * a pair that every write sets to (v, v), so a torn read shows as a pair of
 * two different values.
 *
 *   correct             linearizable
 *   -DBUG_NO_RETRY      the reader waits for an even sequence number but
 *                       does not check it again after reading the data: a
 *                       write that starts in between is half seen, and
 *                       read() returns a pair no write produced (e.g. 21:
 *                       first = 2, second = 1).
 *
 * Operations: write(v) returns 0; read() returns 10 * first + second. The
 * data words are relaxed atomics (readers race with writers by design; C11
 * seqlocks are written this way).
 */
#include <lineup.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

struct seqlock {
    pthread_mutex_t writer;
    atomic_uint seq;
    _Atomic int64_t first;
    _Atomic int64_t second;
};

static void *create(void)
{
    struct seqlock *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->writer, NULL);
    return s;
}

static void destroy(void *obj)
{
    struct seqlock *s = obj;
    pthread_mutex_destroy(&s->writer);
    free(s);
}

static int64_t write(void *obj, int64_t v)
{
    struct seqlock *s = obj;
    pthread_mutex_lock(&s->writer);
    unsigned q = atomic_load_explicit(&s->seq, memory_order_relaxed);
    atomic_store_explicit(&s->seq, q + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&s->first, v, memory_order_relaxed);
    atomic_store_explicit(&s->second, v, memory_order_relaxed);
    atomic_store_explicit(&s->seq, q + 2, memory_order_release);
    pthread_mutex_unlock(&s->writer);
    return 0;
}

static int64_t read(void *obj, int64_t unused)
{
    struct seqlock *s = obj;
    (void)unused;
    for (;;) {
        unsigned q1 = atomic_load_explicit(&s->seq, memory_order_acquire);
        if (q1 & 1)
            continue; /* a writer is inside */
        int64_t a = atomic_load_explicit(&s->first, memory_order_relaxed);
        int64_t b = atomic_load_explicit(&s->second, memory_order_relaxed);
#ifdef BUG_NO_RETRY
        return 10 * a + b;
#else
        atomic_thread_fence(memory_order_acquire);
        unsigned q2 = atomic_load_explicit(&s->seq, memory_order_relaxed);
        if (q1 == q2)
            return 10 * a + b;
#endif
    }
}

LINEUP_HARNESS(seqlock, create, destroy, LINEUP_OP(write, 1), LINEUP_OP(write, 2), LINEUP_OP(read, 0));
