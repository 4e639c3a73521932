/*
 * Timeouts are no verdict about the code under test (tests/lineup/
 * CMakeLists.txt, lineup.timeout.*):
 *
 *   sleepy  nap() waits 3 s in poll(), which lineup does not control (its
 *           sleep() returns at once): with --timeout 1 every test times
 *           out although nap() is correct
 *   lossy   the paper's buggy counter: inc() returns the count it wrote,
 *           and two concurrent incs can both return 1 (a violation)
 */
#include <lineup.h>

#include <poll.h>
#include <stdlib.h>

struct counter {
    volatile int64_t n;
};

static void *create(void)
{
    return calloc(1, sizeof(struct counter));
}

static void destroy(void *o)
{
    free(o);
}

static int64_t nap(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    return poll(NULL, 0, 3000);
}

static int64_t inc(void *o, int64_t unused)
{
    struct counter *c = o;
    (void)unused;
    int64_t v = c->n + 1;
    c->n = v;
    return v;
}

LINEUP_HARNESS(sleepy, create, destroy, LINEUP_OP(nap, 0));
LINEUP_HARNESS(lossy, create, destroy, LINEUP_OP(inc, 0));
