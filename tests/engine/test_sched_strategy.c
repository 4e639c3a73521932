/*
 * The scheduler's strategies, driven through its API (no instrumentation):
 * PCT's distribution against the probabilities the paper's analysis gives
 * for bugs of depth 1, 2 and 3 on programs whose bug needs exactly that many
 * ordering constraints; POS's distribution on programs where its race-driven
 * priority resets decide the answer; iterative delay bounding's golden
 * execution counts (by hand and by an independent model of the round-robin
 * scheduler); determinism for a seed and replay of every strategy; replays
 * of schedules that do not fit (cut, padded, edited) stop as MISFIT.
 *
 * The statistical checks use fixed seeds, so each run is deterministic; the
 * margins (5 standard deviations) only make them robust to a change in how
 * random numbers are consumed, never to a wrong distribution.
 */
#include "lu_sched.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lu_test.h"
#include "lu_test_sched.h"

#define TRACE_CAP 4096

/* Each use names its own call site (the label stands for the instruction
 * address an interposer would set), so the scheduler's spin detection (same
 * location, same instruction, nothing changed) never mistakes two different
 * reads in a row for a spin. */
#define WRITE(var, val, lbl)                                                                                 \
    do {                                                                                                     \
        lu_sched_pc = 0x1000 + (uintptr_t)(lbl);                                                             \
        lu_sched_access_begin(LU_SCHED_K_WRITE, &(var), (lbl));                                              \
        atomic_store(&(var), (val));                                                                         \
        lu_sched_access_end(&(var), true);                                                                   \
    } while (0)
#define READ(dst, var, lbl)                                                                                  \
    do {                                                                                                     \
        lu_sched_pc = 0x1000 + (uintptr_t)(lbl);                                                             \
        lu_sched_access_begin(LU_SCHED_K_READ, &(var), (lbl));                                               \
        (dst) = atomic_load(&(var));                                                                         \
        lu_sched_access_end(&(var), false);                                                                  \
    } while (0)
#define ADD(var, d, lbl)                                                                                     \
    do {                                                                                                     \
        lu_sched_pc = 0x1000 + (uintptr_t)(lbl);                                                             \
        lu_sched_access_begin(LU_SCHED_K_RMW, &(var), (lbl));                                                \
        atomic_fetch_add(&(var), (d));                                                                       \
        lu_sched_access_end(&(var), true);                                                                   \
    } while (0)

/* ---- programs ---- */

static _Atomic long x, y, counter;
static _Atomic long priv[16];
static long obs_a, obs_b, obs_c;
static int oplog[256], nlog;
static int prog_workers, prog_ops, prog_writes, prog_choice;
static char mutex_obj; /* the model keys objects by address: any byte will do */

/* PCT depth 1 / IDB: prog_workers workers, each prog_ops increments. */
static void *w_incs(void *arg)
{
    (void)arg;
    for (int i = 0; i < prog_ops; i++) {
        ADD(counter, 1, 1);
        oplog[nlog++] = lu_sched_self();
    }
    return NULL;
}

static void *p_incs(void *arg)
{
    (void)arg;
    atomic_store(&counter, 0);
    nlog = 0;
    if (prog_choice)
        obs_c = lu_sched_choose(prog_choice, 9);
    for (int i = 0; i < prog_workers; i++)
        lu_sched_spawn(w_incs, NULL);
    lu_sched_join_all(2);
    return NULL;
}

/* Depth 2: thread 1 writes 1 .. prog_writes to x, thread 2 reads x once.
 * Reading a value strictly between 0 and the last needs thread 1 preempted
 * right after writing it: one ordering constraint besides the start. */
static void *w_writer(void *arg)
{
    (void)arg;
    for (long i = 1; i <= prog_writes; i++)
        WRITE(x, i, 3);
    return NULL;
}

static void *w_read1(void *arg)
{
    (void)arg;
    READ(obs_a, x, 4);
    return NULL;
}

static void *p_depth2(void *arg)
{
    (void)arg;
    atomic_store(&x, 0);
    obs_a = obs_b = -1;
    lu_sched_spawn(w_writer, NULL);
    lu_sched_spawn(w_read1, NULL);
    lu_sched_join_all(2);
    return NULL;
}

/* Depth 3: thread 2 reads x twice; seeing the second-to-last value and then
 * the last needs thread 1 preempted after its second-to-last write and
 * thread 2 preempted between its reads. */
static void *w_read2(void *arg)
{
    (void)arg;
    READ(obs_a, x, 4);
    READ(obs_b, x, 5);
    return NULL;
}

static void *p_depth3(void *arg)
{
    (void)arg;
    atomic_store(&x, 0);
    obs_a = obs_b = -1;
    lu_sched_spawn(w_writer, NULL);
    lu_sched_spawn(w_read2, NULL);
    lu_sched_join_all(2);
    return NULL;
}

/* POS: one thread first does prog_ops writes to locations nobody else
 * touches, then reads x; the other writes x once. */
static void *w_private_then_read(void *arg)
{
    (void)arg;
    for (int i = 0; i < prog_ops; i++)
        WRITE(priv[i], 1, 6);
    READ(obs_a, x, 4);
    return NULL;
}

static void *w_write_once(void *arg)
{
    (void)arg;
    WRITE(x, 1, 3);
    return NULL;
}

static void *p_indep(void *arg)
{
    (void)arg;
    atomic_store(&x, 0);
    obs_a = -1;
    lu_sched_spawn(w_write_once, NULL);
    lu_sched_spawn(w_private_then_read, NULL);
    lu_sched_join_all(2);
    return NULL;
}

/* A small program with a mutex, plain atomics and (optionally) a data
 * choice, with several outcomes. */
static void *m_t1(void *arg)
{
    (void)arg;
    lu_sched_mutex_lock(&mutex_obj, 10);
    ADD(x, 1, 11);
    lu_sched_mutex_unlock(&mutex_obj, 12);
    WRITE(y, 1, 13);
    return NULL;
}

static void *m_t2(void *arg)
{
    (void)arg;
    long v;
    READ(obs_a, y, 14);
    lu_sched_mutex_lock(&mutex_obj, 15);
    READ(v, x, 16);
    WRITE(x, v * 2 + obs_c, 17);
    lu_sched_mutex_unlock(&mutex_obj, 18);
    return NULL;
}

static void *m_t3(void *arg)
{
    (void)arg;
    READ(obs_b, x, 19);
    return NULL;
}

static void *p_mix(void *arg)
{
    (void)arg;
    atomic_store(&x, 0);
    atomic_store(&y, 0);
    obs_a = obs_b = -1;
    obs_c = 0;
    lu_sched_mutex_init(&mutex_obj, PTHREAD_MUTEX_NORMAL);
    if (prog_choice)
        obs_c = lu_sched_choose(prog_choice, 9);
    lu_sched_spawn(m_t1, NULL);
    lu_sched_spawn(m_t2, NULL);
    lu_sched_spawn(m_t3, NULL);
    lu_sched_join_all(2);
    return NULL;
}

static long mix_outcome(void)
{
    return ((obs_c * 8 + atomic_load(&x)) * 4 + obs_a) * 8 + obs_b;
}

/* ---- driving the scheduler ---- */

struct sched {
    struct lu_sched *s;
    struct lu_sched_trace *tr;
};

static struct lu_sched_config cfg_of(enum lu_sched_strategy strategy, uint64_t seed)
{
    struct lu_sched_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.strategy = strategy;
    cfg.preemption_bound = -1;
    cfg.seed = seed;
    return cfg;
}

static struct sched open_sched(struct lu_sched_config cfg)
{
    struct sched r;
    r.tr = lu_test_trace(TRACE_CAP);
    cfg.trace = r.tr;
    r.s = lu_test_sched(&cfg);
    return r;
}

static void close_sched(struct sched *r)
{
    lu_sched_destroy(r->s);
    free(r->tr);
}

/* Runs one execution; false when the strategy is done. */
static bool run1(struct sched *r, lu_sched_fn fn, struct lu_sched_result *res)
{
    if (!lu_sched_more(r->s))
        return false;
    int rc = lu_sched_run(r->s, fn, NULL, res);
    if (rc != 0) {
        printf("lu_sched_run: %s\n", lu_sched_strerror(rc));
        exit(1);
    }
    return true;
}

static uint64_t trace_hash(const struct lu_sched_trace *tr)
{
    uint64_t h = 1469598103934665603ULL;
    for (uint32_t i = 0; i < tr->len; i++) {
        const struct lu_sched_step *st = &tr->steps[i];
        h = (h ^ (uint64_t)(st->kind * 256 + st->chosen)) * 1099511628211ULL;
        h = (h ^ st->op) * 1099511628211ULL;
    }
    return h;
}

static bool any_preempt(const struct lu_sched_trace *tr)
{
    for (uint32_t i = 0; i < tr->len; i++)
        if (tr->steps[i].flags & LU_SCHED_STEP_PREEMPT)
            return true;
    return false;
}

/* True when some fixed order of the threads explains every thread choice
 * of the trace: each chosen thread outranks every other candidate. */
static bool one_priority_order(const struct lu_sched_trace *tr)
{
    bool gt[LU_SCHED_MAX_THREADS][LU_SCHED_MAX_THREADS];
    memset(gt, 0, sizeof gt);
    int n = 0;
    for (uint32_t i = 0; i < tr->len; i++) {
        const struct lu_sched_step *st = &tr->steps[i];
        if (st->kind != LU_SCHED_CHOOSE_THREAD)
            continue;
        for (int t = 0; t < LU_SCHED_MAX_THREADS; t++) {
            if ((st->enabled >> t & 1) && t != st->chosen)
                gt[st->chosen][t] = true;
            if ((st->enabled >> t & 1) && t >= n)
                n = t + 1;
        }
    }
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (gt[i][k] && gt[k][j])
                    gt[i][j] = true;
    for (int i = 0; i < n; i++)
        if (gt[i][i])
            return false;
    return true;
}

/* |hits - n p| within 5 standard deviations of a binomial(n, p) */
static bool near_binomial(long hits, long n, double p)
{
    double sd = sqrt((double)n * p * (1 - p));
    return fabs((double)hits - (double)n * p) <= 5 * sd;
}

/* ---- PCT ---- */

/* d = 1: no change points, so the highest-priority thread runs until it
 * finishes: in this program, where no thread waits for another, nothing is
 * ever preempted; priorities are a uniform random order, so each order of
 * the three workers comes about equally often. */
static void test_pct_depth1(void)
{
    prog_workers = 3;
    prog_ops = 3;
    prog_choice = 0;
    long orders[3][3][3] = {{{0}}}, n = 0, preempted = 0, not_blocks = 0, wrong = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct lu_sched_config cfg = cfg_of(LU_SCHED_PCT, seed);
        cfg.pct_depth = 1;
        struct sched r = open_sched(cfg);
        struct lu_sched_result res;
        for (int e = 0; e < 30 && run1(&r, p_incs, &res); e++) {
            n++;
            if (res.outcome != LU_SCHED_OUT_COMPLETE || atomic_load(&counter) != 9 || nlog != 9)
                wrong++;
            if (any_preempt(r.tr))
                preempted++;
            bool blocks = true;
            for (int i = 0; i < 9; i++)
                if (oplog[i] != oplog[i / 3 * 3])
                    blocks = false;
            if (!blocks) {
                not_blocks++;
                continue;
            }
            orders[oplog[0] - 1][oplog[3] - 1][oplog[6] - 1]++;
        }
        close_sched(&r);
    }
    CHECK(wrong == 0, "PCT d=1: %ld of %ld executions went wrong", wrong, n);
    CHECK(preempted == 0, "PCT d=1: %ld of %ld executions preempted a thread", preempted, n);
    CHECK(not_blocks == 0, "PCT d=1: %ld of %ld executions interleaved two workers", not_blocks, n);
    int perms = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 3; c++) {
                if (a == b || b == c || a == c)
                    continue;
                perms++;
                CHECK(near_binomial(orders[a][b][c], n, 1.0 / 6),
                      "PCT d=1: order %d%d%d ran %ld times of %ld, expected about 1/6", a + 1, b + 1, c + 1,
                      orders[a][b][c], n);
            }
    CHECK(perms == 6, "six orders");

    /* With waiting (a mutex), d = 1 may switch to a thread that became
     * runnable, but every choice still follows one order of the threads;
     * with change points that order changes within executions. */
    long consistent[2] = {0}, runs[2] = {0};
    for (int d = 1; d <= 3; d += 2) {
        for (uint64_t seed = 1; seed <= 10; seed++) {
            struct lu_sched_config cfg = cfg_of(LU_SCHED_PCT, seed);
            cfg.pct_depth = d;
            cfg.pct_steps = 16;
            struct sched r = open_sched(cfg);
            struct lu_sched_result res;
            for (int e = 0; e < 30 && run1(&r, p_mix, &res); e++) {
                runs[d / 2]++;
                consistent[d / 2] += one_priority_order(r.tr);
            }
            close_sched(&r);
        }
    }
    CHECK(consistent[0] == runs[0], "PCT d=1: %ld of %ld executions broke one priority order",
          runs[0] - consistent[0], runs[0]);
    CHECK(consistent[1] < runs[1], "PCT d=3: all %ld executions followed one priority order", runs[1]);

    /* control: with change points the same program does get preempted */
    struct lu_sched_config cfg = cfg_of(LU_SCHED_PCT, 5);
    cfg.pct_depth = 3;
    struct sched r = open_sched(cfg);
    struct lu_sched_result res;
    long pre = 0;
    for (int e = 0; e < 200 && run1(&r, p_incs, &res); e++)
        pre += any_preempt(r.tr);
    close_sched(&r);
    CHECK(pre > 0, "PCT d=3 never preempted in 200 executions");

    /* the preemption bound still applies under PCT */
    cfg.preemption_bound = 0;
    r = open_sched(cfg);
    pre = 0;
    for (int e = 0; e < 200 && run1(&r, p_incs, &res); e++)
        pre += any_preempt(r.tr);
    close_sched(&r);
    CHECK(pre == 0, "PCT d=3 with preemption bound 0 preempted in %ld executions", pre);
}

/* Runs PCT on fn over seeds x per executions; counts executions where
 * hit() holds and checks every execution had the expected step count. */
static long pct_hits(lu_sched_fn fn, int depth, uint32_t k_cfg, uint32_t k_expect, int seeds, int per,
                     bool (*hit)(void), long *total)
{
    long hits = 0, bad = 0;
    *total = 0;
    for (int sd = 1; sd <= seeds; sd++) {
        struct lu_sched_config cfg = cfg_of(LU_SCHED_PCT, (uint64_t)sd * 7919);
        cfg.pct_depth = depth;
        cfg.pct_steps = k_cfg;
        struct sched r = open_sched(cfg);
        struct lu_sched_result res;
        for (int e = 0; e < per && run1(&r, fn, &res); e++) {
            (*total)++;
            if (res.outcome != LU_SCHED_OUT_COMPLETE || res.steps != k_expect)
                bad++;
            if (hit())
                hits++;
        }
        close_sched(&r);
    }
    CHECK(bad == 0, "PCT: %ld executions did not complete in %u steps", bad, k_expect);
    return hits;
}

#define D2_WRITES 10
#define D2_TARGET 5
#define D2_STEPS (D2_WRITES + 2) /* the writes, the read, main's join */
static bool hit_depth2(void)
{
    return obs_a == D2_TARGET;
}

#define D3_WRITES 4
#define D3_STEPS (D3_WRITES + 3) /* the writes, two reads, main's join */
static bool hit_depth3(void)
{
    return obs_a == D3_WRITES - 1 && obs_b == D3_WRITES;
}

/*
 * The bug of p_depth2 needs the writer above the reader (1/2) and the
 * change point on the step of write D2_TARGET (1/k): exactly 1/(2k) per
 * execution, above the paper's bound 1/(n k^(d-1)) = 1/(3k) for n = 3
 * threads. p_depth3 needs the writer above the reader, the writer dropped
 * after its second-to-last write to priority 2 and the reader dropped after
 * its first read to priority 1: exactly 1/(2 k^2), bound 1/(3 k^2).
 */
static void test_pct_depths(void)
{
    long n, hits;
    prog_writes = D2_WRITES;
    hits = pct_hits(p_depth2, 2, D2_STEPS, D2_STEPS, 40, 300, hit_depth2, &n);
    printf("PCT d=2: %ld of %ld executions found the depth-2 bug (exact %.4f, bound %.4f)\n", hits, n,
           1.0 / (2 * D2_STEPS), 1.0 / (3 * D2_STEPS));
    CHECK(hits >= n / (3 * D2_STEPS), "PCT d=2: %ld hits of %ld, below the bound 1/(nk)", hits, n);
    CHECK(near_binomial(hits, n, 1.0 / (2 * D2_STEPS)), "PCT d=2: %ld hits of %ld, expected 1/%d", hits, n,
          2 * D2_STEPS);

    /* k learned: the first execution of each scheduler has no change point */
    hits = pct_hits(p_depth2, 2, 0, D2_STEPS, 20, 300, hit_depth2, &n);
    CHECK(near_binomial(hits, n - 20, 1.0 / (2 * D2_STEPS)), "PCT d=2 learned k: %ld hits of %ld", hits, n);

    /* depth 1 cannot preempt the writer: the bug is out of reach */
    hits = pct_hits(p_depth2, 1, D2_STEPS, D2_STEPS, 5, 400, hit_depth2, &n);
    CHECK(hits == 0, "PCT d=1 found a depth-2 bug %ld times", hits);

    prog_writes = D3_WRITES;
    hits = pct_hits(p_depth3, 3, D3_STEPS, D3_STEPS, 40, 300, hit_depth3, &n);
    printf("PCT d=3: %ld of %ld executions found the depth-3 bug (exact %.4f, bound %.4f)\n", hits, n,
           1.0 / (2 * D3_STEPS * D3_STEPS), 1.0 / (3 * D3_STEPS * D3_STEPS));
    CHECK(hits >= n / (3 * D3_STEPS * D3_STEPS), "PCT d=3: %ld hits of %ld, below the bound", hits, n);
    CHECK(near_binomial(hits, n, 1.0 / (2 * D3_STEPS * D3_STEPS)), "PCT d=3: %ld hits of %ld, expected 1/%d",
          hits, n, 2 * D3_STEPS * D3_STEPS);
    hits = pct_hits(p_depth3, 2, D3_STEPS, D3_STEPS, 10, 300, hit_depth3, &n);
    CHECK(hits == 0, "PCT d=2 found a depth-3 bug %ld times", hits);
}

/* ---- POS ---- */

/*
 * p_depth2 with two writes: the reader's event races with the first write,
 * so POS gives it a fresh priority after that write. The read then comes
 * first with probability 1/2, between the writes 1/4, after both 1/4.
 * Without the reset (BasicPOS) the middle would be 1/6 and the last 1/3.
 */
static void test_pos_reset(void)
{
    prog_writes = 2;
    long seen[3] = {0}, n = 0, bad = 0;
    for (uint64_t sd = 1; sd <= 20; sd++) {
        struct sched r = open_sched(cfg_of(LU_SCHED_POS, sd));
        struct lu_sched_result res;
        for (int e = 0; e < 300 && run1(&r, p_depth2, &res); e++) {
            n++;
            if (res.outcome != LU_SCHED_OUT_COMPLETE || obs_a < 0 || obs_a > 2)
                bad++;
            else
                seen[obs_a]++;
        }
        close_sched(&r);
    }
    printf("POS: the read saw 0/1/2 in %ld/%ld/%ld of %ld executions\n", seen[0], seen[1], seen[2], n);
    CHECK(bad == 0, "POS: %ld executions went wrong", bad);
    CHECK(near_binomial(seen[0], n, 0.5), "POS: read before the writes %ld of %ld, expected 1/2", seen[0], n);
    CHECK(near_binomial(seen[1], n, 0.25), "POS: read between the writes %ld of %ld, expected 1/4", seen[1],
          n);
    CHECK(near_binomial(seen[2], n, 0.25), "POS: read after the writes %ld of %ld, expected 1/4", seen[2], n);
}

/*
 * p_indep with m private writes: the single write of x keeps its priority
 * p while each of the other thread's m + 1 events gets a fresh one, so the
 * read sees 0 with probability E[(1-p)^(m+1)] = 1/(m+2). A uniform random
 * walk gets 2^-(m+1).
 */
static void test_pos_independent(void)
{
    prog_ops = 6;
    long zero[2] = {0}, n[2] = {0};
    enum lu_sched_strategy strat[2] = {LU_SCHED_POS, LU_SCHED_RANDOM};
    for (int k = 0; k < 2; k++) {
        for (uint64_t sd = 1; sd <= 10; sd++) {
            struct sched r = open_sched(cfg_of(strat[k], sd));
            struct lu_sched_result res;
            for (int e = 0; e < 400 && run1(&r, p_indep, &res); e++) {
                n[k]++;
                zero[k] += res.outcome == LU_SCHED_OUT_COMPLETE && obs_a == 0;
            }
            close_sched(&r);
        }
    }
    printf("read before the write: POS %ld of %ld (1/%d), random walk %ld of %ld (1/%d)\n", zero[0], n[0],
           prog_ops + 2, zero[1], n[1], 1 << (prog_ops + 1));
    CHECK(near_binomial(zero[0], n[0], 1.0 / (prog_ops + 2)), "POS: %ld of %ld, expected 1/%d", zero[0], n[0],
          prog_ops + 2);
    CHECK(near_binomial(zero[1], n[1], 1.0 / (1 << (prog_ops + 1))), "random: %ld of %ld, expected 1/%d",
          zero[1], n[1], 1 << (prog_ops + 1));
}

#define MAX_OUTCOMES 256

static int add_outcome(long *set, int n, long o)
{
    for (int i = 0; i < n; i++)
        if (set[i] == o)
            return n;
    if (n < MAX_OUTCOMES)
        set[n++] = o;
    return n;
}

/* Every outcome exhaustive search finds, POS finds too, and nothing else. */
static void test_pos_coverage(void)
{
    for (prog_choice = 0; prog_choice <= 2; prog_choice += 2) {
        long all[MAX_OUTCOMES], got[MAX_OUTCOMES];
        int nall = 0, ngot = 0;
        long dfs_execs = 0;
        struct sched r = open_sched(cfg_of(LU_SCHED_DFS, 0));
        struct lu_sched_result res;
        while (run1(&r, p_mix, &res)) {
            dfs_execs++;
            if (res.outcome == LU_SCHED_OUT_COMPLETE)
                nall = add_outcome(all, nall, mix_outcome());
        }
        close_sched(&r);
        long stray = 0;
        for (uint64_t sd = 1; sd <= 3; sd++) {
            r = open_sched(cfg_of(LU_SCHED_POS, sd));
            for (int e = 0; e < 1000 && run1(&r, p_mix, &res); e++) {
                long o = mix_outcome();
                int before = nall;
                if (add_outcome(all, nall, o) != before) /* not found by DFS */
                    stray++;
                ngot = add_outcome(got, ngot, o);
            }
            close_sched(&r);
        }
        printf("mix (choice %d): DFS %ld executions, %d outcomes; POS covered %d\n", prog_choice, dfs_execs,
               nall, ngot);
        CHECK(nall >= 6, "mix: only %d outcomes", nall);
        CHECK(stray == 0, "POS produced %ld outcomes DFS never saw", stray);
        CHECK(ngot == nall, "POS covered %d of %d outcomes in 3000 executions", ngot, nall);
    }
    prog_choice = 0;
}

/* ---- IDB: delay-bounded DFS ---- */

static long dfs_count(lu_sched_fn fn, int bound, int kind)
{
    struct lu_sched_config cfg = cfg_of(LU_SCHED_DFS, 0);
    cfg.preemption_bound = bound;
    cfg.bound_kind = kind;
    struct sched r = open_sched(cfg);
    struct lu_sched_result res;
    long n = 0, over = 0;
    while (run1(&r, fn, &res)) {
        n++;
        if (bound >= 0 && r.tr->len && r.tr->steps[r.tr->len - 1].preempts > bound)
            over++;
    }
    close_sched(&r);
    CHECK(over == 0, "%ld executions exceeded bound %d", over, bound);
    return n;
}

/* An independent model of the deterministic round-robin scheduler over
 * main (0, waiting in join_all) and workers 1..w: it keeps the current
 * thread, or takes the next one in cyclic order; each time it is made to
 * pass over a runnable thread is one delay. */
static int model_next(const int *rem, int w, int from)
{
    for (int i = 1; i <= w + 1; i++) {
        int t = (from + i) % (w + 1);
        if (t > 0 && rem[t] > 0)
            return t;
    }
    return -1;
}

static long model_delays(int *rem, int w, int prev, int used, int bound)
{
    int det = prev > 0 && rem[prev] > 0 ? prev : model_next(rem, w, prev);
    if (det < 0)
        return 1; /* only main's join is left */
    long total = 0;
    int cost = 0;
    for (int a = det;; a = model_next(rem, w, a), cost++) {
        if (cost > 0 && a == det)
            break;
        if (used + cost > bound)
            break;
        rem[a]--;
        total += model_delays(rem, w, a, used + cost, bound);
        rem[a]++;
    }
    return total;
}

static void test_idb(void)
{
    prog_choice = 0;
    struct {
        int w, k;
        long d[4]; /* by hand: delay bounds 0, 1, 2, 3 */
    } golden[] = {
        {2, 2, {1, 3, 5, 6}},
        {2, 3, {1, 4, 10, 16}},
        {3, 1, {1, 3, 5, 6}},
    };
    for (unsigned g = 0; g < sizeof golden / sizeof golden[0]; g++) {
        prog_workers = golden[g].w;
        prog_ops = golden[g].k;
        for (int c = 0; c <= 3; c++) {
            long n = dfs_count(p_incs, c, LU_SCHED_BOUND_DELAYS);
            CHECK(n == golden[g].d[c], "IDB %d workers x %d, delay bound %d: %ld executions, expected %ld",
                  golden[g].w, golden[g].k, c, n, golden[g].d[c]);
        }
    }
    /* the model against the scheduler on more shapes, up to the full tree */
    for (int w = 2; w <= 3; w++) {
        for (int k = 1; k <= 3; k++) {
            prog_workers = w;
            prog_ops = k;
            long full = dfs_count(p_incs, -1, LU_SCHED_BOUND_DELAYS);
            for (int c = 0; c <= 4; c++) {
                int rem[4] = {0, k, k, k};
                long m = model_delays(rem, w, 0, 0, c);
                long n = dfs_count(p_incs, c, LU_SCHED_BOUND_DELAYS);
                CHECK(n == m, "IDB %d x %d, bound %d: %ld executions, the model says %ld", w, k, c, n, m);
                CHECK(n <= full, "IDB %d x %d, bound %d: more than unbounded", w, k, c);
            }
            int rem[4] = {0, k, k, k};
            CHECK(model_delays(rem, w, 0, 0, 1000) == full, "IDB %d x %d: the model's full tree", w, k);
        }
    }
    /* bound 0 is one schedule for any program without data choices, and
     * one per data value with them */
    prog_choice = 0;
    CHECK(dfs_count(p_mix, 0, LU_SCHED_BOUND_DELAYS) == 1, "IDB mix, delay bound 0");
    prog_choice = 3;
    CHECK(dfs_count(p_mix, 0, LU_SCHED_BOUND_DELAYS) == 3, "IDB mix with a 3-way choice, delay bound 0");
    prog_workers = 2;
    prog_ops = 2;
    CHECK(dfs_count(p_incs, 0, LU_SCHED_BOUND_DELAYS) == 3, "IDB 2 x 2 with a 3-way choice, delay bound 0");
    prog_choice = 0;
    /* the preemption count of the same programs is unchanged (the other
     * cost function) */
    prog_workers = 2;
    prog_ops = 3;
    CHECK(dfs_count(p_incs, 0, LU_SCHED_BOUND_PREEMPTIONS) == 2, "2x3 P0");
    CHECK(dfs_count(p_incs, 1, LU_SCHED_BOUND_PREEMPTIONS) == 6, "2x3 P1");
}

/* ---- determinism and replay ---- */

#define DET_EXECS 150

struct strat_case {
    const char *name;
    enum lu_sched_strategy strategy;
    int bound, kind, depth;
};

static const struct strat_case cases[] = {
    {"random", LU_SCHED_RANDOM, -1, 0, 0},
    {"pct", LU_SCHED_PCT, -1, 0, 3},
    {"pct-d2", LU_SCHED_PCT, -1, 0, 2},
    {"pos", LU_SCHED_POS, -1, 0, 0},
    {"dfs", LU_SCHED_DFS, 2, LU_SCHED_BOUND_PREEMPTIONS, 0},
    {"idb", LU_SCHED_DFS, 2, LU_SCHED_BOUND_DELAYS, 0},
};

static int schedules(const struct strat_case *c, uint64_t seed, uint64_t *out)
{
    struct lu_sched_config cfg = cfg_of(c->strategy, seed);
    cfg.preemption_bound = c->bound;
    cfg.bound_kind = c->kind;
    cfg.pct_depth = c->depth;
    struct sched r = open_sched(cfg);
    struct lu_sched_result res;
    int n = 0;
    while (n < DET_EXECS && run1(&r, p_mix, &res))
        out[n++] = trace_hash(r.tr) ^ (uint64_t)mix_outcome() * 31;
    close_sched(&r);
    return n;
}

static void test_determinism(void)
{
    static uint64_t a[DET_EXECS], b[DET_EXECS];
    prog_choice = 2;
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct strat_case *c = &cases[i];
        int na = schedules(c, 42, a), nb = schedules(c, 42, b);
        CHECK(na == nb && na > 0 && memcmp(a, b, sizeof a[0] * (size_t)na) == 0,
              "%s: seed 42 gave different schedules in two runs", c->name);
        int distinct = 0;
        for (int j = 0; j < na; j++) {
            bool dup = false;
            for (int k = 0; k < j && !dup; k++)
                dup = a[k] == a[j];
            distinct += !dup;
        }
        CHECK(distinct > 1, "%s: all %d executions had the same schedule", c->name, na);
        if (c->strategy != LU_SCHED_DFS) {
            nb = schedules(c, 43, b);
            CHECK(memcmp(a, b, sizeof a[0] * (size_t)(na < nb ? na : nb)) != 0,
                  "%s: seeds 42 and 43 gave the same schedules", c->name);
        }
    }
    prog_choice = 0;
}

/* Each execution of a strategy, replayed from its trace, takes the same
 * choices and ends the same way. */
static void test_replay(void)
{
    prog_choice = 2;
    struct lu_sched_step *copy = malloc(sizeof *copy * TRACE_CAP);
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct strat_case *c = &cases[i];
        struct lu_sched_config cfg = cfg_of(c->strategy, 7);
        cfg.preemption_bound = c->bound;
        cfg.bound_kind = c->kind;
        cfg.pct_depth = c->depth;
        struct sched r = open_sched(cfg);
        struct lu_sched_result res, res2;
        long mismatches = 0, runs = 0;
        for (int e = 0; e < 25 && run1(&r, p_mix, &res); e++) {
            uint32_t len = r.tr->len;
            memcpy(copy, r.tr->steps, sizeof *copy * len);
            uint64_t h = trace_hash(r.tr);
            long o = mix_outcome();
            struct lu_sched_config rc = cfg_of(LU_SCHED_REPLAY, 0);
            rc.replay = copy;
            rc.replay_len = len;
            struct sched rr = open_sched(rc);
            runs++;
            if (!run1(&rr, p_mix, &res2) || res2.outcome != res.outcome || rr.tr->len != len ||
                trace_hash(rr.tr) != h || mix_outcome() != o)
                mismatches++;
            CHECK(!lu_sched_more(rr.s), "%s: replay runs once", c->name);
            close_sched(&rr);
        }
        close_sched(&r);
        CHECK(runs > 0 && mismatches == 0, "%s: %ld of %ld replays differed", c->name, mismatches, runs);
    }
    free(copy);
    prog_choice = 0;
}

/* A replay follows its schedule exactly or stops as MISFIT, saying where
 * and why: a schedule that is cut, padded or edited must never turn into
 * an execution nobody recorded. */
static struct lu_sched_result replay_steps(const struct lu_sched_step *steps, uint32_t len)
{
    struct lu_sched_config rc = cfg_of(LU_SCHED_REPLAY, 0);
    rc.replay = len ? steps : NULL;
    rc.replay_len = len;
    struct sched rr = open_sched(rc);
    struct lu_sched_result res;
    run1(&rr, p_mix, &res);
    close_sched(&rr);
    return res;
}

static bool misfit_at(const struct lu_sched_result *res, enum lu_sched_misfit why, uint32_t at)
{
    return res->outcome == LU_SCHED_OUT_MISFIT && res->misfit == why && res->steps == at &&
           strcmp(res->message, lu_sched_misfit_name(why)) == 0;
}

static void test_replay_misfit(void)
{
    prog_choice = 2;
    struct sched r = open_sched(cfg_of(LU_SCHED_RANDOM, 11));
    struct lu_sched_result res;
    run1(&r, p_mix, &res);
    enum lu_sched_outcome outcome = res.outcome;
    uint32_t len = r.tr->len;
    /* what a replay file keeps: the choices only */
    struct lu_sched_step *rec = calloc(len + 2, sizeof *rec), *ed = calloc(len + 2, sizeof *ed);
    int blocked_main = -1;
    for (uint32_t i = 0; i < len; i++) {
        rec[i].kind = r.tr->steps[i].kind;
        rec[i].chosen = r.tr->steps[i].chosen;
        if (blocked_main < 0 && rec[i].kind == LU_SCHED_CHOOSE_THREAD && !(r.tr->steps[i].enabled & 1))
            blocked_main = (int)i;
    }
    close_sched(&r);
    CHECK(len > 3 && rec[0].kind == LU_SCHED_CHOOSE_DATA && blocked_main > 0, "a schedule to edit (%u steps)",
          len);

    res = replay_steps(rec, len);
    CHECK(res.outcome == outcome && res.misfit == LU_SCHED_MISFIT_NONE && res.steps == len,
          "the schedule as recorded replays (%s, %u steps)", lu_sched_outcome_name(res.outcome), res.steps);
    res = replay_steps(rec, len - 1);
    CHECK(misfit_at(&res, LU_SCHED_MISFIT_ENDED, len - 1), "a cut schedule stops where it ends (%s, %s, %u)",
          lu_sched_outcome_name(res.outcome), lu_sched_misfit_name(res.misfit), res.steps);
    res = replay_steps(rec, 0);
    CHECK(misfit_at(&res, LU_SCHED_MISFIT_ENDED, 0), "an empty schedule stops at the first (data) choice");
    memcpy(ed, rec, len * sizeof *ed);
    ed[len].kind = ed[len + 1].kind = LU_SCHED_CHOOSE_THREAD;
    ed[len + 1].chosen = 1;
    res = replay_steps(ed, len + 2);
    CHECK(misfit_at(&res, LU_SCHED_MISFIT_LEFT_OVER, len) && res.culprit == -1,
          "choices left over after the end do not fit (%s, %s, %u)", lu_sched_outcome_name(res.outcome),
          lu_sched_misfit_name(res.misfit), res.steps);
    memcpy(ed, rec, len * sizeof *ed);
    ed[blocked_main].chosen = 40;
    res = replay_steps(ed, len);
    CHECK(misfit_at(&res, LU_SCHED_MISFIT_NO_THREAD, (uint32_t)blocked_main), "a thread that does not exist");
    ed[blocked_main].chosen = 0;
    res = replay_steps(ed, len);
    CHECK(misfit_at(&res, LU_SCHED_MISFIT_NOT_RUNNABLE, (uint32_t)blocked_main),
          "a thread that cannot run (main in join)");
    ed[blocked_main].kind = LU_SCHED_CHOOSE_DATA;
    res = replay_steps(ed, len);
    CHECK(misfit_at(&res, LU_SCHED_MISFIT_NOT_THREAD, (uint32_t)blocked_main),
          "a data value where the program chooses a thread");
    memcpy(ed, rec, len * sizeof *ed);
    ed[0].chosen = 5;
    res = replay_steps(ed, len);
    CHECK(misfit_at(&res, LU_SCHED_MISFIT_DATA_RANGE, 0), "a data value out of range");
    ed[0].kind = LU_SCHED_CHOOSE_THREAD;
    ed[0].chosen = 0;
    res = replay_steps(ed, len);
    CHECK(misfit_at(&res, LU_SCHED_MISFIT_NOT_DATA, 0), "a thread where the program chooses a data value");

    /* longer than the trace: refused, not cut */
    struct lu_sched_config rc = cfg_of(LU_SCHED_REPLAY, 0);
    struct lu_sched_trace *tr = malloc(lu_sched_trace_size(2));
    tr->cap = 2;
    rc.trace = tr;
    rc.replay = rec;
    rc.replay_len = 3;
    int err = 0;
    struct lu_sched *s = lu_sched_create(&rc, &err);
    CHECK(!s && err == LU_SCHED_EREPLAY, "a schedule longer than the trace is refused (%s)",
          lu_sched_strerror(err));
    lu_sched_destroy(s);
    free(tr);
    free(rec);
    free(ed);
    prog_choice = 0;
}

int main(void)
{
    test_pct_depth1();
    test_pct_depths();
    test_pos_reset();
    test_pos_independent();
    test_pos_coverage();
    test_idb();
    test_determinism();
    test_replay();
    test_replay_misfit();
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
