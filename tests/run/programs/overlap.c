/* Shows whether executions overlap in time (lineup run --jobs): each one
 * appends "S" when main starts and "E" before it returns to the file that
 * OVERLAP_LOG names, and takes 10 ms in between, so that two
 * lanes' executions meet. Two threads increment a counter twice each: a
 * few dozen schedules. */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_int count;

static void *incr(void *arg)
{
    for (int i = 0; i < 2; i++)
        atomic_fetch_add(&count, 1);
    return arg;
}

static void mark(int fd, char c)
{
    char line[2] = {c, '\n'};
    if (write(fd, line, 2) != 2)
        abort();
}

int main(void)
{
    const char *log = getenv("OVERLAP_LOG");
    int fd = log ? open(log, O_WRONLY | O_APPEND | O_CREAT, 0644) : -1;
    if (fd >= 0)
        mark(fd, 'S');
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 10000000L);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, incr, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    if (fd >= 0) {
        mark(fd, 'E');
        close(fd);
    }
    return atomic_load(&count) == 4 ? 0 : 1;
}
