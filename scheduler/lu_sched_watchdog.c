/*
 * Divergence watchdog and fatal-signal reporting.
 *
 * A thread that runs for long without reaching a scheduling point (an
 * infinite loop on plain memory) cannot be stopped cooperatively. Each pool
 * thread therefore carries a counter that interrupts it after watchdog_ms of
 * its own execution: a perf_event counter encoded by libpfm4 (retired
 * instructions where the hardware has them, perf::TASK-CLOCK where it does
 * not), or, where perf_event_open is refused, a POSIX thread CPU-time timer.
 * The handler compares the thread's count of scheduling points with the one
 * it saw at the previous tick: no progress in a whole period is divergence.
 * The process cannot safely go on after abandoning a thread mid-loop, so the
 * divergence is reported through on_fatal and the worker process ends; the
 * parent process sees it and continues with the next execution.
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LU__WD_SIG (SIGRTMIN + 7)
#define LU__ALTSTACK (64 * 1024)

static const char *lu__wd_name = "none";
static int lu__pfm_state; /* 0 untried, 1 ok, -1 unavailable */

const char *lu_sched_watchdog_name(void)
{
    return lu__wd_name;
}

static void lu__wd_handler(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    struct lu__thread *t = lu__self;
    if (!t)
        return;
    if (t->wd_fd >= 0)
        ioctl(t->wd_fd, PERF_EVENT_IOC_REFRESH, 1);
    uint64_t p = atomic_load_explicit(&t->progress, memory_order_relaxed);
    if (p != t->progress_at_tick) {
        t->progress_at_tick = p;
        return;
    }
    ucontext_t *uc = ucv;
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    if (t->s->cfg.on_fatal)
        t->s->cfg.on_fatal(t->s->cfg.on_fatal_arg, LU_SCHED_FATAL_DIVERGE, 0, t->id, pc);
    syscall(SYS_exit_group, 125);
}

static int lu__perf_open(struct lu__thread *t, const char *event, uint64_t period)
{
    struct perf_event_attr attr;
    pfm_perf_encode_arg_t arg;
    memset(&attr, 0, sizeof attr);
    memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.size = sizeof arg;
    if (pfm_get_os_event_encoding(event, PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS)
        return -1;
    attr.size = sizeof attr;
    attr.sample_period = period;
    attr.wakeup_events = 1;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -1;
    struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) < 0 || fcntl(fd, F_SETSIG, LU__WD_SIG) < 0 ||
        fcntl(fd, F_SETOWN_EX, &owner) < 0 || ioctl(fd, PERF_EVENT_IOC_RESET, 0) < 0 ||
        ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) < 0) {
        close(fd);
        return -1;
    }
    t->wd_fd = fd;
    return 0;
}

void lu__wd_thread_init(struct lu__thread *t)
{
    uint64_t ms = t->s->cfg.watchdog_ms;
    t->wd_fd = -1;
    t->wd_timer_ok = false;
    t->altstack = mmap(NULL, LU__ALTSTACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (t->altstack != MAP_FAILED) {
        stack_t ss = {.ss_sp = t->altstack, .ss_size = LU__ALTSTACK, .ss_flags = 0};
        sigaltstack(&ss, NULL);
    } else {
        t->altstack = NULL;
    }
    /* The signal handler reads lu__self: make sure the thread-local exists
     * before any signal can arrive. */
    lu__self = NULL;
    if (lu__pfm_state == 1) {
        /* ~1 instruction per ns is a slow machine; a period a few times
         * too long only delays the report. */
        if (lu__perf_open(t, "instructions", ms * 1000000ULL) == 0) {
            lu__wd_name = "perf_event instructions (libpfm4)";
            return;
        }
        if (lu__perf_open(t, "perf::TASK-CLOCK", ms * 1000000ULL) == 0) {
            lu__wd_name = "perf_event perf::TASK-CLOCK (libpfm4)";
            return;
        }
    }
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = LU__WD_SIG;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    timer_t timer;
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer) == 0) {
        struct itimerspec its;
        its.it_value.tv_sec = (time_t)(ms / 1000);
        its.it_value.tv_nsec = (long)(ms % 1000) * 1000000L;
        its.it_interval = its.it_value;
        timer_settime(timer, 0, &its, NULL);
        t->wd_timer = timer;
        t->wd_timer_ok = true;
        lu__wd_name = "POSIX thread CPU-time timer";
    }
}

void lu__wd_thread_fini(struct lu__thread *t)
{
    if (t->wd_fd >= 0)
        close(t->wd_fd);
    if (t->wd_timer_ok)
        timer_delete((timer_t)t->wd_timer);
    if (t->altstack) {
        stack_t ss = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
        sigaltstack(&ss, NULL);
        munmap(t->altstack, LU__ALTSTACK);
    }
}

/* ---- fatal signals ---- */

static struct lu_sched_config *lu__fatal_cfg(void)
{
    struct lu__thread *t = lu__self;
    return t ? &t->s->cfg : NULL;
}

static void (*lu__fatal_fallback)(void *, int, int, int, uintptr_t);
static void *lu__fatal_fallback_arg;

static void lu__fatal_handler(int sig, siginfo_t *si, void *ucv)
{
    (void)si;
    ucontext_t *uc = ucv;
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    struct lu__thread *t = lu__self;
    struct lu_sched_config *cfg = lu__fatal_cfg();
    if (cfg && cfg->on_fatal)
        cfg->on_fatal(cfg->on_fatal_arg, LU_SCHED_FATAL_SIGNAL, sig, t ? t->id : -1, pc);
    else if (lu__fatal_fallback)
        lu__fatal_fallback(lu__fatal_fallback_arg, LU_SCHED_FATAL_SIGNAL, sig, -1, pc);
    /* SA_RESETHAND restored the default action: returning re-executes the
     * fault (or abort() raises again) and the process dies of the signal,
     * which is what the parent expects to see. */
    if (sig == SIGABRT || sig == SIGFPE)
        raise(sig);
}

void lu_sched_set_fatal_fallback(void (*fn)(void *, int, int, int, uintptr_t), void *arg)
{
    lu__fatal_fallback = fn;
    lu__fatal_fallback_arg = arg;
}

void lu__fatal_handlers_install(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    if (lu__pfm_state == 0)
        lu__pfm_state = pfm_initialize() == PFM_SUCCESS ? 1 : -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = lu__wd_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(LU__WD_SIG, &sa, NULL);

    static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};
    sa.sa_sigaction = lu__fatal_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        sigaction(fatal[i], &sa, NULL);
}
