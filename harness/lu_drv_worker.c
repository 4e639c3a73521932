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
#include <execinfo.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LU__BYTES_CAP 4096

static struct lu_drv_shm *W;
static struct lu_drv_lane *L; /* the lane this process records into */
static const struct lineup_harness *H;
static const struct lineup_op *lu__setup, *lu__teardown;
static unsigned lu__nsetup, lu__nteardown;
static struct lu_hist_test lu__htest;
static int lu__opid[LU_DRV_MAX_THREADS][LU_DRV_MAX_CALLS];
static int lu__setup_id[LU_DRV_MAX_SEQ], lu__teardown_id[LU_DRV_MAX_SEQ];
static struct lu_hist lu__hist;
static bool lu__serial;
/* phase 1 switched threads only at calls' boundaries (lu__phase1) */
static bool lu__serial_only;
static void *lu__obj;
static bool lu__created;

struct lu__tctx {
    unsigned t;
    struct lu_rt_bytes bytes;
    unsigned char buf[LU__BYTES_CAP];
};
static struct lu__tctx lu__ctx[LU_DRV_MAX_THREADS + 1];

/* ---- the execution body ---- */

/* lineup's own memory ran out (on a controlled thread): the execution ends
 * as a resource error, not as the harness's fault */
static void lu__record_oom(void) __attribute__((noreturn));
static void lu__record_oom(void)
{
    static char m[320];
    lu_sched_error(
        lu_sched_syserr(m, sizeof m, LU_SCHED_NEED_MEMORY, ENOMEM, "out of memory recording the history", 0));
}

static void lu__record_call(unsigned op)
{
    if (lu_hist_call(&lu__hist, op) != 0)
        lu__record_oom();
    if (L->nev < LU_DRV_MAX_EVENTS)
        L->ev[L->nev++] = (struct lu_hist_event){.op = (uint16_t)op, .kind = LU_HIST_CALL};
}

static void lu__record_return(unsigned op, int64_t v, const struct lu_rt_bytes *b)
{
    const void *bytes = b->set ? b->data : NULL;
    if (lu_hist_return(&lu__hist, op, v, bytes, b->set ? b->len : 0) != 0)
        lu__record_oom();
    if (L->nev < LU_DRV_MAX_EVENTS)
        L->ev[L->nev++] =
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
    if (c->bytes.set && c->bytes.offered > c->bytes.cap) {
        /* comparing a cut result could pass a wrong one: refuse */
        static char why[160];
        snprintf(why, sizeof why,
                 "operation %s passed %zu bytes to lineup_result_bytes; at most %d are supported", op->name,
                 c->bytes.offered, LU__BYTES_CAP);
        lu_sched_abort(why);
    }
    if (lu__serial)
        lu_sched_atomic_end();
    lu__record_return(id, r, &c->bytes);
}

static void *lu__op_thread(void *arg)
{
    struct lu__tctx *c = arg;
    const struct lu_drv_test *t = &W->job.test;
    for (unsigned k = 0; k < t->len[c->t]; k++) {
        /* an operation boundary: switching here costs no preemption (the
         * thread starts parked at its first one) */
        if (k > 0)
            lu_sched_point_free(LU_DRV_L_CALL);
        lu__run_op(&H->ops[t->cell[c->t][k]], (unsigned)lu__opid[c->t][k], c);
    }
    return NULL;
}

static bool lu__body_done; /* the main thread reached the end of the execution's body */
/* Threads started before the test threads (by create() or a setup call):
 * the test's thread i is scheduler thread lu__tid_base + 1 + i, and the
 * reports name threads by that (lu__tname). */
static int lu__tid_base;

/* The main thread and the test threads take turns in phase 1's serial
 * calls; threads of the object's own (started by create() or a setup call,
 * or left running by a call) take none: they run beside any call, as they
 * would beside a serial one, and the test threads' end is what the main
 * thread waits for before the teardown calls and destroy(), which may be
 * what stops them. */
static bool lu__test_bug_in_exec; /* LINEUP_TEST_INTERNAL_BUG=exec */

static void *lu__main_body(void *arg)
{
    (void)arg;
    const struct lu_drv_test *t = &W->job.test;
    struct lu__tctx *mc = &lu__ctx[LU_DRV_MAX_THREADS];
    lu__created = false;
    lu__body_done = false;
    lu__tid_base = INT_MAX; /* every thread before the test's is create()'s (or a setup call's) */
    lu_sched_takes_turns(0);
    if (lu__test_bug_in_exec)
        lu_sched_bug(__FILE__, __LINE__, "LINEUP_TEST_INTERNAL_BUG=exec is set");
    lu__obj = H->create();
    lu__created = true;
    for (unsigned i = 0; i < lu__nsetup; i++)
        lu__run_op(&lu__setup[i], (unsigned)lu__setup_id[i], mc);
    /* a pool thread that cannot start ends the execution as ERROR inside
     * lu_sched_spawn (a resource limit, not the harness's fault); what is
     * left, too many threads, LU_DRV_MAX_THREADS rules out */
    for (unsigned i = 0; i < t->nthreads; i++) {
        int tid = t->len[i] ? lu_sched_spawn_parked(lu__op_thread, &lu__ctx[i], LU_DRV_L_CALL)
                            : lu_sched_spawn(lu__op_thread, &lu__ctx[i]);
        if (tid < 0)
            lu_sched_abort("could not start the test threads");
        if (i == 0)
            lu__tid_base = tid - 1;
        lu_sched_takes_turns(tid);
    }
    lu_sched_join_turns(LU_DRV_L_JOIN);
    for (unsigned i = 0; i < lu__nteardown; i++)
        lu__run_op(&lu__teardown[i], (unsigned)lu__teardown_id[i], mc);
    if (H->destroy)
        H->destroy(lu__obj);
    /* threads destroy() did not join: their end is the execution's */
    lu_sched_join_all(LU_DRV_L_JOIN);
    lu__body_done = true;
    return NULL;
}

static void lu__tname(struct lu_hist_buf *b, int tid)
{
    lu_drv_thread_name(b, tid, lu__tid_base);
}

/* ---- reports ---- */

static void lu__where(struct lu_hist_buf *b, uintptr_t pc)
{
    Dl_info di;
    if (!pc || !dladdr((void *)pc, &di) || !di.dli_fname) {
        lu_hist_buf_printf(b, "%#" PRIxPTR, pc);
        return;
    }
    /* pc is a return address: the call is the instruction before it */
    lu_drv_addr2line(b, di.dli_fname, pc - (uintptr_t)di.dli_fbase - 1);
}

static void lu__report_test(struct lu_hist_buf *b)
{
    const struct lu_drv_test *t = &W->job.test;
    for (unsigned i = 0; i < t->nthreads; i++) {
        lu_hist_buf_printf(b, "    thread %u:", i);
        for (unsigned k = 0; k < t->len[i]; k++)
            lu_hist_buf_printf(b, " %s", lu__htest.ops[lu__opid[i][k]].label);
        lu_hist_buf_puts(b, "\n");
    }
}

static void lu__report_threads(struct lu_hist_buf *b, const struct lu_sched_result *res)
{
    bool spins = false;
    for (int i = 0; i < res->nthreads; i++) {
        const struct lu_sched_thread_info *ti = &res->threads[i];
        if (ti->state != LU_SCHED_TS_BLOCKED && ti->state != LU_SCHED_TS_SPINNING)
            continue;
        if (i == 0 && ti->k == LU_SCHED_K_JOIN_ALL)
            continue;
        if (i == 0) {
            lu_hist_buf_puts(b, "    main thread ");
        } else {
            lu_hist_buf_puts(b, "    ");
            lu__tname(b, i);
            lu_hist_buf_puts(b, " ");
        }
        lu_hist_buf_printf(b, "%s in %s at ", ti->state == LU_SCHED_TS_BLOCKED ? "blocked" : "spinning",
                           lu_sched_label_name(ti->label));
        lu__where(b, ti->pc);
        lu_hist_buf_puts(b, "\n");
        spins |= ti->state == LU_SCHED_TS_SPINNING;
    }
    /* a loop that waits longer than the bound looks the same */
    if (spins)
        lu_hist_buf_printf(b,
                           "    (spinning: it went round %" PRIu32 " times and nothing it waits for changed; "
                           "a loop that ends after more rounds needs a larger --spin-bound)\n",
                           W->job.spin_bound);
}

/* ---- ending ---- */

static bool lu__explorer;    /* this process is a phase-2 explorer */
static unsigned lu__lane_no; /* its lane */
static bool lu__claimed;     /* it owns the test's result */

/* Calls each(name, arg) for every entry of the directory at path, "." and
 * ".." too (getdents64: no allocation). -1 with errno when it cannot be
 * opened. */
static int lu__each_entry(const char *path, void (*each)(const char *name, void *arg), void *arg)
{
    int d = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0)
        return -1;
    char ents[4096];
    long got;
    while ((got = syscall(SYS_getdents64, d, ents, sizeof ents)) > 0)
        for (long at = 0; at < got;) {
            unsigned short reclen; /* after d_ino and d_off; d_type, then the name */
            memcpy(&reclen, ents + at + 16, sizeof reclen);
            each(ents + at + 19, arg);
            at += reclen;
        }
    close(d);
    return 0;
}

static void lu__reap_task(const char *name, void *any)
{
    if (name[0] >= '0' && name[0] <= '9' && lu_sched_reap_children(strtol(name, NULL, 10), NULL, 0))
        *(bool *)any = true;
}

/* What the code under test started and left running (posix_spawn of a
 * daemon): children of this process's threads, killed and reaped. A worker
 * in phase 1 and an explorer have no children of lineup's. Each execution
 * would leave one more running after lineup has gone (an audit's 103
 * executions left 207); a sweep reads every thread's list of children, so
 * it runs between serial executions every 16 to 256, every 256 of phase 2,
 * and when an explorer ends. */
static bool lu__sweep_round(void)
{
    bool any = false;
    lu__each_entry("/proc/self/task", lu__reap_task, &any);
    return any;
}

/* Rounds until none is left: a round reads the first 4 KB of each list.
 * Whether there was one. */
static bool lu__sweep_children(void)
{
    bool any = false;
    for (int round = 0; round < 1000 && lu__sweep_round(); round++)
        any = true;
    return any;
}

static void lu__explorer_exit(int reason) __attribute__((noreturn));
static void lu__explorer_exit(int reason)
{
    lu__sweep_children();
    L->exit_reason = reason;
    fflush(NULL);
    _exit(0);
}

/* Before an explorer writes the test's result (report, verdict): only one
 * explorer of a test may; the others end quietly. */
static void lu__claim(void)
{
    if (!lu__explorer || lu__claimed)
        return;
    int none = 0;
    if (!atomic_compare_exchange_strong(&W->pool.claim, &none, (int)lu__lane_no + 1))
        lu__explorer_exit(LU_DRV_EXIT_DONE);
    lu__claimed = true;
    atomic_store(&W->pool.stop, 1);
    lu_drv_pool_wake(&W->pool);
}

static void lu__finish(int verdict, int phase) __attribute__((noreturn));
static void lu__finish(int verdict, int phase)
{
    lu__claim();
    W->verdict = verdict;
    W->fail_phase = phase;
    W->sched_len = L->trace->len;
    if (lu__explorer)
        lu__explorer_exit(LU_DRV_EXIT_FINISHED); /* the keeper publishes it */
    lu__sweep_children();
    atomic_store(&W->done, 1);
    fflush(NULL);
    _exit(0);
}

static void lu__fail(int verdict, int phase, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static void lu__fail(int verdict, int phase, const char *fmt, ...)
{
    lu__claim();
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(W->report, sizeof W->report, fmt, ap);
    va_end(ap);
    lu__finish(verdict, phase);
    __builtin_unreachable();
}

/* A system call of lineup's own failed (errno): a resource error naming
 * the limit, never a finding. */
static void lu__fail_sys(enum lu_sched_need need, const char *what, size_t bytes) __attribute__((noreturn));
static void lu__fail_sys(enum lu_sched_need need, const char *what, size_t bytes)
{
    char m[320];
    lu_sched_syserr(m, sizeof m, need, errno, what, bytes);
    lu__fail(lu_sched_limit_lowered() ? LU_DRV_V_HARNESS : LU_DRV_V_RESOURCE, atomic_load(&W->phase), "%s\n",
             m);
}

/* b into a report field of cap bytes, cut to fit. */
static void lu__copy_report(char *dst, size_t cap, const struct lu_hist_buf *b)
{
    size_t n = b->len < cap - 1 ? b->len : cap - 1;
    memcpy(dst, b->s ? b->s : "", n);
    dst[n] = 0;
    if (n < b->len) {
        /* cut at a line's end, and say so: a report cut mid-word ran into
         * the replay line (an audit) */
        static const char cut[] = "(the rest of this report is cut off: it is too long)\n";
        size_t at = n > sizeof cut ? n - sizeof cut : 0;
        while (at && dst[at - 1] != '\n')
            at--;
        memcpy(dst + at, cut, sizeof cut);
    }
}

static void lu__set_report(struct lu_hist_buf *b)
{
    lu__claim();
    lu__copy_report(W->report, sizeof W->report, b);
}

/* Findings of one execution that are not about histories. */
static void lu__fd_guard(int phase);

static void lu__outcome_finding(const struct lu_sched_result *res, int phase)
{
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    switch (res->outcome) {
    case LU_SCHED_OUT_TOO_LONG:
        /* a wait that only looks ends as stuck after --spin-bound turns
         * (lu__settled_spin in the scheduler): this is a loop that keeps
         * changing something */
        lu_hist_buf_printf(&b,
                           "an execution of phase %d ran more than %u scheduling points without finishing: "
                           "a thread loops forever while changing shared memory (it writes an atomic, or "
                           "plain memory under a lock it takes, at every turn), or with no look at all (a "
                           "lock, a read and an unlock, again and again), which lineup takes for progress "
                           "rather than for a wait that may block for good; a loop that looks at every turn "
                           "(yields, sleeps, re-reads an unchanged atomic, retries a timed wait) and between "
                           "looks only reads and takes and gives back locks is seen as a wait; or the test's "
                           "calls are that long (thousands of locked steps each), more than lineup runs in "
                           "one execution: make them shorter\n",
                           phase, LU_DRV_TRACE_CAP);
        lu__report_test(&b);
        lu__set_report(&b);
        lu__finish(LU_DRV_V_DIVERGE, phase);
        break;
    case LU_SCHED_OUT_NONDET:
        lu__fd_guard(phase);
        lu_hist_buf_printf(&b,
                           "the code under test behaves differently on the same schedule (%s): it depends on "
                           "something lineup does not control (time, randomness, uninstrumented threads, "
                           "state kept across executions, such as static or thread-local variables)\n",
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
    lu_hist_buf_free(&b);
}

/* ---- memory ----
 * The code under test runs in lineup's processes, next to lineup's own
 * memory (the shared regions, the scheduler, the histories), and an
 * explorer keeps what stuck executions leaked until it restarts. Natively
 * the code would have had that memory: an allocation of it that fails, or
 * one that makes the process outgrow its share of the machine, is
 * lineup's resource error, never a result of the code. */

static int64_t lu__heap_base; /* heap count when this process began running the test */

/* A field of /proc/self/status in MB, 0 when unknown. */
static uint64_t lu__status_mb(const char *field)
{
    char buf[4096];
    if (lu_drv_read_small("/proc/self/status", buf, sizeof buf) < 0)
        return 0;
    const char *p = strstr(buf, field);
    return p ? strtoull(p + strlen(field), NULL, 10) >> 10 : 0;
}

/* What the process had and what to do: cap, for a heap that passed its
 * share of the machine (where ulimit -v is no remedy). */
static void lu__memory_state(struct lu_hist_buf *b, int64_t live, bool cap)
{
    struct rlimit rl;
    int64_t grown = live - lu__heap_base;
    unsigned jobs = W->job.jobs ? W->job.jobs : 1;
    lu_hist_buf_printf(b, "lineup's process for this test (%s) had %" PRIu64 " MB of address space",
                       lu__explorer ? "a phase-2 explorer" : "the worker", lu__status_mb("VmSize:"));
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        lu_hist_buf_printf(b, " of the %llu MB ulimit -v allows", (unsigned long long)(rl.rlim_cur >> 20));
    lu_hist_buf_printf(b,
                       ", %" PRIu64 " MB resident; its heap had grown by %" PRId64
                       " MB since it began (explorers restart past %" PRIu32 " MB); %" PRIu64
                       " MB of memory available, for %u job%s\n",
                       lu__status_mb("VmRSS:"), (grown > 0 ? grown : 0) >> 20, W->job.recycle_mb,
                       lu_drv_mem_available_mb(), jobs, jobs == 1 ? "" : "s");
    if (cap)
        lu_hist_buf_puts(
            b, "what to do: run one test at a time (--jobs 1), which gives it all the memory available, "
               "or test fewer calls of the operations that leak\n");
    else
        lu_hist_buf_puts(
            b, "what to do: raise ulimit -v if it is set (lineup reserves up to 2.3 GB of address space "
               "per test process, most of it never used), run one test at a time (--jobs 1), or "
               "restart explorers sooner (LINEUP_RECYCLE_MB)\n");
}

static void lu__on_alloc_failed(const char *fn, size_t size, uintptr_t pc, int64_t live)
{
    int phase = atomic_load(&W->phase);
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_hist_buf_printf(&b,
                       "out of memory: %s(%zu) by the code under test returned NULL in phase %d, called at ",
                       fn, size, phase);
    lu__where(&b, pc);
    lu_hist_buf_puts(&b,
                     "\nthis is not the code's behaviour: run natively it would have had the memory lineup "
                     "uses, so lineup stops the test instead of judging what the code does next\n");
    lu__memory_state(&b, live, false);
    lu__report_test(&b);
    lu__set_report(&b);
    lu__finish(LU_DRV_V_MEMORY, phase);
}

static void lu__on_heap_cap(const char *fn, size_t size, uintptr_t pc, int64_t live)
{
    int phase = atomic_load(&W->phase);
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_hist_buf_printf(
        &b,
        "out of memory: the heap of lineup's process for this test grew by %" PRId64
        " MB in phase %d (what the code under test allocated and did not free, and lineup's records "
        "of its executions), past the %" PRIu32
        " MB a test process may use (the memory available shared by the jobs); lineup stopped the "
        "test before it exhausted the machine's memory. The last allocation: %s(%zu) at ",
        (live - lu__heap_base) >> 20, phase, W->job.heap_cap_mb, fn, size);
    lu__where(&b, pc);
    lu_hist_buf_printf(&b, "\n%s\n",
                       phase == 1
                           ? "(phase 1 runs every serial order of the test in one process, which keeps what "
                             "each leaks)"
                           : "(in one execution: an explorer restarts between executions once its heap "
                             "grew past the restart limit)");
    lu__memory_state(&b, live, true);
    lu__report_test(&b);
    lu__set_report(&b);
    lu__finish(LU_DRV_V_MEMORY, phase);
}

/* From here on, this process's heap growth is measured from now. */
static void lu__heap_limits(void)
{
    lu__heap_base = lu_rt_heap_live();
    lu_rt_set_alloc_failed(lu__on_alloc_failed);
    if (W->job.heap_cap_mb)
        lu_rt_set_heap_cap(lu__heap_base + ((int64_t)W->job.heap_cap_mb << 20), lu__on_heap_cap);
}

/* ---- loading ---- */

static void lu__load(void)
{
    void *warm[1];
    (void)backtrace(warm, 1); /* loads libgcc now, not in lu__on_fatal */
    lu_rt_reset();
    void *h = dlopen(W->job.harness_path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        /* linked with -fsanitize=thread: TSan's own runtime, which cannot
         * be loaded late and would not be lineup's either */
        bool tsan = why && strstr(why, "libtsan");
        lu__fail(
            LU_DRV_V_HARNESS, 0, "cannot load %s: %s%s\n", W->job.harness_path, why ? why : "?",
            tsan ? " (it was linked with -fsanitize=thread, which brings ThreadSanitizer's runtime: build it "
                   "with 'lineup-cc -shared -o HARNESS.so SOURCE.c', which leaves that runtime to lineup)"
                 : "");
    }
    /* A constructor that ignored SIGCHLD would have the kernel reap the
     * phase-2 processes this worker waits for. */
    signal(SIGCHLD, SIG_DFL);
    unsigned n;
    const struct lineup_harness *const *hs = lu_rt_harnesses(&n);
    if (lu_rt_rejected())
        lu__fail(LU_DRV_V_HARNESS, 0,
                 "%s: %u harness registrations were refused (built against another lineup.h, or more than %d "
                 "harnesses)\n",
                 W->job.harness_path, lu_rt_rejected(), LU_RT_MAX_HARNESSES);
    if (n == 0)
        lu__fail(LU_DRV_V_HARNESS, 0, "%s defines no harness (no LINEUP_HARNESS in it)\n",
                 W->job.harness_path);
    char bad[1024];
    const void *bad_at[2];
    if (lu_rt_check(bad, sizeof bad, bad_at) != 0) {
        struct lu_hist_buf b;
        lu_hist_buf_init(&b);
        lu_hist_buf_puts(&b, bad);
        for (int i = 0; i < 2 && bad_at[i]; i++) {
            lu_hist_buf_puts(&b, i ? " and at " : "; registered at ");
            lu__where(&b, (uintptr_t)bad_at[i]);
        }
        lu_hist_buf_puts(&b, "\n");
        lu__set_report(&b);
        lu__finish(LU_DRV_V_HARNESS, 0);
    }
    if (W->job.list_only) {
        struct lu_hist_buf b;
        lu_hist_buf_init(&b);
        for (unsigned i = 0; i < n; i++) {
            if (!hs[i]->create || !hs[i]->ops || hs[i]->nops == 0)
                lu__fail(LU_DRV_V_HARNESS, 0, "harness %s has no create function or no operations\n",
                         hs[i]->name);
            lu_hist_buf_printf(&b, "%s", hs[i]->name);
            for (unsigned k = 0; k < hs[i]->nops; k++) {
                if (!hs[i]->ops[k].fn)
                    lu__fail(LU_DRV_V_HARNESS, 0, "harness %s: operation %u has no function\n", hs[i]->name,
                             k);
                lu_hist_buf_printf(&b, " %s(%" PRId64 ")", hs[i]->ops[k].name, hs[i]->ops[k].arg);
            }
            lu_hist_buf_puts(&b, "\n");
        }
        if (b.len >= sizeof W->harnesses)
            lu__fail(LU_DRV_V_HARNESS, 0,
                     "the harnesses of this object have too many operations: their labels take %zu bytes, "
                     "and lineup supports up to %zu KB of them (%u harnesses)\n",
                     b.len, sizeof W->harnesses / 1024, n);
        memcpy(W->harnesses, b.s, b.len + 1);
        lu_hist_buf_free(&b);
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
                lu__fail(LU_DRV_V_INTERNAL, 0, "test refers to operation %u of %u\n", t->cell[th][k],
                         H->nops);
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
    if (lu__nsetup + lu__nteardown) {
        lu__htest.nthreads = pseudo + 1;
        lu__htest.main_last = true;
    }
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
    lu__plog[lu__nplog++] = (struct lu__point_log){L->trace->len, tid, label, pc};
}

/* Thread tid's last scheduling point at or before trace step i, or NULL. */
static const struct lu__point_log *lu__plog_at(int tid, uint32_t i)
{
    const struct lu__point_log *pl = NULL;
    for (uint32_t j = 0; j < lu__nplog; j++)
        if (lu__plog[j].tid == tid && lu__plog[j].at <= i)
            pl = &lu__plog[j];
    return pl;
}

/* Whether pc is in the harness's shared object. */
static bool lu__in_harness(uintptr_t pc)
{
    Dl_info hi, di;
    return H && dladdr(H, &hi) && hi.dli_fbase && dladdr((void *)pc, &di) && di.dli_fbase == hi.dli_fbase;
}

/* abort(), raise(), a failed assert() stop in libc, and a spin on plain
 * memory in lineup's access hook: the report should name where the
 * harness's code was, its innermost frame (a call site, so one byte back),
 * or 0 when pc is in the harness already or it has no frame on the stack.
 * In a signal handler: backtrace() was called once before (lu__load), so
 * it does not load libgcc here. */
static uintptr_t lu__harness_frame(uintptr_t pc)
{
    if (!H || (pc && lu__in_harness(pc)))
        return 0;
    void *bt[64];
    int n = backtrace(bt, 64);
    for (int i = 0; i < n; i++)
        if (lu__in_harness((uintptr_t)bt[i]))
            return (uintptr_t)bt[i] - 1;
    return 0;
}

static void lu__on_fatal(void *arg, int kind, int code, int tid, uintptr_t pc)
{
    (void)arg;
    struct lu_drv_fatal *f = &L->fatal;
    /* the abort of lineup's own invariant (lu__on_bug said so): not the
     * code's crash */
    if (__atomic_load_n(&f->kind, __ATOMIC_ACQUIRE) == LU_DRV_FATAL_INTERNAL)
        return;
    if (kind == LU_SCHED_FATAL_NONE) { /* the exec announced failed */
        __atomic_store_n(&f->kind, 0, __ATOMIC_RELEASE);
        return;
    }
    f->symbol[0] = 0;
    if (kind == LU_SCHED_FATAL_EXEC) {
        const char *name = lu_sched_label_name((uint16_t)code);
        size_t n = strnlen(name, sizeof f->symbol - 1);
        memcpy(f->symbol, name, n);
        f->symbol[n] = 0;
    }
    if (kind == LU_SCHED_FATAL_BLOCKED) {
        /* the call that blocks (pc is in it), named beside the harness's
         * call site */
        Dl_info ci;
        if (pc && dladdr((void *)pc, &ci) && ci.dli_sname && !lu__in_harness(pc)) {
            size_t n = strnlen(ci.dli_sname, sizeof f->symbol - 1); /* a signal handler: no stdio */
            memcpy(f->symbol, ci.dli_sname, n);
            f->symbol[n] = 0;
        }
    }
    if (kind == LU_SCHED_FATAL_SIGNAL || kind == LU_SCHED_FATAL_DIVERGE || kind == LU_SCHED_FATAL_BLOCKED) {
        uintptr_t at = lu__harness_frame(pc);
        if (at)
            pc = at;
    }
    f->code = code;
    f->exit_fn = kind == LU_SCHED_FATAL_EXIT ? lu_sched_fatal_exit_fn() : 0;
    f->tid = tid;
    f->tid_base = lu__tid_base;
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
    L->sched_len = L->trace->len;
    /* last: a parent waiting for the answer to LU_SCHED_WHERE_SIGVAL reads
     * the record once the kind is there */
    __atomic_store_n(&f->kind, kind, __ATOMIC_RELEASE);
}

/* lineup's own invariant failed here (lu_sched_bug), and the process is
 * about to abort: the parent must report an internal error, not a crash
 * of the code under test. Async-signal-safe. */
static void lu__on_bug(const char *msg)
{
    struct lu_drv_fatal *f = &L->fatal;
    size_t n = strnlen(msg, sizeof f->module - 1);
    memcpy(f->module, msg, n);
    f->module[n] = 0;
    __atomic_store_n(&f->kind, LU_DRV_FATAL_INTERNAL, __ATOMIC_RELEASE);
}

/* phase 2's prefix-trace cache (lu__phase2), or NULL */
static struct lu_sched_cache *lu__cache;

struct lu__sched_opts {
    enum lu_sched_strategy strategy;
    int bound;
    int bound_kind;
    uint64_t seed;
    uint32_t pct_steps;
    const struct lu_sched_step *prefix; /* DFS: explore the subtree below it */
    uint32_t prefix_len;
    bool por;
};

static int lu__names_bound; /* the bound of the scheduler made last, for LINEUP_TRACE_NAMES */

static struct lu_sched *lu__sched_new(const struct lu__sched_opts *o)
{
    lu__names_bound = o->bound;
    struct lu_sched_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.strategy = o->strategy;
    cfg.preemption_bound = o->bound;
    cfg.bound_kind = o->bound_kind;
    cfg.seed = o->seed;
    cfg.pct_depth = W->job.pct_depth;
    cfg.pct_steps = o->pct_steps;
    cfg.trace = L->trace;
    cfg.spin_bound = W->job.spin_bound;
    cfg.watchdog_ms = W->job.watchdog_ms;
    cfg.on_fatal = lu__on_fatal;
    cfg.turns = true;             /* the object's own threads run beside a serial call (lu__main_body) */
    cfg.turns_first = lu__serial; /* ... when it waits for them: phase 1 is unbounded */
    cfg.quiet_waits = true;       /* a wait that polls under a lock is stuck, not a divergence */
    cfg.por = o->por;
    cfg.cache = o->por ? lu__cache : NULL;
    cfg.no_clocks = true; /* Line-Up checks histories, not data races */
    cfg.tls = W->job.tls;
    if (o->strategy == LU_SCHED_REPLAY) {
        cfg.replay = lu_drv_shm_replay(W);
        cfg.replay_len = W->job.replay_len;
        cfg.on_point = lu__on_point;
    } else if (o->prefix_len) {
        cfg.replay = o->prefix;
        cfg.replay_len = o->prefix_len;
        cfg.frozen_len = o->prefix_len;
    }
    int err = 0;
    struct lu_sched *s = lu_sched_create(&cfg, &err);
    if (!s && err == LU_SCHED_ENOMEM) {
        char m[320];
        lu__fail(
            LU_DRV_V_RESOURCE, 0, "%s\n",
            lu_sched_syserr(m, sizeof m, LU_SCHED_NEED_MEMORY, ENOMEM, "cannot create the scheduler", 0));
    }
    if (!s)
        lu__fail(LU_DRV_V_INTERNAL, 0, "cannot create the scheduler: %s\n", lu_sched_strerror(err));
    return s;
}

static unsigned lu__pending_count(void)
{
    return (unsigned)__builtin_popcountll(lu_hist_pending(&lu__hist));
}

/* Every thread finished, yet a call never returned or the body did not
 * reach its end: a thread ended itself (pthread_exit, thrd_exit) inside
 * the harness's code. A harness error, not a crash finding: the call has
 * no result to check, the process goes on normally (unlike exit() or a
 * signal, which a real program would also die of), and the operation
 * broke the contract of lineup.h that it returns its result. */
static void lu__thread_exit_check(int phase)
{
    uint64_t pending = lu_hist_pending(&lu__hist);
    if (pending) {
        int op = __builtin_ctzll(pending);
        lu__fail(LU_DRV_V_HARNESS, phase,
                 "harness %s: operation %s ended its thread with pthread_exit instead of returning "
                 "(phase %d): an operation must return its result\n",
                 H->name, lu__htest.ops[op].label, phase);
    }
    if (!lu__body_done)
        lu__fail(LU_DRV_V_HARNESS, phase,
                 "harness %s: create() or destroy() ended its thread with pthread_exit instead of "
                 "returning (phase %d)\n",
                 H->name, phase);
}

static uint64_t lu__ran_here; /* executions this process ran */

static int lu__run_one(struct lu_sched *s, struct lu_sched_result *res, int phase)
{
    lu_hist_reset(&lu__hist);
    L->nev = 0;
    int rc = lu_sched_run(s, lu__main_body, NULL, res);
    if (rc != 0)
        lu__fail(LU_DRV_V_INTERNAL, phase, "scheduler: %s\n", lu_sched_strerror(rc));
    /* a limit the harness lowered itself is the harness's doing */
    if (res->outcome == LU_SCHED_OUT_ERROR)
        lu__fail(lu_sched_limit_lowered() ? LU_DRV_V_HARNESS : LU_DRV_V_RESOURCE, phase, "%s\n",
                 res->message);
    atomic_fetch_add(&W->executions[phase], 1);
    lu__ran_here++;
    if (!lu__created && res->outcome != LU_SCHED_OUT_COMPLETE && res->outcome != LU_SCHED_OUT_UNSUPPORTED &&
        res->outcome != LU_SCHED_OUT_MISFIT)
        lu__fail(LU_DRV_V_HARNESS, phase, "harness %s: create() did not return (%s)\n", H->name,
                 lu_sched_outcome_name(res->outcome));
    if (res->outcome == LU_SCHED_OUT_COMPLETE)
        lu__thread_exit_check(phase);
    return rc;
}

/* Where two contradicting serial histories part: they are serial, so the
 * same event sequence up to there means the same calls in the same order,
 * and the spec compared them because they share that prefix; the orders
 * after it may differ and do not matter. */
static void lu__report_divergence(struct lu_hist_buf *b, const struct lu_hist *first,
                                  const struct lu_hist *later)
{
    size_t i = lu_hist_divergence(first, later);
    /* the call whose outcome differs: its return, or the end of a stuck one */
    const struct lu_hist_event *r1 = i < first->len ? &first->ev[i] : NULL;
    const struct lu_hist_event *r2 = i < later->len ? &later->ev[i] : NULL;
    if (i == 0 || (r1 && r1->kind != LU_HIST_RETURN) || (r2 && r2->kind != LU_HIST_RETURN))
        return;
    unsigned op = first->ev[i - 1].op;
    size_t calls = i / 2 + 1;
    if (calls == 1)
        lu_hist_buf_printf(b, "where they differ: their first call, %s, ", lu__htest.ops[op].label);
    else
        lu_hist_buf_printf(
            b, "where they differ: both make the same %zu calls in the same order, and the last, %s, ", calls,
            lu__htest.ops[op].label);
    for (int k = 0; k < 2; k++) {
        const struct lu_hist_event *r = k ? r2 : r1;
        bool same_verb = k && r1 && r2;
        if (k)
            lu_hist_buf_puts(b, " and ");
        if (r && !same_verb)
            lu_hist_buf_puts(b, "returned ");
        if (r)
            lu_hist_render_result(b, &r->res);
        else
            lu_hist_buf_puts(b, "got stuck");
        lu_hist_buf_puts(b, k ? " in the later one\n" : " in the first");
    }
}

/* Which invocations of the test's threads were called, and which returned,
 * in this serial execution: one called but never returning in any test is
 * worth a note (a call that blocks whatever ran before it leaves the calls
 * after it unchecked). One never called (behind such a call in its
 * thread) says nothing. bounded: the execution was taken for stuck while
 * the object's own threads still changed memory (lu_sched_result.bounded),
 * which the note also says of the calls it left pending. */
static void lu__note_returned(bool bounded)
{
    uint64_t pending = bounded ? lu_hist_pending(&lu__hist) : 0;
    for (size_t i = 0; i < lu__hist.len; i++) {
        const struct lu_hist_event *e = &lu__hist.ev[i];
        if (e->kind != LU_HIST_RETURN && e->kind != LU_HIST_CALL)
            continue;
        const struct lu_hist_op *op = &lu__htest.ops[e->op];
        if (op->thread >= W->job.test.nthreads) /* setup and teardown calls */
            continue;
        unsigned cell = W->job.test.cell[op->thread][op->pos];
        if (cell >= 64)
            continue;
        *(e->kind == LU_HIST_RETURN ? &W->returned_cells : &W->called_cells) |= 1ULL << cell;
        if (e->kind == LU_HIST_CALL && e->op < 64 && (pending >> e->op & 1))
            W->bounded_cells |= 1ULL << cell;
    }
}

static double lu__phase1_secs; /* phase 1's wall time (lu__recheck's limit) */

static uint64_t lu__rss_anon(void);

static void lu__count_fd(const char *name, void *n)
{
    if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0)
        ++*(unsigned *)n;
}

/* Open file descriptors of this process, at most limit (getdents64 on
 * /proc/self/fd: no allocation), or 0 when /proc cannot tell; limit when
 * there is none left to count them with. */
static unsigned lu__fd_count(rlim_t limit)
{
    unsigned n = 0, most = limit < UINT_MAX / 2 ? (unsigned)limit : UINT_MAX / 2;
    if (lu__each_entry("/proc/self/fd", lu__count_fd, &n) < 0)
        return errno == EMFILE ? most : 0;
    n = n ? n - 1 : 0; /* not the directory's own */
    return n < most ? n : most;
}

/* Whether the descriptors open now passed half the room RLIMIT_NOFILE left
 * above base: code under test that leaks them would soon get EMFILE from
 * lineup's processes, which keep what each execution leaks, where natively
 * each run has them all. */
static bool lu__fds_grew(unsigned base, unsigned *now, unsigned long long *limit)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur <= base)
        return false;
    *limit = (unsigned long long)rl.rlim_cur;
    *now = lu__fd_count(rl.rlim_cur);
    return *now > base + (rl.rlim_cur - base) / 2;
}

/* Before a result becomes a verdict: descriptors at the limit mean a call
 * may have met EMFILE that natively would not (the counts between
 * executions come every 16 at most, and one execution may leak many). */
static void lu__fd_guard(int phase)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return;
    unsigned now = lu__fd_count(rl.rlim_cur);
    if (now + 8 < rl.rlim_cur)
        return;
    lu__fail(
        LU_DRV_V_HARNESS, phase,
        "harness %s: the code under test leaks file descriptors: %u open of the %llu that ulimit -n allows "
        "when phase %d found a failure, which may come from a call that met EMFILE (lineup's processes "
        "keep what each execution leaks, where natively each run has every descriptor); close them in "
        "the calls or in destroy()\n",
        H->name, now, (unsigned long long)rl.rlim_cur, phase);
}

/* Phase 1 keeps what each serial execution leaks, in one process: what the
 * code under test maps itself (mmap) escapes the heap cap, so resident
 * memory is read every 16 serial executions too (n), against the same cap,
 * from base (at phase 1's start); and its descriptors, from fds. */
static void lu__phase1_rss_check(uint64_t n, uint64_t base, unsigned fds)
{
    if (n % 16)
        return;
    /* descriptors and children cost a few system calls each: every 16
     * serial executions while some leak, up to every 256 while none
     * does (most harnesses; phase 1's executions are short) */
    static uint64_t next, every;
    static unsigned seen;
    if (n == 0) {
        next = every = 16;
        seen = fds;
    }
    unsigned now = seen;
    unsigned long long limit = 0;
    bool grew = false;
    if (n && n >= next) {
        bool swept = lu__sweep_children();
        grew = lu__fds_grew(fds, &now, &limit);
        every = swept || (now && now != seen) ? 16 : every < 256 ? every * 2 : 256;
        seen = now;
        next = n + every;
    }
    if (grew)
        lu__fail(LU_DRV_V_HARNESS, 1,
                 "harness %s: the code under test leaks file descriptors: %u open after %" PRIu64
                 " serial executions, %u at phase 1's start, of the %llu that ulimit -n allows (phase 1 runs "
                 "every serial order of the test in one process, which keeps what each leaks, so its calls "
                 "would soon fail with EMFILE where natively they do not); close them in the calls or in "
                 "destroy()\n",
                 H->name, now, n, fds, limit);
    if (!W->job.heap_cap_mb)
        return;
    uint64_t rss = lu__rss_anon();
    if (rss <= base + ((uint64_t)W->job.heap_cap_mb << 20))
        return;
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_hist_buf_printf(
        &b,
        "out of memory: the resident memory of lineup's process for this test grew by %" PRIu64
        " MB in phase 1 (what the code under test mapped itself, with mmap, and did not unmap), "
        "past the %" PRIu32
        " MB a test process may use (the memory available shared by the jobs); lineup stopped the "
        "test before it exhausted the machine's memory\n(phase 1 runs every serial order of the "
        "test in one process, which keeps what each leaks)\n",
        (rss - base) >> 20, W->job.heap_cap_mb);
    lu__memory_state(&b, lu_rt_heap_live(), true);
    lu__report_test(&b);
    lu__set_report(&b);
    lu__finish(LU_DRV_V_MEMORY, 1);
}

/* Phase 1's limit (jobs that leave it 0: replays, probes) */
static uint64_t lu__max_serial(void)
{
    return W->job.max_serial ? W->job.max_serial : LU_DRV_MAX_SERIAL;
}

/* The report of two serial executions that disagree. */
static void lu__nondet_report(struct lu_hist_buf *b, const struct lu_hist *first, const char *context)
{
    lu_hist_buf_puts(b, "nondeterminism: two serial executions that make the same calls in the same "
                        "order up to a point disagree on a result there, so no deterministic sequential "
                        "specification explains the object\n");
    if (context)
        lu_hist_buf_puts(b, context);
    lu_hist_buf_puts(b, "test:\n");
    lu__report_test(b);
    lu_hist_buf_puts(b, "serial execution seen first:\n    ");
    lu_hist_render_serial(b, &lu__htest, first);
    lu_hist_buf_puts(b, "\nserial execution seen later:\n    ");
    lu_hist_render_serial(b, &lu__htest, &lu__hist);
    lu_hist_buf_puts(b, "\n");
    lu__report_divergence(b, first, &lu__hist);
}

static struct lu_lin_spec *lu__phase1(void)
{
    double t0 = lu_drv_now();
    atomic_store(&W->phase, 1);
    lu__serial = true;
    struct lu_lin_spec *spec = lu_lin_spec_create(&lu__htest);
    if (!spec) {
        errno = ENOMEM;
        lu__fail_sys(LU_SCHED_NEED_MEMORY, "out of memory for the specification", 0);
    }
    struct lu_sched *s = lu__sched_new(&(struct lu__sched_opts){.strategy = LU_SCHED_DFS, .bound = -1});
    struct lu_sched_result res;
    struct lu_hist conflict;
    lu_hist_init(&conflict);
    uint64_t n = 0, assumed = 0, rss0 = lu__rss_anon();
    unsigned fds0 = lu__fd_count(RLIM_INFINITY);
    int most_threads = 0;
    while (lu_sched_more(s)) {
        lu__phase1_rss_check(n, rss0, fds0);
        if (n++ >= lu__max_serial()) {
            W->phase1_over = true;
            /* the serial orders fit (the parent checked): what multiplies
             * them is mostly the interleavings of threads the object or its
             * calls start */
            if (most_threads > (int)W->job.test.nthreads + 1)
                lu__fail(LU_DRV_V_HARNESS, 1,
                         "phase 1 needs more than %u serial executions; use a smaller matrix (they ran up to "
                         "%d threads, more than the test's %u and the main thread: each interleaving of the "
                         "threads that the object or its calls start is a serial execution of its own)\n",
                         (unsigned)lu__max_serial(), most_threads, W->job.test.nthreads);
            lu__fail(LU_DRV_V_HARNESS, 1,
                     "phase 1 needs more than %u serial executions; use a smaller matrix\n",
                     (unsigned)lu__max_serial());
        }
        lu__run_one(s, &res, 1);
        if (res.nthreads > most_threads)
            most_threads = res.nthreads;
        lu__outcome_finding(&res, 1);
        lu__note_returned(res.bounded &&
                          (res.outcome == LU_SCHED_OUT_DEADLOCK || res.outcome == LU_SCHED_OUT_LIVELOCK));
        /* a spinning thread chosen at a cost kept spinning: another schedule
         * has what this one would (an object's own thread that polls) */
        if (res.outcome == LU_SCHED_OUT_DISCARDED) {
            if (res.message && strncmp(res.message, "__VERIFIER_assume", 17) == 0)
                assumed++;
            continue;
        }
        if (res.outcome == LU_SCHED_OUT_DEADLOCK || res.outcome == LU_SCHED_OUT_LIVELOCK) {
            /* a setup call that never returns leaves the test's calls
             * unchecked (no specification), and so does getting stuck
             * outside the calls: the harness's doing */
            char why[200] = "";
            for (unsigned i = 0; i < lu__nsetup && !why[0]; i++)
                if (lu_hist_pending(&lu__hist) >> lu__setup_id[i] & 1)
                    snprintf(why, sizeof why, "the setup call %s never returned in a serial execution (%s)",
                             lu__htest.ops[lu__setup_id[i]].label, lu_sched_outcome_name(res.outcome));
            if (!why[0] && lu__pending_count() != 1)
                snprintf(
                    why, sizeof why,
                    "a serial execution got stuck outside the test's calls (in create, destroy or between "
                    "calls, with %u call%s pending)",
                    lu__pending_count(), lu__pending_count() == 1 ? "" : "s");
            if (why[0]) {
                /* where: the threads that block or spin */
                struct lu_hist_buf tb;
                lu_hist_buf_init(&tb);
                lu__report_threads(&tb, &res);
                lu__fail(LU_DRV_V_HARNESS, 1, "harness %s: %s%s\n%s", H->name, why, tb.len ? ":" : "",
                         tb.s ? tb.s : "");
            }
            lu__hist.stuck = true;
        } else if (lu__pending_count() != 0) {
            lu__fail(LU_DRV_V_INTERNAL, 1, "a complete execution left calls pending\n");
        }
        int rc = lu_lin_spec_add(spec, &lu__hist, &conflict);
        W->spec_checks++;
        /* as it goes: a test stopped in phase 1 reports what it saw */
        W->serial_full = lu_lin_spec_full_count(spec);
        W->serial_stuck = lu_lin_spec_stuck_count(spec);
        if (rc == -1) {
            errno = ENOMEM;
            lu__fail_sys(LU_SCHED_NEED_MEMORY, "out of memory recording a serial history", 0);
        }
        if (rc < 0)
            lu__fail(LU_DRV_V_INTERNAL, 1, "recording a serial history failed (%d)\n", rc);
        if (rc == 1) {
            lu__fd_guard(1);
            struct lu_hist_buf b;
            lu_hist_buf_init(&b);
            lu__nondet_report(&b, &conflict, NULL);
            if (lu__hist.stuck) {
                /* the blocked side is this execution: where it waits is
                 * often the bug (a lost wakeup among the object's threads,
                 * an audit's, said only "got stuck") */
                lu_hist_buf_puts(&b, "where the later one got stuck:\n");
                lu__report_threads(&b, &res);
            }
            lu__set_report(&b);
            lu__finish(LU_DRV_V_NONDET, 1);
        }
    }
    /* Phase 2's schedules without a preemption are phase 1's when every
     * switch here was at a call's boundary: no thread but the driver's
     * (thread 0, which waits for the others) ever stalled inside a call,
     * and no thread besides the test's ran. A stalled thread would let the
     * others run in the middle of its call at no cost in phase 2. */
    struct lu_sched_stats st;
    lu_sched_stats(s, &st);
    lu__serial_only = !(st.stalled & ~1ULL) && most_threads == (int)W->job.test.nthreads + 1;
    lu_sched_destroy(s);
    lu_hist_free(&conflict);
    W->serial_full = lu_lin_spec_full_count(spec);
    W->serial_stuck = lu_lin_spec_stuck_count(spec);
    /* no serial execution to check against: every history would pass */
    if (assumed && !W->serial_full && !W->serial_stuck)
        lu__fail(LU_DRV_V_HARNESS, 1,
                 "harness %s: every serial execution ended at a false __VERIFIER_assume, so the test has no "
                 "serial behaviour to check its concurrent ones against\n",
                 H->name);
    W->phase1_done = true;
    lu__sweep_children(); /* before the explorers, lineup's own children */
    lu__phase1_secs = lu_drv_now() - t0;
    return spec;
}

/* Phase 2 found a history that no serial execution explains, or a stuck
 * one. The object may be nondeterministic in a way phase 1 cannot see: it
 * runs each serial order once, and compares orders only where they make
 * the same calls from the same threads, so an object that returns rand()'s
 * next value, or keeps state that create() does not reset, can pass it and
 * then fail phase 2 on results no serial order had. The keeper's memory is
 * as phase 1 left it (explorers ran phase 2), so a child forked from it runs
 * the serial executions again, from the state they left, and adds each to
 * phase 1's specification: one that disagrees is nondeterminism, which
 * phase 2's failure may come from, and which is then the finding. The
 * child works on a private copy of the shared state and writes only that
 * report there (and a count for --timeout's progress); a child that
 * crashes or runs past a few times phase 1's time changes nothing.
 * Returns whether it found nondeterminism (W->report holds its report). */
static bool lu__recheck(struct lu_lin_spec *spec)
{
    struct lu_drv_shm *shared = W;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        struct lu_drv_shm *own =
            mmap(NULL, lu_drv_shm_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (own == MAP_FAILED)
            _exit(0);
        memcpy(own, shared, sizeof *own);
        W = own;
        L = &W->lane;
        L->trace = &W->trace;
        L->trace->len = 0;
        L->g = lu_drv_shm_stack(W);
        lu__serial = true;
        /* what its executions start is swept when it ends (lu__sweep_children
         * at each exit below); killed at the limit, the worker, a subreaper
         * too, gets it to sweep */
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        struct lu_sched *s = lu__sched_new(&(struct lu__sched_opts){.strategy = LU_SCHED_DFS, .bound = -1});
        struct lu_sched_result res;
        struct lu_hist conflict;
        lu_hist_init(&conflict);
        for (uint64_t n = 0; lu_sched_more(s) && n < lu__max_serial(); n++) {
            lu__run_one(s, &res, 1);
            atomic_fetch_add(&shared->executions[0], 1);
            if (res.outcome == LU_SCHED_OUT_DISCARDED)
                continue;
            if (res.outcome == LU_SCHED_OUT_DEADLOCK || res.outcome == LU_SCHED_OUT_LIVELOCK)
                lu__hist.stuck = true;
            else if (res.outcome != LU_SCHED_OUT_COMPLETE || lu__pending_count() != 0) {
                lu__sweep_children();
                _exit(0);
            }
            if (lu_lin_spec_add(spec, &lu__hist, &conflict) == 1) {
                struct lu_hist_buf b;
                lu_hist_buf_init(&b);
                lu__nondet_report(
                    &b, &conflict,
                    "(seen when phase 2 had failed and the serial executions ran again, from the "
                    "state phase 1 left: phase 2's failure may come from this, and says nothing "
                    "of linearizability until the object is deterministic)\n");
                lu__copy_report(shared->report, sizeof shared->report, &b);
                lu__sweep_children();
                _exit(1);
            }
        }
        lu__sweep_children();
        _exit(0);
    }
    /* the limit: phase 1's time a few times over, and well within --timeout */
    double limit = 3 * lu__phase1_secs + 2, t0 = lu_drv_now();
    int st = 0;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            return false;
        if (lu_drv_now() - t0 > limit) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return false;
        }
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
    return WIFEXITED(st) && WEXITSTATUS(st) == 1;
}

/* A phase-2 history in which no two calls overlap is itself a serial
 * execution, of an order phase 1 ran too: results phase 1 did not see mean
 * that the object depends on something besides the order of its calls
 * (state outside it, the clock, addresses), not that it is not
 * linearizable. With one call per thread, phase 1 cannot see that itself. */
static bool lu__serial_mismatch(bool stuck)
{
    return !stuck && lu_hist_is_serial(&lu__hist);
}

/* What the check of a phase-2 history found (lu__check_phase2). */
enum lu__p2 {
    LU__P2_PASS,
    LU__P2_VIOLATION,   /* complete, or stuck after every call returned, with results no serial order has */
    LU__P2_STUCK,       /* a call is stuck where no serial execution gets stuck (Definition 2) */
    LU__P2_STUCK_AFTER, /* stuck after every call returned, with results a serial order explains */
};

/* A stuck execution whose calls all returned got stuck in destroy(), in a
 * teardown call that is not in the history yet, or in a thread the calls
 * left running. No serial execution does that (phase 1 refuses one as a
 * harness error), so it has no serial explanation; its results are checked
 * as a complete history's first, since a wrong result is the better report
 * of the two. */
static enum lu__p2 lu__check_phase2(struct lu_lin_spec *spec, bool stuck, struct lu_lin_verdict *v,
                                    struct lu_lin_stats *st)
{
    if (stuck && lu_hist_pending(&lu__hist)) {
        lu_lin_check_stuck(spec, &lu__hist, v, st);
        return v->ok ? LU__P2_PASS : LU__P2_STUCK;
    }
    lu_lin_check_full(spec, &lu__hist, v, st);
    if (!v->ok)
        return LU__P2_VIOLATION;
    if (!stuck)
        return LU__P2_PASS;
    v->ok = false;
    return LU__P2_STUCK_AFTER;
}

/* Heads the blocked threads of an execution stuck after every call
 * returned (the timeline, with no call pending, shows nothing of it). */
static void lu__stuck_after_line(struct lu_hist_buf *b, const struct lu_sched_result *res)
{
    if (!lu_hist_pending(&lu__hist))
        lu_hist_buf_printf(b, "then the execution got stuck (%s), after every call returned:\n",
                           lu_sched_outcome_name(res->outcome));
}

static void lu__render_witness(struct lu_hist_buf *b, const struct lu_lin_verdict *v)
{
    for (unsigned i = 0; i < v->witness_len; i++)
        lu_hist_buf_printf(b, "%s%s", i ? " " : "", lu__htest.ops[v->witness[i]].label);
}

static void lu__violation_report(struct lu_hist_buf *b, struct lu_lin_spec *spec,
                                 const struct lu_lin_verdict *v, const struct lu_sched_result *res,
                                 enum lu__p2 kind)
{
    bool stuck = kind == LU__P2_STUCK || kind == LU__P2_STUCK_AFTER;
    bool ended_stuck = res->outcome == LU_SCHED_OUT_DEADLOCK || res->outcome == LU_SCHED_OUT_LIVELOCK;
    if (kind == LU__P2_STUCK_AFTER) {
        lu_hist_buf_printf(
            b,
            "stuck after every call returned (%s): the execution did not end after its last call "
            "returned (stuck in destroy(), in a teardown call or in a thread the calls left "
            "running), which no serial execution of these calls does\n",
            lu_sched_outcome_name(res->outcome));
    } else if (lu__serial_mismatch(stuck)) {
        lu_hist_buf_puts(
            b, "nondeterminism: in this execution no two calls overlap, yet its results differ from "
               "phase 1's serial execution of the same calls in the same order: the object depends "
               "on something besides the order of its calls (state outside the object: static or "
               "thread-local variables, which keep their values between executions; the clock, "
               "addresses, thread ids; or the timing of the object's own threads, which phase 1 runs "
               "only when a call waits for them)\n");
    } else if (stuck) {
        lu_hist_buf_printf(
            b,
            "stuck history with no serial explanation (%s): %s is stuck, but no serial execution "
            "of the calls that completed before it, in an order this history allows, gets stuck there\n",
            lu_sched_outcome_name(res->outcome),
            v->failing_op >= 0 ? lu__htest.ops[v->failing_op].label : "a call");
    } else {
        lu_hist_buf_puts(b,
                         "linearizability violation: no serial execution of these calls explains the results "
                         "of this concurrent history\n");
        /* main and the test's threads, and more: the object's own (a
         * worker, a flusher) or threads the calls started */
        if (res->nthreads > (int)W->job.test.nthreads + 1)
            lu_hist_buf_puts(b,
                             "(threads besides the calls' ran here: phase 1 runs them only when a call waits "
                             "for them, so a result that depends only on their timing shows here too, as a "
                             "violation: see whether the results depend on it)\n");
    }
    lu_hist_buf_puts(b, "test:\n");
    lu__report_test(b);
    const struct lu_sched_trace *tr = L->trace;
    unsigned np = tr->len ? (unsigned)tr->steps[tr->len - 1].preempts : 0u;
    /* a schedule the default's POS part drew is not bounded: say why it
     * has more preemptions than --preemptions */
    lu_hist_buf_printf(b, "concurrent history (phase 2, execution %" PRIu64 ", %u %s%s%s):\n",
                       atomic_load(&W->executions[2]), np,
                       W->pool.bound_kind == LU_SCHED_BOUND_DELAYS ? "delay" : "preemption",
                       np == 1 ? "" : "s", W->pool.sampling ? ", sampled by POS" : "");
    lu_hist_render_timeline(b, &lu__htest, &lu__hist);
    /* a timed wait that gave up is part of why (the replay says where);
     * the first 16, as the replay shows them: a retry loop may give up
     * thousands of times, which cut the rest of the report off (an audit) */
    unsigned ntimeouts = 0;
    for (uint32_t i = 0; i < tr->len; i++) {
        const struct lu_sched_step *st = &tr->steps[i];
        if (st->kind == LU_SCHED_CHOOSE_THREAD && (st->flags & LU_SCHED_STEP_TIMEOUT) &&
            ++ntimeouts <= LU_DRV_LIST_SHOWN) {
            lu_hist_buf_puts(b, "timed out: ");
            lu__tname(b, st->chosen);
            lu_hist_buf_printf(b, "'s %s (step %u)\n", lu_sched_label_name(st->label), i);
        }
    }
    if (ntimeouts > LU_DRV_LIST_SHOWN)
        lu_hist_buf_printf(b, "timed out: (%u more)\n", ntimeouts - LU_DRV_LIST_SHOWN);
    if (ended_stuck)
        lu__stuck_after_line(b, res);
    if (ended_stuck)
        lu__report_threads(b, res);
    lu_hist_buf_puts(b, "serial histories of these calls (phase 1):\n");
    lu_lin_spec_render_group(b, spec, &lu__hist, v->failing_op, 12);
    lu_hist_buf_puts(b, "why: ");
    if (kind == LU__P2_STUCK_AFTER) {
        lu_hist_buf_puts(b, "every call returned, with results the serial order ");
        lu__render_witness(b, v);
        lu_hist_buf_puts(b, " explains, but what the calls left behind (a lock never released, a thread "
                            "waiting for good) kept the execution from ending; no serial execution of these "
                            "calls gets stuck");
    } else {
        lu_lin_explain(b, spec, &lu__hist, v);
    }
    lu_hist_buf_puts(b, "\n");
}

static unsigned lu__want(void)
{
    return W->job.want ? W->job.want : (1u << LU_DRV_F_COUNT) - 1;
}

/* Phase 2 ends: the verdict is the first kind of finding (violation before
 * stuck history), whatever order the search met them in, so that it does
 * not depend on the strategy's order or on how explorers split the work. */
static void lu__finish_findings(struct lu_lin_spec *spec)
{
    bool any = false;
    for (int f = 0; f < LU_DRV_F_COUNT; f++)
        any |= W->findings[f].verdict == LU_DRV_V_VIOLATION || W->findings[f].verdict == LU_DRV_V_STUCK;
    if (any && lu__recheck(spec)) {
        for (int f = 0; f < LU_DRV_F_COUNT; f++)
            W->findings[f].verdict = LU_DRV_V_PASS;
        lu__finish(LU_DRV_V_NONDET, 1);
    }
    for (int f = 0; f < LU_DRV_F_COUNT; f++)
        if (W->findings[f].verdict != LU_DRV_V_PASS)
            lu__finish(W->findings[f].verdict, 2);
}

static void lu__found(struct lu_lin_spec *spec, const struct lu_lin_verdict *v,
                      const struct lu_sched_result *res, enum lu__p2 kind)
{
    bool stuck = kind == LU__P2_STUCK || kind == LU__P2_STUCK_AFTER;
    int f = stuck ? LU_DRV_F_STUCK : LU_DRV_F_VIOLATION;
    struct lu_drv_finding *fd = &W->findings[f];
    if (fd->verdict != LU_DRV_V_PASS)
        return;
    lu__fd_guard(2); /* the first of its kind only: the rest are not reported */
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu__violation_report(&b, spec, v, res, kind);
    struct lu_drv_pool *p = &W->pool;
    lu_drv_pool_lock(p);
    if (fd->verdict == LU_DRV_V_PASS) {
        lu__copy_report(fd->report, sizeof fd->report, &b);
        fd->sched_len = L->trace->len;
        fd->hist = lu_hist_hash_canon(&lu__hist);
        memcpy(fd->sched, L->trace->steps, L->trace->len * sizeof fd->sched[0]);
        fd->verdict = stuck                        ? LU_DRV_V_STUCK
                      : lu__serial_mismatch(stuck) ? LU_DRV_V_NONDET
                                                   : LU_DRV_V_VIOLATION;
    }
    unsigned have = 0;
    for (int i = 0; i < LU_DRV_F_COUNT; i++)
        if (W->findings[i].verdict != LU_DRV_V_PASS)
            have |= 1u << i;
    bool enough = (have & lu__want()) == lu__want() || (W->job.want && (have & W->job.want));
    if (enough)
        atomic_store(&p->stop, 1);
    lu_drv_pool_unlock(p);
    lu_hist_buf_free(&b);
    if (enough) {
        lu_drv_pool_wake(p);
        lu__explorer_exit(LU_DRV_EXIT_DONE);
    }
}

/* ---- phase 2: explorers ---- */

static struct lu_drv_seen *lu__seen;
static struct lu_drv_items *lu__items;
static struct lu_drv_lane *lu__lanes[LU_DRV_MAX_EXPLORERS];
static uint64_t lu__rss_base;

#define LU__RANDOM_CHUNK 256 /* randomized strategies: executions per scheduler seed (a restart point) */
/* Executions on a stack before it gives work away: a new scheduler costs
 * ~0.2 ms. LINEUP_SPLIT_AFTER overrides it (tests split as often as they
 * can). */
static uint64_t lu__give_after = 256;

/* /proc/PID/statm of this process, kept open: a pread of it costs a fifth
 * of an open, read and close (1 us against 5 us here, every 16 executions
 * of 7 us). */
static struct {
    int fd;
    pid_t pid;
    dev_t dev;
    ino_t ino;
} lu__statm = {-1, 0, 0, 0};

/* Private resident memory of this process, in bytes: also what the code
 * under test maps itself, which the heap count does not see. */
static uint64_t lu__rss_anon(void)
{
    char buf[128];
    struct stat st;
    /* An explorer forked from the keeper inherits the keeper's descriptor,
     * and the code under test may have closed it and opened another file
     * under its number, which is then not ours to close. */
    if (lu__statm.fd >= 0) {
        if (fstat(lu__statm.fd, &st) != 0 || st.st_dev != lu__statm.dev || st.st_ino != lu__statm.ino)
            lu__statm.fd = -1;
        else if (lu__statm.pid != getpid()) {
            close(lu__statm.fd);
            lu__statm.fd = -1;
        }
    }
    if (lu__statm.fd < 0) {
        int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return 0;
        if (fstat(fd, &st) != 0) {
            close(fd);
            return 0;
        }
        lu__statm.fd = fd;
        lu__statm.pid = getpid();
        lu__statm.dev = st.st_dev;
        lu__statm.ino = st.st_ino;
    }
    ssize_t n = pread(lu__statm.fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    unsigned long long size, res, shared;
    if (sscanf(buf, "%llu %llu %llu", &size, &res, &shared) != 3)
        return 0;
    return (uint64_t)(res > shared ? res - shared : 0) * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Stuck executions leak what the code under test allocated (the object,
 * nodes held by the stuck calls): destroy() cannot run on an object whose
 * operations were cut off mid-way without risking a crash or a hang that
 * would be reported as a bug in the code. Instead an explorer that grew
 * too much ends, and the keeper forks a fresh one from its clean state.
 * The heap count is exact and costs one load, so it is checked after every
 * execution; resident memory, for what the code maps itself, costs a read
 * of /proc and is checked every 16. */
static uint64_t lu__next_check;
static unsigned lu__fd_base; /* descriptors open when this explorer began */
static unsigned lu__fd_last; /* and at the last count (lu__fd_watch) */
static rlim_t lu__fd_limit;  /* RLIMIT_NOFILE when this explorer began (0: none to watch) */

static bool lu__should_recycle(void)
{
    if (W->job.recycle_every)
        return lu__ran_here >= W->job.recycle_every;
    uint64_t limit = (uint64_t)W->job.recycle_mb << 20;
    if (lu_rt_heap_live() - lu__heap_base > (int64_t)limit)
        return true;
    if (lu__ran_here < lu__next_check)
        return false;
    lu__next_check = lu__ran_here + 16;
    /* descriptors the code under test leaks (counted by lu__fd_watch): a
     * fresh explorer has the keeper's */
    return lu__rss_anon() > lu__rss_base + limit ||
           (lu__fd_limit > lu__fd_base && lu__fd_last > lu__fd_base + (lu__fd_limit - lu__fd_base) / 2);
}

/* LINEUP_TRACE_NAMES (lu_drv.h): the line of an execution that ran to its
 * end. */
static void lu__trace_name_out(const struct lu_sched_result *res)
{
    /* FNV-1a over the harness's name and the test: the same test of the
     * same harness in every explorer and restart. A worker has one job, so
     * once per process. */
    static uint64_t h;
    if (!h) {
        h = 0xcbf29ce484222325ULL;
        const unsigned char *b = (const unsigned char *)W->job.harness_name;
        for (size_t i = 0; b[i]; i++)
            h = (h ^ b[i]) * 0x100000001b3ULL;
        b = (const unsigned char *)&W->job.test;
        for (size_t i = 0; i < sizeof W->job.test; i++)
            h = (h ^ b[i]) * 0x100000001b3ULL;
    }
    if (res->trace_named)
        dprintf(lu_drv_trace_names_fd, "%016" PRIx64 " %d %016" PRIx64 "%016" PRIx64 "\n", h, lu__names_bound,
                res->trace_name[0], res->trace_name[1]);
    else
        dprintf(lu_drv_trace_names_fd, "%016" PRIx64 " %d -\n", h, lu__names_bound);
}

/* Returns the execution's scheduling points. */
/* Descriptors the code under test leaks, in phase 2: an explorer restarts
 * past half the room (lu__should_recycle), but the randomized strategies
 * restart only between chunks of executions, and one execution may leak
 * many. Near the limit, checked after every execution from three quarters
 * of the room on (every 16 or 256 below that), before its history is judged: an
 * execution that may have met EMFILE is no verdict. */
static void lu__fd_watch(void)
{
    if (lu__fd_limit <= lu__fd_base)
        return;
    /* a count costs an open, a getdents and a close (some 3 us): every 16
     * executions where the room is small, every 256 where it is large */
    rlim_t room = lu__fd_limit - lu__fd_base;
    bool near = lu__fd_last > lu__fd_base + room / 4 * 3;
    if (!near && lu__ran_here % (room < 4096 ? 16 : 256))
        return;
    lu__fd_last = lu__fd_count(lu__fd_limit);
    if (lu__fd_last + 4 >= lu__fd_limit)
        lu__fail(LU_DRV_V_HARNESS, 2,
                 "harness %s: the code under test leaks file descriptors: %u open of the %llu that ulimit -n "
                 "allows, %u when this process began its %" PRIu64
                 " executions (lineup's processes keep what each execution leaks, so its calls would fail "
                 "with EMFILE where natively they do not); close them in the calls or in destroy()\n",
                 H->name, lu__fd_last, (unsigned long long)lu__fd_limit, lu__fd_base, lu__ran_here);
}

static uint32_t lu__phase2_execution(struct lu_lin_spec *spec, struct lu_sched *s)
{
    struct lu_sched_result res;
    lu__run_one(s, &res, 2);
    lu__fd_watch();
    if (lu__ran_here % 256 == 255)
        lu__sweep_children();
    atomic_fetch_add(&W->explorer_executions[lu__lane_no], 1);
    lu__outcome_finding(&res, 2);
    if (res.outcome == LU_SCHED_OUT_DISCARDED) {
        if (res.redundant)
            atomic_fetch_add(&W->cut, 1);
        return res.steps; /* redundant (partial-order reduction): its history is incomplete */
    }
    if (lu_drv_trace_names_fd >= 0)
        lu__trace_name_out(&res);
    bool stuck = res.outcome == LU_SCHED_OUT_DEADLOCK || res.outcome == LU_SCHED_OUT_LIVELOCK;
    if (stuck)
        atomic_fetch_add(&W->stuck, 1);
    lu__hist.stuck = stuck;
    /* one check per real-time order and results: the reduction explores
     * only one order of consecutive calls (returns) anyway */
    uint64_t hash = lu_hist_hash_canon(&lu__hist);
    int fresh = lu_drv_seen_insert(lu__seen, hash);
    if (fresh < 0 && lu_drv_seen_limited(lu__seen)) {
        errno = ENOMEM; /* the table is small for lack of address space */
        lu__fail_sys(LU_SCHED_NEED_MEMORY,
                     "more distinct histories than the table of distinct histories can keep",
                     lu_drv_seen_full_size());
    }
    if (fresh < 0)
        lu__fail(LU_DRV_V_INTERNAL, 2, "more distinct histories than lineup can keep\n");
    if (!fresh)
        return res.steps; /* checked before, by this explorer or another */
    struct lu_lin_verdict v;
    struct lu_lin_stats st;
    memset(&v, 0, sizeof v);
    memset(&st, 0, sizeof st);
    v.failing_op = -1;
    enum lu__p2 kind = lu__check_phase2(spec, stuck, &v, &st);
    /* counted once checked: an explorer stopped during a check (Ctrl-C,
     * another's crash) leaves the counts equal */
    atomic_fetch_add(&W->histories, 1);
    atomic_fetch_add(&W->digest, hash);
    atomic_fetch_add(&W->checks, st.checks);
    if (kind != LU__P2_PASS)
        lu__found(spec, &v, &res, kind);
    return res.steps;
}

static void lu__sched_done(struct lu_sched *s)
{
    struct lu_sched_stats ss;
    lu_sched_stats(s, &ss);
    atomic_fetch_add(&W->points, ss.points);
    atomic_fetch_add(&W->pool.pruned, ss.pruned);
    lu_sched_destroy(s);
}

static void lu__check_stop(void)
{
    if (atomic_load(&W->pool.stop))
        lu__explorer_exit(LU_DRV_EXIT_DONE);
}

/* The budget is per test, shared by the explorers (there is one when it
 * is finite) and kept across restarts; DEFAULT's systematic part has its
 * share of it. */
static void lu__charge_budget(void)
{
    uint64_t max = W->job.max_executions;
    if (lu_drv_default_samples(W->job.strategy, max))
        max = lu_drv_default_systematic(max);
    if (max && atomic_fetch_add(&W->pool.budget_used, 1) >= max) {
        W->truncated = true;
        atomic_store(&W->pool.stop, 1);
        lu_drv_pool_wake(&W->pool);
        lu__explorer_exit(LU_DRV_EXIT_DONE);
    }
}

static bool lu__give_item(void *arg, const struct lu_sched_step *item, uint32_t n)
{
    (void)arg;
    return lu_drv_items_push(lu__items, item, n);
}

/* Gives idle explorers the largest subtrees left: the alternatives of the
 * shallowest step that has some, in the item's own steps or else in the
 * running scheduler's DFS stack (after lu_sched_more the trace holds the
 * next execution's, whose backtracking then skips the alternatives marked
 * done). The scheduler goes on with its sleep sets; a node it leaves is
 * noted in the cache before the explorers given its alternatives finish
 * them, which they do before the round ends (docs/por.md, section 7). */
static void lu__give_away(void)
{
    struct lu_drv_pool *p = &W->pool;
    lu_drv_pool_lock(p);
    unsigned given =
        lu_sched_stack_give(L->g, L->g_len, L->g_base, p->round, p->bound_kind, lu__give_item, NULL);
    if (!given)
        given = lu_sched_stack_give(L->trace->steps, L->trace->len, L->g_len, p->round, p->bound_kind,
                                    lu__give_item, NULL);
    if (given)
        lu_drv_pool_wake(p);
    lu_drv_pool_unlock(p);
}

/* The round's search is over when no explorer holds an item and none is
 * queued; then the next bound starts with the whole tree, or phase 2 ends.
 * Called with the pool locked; true when a new round's root item is the
 * caller's. */
static bool lu__next_round_locked(void)
{
    struct lu_drv_pool *p = &W->pool;
    bool more =
        p->round >= 0 && (p->last_round >= 0 ? p->round < p->last_round : atomic_load(&p->pruned) > 0);
    /* unbounded iterative bounding ends with a round the bound cut nothing
     * of: every schedule, as a bound of -1 says */
    W->complete_bound = p->round >= 0 && p->last_round < 0 && !more ? -1 : p->round;
    if (!more) {
        atomic_store(&p->stop, 1);
        lu_drv_pool_wake(p);
        return false;
    }
    p->round++;
    atomic_store(&p->pruned, 0);
    /* nobody explores between rounds. The last round's entries, one
     * preemption short at every node, would cover none of this one
     * (docs/por.md, section 8): emptied, the table leaves each round's
     * count what it is alone */
    lu_sched_cache_clear(lu__cache);
    L->g_len = L->g_base = 0;
    L->has_item = true;
    p->busy++;
    return true;
}

static bool lu__get_item(void)
{
    struct lu_drv_pool *p = &W->pool;
    lu_drv_pool_lock(p);
    for (;;) {
        if (atomic_load(&p->stop)) {
            lu_drv_pool_unlock(p);
            return false;
        }
        uint32_t len;
        if (lu__items && lu_drv_items_pop(lu__items, L->g, &len)) {
            L->g_len = L->g_base = len;
            L->has_item = true;
            p->busy++;
            lu_drv_pool_unlock(p);
            return true;
        }
        if (p->busy == 0) {
            bool mine = lu__next_round_locked();
            lu_drv_pool_unlock(p);
            return mine;
        }
        atomic_fetch_add(&p->want_work, 1);
        uint32_t seq = atomic_load(&p->seq);
        lu_drv_pool_unlock(p);
        lu_drv_pool_wait(p, seq);
        lu_drv_pool_lock(p);
        atomic_fetch_sub(&p->want_work, 1);
    }
}

/* Explores the lane's item: the subtree below its stack with the
 * scheduler's DFS, then the stack's own alternatives, deepest first. To
 * restart, the scheduler's part of the stack is first taken into the item
 * (the trace holds the DFS stack of the next execution after
 * lu_sched_more). */
static void lu__explore_item(struct lu_lin_spec *spec)
{
    struct lu_drv_pool *p = &W->pool;
    int bound = p->round, kind = p->bound_kind;
    for (;;) {
        struct lu_sched *s =
            lu__sched_new(&(struct lu__sched_opts){.strategy = LU_SCHED_DFS,
                                                   .bound = bound,
                                                   .bound_kind = kind,
                                                   .prefix = L->g,
                                                   .prefix_len = L->g_len,
                                                   .por = W->job.por && kind == LU_SCHED_BOUND_PREEMPTIONS});
        uint64_t ran = 0, since_give = 0;
        while (lu_sched_more(s)) {
            if (ran) {
                lu__check_stop();
                if (lu__should_recycle()) {
                    uint32_t n = L->trace->len;
                    memcpy(L->g + L->g_len, L->trace->steps + L->g_len, (n - L->g_len) * sizeof *L->g);
                    L->g_len = n;
                    lu__sched_done(s);
                    lu__explorer_exit(LU_DRV_EXIT_RECYCLE);
                }
                if (p->nexp > 1 && since_give >= lu__give_after && atomic_load(&p->want_work) > 0 &&
                    lu_drv_items_count(lu__items) == 0) {
                    since_give = 0;
                    lu__give_away();
                }
            }
            lu__charge_budget();
            lu__phase2_execution(spec, s);
            ran++;
            since_give++;
        }
        lu__sched_done(s);
        uint64_t pruned = 0;
        lu_drv_pool_lock(p);
        bool more = lu_sched_stack_next(L->g, &L->g_len, L->g_base, bound, kind, &pruned);
        atomic_fetch_add(&p->pruned, pruned);
        if (!more) {
            L->has_item = false;
            p->busy--;
            if (p->busy == 0)
                lu_drv_pool_wake(p);
        }
        lu_drv_pool_unlock(p);
        if (!more)
            return;
        /* between subtrees the item is the stack alone: a restart point
         * too (after a restart the subtrees are small) */
        if (lu__should_recycle())
            lu__explorer_exit(LU_DRV_EXIT_RECYCLE);
    }
}

static void lu__explore_dfs(struct lu_lin_spec *spec)
{
    for (;;) {
        if (!L->has_item && !lu__get_item())
            return;
        lu__explore_item(spec);
    }
}

/* Randomized strategies: chunks of executions, each with a seed derived
 * from the test's and the chunk's number, so that neither restarts (at
 * chunk boundaries) nor explorers taking chunks in turn change which
 * schedules are drawn. DEFAULT's sampling part draws the chunks --strategy
 * pos would, up to what the systematic part left of the budget. */
static void lu__explore_random(struct lu_lin_spec *spec)
{
    static const enum lu_sched_strategy map[LU_DRV_S_COUNT] = {
        [LU_DRV_S_RANDOM] = LU_SCHED_RANDOM, [LU_DRV_S_PCT] = LU_SCHED_PCT, [LU_DRV_S_POS] = LU_SCHED_POS};
    int strategy = W->pool.sampling ? LU_DRV_S_POS : W->job.strategy;
    uint64_t max = W->job.max_executions;
    if (W->pool.sampling)
        max -= lu_drv_default_systematic(max);
    for (;;) {
        uint64_t chunk = atomic_fetch_add(&W->pool.next_chunk, 1);
        uint64_t start = chunk * LU__RANDOM_CHUNK;
        if (max && start >= max)
            return;
        uint64_t n = max && max - start < LU__RANDOM_CHUNK ? max - start : LU__RANDOM_CHUNK;
        uint64_t z = W->job.seed ^ (chunk + 1) * 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        /* the bound shapes the random walk; PCT and POS have their own
         * notion of depth */
        int bound = strategy == LU_DRV_S_RANDOM ? W->job.preemptions : -1;
        /* PCT learns k, the length of an execution, within the chunk (its
         * first execution has no change point): a chunk's schedules then
         * depend on its seed alone, whichever explorer runs it */
        struct lu_sched *s = lu__sched_new(
            &(struct lu__sched_opts){.strategy = map[strategy], .bound = bound, .seed = z ^ (z >> 31)});
        for (uint64_t i = 0; i < n; i++) {
            if (i)
                lu__check_stop();
            atomic_fetch_add(&W->pool.budget_used, 1);
            lu__phase2_execution(spec, s);
        }
        lu__sched_done(s);
        if (lu__should_recycle())
            lu__explorer_exit(LU_DRV_EXIT_RECYCLE);
    }
}

static pid_t lu__keeper_pid;

static void lu__explorer_main(struct lu_lin_spec *spec, unsigned k)
{
    /* the keeper's death (the parent killed it on timeout) ends us too */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* what the code under test detaches (a double fork) stays ours to
     * sweep; the flag is not inherited */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (getppid() != lu__keeper_pid)
        _exit(0);
    lu__explorer = true;
    lu__lane_no = k;
    L = lu__lanes[k];
    atomic_store(&L->pid, getpid());
    L->exit_reason = LU_DRV_EXIT_NONE;
    lu__ran_here = 0;
    lu__next_check = 16;
    lu__rss_base = lu__rss_anon();
    lu__fd_base = lu__fd_last = lu__fd_count(RLIM_INFINITY);
    struct rlimit nofile;
    lu__fd_limit =
        getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY ? nofile.rlim_cur : 0;
    lu__heap_limits();
    if (lu_drv_strategy_randomized(W->job.strategy) || W->pool.sampling)
        lu__explore_random(spec);
    else
        lu__explore_dfs(spec);
    lu__explorer_exit(LU_DRV_EXIT_DONE);
}

static size_t lu__lane_size(void)
{
    size_t steps = (size_t)LU_DRV_TRACE_CAP * sizeof(struct lu_sched_step);
    return sizeof(struct lu_drv_lane) + lu_sched_trace_size(LU_DRV_TRACE_CAP) + steps + 64;
}

static struct lu_drv_lane *lu__lane_map(void)
{
    size_t steps = (size_t)LU_DRV_TRACE_CAP * sizeof(struct lu_sched_step);
    size_t size = lu__lane_size();
    char *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    struct lu_drv_lane *l = (void *)m;
    l->g = (void *)(m + ((sizeof *l + 63) & ~(size_t)63));
    l->trace = (void *)((char *)l->g + steps);
    l->trace->cap = LU_DRV_TRACE_CAP;
    return l;
}

static struct sigaction lu__harness_sigchld; /* the code under test's, as phase 1 left it */

static pid_t lu__fork_explorer(struct lu_lin_spec *spec, unsigned k)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        sigaction(SIGCHLD, &lu__harness_sigchld, NULL);
        lu__explorer_main(spec, k);
    }
    return pid;
}

/* Ends the keeper the way explorer k ended (a signal, exit() or
 * divergence in the code under test), with k's state where the parent
 * looks for it. */
static void lu__die_like(unsigned k, int status) __attribute__((noreturn));
static void lu__die_like(unsigned k, int status)
{
    struct lu_drv_lane *l = lu__lanes[k];
    if (l != &W->lane) {
        W->lane.nev = l->nev;
        memcpy(W->lane.ev, l->ev, sizeof l->ev);
        W->lane.fatal = l->fatal;
        W->lane.sched_len = l->sched_len;
        memcpy(W->trace.steps, l->trace->steps, l->trace->len * sizeof *l->trace->steps);
        W->trace.len = l->trace->len;
    }
    fflush(NULL);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core); /* the explorer left one if any */
        lu_drv_die_of(sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 3);
}

/* Runs explorers on lanes 0..nexp-1 until every one has ended, each
 * restarted when it ends to shed memory. Returns when they all ended
 * cleanly, or one that owns the result (p->claim) finished it; when the
 * code under test ended one, the keeper ends the same way. */
static void lu__explorers_run(struct lu_lin_spec *spec, unsigned nexp)
{
    struct lu_drv_pool *p = &W->pool;
    pid_t pids[LU_DRV_MAX_EXPLORERS] = {0};
    unsigned live = 0;
    for (unsigned k = 0; k < nexp; k++) {
        if ((pids[k] = lu__fork_explorer(spec, k)) < 0)
            lu__fail_sys(LU_SCHED_NEED_PROCESS, "cannot start an explorer process", 0);
        live++;
    }
    while (live) {
        int status;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            lu__fail(LU_DRV_V_INTERNAL, 2, "waitpid: %s\n", strerror(errno));
        }
        unsigned k = 0;
        while (k < nexp && pids[k] != pid)
            k++;
        if (k == nexp)
            continue;
        int why = lu__lanes[k]->exit_reason;
        bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0 && why != LU_DRV_EXIT_NONE;
        if (clean && why == LU_DRV_EXIT_RECYCLE) {
            atomic_fetch_add(&W->recycles, 1);
            if ((pids[k] = lu__fork_explorer(spec, k)) < 0)
                lu__fail_sys(LU_SCHED_NEED_PROCESS, "cannot restart an explorer process", 0);
            continue;
        }
        pids[k] = 0;
        live--;
        if (clean)
            continue;
        /* the code under test ended explorer k: stop the others, unless
         * one of them already owns a result and is writing it */
        int owner = atomic_load(&p->claim) - 1;
        for (unsigned i = 0; i < nexp; i++)
            if (pids[i] > 0 && (int)i != owner)
                kill(pids[i], SIGKILL);
        for (unsigned i = 0; i < nexp; i++) {
            if (pids[i] > 0) {
                int st;
                waitpid(pids[i], &st, 0);
                pids[i] = 0;
            }
        }
        if (owner >= 0 && lu__lanes[owner]->exit_reason == LU_DRV_EXIT_FINISHED)
            return;
        lu__die_like(k, status);
    }
}

/* The keeper: the worker after phase 1. It never runs code under test
 * again, so its memory stays as phase 1 left it; explorers forked from it
 * do phase 2, and one that ends to shed leaked memory is replaced by a
 * fresh fork that resumes its lane. */
static void lu__phase2(struct lu_lin_spec *spec)
{
    atomic_store(&W->phase, 2);
    lu__serial = false;
    const struct lu_drv_job *j = &W->job;
    bool randomized = lu_drv_strategy_randomized(j->strategy);
    unsigned nexp = lu_drv_job_explorers(j);
    struct lu_drv_pool *p = &W->pool;
    memset(p, 0, sizeof *p);
    p->nexp = nexp;
    p->bound_kind = j->strategy == LU_DRV_S_IDB ? LU_SCHED_BOUND_DELAYS : LU_SCHED_BOUND_PREEMPTIONS;
    int top = j->preemptions;
    switch (j->strategy) {
    case LU_DRV_S_DFS:
        p->round = p->last_round = top;
        break;
    case LU_DRV_S_IPB:
    case LU_DRV_S_IDB:
        p->round = 0;
        p->last_round = top; /* -1: until a round prunes nothing */
        break;
    default:
        p->round = top < 0 ? -1 : 0;
        p->last_round = top;
        break;
    }
    W->complete_bound = -2;
    /* Iterative bounding's first round, every schedule without a
     * preemption, would only run phase 1's serial executions again when
     * phase 1 switched threads only at calls' boundaries (docs/guide.md,
     * section 5): its histories are serial ones phase 1 recorded. Phase 1
     * covered bound 0, and the budget goes to bound 1 on. */
    if (lu__serial_only && p->bound_kind == LU_SCHED_BOUND_PREEMPTIONS && p->round == 0 &&
        p->last_round != 0 && !getenv("LINEUP_ROUND0")) {
        p->round = 1;
        W->complete_bound = 0;
    }
    W->explorers = nexp;
    lu__seen = lu_drv_seen_create();
    if (!lu__seen)
        lu__fail_sys(LU_SCHED_NEED_MEMORY, "cannot map the table of distinct histories",
                     lu_drv_seen_min_size());
    bool split_tree = nexp > 1 && !randomized; /* the samplers split chunks, not a tree */
    lu__items = split_tree ? lu_drv_items_create() : NULL;
    if (split_tree && !lu__items)
        lu__fail_sys(LU_SCHED_NEED_MEMORY, "cannot map the explorers' work queue", lu_drv_items_size());
    /* one prefix-trace cache for the test's explorers and their restarts;
     * without it (no room) the reduction only runs more executions */
    if (!randomized && j->por && p->bound_kind == LU_SCHED_BOUND_PREEMPTIONS && j->cache_mb)
        lu__cache = lu_sched_cache_create((size_t)j->cache_mb << 20);
    unsigned nexp_pos = lu_drv_job_sampling_explorers(j); /* DEFAULT's sampling part, if it runs */
    unsigned nlanes = nexp > nexp_pos ? nexp : nexp_pos;
    lu__lanes[0] = &W->lane;
    for (unsigned k = 1; k < nlanes; k++)
        if (!(lu__lanes[k] = lu__lane_map()))
            lu__fail_sys(LU_SCHED_NEED_MEMORY, "cannot map an explorer's shared memory", lu__lane_size());
    for (unsigned k = 0; k < nexp; k++)
        lu__lanes[k]->has_item = false;
    if (!randomized) {
        lu__lanes[0]->has_item = true; /* the whole tree of the first round */
        lu__lanes[0]->g_len = lu__lanes[0]->g_base = 0;
        p->busy = 1;
    }

    const char *e = getenv("LINEUP_SPLIT_AFTER");
    if (e && *e)
        lu__give_after = strtoull(e, NULL, 10);
    lu__keeper_pid = getpid();
    /* phase 1 ran the code under test here: one that ignores SIGCHLD (or
     * sets SA_NOCLDWAIT) would have the kernel reap the explorers this
     * process waits for; they get its disposition back (lu__fork_explorer) */
    sigaction(SIGCHLD, &(struct sigaction){.sa_handler = SIG_DFL}, &lu__harness_sigchld);
    lu__explorers_run(spec, nexp);
    /* DEFAULT's systematic part ran out of its share of the budget: POS
     * samples with the rest, on as many explorers as --strategy pos would
     * have */
    if (atomic_load(&p->claim) == 0 && nexp_pos && W->truncated) {
        uint64_t used = lu_drv_default_systematic(j->max_executions);
        p->sampling = 1;
        p->nexp = nexp_pos;
        atomic_store(&p->budget_used, used);
        atomic_store(&p->next_chunk, 0);
        atomic_store(&p->stop, 0);
        for (unsigned k = 0; k < nexp_pos; k++)
            lu__lanes[k]->has_item = false;
        if (nexp_pos > W->explorers)
            W->explorers = nexp_pos;
        lu__explorers_run(spec, nexp_pos);
    }
    int owner = atomic_load(&p->claim) - 1;
    if (owner >= 0) {
        /* an explorer wrote the result (an error, nondeterminism, ...) */
        if (lu__lanes[owner] != &W->lane) {
            memcpy(W->trace.steps, lu__lanes[owner]->trace->steps, W->sched_len * sizeof *W->trace.steps);
            W->trace.len = W->sched_len;
        }
        lu__sweep_children();
        atomic_store(&W->done, 1);
        fflush(NULL);
        _exit(0);
    }
}

/* Re-runs one recorded execution and shows it, with where each preemption
 * happened. */
static void lu__replay(struct lu_lin_spec *spec)
{
    int phase = W->job.replay_phase;
    atomic_store(&W->phase, phase);
    lu__serial = phase == 1;
    lu__plog_cap = LU_DRV_TRACE_CAP;
    lu__plog = calloc(lu__plog_cap, sizeof *lu__plog);
    struct lu_sched *s = lu__sched_new(&(struct lu__sched_opts){.strategy = LU_SCHED_REPLAY, .bound = -1});
    struct lu_sched_result res;
    lu__run_one(s, &res, phase);
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    const struct lu_sched_trace *tr = L->trace;
    lu_hist_buf_printf(&b, "replayed phase %d execution (%u scheduling choices): %s\n", phase, tr->len,
                       lu_sched_outcome_name(res.outcome));
    lu__report_test(&b);
    lu_hist_buf_puts(&b, "history:\n");
    /* its calls that never returned are stuck, as the report said, not
     * pending */
    lu__hist.stuck = res.outcome == LU_SCHED_OUT_DEADLOCK || res.outcome == LU_SCHED_OUT_LIVELOCK;
    lu_hist_render_timeline(&b, &lu__htest, &lu__hist);
    lu_hist_buf_puts(&b, "preemptions:\n");
    unsigned npre = 0;
    for (uint32_t i = 0; i < tr->len; i++) {
        const struct lu_sched_step *stp = &tr->steps[i];
        unsigned before = i ? tr->steps[i - 1].preempts : 0;
        if (!(stp->flags & LU_SCHED_STEP_PREEMPT)) {
            /* letting a spinning thread go on while others could run costs
             * a preemption too (docs/strategies.md): the report's count
             * includes it, so the list names it */
            if (stp->kind == LU_SCHED_CHOOSE_THREAD && stp->preempts > before &&
                (stp->spin >> stp->chosen & 1)) {
                npre++;
                const struct lu__point_log *pl = lu__plog_at(stp->chosen, i);
                lu_hist_buf_printf(&b, "    step %u: ", i);
                lu__tname(&b, stp->chosen);
                lu_hist_buf_printf(&b, " goes on spinning at %s at ",
                                   pl ? lu_sched_label_name(pl->label) : "?");
                lu__where(&b, pl ? pl->pc : 0);
                lu_hist_buf_puts(&b, " while others could run (this costs a preemption too)");
                lu_hist_buf_puts(&b, lu_sched_step_until_met(tr, i) ? LU__UNTIL_MET_GOES "\n" : "\n");
            }
            continue;
        }
        npre++;
        const struct lu__point_log *pl = lu__plog_at(stp->prev, i);
        lu_hist_buf_printf(&b, "    step %u: ", i);
        lu__tname(&b, stp->prev);
        lu_hist_buf_printf(&b, " preempted before %s at ", pl ? lu_sched_label_name(pl->label) : "?");
        lu__where(&b, pl ? pl->pc : 0);
        lu_hist_buf_puts(&b, "; ");
        lu__tname(&b, stp->chosen);
        lu_hist_buf_puts(&b, lu_sched_step_until_met(tr, i) ? " runs" LU__UNTIL_MET "\n" : " runs\n");
    }
    if (!npre)
        lu_hist_buf_puts(&b, "    none\n");
    bool head = false;
    unsigned ntimeouts = 0;
    for (uint32_t i = 0; i < tr->len; i++) {
        const struct lu_sched_step *stp = &tr->steps[i];
        if (stp->kind != LU_SCHED_CHOOSE_THREAD || !(stp->flags & LU_SCHED_STEP_TIMEOUT))
            continue;
        if (!head)
            lu_hist_buf_puts(&b, "timeouts:\n");
        head = true;
        /* the first 16 (a retry loop may give up thousands of times) */
        if (++ntimeouts > LU_DRV_LIST_SHOWN)
            continue;
        const struct lu__point_log *pl = lu__plog_at(stp->chosen, i);
        lu_hist_buf_printf(&b, "    step %u: ", i);
        lu__tname(&b, stp->chosen);
        lu_hist_buf_printf(&b, "'s %s at ", lu_sched_label_name(pl ? pl->label : stp->label));
        lu__where(&b, pl ? pl->pc : 0);
        lu_hist_buf_puts(&b, " timed out\n");
    }
    if (ntimeouts > LU_DRV_LIST_SHOWN)
        lu_hist_buf_printf(&b, "    (%u more)\n", ntimeouts - LU_DRV_LIST_SHOWN);
    /* the verdict line is the parent's: it knows what was recorded */
    int verdict = LU_DRV_V_PASS;
    if (res.outcome == LU_SCHED_OUT_TOO_LONG) {
        /* the divergence at the cap of scheduling points: the replay ran
         * the recorded choices up to the cap again (an audit: it said "did
         * not fail", and checked the cut-off history as if complete) */
        lu_hist_buf_printf(&b, "the execution ran more than %u scheduling points without finishing\n",
                           LU_DRV_TRACE_CAP);
        verdict = LU_DRV_V_DIVERGE;
    } else if (res.outcome == LU_SCHED_OUT_MISFIT) {
        struct lu_hist_buf tb; /* often why the recorded thread could not run */
        lu_hist_buf_init(&tb);
        lu__report_threads(&tb, &res);
        if (tb.len) {
            lu_hist_buf_puts(&b, "where the replay stopped:\n");
            lu_hist_buf_puts(&b, tb.s);
        }
        lu_hist_buf_free(&tb);
        W->misfit = (int)res.misfit;
        verdict = LU_DRV_V_MISFIT;
    } else if (phase == 2 && spec) {
        bool stuck = lu__hist.stuck; /* set above, before the timeline */
        struct lu_lin_verdict v;
        memset(&v, 0, sizeof v);
        v.failing_op = -1;
        enum lu__p2 kind = LU__P2_PASS;
        if (stuck) {
            lu__stuck_after_line(&b, &res);
            lu__report_threads(&b, &res);
            kind = lu__check_phase2(spec, true, &v, NULL);
        } else if (res.outcome == LU_SCHED_OUT_COMPLETE) {
            kind = lu__check_phase2(spec, false, &v, NULL);
        }
        W->replay_hist = lu_hist_hash_canon(&lu__hist);
        if (kind != LU__P2_PASS) {
            verdict = kind == LU__P2_STUCK || kind == LU__P2_STUCK_AFTER ? LU_DRV_V_STUCK
                      : lu__serial_mismatch(false)                       ? LU_DRV_V_NONDET
                                                                         : LU_DRV_V_VIOLATION;
            if (kind == LU__P2_STUCK_AFTER)
                lu_hist_buf_puts(&b,
                                 "stuck after every call returned: no serial execution of these calls gets "
                                 "stuck\n");
            lu_hist_buf_puts(&b, "serial histories of these calls (phase 1):\n");
            lu_lin_spec_render_group(&b, spec, &lu__hist, v.failing_op, 12);
            if (kind != LU__P2_STUCK_AFTER) {
                lu_hist_buf_puts(&b, "why: ");
                lu_lin_explain(&b, spec, &lu__hist, &v);
                lu_hist_buf_puts(&b, "\n");
            }
        } else {
            lu_hist_buf_puts(&b, "check: this history is explained by a serial one\n");
        }
    }
    lu__set_report(&b);
    lu__finish(verdict, phase);
}

void lu_drv_worker(struct lu_drv_shm *shm)
{
    W = shm;
    L = &W->lane;
    atomic_store(&L->pid, getpid());
    L->trace = &W->trace;
    L->g = lu_drv_shm_stack(W);
    if (W->job.cpu >= 0 && lu_drv_job_explorers(&W->job) == 1 &&
        lu_drv_job_sampling_explorers(&W->job) <= 1) {
        /* One thread runs at a time: a worker needs one core, and keeping
         * all its threads on it makes every baton handoff cheaper. Which
         * core is the kernel's choice (the one it started us on), so that
         * workers do not pile onto a core something else keeps busy.
         * Parallel explorers of one test are left to the kernel. */
        int cpu = sched_getcpu();
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu >= 0 ? cpu : W->job.cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    lu_sched_set_bug_hook(lu__on_bug);
    /* for the test of the report of lineup's own failures: before any
     * execution, or (exec) inside one, on a controlled thread */
    const char *tb = getenv("LINEUP_TEST_INTERNAL_BUG");
    if (tb && strcmp(tb, "exec") == 0)
        lu__test_bug_in_exec = !W->job.list_only;
    else if (tb && !W->job.list_only)
        lu_sched_bug(__FILE__, __LINE__, "LINEUP_TEST_INTERNAL_BUG is set");
    lu_hist_init(&lu__hist);
    lu__load();
    lu__build_test();
    lu__heap_limits();
    struct lu_lin_spec *spec = NULL;
    if (W->job.replay_phase == 1)
        lu__replay(NULL);
    spec = lu__phase1();
    if (W->job.replay_phase == 2)
        lu__replay(spec);
    lu__phase2(spec);
    lu__finish_findings(spec);
    lu__finish(LU_DRV_V_PASS, 0);
    __builtin_unreachable();
}
