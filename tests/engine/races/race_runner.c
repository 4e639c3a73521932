/*
 * Race detector tests on real programs: the scenarios of race_programs.c
 * (compiled by lineup-cc with one compiler per runner binary) explored
 * exhaustively by DFS through liblineup.so's interposers with the detector
 * on. A buggy variant must report a race on the right variable (in every
 * execution, or only in some for the schedule-dependent one), naming the
 * right threads and functions; a correctly synchronized variant must report
 * none in any execution.
 *
 * Each exploration runs in a forked child with a timeout; the handler
 * leaves what it saw in a MAP_SHARED block and all assertions are made in
 * the parent.
 *
 * Usage: test_races_<cc> GROUP     (no GROUP: every group except bench)
 *        test_races_<cc> bench     (overhead of the plain-access hook)
 */
#define _GNU_SOURCE
#include "lu_ipose_race.h"
#include "lu_sched.h"
#include "race_programs.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef RACE_CC
#define RACE_CC "cc"
#endif

#include "lu_test.h"

#define TRACE_CAP 16384
#define MAXREP 16
#define CHILD_TIMEOUT 60 /* seconds; under the ctest TIMEOUT */

struct shm {
    int create_err, run_err;
    uint64_t executions, complete, racy, reports;
    int per_exec, min_per_exec, max_per_exec;
    uintptr_t lo, hi; /* where the reports must be */
    uint64_t outside; /* reports elsewhere */
    int nrep;
    struct lu_ipose_race rep[MAXREP]; /* the first ones */
    int first_exec_nrep;              /* reports in the first racy execution */
    double bench_ns;
    long heap_reused; /* race_heap_reused, copied out of the child */
};

static struct shm *sh;
static struct lu_sched_trace *sh_trace;

static void *map_shared(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    return p;
}

/* On the controlled thread making the second access. */
static void on_race(void *arg, const struct lu_ipose_race *r)
{
    struct shm *s = arg;
    s->reports++;
    s->per_exec++;
    if (r->addr < s->lo || r->addr + r->size > s->hi)
        s->outside++;
    if (s->nrep < MAXREP)
        s->rep[s->nrep++] = *r;
}

struct explore {
    lu_sched_fn body;
    void *arg;
    const void *lo; /* the variable the races must be on */
    size_t size;
    bool detect;
};

static void explore_in_child(const void *ctx)
{
    const struct explore *e = ctx;
    sh->lo = (uintptr_t)e->lo;
    sh->hi = (uintptr_t)e->lo + e->size;
    sh->min_per_exec = 1 << 30;
    sh_trace->cap = TRACE_CAP;
    struct lu_sched_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.strategy = LU_SCHED_DFS;
    cfg.preemption_bound = -1;
    cfg.trace = sh_trace;
    int err = 0;
    struct lu_sched *s = lu_sched_create(&cfg, &err);
    if (!s) {
        sh->create_err = err ? err : -100;
        return;
    }
    if (e->detect)
        lu_ipose_race_set_handler(on_race, sh);
    struct lu_sched_result res;
    while (lu_sched_more(s)) {
        lu_ipose_race_reset();
        sh->per_exec = 0;
        int rc = lu_sched_run(s, e->body, e->arg, &res);
        if (rc != 0) {
            sh->run_err = rc;
            break;
        }
        if (res.redundant)
            continue; /* a spinning thread given extra turns that kept spinning: nothing new */
        sh->executions++;
        if (res.outcome == LU_SCHED_OUT_COMPLETE)
            sh->complete++;
        if (sh->per_exec > 0 && sh->racy++ == 0)
            sh->first_exec_nrep = sh->per_exec;
        if (sh->per_exec < sh->min_per_exec)
            sh->min_per_exec = sh->per_exec;
        if (sh->per_exec > sh->max_per_exec)
            sh->max_per_exec = sh->per_exec;
    }
    lu_ipose_race_set_handler(NULL, NULL);
    lu_sched_destroy(s);
}

struct child {
    int status;
    bool timed_out;
    double secs;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct child in_child(void (*fn)(const void *), const void *ctx)
{
    struct child c = {0, false, 0};
    memset(sh, 0, sizeof *sh);
    fflush(stdout);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (pid == 0) {
        fn(ctx);
        _exit(0);
    }
    for (;;) {
        pid_t r = waitpid(pid, &c.status, WNOHANG);
        if (r == pid)
            break;
        if (now_s() - t0 > CHILD_TIMEOUT) {
            kill(pid, SIGKILL);
            waitpid(pid, &c.status, 0);
            c.timed_out = true;
            break;
        }
        struct timespec d = {0, 2 * 1000 * 1000};
        nanosleep(&d, NULL);
    }
    c.secs = now_s() - t0;
    return c;
}

static bool child_ok(const struct child *c)
{
    return !c->timed_out && WIFEXITED(c->status) && WEXITSTATUS(c->status) == 0 && !sh->create_err &&
           !sh->run_err;
}

static const char *how(const struct child *c)
{
    static char buf[96];
    if (c->timed_out)
        snprintf(buf, sizeof buf, "timed out after %.1f s", c->secs);
    else if (WIFSIGNALED(c->status))
        snprintf(buf, sizeof buf, "killed by signal %d", WTERMSIG(c->status));
    else if (sh->create_err || sh->run_err)
        snprintf(buf, sizeof buf, "lu_sched error %d/%d", sh->create_err, sh->run_err);
    else
        snprintf(buf, sizeof buf, "exit status %d", WEXITSTATUS(c->status));
    return buf;
}

static struct child explore(lu_sched_fn body, void *arg, const void *var, size_t size)
{
    struct explore e = {body, arg, var, size, true};
    struct child c = in_child(explore_in_child, &e);
    printf("  %-28s %5llu executions, %llu complete, %llu racy, %llu reports (%.2f s)\n",
           arg == RACE_FIXED ? "fixed" : "buggy", (unsigned long long)sh->executions,
           (unsigned long long)sh->complete, (unsigned long long)sh->racy, (unsigned long long)sh->reports,
           c.secs);
    return c;
}

/* The function containing the call that returns to pc. */
static const char *fn_at(uintptr_t pc)
{
    Dl_info info;
    if (!pc || !dladdr((void *)(pc - 1), &info) || !info.dli_sname)
        return "?";
    return info.dli_sname;
}

static void print_report(const struct lu_ipose_race *r)
{
    printf("    race on %#lx (%u bytes): thread %d %s%s in %s, thread %d %s%s in %s\n",
           (unsigned long)r->addr, r->size, r->tid[0], r->atomic[0] ? "atomic " : "",
           r->write[0] ? "write" : "read", fn_at(r->pc[0]), r->tid[1], r->atomic[1] ? "atomic " : "",
           r->write[1] ? "write" : "read", fn_at(r->pc[1]));
}

/* A buggy variant: every execution completes, and every one (all_racy) or
 * some (not all_racy) report races, all of them on the variable. */
static void expect_races(const char *what, const struct child *c, bool all_racy)
{
    CHECK(child_ok(c), "%s: %s", what, how(c));
    CHECK(sh->executions > 0 && sh->complete == sh->executions, "%s: all %llu executions complete (%llu)",
          what, (unsigned long long)sh->executions, (unsigned long long)sh->complete);
    if (all_racy)
        CHECK(sh->racy == sh->executions, "%s: a race in every execution (%llu of %llu)", what,
              (unsigned long long)sh->racy, (unsigned long long)sh->executions);
    else
        CHECK(sh->racy > 0 && sh->racy < sh->executions, "%s: a race in some executions only (%llu of %llu)",
              what, (unsigned long long)sh->racy, (unsigned long long)sh->executions);
    CHECK(sh->outside == 0, "%s: every report is on the variable (%llu elsewhere)", what,
          (unsigned long long)sh->outside);
    if (sh->nrep > 0)
        print_report(&sh->rep[0]);
    for (int i = 0; i < sh->nrep; i++) {
        const struct lu_ipose_race *r = &sh->rep[i];
        CHECK(r->tid[0] != r->tid[1] && r->tid[0] >= 0 && r->tid[1] >= 0 && (r->write[0] || r->write[1]),
              "%s: report %d: two threads, a write (%d/%d)", what, i, r->tid[0], r->tid[1]);
    }
}

/* A fixed variant: explored (several executions where the program has
 * several interleavings), all complete, not one report. */
static void expect_quiet(const char *what, const struct child *c, uint64_t min_execs)
{
    CHECK(child_ok(c), "%s: %s", what, how(c));
    CHECK(sh->executions >= min_execs && sh->complete == sh->executions,
          "%s: %llu executions (>= %llu), all complete (%llu)", what, (unsigned long long)sh->executions,
          (unsigned long long)min_execs, (unsigned long long)sh->complete);
    CHECK(sh->reports == 0, "%s: no race reported (%llu)", what, (unsigned long long)sh->reports);
    if (sh->nrep > 0)
        print_report(&sh->rep[0]);
}

/* ======================================================= groups */

static void test_plain(void)
{
    static const char *const fn_ww[3] = {"?", "race_plain_a", "race_plain_b"};
    static const char *const fn_rw[3] = {"?", "race_plain_a", "race_plain_reader"};
    for (int rw = 0; rw <= 1; rw++) {
        const char *what = rw ? "write/read" : "write/write";
        const char *const *fn = rw ? fn_rw : fn_ww;
        struct child c =
            explore(race_plain_main, rw ? RACE_PLAIN_RW : RACE_PLAIN_WW, &race_plain_x, sizeof race_plain_x);
        expect_races(what, &c, true);
        CHECK(sh->min_per_exec == 1 && sh->max_per_exec == 1, "%s: exactly one report per execution (%d..%d)",
              what, sh->min_per_exec, sh->max_per_exec);
        for (int i = 0; i < sh->nrep; i++) {
            const struct lu_ipose_race *r = &sh->rep[i];
            CHECK(r->addr == (uintptr_t)&race_plain_x && r->size == sizeof race_plain_x,
                  "%s: on race_plain_x, 4 bytes (%+ld, %u)", what, (long)(r->addr - (uintptr_t)&race_plain_x),
                  r->size);
            bool tids = (r->tid[0] == 1 && r->tid[1] == 2) || (r->tid[0] == 2 && r->tid[1] == 1);
            CHECK(tids, "%s: between threads 1 and 2 (%d, %d)", what, r->tid[0], r->tid[1]);
            if (!tids)
                continue;
            for (int k = 0; k < 2; k++) {
                CHECK(strcmp(fn_at(r->pc[k]), fn[r->tid[k]]) == 0, "%s: access %d (thread %d) in %s (%s)",
                      what, k, r->tid[k], fn[r->tid[k]], fn_at(r->pc[k]));
                bool w = !rw || r->tid[k] == 1;
                CHECK(r->write[k] == w, "%s: access %d is a %s", what, k, w ? "write" : "read");
            }
        }
    }
}

static void test_multi(void)
{
    struct child c = explore(race_multi_main, NULL, &race_multi_x, sizeof race_multi_x);
    /* reports on y fall outside [x, x + 4): counted, then checked below */
    CHECK(child_ok(&c), "multi: %s", how(&c));
    CHECK(sh->executions > 0 && sh->complete == sh->executions && sh->racy == sh->executions,
          "multi: every one of %llu executions racy (%llu)", (unsigned long long)sh->executions,
          (unsigned long long)sh->racy);
    CHECK(sh->min_per_exec == 2 && sh->max_per_exec == 2,
          "multi: two racy locations, one report each, per execution (%d..%d)", sh->min_per_exec,
          sh->max_per_exec);
    bool x = false, y = false;
    for (int i = 0; i < 2 && i < sh->nrep; i++) {
        x |= sh->rep[i].addr == (uintptr_t)&race_multi_x && sh->rep[i].size == 4;
        y |= sh->rep[i].addr == (uintptr_t)&race_multi_y && sh->rep[i].size == 4;
        print_report(&sh->rep[i]);
    }
    CHECK(x && y, "multi: the first execution reports x and y (%d, %d)", x, y);
}

/* buggy reports races on var, fixed none; fixed_execs: interleavings the
 * fixed program has at least (so that "quiet" is not "unexplored"). */
static void pair(const char *name, lu_sched_fn body, const void *var, size_t size, uint64_t fixed_execs)
{
    char what[64];
    snprintf(what, sizeof what, "%s, buggy", name);
    struct child c = explore(body, RACE_BUGGY, var, size);
    expect_races(what, &c, true);
    snprintf(what, sizeof what, "%s, fixed", name);
    c = explore(body, RACE_FIXED, var, size);
    expect_quiet(what, &c, fixed_execs);
}

static void test_mutex(void)
{
    pair("mutex", race_mutex_main, &race_mutex_x, sizeof race_mutex_x, 100);
}

static void test_atomic_mp(void)
{
    pair("atomic flag", race_mp_main, &race_mp_data, sizeof race_mp_data, 2);
}

static void test_failed_cas(void)
{
    pair("failed CAS", race_fcas_main, &race_fcas_data, sizeof race_fcas_data, 2);
}

/* A mixed pair reports which access is atomic, in the right functions. */
static void expect_mixed(const char *what, const char *fn0, bool at0, const char *fn1, bool at1)
{
    CHECK(sh->nrep > 0, "%s: reported", what);
    for (int i = 0; i < sh->nrep; i++) {
        const struct lu_ipose_race *r = &sh->rep[i];
        CHECK(r->atomic[0] == at0 && r->atomic[1] == at1, "%s: report %d: atomic %d/%d (want %d/%d)", what, i,
              r->atomic[0], r->atomic[1], at0, at1);
        CHECK(strcmp(fn_at(r->pc[0]), fn0) == 0 && strcmp(fn_at(r->pc[1]), fn1) == 0,
              "%s: report %d: in %s and %s (%s, %s)", what, i, fn0, fn1, fn_at(r->pc[0]), fn_at(r->pc[1]));
    }
}

static void test_mixed(void)
{
    struct child c = explore(race_mix_main, RACE_BUGGY, &race_mix_x, sizeof race_mix_x);
    expect_races("plain read after relaxed loads", &c, true);
    expect_mixed("plain read after relaxed loads", "race_mix_writer", true, "race_mix_reader", false);
    c = explore(race_mix_main, RACE_FIXED, &race_mix_x, sizeof race_mix_x);
    expect_quiet("plain read after acquire loads", &c, 2);

    c = explore(race_mixrmw_main, RACE_BUGGY, &race_mixrmw_x, sizeof race_mixrmw_x);
    expect_races("fetch_add after a relaxed flag", &c, true);
    expect_mixed("fetch_add after a relaxed flag", "race_mixrmw_init", false, "race_mixrmw_add", true);
    c = explore(race_mixrmw_main, RACE_FIXED, &race_mixrmw_x, sizeof race_mixrmw_x);
    expect_quiet("fetch_add after a release flag", &c, 2);
}

static void test_create_join(void)
{
    pair("create/join", race_cj_main, &race_cj_x, sizeof race_cj_x, 1);
}

static void test_sem(void)
{
    pair("semaphore", race_sem_main, &race_sem_data, sizeof race_sem_data, 1);
}

static void test_cond(void)
{
    pair("condition variable", race_cond_main, &race_cond_data, sizeof race_cond_data, 2);
}

static void test_read_read(void)
{
    pair("read/read", race_rr_main, &race_rr_x, sizeof race_rr_x, 1);
}

static void test_bytes(void)
{
    pair("neighbouring fields", race_bytes_main, &race_bytes.c, sizeof race_bytes.c, 1);
}

/* Both sides of each report are in libc calls: the memset and the reader. */
static void expect_libc(const char *what, const char *reader)
{
    for (int i = 0; i < sh->nrep; i++) {
        const struct lu_ipose_race *r = &sh->rep[i];
        bool writer = strcmp(fn_at(r->pc[0]), "race_libc_writer") == 0 ||
                      strcmp(fn_at(r->pc[1]), "race_libc_writer") == 0;
        bool read = strcmp(fn_at(r->pc[0]), reader) == 0 || strcmp(fn_at(r->pc[1]), reader) == 0;
        CHECK(writer && read, "%s: report %d pairs race_libc_writer with %s (%s, %s)", what, i, reader,
              fn_at(r->pc[0]), fn_at(r->pc[1]));
    }
}

static void test_libc(void)
{
    pair("memset/memcpy", race_libc_main, race_libc_buf, sizeof race_libc_buf, 1);
    struct child c = explore(race_libc_main, RACE_BUGGY, race_libc_buf, sizeof race_libc_buf);
    expect_libc("memset/memcpy", "race_libc_copier");
    c = explore(race_libc_main, RACE_LIBC_STRCMP, race_libc_buf, sizeof race_libc_buf);
    expect_races("memset/strcmp", &c, true);
    expect_libc("memset/strcmp", "race_libc_comparer");
}

static void test_sometimes(void)
{
    struct child c = explore(race_some_main, NULL, &race_some_data, sizeof race_some_data);
    expect_races("some schedules", &c, false);
    for (int i = 0; i < sh->nrep; i++) {
        const struct lu_ipose_race *r = &sh->rep[i];
        CHECK(r->addr == (uintptr_t)&race_some_data && r->size == 4 && r->write[0] && r->write[1] &&
                  ((r->tid[0] == 1 && r->tid[1] == 2) || (r->tid[0] == 2 && r->tid[1] == 1)),
              "some schedules: write/write on race_some_data by threads 1 and 2");
    }
    /* the control: the same exploration without the detector reports nothing */
    struct explore e = {race_some_main, NULL, &race_some_data, sizeof race_some_data, false};
    c = in_child(explore_in_child, &e);
    CHECK(child_ok(&c) && sh->executions > 1 && sh->reports == 0, "detection off: no report (%llu)",
          (unsigned long long)sh->reports);
}

/* ======================================================= overhead */

static void bench_child(const void *ctx)
{
    const long *p = ctx; /* n, span, detect */
    race_bench_set(p[0], (int)p[1]);
    struct lu_sched_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.strategy = LU_SCHED_REPLAY;
    cfg.trace = sh_trace;
    sh_trace->cap = TRACE_CAP;
    cfg.watchdog_ms = 60000;
    struct lu_sched *s = lu_sched_create(&cfg, NULL);
    if (!s) {
        sh->create_err = -1;
        return;
    }
    if (p[2])
        lu_ipose_race_set_handler(on_race, sh);
    lu_ipose_race_reset();
    struct lu_sched_result res;
    /* CPU time: the machine is shared, waiting for a core is not cost */
    double t0 = cpu_s();
    sh->run_err = lu_sched_run(s, race_bench_main, NULL, &res);
    sh->bench_ns = (cpu_s() - t0) * 1e9 / (double)p[0];
    lu_ipose_race_set_handler(NULL, NULL);
    lu_sched_destroy(s);
}

static void bench(void)
{
    static const struct {
        const char *what;
        long span, detect;
    } cases[] = {
        {"detection off", 1024, 0},
        {"on, same epoch (fast path)", 1024, 1},
        {"on, 2^18 distinct granules", RACE_BENCH_MAX, 1},
    };
    long n = 20 * 1000 * 1000;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long best = 0;
        double ns = 1e30;
        for (int rep = 0; rep < 3; rep++) {
            long ctx[3] = {n, cases[i].span, cases[i].detect};
            struct child c = in_child(bench_child, ctx);
            if (!child_ok(&c)) {
                printf("  %s: %s\n", cases[i].what, how(&c));
                break;
            }
            if (sh->bench_ns < ns)
                ns = sh->bench_ns;
            best++;
        }
        if (best)
            printf("  %-30s %6.2f ns CPU per plain 4-byte write (best of %ld, %ld writes)\n", cases[i].what,
                   ns, best, n);
    }
}

static void test_relaxed(void)
{
    pair("relaxed", race_relaxed_main, &race_relaxed_data, sizeof race_relaxed_data, 2);
}

static void test_barrier(void)
{
    pair("barrier", race_barrier_main, race_barrier_x, sizeof race_barrier_x, 2);
}

static void test_once(void)
{
    /* buggy: racy only where the other thread ran the initialization */
    struct child c = explore(race_once_main, RACE_BUGGY, &race_once_x, sizeof race_once_x);
    expect_races("once, buggy", &c, false);
    c = explore(race_once_main, RACE_FIXED, &race_once_x, sizeof race_once_x);
    expect_quiet("once, fixed", &c, 2);
}

/* ======================================================= heap */

static void heap_in_child(const void *ctx)
{
    race_heap_reused = 0;
    explore_in_child(ctx);
    sh->heap_reused = race_heap_reused;
}

static void test_heap(void)
{
    struct explore e = {race_heap_main, RACE_BUGGY, NULL, 0, true};
    struct child c = in_child(heap_in_child, &e);
    CHECK(child_ok(&c), "heap, use-after-free: %s", how(&c));
    CHECK(sh->executions >= 1 && sh->racy == sh->executions,
          "heap, use-after-free: a race in every one of %llu executions (%llu)",
          (unsigned long long)sh->executions, (unsigned long long)sh->racy);
    bool ok = sh->nrep > 0;
    for (int i = 0; i < sh->nrep; i++) {
        const struct lu_ipose_race *r = &sh->rep[i];
        ok &= r->write[0] && r->write[1] && r->tid[0] != r->tid[1] && r->tid[0] > 0 && r->tid[1] > 0;
        bool by_free = strcmp(fn_at(r->pc[0]), "race_heap_freer") == 0 ||
                       strcmp(fn_at(r->pc[1]), "race_heap_freer") == 0;
        ok &= by_free;
    }
    if (sh->nrep > 0)
        print_report(&sh->rep[0]);
    CHECK(ok, "heap, use-after-free: each report pairs the write with the free, both writes");

    e.arg = RACE_FIXED;
    c = in_child(heap_in_child, &e);
    expect_quiet("heap, reuse", &c, 2);
    CHECK(sh->heap_reused > 0,
          "heap, reuse: the freed block was handed out again (%ld executions), so the "
          "quiet verdict means reuse is recognised",
          sh->heap_reused);
}

/* ======================================================= main */

static const struct group {
    const char *name;
    void (*fn)(void);
} groups[] = {
    {"plain", test_plain},
    {"multi", test_multi},
    {"mutex", test_mutex},
    {"atomic_mp", test_atomic_mp},
    {"failed_cas", test_failed_cas},
    {"mixed", test_mixed},
    {"create_join", test_create_join},
    {"sem", test_sem},
    {"cond", test_cond},
    {"read_read", test_read_read},
    {"bytes", test_bytes},
    {"libc", test_libc},
    {"sometimes", test_sometimes},
    {"heap", test_heap},
    {"relaxed", test_relaxed},
    {"barrier", test_barrier},
    {"once", test_once},
};

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    sh = map_shared(sizeof *sh);
    sh_trace = map_shared(lu_sched_trace_size(TRACE_CAP));
    sh_trace->cap = TRACE_CAP;
    if (argc > 1 && strcmp(argv[1], "bench") == 0) {
        printf("bench (%s)\n", RACE_CC);
        bench();
        return 0;
    }
    int ran = 0;
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        if (argc > 1 && strcmp(argv[1], groups[i].name) != 0)
            continue;
        printf("%s (%s)\n", groups[i].name, RACE_CC);
        groups[i].fn();
        ran++;
    }
    if (!ran) {
        printf("unknown group %s\n", argv[1]);
        return 2;
    }
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
