/*
 * Divergence watchdog and fatal-signal reporting.
 *
 * A thread that runs for long without reaching a scheduling point (an
 * infinite loop on plain memory) cannot be stopped cooperatively. The
 * kernel thread that runs the executions therefore carries a counter that
 * interrupts it periodically: a perf_event counter encoded by libpfm4
 * (retired instructions where the hardware has them, perf::TASK-CLOCK where
 * it does not), or, where perf_event_open is refused, a POSIX thread
 * CPU-time timer. The handler compares the scheduler's count of scheduling
 * points with the one it saw at the previous tick: none for a whole
 * watchdog period inside an execution is divergence.
 * The process cannot safely go on after abandoning a thread mid-loop, so the
 * divergence is reported through on_fatal and the worker process ends; the
 * parent process sees it and continues with the next execution.
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LU__WD_SIG LU_SCHED_WATCHDOG_SIGNAL
#define LU__ALTSTACK (64 * 1024)

static const char *lu__wd_name = "none";
static int lu__pfm_state; /* 0 untried, 1 ok, -1 unavailable */

/* The watchdog of the kernel thread that runs executions (the controller's:
 * every controlled thread runs on it). Ticks come every half watchdog
 * period of that thread's CPU time; two ticks in a row inside an execution
 * without a scheduling point in between mean divergence. Arming it once
 * per kernel thread, instead of per execution or per controlled thread,
 * keeps it off the handoff path entirely. */
static __thread struct {
    bool armed;
    int fd;
    bool timer_ok;
    timer_t timer;
    void *altstack;
    uint64_t points_at_tick;
    uint64_t executions_at_tick;
    int stalled;
} lu__wd __attribute__((tls_model("initial-exec")));

/* The watchdog state lives in the controller's TLS, but the handler runs
 * with the FS base of whichever controlled thread was interrupted: reach it
 * through a plain pointer. */
static __typeof__(lu__wd) *lu__wd_ctl;

int lu_sched_ask_where(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = LU_SCHED_WATCHDOG_SIGNAL;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_int = LU_SCHED_WHERE_SIGVAL;
    return (int)syscall(SYS_rt_tgsigqueueinfo, pid, pid, LU_SCHED_WATCHDOG_SIGNAL, &si);
}

const char *lu_sched_watchdog_name(void)
{
    return lu__wd_name;
}

/* lineup's own code (this library's executable segment), found once at
 * install time: where a divergent loop is reported must be the program's. */
static uintptr_t lu__own_lo, lu__own_hi;

static int lu__find_own(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t self = (uintptr_t)arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + p->p_vaddr;
        if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && self >= lo && self - lo < p->p_memsz) {
            lu__own_lo = lo;
            lu__own_hi = lo + p->p_memsz;
            return 1;
        }
    }
    return 0;
}

static bool lu__own(uintptr_t pc)
{
    return pc >= lu__own_lo && pc < lu__own_hi;
}

/* A PLT stub: [endbr64;] [bnd] jmp *GOT(%rip). */
static bool lu__plt_stub(const unsigned char *ip)
{
    if (ip[0] == 0xf3 && ip[1] == 0x0f && ip[2] == 0x1e && ip[3] == 0xfa)
        ip += 4;
    if (ip[0] == 0xf2)
        ip++;
    return ip[0] == 0xff && ip[1] == 0x25;
}

/* Where the interrupted thread is in the program's code. A loop on plain
 * memory built by lineup-cc calls lineup's access hooks, so the tick often
 * lands in one of them (or in the PLT stub on the way): then the program's
 * frame is the caller's, reported at its call instruction. */
static uintptr_t lu__program_pc(const ucontext_t *uc)
{
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    if (!lu__own(pc)) {
        if (lu__plt_stub((const unsigned char *)pc))
            return *(const uintptr_t *)uc->uc_mcontext.gregs[REG_RSP] - 1;
        return pc;
    }
    /* the unwinder was loaded at install time: nothing is allocated now */
    void *fr[32];
    int n = backtrace(fr, 32), k = 0;
    while (k < n && (uintptr_t)fr[k] != pc)
        k++;
    for (int i = k + 1; i < n; i++)
        if (!lu__own((uintptr_t)fr[i]))
            return (uintptr_t)fr[i] - 1;
    return pc;
}

static void lu__wd_handler(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    __typeof__(lu__wd) *w = lu__wd_ctl;
    if (si->si_code == SI_QUEUE && si->si_value.sival_int == LU_SCHED_WHERE_SIGVAL) {
        struct lu__thread *t = lu__self;
        if (t && t->s->cfg.on_fatal)
            t->s->cfg.on_fatal(t->s->cfg.on_fatal_arg, LU_SCHED_FATAL_BLOCKED, 0, t->id, lu__program_pc(ucv));
        /* never back: the blocking call would fail with EINTR and the
         * program run on with the error, so that the report of the timeout
         * would show what it did next (a call returning -1, main returning)
         * instead of where it blocked. The asker kills the process. */
        for (;;)
            pause();
    }
    if (!w)
        return;
    if (w->fd >= 0)
        ioctl(w->fd, PERF_EVENT_IOC_REFRESH, 1);
    struct lu__thread *t = lu__self;
    if (!t) {
        w->stalled = 0; /* lineup's own code: not watched */
        return;
    }
    struct lu_sched *s = t->s;
    if (s->stats.points != w->points_at_tick || s->stats.executions != w->executions_at_tick) {
        w->points_at_tick = s->stats.points;
        w->executions_at_tick = s->stats.executions;
        w->stalled = 0;
        return;
    }
    if (++w->stalled < 2)
        return;
    uintptr_t pc = lu__program_pc(ucv);
    if (s->cfg.on_fatal)
        s->cfg.on_fatal(s->cfg.on_fatal_arg, LU_SCHED_FATAL_DIVERGE, 0, t->id, pc);
    lu__sched_exit_group(125);
}

/* The watchdog's perf events, in the order tried, encoded once per process
 * by lu_sched_watchdog_prepare (the layer above calls it before it forks,
 * lu__fatal_handlers_install in any case). libpfm4 finds an event by
 * scanning its tables by name, and `lineup run` arms the watchdog in every
 * forked child: encoding there took a tenth of each execution. The
 * children inherit these. */
enum { LU__EV_INSTRUCTIONS, LU__EV_TASK_CLOCK, LU__EV_N };
static const char *const lu__ev_name[LU__EV_N] = {"instructions", "perf::TASK-CLOCK"};
static struct perf_event_attr lu__ev_attr[LU__EV_N];
static bool lu__ev_ok[LU__EV_N];

/* libpfm4 is opened for the encoding and closed after it, not linked:
 * relocating its event tables leaves about 1 MB of private pages in every
 * process that maps it, and under `lineup run` every execution is a fork
 * that copies their page tables and tears them down at its exit (S19.1 in
 * benchmarks/RESULTS.md). The symbols are looked up in its handle: a
 * look-up in the global scope would tie it to liblineup.so, which glibc
 * then never unloads. Without libpfm4 the watchdog falls back to a
 * CPU-time timer. */
void lu_sched_watchdog_prepare(void)
{
    if (lu__pfm_state != 0)
        return;
    /* code under test that uses libpfm4 itself keeps it, initialized */
    void *theirs = dlopen(LU_PFM_SONAME, RTLD_NOW | RTLD_NOLOAD);
    void *h = theirs ? theirs : dlopen(LU_PFM_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        lu__pfm_state = -1;
        return;
    }
    int (*init)(void) = (int (*)(void))dlsym(h, "pfm_initialize");
    int (*encode)(const char *, int, pfm_os_t, void *) =
        (int (*)(const char *, int, pfm_os_t, void *))dlsym(h, "pfm_get_os_event_encoding");
    void (*term)(void) = (void (*)(void))dlsym(h, "pfm_terminate");
    lu__pfm_state = init && encode && term && init() == PFM_SUCCESS ? 1 : -1;
    for (int i = 0; lu__pfm_state == 1 && i < LU__EV_N; i++) {
        pfm_perf_encode_arg_t arg;
        memset(&arg, 0, sizeof arg);
        arg.attr = &lu__ev_attr[i];
        arg.size = sizeof arg;
        if (encode(lu__ev_name[i], PFM_PLM3, PFM_OS_PERF_EVENT, &arg) != PFM_SUCCESS)
            continue;
        struct perf_event_attr *attr = &lu__ev_attr[i];
        attr->size = sizeof *attr;
        attr->disabled = 1;
        attr->exclude_kernel = 1;
        attr->exclude_hv = 1;
        /* an event the kernel refuses (no hardware counters in a VM) is
         * refused again in every child: try it once, here */
        int fd = (int)syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0) {
            close(fd);
            lu__ev_ok[i] = true;
        }
    }
    if (lu__pfm_state == 1 && !theirs)
        term();
    dlclose(h);
}

static int lu__perf_open(int ev, uint64_t period)
{
    if (!lu__ev_ok[ev])
        return -1;
    struct perf_event_attr attr = lu__ev_attr[ev];
    attr.sample_period = period;
    attr.wakeup_events = 1;
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
    lu__wd.fd = fd;
    return 0;
}

void lu__wd_init(struct lu_sched *s)
{
    if (lu__wd.armed)
        return;
    /* Uncontrolled code that ran before (a constructor of the code under
     * test or of the layer above) may have blocked every signal; the
     * interposers keep the watchdog's signal unblocked only from here on. */
    sigset_t wd;
    sigemptyset(&wd);
    sigaddset(&wd, LU__WD_SIG);
    pthread_sigmask(SIG_UNBLOCK, &wd, NULL);
    /* half the period per tick, two silent ticks to fire: divergence is
     * reported after between 1 and 1.5 watchdog periods of CPU time */
    uint64_t ns = (uint64_t)s->cfg.watchdog_ms * 500000ULL;
    lu__wd.armed = true;
    lu__wd.fd = -1;
    lu__wd.timer_ok = false;
    lu__wd.stalled = 0;
    lu__wd_ctl = &lu__wd;
    lu__wd.altstack = mmap(NULL, LU__ALTSTACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (lu__wd.altstack != MAP_FAILED) {
        stack_t ss = {.ss_sp = lu__wd.altstack, .ss_size = LU__ALTSTACK, .ss_flags = 0};
        sigaltstack(&ss, NULL);
    } else {
        lu__wd.altstack = NULL;
    }
    if (lu__pfm_state == 1) {
        /* ~1 instruction per ns is a slow machine; a period a few times
         * too long only delays the report. */
        if (lu__perf_open(LU__EV_INSTRUCTIONS, ns) == 0) {
            lu__wd_name = "perf_event instructions (libpfm4)";
            return;
        }
        if (lu__perf_open(LU__EV_TASK_CLOCK, ns) == 0) {
            lu__wd_name = "perf_event perf::TASK-CLOCK (libpfm4)";
            return;
        }
    }
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = LU__WD_SIG;
    sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &lu__wd.timer) == 0) {
        struct itimerspec its;
        its.it_value.tv_sec = (time_t)(ns / 1000000000ULL);
        its.it_value.tv_nsec = (long)(ns % 1000000000ULL);
        its.it_interval = its.it_value;
        timer_settime(lu__wd.timer, 0, &its, NULL);
        lu__wd.timer_ok = true;
        lu__wd_name = "POSIX thread CPU-time timer";
    }
}

void lu__wd_fini(void)
{
    if (!lu__wd.armed)
        return;
    lu__wd.armed = false;
    if (lu__wd_ctl == &lu__wd)
        lu__wd_ctl = NULL;
    if (lu__wd.fd >= 0)
        close(lu__wd.fd);
    if (lu__wd.timer_ok)
        timer_delete(lu__wd.timer);
    if (lu__wd.altstack) {
        stack_t ss = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
        sigaltstack(&ss, NULL);
        munmap(lu__wd.altstack, LU__ALTSTACK);
    }
}

/* ---- fatal signals ---- */

static struct lu_sched_config *lu__fatal_cfg(void)
{
    struct lu__thread *t = lu__self;
    return t ? &t->s->cfg : NULL;
}

/* The signals lu__fatal_handler reports (and raises again to die of) */
static const int lu__fatal_sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};

static void (*lu__fatal_fallback)(void *, int, int, int, uintptr_t);
static void *lu__fatal_fallback_arg;

static void lu__fatal_handler(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
    struct lu__thread *t = lu__self;
    struct lu_sched_config *cfg = lu__fatal_cfg();
    if (cfg && cfg->on_fatal)
        cfg->on_fatal(cfg->on_fatal_arg, LU_SCHED_FATAL_SIGNAL, sig, t ? t->id : -1, pc);
    else if (lu__fatal_fallback)
        lu__fatal_fallback(lu__fatal_fallback_arg, LU_SCHED_FATAL_SIGNAL, sig, -1, pc);
    /* SA_RESETHAND restored the default action, so raising it again kills
     * the process with this signal, as the parent expects. Returning would
     * not do for all: it re-executes a faulting load, but not a raise() or
     * kill() of SIGSEGV (si_code <= 0), an int3 (SIGTRAP) or a seccomp
     * SIGSYS, which would go on as if nothing happened. */
    (void)si;
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
    lu_sched_watchdog_prepare();
    dl_iterate_phdr(lu__find_own, (void *)(uintptr_t)&lu__program_pc);
    void *warm[2];
    (void)backtrace(warm, 2); /* loads libgcc's unwinder now, not in a handler */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = lu__wd_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(LU__WD_SIG, &sa, NULL);

    sa.sa_sigaction = lu__fatal_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND | SA_NODEFER;
    for (size_t i = 0; i < sizeof lu__fatal_sigs / sizeof lu__fatal_sigs[0]; i++)
        sigaction(lu__fatal_sigs[i], &sa, NULL);
}

bool lu_sched_fatal_signal_handled(int sig)
{
    for (size_t i = 0; i < sizeof lu__fatal_sigs / sizeof lu__fatal_sigs[0]; i++)
        if (lu__fatal_sigs[i] == sig)
            return true;
    return false;
}
