/* lu_rt: the runtime side of lineup.h (registry, byte results, yield),
 * shared by liblineup.so and the driver. Internal. */
#ifndef LU_RT_H
#define LU_RT_H

#include "lineup.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(default)

#define LU_RT_MAX_HARNESSES 64

/* Labels of the scheduling points the harness runtime and driver make, and
 * their names in traces. */
#define LU_RT_LABELS(X)                                                                                      \
    X(CALL, "operation call")                                                                                \
    X(JOIN, "waiting for the test threads")                                                                  \
    X(YIELD, "lineup_yield")                                                                                 \
    X(ATOMIC_BEGIN, "__VERIFIER_atomic_begin")                                                               \
    X(MAIN_RETURN, "return from main")

enum {
    LU_RT_L_FIRST = 3000,
    LU_RT_L_BEFORE_FIRST_ = LU_RT_L_FIRST - 1,
#define LU_RT_L_ENUM(name, printed) LU_RT_L_##name,
    LU_RT_LABELS(LU_RT_L_ENUM)
#undef LU_RT_L_ENUM
        LU_RT_L_END
};

struct lu_rt_seq {
    const char *name;
    int teardown;
    const struct lineup_op *ops;
    unsigned nops;
    const void *at; /* return address in the registering constructor: its source line */
};

/* Where lineup_result_bytes() copies to while the calling thread runs an
 * operation; NULL outside operations. */
struct lu_rt_bytes {
    unsigned char *data;
    size_t len, cap;
    bool set;
    size_t offered; /* the length asked for: more than cap was cut to cap */
};

/* Registered harnesses and sequences, in registration order. */
const struct lineup_harness *const *lu_rt_harnesses(unsigned *n);
const struct lu_rt_seq *lu_rt_sequences(unsigned *n);
/* Number of registrations refused (too many, bad ABI), for a clear error. */
unsigned lu_rt_rejected(void);
/* Checks what was registered for what would break lineup later: names
 * --harness and --test cannot write, duplicate harnesses, one operation
 * name for two functions, sequences of unknown harnesses. Returns 0, or -1
 * with a message (no newline) in msg; at[] then holds the registration
 * addresses of the sequences at fault (for source lines), or NULL. */
int lu_rt_check(char *msg, size_t n, const void *at[2]);
void lu_rt_reset(void);

void lu_rt_set_bytes_target(struct lu_rt_bytes *b);

/* Heap bytes live in the process, as the allocator interposition counts
 * them, and its hooks (interpose/lu_ipose.h): a cap on that count, and
 * allocations of the code under test that fail. */
typedef void lu_rt_alloc_hook(const char *fn, size_t size, uintptr_t pc, int64_t live);
int64_t lu_rt_heap_live(void);
void lu_rt_set_heap_cap(int64_t cap, lu_rt_alloc_hook *hook);
void lu_rt_set_alloc_failed(lu_rt_alloc_hook *hook);

#pragma GCC visibility pop

#endif
