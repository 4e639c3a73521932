/*
 * lazy_init_no_recheck: a lazily created singleton with double-checked
 * locking done wrong: the fast path tests the pointer (acquire load), the
 * slow path takes the lock and creates the object, but does not test the
 * pointer again under the lock.
 *
 * Bug: two threads that both miss on the fast path both create an
 * instance, one after the other under the lock; the first instance is
 * overwritten (leaked) and the two threads use different singletons.
 *
 * Failing interleaving: thread 1 reads NULL and is preempted before taking
 * the lock; thread 2 reads NULL, creates and publishes; thread 1 takes the
 * lock and creates a second instance.
 *
 * Preemptions: 1 (thread 1 between its test and its lock).
 * Kind: assertion (one construction, one instance).
 * Fixed (-DFIXED): the pointer is tested again under the lock.
 * Native (native.sh): fails now and then (first failure after 5 to 186 runs).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct config {
    int verbosity;
    int retries;
};

static struct config *_Atomic instance;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int constructions;
static struct config *seen[2];

static struct config *get_config(void)
{
    struct config *c = atomic_load_explicit(&instance, memory_order_acquire);
    if (c == NULL) {
        pthread_mutex_lock(&init_lock);
#ifdef FIXED
        c = atomic_load_explicit(&instance, memory_order_relaxed);
        if (c == NULL) {
#endif
            c = malloc(sizeof *c);
            c->verbosity = 1;
            c->retries = 3;
            atomic_fetch_add(&constructions, 1);
            atomic_store_explicit(&instance, c, memory_order_release);
#ifdef FIXED
        }
#endif
        pthread_mutex_unlock(&init_lock);
    }
    return c;
}

static void *user(void *arg)
{
    struct config **slot = arg;
    *slot = get_config();
    assert((*slot)->retries == 3);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, user, &seen[0]);
    pthread_create(&t2, NULL, user, &seen[1]);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(atomic_load(&constructions) == 1);
    assert(seen[0] == seen[1]);
    free(atomic_load(&instance));
    return 0;
}
