/*
 * refcount_uaf: a reference-counted buffer replaced by an updater while a
 * reader uses it.
 *
 * Bug: buf_get() loads the global pointer and then increments the
 * reference count; nothing stops the updater from unpublishing the buffer
 * and dropping the last reference in between. The reader then increments
 * the count of a freed buffer and uses it: a use after free (and the count
 * goes 0 -> 1, resurrecting it).
 *
 * Freed buffers go back to a small cache that poisons them (magic = DEAD),
 * as a debug allocator would; the reader's assertion on the magic number
 * is what a memory checker would report, and keeps the program's behaviour
 * defined.
 *
 * Failing interleaving: the reader loads the pointer and is preempted
 * before its increment; the updater swaps the pointer and drops its
 * reference (count 1 -> 0, poisoned); the reader increments and uses it.
 *
 * Preemptions: 1 (the reader between its load and its increment).
 * Kind: assertion in the reader (use after free).
 * Fixed (-DFIXED): the pointer load and the increment happen under the
 * mutex that also protects the swap (the updater drops its reference after
 * unlocking).
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

enum { LIVE = 0x1111, DEAD = 0xdead };

struct buffer {
    atomic_int refs;
    atomic_int magic;
    int data;
};

static struct buffer cache[2];
static struct buffer *_Atomic current;
#ifdef FIXED
static pthread_mutex_t current_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

static struct buffer *buf_new(struct buffer *b, int data)
{
    atomic_store(&b->refs, 1);
    atomic_store(&b->magic, LIVE);
    b->data = data;
    return b;
}

static void buf_put(struct buffer *b)
{
    if (atomic_fetch_sub(&b->refs, 1) == 1)
        atomic_store(&b->magic, DEAD); /* back to the cache */
}

static struct buffer *buf_get(void)
{
#ifdef FIXED
    pthread_mutex_lock(&current_lock);
#endif
    struct buffer *b = atomic_load(&current);
    if (b != NULL)
        atomic_fetch_add(&b->refs, 1);
#ifdef FIXED
    pthread_mutex_unlock(&current_lock);
#endif
    return b;
}

static void *reader(void *arg)
{
    (void)arg;
    struct buffer *b = buf_get();
    if (b != NULL) {
        assert(atomic_load(&b->magic) == LIVE);
        assert(b->data == 1 || b->data == 2);
        buf_put(b);
    }
    return NULL;
}

static void *updater(void *arg)
{
    (void)arg;
    struct buffer *fresh = buf_new(&cache[1], 2);
#ifdef FIXED
    pthread_mutex_lock(&current_lock);
#endif
    struct buffer *old = atomic_exchange(&current, fresh);
#ifdef FIXED
    pthread_mutex_unlock(&current_lock);
#endif
    buf_put(old);
    return NULL;
}

int main(void)
{
    atomic_store(&current, buf_new(&cache[0], 1));
    pthread_t r, u;
    pthread_create(&r, NULL, reader, NULL);
    pthread_create(&u, NULL, updater, NULL);
    pthread_join(r, NULL);
    pthread_join(u, NULL);
    buf_put(atomic_load(&current));
    return 0;
}
