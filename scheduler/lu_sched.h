/*
 * lu_sched: the controlled cooperative scheduler.
 *
 * Test threads are pthreads taken from a pool, but they all run on one
 * kernel thread, the controller's (lu_sched_ctx.c): each pool thread lends
 * its stack and control block (TLS, errno, pthread_self) and sleeps, and a
 * handoff is a user-space context switch that also moves the thread pointer,
 * so exactly one controlled thread runs at any moment and a switch costs
 * tens of nanoseconds. Before every visible operation (a pthread call, an
 * atomic or volatile access, an operation boundary declared by the layer
 * above) the running thread stops at a scheduling point, the strategy
 * chooses which thread performs its next visible operation, and the running
 * thread switches to it. Blocking is modelled here, never delegated to the
 * kernel: a thread whose next operation cannot proceed (a held mutex, an
 * unsignalled condition, a zero semaphore, an unfinished join) is disabled,
 * so deadlocks are seen exactly.
 *
 * One scheduler drives one execution at a time in a process. The thread that
 * calls lu_sched_run() is the controller: it is not scheduled; its context
 * is suspended until the execution ends. When the execution ends stuck,
 * the threads still inside the code under test are abandoned (their frames
 * are never resumed; the next execution starts fresh contexts).
 *
 * Concurrency contract: a function must be called by a controlled thread
 * (lu_sched_self() >= 0) of the running execution (which is always the
 * only one running) unless its comment names other callers: "controller
 * only" (the thread that calls lu_sched_run, between executions), "server"
 * (a fork server, below), "any thread" (controlled or not: the layer
 * above's own threads too), or what it does on a thread no scheduler
 * controls. Each comment also says whether the function is a scheduling
 * point, one that may switch to another thread before it returns.
 *
 * The scheduler knows nothing of harnesses, operations or histories.
 */
#ifndef LU_SCHED_H
#define LU_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#pragma GCC visibility push(default)

#define LU_SCHED_MAX_THREADS 64

/* The real-time signal the divergence watchdog is delivered with (needs
 * <signal.h>). Interposers keep it unblocked and keep its handler: code
 * under test that blocks or ignores every signal must not turn the
 * watchdog off. */
#define LU_SCHED_WATCHDOG_SIGNAL (SIGRTMIN + 7)

/* Error codes of the tool itself (not findings about the code under test). */
#define LU_SCHED_ERRORS(X)                                                                                   \
    X(OK, 0, "success")                                                                                      \
    X(ENOMEM, -1, "out of memory")                                                                           \
    X(EINVAL, -2, "invalid argument")                                                                        \
    X(ETHREADS, -3, "too many threads in one execution")                                                     \
    X(ESYS, -4, "system call failed")                                                                        \
    X(EREPLAY, -5, "replay schedule does not fit this program")                                              \
    X(EDONE, -6, "exploration is complete")

enum lu_sched_err {
#define LU_SCHED_ERR_ENUM(name, val, msg) LU_SCHED_##name = (val),
    LU_SCHED_ERRORS(LU_SCHED_ERR_ENUM)
#undef LU_SCHED_ERR_ENUM
};

/* Returns a static message for an lu_sched_err value. Any thread; not a
 * scheduling point. */
const char *lu_sched_strerror(int err);

/* Exploration strategies. */
enum lu_sched_strategy {
    LU_SCHED_DFS,    /* exhaustive depth-first, bounded by preemption_bound */
    LU_SCHED_RANDOM, /* seeded random walk, one execution per call */
    LU_SCHED_REPLAY, /* follow config.replay exactly, once; ends as MISFIT where it cannot */
    LU_SCHED_PCT,    /* probabilistic concurrency testing: random priorities, pct_depth - 1 change points */
    LU_SCHED_POS     /* partial order sampling: random priorities per pending event */
};

/* What preemption_bound counts (DFS). */
enum lu_sched_bound_kind {
    LU_SCHED_BOUND_PREEMPTIONS = 0, /* switches away from a thread that could go on */
    LU_SCHED_BOUND_DELAYS = 1       /* skips of the round-robin scheduler's choice (IDB) */
};

/* How an execution ended. */
#define LU_SCHED_OUTCOMES(X)                                                                                 \
    X(COMPLETE, "complete")                                                                                  \
    X(DEADLOCK, "deadlock")                                                                                  \
    X(LIVELOCK, "livelock")                                                                                  \
    X(TOO_LONG, "too many scheduling points")                                                                \
    X(NONDET, "uncontrolled nondeterminism")                                                                 \
    X(UNSUPPORTED, "unsupported call")                                                                       \
    X(ABORTED, "aborted by the layer above")                                                                 \
    X(DISCARDED, "discarded (an assumption failed)")                                                         \
    X(MISFIT, "the recorded schedule does not fit")                                                          \
    X(ERROR, "lineup could not run the execution")

enum lu_sched_outcome {
#define LU_SCHED_OUT_ENUM(name, msg) LU_SCHED_OUT_##name,
    LU_SCHED_OUTCOMES(LU_SCHED_OUT_ENUM)
#undef LU_SCHED_OUT_ENUM
        LU_SCHED_OUT_COUNT /* not an outcome: for arrays indexed by outcome */
};

/* The outcome's message above, "?" for other values. Any thread; not a
 * scheduling point. */
const char *lu_sched_outcome_name(enum lu_sched_outcome o);

/* Why a replay could not follow its schedule (LU_SCHED_OUT_MISFIT). A
 * replay never guesses: a schedule that does not fit belongs to another
 * program, or to one that does not repeat itself, and what it would show
 * is an execution nobody recorded. */
#define LU_SCHED_MISFITS(X)                                                                                  \
    X(NONE, "the schedule fits")                                                                             \
    X(NO_THREAD, "the recorded thread does not exist")                                                       \
    X(NOT_RUNNABLE, "the recorded thread cannot run")                                                        \
    X(NOT_DATA, "the execution asks for a data value where a thread was recorded")                           \
    X(NOT_THREAD, "the execution chooses a thread where a data value was recorded")                          \
    X(DATA_RANGE, "the recorded data value is out of range")                                                 \
    X(ENDED, "the schedule ended but the execution went on")                                                 \
    X(LEFT_OVER, "the execution ended with recorded choices left over")

enum lu_sched_misfit {
#define LU_SCHED_MISFIT_ENUM(name, msg) LU_SCHED_MISFIT_##name,
    LU_SCHED_MISFITS(LU_SCHED_MISFIT_ENUM)
#undef LU_SCHED_MISFIT_ENUM
        LU_SCHED_MISFIT_COUNT
};

/* The misfit's message above, "?" for other values. Any thread; not a
 * scheduling point. */
const char *lu_sched_misfit_name(enum lu_sched_misfit m);

/* Kinds of visible operations; they decide enabledness and dependence. */
#define LU_SCHED_KINDS(X)                                                                                    \
    X(FREE, "boundary")                                                                                      \
    X(YIELD, "yield")                                                                                        \
    X(READ, "read")                                                                                          \
    X(WRITE, "write")                                                                                        \
    X(RMW, "read-modify-write")                                                                              \
    X(FENCE, "fence")                                                                                        \
    X(MUTEX_LOCK, "mutex lock")                                                                              \
    X(MUTEX_TRYLOCK, "mutex trylock")                                                                        \
    X(MUTEX_TIMEDLOCK, "mutex timedlock")                                                                    \
    X(MUTEX_UNLOCK, "mutex unlock")                                                                          \
    X(RW_RDLOCK, "rwlock rdlock")                                                                            \
    X(RW_WRLOCK, "rwlock wrlock")                                                                            \
    X(RW_TRY, "rwlock trylock")                                                                              \
    X(RW_TIMED_RD, "rwlock timed rdlock")                                                                    \
    X(RW_TIMED_WR, "rwlock timed wrlock")                                                                    \
    X(RW_UNLOCK, "rwlock unlock")                                                                            \
    X(RW_WR_BLOCKED, "rwlock wrlock (waiting)")                                                              \
    X(COND_WAIT, "cond wait")                                                                                \
    X(COND_TIMEDWAIT, "cond timedwait")                                                                      \
    X(COND_REACQUIRE, "cond reacquire")                                                                      \
    X(COND_SIGNAL, "cond signal")                                                                            \
    X(COND_BROADCAST, "cond broadcast")                                                                      \
    X(SEM_WAIT, "sem wait")                                                                                  \
    X(SEM_TRYWAIT, "sem trywait")                                                                            \
    X(SEM_TIMEDWAIT, "sem timedwait")                                                                        \
    X(SEM_POST, "sem post")                                                                                  \
    X(BARRIER_WAIT, "barrier wait")                                                                          \
    X(BARRIER_BLOCKED, "barrier blocked")                                                                    \
    X(ONCE, "once")                                                                                          \
    X(ONCE_BLOCKED, "once (waiting)")                                                                        \
    X(CREATE, "thread create")                                                                               \
    X(JOIN, "thread join")                                                                                   \
    X(JOIN_ALL, "join all")                                                                                  \
    X(EXIT, "process exit")                                                                                  \
    X(SIGNAL, "signal")                                                                                      \
    X(THREAD_END, "thread end")                                                                              \
    X(SIGSTATE, "signal mask or action change")                                                              \
    X(OTHER, "other")

enum lu_sched_kind {
#define LU_SCHED_KIND_ENUM(name, msg) LU_SCHED_K_##name,
    LU_SCHED_KINDS(LU_SCHED_KIND_ENUM)
#undef LU_SCHED_KIND_ENUM
        LU_SCHED_K_COUNT
};

/* The kind's name above, "?" for other values. Any thread; not a
 * scheduling point. */
const char *lu_sched_kind_name(enum lu_sched_kind k);

/*
 * One choice of a schedule. A schedule is the sequence of choices; replaying
 * it reproduces the execution. Thread choices say which thread performs its
 * next visible operation; data choices resolve the other nondeterminism the
 * scheduler owns (which condition waiter a signal wakes).
 */
enum lu_sched_choice_kind { LU_SCHED_CHOOSE_THREAD = 0, LU_SCHED_CHOOSE_DATA = 1 };

struct lu_sched_step {
    uint8_t kind;   /* enum lu_sched_choice_kind */
    uint8_t chosen; /* thread id, or data value */
    uint8_t op;     /* enum lu_sched_kind of the chosen thread's operation */
    uint8_t flags;  /* LU_SCHED_STEP_* */
    uint8_t prev;   /* thread that ran before this choice */
    uint8_t pad;
    uint16_t label;    /* the layer above's label of that operation */
    uint16_t preempts; /* bound cost (preemptions or delays) up to and with this */
    uint64_t enabled;  /* alternatives: thread mask, or (1 << n) - 1 */
    uint64_t done;     /* DFS: alternatives explored or scheduled */
    uint64_t spin;     /* alternatives that are spinning threads (in enabled): choosing one costs 1
                        * and runs it until it stops spinning (docs/strategies.md) */
};

#define LU_SCHED_STEP_PREEMPT 0x01     /* this choice preempted a thread */
#define LU_SCHED_STEP_SPIN 0x02        /* the previous thread was spinning */
#define LU_SCHED_STEP_PREEMPTIBLE 0x04 /* switching away from prev costs a preemption */
#define LU_SCHED_STEP_FREE 0x08        /* an operation boundary (or everyone spins): any choice is free */
#define LU_SCHED_STEP_TIMEOUT 0x10     /* the chosen thread's timed wait gave up (ETIMEDOUT) */

/* Where a schedule lives while it runs: a caller-owned buffer, so that a
 * parent process can read it after the worker died in the middle of it. */
struct lu_sched_trace {
    uint32_t len; /* steps of the current execution so far */
    uint32_t cap;
    struct lu_sched_step steps[];
};

/* Whether the choice at step i of tr ran a spinning thread chosen at a cost
 * (lu_sched_step.spin) only until it took a step on an object that a
 * thread that could run was about to act on, not until it stopped
 * spinning: DFS records that as a data choice of 1 at the thread's next
 * point (docs/strategies.md, "Spinning threads"). Any thread; not a
 * scheduling point. */
static inline bool lu_sched_step_until_met(const struct lu_sched_trace *tr, uint32_t i)
{
    if (i + 1 >= tr->len)
        return false;
    const struct lu_sched_step *a = &tr->steps[i], *d = &tr->steps[i + 1];
    return a->kind == LU_SCHED_CHOOSE_THREAD && a->chosen < 64 && (a->spin >> a->chosen & 1) &&
           d->kind == LU_SCHED_CHOOSE_DATA && d->prev == a->chosen && d->chosen == 1;
}

/* Size in bytes of a trace buffer for cap steps. Any thread (the buffer is
 * made before its scheduler); not a scheduling point. */
size_t lu_sched_trace_size(uint32_t cap);

struct lu_sched_config {
    enum lu_sched_strategy strategy;
    int preemption_bound;         /* DFS/RANDOM: max preemptions (or delays), -1 = unbounded */
    int bound_kind;               /* enum lu_sched_bound_kind */
    int pct_depth;                /* PCT: bug depth d (d - 1 priority change points); 0 = 3 */
    uint32_t pct_steps;           /* PCT: expected steps per execution; 0 = learn from earlier executions */
    uint64_t seed;                /* RANDOM, PCT, POS */
    uint32_t spin_bound;          /* spinning steps with no news before livelock; 0 = default 1000 */
    uint32_t watchdog_ms;         /* CPU time without a scheduling point = divergence; 0 = default 1000 */
    struct lu_sched_trace *trace; /* required: holds the DFS stack / current schedule */
    const struct lu_sched_step *replay; /* REPLAY: the schedule to follow; DFS: a prefix to start from */
    /* REPLAY: longer than trace->cap is LU_SCHED_EREPLAY (cutting it would
     * replay a prefix as if it were the recording) */
    uint32_t replay_len;
    uint32_t frozen_len; /* DFS: never backtrack into the first frozen_len steps of the prefix
                          * (explores only the subtree below it: parallel search) */
    /* Called on the dying thread when a fatal event ends the process: a
     * signal, exit() from code under test, divergence. Must be
     * async-signal-safe. tid is the controlled thread, or -1. */
    void (*on_fatal)(void *arg, int kind, int code, int tid, uintptr_t pc);
    void *on_fatal_arg;
    /* Optional: called with each operation's return address at scheduling
     * points (for "where was each thread" in replays). */
    void (*on_point)(void *arg, int tid, enum lu_sched_kind k, uint16_t label, uintptr_t pc);
    void *on_point_arg;
    /* DFS: partial-order reduction (docs/por.md). Skips schedules that differ
     * from an explored one only in the order of independent steps, keeping
     * the preemption bound sound: the set of outcomes (final states, values
     * read, deadlocks) within the bound is unchanged. The layer above may
     * record events right after a FREE point and where a thread's run
     * reaches its next FREE point or its end: a step that leaves a FREE
     * point stays ordered with one that reaches one, but two steps of
     * different threads that both leave, or both reach, FREE points may
     * come in either order, which must not matter to the layer above
     * (docs/por.md, section 1). Executions found to be redundant part-way
     * end as LU_SCHED_OUT_DISCARDED (counted in stats.por_pruned). Ignored
     * with delay bounding and other strategies. */
    bool por;
    /* With por: the prefix-trace cache (lu_sched_cache_create) this search
     * reads and fills; NULL: none (sleep sets alone). */
    struct lu_sched_cache *cache;
    /* Skip the happens-before clocks, for a layer above that detects no data
     * races: lu_sched_vc and lu_sched_clock then order nothing (clocks keep
     * their initial values). Saves the clock joins at every access. */
    bool no_clocks;
    /* Whose TLS the controlled threads run on (enum lu_sched_tls). */
    int tls;
    /* An atomic section (lu_sched_atomic_begin) keeps out only the threads
     * marked by lu_sched_takes_turns: the others (an object's own threads,
     * started before the marked ones or left running by a section) run
     * beside it, as they would beside a serial call. Off: a section keeps
     * out every thread but those created in it. With turns, the others'
     * steps while none that takes turns can go on do not start the
     * livelock count again, and an execution in which only they went
     * round for spin_bound looks ends as a DEADLOCK (docs/strategies.md,
     * "Idle threads"). */
    bool turns;
    /* With turns: the threads that take no turns go on only when none that
     * takes turns (or was created in the section under way) can go on
     * without spinning, so that a thread that never stops (a ticker, a
     * poller) leaves serial executions finite: it runs when the threads
     * that take turns wait for it. For a layer above that explores every
     * schedule of its serial executions without a bound. */
    bool turns_first;
    /* Waits that poll under a lock count as spinning (docs/strategies.md,
     * "Idle threads"): an idle thread's quiet steps (a lock taken back, a
     * look at what it saw) do not restart the livelock count, and spin
     * once it went round with no news. For a layer above whose code under
     * test keeps its shared state where lineup sees the writes (a Line-Up
     * object on the heap); whole programs share state on stacks and
     * through calls lineup does not see, which would make progress look
     * quiet. */
    bool quiet_waits;
};

/* Each controlled thread runs on the thread pointer of a real pool thread:
 * its own TLS, errno and glibc thread control block. Where the CPU cannot
 * move the FS base from user space (no FSGSBASE) every switch between two
 * such threads is a system call. AUTO shares one thread pointer, the
 * controller's, among all controlled threads when no code with
 * thread-local storage of its own runs in the process: no object loaded
 * (checked before each execution) has a TLS segment except the C library
 * and lineup's. Thread identity does not live there (pthread_self, thread
 * ids, pthread keys and cleanup handlers are the interposer's), and each
 * switch swaps the thread's errno (and lineup's own per-thread values, see
 * lu_sched_tls_keep) in and out of the shared TLS, so code sees what it
 * would with TLS of its own, except for glibc's per-thread state that
 * outlives a call: its malloc caches (threads then reuse each other's freed
 * blocks), uselocale, stdio's internal lock owner (flockfile is the
 * interposer's), and static buffers such as
 * inet_ntoa's. PER_THREAD keeps every thread on its pool thread's; SHARED
 * shares even when some object has a TLS segment (its thread-local
 * variables are then one per process: only for code known not to use
 * them). */
enum lu_sched_tls { LU_SCHED_TLS_AUTO, LU_SCHED_TLS_PER_THREAD, LU_SCHED_TLS_SHARED };

/* Declares var, a thread-local variable of the static TLS model
 * (initial-exec) of size bytes, as holding a controlled thread's own state
 * across its scheduling points, as the layers above lineup's scheduler keep
 * there (the interposer's shadow call stack, a result buffer of the layer
 * above). Under a shared TLS each controlled thread then has a copy of its
 * own: saved when it switches away, put back when it resumes, zero when it
 * starts; its TLS is its own otherwise. Call before the first execution,
 * from any thread (a constructor); at most LU_SCHED_TLS_KEEP_BYTES for all,
 * each rounded up to 8 bytes. Returns 0, or LU_SCHED_EINVAL when they do not fit. Not a
 * scheduling point. */
#define LU_SCHED_TLS_KEEP_BYTES 64
int lu_sched_tls_keep(void *var, size_t size);

/* What AUTO would choose now: 0 when every loaded object with a TLS segment
 * is the C library or lineup's own; otherwise 1, and *who (may be NULL)
 * names the first other one (valid while it stays loaded). Not a
 * scheduling point; any thread. */
int lu_sched_tls_owner(const char **who);

/* Fatal kinds passed to on_fatal. LU_SCHED_FATAL_BLOCKED is not fatal by
 * itself: it answers LU_SCHED_WHERE_SIGVAL, and the thread then waits in
 * the signal handler for the asker to kill the process. */
enum lu_sched_fatal {
    LU_SCHED_FATAL_NONE = 0, /* withdraws LU_SCHED_FATAL_EXEC: the exec failed and returned */
    LU_SCHED_FATAL_SIGNAL = 1,
    LU_SCHED_FATAL_EXIT,
    LU_SCHED_FATAL_DIVERGE,
    LU_SCHED_FATAL_BLOCKED,
    LU_SCHED_FATAL_EXEC /* ahead of an exec; code is its label (lu_sched_exec_ahead) */
};

/* Called with the message ("lineup: internal error at FILE:LINE: WHAT")
 * when an invariant of lineup's own fails, just before the process aborts:
 * the layer above records that the abort is lineup's, not a crash of the
 * code under test. Called once; must be async-signal-safe. */
typedef void lu_sched_bug_hook(const char *msg);
/* Any thread, before the threads whose failures it must see start (a plain
 * store); not a scheduling point. */
void lu_sched_set_bug_hook(lu_sched_bug_hook *hook);

/* Fails an invariant of lineup's own: the hook, the message on standard
 * error, abort(). For the layers above too, on any thread; not a
 * scheduling point. Never returns. */
void lu_sched_bug(const char *file, int line, const char *what) __attribute__((noreturn, cold));

/* LU_SCHED_WATCHDOG_SIGNAL queued (sigqueue) with this value asks where the
 * running controlled thread is: a process whose execution made no progress
 * for long is blocked in a call lineup does not control (read(), a lock of
 * an uninstrumented library), and whoever is about to kill it wants to say
 * where. The handler passes the interrupted pc to on_fatal as
 * LU_SCHED_FATAL_BLOCKED and never returns (the interrupted call would fail
 * with EINTR and the program go on): the asker must kill the process. */
#define LU_SCHED_WHERE_SIGVAL 0x4c55574b

/* Sends that request to process pid's first thread (the one that runs the
 * executions). Returns 0, or -1 with errno set (the process is gone). The
 * answer comes through the process's on_fatal, asynchronously. Any process;
 * not a scheduling point. */
int lu_sched_ask_where(pid_t pid);

/* The calls that end the process (LU_SCHED_FATAL_EXIT): they differ in what
 * runs before the end (exit flushes stdio and runs atexit handlers,
 * quick_exit runs at_quick_exit handlers, _exit, _Exit and the exit_group
 * system call nothing), so a
 * report names the one called. */
#define LU_SCHED_EXITS(X)                                                                                    \
    X(EXIT, "exit")                                                                                          \
    X(UEXIT, "_exit")                                                                                        \
    X(UEXIT_C, "_Exit")                                                                                      \
    X(QUICK_EXIT, "quick_exit")                                                                              \
    X(EXIT_GROUP, "exit_group")

enum lu_sched_exit_fn {
#define LU__X(id, name) LU_SCHED_EXIT_##id,
    LU_SCHED_EXITS(LU__X)
#undef LU__X
        LU_SCHED_EXIT_FN_COUNT
};

/* "exit", "_exit"...; "exit" for an unknown value. Any thread; not a
 * scheduling point. */
const char *lu_sched_exit_fn_name(int fn);

/* Inside on_fatal(LU_SCHED_FATAL_EXIT, ...): the call that is ending the
 * process (enum lu_sched_exit_fn). Async-signal-safe; not a scheduling
 * point. */
int lu_sched_fatal_exit_fn(void);

/* What a thread was doing when an execution ended. */
struct lu_sched_thread_info {
    int state;            /* LU_SCHED_TS_* */
    enum lu_sched_kind k; /* pending operation, for blocked/spinning threads */
    uint16_t label;
    void *obj;    /* the object it waits for */
    uintptr_t pc; /* return address of the blocking call */
};

enum {
    LU_SCHED_TS_UNUSED,
    LU_SCHED_TS_FINISHED,
    LU_SCHED_TS_ENABLED,
    LU_SCHED_TS_BLOCKED,
    LU_SCHED_TS_SPINNING
};

struct lu_sched_result {
    enum lu_sched_outcome outcome;
    int nthreads;
    uint32_t steps; /* scheduling points in this execution */
    int culprit;    /* thread that ran into NONDET/UNSUPPORTED/TOO_LONG/MISFIT, or -1 */
    /* static text for UNSUPPORTED/NONDET/MISFIT; for ERROR, what failed
     * (lu_sched_syserr), valid until the scheduler is destroyed */
    const char *message;
    /* MISFIT: why; steps is then the number of recorded choices that fitted
     * (the replay stopped at choice steps + 1). LEFT_OVER replaces how the
     * execution ended (COMPLETE, DEADLOCK, ...): it did not follow the
     * schedule to its end. */
    enum lu_sched_misfit misfit;
    bool redundant; /* DISCARDED because another execution covers it (partial-order reduction,
                     * or a spinning thread chosen at a cost that kept spinning), not because
                     * an assumption failed: skip it, it is no behaviour of the program */
    /* DFS with config.por and config.cache: the prefix-trace cache's name of
     * the execution's Mazurkiewicz trace, the same for executions that only
     * reorder independent steps (docs/por.md, section 8); trace_named is
     * false where there is none (too many threads, too deep). For counting
     * traces, the least any trace-preserving reduction must run. */
    bool trace_named;
    uint64_t trace_name[2];
    /* DEADLOCK or LIVELOCK declared at spin_bound looks while threads that
     * take no turns (config.turns) kept changing memory: they might still
     * have woken a thread after more (docs/strategies.md, "Idle threads") */
    bool bounded;
    struct lu_sched_thread_info threads[LU_SCHED_MAX_THREADS];
};

struct lu_sched_stats {
    uint64_t executions;
    uint64_t points;     /* scheduling points */
    uint64_t switches;   /* context switches between threads at choices */
    uint64_t pruned;     /* DFS alternatives cut by the preemption bound */
    uint64_t por_pruned; /* DFS with config.por: executions ended as redundant (DISCARDED) */
    uint64_t pc_pruned;  /* of those, ended where the prefix's trace had been explored from before */
    uint64_t pc_skipped; /* DFS alternatives not started: the node they lead to had been explored from */
    uint64_t pc_ahead_checked; /* events of an alternative's step predicted (for pc_skipped), then seen */
    uint64_t pc_ahead_wrong;   /* of those, wrong: 0 unless a step depends on more than the reduction sees */
    uint64_t spin_dropped;     /* DFS: a spinning thread chosen at a cost kept spinning (DISCARDED) */
    /* Threads (bit t: thread t, t < 64; bit 63 for the others) that were
     * live between free points and could not go on at a choice: blocked,
     * spinning or in a timed wait. A search where no thread but t stalled
     * switched away from the others only at free points and when they
     * ended, which costs no preemption. */
    uint64_t stalled;
};

struct lu_sched;

/* The reduction's prefix-trace cache (docs/por.md, section 8): nodes of the
 * DFS tree whose subtree was explored, named by their prefix's Mazurkiewicz
 * trace, so that a node of the same trace reached again ends its execution
 * as redundant. It lives in a shared mapping: every scheduler given it in
 * lu_sched_config.cache, in this process or in a process forked after its
 * creation (restarted explorers, explorers of parts of one tree, a fork
 * server's children), reads and fills the same table, concurrently.
 *
 * Give one cache to the searches of one program at one bound, and clear it
 * before another: its entries name traces, not programs, and would end
 * executions of another program that are not redundant there. Entries may
 * be lost (a full bucket, a race between processes); that only costs
 * executions. The table starts at 256 KB and grows in place, fourfold, up
 * to max_bytes (less under a finite RLIMIT_AS: 1/32 of it). Returns NULL
 * when max_bytes is below 256 KB or the mapping fails: the reduction then
 * runs without a cache. Any thread; none of these is a scheduling point. */
#define LU_SCHED_CACHE_BYTES ((size_t)32 << 20) /* the default size */
struct lu_sched_cache;
struct lu_sched_cache *lu_sched_cache_create(size_t max_bytes);
/* Forgets every entry, and shrinks the table to its first size (a search
 * then runs the same executions as with a new cache). No scheduler may be
 * searching with it, in any process. */
void lu_sched_cache_clear(struct lu_sched_cache *c);
/* Unmaps it in this process (NULL: nothing). No scheduler of this process may
 * still use it. */
void lu_sched_cache_destroy(struct lu_sched_cache *c);

/* Body of a controlled thread. */
typedef void *(*lu_sched_fn)(void *arg);

/* Creates a scheduler; threads of its pool are started lazily. Any thread;
 * not a scheduling point. The first call in a process also installs its
 * signal handlers, without a lock: create the first scheduler before other
 * threads may create theirs. Returns NULL and sets *err on failure. */
struct lu_sched *lu_sched_create(const struct lu_sched_config *cfg, int *err);

/* Stops the pool threads and frees everything. Controller only: it also
 * disarms the watchdog of the calling kernel thread. Not a scheduling
 * point. */
void lu_sched_destroy(struct lu_sched *s);

/* Whether the last execution (or the next, before any ran) shares one
 * thread pointer among the controlled threads. Controller only; not a
 * scheduling point. */
bool lu_sched_tls_shared(const struct lu_sched *s);

/* True while the strategy has another execution to run (DFS: the tree is
 * not exhausted; RANDOM: always; REPLAY: until it ran once). After
 * lu_sched_run returns, config.trace holds the schedule of the execution
 * that ran, until the next lu_sched_more or lu_sched_run. Controller or
 * server only (it backtracks the DFS); not a scheduling point. */
bool lu_sched_more(struct lu_sched *s);

/* Runs one execution: fn(arg) on controlled thread 0, following the strategy,
 * until every thread finished or the execution is stuck. Stuck threads are
 * abandoned, never resumed. Controller only: the caller is suspended, not
 * scheduled, until the execution ends (a controlled thread gets
 * LU_SCHED_EINVAL: executions do not nest). Returns 0 or an lu_sched_err;
 * the outcome is in *res. A pool thread that cannot be started, thread 0's
 * included, is outcome ERROR with the reason in res->message: the caller
 * stops with a tool error, never a verdict about the code under test. */
int lu_sched_run(struct lu_sched *s, lu_sched_fn fn, void *arg, struct lu_sched_result *res);

/* DFS stacks as work items. A stack g[0..len) is the trace a DFS leaves
 * after lu_sched_more: each step's chosen alternative and those explored
 * (done). Exploring an item means the subtree below the whole stack (a DFS
 * given it as config.replay with frozen_len = len), then every unexplored
 * alternative at steps base..len-1, deepest first: what one DFS from that
 * stack does, so an item can be resumed in another process or have its
 * shallow alternatives handed to another searcher without changing the set
 * of executions. Any thread (they touch only g); none of these is a
 * scheduling point.
 *
 * lu_sched_stack_next flips the deepest step of g[base..*len) that has an
 * unexplored alternative within bound (-1: none), marks the ones it passes
 * over as done (counting those the bound cuts in *pruned, may be NULL) and
 * cuts the stack after it; false when there is none.
 * lu_sched_stack_shallowest: the shallowest step of g[base..len) with an
 * unexplored alternative within bound, or -1.
 * lu_sched_stack_give hands out the largest subtrees left: for each
 * unexplored alternative within bound of that shallowest step, it calls
 * give(arg, item, i + 1), item being g[0..i] with step i taking the
 * alternative (valid during the call), and marks the alternative done in g
 * when give took it (true); it stops at the first refusal. g may be the
 * trace of a DFS between lu_sched_more and the execution (its backtracking
 * then skips what was given). Returns how many were given. */
bool lu_sched_stack_next(struct lu_sched_step *g, uint32_t *len, uint32_t base, int bound, int bound_kind,
                         uint64_t *pruned);
int lu_sched_stack_shallowest(const struct lu_sched_step *g, uint32_t len, uint32_t base, int bound,
                              int bound_kind);
unsigned lu_sched_stack_give(struct lu_sched_step *g, uint32_t len, uint32_t base, int bound, int bound_kind,
                             bool (*give)(void *arg, const struct lu_sched_step *item, uint32_t n),
                             void *arg);

/* Counters since creation. The controller, or a controlled thread of s's
 * execution (the only thread running then); not a scheduling point. */
void lu_sched_stats(const struct lu_sched *s, struct lu_sched_stats *out);

/* The code address of the call under test, for reports ("where was each
 * thread"). Interposers set it with LU_SCHED_SET_PC() on entry, before they
 * call into the scheduler; the scheduler consumes it at the next scheduling
 * point. Walking frames instead is unsafe: the code under test may have no
 * frame pointers. */
extern __thread uintptr_t lu_sched_pc __attribute__((tls_model("initial-exec")));
#define LU_SCHED_SET_PC() (lu_sched_pc = (uintptr_t)__builtin_return_address(0))

/* The operand that decides what an access does besides its location: the
 * expected value of a compare-and-swap, the value an exchange or a fetch_op
 * stores. Spin detection compares it: a CAS retried with a new expected
 * value (after a failure updated it) is progress, one retried with the same
 * value on an unchanged location is a spin. Interposers set it with
 * LU_SCHED_SET_ARG(v) before lu_sched_access_begin; it defaults to 0. */
extern __thread uint64_t lu_sched_arg __attribute__((tls_model("initial-exec")));
#define LU_SCHED_SET_ARG(v) (lu_sched_arg = (uint64_t)(v))

/* The C11 memory order of the atomic access (or fence) about to end, for
 * happens-before: __ATOMIC_RELAXED .. __ATOMIC_SEQ_CST (the TSan ABI uses
 * the same values). Interposers set it with LU_SCHED_SET_MO(mo) just before
 * lu_sched_access_end, which consumes it; unset, an access counts as
 * acquire and release (what volatile accesses and the API's own callers
 * get). Relaxed accesses order nothing by themselves; with fences they do
 * (a release fence before a relaxed store, a relaxed load before an acquire
 * fence). */
extern __thread int lu_sched_mo __attribute__((tls_model("initial-exec")));
#define LU_SCHED_SET_MO(mo) (lu_sched_mo = (int)(mo) + 1)
/* A compare-and-swap that failed stored nothing: C11 gives it a load's
 * semantics only, with the failure order. Interposers report one with
 * LU_SCHED_SET_MO_FAILED(failure_mo) instead of LU_SCHED_SET_MO; the access
 * then acquires (per that order) and releases nothing, and the
 * partial-order reduction counts its step as a read of the location, so
 * that two failed CASes, or a failed CAS and a load, commute. Without it a
 * failed RMW is a write, which is sound and reduces less. */
#define LU_SCHED_MO_FAILED 0x100
#define LU_SCHED_SET_MO_FAILED(mo) (lu_sched_mo = ((int)(mo) + 1) | LU_SCHED_MO_FAILED)

/* Controlled thread id of the caller, or -1 for any other thread and in a
 * handler between lu_sched_async_enter and _leave. Any thread; cheap; not a
 * scheduling point. */
int lu_sched_self(void);

/* The scheduler whose execution the caller belongs to, or NULL; in such a
 * handler too. Any thread; not a scheduling point. */
struct lu_sched *lu_sched_current(void);

/* Heap blocks of the current execution, for partial-order reduction: the
 * same object gets a different address from one execution to the next
 * (the allocator's state is left over from earlier executions), so the
 * reduction names a location inside a block allocated in this execution by
 * the block's rank among the execution's allocations and the offset, which
 * replaying the same prefix reproduces. Called by the allocator
 * interposition after malloc and friends and before free; they do nothing
 * on other threads or when reduction is off. Not scheduling points. */
void lu_sched_note_alloc(const void *p, size_t n);
void lu_sched_note_free(const void *p);
/* realloc: same rank when the block stays in place */
void lu_sched_note_realloc(const void *old, const void *p, size_t n);

/* A plain (non-atomic, non-volatile) access of [addr, addr+size) by the
 * calling thread: the reduction counts it in the step that makes it, so
 * that two steps whose plain accesses conflict (a racy read and a write)
 * are not taken for independent ones. Without it a schedule's trace would
 * not name its state when plain fields race, and the reduction could skip a
 * distinct history (an audit found the contract queue's lost wakeup missed
 * with reduction on). A write also tells livelock detection that the step
 * changed memory (a poll loop that takes a lock and writes under it makes
 * progress). Called by the instrumentation's plain-access hooks; does
 * nothing on other threads, and only the latter outside a recorded step or
 * when reduction is off. Not a scheduling point. */
void lu_sched_plain_access(const void *addr, size_t size, bool write);
/* The calling thread's step read or wrote plain memory the caller cannot
 * name (a string behind an argument it could not pair): the step is
 * dependent with everything. As lu_sched_plain_access otherwise. */
void lu_sched_plain_unknown(void);
/* Nonzero while an execution whose reduction counts plain accesses runs in
 * this process (one at a time), or while a step whose plain writes matter
 * to livelock detection runs in another (config.quiet_waits), and another
 * value in each execution: the hooks call lu_sched_plain_access only then,
 * so that other code pays a load, and know when what they keep per thread
 * (lu_sched_private_stack) is from an earlier execution. */
extern uint32_t lu_sched_footprint;
/* The part [lo, lo+len) of the calling controlled thread's stack that only
 * its own frames use, or len 0: plain accesses there are private, and the
 * hooks leave them out (most are: a CAS's expected value, any local whose
 * address is taken). Not a scheduling point. */
void lu_sched_private_stack(uintptr_t *lo, uintptr_t *len);

/* A block the program just got from the allocator, [p, p+n): the models of
 * synchronization objects that lay there (in a block freed earlier in the
 * execution, possibly while locked or waited on) are forgotten, so that a
 * mutex initialized there by assignment, memset or calloc starts from what
 * its memory says, as natively. Called by the allocator interposition; does
 * nothing on other threads. Not a scheduling point. */
void lu_sched_forget_sync(const void *p, size_t n);

/* ---- Thread management (controlled threads only) ---- */

/* Starts a controlled thread running fn(arg). It runs until its first
 * scheduling point before lu_sched_spawn returns (code before a thread's
 * first visible operation is invisible). Not a scheduling point itself: the
 * layer above puts one before it when creation is visible (pthread_create).
 * Returns the thread id, or LU_SCHED_ETHREADS (negative). When the pool
 * thread that would back it cannot be started (a resource limit), the
 * execution ends as ERROR instead: it would not be the program's, which
 * never sees that failure outside lineup. */
int lu_sched_spawn(lu_sched_fn fn, void *arg);

/* lu_sched_spawn for a thread whose first act would be
 * lu_sched_point_free(label): the child is put at that point without
 * running, and fn starts past it when the child is first chosen. Saves
 * the two context switches of running an invisible prefix that does
 * nothing (each a system call where the CPU has no FSGSBASE); the search
 * is the same. Not a scheduling point. */
int lu_sched_spawn_parked(lu_sched_fn fn, void *arg, uint16_t label);

/* pthread_create: a scheduling point (creation is visible), then
 * lu_sched_spawn, on a stack of at least stack bytes (0: the default,
 * 8 MiB). Returns the thread id or LU_SCHED_ETHREADS; a system thread
 * that cannot start ends the execution as ERROR (lu_sched_spawn). */
int lu_sched_create_thread(lu_sched_fn fn, void *arg, size_t stack, uint16_t label);

/* Scheduling point (a join that fails returns before it); blocks until
 * thread tid finished. Returns 0, or EINVAL/ESRCH/EDEADLK (errno values) as
 * pthread_join would. */
int lu_sched_join(int tid, void **ret, uint16_t label);

/* Scheduling point; blocks until every other thread of the execution has
 * finished. For the layer above's main thread, so that its waiting is never
 * a choice. */
void lu_sched_join_all(uint16_t label);

/* The same, until every other thread marked by lu_sched_takes_turns has
 * finished. */
void lu_sched_join_turns(uint16_t label);

/* Marks thread tid (the caller's, or one it just started) as one that takes
 * turns in atomic sections (config.turns). Not a scheduling point. */
void lu_sched_takes_turns(int tid);

/* Marks tid detached (its end is not joinable). Not a scheduling point. */
int lu_sched_detach(int tid);

/* Ends the calling controlled thread with ret (pthread_exit). Never returns.
 * Not a scheduling point: its key destructors run first (their points are
 * the thread's own), then the next thread is chosen as when a thread ends. */
void lu_sched_exit(void *ret) __attribute__((noreturn));

/* Scheduling point before the calling controlled thread ends the process
 * (exit and its variants, main returning): natively the other threads run on
 * while it ends, so their next steps may come first. Ordered with every
 * other operation. */
void lu_sched_exit_point(uint16_t label);

/* The calling controlled thread's innermost pthread_cleanup_push buffer
 * (NULL when none), for the interposer to keep the chain in: glibc keeps it
 * in the thread's control block, which controlled threads share with their
 * pool thread. Empty at the start of every thread. Not a scheduling point. */
void **lu_sched_cleanup_chain(void);

/* The frame address of the calling controlled thread's entry, below which
 * (at lower addresses) its function's frames are: an unwinder that ends the
 * thread (pthread_exit with the exception unwinder) stops at the first
 * frame above it. Not a scheduling point. */
uintptr_t lu_sched_entry_frame(void);

/* The pool thread whose stack the calling controlled thread runs on, for
 * the real pthread_getattr_np (thread 0 runs on the controller's thread
 * pointer, so the real pthread_self() names the controller there). Not a
 * scheduling point. */
pthread_t lu_sched_pool_thread(void);

/* Whether the calling controlled thread runs on a stack of lineup's own
 * mapping (under a shared TLS no pool thread lends one, and
 * lu_sched_pool_thread has none to name); then its bounds, without the
 * guard below it. Not a scheduling point. */
bool lu_sched_own_stack(void **addr, size_t *size);

/* ---- Scheduling points the layer above declares ---- */

/* An operation boundary: a point where switching threads costs no
 * preemption. With config.por, the calling thread's call event belongs right
 * after it (see config.por). It is progress: the thread's spin detection
 * starts afresh, so that a call reading what the one before it read last
 * (two pops of an empty stack) is not taken for a spin. Scheduling point. */
void lu_sched_point_free(uint16_t label);

/* Before the calling controlled thread changes its signal mask or a
 * signal's action (pthread_sigmask, sigaction): a signal sent to it, or to
 * the process, may come before the change, as natively, and is taken here
 * under the old one. Dependent with every operation. Scheduling point. */
void lu_sched_sigstate_point(uint16_t label);

/* A spin hint (sched_yield, sleep, lineup_yield): the caller is spinning, so
 * other threads run first, without a preemption. Scheduling point. */
void lu_sched_yield(uint16_t label);

/* The execution's virtual time, in nanoseconds since it began: it passes
 * only when the layer above says so (a sleep, a timed wait that gave up, a
 * read of the clock), so that programs that read the clock run the same on
 * the same schedule, and a sleep or a timeout lasts what it asked for. The
 * same in every execution; the search does not order threads by it. A
 * controlled thread; neither is a scheduling point. */
uint64_t lu_sched_time(void);
/* Time moves on to ns, if it is not past it yet. */
void lu_sched_time_reach(uint64_t ns);

/* Non-preemptible section: while the count is positive the caller is the
 * only thread that may be scheduled (with config.turns, the only one that
 * takes turns); if it blocks or spins there with nobody else to run, the
 * execution is stuck. Used for serial executions. Not scheduling points:
 * the section starts where the caller already is. */
void lu_sched_atomic_begin(void);
void lu_sched_atomic_end(void);

/* The same for a program's own atomic sections (__VERIFIER_atomic_begin/
 * end): the outermost begin is a scheduling point, so that other threads
 * may run just before the section as before any other step, and sections
 * exclude each other in the happens-before order (a section's end happens
 * before every later section's begin), so their accesses do not race. The
 * end, and a begin inside a section or serial section of the caller's, are
 * not scheduling points. */
void lu_sched_section_begin(uint16_t label);
void lu_sched_section_end(void);

/* ---- Memory accesses (atomic and volatile) ----
 * begin is the scheduling point before the access; the caller performs the
 * access itself between begin and end (it alone runs, so it is atomic),
 * then reports with end, which is no scheduling point, whether it changed
 * memory. k is READ, WRITE, RMW or FENCE. */
void lu_sched_access_begin(enum lu_sched_kind k, const volatile void *addr, uint16_t label);
void lu_sched_access_end(const volatile void *addr, bool changed);

/* ---- Synchronization objects, keyed by address ----
 * Each operation on an object (lock, unlock, wait, signal, post, getvalue,
 * once, futex wait and wake) is a scheduling point before its effect; one
 * that fails its own checks first (a cond wait's EPERM, a futex call on
 * another kind of object) returns before it. init and destroy are not
 * scheduling points: no other thread may use the object meanwhile (that is
 * undefined natively), so they only set or check the model's state. Return
 * values are those of the pthread call they model (0 or an errno value).
 * 'type' for mutexes is a PTHREAD_MUTEX_* value. */
void lu_sched_mutex_init(void *m, int type);
int lu_sched_mutex_destroy(void *m);
int lu_sched_mutex_lock(void *m, uint16_t label);
int lu_sched_mutex_trylock(void *m, uint16_t label);
int lu_sched_mutex_timedlock(void *m, uint16_t label); /* may time out: a choice */
int lu_sched_mutex_unlock(void *m, uint16_t label);
/* Robust mutexes (PTHREAD_MUTEX_ROBUST), as glibc's: when the owner ends
 * holding one, the next lock, trylock, timed lock or condition wait gets
 * it with EOWNERDEAD; unlocked before lu_sched_mutex_consistent, it is
 * unusable (ENOTRECOVERABLE). set_robust follows mutex_init; consistent
 * returns EINVAL for a mutex not in that state. Not scheduling points. */
void lu_sched_mutex_set_robust(void *m);
int lu_sched_mutex_consistent(void *m);
/* The model's PTHREAD_MUTEX_* type of the mutex at m in this execution, or
 * -1 when it has none; *robust says whether it is robust, *mine whether
 * the caller holds it. For the layer above to tell a mutex initialized
 * anew by assignment (a reused stack slot) from the one the model knows.
 * Not a scheduling point. */
int lu_sched_mutex_kind(const void *m, bool *robust, bool *mine);

/* Reader-writer locks follow glibc: a thread may hold several read locks
 * (each needs its unlock); rdlock or wrlock by the writer returns EDEADLK
 * (a trylock EBUSY); wrlock by a reader waits forever. With prefer_writer
 * (the kind PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP) a writer that
 * finds the lock taken registers, and from then on new read locks wait
 * (tryrdlock: EBUSY) until no writer is registered: a reader nesting a read
 * lock then deadlocks, as in glibc. The default kinds let readers in while
 * writers wait. rw_init is not a scheduling point; a lock it was not called
 * on is of the default kind. */
void lu_sched_rw_init(void *rw, bool prefer_writer);
int lu_sched_rw_rdlock(void *rw, uint16_t label);
int lu_sched_rw_wrlock(void *rw, uint16_t label);
int lu_sched_rw_tryrdlock(void *rw, uint16_t label);
int lu_sched_rw_trywrlock(void *rw, uint16_t label);
int lu_sched_rw_timedrdlock(void *rw, uint16_t label);
int lu_sched_rw_timedwrlock(void *rw, uint16_t label);
int lu_sched_rw_unlock(void *rw, uint16_t label);
int lu_sched_rw_destroy(void *rw);

/* Waits on cond c releasing mutex m; the wake-up re-acquires m. The timed
 * variant may time out as a scheduler choice (returns ETIMEDOUT). */
int lu_sched_cond_wait(void *c, void *m, uint16_t label);
int lu_sched_cond_timedwait(void *c, void *m, uint16_t label);
/* Signal chooses which waiter wakes (a data choice when there are several). */
int lu_sched_cond_signal(void *c, uint16_t label);
int lu_sched_cond_broadcast(void *c, uint16_t label);
int lu_sched_cond_destroy(void *c);

/* A futex on the 32-bit word at addr (syscall(SYS_futex)), modelled like a
 * condition variable without a mutex. Wait compares the word with val (one
 * step with the check, as the kernel does) and returns EAGAIN when they
 * differ; else it blocks until a wake on addr picks it, or, when timed, until
 * the scheduler chooses to time it out (ETIMEDOUT). Wake wakes at most n
 * waiters, one for n < 1 as the kernel does (which ones: data choices), and
 * returns how many it woke. No spurious wake-ups. Both return -1 when addr is a mutex, semaphore, ... of
 * the model (unsupported: the caller says so). */
int lu_sched_futex_wait(void *addr, uint32_t val, bool timed, uint16_t label);
int lu_sched_futex_wake(void *addr, int n, uint16_t label);

void lu_sched_sem_init(void *sem, unsigned value);
int lu_sched_sem_destroy(void *sem);
int lu_sched_sem_wait(void *sem, uint16_t label);      /* 0 */
int lu_sched_sem_trywait(void *sem, uint16_t label);   /* 0 or EAGAIN */
int lu_sched_sem_timedwait(void *sem, uint16_t label); /* 0 or ETIMEDOUT */
int lu_sched_sem_post(void *sem, uint16_t label);
int lu_sched_sem_getvalue(void *sem, int *value);

void lu_sched_barrier_init(void *b, unsigned count);
int lu_sched_barrier_destroy(void *b);
/* Returns 1 (PTHREAD_BARRIER_SERIAL_THREAD is -1 in glibc: the caller maps)
 * for the one serial thread, 0 for the others. */
int lu_sched_barrier_wait(void *b, uint16_t label);

/* pthread_once: runs init on the first caller, blocks the others until it
 * finished. Writes a mark of its own into the once word when init
 * returns, and takes a word found without it (set back to
 * PTHREAD_ONCE_INIT by assignment) for one that has not run. A scheduling
 * point. */
int lu_sched_once(void *once, void (*init)(void), uint16_t label);

/* Happens-before vector clocks, kept for a data-race detector: thread
 * creation and join, every synchronization-object operation (acquire and
 * release), atomic loads (acquire), stores (release) and read-modify-writes
 * (both). lu_sched_vc copies thread tid's clock (at most max entries) and
 * returns the number copied, or -1; lu_sched_clock is the caller's own
 * entry (0 outside executions), which the plain-access log records. Any
 * thread (-1 and 0 on one no scheduler controls); not scheduling points. */
int lu_sched_vc(int tid, uint32_t *out, int max);

/* Whether thread tid of the calling thread's execution has finished (its
 * start routine returned, or it called pthread_exit); false on a thread no
 * scheduler controls. Not a scheduling point. */
bool lu_sched_finished(int tid);
/* Whether tid is a thread of the calling thread's execution that has not
 * finished; false on a thread no scheduler controls. Not a scheduling
 * point. */
bool lu_sched_live(int tid);
/* The signals thread tid of the calling thread's execution blocks (bit
 * sig - 1, lu_sched_sigstate's mask); every one when tid is not live. For
 * a signal sent to the process, which any thread that does not block it
 * may take. Not a scheduling point. */
uint64_t lu_sched_sigmask_of(int tid);
/* The signals pending on the calling thread's process (bit sig - 1): sent
 * to it while every thread blocked them, for the first thread that
 * unblocks one to take; empty at the start of every execution. NULL on a
 * thread no scheduler controls. Not a scheduling point. */
uint64_t *lu_sched_process_sigs(void);
uint32_t lu_sched_clock(void);

/* The kinds of synchronization object lu_sched_known asks about. */
enum lu_sched_obj { LU_SCHED_OBJ_RW, LU_SCHED_OBJ_SEM, LU_SCHED_OBJ_BARRIER };

/* True when the model holds state of a synchronization object of that kind
 * for addr in this execution (it was initialized or used under control).
 * Lets interposers adopt objects initialized outside control, or by
 * assignment where another kind of object was (a reused stack slot). False
 * on a thread no scheduler controls. Not a scheduling point. */
bool lu_sched_known(const void *addr, enum lu_sched_obj kind);

/* Thread-specific data, modelled per controlled thread. Not scheduling
 * points, though the partial-order reduction orders creates and deletes as
 * writes of the key table: the key a create returns depends on them. */
/* taken: keys the process holds outside the model (created before control,
 * by constructors), which count against glibc's PTHREAD_KEYS_MAX too */
int lu_sched_key_create(unsigned *key, void (*dtor)(void *), unsigned taken);
int lu_sched_key_delete(unsigned key);
void *lu_sched_getspecific(unsigned key);
int lu_sched_setspecific(unsigned key, const void *value);

/* A signal sent by the calling controlled thread to thread tid of its
 * execution (pthread_kill, tgkill): a scheduling point of the sender
 * (label); then, unless tid has finished (the signal is dropped, as glibc
 * does) or sig is 0, the signal is pending on tid, which becomes runnable
 * with a pending operation of kind LU_SCHED_K_SIGNAL (take_label): when it
 * is chosen, it takes its pending signals, lowest first, each by the
 * deliver function (lu_sched_set_signal_deliver), on its own stack, the
 * handlers' scheduling points being its own, then goes back to the
 * operation it was at (which may block it again). The send orders the
 * sender before the handler (happens-before). Returns 0, or ESRCH (before
 * the scheduling point) when tid is not a thread of the execution. tid
 * must not be the caller: a signal to oneself is delivered at once by the
 * caller (raise). */
int lu_sched_kill(int tid, int sig, uint16_t label, uint16_t take_label);
/* How a controlled thread takes a signal sent to it (set once, by the
 * interposition layer: it raises it on the kernel thread). Any thread,
 * before the first execution (a plain store); not a scheduling point. */
void lu_sched_set_signal_deliver(void (*fn)(int sig));
/* What the last thread runs when the main thread ended before it (by
 * pthread_exit) and every other thread has ended: the process ends there,
 * natively by exit(0) on that thread, after its thread-specific data's
 * destructors (glibc), so the layer above runs the exit handlers in fn.
 * fn runs on that controlled thread and may make scheduling points. Set
 * once, before the first execution (a plain store); NULL: none (the
 * default, and what a harness's driver wants). Not a scheduling point. */
void lu_sched_set_process_end(void (*fn)(void));
/* The program installed a signal handler (by the interposition layer's
 * sigaction): from now on a thread's end is a scheduling point of its own,
 * so that a signal sent after a thread's last operation may still find it
 * alive, as natively. Stays set for the process. Any thread; not a
 * scheduling point. */
void lu_sched_note_signal_handler(void);
/* The label of that scheduling point at a thread's end: the scheduler's
 * own, named by lu_sched_label_name whatever the layer above names. */
#define LU_SCHED_L_THREAD_END 0xffffu

/* What a controlled thread's signal mask is as far as signals lineup
 * delivers itself are concerned: all threads of an execution share one
 * kernel thread and so one kernel mask, which cannot say which thread
 * blocked what. The interposition layer keeps, per thread, the signals the
 * thread blocked (by pthread_sigmask, and while in a handler) and those
 * sent to it meanwhile; zero for a new execution's threads, except that a
 * created thread inherits its creator's mask. NULL on a thread no scheduler
 * controls. Not a scheduling point. */
struct lu_sched_sigstate {
    uint64_t mask; /* bit sig - 1: blocked by the thread */
    uint64_t held; /* bit sig - 1: sent to it while blocked */
};
struct lu_sched_sigstate *lu_sched_sigstate(void);

/* A handler of a signal that arrives at a time lineup does not control (a
 * timer's, another process's: not one lineup delivers itself) runs within
 * the step it interrupted, as code of no controlled thread: between
 * lu_sched_async_enter and lu_sched_async_leave lu_sched_self() is -1 and
 * lu_sched_in_async() true, so that its atomic and volatile accesses are
 * no scheduling points (the interposition layer refuses the calls that
 * would make one, as unsupported), and an exit's scheduling point
 * (lu_sched_exit_point) is no choice either. enter saves what the interrupted thread was at into
 * *save and returns false on a thread no scheduler controls (then leave
 * must not be called); leave, on the same thread, restores it. Any thread;
 * async-signal-safe; none of these is a scheduling point. */
struct lu_sched_async {
    int k;
    const void *obj, *obj2;
    uint16_t label;
    uintptr_t pc, caller_pc;
    uint64_t oparg, arg;
    int mo;
};
bool lu_sched_async_enter(struct lu_sched_async *save);
bool lu_sched_in_async(void);
/* The calling controlled thread's id there too (for reports), -1 on any
 * other thread. Any thread; not a scheduling point. */
int lu_sched_self_any(void);
void lu_sched_async_leave(const struct lu_sched_async *save);

/* Ends the execution as UNSUPPORTED (a call lineup cannot model), with a
 * static message naming it. Never returns. Not a scheduling point: the
 * execution ends at once. Also in a handler between lu_sched_async_enter
 * and _leave. */
void lu_sched_unsupported(const char *what) __attribute__((noreturn));

/* A data choice the program asks for (__VERIFIER_nondet_*): returns a value
 * in [0, n), explored like thread choices by DFS, drawn at random by the
 * randomized strategies, followed by replay. Not a scheduling point: no
 * other thread runs there, but the choice is a step of the schedule (a
 * replay that does not fit ends the execution there). */
int lu_sched_choose(int n, uint16_t label);

/* Ends the execution as DISCARDED (__VERIFIER_assume with a false
 * condition): not a failure, the schedule is simply not a behaviour of the
 * program. Never returns. Not a scheduling point: the execution ends at
 * once. Also in a handler between lu_sched_async_enter and _leave. */
void lu_sched_discard(const char *why) __attribute__((noreturn));

/* Ends the execution as ERROR: the layer above cannot go on for a reason
 * of lineup's own (it ran out of memory), which says nothing about the
 * code under test. msg must live until the result is read. Never returns.
 * Not a scheduling point: the execution ends at once. */
void lu_sched_error(const char *msg) __attribute__((noreturn));

/* Ends the execution as ABORTED on request of the layer above (for example
 * when the code it runs breaks its rules). Never returns. Not a scheduling
 * point: the execution ends at once. */
void lu_sched_abort(const char *why) __attribute__((noreturn));

/* exit() or another call of LU_SCHED_EXITS (fn) called by code under test
 * on a controlled thread: reports it through config.on_fatal and ends the
 * process. Never returns. Not a scheduling point: the caller makes the
 * exit's first (lu_sched_exit_point). Also in a handler between
 * lu_sched_async_enter and _leave; on other threads it only ends the
 * process. */
void lu__sched_fatal_exit(int status, enum lu_sched_exit_fn fn)
    __attribute__((noreturn, visibility("hidden")));

/* Ends the process with status by the raw system call: for lineup's own
 * ends, which must not reach the syscall() the interposition exports.
 * Any thread; async-signal-safe; not a scheduling point. */
void lu__sched_exit_group(int status) __attribute__((noreturn, visibility("hidden")));

/* The calling controlled thread is about to end its process with a signal
 * no handler can see (SIGKILL): reports it through config.on_fatal, like a
 * fatal signal, with the caller's pc, and returns for the caller to send
 * it. Async-signal-safe. Not a scheduling point. */
void lu_sched_fatal_signal_ahead(int sig);

/* The calling controlled thread is about to replace its process's program
 * (an exec, after its exit point): nothing of this program runs after one
 * that succeeds, so config.on_fatal hears of it first, as
 * LU_SCHED_FATAL_EXEC with the call's label as code and the caller's pc;
 * the new program's end is then the process's. lu_sched_exec_failed
 * withdraws it (LU_SCHED_FATAL_NONE) when the call returned. Both keep
 * errno. Not scheduling points. */
void lu_sched_exec_ahead(uint16_t label);
void lu_sched_exec_failed(void);
/* Whether the scheduler's own handler reports sig (a crash: SIGSEGV,
 * SIGABRT, ...) and then raises it again with the default action, so that
 * nobody need report it ahead. Any thread; not a scheduling point. */
bool lu_sched_fatal_signal_handled(int sig);

/* What a failed system call of lineup's own machinery was for. */
enum lu_sched_need { LU_SCHED_NEED_THREAD, LU_SCHED_NEED_PROCESS, LU_SCHED_NEED_MEMORY };

/* A failed system call of lineup's own (not of the code under test) as a
 * message in buf: "WHAT: strerror(err)", and for EAGAIN, ENOMEM, EMFILE and
 * EFBIG the limits that may be the cause and how to raise them, e.g.
 * "cannot start a thread: Resource temporarily unavailable (RLIMIT_NPROC
 * is 20, and lineup's own processes and threads count against it: raise it
 * with ulimit -u)". bytes: for MEMORY, the size of the mapping; for THREAD,
 * the thread's stack; for EFBIG, the file's size (0: unknown). Returns buf.
 * Any thread (it only formats); not a scheduling point. */
const char *lu_sched_syserr(char *buf, size_t n, enum lu_sched_need need, int err, const char *what,
                            size_t bytes);
/* Whether a message of lu_sched_syserr named a limit that the code under
 * test lowered (setrlimit) since the process started: the failure is that
 * code's doing, not the user's environment. Not a scheduling point. */
bool lu_sched_limit_lowered(void);

/* Which divergence watchdog this process armed last (for diagnostics):
 * "none" until an execution ran in it, so a fork server, whose children
 * run them, sees "none". Any thread; not a scheduling point. */
const char *lu_sched_watchdog_name(void);

/* Encodes the divergence watchdog's perf events, once per process (libpfm4
 * is opened for it and closed: about 3 ms). Processes forked afterwards
 * inherit the encoding instead of doing it again; lu_sched_create does it
 * if nothing did before. Not a scheduling point; call it from one thread,
 * before forking. */
void lu_sched_watchdog_prepare(void);

/* on_fatal to use for signals on threads that belong to no scheduler (the
 * controller, lineup's own code), e.g. to report a tool crash. Any thread
 * (plain stores: set it before such a crash may come); not a scheduling
 * point. */
void lu_sched_set_fatal_fallback(void (*fn)(void *, int, int, int, uintptr_t), void *arg);

/* Opaque label names for trace printing; set by the layer above, once,
 * before the executions (a plain store). Any thread; lu_sched_label_name
 * is async-signal-safe when fn is. Not scheduling points. */
typedef const char *(*lu_sched_label_fn)(uint16_t label);
void lu_sched_set_label_names(lu_sched_label_fn fn);
const char *lu_sched_label_name(uint16_t label);

/* ---- executions run in forked children (lineup run) ----
 * A fork server keeps one scheduler, and with it the exploration state (the
 * DFS stack lives in config.trace, which must then be MAP_SHARED), in a
 * process that never runs an execution itself: for each execution it forks
 * a child, which calls lu_sched_run once on its copy of the scheduler and
 * ends, so that every execution starts from the program's initial state.
 * The server must never call lu_sched_run: the pool threads are started by
 * the first execution, and threads do not survive fork. With config.por the
 * reduction state is a shared mapping too (lu_sched_create makes it so):
 * the sleep sets and footprints a child learns, also one that dies in the
 * middle, reach the server's backtracking, and the forked search runs the
 * schedules the same search would run in one process. Counters an
 * execution increments itself (stats.points, switches, por_pruned,
 * spin_dropped) stay in the child: a cut execution is told by its
 * lu_sched_result.redundant there. */

/* Server, before forking the child that runs execution number n (0, 1, ...
 * of this scheduler): moves the exploration on from the previous execution
 * (as lu_sched_more does) and gives the randomized strategies a seed of
 * their own for it, derived from config.seed and n, so that executions
 * differ and (seed, n) reproduces each one. Returns 0, or LU_SCHED_EDONE
 * when the strategy has no execution left. Not a scheduling point. */
int lu_sched_fork_prepare(struct lu_sched *s, uint64_t n);

/* Server, after that child ended, however it ended (lu_sched_run returned,
 * or the child died or was killed in the middle): config.trace holds the
 * schedule it ran (trace->len steps, written as it went). Accounts for it as
 * if lu_sched_run had run here: counts it, lets DFS backtrack from it at the
 * next lu_sched_fork_prepare or lu_sched_more, and lets PCT learn its
 * length. Not a scheduling point. */
void lu_sched_fork_done(struct lu_sched *s);

/* The parent of process pid, from /proc/PID/stat, or -1. Open, read and
 * close only: async-signal-safe, for a handler that asks who sent its
 * signal. Not a scheduling point. */
pid_t lu_sched_parent_of(pid_t pid);

/* Kills (SIGKILL) and reaps the children of thread tid of this process, as
 * /proc/self/task/TID/children lists them, but those in keep[0..nkeep):
 * what the code under test started and left running. Reads the first 4 KB
 * of the list: returns how many it killed, so that a caller repeats until
 * none. Not async-signal-safe (it waits); not a scheduling point. */
unsigned lu_sched_reap_children(long tid, const pid_t *keep, unsigned nkeep);

#pragma GCC visibility pop

#endif
