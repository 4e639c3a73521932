/*
 * The waiter forgot to lock the mutex around its wait loop. glibc does not
 * check a normal mutex there: the wait goes ahead, and the signal can come
 * between the check and the wait, a lost wakeup (a deadlock). With -DFIXED
 * the waiter holds the mutex.
 */
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready;

static void *signaler(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, signaler, NULL);
#ifdef FIXED
    pthread_mutex_lock(&m);
#endif
    while (!ready)
        pthread_cond_wait(&c, &m);
#ifdef FIXED
    pthread_mutex_unlock(&m);
#endif
    pthread_join(t, NULL);
    return 0;
}
