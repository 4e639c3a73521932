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
 */
void lineup_register_sequence(const char *name, int teardown, const struct lineup_op *ops, unsigned nops);

/*
 * Inside an operation only: makes the byte string [data, data + len) part of
 * the operation's result, in addition to its return value (for operations
 * that return a snapshot, e.g. to_array()). The bytes are copied; a later
 * call in the same operation replaces them. Not a scheduling point. Outside
 * an operation run by lineup it does nothing.
 */
void lineup_result_bytes(const void *data, size_t len);

/*
 * A spin-loop hint: tells the scheduler that the calling thread waits for
 * another thread to change something, so that others run first. Scheduling
 * point. Outside lineup it calls sched_yield().
 */
void lineup_yield(void);

#define LINEUP_OP(function, argument) {#function, (function), (int64_t)(argument)}

#define LINEUP__CAT2(a, b) a##b
#define LINEUP__CAT(a, b) LINEUP__CAT2(a, b)

#define LINEUP_HARNESS(hname, create_fn, destroy_fn, ...)                                          \
    static const struct lineup_op lineup__ops_##hname[] = {__VA_ARGS__};                            \
    static const struct lineup_harness lineup__harness_##hname;                                     \
    __attribute__((constructor)) static void lineup__register_##hname(void)                         \
    {                                                                                               \
        lineup_register(&lineup__harness_##hname);                                                  \
    }                                                                                               \
    static const struct lineup_harness lineup__harness_##hname = {                                  \
        LINEUP_ABI_VERSION,                                                                         \
        #hname,                                                                                     \
        (create_fn),                                                                                \
        (destroy_fn),                                                                               \
        lineup__ops_##hname,                                                                        \
        sizeof lineup__ops_##hname / sizeof lineup__ops_##hname[0],                                 \
        __FILE__,                                                                                   \
        __LINE__}

#define LINEUP__SEQUENCE(hname, teardown, tag, ...)                                                 \
    static const struct lineup_op LINEUP__CAT(lineup__seq_##tag##_, hname)[] = {__VA_ARGS__};       \
    __attribute__((constructor)) static void LINEUP__CAT(lineup__register_##tag##_, hname)(void)    \
    {                                                                                               \
        lineup_register_sequence(#hname, (teardown), LINEUP__CAT(lineup__seq_##tag##_, hname),      \
                                 sizeof LINEUP__CAT(lineup__seq_##tag##_, hname) /                  \
                                     sizeof LINEUP__CAT(lineup__seq_##tag##_, hname)[0]);           \
    }                                                                                               \
    extern int lineup__sequence_declared_##tag##_##hname

/* Optional: LINEUP_SETUP(queue, LINEUP_OP(enqueue, 1)); runs enqueue(1)
 * before every test of harness queue. */
#define LINEUP_SETUP(hname, ...) LINEUP__SEQUENCE(hname, 0, setup, __VA_ARGS__)
/* Optional: LINEUP_TEARDOWN(queue, LINEUP_OP(try_dequeue, 0), ...); runs
 * after every test, and its results are checked too. */
#define LINEUP_TEARDOWN(hname, ...) LINEUP__SEQUENCE(hname, 1, teardown, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif
