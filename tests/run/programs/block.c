/* A thread blocks in read() on a pipe nobody writes: a call lineup does not
 * control, so only the per-execution time limit ends it. With -DMANY two
 * counting threads run first: every one of their schedules blocks after
 * them (--all and --max-timeouts, tests/run/run_test.sh). */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

static int fds[2];

static void *reader(void *arg)
{
    char c;
    (void)arg;
    return read(fds[0], &c, 1) == 1 ? (void *)1 : NULL;
}

#ifdef MANY
static atomic_int count;

static void *counter(void *arg)
{
    for (int i = 0; i < 3; i++)
        atomic_fetch_add(&count, 1);
    return arg;
}
#endif

int main(void)
{
    if (pipe(fds) != 0)
        return 2;
#ifdef MANY
    pthread_t a, b;
    pthread_create(&a, NULL, counter, NULL);
    pthread_create(&b, NULL, counter, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
#endif
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    pthread_join(t, NULL);
    return 0;
}
