/* Helpers of the driver shared by the parent and the worker. */
#define _GNU_SOURCE
#include "lu_drv.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Source lines come from binutils' addr2line on demand: reports are rare,
 * and it reads every DWARF version gcc and clang emit. */
void lu_drv_thread_name(struct lu_hist_buf *b, int tid, int base)
{
    if (tid <= 0)
        lu_hist_buf_puts(b, "the main thread");
    else if (tid <= base)
        lu_hist_buf_printf(b, "create()'s thread %d", tid);
    else
        lu_hist_buf_printf(b, "thread %d", tid - 1 - base);
}

void lu_drv_addr2line(struct lu_hist_buf *b, const char *module, uintptr_t off)
{
    char cmd[1200], fn[256] = "", line[512] = "";
    FILE *p = NULL;
    if (module[0] && !strchr(module, '\'')) {
        snprintf(cmd, sizeof cmd, "addr2line -f -C -e '%s' %#" PRIxPTR " 2>/dev/null", module, off);
        p = popen(cmd, "r");
    }
    if (p) {
        if (fgets(fn, sizeof fn, p))
            fn[strcspn(fn, "\n")] = 0;
        if (fgets(line, sizeof line, p))
            line[strcspn(line, "\n")] = 0;
        pclose(p);
        /* "file.c:47 (discriminator 1)": the basic block within the line
         * means nothing to a reader */
        char *d = strstr(line, " (discriminator");
        if (d)
            *d = 0;
    }
    const char *base = strrchr(line, '/');
    base = base ? base + 1 : line;
    if (fn[0] && strcmp(fn, "??") != 0 && line[0] && line[0] != '?')
        lu_hist_buf_printf(b, "%s (%s)", fn, base);
    else if (module[0])
        lu_hist_buf_printf(b, "%s+%#" PRIxPTR, module, off);
    else
        lu_hist_buf_printf(b, "%#" PRIxPTR, off);
}

/* ---- strategies ---- */

static const char *const lu__strategy_ids[] = {
#define LU__SID(name, id, text) id,
    LU_DRV_STRATEGIES(LU__SID)
#undef LU__SID
};
static const char *const lu__strategy_texts[] = {
#define LU__STXT(name, id, text) text,
    LU_DRV_STRATEGIES(LU__STXT)
#undef LU__STXT
};

const char *lu_drv_strategy_id(int s)
{
    return s >= 0 && s < LU_DRV_S_COUNT ? lu__strategy_ids[s] : "?";
}

const char *lu_drv_strategy_text(int s)
{
    return s >= 0 && s < LU_DRV_S_COUNT ? lu__strategy_texts[s] : "?";
}

int lu_drv_strategy_parse(const char *id)
{
    for (int s = 0; s < LU_DRV_S_COUNT; s++)
        if (strcmp(id, lu__strategy_ids[s]) == 0)
            return s;
    return -1;
}

bool lu_drv_strategy_randomized(int s)
{
    return s == LU_DRV_S_RANDOM || s == LU_DRV_S_PCT || s == LU_DRV_S_POS;
}

bool lu_drv_default_samples(int strategy, uint64_t max_executions)
{
    /* a budget of 1 leaves nothing to sample */
    return strategy == LU_DRV_S_DEFAULT && max_executions > 1;
}

uint64_t lu_drv_default_systematic(uint64_t max_executions)
{
    return max_executions - max_executions / 2;
}

/* An exhaustive search splits its tree; the samplers split their chunks,
 * each drawn from the test's seed and its number (PCT learns the length of
 * an execution within the chunk), so that the executions are the same with
 * any number of explorers. A budgeted DFS would cover a different part of
 * the tree each run: it stays alone. */
static unsigned lu__explorers_cap(unsigned n)
{
    return !n ? 1 : n < LU_DRV_MAX_EXPLORERS ? n : LU_DRV_MAX_EXPLORERS;
}

unsigned lu_drv_job_explorers(const struct lu_drv_job *j)
{
    if (j->max_executions && !lu_drv_strategy_randomized(j->strategy))
        return 1;
    return lu__explorers_cap(j->explorers);
}

unsigned lu_drv_job_sampling_explorers(const struct lu_drv_job *j)
{
    return lu_drv_default_samples(j->strategy, j->max_executions) ? lu__explorers_cap(j->explorers) : 0;
}

ssize_t lu_drv_read_small(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    return n;
}

/* The number in a small file (after the text after), or 0 (missing,
 * unreadable, "max"). */
static uint64_t lu__file_u64(const char *path, const char *after)
{
    char buf[4096];
    if (lu_drv_read_small(path, buf, sizeof buf) < 0)
        return 0;
    const char *p = buf;
    if (after && !(p = strstr(buf, after)))
        return 0;
    p += after ? strlen(after) : 0;
    while (*p == ' ')
        p++;
    return isdigit((unsigned char)*p) ? strtoull(p, NULL, 10) : 0;
}

uint64_t lu_drv_mem_available_mb(void)
{
    uint64_t avail = lu__file_u64("/proc/meminfo", "MemAvailable:") >> 10; /* kB to MB */
    uint64_t limit = lu__file_u64("/sys/fs/cgroup/memory.max", NULL) >> 20;
    if (limit) {
        uint64_t used = lu__file_u64("/sys/fs/cgroup/memory.current", NULL) >> 20;
        uint64_t left = limit > used ? limit - used : 0;
        if (!avail || left < avail)
            avail = left;
    }
    return avail;
}

uint32_t lu_drv_recycle_mb(uint64_t avail_mb, unsigned jobs)
{
    uint64_t mb = avail_mb / 4 / (jobs ? jobs : 1);
    if (mb < LU_DRV_RECYCLE_MIN_MB)
        mb = LU_DRV_RECYCLE_MIN_MB;
    return mb > LU_DRV_RECYCLE_MAX_MB ? LU_DRV_RECYCLE_MAX_MB : (uint32_t)mb;
}

uint32_t lu_drv_heap_cap_mb(uint64_t avail_mb, unsigned jobs, uint32_t recycle_mb)
{
    if (!avail_mb)
        return 0;
    uint64_t mb = avail_mb / (jobs ? jobs : 1);
    if (mb < 2 * (uint64_t)recycle_mb)
        mb = 2 * (uint64_t)recycle_mb;
    return mb > UINT32_MAX ? UINT32_MAX : (uint32_t)mb;
}

uint32_t lu_drv_cache_mb(const char *prog)
{
    const char *e = getenv("LINEUP_PC_MB");
    if (!e || !*e)
        return (uint32_t)(LU_SCHED_CACHE_BYTES >> 20);
    return (uint32_t)lu_drv_parse_u64(prog, "LINEUP_PC_MB", e, 1u << 20);
}

void lu_drv_vdie_usage(const char *prog, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '%s --help'.\n", prog);
    exit(2);
}

static void lu__die(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void lu__die(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lu_drv_vdie_usage(prog, fmt, ap);
}

uint64_t lu_drv_parse_u64(const char *prog, const char *opt, const char *v, uint64_t max)
{
    char *end;
    errno = 0;
    if (!v || !*v || *v == '-' || !isdigit((unsigned char)*v))
        lu__die(prog, "%s takes a whole number, not '%s'", opt, v ? v : "");
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || x > max)
        lu__die(prog, "%s takes a whole number up to %" PRIu64 ", not '%s'", opt, max, v);
    return x;
}

bool lu_drv_parse_onoff(const char *prog, const char *opt, const char *v)
{
    if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
        lu__die(prog, "%s takes on or off, not '%s'", opt, v);
    return strcmp(v, "on") == 0;
}

static const char *const lu__tls_names[] = {
    [LU_SCHED_TLS_AUTO] = "auto", [LU_SCHED_TLS_PER_THREAD] = "per-thread", [LU_SCHED_TLS_SHARED] = "shared"};

int lu_drv_tls_parse(const char *v)
{
    for (int i = 0; i < (int)(sizeof lu__tls_names / sizeof lu__tls_names[0]); i++)
        if (strcmp(v, lu__tls_names[i]) == 0)
            return i;
    return -1;
}

const char *lu_drv_tls_name(int tls)
{
    return tls >= 0 && tls < (int)(sizeof lu__tls_names / sizeof lu__tls_names[0]) ? lu__tls_names[tls]
                                                                                   : "auto";
}

int lu_drv_parse_tls(const char *prog, const char *v)
{
    int t = lu_drv_tls_parse(v);
    if (t < 0)
        lu__die(prog, "--tls takes auto, per-thread or shared, not '%s'", v);
    return t;
}

int lu_drv_parse_preemptions(const char *prog, const char *v)
{
    if (v && strcmp(v, "-1") == 0)
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = v && isdigit((unsigned char)*v) ? strtoull(v, &end, 10) : 65;
    if (!v || !isdigit((unsigned char)*v) || errno || *end || x > 64)
        lu__die(prog, "--preemptions takes a whole number up to 64, or -1 for no bound, not '%s'",
                v ? v : "");
    return (int)x;
}

void lu_drv_check_dir(const char *prog, const char *opt, const char *dir)
{
    struct stat st;
    if (!*dir)
        lu__die(prog, "%s takes a directory, not an empty string", opt);
    if (stat(dir, &st) != 0)
        lu__die(prog, "%s %s: %s", opt, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        lu__die(prog, "%s %s: not a directory", opt, dir);
    if (access(dir, W_OK | X_OK) != 0)
        lu__die(prog, "%s %s: cannot create files there: %s", opt, dir, strerror(errno));
}

static pid_t lu__stdio_pid; /* forked workers exit without checking lineup's stdout */

/* A reader that went away (`lineup ... | head -1`) is not an error worth a
 * message: the output was not wanted. */
static bool lu__stdout_reader_gone(void)
{
    struct stat st;
    struct pollfd p = {STDOUT_FILENO, POLLOUT, 0};
    return fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) &&
           poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

/* The first error a write to standard output met (0: none). glibc sets
 * errno only in the call whose flush failed, which for output longer than
 * the buffer (a help text, a long report) is a printf nobody checks: by
 * exit the reason was gone. Standard output's writes therefore go through
 * lu__stdout_write, which keeps it. */
static int lu__stdout_err;

static ssize_t lu__stdout_write(void *cookie, const char *buf, size_t n)
{
    (void)cookie;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(STDOUT_FILENO, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!lu__stdout_err)
                lu__stdout_err = w < 0 ? errno : EIO;
            break; /* short: glibc marks the stream in error */
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

static void lu__close_stdout(void)
{
    if (getpid() != lu__stdio_pid)
        return;
    bool gone = lu__stdout_reader_gone();
    bool failed = ferror(stdout) != 0;
    errno = 0;
    failed |= fclose(stdout) != 0;
    /* errno: glibc's own stream, when the wrapping failed */
    int e = lu__stdout_err ? lu__stdout_err : errno;
    failed |= lu__stdout_err != 0;
    if (!failed || e == EPIPE || gone)
        return;
    if (e)
        fprintf(stderr, "lineup: write error on standard output: %s\n", strerror(e));
    else
        fputs("lineup: write error on standard output\n", stderr);
    fflush(stderr);
    _exit(3);
}

/* Standard output becomes a stream whose writes keep their error
 * (lu__stdout_write), buffered as glibc buffers it: by line on a terminal,
 * else in blocks. Nothing has been written to it yet. */
static void lu__stdout_wrap(void)
{
    cookie_io_functions_t io = {.write = lu__stdout_write};
    FILE *f = fopencookie(NULL, "w", io);
    if (!f)
        return; /* glibc's own stream: only the reason of an early error is lost */
    struct stat st;
    size_t size = fstat(STDOUT_FILENO, &st) == 0 && st.st_blksize > 0 ? (size_t)st.st_blksize : BUFSIZ;
    if (setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, size) != 0) {
        fclose(f);
        return;
    }
    stdout = f;
}

void lu_drv_stdio_init(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (n >= 0 && n != fd) {
            dup2(n, fd);
            close(n);
        }
    }
    lu__stdio_pid = getpid();
    lu__stdout_wrap();
    atexit(lu__close_stdout);
}

void lu_drv_misfit_why(struct lu_hist_buf *b, int why, const struct lu_sched_step *steps, uint32_t len,
                       uint32_t at, unsigned tid_offset)
{
    unsigned c = at < len ? steps[at].chosen : 0;
    switch (why) {
    case LU_SCHED_MISFIT_NO_THREAD:
    case LU_SCHED_MISFIT_NOT_RUNNABLE:
        if (c < tid_offset || (c == 0 && tid_offset == 0))
            lu_hist_buf_printf(b, "the main thread (t%u)", c);
        else
            lu_hist_buf_printf(b, "thread %u (t%u)", c - tid_offset, c);
        lu_hist_buf_puts(b, why == LU_SCHED_MISFIT_NO_THREAD ? " does not exist" : " is not runnable");
        break;
    case LU_SCHED_MISFIT_NOT_DATA:
        lu_hist_buf_printf(b, "the execution asks for a data value where the schedule has t%u", c);
        break;
    case LU_SCHED_MISFIT_NOT_THREAD:
        lu_hist_buf_printf(b, "the execution chooses a thread where the schedule has d%u", c);
        break;
    case LU_SCHED_MISFIT_DATA_RANGE:
        lu_hist_buf_printf(b, "the recorded value d%u is out of range", c);
        break;
    case LU_SCHED_MISFIT_ENDED:
        lu_hist_buf_printf(b, "the schedule ended after %u choice%s but the execution went on", len,
                           len == 1 ? "" : "s");
        break;
    default:
        lu_hist_buf_printf(b, "the execution ended before it; %u recorded choice%s left over", len - at,
                           len - at == 1 ? " was" : "s were");
        break;
    }
}

/* the --json target (lu_drv_json_resolve): no replay file takes its name */
static const struct lu_drv_json *lu__replay_avoid;

FILE *lu_drv_replay_create(const char *dir, const char *stem, unsigned *seq, char *out, size_t outlen)
{
    int fd = -1;
    for (int tries = 0; tries < 100000 && fd < 0; tries++) {
        snprintf(out, outlen, "%s/%s-%u.replay", dir, stem, ++*seq);
        fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            return NULL;
        /* the --json file, written at the end, would replace this one */
        if (fd >= 0 && lu__replay_avoid && lu_drv_json_is(lu__replay_avoid, out)) {
            close(fd);
            unlink(out);
            fd = -1;
        }
    }
    if (fd < 0) {
        errno = EEXIST;
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

/* Replay files are lines of "key value": a newline in a value (a path, an
 * argument) is written as \n, a carriage return as \r (readers end a line
 * at either, so a raw one would cut the value short), a backslash as \\. */
void lu_drv_replay_put(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\\\", f);
        else if (*s == '\n')
            fputs("\\n", f);
        else if (*s == '\r')
            fputs("\\r", f);
        else
            fputc(*s, f);
    }
}

void lu_drv_replay_unescape(char *s)
{
    char *d = s;
    for (; *s; s++) {
        if (*s == '\\' && (s[1] == 'n' || s[1] == 'r' || s[1] == '\\')) {
            *d++ = s[1] == 'n' ? '\n' : s[1] == 'r' ? '\r' : '\\';
            s++;
        } else {
            *d++ = *s;
        }
    }
    *d = 0;
}

long lu_drv_replay_line(FILE *f, char **line, size_t *cap, size_t max, size_t *total)
{
    size_t n = 0;
    int c;
    errno = 0;
    while ((c = getc_unlocked(f)) != EOF) {
        ++*total;
        if (c == '\n')
            break;
        if (c == 0)
            return LU_DRV_LINE_NUL;
        if (n >= max)
            return LU_DRV_LINE_LONG;
        if (n + 2 > *cap) {
            size_t ncap = *cap ? *cap * 2 : 256;
            char *p = realloc(*line, ncap);
            if (!p)
                return LU_DRV_LINE_ERR;
            *line = p;
            *cap = ncap;
        }
        (*line)[n++] = (char)c;
    }
    if (c == EOF && ferror(f))
        return LU_DRV_LINE_ERR;
    if (c == EOF && n == 0)
        return LU_DRV_LINE_EOF;
    if (!*line) { /* an empty line before the file's end */
        *line = malloc(1);
        if (!*line)
            return LU_DRV_LINE_ERR;
        *cap = 1;
    }
    (*line)[n] = 0;
    return (long)n;
}

/* Printed commands must paste into a shell: a word with only characters no
 * shell treats specially stays as it is, any other goes in single quotes
 * (a quote inside becomes '\''). Returns a static buffer per slot: up to
 * LU__SHQ_SLOTS words of one printf. */
#define LU__SHQ_SLOTS 4
const char *lu_drv_shell_word(const char *s)
{
    static char buf[LU__SHQ_SLOTS][4 * PATH_MAX + 3];
    static unsigned next;
    char *out = buf[next++ % LU__SHQ_SLOTS];
    if (*s &&
        strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:@%+=,-") == strlen(s))
        return s;
    size_t o = 0, cap = sizeof buf[0] - 2;
    out[o++] = '\'';
    for (; *s && o + 4 < cap; s++) {
        if (*s == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *s;
        }
    }
    out[o++] = '\'';
    out[o] = 0;
    return out;
}

/* Set by the handlers (lu_drv_interrupt_absorbed), read by the main loops. */
volatile sig_atomic_t lu_drv_interrupted, lu_drv_graceful;
int lu_drv_trace_names_fd = -1;
static struct timespec lu__interrupted_at;

bool lu_drv_interrupt_absorbed(int sig)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (lu_drv_graceful && !lu_drv_interrupted) {
        lu__interrupted_at = now;
        lu_drv_interrupted = sig;
        return true;
    }
    /* timeout(1) sends its signal to the command and then to its process
     * group: twice at once, which is still one request */
    return lu_drv_graceful && now.tv_sec - lu__interrupted_at.tv_sec < 2;
}

volatile sig_atomic_t lu_drv_stray_sig, lu_drv_stray_pid;

bool lu_drv_signal_stray(int sig, const siginfo_t *si)
{
    if (!si || (si->si_code != SI_USER && si->si_code != SI_QUEUE && si->si_code != SI_TKILL))
        return false;
    pid_t me = getpid(), pid = si->si_pid;
    if (pid <= 1 || pid == me)
        return false;
    /* workers, their explorers, run mode's server and its executions: a
     * few levels at most */
    for (int depth = 0; depth < 8 && pid > 1; depth++) {
        pid_t pp = lu_sched_parent_of(pid);
        if (pp == me) {
            lu_drv_stray_sig = sig;
            lu_drv_stray_pid = si->si_pid;
            return true;
        }
        pid = pp;
    }
    return false;
}

void lu_drv_note_stray(FILE *out)
{
    if (lu_drv_stray_sig)
        fprintf(out,
                "note: the code under test sent SIG%s to lineup's own process (from process %d, below "
                "lineup's): lineup ignored it\n",
                sigabbrev_np(lu_drv_stray_sig), (int)lu_drv_stray_pid);
}

void lu_drv_die_interrupted(void)
{
    lu_drv_die_of(lu_drv_interrupted);
}

void lu_drv_die_of(int sig)
{
    fflush(NULL);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

int lu_drv_outcome_of(int exit_status, bool inconclusive)
{
    switch (exit_status) {
    case 0:
        return LU_DRV_O_PASS;
    case 1:
        return LU_DRV_O_BUG;
    case 2:
        return inconclusive ? LU_DRV_O_INCONCLUSIVE : LU_DRV_O_ERROR;
    default:
        return LU_DRV_O_INTERNAL;
    }
}

int lu_drv_outcome_exit(int outcome)
{
    static const int rc[] = {0, 2, 1, 2, 3};
    return outcome >= 0 && outcome <= LU_DRV_O_INTERNAL ? rc[outcome] : 3;
}

const char *lu_drv_outcome_verdict(int outcome, const char *pass)
{
    switch (outcome) {
    case LU_DRV_O_PASS:
        return pass;
    case LU_DRV_O_INCONCLUSIVE:
        return "INCONCLUSIVE (an execution blocked outside lineup's control)";
    case LU_DRV_O_BUG:
        return "FAIL (bug found)";
    default:
        return "ERROR";
    }
}

/* Options of one mode given to the other: the usage error says where they
 * belong, or what this mode calls the same thing. */
static const struct {
    const char *opt;
    bool run; /* an option of lineup run (else of the Line-Up check) */
    const char *hint;
} lu__elsewhere[] = {
    {"max-executions", false, "lineup run's budget is --budget N (executions) or --budget Ns (seconds)"},
    {"budget", true, "the Line-Up check's budget per test is --max-executions N"},
    {"matrix", false, NULL},
    {"samples", false, NULL},
    {"test", false, NULL},
    {"harness", false, NULL},
    {"shard", false, NULL},
    {"no-minimize", false, NULL},
    {"max-reports", false, NULL},
    {"all", true, NULL},
    {"expect-exit", true, NULL},
    {"races", true, NULL},
    {"nondet-range", true, NULL},
    {"max-steps", true, NULL},
};

const char *lu_drv_option_elsewhere(const char *arg, bool in_run)
{
    if (strncmp(arg, "--", 2) != 0)
        return NULL;
    arg += 2;
    size_t n = strcspn(arg, "=");
    for (size_t i = 0; i < sizeof lu__elsewhere / sizeof lu__elsewhere[0]; i++) {
        if (lu__elsewhere[i].run == in_run || strlen(lu__elsewhere[i].opt) != n ||
            strncmp(lu__elsewhere[i].opt, arg, n) != 0)
            continue;
        if (lu__elsewhere[i].hint)
            return lu__elsewhere[i].hint;
        return in_run ? "it is an option of the Line-Up check (lineup [OPTIONS] HARNESS.so)"
                      : "it is an option of lineup run (lineup run [OPTIONS] -- PROGRAM)";
    }
    return NULL;
}

/* ---- --json FILE ---- */

static char lu__json_tmp[PATH_MAX + 32];
static volatile pid_t lu__json_owner; /* the process that writes it; 0 once it is complete */
static int lu__json_fd = -1;          /* lineup's standard output, kept for --json - */

void lu_drv_json_cleanup(void)
{
    if (lu__json_owner && lu__json_owner == getpid())
        unlink(lu__json_tmp);
}

bool lu_drv_json_is(const struct lu_drv_json *j, const char *input)
{
    struct stat js, is;
    return j->arg && !j->direct && stat(j->path, &js) == 0 && stat(input, &is) == 0 &&
           js.st_dev == is.st_dev && js.st_ino == is.st_ino;
}

/* Problems a whole run would otherwise end with are usage errors here,
 * before anything runs. */
void lu_drv_json_resolve(const char *prog, const char *v, struct lu_drv_json *j)
{
    memset(j, 0, sizeof *j);
    j->arg = v;
    lu__replay_avoid = j;
    if (!*v)
        lu__die(prog, "--json takes a file name, not an empty string");
    struct stat st, out;
    if (strcmp(v, "-") == 0 || (stat(v, &st) == 0 && fstat(STDOUT_FILENO, &out) == 0 &&
                                out.st_dev == st.st_dev && out.st_ino == st.st_ino)) {
        snprintf(j->path, sizeof j->path, "%s", v);
        j->direct = true;
        j->to_stdout = true;
        return;
    }
    char cur[PATH_MAX];
    if (stat(v, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            lu__die(prog, "--json %s: is a directory; give a file name", v);
        bool ours = false;
        for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
            if (fstat(fd, &out) == 0 && out.st_dev == st.st_dev && out.st_ino == st.st_ino)
                ours = true;
        if (!S_ISREG(st.st_mode) || ours) {
            /* renaming onto it would replace the device node by a file */
            if (access(v, W_OK) != 0)
                lu__die(prog, "--json %s: cannot write it: %s", v, strerror(errno));
            snprintf(j->path, sizeof j->path, "%s", v);
            j->direct = true;
            return;
        }
        if (!realpath(v, cur))
            lu__die(prog, "--json %s: %s", v, strerror(errno));
    } else if (errno != ENOENT) {
        lu__die(prog, "--json %s: %s", v, strerror(errno));
    } else {
        /* a new file, or the missing target of a symlink: the temporary
         * goes beside the target, so that the rename replaces that file,
         * not the link */
        snprintf(cur, sizeof cur, "%s", v);
        for (int hops = 0; lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
            char target[PATH_MAX];
            ssize_t n = readlink(cur, target, sizeof target - 1);
            if (n < 0 || hops >= 40)
                lu__die(prog, "--json %s: %s", v, strerror(n < 0 ? errno : ELOOP));
            target[n] = 0;
            char *slash = strrchr(cur, '/');
            size_t room = slash ? sizeof cur - (size_t)(slash + 1 - cur) : 0;
            if (target[0] == '/' || !slash)
                snprintf(cur, sizeof cur, "%s", target);
            else if ((size_t)snprintf(slash + 1, room, "%s", target) >= room)
                lu__die(prog, "--json %s: %s", v, strerror(ENAMETOOLONG));
        }
    }
    /* its directory must take the temporary file */
    char dir[PATH_MAX], real[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", cur);
    char *slash = strrchr(dir, '/');
    const char *base = cur + (slash ? slash + 1 - dir : 0);
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
        lu__die(prog, "--json %s: is a directory; give a file name", v);
    if (slash == dir)
        snprintf(dir, sizeof dir, "/");
    else if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    if (!realpath(dir, real))
        lu__die(prog, "--json %s: directory %s: %s", v, dir, strerror(errno));
    if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode))
        lu__die(prog, "--json %s: %s is not a directory", v, dir);
    if (access(real, W_OK | X_OK) != 0)
        lu__die(prog, "--json %s: cannot create files in %s: %s", v, dir, strerror(errno));
    if ((size_t)snprintf(j->path, sizeof j->path, "%s/%s", strcmp(real, "/") ? real : "", base) >=
        sizeof j->path - 16)
        lu__die(prog, "--json %s: %s", v, strerror(ENAMETOOLONG));
}

int lu_drv_json_take_stdout(const char *prog, struct lu_drv_json *j)
{
    if (!j->arg || !j->to_stdout)
        return 0;
    fflush(stdout);
    lu__json_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (lu__json_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        fprintf(stderr, "%s: cannot write --json on standard output: %s\n", prog, strerror(errno));
        return 3;
    }
    return 0;
}

/* The document is kept in memory until the run ends, in every case: a
 * temporary file written as the run went was left behind by a lineup that
 * died of a signal it does not handle (SIGKILL, the OOM killer), one more
 * per run under another name. */
int lu_drv_json_open(const char *prog, struct lu_drv_json *j)
{
    if (!j->arg)
        return 0;
    j->f = open_memstream(&j->mem, &j->len);
    if (!j->f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, j->arg, strerror(errno));
        return 3;
    }
    return 0;
}

/* A file's JSON: written beside it as FILE.partial.PID (the pid keeps two
 * runs writing the same FILE apart) and renamed onto it, so that a reader
 * never sees half a document; false with errno set. */
static bool lu__json_write_file(struct lu_drv_json *j)
{
    if (fclose(j->f) != 0)
        return false;
    snprintf(lu__json_tmp, sizeof lu__json_tmp, "%s.partial.%ld", j->path, (long)getpid());
    static bool registered;
    if (!registered)
        atexit(lu_drv_json_cleanup);
    registered = true;
    lu__json_owner = getpid();
    FILE *f = fopen(lu__json_tmp, "w");
    bool ok = f && fwrite(j->mem, 1, j->len, f) == j->len;
    int e = errno;
    if (f && fclose(f) != 0 && ok) {
        e = errno;
        ok = false;
    }
    if (ok && rename(lu__json_tmp, j->path) != 0) {
        e = errno;
        ok = false;
    }
    if (!ok && f)
        unlink(lu__json_tmp);
    lu__json_owner = 0;
    free(j->mem);
    j->mem = NULL;
    errno = e;
    return ok;
}

/* A direct JSON: the whole document in one go; false with errno set when
 * it could not be written. */
static bool lu__json_write_direct(struct lu_drv_json *j)
{
    if (fclose(j->f) != 0)
        return false;
    fflush(stdout); /* /dev/stderr: after the report, not inside it */
    int fd = lu__json_fd;
    /* a FIFO's open waits for a reader, and a signal lineup takes for a
     * late stop request interrupts it */
    while (fd < 0 && (fd = open(j->path, O_WRONLY | O_APPEND | O_CLOEXEC)) < 0 && errno == EINTR) {
    }
    bool ok = fd >= 0;
    for (size_t off = 0; ok && off < j->len;) {
        ssize_t n = write(fd, j->mem + off, j->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            ok = false;
            break;
        }
        off += (size_t)n;
    }
    int e = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        e = errno;
        ok = false;
    }
    free(j->mem);
    j->mem = NULL;
    errno = e;
    return ok;
}

int lu_drv_json_finish(const char *prog, struct lu_drv_json *j)
{
    if (!j->arg || !j->f)
        return 0;
    bool ok = j->direct ? lu__json_write_direct(j) : lu__json_write_file(j);
    j->f = NULL;
    if (!ok) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, j->arg, strerror(errno));
        return 3;
    }
    return 0;
}

/* The length of the UTF-8 sequence at s (shortest form, no surrogates,
 * at most U+10FFFF), 0 if it is not one. */
static size_t lu__utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
               : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                              : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) ||
        (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

void lu_drv_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned char c = *p;
        size_t n = lu__utf8_len(p);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else if (n == 0)
            fputs("\\ufffd", f);
        else
            fwrite(p, 1, n, f);
        p += n ? n : 1;
    }
    fputc('"', f);
}

/* lineup's own frames (a report's, the run loop's) take tens of KB, and a
 * soft `ulimit -s` of 64 KB crashed it: before main's frame is touched,
 * the soft limit goes up (the stack grows against the limit of the
 * moment). A program that `lineup run` starts keeps the raised limit:
 * lineup's runtime runs on its main thread too. */
#define LU__STACK_NEED (128u << 10)
#define LU__STACK_WANT (8u << 20)

__attribute__((constructor)) static void lu__stack_init(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_STACK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= LU__STACK_NEED)
        return;
    rl.rlim_cur =
        rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= LU__STACK_WANT ? LU__STACK_WANT : rl.rlim_max;
    if (rl.rlim_cur < LU__STACK_NEED || setrlimit(RLIMIT_STACK, &rl) != 0) {
        /* no stdio: this frame is all the stack there may be */
        static const char msg[] =
            "lineup: the stack size limit (ulimit -s) is below the 128 KB lineup needs, "
            "and its hard limit does not let lineup raise it: raise it with ulimit -s\n";
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
        _exit(3);
    }
}

double lu_drv_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool lu_drv_elf_marked(const unsigned char *m, size_t size)
{
    static const char mark[] = "lineup-cc: instrumented for lineup";
    const Elf64_Ehdr *eh = (const void *)m;
    if (size < sizeof *eh || eh->e_shoff == 0 || eh->e_shstrndx >= eh->e_shnum ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
        return false;
    const Elf64_Shdr *sh = (const void *)(m + eh->e_shoff);
    const Elf64_Shdr *names = &sh[eh->e_shstrndx];
    if (names->sh_offset + names->sh_size > size)
        return false;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_name >= names->sh_size || sh[i].sh_type != SHT_PROGBITS ||
            sh[i].sh_offset + sh[i].sh_size > size)
            continue;
        const char *name = (const char *)m + names->sh_offset + sh[i].sh_name;
        if (names->sh_size - sh[i].sh_name >= sizeof ".comment" && strcmp(name, ".comment") == 0 &&
            memmem(m + sh[i].sh_offset, sh[i].sh_size, mark, sizeof mark) != NULL)
            return true;
    }
    return false;
}
