/*
 * As many thread-specific data keys as glibc gives (PTHREAD_KEYS_MAX,
 * 1024), each with its own value in a second thread; the next create
 * fails with EAGAIN, as natively. With -DCTOR a constructor takes 10 keys
 * first (and deletes one), before lineup's control: main gets the 1015
 * glibc leaves.
 */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>

static pthread_key_t keys[PTHREAD_KEYS_MAX];
static int ctor_keys;

#ifdef CTOR
__attribute__((constructor)) static void take_keys(void)
{
    pthread_key_t k[10];
    for (int i = 0; i < 10; i++)
        assert(pthread_key_create(&k[i], NULL) == 0);
    assert(pthread_key_delete(k[3]) == 0);
    ctor_keys = 9;
}
#endif

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < PTHREAD_KEYS_MAX - ctor_keys; i++)
        assert(pthread_setspecific(keys[i], (void *)(intptr_t)(i + 1)) == 0);
    for (int i = 0; i < PTHREAD_KEYS_MAX - ctor_keys; i++)
        assert(pthread_getspecific(keys[i]) == (void *)(intptr_t)(i + 1));
    return NULL;
}

int main(void)
{
    for (int i = 0; i < PTHREAD_KEYS_MAX - ctor_keys; i++)
        assert(pthread_key_create(&keys[i], NULL) == 0);
    pthread_key_t more;
    assert(pthread_key_create(&more, NULL) == EAGAIN);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    assert(pthread_getspecific(keys[PTHREAD_KEYS_MAX - ctor_keys - 1]) == NULL);
    return 0;
}
