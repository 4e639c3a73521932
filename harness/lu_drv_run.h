/*
 * lu_drv_run.h: what `lineup run` shares between its two processes.
 *
 *   driver (harness/lu_drv_run*.c, in `lineup`)     program built by lineup-cc
 *   options, reports, replay files          <-->   liblineup.so takes over before main
 *                                                  (harness/lu_rt_verifier.c): the fork
 *                                                  server, one forked child per execution
 *
 * The driver maps a memfd (struct lu_run_shm, then the trace, the point log
 * and the replay schedule), passes its descriptor and two pipe ends to the
 * program in the environment variable LINEUP_RUN ("SHM,CMD,REP"), and execs
 * it. The server reads the configuration, explores, and talks on the pipes
 * with one-byte messages: on REP 'H' (started), 'F' (a failing execution is
 * in exec), 'N' (a note: an execution exited with a status nobody declared
 * wrong), 'R' (the replayed execution is in exec), 'D' (done, summary
 * filled); after F, N and R it waits for 'c' (continue) or 's' (stop) on
 * CMD, so that the driver reads exec, the trace and the output while
 * nothing changes them. Children write exec, the trace and the point log as
 * they go, so a child that dies leaves them behind. SIGINT, SIGTERM or
 * SIGHUP to the server (the driver forwards its own; a terminal's reaches
 * both) ends the search early: the running execution is killed and not
 * counted, and the server finishes with 'D' and sum.interrupted set.
 *
 * Internal: not installed, not for programs.
 */
#ifndef LU_DRV_RUN_H
#define LU_DRV_RUN_H

#include "lu_sched.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LU_RUN_ENV "LINEUP_RUN"
#define LU_RUN_MAGIC 0x4e55522d70756e4cULL /* "Lnup-RUN" */
#define LU_RUN_VERSION 5

#define LU_RUN_OUT_CAP (64 * 1024) /* output kept per reported execution (its tail) */
#define LU_RUN_FRAMES 8            /* call sites kept per thread */
#define LU_RUN_BT 24               /* frames of a crash backtrace */
#define LU_RUN_MAX_MODULES 64
#define LU_RUN_MAX_INPUTS 256 /* __VERIFIER_nondet_* values logged per execution */
#define LU_RUN_MAX_SIGS 64    /* distinct failures counted */
#define LU_RUN_MAX_STATUS 16  /* distinct exit statuses counted */
#define LU_RUN_NONDET_MAX 63  /* --nondet-range bound: a data choice has at most 64 values */
#define LU_RUN_MAX_JOBS 64    /* --jobs: executions at once */

/* Strategies of `lineup run --strategy`. */
enum lu_run_strategy {
    LU_RUN_DEFAULT,
    LU_RUN_DFS,
    LU_RUN_IPB,
    LU_RUN_IDB,
    LU_RUN_RANDOM,
    LU_RUN_PCT,
    LU_RUN_POS,
    LU_RUN_REPLAY
};

/* What an execution showed: X(name, text, exit status of lineup).
 * TIMEOUT: the execution blocked in something lineup does not control, so
 * lineup could not run the program to the end: no bug (lu_drv_outcome_of).
 * RESOURCE is never an execution's: a system call of lineup's own failed
 * (the process of an execution, the thread behind a program's thread),
 * most likely against a limit of the user's; the run stops with it as
 * summary.error and the limit named in summary.error_text. */
#define LU_RUN_KINDS(X)                                                                                      \
    X(PASS, "no failure", 0)                                                                                 \
    X(ASSERT, "assertion failure", 1)                                                                        \
    X(REACH_ERROR, "reach_error() called", 1)                                                                \
    X(ABORT, "abort", 1)                                                                                     \
    X(CRASH, "crash", 1)                                                                                     \
    X(EXIT, "unexpected exit status", 1)                                                                     \
    X(DEADLOCK, "deadlock", 1)                                                                               \
    X(LIVELOCK, "livelock", 1)                                                                               \
    X(DIVERGE, "divergence", 1)                                                                              \
    X(TOO_LONG, "execution too long", 1)                                                                     \
    X(RACE, "data race", 1)                                                                                  \
    X(TIMEOUT, "timeout", 2)                                                                                 \
    X(NONDET, "nondeterminism", 1)                                                                           \
    X(UNSUPPORTED, "unsupported call", 2)                                                                    \
    X(MEMORY, "out of memory (lineup's, not a finding)", 3)                                                  \
    X(INTERNAL, "internal error", 3)                                                                         \
    X(RESOURCE, "resource limit", 3)

enum lu_run_kind {
#define LU_RUN_K_ENUM(name, text, rc) LU_RUN_K_##name,
    LU_RUN_KINDS(LU_RUN_K_ENUM)
#undef LU_RUN_K_ENUM
        LU_RUN_K_COUNT
};

/* A code address. The child records pc; the server, which has the same
 * mappings, fills mod and off (pc minus the module's load bias, what
 * addr2line takes) after the execution. */
struct lu_run_loc {
    uintptr_t pc;
    uint64_t off;
    int32_t mod;  /* index into lu_run_shm.modules, -1: unknown */
    uint8_t call; /* pc is a return address: the call is at off - 1 */
    uint8_t pad[3];
};

enum {
    LU_RUN_TS_NONE,
    LU_RUN_TS_FINISHED,
    LU_RUN_TS_READY,
    LU_RUN_TS_BLOCKED,
    LU_RUN_TS_SPINNING,
    LU_RUN_TS_LIVE
};

struct lu_run_thread {
    int state; /* LU_RUN_TS_*: NONE never seen; LIVE: the process died while it existed */
    int kind;  /* enum lu_sched_kind of its last scheduling point */
    uint16_t label;
    char what[46];        /* the label's name */
    struct lu_run_loc at; /* its last scheduling point */
    uint32_t nframes;
    struct lu_run_loc frames[LU_RUN_FRAMES]; /* callers (shadow stack), innermost first */
};

struct lu_run_input {
    int16_t tid;
    uint16_t type; /* index into the runtime's type table (name in 'name') */
    char name[28];
    int64_t value;
    struct lu_run_loc at;
};

/* One execution: the raw facts the child records, then the server's
 * classification. */
struct lu_run_exec {
    uint64_t index; /* executions started before this one */
    int strategy;   /* enum lu_run_strategy of the round it belongs to */
    int bound;      /* DFS bound of the round, -1 none */
    int bound_kind; /* enum lu_sched_bound_kind */
    int pct_depth;
    uint64_t seed; /* the round's seed (randomized strategies) */

    /* child */
    int started;   /* the child reached lu_sched_run */
    int done;      /* lu_sched_run returned */
    int redundant; /* DISCARDED as covered by other executions (lu_sched_result.redundant), not by an
                    * assumption */
    int por_cut;   /* ... by partial-order reduction (else a spinning thread that kept spinning) */
    int run_err;   /* its error code */
    int outcome;   /* enum lu_sched_outcome */
    int misfit;    /* enum lu_sched_misfit, when outcome is MISFIT */
    int culprit;
    char message[400]; /* the scheduler's message (unsupported call, nondeterminism, a limit) */
    /* an allocation of the program that failed for want of the memory
     * lineup uses (interpose/lu_ipose_malloc.c): oom_size 0 none */
    uint64_t oom_size;
    char oom_fn[16];
    int oom_tid;
    struct lu_run_loc oom_at;
    uint64_t oom_vm_mb, oom_as_mb; /* the process's address space and RLIMIT_AS (0: none) */
    int main_returned;
    int exited; /* exit() or main returned: status is valid */
    int status;
    int exit_fn; /* enum lu_sched_exit_fn that exit_tid called */
    int exit_tid;
    struct lu_run_loc exit_at;
    int fatal_kind; /* enum lu_sched_fatal, 0 none */
    int fatal_code;
    int fatal_tid;
    struct lu_run_loc fatal_at;
    uint32_t nbt;
    struct lu_run_loc bt[LU_RUN_BT]; /* unwound from the signal handler */
    char blocked_fn[64];             /* LU_SCHED_FATAL_BLOCKED: the function the thread blocks in */
    int assert_tid;                  /* -1 none */
    unsigned assert_line;
    char assert_expr[256], assert_file[192], assert_func[96];
    struct lu_run_loc assert_at;
    int reach_tid; /* -1 none */
    struct lu_run_loc reach_at;
    int race; /* a race was seen */
    int race_tid[2];
    int race_write[2];
    int race_atomic[2]; /* one of the two accesses may be atomic, never both */
    uintptr_t race_addr;
    unsigned race_size;
    struct lu_run_loc race_at[2];
    uint32_t races; /* races seen in this execution */
    int nthreads;
    int starting; /* thread started by the last create seen, before its first scheduling point; -1 none */
    int starter;  /* the thread whose create announced starting */
    /* the thread still inside pthread_create when the execution ended: the
     * thread it started had not reached its first scheduling point (known
     * when the runtime had its last word: a signal, exit, a timeout's
     * where-request), -1 none */
    int creating;
    struct lu_run_thread th[LU_SCHED_MAX_THREADS];
    uint32_t ninputs;
    struct lu_run_input inputs[LU_RUN_MAX_INPUTS];
    uint32_t nplog; /* entries of the point log */

    /* server */
    int kind;    /* enum lu_run_kind */
    int wstatus; /* waitpid status of the child */
    int timed_out;
    int blocked_syscall; /* on a timeout: 1 + the system call the execution was blocked in, 0 unknown,
                          * -1 its process was stopped */
    int killed;          /* ended by a signal no handler of lineup's saw (SIGKILL) */
    int last_seen;       /* ended without the runtime's last word: th[] is from the point log */
    uint32_t steps;      /* trace length */
    uint64_t sig;        /* failure signature: same bug, same value */
    uint64_t out_total;
    uint32_t out_len; /* the last out_len of out_total bytes are in out */
    char out[LU_RUN_OUT_CAP];
};

/* Where each thread stopped, for "thread 1 preempted at ..." lines. */
struct lu_run_point {
    uint32_t at; /* trace length when the thread stopped */
    int16_t tid;
    uint16_t label;
    uintptr_t pc;
};

struct lu_run_cfg {
    int strategy;          /* enum lu_run_strategy */
    int preemptions;       /* dfs: the bound; ipb/idb/default: the largest bound; -1 none */
    int depth;             /* pct: bug depth */
    uint64_t budget_execs; /* 0: none */
    uint64_t budget_ms;    /* 0: none */
    uint64_t seed;
    uint32_t spin_bound, watchdog_ms;
    uint32_t trace_cap;  /* scheduling choices per execution */
    uint32_t timeout_ms; /* wall clock per execution */
    int nondet_range;
    int races;
    int all;
    int reduction;     /* partial-order reduction in the exhaustive rounds (dfs, ipb, default's first pass) */
    uint32_t cache_mb; /* its prefix-trace cache per round, at most (0: none) */
    int expect_exit_set;
    int expect_exit;
    uint32_t max_timeouts; /* --all: timeouts before the search stops (0: no limit) */
    uint32_t jobs;         /* executions at once (lanes of the fork server) */
    uint32_t replay_len;
    int tls; /* enum lu_sched_tls */
};

struct lu_run_sig {
    uint64_t sig;
    int kind;
    uint64_t count;
    uint64_t first; /* execution index */
};

struct lu_run_status {
    int status;
    uint64_t count;
    uint64_t first;
};

struct lu_run_summary {
    uint64_t executions, discarded, failing;
    uint64_t timeouts; /* executions that timed out: not failing, lineup could not run them */
    uint64_t errors;   /* of the failing, those that ended in an error (exit status 2 or 3), not a finding */
    /* executions the scheduler ended as redundant (covered by others),
     * neither failing nor discarded (assumptions): cut by partial-order
     * reduction, dropped because a spinning thread chosen at a cost kept
     * spinning */
    uint64_t redundant, dropped;
    double secs;
    int exhausted;  /* 1: every schedule within bound_done was explored; 2: every schedule */
    int bound_done; /* largest bound explored completely, -1 none */
    int bound_kind;
    int budget_out; /* stopped because the budget ran out */
    /* ipb, idb, default: the bound whose round was under way when the
     * search stopped before finishing it (the budget, a failure, an
     * interruption), -1 none */
    int bound_at;
    int pass_out;        /* default: its exhaustive pass used up its half of the budget */
    uint64_t exhaustive; /* executions of the exhaustive rounds */
    /* default: executions of the unbounded search after its bounded pass,
     * 0 none (ran only when it looked cheap) */
    uint64_t unbounded;
    int unbounded_out; /* ... which stopped at its share of executions */
    uint64_t sampled;  /* executions of randomized strategies */
    int interrupted;   /* the signal (SIGINT, SIGTERM, SIGHUP) that stopped the run, 0 none */
    int nondet;        /* some execution asked for a __VERIFIER_nondet_* value */
    uint32_t nsig;
    struct lu_run_sig sigs[LU_RUN_MAX_SIGS];
    uint32_t nstatus;
    struct lu_run_status statuses[LU_RUN_MAX_STATUS];
    int error;        /* enum lu_run_kind of a tool error that stopped the run, 0 none */
    int timeout_stop; /* --all: stopped at --max-timeouts */
    char error_text[512];
};

struct lu_run_shm {
    uint64_t magic;
    uint32_t version;
    uint32_t trace_cap;
    uint64_t size; /* bytes mapped */
    struct lu_run_cfg cfg;

    /* server -> driver */
    char program[4096];
    char watchdog[64];
    _Atomic uint64_t executions, failing; /* live progress */
    struct lu_run_summary sum;
    uint32_t nmodules;
    char modules[LU_RUN_MAX_MODULES][256];
    struct lu_run_exec exec;
    /* then: struct lu_sched_trace with trace_cap steps, trace_cap struct
     * lu_run_point, and the replay schedule (trace_cap steps) */
};

static inline size_t lu_run_align(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

static inline size_t lu_run_shm_size(uint32_t cap)
{
    return lu_run_align(sizeof(struct lu_run_shm)) + lu_run_align(lu_sched_trace_size(cap)) +
           lu_run_align((size_t)cap * sizeof(struct lu_run_point)) +
           (size_t)cap * sizeof(struct lu_sched_step);
}

static inline struct lu_sched_trace *lu_run_shm_trace(struct lu_run_shm *m)
{
    return (struct lu_sched_trace *)((char *)m + lu_run_align(sizeof *m));
}

static inline struct lu_run_point *lu_run_shm_plog(struct lu_run_shm *m)
{
    return (struct lu_run_point *)((char *)lu_run_shm_trace(m) +
                                   lu_run_align(lu_sched_trace_size(m->trace_cap)));
}

static inline struct lu_sched_step *lu_run_shm_replay(struct lu_run_shm *m)
{
    return (struct lu_sched_step *)((char *)lu_run_shm_plog(m) +
                                    lu_run_align((size_t)m->trace_cap * sizeof(struct lu_run_point)));
}

/* ---- driver side (harness/lu_drv_run*.c) ---- */

struct lu_hist_buf;

/* `lineup run ...`: argv[0] is "run". Returns lineup's exit status. */
int lu_drv_run_main(int argc, char **argv);

/* Name of a kind ("assertion failure") and the exit status it leads to. */
const char *lu_drv_run_kind_name(int kind);
const char *lu_drv_run_kind_id(int kind); /* "ASSERT" */
/* The exit status of a run whose verdict is kind (LU_RUN_KINDS); inline,
 * for the runtime in the program's process as well as the driver. */
static inline int lu_drv_run_kind_exit(int kind)
{
    static const int rc[] = {
#define LU__KE(name, text, code) code,
        LU_RUN_KINDS(LU__KE)
#undef LU__KE
    };
    return kind >= 0 && kind < LU_RUN_K_COUNT ? rc[kind] : 3;
}
/* The word a report of kind starts with: "FAIL" (a finding, exit status
 * 1), "INCONCLUSIVE" (a timeout) or "ERROR" (an unsupported call, lineup's
 * own limits or errors). */
const char *lu_drv_run_kind_word(int kind);
int lu_drv_run_kind_parse(const char *id); /* -1: unknown */
const char *lu_drv_run_strategy_name(int strategy);

/* Renders the execution in m->exec (with the trace and point log of the
 * shared region) as a report: the headline, each thread, inputs,
 * preemptions and the output. */
void lu_drv_run_render(struct lu_hist_buf *b, struct lu_run_shm *m);
/* The one-line "what went wrong and where" of an execution. */
void lu_drv_run_headline(struct lu_hist_buf *b, struct lu_run_shm *m);
/* The thread an execution's failure belongs to (0 the main thread, -1 none
 * known) and, into where, the place in the program (nothing when unknown). */
int lu_drv_run_culprit(struct lu_hist_buf *where, struct lu_run_shm *m);

/* A replay file: the program, its arguments, the settings an execution
 * depends on and the schedule. */
struct lu_drv_run_replay {
    char program[4096];
    char argv0[4096]; /* argv[0] as the run gave it ("": not recorded, the program's path) */
    char **args;      /* args[0 .. nargs) */
    int nargs;
    char kind[32];
    int nondet_range, races, expect_exit_set, expect_exit;
    uint32_t spin_bound, max_steps;
    int timeout_set;
    uint32_t timeout_ms;  /* --timeout of the run that wrote it (0: none) */
    uint32_t watchdog_ms; /* 0: not recorded */
    int tls;              /* enum lu_sched_tls; AUTO when not recorded */
    struct lu_sched_step *steps;
    uint32_t len;
};

/* Writes the schedule of m's trace; returns 0 and the path in out. */
int lu_drv_run_write_replay(const char *dir, const struct lu_drv_run_replay *rp, char *out, size_t outlen);
/* Reads a replay file; returns 0, or -1 with a message in err. */
int lu_drv_run_read_replay(const char *file, struct lu_drv_run_replay *rp, char *err, size_t errlen);
void lu_drv_run_replay_free(struct lu_drv_run_replay *rp);

/* Checks that path is an executable built by lineup-cc: 0 ok, 1 linked by
 * lineup-cc but without instrumented code, 2 instrumented by a plain
 * -fsanitize=thread rather than lineup-cc (lineup-cc-mark.h), 3 compiled
 * by lineup-cc with the instrumentation turned off again, -1 not usable,
 * -2 lineup could not map it (a resource error); message in err. */
int lu_drv_run_check_program(const char *path, char *err, size_t errlen);

#endif
