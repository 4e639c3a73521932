/*
 * Exercises every kind of access the compilers instrument, outside any
 * lineup execution, where lineup's __tsan_* entry points must behave like
 * the plain operations. Built by lineup-cc with gcc and with clang; exits 0
 * and prints "abi probe ok" when every result is right.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                         \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

/* One size: C11 atomics, __atomic and __sync builtins, strong and weak CAS
 * (success and failure), volatile and plain accesses. */
#define PROBE(N, T)                                                                                          \
    static _Atomic T a##N;                                                                                   \
    static T p##N;                                                                                           \
    static volatile T v##N;                                                                                  \
    static void probe##N(void)                                                                               \
    {                                                                                                        \
        T e;                                                                                                 \
        atomic_store(&a##N, (T)5);                                                                           \
        CHECK(atomic_load(&a##N) == 5);                                                                      \
        CHECK(atomic_exchange(&a##N, (T)7) == 5);                                                            \
        CHECK(atomic_fetch_add(&a##N, (T)3) == 7);                                                           \
        CHECK(atomic_fetch_sub(&a##N, (T)2) == 10);                                                          \
        CHECK(atomic_fetch_or(&a##N, (T)0x10) == 8);                                                         \
        CHECK(atomic_fetch_and(&a##N, (T)0x1c) == 0x18);                                                     \
        CHECK(atomic_fetch_xor(&a##N, (T)0x0f) == 0x18);                                                     \
        CHECK(atomic_load_explicit(&a##N, memory_order_acquire) == 0x17);                                    \
        e = 1;                                                                                               \
        CHECK(!atomic_compare_exchange_strong(&a##N, &e, (T)2) && e == 0x17);                                \
        CHECK(atomic_compare_exchange_strong(&a##N, &e, (T)2) && atomic_load(&a##N) == 2);                   \
        e = 2;                                                                                               \
        /* weak CAS never fails spuriously under lineup */                                                   \
        CHECK(atomic_compare_exchange_weak_explicit(&a##N, &e, (T)3, memory_order_acq_rel,                   \
                                                    memory_order_relaxed));                                  \
        e = 9;                                                                                               \
        CHECK(!atomic_compare_exchange_weak(&a##N, &e, (T)4) && e == 3);                                     \
        __atomic_store_n(&p##N, (T)6, __ATOMIC_RELEASE);                                                     \
        CHECK(__atomic_fetch_nand(&p##N, (T)3, __ATOMIC_RELAXED) == 6);                                      \
        CHECK(__atomic_load_n(&p##N, __ATOMIC_RELAXED) == (T) ~(T)2);                                        \
        CHECK(__atomic_add_fetch(&p##N, (T)3, __ATOMIC_SEQ_CST) == (T)((T) ~(T)2 + 3));                      \
        __atomic_store_n(&p##N, (T)1, __ATOMIC_SEQ_CST);                                                     \
        CHECK(__sync_fetch_and_add(&p##N, (T)1) == 1);                                                       \
        CHECK(__sync_val_compare_and_swap(&p##N, (T)2, (T)8) == 2);                                          \
        CHECK(__sync_bool_compare_and_swap(&p##N, (T)8, (T)9));                                              \
        CHECK(!__sync_bool_compare_and_swap(&p##N, (T)8, (T)10));                                            \
        CHECK(__sync_lock_test_and_set(&p##N, (T)11) == 9);                                                  \
        __sync_lock_release(&p##N);                                                                          \
        CHECK(__atomic_load_n(&p##N, __ATOMIC_SEQ_CST) == 0);                                                \
        v##N = (T)12;                                                                                        \
        CHECK(v##N == 12);                                                                                   \
        p##N = (T)13;                                                                                        \
        CHECK(p##N == 13);                                                                                   \
    }

PROBE(8, uint8_t)
PROBE(16, uint16_t)
PROBE(32, uint32_t)
PROBE(64, uint64_t)
PROBE(128, unsigned __int128)

/* 128-bit values whose halves differ, to catch a half-done operation. */
static void probe128_wide(void)
{
    unsigned __int128 hi = (unsigned __int128)0x0123456789abcdefULL << 64;
    unsigned __int128 x = hi | 0xfedcba9876543210ULL, e = x;
    atomic_store(&a128, x);
    CHECK(atomic_load(&a128) == x);
    CHECK(atomic_fetch_add(&a128, (unsigned __int128)1 << 64) == x);
    CHECK(atomic_load(&a128) == x + ((unsigned __int128)1 << 64));
    CHECK(!atomic_compare_exchange_strong(&a128, &e, hi) && e == x + ((unsigned __int128)1 << 64));
}

struct big {
    char c[100];
};
static struct big b1, b2;

struct __attribute__((packed)) packed {
    char c;
    int i;
    long l;
};
static struct packed pk;
static volatile struct packed vpk;

static void probe_misc(void)
{
    atomic_thread_fence(memory_order_seq_cst);
    atomic_signal_fence(memory_order_seq_cst);
    __sync_synchronize();
    memset(&b2, 'x', sizeof b2);
    b1 = b2; /* a large copy: __tsan_read_range/__tsan_write_range with gcc */
    CHECK(b1.c[99] == 'x');
    memmove(&b1.c[1], &b1.c[0], 10);
    pk.i = 41;
    pk.i++;
    pk.l = pk.i;
    CHECK(pk.l == 42);
    vpk.i = 7;
    vpk.l = vpk.i + 1;
    CHECK(vpk.l == 8);
    atomic_flag f = ATOMIC_FLAG_INIT;
    CHECK(!atomic_flag_test_and_set(&f));
    CHECK(atomic_flag_test_and_set(&f));
    atomic_flag_clear(&f);
    _Atomic long l = 1;
    l += 2;
    l *= 3; /* a CAS loop */
    CHECK(l == 9);
}

static int depth(int n)
{
    return n == 0 ? 0 : 1 + depth(n - 1);
}

int main(void)
{
    probe8();
    probe16();
    probe32();
    probe64();
    probe128();
    probe128_wide();
    probe_misc();
    CHECK(depth(1000) == 1000); /* deeper than the shadow stack */
    if (failures) {
        printf("abi probe: %d failures\n", failures);
        return 1;
    }
    printf("abi probe ok\n");
    return 0;
}
