/*
 * A register kept in thread-local storage: put(v) stores v in the calling
 * thread's _Thread_local slot, counts the call in the object (an atomic
 * step: other threads may run there), and returns what its slot holds,
 * which is v on every schedule. Every thread has its slot, so the object
 * is linearizable, and under lineup it is as long as each test thread has
 * TLS of its own: --tls auto keeps it per thread because this object has
 * thread-local variables. Under --tls shared, which is for code known not
 * to use its thread-local variables, one thread's put overwrites another's
 * slot between its store and its return: a violation, which the tests use
 * to show that the mode is real.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

struct obj {
    atomic_long calls;
};
static _Thread_local int64_t slot;

static void *create(void)
{
    return calloc(1, sizeof(struct obj));
}
static int64_t put(void *x, int64_t v)
{
    struct obj *o = x;
    slot = v;
    atomic_fetch_add(&o->calls, 1);
    return slot;
}
static int64_t calls(void *x, int64_t unused)
{
    struct obj *o = x;
    (void)unused;
    return atomic_load(&o->calls);
}
LINEUP_HARNESS(tlsval, create, free, LINEUP_OP(put, 1), LINEUP_OP(put, 2), LINEUP_OP(calls, 0));
