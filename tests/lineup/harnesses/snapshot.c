/*
 * Double-collect snapshots: snap() reads four atomics twice and returns
 * when the two collects agree, retrying otherwise; set() stores 1 into the
 * first.
 *
 * The second collect re-reads, at the first collect's instructions,
 * locations nobody changed since: looks, as a spin's are. So while another
 * thread can run, a snapshot in its second collect is a spinning thread,
 * chosen only at a cost, and then run alone until it stops spinning (it
 * returns) or, DFS's other way, until it has taken a step on what another
 * thread is about to write. That second way was offered only to a loop
 * seen to take steps at two instructions, which a collect's first look has
 * not taken yet; so a collect never read one location before another
 * thread's store to it and the next ones after that thread's later stores
 * (session 33):
 *
 *   sums      validates by comparing the two collects' sums, and returns
 *             the second collect's values (lineup_result_bytes): wrong,
 *             when a thread moves one location up and another down, two
 *             torn collects can agree on a sum no state had. Passed at
 *             every bound, unbounded too, on "inc(1) | dec(2) dec(3) |
 *             snap(0)": its torn second collect reads v[1] before inc()
 *             and v[3] after dec(3);
 *   rolled    correct (compares sums; stores only raise them): one loop,
 *             one instruction for the four reads, for both collects;
 *   unrolled  the same with four reads at four instructions;
 *   apart     the same with each collect's instructions its own, so that
 *             nothing spins: the golden test (golden.sh) checks that the
 *             other two have its distinct histories (before, "snap | set
 *             snap" had 7 of its 8 and "snap | snap | set" 30 of 32).
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdlib.h>

#define N 4

struct snap {
    atomic_long v[N];
};

static void *create(void)
{
    return calloc(1, sizeof(struct snap));
}

static __attribute__((noinline)) long rolled(struct snap *p)
{
    long t = 0;
    for (int i = 0; i < N; i++)
        t += atomic_load(&p->v[i]);
    return t;
}

static __attribute__((noinline)) long unrolled(struct snap *p)
{
    return atomic_load(&p->v[0]) + atomic_load(&p->v[1]) + atomic_load(&p->v[2]) + atomic_load(&p->v[3]);
}

/* doubled, and so unlike rolled: gcc folds identical functions into one
 * at -O2 (-fipa-icf), and the collects would share instructions again */
static __attribute__((noinline)) long doubled(struct snap *p)
{
    long t = 0;
    for (int i = 0; i < N; i++)
        t += 2 * atomic_load(&p->v[i]);
    return t;
}

/* collects until the second (scaled by `scale`) agrees with the first */
static int64_t twice(struct snap *p, long (*first)(struct snap *), long (*second)(struct snap *), long scale)
{
    for (;;) {
        long x = first(p), y = second(p);
        if (scale * x == y)
            return x;
    }
}

static int64_t snap_rolled(void *o, int64_t unused)
{
    (void)unused;
    return twice(o, rolled, rolled, 1);
}

static int64_t snap_unrolled(void *o, int64_t unused)
{
    (void)unused;
    return twice(o, unrolled, unrolled, 1);
}

static int64_t snap_apart(void *o, int64_t unused)
{
    (void)unused;
    return twice(o, rolled, doubled, 2);
}

static __attribute__((noinline)) long values(struct snap *p, long *out)
{
    long t = 0;
    for (int i = 0; i < N; i++) {
        out[i] = atomic_load(&p->v[i]);
        t += out[i];
    }
    return t;
}

static int64_t snap_sums(void *o, int64_t unused)
{
    (void)unused;
    long x[N], y[N];
    for (;;) {
        long sx = values(o, x), sy = values(o, y);
        if (sx == sy) {
            lineup_result_bytes(y, sizeof y);
            return sy;
        }
    }
}

static int64_t inc(void *o, int64_t i)
{
    struct snap *p = o;
    atomic_fetch_add(&p->v[i], 1);
    return 0;
}

static int64_t dec(void *o, int64_t i)
{
    struct snap *p = o;
    atomic_fetch_sub(&p->v[i], 1);
    return 0;
}

static int64_t set(void *o, int64_t unused)
{
    (void)unused;
    struct snap *p = o;
    atomic_store(&p->v[0], 1);
    return 0;
}

/* one operation name for the three, so that one test names the same calls */
LINEUP_HARNESS(rolled, create, free, {"snap", snap_rolled, 0}, LINEUP_OP(set, 0));
LINEUP_HARNESS(unrolled, create, free, {"snap", snap_unrolled, 0}, LINEUP_OP(set, 0));
LINEUP_HARNESS(apart, create, free, {"snap", snap_apart, 0}, LINEUP_OP(set, 0));
LINEUP_HARNESS(sums, create, free, {"snap", snap_sums, 0}, LINEUP_OP(inc, 1), LINEUP_OP(dec, 2),
               LINEUP_OP(dec, 3));
