/*
 * A failure that depends on argv[0] as the program was started: the
 * assertion is checked only when argv[0] begins with '.', as it does when
 * the program is run as ./argv0. A replay must start the program with the
 * same argv[0], not with the absolute path its replay file names it by.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int x;

static void *worker(void *arg)
{
    (void)arg;
    atomic_fetch_add(&x, 1);
    return NULL;
}

int main(int argc, char **argv)
{
    (void)argc;
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    int v = atomic_load(&x);
    pthread_join(t, NULL);
    if (argv[0][0] == '.')
        assert(v == 1);
    return 0;
}
