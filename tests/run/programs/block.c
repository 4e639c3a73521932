/* A thread blocks in read() on a pipe nobody writes: a call lineup does not
 * control, so only the per-execution time limit ends it. */
#include <pthread.h>
#include <unistd.h>

static int fds[2];

static void *reader(void *arg)
{
    char c;
    (void)arg;
    return read(fds[0], &c, 1) == 1 ? (void *)1 : NULL;
}

int main(void)
{
    if (pipe(fds) != 0)
        return 2;
    pthread_t t;
    pthread_create(&t, NULL, reader, NULL);
    pthread_join(t, NULL);
    return 0;
}
