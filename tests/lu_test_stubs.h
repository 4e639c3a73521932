/*
 * What lu_ipose_tsan.c needs of the scheduler besides the hooks, for the
 * tests that compile it against a stub scheduler: define LU_TEST_STUB_SELF
 * (the running thread's id, or -1) and include this once. Each thread has
 * TLS of its own there, so there is nothing to keep per thread.
 */
#ifndef LU_TEST_STUBS_H
#define LU_TEST_STUBS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int lu_sched_self_any(void)
{
    return LU_TEST_STUB_SELF;
}

int lu_sched_tls_keep(void *var, size_t size)
{
    (void)var;
    (void)size;
    return 0;
}

/* No reduction here: plain accesses name nothing. */
uint32_t lu_sched_footprint;
void lu_sched_private_stack(uintptr_t *lo, uintptr_t *len)
{
    *lo = *len = 0;
}
void lu_sched_plain_access(const void *addr, size_t size, bool write)
{
    (void)addr;
    (void)size;
    (void)write;
}

void lu_sched_bug(const char *file, int line, const char *what)
{
    fprintf(stderr, "internal error at %s:%d: %s\n", file, line, what);
    abort();
}

#endif
