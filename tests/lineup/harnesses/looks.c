/*
 * Read loops that look like spinning (the same instruction re-reads a
 * location nobody changed) but always end: the scheduler must neither call
 * them a livelock nor skip what they do while another thread is preempted.
 *
 *   sample   sample() reads a word 600 times and returns the sum: correct,
 *            several at once must pass (each ends within --spin-bound
 *            looks; together they take more);
 *   torn     read() re-reads a constant word 100 times, then reads the two
 *            words write() stores without a lock: a torn pair, a violation
 *            found only if the reader may go on for its 100 looks while the
 *            writer is preempted between its two stores;
 *   giveup   enter() waits at most 3 looks for a flag hold() sets and clears
 *            within one call, then gives up (-1), which no serial order
 *            shows: found only if enter() goes on spinning while hold(),
 *            preempted, could run (a preemption of its own, which the replay
 *            lists).
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdlib.h>

#define SAMPLES 600
#define LOOKS 100

struct cell {
    atomic_long v, a, b, config;
};

static void *create(void)
{
    struct cell *c = calloc(1, sizeof *c);
    if (c)
        atomic_store(&c->config, 1);
    return c;
}

static int64_t sample(void *o, int64_t unused)
{
    struct cell *c = o;
    (void)unused;
    long sum = 0;
    for (int i = 0; i < SAMPLES; i++)
        sum += atomic_load(&c->v);
    return sum;
}

static int64_t write_pair(void *o, int64_t v)
{
    struct cell *c = o;
    atomic_store(&c->a, v);
    atomic_store(&c->b, v);
    return 0;
}

static int64_t read_pair(void *o, int64_t unused)
{
    struct cell *c = o;
    (void)unused;
    long config = 0;
    for (int i = 0; i < LOOKS; i++)
        config += atomic_load(&c->config);
    return config == LOOKS ? atomic_load(&c->a) * 10 + atomic_load(&c->b) : -1;
}

LINEUP_HARNESS(sample, create, free, LINEUP_OP(sample, 0));
LINEUP_HARNESS(torn, create, free, LINEUP_OP(write_pair, 1), LINEUP_OP(read_pair, 0));

struct flag {
    atomic_int held;
};

static int64_t hold(void *o, int64_t unused)
{
    struct flag *f = o;
    (void)unused;
    atomic_store(&f->held, 1);
    atomic_store(&f->held, 0);
    return 0;
}

static int64_t enter(void *o, int64_t unused)
{
    struct flag *f = o;
    (void)unused;
    for (int i = 0; i < 3; i++)
        if (!atomic_load(&f->held))
            return 1;
    return -1;
}

static void *flag_create(void)
{
    return calloc(1, sizeof(struct flag));
}

LINEUP_HARNESS(giveup, flag_create, free, LINEUP_OP(hold, 0), LINEUP_OP(enter, 0));
