/*
 * Two functions whose local mutexes, initialized by their static
 * initializers, land in the same stack slot: a recursive one, then a normal
 * one. The model must take the second for what its memory says (a normal
 * mutex, whose relock by its owner fails with EBUSY), not for the
 * recursive one it knew at that address.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>

/* at -O0, the two frames lay out their one mutex alike */
__attribute__((noinline, optimize("O0"))) static void *with_recursive(void)
{
    pthread_mutex_t r = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
    pthread_mutex_lock(&r);
    assert(pthread_mutex_trylock(&r) == 0);
    pthread_mutex_unlock(&r);
    pthread_mutex_unlock(&r);
    void *at = &r;
    __asm__("" : "+r"(at));
    return at;
}

__attribute__((noinline, optimize("O0"))) static int with_normal(void **at)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&m);
    int rc = pthread_mutex_trylock(&m);
    pthread_mutex_unlock(&m);
    *at = &m;
    __asm__("" : "+m"(*at));
    return rc;
}

int main(void)
{
    void *r = with_recursive(), *m;
    assert(with_normal(&m) == EBUSY);
    assert(r == m); /* or the test tests nothing */
    return 0;
}
