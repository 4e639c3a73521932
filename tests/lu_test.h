/*
 * The assertion counters lineup's C test binaries share. CHECK counts a
 * passing assertion or prints the failing one with file and line; each
 * binary ends with the "N passed, M failed" line CI reads.
 */
#ifndef LU_TEST_H
#define LU_TEST_H

#include <stdio.h>

static int passes, failures;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (cond) {                                                                                          \
            passes++;                                                                                        \
        } else {                                                                                             \
            failures++;                                                                                      \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                                      \
            printf(__VA_ARGS__);                                                                             \
            printf("\n");                                                                                    \
        }                                                                                                    \
    } while (0)

#endif
