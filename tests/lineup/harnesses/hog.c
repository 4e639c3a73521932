/*
 * Memory hogs, for lineup's own memory limits (tests/lineup/hog.sh).
 *
 * leak(MB): leaks MB megabytes (touched, so that they are resident) and
 * counts itself with a few atomic increments, whose interleavings give
 * phase 2 many executions. A correct counter: every execution passes, and
 * an explorer that never restarted would hold every execution's leak.
 *
 * mapleak(MB): the same, with memory it maps itself (mmap), which
 * lineup's heap count does not see: only the explorer's resident memory,
 * read from /proc, shows the growth.
 *
 * grab(MB): allocates MB megabytes and frees them; returns -1 when malloc
 * fails, as code that handles out-of-memory does. Under a tight ulimit -v
 * that failure comes from lineup's share of the address space, not from
 * the code: lineup must not report it as the code's behaviour.
 *
 * fdleak(1): opens a descriptor and never closes it, and returns -1 when
 * the open fails (EMFILE), as code that checks does: lineup's processes
 * keep what each execution leaks, where natively each run has every
 * descriptor, so lineup must not let that failure become a verdict.
 *
 * huge(0): asks for far more memory than any machine has (64 TB) and
 * expects NULL: a test of the code's own out-of-memory path, which fails
 * natively as well and must pass under lineup.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>

#define STEPS 4

struct hog {
    atomic_int n;
};

static void *create(void)
{
    return calloc(1, sizeof(struct hog));
}

static void destroy(void *o)
{
    free(o);
}

static int64_t leak(void *o, int64_t mb)
{
    struct hog *h = o;
    size_t n = (size_t)mb << 20;
    if (n) {
        char *p = malloc(n);
        if (!p)
            return -1;
        memset(p, 1, n);
    }
    for (int i = 0; i < STEPS; i++)
        atomic_fetch_add(&h->n, 1);
    return 0;
}

static int64_t mapleak(void *o, int64_t mb)
{
    struct hog *h = o;
    size_t n = (size_t)mb << 20;
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    memset(p, 1, n);
    for (int i = 0; i < STEPS; i++)
        atomic_fetch_add(&h->n, 1);
    return 0;
}

static int64_t grab(void *o, int64_t mb)
{
    (void)o;
    char *p = malloc((size_t)mb << 20);
    if (!p)
        return -1;
    p[0] = 1;
    free(p);
    return 0;
}

static int64_t huge(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    void *p = malloc((size_t)1 << 46);
    free(p);
    return p == NULL;
}

static int64_t fdleak(void *o, int64_t n)
{
    struct hog *h = o;
    for (int64_t i = 0; i < n; i++)
        if (open("/dev/null", O_RDONLY) < 0)
            return -1;
    atomic_fetch_add(&h->n, 1);
    return atomic_load(&h->n) > 0;
}

LINEUP_HARNESS(hog, create, destroy, LINEUP_OP(leak, 0), LINEUP_OP(leak, 8), LINEUP_OP(leak, 64),
               LINEUP_OP(grab, 64), LINEUP_OP(huge, 0), LINEUP_OP(mapleak, 8), LINEUP_OP(fdleak, 1));
