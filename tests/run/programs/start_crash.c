/* A thread that crashes before its first scheduling point: it runs at once,
 * inside its creator's pthread_create, so the creator is still in that
 * call when the execution ends, not about to make it. */
#include <pthread.h>
#include <stddef.h>

static void *worker(void *arg)
{
    return (void *)(size_t) * (int *)arg; /* a plain load: no scheduling point */
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    return 0;
}
