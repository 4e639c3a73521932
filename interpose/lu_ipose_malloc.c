/*
 * The allocator calls, for the race detector only: a block freed by one
 * thread and handed out again to another is a new object, whose accesses
 * must not be compared with those of the old one; and a free racing with
 * an access to the block is a use-after-free race.
 *
 * free (and realloc when it moves or frees a block) is a write of the
 * whole block for the detector; every allocation forgets the shadow state
 * of the block it returns. The real work is glibc's __libc_* entry points,
 * so no dlsym bootstrapping is needed. With detection off (no handler set),
 * each call costs one load and one branch before the real allocator.
 *
 * Not scheduling points: the allocator is not modelled (its own locks are
 * invisible to lineup, so allocation never orders threads).
 */
#define _GNU_SOURCE
#include "lu_ipose.h"
#include "lu_ipose_race.h"
#include "lu_sched.h"

#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

#define LU__API __attribute__((visibility("default")))

static inline int lu__tracking(void)
{
    return __builtin_expect(lu__ipose_race_hook != NULL, 0) && lu_sched_self() >= 0;
}

static void *lu__fresh(void *p, size_t n)
{
    if (p && lu__tracking())
        lu__ipose_race_forget(p, malloc_usable_size(p));
    lu_sched_note_alloc(p, n);
    return p;
}

static void lu__freed(void *p, uintptr_t pc)
{
    size_t n = malloc_usable_size(p);
    lu__ipose_race_access(p, n, true, pc);
    lu__ipose_race_forget(p, n);
}

LU__API void *malloc(size_t n)
{
    return lu__fresh(__libc_malloc(n), n);
}

LU__API void *calloc(size_t n, size_t size)
{
    return lu__fresh(__libc_calloc(n, size), n * size);
}

LU__API void free(void *p)
{
    if (p && lu__tracking())
        lu__freed(p, (uintptr_t)__builtin_return_address(0));
    lu_sched_note_free(p);
    __libc_free(p);
}

LU__API void *realloc(void *p, size_t n)
{
    void *q;
    if (!p)
        return lu__fresh(__libc_realloc(p, n), n);
    if (!lu__tracking()) {
        q = __libc_realloc(p, n);
        if (q)
            lu_sched_note_realloc(p, q, n);
        else if (n == 0)
            lu_sched_note_free(p); /* glibc frees it */
        return q;
    }
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    size_t old = malloc_usable_size(p);
    /* realloc reads the old contents: a read racing with a writer */
    lu__ipose_race_access(p, old < n ? old : n, false, pc);
    if (n == 0) {
        lu__freed(p, pc);
        lu_sched_note_free(p);
        return __libc_realloc(p, n);
    }
    q = __libc_realloc(p, n);
    if (q && q != p) {
        /* moved: the old block was freed (it is not ours to touch now, so
         * only its shadow state changes) */
        lu__ipose_race_access(p, old, true, pc);
        lu__ipose_race_forget(p, old);
        lu__ipose_race_forget(q, malloc_usable_size(q));
    }
    if (q)
        lu_sched_note_realloc(p, q, n);
    return q;
}

LU__API void *memalign(size_t align, size_t n)
{
    return lu__fresh(__libc_memalign(align, n), n);
}

LU__API void *aligned_alloc(size_t align, size_t n)
{
    return lu__fresh(__libc_memalign(align, n), n);
}

LU__API int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)) != 0)
        return EINVAL;
    void *p = __libc_memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = lu__fresh(p, n);
    return 0;
}
