/*
 * The holder of a normal mutex (or, with SPIN, a spin lock) polls trylock
 * on it, without a yield, until another thread unlocks it, which glibc
 * allows for these kinds: passes. Until session 31 the holder's failed
 * trylock was not a look, so the poll was not seen to spin and ran on
 * alone: a false "execution too long".
 */
#define _GNU_SOURCE
#include <pthread.h>

#ifdef SPIN
static pthread_spinlock_t l;
#define LOCK(x) pthread_spin_lock(x)
#define TRYLOCK(x) pthread_spin_trylock(x)
#define UNLOCK(x) pthread_spin_unlock(x)
#else
static pthread_mutex_t l = PTHREAD_MUTEX_INITIALIZER;
#define LOCK(x) pthread_mutex_lock(x)
#define TRYLOCK(x) pthread_mutex_trylock(x)
#define UNLOCK(x) pthread_mutex_unlock(x)
#endif

static void *releaser(void *a)
{
    (void)a;
    UNLOCK(&l);
    return 0;
}

int main(void)
{
#ifdef SPIN
    pthread_spin_init(&l, PTHREAD_PROCESS_PRIVATE);
#endif
    LOCK(&l);
    pthread_t t;
    pthread_create(&t, 0, releaser, 0);
    while (TRYLOCK(&l) != 0)
        ;
    UNLOCK(&l);
    pthread_join(t, 0);
    return 0;
}
