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

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define LU_DRV_MAX_THREADS 8
#define LU_DRV_MAX_CALLS 16
#define LU_DRV_MAX_SEQ 8 /* setup or teardown calls */
#define LU_DRV_TRACE_CAP 65536
#define LU_DRV_REPORT_CAP (256 * 1024)
#define LU_DRV_MAX_EVENTS 256
#define LU_DRV_MAX_SERIAL 5000000u /* phase 1 executions: beyond, the matrix is too large */

/* Verdicts: findings about the code under test, then errors that stop the
 * check. The last column is the exit status they lead to. */
#define LU_DRV_VERDICTS(X)                                                                            \
    X(PASS, "pass", 0)                                                                                \
    X(VIOLATION, "linearizability violation", 1)                                                      \
    X(STUCK, "stuck history with no serial explanation", 1)                                           \
    X(NONDET, "nondeterminism", 1)                                                                    \
    X(CRASH, "crash", 1)                                                                              \
    X(DIVERGE, "divergence", 1)                                                                       \
    X(TIMEOUT, "timeout", 1)                                                                          \
    X(UNSUPPORTED, "unsupported call", 2)                                                             \
    X(HARNESS, "harness error", 2)                                                                    \
    X(INTERNAL, "internal error", 3)

enum lu_drv_verdict {
#define LU_DRV_V_ENUM(name, text, rc) LU_DRV_V_##name,
    LU_DRV_VERDICTS(LU_DRV_V_ENUM)
#undef LU_DRV_V_ENUM
        LU_DRV_V_COUNT
};

const char *lu_drv_verdict_name(int v);
int lu_drv_verdict_exit(int v);

/* A test: per thread, indices into the harness's operation table. */
struct lu_drv_test {
    unsigned nthreads;
    unsigned len[LU_DRV_MAX_THREADS];
    uint16_t cell[LU_DRV_MAX_THREADS][LU_DRV_MAX_CALLS];
};

unsigned lu_drv_test_calls(const struct lu_drv_test *t);

/* What a worker is asked to do. */
struct lu_drv_job {
    char harness_path[4096];
    char harness_name[128];
    struct lu_drv_test test;
    int preemptions;         /* phase 2 bound, -1 unbounded */
    uint64_t max_executions; /* phase 1: error beyond; phase 2: budget; 0 = unlimited */
    uint32_t spin_bound;
    uint32_t watchdog_ms;
    bool list_only;          /* just report the harnesses of the .so */
    unsigned want;           /* findings (1 << LU_DRV_F_*) to look for; 0: all */
    int cpu;                 /* core to pin the worker to, -1: none */
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
    char report[LU_DRV_REPORT_CAP / 2];
    struct lu_sched_step sched[LU_DRV_TRACE_CAP];
};

/* Where a worker was when it died, written from the signal path. */
struct lu_drv_fatal {
    int kind; /* enum lu_sched_fatal, 0 = none */
    int code;
    int tid;
    uintptr_t pc_off;  /* pc - module base */
    char module[512];
    char symbol[128];
};

struct lu_drv_shm {
    struct lu_drv_job job;

    /* live progress, readable after a crash */
    _Atomic int phase;
    _Atomic uint64_t executions[3]; /* [1], [2] per phase */
    _Atomic uint64_t histories;     /* distinct phase-2 histories checked */
    uint64_t points;
    uint32_t nev;
    struct lu_hist_event ev[LU_DRV_MAX_EVENTS]; /* current execution's history (no bytes) */
    struct lu_drv_fatal fatal;
    struct lu_hist_test htest; /* the worker's operation table, for reports */

    /* result */
    _Atomic int done;
    int verdict;
    int fail_phase;
    uint64_t serial_full, serial_stuck;
    int complete_bound;   /* phase 2 covered every schedule up to this bound */
    bool truncated;       /* phase 2 stopped at the execution budget */
    char harnesses[2048]; /* list_only: "name nops\n" lines, ops after */
    char report[LU_DRV_REPORT_CAP];
    uint32_t sched_len;
    struct lu_drv_finding findings[LU_DRV_F_COUNT];

    /* the scheduler's trace lives here so a parent can read it post mortem;
     * the replay schedule follows it */
    struct lu_sched_trace trace; /* LU_DRV_TRACE_CAP steps follow */
};

size_t lu_drv_shm_size(void);
struct lu_sched_step *lu_drv_shm_replay(struct lu_drv_shm *shm);

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
/* Appends "function (file:line)" for an offset in module, from addr2line,
 * or "module+offset" when it knows nothing. */
void lu_drv_addr2line(struct lu_buf *b, const char *module, uintptr_t off);

/* Formats a test the same way. */
void lu_drv_test_format(struct lu_buf *b, const struct lu_drv_test *t, const char *const *oplabels);

#endif
