/*
 * mp_plain_flag: message passing through a plain int flag.
 *
 * Bug: the producer writes the payload and then sets `ready`; the consumer
 * tests `ready` and reads the payload. Both variables are plain ints, so
 * nothing orders the accesses across threads: a data race on `ready` and
 * on `payload` (C11 makes the behaviour undefined; compilers and weakly
 * ordered CPUs may reorder the two stores or the two loads). Under a
 * sequentially consistent execution at the granularity of the program's
 * statements the assertion always holds: this bug is only visible to a
 * data-race detector.
 *
 * Failing interleaving: any execution in which both threads run the racy
 * accesses (the race on `ready` is in every execution; the one on
 * `payload` when the consumer sees ready == 1).
 *
 * Preemptions: 0.
 * Kind: data race (with --races); passes without it.
 * Fixed (-DFIXED): `ready` is an atomic int, stored with release and
 * loaded with acquire.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc,
 * clang): x86 and the compilers keep these accesses in order at -O2.
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static int payload;
#ifdef FIXED
static atomic_int ready;
#define SET_READY() atomic_store_explicit(&ready, 1, memory_order_release)
#define IS_READY() atomic_load_explicit(&ready, memory_order_acquire)
#else
static int ready;
#define SET_READY() (ready = 1)
#define IS_READY() (ready)
#endif

static void *producer(void *arg)
{
    (void)arg;
    payload = 42;
    SET_READY();
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    if (IS_READY())
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
