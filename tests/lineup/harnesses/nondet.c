/*
 * A nondeterministic object: next() hands out numbers from a counter kept in
 * a static variable, outside the object, so two serial executions of the
 * same calls in the same order return different numbers. lineup must say
 * "nondeterminism", not report a linearizability violation.
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
