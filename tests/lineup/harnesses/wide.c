/*
 * Atomics wider than the word the reduction keys them by. set() makes a
 * word other than the atomic's first one nonzero for a moment, between two
 * visible operations; peek() reads that word plainly. No serial order
 * shows the transient value, so a peek() inside a set() is a violation,
 * which the reduction must not skip by taking the atomic for independent
 * of the plain read (an audit found both: PASS with reduction on, FAIL off).
 * Selected with --harness:
 *   cas128    a 16-byte compare-and-swap changes the upper word (-mcx16);
 *   straddle  a 4-byte fetch_add on a packed field at offset 6 changes
 *             byte 8, in the next word.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct __attribute__((packed)) packed {
    char pad[6];
    int a; /* bytes 6..9 */
    char tail[6];
};

struct obj {
    union {
        unsigned __int128 q;
        struct packed p;
    } u;
    atomic_int mid;  /* set()'s scheduling points, between the changes and after */
    atomic_int seen; /* peek()'s, after its read */
} __attribute__((aligned(16)));

static void *create(void)
{
    struct obj *o = aligned_alloc(16, sizeof(struct obj));
    if (o)
        memset(o, 0, sizeof *o);
    return o;
}

static void add_high(struct obj *o, int64_t d)
{
    unsigned __int128 old = __atomic_load_n(&o->u.q, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(&o->u.q, &old, old + ((unsigned __int128)d << 64), 0,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        ;
}

static int64_t set128(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    add_high(o, 1);
    atomic_fetch_add(&o->mid, 1);
    add_high(o, -1);
    atomic_fetch_add(&o->mid, 1);
    return 0;
}

static int64_t set_straddle(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    __atomic_fetch_add(&o->u.p.a, 1 << 16, __ATOMIC_SEQ_CST); /* byte 8 := 1 */
    atomic_fetch_add(&o->mid, 1);
    __atomic_fetch_sub(&o->u.p.a, 1 << 16, __ATOMIC_SEQ_CST); /* byte 8 := 0 */
    atomic_fetch_add(&o->mid, 1);
    return 0;
}

/* The word at offset 8. */
static int64_t peek(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    int64_t v;
    memcpy(&v, (char *)o + 8, sizeof v); /* a plain 8-byte load */
    atomic_fetch_add(&o->seen, 1);
    return v;
}

LINEUP_HARNESS(cas128, create, free, LINEUP_OP(set128, 0), LINEUP_OP(peek, 0));
LINEUP_HARNESS(straddle, create, free, LINEUP_OP(set_straddle, 0), LINEUP_OP(peek, 0));
