/*
 * publish_partial: a session object is registered in a global slot before
 * its initialisation is finished.
 *
 * Bug: session_open() publishes the new object (release store) and only
 * then assigns its id (from a global atomic counter) and its state. A
 * reader that finds the object in between sees id 0 and state CLOSED: a
 * partially initialised object. Under a weak memory model the same code
 * would also be wrong with the stores in the right order but without
 * release/acquire; here the order of the program is wrong.
 *
 * Failing interleaving: the opener publishes the session and is preempted
 * before taking an id; the monitor loads the slot and checks the fields.
 *
 * Preemptions: 1 (the opener between publication and initialisation).
 * Kind: assertion in the monitor; the plain field accesses are also a data
 * race (the field stores come after the release store that published them).
 * Fixed (-DFIXED): initialise, then publish.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { CLOSED, OPEN };

struct session {
    int id;
    int state;
};

static struct session *_Atomic current;
static atomic_int next_id;

static void session_init(struct session *s)
{
    s->id = atomic_fetch_add(&next_id, 1) + 1;
    s->state = OPEN;
}

static void *opener(void *arg)
{
    (void)arg;
    struct session *s = calloc(1, sizeof *s);
#ifdef FIXED
    session_init(s);
    atomic_store_explicit(&current, s, memory_order_release);
#else
    atomic_store_explicit(&current, s, memory_order_release);
    session_init(s);
#endif
    return NULL;
}

static void *monitor(void *arg)
{
    (void)arg;
    struct session *s = atomic_load_explicit(&current, memory_order_acquire);
    if (s != NULL)
        assert(s->id > 0 && s->state == OPEN);
    return NULL;
}

int main(void)
{
    pthread_t o, m;
    pthread_create(&o, NULL, opener, NULL);
    pthread_create(&m, NULL, monitor, NULL);
    pthread_join(o, NULL);
    pthread_join(m, NULL);
    free(atomic_load(&current));
    return 0;
}
