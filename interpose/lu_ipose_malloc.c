/*
 * The allocator calls, for the race detector: a block freed by one
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
 *
 * And for lineup's memory limits: every call keeps the count of heap bytes
 * live in the process (chunk sizes, a load and a store), which the Line-Up
 * driver reads after each execution to restart a leaking explorer at an
 * exact limit, and may cap. An allocation by a controlled thread that
 * passes the cap, or that fails for a size the machine could give
 * natively, calls the driver's hook instead of letting the code under test
 * see what lineup's own memory use caused.
 */
#define _GNU_SOURCE
#include "lu_ipose.h"
#include "lu_ipose_race.h"
#include "lu_sched.h"

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);
extern void *__libc_valloc(size_t n);
extern void *__libc_pvalloc(size_t n);

#define LU__API __attribute__((visibility("default")))

static inline int lu__tracking(void)
{
    return __builtin_expect(lu__ipose_race_hook != NULL, 0) && lu_sched_self() >= 0;
}

/* The count is read between executions, by the kernel thread that runs
 * them: a load and a store, no locked instruction, since uncontrolled
 * threads allocating at the same time only make it approximate. */
static _Atomic int64_t lu__heap_live;
static int64_t lu__heap_cap = INT64_MAX;
static lu__ipose_alloc_hook *lu__on_cap, *lu__on_failure;

int64_t lu__ipose_heap_live(void)
{
    return atomic_load_explicit(&lu__heap_live, memory_order_relaxed);
}

void lu__ipose_set_heap_cap(int64_t cap, lu__ipose_alloc_hook *hook)
{
    lu__on_cap = hook;
    lu__heap_cap = hook ? cap : INT64_MAX;
}

void lu__ipose_set_alloc_failed(lu__ipose_alloc_hook *hook)
{
    lu__on_failure = hook;
}

/* A request no process of this machine could get (more than the address
 * space limit, or than its memory and swap together) fails natively too:
 * the code under test sees its NULL, so that it can test its own
 * out-of-memory path. */
static bool lu__natively_too_big(size_t n)
{
    if (n > PTRDIFF_MAX)
        return true;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && n >= rl.rlim_cur)
        return true;
    struct sysinfo si;
    return sysinfo(&si) == 0 && n / (si.mem_unit ? si.mem_unit : 1) >= (uint64_t)si.totalram + si.totalswap;
}

/* Hooks are called once: what they allocate to report must not call them
 * again. */
static void lu__failed(const char *fn, size_t n, uintptr_t pc)
{
    lu__ipose_alloc_hook *hook = lu__on_failure;
    if (hook && n && lu_sched_self() >= 0 && !lu__natively_too_big(n)) {
        lu__on_failure = NULL;
        hook(fn, n, pc, lu__ipose_heap_live());
    }
}

static void lu__over_cap(const char *fn, size_t n, uintptr_t pc, int64_t live)
{
    lu__ipose_alloc_hook *hook = lu__on_cap;
    if (hook && lu_sched_self() >= 0) {
        lu__heap_cap = INT64_MAX;
        lu__on_cap = NULL;
        hook(fn, n, pc, live);
    }
}

/* The size of p's chunk, header included: glibc keeps it in the word
 * before the block, with flags in the low 3 bits (malloc_usable_size is a
 * call and checks that the block is in use). */
static inline int64_t lu__chunk(const void *p)
{
    return (int64_t)(((const size_t *)p)[-1] & ~(size_t)7);
}

static inline void lu__add(int64_t d)
{
    atomic_store_explicit(&lu__heap_live, atomic_load_explicit(&lu__heap_live, memory_order_relaxed) + d,
                          memory_order_relaxed);
}

static inline void lu__count(void *p, const char *fn, size_t n, uintptr_t pc)
{
    int64_t live = atomic_load_explicit(&lu__heap_live, memory_order_relaxed) + lu__chunk(p);
    atomic_store_explicit(&lu__heap_live, live, memory_order_relaxed);
    if (__builtin_expect(live > lu__heap_cap, 0))
        lu__over_cap(fn, n, pc, live);
}

static inline void lu__uncount(void *p)
{
    lu__add(-lu__chunk(p));
}

static void *lu__fresh(void *p, size_t n, const char *fn, uintptr_t pc)
{
    if (!p) {
        lu__failed(fn, n, pc);
        return NULL;
    }
    if (lu__tracking())
        lu__ipose_race_forget(p, malloc_usable_size(p));
    lu_sched_forget_sync(p, malloc_usable_size(p));
    lu__count(p, fn, n, pc);
    lu_sched_note_alloc(p, n);
    return p;
}

static void lu__freed(void *p, uintptr_t pc)
{
    size_t n = malloc_usable_size(p);
    lu__ipose_race_access(p, n, true, pc);
    lu__ipose_race_forget(p, n);
}

#define LU__CALLER ((uintptr_t)__builtin_return_address(0))

LU__API void *malloc(size_t n)
{
    return lu__fresh(__libc_malloc(n), n, "malloc", LU__CALLER);
}

LU__API void *calloc(size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total))
        total = SIZE_MAX; /* fails natively as well */
    return lu__fresh(__libc_calloc(n, size), total, "calloc", LU__CALLER);
}

LU__API void free(void *p)
{
    if (!p) {
        lu_sched_note_free(p);
        return;
    }
    if (lu__tracking())
        lu__freed(p, LU__CALLER);
    lu_sched_note_free(p);
    lu__uncount(p);
    __libc_free(p);
}

/* What realloc hands out anew: all of a moved block, the part past the old
 * end of one grown in place (lu_sched_forget_sync) */
static void lu__realloc_forget(void *p, size_t old, void *q)
{
    if (!q)
        return;
    size_t now = malloc_usable_size(q);
    if (q != p)
        lu_sched_forget_sync(q, now);
    else if (now > old)
        lu_sched_forget_sync((char *)q + old, now - old);
}

LU__API void *realloc(void *p, size_t n)
{
    void *q;
    uintptr_t pc = LU__CALLER;
    if (!p)
        return lu__fresh(__libc_realloc(p, n), n, "realloc", pc);
    int64_t oldc = lu__chunk(p);
    if (!lu__tracking()) {
        size_t old = malloc_usable_size(p);
        q = __libc_realloc(p, n);
        lu__realloc_forget(p, old, q);
        if (q) {
            lu__add(-oldc);
            lu__count(q, "realloc", n, pc);
            lu_sched_note_realloc(p, q, n);
        } else if (n == 0) {
            lu__add(-oldc);
            lu_sched_note_free(p); /* glibc frees it */
        } else {
            lu__failed("realloc", n, pc);
        }
        return q;
    }
    size_t old = malloc_usable_size(p);
    /* realloc reads the old contents: a read racing with a writer */
    lu__ipose_race_access(p, old < n ? old : n, false, pc);
    if (n == 0) {
        lu__freed(p, pc);
        lu_sched_note_free(p);
        lu__add(-oldc);
        return __libc_realloc(p, n);
    }
    q = __libc_realloc(p, n);
    lu__realloc_forget(p, old, q);
    if (!q)
        lu__failed("realloc", n, pc);
    if (q && q != p) {
        /* moved: the old block was freed (it is not ours to touch now, so
         * only its shadow state changes) */
        lu__ipose_race_access(p, old, true, pc);
        lu__ipose_race_forget(p, old);
        lu__ipose_race_forget(q, malloc_usable_size(q));
    }
    if (q) {
        lu__add(-oldc);
        lu__count(q, "realloc", n, pc);
        lu_sched_note_realloc(p, q, n);
    }
    return q;
}

LU__API void *memalign(size_t align, size_t n)
{
    return lu__fresh(__libc_memalign(align, n), n, "memalign", LU__CALLER);
}

LU__API void *aligned_alloc(size_t align, size_t n)
{
    return lu__fresh(__libc_memalign(align, n), n, "aligned_alloc", LU__CALLER);
}

/* glibc's own valloc and pvalloc do not go through memalign: blocks they
 * returned would be freed here without having been counted */
LU__API void *valloc(size_t n)
{
    return lu__fresh(__libc_valloc(n), n, "valloc", LU__CALLER);
}

LU__API void *pvalloc(size_t n)
{
    return lu__fresh(__libc_pvalloc(n), n, "pvalloc", LU__CALLER);
}

LU__API int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)) != 0)
        return EINVAL;
    void *p = lu__fresh(__libc_memalign(align, n), n, "posix_memalign", LU__CALLER);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}
