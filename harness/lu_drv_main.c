/*
 * `lineup [options] HARNESS.so`: the Line-Up check, driven from a parent
 * process that never runs code under test. See --help and docs/guide.md.
 */
#define _GNU_SOURCE
#include "lu_drv.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
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

#ifndef LINEUP_VERSION
#define LINEUP_VERSION "0.1.0"
#endif

enum { EXIT_PASS = 0, EXIT_BUG = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 3 };

/* ---- shared helpers ---- */

static const char *const lu__vnames[] = {
#define LU__VN(name, text, rc) text,
    LU_DRV_VERDICTS(LU__VN)
#undef LU__VN
};
static const int lu__vexit[] = {
#define LU__VE(name, text, rc) rc,
    LU_DRV_VERDICTS(LU__VE)
#undef LU__VE
};
static const char *const lu__vids[] = {
#define LU__VI(name, text, rc) #name,
    LU_DRV_VERDICTS(LU__VI)
#undef LU__VI
};

const char *lu_drv_verdict_name(int v)
{
    return v >= 0 && v < LU_DRV_V_COUNT ? lu__vnames[v] : "?";
}

int lu_drv_verdict_exit(int v)
{
    return v >= 0 && v < LU_DRV_V_COUNT ? lu__vexit[v] : EXIT_INTERNAL;
}

unsigned lu_drv_test_calls(const struct lu_drv_test *t)
{
    unsigned n = 0;
    for (unsigned i = 0; i < t->nthreads; i++)
        n += t->len[i];
    return n;
}

size_t lu_drv_shm_size(void)
{
    return sizeof(struct lu_drv_shm) + 3 * (size_t)LU_DRV_TRACE_CAP * sizeof(struct lu_sched_step);
}

struct lu_sched_step *lu_drv_shm_replay(struct lu_drv_shm *shm)
{
    return shm->trace.steps + LU_DRV_TRACE_CAP;
}

struct lu_sched_step *lu_drv_shm_stack(struct lu_drv_shm *shm)
{
    return shm->trace.steps + 2 * LU_DRV_TRACE_CAP;
}

/* "name(arg)" labels; a bare "name" or "name()" matches the first operation
 * of that name. */
static int lu__match_op(const char *tok, const char *const *labels, unsigned nops)
{
    for (unsigned i = 0; i < nops; i++)
        if (strcmp(tok, labels[i]) == 0)
            return (int)i;
    size_t n = strcspn(tok, "(");
    bool bare = tok[n] == 0 || strcmp(tok + n, "()") == 0;
    if (bare)
        for (unsigned i = 0; i < nops; i++)
            if (strncmp(tok, labels[i], n) == 0 && labels[i][n] == '(')
                return (int)i;
    return -1;
}

int lu_drv_test_parse(const char *s, const char *const *labels, unsigned nops, struct lu_drv_test *t,
                      char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->nthreads = 1;
    const char *p = s;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        if (*p == '|') {
            if (t->len[t->nthreads - 1] == 0) {
                snprintf(err, errlen, "empty thread before '|'");
                return -1;
            }
            if (++t->nthreads > LU_DRV_MAX_THREADS) {
                snprintf(err, errlen, "more than %d threads", LU_DRV_MAX_THREADS);
                return -1;
            }
            p++;
            continue;
        }
        char tok[128];
        size_t n = 0;
        while (*p && !isspace((unsigned char)*p) && *p != '|') {
            if (n + 1 >= sizeof tok) {
                snprintf(err, errlen, "call name too long");
                return -1;
            }
            tok[n++] = *p++;
        }
        tok[n] = 0;
        int op = lu__match_op(tok, labels, nops);
        if (op < 0) {
            snprintf(err, errlen, "'%s' is not an operation of the harness", tok);
            return -1;
        }
        unsigned th = t->nthreads - 1;
        if (t->len[th] >= LU_DRV_MAX_CALLS) {
            snprintf(err, errlen, "more than %d calls in thread %u", LU_DRV_MAX_CALLS, th);
            return -1;
        }
        t->cell[th][t->len[th]++] = (uint16_t)op;
    }
    if (t->len[t->nthreads - 1] == 0) {
        snprintf(err, errlen, t->nthreads == 1 ? "the test has no calls" : "empty thread after '|'");
        return -1;
    }
    return 0;
}

void lu_drv_test_format(struct lu_hist_buf *b, const struct lu_drv_test *t, const char *const *labels)
{
    for (unsigned i = 0; i < t->nthreads; i++) {
        if (i)
            lu_hist_buf_puts(b, " |");
        for (unsigned k = 0; k < t->len[i]; k++)
            lu_hist_buf_printf(b, "%s%s", i == 0 && k == 0 ? "" : " ", labels[t->cell[i][k]]);
    }
}

/* ---- options ---- */

struct lu__opts {
    unsigned threads, calls, samples;
    uint64_t seed;
    bool seed_given;
    int preemptions;
    const char *test;
    unsigned jobs;
    struct lu_drv_json json;
    const char *replay;
    const char *harness_name;
    const char *replay_dir;
    uint64_t max_executions;
    unsigned timeout;
    unsigned max_timeouts; /* per harness: tests timed out before the rest are not run (0: no limit) */
    uint32_t spin_bound, watchdog_ms;
    bool spin_given;     /* --spin-bound on the command line: a replay uses it, not the file's */
    bool timeout_given;  /* --timeout on the command line: likewise */
    bool watchdog_given; /* --watchdog-ms on the command line: likewise */
    bool no_minimize, allow_uninstrumented, quiet;
    unsigned max_reports;
    const char *path;
    int strategy;
    int depth;
    bool reduction; /* phase 2 DFS: partial-order reduction */
    int tls;        /* enum lu_sched_tls */
    bool tls_given; /* --tls on the command line: a replay uses it, not the file's */
    bool depth_given;
    uint64_t given;            /* options on the command line, bit (option - O_MATRIX) */
    unsigned shard_k, shard_n; /* 0/0: no sharding */
    uint64_t recycle_every;
    uint64_t max_serial;
    uint32_t recycle_mb;
    uint32_t heap_cap_mb;
    uint32_t cache_mb;
};

static void lu__usage(FILE *f)
{
    fprintf(
        f,
        "usage: lineup [options] HARNESS.so\n"
        "       lineup --replay FILE [HARNESS.so]\n"
        "\n"
        "Checks that the concurrent object of a harness is linearizable with respect to some\n"
        "deterministic sequential specification (Line-Up), with no specification written.\n"
        "\n"
        "options:\n"
        "  --matrix TxN        T threads, N calls each (default 3x3)\n"
        "  --samples K         random test matrices to check (default 100)\n"
        "  --seed S            seed of the random matrices and of the sampled schedules (default: from\n"
        "                      the clock, 0 for the default strategy's with --test; printed whenever\n"
        "                      something is drawn)\n"
        "  --preemptions P     preemption bound of phase 2 (default 2; -1: unbounded); with idb, the\n"
        "                      delay bound\n"
        "  --strategy S        phase 2 search: default, dfs, ipb, idb, random, pct or pos (see the guide)\n"
        "  --depth D           bug depth of pct (default 3)\n"
        "  --reduction on|off  partial-order reduction in exhaustive phase-2 search (default on; it skips\n"
        "                      executions, never a distinct history)\n"
        "  --tls auto|per-thread|shared  the test threads' TLS (default auto: shared unless some code\n"
        "                      has thread-local variables; see docs/architecture.md)\n"
        "  --test 'A B | C'    check this one test; '|' separates threads\n"
        "  --harness NAME      check only this harness of the shared object\n"
        "  --jobs N            tests run in parallel (default: number of cores); with fewer tests than\n"
        "                      N, an exhaustive search (--max-executions 0) splits each test among them,\n"
        "                      and so do random, pct, pos and the default's sampled half (the same\n"
        "                      executions as one process)\n"
        "  --shard K/N         check only the K-th of N shares of the --samples tests (same tests and\n"
        "                      verdicts as one run of all, for spreading a run over N machines);\n"
        "                      needs --seed, so that every share draws the same tests\n"
        "  --json FILE         write machine-readable results (FILE is replaced at the end; a device\n"
        "                      or FIFO is written to; -: the JSON alone on stdout, the report on stderr)\n"
        "  --replay FILE       re-run a reported failure and show it; only --timeout, --spin-bound,\n"
        "                      --watchdog-ms, --tls and --quiet apply, other options are rejected\n"
        "  --replay-dir DIR    where to write replay files (an existing directory; default .)\n"
        "  --max-executions N  phase 2 budget per test (default 20000; 0: none). The default strategy\n"
        "                      covers bound 0 (unless phase 1 covered it), then 1, ... up to\n"
        "                      --preemptions, until half of the budget runs out, then samples\n"
        "                      schedules with POS (partial order sampling) with the other half\n"
        "  --timeout SEC       a test times out when none of its executions finished for SEC\n"
        "                      seconds of wall-clock time (default 600; 0: none)\n"
        "  --max-timeouts N    after N tests of a harness timed out, run no more of its tests\n"
        "                      (default 3; 0: no limit)\n"
        "  --spin-bound N      spinning steps before a livelock is declared (1 to 100000000, default 1000)\n"
        "  --watchdog-ms MS    CPU time without a scheduling point that counts as divergence\n"
        "                      (1 to 3600000, default 1000)\n"
        "  --no-minimize       report failing tests as found\n"
        "  --max-reports N     minimize and report at most N failing tests per kind of bug and\n"
        "                      harness (default 3; 0: all); the others are counted\n"
        "  --allow-uninstrumented  accept a shared object not built with lineup-cc\n"
        "  --quiet             no progress line\n"
        "  --help, --version\n"
        "\n"
        "With --test, --matrix and --samples are rejected (they draw random tests).\n"
        "Options of 'lineup run' go after 'run' (see lineup run --help).\n"
        "\n"
        "exit status: 0 all tests pass, 1 a bug was found, 2 usage error (also: a harness error, an\n"
        "unsupported call, a --replay whose recorded schedule does not fit this harness; and a timeout,\n"
        "which is no bug: lineup could not check the test), 3 internal error (also: standard output or\n"
        "the --json file could not be written, or lineup's own processes, threads or memory ran into a\n"
        "limit, which the message names). Tests that end differently: 3 over 2 over 1 over 0, except\n"
        "that a bug found (1) outranks a timeout's 2.\n");
}

/* SIGINT, SIGTERM, SIGHUP. While tests run (lu_drv_graceful), the first one
 * only sets lu_drv_interrupted: no test is started any more, the running ones
 * are stopped, and what finished is reported. Otherwise, or again a second
 * or more later, lineup dies of the signal, removing FILE.partial of
 * --json first. */
static void lu__on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (lu_drv_signal_stray(sig, si) || lu_drv_interrupt_absorbed(sig))
        return;
    int e = errno;
    lu_drv_json_cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
    errno = e;
}

static void lu__die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void lu__die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lu_drv_vdie_usage("lineup", fmt, ap);
}

static uint64_t lu__parse_u64(const char *opt, const char *v, uint64_t max)
{
    return lu_drv_parse_u64("lineup", opt, v, max);
}

/* K/N, 1 <= K <= N: digits only, so that a typo in a cluster script fails
 * loudly instead of silently checking the wrong share. */
static void lu__parse_shard(const char *v, struct lu__opts *o)
{
    const char *slash = strchr(v, '/');
    bool digits = slash && slash != v && slash[1];
    for (const char *c = v; digits && *c; c++)
        if (c != slash && !isdigit((unsigned char)*c))
            digits = false;
    unsigned long long k = 0, n = 0;
    if (digits) {
        errno = 0;
        k = strtoull(v, NULL, 10);
        n = strtoull(slash + 1, NULL, 10);
        if (errno)
            digits = false;
    }
    if (!digits)
        lu__die_usage(
            "--shard takes K/N (this machine's share K of N shares, 1 <= K <= N), e.g. 2/8, not '%s'", v);
    if (n == 0 || n > 1000000)
        lu__die_usage("--shard %s: in K/N, the number of shares N must be between 1 and 1000000", v);
    if (k == 0 || k > n)
        lu__die_usage("--shard %s: in K/N, the share K must be between 1 and N (shares are numbered from 1)",
                      v);
    o->shard_k = (unsigned)k;
    o->shard_n = (unsigned)n;
}

/* Dies when an option of mask was given: it would change nothing (why),
 * and accepting it would let the user believe it did. */
static void lu__reject_given(uint64_t given, uint64_t mask, const struct option *lo, int base,
                             const char *why)
{
    uint64_t bad = given & mask;
    if (!bad)
        return;
    int bit = __builtin_ctzll(bad);
    for (const struct option *l = lo; l->name; l++)
        if (l->val == base + bit)
            lu__die_usage("--%s has no effect %s", l->name, why);
}

/* A whole number of at most 6 digits, digits only (no sign, no space). */
static bool lu__small_number(const char *s, size_t n, unsigned *out)
{
    if (n == 0 || n > 6)
        return false;
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return true;
}

/* The serial orders of a test, lens[i] calls in thread i: the multinomial
 * (sum lens)! / prod(lens[i]!), in floating point (48! overflows 64 bits). */
static double lu__serial_orders(const unsigned *lens, unsigned nthreads)
{
    double r = 1;
    unsigned k = 0;
    for (unsigned i = 0; i < nthreads; i++)
        for (unsigned j = 1; j <= lens[i]; j++)
            r = r * ++k / j;
    return r;
}

/* Phase 1 runs every serial order (fewer only when a call blocks): a test
 * with more than the limit would run for minutes before failing. */
static bool lu__too_many_orders(const unsigned *lens, unsigned nthreads, char *msg, size_t msglen)
{
    double n = lu__serial_orders(lens, nthreads);
    if (n <= LU_DRV_MAX_SERIAL)
        return false;
    snprintf(msg, msglen,
             "up to %.*g serial orders of its calls, more than phase 1's limit of %u: use fewer threads or "
             "calls",
             n < 1e15 ? 15 : 3, n, LU_DRV_MAX_SERIAL);
    return true;
}

static void lu__parse_matrix(const char *v, struct lu__opts *o)
{
    const char *x = strpbrk(v, "xX");
    unsigned t, n;
    if (!x || !lu__small_number(v, (size_t)(x - v), &t) || !lu__small_number(x + 1, strlen(x + 1), &n) ||
        !t || !n)
        lu__die_usage("--matrix takes TxN (threads x calls, whole numbers from 1), e.g. 3x3, not '%s'", v);
    if (t > LU_DRV_MAX_THREADS || n > LU_DRV_MAX_CALLS || t * n > 48)
        lu__die_usage("--matrix %s is too large (at most %d threads, %d calls each, 48 calls in all)", v,
                      LU_DRV_MAX_THREADS, LU_DRV_MAX_CALLS);
    unsigned lens[LU_DRV_MAX_THREADS];
    for (unsigned i = 0; i < t; i++)
        lens[i] = n;
    char msg[256];
    if (lu__too_many_orders(lens, t, msg, sizeof msg))
        lu__die_usage("--matrix %s: a %ux%u test has %s", v, t, n, msg);
    o->threads = t;
    o->calls = n;
}

static void lu__parse_opts(int argc, char **argv, struct lu__opts *o)
{
    enum {
        O_MATRIX = 256,
        O_SAMPLES,
        O_SEED,
        O_PRE,
        O_TEST,
        O_JOBS,
        O_JSON,
        O_REPLAY,
        O_HARNESS,
        O_RDIR,
        O_MAXEX,
        O_TIMEOUT,
        O_SPIN,
        O_WD,
        O_NOMIN,
        O_UNINSTR,
        O_QUIET,
        O_HELP,
        O_VERSION,
        O_MAXREP,
        O_STRATEGY,
        O_DEPTH,
        O_SHARD,
        O_REDUCTION,
        O_MAXTO,
        O_TLS
    };
    static const struct option lo[] = {
        {"matrix", required_argument, 0, O_MATRIX},
        {"samples", required_argument, 0, O_SAMPLES},
        {"seed", required_argument, 0, O_SEED},
        {"preemptions", required_argument, 0, O_PRE},
        {"test", required_argument, 0, O_TEST},
        {"jobs", required_argument, 0, O_JOBS},
        {"json", required_argument, 0, O_JSON},
        {"replay", required_argument, 0, O_REPLAY},
        {"harness", required_argument, 0, O_HARNESS},
        {"replay-dir", required_argument, 0, O_RDIR},
        {"max-executions", required_argument, 0, O_MAXEX},
        {"timeout", required_argument, 0, O_TIMEOUT},
        {"spin-bound", required_argument, 0, O_SPIN},
        {"watchdog-ms", required_argument, 0, O_WD},
        {"no-minimize", no_argument, 0, O_NOMIN},
        {"max-reports", required_argument, 0, O_MAXREP},
        {"allow-uninstrumented", no_argument, 0, O_UNINSTR},
        {"quiet", no_argument, 0, O_QUIET},
        {"help", no_argument, 0, O_HELP},
        {"version", no_argument, 0, O_VERSION},
        {"strategy", required_argument, 0, O_STRATEGY},
        {"depth", required_argument, 0, O_DEPTH},
        {"reduction", required_argument, 0, O_REDUCTION},
        {"shard", required_argument, 0, O_SHARD},
        {"max-timeouts", required_argument, 0, O_MAXTO},
        {"tls", required_argument, 0, O_TLS},
        {0, 0, 0, 0},
    };
    memset(o, 0, sizeof *o);
    o->threads = 3;
    o->calls = 3;
    o->samples = 100;
    o->preemptions = 2;
    long nc = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = nc > 0 ? (unsigned)nc : 1;
    o->replay_dir = ".";
    o->max_executions = 20000;
    o->reduction = true;
    o->timeout = 600;
    o->max_timeouts = 3;
    o->max_reports = 3;
    o->spin_bound = 1000;
    o->watchdog_ms = 1000;
    opterr = 0;
    int c;
    /* leading ':': a missing value is ':', not an unknown option */
    while ((c = getopt_long(argc, argv, "+:", lo, NULL)) != -1) {
        /* a second --test, --json, --harness or --replay would replace the
         * first and leave it unchecked or unwritten without a word (other
         * options take the last value, as is usual) */
        if ((c == O_TEST || c == O_JSON || c == O_HARNESS || c == O_REPLAY) &&
            (o->given >> (c - O_MATRIX) & 1))
            lu__die_usage("%s given twice: lineup takes one per run%s",
                          c == O_TEST      ? "--test"
                          : c == O_JSON    ? "--json"
                          : c == O_HARNESS ? "--harness"
                                           : "--replay",
                          c == O_TEST      ? " (run it once per test)"
                          : c == O_HARNESS ? " (run it once per harness, or give none to check them all)"
                                           : "");
        if (c >= O_MATRIX && c - O_MATRIX < 64)
            o->given |= 1ull << (c - O_MATRIX);
        switch (c) {
        case O_MATRIX:
            lu__parse_matrix(optarg, o);
            break;
        case O_SAMPLES:
            o->samples = (unsigned)lu__parse_u64("--samples", optarg, 10000000);
            if (!o->samples)
                lu__die_usage("--samples must be at least 1");
            break;
        case O_SEED:
            o->seed = lu__parse_u64("--seed", optarg, UINT64_MAX);
            o->seed_given = true;
            break;
        case O_PRE:
            o->preemptions = lu_drv_parse_preemptions("lineup", optarg);
            break;
        case O_TEST:
            o->test = optarg;
            break;
        case O_JOBS:
            o->jobs = (unsigned)lu__parse_u64("--jobs", optarg, 1024);
            if (!o->jobs)
                lu__die_usage("--jobs must be at least 1");
            break;
        case O_JSON:
            lu_drv_json_resolve("lineup", optarg, &o->json);
            break;
        case O_REPLAY:
            if (!*optarg)
                lu__die_usage("--replay takes a file name, not an empty string");
            o->replay = optarg;
            break;
        case O_HARNESS:
            if (!*optarg)
                lu__die_usage("--harness takes the name of a harness, not an empty string");
            o->harness_name = optarg;
            break;
        case O_RDIR:
            lu_drv_check_dir("lineup", "--replay-dir", optarg);
            o->replay_dir = optarg;
            break;
        case O_MAXEX:
            o->max_executions = lu__parse_u64("--max-executions", optarg, UINT64_MAX);
            break;
        case O_TIMEOUT:
            o->timeout = (unsigned)lu__parse_u64("--timeout", optarg, 86400 * 7);
            o->timeout_given = true;
            break;
        case O_SPIN:
            o->spin_bound = (uint32_t)lu__parse_u64("--spin-bound", optarg, 100000000);
            o->spin_given = true;
            if (!o->spin_bound)
                lu__die_usage("--spin-bound takes a whole number from 1 to 100000000, not '%s'", optarg);
            break;
        case O_WD:
            o->watchdog_ms = (uint32_t)lu__parse_u64("--watchdog-ms", optarg, 3600000);
            o->watchdog_given = true;
            if (!o->watchdog_ms)
                lu__die_usage("--watchdog-ms takes a whole number from 1 to 3600000, not '%s'", optarg);
            break;
        case O_NOMIN:
            o->no_minimize = true;
            break;
        case O_MAXREP:
            o->max_reports = (unsigned)lu__parse_u64("--max-reports", optarg, 1000000);
            break;
        case O_MAXTO:
            o->max_timeouts = (unsigned)lu__parse_u64("--max-timeouts", optarg, 10000000);
            break;
        case O_UNINSTR:
            o->allow_uninstrumented = true;
            break;
        case O_QUIET:
            o->quiet = true;
            break;
        case O_STRATEGY:
            o->strategy = lu_drv_strategy_parse(optarg);
            if (o->strategy < 0)
                lu__die_usage("--strategy takes one of default, dfs, ipb, idb, random, pct, pos, not '%s'",
                              optarg);
            break;
        case O_DEPTH:
            o->depth = (int)lu__parse_u64("--depth", optarg, 64);
            if (o->depth < 1)
                lu__die_usage("--depth must be at least 1");
            o->depth_given = true;
            break;
        case O_SHARD:
            lu__parse_shard(optarg, o);
            break;
        case O_REDUCTION:
            o->reduction = lu_drv_parse_onoff("lineup", "--reduction", optarg);
            break;
        case O_TLS:
            o->tls = lu_drv_parse_tls("lineup", optarg);
            o->tls_given = true;
            break;
        case O_HELP:
            lu__usage(stdout);
            exit(EXIT_PASS);
        case O_VERSION:
            printf("lineup %s\n", LINEUP_VERSION);
            exit(EXIT_PASS);
        case ':':
            lu__die_usage("option %s needs an argument", argv[optind - 1]);
        default:
            if (lu_drv_option_elsewhere(argv[optind - 1], false))
                lu__die_usage("unknown option '%s': %s", argv[optind - 1],
                              lu_drv_option_elsewhere(argv[optind - 1], false));
            lu__die_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc && strcmp(argv[optind], "run") == 0) {
        /* they would be the Line-Up check's options, which run does not
         * read: dropping them silently would run something else */
        if (optind > 1)
            lu__die_usage("options of 'lineup run' go after 'run': lineup run [options] -- PROGRAM [ARGS...] "
                          "(not '%s' before it)",
                          argv[1]);
        int lu_drv_run_main(int, char **); /* harness/lu_drv_run.c */
        exit(lu_drv_run_main(argc - optind, argv + optind));
    }
    if (optind < argc) {
        /* dlopen searches the library path for names without a slash */
        static char abs[PATH_MAX];
        o->path = argv[optind++];
        if (!*o->path) /* dlopen("") would return lineup itself */
            lu__die_usage("the shared object's name is empty");
        if (realpath(o->path, abs))
            o->path = abs;
    }
    if (optind < argc && argv[optind][0] == '-')
        lu__die_usage("'%s' after the shared object: options go before it", argv[optind]);
    if (optind < argc)
        lu__die_usage("unexpected argument '%s' (one shared object at a time)", argv[optind]);
    if (!o->path && !o->replay)
        lu__die_usage("no harness given");
#define LU__BIT(opt) (1ull << ((opt)-O_MATRIX))
    if (o->replay)
        lu__reject_given(o->given,
                         LU__BIT(O_MATRIX) | LU__BIT(O_SAMPLES) | LU__BIT(O_SEED) | LU__BIT(O_PRE) |
                             LU__BIT(O_TEST) | LU__BIT(O_JOBS) | LU__BIT(O_JSON) | LU__BIT(O_HARNESS) |
                             LU__BIT(O_RDIR) | LU__BIT(O_MAXEX) | LU__BIT(O_NOMIN) | LU__BIT(O_MAXREP) |
                             LU__BIT(O_STRATEGY) | LU__BIT(O_DEPTH) | LU__BIT(O_SHARD) |
                             LU__BIT(O_REDUCTION) | LU__BIT(O_UNINSTR) | LU__BIT(O_MAXTO),
                         lo, O_MATRIX,
                         "with --replay, which re-runs the recorded execution as recorded (only --timeout, "
                         "--spin-bound, --watchdog-ms, --tls and --quiet apply)");
    if (o->test)
        lu__reject_given(o->given, LU__BIT(O_MATRIX) | LU__BIT(O_SAMPLES), lo, O_MATRIX,
                         "with --test, which checks its one test instead of random --matrix tests");
    if (o->strategy != LU_DRV_S_DEFAULT && o->strategy != LU_DRV_S_DFS && o->strategy != LU_DRV_S_IPB &&
        (o->given & LU__BIT(O_REDUCTION)))
        lu__die_usage("--reduction has no effect with --strategy %s: only default, dfs and ipb are reduced",
                      lu_drv_strategy_id(o->strategy));
    if ((o->strategy == LU_DRV_S_PCT || o->strategy == LU_DRV_S_POS) && (o->given & LU__BIT(O_PRE)))
        lu__die_usage("--preemptions has no effect with --strategy %s, which has no preemption bound (pct "
                      "has --depth)",
                      lu_drv_strategy_id(o->strategy));
#undef LU__BIT
    if (o->shard_n && o->test)
        lu__die_usage("--shard splits the random tests of --samples; it cannot be combined with --test");
    if (o->shard_n && !o->seed_given)
        lu__die_usage("--shard needs --seed S: the shares must draw the same tests, and without --seed each "
                      "would draw its own from the clock");
    if (o->depth_given && o->strategy != LU_DRV_S_PCT)
        lu__die_usage("--depth is the bug depth of --strategy pct");
    if (o->seed_given && o->test && !lu_drv_strategy_randomized(o->strategy) &&
        !lu_drv_default_samples(o->strategy, o->max_executions)) {
        char why[64];
        if (o->strategy == LU_DRV_S_DEFAULT)
            snprintf(why, sizeof why, "--max-executions %" PRIu64, o->max_executions);
        else
            snprintf(why, sizeof why, "--strategy %s", lu_drv_strategy_id(o->strategy));
        lu__die_usage("--seed draws the random tests of --samples, the schedules of --strategy random, pct "
                      "and pos, and those the default strategy samples under a budget of 2 or more; with "
                      "--test and %s nothing is drawn",
                      why);
    }
    if (!o->depth)
        o->depth = 3;
    if (lu_drv_strategy_randomized(o->strategy) && o->max_executions == 0)
        lu__die_usage("--strategy %s samples schedules without end: give it a budget with --max-executions N",
                      lu_drv_strategy_id(o->strategy));
    /* Tuning and testing knobs of the explorer restarts that shed memory
     * leaked by stuck executions (see lu_drv_worker.c). */
    const char *e = getenv("LINEUP_RECYCLE_EVERY");
    if (e && *e)
        o->recycle_every = lu__parse_u64("LINEUP_RECYCLE_EVERY", e, UINT64_MAX);
    /* phase 1's limit, lower for tests of what happens at it */
    e = getenv("LINEUP_MAX_SERIAL");
    o->max_serial = e && *e ? lu__parse_u64("LINEUP_MAX_SERIAL", e, LU_DRV_MAX_SERIAL) : LU_DRV_MAX_SERIAL;
    if (!o->max_serial)
        lu__die_usage("LINEUP_MAX_SERIAL=0: phase 1 needs at least one serial execution");
    /* LINEUP_MEM_AVAILABLE_MB: what the defaults are computed from, for tests */
    e = getenv("LINEUP_MEM_AVAILABLE_MB");
    uint64_t avail =
        e && *e ? lu__parse_u64("LINEUP_MEM_AVAILABLE_MB", e, UINT64_MAX >> 20) : lu_drv_mem_available_mb();
    unsigned jobs = o->jobs < 64 ? o->jobs : 64;
    e = getenv("LINEUP_RECYCLE_MB");
    if (e && *e)
        o->recycle_mb = (uint32_t)lu__parse_u64("LINEUP_RECYCLE_MB", e, 1u << 20);
    else
        o->recycle_mb = lu_drv_recycle_mb(avail, jobs);
    o->heap_cap_mb = lu_drv_heap_cap_mb(avail, jobs, o->recycle_mb);
    o->cache_mb = lu_drv_cache_mb("lineup"); /* per test */
    e = getenv("LINEUP_TRACE_NAMES");
    if (e && *e && lu_drv_trace_names_fd < 0) {
        lu_drv_trace_names_fd = open(e, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (lu_drv_trace_names_fd < 0)
            lu__die_usage("LINEUP_TRACE_NAMES=%s: cannot open it: %s", e, strerror(errno));
    }
}

/* ---- the shared object ---- */

static void lu__resource_stop(const char *msg) __attribute__((noreturn));

/* lu__instrumented's answers: the object references ThreadSanitizer's
 * hooks (its atomics are scheduling points), and code of it was compiled
 * by lineup-cc or lineup_add_harness (lineup-cc-mark.h says why a plain
 * -fsanitize=thread build, which has the first without the second, is
 * refused). */
enum { LU__INS_TSAN = 1, LU__INS_MARK = 2 };

/* LU__INS_* of the ELF file; -1 not usable, -2 lineup could not map it (a
 * resource error); message in err. */
static int lu__instrumented(const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO would wait for a writer; it is no shared object either */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        snprintf(err, errlen, "%s is not a shared object", path);
        return -1;
    }
    const unsigned char *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int map_errno = errno;
    close(fd);
    if (m == MAP_FAILED && map_errno != ENOMEM && map_errno != EAGAIN) {
        snprintf(err, errlen, "cannot read %s", path);
        return -1;
    }
    if (m == MAP_FAILED) {
        char what[PATH_MAX + 32];
        snprintf(what, sizeof what, "cannot map %s", path);
        lu_sched_syserr(err, errlen, LU_SCHED_NEED_MEMORY, map_errno, what, (size_t)st.st_size);
        return -2;
    }
    int found = 0;
    const Elf64_Ehdr *eh = (const void *)m;
    size_t size = (size_t)st.st_size;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64) {
        snprintf(err, errlen, "%s is not a 64-bit ELF shared object", path);
        found = -1;
        goto out;
    }
    if (eh->e_machine != EM_X86_64) {
        /* dlopen would say "No such file or directory" */
        snprintf(err, errlen,
                 "%s is built for another architecture (ELF machine %u); lineup runs x86-64 code", path,
                 (unsigned)eh->e_machine);
        found = -1;
        goto out;
    }
    /* a program (it names an interpreter): dlopen would refuse it, and
     * "rebuild it with lineup-cc -shared -o PROGRAM" would be bad advice */
    bool interp = eh->e_type == ET_EXEC;
    if (eh->e_phoff && eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) <= size) {
        const Elf64_Phdr *ph = (const void *)(m + eh->e_phoff);
        for (unsigned i = 0; i < eh->e_phnum; i++)
            interp |= ph[i].p_type == PT_INTERP;
    }
    if (interp) {
        snprintf(err, errlen,
                 "%s is a program, not a harness (a shared object): 'lineup run -- %s' checks a whole "
                 "program built with 'lineup-cc -o PROGRAM SOURCE.c'; harnesses are built with 'lineup-cc "
                 "-shared -o HARNESS.so SOURCE.c'",
                 path, path);
        found = -1;
        goto out;
    }
    if (eh->e_shoff == 0 || eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
        goto out;
    const Elf64_Shdr *sh = (const void *)(m + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum && !found; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (sh[i].sh_offset + sh[i].sh_size > size || strs->sh_offset + strs->sh_size > size)
            continue;
        const Elf64_Sym *sym = (const void *)(m + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof *sym;
        for (size_t k = 0; k < n; k++) {
            if (sym[k].st_name >= strs->sh_size)
                continue;
            const char *name = (const char *)m + strs->sh_offset + sym[k].st_name;
            if (strncmp(name, "__tsan_", 7) == 0) {
                found = LU__INS_TSAN;
                break;
            }
        }
    }
    /* marked without hooks: compiled by lineup-cc with the instrumentation
     * turned off again (told apart from a plain build for the message) */
    if (lu_drv_elf_marked(m, size))
        found |= LU__INS_MARK;
out:
    munmap((void *)m, size);
    return found;
}

/* ---- running workers ---- */

/* One bug a test showed: what the user gets a report and a replay file for. */
struct lu__finding {
    int verdict;
    uint64_t hist; /* lu_drv_finding.hist; 0: none */
    char *report;
    struct lu_sched_step *sched;
    uint32_t sched_len;
};

struct lu__res {
    int verdict;
    int phase;
    int complete_bound;
    bool truncated;
    uint64_t sampled; /* DEFAULT: executions POS sampled after iterative bounding's share */
    uint64_t ex1, ex2, histories, digest, serial_full, serial_stuck;
    uint64_t checks, spec_checks, stuck, cut, recycles;
    unsigned explorers;
    uint64_t explorer_ex[LU_DRV_MAX_EXPLORERS];
    bool phase1_done;
    bool phase1_over;                      /* phase 1 gave up at its limit */
    uint64_t called_cells, returned_cells; /* invocations 0..63 called, and returned, in phase 1 */
    uint64_t bounded_cells;                /* lu_drv_shared.bounded_cells */
    uint64_t followed_cells;               /* invocations with a call after them in their thread */
    double secs;
    char *report; /* for verdicts without findings (errors) */
    uint32_t sched_len;
    /* the findings, and the verdict the worker ended on (a timeout,
     * nondeterminism) when it is none of them */
    struct lu__finding f[LU_DRV_F_COUNT + 1];
    unsigned nf;
};

static void lu__add_finding(struct lu__res *r, int verdict, const char *report,
                            const struct lu_sched_step *sched, uint32_t len, uint64_t hist)
{
    struct lu__finding *f = &r->f[r->nf++];
    f->verdict = verdict;
    f->hist = hist;
    f->report = strdup(report ? report : "");
    f->sched_len = len;
    f->sched = NULL;
    if (len) {
        f->sched = malloc(len * sizeof *sched);
        if (f->sched)
            memcpy(f->sched, sched, len * sizeof *sched);
        else
            f->sched_len = 0;
    }
}

static void lu__add_shm_finding(struct lu__res *r, const struct lu_drv_finding *fd)
{
    lu__add_finding(r, fd->verdict, fd->report, fd->sched, fd->sched_len, fd->hist);
}

static unsigned lu__timeout;
static bool lu__hup_ignored; /* lineup started with SIGHUP ignored (nohup) */

struct lu__slot {
    struct lu_drv_shm *shm;
    struct lu_drv_job job; /* the parent's copy of shm->job */
    bool stopped;          /* timed out stopped by a signal (lu__proc_stopped) */
    pid_t pid;
    double start;      /* of the test (what --json's "seconds" counts from) */
    double progress;   /* the test's start or its last finished execution (--timeout) */
    uint64_t finished; /* executions of the test so far */
    int index;
};

static const char *lu__signame(int sig)
{
    const char *d = sigdescr_np(sig);
    const char *a = sigabbrev_np(sig);
    static char buf[96];
    snprintf(buf, sizeof buf, "SIG%s (%s)", a ? a : "?", d ? d : "?");
    return buf;
}

/* A crash or divergence is one bug per place, whatever the test (a crash
 * in create() fails every test): the first line of its report names the
 * place. */
static bool lu__bug_per_place(int kind)
{
    return kind == LU_DRV_V_CRASH || kind == LU_DRV_V_DIVERGE;
}

/* The first word of a finding's report: a timeout is no bug, lineup
 * could not run the test to its end. */
static const char *lu__header(int kind)
{
    /* FAIL is for bugs found; an error is lineup's failing to check */
    return kind == LU_DRV_V_TIMEOUT                ? "INCONCLUSIVE"
           : lu_drv_verdict_exit(kind) == EXIT_BUG ? "FAIL"
                                                   : "ERROR";
}

/* Findings a replay file shows again: bugs, and timeouts (where the test
 * blocks outside lineup's control). */
static bool lu__replayable(int kind)
{
    return lu_drv_verdict_exit(kind) == EXIT_BUG || kind == LU_DRV_V_TIMEOUT;
}

static int lu__cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A test up to the order of its threads: the threads are alike (each
 * starts at the same point, and the first choice of a thread is no
 * preemption), so 'a | b c' and 'b c | a' fail alike. Minimizing two
 * samples often ends at the two orders of one test. */
static void lu__test_canonical(struct lu_hist_buf *b, const struct lu_drv_test *t, const char *const *labels)
{
    char *th[LU_DRV_MAX_THREADS];
    unsigned n = 0;
    for (unsigned i = 0; i < t->nthreads && i < LU_DRV_MAX_THREADS; i++) {
        struct lu_drv_test one = {.nthreads = 1};
        one.len[0] = t->len[i];
        memcpy(one.cell[0], t->cell[i], sizeof one.cell[0]);
        struct lu_hist_buf tb;
        lu_hist_buf_init(&tb);
        lu_drv_test_format(&tb, &one, labels);
        th[n++] = tb.s ? tb.s : strdup("");
    }
    qsort(th, n, sizeof th[0], lu__cmp_str);
    for (unsigned i = 0; i < n; i++) {
        lu_hist_buf_printf(b, "%s%s", i ? " | " : "", th[i] ? th[i] : "");
        free(th[i]);
    }
}

/* What makes two findings one bug in the reports: the kind and the
 * (minimized) test up to the order of its threads, or the place
 * (lu__bug_per_place): the report's first line, but for the numbers of
 * the threads it names ("crash: SIGSEGV ... in thread 1, at pop (q.c:12)"
 * is thread 0's crash of another sample, with its threads in another
 * order; an audit found both reported in full). */
static void lu__finding_key(struct lu_hist_buf *key, int kind, const char *report,
                            const struct lu_drv_test *test, const char *const *labels)
{
    const char *r = report ? report : "";
    if (lu__bug_per_place(kind)) {
        lu_hist_buf_printf(key, "%d ", kind);
        size_t n = strcspn(r, "\n");
        for (size_t i = 0; i < n; i++) {
            lu_hist_buf_printf(key, "%c", r[i]);
            if (i >= 6 && i + 1 < n && memcmp(r + i - 6, "thread ", 7) == 0 && r[i + 1] >= '0' &&
                r[i + 1] <= '9') {
                lu_hist_buf_puts(key, "#");
                while (i + 1 < n && r[i + 1] >= '0' && r[i + 1] <= '9')
                    i++;
            }
        }
    } else {
        lu_hist_buf_printf(key, "%d ", kind);
        if (test)
            lu__test_canonical(key, test, labels);
    }
}

/* "1 preemption", "2 preemptions" (or delays, for idb). */
static const char *lu__bound_unit(int strategy, int n)
{
    if (strategy == LU_DRV_S_IDB)
        return n == 1 ? "delay" : "delays";
    return n == 1 ? "preemption" : "preemptions";
}

/* Scheduler thread 0 runs create(), the setup and teardown calls and
 * destroy(): it is "the main thread", and scheduler thread k > 0 is the
 * report's "thread k-1". */
static void lu__render_tid(struct lu_hist_buf *b, const struct lu_drv_fatal *f)
{
    lu_drv_thread_name(b, f->tid, f->tid_base);
}

/* The report of a worker that died: the parent writes it from what the
 * worker left in the shared region. */
static void lu__death_report(struct lu_drv_shm *shm, int status, struct lu__res *r, bool timed_out,
                             bool stopped)
{
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    const struct lu_drv_fatal *f = &shm->lane.fatal;
    int phase = atomic_load(&shm->phase);
    if (f->kind == LU_SCHED_FATAL_EXEC) {
        /* the worker's end is the new program's; an operation that replaced
         * the program is the finding, whether or not the new one ends */
        r->verdict = LU_DRV_V_CRASH;
        lu_hist_buf_printf(&b, "crash: %s called by ", f->symbol);
        lu__render_tid(&b, f);
        lu_hist_buf_printf(&b, " in phase %d, at ", phase);
        lu_drv_addr2line(&b, f->module, f->pc_off ? f->pc_off - 1 : 0);
        lu_hist_buf_puts(&b, ", which replaced the program; the new program ");
        if (timed_out)
            lu_hist_buf_printf(&b, "was still running after %u s (--timeout)\n", lu__timeout);
        else if (WIFSIGNALED(status))
            lu_hist_buf_printf(&b, "was killed by %s\n", lu__signame(WTERMSIG(status)));
        else
            lu_hist_buf_printf(&b, "exited with status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    } else if (timed_out) {
        r->verdict = LU_DRV_V_TIMEOUT;
        if (stopped)
            lu_hist_buf_printf(
                &b,
                "timeout: no execution of the test finished for %u s (phase %d): its process was "
                "stopped (SIGSTOP, or SIGTSTP, SIGTTIN or SIGTTOU with the default action) and "
                "ran no more\n",
                lu__timeout, phase);
        else
            lu_hist_buf_printf(&b,
                               "timeout: no execution of the test finished for %u s (phase %d); an operation "
                               "may block in a call lineup does not control (I/O, an uninstrumented lock)\n",
                               lu__timeout, phase);
        if (f->kind == LU_SCHED_FATAL_BLOCKED) {
            lu_hist_buf_puts(&b, "    ");
            lu__render_tid(&b, f);
            lu_hist_buf_puts(&b, " blocked");
            if (f->symbol[0])
                lu_hist_buf_printf(&b, " in %s", f->symbol);
            lu_hist_buf_puts(&b, " at ");
            lu_drv_addr2line(&b, f->module, f->pc_off);
            lu_hist_buf_puts(&b, "\n");
        }
        /* lineup cannot tell a real hang from its own limitation */
        if (!stopped)
            lu_hist_buf_puts(
                &b,
                "not checked: lineup does not control I/O, pipes, poll or select, sleeps in the kernel or "
                "uninstrumented locks, and while one thread blocks in one no other runs, so threads that "
                "talk through the kernel block for good under lineup even when the code is correct; if "
                "the code is only slow, raise --timeout\n");
    } else if (f->kind == LU_DRV_FATAL_INTERNAL) {
        /* lineup's abort, not the code's crash */
        r->verdict = LU_DRV_V_INTERNAL;
        const char *m = strncmp(f->module, "lineup: ", 8) == 0 ? f->module + 8 : f->module;
        lu_hist_buf_printf(&b, "%.*s (phase %d); this is a bug in lineup, not in the code under test\n",
                           (int)strcspn(m, "\n"), m, phase);
    } else if (f->kind == LU_SCHED_FATAL_DIVERGE) {
        r->verdict = LU_DRV_V_DIVERGE;
        lu_hist_buf_puts(&b, "divergence: ");
        lu__render_tid(&b, f);
        lu_hist_buf_printf(
            &b,
            " ran without reaching a scheduling point (an infinite loop on plain memory?) in phase %d, "
            "at ",
            phase);
        lu_drv_addr2line(&b, f->module, f->pc_off);
        lu_hist_buf_puts(&b, "\n");
    } else if (f->kind == LU_SCHED_FATAL_EXIT) {
        r->verdict = LU_DRV_V_CRASH;
        lu_hist_buf_printf(&b, "crash: %s(%d) called by ", lu_sched_exit_fn_name(f->exit_fn), f->code);
        lu__render_tid(&b, f);
        lu_hist_buf_printf(&b, " in phase %d, at ", phase);
        lu_drv_addr2line(&b, f->module, f->pc_off ? f->pc_off - 1 : 0);
        lu_hist_buf_puts(&b, "\n");
    } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && f->kind != LU_SCHED_FATAL_SIGNAL &&
               phase != 0) {
        /* the code under test's own kill or raise would have said so
         * (lu_sched_fatal_signal_ahead) */
        r->verdict = LU_DRV_V_INTERNAL;
        lu_hist_buf_printf(
            &b,
            "the worker was killed by SIGKILL from outside the code under test (the kernel's OOM "
            "killer, or another process) in phase %d: this says nothing about the harness\n",
            phase);
    } else {
        r->verdict = LU_DRV_V_CRASH;
        int sig = WIFSIGNALED(status) ? WTERMSIG(status) : f->kind == LU_SCHED_FATAL_SIGNAL ? f->code : 0;
        if (sig)
            lu_hist_buf_printf(&b, "crash: %s", lu__signame(sig));
        else
            lu_hist_buf_printf(&b, "crash: the worker exited with status %d",
                               WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        if (f->kind == LU_SCHED_FATAL_SIGNAL) {
            lu_hist_buf_puts(&b, " in ");
            lu__render_tid(&b, f);
            lu_hist_buf_puts(&b, ", at ");
            lu_drv_addr2line(&b, f->module, f->pc_off);
        }
        if (phase == 0) /* uncontrolled code: the harness's constructors (a kill of its own too) */
            lu_hist_buf_puts(&b, " while the shared object was loaded (dlopen and its constructors)\n");
        else
            lu_hist_buf_printf(&b, " (phase %d)\n", phase);
    }
    if (shm->job.test.nthreads && shm->htest.nops)
        lu_hist_buf_puts(&b, "test:\n");
    for (unsigned i = 0; i < shm->job.test.nthreads && shm->htest.nops; i++) {
        lu_hist_buf_printf(&b, "    thread %u:", i);
        for (unsigned k = 0; k < shm->job.test.len[i]; k++) {
            unsigned id = 0; /* labels come from the worker's test table */
            for (unsigned j = 0; j < shm->htest.nops; j++)
                if (shm->htest.ops[j].thread == i && shm->htest.ops[j].pos == k)
                    id = j;
            lu_hist_buf_printf(&b, " %s", shm->htest.nops ? shm->htest.ops[id].label : "?");
        }
        lu_hist_buf_puts(&b, "\n");
    }
    if (shm->lane.nev && shm->htest.nops) {
        struct lu_hist h;
        lu_hist_init(&h);
        for (uint32_t i = 0; i < shm->lane.nev && i < LU_DRV_MAX_EVENTS; i++) {
            if (shm->lane.ev[i].kind == LU_HIST_CALL)
                lu_hist_call(&h, shm->lane.ev[i].op);
            else
                lu_hist_return(&h, shm->lane.ev[i].op, shm->lane.ev[i].res.value, NULL, 0);
        }
        lu_hist_buf_puts(&b, "history up to the failure:\n");
        lu_hist_render_timeline(&b, &shm->htest, &h);
        lu_hist_free(&h);
    }
    r->phase = phase;
    r->report = b.s ? b.s : strdup("");
    r->sched_len = f->kind ? shm->lane.sched_len : shm->trace.len;
    if (r->sched_len > LU_DRV_TRACE_CAP)
        r->sched_len = LU_DRV_TRACE_CAP;
}

static struct lu__slot *lu__slots;
static unsigned lu__nslots;

/* A system call of lineup's own failed, most likely against a limit of the
 * user's (the message names it): not a verdict about the code under test,
 * and every test after would fail the same way. The other workers are
 * stopped, the JSON file is not written (atexit), exit status 3. */
static void lu__resource_stop(const char *msg) __attribute__((noreturn));
static void lu__resource_stop(const char *msg)
{
    for (unsigned i = 0; i < lu__nslots; i++) {
        if (lu__slots[i].pid > 0) {
            kill(lu__slots[i].pid, SIGKILL);
            while (waitpid(lu__slots[i].pid, NULL, 0) < 0 && errno == EINTR)
                ;
            lu__slots[i].pid = 0;
        }
    }
    fflush(stdout);
    size_t n = strlen(msg);
    fprintf(stderr, "%slineup: %s%s", isatty(STDERR_FILENO) ? "\n" : "", msg,
            n && msg[n - 1] == '\n' ? "" : "\n");
    fprintf(stderr, "lineup: stopped: no verdict (docs/guide.md, \"Resources\", says what lineup needs)\n");
    exit(EXIT_INTERNAL);
}

/* lineup's own arrays for a run (per test: a large --samples asks for
 * hundreds of MB): out of memory is a resource error, not a crash. */
static void *lu__alloc_run(size_t n, size_t size, const char *what)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        char m[320], w[128];
        snprintf(w, sizeof w, "out of memory for %s", what);
        lu__resource_stop(lu_sched_syserr(m, sizeof m, LU_SCHED_NEED_MEMORY, ENOMEM, w, n * size));
    }
    return p;
}

/* The default's sampled executions of a test that ran ex2 in phase 2, also
 * when one of them ended the test (a crash, exit, divergence, timeout),
 * counted as the phase's executions are: the systematic part ran its
 * share before POS took over. */
static uint64_t lu__sampled_of(const struct lu_drv_shm *shm, uint64_t ex2)
{
    if (!shm->pool.sampling)
        return 0;
    uint64_t sys = lu_drv_default_systematic(shm->job.max_executions);
    return ex2 > sys ? ex2 - sys : 0;
}

/* The shared region is writable by the code under test (a stray pointer,
 * a buffer overrun into the mapping): what the parent reads from it is
 * bounded first, so that a smashed region makes a wrong report at worst,
 * never a crash of lineup. */
#define LU__TERMINATE(a) ((a)[sizeof(a) - 1] = 0)
#define LU__CLAMP(x, max) ((x) = (x) > (max) ? (max) : (x))

static void lu__shm_bound(struct lu__slot *sl)
{
    struct lu_drv_shm *shm = sl->shm;
    shm->job = sl->job;
    if (shm->verdict < 0 || shm->verdict >= LU_DRV_V_COUNT)
        shm->verdict = LU_DRV_V_INTERNAL;
    if (shm->fail_phase < 0 || shm->fail_phase > 2)
        shm->fail_phase = 0;
    LU__TERMINATE(shm->report);
    LU__TERMINATE(shm->harnesses);
    LU__CLAMP(shm->sched_len, (uint32_t)LU_DRV_TRACE_CAP);
    LU__CLAMP(shm->trace.len, (uint32_t)LU_DRV_TRACE_CAP);
    LU__CLAMP(shm->explorers, (unsigned)LU_DRV_MAX_EXPLORERS);
    for (int i = 0; i < LU_DRV_F_COUNT; i++) {
        struct lu_drv_finding *fd = &shm->findings[i];
        if (fd->verdict < 0 || fd->verdict >= LU_DRV_V_COUNT)
            fd->verdict = LU_DRV_V_INTERNAL;
        LU__TERMINATE(fd->report);
        LU__CLAMP(fd->sched_len, (uint32_t)LU_DRV_TRACE_CAP);
    }
    struct lu_hist_test *ht = &shm->htest;
    LU__CLAMP(ht->nops, (unsigned)LU_HIST_MAX_OPS);
    LU__CLAMP(ht->nthreads, (unsigned)LU_DRV_MAX_THREADS + 1);
    for (unsigned j = 0; j < ht->nops; j++)
        LU__TERMINATE(ht->ops[j].label);
    struct lu_drv_lane *l = &shm->lane;
    LU__CLAMP(l->nev, (uint32_t)LU_DRV_MAX_EVENTS);
    for (uint32_t i = 0; i < l->nev; i++)
        if (l->ev[i].op >= ht->nops)
            l->nev = i;
    LU__CLAMP(l->sched_len, (uint32_t)LU_DRV_TRACE_CAP);
    LU__TERMINATE(l->fatal.module);
    LU__TERMINATE(l->fatal.symbol);
}

static void lu__collect(struct lu__slot *sl, int status, struct lu__res *r, bool timed_out)
{
    struct lu_drv_shm *shm = sl->shm;
    lu__shm_bound(sl);
    memset(r, 0, sizeof *r);
    if (shm->magic != LU_DRV_SHM_MAGIC || shm->magic_end != LU_DRV_SHM_MAGIC) {
        /* nothing in it can be trusted, counts included */
        r->secs = lu_drv_now() - sl->start;
        r->verdict = LU_DRV_V_CRASH;
        r->report =
            strdup("crash: the code under test overwrote the memory lineup shares with its process (a "
                   "stray write through a bad pointer, or an overrun of a buffer next to it): its "
                   "counts and results are lost\n");
        lu__add_finding(r, r->verdict, r->report, NULL, 0, 0);
        return;
    }
    r->secs = lu_drv_now() - sl->start;
    r->ex1 = atomic_load(&shm->executions[1]);
    r->ex2 = atomic_load(&shm->executions[2]);
    r->histories = atomic_load(&shm->histories);
    r->digest = atomic_load(&shm->digest);
    r->checks = atomic_load(&shm->checks);
    r->stuck = atomic_load(&shm->stuck);
    r->cut = atomic_load(&shm->cut);
    r->recycles = atomic_load(&shm->recycles);
    r->spec_checks = shm->spec_checks;
    r->serial_full = shm->serial_full;
    r->serial_stuck = shm->serial_stuck;
    r->explorers = shm->explorers;
    r->phase1_done = shm->phase1_done;
    r->phase1_over = shm->phase1_over;
    r->returned_cells = shm->returned_cells;
    r->called_cells = shm->called_cells;
    r->bounded_cells = shm->bounded_cells;
    /* invocations with a call after them in their thread */
    for (unsigned i = 0; i < shm->job.test.nthreads; i++)
        for (unsigned k = 0; k + 1 < shm->job.test.len[i]; k++)
            if (shm->job.test.cell[i][k] < 64)
                r->followed_cells |= 1ULL << shm->job.test.cell[i][k];
    for (unsigned k = 0; k < r->explorers && k < LU_DRV_MAX_EXPLORERS; k++)
        r->explorer_ex[k] = atomic_load(&shm->explorer_executions[k]);
    r->sampled = lu__sampled_of(shm, r->ex2);
    if (!timed_out && atomic_load(&shm->done)) {
        r->verdict = shm->verdict;
        r->phase = shm->fail_phase;
        r->serial_full = shm->serial_full;
        r->serial_stuck = shm->serial_stuck;
        r->complete_bound = shm->complete_bound;
        r->truncated = shm->truncated;
        r->report = strdup(shm->report);
        r->sched_len = shm->sched_len;
        /* the worker can end on a verdict of its own (nondeterminism seen on
         * a replayed prefix, divergence) after it recorded findings of other
         * kinds: its report comes first, or the test would show only the
         * findings it may have caused */
        bool own = r->verdict != LU_DRV_V_PASS;
        for (int i = 0; i < LU_DRV_F_COUNT; i++)
            if (shm->findings[i].verdict == r->verdict)
                own = false;
        if (own && shm->report[0])
            lu__add_finding(r, r->verdict, r->report, shm->trace.steps, r->sched_len, 0);
        for (int i = 0; i < LU_DRV_F_COUNT; i++)
            if (shm->findings[i].verdict != LU_DRV_V_PASS)
                lu__add_shm_finding(r, &shm->findings[i]);
        if (!r->nf && r->verdict != LU_DRV_V_PASS)
            lu__add_finding(r, r->verdict, r->report, shm->trace.steps, r->sched_len, 0);
    } else {
        lu__death_report(shm, status, r, timed_out, timed_out && sl->stopped);
        int death = r->verdict;
        /* bugs phase 2 found before the test timed out stay results: they
         * come first and are the test's verdict (lu_drv_outcome_of) */
        for (int i = 0; timed_out && i < LU_DRV_F_COUNT; i++)
            if (shm->findings[i].verdict != LU_DRV_V_PASS)
                lu__add_shm_finding(r, &shm->findings[i]);
        if (r->nf)
            r->verdict = r->f[0].verdict;
        lu__add_finding(r, death, r->report, shm->trace.steps, r->sched_len, 0);
    }
    if (r->verdict == LU_DRV_V_RESOURCE)
        lu__resource_stop(r->report ? r->report : "a system call of lineup's own failed");
}

static void lu__res_free(struct lu__res *r)
{
    free(r->report);
    for (unsigned i = 0; i < r->nf; i++) {
        free(r->f[i].report);
        free(r->f[i].sched);
    }
    memset(r, 0, sizeof *r);
}

static struct lu__finding *lu__res_find(struct lu__res *r, int verdict)
{
    for (unsigned i = 0; i < r->nf; i++)
        if (r->f[i].verdict == verdict)
            return &r->f[i];
    return NULL;
}

static void lu__slots_init(unsigned n)
{
    lu__slots = calloc(n, sizeof *lu__slots);
    if (!lu__slots) {
        fprintf(stderr, "lineup: out of memory\n");
        exit(EXIT_INTERNAL);
    }
    for (unsigned i = 0; i < n; i++) {
        lu__slots[i].shm = mmap(NULL, lu_drv_shm_size(), PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (lu__slots[i].shm == MAP_FAILED) {
            char m[320];
            lu__resource_stop(lu_sched_syserr(m, sizeof m, LU_SCHED_NEED_MEMORY, errno,
                                              "cannot map a worker's shared memory", lu_drv_shm_size()));
        }
        lu__nslots = i + 1;
    }
}

static void lu__start(struct lu__slot *sl, const struct lu_drv_job *job, const struct lu_sched_step *replay,
                      int index)
{
    struct lu_drv_shm *shm = sl->shm;
    /* A finding's buffers (5 MB) are read only up to their lengths: clearing
     * them for every test cost the parent 2 ms of memset per test. */
    memset(shm, 0, offsetof(struct lu_drv_shm, findings));
    for (int i = 0; i < LU_DRV_F_COUNT; i++) {
        shm->findings[i].verdict = LU_DRV_V_PASS;
        shm->findings[i].sched_len = 0;
        shm->findings[i].report[0] = 0;
    }
    memset(&shm->pool, 0, offsetof(struct lu_drv_shm, trace) - offsetof(struct lu_drv_shm, pool));
    shm->job = *job;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    shm->job.cpu = ncpu > 1 ? (int)((sl - lu__slots) % ncpu) : -1;
    sl->job = shm->job;
    shm->magic = shm->magic_end = LU_DRV_SHM_MAGIC;
    shm->trace.cap = LU_DRV_TRACE_CAP;
    shm->trace.len = 0;
    if (replay && job->replay_len)
        memcpy(lu_drv_shm_replay(shm), replay, job->replay_len * sizeof *replay);
    /* once, here: each worker would otherwise open libpfm4 anew */
    lu_sched_watchdog_prepare();
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        char m[320];
        lu__resource_stop(
            lu_sched_syserr(m, sizeof m, LU_SCHED_NEED_PROCESS, errno, "cannot start a worker process", 0));
    }
    if (pid == 0) {
        /* lineup killed outright (OOM killer, a CI's hard kill) cannot kill
         * its workers: they would run, or block, forever. If it died before
         * this line, the signal will never come. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(EXIT_INTERNAL);
        /* what the code under test detaches (a double fork) comes back to
         * the worker, whose sweeps end it (lu_drv_worker.c) */
        prctl(PR_SET_CHILD_SUBREAPER, 1);
        /* the parent's handlers remove its --json temporary file; nohup's
         * SIGHUP stays ignored, or a hangup sent to the process group would
         * end the workers as a crash of the code under test */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, lu__hup_ignored ? SIG_IGN : SIG_DFL);
        /* lineup ignores SIGPIPE and SIGXFSZ for its own writes; the code
         * under test must die of them as it would outside lineup (a crash
         * finding) */
        signal(SIGPIPE, SIG_DFL);
        signal(SIGXFSZ, SIG_DFL);
        /* The code under test may read or print: it gets no input, and its
         * output goes to stderr so that it cannot be taken for lineup's
         * report, which the parent alone writes to stdout (the worker
         * leaves it in the shared region). */
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            close(devnull);
        }
        dup2(STDERR_FILENO, STDOUT_FILENO);
        lu_drv_worker(shm);
    }
    sl->pid = pid;
    sl->stopped = false;
    sl->start = sl->progress = lu_drv_now();
    sl->finished = 0;
    sl->index = index;
}

/* A test that timed out is blocked in a call lineup does not control: ask
 * the process running its executions where (LU_SCHED_WHERE_SIGVAL), and give
 * it a moment to answer, so that the report can name the place. */
/* Whether process pid is stopped (state T in /proc/PID/stat): by the code
 * under test's own SIGSTOP, or SIGTSTP, SIGTTIN, SIGTTOU with the default
 * action. */
static bool lu__proc_stopped(pid_t pid)
{
    if (pid <= 0)
        return false;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    const char *rp = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold ')' */
    return rp && rp[1] == ' ' && rp[2] == 'T';
}

static void lu__ask_where(struct lu_drv_shm *shm)
{
    pid_t pid = atomic_load(&shm->lane.pid);
    if (pid <= 0)
        return;
    if (lu_sched_ask_where(pid) != 0)
        return;
    for (int i = 0;
         i < 500 && __atomic_load_n(&shm->lane.fatal.kind, __ATOMIC_ACQUIRE) != LU_SCHED_FATAL_BLOCKED; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* The tests an interruption stopped unfinished: their findings do not
 * count, but the summary says what ran (a test stopped in phase 1 is no
 * "0 serial executions"). */
static struct {
    unsigned tests, in_phase1;
    uint64_t ex1, ex2, serial, spec_checks, histories, checks, stuck, cut, sampled;
} lu__stopped;

/* Stops the running tests (a terminal's SIGINT reached them too): none of
 * their results counts, their executions go to lu__stopped. */
static void lu__stop_running(void)
{
    for (unsigned i = 0; i < lu__nslots; i++) {
        if (lu__slots[i].pid <= 0)
            continue;
        int status;
        kill(lu__slots[i].pid, SIGKILL);
        while (waitpid(lu__slots[i].pid, &status, 0) < 0 && errno == EINTR)
            ;
        lu__slots[i].pid = 0;
        struct lu_drv_shm *shm = lu__slots[i].shm;
        lu__stopped.tests++;
        lu__stopped.in_phase1 += atomic_load(&shm->phase) <= 1;
        lu__stopped.ex1 += atomic_load(&shm->executions[1]);
        lu__stopped.ex2 += atomic_load(&shm->executions[2]);
        lu__stopped.serial += shm->serial_full + shm->serial_stuck;
        lu__stopped.spec_checks += shm->spec_checks;
        lu__stopped.histories += atomic_load(&shm->histories);
        lu__stopped.checks += atomic_load(&shm->checks);
        lu__stopped.stuck += atomic_load(&shm->stuck);
        lu__stopped.cut += atomic_load(&shm->cut);
        lu__stopped.sampled += lu__sampled_of(shm, atomic_load(&shm->executions[2]));
    }
}

/* Waits for any running slot to finish; returns it with *r filled. */
static struct lu__slot *lu__wait_any(struct lu__res *r)
{
    for (;;) {
        int status;
        if (lu_drv_interrupted) {
            lu__stop_running();
            return NULL;
        }
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            for (unsigned i = 0; i < lu__nslots; i++) {
                if (lu__slots[i].pid == pid) {
                    lu__slots[i].pid = 0;
                    if (lu_drv_interrupted)
                        break; /* perhaps killed by the same signal */
                    lu__collect(&lu__slots[i], status, r, false);
                    return &lu__slots[i];
                }
            }
            continue;
        }
        if (pid < 0 && errno == ECHILD)
            return NULL;
        double now = lu_drv_now();
        /* --timeout is for tests that hang: each execution that finishes
         * starts it again, and time lineup spent stopped (Ctrl-Z) does not
         * count (a poll is due every millisecond) */
        static double last_poll;
        double stopped = last_poll && now - last_poll > 1.0 ? now - last_poll : 0;
        last_poll = now;
        for (unsigned i = 0; i < lu__nslots; i++) {
            struct lu__slot *sl = &lu__slots[i];
            if (sl->pid <= 0)
                continue;
            uint64_t n = atomic_load(&sl->shm->executions[0]) + atomic_load(&sl->shm->executions[1]) +
                         atomic_load(&sl->shm->executions[2]);
            if (n != sl->finished) {
                sl->finished = n;
                sl->progress = now;
            }
            sl->start += stopped;
            sl->progress += stopped;
            if (lu__timeout && now - sl->progress > lu__timeout) {
                /* a process the code under test stopped (raise(SIGSTOP)) answers nothing */
                sl->stopped = lu__proc_stopped(sl->pid) || lu__proc_stopped(atomic_load(&sl->shm->lane.pid));
                if (!sl->stopped)
                    lu__ask_where(sl->shm);
                kill(sl->pid, SIGKILL);
                waitpid(sl->pid, &status, 0);
                lu__collect(sl, status, r, true);
                sl->pid = 0;
                return sl;
            }
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

static void lu__run_sync(const struct lu_drv_job *job, const struct lu_sched_step *replay, struct lu__res *r)
{
    lu__start(&lu__slots[0], job, replay, 0);
    struct lu__slot *sl;
    while ((sl = lu__wait_any(r)) && sl != &lu__slots[0])
        lu__res_free(r);
    if (!sl) {
        /* interrupted (a minimization): a result that shows nothing */
        memset(r, 0, sizeof *r);
        r->verdict = LU_DRV_V_INTERNAL;
    }
}

/* ---- probing the harness ---- */

struct lu__harness {
    char name[128];
    unsigned nops;
    char **labels;
};

static unsigned lu__probe(const struct lu__opts *o, const char *path, struct lu__harness **out)
{
    struct lu_drv_job job;
    memset(&job, 0, sizeof job);
    snprintf(job.harness_path, sizeof job.harness_path, "%s", path);
    job.list_only = true;
    struct lu__res r;
    lu__run_sync(&job, NULL, &r);
    if (r.verdict != LU_DRV_V_PASS) {
        fprintf(stderr, "lineup: %s", r.report ? r.report : "cannot load the harness\n");
        if (r.verdict == LU_DRV_V_CRASH || r.verdict == LU_DRV_V_TIMEOUT || r.verdict == LU_DRV_V_DIVERGE)
            fprintf(stderr, "lineup: the harness %s while it was being loaded\n",
                    r.verdict == LU_DRV_V_CRASH ? "crashed" : "hung");
        /* lineup's own failures keep their status */
        exit(lu_drv_verdict_exit(r.verdict) == EXIT_INTERNAL ? EXIT_INTERNAL : EXIT_USAGE);
    }
    lu__res_free(&r);
    unsigned n = 0;
    struct lu__harness *hs = NULL;
    char *list = strdup(lu__slots[0].shm->harnesses), *save = NULL;
    for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        hs = realloc(hs, (n + 1) * sizeof *hs);
        struct lu__harness *h = &hs[n++];
        memset(h, 0, sizeof *h);
        char *s2 = NULL, *tok = strtok_r(line, " ", &s2);
        snprintf(h->name, sizeof h->name, "%s", tok);
        while ((tok = strtok_r(NULL, " ", &s2))) {
            h->labels = realloc(h->labels, (h->nops + 1) * sizeof *h->labels);
            h->labels[h->nops++] = strdup(tok);
        }
    }
    free(list);
    if (o->harness_name) {
        for (unsigned i = 0; i < n; i++) {
            if (strcmp(hs[i].name, o->harness_name) == 0) {
                hs[0] = hs[i];
                *out = hs;
                return 1;
            }
        }
        fprintf(stderr, "lineup: %s has no harness named %s; it has:", path, o->harness_name);
        for (unsigned i = 0; i < n; i++)
            fprintf(stderr, " %s", hs[i].name);
        fputs("\n", stderr);
        exit(EXIT_USAGE);
    }
    *out = hs;
    return n;
}

/* ---- random tests ---- */

static uint64_t lu__splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void lu__draw(uint64_t *rng, unsigned threads, unsigned calls, unsigned nops, struct lu_drv_test *t)
{
    memset(t, 0, sizeof *t);
    t->nthreads = threads;
    for (unsigned i = 0; i < threads; i++) {
        t->len[i] = calls;
        for (unsigned k = 0; k < calls; k++)
            t->cell[i][k] = (uint16_t)(lu__splitmix(rng) % nops);
    }
}

/* ---- replay files ---- */

/* The test a replay file names, in its "history" hash since format 3: a
 * file whose test line was edited (other calls, the same positions and
 * results) said "reproduced" of another test's failure (an audit's). */
static uint64_t lu__test_line_hash(const char *test)
{
    return lu_hist_hash_bytes(test, strlen(test));
}

static int lu__write_replay(const char *dir, const char *path, const struct lu__harness *h,
                            const struct lu_drv_test *t, const struct lu__finding *r, int phase,
                            int preemptions, int strategy, uint32_t spin_bound, uint32_t watchdog_ms,
                            unsigned timeout, bool uninstrumented, int tls, const uint64_t *seed, char *out,
                            size_t outlen)
{
    static unsigned seq;
    char real[PATH_MAX];
    if (!realpath(path, real))
        snprintf(real, sizeof real, "%s", path);
    char stem[160];
    snprintf(stem, sizeof stem, "lineup-%s", h->name);
    FILE *f = lu_drv_replay_create(dir, stem, &seq, out, outlen);
    if (!f)
        return -1;
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_drv_test_format(&b, t, (const char *const *)h->labels);
    /* the schedule is the list of choices, whatever strategy made them:
     * the strategy line is for people, the replay follows the choices */
    fputs("lineup-replay 3\nharness ", f);
    lu_drv_replay_put(f, real);
    /* the spin bound shapes the schedule (how long a spinning thread chosen
     * at a cost runs, when spinning is a livelock): replays use it */
    fprintf(f,
            "\nname %s\ntest %s\nphase %d\nkind %s\npreemptions %d\nstrategy %s\nspin-bound %" PRIu32
            "\nschedule",
            h->name, b.s ? b.s : "", phase, lu__vids[r->verdict], preemptions, lu_drv_strategy_id(strategy),
            spin_bound);
    for (uint32_t i = 0; i < r->sched_len; i++)
        fprintf(f, " %c%u", r->sched[i].kind == LU_SCHED_CHOOSE_DATA ? 'd' : 't', r->sched[i].chosen);
    fputs("\n", f);
    if (uninstrumented) /* --allow-uninstrumented: its atomics were no choices */
        fputs("uninstrumented 1\n", f);
    /* a timeout found with --timeout 2 should not replay for the default
     * 600 s before it says anything */
    fprintf(f, "timeout %u\n", timeout);
    /* what counts as divergence: an operation that computes for 0.3 s is
     * one under --watchdog-ms 50, and goes on under the default */
    fprintf(f, "watchdog-ms %" PRIu32 "\n", watchdog_ms);
    /* found with a --tls other than auto: a shared TLS changes what code
     * with thread-local variables does */
    if (tls != LU_SCHED_TLS_AUTO)
        fprintf(f, "tls %s\n", lu_drv_tls_name(tls));
    /* the run drew schedules from it: 'lineup --test' with it draws those
     * of a minimized test again (the advice of a replay that misfits) */
    if (seed)
        fprintf(f, "seed %" PRIu64 "\n", *seed);
    /* the failing history, so that a replay that fails the same way with
     * other results (a harness since changed) does not say "reproduced" */
    if (r->hist && phase == 2)
        fprintf(f, "history %016" PRIx64 "\n", r->hist ^ lu__test_line_hash(b.s ? b.s : ""));
    lu_hist_buf_free(&b);
    if (fclose(f) == 0)
        return 0;
    int e = errno;
    unlink(out); /* a truncated schedule would replay something else */
    errno = e;
    return -1;
}

struct lu__replay {
    char harness[4096], name[128], test[4096], kind[64], strategy[32];
    int phase, preemptions;
    uint32_t spin_bound; /* 0: not recorded (the default applies) */
    bool uninstrumented; /* written by a run with --allow-uninstrumented */
    bool timeout_set;
    unsigned timeout;     /* --timeout of the run that wrote it (0: none) */
    uint32_t watchdog_ms; /* 0: not recorded */
    int tls;              /* enum lu_sched_tls; AUTO when not recorded */
    bool seed_set;        /* the run drew schedules from seed */
    uint64_t seed;
    bool hist_set; /* the failing history's hash is recorded */
    uint64_t hist; /* with the test line's mixed in (lu__test_line_hash) from format 3 */
    int format;    /* 2 or 3 */
    struct lu_sched_step *steps;
    uint32_t len;
};

/* The longest line lineup writes is the schedule, " tN" or " dN" (N < 64)
 * per choice of an execution; a file has a dozen lines of at most 4 KB
 * besides. Anything longer is no replay file (/dev/zero, a binary, a
 * stream without newlines), and is not read on until memory runs out. */
#define LU__REPLAY_LINE_MAX (sizeof "schedule" + 4 * (size_t)LU_DRV_TRACE_CAP)
#define LU__REPLAY_FILE_MAX (LU__REPLAY_LINE_MAX + 64 * 1024)

static void lu__replay_bad(const char *file, unsigned line, const char *why) __attribute__((noreturn));
static void lu__replay_bad(const char *file, unsigned line, const char *why)
{
    fprintf(stderr, "lineup: %s:%u: not a valid replay file: %s\n", file, line, why);
    exit(EXIT_USAGE);
}

static void lu__read_replay(const char *file, struct lu__replay *rp)
{
    memset(rp, 0, sizeof *rp);
    rp->phase = -1;
    rp->preemptions = 2; /* the default, for a file without the line */
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "lineup: cannot open replay file %s: %s\n", file, strerror(errno));
        exit(EXIT_USAGE);
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "lineup: cannot open replay file %s: it is a directory\n", file);
        exit(EXIT_USAGE);
    }
    char *line = NULL;
    size_t cap = 0;
    unsigned ln = 0;
    bool header = false, sched = false;
    /* each key once: a second schedule line would be appended to the
     * first, a second test line would replace it */
    static const char *const keys[] = {"harness", "name",        "test",       "kind",     "strategy",
                                       "phase",   "preemptions", "spin-bound", "schedule", "uninstrumented",
                                       "timeout", "watchdog-ms", "tls",        "seed",     "history"};
    bool seen[sizeof keys / sizeof keys[0]] = {false};
    size_t total = 0;
    char why[160];
    for (;;) {
        long n = lu_drv_replay_line(f, &line, &cap, LU__REPLAY_LINE_MAX, &total);
        if (n == LU_DRV_LINE_EOF)
            break;
        ln++;
        if (n == LU_DRV_LINE_ERR) {
            fprintf(stderr, "lineup: cannot read replay file %s: %s\n", file, strerror(errno));
            exit(EXIT_USAGE);
        }
        if (n == LU_DRV_LINE_NUL)
            lu__replay_bad(file, ln, "it has a NUL byte: it is no text file");
        if (n == LU_DRV_LINE_LONG) {
            snprintf(why, sizeof why, "a line longer than %zu bytes, which no replay file has",
                     (size_t)LU__REPLAY_LINE_MAX);
            lu__replay_bad(file, ln, why);
        }
        if (total > LU__REPLAY_FILE_MAX) {
            snprintf(why, sizeof why, "longer than %zu bytes, which no replay file is",
                     (size_t)LU__REPLAY_FILE_MAX);
            lu__replay_bad(file, ln, why);
        }
        line[strcspn(line, "\r")] = 0;
        /* a key indented or cut off would be a line silently skipped */
        if (line[0] == ' ' || line[0] == '\t')
            lu__replay_bad(file, ln, "a line that starts with white space");
        char *sp = strchr(line, ' ');
        const char *val = sp ? sp + 1 : "";
        if (sp)
            *sp = 0;
        for (size_t k = 0; ln > 1 && k < sizeof keys / sizeof keys[0]; k++) {
            if (strcmp(line, keys[k]) != 0)
                continue;
            if (seen[k])
                lu__replay_bad(file, ln, "a repeated line");
            seen[k] = true;
        }
        /* a value cut to fit its field would be another value; the
         * schedule is no field, and as long as the execution was */
        if (strcmp(line, "schedule") != 0 && strlen(val) >= sizeof rp->test)
            lu__replay_bad(file, ln, "a line too long");
        if (ln == 1) {
            /* format 2 (session 3): schedules omit the points where one
             * thread is alone and may choose spinning threads at a cost */
            if (strcmp(line, "lineup-run-replay") == 0)
                lu__replay_bad(file, ln, "it is a replay of a whole program: use 'lineup run --replay FILE'");
            if (strcmp(line, "lineup-replay") == 0 && strcmp(val, "1") == 0)
                lu__replay_bad(file, ln,
                               "it was written by an older lineup, whose schedules this one does not "
                               "follow: run the check again for a new replay file");
            if (strcmp(line, "lineup-replay") == 0 && atoi(val) > 3)
                lu__replay_bad(file, ln,
                               "it was written by a newer lineup, in a format this one does not read");
            /* format 3 (session 30): the history hash names the test too */
            if (strcmp(line, "lineup-replay") != 0 || (strcmp(val, "2") != 0 && strcmp(val, "3") != 0))
                lu__replay_bad(file, ln, "it does not start with 'lineup-replay 3'");
            rp->format = val[0] - '0';
            header = true;
        } else if (strcmp(line, "harness") == 0) {
            snprintf(rp->harness, sizeof rp->harness, "%s", val);
            lu_drv_replay_unescape(rp->harness);
        } else if (strcmp(line, "name") == 0) {
            if (strlen(val) >= sizeof rp->name)
                lu__replay_bad(file, ln, "a line too long");
            snprintf(rp->name, sizeof rp->name, "%s", val);
        } else if (strcmp(line, "test") == 0) {
            snprintf(rp->test, sizeof rp->test, "%s", val);
        } else if (strcmp(line, "kind") == 0) {
            bool known = false; /* replay files are written for bugs and timeouts only */
            for (int v = 0; v < LU_DRV_V_COUNT; v++)
                known |= strcmp(val, lu__vids[v]) == 0 && lu__replayable(v);
            if (!known)
                lu__replay_bad(file, ln, "unknown kind");
            snprintf(rp->kind, sizeof rp->kind, "%s", val);
        } else if (strcmp(line, "strategy") == 0) {
            if (lu_drv_strategy_parse(val) < 0)
                lu__replay_bad(file, ln, "unknown strategy");
            snprintf(rp->strategy, sizeof rp->strategy, "%s", val);
        } else if (strcmp(line, "phase") == 0) {
            if (strcmp(val, "1") && strcmp(val, "2"))
                lu__replay_bad(file, ln, "phase must be 1 or 2");
            rp->phase = atoi(val);
        } else if (strcmp(line, "preemptions") == 0) {
            char *end;
            long p = strtol(val, &end, 10);
            if (*end || p < -1 || p > 64)
                lu__replay_bad(file, ln, "bad preemption bound");
            rp->preemptions = (int)p;
        } else if (strcmp(line, "spin-bound") == 0) {
            char *end;
            errno = 0;
            unsigned long sb = strtoul(val, &end, 10);
            if (!isdigit((unsigned char)val[0]) || *end || errno || sb < 1 || sb > 100000000)
                lu__replay_bad(file, ln, "bad spin-bound (1 to 100000000)");
            rp->spin_bound = (uint32_t)sb;
        } else if (strcmp(line, "timeout") == 0) {
            char *end;
            errno = 0;
            unsigned long t = strtoul(val, &end, 10);
            if (!isdigit((unsigned char)val[0]) || *end || errno || t > 86400 * 7)
                lu__replay_bad(file, ln, "bad timeout (0 to 604800 seconds)");
            rp->timeout = (unsigned)t;
            rp->timeout_set = true;
        } else if (strcmp(line, "watchdog-ms") == 0) {
            char *end;
            errno = 0;
            unsigned long w = strtoul(val, &end, 10);
            if (!isdigit((unsigned char)val[0]) || *end || errno || w < 1 || w > 3600000)
                lu__replay_bad(file, ln, "bad watchdog-ms (1 to 3600000)");
            rp->watchdog_ms = (uint32_t)w;
        } else if (strcmp(line, "seed") == 0) {
            char *end;
            errno = 0;
            unsigned long long sd = strtoull(val, &end, 10);
            if (!isdigit((unsigned char)val[0]) || *end || errno)
                lu__replay_bad(file, ln, "bad seed");
            rp->seed = sd;
            rp->seed_set = true;
        } else if (strcmp(line, "history") == 0) {
            char *end;
            errno = 0;
            unsigned long long hh = strtoull(val, &end, 16);
            if (!isxdigit((unsigned char)val[0]) || *end || errno || strlen(val) != 16)
                lu__replay_bad(file, ln, "bad history (16 hexadecimal digits)");
            rp->hist = hh;
            rp->hist_set = true;
        } else if (strcmp(line, "tls") == 0) {
            rp->tls = lu_drv_tls_parse(val);
            if (rp->tls < 0)
                lu__replay_bad(file, ln, "bad tls (auto, per-thread or shared)");
        } else if (strcmp(line, "uninstrumented") == 0) {
            if (strcmp(val, "1") != 0)
                lu__replay_bad(file, ln, "bad uninstrumented line");
            rp->uninstrumented = true;
        } else if (strcmp(line, "schedule") == 0) {
            sched = true;
            char *save = NULL, *v = strdup(val);
            for (char *tok = strtok_r(v, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
                char *end;
                if ((tok[0] != 't' && tok[0] != 'd') || !isdigit((unsigned char)tok[1]))
                    lu__replay_bad(file, ln, "schedule entries are tN or dN");
                unsigned long x = strtoul(tok + 1, &end, 10);
                if (*end)
                    lu__replay_bad(file, ln, "schedule entries are tN or dN, separated by single spaces");
                if (x >= 64)
                    lu__replay_bad(file, ln, "schedule entry out of range");
                if (rp->len >= LU_DRV_TRACE_CAP)
                    lu__replay_bad(file, ln, "schedule too long");
                rp->steps = realloc(rp->steps, (rp->len + 1) * sizeof *rp->steps);
                memset(&rp->steps[rp->len], 0, sizeof *rp->steps);
                rp->steps[rp->len].kind = tok[0] == 'd' ? LU_SCHED_CHOOSE_DATA : LU_SCHED_CHOOSE_THREAD;
                rp->steps[rp->len].chosen = (uint8_t)x;
                rp->len++;
            }
            free(v);
        } else if (line[0] && line[0] != '#') {
            lu__replay_bad(file, ln, "unknown line");
        }
    }
    free(line);
    fclose(f);
    if (!header)
        lu__replay_bad(file, 1, "empty file");
    if (!rp->harness[0] || !rp->name[0] || !rp->test[0] || rp->phase < 0 || !rp->kind[0] || !sched)
        lu__replay_bad(file, ln, "harness, name, test, phase, kind and schedule lines are required");
}

/* A phase-2 failure's replay file must replay it: its schedule, run again
 * in a fresh worker, must fail the same way on the same history. One that
 * does not depended on what earlier executions in the explorer's process
 * left behind: a static arena or counter that create() does not reset (the
 * object is then not deterministic), or state that is no bug of the object
 * but decides where the bug shows (rand()'s seed, the allocator's). Which
 * one, the driver cannot tell, so the finding keeps its kind and the report
 * says why it has no replay file. Returns NULL when the replay reproduces
 * the failure or cannot be checked (an interruption), else what the replay
 * did instead. */
static const char *lu__verify_replay(const struct lu_drv_job *job, const struct lu__finding *f, char *buf,
                                     size_t len)
{
    /* phase 2's nondeterminism too: it often comes from state that earlier
     * executions left (a static counter), which a fresh process lacks */
    bool nondet = f->verdict == LU_DRV_V_NONDET;
    if ((f->verdict != LU_DRV_V_VIOLATION && f->verdict != LU_DRV_V_STUCK && !nondet) ||
        (!f->hist && !nondet) || !f->sched_len || lu_drv_interrupted)
        return NULL;
    struct lu_drv_job rj = *job;
    rj.explorers = 1;
    rj.replay_phase = 2;
    rj.replay_len = f->sched_len;
    struct lu__res rr;
    lu__run_sync(&rj, f->sched, &rr);
    uint64_t hist = lu__slots[0].shm->replay_hist;
    int got = rr.verdict;
    lu__res_free(&rr);
    if (lu_drv_interrupted || (got == f->verdict && (hist == f->hist || !f->hist)))
        return NULL;
    if (got == LU_DRV_V_PASS)
        snprintf(buf, len, "did not fail");
    else if (got == LU_DRV_V_MISFIT)
        snprintf(buf, len, "took another path (the schedule does not fit)");
    else if (got == f->verdict)
        snprintf(buf, len, "failed the same way on another history");
    else
        snprintf(buf, len, "ended in another verdict (%s)", lu_drv_verdict_name(got));
    return buf;
}

/* ---- minimization ---- */

static bool lu__remove_thread(const struct lu_drv_test *in, unsigned th, struct lu_drv_test *out)
{
    if (in->nthreads == 1)
        return false;
    *out = *in;
    for (unsigned i = th; i + 1 < in->nthreads; i++) {
        out->len[i] = in->len[i + 1];
        memcpy(out->cell[i], in->cell[i + 1], sizeof out->cell[i]);
    }
    out->nthreads--;
    out->len[out->nthreads] = 0;
    return true;
}

static bool lu__remove_call(const struct lu_drv_test *in, unsigned th, unsigned k, struct lu_drv_test *out)
{
    if (in->len[th] == 1)
        return lu__remove_thread(in, th, out);
    *out = *in;
    for (unsigned j = k; j + 1 < in->len[th]; j++)
        out->cell[th][j] = in->cell[th][j + 1];
    out->len[th]--;
    return true;
}

static unsigned lu__want_of(int verdict)
{
    return verdict == LU_DRV_V_VIOLATION ? 1u << LU_DRV_F_VIOLATION
           : verdict == LU_DRV_V_STUCK   ? 1u << LU_DRV_F_STUCK
                                         : 0;
}

/* The smaller tests a minimization ran that did not fail: the same test
 * again (dropping either of two like threads, or either of two like calls)
 * would not fail either, and counting it made "N smaller tests tried"
 * more than there were. */
struct lu__tried {
    const char *const *labels;
    unsigned n, cap;
    char **t; /* lu__test_canonical's text: one test up to its threads' order */
};

/* Tries cand; when it shows the same kind of bug, it becomes the test. */
/* *incomplete: a smaller test passed without its search covering its
 * bound (the budget ran out), so "already minimal" would claim too much */
static bool lu__try_smaller(struct lu_drv_job *job, const struct lu_drv_test *cand, int verdict,
                            struct lu__res *r, unsigned *runs, bool *timed_out, bool *incomplete,
                            struct lu__tried *tried)
{
    if (lu_drv_interrupted)
        return false;
    struct lu_hist_buf norm;
    lu_hist_buf_init(&norm);
    lu__test_canonical(&norm, cand, tried->labels);
    for (unsigned i = 0; i < tried->n && norm.s; i++)
        if (strcmp(tried->t[i], norm.s) == 0) {
            lu_hist_buf_free(&norm);
            return false;
        }
    struct lu_drv_job j2 = *job;
    j2.test = *cand;
    j2.want = lu__want_of(verdict);
    struct lu__res r2;
    lu__run_sync(&j2, NULL, &r2);
    (*runs)++;
    /* testing: Ctrl-C in the middle of a minimization, at a known point */
    if (getenv("LINEUP_TEST_INTERRUPT_MINIMIZE"))
        raise(SIGINT);
    if (!lu__res_find(&r2, verdict)) {
        *timed_out = lu__res_find(&r2, LU_DRV_V_TIMEOUT) != NULL;
        *incomplete |= r2.truncated;
        /* only a complete search says the test passes (a budget cut it
         * short, or sampled schedules, which depend on the order of its
         * threads) */
        bool complete = !r2.truncated && !r2.sampled && !lu_drv_strategy_randomized(job->strategy);
        lu__res_free(&r2);
        if (complete && norm.s && tried->n == tried->cap) {
            unsigned cap = tried->cap ? 2 * tried->cap : 16;
            char **t = realloc(tried->t, cap * sizeof *t);
            if (t) { /* else it only runs a test twice */
                tried->t = t;
                tried->cap = cap;
            }
        }
        if (complete && norm.s && tried->n < tried->cap)
            tried->t[tried->n++] = norm.s;
        else
            lu_hist_buf_free(&norm);
        return false;
    }
    lu_hist_buf_free(&norm);
    job->test = *cand;
    lu__res_free(r);
    *r = r2;
    return true;
}

/* Greedy: drop whole threads, then single calls, while the test still shows
 * the same kind of bug; the paper did this by hand. A candidate that
 * times out waited --timeout, and its neighbours likely would too: one
 * such wait ends the minimization (*cut), so that it costs at most one
 * --timeout beyond its quick runs. Timeouts themselves are not minimized
 * (the caller), since every successful step would wait --timeout. */
static unsigned lu__minimize(struct lu_drv_job *job, int verdict, struct lu__res *r, bool *cut,
                             bool *incomplete, const char *const *labels)
{
    unsigned runs = 0;
    bool progress = true;
    struct lu__tried tried = {.labels = labels};
    *cut = *incomplete = false;
    while (progress && !*cut) {
        progress = false;
        struct lu_drv_test cand;
        for (unsigned th = 0; th < job->test.nthreads && !progress && !*cut; th++)
            if (lu__remove_thread(&job->test, th, &cand))
                progress = lu__try_smaller(job, &cand, verdict, r, &runs, cut, incomplete, &tried);
        for (unsigned th = 0; th < job->test.nthreads && !progress && !*cut; th++)
            for (unsigned k = job->test.len[th]; k-- > 0 && !progress && !*cut;)
                if (lu__remove_call(&job->test, th, k, &cand))
                    progress = lu__try_smaller(job, &cand, verdict, r, &runs, cut, incomplete, &tried);
    }
    for (unsigned i = 0; i < tried.n; i++)
        free(tried.t[i]);
    free(tried.t);
    return runs;
}

/* ---- JSON ---- */

/* ---- main ---- */

struct lu__totals {
    unsigned tests, failed, truncated;
    unsigned errors; /* tests that ended in an error, as a harness error: neither passed nor failed */
    int min_complete;
    uint64_t ex1, ex2, histories, serial, spec_checks, checks, stuck, cut, recycles;
    uint64_t sampled; /* the default's executions sampled by POS */
    unsigned max_explorers;
    bool interrupted; /* SIGINT, SIGTERM or SIGHUP: only the tests that finished */
    unsigned stopped; /* tests the interruption stopped (their executions are counted) */
    unsigned stopped_in_phase1, not_run;
    unsigned timeout_stops;    /* harnesses whose tests stopped at --max-timeouts */
    unsigned phase1_stops;     /* harnesses whose tests stopped at phase 1's limit */
    bool minimize_interrupted; /* the signal came while failures were minimized */
    unsigned inconclusive;     /* tests that only timed out: neither passed nor failed */
    unsigned by_verdict[LU_DRV_V_COUNT];
    int outcome; /* enum lu_drv_outcome: the worst of the tests' */
};

static void lu__progress(const struct lu__opts *o, unsigned done, unsigned total, const struct lu__totals *tt,
                         double t0)
{
    if (o->quiet || !isatty(STDERR_FILENO))
        return;
    double el = lu_drv_now() - t0;
    fprintf(stderr, "\r[%u/%u tests] %.0f executions/s, %.1f s, %u failing   ", done, total,
            el > 0 ? (double)(tt->ex1 + tt->ex2) / el : 0.0, el, tt->failed);
    if (done == total)
        fputs("\n", stderr);
}

/* Executions, distinct histories and checks of each phase: a history is
 * checked once however many executions produce it (histories that differ
 * only in the order of consecutive calls or returns are one, see
 * lu_hist_hash_canon), so checks equal distinct histories in phase 2;
 * phase 1 compares every serial execution
 * with the observations so far (the determinism check). */
static void lu__json_counts(FILE *f, const struct lu__res *r)
{
    fprintf(f,
            ", \"phase1\": {\"executions\": %" PRIu64 ", \"histories\": %" PRIu64 ", \"checks\": %" PRIu64
            "}, \"phase2\": {\"executions\": %" PRIu64 ", \"histories\": %" PRIu64 ", \"checks\": %" PRIu64
            ", \"stuck_executions\": %" PRIu64 ", \"cut_executions\": %" PRIu64 ", \"explorers\": %u"
            ", \"restarts\": %" PRIu64,
            r->ex1, r->serial_full + r->serial_stuck, r->spec_checks, r->ex2, r->histories, r->checks,
            r->stuck, r->cut, r->explorers, r->recycles);
    if (r->explorers > 1) {
        /* how evenly the explorers shared the test's search */
        fputs(", \"explorer_executions\": [", f);
        for (unsigned k = 0; k < r->explorers && k < LU_DRV_MAX_EXPLORERS; k++)
            fprintf(f, "%s%" PRIu64, k ? ", " : "", r->explorer_ex[k]);
        fputs("]", f);
    }
    fputs("}", f);
}

/* The seed of a randomized strategy for sample i: independent of which
 * share of a --shard run checks it. */
static uint64_t lu__test_seed(uint64_t seed, unsigned i)
{
    uint64_t x = seed ^ ((uint64_t)i * 0xd1b54a32d192ed03ULL);
    return lu__splitmix(&x);
}

/* Why a replay stopped following its schedule, and what to do instead: a
 * replay file is evidence of one execution of one build, not a test. The
 * command it suggests searches at the recorded bound (a bug found at
 * --preemptions 3 passes at the default 2, fixed or not), as idb did if
 * idb found it, with the spin bound the replay used. */
static void lu__replay_misfit(const struct lu__replay *rp, uint32_t spin_bound, uint32_t watchdog_ms, int tls,
                              int why, uint32_t at, const char *path)
{
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_drv_misfit_why(&b, why, rp->steps, rp->len, at, 1);
    char of[32] = "";
    if (at < rp->len)
        snprintf(of, sizeof of, " of %u", rp->len);
    char opts[192] = "";
    size_t n = 0;
    int st = rp->strategy[0] ? lu_drv_strategy_parse(rp->strategy) : LU_DRV_S_DEFAULT;
    if (st == LU_DRV_S_IDB || lu_drv_strategy_randomized(st))
        n += (size_t)snprintf(opts + n, sizeof opts - n, " --strategy %s", lu_drv_strategy_id(st));
    /* sampled schedules: those --test draws from the run's seed */
    if (rp->seed_set)
        n += (size_t)snprintf(opts + n, sizeof opts - n, " --seed %" PRIu64, rp->seed);
    /* pct and pos have no bound: their files record the default */
    if (st != LU_DRV_S_PCT && st != LU_DRV_S_POS && rp->preemptions != 2)
        n += (size_t)snprintf(opts + n, sizeof opts - n, " --preemptions %d", rp->preemptions);
    if (spin_bound != 1000)
        n += (size_t)snprintf(opts + n, sizeof opts - n, " --spin-bound %" PRIu32, spin_bound);
    if (watchdog_ms != 1000)
        n += (size_t)snprintf(opts + n, sizeof opts - n, " --watchdog-ms %" PRIu32, watchdog_ms);
    if (tls != LU_SCHED_TLS_AUTO)
        snprintf(opts + n, sizeof opts - n, " --tls %s", lu_drv_tls_name(tls));
    /* a --spin-bound other than the recorded one moves where a spinning
     * thread's run alone ends and a livelock is called: that is the likely
     * cause, not a changed harness (an audit's replay at 5 of a file
     * recorded at 1000 blamed the harness) */
    char why_s[160];
    if (rp->spin_bound && spin_bound != rp->spin_bound)
        snprintf(why_s, sizeof why_s,
                 "it was recorded with --spin-bound %" PRIu32 " and replayed with %" PRIu32
                 ", which changes where spinning threads stop: replay it without --spin-bound",
                 rp->spin_bound, spin_bound);
    else
        snprintf(why_s, sizeof why_s,
                 "the harness changed since the replay file was written, or it does not "
                 "behave the same way on the same schedule");
    fprintf(
        stderr,
        "lineup: replay: the recorded schedule does not fit this build at choice %u%s (%s): %s. To check a "
        "fix, run the test again: lineup --test %s --harness %s%s %s\n",
        at + 1, of, b.s ? b.s : "", why_s, lu_drv_shell_word(rp->test), rp->name, opts,
        lu_drv_shell_word(path));
    lu_hist_buf_free(&b);
}

static int lu__replay_main(struct lu__opts *o)
{
    struct lu__replay rp;
    lu__read_replay(o->replay, &rp);
    const char *path = o->path ? o->path : rp.harness;
    char err[512];
    int ins = lu__instrumented(path, err, sizeof err);
    if (ins == -2)
        lu__resource_stop(err);
    if (ins < 0) {
        fprintf(stderr, "lineup: %s\n", err);
        return EXIT_USAGE;
    }
    if (!(ins & LU__INS_TSAN) && !rp.uninstrumented) {
        /* its atomics are no scheduling points: the schedule cannot fit,
         * and "the harness changed" would not say why */
        fprintf(
            stderr,
            "lineup: %s was not built with lineup-cc, and %s was written for a build that was: rebuild it "
            "with 'lineup-cc -shared -o %s SOURCE.c'\n",
            path, o->replay, path);
        return EXIT_USAGE;
    }
    o->harness_name = rp.name;
    struct lu__harness *hs;
    lu__probe(o, path, &hs);
    struct lu_drv_job job;
    memset(&job, 0, sizeof job);
    snprintf(job.harness_path, sizeof job.harness_path, "%s", path);
    snprintf(job.harness_name, sizeof job.harness_name, "%s", rp.name);
    if (lu_drv_test_parse(rp.test, (const char *const *)hs[0].labels, hs[0].nops, &job.test, err,
                          sizeof err)) {
        fprintf(stderr, "lineup: %s: the test does not fit harness %s: %s\n", o->replay, rp.name, err);
        return EXIT_USAGE;
    }
    job.preemptions = rp.preemptions;
    job.replay_phase = rp.phase;
    job.replay_len = rp.len;
    job.spin_bound = rp.spin_bound && !o->spin_given ? rp.spin_bound : o->spin_bound;
    job.watchdog_ms = rp.watchdog_ms && !o->watchdog_given ? rp.watchdog_ms : o->watchdog_ms;
    job.tls = o->tls_given ? o->tls : rp.tls;
    if (rp.timeout_set && !o->timeout_given)
        lu__timeout = rp.timeout;
    /* before the run, which may wait for --timeout */
    printf("lineup %s: replaying %s (harness %s, recorded as %s%s%s)\n", LINEUP_VERSION, o->replay, rp.name,
           rp.kind[0] ? rp.kind : "?", rp.strategy[0] ? " by strategy " : "", rp.strategy);
    fflush(stdout);
    struct lu__res r;
    lu__run_sync(&job, rp.steps, &r);
    int misfit = r.verdict == LU_DRV_V_MISFIT ? lu__slots[0].shm->misfit : LU_SCHED_MISFIT_NONE;
    if ((r.verdict == LU_DRV_V_CRASH || r.verdict == LU_DRV_V_DIVERGE || r.verdict == LU_DRV_V_TIMEOUT) &&
        r.phase == rp.phase && r.sched_len < rp.len) {
        /* the worker died before the schedule's end: not the recorded
         * execution either */
        misfit = LU_SCHED_MISFIT_LEFT_OVER;
    }
    fputs(r.report ? r.report : "", stdout);
    const char *id = lu__vids[r.verdict < LU_DRV_V_COUNT ? r.verdict : LU_DRV_V_INTERNAL];
    const char *rec = "?";
    for (int v = 0; v < LU_DRV_V_COUNT; v++)
        if (strcmp(rp.kind, lu__vids[v]) == 0)
            rec = lu__vnames[v];
    int rc = lu_drv_verdict_exit(r.verdict);
    if (misfit != LU_SCHED_MISFIT_NONE) {
        printf("verdict: %s (recorded as %s)\n", lu_drv_verdict_name(LU_DRV_V_MISFIT), rec);
        fflush(stdout);
        lu__replay_misfit(&rp, job.spin_bound, job.watchdog_ms, job.tls, misfit, r.sched_len, path);
        rc = lu_drv_verdict_exit(LU_DRV_V_MISFIT);
    } else if (r.verdict == LU_DRV_V_PASS) {
        printf("verdict: the replayed execution did not fail (recorded as %s)\n", rec);
    } else if (strcmp(id, rp.kind) == 0 && rp.hist_set && rp.phase == 2 &&
               (lu__slots[0].shm->replay_hist ^ (rp.format >= 3 ? lu__test_line_hash(rp.test) : 0)) !=
                   rp.hist) {
        /* the same kind of failure on another history: not the recorded
         * one, whose values the file no longer shows */
        printf("verdict: %s (recorded as the same kind of failure, but on another history: the harness "
               "returns other results on this schedule than when the replay file was written, or the file's "
               "test line was changed)\n",
               lu_drv_verdict_name(r.verdict));
    } else if (strcmp(id, rp.kind) == 0) {
        printf("verdict: %s (reproduced)\n", lu_drv_verdict_name(r.verdict));
    } else {
        printf("verdict: %s (recorded as %s)\n", lu_drv_verdict_name(r.verdict), rec);
    }
    lu__res_free(&r);
    free(rp.steps);
    return rc;
}

/* Marks this executable as lineup's own for liblineup.so, whose libc
 * functions leave out calls made here (the checker's copies of results on
 * controlled threads are no accesses of the code under test). The runtime
 * refers to it weakly, so the link exports it. */
__attribute__((visibility("default"))) const char lu_drv_self = 1;

int main(int argc, char **argv)
{
    lu_drv_stdio_init();
    struct lu__opts o;
    lu__parse_opts(argc, argv, &o);
    signal(SIGPIPE, SIG_IGN);
    /* a file size limit (ulimit -f) is a write error with a message, not a
     * death in the middle of the report */
    signal(SIGXFSZ, SIG_IGN);
    lu__timeout = o.timeout;
    if (o.jobs > 64)
        o.jobs = 64;
    lu__slots_init(o.jobs);
    if (o.replay)
        return lu__replay_main(&o);

    if (lu_drv_json_is(&o.json, o.path)) {
        fprintf(stderr, "lineup: --json %s is the harness itself; give another file\n", o.json.arg);
        return EXIT_USAGE;
    }
    /* the JSON alone on standard output, for a pipe; the report on
     * standard error */
    int jrc = lu_drv_json_take_stdout("lineup", &o.json);
    if (jrc)
        return jrc;
    char err[512];
    int ins = lu__instrumented(o.path, err, sizeof err);
    if (ins == -2)
        lu__resource_stop(err);
    if (ins < 0) {
        fprintf(stderr, "lineup: %s\n", err);
        return EXIT_USAGE;
    }
    if (ins == LU__INS_MARK && !o.allow_uninstrumented) {
        fprintf(
            stderr,
            "lineup: %s was compiled by lineup-cc, but none of its code is instrumented (it calls no\n"
            "ThreadSanitizer hook), so its atomic operations would be invisible to lineup. A later flag\n"
            "turns the instrumentation off: a -fno-sanitize=thread, or with gcc an -flto after lineup-cc's\n"
            "own -fno-lto (a CMake target's INTERFACE_COMPILE_OPTIONS can add one). Rebuild it without, or\n"
            "pass --allow-uninstrumented to check it anyway with only its pthread calls as scheduling\n"
            "points.\n",
            o.path);
        return EXIT_USAGE;
    }
    if (ins == 0 && !o.allow_uninstrumented) {
        fprintf(
            stderr,
            "lineup: %s was not built with lineup-cc: its atomic operations would be invisible to lineup.\n"
            "Rebuild it with 'lineup-cc -shared -o HARNESS.so SOURCE.c', or pass --allow-uninstrumented to\n"
            "check it anyway with only its pthread calls as scheduling points.\n",
            o.path);
        return EXIT_USAGE;
    }
    if (ins == LU__INS_TSAN && !o.allow_uninstrumented) {
        fprintf(
            stderr,
            "lineup: %s was compiled with -fsanitize=thread, but not by lineup-cc (or by an older one than\n"
            "this lineup's): without lineup-cc's flags its volatile accesses are no scheduling points and "
            "the partial-order reduction can\n"
            "skip schedules, so a failing test could pass. Rebuild it with 'lineup-cc -shared -o\n"
            "HARNESS.so SOURCE.c' (or lineup_add_harness in CMake), or pass --allow-uninstrumented to\n"
            "check it anyway.\n",
            o.path);
        return EXIT_USAGE;
    }
    struct lu__harness *hs;
    unsigned nh = lu__probe(&o, o.path, &hs);
    bool randomized = lu_drv_strategy_randomized(o.strategy);
    /* the schedules the default strategy samples under a budget are drawn
     * too; with --test they come from seed 0 unless --seed is given, so
     * that a regression test runs the same schedules every time */
    bool mixed = lu_drv_default_samples(o.strategy, o.max_executions);
    bool draws = randomized || mixed;
    /* replay files name the seed that drew their schedules, unless it is
     * --test's implicit 0 (what the command they advise draws anyway) */
    bool seed_in_replay = randomized || (mixed && (o.seed_given || !o.test));
    if (!o.seed_given && o.test && mixed) {
        o.seed = 0;
    } else if (!o.seed_given) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        o.seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid();
        o.seed %= 1000000000ULL;
    }

    /* written beside the target and renamed at the end, so that a run
     * that stops early (a usage error found later, an internal error,
     * SIGINT) never leaves a truncated JSON file behind */
    jrc = lu_drv_json_open("lineup", &o.json);
    if (jrc)
        return jrc;
    FILE *json = o.json.f;
    {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = lu__on_signal;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        /* nohup's SIGHUP stays ignored (a shell's SIGINT for a command in
         * the background does not: the stop request is what it is for) */
        struct sigaction old;
        lu__hup_ignored = sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
        if (!lu__hup_ignored)
            sigaction(SIGHUP, &sa, NULL);
    }
    if (json) {
        fprintf(json, "{\"lineup\": \"%s\", \"seed\": %" PRIu64 ", \"preemptions\": %d, \"strategy\": \"%s\"",
                LINEUP_VERSION, o.seed, o.preemptions, lu_drv_strategy_id(o.strategy));
        if (o.strategy == LU_DRV_S_PCT)
            fprintf(json, ", \"depth\": %d", o.depth);
        fprintf(json, ", \"max_executions\": %" PRIu64, o.max_executions);
        fprintf(json, ", \"reduction\": %s", o.reduction ? "true" : "false");
        fprintf(json, ", \"tls\": \"%s\"", lu_drv_tls_name(o.tls));
        fprintf(json, ", \"recycle_mb\": %" PRIu32 ", \"heap_cap_mb\": %" PRIu32 ", \"cache_mb\": %" PRIu32,
                o.recycle_mb, o.heap_cap_mb, o.cache_mb);
        if (o.shard_n)
            fprintf(json, ", \"shard\": [%u, %u]", o.shard_k, o.shard_n);
        fputs(", \"harnesses\": [", json);
    }

    struct lu__totals tt;
    memset(&tt, 0, sizeof tt);
    double t0 = lu_drv_now();
    lu_drv_graceful = 1;
    unsigned hi = 0;
    for (; hi < nh && !lu_drv_interrupted; hi++) {
        struct lu__harness *h = &hs[hi];
        const char *const *labels = (const char *const *)h->labels;
        /* all samples are drawn in order, so that a share of a --shard run
         * gets exactly the tests (and sample numbers) one run of all has */
        unsigned ntests = 0;
        struct lu_drv_test *tests = NULL;
        unsigned *sample = NULL; /* 0-based sample number of each test */
        if (o.test) {
            ntests = 1;
            tests = lu__alloc_run(1, sizeof *tests, "the tests");
            sample = lu__alloc_run(1, sizeof *sample, "the tests");
            if (lu_drv_test_parse(o.test, labels, h->nops, &tests[0], err, sizeof err)) {
                fprintf(stderr, "lineup: --test: %s (harness %s has:", err, h->name);
                for (unsigned k = 0; k < h->nops; k++)
                    fprintf(stderr, " %s", labels[k]);
                fputs(")\n", stderr);
                return EXIT_USAGE;
            }
            if (lu__too_many_orders(tests[0].len, tests[0].nthreads, err, sizeof err)) {
                fprintf(stderr, "lineup: --test: the test has %s\nTry 'lineup --help'.\n", err);
                return EXIT_USAGE;
            }
        } else {
            unsigned cap = o.shard_n ? o.samples / o.shard_n + 1 : o.samples;
            tests = lu__alloc_run(cap, sizeof *tests, "the tests (--samples)");
            sample = lu__alloc_run(cap, sizeof *sample, "the tests (--samples)");
            uint64_t rng = o.seed;
            struct lu_drv_test t;
            for (unsigned i = 0; i < o.samples; i++) {
                lu__draw(&rng, o.threads, o.calls, h->nops, &t);
                if (o.shard_n && i % o.shard_n != o.shard_k - 1)
                    continue;
                tests[ntests] = t;
                sample[ntests++] = i;
            }
        }
        printf("lineup %s: harness %s (%s), %s", LINEUP_VERSION, h->name, o.path,
               o.test ? "one explicit test" : "random tests");
        if (!o.test || draws) /* nothing is drawn otherwise */
            printf(", seed %" PRIu64, o.seed);
        printf(", %s", lu_drv_strategy_text(o.strategy));
        if (randomized)
            printf(", %" PRIu64 " executions per test", o.max_executions);
        if (o.strategy == LU_DRV_S_PCT)
            printf(", depth %d", o.depth);
        if (o.strategy == LU_DRV_S_RANDOM || !randomized)
            printf(", %s bound %d", o.strategy == LU_DRV_S_IDB ? "delay" : "preemption", o.preemptions);
        if (mixed)
            printf(", then partial order sampling if half of the budget runs out");
        printf("\n");
        if (!o.test) {
            printf("  %u samples of %ux%u matrices over %u operations", o.samples, o.threads, o.calls,
                   h->nops);
            if (o.shard_n)
                printf("; shard %u/%u checks samples %u, %u, ... (%u tests)", o.shard_k, o.shard_n, o.shard_k,
                       o.shard_k + o.shard_n, ntests);
            printf("\n");
        }
        fflush(stdout);

        /* Fewer tests than jobs: the idle cores split each test's search. */
        unsigned explorers = ntests && ntests < o.jobs ? o.jobs / ntests : 1;
        struct lu__res *res = lu__alloc_run(ntests, sizeof *res, "the tests' results (--samples)");
        struct lu_drv_job *jobs = lu__alloc_run(ntests, sizeof *jobs, "the tests' jobs (--samples)");
        for (unsigned i = 0; i < ntests; i++) {
            struct lu_drv_job *j = &jobs[i];
            snprintf(j->harness_path, sizeof j->harness_path, "%s", o.path);
            snprintf(j->harness_name, sizeof j->harness_name, "%s", h->name);
            j->test = tests[i];
            j->preemptions = o.preemptions;
            j->max_executions = o.max_executions;
            j->spin_bound = o.spin_bound;
            j->watchdog_ms = o.watchdog_ms;
            j->strategy = o.strategy;
            j->pct_depth = o.depth;
            j->por = o.reduction;
            j->tls = o.tls;
            j->seed = lu__test_seed(o.seed, sample[i]);
            j->explorers = explorers;
            j->recycle_every = o.recycle_every;
            j->max_serial = o.max_serial;
            j->recycle_mb = o.recycle_mb;
            j->heap_cap_mb = o.heap_cap_mb;
            j->cache_mb = o.cache_mb;
            j->jobs = o.jobs;
        }
        bool *finished = lu__alloc_run(ntests, sizeof *finished, "the tests (--samples)");
        unsigned next = 0, running = 0, done = 0, timeouts = 0;
        /* A harness whose calls block outside lineup's control blocks in
         * most tests, and each costs --timeout: after --max-timeouts of
         * them no more tests are started (the running ones finish). */
        bool stop_starting = false;
        /* The tests of a matrix have the same shape: when one needs more
         * serial executions than phase 1's limit (calls that start threads),
         * most do, and each takes the better part of a minute to find out. */
        int phase1_stop = -1;                        /* the sample that hit the limit */
        memset(&lu__stopped, 0, sizeof lu__stopped); /* not the runs of an earlier minimization */
        while (!lu_drv_interrupted && (running > 0 || (!stop_starting && next < ntests))) {
            while (running < o.jobs && next < ntests && !stop_starting) {
                for (unsigned s = 0; s < lu__nslots; s++) {
                    if (lu__slots[s].pid == 0) {
                        lu__start(&lu__slots[s], &jobs[next], NULL, (int)next);
                        next++;
                        running++;
                        break;
                    }
                }
            }
            struct lu__res r;
            struct lu__slot *sl = lu__wait_any(&r);
            if (!sl)
                break;
            running--;
            done++;
            res[sl->index] = r;
            finished[sl->index] = true;
            tt.ex1 += r.ex1;
            tt.ex2 += r.ex2;
            tt.histories += r.histories;
            tt.serial += r.serial_full + r.serial_stuck;
            tt.spec_checks += r.spec_checks;
            tt.checks += r.checks;
            tt.stuck += r.stuck;
            tt.cut += r.cut;
            tt.sampled += r.sampled;
            tt.recycles += r.recycles;
            if (r.explorers > tt.max_explorers)
                tt.max_explorers = r.explorers;
            if (lu__res_find(&r, LU_DRV_V_TIMEOUT) && ++timeouts == o.max_timeouts)
                stop_starting = true;
            if (r.phase1_over && phase1_stop < 0) {
                phase1_stop = sl->index;
                stop_starting = true;
            }
            /* a test that only timed out was not checked: not failed */
            if (r.verdict == LU_DRV_V_TIMEOUT)
                tt.inconclusive++;
            else if (r.verdict != LU_DRV_V_PASS && lu_drv_verdict_exit(r.verdict) != EXIT_BUG)
                tt.errors++; /* not checked either: a harness error, an unsupported call */
            else if (r.verdict != LU_DRV_V_PASS)
                tt.failed++;
            else if (r.truncated) {
                if (!tt.truncated || r.complete_bound < tt.min_complete)
                    tt.min_complete = r.complete_bound;
                tt.truncated++;
            }
            lu__progress(&o, done, ntests, &tt, t0);
        }
        if (lu_drv_interrupted) {
            /* the loop can end on the signal with tests under way */
            lu__stop_running();
            tt.ex1 += lu__stopped.ex1;
            tt.ex2 += lu__stopped.ex2;
            tt.serial += lu__stopped.serial;
            tt.spec_checks += lu__stopped.spec_checks;
            tt.histories += lu__stopped.histories;
            tt.checks += lu__stopped.checks;
            tt.stuck += lu__stopped.stuck;
            tt.cut += lu__stopped.cut;
            tt.sampled += lu__stopped.sampled;
            tt.stopped += lu__stopped.tests;
            tt.stopped_in_phase1 += lu__stopped.in_phase1;
            tt.not_run += ntests - done - lu__stopped.tests;
            memset(&lu__stopped, 0, sizeof lu__stopped);
            if (!o.quiet && isatty(STDERR_FILENO))
                fputs("\n", stderr);
            printf("\ninterrupted (%s): %u of %u tests of harness %s finished; reporting those\n",
                   strsignal(lu_drv_interrupted), done, ntests, h->name);
            tt.interrupted = true;
        }
        if (stop_starting && next < ntests && !lu_drv_interrupted && phase1_stop >= 0) {
            printf("\nstopped: phase 1 of harness %s's sample %u needed more than %u serial executions: "
                   "the other %u test%s of this matrix %s not run; use a smaller matrix\n",
                   h->name, sample[phase1_stop] + 1, (unsigned)o.max_serial, ntests - next,
                   ntests - next == 1 ? "" : "s", ntests - next == 1 ? "was" : "were");
            tt.phase1_stops++;
            tt.not_run += ntests - next;
        } else if (stop_starting && next < ntests && !lu_drv_interrupted) {
            printf("\nstopped: %u test%s of harness %s timed out (--max-timeouts %u), each after --timeout "
                   "%u s: "
                   "the other %u test%s not run. Calls that block outside lineup's control block in "
                   "most tests; raise --timeout if the code is only slow, or --max-timeouts (0: no limit) "
                   "to run them all\n",
                   timeouts, timeouts == 1 ? "" : "s", h->name, o.max_timeouts, o.timeout, ntests - next,
                   ntests - next == 1 ? " was" : "s were");
            tt.timeout_stops++;
            tt.not_run += ntests - next;
        }
        tt.tests += done;

        /* reports: minimized, one per distinct (kind, test) */
        char **seen = NULL, **seen_test = NULL;
        unsigned nseen = 0;
        unsigned reports_of[LU_DRV_V_COUNT] = {0}, unreported[LU_DRV_V_COUNT] = {0};
        if (json)
            fprintf(json, "%s{\"name\": ", hi ? ", " : "");
        if (json) {
            lu_drv_json_str(json, h->name);
            fputs(", \"tests\": [", json);
        }
        bool first_json = true;
        /* invocations, over the tests whose phase 1 ran in full */
        uint64_t called = 0, returned = 0, followed = 0, bounded = 0;
        for (unsigned i = 0; i < ntests; i++) {
            if (!finished[i])
                continue;
            struct lu__res *r = &res[i];
            if (r->phase1_done) {
                called |= r->called_cells;
                returned |= r->returned_cells;
                bounded |= r->bounded_cells;
                followed |= r->followed_cells & r->called_cells;
            }
            /* a test with findings of two kinds counts under each, so that
             * the summary's lines match its FAIL blocks */
            unsigned kinds = 1u << (r->verdict < LU_DRV_V_COUNT ? r->verdict : LU_DRV_V_INTERNAL);
            for (unsigned fi = 0; fi < r->nf; fi++)
                kinds |= 1u << (r->f[fi].verdict < LU_DRV_V_COUNT ? r->f[fi].verdict : LU_DRV_V_INTERNAL);
            for (int v = 0; v < LU_DRV_V_COUNT; v++)
                tt.by_verdict[v] += kinds >> v & 1;
            for (unsigned fi = 0; fi <= r->nf; fi++) {
                int v = fi < r->nf ? r->f[fi].verdict : r->verdict;
                int oc = lu_drv_outcome_of(lu_drv_verdict_exit(v), v == LU_DRV_V_TIMEOUT);
                if (oc > tt.outcome)
                    tt.outcome = oc;
            }
            struct lu_hist_buf tb;
            lu_hist_buf_init(&tb);
            lu_drv_test_format(&tb, &tests[i], labels);
            if (json) {
                fprintf(json, "%s{\"sample\": %u, \"test\": ", first_json ? "" : ", ", sample[i] + 1);
                first_json = false;
                lu_drv_json_str(json, tb.s);
                fprintf(json,
                        ", \"verdict\": \"%s\", \"phase1_executions\": %" PRIu64
                        ", \"phase2_executions\": %" PRIu64 ", \"histories\": %" PRIu64
                        ", \"serial_histories\": %" PRIu64 ", \"stuck_serial_histories\": %" PRIu64,
                        lu__vids[r->verdict < LU_DRV_V_COUNT ? r->verdict : LU_DRV_V_INTERNAL], r->ex1,
                        r->ex2, r->histories, r->serial_full, r->serial_stuck);
                lu__json_counts(json, r);
                if (r->verdict == LU_DRV_V_PASS && !randomized)
                    fprintf(json, ", \"complete_bound\": %d, \"truncated\": %s", r->complete_bound,
                            r->truncated ? "true" : "false");
                if (mixed)
                    fprintf(json, ", \"sampled_executions\": %" PRIu64, r->sampled);
                /* the set of distinct phase-2 histories in 64 bits (sum of
                 * their hashes): runs that explore the same set agree */
                fprintf(json, ", \"histories_digest\": \"%016" PRIx64 "\"", r->digest);
                fprintf(json, ", \"seconds\": %.3f", r->secs);
            }
            if (r->verdict != LU_DRV_V_PASS) {
                if (json)
                    fputs(", \"findings\": [", json);
                /* findings past --max-reports are left out: the separator
                 * goes by what was written, not by the index */
                bool first_f = true;
                for (unsigned fi = 0; fi < r->nf; fi++) {
                    int kind = r->f[fi].verdict;
                    if (o.max_reports && reports_of[kind] >= o.max_reports) {
                        unreported[kind]++;
                        /* still in the JSON, unminimized, so that its tests
                         * add up to the summary's counts (and shards' files
                         * merge into one run's) */
                        if (json) {
                            fprintf(json,
                                    "%s{\"verdict\": \"%s\", \"minimized\": null, \"reported\": false, "
                                    "\"report\": ",
                                    first_f ? "" : ", ", lu__vids[kind]);
                            lu_drv_json_str(json, r->f[fi].report ? r->f[fi].report : "");
                            fputs("}", json);
                            first_f = false;
                        }
                        continue;
                    }
                    reports_of[kind]++;
                    struct lu_drv_job mj = jobs[i];
                    mj.explorers = 1;
                    /* a randomized strategy draws a test's schedules from
                     * --seed and its sample number; smaller tests are run
                     * with the schedules --test draws from the same seed,
                     * so that 'lineup --test MINIMIZED' with the same
                     * options fails again */
                    if (draws)
                        mj.seed = lu__test_seed(o.seed, 0);
                    /* minimize a copy that holds just this finding */
                    struct lu__res mr;
                    memset(&mr, 0, sizeof mr);
                    mr.phase = r->phase;
                    lu__add_finding(&mr, kind, r->f[fi].report, r->f[fi].sched, r->f[fi].sched_len,
                                    r->f[fi].hist);
                    unsigned runs = 0;
                    bool cut = false, incomplete = false;
                    bool minimizable = !o.no_minimize && lu_drv_verdict_exit(kind) == EXIT_BUG;
                    /* a timeout was not minimized: say so */
                    bool unminimized = !o.no_minimize && !lu_drv_interrupted && kind == LU_DRV_V_TIMEOUT;
                    bool minimize = minimizable && !lu_drv_interrupted;
                    if (lu__bug_per_place(kind)) {
                        /* the same place as a report above: nothing to minimize */
                        struct lu_hist_buf k0;
                        lu_hist_buf_init(&k0);
                        lu__finding_key(&k0, kind, r->f[fi].report, NULL, labels);
                        for (unsigned q = 0; q < nseen && k0.s; q++)
                            if (strcmp(seen[q], k0.s) == 0)
                                minimize = minimizable = false;
                        lu_hist_buf_free(&k0);
                    }
                    if (minimize)
                        runs = lu__minimize(&mj, kind, &mr, &cut, &incomplete, labels);
                    /* a signal during it, or before it began */
                    bool min_stopped = minimizable && lu_drv_interrupted;
                    tt.minimize_interrupted |= minimize && lu_drv_interrupted; /* during this one */
                    struct lu__finding *mf = lu__res_find(&mr, kind);
                    struct lu_hist_buf key, mt;
                    lu_hist_buf_init(&key);
                    lu_hist_buf_init(&mt);
                    lu_drv_test_format(&mt, &mj.test, labels);
                    lu__finding_key(&key, kind, mf ? mf->report : NULL, &mj.test, labels);
                    bool dup = false;
                    const char *as = NULL; /* the test reported above, when in another order */
                    for (unsigned q = 0; q < nseen; q++)
                        if (strcmp(seen[q], key.s) == 0) {
                            dup = true;
                            if (strcmp(seen_test[q], mt.s) != 0)
                                as = seen_test[q];
                        }
                    char replay_path[PATH_MAX] = "";
                    if (dup) {
                        /* the same finding as a report above: say so, or
                         * the reports would not add up to the failures */
                        printf("\n%s harness %s: %s\n", lu__header(kind), h->name, lu_drv_verdict_name(kind));
                        printf("  found in sample %u: %s\n", sample[i] + 1, tb.s);
                        if (lu__bug_per_place(kind))
                            printf("  the same %s as reported above, at the same place\n",
                                   lu_drv_verdict_name(kind));
                        else if (runs && as)
                            printf("  minimized (%u runs) to: %s, reported above as %s (the same threads in "
                                   "another order)\n",
                                   runs, mt.s, as);
                        else if (runs)
                            printf("  minimized (%u runs) to: %s, reported above\n", runs, mt.s);
                        else if (as)
                            printf("  the same test as reported above as %s (the same threads in another "
                                   "order)\n",
                                   as);
                        else
                            printf("  the same test as reported above\n");
                    } else {
                        seen = realloc(seen, (nseen + 1) * sizeof *seen);
                        seen_test = realloc(seen_test, (nseen + 1) * sizeof *seen_test);
                        seen_test[nseen] = strdup(mt.s);
                        seen[nseen++] = strdup(key.s);
                        printf("\n%s harness %s: %s\n", lu__header(kind), h->name, lu_drv_verdict_name(kind));
                        if (o.test)
                            printf("  test: %s\n", tb.s);
                        else
                            printf("  found in sample %u: %s\n", sample[i] + 1, tb.s);
                        if (runs && strcmp(mt.s, tb.s) != 0)
                            printf("  minimized (%u runs) to: %s\n", runs, mt.s);
                        else if (runs && !cut && !min_stopped && randomized)
                            /* sampled: a smaller test may fail in schedules
                             * its budget did not draw */
                            printf("  not minimized: no smaller test failed in its %" PRIu64
                                   " sampled schedules (%u tried)\n",
                                   o.max_executions, runs);
                        else if (runs && !cut && !min_stopped && incomplete)
                            /* a smaller test's budget ran out before its
                             * search was complete */
                            printf("  not minimized: no smaller test failed within its budget of %" PRIu64
                                   " executions (%u tried)\n",
                                   o.max_executions, runs);
                        else if (runs && !cut && !min_stopped)
                            printf(
                                "  already minimal: no test with a thread or a call fewer fails this way (%u "
                                "tried)\n",
                                runs);
                        if (min_stopped && runs)
                            printf("  minimization stopped after %u run%s: lineup was interrupted\n", runs,
                                   runs == 1 ? "" : "s");
                        else if (min_stopped)
                            printf("  not minimized: lineup was interrupted\n");
                        else if (cut)
                            printf(
                                "  minimization stopped after %u run%s: a smaller test timed out, and each "
                                "would wait --timeout\n",
                                runs, runs == 1 ? "" : "s");
                        else if (unminimized)
                            printf("  not minimized: each attempt would wait --timeout\n");
                        printf("\n%s", mf && mf->report ? mf->report : "");
                        int fphase = kind == LU_DRV_V_VIOLATION || kind == LU_DRV_V_STUCK ? 2 : mr.phase;
                        bool want = mf && mf->sched_len && fphase > 0 && lu__replayable(kind);
                        char how[96];
                        const char *unreplayed = want && !(kind == LU_DRV_V_NONDET && fphase == 1)
                                                     ? lu__verify_replay(&mj, mf, how, sizeof how)
                                                     : NULL;
                        if (unreplayed) {
                            /* a file that does not fail is no replay */
                            want = false;
                            printf("replay: none; this failure's schedule, replayed in a fresh process, %s: "
                                   "the failure depends on what earlier executions in the same process left "
                                   "behind (static or global variables that create() does not reset, which "
                                   "make the object nondeterministic, or state such as rand()'s seed that "
                                   "decides where the bug shows). Reset that state in create() to make it "
                                   "replayable.\n",
                                   unreplayed);
                        } else if (want && kind == LU_DRV_V_NONDET && fphase == 1) {
                            /* two serial executions disagreed: one schedule
                             * replays one of them, which fails nothing */
                            want = false;
                            printf("replay: none; phase 1 compares two executions, so check the test again: "
                                   "lineup --harness %s --test %s %s\n",
                                   h->name, lu_drv_shell_word(mt.s), lu_drv_shell_word(o.path));
                        }
                        if (want &&
                            lu__write_replay(o.replay_dir, o.path, h, &mj.test, mf, fphase, o.preemptions,
                                             o.strategy, o.spin_bound, o.watchdog_ms, o.timeout,
                                             !(ins & LU__INS_TSAN), o.tls, seed_in_replay ? &o.seed : NULL,
                                             replay_path, sizeof replay_path) == 0) {
                            printf("replay: lineup --replay %s\n", lu_drv_shell_word(replay_path));
                        } else {
                            if (want) {
                                int e = errno;
                                fflush(stdout);
                                fprintf(stderr, "lineup: cannot write replay file %s: %s\n",
                                        replay_path[0] ? replay_path : o.replay_dir, strerror(e));
                            }
                            replay_path[0] = 0;
                        }
                    }
                    if (json) {
                        fprintf(json, "%s{\"verdict\": \"%s\", \"minimized\": ", first_f ? "" : ", ",
                                lu__vids[kind]);
                        first_f = false;
                        /* null where no minimization ran (--no-minimize, a
                         * timeout, a place reported above): the test's own
                         * "test" is what failed */
                        if (runs)
                            lu_drv_json_str(json, mt.s);
                        else
                            fputs("null", json);
                        fputs(", \"report\": ", json);
                        lu_drv_json_str(json, mf ? mf->report : "");
                        if (replay_path[0]) {
                            fputs(", \"replay\": ", json);
                            lu_drv_json_str(json, replay_path);
                        }
                        fputs("}", json);
                    }
                    lu_hist_buf_free(&key);
                    lu_hist_buf_free(&mt);
                    lu__res_free(&mr);
                }
                if (json)
                    fputs("]", json);
            }
            if (json)
                fputs("}", json);
            lu_hist_buf_free(&tb);
            lu__res_free(r);
        }
        if (json)
            fputs("]}", json);
        for (int v = 0; v < LU_DRV_V_COUNT; v++)
            if (unreported[v])
                /* a timeout or an error of the check is no failure of the code */
                printf("\n(%u more test%s of harness %s %s: %s; not minimized or reported: "
                       "see --max-reports)\n",
                       unreported[v], unreported[v] == 1 ? "" : "s", h->name,
                       lu_drv_verdict_exit(v) == EXIT_BUG ? "failed with" : "ended with",
                       lu_drv_verdict_name(v));
        for (unsigned k = 0; k < h->nops && k < 64; k++)
            if ((called & ~returned) >> k & 1) {
                printf(
                    "\nnote: harness %s: %s never returned in a serial execution of any test that called it "
                    "(phase 1): it blocks or spins whatever calls run before it%s. If it should return, add "
                    "the operation it waits for, or a LINEUP_SETUP sequence that lets it. Calls that return "
                    "only while others run (a barrier, an exchanger) have no serial behaviour to check "
                    "against: test such an object as a whole program with lineup run.\n",
                    h->name, labels[k],
                    followed >> k & 1 ? ", so the calls after it in its thread were never checked" : "");
                if (bounded >> k & 1)
                    printf("  It was taken for stuck while the object's own threads still ran: after they "
                           "made %" PRIu32 " looks (yields, sleeps, re-reads) with nothing else going on. "
                           "If they wake it after more, raise --spin-bound.\n",
                           o.spin_bound);
            }
        for (unsigned s = 0; s < nseen; s++) {
            free(seen[s]);
            free(seen_test[s]);
        }
        free(seen);
        free(seen_test);
        free(res);
        free(finished);
        free(jobs);
        free(tests);
        free(sample);
    }
    /* a signal after the harness's tests ended (while its failures were
     * minimized): the same interruption, and the harnesses after it were
     * not run */
    if (lu_drv_interrupted) {
        tt.interrupted = true;
        unsigned per = 1;
        if (!o.test)
            per = !o.shard_n               ? o.samples
                  : o.samples >= o.shard_k ? (o.samples - o.shard_k) / o.shard_n + 1
                                           : 0;
        tt.not_run += (nh - hi) * per;
    }
    double el = lu_drv_now() - t0;
    unsigned passed = tt.tests - tt.failed - tt.inconclusive - tt.errors;
    if (lu_drv_stray_sig) {
        printf("\n");
        lu_drv_note_stray(stdout);
    }
    printf("\nsummary: %u test%s, %u passed, %u failed", tt.tests, tt.tests == 1 ? "" : "s", passed,
           tt.failed);
    if (tt.inconclusive)
        printf(", %u inconclusive", tt.inconclusive);
    if (tt.errors)
        printf(", %u not checked (error)", tt.errors);
    printf(" in %.2f s\n", el);
#define LU__S(n) ((n) == 1 ? "" : "s")
    printf("  phase 1: %" PRIu64 " serial execution%s, %" PRIu64 " distinct serial histor%s, %" PRIu64
           " determinism check%s\n",
           tt.ex1, LU__S(tt.ex1), tt.serial, tt.serial == 1 ? "y" : "ies", tt.spec_checks,
           LU__S(tt.spec_checks));
    char sampled[64] = "";
    if (tt.sampled)
        snprintf(sampled, sizeof sampled, " (%" PRIu64 " sampled by POS)", tt.sampled);
    printf("  phase 2 (%s): %" PRIu64 " execution%s%s, %" PRIu64 " distinct histor%s, %" PRIu64
           " linearizability check%s\n",
           lu_drv_strategy_id(o.strategy), tt.ex2, LU__S(tt.ex2), sampled, tt.histories,
           tt.histories == 1 ? "y" : "ies", tt.checks, LU__S(tt.checks));
#undef LU__S
    if (tt.cut)
        printf("  phase 2 reduction: %" PRIu64 " of the executions were cut short as redundant\n", tt.cut);
    if (tt.max_explorers > 1)
        printf("  phase 2 of each test was split among %u worker processes\n", tt.max_explorers);
    if (randomized)
        printf("  phase 2 coverage: %" PRIu64 " sampled schedules per test (%s, seed %" PRIu64
               "); no bound is covered completely\n",
               o.max_executions, lu_drv_strategy_text(o.strategy), o.seed);
    else if (tt.truncated && mixed) {
        /* the default's systematic part ran out of its share, and POS
         * sampled the rest of the budget in each of those tests */
        uint64_t sys = lu_drv_default_systematic(o.max_executions);
        printf("  phase 2 coverage: in %u passing test%s iterative bounding's share of the budget (%" PRIu64
               " of %" PRIu64 " executions) ran out",
               tt.truncated, tt.truncated == 1 ? "" : "s", sys, o.max_executions);
        if (tt.min_complete < 0)
            printf(" before any bound was covered completely");
        else
            printf("; every schedule with at most %d %s was covered", tt.min_complete,
                   lu__bound_unit(o.strategy, tt.min_complete));
        printf(", then %" PRIu64 " schedule%s sampled (%s, seed %" PRIu64
               "; raise --max-executions for more)\n",
               o.max_executions - sys, o.max_executions - sys == 1 ? " was" : "s were",
               lu_drv_strategy_text(LU_DRV_S_POS), o.seed);
    } else if (tt.truncated && tt.min_complete < 0)
        /* the advice: under ipb, a test still at bound 0, which phase 1
         * could not stand for (a call blocks or waits in a serial
         * execution), ran no preemption at all (docs/guide.md, section 5) */
        printf(
            "  phase 2 coverage: in %u passing test%s the budget of %" PRIu64 " executions ran out before "
            "any bound was covered completely (%s)\n",
            tt.truncated, tt.truncated == 1 ? "" : "s", o.max_executions,
            o.strategy == LU_DRV_S_IPB
                ? "in the worst, only schedules without preemptions ran: raise --max-executions, or sample "
                  "schedules with preemptions with --strategy pos"
                : "raise --max-executions");
    else if (tt.truncated)
        printf("  phase 2 coverage: in %u passing test%s the budget of %" PRIu64 " executions ran out; every "
               "schedule with at most %d %s was covered (raise --max-executions for more)\n",
               tt.truncated, tt.truncated == 1 ? "" : "s", o.max_executions, tt.min_complete,
               lu__bound_unit(o.strategy, tt.min_complete));
    else if (passed && o.preemptions < 0)
        printf("  phase 2 coverage: every schedule in every passing test\n");
    else if (passed)
        printf("  phase 2 coverage: every schedule with at most %d %s in every passing test\n", o.preemptions,
               lu__bound_unit(o.strategy, o.preemptions));
    if (passed)
        /* a coverage claim holds for what lineup schedules: a lock that
         * protects nothing around a plain field passes (lineup run says
         * the same) */
        printf(
            "  (schedules differ at atomic, volatile and pthread operations; plain memory accesses are not "
            "scheduling points, so a race on a plain field can hide a failure: make shared fields atomic "
            "or volatile to have them checked)\n");
    for (int v = 0; v < LU_DRV_V_COUNT; v++)
        if (tt.by_verdict[v])
            printf("  %s: %u\n", lu_drv_verdict_name(v), tt.by_verdict[v]);
    if (tt.timeout_stops && !tt.phase1_stops && !tt.interrupted)
        printf("  not run: %u test%s, after --max-timeouts tests timed out\n", tt.not_run,
               tt.not_run == 1 ? "" : "s");
    else if ((tt.timeout_stops || tt.phase1_stops) && !tt.interrupted)
        printf("  not run: %u test%s, after %s\n", tt.not_run, tt.not_run == 1 ? "" : "s",
               !tt.timeout_stops ? "a test needed more serial executions than phase 1's limit"
                                 : "tests timed out or needed more serial executions than phase 1's limit");
    if (tt.interrupted) {
        printf("  interrupted:");
        if (tt.minimize_interrupted)
            printf(" while failing tests were minimized (the reports say which)%s",
                   tt.stopped || tt.not_run ? ";" : "");
        else if (!tt.stopped && !tt.not_run)
            printf(" after the tests ended");
        if (tt.stopped)
            printf(" %u test%s stopped unfinished (%u in phase 1): what %s ran is counted above, %s "
                   "findings are not%s",
                   tt.stopped, tt.stopped == 1 ? " was" : "s were", tt.stopped_in_phase1,
                   tt.stopped == 1 ? "it" : "they", tt.stopped == 1 ? "its" : "their", tt.not_run ? ";" : "");
        if (tt.not_run)
            printf(" %u test%s not run", tt.not_run, tt.not_run == 1 ? " was" : "s were");
        printf("\n");
    }
    printf("verdict: %s\n",
           lu_drv_outcome_verdict(tt.outcome, tt.interrupted ? "INTERRUPTED (no failure so far)" : "PASS"));
    int exit_code = lu_drv_outcome_exit(tt.outcome);
    if (json) {
        /* an interrupted run dies of the signal, as a shell sees it */
        int json_exit = tt.interrupted ? 128 + lu_drv_interrupted : exit_code;
        fprintf(json,
                "], \"summary\": {\"tests\": %u, \"failed\": %u, \"inconclusive\": %u, \"errors\": %u, "
                "\"seconds\": %.3f, "
                "\"exit\": %d"
                ", \"phase1\": {\"executions\": %" PRIu64 ", \"histories\": %" PRIu64 ", \"checks\": %" PRIu64
                "}, \"phase2\": {\"executions\": %" PRIu64 ", \"histories\": %" PRIu64
                ", \"checks\": %" PRIu64 ", \"stuck_executions\": %" PRIu64 ", \"cut_executions\": %" PRIu64
                ", \"restarts\": %" PRIu64 ", \"sampled_executions\": %" PRIu64
                "}, \"interrupted\": %s, \"stopped_tests\": %u, \"not_run\": %u, \"verdicts\": {",
                tt.tests, tt.failed, tt.inconclusive, tt.errors, el, json_exit, tt.ex1, tt.serial,
                tt.spec_checks, tt.ex2, tt.histories, tt.checks, tt.stuck, tt.cut, tt.recycles, tt.sampled,
                tt.interrupted ? "true" : "false", tt.stopped, tt.not_run);
        /* the report's lines per kind: a test with findings of two kinds
         * counts under each */
        for (int v = 0; v < LU_DRV_V_COUNT; v++)
            fprintf(json, "%s\"%s\": %u", v ? ", " : "", lu__vids[v], tt.by_verdict[v]);
        fputs("}}}\n", json);
        if (lu_drv_json_finish("lineup", &o.json))
            return EXIT_INTERNAL;
    }
    if (tt.interrupted) {
        lu_drv_die_interrupted();
    }
    return exit_code;
}
