/*
 * seqlock_torn: a sequence lock protecting a pair (x, y) that one writer
 * updates from (0, 0) to (1, 1) and then (2, 2); the reader reads the pair
 * optimistically and retries if the sequence number changed.
 *
 * Bug: the reader compares the sequence numbers before and after, but does
 * not reject an odd one (a write in progress). If it starts during a write
 * and the write is not finished by the time it checks again, both numbers
 * are the same odd value and a half-written pair is accepted.
 *
 * Failing interleaving: the writer increments seq to 1, stores x = 1, and is
 * preempted before storing y; the reader reads seq 1, x 1, y 0, seq 1, and
 * accepts (1, 0).
 *
 * Preemptions: 1 (the writer in the middle of a write).
 * Kind: assertion in the reader (x == y).
 * Fixed (-DFIXED): the reader retries while the sequence number is odd.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_uint seq;
static atomic_int x, y;

static void write_pair(int v)
{
    unsigned s = atomic_load_explicit(&seq, memory_order_relaxed);
    atomic_store_explicit(&seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&x, v, memory_order_relaxed);
    atomic_store_explicit(&y, v, memory_order_relaxed);
    atomic_store_explicit(&seq, s + 2, memory_order_release);
}

static void read_pair(int *a, int *b)
{
    unsigned s1, s2;
    do {
        s1 = atomic_load_explicit(&seq, memory_order_acquire);
        *a = atomic_load_explicit(&x, memory_order_relaxed);
        *b = atomic_load_explicit(&y, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        s2 = atomic_load_explicit(&seq, memory_order_relaxed);
#ifdef FIXED
    } while (s1 != s2 || (s1 & 1));
#else
    } while (s1 != s2);
#endif
}

static void *writer(void *arg)
{
    (void)arg;
    write_pair(1);
    write_pair(2);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    int a, b;
    read_pair(&a, &b);
    assert(a == b);
    return NULL;
}

int main(void)
{
    pthread_t w, r;
    pthread_create(&w, NULL, writer, NULL);
    pthread_create(&r, NULL, reader, NULL);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    return 0;
}
