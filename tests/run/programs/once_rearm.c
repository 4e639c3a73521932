/*
 * A module's once control set back to PTHREAD_ONCE_INIT by assignment
 * between two rounds, as a reset function does: glibc runs the routine
 * again in the second round. Until session 31 the model kept it done, and
 * the second round's threads found the module not ready (a false FAIL).
 * With C11, call_once and ONCE_FLAG_INIT.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#ifdef C11
#include <threads.h>
#define ONCE_T once_flag
#define ONCE_INIT_VALUE ONCE_FLAG_INIT
#define RUN_ONCE(o, f) call_once(o, f)
#else
#define ONCE_T pthread_once_t
#define ONCE_INIT_VALUE PTHREAD_ONCE_INIT
#define RUN_ONCE(o, f) pthread_once(o, f)
#endif

static struct module {
    ONCE_T once;
    atomic_int inits;
    atomic_int ready;
} mod = {ONCE_INIT_VALUE, 0, 0};

static void init(void)
{
    atomic_fetch_add(&mod.inits, 1);
    atomic_store(&mod.ready, 1);
}

static void *user(void *a)
{
    (void)a;
    RUN_ONCE(&mod.once, init);
    assert(atomic_load(&mod.ready) == 1);
    return 0;
}

static void reset(void)
{
    ONCE_T fresh = ONCE_INIT_VALUE;
    mod.once = fresh;
    atomic_store(&mod.ready, 0);
}

int main(void)
{
    for (int round = 0; round < 2; round++) {
        pthread_t a, b;
        pthread_create(&a, 0, user, 0);
        pthread_create(&b, 0, user, 0);
        pthread_join(a, 0);
        pthread_join(b, 0);
        assert(atomic_load(&mod.inits) == round + 1);
        reset();
    }
    return 0;
}
