/*
 * `lineup run [options] -- PROGRAM [ARGS...]`: a stateless model checker
 * for whole pthread programs built with lineup-cc. This process never runs
 * code under test: it starts PROGRAM with LINEUP_RUN set, whose liblineup.so
 * becomes a fork server that runs one execution per child (see
 * lu_rt_verifier.c and lu_drv_run.h), and turns what the server reports
 * into reports, replay files and a summary. docs/run.md is the user's page.
 */
#define _GNU_SOURCE
#include "lu_drv.h"
#include "lu_drv_run.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef LINEUP_VERSION
#define LINEUP_VERSION "0.1.0"
#endif

enum { EXIT_PASS = 0, EXIT_BUG = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 3 };

#define LU__DEFAULT_BUDGET 10000
#define LU__DEFAULT_STEPS 65536

struct lu__ropts {
    int strategy;
    int preemptions;
    bool pre_set;
    int depth;
    uint64_t budget_execs, budget_ms;
    uint64_t seed;
    bool seed_set;
    bool all, races, quiet, allow_uninstrumented;
    bool reduction;
    bool races_set;
    bool expect_set;
    int expect;
    int nondet_range;
    bool nondet_set;
    uint32_t max_steps;
    bool steps_set;
    uint32_t timeout_ms;
    bool timeout_set;
    uint32_t max_timeouts;
    bool watchdog_set;
    uint32_t spin_bound, watchdog_ms;
    bool spin_set;
    int tls; /* enum lu_sched_tls */
    bool tls_set;
    unsigned jobs;
    uint32_t cache_mb; /* LINEUP_PC_MB */
    const char *replay;
    const char *replay_dir;
    struct lu_drv_json json;
    char **argv; /* PROGRAM ARGS..., NULL-terminated */
    int argc;
};

static void lu__usage(FILE *f)
{
    fprintf(
        f,
        "usage: lineup run [options] -- PROGRAM [ARGS...]\n"
        "       lineup run --replay FILE [-- PROGRAM [ARGS...]]\n"
        "\n"
        "Runs PROGRAM (built with lineup-cc) many times under lineup's scheduler, from main on,\n"
        "exploring thread interleavings and __VERIFIER_nondet_* values, and reports the first\n"
        "failing execution: assertion failure or abort, reach_error(), crash, deadlock, livelock,\n"
        "divergence, a data race (--races), an unexpected exit status (--expect-exit).\n"
        "\n"
        "options:\n"
        "  --strategy S        dfs, ipb, idb, random, pct, pos or default (default: default, a short\n"
        "                      exhaustive pass at preemption bounds 0 to 2, unbounded when they\n"
        "                      cut little, then PCT, POS and random walks)\n"
        "  --preemptions P     dfs: the preemption bound (default 2; -1 unbounded); ipb/idb: the\n"
        "                      largest bound to try (default: no limit); default: the last bound\n"
        "                      of its exhaustive pass (default 2)\n"
        "  --depth D           pct: the bug depth (default 3; only with --strategy pct)\n"
        "  --reduction on|off  partial-order reduction in the exhaustive search (dfs, ipb and the\n"
        "                      first half of default; default on): schedules that only reorder\n"
        "                      independent steps of an explored one are skipped or cut short\n"
        "  --budget N|Ns       executions (default %d), or seconds with 's' (also 'm' minutes);\n"
        "                      0: none (dfs, ipb and idb only)\n"
        "  --seed S            seed of default, random, pct and pos (default: from the clock;\n"
        "                      printed); dfs, ipb and idb draw nothing and refuse it\n"
        "  --jobs N            executions run at once, each in its process (default 1; at most\n"
        "                      %d): the exhaustive search splits its schedule tree, the samplers\n"
        "                      draw in parallel; which failing execution is found first may differ\n"
        "  --all               report every distinct failure, not just the first\n"
        "  --max-timeouts N    with --all: stop after N executions timed out (default 3; 0: no\n"
        "                      limit); without --all the first one stops the search\n"
        "  --expect-exit N     an exit status other than N is a failure (without it, a non-zero\n"
        "                      status is only noted)\n"
        "  --races             report data races on plain memory (happens-before)\n"
        "  --nondet-range N    __VERIFIER_nondet_* values: 0..N-1, and -1 for signed types (default 4)\n"
        "  --max-steps N       scheduling choices per execution before it counts as too long\n"
        "                      (default %d)\n"
        "  --timeout SEC       wall-clock limit of one execution (default 30; 0: none): one that\n"
        "                      does not end in time blocked outside lineup's control\n"
        "  --spin-bound N      spinning steps before a livelock is declared (1 to 100000000, default 1000)\n"
        "  --watchdog-ms MS    CPU time without a scheduling point that counts as divergence\n"
        "                      (1 to 3600000, default 1000)\n"
        "  --tls auto|per-thread|shared  the threads' TLS (default auto: shared unless some code has\n"
        "                      thread-local variables; see docs/architecture.md)\n"
        "  --replay FILE       re-run a reported execution deterministically and show it; --strategy,\n"
        "                      --preemptions, --depth, --reduction, --budget, --seed, --jobs, --all,\n"
        "                      --max-timeouts, --replay-dir and --json do nothing there and are\n"
        "                      rejected\n"
        "  --replay-dir DIR    where to write replay files (an existing directory; default .)\n"
        "  --json FILE         write the verdict, counts, coverage and findings as one JSON object\n"
        "                      (FILE is replaced at the end; '-': the JSON alone on standard output,\n"
        "                      the report on standard error)\n"
        "  --allow-uninstrumented  accept a program none of whose code was compiled by lineup-cc\n"
        "                      (or only by a plain -fsanitize=thread)\n"
        "  --quiet             no progress line\n"
        "  --help, --version\n"
        "\n"
        "exit status: 0 no failure found, 1 a failure was found, 2 usage error (also: an unsupported\n"
        "call, a --replay whose recorded schedule does not fit this program; and a timeout, which is no\n"
        "failure: lineup could not run the execution to its end), 3 internal error (also: standard\n"
        "output or the --json file could not be written, or lineup's own processes, threads or memory\n"
        "ran into a limit, which the message names). With --all, a failure found (1) outranks a\n"
        "timeout's 2.\n",
        LU__DEFAULT_BUDGET, LU_RUN_MAX_JOBS, LU__DEFAULT_STEPS);
}

static void lu__die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void lu__die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lu_drv_vdie_usage("lineup run", fmt, ap);
}

static uint64_t lu__u64(const char *opt, const char *v, uint64_t max)
{
    return lu_drv_parse_u64("lineup run", opt, v, max);
}

static int lu__strategy_parse(const char *v)
{
    static const struct {
        const char *name;
        int s;
    } t[] = {{"default", LU_RUN_DEFAULT}, {"dfs", LU_RUN_DFS}, {"ipb", LU_RUN_IPB}, {"idb", LU_RUN_IDB},
             {"random", LU_RUN_RANDOM},   {"pct", LU_RUN_PCT}, {"pos", LU_RUN_POS}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(v, t[i].name) == 0)
            return t[i].s;
    return -1;
}

static void lu__parse(int argc, char **argv, struct lu__ropts *o)
{
    enum {
        O_STRAT = 256,
        O_PRE,
        O_DEPTH,
        O_REDUCTION,
        O_BUDGET,
        O_SEED,
        O_ALL,
        O_EXPECT,
        O_RACES,
        O_NONDET,
        O_STEPS,
        O_TIMEOUT,
        O_SPIN,
        O_WD,
        O_REPLAY,
        O_RDIR,
        O_JSON,
        O_UNINSTR,
        O_QUIET,
        O_HELP,
        O_VERSION,
        O_MAXTO,
        O_TLS,
        O_JOBS
    };
    static const struct option lo[] = {
        {"strategy", required_argument, 0, O_STRAT},
        {"preemptions", required_argument, 0, O_PRE},
        {"depth", required_argument, 0, O_DEPTH},
        {"reduction", required_argument, 0, O_REDUCTION},
        {"budget", required_argument, 0, O_BUDGET},
        {"seed", required_argument, 0, O_SEED},
        {"all", no_argument, 0, O_ALL},
        {"expect-exit", required_argument, 0, O_EXPECT},
        {"races", no_argument, 0, O_RACES},
        {"nondet-range", required_argument, 0, O_NONDET},
        {"max-steps", required_argument, 0, O_STEPS},
        {"timeout", required_argument, 0, O_TIMEOUT},
        {"spin-bound", required_argument, 0, O_SPIN},
        {"watchdog-ms", required_argument, 0, O_WD},
        {"replay", required_argument, 0, O_REPLAY},
        {"replay-dir", required_argument, 0, O_RDIR},
        {"json", required_argument, 0, O_JSON},
        {"allow-uninstrumented", no_argument, 0, O_UNINSTR},
        {"quiet", no_argument, 0, O_QUIET},
        {"help", no_argument, 0, O_HELP},
        {"version", no_argument, 0, O_VERSION},
        {"max-timeouts", required_argument, 0, O_MAXTO},
        {"tls", required_argument, 0, O_TLS},
        {"jobs", required_argument, 0, O_JOBS},
        {0, 0, 0, 0},
    };
    memset(o, 0, sizeof *o);
    o->strategy = LU_RUN_DEFAULT;
    o->preemptions = -1;
    o->depth = 3;
    o->reduction = true;
    o->budget_execs = LU__DEFAULT_BUDGET;
    o->nondet_range = 4;
    o->max_steps = LU__DEFAULT_STEPS;
    o->timeout_ms = 30000;
    o->max_timeouts = 3;
    o->jobs = 1;
    o->spin_bound = 1000;
    o->watchdog_ms = 1000;
    o->replay_dir = ".";
    o->cache_mb = lu_drv_cache_mb("lineup run"); /* per round */
    bool budget_zero = false;
    optind = 0; /* a fresh scan: the Line-Up options were parsed before "run" */
    opterr = 0;
    int c;
    uint64_t given = 0; /* bit (option - O_STRAT) */
    while ((c = getopt_long(argc, argv, "+", lo, NULL)) != -1) {
        /* a second one would leave the first unwritten or unreplayed */
        if ((c == O_JSON || c == O_REPLAY) && c >= O_STRAT && (given >> (c - O_STRAT) & 1))
            lu__die_usage("%s given twice: lineup run takes one per run",
                          c == O_JSON ? "--json" : "--replay");
        if (c >= O_STRAT && c - O_STRAT < 64)
            given |= 1ull << (c - O_STRAT);
        switch (c) {
        case O_STRAT:
            o->strategy = lu__strategy_parse(optarg);
            if (o->strategy < 0)
                lu__die_usage("--strategy takes dfs, ipb, idb, random, pct, pos or default, not '%s'",
                              optarg);
            break;
        case O_PRE:
            o->pre_set = true;
            o->preemptions = lu_drv_parse_preemptions("lineup run", optarg);
            break;
        case O_DEPTH:
            o->depth = (int)lu__u64("--depth", optarg, 32);
            if (o->depth < 1)
                lu__die_usage("--depth must be at least 1");
            break;
        case O_REDUCTION:
            o->reduction = lu_drv_parse_onoff("lineup run", "--reduction", optarg);
            break;
        case O_TLS:
            o->tls = lu_drv_parse_tls("lineup run", optarg);
            o->tls_set = true;
            break;
        case O_BUDGET: {
            size_t n = strlen(optarg);
            char unit = n ? optarg[n - 1] : 0;
            if (unit == 's' || unit == 'm') {
                char num[32];
                if (n - 1 >= sizeof num || n < 2 || strspn(optarg, "0123456789") != n - 1)
                    lu__die_usage("--budget takes N (executions), Ns (seconds) or Nm (minutes), not '%s'",
                                  optarg);
                memcpy(num, optarg, n - 1);
                num[n - 1] = 0;
                uint64_t v = lu__u64("--budget", num, 1000000000);
                o->budget_ms = v * (unit == 's' ? 1000 : 60000);
                o->budget_execs = 0;
                budget_zero = v == 0;
            } else {
                o->budget_execs = lu__u64("--budget", optarg, UINT64_MAX);
                o->budget_ms = 0;
                budget_zero = o->budget_execs == 0;
            }
            break;
        }
        case O_SEED:
            o->seed = lu__u64("--seed", optarg, UINT64_MAX);
            o->seed_set = true;
            break;
        case O_ALL:
            o->all = true;
            break;
        case O_EXPECT:
            o->expect = (int)lu__u64("--expect-exit", optarg, 255);
            o->expect_set = true;
            break;
        case O_RACES:
            o->races = o->races_set = true;
            break;
        case O_NONDET:
            o->nondet_range = (int)lu__u64("--nondet-range", optarg, LU_RUN_NONDET_MAX);
            if (o->nondet_range < 1)
                lu__die_usage("--nondet-range must be at least 1");
            o->nondet_set = true;
            break;
        case O_STEPS:
            o->max_steps = (uint32_t)lu__u64("--max-steps", optarg, 1u << 24);
            if (o->max_steps < 16)
                lu__die_usage("--max-steps must be at least 16");
            o->steps_set = true;
            break;
        case O_TIMEOUT:
            o->timeout_ms = (uint32_t)lu__u64("--timeout", optarg, 86400) * 1000;
            o->timeout_set = true;
            break;
        case O_JOBS:
            o->jobs = (unsigned)lu__u64("--jobs", optarg, LU_RUN_MAX_JOBS);
            if (!o->jobs)
                lu__die_usage("--jobs must be at least 1");
            break;
        case O_MAXTO:
            o->max_timeouts = (uint32_t)lu__u64("--max-timeouts", optarg, 10000000);
            break;
        case O_SPIN:
            o->spin_bound = (uint32_t)lu__u64("--spin-bound", optarg, 100000000);
            if (!o->spin_bound)
                lu__die_usage("--spin-bound takes a whole number from 1 to 100000000, not '%s'", optarg);
            o->spin_set = true;
            break;
        case O_WD:
            o->watchdog_ms = (uint32_t)lu__u64("--watchdog-ms", optarg, 3600000);
            o->watchdog_set = true;
            if (!o->watchdog_ms)
                lu__die_usage("--watchdog-ms takes a whole number from 1 to 3600000, not '%s'", optarg);
            break;
        case O_REPLAY:
            if (!*optarg)
                lu__die_usage("--replay takes a file name, not an empty string");
            o->replay = optarg;
            break;
        case O_RDIR:
            lu_drv_check_dir("lineup run", "--replay-dir", optarg);
            o->replay_dir = optarg;
            break;
        case O_JSON:
            lu_drv_json_resolve("lineup run", optarg, &o->json);
            break;
        case O_UNINSTR:
            o->allow_uninstrumented = true;
            break;
        case O_QUIET:
            o->quiet = true;
            break;
        case O_HELP:
            lu__usage(stdout);
            exit(EXIT_PASS);
        case O_VERSION:
            printf("lineup %s\n", LINEUP_VERSION);
            exit(EXIT_PASS);
        default:
            /* getopt_long sets optopt to the option's value when only its
             * argument is missing, to 0 for an unknown option */
            if (optopt >= O_STRAT)
                lu__die_usage("option %s needs an argument", argv[optind - 1]);
            if (lu_drv_option_elsewhere(argv[optind - 1], true))
                lu__die_usage("unknown option '%s': %s", argv[optind - 1],
                              lu_drv_option_elsewhere(argv[optind - 1], true));
            lu__die_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    /* options that would change nothing: accepting them would let the user
     * believe they did */
    static const int replay_ignores[] = {O_STRAT, O_PRE,  O_DEPTH, O_REDUCTION, O_BUDGET, O_SEED,
                                         O_ALL,   O_RDIR, O_JSON,  O_MAXTO,     O_JOBS};
    for (size_t i = 0; o->replay && i < sizeof replay_ignores / sizeof replay_ignores[0]; i++)
        for (const struct option *l = lo; l->name; l++)
            if (l->val == replay_ignores[i] && (given & (1ull << (l->val - O_STRAT))))
                lu__die_usage(
                    "--%s has no effect with --replay, which re-runs the recorded execution "
                    "(--nondet-range, --spin-bound, --max-steps, --races, --expect-exit, --timeout, "
                    "--watchdog-ms and --tls apply)",
                    l->name);
    if (!o->replay && (given & (1ull << (O_MAXTO - O_STRAT))) && !o->all)
        lu__die_usage("--max-timeouts has no effect without --all: the first timeout stops the search");
    if ((given & (1ull << (O_DEPTH - O_STRAT))) && o->strategy != LU_RUN_PCT)
        lu__die_usage("--depth is the bug depth of --strategy pct");
    if (!o->replay && (given & (1ull << (O_REDUCTION - O_STRAT))) && o->strategy != LU_RUN_DEFAULT &&
        o->strategy != LU_RUN_DFS && o->strategy != LU_RUN_IPB)
        lu__die_usage("--reduction has no effect with --strategy %s: only default, dfs and ipb are reduced",
                      lu_drv_run_strategy_name(o->strategy));
    if (!o->replay && (given & (1ull << (O_PRE - O_STRAT))) &&
        (o->strategy == LU_RUN_RANDOM || o->strategy == LU_RUN_PCT || o->strategy == LU_RUN_POS))
        lu__die_usage("--preemptions has no effect with --strategy %s, which samples without a bound",
                      lu_drv_run_strategy_name(o->strategy));
    if (!o->replay && o->seed_set &&
        (o->strategy == LU_RUN_DFS || o->strategy == LU_RUN_IPB || o->strategy == LU_RUN_IDB))
        lu__die_usage(
            "--seed has no effect with --strategy %s, which draws nothing: it explores the schedules "
            "in order (--seed is for default, random, pct and pos)",
            lu_drv_run_strategy_name(o->strategy));
    if (budget_zero && o->strategy != LU_RUN_DFS && o->strategy != LU_RUN_IPB && o->strategy != LU_RUN_IDB)
        lu__die_usage("--budget 0 (none) needs --strategy dfs, ipb or idb: the others would never stop");
    if ((o->strategy == LU_RUN_DFS || o->strategy == LU_RUN_DEFAULT) && !o->pre_set)
        o->preemptions = 2; /* the default's exhaustive pass stops at 2 unless told */
    o->argc = argc - optind;
    o->argv = argv + optind;
    if (!o->argc && !o->replay)
        lu__die_usage("no program given: lineup run [options] -- PROGRAM [ARGS...]");
}

/* ---- the program ---- */

/* PROGRAM as execvp would find it. */
static bool lu__find(const char *name, char *out, size_t outlen)
{
    if (strchr(name, '/')) {
        snprintf(out, outlen, "%s", name);
        return true;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/bin:/usr/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        int w = snprintf(out, outlen, "%.*s%s%s", (int)n, path, n ? "/" : "", name);
        if (w > 0 && (size_t)w < outlen && access(out, X_OK) == 0)
            return true;
        path += n + (path[n] == ':');
    }
    /* not on PATH: a program in the current directory is what was meant */
    int w = snprintf(out, outlen, "./%s", name);
    return w > 0 && (size_t)w < outlen && access(out, F_OK) == 0;
}

struct lu__server {
    pid_t pid;
    int cmd, rep; /* our ends */
    int out;      /* the server process's own stdout and stderr */
    struct lu_run_shm *m;
    size_t size;
};

static int lu__memfd(const char *name)
{
    return (int)syscall(SYS_memfd_create, name, 1u /* MFD_CLOEXEC */);
}

/* SIGINT, SIGTERM, SIGHUP. While the search runs (lu_drv_graceful), the first
 * one only sets lu_drv_interrupted: the main loop forwards it to the server,
 * which cuts off the execution under way and finishes as usual, and what
 * was found is reported; then lineup dies of the signal. Otherwise (the
 * program's constructors, a replay), or again a second or more later,
 * lineup dies of it at once, and the server and its execution with it
 * (PR_SET_PDEATHSIG). */
static const int lu__sigs[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction lu__sigs_old[3]; /* given back to the program */

static void lu__on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (lu_drv_signal_stray(sig, si) || lu_drv_interrupt_absorbed(sig))
        return;
    lu_drv_json_cleanup(); /* a --json FILE being written */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void lu__on_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = lu__on_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    /* nohup's SIGHUP stays ignored, for the program too (a shell's SIGINT
     * for a command in the background does not: stopping is its use) */
    for (size_t i = 0; i < sizeof lu__sigs / sizeof lu__sigs[0]; i++)
        if (sigaction(lu__sigs[i], NULL, &lu__sigs_old[i]) == 0 &&
            (lu__sigs[i] != SIGHUP || lu__sigs_old[i].sa_handler != SIG_IGN))
            sigaction(lu__sigs[i], &sa, NULL);
}

/* --json: the document of a run that stops with no verdict (rc, error);
 * returns rc, or 3 when the JSON could not be written. */
static int lu__json_error(int rc, const char *error);

static void lu__internal(const char *what) __attribute__((noreturn));
static void lu__internal(const char *what)
{
    char m[512];
    snprintf(m, sizeof m, "%s: %s", what, strerror(errno));
    fprintf(stderr, "lineup run: %s\n", m);
    exit(lu__json_error(EXIT_INTERNAL, m));
}

/* A system call of lineup's own failed, most likely against a limit of
 * the user's (text names it): no verdict, exit status 3. */
static int lu__resource_stop(const char *text)
{
    fflush(stdout);
    fprintf(stderr, "lineup run: %s\n", text);
    fprintf(stderr, "lineup run: stopped: no verdict (docs/run.md, \"Resources\", says what lineup needs)\n");
    return lu__json_error(EXIT_INTERNAL, text);
}

static void lu__resource_exit(enum lu_sched_need need, const char *what, size_t bytes)
    __attribute__((noreturn));
static void lu__resource_exit(enum lu_sched_need need, const char *what, size_t bytes)
{
    char m[400];
    exit(lu__resource_stop(lu_sched_syserr(m, sizeof m, need, errno, what, bytes)));
}

/* Creates the shared region, starts the program on it. */
static void lu__start(struct lu__server *sv, const char *path, char **argv, const struct lu_run_cfg *cfg,
                      const struct lu_sched_step *replay)
{
    uint32_t cap = cfg->trace_cap;
    sv->size = lu_run_shm_size(cap);
    int fd = lu__memfd("lineup-run");
    if (fd < 0 || ftruncate(fd, (off_t)sv->size) != 0)
        lu__resource_exit(LU_SCHED_NEED_MEMORY, "cannot create the shared region", sv->size);
    sv->m = mmap(NULL, sv->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (sv->m == MAP_FAILED)
        lu__resource_exit(LU_SCHED_NEED_MEMORY, "cannot map the shared region", sv->size);
    struct lu_run_shm *m = sv->m;
    m->magic = LU_RUN_MAGIC;
    m->version = LU_RUN_VERSION;
    m->trace_cap = cap;
    m->size = sv->size;
    m->cfg = *cfg;
    lu_run_shm_trace(m)->cap = cap;
    if (replay && cfg->replay_len)
        memcpy(lu_run_shm_replay(m), replay, cfg->replay_len * sizeof *replay);
    int cmd[2], rep[2];
    if (pipe2(cmd, O_CLOEXEC) != 0 || pipe2(rep, O_CLOEXEC) != 0)
        lu__resource_exit(LU_SCHED_NEED_MEMORY, "cannot create a pipe to the program", 0);
    sv->out = lu__memfd("lineup-run-server");
    if (sv->out < 0)
        lu__resource_exit(LU_SCHED_NEED_MEMORY, "cannot create the program's output file", 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        lu__resource_exit(LU_SCHED_NEED_PROCESS, "cannot start the program", 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        /* the program starts with the dispositions lineup was given (a
         * shell's background job ignores SIGINT) */
        for (size_t i = 0; i < sizeof lu__sigs / sizeof lu__sigs[0]; i++)
            sigaction(lu__sigs[i], &lu__sigs_old[i], NULL);
        fcntl(fd, F_SETFD, 0);
        fcntl(cmd[0], F_SETFD, 0);
        fcntl(rep[1], F_SETFD, 0);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            close(devnull);
        }
        dup2(sv->out, STDOUT_FILENO);
        dup2(sv->out, STDERR_FILENO);
        char env[64];
        snprintf(env, sizeof env, "%d,%d,%d", fd, cmd[0], rep[1]);
        setenv(LU_RUN_ENV, env, 1);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGXFSZ, SIG_DFL);
        execv(path, argv);
        dprintf(STDERR_FILENO, "cannot execute %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(fd);
    close(cmd[0]);
    close(rep[1]);
    sv->pid = pid;
    sv->cmd = cmd[1];
    sv->rep = rep[0];
}

/* What the server process itself printed (before main, or a loader error). */
static void lu__server_output(const struct lu__server *sv)
{
    char buf[4096];
    ssize_t n = pread(sv->out, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return;
    buf[n] = 0;
    fputs("output of the program:\n", stderr);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        fprintf(stderr, "  | %s\n", line);
}

static void lu__answer(struct lu__server *sv, char c)
{
    while (write(sv->cmd, &c, 1) < 0 && errno == EINTR) {
    }
}

/* ---- reports ---- */

struct lu__ctx {
    const struct lu__ropts *o;
    struct lu_drv_json *json; /* o's --json */
    const char *path;         /* absolute */
    const char *argv0;        /* the program's argv[0], as given */
    char **args;              /* the program's arguments after argv[0] */
    int nargs;
    int outcome; /* enum lu_drv_outcome: the worst of the failures reported */
    unsigned reported;
    bool progress_shown;
    /* the headline of each failure reported, for the summary of --all */
    struct {
        uint64_t sig;
        char *headline;
    } seen[LU_RUN_MAX_SIGS];
    unsigned nseen;
    /* --json: the findings and the notes so far, one object each */
    FILE *jf, *jn;
    char *jf_buf, *jn_buf;
    size_t jf_len, jn_len;
    unsigned jfound, jnoted;
    struct lu_run_shm *m; /* once the program runs */
    double t0;
};

/* The run's context for the exits that have no other way to it. */
static struct lu__ctx *lu__jx;

static void lu__progress_clear(struct lu__ctx *x)
{
    if (x->progress_shown) {
        fputs("\r\033[K", stderr);
        x->progress_shown = false;
    }
}

static void lu__progress(struct lu__ctx *x, const struct lu_run_shm *m, double t0)
{
    if (x->o->quiet || !isatty(STDERR_FILENO))
        return;
    double el = lu_drv_now() - t0;
    uint64_t n = atomic_load(&((struct lu_run_shm *)m)->executions);
    fprintf(stderr, "\r[lineup run] %" PRIu64 " executions, %.0f/s, %.1f s, %" PRIu64 " failing   ", n,
            el > 0 ? (double)n / el : 0.0, el, atomic_load(&((struct lu_run_shm *)m)->failing));
    x->progress_shown = true;
}

static int lu__replay_file(struct lu__ctx *x, struct lu_run_shm *m, char *out, size_t outlen)
{
    struct lu_drv_run_replay rp;
    memset(&rp, 0, sizeof rp);
    snprintf(rp.program, sizeof rp.program, "%s", x->path);
    snprintf(rp.argv0, sizeof rp.argv0, "%s", x->argv0);
    rp.args = x->args;
    rp.nargs = x->nargs;
    snprintf(rp.kind, sizeof rp.kind, "%s", lu_drv_run_kind_id(m->exec.kind));
    rp.nondet_range = m->cfg.nondet_range;
    rp.races = m->cfg.races;
    rp.expect_exit_set = m->cfg.expect_exit_set;
    rp.expect_exit = m->cfg.expect_exit;
    rp.spin_bound = m->cfg.spin_bound;
    rp.max_steps = m->trace_cap;
    rp.timeout_set = 1;
    rp.timeout_ms = m->cfg.timeout_ms;
    rp.watchdog_ms = m->cfg.watchdog_ms;
    rp.tls = m->cfg.tls;
    struct lu_sched_trace *tr = lu_run_shm_trace(m);
    rp.steps = tr->steps;
    rp.len = tr->len < m->trace_cap ? tr->len : m->trace_cap;
    return lu_drv_run_write_replay(x->o->replay_dir, &rp, out, outlen);
}

/* One finding of --json: harness mode's "verdict" (the kind's id),
 * "report" and "replay", and what run mode knows besides. */
static void lu__json_finding(struct lu__ctx *x, struct lu_run_shm *m, const char *report, const char *replay)
{
    const struct lu_run_exec *E = &m->exec;
    FILE *f = x->jf;
    struct lu_hist_buf h, where;
    lu_hist_buf_init(&h);
    lu_hist_buf_init(&where);
    lu_drv_run_headline(&h, m);
    int tid = lu_drv_run_culprit(&where, m);
    fprintf(f, "%s{\"verdict\": \"%s\", \"kind\": ", x->jfound++ ? ", " : "", lu_drv_run_kind_id(E->kind));
    lu_drv_json_str(f, lu_drv_run_kind_name(E->kind));
    fputs(", \"message\": ", f);
    lu_drv_json_str(f, h.s);
    if (tid >= 0)
        fprintf(f, ", \"thread\": %d", tid);
    else
        fputs(", \"thread\": null", f);
    fputs(", \"location\": ", f);
    if (where.s && where.s[0])
        lu_drv_json_str(f, where.s);
    else
        fputs("null", f);
    fprintf(f, ", \"execution\": %" PRIu64 ", \"strategy\": \"%s\"", E->index + 1,
            lu_drv_run_strategy_name(E->strategy));
    if (E->bound >= 0 && E->strategy != LU_RUN_RANDOM && E->strategy != LU_RUN_PCT &&
        E->strategy != LU_RUN_POS)
        fprintf(f, ", \"bound\": %d", E->bound);
    fputs(", \"report\": ", f);
    struct lu_hist_buf r;
    lu_hist_buf_init(&r);
    lu_hist_buf_printf(&r, "%s: %s", lu_drv_run_kind_word(E->kind), report ? report : "");
    lu_drv_json_str(f, r.s);
    fputs(", \"replay\": ", f);
    if (replay)
        lu_drv_json_str(f, replay);
    else
        fputs("null", f);
    fputs("}", f);
    lu_hist_buf_free(&r);
    lu_hist_buf_free(&h);
    lu_hist_buf_free(&where);
}

static void lu__on_failure(struct lu__ctx *x, struct lu_run_shm *m)
{
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_drv_run_render(&b, m);
    lu__progress_clear(x);
    /* a timeout is no bug (lineup could not run the execution to its end),
     * nor is an unsupported call */
    printf("\n%s: %s", lu_drv_run_kind_word(m->exec.kind), b.s ? b.s : "");
    if (x->nseen < LU_RUN_MAX_SIGS) {
        struct lu_hist_buf h;
        lu_hist_buf_init(&h);
        lu_drv_run_headline(&h, m);
        x->seen[x->nseen].sig = m->exec.sig;
        x->seen[x->nseen++].headline = h.s;
    }
    char path[PATH_MAX];
    bool replay = lu__replay_file(x, m, path, sizeof path) == 0;
    if (replay)
        printf("replay: lineup run --replay %s\n", lu_drv_shell_word(path));
    else
        printf("replay: cannot write a replay file in %s: %s\n", x->o->replay_dir, strerror(errno));
    fflush(stdout);
    if (x->jf)
        lu__json_finding(x, m, b.s, replay ? path : NULL);
    lu_hist_buf_free(&b);
    int oc = lu_drv_outcome_of(lu_drv_run_kind_exit(m->exec.kind), m->exec.kind == LU_RUN_K_TIMEOUT);
    if (oc > x->outcome)
        x->outcome = oc;
    x->reported++;
}

static void lu__on_note(struct lu__ctx *x, struct lu_run_shm *m)
{
    lu__progress_clear(x);
    char path[PATH_MAX];
    printf("\nnote: execution %" PRIu64
           " ended with exit status %d, which is not a failure unless you say so "
           "(--expect-exit 0)",
           m->exec.index + 1, m->exec.status);
    bool replay = lu__replay_file(x, m, path, sizeof path) == 0;
    if (replay)
        printf("; replay: lineup run --replay %s", lu_drv_shell_word(path));
    printf("\n");
    fflush(stdout);
    if (x->jn) {
        fprintf(x->jn,
                "%s{\"execution\": %" PRIu64 ", \"exit_status\": %d, \"replay\": ", x->jnoted++ ? ", " : "",
                m->exec.index + 1, m->exec.status);
        if (replay)
            lu_drv_json_str(x->jn, path);
        else
            fputs("null", x->jn);
        fputs("}", x->jn);
    }
}

/* Who sampled: the default strategy takes PCT at depth 3, POS, PCT at
 * depth 6 and random walks in turn (lu_rt_verifier.c, lu__sample). */
static const char *lu__sampler_text(const struct lu_run_shm *m)
{
    if (m->cfg.strategy == LU_RUN_DEFAULT)
        return "PCT, POS and random walks in turn";
    return lu_drv_run_strategy_name(m->cfg.strategy);
}

/* Why the search ended before what it set out to cover: the phrase of the
 * coverage line. */
static const char *lu__cut_by(const struct lu_run_summary *s, bool all)
{
    if (s->interrupted)
        return "interrupted";
    if (s->budget_out)
        return "the budget ran out";
    if (s->timeout_stop)
        return "stopped at --max-timeouts";
    /* --all goes on after failures: only a tool error stops it */
    if (all || s->error)
        return "stopped by an error";
    /* a timeout is no failure, but it ends the search like one */
    return s->timeouts && !s->failing ? "stopped at a timeout" : "stopped at the first failure";
}

/* The coverage line: what was explored completely, and where and why the
 * search stopped short of the rest, so that it never reads as more than
 * was done. */
static void lu__coverage(struct lu_hist_buf *b, const struct lu_run_shm *m, bool all)
{
    const struct lu_run_summary *s = &m->sum;
    const struct lu_run_cfg *c = &m->cfg;
    const char *unit = s->bound_kind == LU_SCHED_BOUND_DELAYS ? "delay" : "preemption";
    if (s->exhausted == 2) {
        lu_hist_buf_printf(b, "every schedule of the program was explored%s",
                           s->nondet ? " (with the __VERIFIER_nondet_* values of --nondet-range)" : "");
        return;
    }
    bool sampler = c->strategy == LU_RUN_RANDOM || c->strategy == LU_RUN_PCT || c->strategy == LU_RUN_POS;
    if (sampler) {
        lu_hist_buf_printf(b, "%" PRIu64 " execution%s sampled (%s, seed %" PRIu64 "): no coverage guarantee",
                           s->sampled, s->sampled == 1 ? "" : "s", lu_drv_run_strategy_name(c->strategy),
                           c->seed);
        return;
    }
    if (c->strategy == LU_RUN_DFS) {
        if (s->exhausted)
            lu_hist_buf_printf(b, "every schedule with at most %d preemption%s was explored", c->preemptions,
                               c->preemptions == 1 ? "" : "s");
        else if (!s->interrupted && !s->budget_out)
            lu_hist_buf_puts(b, lu__cut_by(s, all));
        else if (c->preemptions >= 0)
            lu_hist_buf_printf(b, "%s before every schedule with at most %d preemption%s was explored",
                               lu__cut_by(s, all), c->preemptions, c->preemptions == 1 ? "" : "s");
        else
            lu_hist_buf_printf(b, "%s before every schedule was explored", lu__cut_by(s, all));
        return;
    }
    /* ipb, idb and default's exhaustive pass: bounds 0, 1, ... in turn */
    if (s->bound_done >= 0)
        lu_hist_buf_printf(b, "every schedule with at most %d %s%s was explored", s->bound_done, unit,
                           s->bound_done == 1 ? "" : "s");
    if (s->bound_at >= 0 && s->pass_out) {
        /* default: the samplers took over with the rest of the budget */
        lu_hist_buf_printf(
            b,
            "%sthe exhaustive pass stopped in bound %d when its half of the budget ran out, after %" PRIu64
            " execution%s%s",
            s->bound_done >= 0 ? "; " : "", s->bound_at, s->exhaustive, s->exhaustive == 1 ? "" : "s",
            s->bound_done >= 0 ? "" : ", so no bound was explored completely");
    } else if (s->bound_at >= 0 && (s->interrupted || s->budget_out) && s->bound_done < 0) {
        lu_hist_buf_printf(b, "%s before bound 0 was explored completely", lu__cut_by(s, all));
    } else if (s->bound_at >= 0 && s->bound_done < 0) {
        lu_hist_buf_puts(b, lu__cut_by(s, all));
    } else if (s->bound_at >= 0) {
        lu_hist_buf_printf(b, "; %s in bound %d", lu__cut_by(s, all), s->bound_at);
    }
    /* default: the unbounded search it tried after the pass */
    if (s->unbounded && s->unbounded_out)
        lu_hist_buf_printf(b, "; an unbounded search that followed did not finish in %" PRIu64 " execution%s",
                           s->unbounded, s->unbounded == 1 ? "" : "s");
    else if (s->unbounded)
        lu_hist_buf_printf(b, "; %s in the unbounded search that followed", lu__cut_by(s, all));
    if (s->sampled)
        lu_hist_buf_printf(b, "%s then %" PRIu64 " execution%s sampled by %s (seed %" PRIu64 ")",
                           s->bound_at >= 0 || s->unbounded ? ";" : ",", s->sampled,
                           s->sampled == 1 ? "" : "s", lu__sampler_text(m), c->seed);
    else if (s->bound_at < 0 && s->bound_done < 0)
        lu_hist_buf_puts(b, lu__cut_by(s, all)); /* ended before its first round */
    if (s->bound_done < 0 && (s->sampled || s->pass_out))
        lu_hist_buf_puts(b, ": no coverage guarantee");
}

static void lu__summary(struct lu__ctx *x, struct lu_run_shm *m)
{
    const struct lu_run_summary *s = &m->sum;
    const struct lu__ropts *o = x->o;
    if (lu_drv_stray_sig) {
        printf("\n");
        lu_drv_note_stray(stdout);
    }
    printf("\nsummary: %" PRIu64 " execution%s in %.2f s (%.0f/s)", s->executions,
           s->executions == 1 ? "" : "s", s->secs, s->secs > 0 ? (double)s->executions / s->secs : 0.0);
    if (s->discarded)
        printf(", %" PRIu64 " discarded (an assumption was false)", s->discarded);
    if (s->redundant)
        printf(", %" PRIu64 " cut short as redundant (partial-order reduction)", s->redundant);
    if (s->dropped)
        printf(", %" PRIu64 " dropped (a spinning thread chosen at a cost kept spinning)", s->dropped);
    printf(", %" PRIu64 " failing", s->failing - s->errors);
    if (s->errors)
        printf(", %" PRIu64 " ended by an error (not a finding: unsupported call or lineup's limits)",
               s->errors);
    if (s->timeouts)
        printf(", %" PRIu64 " timed out (blocked outside lineup's control: not checked)", s->timeouts);
    printf("\n");
    struct lu_hist_buf cov;
    lu_hist_buf_init(&cov);
    lu__coverage(&cov, m, o->all);
    printf("  coverage: %s\n", cov.s ? cov.s : "");
    lu_hist_buf_free(&cov);
    if (s->timeouts)
        /* killed where it blocked: the search saw no choice after that */
        printf("  (%" PRIu64
               " execution%s timed out: no schedule past %s blocking call was explored, whatever "
               "the coverage says)\n",
               s->timeouts, s->timeouts == 1 ? "" : "s", s->timeouts == 1 ? "its" : "their");
    if (!m->cfg.races && (s->exhausted == 2 || s->bound_done >= 0))
        /* a coverage claim holds for what lineup schedules: a racy program
         * (most SV-COMP sources keep shared data in plain variables) has
         * interleavings of plain accesses it never tries */
        printf("  (schedules differ at atomic, volatile and pthread operations; plain memory accesses are "
               "not scheduling points, so a data race can hide a failure: --races finds races)\n");
    if (s->timeout_stop)
        printf("  stopped: %" PRIu64 " execution%s timed out (--max-timeouts %" PRIu32
               "), each after --timeout %" PRIu32
               " s; a program that blocks outside lineup's control blocks in most schedules: raise "
               "--timeout if it is only slow, or --max-timeouts (0: no limit) to go on\n",
               s->timeouts, s->timeouts == 1 ? "" : "s", m->cfg.max_timeouts, m->cfg.timeout_ms / 1000);
    if (s->interrupted)
        printf("  interrupted (%s): the search stopped after %" PRIu64
               " execution%s (an execution it cut off is not counted)\n",
               strsignal(s->interrupted), s->executions, s->executions == 1 ? "" : "s");
    if (s->nstatus && !(s->nstatus == 1 && s->statuses[0].status == 0)) {
        printf("  exit statuses:");
        for (uint32_t i = 0; i < s->nstatus; i++)
            printf("%s %d (%" PRIu64 " execution%s)", i ? "," : "", s->statuses[i].status,
                   s->statuses[i].count, s->statuses[i].count == 1 ? "" : "s");
        printf("%s\n", o->expect_set ? "" : "; a non-zero status is a failure only with --expect-exit");
    }
    if (o->all && s->nsig) {
        printf("  distinct failures:\n");
        for (uint32_t i = 0; i < s->nsig; i++) {
            const char *h = lu_drv_run_kind_name(s->sigs[i].kind);
            for (unsigned k = 0; k < x->nseen; k++)
                if (x->seen[k].sig == s->sigs[i].sig && x->seen[k].headline)
                    h = x->seen[k].headline;
            printf("    %" PRIu64 " execution%s (first: %" PRIu64 "): %s\n", s->sigs[i].count,
                   s->sigs[i].count == 1 ? "" : "s", s->sigs[i].first + 1, h);
        }
    }
    if (s->error_text[0])
        printf("  error: %s\n", s->error_text);
}

/* ---- --json ---- */

/* Why the search ended before it covered what it set out to (the
 * coverage line's words, as a value), or NULL when it did not. */
static const char *lu__stopped_by(const struct lu_run_summary *s, bool all)
{
    if (s->interrupted)
        return "interrupt";
    if (s->error)
        return "error";
    if (s->budget_out)
        return "budget";
    if (!all && s->failing)
        return "failure";
    if (!all && s->timeouts)
        return "timeout";
    if (s->timeout_stop)
        return "max-timeouts";
    return NULL;
}

static void lu__json_null_or_str(FILE *f, const char *key, const char *v)
{
    fprintf(f, ", \"%s\": ", key);
    if (v)
        lu_drv_json_str(f, v);
    else
        fputs("null", f);
}

/* The document: the run's settings, the findings and notes so far, the
 * summary with its coverage, the verdict and what the exit status means.
 * sig: the signal that interrupted the run (lineup then dies of it);
 * error: why the run stopped without a verdict. Returns rc, or 3 when the
 * JSON could not be written. */
static int lu__json_end(struct lu__ctx *x, int outcome, int sig, int rc, const char *error)
{
    const struct lu__ropts *o = x->o;
    struct lu_drv_json *j = x->json;
    lu__jx = NULL; /* one document */
    if (!j->arg)
        return rc;
    if (lu_drv_json_open("lineup run", j) != 0)
        return EXIT_INTERNAL;
    FILE *f = j->f;
    const struct lu_run_shm *m = x->m;
    bool exhaustive = o->strategy == LU_RUN_DFS || o->strategy == LU_RUN_IPB || o->strategy == LU_RUN_IDB;
    bool sampler = o->strategy == LU_RUN_RANDOM || o->strategy == LU_RUN_PCT || o->strategy == LU_RUN_POS;
    fprintf(f, "{\"lineup\": \"%s\", \"mode\": \"run\"", LINEUP_VERSION);
    lu__json_null_or_str(f, "program", x->path);
    fputs(", \"args\": [", f);
    for (int i = 0; i < x->nargs; i++) {
        fputs(i ? ", " : "", f);
        lu_drv_json_str(f, x->args[i]);
    }
    fprintf(f, "], \"strategy\": \"%s\"", lu_drv_run_strategy_name(o->strategy));
    if (sampler)
        fputs(", \"preemptions\": null", f);
    else
        fprintf(f, ", \"preemptions\": %d", o->preemptions);
    if (o->strategy == LU_RUN_PCT)
        fprintf(f, ", \"depth\": %d", o->depth);
    fprintf(f, ", \"reduction\": %s",
            o->reduction && o->strategy != LU_RUN_IDB && !sampler ? "true" : "false");
    if (exhaustive)
        fputs(", \"seed\": null", f);
    else
        fprintf(f, ", \"seed\": %" PRIu64, o->seed);
    if (o->budget_execs)
        fprintf(f, ", \"budget\": {\"executions\": %" PRIu64 "}", o->budget_execs);
    else if (o->budget_ms)
        fprintf(f, ", \"budget\": {\"seconds\": %" PRIu64 "}", o->budget_ms / 1000);
    else
        fputs(", \"budget\": null", f);
    fprintf(f, ", \"all\": %s, \"races\": %s", o->all ? "true" : "false", o->races ? "true" : "false");
    fprintf(f, ", \"tls\": \"%s\", \"jobs\": %u", lu_drv_tls_name(o->tls), o->jobs);
    if (o->expect_set)
        fprintf(f, ", \"expect_exit\": %d", o->expect);
    else
        fputs(", \"expect_exit\": null", f);
    fprintf(f,
            ", \"timeout\": %" PRIu32 ", \"max_timeouts\": %" PRIu32 ", \"nondet_range\": %d"
            ", \"max_steps\": %" PRIu32 ", \"spin_bound\": %" PRIu32 ", \"watchdog_ms\": %" PRIu32,
            o->timeout_ms / 1000, o->max_timeouts, o->nondet_range, o->max_steps, o->spin_bound,
            o->watchdog_ms);

    fputs(", \"findings\": [", f);
    if (x->jf && fflush(x->jf) == 0 && x->jf_len)
        fwrite(x->jf_buf, 1, x->jf_len, f);
    fputs("], \"notes\": [", f);
    if (x->jn && fflush(x->jn) == 0 && x->jn_len)
        fwrite(x->jn_buf, 1, x->jn_len, f);
    fputs("]", f);

    const struct lu_run_summary *s = m ? &m->sum : NULL;
    uint64_t execs = s ? s->executions : 0;
    if (m && !execs)
        execs = atomic_load(&((struct lu_run_shm *)m)->executions); /* stopped before its summary */
    uint64_t settled = s ? s->discarded + s->redundant + s->dropped + s->timeouts : 0;
    fprintf(f,
            ", \"summary\": {\"executions\": %" PRIu64 ", \"complete\": %" PRIu64 ", \"discarded\": %" PRIu64
            ", \"cut_executions\": %" PRIu64 ", \"dropped\": %" PRIu64 ", \"failing\": %" PRIu64
            ", \"errors\": %" PRIu64 ", \"inconclusive\": %" PRIu64 ", \"seconds\": %.3f",
            execs, execs > settled ? execs - settled : 0, s ? s->discarded : 0, s ? s->redundant : 0,
            s ? s->dropped : 0, s ? s->failing - s->errors : 0, s ? s->errors : 0, s ? s->timeouts : 0,
            s && s->secs > 0 ? s->secs
            : x->t0 > 0      ? lu_drv_now() - x->t0
                             : 0.0);
    fputs(", \"distinct\": [", f);
    for (uint32_t i = 0; s && i < s->nsig && i < LU_RUN_MAX_SIGS; i++) {
        const char *h = NULL;
        for (unsigned k = 0; k < x->nseen; k++)
            if (x->seen[k].sig == s->sigs[i].sig && x->seen[k].headline)
                h = x->seen[k].headline;
        fprintf(f, "%s{\"verdict\": \"%s\", \"kind\": ", i ? ", " : "", lu_drv_run_kind_id(s->sigs[i].kind));
        lu_drv_json_str(f, lu_drv_run_kind_name(s->sigs[i].kind));
        lu__json_null_or_str(f, "message", h);
        fprintf(f, ", \"executions\": %" PRIu64 ", \"first\": %" PRIu64 "}", s->sigs[i].count,
                s->sigs[i].first + 1);
    }
    fputs("], \"exit_statuses\": [", f);
    for (uint32_t i = 0; s && i < s->nstatus && i < LU_RUN_MAX_STATUS; i++)
        fprintf(f, "%s{\"status\": %d, \"executions\": %" PRIu64 ", \"first\": %" PRIu64 "}", i ? ", " : "",
                s->statuses[i].status, s->statuses[i].count, s->statuses[i].first + 1);
    fputs("]", f);
    if (s && o->strategy != LU_RUN_REPLAY) {
        struct lu_hist_buf cov;
        lu_hist_buf_init(&cov);
        lu__coverage(&cov, m, o->all);
        fputs(", \"coverage\": {\"text\": ", f);
        lu_drv_json_str(f, cov.s);
        lu_hist_buf_free(&cov);
        int complete = s->bound_done;
        fprintf(f, ", \"exhaustive\": %s, \"complete_bound\": %d", s->exhausted == 2 ? "true" : "false",
                sampler ? -1 : complete);
        if (sampler)
            fputs(", \"bound_kind\": null", f);
        else
            fprintf(f, ", \"bound_kind\": \"%s\"",
                    s->bound_kind == LU_SCHED_BOUND_DELAYS ? "delays" : "preemptions");
        if (s->bound_at >= 0)
            fprintf(f, ", \"stopped_in_bound\": %d", s->bound_at);
        else
            fputs(", \"stopped_in_bound\": null", f);
        fprintf(f, ", \"truncated\": %s", s->budget_out || s->pass_out ? "true" : "false");
        lu__json_null_or_str(f, "stopped_by", s->exhausted == 2 ? NULL : lu__stopped_by(s, o->all));
        fprintf(f,
                ", \"exhaustive_executions\": %" PRIu64 ", \"unbounded_executions\": %" PRIu64
                ", \"sampled\": %" PRIu64 ", \"timed_out\": %s}",
                s->exhaustive, s->unbounded, s->sampled, s->timeouts ? "true" : "false");
    } else {
        fputs(", \"coverage\": null", f);
    }
    if (sig) {
        const char *a = sigabbrev_np(sig);
        fprintf(f, ", \"interrupted\": true, \"signal\": \"SIG%s\"", a ? a : "?");
    } else {
        fputs(", \"interrupted\": false, \"signal\": null", f);
    }
    lu__json_null_or_str(f, "error", error && error[0] ? error : NULL);
    const char *word, *text;
    if (rc == EXIT_INTERNAL) {
        word = text = "ERROR";
    } else if (outcome == LU_DRV_O_PASS && sig) {
        word = "INTERRUPTED";
        text = "INTERRUPTED (no failure so far)";
    } else {
        text = lu_drv_outcome_verdict(outcome, "PASS (no failure found)");
        word = outcome == LU_DRV_O_PASS           ? "PASS"
               : outcome == LU_DRV_O_INCONCLUSIVE ? "INCONCLUSIVE"
               : outcome == LU_DRV_O_BUG          ? "FAIL"
                                                  : "ERROR";
    }
    const char *meaning =
        rc == EXIT_PASS       ? "no failure found"
        : rc == EXIT_BUG      ? "a failure was found"
        : rc == EXIT_INTERNAL ? "no verdict: an internal error, out of memory, or a limit that lineup's own "
                                "processes, threads or memory ran into"
        : outcome == LU_DRV_O_INCONCLUSIVE
            ? "no verdict: an execution timed out, blocked in something lineup does not "
              "control, and no failure was found"
            : "no verdict: the program could not be run under lineup (an unsupported call, a "
              "program that does not start)";
    char buf[400];
    if (sig) {
        const char *a = sigabbrev_np(sig);
        snprintf(buf, sizeof buf, "interrupted by SIG%s, which lineup dies of (128 + %d); so far: %s",
                 a ? a : "?", sig, rc == EXIT_PASS ? "no failure" : meaning);
        meaning = buf;
    }
    fprintf(f, ", \"verdict\": \"%s\"", word);
    lu__json_null_or_str(f, "verdict_text", text);
    fprintf(f, ", \"exit\": %d", sig ? 128 + sig : rc);
    lu__json_null_or_str(f, "exit_meaning", meaning);
    fputs("}}\n", f);
    return lu_drv_json_finish("lineup run", j) ? EXIT_INTERNAL : rc;
}

static int lu__json_error(int rc, const char *error)
{
    if (!lu__jx)
        return rc;
    return lu__json_end(lu__jx, lu_drv_outcome_of(rc, false), 0, rc, error);
}

/* ---- main ---- */

static void lu__fill_cfg(const struct lu__ropts *o, struct lu_run_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->strategy = o->strategy;
    c->preemptions = o->preemptions;
    c->depth = o->depth;
    c->budget_execs = o->budget_execs;
    c->budget_ms = o->budget_ms;
    c->seed = o->seed;
    c->spin_bound = o->spin_bound;
    c->watchdog_ms = o->watchdog_ms;
    c->trace_cap = o->max_steps;
    c->timeout_ms = o->timeout_ms;
    c->nondet_range = o->nondet_range;
    c->races = o->races;
    c->all = o->all;
    c->max_timeouts = o->max_timeouts;
    c->jobs = o->jobs;
    c->reduction = o->reduction;
    c->tls = o->tls;
    c->cache_mb = o->cache_mb;
    c->expect_exit_set = o->expect_set;
    c->expect_exit = o->expect;
}

/* Why the replayed execution in m did not follow the recorded schedule of
 * len choices, or LU_SCHED_MISFIT_NONE. The scheduler says so when the
 * execution returned to it; an execution that ended its process (main
 * returned, exit, a crash) before the schedule's end did not follow it
 * either. */
static int lu__replay_misfit_of(const struct lu_run_shm *m, int kind, uint32_t len)
{
    const struct lu_run_exec *E = &m->exec;
    if (E->done && E->outcome == LU_SCHED_OUT_MISFIT)
        return E->misfit != LU_SCHED_MISFIT_NONE ? E->misfit : LU_SCHED_MISFIT_LEFT_OVER;
    if (kind >= 0 && kind != LU_RUN_K_UNSUPPORTED && kind != LU_RUN_K_MEMORY && kind != LU_RUN_K_INTERNAL &&
        E->steps < len)
        return LU_SCHED_MISFIT_LEFT_OVER;
    return LU_SCHED_MISFIT_NONE;
}

/* Why a replay stopped following its schedule, and what to do instead: a
 * replay file is evidence of one execution of one build, not a test. The
 * command it suggests keeps the settings the failure depended on (those of
 * the file, or of the replay's command line): without --races a race is
 * never reported, without --expect-exit a status never fails, so the
 * unfixed program would pass it too. */
static void lu__replay_misfit(const struct lu_drv_run_replay *rp, const struct lu__ropts *o, int why,
                              uint32_t at, const char *prog, int nargs, char **args)
{
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_drv_misfit_why(&b, why, rp->steps, rp->len, at, 0);
    char of[32] = "";
    if (at < rp->len)
        snprintf(of, sizeof of, " of %u", rp->len);
    char opts[160] = "";
    size_t n = 0;
    if (o->races)
        n += (size_t)snprintf(opts + n, sizeof opts - n, "--races ");
    if (o->expect_set)
        n += (size_t)snprintf(opts + n, sizeof opts - n, "--expect-exit %d ", o->expect);
    if (o->nondet_range != 4)
        n += (size_t)snprintf(opts + n, sizeof opts - n, "--nondet-range %d ", o->nondet_range);
    if (o->spin_bound != 1000)
        n += (size_t)snprintf(opts + n, sizeof opts - n, "--spin-bound %" PRIu32 " ", o->spin_bound);
    if (rp->max_steps && rp->max_steps != LU__DEFAULT_STEPS)
        n += (size_t)snprintf(opts + n, sizeof opts - n, "--max-steps %" PRIu32 " ", rp->max_steps);
    if (o->watchdog_ms != 1000)
        n += (size_t)snprintf(opts + n, sizeof opts - n, "--watchdog-ms %" PRIu32 " ", o->watchdog_ms);
    if (o->tls != LU_SCHED_TLS_AUTO)
        snprintf(opts + n, sizeof opts - n, "--tls %s ", lu_drv_tls_name(o->tls));
    fprintf(stderr,
            "lineup run: replay: the recorded schedule does not fit this program at choice %u%s (%s): the "
            "program changed since the replay file was written, or it does not behave the same way on the "
            "same schedule (the file does not record the environment variables, input files or the clock it "
            "may read). To check a fix, run it again: lineup run %s-- %s",
            at + 1, of, b.s ? b.s : "", opts, lu_drv_shell_word(prog));
    for (int i = 0; i < nargs; i++)
        fprintf(stderr, " %s", lu_drv_shell_word(args[i]));
    fputs("\n", stderr);
    lu_hist_buf_free(&b);
}

int lu_drv_run_main(int argc, char **argv)
{
    struct lu__ropts o;
    lu__parse(argc, argv, &o);
    signal(SIGPIPE, SIG_IGN);
    /* the JSON alone on standard output, the report on standard error */
    int jrc = lu_drv_json_take_stdout("lineup run", &o.json);
    if (jrc)
        return jrc;
    struct lu__ctx x;
    memset(&x, 0, sizeof x);
    x.o = &o;
    x.json = &o.json;
    if (o.json.arg) {
        x.jf = open_memstream(&x.jf_buf, &x.jf_len);
        x.jn = open_memstream(&x.jn_buf, &x.jn_len);
        if (!x.jf || !x.jn)
            lu__internal("--json");
        lu__jx = &x;
    }
    /* the shared region is a file (a memfd): a file size limit below its
     * size must be a message naming it, not a death by SIGXFSZ */
    signal(SIGXFSZ, SIG_IGN);
    unsetenv(LU_RUN_ENV);

    struct lu_drv_run_replay rp;
    memset(&rp, 0, sizeof rp);
    char err[1024];
    if (o.replay) {
        struct stat st;
        if (stat(o.replay, &st) == 0 && S_ISDIR(st.st_mode)) {
            fprintf(stderr, "lineup run: cannot open replay file %s: it is a directory\n", o.replay);
            return EXIT_USAGE;
        }
        if (lu_drv_run_read_replay(o.replay, &rp, err, sizeof err) != 0) {
            lu_drv_run_replay_free(&rp);
            fprintf(stderr, "lineup run: %s\n", err);
            return EXIT_USAGE;
        }
        /* what the recorded execution depended on, unless overridden */
        if (!o.nondet_set)
            o.nondet_range = rp.nondet_range;
        if (!o.spin_set && rp.spin_bound)
            o.spin_bound = rp.spin_bound;
        if (!o.steps_set && rp.max_steps)
            o.max_steps = rp.max_steps;
        if (!o.races_set)
            o.races = rp.races;
        if (!o.timeout_set && rp.timeout_set)
            o.timeout_ms = rp.timeout_ms;
        if (!o.watchdog_set && rp.watchdog_ms)
            o.watchdog_ms = rp.watchdog_ms;
        if (!o.tls_set)
            o.tls = rp.tls;
        if (!o.expect_set && rp.expect_exit_set) {
            o.expect_set = true;
            o.expect = rp.expect_exit;
        }
        if (rp.len > o.max_steps)
            o.max_steps = rp.len;
        o.strategy = LU_RUN_REPLAY;
    }

    /* the program and its arguments: the command line's, else the replay's */
    char found[PATH_MAX], abs[PATH_MAX];
    const char *given = o.argc ? o.argv[0] : rp.program;
    if (!given[0]) {
        fprintf(stderr, "lineup run: the program name is empty\n");
        lu_drv_run_replay_free(&rp);
        return EXIT_USAGE;
    }
    if (!lu__find(given, found, sizeof found)) {
        fprintf(stderr, "lineup run: %s: not found (on PATH or in the current directory)\n", given);
        lu_drv_run_replay_free(&rp);
        return EXIT_USAGE;
    }
    if (!realpath(found, abs))
        snprintf(abs, sizeof abs, "%s", found);
    x.path = abs;
    if (lu_drv_json_is(&o.json, abs)) {
        fprintf(stderr, "lineup run: --json %s is the program itself; give another file\n", o.json.arg);
        lu_drv_run_replay_free(&rp);
        return EXIT_USAGE;
    }
    int chk = lu_drv_run_check_program(abs, err, sizeof err);
    if (chk == -2) {
        lu_drv_run_replay_free(&rp);
        return lu__resource_stop(err);
    }
    if (chk < 0) {
        fprintf(stderr, "lineup run: %s\n", err);
        lu_drv_run_replay_free(&rp);
        return EXIT_USAGE;
    }
    if (chk == 3 && !o.allow_uninstrumented) {
        fprintf(
            stderr,
            "lineup run: %s was compiled by lineup-cc, but none of its code is instrumented (it calls no\n"
            "ThreadSanitizer hook), so its atomic operations would be invisible to lineup. A later flag\n"
            "turns the instrumentation off: a -fno-sanitize=thread, or with gcc an -flto after lineup-cc's\n"
            "own -fno-lto. Rebuild it without, or pass --allow-uninstrumented to run it with only its\n"
            "pthread calls as scheduling points.\n",
            given);
        lu_drv_run_replay_free(&rp);
        return EXIT_USAGE;
    }
    if (chk == 1 && !o.allow_uninstrumented) {
        fprintf(
            stderr,
            "lineup run: %s was linked by lineup-cc, but none of its code was compiled by it: its atomic\n"
            "operations would be invisible to lineup. Compile its sources with lineup-cc too, or pass\n"
            "--allow-uninstrumented to run it with only its pthread calls as scheduling points.\n",
            given);
        lu_drv_run_replay_free(&rp);
        return EXIT_USAGE;
    }
    if (chk == 2 && !o.allow_uninstrumented) {
        fprintf(
            stderr,
            "lineup run: %s was compiled with -fsanitize=thread, but not by lineup-cc (or by an older one\n"
            "than this lineup's): without lineup-cc's flags its volatile accesses are no scheduling points\n"
            "and the partial-order reduction can skip schedules, so a failing program could pass. Compile\n"
            "its sources with lineup-cc, or pass --allow-uninstrumented to run it anyway.\n",
            given);
        lu_drv_run_replay_free(&rp);
        return EXIT_USAGE;
    }
    char **pargv;
    int pargc;
    if (o.argc) {
        pargc = o.argc;
        pargv = calloc((size_t)pargc + 1, sizeof *pargv);
        for (int i = 0; i < pargc; i++)
            pargv[i] = o.argv[i];
    } else {
        pargc = rp.nargs + 1;
        pargv = calloc((size_t)pargc + 1, sizeof *pargv);
        pargv[0] = rp.argv0[0] ? rp.argv0 : rp.program;
        for (int i = 0; i < rp.nargs; i++)
            pargv[i + 1] = rp.args[i];
    }
    if (!pargv)
        lu__internal("calloc");

    if (!o.seed_set) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        o.seed = ((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid()) % 1000000000ULL;
    }
    struct lu_run_cfg cfg;
    lu__fill_cfg(&o, &cfg);
    if (o.replay)
        cfg.replay_len = rp.len;

    x.path = abs;
    x.argv0 = pargv[0];
    x.args = pargv + 1;
    x.nargs = pargc - 1;

    if (o.replay) {
        printf("lineup %s: replaying %s (recorded as %s) with %s\n", LINEUP_VERSION, o.replay,
               lu_drv_run_kind_name(lu_drv_run_kind_parse(rp.kind)), given);
        /* -- PROGRAM replaces the recorded command line, arguments too: a
         * verdict about other arguments must not pass for the recorded one */
        bool same = pargc - 1 == rp.nargs;
        for (int i = 0; same && i < rp.nargs; i++)
            same = strcmp(pargv[i + 1], rp.args[i]) == 0;
        if (!same) {
            fputs("note: the file recorded the arguments", stdout);
            for (int i = 0; i < rp.nargs; i++)
                printf(" %s", lu_drv_shell_word(rp.args[i]));
            fputs(rp.nargs ? "" : " (none)", stdout);
            fputs("; this replay passes", stdout);
            for (int i = 1; i < pargc; i++)
                printf(" %s", lu_drv_shell_word(pargv[i]));
            fputs(pargc > 1 ? "" : " none", stdout);
            fputs(" (give the recorded ones after the program to replay the recorded execution)\n", stdout);
        }
    } else {
        printf("lineup %s: run %s, strategy %s", LINEUP_VERSION, given, lu_drv_run_strategy_name(o.strategy));
        if (o.strategy == LU_RUN_DFS || ((o.strategy == LU_RUN_IPB || o.strategy == LU_RUN_IDB) && o.pre_set))
            printf(" (%s %d)", o.strategy == LU_RUN_DFS ? "preemption bound" : "up to bound", o.preemptions);
        if (o.strategy == LU_RUN_PCT)
            printf(" (depth %d)", o.depth);
        if (o.strategy == LU_RUN_DFS || o.strategy == LU_RUN_IPB || o.strategy == LU_RUN_DEFAULT)
            printf(", reduction %s", o.reduction ? "on" : "off");
        if (o.budget_execs)
            printf(", budget %" PRIu64 " executions", o.budget_execs);
        else if (o.budget_ms)
            printf(", budget %.0f s", (double)o.budget_ms / 1000.0);
        else
            printf(", no budget");
        if (o.strategy != LU_RUN_DFS && o.strategy != LU_RUN_IPB && o.strategy != LU_RUN_IDB)
            printf(", seed %" PRIu64, o.seed); /* nothing is drawn otherwise */
        if (o.jobs > 1)
            printf(", %u executions at once (--jobs)", o.jobs);
        printf("%s\n", o.races ? ", data races" : "");
    }
    fflush(stdout);

    struct lu__server sv;
    lu__on_signals();
    lu__start(&sv, abs, pargv, &cfg, rp.steps);
    struct lu_run_shm *m = sv.m;
    double t0 = lu_drv_now();
    x.m = m;
    x.t0 = t0;
    bool hello = false, done = false, eof = false, forwarded = false;
    double forwarded_at = 0;
    int replay_kind = -1;
    while (!done && !eof) {
        if (lu_drv_interrupted && !forwarded) {
            /* the server stops the search (a terminal's Ctrl-C reached
             * it already; kill(1) or timeout(1) may not have) */
            kill(sv.pid, lu_drv_interrupted);
            forwarded = true;
            forwarded_at = lu_drv_now();
        } else if (forwarded && !done && lu_drv_now() - forwarded_at > 10.0) {
            /* a server that does not answer (stopped, under a debugger,
             * wedged): what the shared region says was finished is
             * reported, as when it dies after the interruption */
            kill(sv.pid, SIGKILL);
            eof = true;
            break;
        }
        struct pollfd p = {sv.rep, POLLIN, 0};
        int r = poll(&p, 1, 250);
        if (r < 0 && errno != EINTR)
            lu__internal("poll");
        if (r > 0) {
            char c;
            ssize_t n = read(sv.rep, &c, 1);
            if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
                eof = true;
                break;
            }
            if (n == 1) {
                switch (c) {
                case 'H':
                    hello = true;
                    /* the server handles the signals from now on */
                    lu_drv_graceful = !o.replay;
                    break;
                case 'F':
                    lu__on_failure(&x, m);
                    lu__answer(&sv, 'c');
                    break;
                case 'N':
                    lu__on_note(&x, m);
                    lu__answer(&sv, 'c');
                    break;
                case 'R': {
                    struct lu_hist_buf b;
                    lu_hist_buf_init(&b);
                    lu_drv_run_render(&b, m);
                    printf("\n%s", b.s ? b.s : "");
                    lu_hist_buf_free(&b);
                    replay_kind = m->exec.kind;
                    lu__answer(&sv, 'c');
                    break;
                }
                case 'D':
                    done = true;
                    break;
                default:
                    break;
                }
            }
        }
        if (hello)
            lu__progress(&x, m, t0);
        else if (lu_drv_now() - t0 > (o.timeout_ms ? o.timeout_ms / 1000.0 : 30.0) + 5.0) {
            /* constructors that never return */
            kill(sv.pid, SIGKILL);
            eof = true;
        }
    }
    lu__progress_clear(&x);
    int status = 0;
    while (waitpid(sv.pid, &status, 0) < 0 && errno == EINTR) {
    }
    /* The program's process died without its summary: after a stop
     * request (ours, or one sent to it alone, which kills it during its
     * constructors and a replay), that is the interruption, not an error
     * of lineup's */
    int died_of = 0;
    if (!done) {
        int sig = lu_drv_interrupted;
        if (!sig && WIFSIGNALED(status))
            for (size_t i = 0; i < sizeof lu__sigs / sizeof lu__sigs[0]; i++)
                if (WTERMSIG(status) == lu__sigs[i])
                    sig = lu__sigs[i];
        if (sig && (!hello || o.replay)) {
            /* where a signal ends lineup at once */
            lu_drv_die_of(sig);
        }
        if (sig) {
            /* the search under way: report the executions it finished (the
             * server keeps the summary's counts as it goes) */
            died_of = status;
            done = true;
            m->sum.executions = atomic_load(&m->executions);
            m->sum.secs = lu_drv_now() - t0;
            m->sum.interrupted = sig;
        }
    }
    if (!done) {
        char dead[sizeof rp.program + 256]; /* why the program's process ended early */
        if (!hello) {
            if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
                snprintf(dead, sizeof dead, "cannot execute %s", given);
            else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
                snprintf(dead, sizeof dead, "%s crashed (signal %d) before main, in its constructors", given,
                         WTERMSIG(status));
            else if (WIFSIGNALED(status))
                snprintf(dead, sizeof dead, "%s did not reach main in time (its constructors hang?)", given);
            else
                snprintf(dead, sizeof dead,
                         "%s ran without lineup's runtime taking over (exit status %d): was it linked by\n"
                         "this lineup's lineup-cc? (its liblineup.so must be the same version)",
                         given, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            fprintf(stderr, "lineup run: %s\n", dead);
            lu__server_output(&sv);
            return lu__json_error(WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL ? EXIT_BUG : EXIT_USAGE,
                                  dead);
        }
        snprintf(dead, sizeof dead,
                 "internal error: lineup's runtime in %s died (%s %d) after %" PRIu64 " executions", given,
                 WIFSIGNALED(status) ? "signal" : "exit status",
                 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), atomic_load(&m->executions));
        fprintf(stderr, "lineup run: %s\n", dead);
        lu__server_output(&sv);
        return lu__json_error(EXIT_INTERNAL, dead);
    }
    if (m->sum.error == LU_RUN_K_RESOURCE) {
        lu_drv_run_replay_free(&rp);
        return lu__resource_stop(m->sum.error_text);
    }
    if (o.replay) {
        int rc = replay_kind < 0 ? EXIT_INTERNAL : lu_drv_run_kind_exit(replay_kind);
        int misfit = lu__replay_misfit_of(m, replay_kind, rp.len);
        if (replay_kind < 0) {
            printf("verdict: the replay did not run%s%s\n", m->sum.error_text[0] ? ": " : "",
                   m->sum.error_text);
        } else if (misfit != LU_SCHED_MISFIT_NONE) {
            printf("verdict: the recorded schedule does not fit (recorded as %s)\n",
                   lu_drv_run_kind_name(lu_drv_run_kind_parse(rp.kind)));
            fflush(stdout);
            /* the program as the run named it (./prog), when that names
             * it here too: a program may read its argv[0] */
            const char *again = given;
            char f2[PATH_MAX], a2[PATH_MAX];
            if (!o.argc && rp.argv0[0] && lu__find(rp.argv0, f2, sizeof f2) && realpath(f2, a2) &&
                strcmp(a2, abs) == 0)
                again = rp.argv0;
            lu__replay_misfit(&rp, &o, misfit, m->exec.steps, again, pargc - 1, pargv + 1);
            rc = EXIT_USAGE;
        } else if (replay_kind == LU_RUN_K_PASS)
            printf("verdict: the replayed execution did not fail (recorded as %s)\n",
                   lu_drv_run_kind_name(lu_drv_run_kind_parse(rp.kind)));
        else if (strcmp(lu_drv_run_kind_id(replay_kind), rp.kind) == 0)
            printf("verdict: %s (reproduced)\n", lu_drv_run_kind_name(replay_kind));
        else
            printf("verdict: %s (recorded as %s)\n", lu_drv_run_kind_name(replay_kind),
                   lu_drv_run_kind_name(lu_drv_run_kind_parse(rp.kind)));
        lu_drv_run_replay_free(&rp);
        return rc;
    }
    lu__summary(&x, m);
    if (died_of)
        printf("  (lineup's runtime in the program's process died (%s %d) after the interruption: the "
               "executions it finished are counted)\n",
               WIFSIGNALED(died_of) ? "signal" : "exit status",
               WIFSIGNALED(died_of) ? WTERMSIG(died_of) : WEXITSTATUS(died_of));
    else if (lu_drv_interrupted && !m->sum.interrupted)
        /* the server had ended the search: nothing was cut off */
        printf("  (%s arrived after the search had finished: the verdict is the search's)\n",
               strsignal(lu_drv_interrupted));
    int oc = x.outcome;
    if (m->sum.error) {
        int e = lu_drv_outcome_of(lu_drv_run_kind_exit(m->sum.error), false);
        if (e > oc)
            oc = e;
    }
    int rc = lu_drv_outcome_exit(oc);
    /* the server says whether the search was cut short: a signal of ours
     * that reached it after its last execution stopped nothing, and one
     * that reached only it (sent to its pid) stopped the run all the same */
    printf("verdict: %s\n", lu_drv_outcome_verdict(oc, m->sum.interrupted ? "INTERRUPTED (no failure so far)"
                                                                          : "PASS (no failure found)"));
    int sig = m->sum.interrupted ? (lu_drv_interrupted ? lu_drv_interrupted : m->sum.interrupted) : 0;
    char why[600];
    snprintf(why, sizeof why, "%s",
             died_of ? "lineup's runtime in the program's process died after the interruption"
                     : m->sum.error_text);
    if (lu__json_end(&x, oc, sig, rc, why) != rc)
        return EXIT_INTERNAL;
    if (sig)
        lu_drv_die_of(sig);
    return rc;
}
