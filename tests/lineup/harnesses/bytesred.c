/*
 * Independent operations, each on an atomic of its own, that return bytes
 * (lineup_result_bytes): their steps commute, and the copies lineup makes
 * of the results (in liblineup.so and in the driver's checker, on the
 * test's threads) are not accesses of the code under test. Counted as such
 * (lu_ipose_libc.c watches memcpy), they made every call's last step
 * dependent with the others' and cost the reduction executions (a golden
 * count in tests/lineup/CMakeLists.txt).
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdlib.h>

struct counters {
    atomic_long a[4];
};

static void *create(void)
{
    return calloc(1, sizeof(struct counters));
}

static int64_t bump(void *p, int64_t i)
{
    struct counters *o = p;
    long v = atomic_fetch_add(&o->a[i], 1);
    atomic_fetch_add(&o->a[i], 1);
    unsigned char b[8] = {(unsigned char)v};
    lineup_result_bytes(b, sizeof b);
    return v;
}

LINEUP_HARNESS(bytesred, create, free, LINEUP_OP(bump, 0), LINEUP_OP(bump, 1), LINEUP_OP(bump, 2),
               LINEUP_OP(bump, 3));
