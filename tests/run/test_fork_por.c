/*
 * Partial-order reduction through the fork API (lu_sched_fork_prepare/done),
 * the way `lineup run` explores: a server process keeps the scheduler and
 * never runs an execution; each execution runs in a forked child, which
 * learns the sleep sets and the alternatives' footprints in the reduction
 * state (a shared mapping) and ends, sometimes by dying in the middle.
 *
 * For random programs (atomics, a mutex, operation boundaries, data
 * choices, threads that "crash"), at preemption bounds -1, 0, 1 and 2, the
 * forked search must run exactly the schedules, in the same order and with
 * the same executions cut short as redundant, as the same search run in one
 * process (where nothing can be lost between executions): what a child
 * learns reaches the server's backtracking, also from children that died.
 * And it must reduce: threads on their own locations need far fewer
 * executions with reduction than without, and the distinct outcomes are
 * the same both ways.
 */
#define _GNU_SOURCE
#include "lu_sched.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lu_test.h"

/* The exit_group system call made raw, as a crash ends the process: the
 * syscall() that liblineup.so exports makes it an exit of the program,
 * with a scheduling point first. */
static void lu__die(int status)
{
    __asm__ volatile("syscall" : : "a"((long)SYS_exit_group), "D"((long)status) : "rcx", "r11", "memory");
    __builtin_unreachable();
}

#define CAP 512
#define MAXT 3
#define MAXOPS 6
#define NLOC 3
#define MAXEX 20000

enum { O_READ, O_WRITE, O_ADD, O_LOCK, O_FREE, O_NONDET, O_CRASH, O_NK };

struct op {
    uint8_t k, a;
};

struct prog {
    int nt;
    int n[MAXT];
    struct op ops[MAXT][MAXOPS];
};

/* What an execution shows; in shared memory, so that a child's reaches
 * the server. */
struct shared {
    _Atomic long mem[NLOC];
    char mtx[8];
    int outcome; /* enum lu_sched_outcome, -1: the child died */
    int crash;   /* where: thread * 16 + op */
    int redundant;
    uint64_t seen[MAXT];   /* values each thread read and chose, hashed in its order */
    uintptr_t stack[MAXT]; /* stack_body: an address on each thread's stack */
};

static const struct prog *P;
static struct shared *SH;
static bool forked; /* executions run in children */

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

static long rd(int a)
{
    lu_sched_access_begin(LU_SCHED_K_READ, &SH->mem[a], 1);
    long v = atomic_load(&SH->mem[a]);
    lu_sched_access_end(&SH->mem[a], false);
    return v;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    bool held = false;
    for (int i = 0; i < P->n[t]; i++) {
        const struct op *o = &P->ops[t][i];
        lu_sched_pc = 0x1000 + (uintptr_t)(t * 16 + i);
        switch (o->k) {
        case O_READ:
            SH->seen[t] = mix(SH->seen[t], (uint64_t)rd(o->a));
            break;
        case O_WRITE:
            lu_sched_access_begin(LU_SCHED_K_WRITE, &SH->mem[o->a], 2);
            atomic_store(&SH->mem[o->a], t + 1);
            lu_sched_access_end(&SH->mem[o->a], true);
            break;
        case O_ADD:
            LU_SCHED_SET_ARG(1);
            lu_sched_access_begin(LU_SCHED_K_RMW, &SH->mem[o->a], 3);
            atomic_fetch_add(&SH->mem[o->a], 1);
            lu_sched_access_end(&SH->mem[o->a], true);
            break;
        case O_LOCK:
            if (held)
                lu_sched_mutex_unlock(SH->mtx, 5);
            else
                lu_sched_mutex_lock(SH->mtx, 4);
            held = !held;
            break;
        case O_FREE:
            lu_sched_point_free(6);
            break;
        case O_NONDET:
            SH->seen[t] = mix(SH->seen[t], (uint64_t)(5000 + lu_sched_choose(2, 7)));
            break;
        case O_CRASH:
            /* a failure that ends the execution at once: in a child, the
             * process dies with the reduction state as it stands */
            if (rd(o->a) == 2) {
                SH->crash = t * 16 + i;
                if (forked) /* a death, not exit(): no scheduling point first */
                    lu__die(42);
                lu_sched_abort("crash");
            }
            break;
        }
    }
    if (held)
        lu_sched_mutex_unlock(SH->mtx, 5);
    return NULL;
}

static void *main_body(void *arg)
{
    (void)arg;
    for (int i = 0; i < NLOC; i++)
        atomic_store(&SH->mem[i], 0);
    memset(SH->seen, 0, sizeof SH->seen);
    SH->crash = -1;
    lu_sched_mutex_init(SH->mtx, 0);
    for (int t = 0; t < P->nt; t++)
        lu_sched_spawn(worker, (void *)(intptr_t)t);
    lu_sched_join_all(8);
    return NULL;
}

/* One execution of the search: its schedule and what it showed. */
struct exe {
    uint64_t sched, outcome;
    int redundant;
};

static uint64_t sched_key(const struct lu_sched_trace *tr)
{
    uint64_t h = tr->len;
    for (uint32_t i = 0; i < tr->len; i++)
        h = mix(h, (uint64_t)tr->steps[i].kind << 8 | tr->steps[i].chosen);
    return h;
}

/* Equal for equivalent executions: a crash is told by where it happened
 * (the other threads may or may not have run their independent steps), any
 * other end by what each thread saw and the final memory. */
static uint64_t outcome_key(void)
{
    if (SH->crash >= 0)
        return mix(1, (uint64_t)SH->crash);
    uint64_t h = mix(2, (uint64_t)(SH->outcome + 1));
    for (int t = 0; t < MAXT; t++)
        h = mix(h, SH->seen[t]);
    for (int i = 0; i < NLOC; i++)
        h = mix(h, (uint64_t)atomic_load(&SH->mem[i]));
    return h;
}

/* Runs the whole search; returns the number of executions (-1: more than
 * limit). */
static int explore(int bound, bool por, bool fork_mode, int limit, struct lu_sched_trace *tr, struct exe *out)
{
    /* the prefix-trace cache too: the children fill it, the parent reads it */
    struct lu_sched_config cfg = {.strategy = LU_SCHED_DFS,
                                  .preemption_bound = bound,
                                  .trace = tr,
                                  .por = por,
                                  .cache = por ? lu_sched_cache_create(LU_SCHED_CACHE_BYTES) : NULL};
    tr->cap = CAP;
    int err = 0;
    struct lu_sched *s = lu_sched_create(&cfg, &err);
    if (!s) {
        CHECK(false, "lu_sched_create: %d", err);
        lu_sched_cache_destroy(cfg.cache);
        return -1;
    }
    forked = fork_mode;
    int n = 0;
    for (;;) {
        struct lu_sched_stats before, after;
        lu_sched_stats(s, &before);
        SH->outcome = -1;
        SH->redundant = 0;
        if (fork_mode) {
            if (lu_sched_fork_prepare(s, (uint64_t)n) == LU_SCHED_EDONE)
                break;
            fflush(NULL);
            pid_t pid = fork();
            if (pid == 0) {
                struct lu_sched_result res;
                if (lu_sched_run(s, main_body, NULL, &res) == 0) {
                    lu_sched_stats(s, &after);
                    SH->redundant = after.por_pruned != before.por_pruned;
                    SH->outcome = (int)res.outcome;
                }
                _exit(0);
            }
            int st;
            while (waitpid(pid, &st, 0) < 0) {
            }
            lu_sched_fork_done(s);
        } else {
            struct lu_sched_result res;
            if (lu_sched_run(s, main_body, NULL, &res) != 0)
                break;
            lu_sched_stats(s, &after);
            SH->redundant = after.por_pruned != before.por_pruned;
            /* a crash here is the child's death there */
            SH->outcome = res.outcome == LU_SCHED_OUT_ABORTED ? -1 : (int)res.outcome;
        }
        if (n == limit) {
            n = -1;
            break;
        }
        out[n].sched = sched_key(tr);
        out[n].outcome = outcome_key();
        out[n].redundant = SH->redundant;
        n++;
    }
    lu_sched_destroy(s);
    lu_sched_cache_destroy(cfg.cache);
    return n;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The distinct outcomes of executions that were not cut short, sorted. */
static int outcomes(const struct exe *e, int n, uint64_t *set)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!e[i].redundant)
            set[k++] = e[i].outcome;
    qsort(set, (size_t)k, sizeof *set, cmp_u64);
    int d = 0;
    for (int i = 0; i < k; i++)
        if (!d || set[d - 1] != set[i])
            set[d++] = set[i];
    return d;
}

static struct exe ex_in[MAXEX], ex_fork[MAXEX], ex_full[MAXEX];
static uint64_t set_a[MAXEX], set_b[MAXEX];

/* Checks one program at one bound; returns the executions with and
 * without reduction through *with, *without (0: the program has more than
 * limit schedules without reduction, and was skipped). */
static void check(const char *name, int bound, int limit, struct lu_sched_trace *tr, int *with, int *without)
{
    *with = *without = 0;
    /* the outcomes without reduction, in one process: they are the same
     * forked, and a fork costs milliseconds where every written page
     * faults (the forked search without reduction is `lineup run
     * --reduction off`, tested in run_test.sh) */
    int nw = explore(bound, false, false, limit, tr, ex_full);
    if (nw < 0)
        return;
    int ni = explore(bound, true, false, MAXEX, tr, ex_in);
    int nf = explore(bound, true, true, MAXEX, tr, ex_fork);
    *with = nf;
    *without = nw;
    CHECK(ni > 0 && nf > 0 && nw > 0, "%s, bound %d: searches ran (%d, %d, %d executions)", name, bound, ni,
          nf, nw);
    if (ni <= 0 || nf <= 0 || nw <= 0)
        return;
    int first = -1, red = 0;
    for (int i = 0; i < ni && i < nf && first < 0; i++) {
        red += ex_fork[i].redundant;
        if (ex_in[i].sched != ex_fork[i].sched || ex_in[i].redundant != ex_fork[i].redundant ||
            ex_in[i].outcome != ex_fork[i].outcome)
            first = i;
    }
    CHECK(ni == nf && first < 0,
          "%s, bound %d: in one process %d executions, forked %d; they differ first at execution %d", name,
          bound, ni, nf, first + 1);
    CHECK(nf <= nw, "%s, bound %d: %d executions with reduction, %d without", name, bound, nf, nw);
    int da = outcomes(ex_fork, nf, set_a), db = outcomes(ex_full, nw, set_b);
    CHECK(da == db && memcmp(set_a, set_b, (size_t)da * sizeof *set_a) == 0,
          "%s, bound %d: %d distinct outcomes with reduction, %d without", name, bound, da, db);
    (void)red;
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* ---- the threads' stacks, mapped by the server ---- */

static void *stack_worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    volatile char here = 0;
    SH->stack[t] = (uintptr_t)&here;
    for (int i = 0; i < 2; i++) {
        lu_sched_access_begin(LU_SCHED_K_WRITE, &SH->mem[0], 2);
        atomic_store(&SH->mem[0], t + 1);
        lu_sched_access_end(&SH->mem[0], true);
    }
    return NULL;
}

static void *stack_body(void *arg)
{
    (void)arg;
    memset(SH->stack, 0, sizeof SH->stack);
    for (int t = 0; t < 2; t++)
        lu_sched_spawn(stack_worker, (void *)(intptr_t)t);
    lu_sched_join_all(8);
    return NULL;
}

/* Whether this process has a mapping that holds address a. */
static bool mapped_here(uintptr_t a)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return false;
    char line[512];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        found = sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= a && a < hi;
    }
    fclose(f);
    return found;
}

/* Under a shared TLS the children's threads run on stacks that the server
 * mapped before it forked them, once it knows from an execution how many
 * threads there are: a child no longer maps them itself. */
static void test_premapped_stacks(struct lu_sched_trace *tr)
{
    struct lu_sched_config cfg = {.strategy = LU_SCHED_DFS, .preemption_bound = -1, .trace = tr};
    tr->cap = CAP;
    int err = 0;
    struct lu_sched *s = lu_sched_create(&cfg, &err);
    if (!s) {
        CHECK(false, "lu_sched_create: %d", err);
        return;
    }
    int inherited = 0;
    for (int n = 0; n < 3; n++) {
        if (lu_sched_fork_prepare(s, (uint64_t)n) == LU_SCHED_EDONE)
            break;
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            struct lu_sched_result res;
            _exit(lu_sched_run(s, stack_body, NULL, &res) == 0 && res.outcome == LU_SCHED_OUT_COMPLETE ? 0
                                                                                                       : 1);
        }
        int st;
        while (waitpid(pid, &st, 0) < 0) {
        }
        lu_sched_fork_done(s);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "execution %d ran to its end", n);
        CHECK(SH->stack[0] && SH->stack[1], "execution %d: both threads ran", n);
        /* the first child mapped its threads' stacks itself */
        if (n > 0) {
            for (int t = 0; t < 2; t++)
                CHECK(mapped_here(SH->stack[t]),
                      "execution %d: thread %d's stack (%#lx) was mapped by the server", n, t + 1,
                      (unsigned long)SH->stack[t]);
            inherited++;
        }
    }
    CHECK(inherited == 2, "two executions after the first (%d)", inherited);
    lu_sched_destroy(s);
}

int main(void)
{
    struct lu_sched_trace *tr =
        mmap(NULL, lu_sched_trace_size(CAP), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    SH = mmap(NULL, sizeof *SH, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (tr == MAP_FAILED || SH == MAP_FAILED) {
        printf("FAIL: mmap\n");
        return 1;
    }

    test_premapped_stacks(tr);

    /* three threads, each writing its own location twice: reduction leaves
     * little more than the orders of the threads' ends */
    static struct prog own = {
        3,
        {2, 2, 2},
        {{{O_WRITE, 0}, {O_WRITE, 0}}, {{O_WRITE, 1}, {O_WRITE, 1}}, {{O_WRITE, 2}, {O_WRITE, 2}}}};
    P = &own;
    int with, without;
    check("own locations", -1, MAXEX, tr, &with, &without);
    printf("own locations, unbounded: %d executions with reduction, %d without\n", with, without);
    CHECK(with > 0 && with * 4 <= without, "own locations: %d executions with reduction, %d without", with,
          without);
    check("own locations", 1, MAXEX, tr, &with, &without);
    printf("own locations, bound 1: %d executions with reduction, %d without\n", with, without);
    CHECK(with > 0 && with < without, "own locations, bound 1: %d with reduction, %d without", with, without);

    /* random programs */
    static struct prog rp;
    long sum_with = 0, sum_without = 0;
    int checked = 0;
    for (int k = 0; k < 24; k++) {
        rp.nt = 2 + (int)rnd(2);
        for (int t = 0; t < rp.nt; t++) {
            rp.n[t] = 2 + (int)rnd(rp.nt == 3 ? 2 : 4);
            for (int i = 0; i < rp.n[t]; i++) {
                rp.ops[t][i].k = (uint8_t)rnd(O_NK);
                rp.ops[t][i].a = (uint8_t)rnd(NLOC);
            }
        }
        P = &rp;
        char name[32];
        snprintf(name, sizeof name, "random program %d", k);
        for (int bound = -1; bound <= 2; bound++) {
            check(name, bound, 250, tr, &with, &without);
            sum_with += with;
            sum_without += without;
            checked += without > 0;
        }
    }
    printf(
        "random programs: %d searches (programs and bounds with at most 250 schedules), %ld executions with "
        "reduction, %ld without\n",
        checked, sum_with, sum_without);
    CHECK(checked >= 40, "only %d searches were small enough", checked);
    CHECK(sum_with < sum_without, "random programs: no reduction at all (%ld, %ld)", sum_with, sum_without);

    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
