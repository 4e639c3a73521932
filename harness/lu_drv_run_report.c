/*
 * `lineup run`, driver side: what an execution's report says, replay
 * files, and the check that a program was built by lineup-cc. The process
 * handling and the options are in lu_drv_run.c.
 */
#define _GNU_SOURCE
#include "lu_drv.h"
#include "lu_drv_run.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- kinds ---- */

static const char *const lu__knames[] = {
#define LU__KN(name, text, rc) text,
    LU_RUN_KINDS(LU__KN)
#undef LU__KN
};
static const char *const lu__kids[] = {
#define LU__KI(name, text, rc) #name,
    LU_RUN_KINDS(LU__KI)
#undef LU__KI
};

const char *lu_drv_run_kind_name(int kind)
{
    return kind >= 0 && kind < LU_RUN_K_COUNT ? lu__knames[kind] : "?";
}

const char *lu_drv_run_kind_id(int kind)
{
    return kind >= 0 && kind < LU_RUN_K_COUNT ? lu__kids[kind] : "?";
}

const char *lu_drv_run_kind_word(int kind)
{
    return kind == LU_RUN_K_TIMEOUT ? "INCONCLUSIVE" : lu_drv_run_kind_exit(kind) == 1 ? "FAIL" : "ERROR";
}

int lu_drv_run_kind_parse(const char *id)
{
    for (int k = 0; k < LU_RUN_K_COUNT; k++)
        if (strcmp(id, lu__kids[k]) == 0)
            return k;
    return -1;
}

const char *lu_drv_run_strategy_name(int strategy)
{
    static const char *const names[] = {"default", "dfs", "ipb", "idb", "random", "pct", "pos", "replay"};
    return strategy >= 0 && strategy < (int)(sizeof names / sizeof names[0]) ? names[strategy] : "?";
}

/* ---- locations ---- */

static const char *lu__base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Code that is lineup's or the C library's, not the program's: skipped
 * when looking for where in the program something happened. */
static bool lu__foreign(const struct lu_run_shm *m, const struct lu_run_loc *l)
{
    if (l->mod < 0 || (uint32_t)l->mod >= m->nmodules)
        return true;
    const char *b = lu__base(m->modules[l->mod]);
    static const char *const libs[] = {"liblineup.", "libc.so",  "libc-",      "ld-linux",
                                       "linux-vdso", "libgcc_s", "libpthread", "libpfm"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (strncmp(b, libs[i], strlen(libs[i])) == 0)
            return true;
    return false;
}

static void lu__loc(struct lu_hist_buf *b, const struct lu_run_shm *m, const struct lu_run_loc *l)
{
    if (!l->pc) {
        lu_hist_buf_puts(b, "?");
        return;
    }
    if (l->mod < 0 || (uint32_t)l->mod >= m->nmodules) {
        lu_hist_buf_printf(b, "%#" PRIxPTR, l->pc);
        return;
    }
    /* addr2line's "(discriminator N)" tells basic blocks of one line
     * apart: noise in a report */
    struct lu_hist_buf t;
    lu_hist_buf_init(&t);
    lu_drv_addr2line(&t, m->modules[l->mod], (uintptr_t)(l->off - l->call));
    char *s = t.s ? t.s : "";
    char *d = strstr(s, " (discriminator ");
    if (d) {
        char *e = strchr(d + 1, ')');
        if (e)
            memmove(d, e + 1, strlen(e + 1) + 1);
    }
    lu_hist_buf_puts(b, s);
    lu_hist_buf_free(&t);
}

/* "write", "atomic read", ...: which of the race's two accesses is atomic
 * matters to the reader (one of them always is plain). */
static const char *lu__race_kind(const struct lu_run_exec *E, int i)
{
    if (E->race_atomic[i])
        return E->race_write[i] ? "atomic write" : "atomic read";
    return E->race_write[i] ? "write" : "read";
}

static void lu__tname(struct lu_hist_buf *b, int tid)
{
    if (tid == 0)
        lu_hist_buf_puts(b, "the main thread");
    else if (tid > 0)
        lu_hist_buf_printf(b, "thread %d", tid);
    else
        lu_hist_buf_puts(b, "lineup's own code");
}

/* The innermost frame of a crash backtrace in the program's own code. */
static const struct lu_run_loc *lu__program_frame(const struct lu_run_shm *m)
{
    const struct lu_run_exec *E = &m->exec;
    for (uint32_t i = 0; i < E->nbt && i < LU_RUN_BT; i++)
        if (!lu__foreign(m, &E->bt[i]))
            return &E->bt[i];
    return NULL;
}

static const char *lu__signame(int sig)
{
    static char buf[96];
    const char *d = sigdescr_np(sig);
    const char *a = sigabbrev_np(sig);
    snprintf(buf, sizeof buf, "SIG%s (%s)", a ? a : "?", d ? d : "?");
    return buf;
}

/* Which thread the failure belongs to, and where it happened, if known. */

/* When a thread's last scheduling point was an exec (the program replaced
 * itself, and the new program's status is the one seen): ", after thread
 * N's execl at F (file:line) replaced the program". */
static void lu__exec_note(struct lu_hist_buf *b, const struct lu_run_shm *m)
{
    const struct lu_run_exec *E = &m->exec;
    for (int i = 0; i < E->nthreads && i < LU_SCHED_MAX_THREADS; i++) {
        const struct lu_run_thread *th = &E->th[i];
        if (th->state == LU_RUN_TS_NONE || th->kind != LU_SCHED_K_EXIT ||
            (strncmp(th->what, "exec", 4) != 0 && strcmp(th->what, "fexecve") != 0))
            continue;
        lu_hist_buf_puts(b, ", after ");
        lu__tname(b, i);
        lu_hist_buf_printf(b, "'s %s at ", th->what);
        lu__loc(b, m, &th->at);
        lu_hist_buf_puts(b, " replaced the program");
        return;
    }
}

/* Names of the system calls a thread most often blocks in (x86-64
 * numbers); others are shown by number. */
static const char *lu__syscall_name(int nr)
{
#if defined(__x86_64__)
    static const struct {
        int nr;
        const char *name;
    } names[] = {
        {0, "read"},         {1, "write"},
        {2, "open"},         {7, "poll"},
        {17, "pread64"},     {18, "pwrite64"},
        {19, "readv"},       {20, "writev"},
        {23, "select"},      {34, "pause"},
        {35, "nanosleep"},   {42, "connect"},
        {43, "accept"},      {44, "sendto"},
        {45, "recvfrom"},    {46, "sendmsg"},
        {47, "recvmsg"},     {61, "wait4"},
        {65, "semop"},       {69, "msgsnd"},
        {70, "msgrcv"},      {72, "fcntl"},
        {73, "flock"},       {202, "futex"},
        {220, "semtimedop"}, {230, "clock_nanosleep"},
        {232, "epoll_wait"}, {247, "waitid"},
        {257, "openat"},     {270, "pselect6"},
        {271, "ppoll"},      {281, "epoll_pwait"},
        {288, "accept4"},    {299, "recvmmsg"},
        {307, "sendmmsg"},   {441, "epoll_pwait2"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].nr == nr)
            return names[i].name;
#endif
    static char num[32];
    snprintf(num, sizeof num, "number %d", nr);
    return num;
}
static int lu__culprit(const struct lu_run_shm *m, const struct lu_run_loc **at)
{
    const struct lu_run_exec *E = &m->exec;
    *at = NULL;
    switch (E->kind) {
    case LU_RUN_K_ASSERT:
        *at = &E->assert_at;
        return E->assert_tid;
    case LU_RUN_K_REACH_ERROR:
        *at = &E->reach_at;
        return E->reach_tid;
    case LU_RUN_K_ABORT:
        *at = lu__program_frame(m);
        if (!*at && E->fatal_kind)
            *at = &E->fatal_at;
        return E->fatal_tid;
    case LU_RUN_K_TIMEOUT:
        if (E->fatal_kind != LU_SCHED_FATAL_BLOCKED)
            return E->culprit;
        /* the child said where it blocks: in a libc call, made by the
         * program's innermost frame */
        *at = lu__program_frame(m);
        if (!*at)
            *at = &E->fatal_at;
        return E->fatal_tid;
    case LU_RUN_K_CRASH:
    case LU_RUN_K_DIVERGE:
        if (E->fatal_kind) {
            *at = lu__foreign(m, &E->fatal_at) && lu__program_frame(m) ? lu__program_frame(m) : &E->fatal_at;
        }
        return E->fatal_tid;
    case LU_RUN_K_EXIT:
        if (!E->main_returned && E->exit_tid >= 0)
            *at = &E->exit_at;
        return E->main_returned ? 0 : E->exit_tid;
    case LU_RUN_K_RACE:
        *at = &E->race_at[1];
        return E->race_tid[1];
    default:
        return E->culprit;
    }
}

int lu_drv_run_culprit(struct lu_hist_buf *where, struct lu_run_shm *m)
{
    const struct lu_run_loc *at;
    int tid = lu__culprit(m, &at);
    if (at && at->pc)
        lu__loc(where, m, at);
    return tid;
}

void lu_drv_run_headline(struct lu_hist_buf *b, struct lu_run_shm *m)
{
    const struct lu_run_exec *E = &m->exec;
    const struct lu_run_loc *at;
    int tid = lu__culprit(m, &at);
    switch (E->kind) {
    case LU_RUN_K_PASS:
        if (E->done && E->outcome == LU_SCHED_OUT_MISFIT)
            lu_hist_buf_printf(b, "replay stopped after %u scheduling choice%s: %s", E->steps,
                               E->steps == 1 ? "" : "s", E->message);
        else if (E->done && E->redundant)
            lu_hist_buf_printf(b, "cut short as redundant: %s", E->message);
        else if (E->done && E->outcome == LU_SCHED_OUT_DISCARDED)
            lu_hist_buf_puts(b, "discarded: an assumption (__VERIFIER_assume) was false");
        else if (E->exited && E->main_returned)
            lu_hist_buf_printf(b, "no failure: main returned %d", E->status);
        else if (E->exited && E->exit_tid >= 0)
            lu_hist_buf_printf(b, "no failure: %s(%d)", lu_sched_exit_fn_name(E->exit_fn), E->status);
        else {
            lu_hist_buf_printf(b, "no failure: the program ended with status %d", E->status);
            lu__exec_note(b, m);
        }
        return;
    case LU_RUN_K_ASSERT:
        lu_hist_buf_printf(b, "assertion failure: `%s' in ", E->assert_expr);
        break;
    case LU_RUN_K_REACH_ERROR:
        lu_hist_buf_puts(b, "reach_error() called by ");
        break;
    case LU_RUN_K_ABORT:
        lu_hist_buf_puts(b, "abort() called by ");
        break;
    case LU_RUN_K_CRASH:
        if (E->killed) {
            /* no handler ran: nothing is known of where */
            lu_hist_buf_printf(b,
                               "killed by %s, which no handler saw (sent by the kernel, a timer or another "
                               "process, or one whose handler the program replaced)",
                               lu__signame(E->fatal_code));
            if (E->fatal_tid >= 0) {
                lu_hist_buf_puts(b, "; ");
                lu__tname(b, E->fatal_tid);
                lu_hist_buf_puts(b, " ran last");
            }
            return;
        }
        lu_hist_buf_printf(b, "crash: %s in ", lu__signame(E->fatal_code));
        break;
    case LU_RUN_K_EXIT:
        if (E->main_returned)
            lu_hist_buf_printf(b, "exit status %d (expected %d): main returned %d", E->status,
                               m->cfg.expect_exit, E->status);
        else if (E->exit_tid >= 0)
            lu_hist_buf_printf(b, "exit status %d (expected %d): %s(%d) called by ", E->status,
                               m->cfg.expect_exit, lu_sched_exit_fn_name(E->exit_fn), E->status);
        else {
            lu_hist_buf_printf(b, "exit status %d (expected %d)", E->status, m->cfg.expect_exit);
            lu__exec_note(b, m);
        }
        if (E->main_returned || E->exit_tid < 0)
            return;
        break;
    case LU_RUN_K_DEADLOCK:
        lu_hist_buf_puts(b, "deadlock: every thread that has not finished is blocked");
        return;
    case LU_RUN_K_LIVELOCK:
        lu_hist_buf_printf(b,
                           "livelock: the threads that can run only spin (%u looks each without progress; a "
                           "loop that ends after more looks needs a larger --spin-bound)",
                           m->cfg.spin_bound);
        return;
    case LU_RUN_K_DIVERGE:
        lu_hist_buf_printf(b,
                           "divergence: about %u ms of CPU time without a scheduling point (a loop on plain "
                           "memory?) in ",
                           m->cfg.watchdog_ms);
        break;
    case LU_RUN_K_TOO_LONG:
        lu_hist_buf_printf(b,
                           "execution too long: more than %u scheduling choices (an endless loop on shared "
                           "memory? raise --max-steps if the program is just long)",
                           m->trace_cap);
        return;
    case LU_RUN_K_RACE:
        lu_hist_buf_printf(b, "data race on %u byte%s at %#" PRIxPTR ": %s by ", E->race_size,
                           E->race_size == 1 ? "" : "s", E->race_addr, lu__race_kind(E, 1));
        lu__tname(b, E->race_tid[1]);
        lu_hist_buf_puts(b, " at ");
        lu__loc(b, m, &E->race_at[1]);
        lu_hist_buf_printf(b, " and %s by ", lu__race_kind(E, 0));
        lu__tname(b, E->race_tid[0]);
        lu_hist_buf_puts(b, " at ");
        lu__loc(b, m, &E->race_at[0]);
        lu_hist_buf_puts(b, ", not ordered by synchronization");
        return;
    case LU_RUN_K_TIMEOUT:
        lu_hist_buf_printf(b, "timeout: the execution did not end within %.1f s", m->cfg.timeout_ms / 1000.0);
        if (E->blocked_syscall < 0)
            lu_hist_buf_puts(b, ": its process was stopped (SIGSTOP, or SIGTSTP, SIGTTIN or SIGTTOU with the "
                                "default action) and ran no more");
        else if (E->blocked_syscall)
            lu_hist_buf_printf(b,
                               ": blocked in the system call %s, which lineup does not control (while one "
                               "thread blocks in the kernel, no other runs: I/O between threads, a pipe, an "
                               "uninstrumented lock)",
                               lu__syscall_name(E->blocked_syscall - 1));
        else
            lu_hist_buf_puts(b, " (blocked in a call lineup does not control? I/O, an uninstrumented lock)");
        return;
    case LU_RUN_K_NONDET:
        lu_hist_buf_printf(b,
                           "nondeterminism: the program behaves differently on the same schedule (%s); it "
                           "depends on something lineup does not control (time, randomness, input, state "
                           "outside the process)",
                           E->message[0] ? E->message : "?");
        return;
    case LU_RUN_K_UNSUPPORTED:
        lu_hist_buf_printf(b, "unsupported call: %s", E->message[0] ? E->message : "?");
        return;
    case LU_RUN_K_MEMORY:
        lu_hist_buf_printf(b, "out of memory: %s(%" PRIu64 ") by ", E->oom_fn, E->oom_size);
        lu__tname(b, E->oom_tid);
        lu_hist_buf_puts(b, " at ");
        lu__loc(b, m, &E->oom_at);
        lu_hist_buf_printf(b, " returned NULL in lineup's process, which had %" PRIu64 " MB of address space",
                           E->oom_vm_mb);
        if (E->oom_as_mb)
            lu_hist_buf_printf(b, " of the %" PRIu64 " MB ulimit -v allows", E->oom_as_mb);
        lu_hist_buf_puts(
            b, "; not a finding: natively the program would have had the memory lineup uses, so the "
               "execution was stopped there. Raise ulimit -v (or free memory) and run again");
        return;
    default:
        lu_hist_buf_printf(b, "internal error: %s",
                           E->message[0] ? E->message
                           : E->run_err  ? lu_sched_strerror(E->run_err)
                                         : "?");
        return;
    }
    lu__tname(b, tid);
    if (at) {
        lu_hist_buf_puts(b, " at ");
        lu__loc(b, m, at);
    } else if (E->kind == LU_RUN_K_ASSERT) {
        lu_hist_buf_printf(b, " at %s (%s:%u)", E->assert_func, lu__base(E->assert_file), E->assert_line);
    }
}

/* ---- the report of one execution ---- */

static void lu__thread_line(struct lu_hist_buf *b, const struct lu_run_shm *m, int i)
{
    const struct lu_run_exec *E = &m->exec;
    const struct lu_run_thread *th = &E->th[i];
    const struct lu_run_loc *at;
    int culprit = lu__culprit(m, &at);
    if (i == 0)
        lu_hist_buf_puts(b, "  main thread  ");
    else
        lu_hist_buf_printf(b, "  thread %-6d", i);
    if (i == culprit && E->kind == LU_RUN_K_TIMEOUT && E->fatal_kind == LU_SCHED_FATAL_BLOCKED && at) {
        lu_hist_buf_printf(b, "blocked in %s, called at ",
                           E->blocked_fn[0] ? E->blocked_fn : "a call lineup does not control");
        lu__loc(b, m, at);
        lu_hist_buf_puts(b, "\n");
    } else if (i == culprit && E->kind == LU_RUN_K_TIMEOUT && !th->at.pc) {
        lu_hist_buf_puts(b,
                         "the last to run: just created, it never reached a scheduling point (blocked in its "
                         "start routine)\n");
    } else if (i == culprit && E->kind == LU_RUN_K_TIMEOUT) {
        lu_hist_buf_printf(b, "the last to run; its last scheduling point: %s at ", th->what);
        lu__loc(b, m, &th->at);
        lu_hist_buf_puts(b, "\n");
    } else if (i == culprit && E->kind != LU_RUN_K_PASS && E->kind != LU_RUN_K_DEADLOCK &&
               E->kind != LU_RUN_K_LIVELOCK && !E->killed) {
        if (E->kind == LU_RUN_K_RACE)
            /* the execution runs on after a race (lu__on_race): the others'
             * lines are where they ended, so this one says it is earlier */
            lu_hist_buf_printf(b, "earlier, the racing %s", lu__race_kind(E, 1));
        else if (E->kind == LU_RUN_K_EXIT && E->main_returned)
            lu_hist_buf_printf(b, "returned %d from main", E->status);
        else if (E->kind == LU_RUN_K_EXIT)
            lu_hist_buf_printf(b, "%s(%d)", lu_sched_exit_fn_name(E->exit_fn), E->status);
        else if (E->kind == LU_RUN_K_REACH_ERROR)
            lu_hist_buf_puts(b, "reach_error() called");
        else
            lu_hist_buf_puts(b, lu_drv_run_kind_name(E->kind));
        if (!at && th->at.pc)
            at = &th->at;
        if (at) {
            lu_hist_buf_puts(b, " at ");
            lu__loc(b, m, at);
        }
        lu_hist_buf_puts(b, "\n");
    } else if (E->exited && i == (E->main_returned ? 0 : E->exit_tid)) {
        /* the execution went on after the failure and ended here */
        if (E->main_returned) {
            lu_hist_buf_printf(b, "returned %d from main\n", E->status);
            return;
        }
        lu_hist_buf_printf(b, "called %s(%d) at ", lu_sched_exit_fn_name(E->exit_fn), E->status);
        lu__loc(b, m, &E->exit_at);
        lu_hist_buf_puts(b, "\n");
    } else {
        switch (th->state) {
        case LU_RUN_TS_FINISHED:
            lu_hist_buf_puts(b, "finished\n");
            return;
        case LU_RUN_TS_BLOCKED:
            lu_hist_buf_printf(b, "blocked in %s at ", th->what);
            break;
        case LU_RUN_TS_SPINNING:
            lu_hist_buf_printf(b, "spinning in %s at ", th->what);
            break;
        case LU_RUN_TS_NONE:
            lu_hist_buf_puts(b, "not started\n");
            return;
        default:
            if (!th->at.pc) {
                lu_hist_buf_puts(b, "started, and ended before its first scheduling point\n");
                return;
            }
            if (i == E->creating) {
                /* its last scheduling point was the create, and the
                 * thread that started has not handed back yet */
                lu_hist_buf_printf(b, "creating thread %d in %s at ", E->starting, th->what);
                break;
            }
            /* after a SIGKILL or an exec, whether it finished is not known */
            lu_hist_buf_printf(b, "%sabout to %s at ",
                               E->last_seen && E->kind != LU_RUN_K_TIMEOUT ? "last seen " : "", th->what);
            break;
        }
        lu__loc(b, m, &th->at);
        lu_hist_buf_puts(b, "\n");
    }
    unsigned shown = 0;
    for (uint32_t k = 0; k < th->nframes && k < LU_RUN_FRAMES && shown < 3; k++) {
        if (lu__foreign(m, &th->frames[k]) || (i == culprit && at && th->frames[k].pc == at->pc))
            continue;
        lu_hist_buf_puts(b, "               called from ");
        lu__loc(b, m, &th->frames[k]);
        lu_hist_buf_puts(b, "\n");
        shown++;
    }
}

/* The point log's pcs were replaced by the server with (mod << 48 | off + 1). */
static void lu__plog_loc(struct lu_hist_buf *b, const struct lu_run_shm *m, uintptr_t enc)
{
    struct lu_run_loc l = {.pc = enc, .mod = -1, .call = 1};
    if (enc) {
        l.mod = (int32_t)(enc >> 48);
        l.off = (enc & ((1ULL << 48) - 1)) - 1;
    }
    lu__loc(b, m, &l);
}

static void lu__preemptions(struct lu_hist_buf *b, struct lu_run_shm *m)
{
    const struct lu_run_exec *E = &m->exec;
    const struct lu_sched_trace *tr = lu_run_shm_trace(m);
    const struct lu_run_point *pl = lu_run_shm_plog(m);
    uint32_t len = tr->len < m->trace_cap ? tr->len : m->trace_cap;
    uint32_t np = E->nplog < m->trace_cap ? E->nplog : m->trace_cap;
    unsigned n = 0, shown = 0;
    for (uint32_t i = 0; i < len; i++)
        if (tr->steps[i].kind == LU_SCHED_CHOOSE_THREAD && (tr->steps[i].flags & LU_SCHED_STEP_PREEMPT))
            n++;
    lu_hist_buf_printf(b, "schedule: %u scheduling choices, %u preemption%s%s\n", len, n, n == 1 ? "" : "s",
                       n ? ":" : "");
    /* one pass: preemptions (the first 16) into b, timed waits that gave
     * up (a choice too, and often why it failed) into t */
    struct lu_hist_buf t;
    lu_hist_buf_init(&t);
    uint32_t j = 0, ntimeouts = 0;
    const struct lu_run_point *last[LU_SCHED_MAX_THREADS] = {0};
    for (uint32_t i = 0; i < len; i++) {
        /* the point log is in trace order: catch up to step i */
        for (; j < np && pl[j].at <= i; j++)
            if (pl[j].tid >= 0 && pl[j].tid < LU_SCHED_MAX_THREADS)
                last[pl[j].tid] = &pl[j];
        const struct lu_sched_step *st = &tr->steps[i];
        if (st->kind != LU_SCHED_CHOOSE_THREAD)
            continue;
        if ((st->flags & LU_SCHED_STEP_PREEMPT) && shown < LU_DRV_LIST_SHOWN) {
            const struct lu_run_point *p = st->prev < LU_SCHED_MAX_THREADS ? last[st->prev] : NULL;
            lu_hist_buf_printf(b, "    step %u: ", i);
            lu__tname(b, st->prev);
            lu_hist_buf_printf(b, " preempted before %s at ", p ? lu_sched_label_name(p->label) : "?");
            lu__plog_loc(b, m, p ? p->pc : 0);
            lu_hist_buf_puts(b, "; ");
            lu__tname(b, st->chosen);
            lu_hist_buf_puts(b, lu_sched_step_until_met(tr, i) ? " runs" LU__UNTIL_MET "\n" : " runs\n");
            shown++;
        }
        if ((st->flags & LU_SCHED_STEP_TIMEOUT) && ++ntimeouts <= LU_DRV_LIST_SHOWN) {
            /* the first 16, as for preemptions: a retry loop of timed
             * waits that runs to the length cap gives up tens of thousands
             * of times, and naming each place took minutes (an audit's) */
            const struct lu_run_point *p = st->chosen < LU_SCHED_MAX_THREADS ? last[st->chosen] : NULL;
            lu_hist_buf_printf(&t, "    step %u: ", i);
            lu__tname(&t, st->chosen);
            lu_hist_buf_printf(&t, "'s %s at ", p ? lu_sched_label_name(p->label) : "?");
            lu__plog_loc(&t, m, p ? p->pc : 0);
            lu_hist_buf_puts(&t, " timed out\n");
        }
    }
    if (shown < n)
        lu_hist_buf_printf(b, "    (%u more)\n", n - shown);
    if (t.len) {
        lu_hist_buf_puts(b, "timeouts:\n");
        lu_hist_buf_puts(b, t.s);
        if (ntimeouts > LU_DRV_LIST_SHOWN)
            lu_hist_buf_printf(b, "    (%u more)\n", ntimeouts - LU_DRV_LIST_SHOWN);
    }
    lu_hist_buf_free(&t);
}

static void lu__output(struct lu_hist_buf *b, const struct lu_run_exec *E)
{
    if (!E->out_total) {
        lu_hist_buf_puts(b, "output: none\n");
        return;
    }
    const char *s = E->out, *end = E->out + E->out_len;
    /* only the last bytes were kept: they begin inside a line, whose
     * fragment is dropped unless it is all there is */
    uint64_t dropped = E->out_total - E->out_len;
    bool fragment = false;
    if (dropped) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (nl && nl + 1 < end) {
            dropped += (uint64_t)(nl + 1 - s);
            s = nl + 1;
        } else {
            fragment = true;
        }
    }
    unsigned lines = 0;
    for (const char *p = s; p < end; p++)
        if (*p == '\n')
            lines++;
    if (end > s && end[-1] != '\n')
        lines++;
    /* the end is where the failure is: show the last lines */
    const unsigned keep = 40;
    unsigned skip = lines > keep ? lines - keep : 0;
    lu_hist_buf_printf(b, "output (stdout and stderr of this execution, %" PRIu64 " bytes):\n", E->out_total);
    if (dropped && skip)
        lu_hist_buf_printf(b, "    (the first %" PRIu64 " bytes and %u more line%s not shown)\n", dropped,
                           skip, skip == 1 ? "" : "s");
    else if (dropped)
        lu_hist_buf_printf(b, "    (the first %" PRIu64 " bytes not shown%s)\n", dropped,
                           fragment ? ": the line below is the end of a longer one" : "");
    else if (skip)
        lu_hist_buf_printf(b, "    (%u earlier line%s not shown)\n", skip, skip == 1 ? "" : "s");
    for (unsigned l = 0; l < skip; l++)
        s = memchr(s, '\n', (size_t)(end - s)) + 1;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
        lu_hist_buf_puts(b, "  | ");
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c == '\t' || c >= 0x20)
                lu_hist_buf_printf(b, "%c", c);
            else
                lu_hist_buf_printf(b, "\\x%02x", c);
        }
        lu_hist_buf_puts(b, nl ? "\n" : " (no newline at the end)\n");
        s += n + (nl ? 1 : 0);
    }
}

void lu_drv_run_render(struct lu_hist_buf *b, struct lu_run_shm *m)
{
    const struct lu_run_exec *E = &m->exec;
    lu_drv_run_headline(b, m);
    lu_hist_buf_puts(b, "\n");
    lu_hist_buf_printf(b, "  execution %" PRIu64 " (strategy %s", E->index + 1,
                       lu_drv_run_strategy_name(E->strategy));
    if (E->bound >= 0)
        lu_hist_buf_printf(b, ", %s bound %d",
                           E->bound_kind == LU_SCHED_BOUND_DELAYS ? "delay" : "preemption", E->bound);
    else if (E->strategy == LU_RUN_DEFAULT)
        lu_hist_buf_puts(b, ", unbounded search"); /* after its bounded pass (its samplers are named) */
    if (E->strategy == LU_RUN_PCT || (E->strategy == LU_RUN_DEFAULT && E->pct_depth))
        lu_hist_buf_printf(b, ", depth %d", E->pct_depth);
    lu_hist_buf_puts(b, ")\n");
    if (E->kind == LU_RUN_K_RACE && (E->fatal_kind || E->assert_tid >= 0 || E->reach_tid >= 0 ||
                                     (E->done && E->outcome != LU_SCHED_OUT_COMPLETE))) {
        /* what the same execution did after the race */
        struct lu_run_shm *mm = m;
        int k = mm->exec.kind;
        mm->exec.kind = E->assert_tid >= 0                        ? LU_RUN_K_ASSERT
                        : E->reach_tid >= 0                       ? LU_RUN_K_REACH_ERROR
                        : E->fatal_kind == LU_SCHED_FATAL_DIVERGE ? LU_RUN_K_DIVERGE
                        : E->fatal_kind ? (E->fatal_code == SIGABRT ? LU_RUN_K_ABORT : LU_RUN_K_CRASH)
                        : E->outcome == LU_SCHED_OUT_DEADLOCK ? LU_RUN_K_DEADLOCK
                        : E->outcome == LU_SCHED_OUT_LIVELOCK ? LU_RUN_K_LIVELOCK
                                                              : LU_RUN_K_PASS;
        if (mm->exec.kind != LU_RUN_K_PASS) {
            lu_hist_buf_puts(b, "  then: ");
            lu_drv_run_headline(b, mm);
            lu_hist_buf_puts(b, "\n");
        }
        mm->exec.kind = k;
    }
    if (E->nthreads) {
        lu_hist_buf_puts(b, "threads:\n");
        for (int i = 0; i < E->nthreads && i < LU_SCHED_MAX_THREADS; i++)
            lu__thread_line(b, m, i);
    }
    if (E->ninputs) {
        lu_hist_buf_puts(b, "inputs:\n");
        for (uint32_t i = 0; i < E->ninputs && i < LU_RUN_MAX_INPUTS && i < 16; i++) {
            const struct lu_run_input *in = &E->inputs[i];
            lu_hist_buf_printf(b, "    %s() = %" PRId64 " in ", in->name, in->value);
            lu__tname(b, in->tid);
            lu_hist_buf_puts(b, " at ");
            lu__loc(b, m, &in->at);
            lu_hist_buf_puts(b, "\n");
        }
        if (E->ninputs > 16)
            lu_hist_buf_printf(b, "    (%u more)\n", E->ninputs - 16);
    }
    lu__preemptions(b, m);
    lu__output(b, E);
    if (E->kind == LU_RUN_K_TIMEOUT)
        /* lineup cannot tell a real hang from its own limitation */
        lu_hist_buf_puts(
            b, "not checked: lineup does not control I/O, pipes, poll or select, sleeps in the kernel or "
               "uninstrumented locks, and while one thread blocks in one no other runs, so threads "
               "that talk through the kernel block for good under lineup even when the program is "
               "correct; if the program is only slow, raise --timeout\n");
}

/* ---- replay files ---- */

int lu_drv_run_write_replay(const char *dir, const struct lu_drv_run_replay *rp, char *out, size_t outlen)
{
    static unsigned seq;
    char stem[PATH_MAX + 16];
    snprintf(stem, sizeof stem, "lineup-run-%s", lu__base(rp->program));
    FILE *f = lu_drv_replay_create(dir, stem, &seq, out, outlen);
    if (!f)
        return -1;
    fputs("lineup-run-replay 2\nprogram ", f);
    lu_drv_replay_put(f, rp->program);
    fputs("\n", f);
    /* a program may read argv[0] (or print it): the replay gives it the
     * same, not the path the file names it by */
    if (rp->argv0[0] && strcmp(rp->argv0, rp->program) != 0) {
        fputs("argv0 ", f);
        lu_drv_replay_put(f, rp->argv0);
        fputs("\n", f);
    }
    for (int i = 0; i < rp->nargs; i++) {
        fputs("arg ", f);
        lu_drv_replay_put(f, rp->args[i]);
        fputs("\n", f);
    }
    fprintf(f, "kind %s\nnondet-range %d\nspin-bound %u\nmax-steps %u\nraces %d\n", rp->kind,
            rp->nondet_range, rp->spin_bound, rp->max_steps, rp->races);
    if (rp->expect_exit_set)
        fprintf(f, "expect-exit %d\n", rp->expect_exit);
    if (rp->timeout_set) /* a replay of a timeout waits as long as its run did */
        fprintf(f, "timeout %" PRIu32 "\n", rp->timeout_ms / 1000);
    if (rp->watchdog_ms) /* what counted as divergence */
        fprintf(f, "watchdog-ms %" PRIu32 "\n", rp->watchdog_ms);
    if (rp->tls != LU_SCHED_TLS_AUTO) /* a shared TLS changes what thread-local variables do */
        fprintf(f, "tls %s\n", lu_drv_tls_name(rp->tls));
    fputs("schedule", f);
    for (uint32_t i = 0; i < rp->len; i++)
        fprintf(f, " %c%u", rp->steps[i].kind == LU_SCHED_CHOOSE_DATA ? 'd' : 't', rp->steps[i].chosen);
    fputs("\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

void lu_drv_run_replay_free(struct lu_drv_run_replay *rp)
{
    for (int i = 0; i < rp->nargs; i++)
        free(rp->args[i]);
    free(rp->args);
    free(rp->steps);
    memset(rp, 0, sizeof *rp);
}

static int lu__num(const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

/* The longest line lineup writes is the schedule, " tN" or " dN" (N < 64)
 * per choice of an execution of at most 2^24 (--max-steps); the arguments
 * (each at most 128 KB, escaped to twice that) and the other lines take
 * less besides. Anything longer is no replay file (/dev/zero, a binary, a
 * stream without newlines), and is not read on until memory runs out. */
#define LU__RUN_REPLAY_LINE_MAX (sizeof "schedule" + 4 * ((size_t)1 << 24))
#define LU__RUN_REPLAY_FILE_MAX (2 * LU__RUN_REPLAY_LINE_MAX)

int lu_drv_run_read_replay(const char *file, struct lu_drv_run_replay *rp, char *err, size_t errlen)
{
    memset(rp, 0, sizeof *rp);
    rp->nondet_range = 4;
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open replay file %s: %s", file, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    unsigned ln = 0;
    bool sched = false;
    int rc = -1;
    const char *why = NULL;
    /* each key but arg once: a second schedule line would be appended to
     * the first, a second program line would replace it */
    static const char *const keys[] = {"program",   "kind",        "nondet-range", "spin-bound",
                                       "max-steps", "races",       "expect-exit",  "schedule",
                                       "timeout",   "watchdog-ms", "tls",          "argv0"};
    bool seen[sizeof keys / sizeof keys[0]] = {false};
    size_t total = 0, arg_bytes = 0;
    char whybuf[160];
    for (;;) {
        long n = lu_drv_replay_line(f, &line, &cap, LU__RUN_REPLAY_LINE_MAX, &total);
        if (n == LU_DRV_LINE_EOF)
            break;
        ln++;
        if (n == LU_DRV_LINE_ERR) {
            snprintf(err, errlen, "cannot read replay file %s: %s", file, strerror(errno));
            lu_drv_run_replay_free(rp);
            goto out;
        }
        if (n == LU_DRV_LINE_NUL) {
            why = "it has a NUL byte: it is no text file";
            goto bad;
        }
        if (n == LU_DRV_LINE_LONG) {
            snprintf(whybuf, sizeof whybuf, "a line longer than %zu bytes, which no replay file has",
                     (size_t)LU__RUN_REPLAY_LINE_MAX);
            why = whybuf;
            goto bad;
        }
        if (total > LU__RUN_REPLAY_FILE_MAX) {
            snprintf(whybuf, sizeof whybuf, "longer than %zu bytes, which no replay file is",
                     (size_t)LU__RUN_REPLAY_FILE_MAX);
            why = whybuf;
            goto bad;
        }
        line[strcspn(line, "\r")] = 0;
        char *sp = strchr(line, ' ');
        char *val = sp ? sp + 1 : line + strlen(line);
        if (sp)
            *sp = 0;
        long x;
        for (size_t k = 0; ln > 1 && k < sizeof keys / sizeof keys[0]; k++) {
            if (strcmp(line, keys[k]) != 0)
                continue;
            if (seen[k]) {
                why = "a repeated line";
                goto bad;
            }
            seen[k] = true;
        }
        if (ln == 1) {
            if (strcmp(line, "lineup-run-replay") != 0 || strcmp(val, "2") != 0) {
                /* format 2 (session 3): schedules omit the points where one
                 * thread is alone and may choose spinning threads at a cost */
                why =
                    strcmp(line, "lineup-replay") == 0
                        ? "it is a replay of the Line-Up check: use 'lineup --replay FILE'"
                    : strcmp(line, "lineup-run-replay") == 0 && strcmp(val, "1") == 0
                        ? "it was written by an older lineup, whose schedules this one does not follow: run "
                          "the program again for a new replay file"
                    : strcmp(line, "lineup-run-replay") == 0 && atoi(val) > 2
                        ? "it was written by a newer lineup, in a format this one does not read"
                        : "it does not start with 'lineup-run-replay 2'";
                goto bad;
            }
        } else if (strcmp(line, "program") == 0) {
            lu_drv_replay_unescape(val);
            if (strlen(val) >= sizeof rp->program) {
                why = "a line too long"; /* cut, it would name another file */
                goto bad;
            }
            snprintf(rp->program, sizeof rp->program, "%s", val);
        } else if (strcmp(line, "argv0") == 0) {
            lu_drv_replay_unescape(val);
            if (strlen(val) >= sizeof rp->argv0) {
                why = "a line too long";
                goto bad;
            }
            snprintf(rp->argv0, sizeof rp->argv0, "%s", val);
        } else if (strcmp(line, "arg") == 0) {
            lu_drv_replay_unescape(val);
            /* what execve takes: more is no program's command line, and
             * lines of "arg" would otherwise fill memory */
            arg_bytes += strlen(val) + 1 + sizeof(char *);
            long arg_max = sysconf(_SC_ARG_MAX);
            if (arg_max > 0 && arg_bytes > (size_t)arg_max) {
                snprintf(whybuf, sizeof whybuf, "more arguments than a program can take (ARG_MAX, %ld bytes)",
                         arg_max);
                why = whybuf;
                goto bad;
            }
            char **a = realloc(rp->args, (size_t)(rp->nargs + 1) * sizeof *a);
            if (!a || !(a[rp->nargs] = strdup(val))) {
                why = "out of memory";
                if (a)
                    rp->args = a;
                goto bad;
            }
            rp->args = a;
            rp->nargs++;
        } else if (strcmp(line, "kind") == 0) {
            if (lu_drv_run_kind_parse(val) < 0) {
                why = "unknown kind";
                goto bad;
            }
            snprintf(rp->kind, sizeof rp->kind, "%s", val);
        } else if (strcmp(line, "nondet-range") == 0) {
            if (lu__num(val, 1, LU_RUN_NONDET_MAX, &x)) {
                why = "bad nondet-range";
                goto bad;
            }
            rp->nondet_range = (int)x;
        } else if (strcmp(line, "spin-bound") == 0) {
            if (lu__num(val, 1, 100000000, &x)) { /* the options' ranges */
                why = "bad spin-bound (1 to 100000000)";
                goto bad;
            }
            rp->spin_bound = (uint32_t)x;
        } else if (strcmp(line, "max-steps") == 0) {
            if (lu__num(val, 16, 1 << 24, &x)) {
                why = "bad max-steps (16 to 16777216)";
                goto bad;
            }
            rp->max_steps = (uint32_t)x;
        } else if (strcmp(line, "races") == 0) {
            if (lu__num(val, 0, 1, &x)) {
                why = "bad races line";
                goto bad;
            }
            rp->races = (int)x;
        } else if (strcmp(line, "timeout") == 0) {
            if (lu__num(val, 0, 86400, &x)) { /* the option's range */
                why = "bad timeout (0 to 86400 seconds)";
                goto bad;
            }
            rp->timeout_set = 1;
            rp->timeout_ms = (uint32_t)x * 1000;
        } else if (strcmp(line, "watchdog-ms") == 0) {
            if (lu__num(val, 1, 3600000, &x)) {
                why = "bad watchdog-ms (1 to 3600000)";
                goto bad;
            }
            rp->watchdog_ms = (uint32_t)x;
        } else if (strcmp(line, "tls") == 0) {
            rp->tls = lu_drv_tls_parse(val);
            if (rp->tls < 0) {
                why = "bad tls (auto, per-thread or shared)";
                goto bad;
            }
        } else if (strcmp(line, "expect-exit") == 0) {
            if (lu__num(val, 0, 255, &x)) {
                why = "bad expect-exit";
                goto bad;
            }
            rp->expect_exit_set = 1;
            rp->expect_exit = (int)x;
        } else if (strcmp(line, "schedule") == 0) {
            sched = true;
            char *save = NULL;
            for (char *tok = strtok_r(val, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
                if ((tok[0] != 't' && tok[0] != 'd') || !isdigit((unsigned char)tok[1]) ||
                    lu__num(tok + 1, 0, 63, &x)) {
                    why = "schedule entries are tN or dN with N < 64";
                    goto bad;
                }
                if (rp->len >= (1u << 24)) {
                    why = "schedule too long";
                    goto bad;
                }
                if ((rp->len & (rp->len - 1)) == 0) {
                    struct lu_sched_step *n = realloc(rp->steps, (rp->len ? rp->len * 2 : 1) * sizeof *n);
                    if (!n) {
                        why = "out of memory";
                        goto bad;
                    }
                    rp->steps = n;
                }
                memset(&rp->steps[rp->len], 0, sizeof rp->steps[0]);
                rp->steps[rp->len].kind = tok[0] == 'd' ? LU_SCHED_CHOOSE_DATA : LU_SCHED_CHOOSE_THREAD;
                rp->steps[rp->len].chosen = (uint8_t)x;
                rp->len++;
            }
        } else if (line[0] && line[0] != '#') {
            why = "unknown line";
            goto bad;
        }
    }
    if (ln == 0) {
        why = "empty file";
        goto bad;
    }
    if (!rp->program[0] || !sched || !rp->kind[0]) {
        why = "program, kind and schedule lines are required";
        goto bad;
    }
    rc = 0;
    goto out;
bad:
    snprintf(err, errlen, "%s:%u: not a valid replay file: %s", file, ln ? ln : 1, why ? why : "?");
    lu_drv_run_replay_free(rp);
out:
    free(line);
    fclose(f);
    return rc;
}

/* ---- the program ---- */

int lu_drv_run_check_program(const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO would wait for a writer; it is no executable either */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        snprintf(err, errlen, "%s is not an executable", path);
        return -1;
    }
    if (access(path, X_OK) != 0) {
        close(fd);
        snprintf(err, errlen, "%s is not executable (no execute permission)", path);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int map_errno = errno;
    close(fd);
    if (m == MAP_FAILED && map_errno != ENOMEM && map_errno != EAGAIN) {
        snprintf(err, errlen, "cannot read %s", path);
        return -1;
    }
    if (m == MAP_FAILED) {
        char what[PATH_MAX + 32];
        snprintf(what, sizeof what, "cannot map %s", path);
        lu_sched_syserr(err, errlen, LU_SCHED_NEED_MEMORY, map_errno, what, size);
        return -2;
    }
    int rc = -1;
    const Elf64_Ehdr *eh = (const void *)m;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) {
        snprintf(err, errlen, "%s is not a 64-bit ELF executable", path);
        goto out;
    }
    if (eh->e_machine != EM_X86_64) {
        snprintf(err, errlen,
                 "%s is built for another architecture (ELF machine %u); lineup runs x86-64 code", path,
                 (unsigned)eh->e_machine);
        goto out;
    }
    bool interp = false;
    if (eh->e_phoff && eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) <= size) {
        const Elf64_Phdr *ph = (const void *)(m + eh->e_phoff);
        for (unsigned i = 0; i < eh->e_phnum; i++)
            if (ph[i].p_type == PT_INTERP)
                interp = true;
    }
    if ((eh->e_type != ET_EXEC && eh->e_type != ET_DYN) || !interp) {
        snprintf(err, errlen,
                 "%s is not a dynamically linked program (a shared object, or a static executable): 'lineup "
                 "run' takes a program built with 'lineup-cc -o PROGRAM SOURCE.c'; harnesses go to 'lineup "
                 "HARNESS.so'",
                 path);
        goto out;
    }
    bool needs_lineup = false, tsan = false;
    if (eh->e_shoff && eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= size) {
        const Elf64_Shdr *sh = (const void *)(m + eh->e_shoff);
        for (unsigned i = 0; i < eh->e_shnum; i++) {
            if (sh[i].sh_link >= eh->e_shnum)
                continue;
            const Elf64_Shdr *strs = &sh[sh[i].sh_link];
            if (sh[i].sh_offset + sh[i].sh_size > size || strs->sh_offset + strs->sh_size > size)
                continue;
            const char *str = (const char *)m + strs->sh_offset;
            if (sh[i].sh_type == SHT_DYNAMIC) {
                const Elf64_Dyn *d = (const void *)(m + sh[i].sh_offset);
                for (size_t k = 0; k < sh[i].sh_size / sizeof *d && d[k].d_tag != DT_NULL; k++)
                    if (d[k].d_tag == DT_NEEDED && d[k].d_un.d_val < strs->sh_size &&
                        strncmp(str + d[k].d_un.d_val, "liblineup.so", 12) == 0)
                        needs_lineup = true;
            } else if (sh[i].sh_type == SHT_DYNSYM) {
                const Elf64_Sym *sym = (const void *)(m + sh[i].sh_offset);
                for (size_t k = 0; k < sh[i].sh_size / sizeof *sym && !tsan; k++)
                    if (sym[k].st_name < strs->sh_size && strncmp(str + sym[k].st_name, "__tsan_", 7) == 0)
                        tsan = true;
            }
        }
    }
    if (!needs_lineup) {
        snprintf(
            err, errlen,
            "%s was not linked by lineup-cc (it does not load liblineup.so): rebuild it with 'lineup-cc -o "
            "%s SOURCE.c'",
            path, lu__base(path));
        goto out;
    }
    bool marked = lu_drv_elf_marked(m, size);
    rc = !tsan ? (marked ? 3 : 1) : marked ? 0 : 2;
out:
    munmap((void *)m, size);
    return rc;
}
