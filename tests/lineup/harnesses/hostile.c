/*
 * Harnesses whose operations do what a harness should not, or what a
 * harness may do but lineup must not mistake (hostile.sh, CMakeLists.txt):
 *
 *   sigpipe   write() to a pipe nobody reads: SIGPIPE must end the call
 *             (lineup itself ignores SIGPIPE, its worker must not)
 *   leave     pthread_exit() inside an operation: a harness error
 *   chatty    prints a marker on stdout: it belongs on stderr, away from
 *             the report
 *   blocking  blocks in read() on a pipe lineup does not control
 *   fuse      fire() crashes after arm(), blocks in read() before it: a
 *             crash whose smaller tests time out
 */
#include <lineup.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct cell {
    pthread_mutex_t lock;
    int64_t n;
};

static void *cell_create(void)
{
    struct cell *c = calloc(1, sizeof *c);
    if (c)
        pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void cell_destroy(void *o)
{
    struct cell *c = o;
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static int64_t put(void *o, int64_t v)
{
    struct cell *c = o;
    pthread_mutex_lock(&c->lock);
    c->n += v;
    pthread_mutex_unlock(&c->lock);
    return 0;
}

static int64_t get(void *o, int64_t unused)
{
    (void)unused;
    struct cell *c = o;
    pthread_mutex_lock(&c->lock);
    int64_t v = c->n;
    pthread_mutex_unlock(&c->lock);
    return v;
}

static int64_t pipe_write(void *o, int64_t unused)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    close(p[0]);
    ssize_t n = write(p[1], "x", 1); /* SIGPIPE; EPIPE only if it is ignored */
    close(p[1]);
    return n < 0 ? -2 : get(o, unused);
}

static int64_t leave(void *o, int64_t unused)
{
    if (get(o, unused) == 0)
        pthread_exit(NULL);
    return 1;
}

static int64_t chat(void *o, int64_t unused)
{
    printf("hostile-chatty-marker\n");
    fflush(stdout);
    return get(o, unused);
}

/* Blocks this process for good: the write end stays open and unused. */
static int64_t block(void *o, int64_t unused)
{
    static int p[2] = {-1, -1};
    char c;
    if (p[0] < 0 && pipe(p) != 0)
        return -1;
    if (read(p[0], &c, 1) < 0)
        return -1;
    return get(o, unused);
}

static int64_t arm(void *o, int64_t unused)
{
    (void)unused;
    return put(o, 1);
}

static int64_t fire(void *o, int64_t unused)
{
    if (get(o, unused) > 0)
        abort();
    return block(o, unused);
}

LINEUP_HARNESS(sigpipe, cell_create, cell_destroy, LINEUP_OP(put, 1), LINEUP_OP(pipe_write, 0));
LINEUP_HARNESS(leave, cell_create, cell_destroy, LINEUP_OP(put, 1), LINEUP_OP(leave, 0));
LINEUP_HARNESS(chatty, cell_create, cell_destroy, LINEUP_OP(put, 1), LINEUP_OP(chat, 0));
LINEUP_HARNESS(blocking, cell_create, cell_destroy, LINEUP_OP(put, 1), LINEUP_OP(block, 0));
LINEUP_HARNESS(fuse, cell_create, cell_destroy, LINEUP_OP(arm, 0), LINEUP_OP(fire, 0));
