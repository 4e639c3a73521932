/*
 * Partial-order reduction in the scheduler's DFS (config.por), driven
 * through its API (no instrumentation):
 *
 * - golden counts: threads touching only their own locations collapse to
 *   one execution, or to the three histories of one operation each; threads on
 *   one location are not reduced at all; and, on random straight-line
 *   programs, the explored executions cover exactly the Mazurkiewicz traces
 *   that an independent model of the program (its own dependence relation
 *   and preemption cost) says have a schedule within the bound - one
 *   execution per trace when unbounded;
 * - soundness: on programs with locks, trylocks, atomics, CAS, spin loops,
 *   atomic sections, condition variables, data choices and operation
 *   boundaries, the set of distinct outcomes (the history of calls and
 *   returns with the values each operation read, every value read, the
 *   final memory, deadlocks and who is stuck) with reduction equals the set
 *   without, for preemption bounds 0, 1, 2 (and unbounded on small ones);
 * - the allocator and the table of thread-specific keys as shared state: a
 *   free and a malloc (two key creations) in steps that touch different
 *   words are still ordered (an ABA needs the block back);
 * - replay of a reduced DFS's schedules, and uncontrolled nondeterminism
 *   still reported.
 *
 * `test_sched_por --random SEED [K]` runs K times as many random programs,
 * drawn from another seed (a longer soak of the same checks).
 * `test_sched_por --measure` prints the execution counts of a Treiber-stack
 * and a lock-based 3-thread program at bound 2 with and without reduction.
 */
#include "lu_sched.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interleavings.h"
#include "lu_test.h"
#include "lu_test_sched.h"

#define TRACE_CAP 4096
#define MAXT 4
#define MAXOPS 10
#define NLOC 4
#define NMTX 2

/* ---- a tiny program language run by controlled threads ---- */

enum {
    O_READ,    /* a: location; records the value */
    O_WRITE,   /* mem[a] = b */
    O_ADD,     /* fetch_add(mem[a], 1); records the old value */
    O_CAS,     /* CAS(mem[a], b -> c); records success and the value seen */
    O_LOCK,    /* mutex a */
    O_UNLOCK,  /* mutex a, if held */
    O_TRYLOCK, /* mutex a; records success */
    O_FREE,    /* an operation boundary: the call of the next operation */
    O_NONDET,  /* a data choice among 2; records it */
    O_SPIN,    /* spin (plain re-reads) until mem[a] == b */
    O_YSPIN,   /* spin with a yield until mem[a] == b */
    O_ABEGIN,  /* atomic section */
    O_AEND,
    O_WAIT,   /* lock mutex b; while (!mem[a]) cond_wait(cond c, b); unlock */
    O_SIGNAL, /* lock mutex b; mem[a] = 1; signal cond c; unlock */
    O_BCAST,  /* the same with a broadcast */
    O_TRY,    /* up to 2 reads of mem[a] (one instruction) for 1; else fetch_add(mem[b]), recorded */
    O_SPAWN,
    /* start a thread (b: 0 through a CREATE point, 1 raw spawn) that adds to mem[a] and
     * records its number and the old value; records the new thread's number */
    O_FENCE,  /* atomic_thread_fence: no location */
    O_PREAD,  /* plain reads of buf[a .. a+b): records their weighted sum */
    O_PWRITE, /* plain writes buf[a .. a+b) = c */
};

struct op {
    uint8_t k, a, b, c;
};

struct prog {
    int nt;
    int n[MAXT];
    struct op ops[MAXT][MAXOPS];
};

static const struct prog *P;
/* The program's shared objects (the scheduler keys sync objects by
 * address). In heap mode each execution gets them from malloc at an address
 * that differs from the previous execution's, as a harness's create() does:
 * the reduction must recognize a location across executions all the same. */
struct region {
    _Atomic long mem[NLOC];
    char mtx[NMTX][8], cnd[2][8];
};
static struct region static_region;
static struct region *R = &static_region;
/* Plain memory, reported as the instrumentation's hooks report it
 * (lu_sched_plain_access): ranges of more than 8 words name the whole
 * block when buf is a block the reduction knows (plain_blocks: malloc'd
 * each execution), and "everything" otherwise. */
#define NBUF 16
static long static_buf[NBUF];
static long *buf = static_buf;
static bool plain_blocks;
static bool heap_mode;
/* Without clocks, as the Line-Up driver runs: fences commute with
 * everything (docs/por.md, section 1). */
static bool no_clocks;
/* more live blocks than the reduction names (LU__POR_BLOCKS): it must give
 * up reducing, not key the rest by address */
static bool heap_crowd;
#define CROWD 1100
#define mem (R->mem)
#define mtx (R->mtx)
#define cnd (R->cnd)
/* O_CAS reports a failure as the interposition does (LU_SCHED_SET_MO_FAILED:
 * the step only read). Off for the model, whose dependence relation counts
 * every CAS as a write. */
static bool cas_fail_reads;
static long obs[MAXT][64];
static int nobs[MAXT];
static char evlog[2048];
static int evlen;

/* appends one event (or part of one) to the history: formatted on the
 * thread's stack and copied byte by byte, since liblineup.so's snprintf and
 * memcpy would report the log's bytes to the reduction as shared accesses
 * the model does not have (lu_ipose_libc.c) */
static void ev(const char *tag, long a, long b)
{
    char e[96];
    int n = snprintf(e, sizeof e, "%s%ld.%ld ", tag, a, b);
    if (n <= 0 || n >= (int)sizeof e || evlen + n >= (int)sizeof evlog)
        return;
    volatile char *d = evlog + evlen;
    for (int i = 0; i <= n; i++)
        d[i] = e[i];
    evlen += n;
}

static void note(int t, long v)
{
    if (nobs[t] < 64)
        obs[t][nobs[t]++] = v;
}

/* each op of each thread is its own instruction for spin detection */
static void pc_of(int t, int i)
{
    lu_sched_pc = 0x10000 + (uintptr_t)t * 0x100 + (uintptr_t)i;
}

static long rd(int t, int i, int a)
{
    pc_of(t, i);
    lu_sched_access_begin(LU_SCHED_K_READ, &mem[a], (uint16_t)(100 + i));
    long v = atomic_load(&mem[a]);
    lu_sched_access_end(&mem[a], false);
    return v;
}

static void wr(int t, int i, int a, long v)
{
    pc_of(t, i);
    lu_sched_access_begin(LU_SCHED_K_WRITE, &mem[a], (uint16_t)(100 + i));
    long old = atomic_exchange(&mem[a], v);
    lu_sched_access_end(&mem[a], old != v);
}

static void *child(void *arg)
{
    int a = (int)(intptr_t)arg;
    lu_sched_pc = 0x40000 + (uintptr_t)a;
    LU_SCHED_SET_ARG(1);
    lu_sched_access_begin(LU_SCHED_K_RMW, &mem[a], 200);
    long v = atomic_fetch_add(&mem[a], 1);
    lu_sched_access_end(&mem[a], true);
    ev("k", lu_sched_self(), v);
    return NULL;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    const struct op *ops = P->ops[t];
    int n = P->n[t];
    bool held[NMTX] = {false, false};
    bool in_op = false;
    int opno = 0, first_obs = 0;
    for (int i = 0; i < n; i++) {
        const struct op *o = &ops[i];
        long v;
        switch (o->k) {
        case O_FREE:
            pc_of(t, i);
            lu_sched_point_free(1);
            ev("c", t, opno);
            in_op = true;
            first_obs = nobs[t];
            break;
        case O_READ:
            note(t, rd(t, i, o->a));
            break;
        case O_WRITE:
            wr(t, i, o->a, o->b);
            break;
        case O_ADD:
            pc_of(t, i);
            LU_SCHED_SET_ARG(1);
            lu_sched_access_begin(LU_SCHED_K_RMW, &mem[o->a], (uint16_t)(100 + i));
            v = atomic_fetch_add(&mem[o->a], 1);
            lu_sched_access_end(&mem[o->a], true);
            note(t, v);
            break;
        case O_CAS: {
            pc_of(t, i);
            long exp = o->b;
            LU_SCHED_SET_ARG(exp);
            lu_sched_access_begin(LU_SCHED_K_RMW, &mem[o->a], (uint16_t)(100 + i));
            bool ok = atomic_compare_exchange_strong(&mem[o->a], &exp, (long)o->c);
            if (!ok && cas_fail_reads)
                LU_SCHED_SET_MO_FAILED(__ATOMIC_SEQ_CST);
            lu_sched_access_end(&mem[o->a], ok && o->b != o->c);
            note(t, ok ? 1000 + exp : exp);
            break;
        }
        case O_LOCK:
            pc_of(t, i);
            lu_sched_mutex_lock(mtx[o->a], 2);
            held[o->a] = true;
            break;
        case O_UNLOCK:
            if (held[o->a]) {
                pc_of(t, i);
                lu_sched_mutex_unlock(mtx[o->a], 3);
                held[o->a] = false;
            }
            break;
        case O_TRYLOCK:
            if (held[o->a])
                break;
            pc_of(t, i);
            held[o->a] = lu_sched_mutex_trylock(mtx[o->a], 4) == 0;
            note(t, held[o->a]);
            break;
        case O_NONDET:
            note(t, 2000 + lu_sched_choose(2, 5));
            break;
        case O_SPIN:
            while (rd(t, i, o->a) != o->b) {
            }
            break;
        case O_YSPIN:
            while (rd(t, i, o->a) != o->b) {
                pc_of(t, i);
                lu_sched_yield(6);
            }
            break;
        case O_TRY: {
            bool seen = false;
            for (int k = 0; k < 2 && !seen; k++)
                seen = rd(t, i, o->a) == 1;
            if (!seen) {
                pc_of(t, 50 + i);
                LU_SCHED_SET_ARG(1);
                lu_sched_access_begin(LU_SCHED_K_RMW, &mem[o->b], (uint16_t)(100 + i));
                note(t, 3000 + atomic_fetch_add(&mem[o->b], 1));
                lu_sched_access_end(&mem[o->b], true);
            }
            break;
        }
        case O_SPAWN:
            pc_of(t, i);
            if (o->b)
                note(t, 4000 + lu_sched_spawn(child, (void *)(intptr_t)o->a));
            else
                note(t, 4000 + lu_sched_create_thread(child, (void *)(intptr_t)o->a, 0, 14));
            break;
        case O_ABEGIN:
            lu_sched_atomic_begin();
            break;
        case O_PREAD: {
            lu_sched_plain_access(&buf[o->a], (size_t)o->b * sizeof buf[0], false);
            long sum = 0;
            for (int k = 0; k < o->b; k++)
                sum += (k + 1) * ((volatile long *)buf)[o->a + k];
            note(t, 5000 + sum);
            break;
        }
        case O_PWRITE:
            lu_sched_plain_access(&buf[o->a], (size_t)o->b * sizeof buf[0], true);
            for (int k = 0; k < o->b; k++)
                ((volatile long *)buf)[o->a + k] = o->c;
            break;
        case O_FENCE:
            pc_of(t, i);
            lu_sched_access_begin(LU_SCHED_K_FENCE, NULL, 15);
            atomic_thread_fence(memory_order_seq_cst);
            lu_sched_access_end(NULL, false);
            break;
        case O_AEND:
            lu_sched_atomic_end();
            break;
        case O_WAIT:
            pc_of(t, i);
            lu_sched_mutex_lock(mtx[o->b], 7);
            while (rd(t, i, o->a) == 0) {
                pc_of(t, i);
                lu_sched_cond_wait(cnd[o->c], mtx[o->b], 8);
            }
            pc_of(t, i);
            lu_sched_mutex_unlock(mtx[o->b], 9);
            break;
        case O_SIGNAL:
        case O_BCAST:
            pc_of(t, i);
            lu_sched_mutex_lock(mtx[o->b], 10);
            wr(t, i, o->a, 1);
            pc_of(t, i);
            if (o->k == O_SIGNAL)
                lu_sched_cond_signal(cnd[o->c], 11);
            else
                lu_sched_cond_broadcast(cnd[o->c], 11);
            lu_sched_mutex_unlock(mtx[o->b], 12);
            break;
        }
        /* the return event is recorded right after the operation's last
         * visible step, as the Line-Up driver does */
        if (in_op && (i + 1 == n || ops[i + 1].k == O_FREE)) {
            ev("r", t, opno);
            for (int k = first_obs; k < nobs[t]; k++)
                ev("=", obs[t][k], k);
            in_op = false;
            opno++;
        }
    }
    return NULL;
}

static void *main_body(void *arg)
{
    (void)arg;
    if (heap_mode) {
        /* three regions in turn, each kept until its outcome was read */
        static struct region *ring[3];
        static unsigned n;
        unsigned k = n++ % 3;
        free(ring[k]);
        static void *crowd[CROWD];
        for (int i = 0; i < CROWD; i++) {
            free(crowd[i]);
            crowd[i] = heap_crowd ? malloc(8) : NULL;
        }
        ring[k] = malloc(sizeof(struct region) + 16 * (n % 5));
        R = ring[k];
    } else {
        R = &static_region;
    }
    if (plain_blocks) {
        /* a new block each execution, as a harness's create() gets; the
         * allocator interposition notes it (lu_sched_note_alloc) */
        static long *prev;
        free(prev);
        prev = buf = malloc(sizeof static_buf + 8);
    } else {
        buf = static_buf;
    }
    for (int i = 0; i < NBUF; i++)
        buf[i] = 0;
    for (int i = 0; i < NLOC; i++)
        atomic_store(&mem[i], 0);
    memset(nobs, 0, sizeof nobs);
    evlen = 0;
    evlog[0] = 0;
    for (int t = 0; t < P->nt; t++)
        lu_sched_spawn(worker, (void *)(intptr_t)t);
    lu_sched_join_all(13);
    return NULL;
}

/* ---- outcomes ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3ULL;
    return h;
}

/* The history as the driver identifies it: consecutive calls (tokens "c...")
 * in any order are one history, and so are consecutive returns ("r..."
 * with the "=" values that follow them, and "k" and "m", which threads
 * record as they end, like a return); docs/por.md, section 1. */
static uint64_t evlog_key(uint64_t h)
{
    const char *tok[256];
    size_t len[256];
    char kind[256];
    int n = 0;
    for (const char *p = evlog; *p && n < 256;) {
        const char *e = strchr(p, ' ');
        size_t l = e ? (size_t)(e - p) + 1 : strlen(p);
        if (*p == '=' && n && tok[n - 1][0] == 'r') {
            len[n - 1] += l; /* a value read belongs to its return */
        } else {
            tok[n] = p;
            len[n] = l;
            kind[n] = *p == 'c' ? 'c' : strchr("rkm", *p) ? 'r' : 0;
            n++;
        }
        p += l;
    }
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (kind[i] && j < n && kind[j] == kind[i])
            j++;
        for (int a = i + 1; a < j; a++) { /* insertion sort of the run */
            for (int b = a; b > i; b--) {
                size_t m = len[b] < len[b - 1] ? len[b] : len[b - 1];
                int c = memcmp(tok[b - 1], tok[b], m);
                if (c < 0 || (c == 0 && len[b - 1] <= len[b]))
                    break;
                const char *tt = tok[b];
                size_t tl = len[b];
                tok[b] = tok[b - 1];
                len[b] = len[b - 1];
                tok[b - 1] = tt;
                len[b - 1] = tl;
            }
        }
        for (int a = i; a < j; a++)
            h = fnv(h, tok[a], len[a]);
        h = fnv(h, "|", 1);
        i = j;
    }
    return h;
}

static uint64_t outcome_key(const struct lu_sched_result *res)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    int o = (int)res->outcome;
    h = fnv(h, &o, sizeof o);
    if (res->outcome != LU_SCHED_OUT_COMPLETE) {
        for (int i = 0; i < res->nthreads; i++)
            h = fnv(h, &res->threads[i].state, sizeof res->threads[i].state);
    }
    h = evlog_key(h);
    for (int t = 0; t < P->nt; t++) {
        h = fnv(h, &nobs[t], sizeof nobs[t]);
        h = fnv(h, obs[t], (size_t)nobs[t] * sizeof obs[t][0]);
    }
    for (int i = 0; i < NLOC; i++) {
        long v = atomic_load(&mem[i]);
        h = fnv(h, &v, sizeof v);
    }
    return h;
}

struct set {
    uint64_t *v;
    size_t n, cap;
};

static void set_add(struct set *s, uint64_t x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = x;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void set_norm(struct set *s)
{
    if (!s->n)
        return;
    qsort(s->v, s->n, sizeof *s->v, cmp_u64);
    size_t k = 1;
    for (size_t i = 1; i < s->n; i++)
        if (s->v[i] != s->v[k - 1])
            s->v[k++] = s->v[i];
    s->n = k;
}

static bool set_eq(const struct set *a, const struct set *b)
{
    return a->n == b->n && (!a->n || memcmp(a->v, b->v, a->n * sizeof *a->v) == 0);
}

static bool set_sub(const struct set *a, const struct set *b) /* a within b */
{
    size_t j = 0;
    for (size_t i = 0; i < a->n; i++) {
        while (j < b->n && b->v[j] < a->v[i])
            j++;
        if (j == b->n || b->v[j] != a->v[i])
            return false;
    }
    return true;
}

/* ---- the independent model of straight-line programs ----
 * Only READ/WRITE/ADD/CAS/FREE: each thread's steps are fixed. Its own
 * dependence: same location with a write among them, or a call and a
 * return (a call is a FREE point; a return is recorded after the last step
 * of an operation or of a thread). Its own cost: a switch away from a
 * worker that has steps left and whose next step is not a FREE point is a
 * preemption. */

static bool m_call(const struct prog *p, int t, int i)
{
    return p->ops[t][i].k == O_FREE;
}

static bool m_ret(const struct prog *p, int t, int i)
{
    return i + 1 == p->n[t] || p->ops[t][i + 1].k == O_FREE;
}

static bool m_dep(const struct prog *p, int t, int i, int u, int j)
{
    if (t == u)
        return true;
    if ((m_call(p, t, i) && m_ret(p, u, j)) || (m_ret(p, t, i) && m_call(p, u, j)))
        return true;
    const struct op *a = &p->ops[t][i], *b = &p->ops[u][j];
    if (a->k == O_FREE || b->k == O_FREE || a->a != b->a)
        return false;
    return a->k != O_READ || b->k != O_READ;
}

/* The trace of an interleaving (thread indices), as its lexicographically
 * least linearization. */
static uint64_t m_canon(const struct prog *p, const int *seq, int len)
{
    int idx[64], pos[MAXT][MAXOPS], cnt[MAXT] = {0};
    for (int k = 0; k < len; k++) {
        idx[k] = cnt[seq[k]]++;
        pos[seq[k]][idx[k]] = k;
    }
    int placed[MAXT] = {0};
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int step = 0; step < len; step++) {
        int pick = -1;
        for (int t = 0; t < p->nt && pick < 0; t++) {
            if (placed[t] == p->n[t])
                continue;
            int e = pos[t][placed[t]];
            bool minimal = true;
            for (int u = 0; u < p->nt && minimal; u++)
                for (int j = placed[u]; u != t && j < p->n[u] && minimal; j++)
                    if (pos[u][j] < e && m_dep(p, u, j, t, placed[t]))
                        minimal = false;
            if (minimal)
                pick = t;
        }
        if (pick < 0)
            return 0; /* cannot happen: the trace is acyclic */
        placed[pick]++;
        h = fnv(h, &pick, sizeof pick);
    }
    return h;
}

static void m_enum(const struct prog *p, int *seq, int len, int *done, int prev, int cost, int bound,
                   struct set *traces, uint64_t *count)
{
    int total = 0;
    for (int t = 0; t < p->nt; t++)
        total += p->n[t];
    if (len == total) {
        set_add(traces, m_canon(p, seq, len));
        (*count)++;
        return;
    }
    for (int q = 0; q < p->nt; q++) {
        if (done[q] == p->n[q])
            continue;
        int c = prev >= 0 && q != prev && done[prev] < p->n[prev] && p->ops[prev][done[prev]].k != O_FREE;
        if (bound >= 0 && cost + c > bound)
            continue;
        seq[len] = q;
        done[q]++;
        m_enum(p, seq, len + 1, done, q, cost + c, bound, traces, count);
        done[q]--;
    }
}

/* ---- exploring through the scheduler ---- */

struct run {
    uint64_t runs, execs, pruned, nondet, deadlocks;
    struct set outcomes, traces;
    struct lu_sched_stats stats;
};

static void run_free(struct run *r)
{
    free(r->outcomes.v);
    free(r->traces.v);
}

static uint64_t trace_canon(const struct prog *p, const struct lu_sched_trace *tr)
{
    int seq[64], len = 0;
    for (uint32_t i = 0; i < tr->len && len < 64; i++)
        if (tr->steps[i].kind == LU_SCHED_CHOOSE_THREAD && tr->steps[i].chosen >= 1)
            seq[len++] = tr->steps[i].chosen - 1;
    return m_canon(p, seq, len);
}

/* Each search gets its own prefix-trace cache (docs/por.md, section 8),
 * of LINEUP_PC_MB MB if set (0: none, sleep sets alone). */
static size_t cache_bytes = LU_SCHED_CACHE_BYTES;

static struct lu_sched_cache *search_cache(bool por)
{
    if (!por || !cache_bytes)
        return NULL;
    struct lu_sched_cache *c = lu_sched_cache_create(cache_bytes);
    CHECK(c != NULL, "lu_sched_cache_create(%zu) failed", cache_bytes);
    return c;
}

static void explore(const struct prog *p, int bound, bool por, struct run *r, bool canon)
{
    memset(r, 0, sizeof *r);
    P = p;
    struct lu_sched_trace *tr = lu_test_trace(TRACE_CAP);
    struct lu_sched_config cfg = lu_test_config(LU_SCHED_DFS, bound, tr);
    cfg.spin_bound = 12;
    cfg.por = por;
    cfg.cache = search_cache(por);
    cfg.no_clocks = no_clocks;
    struct lu_sched *s = lu_test_sched(&cfg);
    struct lu_sched_result res;
    while (lu_sched_more(s)) {
        if (lu_sched_run(s, main_body, NULL, &res) != 0)
            break;
        r->runs++;
        if (res.outcome == LU_SCHED_OUT_DISCARDED) {
            r->pruned++;
            continue;
        }
        if (res.outcome == LU_SCHED_OUT_NONDET)
            r->nondet++;
        if (res.outcome == LU_SCHED_OUT_DEADLOCK)
            r->deadlocks++;
        r->execs++;
        set_add(&r->outcomes, outcome_key(&res));
        if (canon)
            set_add(&r->traces, trace_canon(p, tr));
    }
    lu_sched_stats(s, &r->stats);
    lu_sched_destroy(s);
    lu_sched_cache_destroy(cfg.cache);
    free(tr);
    set_norm(&r->outcomes);
    set_norm(&r->traces);
}

/* ---- programs ---- */

#define OP(k, a, b, c) ((struct op){(k), (a), (b), (c)})

static struct prog private_writers(int k)
{
    struct prog p;
    memset(&p, 0, sizeof p);
    p.nt = 2;
    for (int t = 0; t < 2; t++) {
        p.n[t] = k;
        for (int i = 0; i < k; i++)
            p.ops[t][i] = OP(O_ADD, t, 0, 0);
    }
    return p;
}

/* each thread: one operation (a FREE point) of k adds on its own word */
static struct prog private_ops(int k)
{
    struct prog p = private_writers(k);
    for (int t = 0; t < 2; t++) {
        p.ops[t][0] = OP(O_FREE, 0, 0, 0);
        for (int i = 0; i < k; i++)
            p.ops[t][i + 1] = OP(O_ADD, t, 0, 0);
        p.n[t] = k + 1;
    }
    return p;
}

static struct prog shared_adders(int k)
{
    struct prog p = private_writers(k);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < k; i++)
            p.ops[t][i].a = 0;
    return p;
}

/* k CASes of each thread on one word that all fail */
static struct prog failing_casers(int k)
{
    struct prog p = private_writers(k);
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < k; i++)
            p.ops[t][i] = OP(O_CAS, 0, 7, 8);
    return p;
}

static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static unsigned rnd(unsigned n)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (unsigned)((z ^ (z >> 31)) % n);
}

/* Straight-line programs over 2 locations, with operation boundaries. */
static struct prog random_straight(int nt, int maxops)
{
    struct prog p;
    memset(&p, 0, sizeof p);
    p.nt = nt;
    for (int t = 0; t < nt; t++) {
        int n = 2 + (int)rnd((unsigned)maxops - 1);
        p.n[t] = n;
        for (int i = 0; i < n; i++) {
            unsigned r = rnd(10);
            if (i == 0 && rnd(2))
                p.ops[t][i] = OP(O_FREE, 0, 0, 0);
            else if (r < 3)
                p.ops[t][i] = OP(O_READ, rnd(2), 0, 0);
            else if (r < 6)
                p.ops[t][i] = OP(O_WRITE, rnd(2), 1 + rnd(2), 0);
            else if (r < 8)
                p.ops[t][i] = OP(O_ADD, rnd(2), 0, 0);
            else if (r < 9)
                p.ops[t][i] = OP(O_CAS, rnd(2), rnd(2), 1 + rnd(2));
            else
                p.ops[t][i] = OP(O_FREE, 0, 0, 0);
        }
    }
    return p;
}

/* A random program: per thread, maybe a FREE point first, then pieces from
 * piece() (which appends a few operations at o[n] and returns the new
 * count) up to 2 to maxops operations. */
static struct prog random_prog(int nt, int maxops, int (*piece)(struct op *o, int n))
{
    struct prog p;
    memset(&p, 0, sizeof p);
    p.nt = nt;
    for (int t = 0; t < nt; t++) {
        int n = 0;
        int want = 2 + (int)rnd((unsigned)maxops - 1);
        if (rnd(2))
            p.ops[t][n++] = OP(O_FREE, 0, 0, 0);
        while (n < want && n < MAXOPS - 3)
            n = piece(p.ops[t], n);
        if (n > MAXOPS)
            n = MAXOPS;
        p.n[t] = n;
    }
    return p;
}

/* Programs with locks (properly bracketed or with trylocks), lock-order
 * inversions (deadlocks), data choices, spins and atomic sections. */
static int rich_piece(struct op *o, int n)
{
    unsigned r = rnd(16);
    if (r < 3) {
        o[n++] = OP(O_READ, rnd(3), 0, 0);
    } else if (r < 5) {
        o[n++] = OP(O_WRITE, rnd(3), 1 + rnd(2), 0);
    } else if (r < 6) {
        o[n++] = OP(O_ADD, rnd(3), 0, 0);
    } else if (r < 7) {
        o[n++] = OP(O_CAS, rnd(3), rnd(2), 1 + rnd(2));
    } else if (r < 9) {
        /* a critical section: lock, one or two accesses, unlock;
         * nested ones with both mutexes make inversions */
        int m = (int)rnd(2);
        o[n++] = OP(O_LOCK, m, 0, 0);
        if (rnd(3) == 0)
            o[n++] = OP(O_LOCK, 1 - m, 0, 0);
        o[n++] = rnd(2) ? OP(O_ADD, rnd(3), 0, 0) : OP(O_READ, rnd(3), 0, 0);
        o[n++] = OP(O_UNLOCK, 1 - m, 0, 0);
        o[n++] = OP(O_UNLOCK, m, 0, 0);
    } else if (r < 10) {
        int m = (int)rnd(2);
        o[n++] = OP(O_TRYLOCK, m, 0, 0);
        o[n++] = OP(O_WRITE, rnd(3), 2, 0);
        o[n++] = OP(O_UNLOCK, m, 0, 0);
    } else if (r < 11) {
        o[n++] = OP(O_NONDET, 0, 0, 0);
    } else if (r < 12) {
        /* waits for a flag somebody may set (or livelocks) */
        o[n++] = OP(rnd(2) ? O_SPIN : O_YSPIN, 3, 1, 0);
    } else if (r < 13) {
        o[n++] = OP(O_WRITE, 3, 1, 0);
    } else if (r < 14) {
        o[n++] = OP(O_ABEGIN, 0, 0, 0);
        o[n++] = OP(O_READ, rnd(3), 0, 0);
        o[n++] = OP(O_ADD, rnd(3), 0, 0);
        o[n++] = OP(O_AEND, 0, 0, 0);
    } else {
        o[n++] = OP(O_FREE, 0, 0, 0);
    }
    return n;
}

static struct prog random_rich(int nt, int maxops)
{
    return random_prog(nt, maxops, rich_piece);
}

/* Programs whose plain accesses decide what they see: narrow (one or two
 * words, keyed each) and wide ones (9 to 16 words: the whole block, or
 * "everything"), racing or under a lock, between visible steps. */
static int plain_piece(struct op *o, int n)
{
    static const uint8_t widths[] = {1, 2, 9, 12, NBUF};
    unsigned r = rnd(12);
    uint8_t w = widths[rnd(sizeof widths)];
    uint8_t at = (uint8_t)rnd(NBUF - w + 1u);
    if (r < 3) {
        o[n++] = OP(O_PREAD, at, w, 0);
    } else if (r < 6) {
        o[n++] = OP(O_PWRITE, at, w, 1 + rnd(2));
    } else if (r < 7) {
        o[n++] = OP(O_READ, rnd(2), 0, 0);
    } else if (r < 8) {
        o[n++] = OP(O_WRITE, rnd(2), 1 + rnd(2), 0);
    } else if (r < 9) {
        o[n++] = OP(O_ADD, rnd(2), 0, 0);
    } else if (r < 10) {
        o[n++] = OP(O_LOCK, 0, 0, 0);
        o[n++] = rnd(2) ? OP(O_PWRITE, at, w, 1 + rnd(2)) : OP(O_PREAD, at, w, 0);
        o[n++] = OP(O_UNLOCK, 0, 0, 0);
    } else {
        o[n++] = OP(O_FREE, 0, 0, 0);
    }
    return n;
}

static struct prog random_plain(int nt, int maxops)
{
    return random_prog(nt, maxops, plain_piece);
}

/* Spin-heavy programs: flags set under a lock or never, spinners that give
 * up and record when, a holder that spins while holding the lock. */
static struct prog random_spin(void)
{
    struct prog p;
    memset(&p, 0, sizeof p);
    p.nt = 3 + (int)rnd(2);
    for (int t = 0; t < p.nt; t++) {
        int n = 0, want = 1 + (int)rnd(3);
        while (n < want) {
            unsigned r = rnd(9);
            if (r < 2) {
                p.ops[t][n++] = OP(O_TRY, 3, 2, 0);
            } else if (r < 3) {
                p.ops[t][n++] = OP(O_LOCK, 0, 0, 0);
                p.ops[t][n++] = OP(O_WRITE, 3, 1, 0);
                p.ops[t][n++] = OP(O_UNLOCK, 0, 0, 0);
            } else if (r < 4) {
                p.ops[t][n++] = OP(O_LOCK, 0, 0, 0);
                p.ops[t][n++] = OP(O_SPIN, 1, 1, 0);
            } else if (r < 5) {
                p.ops[t][n++] = OP(O_SPIN, 1, 1, 0);
            } else if (r < 6) {
                p.ops[t][n++] = OP(O_LOCK, 0, 0, 0);
            } else if (r < 7) {
                p.ops[t][n++] = OP(O_READ, 0, 0, 0);
            } else if (r < 8) {
                p.ops[t][n++] = OP(O_WRITE, 0, 1, 0);
            } else {
                p.ops[t][n++] = OP(O_FREE, 0, 0, 0);
            }
        }
        p.n[t] = n;
    }
    return p;
}

static void print_prog(const struct prog *p)
{
    static const char *names[] = {"read",   "write",  "add",  "cas",   "lock",   "unlock", "trylock",
                                  "free",   "nondet", "spin", "yspin", "abegin", "aend",   "wait",
                                  "signal", "bcast",  "try",  "spawn", "fence",  "pread",  "pwrite"};
    for (int t = 0; t < p->nt; t++) {
        printf("    t%d:", t);
        for (int i = 0; i < p->n[t]; i++)
            printf(" %s(%d,%d,%d)", names[p->ops[t][i].k], p->ops[t][i].a, p->ops[t][i].b, p->ops[t][i].c);
        printf("\n");
    }
}

/* alternatives the cache skipped before they ran (lu__pc_ahead), and the
 * predicted events checked against the step that then ran: both must come
 * up in the random programs, and no prediction may be wrong */
static uint64_t ahead_skipped, ahead_checked;

/* The outcomes with reduction equal those without, at this bound. */
static bool same_outcomes(const struct prog *p, int bound, const char *what, uint64_t *n_off, uint64_t *n_on)
{
    struct run off, on;
    explore(p, bound, false, &off, false);
    explore(p, bound, true, &on, false);
    ahead_skipped += on.stats.pc_skipped;
    ahead_checked += on.stats.pc_ahead_checked;
    bool ok = set_eq(&off.outcomes, &on.outcomes) && on.execs <= off.execs && on.stats.pc_ahead_wrong == 0 &&
              on.pruned == on.stats.por_pruned + on.stats.spin_dropped &&
              off.pruned == off.stats.spin_dropped && off.stats.por_pruned == 0 &&
              on.deadlocks <= off.deadlocks && (on.deadlocks > 0) == (off.deadlocks > 0);
    CHECK(ok,
          "%s, bound %d: %zu outcomes without reduction (%" PRIu64 " executions, %" PRIu64
          " deadlocks), %zu with (%" PRIu64 " executions, %" PRIu64 " deadlocks, %" PRIu64 " pruned)",
          what, bound, off.outcomes.n, off.execs, off.deadlocks, on.outcomes.n, on.execs, on.deadlocks,
          on.pruned);
    if (!ok) {
        print_prog(p);
        printf("    missing with reduction: %s, extra: %s\n",
               set_sub(&off.outcomes, &on.outcomes) ? "no" : "yes",
               set_sub(&on.outcomes, &off.outcomes) ? "no" : "yes");
    }
    if (n_off)
        *n_off += off.execs;
    if (n_on)
        *n_on += on.execs;
    run_free(&off);
    run_free(&on);
    return ok;
}

/* ---- tests ---- */

static void test_golden(void)
{
    /* Private locations: one trace. The threads' ends (where the layer
     * above records returns) commute with each other; only a call and a
     * return are ordered. Before thread ends commuted, two traces remained
     * and a bound added a third execution. */
    static const uint64_t golden_on[5][4] = {/* bound: -1  0  1  2 */
                                             {0, 0, 0, 0},
                                             {1, 1, 1, 1},
                                             {1, 1, 1, 1},
                                             {1, 1, 1, 1},
                                             {1, 1, 1, 1}};
    for (int k = 1; k <= 4; k++) {
        for (int c = -1; c <= 2; c++) {
            struct prog p = private_writers(k);
            struct run off, on;
            explore(&p, c, false, &off, false);
            explore(&p, c, true, &on, false);
            uint64_t want = c < 0 ? binom(2 * k, k) : bounded2(k, c);
            CHECK(off.execs == want,
                  "private x%d bound %d: %" PRIu64 " executions without reduction, expected %" PRIu64, k, c,
                  off.execs, want);
            CHECK(on.execs == golden_on[k][c + 1],
                  "private x%d bound %d: %" PRIu64 " executions with reduction, expected %" PRIu64, k, c,
                  on.execs, golden_on[k][c + 1]);
            CHECK(set_eq(&off.outcomes, &on.outcomes) && on.outcomes.n == 1, "private x%d bound %d: outcomes",
                  k, c);
            run_free(&off);
            run_free(&on);
        }
    }
    /* one shared location: every interleaving is its own trace */
    for (int k = 1; k <= 4; k++) {
        for (int c = -1; c <= 2; c++) {
            struct prog p = shared_adders(k);
            struct run off, on;
            explore(&p, c, false, &off, false);
            explore(&p, c, true, &on, false);
            CHECK(on.execs == off.execs && on.pruned == 0 && on.outcomes.n == off.outcomes.n,
                  "shared x%d bound %d: %" PRIu64 " executions with reduction (%" PRIu64 " pruned), %" PRIu64
                  " without",
                  k, c, on.execs, on.pruned, off.execs);
            run_free(&off);
            run_free(&on);
        }
    }
    /* CASes that fail on one shared word: reported as failed (only a
     * read), they commute and collapse like private writes; reported as
     * plain RMWs (what a caller that does not say gets), they do not */
    for (int k = 1; k <= 4; k++) {
        for (int c = -1; c <= 2; c++) {
            struct prog p = failing_casers(k);
            struct run off, on, rmw;
            cas_fail_reads = true;
            explore(&p, c, false, &off, false);
            explore(&p, c, true, &on, false);
            cas_fail_reads = false;
            explore(&p, c, true, &rmw, false);
            uint64_t want = c < 0 ? binom(2 * k, k) : bounded2(k, c);
            CHECK(off.execs == want && on.execs == golden_on[k][c + 1] && rmw.execs == want &&
                      set_eq(&off.outcomes, &on.outcomes) && on.outcomes.n == 1,
                  "failing CASes x%d bound %d: %" PRIu64 " executions without reduction, %" PRIu64
                  " with (expected %" PRIu64 "), %" PRIu64 " as RMWs (expected %" PRIu64 ")",
                  k, c, off.execs, on.execs, golden_on[k][c + 1], rmw.execs, want);
            run_free(&off);
            run_free(&on);
            run_free(&rmw);
        }
    }
    /* literal values, in case the model and the code share a mistake */
    struct prog p = private_writers(3);
    struct run on;
    explore(&p, 2, true, &on, false);
    CHECK(on.execs == 1 && on.runs == on.execs + on.pruned && on.stats.executions == on.runs,
          "private x3 P2: %" PRIu64 " executions", on.execs);
    run_free(&on);
    explore(&p, -1, true, &on, false);
    CHECK(on.execs == 1, "private x3 unbounded: %" PRIu64 " executions", on.execs);
    run_free(&on);
    /* One operation per thread on private words: three histories (A
     * before B, B before A, overlapping; the order of the two calls and of
     * the two returns does not matter), one execution each unbounded. At
     * bound 0 they cannot overlap (a switch inside an operation is a
     * preemption). At bounds 1 and 2 sleep sets alone ran a fourth
     * execution, reaching "overlapping" once more from a preemption right
     * before a thread's return (the price of keeping the bound sound). Its
     * prefix meets the trace explored first on a path with one way on,
     * where the prefix-trace cache is not asked (docs/por.md, section 8,
     * "Where"): it runs to its end, and the search is the same. */
    static const uint64_t golden_ops[4] = {3, 2, 4, 4};
    for (int k = 1; k <= 3; k++) {
        for (int c = -1; c <= 2; c++) {
            struct prog q = private_ops(k);
            struct run off;
            explore(&q, c, false, &off, false);
            explore(&q, c, true, &on, false);
            CHECK(on.execs == golden_ops[c + 1] && on.outcomes.n == (c == 0 ? 2u : 3u) &&
                      set_eq(&off.outcomes, &on.outcomes),
                  "private operations x%d bound %d: %" PRIu64 " executions with reduction, %zu outcomes (%zu "
                  "without), expected %" PRIu64,
                  k, c, on.execs, on.outcomes.n, off.outcomes.n, golden_ops[c + 1]);
            run_free(&off);
            run_free(&on);
        }
    }
    /* that fourth execution's path has one way on where it meets the first
     * trace: the cache, not asked there, cuts nothing, and the search is
     * sleep sets' alone (test_shared_cache shows it cutting where DFS
     * branches) */
    for (int c = 1; c <= 2; c++) {
        struct prog q = private_ops(1);
        struct run off, on;
        size_t keep = cache_bytes;
        cache_bytes = 0;
        explore(&q, c, true, &off, false);
        cache_bytes = LU_SCHED_CACHE_BYTES;
        explore(&q, c, true, &on, false);
        cache_bytes = keep;
        CHECK(off.execs == 4 && off.stats.pc_pruned == 0 && on.execs == 4 && on.stats.pc_pruned == 0 &&
                  on.runs == off.runs && set_eq(&off.outcomes, &on.outcomes),
              "private operations bound %d: %" PRIu64
              " executions without the prefix-trace cache (expected 4), %" PRIu64
              " with it (expected 4, %" PRIu64 " cut by it, expected 0)",
              c, off.execs, on.execs, on.stats.pc_pruned);
        run_free(&off);
        run_free(&on);
    }
}

/* Random straight-line programs against the model: the traces explored
 * with reduction are exactly those with a schedule within the bound. */
static void test_model(int nprogs)
{
    uint64_t tot_off = 0, tot_on = 0;
    int bad = 0;
    for (int n = 0; n < nprogs; n++) {
        int nt = n % 3 == 2 ? 3 : 2;
        struct prog p = random_straight(nt, nt == 3 ? 3 : 4);
        for (int c = -1; c <= 2; c++) {
            struct set mt = {0};
            uint64_t mcount = 0;
            int seq[64], done[MAXT] = {0};
            m_enum(&p, seq, 0, done, -1, 0, c, &mt, &mcount);
            set_norm(&mt);
            struct run off, on;
            explore(&p, c, false, &off, true);
            explore(&p, c, true, &on, true);
            bool ok = off.execs == mcount && set_eq(&off.traces, &mt) && set_eq(&on.traces, &mt) &&
                      set_eq(&on.outcomes, &off.outcomes) && (c >= 0 || on.execs == mt.n);
            if (!ok && bad++ < 5) {
                printf("model mismatch, bound %d: model %" PRIu64
                       " interleavings, %zu traces; without reduction %" PRIu64
                       " executions, %zu traces; with %" PRIu64 " executions, %zu traces\n",
                       c, mcount, mt.n, off.execs, off.traces.n, on.execs, on.traces.n);
                print_prog(&p);
            }
            CHECK(ok, "random straight-line program %d, bound %d", n, c);
            tot_off += off.execs;
            tot_on += on.execs;
            free(mt.v);
            run_free(&off);
            run_free(&on);
        }
    }
    printf("model: %d programs x 4 bounds: %" PRIu64 " executions without reduction, %" PRIu64 " with\n",
           nprogs, tot_off, tot_on);
}

/* Partial heavy entries (docs/por.md, section 3): a thread whose block is
 * dependent with the steps run since it was put to sleep only from its
 * block's step k on may be chosen, and switching away from it before it
 * ran k - 1 steps is skipped. Here t1's read of location 1 is dependent
 * with t0's first write only through the add (t0's third step), so t0
 * comes back as a partial entry; skipping one more switch (before k steps)
 * loses a trace at bound 2 (found by the model programs, where such a
 * change also loses traces in about a third of the programs). */
static void test_partial(void)
{
    struct prog p;
    memset(&p, 0, sizeof p);
    p.nt = 2;
    p.n[0] = 4;
    p.ops[0][0] = OP(O_WRITE, 1, 1, 0);
    p.ops[0][1] = OP(O_WRITE, 0, 1, 0);
    p.ops[0][2] = OP(O_ADD, 1, 0, 0);
    p.ops[0][3] = OP(O_WRITE, 0, 2, 0);
    p.n[1] = 4;
    p.ops[1][0] = OP(O_READ, 1, 0, 0);
    p.ops[1][1] = OP(O_FREE, 0, 0, 0);
    p.ops[1][2] = OP(O_WRITE, 1, 1, 0);
    p.ops[1][3] = OP(O_WRITE, 0, 2, 0);
    for (int c = -1; c <= 2; c++) {
        struct set mt = {0};
        uint64_t mcount = 0;
        int seq[64], done[MAXT] = {0};
        m_enum(&p, seq, 0, done, -1, 0, c, &mt, &mcount);
        set_norm(&mt);
        struct run off, on;
        explore(&p, c, false, &off, true);
        explore(&p, c, true, &on, true);
        CHECK(set_eq(&off.traces, &mt) && set_eq(&on.traces, &mt) && set_eq(&on.outcomes, &off.outcomes) &&
                  on.execs <= off.execs,
              "partial entry, bound %d: model %zu traces; %zu without reduction, %zu with (%" PRIu64
              " executions, %" PRIu64 " without)",
              c, mt.n, off.traces.n, on.traces.n, on.execs, off.execs);
        free(mt.v);
        run_free(&off);
        run_free(&on);
    }
}

static void rich_programs(const char *kind, int nprogs, uint64_t *tot_off, uint64_t *tot_on)
{
    for (int n = 0; n < nprogs; n++) {
        int nt = n % 4 == 3 ? 3 : 2;
        struct prog p = random_rich(nt, nt == 3 ? 3 : 4);
        char what[64];
        snprintf(what, sizeof what, "%s %d", kind, n);
        /* every other program reports its failed CASes as reads */
        cas_fail_reads = n % 2 == 0;
        for (int c = nt == 3 ? 0 : -1; c <= 2; c++)
            same_outcomes(&p, c, what, tot_off, tot_on);
    }
    cas_fail_reads = false;
}

static void test_rich(int nprogs, int nspin)
{
    uint64_t tot_off = 0, tot_on = 0;
    rich_programs("random program", nprogs, &tot_off, &tot_on);
    for (int n = 0; n < nspin; n++) {
        struct prog p = random_spin();
        char what[64];
        snprintf(what, sizeof what, "random spinning program %d", n);
        for (int c = 0; c <= 2; c++)
            same_outcomes(&p, c, what, &tot_off, &tot_on);
    }
    printf("rich: %d + %d programs: %" PRIu64 " executions without reduction, %" PRIu64 " with\n", nprogs,
           nspin, tot_off, tot_on);
    printf("rich: %" PRIu64 " alternatives skipped ahead, %" PRIu64 " predicted events checked\n",
           ahead_skipped, ahead_checked);
    CHECK(nprogs < 20 || (ahead_skipped > 0 && ahead_checked > 0),
          "the cache skipped %" PRIu64 " alternatives ahead and checked %" PRIu64 " predictions",
          ahead_skipped, ahead_checked);
}

/* Objects allocated anew by every execution, at moving addresses (what
 * the Line-Up driver does: create() runs in each execution). */
static void test_heap(int nprogs)
{
    uint64_t tot_off = 0, tot_on = 0;
    heap_mode = true;
    rich_programs("heap program", nprogs, &tot_off, &tot_on);
    heap_crowd = true;
    rich_programs("crowded heap program", nprogs / 4, &tot_off, &tot_on);
    heap_crowd = false;
    heap_mode = false;
    printf("heap: %d programs: %" PRIu64 " executions without reduction, %" PRIu64 " with\n", nprogs, tot_off,
           tot_on);
}

/* Plain accesses, narrow and wide, on a block the reduction knows and on
 * static memory: the outcomes with reduction equal those without. A wide
 * range that names its block must still meet the narrow keys of that block
 * (lu__key_meet): counting it as one more word loses outcomes here. */
static void test_plain(int nprogs)
{
    uint64_t tot_off = 0, tot_on = 0;
    for (int mode = 0; mode < 2; mode++) {
        plain_blocks = mode == 1;
        for (int n = 0; n < nprogs; n++) {
            int nt = n % 4 == 3 ? 3 : 2;
            struct prog p = random_plain(nt, nt == 3 ? 3 : 5);
            char what[64];
            snprintf(what, sizeof what, "random plain program %d (%s)", n, plain_blocks ? "block" : "static");
            for (int c = nt == 3 ? 0 : -1; c <= 2; c++)
                same_outcomes(&p, c, what, &tot_off, &tot_on);
        }
    }
    plain_blocks = false;
    printf("plain: %d programs twice: %" PRIu64 " executions without reduction, %" PRIu64 " with\n", nprogs,
           tot_off, tot_on);
}

/* Hand-written programs for what random ones rarely hit. */
static void test_cases(void)
{
    struct prog p;
    cas_fail_reads = true;
    /* the trap of sleep sets under a bound: t0 writes z then reads y, t1
     * writes x then y. Reading y = 1 needs t1 first; with bound 0 the only
     * schedule for it runs t1 entirely before t0, which a sleep set keyed on
     * t0's first step alone would drop. */
    memset(&p, 0, sizeof p);
    p.nt = 2;
    p.n[0] = 2;
    p.ops[0][0] = OP(O_WRITE, 2, 1, 0);
    p.ops[0][1] = OP(O_READ, 1, 0, 0);
    p.n[1] = 2;
    p.ops[1][0] = OP(O_WRITE, 0, 1, 0);
    p.ops[1][1] = OP(O_WRITE, 1, 1, 0);
    for (int c = -1; c <= 2; c++)
        same_outcomes(&p, c, "write-z-read-y vs write-x-write-y", NULL, NULL);

    /* the same inside operations with boundaries, 3 threads */
    memset(&p, 0, sizeof p);
    p.nt = 3;
    p.n[0] = 4;
    p.ops[0][0] = OP(O_FREE, 0, 0, 0);
    p.ops[0][1] = OP(O_WRITE, 2, 1, 0);
    p.ops[0][2] = OP(O_READ, 1, 0, 0);
    p.ops[0][3] = OP(O_READ, 0, 0, 0);
    p.n[1] = 3;
    p.ops[1][0] = OP(O_FREE, 0, 0, 0);
    p.ops[1][1] = OP(O_WRITE, 0, 1, 0);
    p.ops[1][2] = OP(O_WRITE, 1, 1, 0);
    p.n[2] = 3;
    p.ops[2][0] = OP(O_READ, 1, 0, 0);
    p.ops[2][1] = OP(O_FREE, 0, 0, 0);
    p.ops[2][2] = OP(O_ADD, 2, 0, 0);
    for (int c = 0; c <= 2; c++)
        same_outcomes(&p, c, "three operations", NULL, NULL);

    /* lock-order inversion: the deadlock is found with reduction too */
    memset(&p, 0, sizeof p);
    p.nt = 2;
    p.n[0] = 5;
    p.ops[0][0] = OP(O_LOCK, 0, 0, 0);
    p.ops[0][1] = OP(O_LOCK, 1, 0, 0);
    p.ops[0][2] = OP(O_ADD, 0, 0, 0);
    p.ops[0][3] = OP(O_UNLOCK, 1, 0, 0);
    p.ops[0][4] = OP(O_UNLOCK, 0, 0, 0);
    p.n[1] = 6;
    p.ops[1][0] = OP(O_WRITE, 2, 1, 0);
    p.ops[1][1] = OP(O_LOCK, 1, 0, 0);
    p.ops[1][2] = OP(O_LOCK, 0, 0, 0);
    p.ops[1][3] = OP(O_ADD, 0, 0, 0);
    p.ops[1][4] = OP(O_UNLOCK, 0, 0, 0);
    p.ops[1][5] = OP(O_UNLOCK, 1, 0, 0);
    for (int c = -1; c <= 2; c++) {
        struct run on;
        explore(&p, c, true, &on, false);
        CHECK(c == 0 ? on.deadlocks == 0 : on.deadlocks > 0, "inversion, bound %d: %" PRIu64 " deadlocks", c,
              on.deadlocks);
        run_free(&on);
        same_outcomes(&p, c, "lock-order inversion", NULL, NULL);
    }

    /* condition variables: two waiters, one signal (a data choice of who
     * wakes) and a broadcast later; a spinner waiting for a flag */
    memset(&p, 0, sizeof p);
    p.nt = 3;
    p.n[0] = 3;
    p.ops[0][0] = OP(O_FREE, 0, 0, 0);
    p.ops[0][1] = OP(O_WAIT, 0, 0, 0);
    p.ops[0][2] = OP(O_ADD, 1, 0, 0);
    p.n[1] = 3;
    p.ops[1][0] = OP(O_FREE, 0, 0, 0);
    p.ops[1][1] = OP(O_WAIT, 0, 0, 0);
    p.ops[1][2] = OP(O_READ, 1, 0, 0);
    p.n[2] = 4;
    p.ops[2][0] = OP(O_FREE, 0, 0, 0);
    p.ops[2][1] = OP(O_SIGNAL, 0, 0, 0);
    p.ops[2][2] = OP(O_FREE, 0, 0, 0);
    p.ops[2][3] = OP(O_BCAST, 0, 0, 0);
    for (int c = 0; c <= 2; c++)
        same_outcomes(&p, c, "condition variable", NULL, NULL);

    /* spin loops (plain and yielding) waiting for flags, with a data choice
     * deciding whether the flag is ever set */
    memset(&p, 0, sizeof p);
    p.nt = 3;
    p.n[0] = 3;
    p.ops[0][0] = OP(O_FREE, 0, 0, 0);
    p.ops[0][1] = OP(O_SPIN, 3, 1, 0);
    p.ops[0][2] = OP(O_WRITE, 0, 1, 0);
    p.n[1] = 3;
    p.ops[1][0] = OP(O_READ, 0, 0, 0);
    p.ops[1][1] = OP(O_YSPIN, 3, 1, 0);
    p.ops[1][2] = OP(O_READ, 0, 0, 0);
    p.n[2] = 4;
    p.ops[2][0] = OP(O_NONDET, 0, 0, 0);
    p.ops[2][1] = OP(O_ADD, 1, 0, 0);
    p.ops[2][2] = OP(O_WRITE, 3, 1, 0);
    p.ops[2][3] = OP(O_READ, 0, 0, 0);
    for (int c = 0; c <= 2; c++)
        same_outcomes(&p, c, "spinners", NULL, NULL);

    /* spinners that give up after two reads and record the order in which
     * they did: while all of them spin, the scheduler makes them take turns
     * starting after the previous thread, so which thread ran last before
     * decides the outcome (the all-spin guard of docs/por.md) */
    memset(&p, 0, sizeof p);
    p.nt = 3;
    p.n[0] = 2;
    p.ops[0][0] = OP(O_FREE, 0, 0, 0);
    p.ops[0][1] = OP(O_READ, 0, 0, 0);
    p.n[1] = 2;
    p.ops[1][0] = OP(O_READ, 0, 0, 0);
    p.ops[1][1] = OP(O_TRY, 3, 2, 0);
    p.n[2] = 3;
    p.ops[2][0] = OP(O_TRY, 3, 2, 0);
    p.ops[2][1] = OP(O_LOCK, 0, 0, 0);
    p.ops[2][2] = OP(O_TRY, 3, 2, 0);
    for (int c = -1; c <= 2; c++)
        same_outcomes(&p, c, "spinners giving up", NULL, NULL);

    /* threads started by threads, through a CREATE point or not: the
     * numbers they get depend on the order of the starts */
    memset(&p, 0, sizeof p);
    p.nt = 2;
    p.n[0] = 4;
    p.ops[0][0] = OP(O_FREE, 0, 0, 0);
    p.ops[0][1] = OP(O_READ, 1, 0, 0);
    p.ops[0][2] = OP(O_SPAWN, 0, 0, 0);
    p.ops[0][3] = OP(O_WRITE, 1, 1, 0);
    p.n[1] = 3;
    p.ops[1][0] = OP(O_WRITE, 2, 1, 0);
    p.ops[1][1] = OP(O_SPAWN, 0, 1, 0);
    p.ops[1][2] = OP(O_READ, 1, 0, 0);
    for (int c = -1; c <= 2; c++)
        same_outcomes(&p, c, "threads starting threads", NULL, NULL);

    /* atomic sections and trylocks */
    memset(&p, 0, sizeof p);
    p.nt = 2;
    p.n[0] = 6;
    p.ops[0][0] = OP(O_FREE, 0, 0, 0);
    p.ops[0][1] = OP(O_ABEGIN, 0, 0, 0);
    p.ops[0][2] = OP(O_READ, 0, 0, 0);
    p.ops[0][3] = OP(O_WRITE, 1, 2, 0);
    p.ops[0][4] = OP(O_AEND, 0, 0, 0);
    p.ops[0][5] = OP(O_READ, 2, 0, 0);
    p.n[1] = 5;
    p.ops[1][0] = OP(O_TRYLOCK, 0, 0, 0);
    p.ops[1][1] = OP(O_WRITE, 0, 1, 0);
    p.ops[1][2] = OP(O_UNLOCK, 0, 0, 0);
    p.ops[1][3] = OP(O_WRITE, 2, 1, 0);
    p.ops[1][4] = OP(O_READ, 1, 0, 0);
    for (int c = -1; c <= 2; c++)
        same_outcomes(&p, c, "atomic section and trylock", NULL, NULL);
    cas_fail_reads = false;
}

/* Schedules of a reduced DFS replay to the same outcome; a program that
 * changes between executions (here it starts a third thread every other
 * time) is still caught. */
static int flip;

static void *w_flaky(void *arg)
{
    (void)arg;
    rd(0, 0, 0);
    rd(0, 1, 1);
    wr(0, 2, 2, 1);
    return NULL;
}

static void *w_plain(void *arg)
{
    (void)arg;
    wr(1, 0, 1, 1);
    wr(1, 1, 0, 1);
    return NULL;
}

static void *main_flaky(void *arg)
{
    (void)arg;
    for (int i = 0; i < NLOC; i++)
        atomic_store(&mem[i], 0);
    lu_sched_spawn(w_flaky, NULL);
    lu_sched_spawn(w_plain, NULL);
    if (flip++ % 2)
        lu_sched_spawn(w_plain, NULL);
    lu_sched_join_all(13);
    return NULL;
}

static void test_replay_nondet(void)
{
    struct prog p;
    memset(&p, 0, sizeof p);
    p.nt = 3;
    p.n[0] = 4;
    p.ops[0][0] = OP(O_FREE, 0, 0, 0);
    p.ops[0][1] = OP(O_READ, 0, 0, 0);
    p.ops[0][2] = OP(O_NONDET, 0, 0, 0);
    p.ops[0][3] = OP(O_WRITE, 1, 1, 0);
    p.n[1] = 3;
    p.ops[1][0] = OP(O_FREE, 0, 0, 0);
    p.ops[1][1] = OP(O_LOCK, 0, 0, 0);
    p.ops[1][2] = OP(O_ADD, 0, 0, 0);
    p.n[2] = 2;
    p.ops[2][0] = OP(O_LOCK, 0, 0, 0);
    p.ops[2][1] = OP(O_READ, 1, 0, 0);
    P = &p;
    struct lu_sched_trace *tr = lu_test_trace(TRACE_CAP), *tr2 = lu_test_trace(TRACE_CAP);
    struct lu_sched_config cfg = lu_test_config(LU_SCHED_DFS, 2, tr);
    cfg.por = true;
    cfg.cache = search_cache(true);
    int err = 0, replayed = 0, same = 0;
    struct lu_sched *s = lu_test_sched(&cfg);
    struct lu_sched_result res, res2;
    while (s && lu_sched_more(s)) {
        if (lu_sched_run(s, main_body, NULL, &res) != 0)
            break;
        if (res.outcome == LU_SCHED_OUT_DISCARDED)
            continue;
        uint64_t key = outcome_key(&res);
        struct lu_sched_config rc = cfg;
        rc.strategy = LU_SCHED_REPLAY;
        rc.replay = tr->steps;
        rc.replay_len = tr->len;
        rc.trace = tr2;
        rc.por = false;
        rc.cache = NULL;
        struct lu_sched *r = lu_sched_create(&rc, &err);
        if (r && lu_sched_run(r, main_body, NULL, &res2) == 0) {
            replayed++;
            same += outcome_key(&res2) == key && tr2->len == tr->len;
        }
        lu_sched_destroy(r);
    }
    lu_sched_destroy(s);
    lu_sched_cache_destroy(cfg.cache);
    cfg.cache = search_cache(true); /* another program: a cache of its own */
    CHECK(replayed > 3 && same == replayed, "replay of reduced schedules: %d of %d reproduced", same,
          replayed);

    /* uncontrolled nondeterminism */
    flip = 0;
    cfg.preemption_bound = -1;
    s = lu_sched_create(&cfg, &err);
    int nondet = 0, runs = 0;
    while (s && lu_sched_more(s) && runs < 100) {
        if (lu_sched_run(s, main_flaky, NULL, &res) != 0)
            break;
        runs++;
        nondet += res.outcome == LU_SCHED_OUT_NONDET;
    }
    lu_sched_destroy(s);
    lu_sched_cache_destroy(cfg.cache);
    CHECK(nondet > 0, "nondeterminism reported with reduction: %d of %d executions", nondet, runs);
    free(tr);
    free(tr2);
}

/* ---- measurements: a Treiber stack and a lock-based program ---- */

/* Treiber stack over a node pool: top and next fields are atomics; each
 * thread pushes one node and pops one. Results are the popped values. */
#define NNODES 8
static _Atomic long top;
static _Atomic long nnext[NNODES];
static _Atomic long nval[NNODES];
static long popped[MAXT][4];
static int t_ops; /* push/pop pairs per thread */

/* --measure: every step of these programs, to count their distinct
 * Mazurkiewicz traces (the least any reduction must explore) */
struct acc {
    int tid;
    bool write, call, ret;
    const void *addr;
};
static struct acc alog[1024];
static int nalog;

static void log_step(const void *addr, bool write)
{
    if (nalog < 1024)
        alog[nalog++] = (struct acc){lu_sched_self(), write, addr == NULL, false, addr};
}

static uint64_t alog_canon(void)
{
    /* a thread's last step before a FREE point or its end records a return */
    for (int i = 0; i < nalog; i++) {
        int j = i + 1;
        while (j < nalog && alog[j].tid != alog[i].tid)
            j++;
        if (j == nalog || !alog[j].addr)
            alog[i].ret = true;
    }
    bool placed[1024] = {false};
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int step = 0; step < nalog; step++) {
        int pick = -1;
        for (int t = 0; t <= MAXT && pick < 0; t++) {
            int e = 0;
            while (e < nalog && (placed[e] || alog[e].tid != t))
                e++;
            if (e == nalog)
                continue;
            bool minimal = true;
            for (int f = 0; f < e && minimal; f++)
                if (!placed[f] && alog[f].tid != t &&
                    ((alog[f].call && alog[e].ret) || (alog[f].ret && alog[e].call) ||
                     (alog[f].addr && alog[f].addr == alog[e].addr && (alog[f].write || alog[e].write))))
                    minimal = false;
            if (minimal)
                pick = e;
        }
        placed[pick] = true;
        h = fnv(h, &alog[pick].tid, sizeof alog[pick].tid);
    }
    return h;
}

static long a_load(_Atomic long *p, int lbl)
{
    lu_sched_access_begin(LU_SCHED_K_READ, p, (uint16_t)lbl);
    log_step(p, false);
    long v = atomic_load(p);
    lu_sched_access_end(p, false);
    return v;
}

static void a_store(_Atomic long *p, long v, int lbl)
{
    lu_sched_access_begin(LU_SCHED_K_WRITE, p, (uint16_t)lbl);
    log_step(p, true);
    long old = atomic_exchange(p, v);
    lu_sched_access_end(p, old != v);
}

static bool a_cas(_Atomic long *p, long exp, long val, int lbl)
{
    LU_SCHED_SET_ARG(exp);
    lu_sched_access_begin(LU_SCHED_K_RMW, p, (uint16_t)lbl);
    log_step(p, true);
    bool ok = atomic_compare_exchange_strong(p, &exp, val);
    lu_sched_access_end(p, ok);
    return ok;
}

static void *treiber_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int k = 0; k < t_ops; k++) {
        long node = 1 + t * 2 + k; /* 0 is NULL */
        lu_sched_pc = 0x20000 + (uintptr_t)t;
        lu_sched_point_free(1);
        log_step(NULL, false);
        ev("cpush", t, k);
        lu_sched_pc = 0x20100;
        a_store(&nval[node], 10 * t + k, 20);
        for (;;) {
            lu_sched_pc = 0x20200;
            long old = a_load(&top, 21);
            lu_sched_pc = 0x20300;
            a_store(&nnext[node], old, 22);
            lu_sched_pc = 0x20400;
            if (a_cas(&top, old, node, 23))
                break;
        }
        ev("rpush", t, k);
        lu_sched_pc = 0x20500 + (uintptr_t)t;
        lu_sched_point_free(1);
        log_step(NULL, false);
        ev("cpop", t, k);
        long v = -1;
        for (;;) {
            lu_sched_pc = 0x20600;
            long old = a_load(&top, 24);
            if (!old)
                break;
            lu_sched_pc = 0x20700;
            long nx = a_load(&nnext[old], 25);
            lu_sched_pc = 0x20800;
            if (a_cas(&top, old, nx, 26)) {
                lu_sched_pc = 0x20900;
                v = a_load(&nval[old], 27);
                break;
            }
        }
        popped[t][k] = v;
        ev("rpop", t, v);
    }
    return NULL;
}

static void *treiber_main(void *arg)
{
    int nt = (int)(intptr_t)arg;
    atomic_store(&top, 0);
    nalog = 0;
    for (int i = 0; i < NNODES; i++)
        atomic_store(&nnext[i], 0), atomic_store(&nval[i], 0);
    evlen = 0;
    evlog[0] = 0;
    for (int t = 0; t < nt; t++)
        lu_sched_spawn(treiber_thread, (void *)(intptr_t)t);
    lu_sched_join_all(13);
    return NULL;
}

/* Lock-based: a counter and a log slot per thread under one mutex, plus
 * private work outside the lock. */
static char big_lock[8];
static _Atomic long counter, slots[MAXT], privw[MAXT];

static void *locked_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int k = 0; k < t_ops; k++) {
        lu_sched_pc = 0x30000 + (uintptr_t)t;
        lu_sched_point_free(1);
        log_step(NULL, false);
        ev("c", t, k);
        lu_sched_pc = 0x30100;
        a_store(&privw[t], k, 30);
        lu_sched_pc = 0x30200;
        lu_sched_mutex_lock(big_lock, 31);
        log_step(big_lock, true);
        lu_sched_pc = 0x30300;
        long c = a_load(&counter, 32);
        lu_sched_pc = 0x30400;
        a_store(&counter, c + 1, 33);
        lu_sched_pc = 0x30500;
        a_store(&slots[t], c, 34);
        lu_sched_pc = 0x30600;
        lu_sched_mutex_unlock(big_lock, 35);
        log_step(big_lock, true);
        lu_sched_pc = 0x30700;
        long p = a_load(&privw[t], 36);
        ev("r", t, c * 10 + p);
    }
    return NULL;
}

static void *locked_main(void *arg)
{
    int nt = (int)(intptr_t)arg;
    atomic_store(&counter, 0);
    nalog = 0;
    for (int i = 0; i < MAXT; i++)
        atomic_store(&slots[i], 0), atomic_store(&privw[i], 0);
    evlen = 0;
    evlog[0] = 0;
    for (int t = 0; t < nt; t++)
        lu_sched_spawn(locked_thread, (void *)(intptr_t)t);
    lu_sched_join_all(13);
    return NULL;
}

/* The allocator is shared state that no scheduling point shows: t1
 * allocates a block and publishes it; t0 reads it, writes its own word and
 * frees the block; t1 writes its own word and allocates a block of the same
 * size. The two writes commute, the free and the malloc do not: glibc puts a
 * 4000-byte block (too big for the per-thread cache) back into the arena it
 * came from, t1's, and t1's next allocation from that arena returns it. So
 * whether t1 gets its old block back ("reused", the first half of an ABA)
 * depends on the order of two steps that touch different words. */
static _Atomic long a_pub, a_w0, a_w1;
static void *a_block;
static bool a_freed;
static uint64_t a_reuses; /* executions in which t1 got its block back */

static void *alloc_t0(void *arg)
{
    (void)arg;
    lu_sched_pc = 0x30000;
    long v = a_load(&a_pub, 40);
    lu_sched_pc = 0x30100;
    a_store(&a_w0, 1, 41);
    if (v) {
        free((void *)v);
        a_freed = true;
    }
    lu_sched_pc = 0x30200;
    a_load(&a_w0, 42);
    ev("r", v != 0, 0);
    return NULL;
}

static void *alloc_t1(void *arg)
{
    (void)arg;
    void *p = malloc(4000);
    a_block = p;
    lu_sched_pc = 0x31000;
    a_store(&a_pub, (long)p, 43);
    lu_sched_pc = 0x31100;
    a_store(&a_w1, 1, 44);
    void *q = malloc(4000);
    lu_sched_pc = 0x31200;
    a_load(&a_w1, 45);
    ev("m", q == p, 0);
    a_reuses += q == p;
    free(q);
    return NULL;
}

static void *alloc_main(void *arg)
{
    (void)arg;
    atomic_store(&a_pub, 0);
    atomic_store(&a_w0, 0);
    atomic_store(&a_w1, 0);
    a_freed = false;
    nalog = 0;
    evlen = 0;
    evlog[0] = 0;
    lu_sched_spawn(alloc_t0, NULL);
    lu_sched_spawn(alloc_t1, NULL);
    lu_sched_join_all(13);
    if (!a_freed)
        free(a_block);
    return NULL;
}

struct meas {
    uint64_t execs, runs;
    size_t histories, traces;
    double secs;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* por with the given cache (NULL: none) */
static struct meas measure_in(lu_sched_fn body, int nt, int bound, bool por, struct lu_sched_cache *cache)
{
    struct lu_sched_trace *tr = lu_test_trace(TRACE_CAP);
    struct lu_sched_config cfg = lu_test_config(LU_SCHED_DFS, bound, tr);
    cfg.por = por;
    cfg.cache = cache;
    struct lu_sched *s = lu_test_sched(&cfg);
    struct lu_sched_result res;
    struct meas m = {0, 0, 0, 0, 0.0};
    struct set hist = {0}, traces = {0};
    for (;;) {
        /* the scheduler's time (backtracking and the execution), not this
         * test's bookkeeping */
        double t0 = now();
        int rc = s && lu_sched_more(s) ? lu_sched_run(s, body, (void *)(intptr_t)nt, &res) : LU_SCHED_EDONE;
        m.secs += now() - t0;
        if (rc != 0)
            break;
        m.runs++;
        if (res.outcome == LU_SCHED_OUT_DISCARDED)
            continue;
        m.execs++;
        set_add(&hist, evlog_key(0xcbf29ce484222325ULL) ^ (uint64_t)res.outcome);
        set_add(&traces, alog_canon());
    }
    lu_sched_destroy(s);
    free(tr);
    set_norm(&hist);
    m.histories = hist.n;
    free(hist.v);
    set_norm(&traces);
    m.traces = traces.n;
    free(traces.v);
    return m;
}

static struct meas measure(lu_sched_fn body, int nt, int bound, bool por)
{
    struct lu_sched_cache *c = search_cache(por);
    struct meas m = measure_in(body, nt, bound, por, c);
    lu_sched_cache_destroy(c);
    return m;
}

/* Thread-specific keys: each thread writes its own word and creates a key
 * in the same step; the key numbers follow the order of the creates. */
static _Atomic long k_w[2];

static void *key_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    lu_sched_pc = 0x32000 + (uintptr_t)t;
    a_store(&k_w[t], 1, 46);
    unsigned k = 99;
    lu_sched_key_create(&k, NULL, 0);
    lu_sched_pc = 0x32100 + (uintptr_t)t;
    a_load(&k_w[t], 47);
    ev("k", t, (long)k);
    return NULL;
}

static void *key_main(void *arg)
{
    (void)arg;
    atomic_store(&k_w[0], 0);
    atomic_store(&k_w[1], 0);
    nalog = 0;
    evlen = 0;
    evlog[0] = 0;
    lu_sched_spawn(key_thread, (void *)0);
    lu_sched_spawn(key_thread, (void *)1);
    lu_sched_join_all(13);
    return NULL;
}

static void test_keys(void)
{
    for (int c = -1; c <= 2; c++) {
        struct meas off = measure(key_main, 2, c, false);
        struct meas on = measure(key_main, 2, c, true);
        /* thread 0 gets key 0 or key 1 (the order of the threads' ends,
         * where they record their keys, is not part of an outcome) */
        CHECK(off.histories == on.histories && on.execs <= off.execs && off.histories == 2,
              "thread-specific keys, bound %d: %zu outcomes without reduction, %zu with", c, off.histories,
              on.histories);
    }
}

static void test_allocator(void)
{
    for (int c = -1; c <= 2; c++) {
        a_reuses = 0;
        struct meas off = measure(alloc_main, 2, c, false);
        uint64_t reuses_off = a_reuses;
        a_reuses = 0;
        struct meas on = measure(alloc_main, 2, c, true);
        CHECK(off.histories == on.histories && on.execs <= off.execs && (reuses_off > 0) == (a_reuses > 0),
              "allocator reuse, bound %d: %zu outcomes without reduction (%" PRIu64
              " with the block reused), "
              "%zu with (%" PRIu64 ")",
              c, off.histories, reuses_off, on.histories, a_reuses);
        /* at bound 0 the reuse needs a preemption; elsewhere an allocator
         * that never hands the block back makes this test say nothing */
        if (c != 0 && !reuses_off)
            printf("note: allocator reuse, bound %d: the allocator never handed the block back\n", c);
    }
}

static void test_subjects(bool full)
{
    struct {
        const char *name;
        lu_sched_fn body;
        int nt, ops, bound;
    } cases[] = {
        /* threads x operations each (a Treiber thread does push, pop, ...) */
        {"treiber 2x4", treiber_main, 2, 2, 2}, {"locked 2x2", locked_main, 2, 2, 2},
        {"treiber 3x2", treiber_main, 3, 1, 2}, {"locked 3x1", locked_main, 3, 1, 2},
        {"locked 3x2", locked_main, 3, 2, 2},
    };
    int n = full ? 5 : 4;
    for (int i = 0; i < n; i++) {
        t_ops = cases[i].ops;
        struct meas off = measure(cases[i].body, cases[i].nt, cases[i].bound, false);
        struct meas on = measure(cases[i].body, cases[i].nt, cases[i].bound, true);
        printf("%-11s P=%d: %8" PRIu64 " executions without reduction, %8" PRIu64 " with (+%" PRIu64
               " cut short), %.1fx; %zu traces, %zu distinct histories; %.2f s vs %.2f s\n",
               cases[i].name, cases[i].bound, off.execs, on.execs, on.runs - on.execs,
               on.execs ? (double)off.execs / (double)on.execs : 0.0, off.traces, off.histories, off.secs,
               on.secs);
        CHECK(off.histories == on.histories && off.traces == on.traces && on.execs <= off.execs,
              "%s: %zu histories and %zu traces without, %zu and %zu with", cases[i].name, off.histories,
              off.traces, on.histories, on.traces);
    }
}

/* One cache for the searches of one program, as the driver's explorers
 * share theirs (restarts, parallel search): a search that finds the table
 * a finished search of the same program and bound filled ends its
 * executions where they reach what was explored, and runs few to their
 * end; cleared, the table gives the first search's counts again. The
 * Treiber 3x2 program puts far more nodes than the 16,384 entries the
 * table starts with, so the second search also shows that growing in
 * place kept them. */
static void test_shared_cache(void)
{
    if (!cache_bytes)
        return;
    t_ops = 1;
    struct lu_sched_cache *c = lu_sched_cache_create(cache_bytes);
    CHECK(c != NULL, "lu_sched_cache_create(%zu) failed", cache_bytes);
    if (!c)
        return;
    struct meas first = measure_in(treiber_main, 3, 2, true, c);
    struct meas again = measure_in(treiber_main, 3, 2, true, c);
    lu_sched_cache_clear(c);
    struct meas cleared = measure_in(treiber_main, 3, 2, true, c);
    lu_sched_cache_destroy(c);
    printf("shared cache: %" PRIu64 " executions (+%" PRIu64 " cut), then %" PRIu64 " (+%" PRIu64
           " cut) with the same table, %" PRIu64 " (+%" PRIu64 " cut) once cleared\n",
           first.execs, first.runs - first.execs, again.execs, again.runs - again.execs, cleared.execs,
           cleared.runs - cleared.execs);
    CHECK(first.execs > 5000 && again.execs * 20 < first.execs && again.runs * 5 < first.runs &&
              cleared.execs == first.execs && cleared.runs == first.runs &&
              cleared.histories == first.histories,
          "treiber 3x2 searched with a shared cache: %" PRIu64 " complete executions of %" PRIu64
          ", then %" PRIu64 " of %" PRIu64 " with the same table, %" PRIu64 " of %" PRIu64 " once cleared",
          first.execs, first.runs, again.execs, again.runs, cleared.execs, cleared.runs);
}

/* Where a thread spins while others can run, the sleep sets are empty
 * (docs/por.md, section 3), so the prefix-trace cache is the only
 * reduction left; it is used there unless everyone spins, a spinner runs
 * alone or a timed wait just gave up (section 8). Here thread 0 spins on a
 * flag that thread 2 sets last, so most choices have a spinner. */
static void test_spin_cache(void)
{
    if (!cache_bytes)
        return;
    struct prog p;
    memset(&p, 0, sizeof p);
    p.nt = 3;
    p.n[0] = 2;
    p.ops[0][0] = OP(O_SPIN, 3, 1, 0);
    p.ops[0][1] = OP(O_READ, 0, 0, 0);
    p.n[1] = 4;
    p.ops[1][0] = OP(O_WRITE, 0, 1, 0);
    p.ops[1][1] = OP(O_FREE, 0, 0, 0);
    p.ops[1][2] = OP(O_WRITE, 1, 1, 0);
    p.ops[1][3] = OP(O_READ, 2, 0, 0);
    p.n[2] = 4;
    p.ops[2][0] = OP(O_WRITE, 2, 1, 0);
    p.ops[2][1] = OP(O_FREE, 0, 0, 0);
    p.ops[2][2] = OP(O_READ, 0, 0, 0);
    p.ops[2][3] = OP(O_WRITE, 3, 1, 0);
    for (int c = -1; c <= 2; c++) {
        uint64_t n_off = 0, n_on = 0;
        same_outcomes(&p, c, "a spinner and a cache", &n_off, &n_on);
        struct run on, bare;
        explore(&p, c, true, &on, false);
        size_t keep = cache_bytes;
        cache_bytes = 0;
        explore(&p, c, true, &bare, false);
        cache_bytes = keep;
        printf("spinner, bound %d: %" PRIu64 " executions without reduction, %" PRIu64 " (+%" PRIu64
               " cut) with sleep sets alone, %" PRIu64 " (+%" PRIu64 " cut, %" PRIu64
               " by the cache; %" PRIu64 " alternatives not started) with the cache\n",
               c, n_off, bare.execs, bare.pruned, on.execs, on.pruned, on.stats.pc_pruned,
               on.stats.pc_skipped);
        /* unbounded: 137 runs with the cache, 283 with sleep sets alone,
         * 256 when the cache skipped every node with a spinner; bound 2:
         * 157, 211 and 197 */
        bool fewer = c == -1  ? on.runs * 2 < bare.runs
                     : c == 2 ? on.runs * 5 < bare.runs * 4
                              : on.runs <= bare.runs;
        /* the cache cuts executions, or does not start them (section 8,
         * "Ahead") */
        CHECK(set_eq(&on.outcomes, &bare.outcomes) && on.stats.pc_pruned + on.stats.pc_skipped > 0 && fewer &&
                  on.execs < bare.execs,
              "spinner, bound %d: %" PRIu64 " runs (%" PRIu64 " complete, %" PRIu64
              " cut by the cache, %" PRIu64 " not started) with the cache, %" PRIu64 " (%" PRIu64
              " complete) without",
              c, on.runs, on.execs, on.stats.pc_pruned, on.stats.pc_skipped, bare.runs, bare.execs);
        run_free(&on);
        run_free(&bare);
    }
}

/* Fences touch nothing under sequential consistency: without clocks they
 * commute with every step, so the reduction puts fewer executions through
 * a program full of them, and finds the same outcomes. With clocks they
 * order accesses for the race detector and stay dependent with all. */
static void test_fences(int nprogs)
{
    struct prog p;
    memset(&p, 0, sizeof p);
    p.nt = 2;
    p.n[0] = 3;
    p.ops[0][0] = OP(O_WRITE, 0, 1, 0);
    p.ops[0][1] = OP(O_FENCE, 0, 0, 0);
    p.ops[0][2] = OP(O_READ, 1, 0, 0);
    p.n[1] = 3;
    p.ops[1][0] = OP(O_WRITE, 1, 1, 0);
    p.ops[1][1] = OP(O_FENCE, 0, 0, 0);
    p.ops[1][2] = OP(O_READ, 0, 0, 0);
    struct run with, without;
    for (int c = -1; c <= 2; c++) {
        no_clocks = false;
        explore(&p, c, true, &with, false);
        no_clocks = true;
        explore(&p, c, true, &without, false);
        /* at bound 0 each thread runs to its end once started: nothing to save */
        CHECK((c == 0 ? without.execs <= with.execs : without.execs < with.execs) &&
                  set_eq(&with.outcomes, &without.outcomes),
              "store-buffering with fences, bound %d: %" PRIu64 " executions without clocks, %" PRIu64
              " with; outcomes %zu and %zu",
              c, without.execs, with.execs, without.outcomes.n, with.outcomes.n);
        run_free(&with);
        run_free(&without);
        same_outcomes(&p, c, "store-buffering with fences, no clocks", NULL, NULL);
        no_clocks = false;
    }
    uint64_t tot_off = 0, tot_on = 0;
    no_clocks = true;
    for (int n = 0; n < nprogs; n++) {
        int nt = n % 4 == 3 ? 3 : 2;
        p = random_rich(nt, nt == 3 ? 3 : 4);
        for (int t = 0; t < nt; t++)
            for (int f = (int)rnd(3); f > 0 && p.n[t] < MAXOPS; f--) {
                int at = (int)rnd((unsigned)p.n[t] + 1);
                memmove(&p.ops[t][at + 1], &p.ops[t][at], (size_t)(p.n[t] - at) * sizeof p.ops[t][0]);
                p.ops[t][at] = OP(O_FENCE, 0, 0, 0);
                p.n[t]++;
            }
        char what[64];
        snprintf(what, sizeof what, "random program with fences %d", n);
        for (int c = nt == 3 ? 0 : -1; c <= 2; c++)
            same_outcomes(&p, c, what, &tot_off, &tot_on);
    }
    no_clocks = false;
    printf("fences: %d programs: %" PRIu64 " executions without reduction, %" PRIu64 " with\n", nprogs,
           tot_off, tot_on);
}

int main(int argc, char **argv)
{
    const char *e = getenv("LINEUP_PC_MB");
    if (e && *e)
        cache_bytes = (size_t)strtoul(e, NULL, 10) << 20;
    if (argc > 1 && strcmp(argv[1], "--measure") == 0) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        test_subjects(true);
        printf("%d passed, %d failed\n", passes, failures);
        return failures ? 1 : 0;
    }
    if (argc > 2 && strcmp(argv[1], "--random") == 0) {
        /* more random programs from another seed, for a longer soak than
         * the suite's (every check the same) */
        rng_state ^= strtoull(argv[2], NULL, 0) * 0x9e3779b97f4a7c15ULL;
        int k = argc > 3 ? atoi(argv[3]) : 10;
        test_model(150 * k);
        test_rich(150 * k, 100 * k);
        test_heap(80 * k);
        test_fences(150 * k);
        test_plain(100 * k);
        printf("%d passed, %d failed\n", passes, failures);
        return failures ? 1 : 0;
    }
    test_golden();
    test_cases();
    test_partial();
    test_replay_nondet();
    test_model(150);
    test_rich(150, 100);
    test_heap(80);
    test_allocator();
    test_keys();
    test_subjects(false);
    test_shared_cache();
    test_spin_cache();
    test_fences(150);
    test_plain(100);
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
