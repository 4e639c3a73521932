/*
 * Unit test of interpose/lu_ipose_tsan.c against a stub scheduler: for
 * every entry point of the .def table, the result and memory effect of the
 * operation, the access kind, address and label passed to the scheduler,
 * the "changed" flag (the scheduler's spin detection depends on it), the
 * pc the scheduler would attribute the point to, and the plain-access log
 * and shadow call stack. Compiled together with lu_ipose_tsan.c, without
 * liblineup.so.
 */
#define _GNU_SOURCE
#include "lu_ipose.h"
#include "lu_sched.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t a8;
typedef uint16_t a16;
typedef uint32_t a32;
typedef uint64_t a64;
typedef unsigned __int128 a128;

/* gcc knows these names as builtins when compiling with a sanitizer (as
 * this test is) and prefers void * for the atomic's address. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"
#endif

/* Prototypes of the entry points, from the table. */
#define PROTO_LOAD(b, op) a##b __tsan_atomic##b##_##op(const volatile a##b *a, int mo);
#define PROTO_STORE(b, op) void __tsan_atomic##b##_##op(volatile a##b *a, a##b v, int mo);
#define PROTO_XCHG(b, op) a##b __tsan_atomic##b##_##op(volatile a##b *a, a##b v, int mo);
#define PROTO_FETCH(b, op) a##b __tsan_atomic##b##_##op(volatile a##b *a, a##b v, int mo);
#define PROTO_CAS(b, op) int __tsan_atomic##b##_##op(volatile a##b *a, a##b *c, a##b v, int mo, int fmo);
#define PROTO_CASVAL(b, op) a##b __tsan_atomic##b##_##op(volatile a##b *a, a##b c, a##b v, int mo, int fmo);
#define LU_TSAN_ATOMIC(bits, op, shape, name) PROTO_##shape(bits, op)
#define LU_TSAN_FENCE(op, name) void __tsan_##op(int mo);
#define LU_TSAN_VOLATILE(op, bytes, kind, name) void __tsan_##op##bytes(void *addr);
#define LU_TSAN_PLAIN(op, bytes, is_write) void __tsan_##op##bytes(void *addr);
#include "lu_ipose_tsan.def"
void __tsan_read_range(void *addr, unsigned long size);
void __tsan_write_range(void *addr, unsigned long size);
void __tsan_func_entry(void *caller_pc);
void __tsan_func_exit(void);
void __tsan_init(void);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
void __tsan_vptr_update(void **vptr_p, void *new_val);
void __tsan_vptr_read(void **vptr_p);
void *__tsan_memcpy(void *dst, const void *src, size_t n);
void *__tsan_memmove(void *dst, const void *src, size_t n);
void *__tsan_memset(void *dst, int c, size_t n);

static int failures, checks;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        checks++;                                                                                            \
        if (!(cond)) {                                                                                       \
            failures++;                                                                                      \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                           \
            printf(__VA_ARGS__);                                                                             \
            printf("\n");                                                                                    \
        }                                                                                                    \
    } while (0)

/* ---- Stub scheduler ---- */

static int stub_tid = -1;
static struct {
    int begins, ends;
    enum lu_sched_kind k;
    const volatile void *addr, *end_addr;
    uint16_t label;
    bool changed;
    uintptr_t pc;
    uint64_t arg;
} rec;

int lu_sched_self(void)
{
    return stub_tid;
}

#define LU_TEST_STUB_SELF stub_tid
#include "lu_test_stubs.h"

/* Distinct per thread id, so the log test can see it recorded. */
uint32_t lu_sched_clock(void)
{
    return stub_tid >= 0 ? 100u + (uint32_t)stub_tid : 0u;
}

/* Like the real ones: the pc comes from lu_sched_pc, consumed by the next
 * scheduling point. */
__thread uintptr_t lu_sched_pc __attribute__((tls_model("initial-exec")));
__thread uint64_t lu_sched_arg __attribute__((tls_model("initial-exec")));
__thread int lu_sched_mo;

void lu_sched_access_begin(enum lu_sched_kind k, const volatile void *addr, uint16_t label)
{
    rec.begins++;
    rec.k = k;
    rec.addr = addr;
    rec.label = label;
    rec.pc = lu_sched_pc;
    rec.arg = lu_sched_arg;
    lu_sched_pc = 0;
    lu_sched_arg = 0xdead; /* a hook must always set it */
}

void lu_sched_access_end(const volatile void *addr, bool changed)
{
    rec.ends++;
    rec.end_addr = addr;
    rec.changed = changed;
}

static void rec_reset(void)
{
    memset(&rec, 0, sizeof rec);
    rec.k = LU_SCHED_K_COUNT;
}

/* One scheduling point was made with these properties. */
#define CHECK_POINT(kind, address, lab, chg, what)                                                           \
    do {                                                                                                     \
        CHECK(rec.begins == 1 && rec.ends == 1, "%s: %d begins, %d ends", what, rec.begins, rec.ends);       \
        CHECK(rec.k == (kind), "%s: kind %d", what, (int)rec.k);                                             \
        CHECK(rec.addr == (address) && rec.end_addr == (address), "%s: wrong address", what);                \
        CHECK(rec.label == (lab), "%s: label %u", what, (unsigned)rec.label);                                \
        CHECK(rec.changed == (chg), "%s: changed %d, expected %d", what, (int)rec.changed, (int)(chg));      \
    } while (0)

#define CHECK_NO_POINT(what) CHECK(rec.begins == 0 && rec.ends == 0, "%s: a point outside control", what)

/* ---- Atomics, one size at a time, controlled and not ---- */

#define L(b, op) LU_IPOSE_L_TSAN_##b##_##op

#define TEST_SIZE(b)                                                                                         \
    static void test_atomic##b(int tid)                                                                      \
    {                                                                                                        \
        static volatile a##b x;                                                                              \
        bool ctl = tid >= 0;                                                                                 \
        char w[64];                                                                                          \
        a##b c, r;                                                                                           \
        int ok;                                                                                              \
        stub_tid = tid;                                                                                      \
        snprintf(w, sizeof w, "%d-bit, tid %d", b, tid);                                                     \
        /* values with distinct halves, for 128 bits */                                                      \
        a##b big = (a##b)(((a128)0x0123456789abcdefULL << 64) | 0xfedcba9876543210ULL);                      \
                                                                                                             \
        x = 5;                                                                                               \
        rec_reset();                                                                                         \
        r = __tsan_atomic##b##_load(&x, 5);                                                                  \
        CHECK(r == 5, "%s load", w);                                                                         \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_READ, &x, L(b, load), false, w);                                          \
        else                                                                                                 \
            CHECK_NO_POINT(w);                                                                               \
                                                                                                             \
        rec_reset();                                                                                         \
        __tsan_atomic##b##_store(&x, 5, 5);                                                                  \
        CHECK(x == 5, "%s store", w);                                                                        \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_WRITE, &x, L(b, store), false, "store of the same value");                \
        rec_reset();                                                                                         \
        __tsan_atomic##b##_store(&x, big, 3);                                                                \
        CHECK(x == big, "%s store", w);                                                                      \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_WRITE, &x, L(b, store), true, "store");                                   \
        else                                                                                                 \
            CHECK_NO_POINT(w);                                                                               \
                                                                                                             \
        rec_reset();                                                                                         \
        r = __tsan_atomic##b##_exchange(&x, big, 5);                                                         \
        CHECK(r == big && x == big, "%s exchange", w);                                                       \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_RMW, &x, L(b, exchange), false, "exchange of the same value");            \
        rec_reset();                                                                                         \
        r = __tsan_atomic##b##_exchange(&x, 7, 5);                                                           \
        CHECK(r == big && x == 7, "%s exchange", w);                                                         \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_RMW, &x, L(b, exchange), true, "exchange");                               \
                                                                                                             \
        TEST_FETCH(b, fetch_add, 7, 0, 7, 3, 10);                                                            \
        TEST_FETCH(b, fetch_sub, 10, 0, 10, 3, 7);                                                           \
        TEST_FETCH(b, fetch_and, 7, (a##b) ~(a##b)0, 7, 3, 3);                                               \
        TEST_FETCH(b, fetch_or, 3, 0, 3, 4, 7);                                                              \
        TEST_FETCH(b, fetch_xor, 7, 0, 7, 5, 2);                                                             \
        /* nand: ~(o & v) == o only for o all ones, v 0 */                                                   \
        TEST_FETCH(b, fetch_nand, (a##b) ~(a##b)0, 0, (a##b) ~(a##b)2, 3, (a##b)(~((a##b) ~(a##b)2 & 3)));   \
                                                                                                             \
        TEST_CAS(b, compare_exchange_strong);                                                                \
        TEST_CAS(b, compare_exchange_weak);                                                                  \
                                                                                                             \
        x = 1;                                                                                               \
        rec_reset();                                                                                         \
        r = __tsan_atomic##b##_compare_exchange_val(&x, 2, 3, 5, 5);                                         \
        CHECK(r == 1 && x == 1, "%s casval failure", w);                                                     \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_RMW, &x, L(b, compare_exchange_val), false, "failed casval");             \
        rec_reset();                                                                                         \
        r = __tsan_atomic##b##_compare_exchange_val(&x, 1, 1, 5, 5);                                         \
        CHECK(r == 1 && x == 1, "%s casval same", w);                                                        \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_RMW, &x, L(b, compare_exchange_val), false, "casval storing the same");   \
        rec_reset();                                                                                         \
        r = __tsan_atomic##b##_compare_exchange_val(&x, 1, big, 5, 5);                                       \
        CHECK(r == 1 && x == big, "%s casval success", w);                                                   \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_RMW, &x, L(b, compare_exchange_val), true, "casval");                     \
        (void)c;                                                                                             \
        (void)ok;                                                                                            \
    }

/* fetch op: from start, applying noop changes nothing and returns start;
 * from x0, applying v returns x0 and leaves x1. */
#define TEST_FETCH(b, op, start, noop, x0, v, x1)                                                            \
    do {                                                                                                     \
        x = (start);                                                                                         \
        rec_reset();                                                                                         \
        r = __tsan_atomic##b##_##op(&x, (noop), 5);                                                          \
        CHECK(r == (a##b)(start) && x == (a##b)(start), "%s %s no-op", w, #op);                              \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_RMW, &x, L(b, op), false, #op " that changes nothing");                   \
        x = (x0);                                                                                            \
        rec_reset();                                                                                         \
        r = __tsan_atomic##b##_##op(&x, (v), 5);                                                             \
        CHECK(r == (a##b)(x0) && x == (a##b)(x1), "%s %s", w, #op);                                          \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_RMW, &x, L(b, op), true, #op);                                            \
        else                                                                                                 \
            CHECK_NO_POINT(w);                                                                               \
    } while (0)

#define TEST_CAS(b, op)                                                                                      \
    do {                                                                                                     \
        x = 1;                                                                                               \
        c = 2;                                                                                               \
        rec_reset();                                                                                         \
        ok = __tsan_atomic##b##_##op(&x, &c, 3, 5, 5);                                                       \
        CHECK(!ok && c == 1 && x == 1, "%s %s failure", w, #op);                                             \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_RMW, &x, L(b, op), false, "failed " #op);                                 \
        rec_reset();                                                                                         \
        ok = __tsan_atomic##b##_##op(&x, &c, 1, 5, 5);                                                       \
        CHECK(ok &&c == 1 && x == 1, "%s %s same", w, #op);                                                  \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_RMW, &x, L(b, op), false, #op " storing the same value");                 \
        rec_reset();                                                                                         \
        ok = __tsan_atomic##b##_##op(&x, &c, big, 5, 5);                                                     \
        CHECK(ok &&c == 1 && x == big, "%s %s success", w, #op);                                             \
        if (ctl)                                                                                             \
            CHECK_POINT(LU_SCHED_K_RMW, &x, L(b, op), true, #op);                                            \
        else                                                                                                 \
            CHECK_NO_POINT(w);                                                                               \
    } while (0)

TEST_SIZE(8)
TEST_SIZE(16)
TEST_SIZE(32)
TEST_SIZE(64)
TEST_SIZE(128)

/* ---- Fences and volatile accesses ---- */

static void test_fences_volatile(void)
{
    static volatile a64 v;
    stub_tid = -1;
    rec_reset();
    __tsan_atomic_thread_fence(5);
    __tsan_atomic_signal_fence(5);
    __tsan_volatile_read4((void *)&v);
    __tsan_volatile_write8((void *)&v);
    __tsan_unaligned_volatile_write2((void *)&v);
    CHECK_NO_POINT("fences and volatiles outside control");

    stub_tid = 3;
    rec_reset();
    __tsan_atomic_thread_fence(5);
    CHECK_POINT(LU_SCHED_K_FENCE, NULL, LU_IPOSE_L_TSAN_atomic_thread_fence, false, "thread fence");
    rec_reset();
    __tsan_atomic_signal_fence(5);
    CHECK_POINT(LU_SCHED_K_FENCE, NULL, LU_IPOSE_L_TSAN_atomic_signal_fence, false, "signal fence");
    rec_reset();
    __tsan_volatile_read16((void *)&v);
    CHECK_POINT(LU_SCHED_K_READ, &v, LU_IPOSE_L_TSAN_volatile_read16, false, "volatile read");
    rec_reset();
    __tsan_volatile_write1((void *)&v);
    CHECK_POINT(LU_SCHED_K_WRITE, &v, LU_IPOSE_L_TSAN_volatile_write1, true, "volatile write");
    rec_reset();
    __tsan_unaligned_volatile_read8((void *)&v);
    CHECK_POINT(LU_SCHED_K_READ, &v, LU_IPOSE_L_TSAN_unaligned_volatile_read8, false,
                "unaligned volatile read");
    rec_reset();
    __tsan_unaligned_volatile_write4((void *)&v);
    CHECK_POINT(LU_SCHED_K_WRITE, &v, LU_IPOSE_L_TSAN_unaligned_volatile_write4, true,
                "unaligned volatile write");

    /* plain accesses are never points */
    rec_reset();
    __tsan_read4((void *)&v);
    __tsan_write16((void *)&v);
    __tsan_unaligned_read_write8((void *)&v);
    __tsan_read_range((void *)&v, 8);
    CHECK_NO_POINT("plain accesses");
    stub_tid = -1;
}

/* ---- The pc the scheduler sees is in the instrumented function ---- */

static const char *symbol_of(uintptr_t pc)
{
    Dl_info info;
    if (!dladdr((void *)pc, &info) || !info.dli_sname)
        return "?";
    return info.dli_sname;
}

static volatile a32 pc_word;

__attribute__((noinline)) void lu_test_instrumented_caller(void)
{
    __tsan_atomic32_fetch_add(&pc_word, 1, 5);
    __asm__ volatile("" ::: "memory"); /* no tail call */
}

__attribute__((noinline)) void lu_test_volatile_caller(void)
{
    __tsan_volatile_write4((void *)&pc_word);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void lu_test_fence_caller(void)
{
    __tsan_atomic_thread_fence(5);
    __asm__ volatile("" ::: "memory");
}

static void test_pc(void)
{
    stub_tid = 0;
    rec_reset();
    lu_test_instrumented_caller();
    CHECK(strcmp(symbol_of(rec.pc), "lu_test_instrumented_caller") == 0, "atomic: pc in %s",
          symbol_of(rec.pc));
    rec_reset();
    lu_test_volatile_caller();
    CHECK(strcmp(symbol_of(rec.pc), "lu_test_volatile_caller") == 0, "volatile: pc in %s", symbol_of(rec.pc));
    rec_reset();
    lu_test_fence_caller();
    CHECK(strcmp(symbol_of(rec.pc), "lu_test_fence_caller") == 0, "fence: pc in %s", symbol_of(rec.pc));
    stub_tid = -1;
}

/* ---- The operand passed for spin detection ---- */

static void test_args(void)
{
    static volatile a32 x;
    static volatile a128 y;
    a32 c = 7;
    stub_tid = 0;
    x = 1;
    rec_reset();
    __tsan_atomic32_compare_exchange_weak(&x, &c, 3, 5, 5);
    CHECK(rec.arg == 7, "CAS: arg %llu, expected the expected value", (unsigned long long)rec.arg);
    rec_reset();
    __tsan_atomic32_compare_exchange_val(&x, 9, 3, 5, 5);
    CHECK(rec.arg == 9, "CAS val: arg %llu", (unsigned long long)rec.arg);
    rec_reset();
    __tsan_atomic32_fetch_add(&x, 5, 5);
    CHECK(rec.arg == 5, "fetch_add: arg %llu", (unsigned long long)rec.arg);
    rec_reset();
    __tsan_atomic32_exchange(&x, 6, 5);
    CHECK(rec.arg == 6, "exchange: arg %llu", (unsigned long long)rec.arg);
    rec_reset();
    __tsan_atomic32_load(&x, 5);
    CHECK(rec.arg == 0, "load: arg %llu", (unsigned long long)rec.arg);
    rec_reset();
    __tsan_volatile_read4((void *)&x);
    CHECK(rec.arg == 0, "volatile: arg %llu", (unsigned long long)rec.arg);
    rec_reset();
    __tsan_atomic_thread_fence(5);
    CHECK(rec.arg == 0, "fence: arg %llu", (unsigned long long)rec.arg);
    rec_reset();
    __tsan_atomic128_compare_exchange_val(&y, ((a128)1 << 64) | 2, 3, 5, 5);
    CHECK(rec.arg == 3, "128-bit CAS: arg %llu, expected the halves folded", (unsigned long long)rec.arg);
    stub_tid = -1;
}

/* ---- Labels ---- */

static void test_labels(void)
{
    struct {
        uint16_t label;
        const char *name;
    } want[] = {
        {LU_IPOSE_L_TSAN_32_load, "atomic_load(32)"},
        {LU_IPOSE_L_TSAN_64_compare_exchange_strong, "atomic_compare_exchange(64)"},
        {LU_IPOSE_L_TSAN_64_compare_exchange_weak, "atomic_compare_exchange(64)"},
        {LU_IPOSE_L_TSAN_64_compare_exchange_val, "atomic_compare_exchange(64)"},
        {LU_IPOSE_L_TSAN_128_fetch_nand, "atomic_fetch_nand(128)"},
        {LU_IPOSE_L_TSAN_8_store, "atomic_store(8)"},
        {LU_IPOSE_L_TSAN_atomic_thread_fence, "atomic_thread_fence"},
        {LU_IPOSE_L_TSAN_volatile_read4, "volatile read(4)"},
        {LU_IPOSE_L_TSAN_unaligned_volatile_write16, "volatile write(16)"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *n = lu__ipose_tsan_label_name(want[i].label);
        CHECK(n && strcmp(n, want[i].name) == 0, "label %u: %s", want[i].label, n ? n : "NULL");
    }
    for (unsigned l = 1; l < LU_IPOSE_L_TSAN_LAST; l++)
        CHECK(lu__ipose_tsan_label_name((uint16_t)l) != NULL, "label %u has no name", l);
    CHECK(lu__ipose_tsan_label_name(LU_IPOSE_L_NONE) == NULL, "label 0 has a name");
    CHECK(lu__ipose_tsan_label_name(LU_IPOSE_L_TSAN_LAST) == NULL, "label past the end has a name");
    CHECK(lu__ipose_tsan_label_name(LU_IPOSE_L_PTHREAD_FIRST) == NULL, "a pthread label has a TSan name");
}

/* ---- Plain-access log ---- */

__attribute__((noinline)) void lu_test_plain_caller(void *p)
{
    __tsan_write8(p);
    __asm__ volatile("" ::: "memory");
}

static void test_plain_log(void)
{
    static char buf[64];
    struct lu__ipose_plain_rec *out = calloc(LU_IPOSE_PLAIN_LOG_CAP, sizeof *out);

    lu__ipose_plain_log_reset();
    __tsan_read4(buf);
    CHECK(lu__ipose_plain_log_total() == 0, "recorded while off");

    lu__ipose_plain_log_enable(true);
    stub_tid = 2;
    __tsan_read4(buf);
    lu_test_plain_caller(buf + 8);
    __tsan_unaligned_read_write2(buf + 1);
    __tsan_write_range(buf, 40);
    __tsan_vptr_read((void **)buf);
    __tsan_memset(buf, 0, 16);
    stub_tid = -1;
    __tsan_read16(buf);
    lu__ipose_plain_log_enable(false);
    __tsan_read1(buf);

    size_t n = lu__ipose_plain_log_copy(out, LU_IPOSE_PLAIN_LOG_CAP);
    CHECK(n == 7 && lu__ipose_plain_log_total() == 7, "%zu records", n);
    if (n == 7) {
        CHECK(out[0].addr == (uintptr_t)buf && out[0].size == 4 && !out[0].is_write && out[0].tid == 2,
              "rec 0");
        CHECK(out[1].addr == (uintptr_t)(buf + 8) && out[1].size == 8 && out[1].is_write, "rec 1");
        CHECK(strcmp(symbol_of(out[1].pc), "lu_test_plain_caller") == 0, "plain pc in %s",
              symbol_of(out[1].pc));
        CHECK(out[2].size == 2 && out[2].is_write, "read-write counts as a write");
        CHECK(out[3].size == 40 && out[3].is_write, "range");
        CHECK(out[4].size == sizeof(void *) && !out[4].is_write, "vptr read");
        CHECK(out[5].size == 16 && out[5].is_write, "memset");
        CHECK(out[6].size == 16 && out[6].tid == -1, "uncontrolled");
        CHECK(out[0].clock == 102 && out[6].clock == 0, "vector-clock entry recorded: %u %u", out[0].clock,
              out[6].clock);
    }
    n = lu__ipose_plain_log_copy(out, 2);
    CHECK(n == 2 && out[0].size == 16 && out[0].is_write && out[1].tid == -1, "copy keeps the most recent");

    /* wrap around: the oldest records go */
    lu__ipose_plain_log_reset();
    lu__ipose_plain_log_enable(true);
    for (uintptr_t i = 0; i < LU_IPOSE_PLAIN_LOG_CAP + 10; i++)
        __tsan_read1((void *)i);
    lu__ipose_plain_log_enable(false);
    n = lu__ipose_plain_log_copy(out, LU_IPOSE_PLAIN_LOG_CAP);
    CHECK(n == LU_IPOSE_PLAIN_LOG_CAP && lu__ipose_plain_log_total() == LU_IPOSE_PLAIN_LOG_CAP + 10,
          "wrap: %zu", n);
    CHECK(out[0].addr == 10 && out[n - 1].addr == LU_IPOSE_PLAIN_LOG_CAP + 9, "wrap: oldest %lu",
          (unsigned long)out[0].addr);
    lu__ipose_plain_log_reset();
    free(out);
}

/* ---- Shadow call stack ---- */

static jmp_buf jb;

/* Pretends to be an instrumented function entered from call site
 * 0x100 + level; nests down to level max, then longjmps out if jump. */
__attribute__((noinline)) static void nested(int level, int max, bool jump)
{
    __tsan_func_entry((void *)(uintptr_t)(0x100 + level));
    if (level < max)
        nested(level + 1, max, jump);
    else if (jump)
        longjmp(jb, 1);
    __asm__ volatile("" ::: "memory");
    __tsan_func_exit();
}

__attribute__((noinline)) static int probe_after_jump(uintptr_t *bt, int max)
{
    __tsan_func_entry((void *)0x200);
    int n = lu__ipose_backtrace(bt, max);
    __tsan_func_exit();
    return n;
}

__attribute__((noinline)) static void deep(int n)
{
    __tsan_func_entry((void *)(uintptr_t)n);
    if (n > 1)
        deep(n - 1);
    __asm__ volatile("" ::: "memory");
    __tsan_func_exit();
}

static volatile int deep_seen;

__attribute__((noinline)) static void deep_check(int n, uintptr_t *bt)
{
    __tsan_func_entry((void *)(uintptr_t)n);
    if (n > 1)
        deep_check(n - 1, bt);
    else
        deep_seen = lu__ipose_backtrace(bt, 1000);
    __asm__ volatile("" ::: "memory");
    __tsan_func_exit();
}

static void test_shadow_stack(void)
{
    uintptr_t bt[1000];
    int n;

    __tsan_func_entry((void *)0x42); /* this function */
    n = lu__ipose_backtrace(bt, 10);
    CHECK(n == 1 && bt[0] == 0x42, "one frame: %d", n);

    nested(0, 3, false);
    n = lu__ipose_backtrace(bt, 10);
    CHECK(n == 1 && bt[0] == 0x42, "balanced: %d", n);

    if (!setjmp(jb))
        nested(0, 3, true); /* four frames left by longjmp */
    n = probe_after_jump(bt, 10);
    CHECK(n == 2 && bt[0] == 0x200 && bt[1] == 0x42, "after longjmp: %d frames, top %#lx", n,
          (unsigned long)bt[0]);

    deep(LU_IPOSE_SHADOW_MAX + 50);
    n = lu__ipose_backtrace(bt, 10);
    CHECK(n == 1 && bt[0] == 0x42, "after overflow: %d", n);

    deep_check(LU_IPOSE_SHADOW_MAX + 50, bt);
    CHECK(deep_seen == LU_IPOSE_SHADOW_MAX, "overflow: %d frames", deep_seen);
    n = lu__ipose_backtrace_of(lu__ipose_shadow_self(), bt, 3);
    CHECK(n == 1, "backtrace_of: %d", n);
    __tsan_func_exit();
    n = lu__ipose_backtrace(bt, 10);
    CHECK(n == 0, "empty: %d", n);
    __tsan_func_exit(); /* unbalanced exits are harmless */
    CHECK(lu__ipose_backtrace(bt, 10) == 0, "underflow");
}

int main(void)
{
    __tsan_init();
    __tsan_ignore_thread_begin();
    __tsan_ignore_thread_end();
    for (int tid = -1; tid <= 0; tid++) {
        test_atomic8(tid);
        test_atomic16(tid);
        test_atomic32(tid);
        test_atomic64(tid);
        test_atomic128(tid);
    }
    test_fences_volatile();
    test_pc();
    test_args();
    test_labels();
    test_plain_log();
    test_shadow_stack();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
