/*
 * The worker process: loads the harness, runs the Line-Up check of one test
 * (phase 1: every serial interleaving of whole calls; phase 2: concurrent
 * schedules within the preemption bound) and writes the verdict and report
 * into the shared region. Whatever the code under test does to this process
 * (crash, exit, divergence), the parent still finds the schedule and the
 * history so far in the region.
 */
#define _GNU_SOURCE
#include "lu_drv.h"
#include "lu_rt.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <uthash.h>

#define LU__BYTES_CAP 4096

static struct lu_drv_shm *W;
static const struct lineup_harness *H;
static const struct lineup_op *lu__setup, *lu__teardown;
static unsigned lu__nsetup, lu__nteardown;
static struct lu_hist_test lu__htest;
static int lu__opid[LU_DRV_MAX_THREADS][LU_DRV_MAX_CALLS];
static int lu__setup_id[LU_DRV_MAX_SEQ], lu__teardown_id[LU_DRV_MAX_SEQ];
static struct lu_hist lu__hist;
static bool lu__serial;
static void *lu__obj;
static bool lu__created;

struct lu__tctx {
    unsigned t;
    struct lu_rt_bytes bytes;
    unsigned char buf[LU__BYTES_CAP];
};
static struct lu__tctx lu__ctx[LU_DRV_MAX_THREADS + 1];

/* ---- the execution body ---- */

static void lu__record_call(unsigned op)
{
    if (lu_hist_call(&lu__hist, op) != 0)
        lu_sched_abort("out of memory recording the history");
    if (W->nev < LU_DRV_MAX_EVENTS)
        W->ev[W->nev++] = (struct lu_hist_event){.op = (uint16_t)op, .kind = LU_HIST_CALL};
}

static void lu__record_return(unsigned op, int64_t v, const struct lu_rt_bytes *b)
{
    const void *bytes = b->set ? b->data : NULL;
    if (lu_hist_return(&lu__hist, op, v, bytes, b->set ? b->len : 0) != 0)
        lu_sched_abort("out of memory recording the history");
    if (W->nev < LU_DRV_MAX_EVENTS)
        W->ev[W->nev++] =
            (struct lu_hist_event){.op = (uint16_t)op, .kind = LU_HIST_RETURN, .res = {.value = v}};
}

static void lu__run_op(const struct lineup_op *op, unsigned id, struct lu__tctx *c)
{
    lu__record_call(id);
    if (lu__serial)
        lu_sched_atomic_begin();
    c->bytes.set = false;
    lu_rt_set_bytes_target(&c->bytes);
    int64_t r = op->fn(lu__obj, op->arg);
    lu_rt_set_bytes_target(NULL);
    if (lu__serial)
        lu_sched_atomic_end();
    lu__record_return(id, r, &c->bytes);
}

static void *lu__op_thread(void *arg)
{
    struct lu__tctx *c = arg;
    const struct lu_drv_test *t = &W->job.test;
    for (unsigned k = 0; k < t->len[c->t]; k++) {
        /* an operation boundary: switching here costs no preemption */
        lu_sched_point_free(LU_DRV_L_CALL);
        lu__run_op(&H->ops[t->cell[c->t][k]], (unsigned)lu__opid[c->t][k], c);
    }
    return NULL;
}

static void *lu__main_body(void *arg)
{
    (void)arg;
    const struct lu_drv_test *t = &W->job.test;
    struct lu__tctx *mc = &lu__ctx[LU_DRV_MAX_THREADS];
    lu__created = false;
    lu__obj = H->create();
    lu__created = true;
    for (unsigned i = 0; i < lu__nsetup; i++)
        lu__run_op(&lu__setup[i], (unsigned)lu__setup_id[i], mc);
    for (unsigned i = 0; i < t->nthreads; i++)
        if (lu_sched_spawn(lu__op_thread, &lu__ctx[i]) < 0)
            lu_sched_abort("could not start the test threads");
    lu_sched_join_all(LU_DRV_L_JOIN);
    for (unsigned i = 0; i < lu__nteardown; i++)
        lu__run_op(&lu__teardown[i], (unsigned)lu__teardown_id[i], mc);
    if (H->destroy)
        H->destroy(lu__obj);
    return NULL;
}

/* ---- reports ---- */

static void lu__where(struct lu_buf *b, uintptr_t pc)
{
    Dl_info di;
    if (!pc || !dladdr((void *)pc, &di) || !di.dli_fname) {
        lu_buf_printf(b, "%#" PRIxPTR, pc);
        return;
    }
    /* pc is a return address: the call is the instruction before it */
    lu_drv_addr2line(b, di.dli_fname, pc - (uintptr_t)di.dli_fbase - 1);
}

static void lu__report_test(struct lu_buf *b)
{
    const struct lu_drv_test *t = &W->job.test;
    for (unsigned i = 0; i < t->nthreads; i++) {
        lu_buf_printf(b, "    thread %u:", i);
        for (unsigned k = 0; k < t->len[i]; k++)
            lu_buf_printf(b, " %s", lu__htest.ops[lu__opid[i][k]].label);
        lu_buf_puts(b, "\n");
    }
}

static void lu__report_threads(struct lu_buf *b, const struct lu_sched_result *res)
{
    for (int i = 0; i < res->nthreads; i++) {
        const struct lu_sched_thread_info *ti = &res->threads[i];
        if (ti->state != LU_SCHED_TS_BLOCKED && ti->state != LU_SCHED_TS_SPINNING)
            continue;
        if (i == 0 && ti->k == LU_SCHED_K_JOIN_ALL)
            continue;
        lu_buf_printf(b, "    %s %d %s in %s at ", i == 0 ? "main thread" : "thread", i == 0 ? 0 : i - 1,
                      ti->state == LU_SCHED_TS_BLOCKED ? "blocked" : "spinning", lu_sched_label_name(ti->label));
        lu__where(b, ti->pc);
        lu_buf_puts(b, "\n");
    }
}

static void lu__finish(int verdict, int phase) __attribute__((noreturn));
static void lu__finish(int verdict, int phase)
{
    W->verdict = verdict;
    W->fail_phase = phase;
    W->sched_len = W->trace.len;
    atomic_store(&W->done, 1);
    fflush(NULL);
    _exit(0);
}

static void lu__fail(int verdict, int phase, const char *fmt, ...) __attribute__((format(printf, 3, 4), noreturn));
static void lu__fail(int verdict, int phase, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(W->report, sizeof W->report, fmt, ap);
    va_end(ap);
    lu__finish(verdict, phase);
    __builtin_unreachable();
}

static void lu__set_report(struct lu_buf *b)
{
    size_t n = b->len < sizeof W->report - 1 ? b->len : sizeof W->report - 1;
    memcpy(W->report, b->s ? b->s : "", n);
    W->report[n] = 0;
}

/* Findings of one execution that are not about histories. */
static void lu__outcome_finding(const struct lu_sched_result *res, int phase)
{
    struct lu_buf b;
    lu_buf_init(&b);
    switch (res->outcome) {
    case LU_SCHED_OUT_TOO_LONG:
        lu_buf_printf(&b, "an execution of phase %d ran more than %u scheduling points without finishing: "
                          "an operation loops forever while changing shared memory\n",
                      phase, LU_DRV_TRACE_CAP);
        lu__report_test(&b);
        lu__set_report(&b);
        lu__finish(LU_DRV_V_DIVERGE, phase);
        break;
    case LU_SCHED_OUT_NONDET:
        lu_buf_printf(&b, "the code under test behaves differently on the same schedule (%s): it depends on "
                          "something lineup does not control (time, randomness, uninstrumented threads, "
                          "state kept across executions)\n",
                      res->message ? res->message : "?");
        lu__report_test(&b);
        lu__set_report(&b);
        lu__finish(LU_DRV_V_NONDET, phase);
        break;
    case LU_SCHED_OUT_UNSUPPORTED:
        lu__fail(LU_DRV_V_UNSUPPORTED, phase, "%s\n", res->message ? res->message : "unsupported call");
    case LU_SCHED_OUT_ABORTED:
        lu__fail(LU_DRV_V_HARNESS, phase, "%s\n", res->message ? res->message : "aborted");
    default:
        break;
    }
    lu_buf_free(&b);
}

/* ---- loading ---- */

static void lu__load(void)
{
    lu_rt_reset();
    void *h = dlopen(W->job.harness_path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        lu__fail(LU_DRV_V_HARNESS, 0, "cannot load %s: %s\n", W->job.harness_path, dlerror());
    unsigned n;
    const struct lineup_harness *const *hs = lu_rt_harnesses(&n);
    if (lu_rt_rejected())
        lu__fail(LU_DRV_V_HARNESS, 0,
                 "%s: %u harness registrations were refused (built against another lineup.h, or more than %d "
                 "harnesses)\n",
                 W->job.harness_path, lu_rt_rejected(), LU_RT_MAX_HARNESSES);
    if (n == 0)
        lu__fail(LU_DRV_V_HARNESS, 0, "%s defines no harness (no LINEUP_HARNESS in it)\n", W->job.harness_path);
    if (W->job.list_only) {
        struct lu_buf b;
        lu_buf_init(&b);
        for (unsigned i = 0; i < n; i++) {
            if (!hs[i]->create || !hs[i]->ops || hs[i]->nops == 0)
                lu__fail(LU_DRV_V_HARNESS, 0, "harness %s has no create function or no operations\n",
                         hs[i]->name);
            lu_buf_printf(&b, "%s", hs[i]->name);
            for (unsigned k = 0; k < hs[i]->nops; k++) {
                if (!hs[i]->ops[k].fn)
                    lu__fail(LU_DRV_V_HARNESS, 0, "harness %s: operation %u has no function\n", hs[i]->name, k);
                lu_buf_printf(&b, " %s(%" PRId64 ")", hs[i]->ops[k].name, hs[i]->ops[k].arg);
            }
            lu_buf_puts(&b, "\n");
        }
        if (b.len >= sizeof W->harnesses)
            lu__fail(LU_DRV_V_HARNESS, 0, "too many harnesses or operations to list\n");
        memcpy(W->harnesses, b.s, b.len + 1);
        lu_buf_free(&b);
        lu__finish(LU_DRV_V_PASS, 0);
    }
    for (unsigned i = 0; i < n; i++)
        if (strcmp(hs[i]->name, W->job.harness_name) == 0)
            H = hs[i];
    if (!H)
        lu__fail(LU_DRV_V_HARNESS, 0, "no harness named %s\n", W->job.harness_name);
    unsigned ns;
    const struct lu_rt_seq *seq = lu_rt_sequences(&ns);
    for (unsigned i = 0; i < ns; i++) {
        if (strcmp(seq[i].name, H->name) != 0)
            continue;
        if (seq[i].nops > LU_DRV_MAX_SEQ)
            lu__fail(LU_DRV_V_HARNESS, 0, "harness %s: more than %d setup or teardown calls\n", H->name,
                     LU_DRV_MAX_SEQ);
        if (seq[i].teardown) {
            lu__teardown = seq[i].ops;
            lu__nteardown = seq[i].nops;
        } else {
            lu__setup = seq[i].ops;
            lu__nsetup = seq[i].nops;
        }
    }
}

static void lu__label(char *dst, size_t n, const struct lineup_op *op)
{
    snprintf(dst, n, "%s(%" PRId64 ")", op->name, op->arg);
}

static void lu__build_test(void)
{
    const struct lu_drv_test *t = &W->job.test;
    memset(&lu__htest, 0, sizeof lu__htest);
    unsigned pseudo = t->nthreads; /* setup and teardown: one extra column */
    for (unsigned i = 0; i < lu__nsetup; i++) {
        lu__setup_id[i] = lu_hist_test_add(&lu__htest, pseudo, "");
        lu__label(lu__htest.ops[lu__setup_id[i]].label, sizeof lu__htest.ops[0].label, &lu__setup[i]);
    }
    for (unsigned th = 0; th < t->nthreads; th++) {
        for (unsigned k = 0; k < t->len[th]; k++) {
            if (t->cell[th][k] >= H->nops)
                lu__fail(LU_DRV_V_INTERNAL, 0, "test refers to operation %u of %u\n", t->cell[th][k], H->nops);
            lu__opid[th][k] = lu_hist_test_add(&lu__htest, th, "");
            if (lu__opid[th][k] < 0)
                lu__fail(LU_DRV_V_HARNESS, 0, "the test has more than %d calls\n", LU_HIST_MAX_OPS);
            lu__label(lu__htest.ops[lu__opid[th][k]].label, sizeof lu__htest.ops[0].label,
                      &H->ops[t->cell[th][k]]);
        }
    }
    for (unsigned i = 0; i < lu__nteardown; i++) {
        lu__teardown_id[i] = lu_hist_test_add(&lu__htest, pseudo, "");
        lu__label(lu__htest.ops[lu__teardown_id[i]].label, sizeof lu__htest.ops[0].label, &lu__teardown[i]);
    }
    if (lu__nsetup + lu__nteardown)
        lu__htest.nthreads = pseudo + 1;
    W->htest = lu__htest;
    for (unsigned i = 0; i <= LU_DRV_MAX_THREADS; i++) {
        lu__ctx[i].t = i;
        lu__ctx[i].bytes.data = lu__ctx[i].buf;
        lu__ctx[i].bytes.cap = LU__BYTES_CAP;
    }
}

/* ---- the phases ---- */

struct lu__point_log {
    uint32_t at; /* trace length when the thread stopped */
    int tid;
    uint16_t label;
    uintptr_t pc;
};
static struct lu__point_log *lu__plog;
static uint32_t lu__nplog, lu__plog_cap;

static void lu__on_point(void *arg, int tid, enum lu_sched_kind k, uint16_t label, uintptr_t pc)
{
    (void)arg;
    (void)k;
    if (!lu__plog || lu__nplog == lu__plog_cap)
        return;
    lu__plog[lu__nplog++] = (struct lu__point_log){W->trace.len, tid, label, pc};
}

static void lu__on_fatal(void *arg, int kind, int code, int tid, uintptr_t pc)
{
    (void)arg;
    struct lu_drv_fatal *f = &W->fatal;
    f->kind = kind;
    f->code = code;
    f->tid = tid;
    Dl_info di;
    if (pc && dladdr((void *)pc, &di) && di.dli_fname) {
        f->pc_off = pc - (uintptr_t)di.dli_fbase;
        size_t n = strlen(di.dli_fname);
        if (n >= sizeof f->module)
            n = sizeof f->module - 1;
        memcpy(f->module, di.dli_fname, n);
        f->module[n] = 0;
    } else {
        f->pc_off = pc;
    }
    W->sched_len = W->trace.len;
}

static struct lu_sched *lu__sched_new(enum lu_sched_strategy st, int bound)
{
    struct lu_sched_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.strategy = st;
    cfg.preemption_bound = bound;
    cfg.trace = &W->trace;
    cfg.spin_bound = W->job.spin_bound;
    cfg.watchdog_ms = W->job.watchdog_ms;
    cfg.on_fatal = lu__on_fatal;
    if (st == LU_SCHED_REPLAY) {
        cfg.replay = lu_drv_shm_replay(W);
        cfg.replay_len = W->job.replay_len;
        cfg.on_point = lu__on_point;
    }
    int err = 0;
    struct lu_sched *s = lu_sched_create(&cfg, &err);
    if (!s)
        lu__fail(LU_DRV_V_INTERNAL, 0, "cannot create the scheduler: %s\n", lu_sched_strerror(err));
    return s;
}

static int lu__run_one(struct lu_sched *s, struct lu_sched_result *res, int phase)
{
    lu_hist_reset(&lu__hist);
    W->nev = 0;
    int rc = lu_sched_run(s, lu__main_body, NULL, res);
    if (rc != 0)
        lu__fail(LU_DRV_V_INTERNAL, phase, "scheduler: %s\n", lu_sched_strerror(rc));
    atomic_fetch_add(&W->executions[phase], 1);
    if (!lu__created && res->outcome != LU_SCHED_OUT_COMPLETE && res->outcome != LU_SCHED_OUT_UNSUPPORTED)
        lu__fail(LU_DRV_V_HARNESS, phase, "harness %s: create() did not return (%s)\n", H->name,
                 lu_sched_outcome_name(res->outcome));
    return rc;
}

static unsigned lu__pending_count(void)
{
    return (unsigned)__builtin_popcountll(lu_hist_pending(&lu__hist));
}

static struct lu_spec *lu__phase1(void)
{
    atomic_store(&W->phase, 1);
    lu__serial = true;
    struct lu_spec *spec = lu_spec_create(&lu__htest);
    if (!spec)
        lu__fail(LU_DRV_V_INTERNAL, 1, "out of memory\n");
    struct lu_sched *s = lu__sched_new(LU_SCHED_DFS, -1);
    struct lu_sched_result res;
    struct lu_hist conflict;
    lu_hist_init(&conflict);
    uint64_t n = 0;
    while (lu_sched_more(s)) {
        if (n++ >= LU_DRV_MAX_SERIAL)
            lu__fail(LU_DRV_V_HARNESS, 1,
                     "phase 1 needs more than %u serial executions; use a smaller matrix\n", LU_DRV_MAX_SERIAL);
        lu__run_one(s, &res, 1);
        lu__outcome_finding(&res, 1);
        if (res.outcome == LU_SCHED_OUT_DEADLOCK || res.outcome == LU_SCHED_OUT_LIVELOCK) {
            if (lu__pending_count() != 1)
                lu__fail(LU_DRV_V_HARNESS, 1, "harness %s: a serial execution got stuck outside the test's calls "
                                              "(in create, destroy or between calls)\n",
                         H->name);
            lu__hist.stuck = true;
        } else if (lu__pending_count() != 0) {
            lu__fail(LU_DRV_V_INTERNAL, 1, "a complete execution left calls pending\n");
        }
        int rc = lu_spec_add(spec, &lu__hist, &conflict);
        if (rc < 0)
            lu__fail(LU_DRV_V_INTERNAL, 1, "recording a serial history failed (%d)\n", rc);
        if (rc == 1) {
            struct lu_buf b;
            lu_buf_init(&b);
            lu_buf_puts(&b, "nondeterminism: two serial executions of the same calls in the same order "
                            "disagree, so no deterministic sequential specification explains the object\n");
            lu_buf_puts(&b, "test:\n");
            lu__report_test(&b);
            lu_buf_puts(&b, "serial execution seen first:\n    ");
            lu_hist_render_serial(&b, &lu__htest, &conflict);
            lu_buf_puts(&b, "\nserial execution seen later:\n    ");
            lu_hist_render_serial(&b, &lu__htest, &lu__hist);
            lu_buf_puts(&b, "\n");
            lu__set_report(&b);
            lu__finish(LU_DRV_V_NONDET, 1);
        }
    }
    lu_sched_destroy(s);
    lu_hist_free(&conflict);
    W->serial_full = lu_spec_full_count(spec);
    W->serial_stuck = lu_spec_stuck_count(spec);
    return spec;
}

struct lu__seen {
    uint64_t hash;
    UT_hash_handle hh;
};

static void lu__violation_report(struct lu_buf *b, struct lu_spec *spec, const struct lu_lin_verdict *v,
                                 const struct lu_sched_result *res, bool stuck)
{
    if (stuck) {
        lu_buf_printf(b, "stuck history with no serial explanation (%s): %s is stuck, but no serial execution "
                         "of the calls that completed before it gets stuck there\n",
                      lu_sched_outcome_name(res->outcome),
                      v->failing_op >= 0 ? lu__htest.ops[v->failing_op].label : "a call");
    } else {
        lu_buf_puts(b, "linearizability violation: no serial execution of these calls explains the results "
                       "of this concurrent history\n");
    }
    lu_buf_puts(b, "test:\n");
    lu__report_test(b);
    lu_buf_printf(b, "concurrent history (phase 2, execution %" PRIu64 ", %u preemptions):\n",
                  atomic_load(&W->executions[2]),
                  W->trace.len ? (unsigned)W->trace.steps[W->trace.len - 1].preempts : 0u);
    lu_hist_render_timeline(b, &lu__htest, &lu__hist);
    if (stuck)
        lu__report_threads(b, res);
    lu_buf_puts(b, "serial histories of these calls (phase 1):\n");
    lu_spec_render_group(b, spec, &lu__hist, v->failing_op, 12);
    lu_buf_puts(b, "why: ");
    lu_lin_explain(b, spec, &lu__hist, v);
    lu_buf_puts(b, "\n");
}

static bool lu__phase2_round(struct lu_sched *s, struct lu_spec *spec, struct lu__seen **seenp,
                             struct lu_lin_stats *stp, uint64_t *np);

static int lu__first_finding = -1;

static unsigned lu__want(void)
{
    return W->job.want ? W->job.want : (1u << LU_DRV_F_COUNT) - 1;
}

/* Phase 2 ends: the verdict is the first finding, if any. */
static void lu__finish_findings(void)
{
    if (lu__first_finding >= 0)
        lu__finish(W->findings[lu__first_finding].verdict, 2);
}

static void lu__found(struct lu_spec *spec, const struct lu_lin_verdict *v, const struct lu_sched_result *res,
                      bool stuck)
{
    int f = stuck ? LU_DRV_F_STUCK : LU_DRV_F_VIOLATION;
    struct lu_drv_finding *fd = &W->findings[f];
    if (fd->verdict != LU_DRV_V_PASS)
        return;
    struct lu_buf b;
    lu_buf_init(&b);
    lu__violation_report(&b, spec, v, res, stuck);
    size_t n = b.len < sizeof fd->report - 1 ? b.len : sizeof fd->report - 1;
    memcpy(fd->report, b.s ? b.s : "", n);
    fd->report[n] = 0;
    lu_buf_free(&b);
    fd->sched_len = W->trace.len;
    memcpy(fd->sched, W->trace.steps, W->trace.len * sizeof fd->sched[0]);
    fd->verdict = stuck ? LU_DRV_V_STUCK : LU_DRV_V_VIOLATION;
    if (lu__first_finding < 0)
        lu__first_finding = f;
    unsigned have = 0;
    for (int i = 0; i < LU_DRV_F_COUNT; i++)
        if (W->findings[i].verdict != LU_DRV_V_PASS)
            have |= 1u << i;
    if ((have & lu__want()) == lu__want() || (W->job.want && (have & W->job.want)))
        lu__finish_findings();
}

/* Phase 2 explores with bound 0, then 1, ... up to the requested bound, so
 * that an execution budget, when it runs out, has covered every schedule
 * with fewer preemptions first (iterative preemption bounding). Histories
 * already checked in an earlier round are not checked again. */
static void lu__phase2(struct lu_spec *spec)
{
    atomic_store(&W->phase, 2);
    lu__serial = false;
    struct lu__seen *seen = NULL;
    struct lu_lin_stats st;
    memset(&st, 0, sizeof st);
    uint64_t n = 0;
    int top = W->job.preemptions;
    W->complete_bound = -2;
    for (int bound = top < 0 ? -1 : 0;; bound++) {
        struct lu_sched *s = lu__sched_new(LU_SCHED_DFS, bound);
        bool cut = lu__phase2_round(s, spec, &seen, &st, &n);
        struct lu_sched_stats ss;
        lu_sched_stats(s, &ss);
        W->points += ss.points;
        lu_sched_destroy(s);
        if (cut) {
            W->truncated = true;
            break;
        }
        W->complete_bound = bound;
        if (bound < 0 || bound >= top)
            break;
    }
}

static bool lu__phase2_round(struct lu_sched *s, struct lu_spec *spec, struct lu__seen **seenp,
                             struct lu_lin_stats *stp, uint64_t *np)
{
    struct lu_sched_result res;
    struct lu__seen *seen = *seenp;
    struct lu_lin_stats st = *stp;
    uint64_t n = *np;
    bool cut = false;
    while (lu_sched_more(s)) {
        if (W->job.max_executions && n++ >= W->job.max_executions) {
            cut = true;
            break;
        }
        lu__run_one(s, &res, 2);
        lu__outcome_finding(&res, 2);
        bool stuck = res.outcome == LU_SCHED_OUT_DEADLOCK || res.outcome == LU_SCHED_OUT_LIVELOCK;
        lu__hist.stuck = stuck;
        uint64_t hsh = lu_hist_hash(&lu__hist);
        struct lu__seen *e;
        HASH_FIND(hh, seen, &hsh, sizeof hsh, e);
        if (e)
            continue;
        if (!(e = malloc(sizeof *e)))
            lu__fail(LU_DRV_V_INTERNAL, 2, "out of memory\n");
        e->hash = hsh;
        HASH_ADD(hh, seen, hash, sizeof e->hash, e);
        atomic_fetch_add(&W->histories, 1);
        struct lu_lin_verdict v;
        memset(&v, 0, sizeof v);
        v.failing_op = -1;
        if (stuck)
            lu_lin_check_stuck(spec, &lu__hist, &v, &st);
        else
            lu_lin_check_full(spec, &lu__hist, &v, &st);
        if (!v.ok)
            lu__found(spec, &v, &res, stuck);
    }
    *seenp = seen;
    *stp = st;
    *np = n;
    return cut;
}

/* Re-runs one recorded execution and shows it, with where each preemption
 * happened. */
static void lu__replay(struct lu_spec *spec)
{
    int phase = W->job.replay_phase;
    atomic_store(&W->phase, phase);
    lu__serial = phase == 1;
    lu__plog_cap = LU_DRV_TRACE_CAP;
    lu__plog = calloc(lu__plog_cap, sizeof *lu__plog);
    struct lu_sched *s = lu__sched_new(LU_SCHED_REPLAY, -1);
    struct lu_sched_result res;
    lu__run_one(s, &res, phase);
    struct lu_buf b;
    lu_buf_init(&b);
    lu_buf_printf(&b, "replayed phase %d execution (%u scheduling choices): %s\n", phase, W->trace.len,
                  lu_sched_outcome_name(res.outcome));
    lu__report_test(&b);
    lu_buf_puts(&b, "history:\n");
    lu_hist_render_timeline(&b, &lu__htest, &lu__hist);
    lu_buf_puts(&b, "preemptions:\n");
    unsigned npre = 0;
    for (uint32_t i = 0; i < W->trace.len; i++) {
        const struct lu_sched_step *stp = &W->trace.steps[i];
        if (!(stp->flags & LU_SCHED_STEP_PREEMPT))
            continue;
        npre++;
        const struct lu__point_log *pl = NULL;
        for (uint32_t j = 0; j < lu__nplog; j++)
            if (lu__plog[j].tid == stp->prev && lu__plog[j].at <= i)
                pl = &lu__plog[j];
        lu_buf_printf(&b, "    step %u: thread %d preempted before %s at ", i, stp->prev - 1,
                      pl ? lu_sched_label_name(pl->label) : "?");
        lu__where(&b, pl ? pl->pc : 0);
        lu_buf_printf(&b, "; thread %d runs\n", stp->chosen - 1);
    }
    if (!npre)
        lu_buf_puts(&b, "    none\n");
    int verdict = LU_DRV_V_PASS;
    if (res.outcome == LU_SCHED_OUT_NONDET) {
        lu_buf_printf(&b, "the schedule no longer fits the program: %s\n", res.message ? res.message : "");
        verdict = LU_DRV_V_NONDET;
    } else if (phase == 2 && spec) {
        bool stuck = res.outcome == LU_SCHED_OUT_DEADLOCK || res.outcome == LU_SCHED_OUT_LIVELOCK;
        lu__hist.stuck = stuck;
        struct lu_lin_verdict v;
        memset(&v, 0, sizeof v);
        v.failing_op = -1;
        if (stuck) {
            lu__report_threads(&b, &res);
            lu_lin_check_stuck(spec, &lu__hist, &v, NULL);
        } else if (res.outcome == LU_SCHED_OUT_COMPLETE) {
            lu_lin_check_full(spec, &lu__hist, &v, NULL);
        } else {
            v.ok = true;
        }
        if (!v.ok) {
            verdict = stuck ? LU_DRV_V_STUCK : LU_DRV_V_VIOLATION;
            lu_buf_puts(&b, "serial histories of these calls (phase 1):\n");
            lu_spec_render_group(&b, spec, &lu__hist, v.failing_op, 12);
            lu_buf_puts(&b, "why: ");
            lu_lin_explain(&b, spec, &lu__hist, &v);
            lu_buf_puts(&b, "\nverdict: ");
            lu_buf_puts(&b, lu_drv_verdict_name(verdict));
            lu_buf_puts(&b, " (reproduced)\n");
        } else {
            lu_buf_puts(&b, "verdict: this history is explained by a serial one\n");
        }
    }
    lu__set_report(&b);
    lu__finish(verdict, phase);
}

void lu_drv_worker(struct lu_drv_shm *shm)
{
    W = shm;
    if (W->job.cpu >= 0) {
        /* One thread runs at a time: a worker needs one core, and keeping
         * all its threads on it makes every baton handoff cheaper. Which
         * core is the kernel's choice (the one it started us on), so that
         * workers do not pile onto a core something else keeps busy. */
        int cpu = sched_getcpu();
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu >= 0 ? cpu : W->job.cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    lu_hist_init(&lu__hist);
    lu__load();
    lu__build_test();
    /* the worker runs one thread at a time: one core is all it can use, and
     * staying on it makes every baton handoff cheaper */
    struct lu_spec *spec = NULL;
    if (W->job.replay_phase == 1) {
        lu__replay(NULL);
    }
    spec = lu__phase1();
    if (W->job.replay_phase == 2)
        lu__replay(spec);
    lu__phase2(spec);
    lu__finish_findings();
    lu__finish(LU_DRV_V_PASS, 0);
    __builtin_unreachable();
}
