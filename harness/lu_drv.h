/*
 * lu_drv: the lineup driver. The parent process parses options, draws test
 * matrices, runs each test in a forked worker process (so that a crash, an
 * exit() or a divergence in the code under test ends the worker, not
 * lineup), minimizes failing tests and prints reports. A worker loads the
 * harness, runs phase 1 and phase 2 of the Line-Up check for one test and
 * leaves its findings in a shared memory region the parent reads, also
 * after the worker died.
 */
#ifndef LU_DRV_H
#define LU_DRV_H

#include "lu_hist.h"
#include "lu_lin.h"
#include "lu_rt.h"
#include "lu_sched.h"

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define LU_DRV_MAX_THREADS 8
#define LU_DRV_MAX_CALLS 16
#define LU_DRV_MAX_SEQ 8 /* setup or teardown calls */
#define LU_DRV_TRACE_CAP 65536
#define LU_DRV_REPORT_CAP (256 * 1024)
/* The list of a shared object's harnesses and their operations' labels
 * ("name(arg)"), as the worker hands it to the driver. */
#define LU_DRV_LIST_CAP (256 * 1024)
#define LU_DRV_MAX_EVENTS 256
/* how a schedule's list of preemptions ends the line of a spinning thread
 * run only until it met another's step (lu_sched_step_until_met) */
#define LU__UNTIL_MET_GOES ", until its first step on an object another thread was about to act on"
#define LU__UNTIL_MET ", spinning" LU__UNTIL_MET_GOES
/* how many preemptions and timeouts a report lists before it counts the rest */
#define LU_DRV_LIST_SHOWN 16
#define LU_DRV_MAX_SERIAL 5000000u /* phase 1 executions: beyond, the matrix is too large */

/* Verdicts: findings about the code under test, then errors that stop the
 * check. The last column is the exit status they lead to. TIMEOUT: an
 * execution blocked in something lineup does not control (a pipe, poll, a
 * sleep in the kernel), which a correct harness does under lineup when its
 * threads talk through the kernel: lineup could not check the test, which
 * says nothing of a bug (lu_drv_outcome_of). RESOURCE: a
 * system call of lineup's own failed (a thread, a process, a mapping),
 * most likely against a limit of the user's; it ends the whole run at
 * once, since the tests after it would fail the same way. */
#define LU_DRV_VERDICTS(X)                                                                                   \
    X(PASS, "pass", 0)                                                                                       \
    X(VIOLATION, "linearizability violation", 1)                                                             \
    X(STUCK, "stuck history with no serial explanation", 1)                                                  \
    X(NONDET, "nondeterminism", 1)                                                                           \
    X(CRASH, "crash", 1)                                                                                     \
    X(DIVERGE, "divergence", 1)                                                                              \
    X(TIMEOUT, "timeout", 2)                                                                                 \
    X(UNSUPPORTED, "unsupported call", 2)                                                                    \
    X(HARNESS, "harness error", 2)                                                                           \
    X(MISFIT, "the recorded schedule does not fit", 2)                                                       \
    X(MEMORY, "out of memory (lineup's, not a finding)", 3)                                                  \
    X(INTERNAL, "internal error", 3)                                                                         \
    X(RESOURCE, "resource limit", 3)

enum lu_drv_verdict {
#define LU_DRV_V_ENUM(name, text, rc) LU_DRV_V_##name,
    LU_DRV_VERDICTS(LU_DRV_V_ENUM)
#undef LU_DRV_V_ENUM
        LU_DRV_V_COUNT
};

const char *lu_drv_verdict_name(int v);
int lu_drv_verdict_exit(int v);

/* How the outcomes of a run (its tests, or its executions) combine into
 * its exit status and verdict line, in both modes: the most severe one
 * wins, in this order. An INCONCLUSIVE outcome (a timeout: lineup could
 * not run some code to the end, exit status 2) yields to a bug found
 * elsewhere in the run (exit status 1), which is a result all the same;
 * an ERROR of the check itself (exit status 2: an unsupported call, a
 * harness error, a replay that does not fit) and lineup's own INTERNAL
 * error (exit status 3) outrank both. */
enum lu_drv_outcome { LU_DRV_O_PASS, LU_DRV_O_INCONCLUSIVE, LU_DRV_O_BUG, LU_DRV_O_ERROR, LU_DRV_O_INTERNAL };

/* The outcome of a verdict or kind with this exit status; inconclusive:
 * it is a timeout. */
int lu_drv_outcome_of(int exit_status, bool inconclusive);
int lu_drv_outcome_exit(int outcome);
/* The verdict line's words for the run's outcome (pass: those of a run
 * that found nothing, interrupted or not). */
const char *lu_drv_outcome_verdict(int outcome, const char *pass);

/* A test: per thread, indices into the harness's operation table. */
struct lu_drv_test {
    unsigned nthreads;
    unsigned len[LU_DRV_MAX_THREADS];
    uint16_t cell[LU_DRV_MAX_THREADS][LU_DRV_MAX_CALLS];
};

unsigned lu_drv_test_calls(const struct lu_drv_test *t);

/* Phase-2 strategies (--strategy). DEFAULT is iterative preemption
 * bounding up to --preemptions, as IPB, except that an unbounded
 * --preemptions -1 is one unbounded DFS; under a budget it has half of it,
 * and what it leaves unexplored is sampled by POS with the rest
 * (lu_drv_default_samples). */
#define LU_DRV_STRATEGIES(X)                                                                                 \
    X(DEFAULT, "default", "iterative preemption bounding (default)")                                         \
    X(DFS, "dfs", "depth-first search within the preemption bound")                                          \
    X(IPB, "ipb", "iterative preemption bounding")                                                           \
    X(IDB, "idb", "iterative delay bounding")                                                                \
    X(RANDOM, "random", "random walk")                                                                       \
    X(PCT, "pct", "probabilistic concurrency testing")                                                       \
    X(POS, "pos", "partial order sampling")

enum lu_drv_strategy {
#define LU_DRV_S_ENUM(name, id, text) LU_DRV_S_##name,
    LU_DRV_STRATEGIES(LU_DRV_S_ENUM)
#undef LU_DRV_S_ENUM
        LU_DRV_S_COUNT
};

const char *lu_drv_strategy_id(int s);     /* "ipb" */
const char *lu_drv_strategy_text(int s);   /* "iterative preemption bounding" */
int lu_drv_strategy_parse(const char *id); /* -1: unknown */
/* Randomized strategies sample schedules: they need a budget and have no
 * notion of a completely covered bound. */
bool lu_drv_strategy_randomized(int s);
/* DEFAULT under a budget: the systematic search gets the first
 * lu_drv_default_systematic(max) executions, and when they run out before
 * it is complete, POS samples the rest. A budgeted DFS covers the corner
 * of the tree nearest its end (preemptions late in the execution): on 3x3
 * tests of the subject suite it missed whole kinds of bug that POS finds
 * in most tests (benchmarks/RESULTS.md, S23.1). */
bool lu_drv_default_samples(int strategy, uint64_t max_executions);
uint64_t lu_drv_default_systematic(uint64_t max_executions);

#define LU_DRV_MAX_EXPLORERS 64

struct lu_drv_job;
/* Explorer processes phase 2 of the job uses at once: a test's tree is
 * split only when the search is exhaustive (no budget whose cut would
 * depend on the order) and systematic. */
unsigned lu_drv_job_explorers(const struct lu_drv_job *j);
/* Explorer processes of the default strategy's sampled part (0: it has
 * none), which splits its chunks as --strategy pos does. */
unsigned lu_drv_job_sampling_explorers(const struct lu_drv_job *j);

/* What a worker is asked to do. */
struct lu_drv_job {
    char harness_path[4096];
    char harness_name[128];
    struct lu_drv_test test;
    int preemptions;         /* phase 2 bound (delays for idb), -1 unbounded */
    uint64_t max_executions; /* phase 1: error beyond; phase 2: budget; 0 = unlimited */
    uint32_t spin_bound;
    uint32_t watchdog_ms;
    int strategy;           /* enum lu_drv_strategy */
    int pct_depth;          /* PCT: bug depth d */
    bool por;               /* exhaustive phase 2: partial-order reduction (docs/por.md) */
    int tls;                /* enum lu_sched_tls: whose TLS the test threads run on */
    uint64_t seed;          /* randomized strategies: this test's seed */
    unsigned explorers;     /* phase-2 processes splitting this test's schedule tree (>= 1) */
    uint64_t recycle_every; /* testing: restart the explorer after this many executions (0: by memory) */
    uint64_t max_serial;    /* phase 1 gives up beyond this many executions (0: LU_DRV_MAX_SERIAL) */
    uint32_t recycle_mb;    /* restart the explorer when its private memory grew by this much */
    uint32_t heap_cap_mb;   /* stop the test when a process's heap grows by this much in one go (0: never) */
    uint32_t cache_mb;      /* the reduction's prefix-trace cache per test, at most (0: none) */
    unsigned jobs;          /* --jobs, for the advice of an out-of-memory report */
    bool list_only;         /* just report the harnesses of the .so */
    unsigned want;          /* findings (1 << LU_DRV_F_*) to look for; 0: all */
    int cpu;                /* core to pin the worker to, -1: none */
    /* replay: one execution of the given phase following sched */
    int replay_phase; /* 0: no replay */
    uint32_t replay_len;
};

/* A violation and a stuck history are different bugs (the lost wakeup of a
 * queue can also make take() return garbage): phase 2 records the first of
 * each kind instead of stopping at the first failure. */
enum { LU_DRV_F_VIOLATION, LU_DRV_F_STUCK, LU_DRV_F_COUNT };

struct lu_drv_finding {
    int verdict; /* LU_DRV_V_PASS: none */
    uint32_t sched_len;
    uint64_t hist; /* lu_hist_hash_canon of the failing history, for its replay to compare */
    char report[LU_DRV_REPORT_CAP / 2];
    struct lu_sched_step sched[LU_DRV_TRACE_CAP];
};

/* Where a worker was when it died, written from the signal path. */
/* lu_drv_fatal.kind when lineup's own invariant failed (lu_sched_bug);
 * module holds the message. */
#define LU_DRV_FATAL_INTERNAL 100

struct lu_drv_fatal {
    int kind; /* enum lu_sched_fatal or LU_DRV_FATAL_INTERNAL, 0 = none */
    int code;
    int exit_fn; /* LU_SCHED_FATAL_EXIT: enum lu_sched_exit_fn */
    int tid;
    int tid_base;     /* threads started before the test's (lu__tname) */
    uintptr_t pc_off; /* pc - module base */
    char module[512];
    char symbol[128]; /* BLOCKED: the call it blocks in; EXEC: the exec called */
};

/*
 * Phase 2 runs in explorer processes forked by the worker after phase 1:
 * the code under test leaks what stuck executions never free (destroy() is
 * not called on an object threads are stuck in), so an explorer whose
 * private memory grew too much exits and a fresh copy of the worker's clean
 * post-phase-1 state goes on where it stopped. Several explorers may split
 * one test's schedule tree (parallel search). Each has a lane: the state of
 * its current execution (readable post mortem) and its work item.
 *
 * A work item of the DFS strategies is a DFS stack: steps g[0..g_len) with
 * their explored alternatives (done), of which the first g_base are frozen.
 * Exploring it means the subtree below the whole stack, then every
 * unexplored alternative at steps g_base..g_len-1, deepest first: exactly
 * what one DFS from that stack does, so an item can be saved, resumed in
 * another process, or have its shallow alternatives given to an idle
 * explorer, without changing the set of executions.
 */
enum { LU_DRV_EXIT_NONE, LU_DRV_EXIT_DONE, LU_DRV_EXIT_RECYCLE, LU_DRV_EXIT_FINISHED };

struct lu_drv_lane {
    _Atomic int pid; /* the process running this lane's executions: asked where it blocks on timeout */
    uint32_t nev;
    struct lu_hist_event ev[LU_DRV_MAX_EVENTS]; /* current execution's history (no bytes) */
    struct lu_drv_fatal fatal;
    uint32_t sched_len;
    int exit_reason; /* LU_DRV_EXIT_*: why the explorer ended */
    bool has_item;   /* g holds work */
    uint32_t g_len, g_base;
    struct lu_sched_trace *trace; /* LU_DRV_TRACE_CAP steps */
    struct lu_sched_step *g;      /* LU_DRV_TRACE_CAP steps */
};

/* Coordination of the explorers of one test, in shared memory. */
struct lu_drv_pool {
    _Atomic uint32_t lock;
    _Atomic uint32_t seq;  /* futex word: bumped when items are queued or the search ends */
    _Atomic int stop;      /* every explorer ends at its next check */
    _Atomic int want_work; /* explorers without an item */
    _Atomic int claim;     /* lane + 1 of the explorer that owns the result, 0: none */
    _Atomic uint64_t budget_used;
    _Atomic uint64_t next_chunk; /* randomized strategies: the next chunk of executions to run */
    int sampling;                /* DEFAULT's second part: POS chunks instead of the DFS */
    _Atomic uint64_t pruned;     /* this round: alternatives cut by the bound */
    unsigned nexp;
    unsigned busy;  /* explorers holding an item */
    int round;      /* bound of the current round */
    int last_round; /* -1: unbounded iteration until nothing was pruned */
    int bound_kind;
};

#define LU_DRV_SHM_MAGIC 0x6c696e6575702121ULL /* "lineup!!" */

struct lu_drv_shm {
    uint64_t magic; /* LU_DRV_SHM_MAGIC, and magic_end: a stray write of the code under test breaks them */
    struct lu_drv_job job;

    /* live progress, readable after a crash */
    _Atomic int phase;
    _Atomic uint64_t executions[3]; /* [1], [2] per phase; [0] serial ones run again (--timeout's progress) */
    _Atomic uint64_t histories;     /* distinct phase-2 histories */
    _Atomic uint64_t digest;        /* sum of their hashes: equal sets give equal sums */
    _Atomic uint64_t checks;        /* phase-2 linearizability checks */
    _Atomic uint64_t stuck;         /* phase-2 executions that got stuck */
    _Atomic uint64_t cut;           /* phase-2 executions cut short as redundant (counted in executions) */
    _Atomic uint64_t recycles;      /* explorer restarts */
    _Atomic uint64_t points;
    uint64_t spec_checks;      /* phase 1: serial histories checked for determinism */
    uint64_t called_cells;     /* phase 1: bit i when invocation i was called in some serial execution */
    uint64_t returned_cells;   /* phase 1: bit i when invocation i returned in some serial execution */
    uint64_t bounded_cells;    /* ... and was left pending by one taken for stuck at --spin-bound while
                                * the object's own threads still changed memory */
    bool phase1_done;          /* phase 1 ran every serial order (the two above are complete) */
    bool phase1_over;          /* phase 1 gave up at LU_DRV_MAX_SERIAL executions */
    struct lu_hist_test htest; /* the worker's operation table, for reports */

    /* result */
    _Atomic int done;
    int verdict;
    int fail_phase;
    uint64_t serial_full, serial_stuck;
    int complete_bound; /* phase 2 covered every schedule up to this bound */
    bool truncated;     /* phase 2 stopped at the execution budget */
    unsigned explorers; /* explorer processes phase 2 used at once */
    _Atomic uint64_t explorer_executions[LU_DRV_MAX_EXPLORERS]; /* phase-2 executions each explorer ran */
    char report[LU_DRV_REPORT_CAP];
    uint32_t sched_len;
    int misfit;           /* replay, LU_DRV_V_MISFIT: enum lu_sched_misfit; sched_len choices fitted */
    uint64_t replay_hist; /* replay of phase 2: lu_hist_hash_canon of the replayed history */
    struct lu_drv_finding findings[LU_DRV_F_COUNT];
    /* list_only: a line per harness, its name and its operations' labels;
     * after the findings, so that a job's start does not clear it */
    char harnesses[LU_DRV_LIST_CAP];
    struct lu_drv_pool pool;

    struct lu_drv_lane lane; /* lane 0: the worker's own, and the first explorer's */
    uint64_t magic_end;

    /* the scheduler's trace lives here so a parent can read it post mortem;
     * the replay schedule and lane 0's work item follow it */
    struct lu_sched_trace trace; /* LU_DRV_TRACE_CAP steps follow */
};

size_t lu_drv_shm_size(void);
struct lu_sched_step *lu_drv_shm_replay(struct lu_drv_shm *shm);
struct lu_sched_step *lu_drv_shm_stack(struct lu_drv_shm *shm);

/* ---- phase-2 search support (lu_drv_explore.c) ---- */

/* The set of distinct histories (64-bit hashes) of one test, in shared
 * memory so that restarted and parallel explorers see every history
 * checked before. Not a scheduling point; never called from code under
 * test. */
struct lu_drv_seen;
/* NULL (errno set) when not even the smallest table can be mapped. */
struct lu_drv_seen *lu_drv_seen_create(void);
/* 1: new (the caller checks it), 0: seen before, -1: the set is full. */
int lu_drv_seen_insert(struct lu_drv_seen *s, uint64_t hash);
uint64_t lu_drv_seen_count(const struct lu_drv_seen *s);
/* The address space the largest table takes, and the smallest. */
size_t lu_drv_seen_full_size(void);
size_t lu_drv_seen_min_size(void);
/* Whether the address space left (RLIMIT_AS) made the table smaller than
 * lu_drv_seen_full_size: a full set then names that limit. */
bool lu_drv_seen_limited(const struct lu_drv_seen *s);

/* Queue of work items given away by busy explorers, in shared memory. */
struct lu_drv_items;
struct lu_drv_items *lu_drv_items_create(void);
size_t lu_drv_items_size(void);
bool lu_drv_items_full(const struct lu_drv_items *q);
/* Queues g[0..len) as an item whose steps are all frozen. */
bool lu_drv_items_push(struct lu_drv_items *q, const struct lu_sched_step *g, uint32_t len);
bool lu_drv_items_pop(struct lu_drv_items *q, struct lu_sched_step *g, uint32_t *len);
unsigned lu_drv_items_count(const struct lu_drv_items *q);

void lu_drv_pool_lock(struct lu_drv_pool *p);
void lu_drv_pool_unlock(struct lu_drv_pool *p);
/* Wakes explorers waiting in lu_drv_pool_wait. */
void lu_drv_pool_wake(struct lu_drv_pool *p);
/* Waits (at most ~20 ms) until seq differs from seen. */
void lu_drv_pool_wait(struct lu_drv_pool *p, uint32_t seen);

/* Worker entry point: runs shm->job, fills the result, never returns. */
void lu_drv_worker(struct lu_drv_shm *shm) __attribute__((noreturn));

/* Labels of the driver's own scheduling points (names in lu_rt.c). */
#define LU_DRV_L_CALL LU_RT_L_CALL
#define LU_DRV_L_JOIN LU_RT_L_JOIN

/* Parses one test as --test takes it: "enqueue(200) try_dequeue(0) | take()"
 * against an operation table given as labels "name(arg)". Returns 0 or -1
 * with a message in err. */
int lu_drv_test_parse(const char *s, const char *const *oplabels, unsigned nops, struct lu_drv_test *t,
                      char *err, size_t errlen);
/* Appends a report's name of scheduler thread tid of a Line-Up execution
 * whose test threads come after base others (started by create() or a
 * setup call): "the main thread" (tid 0), "create()'s thread N" for those
 * others, "thread N" for the test's thread N and, numbered on from them,
 * the threads started later. */
void lu_drv_thread_name(struct lu_hist_buf *b, int tid, int base);
/* Appends "function (file:line)" for an offset in module, from addr2line,
 * or "module+offset" when it knows nothing. */
void lu_drv_addr2line(struct lu_hist_buf *b, const char *module, uintptr_t off);

/* A new replay file "DIR/STEM-N.replay", N counting on from *seq, created
 * with O_EXCL so that no existing name is reused, a dangling symlink
 * included (it would lead out of dir), nor one a concurrent run takes.
 * The name goes to out; NULL with errno set on failure. */
FILE *lu_drv_replay_create(const char *dir, const char *stem, unsigned *seq, char *out, size_t outlen);

/* A value of a replay file's line, escaped so that it stays on its line
 * (\n, \r, \\), and back (in place). */
void lu_drv_replay_put(FILE *f, const char *s);

/* Whether the ELF image [m, m + size) says in its .comment section that
 * code of it was compiled by lineup-cc or lineup_add_harness
 * (lineup-cc-mark.h). */
bool lu_drv_elf_marked(const unsigned char *m, size_t size);

/* s as one shell word, quoted if it needs it, for the commands reports
 * print. Static storage: at most 4 such words per printf. */
const char *lu_drv_shell_word(const char *s);

/* Seconds on the monotonic clock, for the driver's timing. Any thread. */
double lu_drv_now(void);

/* For an unknown option ARG ("--name" or "--name=value"): a hint when it
 * is an option of the other mode (in_run: lineup run is parsing), else
 * NULL. */
const char *lu_drv_option_elsewhere(const char *arg, bool in_run);

/* LINEUP_TRACE_NAMES=FILE (Line-Up driver): every phase-2 execution that
 * ran to its end appends a line "TEST BOUND NAME" to FILE, NAME being the
 * prefix-trace cache's name of its Mazurkiewicz trace (lu_sched_result's
 * trace_name; "-" when it has none) and TEST a hash of the harness and the
 * test. Distinct names per test and bound are its traces, the least any
 * trace-preserving reduction runs (benchmarks/subjects/reduction.sh,
 * TRACES=1). The driver opens it (O_APPEND, one write per line, so that
 * the workers it forks share it); -1 when not asked for. */
extern int lu_drv_trace_names_fd;

/* SIGINT, SIGTERM and SIGHUP in both modes. While lu_drv_graceful is set
 * (a search runs), the first one is a request to stop: the handler stores
 * it in lu_drv_interrupted, and the main loop stops and reports what was
 * found; a repeat within 2 s counts as the same request. */
extern volatile sig_atomic_t lu_drv_interrupted, lu_drv_graceful;

/* For a signal handler: whether sig was taken as (part of) a request to
 * stop; false means the caller should die of it. Async-signal-safe. */
bool lu_drv_interrupt_absorbed(int sig);

/* A signal of those sent by a process below lineup's own (the code under
 * test: a harness's call, a program's thread that kills its parent) is no
 * request to stop: the handler calls this first, which records it in
 * lu_drv_stray_sig and lu_drv_stray_pid and returns true. Async-signal-safe
 * (it reads /proc with open and read). */
bool lu_drv_signal_stray(int sig, const siginfo_t *si);
extern volatile sig_atomic_t lu_drv_stray_sig, lu_drv_stray_pid;
/* Prints a note of such a signal, if one came, to out. */
void lu_drv_note_stray(FILE *out);

/* Dies of the signal in lu_drv_interrupted, as the shell and make expect
 * of an interrupted command (exit status 128 + signal). */
void lu_drv_die_interrupted(void) __attribute__((noreturn));

/* Dies of signal sig (its default action, unblocked first), or exits
 * 128 + sig if that does not end the process. */
void lu_drv_die_of(int sig) __attribute__((noreturn));
void lu_drv_replay_unescape(char *s);

/* Reads the next line of a replay file into *line (realloc'd, *cap its
 * size), without its newline; a file that is no replay file (/dev/zero, a
 * binary, a stream with no newline) must not be read until memory runs
 * out. Returns the line's length, or LU_DRV_LINE_EOF, LU_DRV_LINE_LONG (more
 * than max bytes before a newline: no line is read past that),
 * LU_DRV_LINE_NUL (a NUL byte, which no replay file holds), LU_DRV_LINE_ERR
 * (a read error or no memory, errno set). *total counts the bytes read. */
enum { LU_DRV_LINE_EOF = -1, LU_DRV_LINE_LONG = -2, LU_DRV_LINE_NUL = -3, LU_DRV_LINE_ERR = -4 };
long lu_drv_replay_line(FILE *f, char **line, size_t *cap, size_t max, size_t *total);

/* Why a replay stopped following its recorded schedule (why: enum
 * lu_sched_misfit) at choice at of len, in words. tid_offset: what to
 * subtract from a schedule's tN to get the report's thread number (1 in
 * Line-Up files, whose t0 is the harness's main thread; 0 in run files). */
void lu_drv_misfit_why(struct lu_hist_buf *b, int why, const struct lu_sched_step *steps, uint32_t len,
                       uint32_t at, unsigned tid_offset);

/* Command-line usage errors of `lineup` (prog "lineup") and `lineup run`
 * (prog "lineup run"): prints "PROG: message" and a hint to stderr and
 * exits with status 2. */
void lu_drv_vdie_usage(const char *prog, const char *fmt, va_list ap) __attribute__((noreturn));

/* Parses a whole number in [0, max] for option opt, or dies as above. */
uint64_t lu_drv_parse_u64(const char *prog, const char *opt, const char *v, uint64_t max);

/* Reads a small file (a /proc or /sys entry) into buf, NUL-terminated.
 * Returns its length, or -1 when it cannot be read or is empty. */
ssize_t lu_drv_read_small(const char *path, char *buf, size_t cap);

/* The memory this process could still use, in MB: MemAvailable, or what a
 * cgroup v2 limit leaves if that is less; 0 when unknown. */
uint64_t lu_drv_mem_available_mb(void);

/* How much an explorer's private memory may grow before it restarts, in
 * MB, by default (LINEUP_RECYCLE_MB overrides it): a quarter of avail_mb
 * shared by the jobs, between LU_DRV_RECYCLE_MIN_MB and
 * LU_DRV_RECYCLE_MAX_MB. Restarts lose what the reduction learnt
 * (docs/guide.md, "Memory"). */
#define LU_DRV_RECYCLE_MIN_MB 32
#define LU_DRV_RECYCLE_MAX_MB 256
uint32_t lu_drv_recycle_mb(uint64_t avail_mb, unsigned jobs);
/* How much the heap of one test process may grow before the test stops
 * with an out-of-memory report, in MB (0: no cap): the memory available
 * shared by the jobs, and at least twice recycle_mb, since an explorer
 * restarts only between executions. */
uint32_t lu_drv_heap_cap_mb(uint64_t avail_mb, unsigned jobs, uint32_t recycle_mb);
/* The largest prefix-trace cache of the reduction, in MB (docs/por.md,
 * section 8): LINEUP_PC_MB, 0 turning it off (for measurements), or the
 * scheduler's default. A malformed value dies as a usage error of prog
 * ("lineup", "lineup run"), like a bad option. */
uint32_t lu_drv_cache_mb(const char *prog);

/* Parses "on" or "off" for option opt, or dies as above. */
bool lu_drv_parse_onoff(const char *prog, const char *opt, const char *v);
/* --tls: enum lu_sched_tls from "auto", "per-thread" or "shared"; the
 * parse dies with a usage error (status 2) on anything else, tls_parse
 * returns -1 (for replay files). */
int lu_drv_parse_tls(const char *prog, const char *v);
int lu_drv_tls_parse(const char *v);
const char *lu_drv_tls_name(int tls);

/* Parses --preemptions: a whole number up to 64, or -1 for no bound. */
int lu_drv_parse_preemptions(const char *prog, const char *v);

/* Dies as above unless dir names an existing directory this process can
 * create files in (the value of option opt). */
void lu_drv_check_dir(const char *prog, const char *opt, const char *dir);

/* The start of main of both modes: opens /dev/null on a closed fd 0, 1 or
 * 2, so that no file lineup opens becomes one of them; and at exit checks
 * that standard output was written (GNU close_stdout: a write error is
 * reported and the exit status becomes 3). */
void lu_drv_stdio_init(void);

/* Formats a test the same way. */
void lu_drv_test_format(struct lu_hist_buf *b, const struct lu_drv_test *t, const char *const *oplabels);

/* --json FILE of both modes. The document is kept in memory until the
 * end; then FILE is written as FILE.partial.PID beside the real file (a
 * symlink is followed) and renamed onto it, so that a run that stops early,
 * however it dies, leaves no truncated JSON; a device, FIFO or socket, or
 * the file lineup's own output goes to, is written directly, in one go at
 * the end; "-" (or lineup's standard output) puts the JSON alone on
 * standard output and the report on standard error. One per process. */
struct lu_drv_json {
    const char *arg;     /* as given; NULL: no --json */
    char path[PATH_MAX]; /* resolved: the file to rename onto or write */
    bool direct;         /* written directly (a device, a FIFO, standard output) */
    bool to_stdout;      /* "-" or lineup's standard output: the report goes to stderr */
    FILE *f;             /* while it is written */
    char *mem;           /* the document, kept until the end */
    size_t len;
};
/* Option parsing (prog: "lineup" or "lineup run"): resolves v into j, or
 * dies as a usage error (an empty name, a directory, a directory lineup
 * cannot write in), before anything runs. */
void lu_drv_json_resolve(const char *prog, const char *v, struct lu_drv_json *j);
/* Whether j is written into a file that is input's (the harness, the
 * program): replacing that by the JSON would destroy what was checked. */
bool lu_drv_json_is(const struct lu_drv_json *j, const char *input);
/* With to_stdout: keeps lineup's standard output for the JSON and points
 * fd 1 at standard error, where the report goes. 0, or 3 with a message. */
int lu_drv_json_take_stdout(const char *prog, struct lu_drv_json *j);
/* Opens j->f, in memory. 0, or an exit status with a message printed. */
int lu_drv_json_open(const char *prog, struct lu_drv_json *j);
/* Writes the document: directly, or into FILE.partial.PID renamed onto
 * FILE (removed at exit if that does not finish). 0, or 3 with a message
 * printed. */
int lu_drv_json_finish(const char *prog, struct lu_drv_json *j);
/* Removes an unfinished FILE.partial.PID of this process: for a signal
 * handler about to die (async-signal-safe). */
void lu_drv_json_cleanup(void);
/* s as a JSON string: control characters escaped, bytes that are not
 * UTF-8 (a program's output can be anything) as U+FFFD. */
void lu_drv_json_str(FILE *f, const char *s);

#endif
