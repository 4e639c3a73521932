/*
 * Instrumented code under the real scheduler: built by lineup-cc (gcc and
 * clang: their CAS entry points differ), linked with liblineup.so, driving
 * lu_sched directly. Checks that compiler-emitted atomics, fences and
 * volatiles are scheduling points of the right kind, label and pc, that
 * they interleave like hand-declared points, and that the "changed" reports
 * let the scheduler see spinning (a spin that never changes memory ends as
 * a livelock instead of running into the step limit).
 */
#define _GNU_SOURCE
#include "lu_ipose.h"
#include "lu_sched.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- Points seen by the scheduler ---- */

#define MAX_POINTS 4096
static struct point {
    int tid;
    enum lu_sched_kind k;
    uint16_t label;
    uintptr_t pc;
} points[MAX_POINTS];
static int npoints;

static void on_point(void *arg, int tid, enum lu_sched_kind k, uint16_t label, uintptr_t pc)
{
    (void)arg;
    if (npoints < MAX_POINTS)
        points[npoints++] = (struct point){tid, k, label, pc};
}

static const char *symbol_of(uintptr_t pc)
{
    Dl_info info;
    if (!dladdr((void *)pc, &info) || !info.dli_sname)
        return "?";
    return info.dli_sname;
}

static const struct point *find_point(uint16_t label)
{
    for (int i = 0; i < npoints; i++)
        if (points[i].label == label)
            return &points[i];
    return NULL;
}

/* Runs fn on controlled thread 0 until the strategy is done; returns the
 * number of executions, with the outcome of the last in *last. */
static uint64_t explore(lu_sched_fn fn, enum lu_sched_strategy strategy, uint32_t spin_bound,
                        enum lu_sched_outcome *last, void (*after)(void))
{
    struct lu_sched_trace *tr = malloc(lu_sched_trace_size(8192));
    tr->cap = 8192;
    tr->len = 0;
    struct lu_sched_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.strategy = strategy;
    cfg.preemption_bound = -1;
    cfg.spin_bound = spin_bound;
    cfg.trace = tr;
    cfg.on_point = on_point;
    int err = 0;
    struct lu_sched *s = lu_sched_create(&cfg, &err);
    if (!s) {
        printf("lu_sched_create: %s\n", lu_sched_strerror(err));
        exit(1);
    }
    static struct lu_sched_result res;
    uint64_t n = 0;
    while (lu_sched_more(s) && n < 100000) {
        npoints = 0;
        if (lu_sched_run(s, fn, NULL, &res) != 0)
            break;
        n++;
        *last = res.outcome;
        if (after)
            after();
        if (strategy != LU_SCHED_DFS)
            break;
    }
    lu_sched_destroy(s);
    free(tr);
    return n;
}

/* ---- Interleavings: compiler atomics against hand-declared points ---- */

static _Atomic long counter;
static long plain_counter;

__attribute__((noinline)) void lu_test_inc_instrumented(void)
{
    atomic_fetch_add(&counter, 1);
}

static void *worker_instrumented(void *arg)
{
    (void)arg;
    lu_test_inc_instrumented();
    lu_test_inc_instrumented();
    return NULL;
}

static void *worker_manual(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++) {
        lu_sched_access_begin(LU_SCHED_K_RMW, &plain_counter, 1);
        plain_counter++;
        lu_sched_access_end(&plain_counter, true);
    }
    return NULL;
}

static lu_sched_fn two_workers_fn;

static void *two_workers(void *arg)
{
    (void)arg;
    lu_sched_spawn(two_workers_fn, NULL);
    lu_sched_spawn(two_workers_fn, NULL);
    lu_sched_join_all(0);
    return NULL;
}

static long min_final, max_final;

static void note_final(void)
{
    long v = atomic_load(&counter); /* outside control: pass-through */
    if (v < min_final)
        min_final = v;
    if (v > max_final)
        max_final = v;
    atomic_store(&counter, 0);
}

static void test_interleavings(void)
{
    enum lu_sched_outcome last = LU_SCHED_OUT_COMPLETE;
    two_workers_fn = worker_manual;
    uint64_t manual = explore(two_workers, LU_SCHED_DFS, 0, &last, NULL);
    two_workers_fn = worker_instrumented;
    min_final = 1000;
    max_final = -1;
    uint64_t instrumented = explore(two_workers, LU_SCHED_DFS, 0, &last, note_final);
    printf("executions: %llu hand-declared, %llu instrumented\n", (unsigned long long)manual,
           (unsigned long long)instrumented);
    CHECK(manual > 1 && instrumented == manual, "%llu vs %llu", (unsigned long long)instrumented,
          (unsigned long long)manual);
    CHECK(min_final == 4 && max_final == 4, "fetch_add lost an update: %ld..%ld", min_final, max_final);
    CHECK(last == LU_SCHED_OUT_COMPLETE, "outcome %s", lu_sched_outcome_name(last));
}

/* ---- A lost update is found ---- */

__attribute__((noinline)) void lu_test_inc_racy(void)
{
    long v = atomic_load(&counter);
    atomic_store(&counter, v + 1);
}

static void *worker_racy(void *arg)
{
    (void)arg;
    lu_test_inc_racy();
    return NULL;
}

static void test_lost_update(void)
{
    enum lu_sched_outcome last;
    two_workers_fn = worker_racy;
    min_final = 1000;
    max_final = -1;
    explore(two_workers, LU_SCHED_DFS, 0, &last, note_final);
    CHECK(min_final == 1 && max_final == 2, "racy increments end in %ld..%ld, expected 1..2", min_final,
          max_final);
}

/* ---- Kinds, labels and pcs of the points ---- */

/* Not static: clang drops stores to an internal atomic nobody loads. */
_Atomic int lu_test_a32;
volatile int lu_test_v32;
_Atomic unsigned char lu_test_a8;

__attribute__((noinline)) void lu_test_point_maker(void)
{
    atomic_store(&lu_test_a8, 1);
    atomic_thread_fence(memory_order_seq_cst);
    lu_test_v32 = 3;
    int x = lu_test_v32;
    int e = x;
    atomic_compare_exchange_strong(&lu_test_a32, &e, 4);
}

static void *point_maker(void *arg)
{
    (void)arg;
    lu_test_point_maker();
    return NULL;
}

static void test_points(void)
{
    enum lu_sched_outcome last;
    explore(point_maker, LU_SCHED_RANDOM, 0, &last, NULL);
    struct {
        uint16_t label;
        enum lu_sched_kind k;
    } want[] = {
        {LU_IPOSE_L_TSAN_8_store, LU_SCHED_K_WRITE},
        {LU_IPOSE_L_TSAN_atomic_thread_fence, LU_SCHED_K_FENCE},
        {LU_IPOSE_L_TSAN_volatile_write4, LU_SCHED_K_WRITE},
        {LU_IPOSE_L_TSAN_volatile_read4, LU_SCHED_K_READ},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct point *p = find_point(want[i].label);
        CHECK(p != NULL, "no point with label %u", want[i].label);
        if (!p)
            continue;
        CHECK(p->k == want[i].k, "label %u: kind %s", want[i].label, lu_sched_kind_name(p->k));
        CHECK(strcmp(symbol_of(p->pc), "lu_test_point_maker") == 0, "label %u: pc in %s", want[i].label,
              symbol_of(p->pc));
    }
    /* the CAS: compare_exchange_strong with gcc, _val with clang */
    const struct point *cas = find_point(LU_IPOSE_L_TSAN_32_compare_exchange_strong);
    if (!cas)
        cas = find_point(LU_IPOSE_L_TSAN_32_compare_exchange_val);
    CHECK(cas && cas->k == LU_SCHED_K_RMW, "no RMW point for the CAS");
    CHECK(cas && strcmp(symbol_of(cas->pc), "lu_test_point_maker") == 0, "CAS pc in %s",
          cas ? symbol_of(cas->pc) : "-");
}

/* ---- Spinning without changing memory is a livelock ---- */

static _Atomic int never; /* no thread ever changes it */
static volatile int vnever;

__attribute__((noinline)) void lu_test_spin_load(void)
{
    while (atomic_load(&never) == 0)
        ;
}

__attribute__((noinline)) void lu_test_spin_fetch_add0(void)
{
    while (atomic_fetch_add(&never, 0) == 0)
        ;
}

__attribute__((noinline)) void lu_test_spin_failed_cas(void)
{
    int e = 1;
    while (!atomic_compare_exchange_weak(&never, &e, 2))
        e = 1;
}

__attribute__((noinline)) void lu_test_spin_same_exchange(void)
{
    while (atomic_exchange(&never, 0) == 0)
        ;
}

__attribute__((noinline)) void lu_test_spin_volatile(void)
{
    while (vnever == 0)
        ;
}

static void (*spin_fn)(void);

static void *spinner(void *arg)
{
    (void)arg;
    spin_fn();
    return NULL;
}

static void *spin_main(void *arg)
{
    (void)arg;
    lu_sched_spawn(spinner, NULL);
    lu_sched_join_all(0);
    return NULL;
}

static void test_spins(void)
{
    struct {
        void (*fn)(void);
        const char *name;
    } spins[] = {
        {lu_test_spin_load, "atomic_load"},       {lu_test_spin_fetch_add0, "fetch_add(0)"},
        {lu_test_spin_failed_cas, "failed CAS"},  {lu_test_spin_same_exchange, "exchange of the same value"},
        {lu_test_spin_volatile, "volatile read"},
    };
    for (size_t i = 0; i < sizeof spins / sizeof spins[0]; i++) {
        enum lu_sched_outcome last = LU_SCHED_OUT_COMPLETE;
        spin_fn = spins[i].fn;
        explore(spin_main, LU_SCHED_RANDOM, 20, &last, NULL);
        CHECK(last == LU_SCHED_OUT_LIVELOCK, "spin on %s: outcome %s", spins[i].name,
              lu_sched_outcome_name(last));
    }
}

int main(void)
{
    test_interleavings();
    test_lost_update();
    test_points();
    test_spins();
    printf("%d checks, %d failures\n", checks, failures);
    return failures != 0;
}
