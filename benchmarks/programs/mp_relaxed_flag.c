/*
 * mp_relaxed_flag: message passing through an atomic flag accessed with
 * memory_order_relaxed.
 *
 * Bug: the flag is atomic, so the accesses to the flag itself are not a
 * data race, but relaxed operations do not synchronize: the producer's
 * plain write of the payload and the consumer's plain read of it are not
 * ordered by happens-before, a data race (undefined behaviour in C11; on
 * ARM or POWER the consumer can see ready == 1 and a stale payload). The
 * fix is one word on each side: release and acquire.
 *
 * Failing interleaving: any execution in which the consumer sees
 * ready == 1 (the producer runs first). Under sequential consistency the
 * assertion always holds: only a detector that gives relaxed atomics no
 * happens-before edges reports this.
 *
 * Preemptions: 0.
 * Kind: data race (with --races); passes without it.
 * Fixed (-DFIXED): release store, acquire load.
 * Native (native.sh): never failed in 1000 runs per compiler (gcc,
 * clang): x86 does not reorder these accesses.
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifdef FIXED
#define STORE_ORDER memory_order_release
#define LOAD_ORDER memory_order_acquire
#else
#define STORE_ORDER memory_order_relaxed
#define LOAD_ORDER memory_order_relaxed
#endif

static int payload;
static atomic_int ready;

static void *producer(void *arg)
{
    (void)arg;
    payload = 42;
    atomic_store_explicit(&ready, 1, STORE_ORDER);
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    if (atomic_load_explicit(&ready, LOAD_ORDER))
        assert(payload == 42);
    return NULL;
}

int main(void)
{
    pthread_t p, c;
    pthread_create(&p, NULL, producer, NULL);
    pthread_create(&c, NULL, consumer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    return 0;
}
