/* A correct program whose threads talk through a pipe: the writer sends a
 * byte, the reader polls for it and reads it. Natively it always ends with
 * status 0; under lineup only one thread runs at a time, so when the
 * reader blocks in poll (a call lineup does not control) before the writer
 * wrote, the execution never ends: lineup cannot check it, which is no
 * bug of the program. */
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

static int fds[2];

static void *writer(void *arg)
{
    (void)arg;
    return write(fds[1], "x", 1) == 1 ? NULL : (void *)1;
}

static void *reader(void *arg)
{
    (void)arg;
    struct pollfd p = {fds[0], POLLIN, 0};
    char c;
    if (poll(&p, 1, -1) != 1 || read(fds[0], &c, 1) != 1 || c != 'x')
        return (void *)1;
    return NULL;
}

int main(void)
{
    if (pipe(fds) != 0)
        return 2;
    pthread_t r, w;
    void *rr, *wr;
    pthread_create(&r, NULL, reader, NULL);
    pthread_create(&w, NULL, writer, NULL);
    pthread_join(r, &rr);
    pthread_join(w, &wr);
    return rr || wr ? 1 : 0;
}
