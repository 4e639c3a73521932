/*
 * Unit test of the race detector (interpose/lu_ipose_race.c) reached
 * through the plain-access hooks of interpose/lu_ipose_tsan.c, against a
 * stub scheduler whose vector clocks the test drives by hand: which pairs
 * of accesses race and which do not (happens-before through releases and
 * acquires, epochs, read sharing), byte precision inside a granule,
 * unaligned and range accesses and their merged reports, memcpy hooks, one
 * report per location and execution, reset, forget, the bound on shadow
 * memory, and that nothing reaches the detector while it is off. Compiled
 * together with the two sources, without liblineup.so.
 */
#define _GNU_SOURCE
#include "lu_ipose.h"
#include "lu_ipose_race.h"
#include "lu_sched.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lu_test.h"

/* gcc knows these names as builtins when a sanitizer is on (ASan here). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"
#endif

void __tsan_read1(void *addr);
void __tsan_write1(void *addr);
void __tsan_read2(void *addr);
void __tsan_write2(void *addr);
void __tsan_read4(void *addr);
void __tsan_write4(void *addr);
void __tsan_write8(void *addr);
void __tsan_unaligned_write8(void *addr);
void __tsan_read16(void *addr);
void __tsan_write16(void *addr);
void __tsan_read_range(void *addr, unsigned long size);
void __tsan_write_range(void *addr, unsigned long size);
void *__tsan_memcpy(void *dst, const void *src, size_t n);
void *__tsan_memset(void *dst, int c, size_t n);
uint32_t __tsan_atomic32_load(const volatile uint32_t *a, int mo);
void __tsan_atomic32_store(volatile uint32_t *a, uint32_t v, int mo);
uint32_t __tsan_atomic32_fetch_add(volatile uint32_t *a, uint32_t v, int mo);

/* The test calls the hooks through these pointers: gcc declares the
 * __tsan_* names as builtins with the 'leaf' attribute (they never call
 * back into the caller's file), which would let it keep this file's
 * variables in registers across the calls; here they call the stub
 * scheduler and the handler below. */
#define HOOK(name) static name##_fn *volatile p##name = __tsan_##name
typedef void addr_fn(void *);
typedef void range_fn(void *, unsigned long);
typedef void *copy_fn(void *, const void *, size_t);
typedef void *set_fn(void *, int, size_t);
typedef addr_fn read1_fn, write1_fn, read2_fn, write2_fn, read4_fn, write4_fn, write8_fn, unaligned_write8_fn,
    read16_fn, write16_fn;
typedef range_fn read_range_fn, write_range_fn;
typedef copy_fn memcpy_fn;
typedef set_fn memset_fn;
typedef uint32_t atomic32_load_fn(const volatile uint32_t *, int);
typedef void atomic32_store_fn(volatile uint32_t *, uint32_t, int);
typedef uint32_t atomic32_fetch_add_fn(volatile uint32_t *, uint32_t, int);
HOOK(read1);
HOOK(write1);
HOOK(read2);
HOOK(write2);
HOOK(read4);
HOOK(write4);
HOOK(write8);
HOOK(unaligned_write8);
HOOK(read16);
HOOK(write16);
HOOK(read_range);
HOOK(write_range);
HOOK(memcpy);
HOOK(memset);
HOOK(atomic32_load);
HOOK(atomic32_store);
HOOK(atomic32_fetch_add);

/* ---- Stub scheduler: NT threads with vector clocks the test moves ---- */

#define NT 4
static int cur = -1;
static uint32_t vc[NT][NT];

int lu_sched_self(void)
{
    return cur;
}

#define LU_TEST_STUB_SELF cur
#include "lu_test_stubs.h"

uint32_t lu_sched_clock(void)
{
    return cur >= 0 ? vc[cur][cur] : 0;
}

int lu_sched_vc(int tid, uint32_t *out, int max)
{
    if (tid < 0 || tid >= NT)
        return -1;
    int n = NT < max ? NT : max;
    memcpy(out, vc[tid], (size_t)n * sizeof *out);
    return n;
}

__thread uintptr_t lu_sched_pc __attribute__((tls_model("initial-exec")));
__thread uint64_t lu_sched_arg __attribute__((tls_model("initial-exec")));
__thread int lu_sched_mo;

void lu_sched_access_begin(enum lu_sched_kind k, const volatile void *addr, uint16_t label)
{
    (void)k, (void)addr, (void)label;
}

void lu_sched_access_end(const volatile void *addr, bool changed)
{
    (void)addr, (void)changed;
}

/* A new execution: every thread at clock 1, nobody ordered. */
static void execution(void)
{
    memset(vc, 0, sizeof vc);
    for (int i = 0; i < NT; i++)
        vc[i][i] = 1;
    lu_ipose_race_reset();
}

/* from releases an object to, which acquires it (a mutex handoff). */
static void sync_to(int from, int to)
{
    for (int i = 0; i < NT; i++)
        if (vc[from][i] > vc[to][i])
            vc[to][i] = vc[from][i];
    vc[from][from]++;
}

/* A release nobody acquires (an unlock of an unused mutex). */
static void release(int t)
{
    vc[t][t]++;
}

/* ---- Handler: keeps the reports ---- */

#define MAXR 32
static struct lu_ipose_race reps[MAXR];
static int nreps;
static int off_in_handler; /* turn detection off from the handler */

static void handler(void *arg, const struct lu_ipose_race *r)
{
    CHECK(arg == &reps, "handler gets its argument");
    if (nreps < MAXR)
        reps[nreps] = *r;
    nreps++;
    if (off_in_handler)
        lu_ipose_race_set_handler(NULL, NULL);
}

static void clear_reps(void)
{
    nreps = 0;
    memset(reps, 0, sizeof reps);
}

/* Accesses made from named functions, to check the pcs. */
__attribute__((noinline)) void unit_write4_a(void *p)
{
    pwrite4(p);
    __asm__ volatile("" ::: "memory"); /* no tail call: the pc stays in here */
}

__attribute__((noinline)) void unit_write4_b(void *p)
{
    pwrite4(p);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void unit_read4_c(void *p)
{
    pread4(p);
    __asm__ volatile("" ::: "memory");
}

static const char *fn_of(uintptr_t pc)
{
    Dl_info info;
    if (!pc || !dladdr((void *)(pc - 1), &info) || !info.dli_sname)
        return "?";
    return info.dli_sname;
}

static bool is_race(const struct lu_ipose_race *r, const void *addr, unsigned size, int t0, bool w0, int t1,
                    bool w1)
{
    return r->addr == (uintptr_t)addr && r->size == size && r->tid[0] == t0 && r->write[0] == w0 &&
           r->tid[1] == t1 && r->write[1] == w1;
}

/* is_race, and which of the two accesses were atomic */
static bool is_mixed_race(const struct lu_ipose_race *r, const void *addr, int t0, bool w0, bool at0, int t1,
                          bool w1, bool at1)
{
    return is_race(r, addr, 4, t0, w0, t1, w1) && r->atomic[0] == at0 && r->atomic[1] == at1;
}

#define AS(t) (cur = (t))

static _Alignas(64) unsigned char mem[4096];

/* ---- Tests ---- */

static void test_off(void)
{
    struct lu__ipose_race_stats st;
    execution();
    CHECK(lu__ipose_race_hook == NULL, "no hook by default");
    AS(1);
    pwrite4(mem);
    AS(2);
    pwrite4(mem);
    lu__ipose_race_stats(&st);
    CHECK(st.accesses == 0 && nreps == 0, "off: the detector saw %llu accesses",
          (unsigned long long)st.accesses);
    /* the direct entry does nothing while off either */
    lu__ipose_race_access(mem, 4, true, 0);
    lu__ipose_race_stats(&st);
    CHECK(st.accesses == 0, "off: direct access analysed");
}

static void test_write_write(void)
{
    execution();
    clear_reps();
    int *x = (int *)(mem + 8);
    AS(1);
    unit_write4_a(x);
    AS(2);
    unit_write4_b(x);
    CHECK(nreps == 1, "unordered writes: %d reports", nreps);
    CHECK(is_race(&reps[0], x, 4, 1, true, 2, true),
          "the report names both writes (addr %+ld size %u t %d/%d)", (long)(reps[0].addr - (uintptr_t)x),
          reps[0].size, reps[0].tid[0], reps[0].tid[1]);
    CHECK(strcmp(fn_of(reps[0].pc[0]), "unit_write4_a") == 0, "pc[0] in unit_write4_a (%s)",
          fn_of(reps[0].pc[0]));
    CHECK(strcmp(fn_of(reps[0].pc[1]), "unit_write4_b") == 0, "pc[1] in unit_write4_b (%s)",
          fn_of(reps[0].pc[1]));

    /* once per location and execution */
    AS(1);
    unit_write4_a(x);
    AS(3);
    unit_read4_c(x);
    CHECK(nreps == 1, "a racy location is reported once (%d)", nreps);

    /* until the next execution */
    execution();
    AS(1);
    unit_write4_a(x);
    AS(3);
    unit_read4_c(x);
    CHECK(nreps == 2 && is_race(&reps[1], x, 4, 1, true, 3, false), "new execution, new report (%d)", nreps);
    CHECK(strcmp(fn_of(reps[1].pc[1]), "unit_read4_c") == 0, "read pc in unit_read4_c (%s)",
          fn_of(reps[1].pc[1]));

    /* reset forgets the previous execution's accesses */
    execution();
    clear_reps();
    AS(2);
    pwrite4(x);
    CHECK(nreps == 0, "no race with an access of an earlier execution (%d)", nreps);
}

static void test_hb(void)
{
    int *x = (int *)(mem + 16);
    execution();
    clear_reps();
    AS(1);
    pwrite4(x);
    sync_to(1, 2);
    AS(2);
    pwrite4(x);
    pread4(x);
    sync_to(2, 3);
    AS(3);
    pread4(x); /* ordered after both writes, transitively */
    CHECK(nreps == 0, "ordered accesses: %d reports", nreps);

    /* after its release, a thread's new accesses are not covered by what
     * the acquirer saw */
    AS(1);
    pwrite4(x + 1);
    sync_to(1, 2);
    AS(1);
    pwrite4(x + 1);
    AS(2);
    pread4(x + 1);
    CHECK(nreps == 1 && is_race(&reps[0], x + 1, 4, 1, true, 2, false),
          "a write after the release races with the acquirer's read (%d)", nreps);

    /* a release nobody acquires orders nothing */
    clear_reps();
    AS(1);
    pwrite4(x + 2);
    release(1);
    AS(2);
    pwrite4(x + 2);
    CHECK(nreps == 1 && is_race(&reps[0], x + 2, 4, 1, true, 2, true), "unacquired release: %d reports",
          nreps);
}

static void test_reads(void)
{
    int *x = (int *)(mem + 64);
    execution();
    clear_reps();
    AS(0);
    pwrite4(x);
    sync_to(0, 1);
    sync_to(0, 2);
    sync_to(0, 3);
    AS(1);
    pread4(x);
    AS(2);
    pread4(x);
    AS(3);
    pread4(x);
    CHECK(nreps == 0, "reads after an ordered write: %d reports", nreps);

    /* read shared by 2 and 3; only 2's read is ordered before 1's write */
    sync_to(2, 1);
    AS(1);
    pwrite4(x);
    CHECK(nreps == 1 && is_race(&reps[0], x, 4, 3, false, 1, true),
          "write after shared reads races with 3 (%d: %d)", nreps, reps[0].tid[0]);

    /* both readers ordered: no race */
    int *y = x + 1;
    clear_reps();
    AS(2);
    pread4(y);
    AS(3);
    pread4(y);
    sync_to(2, 1);
    sync_to(3, 1);
    AS(1);
    pwrite4(y);
    CHECK(nreps == 0, "write after ordered shared reads: %d reports", nreps);

    /* a read ordered after an earlier read supersedes it, the write stays */
    int *z = x + 2;
    clear_reps();
    AS(2);
    pwrite4(z);
    pread4(z);
    sync_to(2, 3);
    AS(3);
    pread4(z);
    AS(1);
    pread4(z);
    CHECK(nreps == 1 && is_race(&reps[0], z, 4, 2, true, 1, false), "the last write is still checked (%d)",
          nreps);
}

static void test_bytes(void)
{
    unsigned char *g = mem + 128; /* granule aligned */
    execution();
    clear_reps();
    AS(1);
    pwrite1(g);
    AS(2);
    pwrite1(g + 1);
    pwrite2(g + 2);
    AS(3);
    pwrite4(g + 4);
    CHECK(nreps == 0, "disjoint bytes of one granule: %d reports", nreps);
    AS(2);
    pwrite4(g); /* overlaps thread 1's byte 0 only (its own are 1..3) */
    CHECK(nreps == 1 && is_race(&reps[0], g, 1, 1, true, 2, true),
          "overlap on byte 0 only (addr %+ld size %u)", (long)(reps[0].addr - (uintptr_t)g), reps[0].size);
    AS(1);
    pread2(g + 6); /* thread 3's 4-byte write covers it */
    CHECK(nreps == 2 && is_race(&reps[1], g + 6, 2, 3, true, 1, false), "read of 2 bytes in a 4-byte write");

    /* unaligned 8 bytes across two granules */
    unsigned char *h = mem + 256;
    clear_reps();
    AS(1);
    punaligned_write8(h + 4);
    AS(2);
    punaligned_write8(h + 8);
    CHECK(nreps == 1 && is_race(&reps[0], h + 8, 4, 1, true, 2, true),
          "unaligned: overlap [8, 12) (%d, %+ld, %u)", nreps, (long)(reps[0].addr - (uintptr_t)h),
          reps[0].size);
    AS(3);
    punaligned_write8(h + 1); /* [1, 9): thread 1's [4, 8) is new, byte 8 was reported */
    CHECK(nreps == 2 && reps[1].tid[0] == 1 && reps[1].addr == (uintptr_t)(h + 4) && reps[1].size == 4,
          "a second location in one access (%d, %+ld, %u)", nreps, (long)(reps[1].addr - (uintptr_t)h),
          reps[1].size);

    /* 16 bytes */
    unsigned char *k = mem + 320;
    clear_reps();
    AS(1);
    pwrite16(k);
    AS(2);
    pread16(k);
    CHECK(nreps == 1 && is_race(&reps[0], k, 16, 1, true, 2, false),
          "16-byte accesses: one report of 16 bytes");
}

static void test_ranges(void)
{
    unsigned char *b = mem + 1024;
    execution();
    clear_reps();
    AS(1);
    pwrite_range(b, 100);
    AS(2);
    pread_range(b + 50, 100);
    CHECK(nreps == 1 && is_race(&reps[0], b + 50, 50, 1, true, 2, false),
          "ranges: one merged report (%d, %+ld, %u)", nreps, (long)(reps[0].addr - (uintptr_t)b),
          reps[0].size);

    /* memcpy reads the source and writes the destination */
    unsigned char *src = mem + 2048, *dst = mem + 2304;
    clear_reps();
    AS(1);
    pmemcpy(dst, src, 24);
    AS(2);
    pwrite8(src + 8);
    pread1(dst + 23);
    CHECK(nreps == 2 && is_race(&reps[0], src + 8, 8, 1, false, 2, true) &&
              is_race(&reps[1], dst + 23, 1, 1, true, 2, false),
          "memcpy: a read of src and a write of dst (%d)", nreps);
    AS(3);
    pmemset(src, 0, 8); /* only thread 1's read covers it: no second report for bytes 8.. */
    CHECK(nreps == 3 && is_race(&reps[2], src, 8, 1, false, 3, true), "memset races with memcpy's read (%d)",
          nreps);
    /* bytes of an access that range over huge sizes do not overflow */
    clear_reps();
    AS(1);
    lu__ipose_race_access((void *)(UINTPTR_MAX - 3), 16, true, 0);
    CHECK(nreps == 0, "access at the top of the address space");
}

static void test_epochs(void)
{
    int *x = (int *)(mem + 512);
    struct lu__ipose_race_stats st;
    execution();
    clear_reps();
    AS(1);
    for (int i = 0; i < 100; i++) {
        pwrite4(x);
        pread4(x);
    }
    lu__ipose_race_stats(&st);
    CHECK(st.records == 1 && st.granules == 1, "same epoch: one record (%llu, %llu)",
          (unsigned long long)st.records, (unsigned long long)st.granules);
    /* a new epoch by a new pc or kind adds nothing either: the write supersedes */
    release(1);
    pwrite4(x);
    lu__ipose_race_stats(&st);
    CHECK(st.records == 1, "the thread's new write replaces its old one (%llu)",
          (unsigned long long)st.records);
    AS(2);
    pwrite4(x);
    CHECK(nreps == 1, "still a race with thread 1's latest write (%d)", nreps);
}

static void test_forget(void)
{
    int *x = (int *)(mem + 576);
    execution();
    clear_reps();
    AS(1);
    pwrite4(x);
    pwrite4(x + 1);
    lu__ipose_race_forget(x, 4);
    AS(2);
    pwrite4(x);
    CHECK(nreps == 0, "forgotten memory is new memory (%d)", nreps);
    pwrite4(x + 1);
    CHECK(nreps == 1 && is_race(&reps[0], x + 1, 4, 1, true, 2, true), "only the forgotten range (%d)",
          nreps);
}

static void test_uncontrolled(void)
{
    int *x = (int *)(mem + 640);
    struct lu__ipose_race_stats st;
    execution();
    clear_reps();
    AS(-1);
    pwrite4(x);
    AS(1);
    pwrite4(x);
    AS(-1);
    pwrite4(x);
    lu__ipose_race_stats(&st);
    CHECK(nreps == 0 && st.accesses == 1, "uncontrolled accesses are ignored (%d, %llu)", nreps,
          (unsigned long long)st.accesses);
}

static void test_handler_off(void)
{
    int *x = (int *)(mem + 704);
    execution();
    clear_reps();
    AS(1);
    pwrite_range(x, 64);
    off_in_handler = 1;
    AS(2);
    pwrite4(x);
    /* off now: the hooks no longer reach the detector */
    pwrite4(x + 4);
    off_in_handler = 0;
    CHECK(nreps == 1, "detection turned off from the handler (%d)", nreps);
    CHECK(lu__ipose_race_hook == NULL, "and the hooks no longer call it");
    lu_ipose_race_set_handler(handler, &reps);
    execution();
}

static void test_bounded(void)
{
    struct lu__ipose_race_stats st;
    size_t n = ((size_t)LU_IPOSE_RACE_MAX_GRANULES + 1000) * 8;
    unsigned char *big = malloc(n);
    CHECK(big != NULL, "malloc");
    if (!big)
        return;
    execution();
    clear_reps();
    AS(1);
    pwrite_range(big, n);
    lu__ipose_race_stats(&st);
    CHECK(st.granules == LU_IPOSE_RACE_MAX_GRANULES, "granules capped (%llu)",
          (unsigned long long)st.granules);
    CHECK(st.untracked >= 1000, "the rest is counted as untracked (%llu)", (unsigned long long)st.untracked);
    AS(2);
    pwrite4(big);
    CHECK(nreps == 1, "tracked memory still checked (%d)", nreps);
    /* and the next execution starts empty */
    execution();
    lu__ipose_race_stats(&st);
    CHECK(st.granules == 0 && st.records == 0, "reset empties the shadow");
    AS(1);
    pwrite4(big);
    lu__ipose_race_stats(&st);
    CHECK(st.granules == 1 && st.untracked == 0, "and tracks again");
    free(big);
}

static void test_with_log(void)
{
    int *x = (int *)(mem + 768);
    execution();
    clear_reps();
    lu__ipose_plain_log_reset();
    lu__ipose_plain_log_enable(true);
    AS(1);
    pwrite4(x);
    AS(2);
    pread4(x);
    lu__ipose_plain_log_enable(false);
    CHECK(lu__ipose_plain_log_total() == 2, "the log still records (%llu)",
          (unsigned long long)lu__ipose_plain_log_total());
    CHECK(nreps == 1, "and the detector still detects (%d)", nreps);
    lu__ipose_plain_log_reset();
}

/* Atomic accesses race with plain ones only, and supersede only what
 * every later conflicting access would race with too. */
static void test_mixed(void)
{
    uint32_t *x = (uint32_t *)(mem + 512);
    execution();
    clear_reps();
    AS(1);
    patomic32_store(x, 1, __ATOMIC_RELAXED);
    AS(2);
    (void)patomic32_load(x, __ATOMIC_RELAXED);
    (void)patomic32_fetch_add(x, 1, __ATOMIC_RELAXED);
    CHECK(nreps == 0, "atomic accesses never race with each other (%d reports)", nreps);
    AS(3);
    pread4(x);
    CHECK(nreps == 1 && is_mixed_race(&reps[0], x, 1, true, true, 3, false, false),
          "a plain read races with an unordered atomic store (%d reports)", nreps);

    /* the plain access first, the atomic one second */
    clear_reps();
    AS(1);
    pwrite4(x + 1);
    AS(2);
    (void)patomic32_load(x + 1, __ATOMIC_ACQUIRE);
    CHECK(nreps == 1 && is_mixed_race(&reps[0], x + 1, 1, true, false, 2, false, true),
          "an atomic load races with an unordered plain store (%d reports)", nreps);

    /* ordered by synchronization: no race either way */
    clear_reps();
    AS(1);
    pwrite4(x + 2);
    sync_to(1, 2);
    AS(2);
    patomic32_store(x + 2, 3, __ATOMIC_RELAXED);
    sync_to(2, 3);
    AS(3);
    pread4(x + 2);
    CHECK(nreps == 0, "plain and atomic accesses ordered by happens-before (%d reports)", nreps);

    /* an atomic write does not supersede an unordered atomic write: a plain
     * read ordered after the second still races with the first */
    clear_reps();
    AS(1);
    patomic32_store(x + 3, 1, __ATOMIC_RELAXED);
    AS(2);
    patomic32_store(x + 3, 2, __ATOMIC_RELAXED);
    sync_to(2, 3);
    AS(3);
    pread4(x + 3);
    CHECK(nreps == 1 && is_mixed_race(&reps[0], x + 3, 1, true, true, 3, false, false),
          "the first atomic store is remembered (%d reports)", nreps);

    /* nor a plain read that happens before it: a later atomic write
     * unordered with the read races with it */
    clear_reps();
    AS(1);
    pread4(x + 4);
    sync_to(1, 2);
    AS(2);
    patomic32_store(x + 4, 1, __ATOMIC_RELAXED);
    AS(3);
    patomic32_store(x + 4, 2, __ATOMIC_RELAXED);
    CHECK(nreps == 1 && is_mixed_race(&reps[0], x + 4, 1, false, false, 3, true, true),
          "the plain read is remembered past a later atomic store (%d reports)", nreps);

    /* a plain write supersedes atomic accesses it follows */
    clear_reps();
    AS(1);
    patomic32_store(x + 5, 1, __ATOMIC_RELAXED);
    sync_to(1, 2);
    AS(2);
    pwrite4(x + 5);
    sync_to(2, 3);
    AS(3);
    pread4(x + 5);
    CHECK(nreps == 0, "a plain write after an atomic store, in order (%d reports)", nreps);

    /* same epoch: a plain read after this thread's atomic load is recorded
     * (it races with atomic writes, the load does not) */
    clear_reps();
    AS(1);
    (void)patomic32_load(x + 6, __ATOMIC_RELAXED);
    pread4(x + 6);
    AS(2);
    patomic32_store(x + 6, 1, __ATOMIC_RELAXED);
    CHECK(nreps == 1 && is_mixed_race(&reps[0], x + 6, 1, false, false, 2, true, true),
          "a plain read is not covered by an atomic load of the same epoch (%d reports)", nreps);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_off();
    lu_ipose_race_set_handler(handler, &reps);
    CHECK(lu__ipose_race_hook != NULL, "hook set with the handler");
    test_write_write();
    test_hb();
    test_reads();
    test_bytes();
    test_ranges();
    test_epochs();
    test_forget();
    test_uncontrolled();
    test_handler_off();
    test_bounded();
    test_with_log();
    test_mixed();
    lu_ipose_race_set_handler(NULL, NULL);
    struct lu__ipose_race_stats st;
    lu__ipose_race_stats(&st);
    CHECK(lu__ipose_race_hook == NULL && st.granules == 0, "off again, shadow freed");
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
