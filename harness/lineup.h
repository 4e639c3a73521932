/*
 * lineup.h: the only header a lineup harness includes.
 *
 * A harness describes a concurrent object to test: how to make a fresh one
 * (create), how to free it (destroy, may be NULL), and the invocations lineup
 * combines into test matrices. An operation is
 *
 *     int64_t fn(void *object, int64_t argument)
 *
 * and its return value is the result lineup observes and compares. Build the
 * harness with lineup-cc (see README.md) and run `lineup ./harness.so`.
 *
 *     LINEUP_HARNESS(queue, create, destroy,
 *                    LINEUP_OP(enqueue, 200),
 *                    LINEUP_OP(try_dequeue, 0));
 *
 * Several harnesses may live in one shared object; names must be unique.
 * create may start threads of the object's own (a server, a worker pool):
 * they run beside the calls, and destroy, which runs after the test's
 * calls, must stop them (docs/guide.md, section 1).
 */
#ifndef LINEUP_H
#define LINEUP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LINEUP_ABI_VERSION 1

typedef int64_t (*lineup_op_fn)(void *object, int64_t argument);

struct lineup_op {
    const char *name;
    lineup_op_fn fn;
    int64_t arg;
};

struct lineup_harness {
    unsigned abi; /* LINEUP_ABI_VERSION */
    const char *name;
    void *(*create)(void);
    void (*destroy)(void *object);
    const struct lineup_op *ops;
    unsigned nops;
    const char *file;
    int line;
};

/*
 * Registers a harness; called by the constructor LINEUP_HARNESS generates
 * when the shared object is loaded. Not a scheduling point. Thread-safe only
 * in the sense that it runs during dlopen; do not call it yourself.
 */
void lineup_register(const struct lineup_harness *h);

/*
 * Registers an invocation sequence run by a single thread before (setup) or
 * after (teardown) every test of harness `name`, inside the same execution.
 * Their results are part of the observed history: setup calls happen before
 * all test calls, teardown calls after all of them. Called by the
 * constructors of LINEUP_SETUP / LINEUP_TEARDOWN. Not a scheduling point.
 * Like lineup_register, thread-safe only in that it runs during dlopen; do
 * not call it yourself.
 */
void lineup_register_sequence(const char *name, int teardown, const struct lineup_op *ops, unsigned nops);

/*
 * Inside an operation only: makes the byte string [data, data + len) part of
 * the operation's result, in addition to its return value (for operations
 * that return a snapshot, e.g. to_array()). The bytes are copied; a later
 * call in the same operation replaces them. At most 4096 bytes: more is a
 * harness error. Not a scheduling point. Outside an operation run by lineup
 * it does nothing.
 */
void lineup_result_bytes(const void *data, size_t len);

/*
 * A spin-loop hint: tells the scheduler that the calling thread waits for
 * another thread to change something, so that others run first. Any thread:
 * on one lineup controls (the test's threads, the object's own, a
 * program's threads under `lineup run`) a scheduling point; on any other
 * (outside lineup, in the handler of a signal lineup did not deliver) it
 * calls sched_yield().
 */
void lineup_yield(void);

/* clang-format off: the layout of the registration macros is part of what users read */
#define LINEUP_OP(function, argument)                                                                        \
    {                                                                                                        \
#function, (function), (int64_t)(argument)                                                           \
    }

#define LINEUP__CAT2(a, b) a##b
#define LINEUP__CAT(a, b) LINEUP__CAT2(a, b)

#define LINEUP_HARNESS(hname, create_fn, destroy_fn, ...)                                                    \
    static const struct lineup_op lineup__ops_##hname[] = {__VA_ARGS__};                                     \
    static const struct lineup_harness lineup__harness_##hname = {LINEUP_ABI_VERSION,                        \
                                                                  #hname,                                    \
                                                                  (create_fn),                               \
                                                                  (destroy_fn),                              \
                                                                  lineup__ops_##hname,                       \
                                                                  sizeof lineup__ops_##hname /               \
                                                                      sizeof lineup__ops_##hname[0],         \
                                                                  __FILE__,                                  \
                                                                  __LINE__};                                 \
    __attribute__((constructor)) static void lineup__register_##hname(void)                                  \
    {                                                                                                        \
        lineup_register(&lineup__harness_##hname);                                                           \
    }                                                                                                        \
    struct lineup__harness_declared_##hname

#define LINEUP__SEQUENCE(hname, teardown, tag, ...)                                                          \
    static const struct lineup_op LINEUP__CAT(lineup__seq_##tag##_, hname)[] = {__VA_ARGS__};                \
    __attribute__((constructor)) static void LINEUP__CAT(lineup__register_##tag##_, hname)(void)             \
    {                                                                                                        \
        lineup_register_sequence(#hname, (teardown), LINEUP__CAT(lineup__seq_##tag##_, hname),               \
                                 sizeof LINEUP__CAT(lineup__seq_##tag##_, hname) /                           \
                                     sizeof LINEUP__CAT(lineup__seq_##tag##_, hname)[0]);                    \
    }                                                                                                        \
    extern int lineup__sequence_declared_##tag##_##hname
/* clang-format on */

/* Optional: LINEUP_SETUP(queue, LINEUP_OP(enqueue, 1)); runs enqueue(1)
 * before every test of harness queue. */
#define LINEUP_SETUP(hname, ...) LINEUP__SEQUENCE(hname, 0, setup, __VA_ARGS__)
/* Optional: LINEUP_TEARDOWN(queue, LINEUP_OP(try_dequeue, 0), ...); runs
 * after every test, and its results are checked too. */
#define LINEUP_TEARDOWN(hname, ...) LINEUP__SEQUENCE(hname, 1, teardown, __VA_ARGS__)

/* ==================================================================
 * Whole programs: `lineup run -- PROGRAM` (docs/run.md)
 * ==================================================================
 *
 * A program built with lineup-cc (an executable) runs under lineup's
 * scheduler from main on, many times. These are the verifier conventions of
 * SV-COMP and similar suites, so that their programs run unchanged (they
 * may declare the functions themselves: the prototypes match). On threads
 * lineup does not control (the program started directly) they behave as a
 * plain run would: nondet values are 0, an assumption that fails ends the
 * program with status 0, atomic sections do nothing.
 *
 * __VERIFIER_nondet_T(): a value chosen by lineup, explored like a thread
 * choice (every value by the exhaustive strategies, drawn at random by the
 * randomized ones, recorded in replay files). The domain is small on
 * purpose: integer and floating types take 0, 1, ..., N-1, and signed ones
 * also -1, where N is `--nondet-range` (default 4); bool takes 0 and 1;
 * pointer and pchar take NULL and a non-null pointer to 64 zeroed writable
 * bytes. Any thread. On one lineup controls it is a choice point of the
 * schedule but not a scheduling point: no other thread runs there. On any
 * other (and in the handler of a signal lineup did not deliver) the value
 * is 0 (NULL), recorded nowhere.
 */
#ifdef __cplusplus
#define LINEUP__BOOL bool
#else
#define LINEUP__BOOL _Bool
#endif
LINEUP__BOOL __VERIFIER_nondet_bool(void);
LINEUP__BOOL __VERIFIER_nondet__Bool(void);
char __VERIFIER_nondet_char(void);
unsigned char __VERIFIER_nondet_uchar(void);
short __VERIFIER_nondet_short(void);
unsigned short __VERIFIER_nondet_ushort(void);
int __VERIFIER_nondet_int(void);
unsigned int __VERIFIER_nondet_uint(void);
unsigned __VERIFIER_nondet_unsigned(void);
long __VERIFIER_nondet_long(void);
unsigned long __VERIFIER_nondet_ulong(void);
long long __VERIFIER_nondet_longlong(void);
unsigned long long __VERIFIER_nondet_ulonglong(void);
size_t __VERIFIER_nondet_size_t(void);
float __VERIFIER_nondet_float(void);
double __VERIFIER_nondet_double(void);
void *__VERIFIER_nondet_pointer(void);
char *__VERIFIER_nondet_pchar(void);
/* Also defined, not declared here (their types are the program's typedefs):
 * __VERIFIER_nondet_u8, _u16, _u32, _u64, _loff_t, _sector_t, _int128,
 * _uint128. */

/* False: the execution is not a behaviour of the program. lineup drops it
 * (counted as discarded, never a failure) and goes on with the next one.
 * Any thread; not a scheduling point: on a thread lineup controls (in a
 * signal handler too) the execution ends there at once; on any other a
 * false condition calls exit(0). */
void __VERIFIER_assume(int cond);

/* A section no other thread runs in: no preemption between begin and end.
 * Blocking or spinning inside it makes the execution stuck (reported as a
 * deadlock or livelock). Nests. The outermost begin is a scheduling point,
 * so that other threads may still run just before the section; nested
 * begins and the end are not. Any thread: on one lineup does not control,
 * and in the handler of a signal lineup did not deliver, both do nothing. */
void __VERIFIER_atomic_begin(void);
void __VERIFIER_atomic_end(void);

/* The error location: calling it is a failure (reported with the thread
 * and the caller). A program's own definition takes precedence; lineup
 * then sees the assert or abort it ends in. Does not return. Any thread;
 * not a scheduling point: it prints a line and calls abort(), no other
 * thread running first. */
void reach_error(void);
void __VERIFIER_error(void);

#ifdef __cplusplus
}
#endif

#endif
