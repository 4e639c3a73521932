/*
 * lu_ipose_tsan: lineup's implementation of the ThreadSanitizer
 * instrumentation ABI.
 *
 * Code under test is compiled with -fsanitize=thread but linked without the
 * TSan runtime, so its atomic, volatile and plain memory accesses and its
 * function entries and exits call the __tsan_* functions defined here
 * (the list and what each compiler emits: lu_ipose_tsan.def).
 *
 * - Atomics, fences and volatile accesses are scheduling points on
 *   controlled threads. The operation itself is performed while the thread
 *   holds the baton, so it is atomic with respect to the other controlled
 *   threads; it is still done with seq_cst builtins because uncontrolled
 *   threads may share the memory and because lineup explores interleavings,
 *   not weak-memory reorderings (the memory order arguments are ignored).
 * - Whether an operation changed memory is reported to the scheduler, which
 *   uses it to tell a spinning thread from one making progress: a failed
 *   CAS, an exchange or store of the value already there, a fetch_add of 0
 *   do not count.
 * - Plain accesses are not scheduling points; they are optionally logged
 *   for a data-race detector (lu__ipose_record_plain).
 * - Everything also runs outside executions (lu_sched_self() < 0), as a
 *   plain pass-through, because instrumented code runs there too (dlopen
 *   constructors, the harness's create(), uncontrolled threads).
 */
#include "lu_ipose.h"
#include "lu_ipose_race.h"
#include "lu_sched.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* gcc knows these names as builtins when compiling with any sanitizer (as
 * lineup's own tests may) and prefers void * for the atomic's address. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"
#endif

#define LU__API __attribute__((visibility("default")))
#define LU__SEQ __ATOMIC_SEQ_CST

/* Before each scheduling point a hook tells the scheduler where the access
 * is (LU_SCHED_SET_PC, in the hook's own body: its return address is the
 * instrumented access) and the operand that, with the location, tells a
 * retry from a spin (LU_SCHED_SET_ARG: the CAS's expected value, the value
 * stored; 16-byte values are folded to 64 bits). */
#define LU__PREP(arg)                                                                                        \
    do {                                                                                                     \
        LU_SCHED_SET_PC();                                                                                   \
        LU_SCHED_SET_ARG((uint64_t)(arg) ^ (uint64_t)((unsigned __int128)(arg) >> 64));                      \
    } while (0)

#define LU__INLINE static inline __attribute__((always_inline))

/* The ABI's value types. Signedness does not matter to the calling
 * convention; unsigned keeps the arithmetic below defined. */
typedef uint8_t lu__a8;
typedef uint16_t lu__a16;
typedef uint32_t lu__a32;
typedef uint64_t lu__a64;
typedef unsigned __int128 lu__a128;

/* The footprint of the running step (lu_sched_plain_access), for the
 * reduction and livelock detection: only while lu_sched_footprint says so,
 * on an execution's threads, and not on
 * the thread's own stack, whose bounds each thread keeps for the execution
 * (lu__own.gen is the execution's lu_sched_footprint). */
struct lu__own_stack {
    uintptr_t lo, len;
    uint64_t gen;
};
static __thread struct lu__own_stack lu__own __attribute__((tls_model("initial-exec")));

static __attribute__((noinline)) void lu__footprint(const void *addr, size_t size, bool is_write)
{
    if (lu_sched_self() < 0)
        return;
    uint32_t gen = __atomic_load_n(&lu_sched_footprint, __ATOMIC_RELAXED);
    if (lu__own.gen != gen) {
        lu_sched_private_stack(&lu__own.lo, &lu__own.len);
        lu__own.gen = gen;
        if ((uintptr_t)addr - lu__own.lo < lu__own.len)
            return;
    }
    lu_sched_plain_access(addr, size, is_write);
}

#define LU__FOOTPRINT(addr, size, is_write)                                                                  \
    do {                                                                                                     \
        uint32_t g_ = __atomic_load_n(&lu_sched_footprint, __ATOMIC_RELAXED);                                \
        if (__builtin_expect(g_ != 0, 0) &&                                                                  \
            (lu__own.gen != g_ || (uintptr_t)(addr)-lu__own.lo >= lu__own.len))                              \
            lu__footprint(addr, size, is_write);                                                             \
    } while (0)

/* An atomic or volatile access is keyed by the word at its address (the
 * pending operation's signature, lu_sched_access_begin). One that reaches
 * into the next word (16 bytes, or a packed field across a word's end)
 * adds all its words to the step's footprint, as plain accesses do: a
 * plain read of the second word is not independent of it. */
#define LU__WIDE(addr, size, is_write)                                                                       \
    do {                                                                                                     \
        if (__builtin_expect(((uintptr_t)(addr)&7) + (size) > 8, 0))                                         \
            LU__FOOTPRINT((const void *)(uintptr_t)(addr), size, is_write);                                  \
    } while (0)

/* ---- Primitive operations, sequentially consistent ---- */

/* The value a fetch_<op> stores, given the old one. */
#define LU__NEW_fetch_add(o, v) ((o) + (v))
#define LU__NEW_fetch_sub(o, v) ((o) - (v))
#define LU__NEW_fetch_and(o, v) ((o) & (v))
#define LU__NEW_fetch_or(o, v) ((o) | (v))
#define LU__NEW_fetch_xor(o, v) ((o) ^ (v))
#define LU__NEW_fetch_nand(o, v) (~((o) & (v)))

/* lu__cas is strong: a weak CAS must not fail spuriously either, or a thread
 * could spin on a failure that no other thread caused. */
#define LU__PRIMS_NATIVE(bits)                                                                               \
    LU__INLINE lu__a##bits lu__load##bits(const volatile lu__a##bits *a)                                     \
    {                                                                                                        \
        return __atomic_load_n(a, LU__SEQ);                                                                  \
    }                                                                                                        \
    LU__INLINE void lu__store##bits(volatile lu__a##bits *a, lu__a##bits v)                                  \
    {                                                                                                        \
        __atomic_store_n(a, v, LU__SEQ);                                                                     \
    }                                                                                                        \
    LU__INLINE lu__a##bits lu__exchange##bits(volatile lu__a##bits *a, lu__a##bits v)                        \
    {                                                                                                        \
        return __atomic_exchange_n(a, v, LU__SEQ);                                                           \
    }                                                                                                        \
    LU__INLINE bool lu__cas##bits(volatile lu__a##bits *a, lu__a##bits *c, lu__a##bits v)                    \
    {                                                                                                        \
        return __atomic_compare_exchange_n(a, c, v, false, LU__SEQ, LU__SEQ);                                \
    }                                                                                                        \
    LU__PRIM_FETCH_NATIVE(bits, fetch_add)                                                                   \
    LU__PRIM_FETCH_NATIVE(bits, fetch_sub)                                                                   \
    LU__PRIM_FETCH_NATIVE(bits, fetch_and)                                                                   \
    LU__PRIM_FETCH_NATIVE(bits, fetch_or)                                                                    \
    LU__PRIM_FETCH_NATIVE(bits, fetch_xor)                                                                   \
    LU__PRIM_FETCH_NATIVE(bits, fetch_nand)

#define LU__PRIM_FETCH_NATIVE(bits, op)                                                                      \
    LU__INLINE lu__a##bits lu__##op##bits(volatile lu__a##bits *a, lu__a##bits v)                            \
    {                                                                                                        \
        return __atomic_##op(a, v, LU__SEQ);                                                                 \
    }

LU__PRIMS_NATIVE(8)
LU__PRIMS_NATIVE(16)
LU__PRIMS_NATIVE(32)
LU__PRIMS_NATIVE(64)

/*
 * 16 bytes: the __atomic builtins would call libatomic, which liblineup.so
 * does not link. On x86-64 everything is built on cmpxchg16b, which
 * __sync_val_compare_and_swap inlines when the function is compiled for
 * cx16 (every x86-64 CPU since 2006 has it; libatomic uses it as well).
 * A load is a CAS that stores what it found, so it needs writable memory,
 * as with libatomic.
 */
#if defined(__x86_64__)
#define LU__ATTR_128 __attribute__((target("cx16")))
#define LU__PRIM128 LU__INLINE LU__ATTR_128

LU__PRIM128 lu__a128 lu__casval128(volatile lu__a128 *a, lu__a128 c, lu__a128 v)
{
    return __sync_val_compare_and_swap(a, c, v);
}
#else
#define LU__ATTR_128
#define LU__PRIM128 LU__INLINE

LU__PRIM128 lu__a128 lu__casval128(volatile lu__a128 *a, lu__a128 c, lu__a128 v)
{
    __atomic_compare_exchange_n(a, &c, v, false, LU__SEQ, LU__SEQ);
    return c;
}
#endif
#define LU__ATTR_8
#define LU__ATTR_16
#define LU__ATTR_32
#define LU__ATTR_64

LU__PRIM128 lu__a128 lu__load128(const volatile lu__a128 *a)
{
    return lu__casval128((volatile lu__a128 *)a, 0, 0);
}

LU__PRIM128 bool lu__cas128(volatile lu__a128 *a, lu__a128 *c, lu__a128 v)
{
    lu__a128 old = lu__casval128(a, *c, v);
    bool ok = old == *c;
    *c = old;
    return ok;
}

/* Read-modify-write loop: a torn first guess only costs a retry. */
#define LU__PRIM_RMW128(name, newval)                                                                        \
    LU__PRIM128 lu__a128 lu__##name##128(volatile lu__a128 * a, lu__a128 v)                                  \
    {                                                                                                        \
        lu__a128 o = *a;                                                                                     \
        for (;;) {                                                                                           \
            lu__a128 seen = lu__casval128(a, o, (newval));                                                   \
            if (seen == o)                                                                                   \
                return o;                                                                                    \
            o = seen;                                                                                        \
        }                                                                                                    \
    }

LU__PRIM_RMW128(exchange, v)
LU__PRIM_RMW128(fetch_add, LU__NEW_fetch_add(o, v))
LU__PRIM_RMW128(fetch_sub, LU__NEW_fetch_sub(o, v))
LU__PRIM_RMW128(fetch_and, LU__NEW_fetch_and(o, v))
LU__PRIM_RMW128(fetch_or, LU__NEW_fetch_or(o, v))
LU__PRIM_RMW128(fetch_xor, LU__NEW_fetch_xor(o, v))
LU__PRIM_RMW128(fetch_nand, LU__NEW_fetch_nand(o, v))

LU__PRIM128 void lu__store128(volatile lu__a128 *a, lu__a128 v)
{
    (void)lu__exchange128(a, v);
}

/* ---- Atomic entry points ----
 * Each has the uncontrolled fast path first, so that outside executions an
 * atomic costs one call to lu_sched_self() more than the bare instruction. */

#define LU__CONTROLLED() __builtin_expect(lu_sched_self() >= 0, 1)

/* The race detector checks atomic accesses against plain ones. The epoch
 * is the thread's clock before the scheduling point (what a thread that
 * acquires from this access learns of it); the check runs after
 * lu_sched_access_end, once what the access acquired is known. */
void (*lu__ipose_race_atomic_hook)(const void *addr, size_t size, bool is_write, uintptr_t pc,
                                   uint32_t clock);

/* The hook is read once per access: a detector turned on in between
 * misses this access, one turned off ignores it (lu__ipose_race_atomic
 * checks). */
#define LU__RACE_PREP()                                                                                      \
    void (*race_)(const void *, size_t, bool, uintptr_t, uint32_t) =                                         \
        __atomic_load_n(&lu__ipose_race_atomic_hook, __ATOMIC_RELAXED);                                      \
    uint32_t epoch_ = __builtin_expect(race_ != NULL, 0) ? lu_sched_clock() : 0
#define LU__RACE_ATOMIC(a, size, is_write)                                                                   \
    do {                                                                                                     \
        if (__builtin_expect(race_ != NULL, 0))                                                              \
            race_((const void *)(a), (size), (is_write), (uintptr_t)__builtin_return_address(0), epoch_);    \
    } while (0)

#define LU__HOOK_LOAD(bits, op, label)                                                                       \
    LU__API LU__ATTR_##bits lu__a##bits __tsan_atomic##bits##_##op(const volatile lu__a##bits *a, int mo)    \
    {                                                                                                        \
        if (!LU__CONTROLLED())                                                                               \
            return lu__load##bits(a);                                                                        \
        LU__PREP(0);                                                                                         \
        LU__RACE_PREP();                                                                                     \
        lu_sched_access_begin(LU_SCHED_K_READ, a, label);                                                    \
        lu__a##bits r = lu__load##bits(a);                                                                   \
        LU_SCHED_SET_MO(mo);                                                                                 \
        lu_sched_access_end(a, false);                                                                       \
        LU__WIDE(a, sizeof *a, false);                                                                       \
        LU__RACE_ATOMIC(a, sizeof *a, false);                                                                \
        return r;                                                                                            \
    }

/* A store reports whether it changed memory, so it is an exchange. */
#define LU__HOOK_STORE(bits, op, label)                                                                      \
    LU__API LU__ATTR_##bits void __tsan_atomic##bits##_##op(volatile lu__a##bits *a, lu__a##bits v, int mo)  \
    {                                                                                                        \
        if (!LU__CONTROLLED()) {                                                                             \
            lu__store##bits(a, v);                                                                           \
            return;                                                                                          \
        }                                                                                                    \
        LU__PREP(v);                                                                                         \
        LU__RACE_PREP();                                                                                     \
        lu_sched_access_begin(LU_SCHED_K_WRITE, a, label);                                                   \
        lu__a##bits old = lu__exchange##bits(a, v);                                                          \
        LU_SCHED_SET_MO(mo);                                                                                 \
        lu_sched_access_end(a, old != v);                                                                    \
        LU__WIDE(a, sizeof *a, true);                                                                        \
        LU__RACE_ATOMIC(a, sizeof *a, true);                                                                 \
    }

#define LU__HOOK_XCHG(bits, op, label)                                                                       \
    LU__API LU__ATTR_##bits lu__a##bits __tsan_atomic##bits##_##op(volatile lu__a##bits *a, lu__a##bits v,   \
                                                                   int mo)                                   \
    {                                                                                                        \
        if (!LU__CONTROLLED())                                                                               \
            return lu__exchange##bits(a, v);                                                                 \
        LU__PREP(v);                                                                                         \
        LU__RACE_PREP();                                                                                     \
        lu_sched_access_begin(LU_SCHED_K_RMW, a, label);                                                     \
        lu__a##bits old = lu__exchange##bits(a, v);                                                          \
        LU_SCHED_SET_MO(mo);                                                                                 \
        lu_sched_access_end(a, old != v);                                                                    \
        LU__WIDE(a, sizeof *a, true);                                                                        \
        LU__RACE_ATOMIC(a, sizeof *a, true);                                                                 \
        return old;                                                                                          \
    }

#define LU__HOOK_FETCH(bits, op, label)                                                                      \
    LU__API LU__ATTR_##bits lu__a##bits __tsan_atomic##bits##_##op(volatile lu__a##bits *a, lu__a##bits v,   \
                                                                   int mo)                                   \
    {                                                                                                        \
        if (!LU__CONTROLLED())                                                                               \
            return lu__##op##bits(a, v);                                                                     \
        LU__PREP(v);                                                                                         \
        LU__RACE_PREP();                                                                                     \
        lu_sched_access_begin(LU_SCHED_K_RMW, a, label);                                                     \
        lu__a##bits old = lu__##op##bits(a, v);                                                              \
        LU_SCHED_SET_MO(mo);                                                                                 \
        lu_sched_access_end(a, (lu__a##bits)LU__NEW_##op(old, v) != old);                                    \
        LU__WIDE(a, sizeof *a, true);                                                                        \
        LU__RACE_ATOMIC(a, sizeof *a, true);                                                                 \
        return old;                                                                                          \
    }

/* compare_exchange_strong/_weak (gcc): on failure *c receives the value
 * found. A successful CAS that stores the value it found changes nothing. */
#define LU__HOOK_CAS(bits, op, label)                                                                        \
    LU__API LU__ATTR_##bits int __tsan_atomic##bits##_##op(volatile lu__a##bits *a, lu__a##bits *c,          \
                                                           lu__a##bits v, int mo, int fmo)                   \
    {                                                                                                        \
        if (!LU__CONTROLLED())                                                                               \
            return lu__cas##bits(a, c, v);                                                                   \
        LU__PREP(*c);                                                                                        \
        LU__RACE_PREP();                                                                                     \
        lu_sched_access_begin(LU_SCHED_K_RMW, a, label);                                                     \
        lu__a##bits expected = *c;                                                                           \
        bool ok = lu__cas##bits(a, c, v);                                                                    \
        if (ok)                                                                                              \
            LU_SCHED_SET_MO(mo);                                                                             \
        else                                                                                                 \
            LU_SCHED_SET_MO_FAILED(fmo);                                                                     \
        lu_sched_access_end(a, ok && (expected != v));                                                       \
        LU__WIDE(a, sizeof *a, ok);                                                                          \
        LU__RACE_ATOMIC(a, sizeof *a, ok);                                                                   \
        return ok;                                                                                           \
    }

/* compare_exchange_val (clang): returns the value found; success is
 * "found == c". */
#define LU__HOOK_CASVAL(bits, op, label)                                                                     \
    LU__API LU__ATTR_##bits lu__a##bits __tsan_atomic##bits##_##op(volatile lu__a##bits *a, lu__a##bits c,   \
                                                                   lu__a##bits v, int mo, int fmo)           \
    {                                                                                                        \
        lu__a##bits found = c;                                                                               \
        if (!LU__CONTROLLED()) {                                                                             \
            lu__cas##bits(a, &found, v);                                                                     \
            return found;                                                                                    \
        }                                                                                                    \
        LU__PREP(c);                                                                                         \
        LU__RACE_PREP();                                                                                     \
        lu_sched_access_begin(LU_SCHED_K_RMW, a, label);                                                     \
        bool ok = lu__cas##bits(a, &found, v);                                                               \
        if (ok)                                                                                              \
            LU_SCHED_SET_MO(mo);                                                                             \
        else                                                                                                 \
            LU_SCHED_SET_MO_FAILED(fmo);                                                                     \
        lu_sched_access_end(a, ok && (c != v));                                                              \
        LU__WIDE(a, sizeof *a, ok);                                                                          \
        LU__RACE_ATOMIC(a, sizeof *a, ok);                                                                   \
        return found;                                                                                        \
    }

#define LU_TSAN_ATOMIC(bits, op, shape, name) LU__HOOK_##shape(bits, op, LU_IPOSE_L_TSAN_##bits##_##op)
#include "lu_ipose_tsan.def"

/* ---- Fences: scheduling points with no location ---- */

LU__API void __tsan_atomic_thread_fence(int mo)
{
    if (!LU__CONTROLLED()) {
        __atomic_thread_fence(LU__SEQ);
        return;
    }
    LU__PREP(0);
    lu_sched_access_begin(LU_SCHED_K_FENCE, NULL, LU_IPOSE_L_TSAN_atomic_thread_fence);
    __atomic_thread_fence(LU__SEQ);
    LU_SCHED_SET_MO(mo);
    lu_sched_access_end(NULL, false);
}

LU__API void __tsan_atomic_signal_fence(int mo)
{
    (void)mo;
    if (!LU__CONTROLLED()) {
        __atomic_signal_fence(LU__SEQ);
        return;
    }
    LU__PREP(0);
    lu_sched_access_begin(LU_SCHED_K_FENCE, NULL, LU_IPOSE_L_TSAN_atomic_signal_fence);
    __atomic_signal_fence(LU__SEQ);
    lu_sched_access_end(NULL, false);
}

/* ---- libatomic's generic entry points ----
 * Compilers call these for _Atomic objects that are not lock-free (sizes
 * other than 1, 2, 4, 8 and 16 bytes). On a controlled thread each is a
 * scheduling point (LU_TSAN_GENERIC) done with plain copies: every
 * controlled thread of an execution runs on one kernel thread, and this one
 * holds the baton until its next point (unlike the sized operations, they
 * are then not atomic against an uncontrolled thread that shares the
 * object; libatomic's lock cannot be taken there, as it is a pthread mutex
 * lineup would model). Elsewhere they are libatomic's when it is loaded
 * (its lock keeps real threads apart), else copies under a lock of
 * lineup's own. The operand that tells a retry from a spin is a hash of
 * the value stored or expected. */

/* each entry point's kind of access, from the table */
#define LU_TSAN_GENERIC(op, kind, name) static const enum lu_sched_kind lu__gkind_##op = LU_SCHED_K_##kind;
#include "lu_ipose_tsan.def"

typedef void lu__gload_fn(size_t, void *, void *, int);
typedef void lu__gstore_fn(size_t, void *, void *, int);
typedef void lu__gxchg_fn(size_t, void *, void *, void *, int);
typedef bool lu__gcas_fn(size_t, void *, void *, void *, int, int);

static int lu__glock_word;

static void lu__glock(void)
{
    while (__atomic_exchange_n(&lu__glock_word, 1, __ATOMIC_ACQUIRE))
        ;
}

static void lu__gunlock(void)
{
    __atomic_store_n(&lu__glock_word, 0, __ATOMIC_RELEASE);
}

/* libatomic's function, or NULL when no library after lineup's has it */
static void *lu__libatomic(void **cache, const char *name)
{
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, f ? f : (void *)-1, __ATOMIC_RELEASE);
    }
    return f == (void *)-1 ? NULL : f;
}

static uint64_t lu__ghash(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* *a and *b exchanged, n bytes each (exchange into the value it stores) */
static void lu__gswap(unsigned char *a, unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char x = a[i];
        a[i] = b[i];
        b[i] = x;
    }
}

static void lu__gexchange(size_t n, void *a, void *v, void *r)
{
    if (r == v) {
        lu__gswap(a, r, n);
    } else {
        memcpy(r, a, n);
        memcpy(a, v, n);
    }
}

static bool lu__gcas(size_t n, void *a, void *e, const void *d)
{
    if (memcmp(a, e, n) != 0) {
        memcpy(e, a, n);
        return false;
    }
    memcpy(a, d, n);
    return true;
}

LU__API void __atomic_load(size_t n, void *a, void *r, int mo)
{
    if (!LU__CONTROLLED()) {
        static void *real;
        lu__gload_fn *f = (lu__gload_fn *)lu__libatomic(&real, "__atomic_load");
        if (f) {
            f(n, a, r, mo);
        } else {
            lu__glock();
            memcpy(r, a, n);
            lu__gunlock();
        }
        return;
    }
    LU__PREP(0);
    LU__RACE_PREP();
    lu_sched_access_begin(lu__gkind_load, a, LU_IPOSE_L_TSAN_generic_load);
    memcpy(r, a, n);
    LU_SCHED_SET_MO(mo);
    lu_sched_access_end(a, false);
    LU__WIDE(a, n, false);
    LU__RACE_ATOMIC(a, n, false);
}

LU__API void __atomic_store(size_t n, void *a, void *v, int mo)
{
    if (!LU__CONTROLLED()) {
        static void *real;
        lu__gstore_fn *f = (lu__gstore_fn *)lu__libatomic(&real, "__atomic_store");
        if (f) {
            f(n, a, v, mo);
        } else {
            lu__glock();
            memcpy(a, v, n);
            lu__gunlock();
        }
        return;
    }
    LU__PREP(lu__ghash(v, n));
    LU__RACE_PREP();
    lu_sched_access_begin(lu__gkind_store, a, LU_IPOSE_L_TSAN_generic_store);
    bool changed = memcmp(a, v, n) != 0;
    memcpy(a, v, n);
    LU_SCHED_SET_MO(mo);
    lu_sched_access_end(a, changed);
    LU__WIDE(a, n, true);
    LU__RACE_ATOMIC(a, n, true);
}

LU__API void __atomic_exchange(size_t n, void *a, void *v, void *r, int mo)
{
    if (!LU__CONTROLLED()) {
        static void *real;
        lu__gxchg_fn *f = (lu__gxchg_fn *)lu__libatomic(&real, "__atomic_exchange");
        if (f) {
            f(n, a, v, r, mo);
        } else {
            lu__glock();
            lu__gexchange(n, a, v, r);
            lu__gunlock();
        }
        return;
    }
    LU__PREP(lu__ghash(v, n));
    LU__RACE_PREP();
    lu_sched_access_begin(lu__gkind_exchange, a, LU_IPOSE_L_TSAN_generic_exchange);
    bool changed = memcmp(a, v, n) != 0;
    lu__gexchange(n, a, v, r);
    LU_SCHED_SET_MO(mo);
    lu_sched_access_end(a, changed);
    LU__WIDE(a, n, true);
    LU__RACE_ATOMIC(a, n, true);
}

/* compares bytes, as libatomic does (padding included) */
LU__API bool __atomic_compare_exchange(size_t n, void *a, void *e, void *d, int mo, int fmo)
{
    if (!LU__CONTROLLED()) {
        static void *real;
        lu__gcas_fn *f = (lu__gcas_fn *)lu__libatomic(&real, "__atomic_compare_exchange");
        if (f)
            return f(n, a, e, d, mo, fmo);
        lu__glock();
        bool ok = lu__gcas(n, a, e, d);
        lu__gunlock();
        return ok;
    }
    LU__PREP(lu__ghash(e, n));
    LU__RACE_PREP();
    lu_sched_access_begin(lu__gkind_compare_exchange, a, LU_IPOSE_L_TSAN_generic_compare_exchange);
    bool changed = memcmp(e, d, n) != 0;
    bool ok = lu__gcas(n, a, e, d);
    if (ok)
        LU_SCHED_SET_MO(mo);
    else
        LU_SCHED_SET_MO_FAILED(fmo);
    lu_sched_access_end(a, ok && changed);
    LU__WIDE(a, n, ok);
    LU__RACE_ATOMIC(a, n, ok);
    return ok;
}

/* ---- Volatile accesses ----
 * The hook runs before the instrumented code performs the access, and is
 * not told the value: a write is reported as a change (conservative: a
 * thread spinning by rewriting the same value is not recognised), a read
 * as none. Nothing runs between the hook and the access: the baton stays
 * with this thread until its next scheduling point. */

#define LU_TSAN_VOLATILE(op, bytes, kind, name)                                                              \
    LU__API void __tsan_##op##bytes(void *addr)                                                              \
    {                                                                                                        \
        if (!LU__CONTROLLED())                                                                               \
            return;                                                                                          \
        LU__PREP(0);                                                                                         \
        LU__RACE_PREP();                                                                                     \
        lu_sched_access_begin(LU_SCHED_K_##kind, addr, LU_IPOSE_L_TSAN_##op##bytes);                         \
        lu_sched_access_end(addr, LU_SCHED_K_##kind == LU_SCHED_K_WRITE);                                    \
        LU__WIDE(addr, bytes, LU_SCHED_K_##kind == LU_SCHED_K_WRITE);                                        \
        LU__RACE_ATOMIC(addr, bytes, LU_SCHED_K_##kind == LU_SCHED_K_WRITE);                                 \
    }
#include "lu_ipose_tsan.def"

/* ---- Plain accesses: the log, and the race detector (lu_ipose_race.c) ---- */

int lu__ipose_record_plain;
void (*lu__ipose_race_hook)(const void *addr, size_t size, bool is_write, uintptr_t pc);

static struct lu__ipose_plain_rec lu__plain_log[LU_IPOSE_PLAIN_LOG_CAP];
static uint64_t lu__plain_head; /* records ever appended since the reset */

_Static_assert((LU_IPOSE_PLAIN_LOG_CAP & (LU_IPOSE_PLAIN_LOG_CAP - 1)) == 0, "capacity must be a power of 2");

/* Out of line so that the hooks stay two loads, a branch and a return. */
static __attribute__((noinline)) void lu__plain_append(const void *addr, size_t size, int is_write, void *pc)
{
    if (__atomic_load_n(&lu__ipose_record_plain, __ATOMIC_RELAXED)) {
        uint64_t i = __atomic_fetch_add(&lu__plain_head, 1, __ATOMIC_RELAXED);
        struct lu__ipose_plain_rec *r = &lu__plain_log[i & (LU_IPOSE_PLAIN_LOG_CAP - 1)];
        r->addr = (uintptr_t)addr;
        r->pc = (uintptr_t)pc;
        r->size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
        r->tid = (int16_t)lu_sched_self();
        r->is_write = (uint8_t)is_write;
        r->clock = lu_sched_clock();
        r->pad = 0;
    }
    void (*race)(const void *, size_t, bool, uintptr_t) =
        __atomic_load_n(&lu__ipose_race_hook, __ATOMIC_RELAXED);
    if (race)
        race(addr, size, is_write != 0, (uintptr_t)pc);
}

/* Either consumer on: both are off by default, and an OR of the two words
 * keeps the off path two loads and one predictable branch. */
#define LU__RECORDING()                                                                                      \
    __builtin_expect(((uintptr_t)__atomic_load_n(&lu__ipose_race_hook, __ATOMIC_RELAXED) |                   \
                      (uintptr_t)(unsigned)__atomic_load_n(&lu__ipose_record_plain, __ATOMIC_RELAXED)) != 0, \
                     0)

#define LU_TSAN_PLAIN(op, bytes, is_write)                                                                   \
    LU__API void __tsan_##op##bytes(void *addr)                                                              \
    {                                                                                                        \
        LU__FOOTPRINT(addr, bytes, is_write);                                                                \
        if (LU__RECORDING())                                                                                 \
            lu__plain_append(addr, bytes, is_write, __builtin_return_address(0));                            \
    }
#include "lu_ipose_tsan.def"

LU__API void __tsan_read_range(void *addr, unsigned long size)
{
    LU__FOOTPRINT(addr, size, false);
    if (LU__RECORDING())
        lu__plain_append(addr, size, 0, __builtin_return_address(0));
}

LU__API void __tsan_write_range(void *addr, unsigned long size)
{
    LU__FOOTPRINT(addr, size, true);
    if (LU__RECORDING())
        lu__plain_append(addr, size, 1, __builtin_return_address(0));
}

/* C++ virtual table pointers: plain accesses of the object's first word. */
LU__API void __tsan_vptr_update(void **vptr_p, void *new_val)
{
    (void)new_val;
    LU__FOOTPRINT(vptr_p, sizeof *vptr_p, true);
    if (LU__RECORDING())
        lu__plain_append(vptr_p, sizeof *vptr_p, 1, __builtin_return_address(0));
}

LU__API void __tsan_vptr_read(void **vptr_p)
{
    LU__FOOTPRINT(vptr_p, sizeof *vptr_p, false);
    if (LU__RECORDING())
        lu__plain_append(vptr_p, sizeof *vptr_p, 0, __builtin_return_address(0));
}

/* Newer clangs call these instead of the libc functions. */
LU__API void *__tsan_memcpy(void *dst, const void *src, size_t n)
{
    LU__FOOTPRINT(src, n, false);
    LU__FOOTPRINT(dst, n, true);
    if (LU__RECORDING()) {
        lu__plain_append(src, n, 0, __builtin_return_address(0));
        lu__plain_append(dst, n, 1, __builtin_return_address(0));
    }
    return memcpy(dst, src, n);
}

LU__API void *__tsan_memmove(void *dst, const void *src, size_t n)
{
    LU__FOOTPRINT(src, n, false);
    LU__FOOTPRINT(dst, n, true);
    if (LU__RECORDING()) {
        lu__plain_append(src, n, 0, __builtin_return_address(0));
        lu__plain_append(dst, n, 1, __builtin_return_address(0));
    }
    return memmove(dst, src, n);
}

LU__API void *__tsan_memset(void *dst, int c, size_t n)
{
    LU__FOOTPRINT(dst, n, true);
    if (LU__RECORDING())
        lu__plain_append(dst, n, 1, __builtin_return_address(0));
    return memset(dst, c, n);
}

void lu__ipose_plain_range(const void *addr, size_t size, bool is_write, void *pc)
{
    LU__FOOTPRINT(addr, size, is_write);
    if (LU__RECORDING())
        lu__plain_append(addr, size, is_write, pc);
}

void lu__ipose_plain_log_enable(bool on)
{
    __atomic_store_n(&lu__ipose_record_plain, on ? 1 : 0, __ATOMIC_RELAXED);
}

void lu__ipose_plain_log_reset(void)
{
    __atomic_store_n(&lu__plain_head, 0, __ATOMIC_RELAXED);
}

uint64_t lu__ipose_plain_log_total(void)
{
    return __atomic_load_n(&lu__plain_head, __ATOMIC_RELAXED);
}

size_t lu__ipose_plain_log_copy(struct lu__ipose_plain_rec *out, size_t max)
{
    uint64_t total = lu__ipose_plain_log_total();
    uint64_t kept = total < LU_IPOSE_PLAIN_LOG_CAP ? total : LU_IPOSE_PLAIN_LOG_CAP;
    size_t n = kept < max ? (size_t)kept : max;
    for (size_t i = 0; i < n; i++)
        out[i] = lu__plain_log[(total - n + i) & (LU_IPOSE_PLAIN_LOG_CAP - 1)];
    return n;
}

/* ---- Function entry and exit: the shadow call stack ---- */

struct lu__ipose_shadow {
    /* Instrumented functions entered and not left; may exceed
     * LU_IPOSE_SHADOW_MAX, the deeper entries are then not recorded. */
    int depth;
    struct {
        uintptr_t pc;    /* the caller_pc of __tsan_func_entry */
        uintptr_t frame; /* the function's frame pointer: orders entries by stack depth */
    } e[LU_IPOSE_SHADOW_MAX];
};

/* initial-exec: a TLS access is one instruction, no __tls_get_addr call.
 * Fine because liblineup.so is always a DT_NEEDED of the process, never
 * dlopen()ed. A thread's shadow is found through a pointer in its TLS, set
 * at its first entry: controlled thread i's is lu__shadows[i], whatever TLS
 * it runs on (a shared TLS keeps the pointer per thread, lu_sched_tls_keep),
 * so that a report reads each thread's; any other thread's is its own
 * lu__shadow. */
static __thread struct lu__ipose_shadow *lu__shadow_p __attribute__((tls_model("initial-exec")));
static __thread struct lu__ipose_shadow lu__shadow __attribute__((tls_model("initial-exec")));
static struct lu__ipose_shadow lu__shadows[LU_SCHED_MAX_THREADS];

static __attribute__((noinline, cold)) struct lu__ipose_shadow *lu__shadow_first(void)
{
    int id = lu_sched_self_any();
    struct lu__ipose_shadow *s = id >= 0 && id < LU_SCHED_MAX_THREADS ? &lu__shadows[id] : &lu__shadow;
    /* entries of an earlier execution's thread i are dead: their frames
     * are at or below any live frame of this one only by chance, so drop
     * them all */
    s->depth = 0;
    lu__shadow_p = s;
    return s;
}

static inline struct lu__ipose_shadow *lu__shadow_get(void)
{
    struct lu__ipose_shadow *s = lu__shadow_p;
    return __builtin_expect(s != NULL, 1) ? s : lu__shadow_first();
}

__attribute__((constructor)) static void lu__shadow_keep(void)
{
    if (lu_sched_tls_keep(&lu__shadow_p, sizeof lu__shadow_p) != 0 ||
        lu_sched_tls_keep(&lu__own, sizeof lu__own) != 0)
        lu_sched_bug(__FILE__, __LINE__, "lu_sched_tls_keep: the table is full");
}

/*
 * A longjmp out of instrumented functions skips their exits, and so does a
 * stuck thread the scheduler abandons (the next execution starts a fresh
 * context on its stack). Each entry is stamped with the frame pointer of
 * the instrumented function (compiled with -fno-omit-frame-pointer by
 * lineup-cc): the stack grows down, so a live caller's frame is strictly
 * above the current function's, and an entry at or below it is dead and
 * dropped here. Siblings called from the
 * same place get the same frame pointer whatever their own frame size, so
 * a dead sibling is always recognised. Reading frame 1 only loads the
 * frame pointer saved by this function's own prologue: it is safe even if
 * the caller has no frame pointer (the backtrace is then merely wrong).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wframe-address"
LU__API void __tsan_func_entry(void *caller_pc)
{
    struct lu__ipose_shadow *s = lu__shadow_get();
    uintptr_t frame = (uintptr_t)__builtin_frame_address(1);
    int d = s->depth;
    if (d <= LU_IPOSE_SHADOW_MAX)
        while (d > 0 && s->e[d - 1].frame <= frame)
            d--;
    if (d < LU_IPOSE_SHADOW_MAX) {
        s->e[d].pc = (uintptr_t)caller_pc;
        s->e[d].frame = frame;
    }
    s->depth = d + 1;
}
#pragma GCC diagnostic pop

LU__API void __tsan_func_exit(void)
{
    struct lu__ipose_shadow *s = lu__shadow_get();
    if (s->depth > 0)
        s->depth--;
}

struct lu__ipose_shadow *lu__ipose_shadow_self(void)
{
    return lu__shadow_get();
}

int lu__ipose_backtrace_of(const struct lu__ipose_shadow *s, uintptr_t *out, int max)
{
    int d = s->depth < LU_IPOSE_SHADOW_MAX ? s->depth : LU_IPOSE_SHADOW_MAX;
    int n = 0;
    for (int i = d - 1; i >= 0 && n < max; i--)
        out[n++] = s->e[i].pc;
    return n;
}

int lu__ipose_backtrace(uintptr_t *out, int max)
{
    return lu__ipose_backtrace_of(lu__shadow_get(), out, max);
}

/* ---- The rest of the ABI ---- */

/* Called by every instrumented module's constructor; nothing to set up. */
LU__API void __tsan_init(void)
{
}

/* Brackets code TSan should not check; lineup has nothing to switch off. */
LU__API void __tsan_ignore_thread_begin(void)
{
}

LU__API void __tsan_ignore_thread_end(void)
{
}

/* ---- Label names ---- */

static const char *const lu__tsan_names[LU_IPOSE_L_TSAN_LAST] = {
#define LU_TSAN_ATOMIC(bits, op, shape, name) [LU_IPOSE_L_TSAN_##bits##_##op] = name,
#define LU_TSAN_FENCE(op, name) [LU_IPOSE_L_TSAN_##op] = name,
#define LU_TSAN_VOLATILE(op, bytes, kind, name) [LU_IPOSE_L_TSAN_##op##bytes] = name,
#define LU_TSAN_GENERIC(op, kind, name) [LU_IPOSE_L_TSAN_generic_##op] = name,
#include "lu_ipose_tsan.def"
};

const char *lu__ipose_tsan_label_name(uint16_t label)
{
    if (label == LU_IPOSE_L_NONE || label >= LU_IPOSE_L_TSAN_LAST)
        return NULL;
    return lu__tsan_names[label];
}
