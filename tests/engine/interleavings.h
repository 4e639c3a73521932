/*
 * Closed forms of interleaving counts that the engine tests compare the
 * scheduler's DFS with (golden counts from a formula, not from the code).
 */
#ifndef LU_TEST_INTERLEAVINGS_H
#define LU_TEST_INTERLEAVINGS_H

#include <stdint.h>

static inline uint64_t binom(int n, int k)
{
    uint64_t r = 1;
    for (int i = 1; i <= k; i++)
        r = r * (uint64_t)(n - k + i) / (uint64_t)i;
    return r;
}

/* interleavings of two k-sequences with at most c preemptions: runs r from 2
 * to c + 2, 2 * C(k-1, ceil(r/2)-1) * C(k-1, floor(r/2)-1) each */
static inline uint64_t bounded2(int k, int c)
{
    uint64_t total = 0;
    for (int r = 2; r <= c + 2 && r <= 2 * k; r++)
        total += 2 * binom(k - 1, (r + 1) / 2 - 1) * binom(k - 1, r / 2 - 1);
    return total;
}

#endif
