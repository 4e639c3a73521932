/*
 * A nondeterministic object: next() hands out numbers from a counter kept in
 * a static variable, outside the object, so two serial executions of the
 * same calls in the same order return different numbers. lineup must say
 * "nondeterminism", not report a linearizability violation.
 *
 * first: first() says whether it is the first call the process ever made
 * (a static flag). With one call per test, phase 1 runs one serial
 * execution and cannot see two disagree; phase 2, run later in a process
 * where the flag is set, gets another result on a history whose calls do
 * not overlap: that is nondeterminism too, not a violation.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdlib.h>

static atomic_long handed_out;

static void *create(void)
{
    return malloc(1);
}

static int64_t next(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    return atomic_fetch_add(&handed_out, 1);
}

LINEUP_HARNESS(ticket, create, free, LINEUP_OP(next, 0));

static int first_done;

static int64_t first(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    int64_t r = !first_done;
    first_done = 1;
    return r;
}

LINEUP_HARNESS(first, create, free, LINEUP_OP(first, 0));
