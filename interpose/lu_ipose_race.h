/*
 * lu_ipose_race: a happens-before data-race detector on the plain
 * (non-atomic, non-volatile) memory accesses that lineup-cc's
 * instrumentation reports (__tsan_read*, __tsan_write*, the range and
 * memcpy/memset hooks). Design, guarantees and limits: docs/races.md.
 *
 * Two accesses race when they touch a common byte, at least one is a write,
 * they are made by different controlled threads of the same execution, and
 * neither happens before the other in the scheduler's vector clocks
 * (lu_sched_vc: thread create and join, every synchronization-object
 * operation, atomics and volatile accesses). Atomic accesses are
 * synchronization, never races. Accesses of uncontrolled threads and
 * accesses outside executions are ignored.
 *
 * Concurrency: the detector's state is only touched by the controlled
 * thread holding the baton (controlled threads never run concurrently), so
 * it takes no locks. lu_ipose_race_set_handler and lu_ipose_race_reset must
 * be called between executions (by the controller or before any other
 * thread was created), or from the thread holding the baton.
 */
#ifndef LU_IPOSE_RACE_H
#define LU_IPOSE_RACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Public (exported by liblineup.so for the driver) ---- */
#pragma GCC visibility push(default)

struct lu_ipose_race {
    uintptr_t addr; /* first byte both accesses touch */
    unsigned size;  /* bytes from addr to the last byte both touch */
    int tid[2];     /* [0] earlier access's controlled thread, [1] the current one */
    bool write[2];
    bool atomic[2];  /* an atomic (or volatile) access: one of the two is plain */
    uintptr_t pc[2]; /* return addresses into the code under test, for function:line
                      * (the call to the hook: look up pc - 1) */
};

/* Sets the handler called (on the controlled thread, at the second of the
 * two racing accesses) for each race found; NULL turns detection off (the
 * default, and then the plain-access hooks cost what they cost without a
 * detector: two loads and a branch). Each racy location is reported once
 * per execution. The handler may end the execution (lu_sched_abort) but
 * must make no other scheduling point; plain accesses it makes itself are
 * not analysed. Turning detection off frees the shadow memory. Not a
 * scheduling point. */
void lu_ipose_race_set_handler(void (*fn)(void *arg, const struct lu_ipose_race *r), void *arg);

/* Forgets all shadow state: call at the start of every execution. O(1):
 * shadow cells are stamped with an execution generation. Not a scheduling
 * point. */
void lu_ipose_race_reset(void);

#pragma GCC visibility pop

/* ---- Internal to liblineup.so ---- */
#pragma GCC visibility push(hidden)

/* Where the plain-access hooks of lu_ipose_tsan.c send accesses while
 * detection is on; NULL while off. Defined in lu_ipose_tsan.c (which must
 * link without this file: its unit test builds it alone), set by
 * lu_ipose_race_set_handler. */
extern void (*lu__ipose_race_hook)(const void *addr, size_t size, bool is_write, uintptr_t pc);
/* The same for atomic and volatile accesses (lu__ipose_race_atomic). */
extern void (*lu__ipose_race_atomic_hook)(const void *addr, size_t size, bool is_write, uintptr_t pc,
                                          uint32_t clock);

/* The detector's entry: one plain access of size bytes at addr by the
 * calling thread, made at return address pc. Ignored unless the caller is
 * a controlled thread. For interposers that know of accesses the
 * instrumentation does not report (for example free() of a block as a
 * write to all of it, to catch a use racing with the free). */
void lu__ipose_race_access(const void *addr, size_t size, bool is_write, uintptr_t pc);

/* One atomic (or volatile) access, reported by the atomic hooks after
 * lu_sched_access_end, so that what it acquired orders it after earlier
 * plain accesses; clock is lu_sched_clock() before lu_sched_access_begin,
 * the epoch a thread that acquires what this access released knows of.
 * Atomic accesses never race with each other, only with plain ones. */
void lu__ipose_race_atomic(const void *addr, size_t size, bool is_write, uintptr_t pc, uint32_t clock);

/* Forgets the shadow state of [addr, addr + size) (on a controlled thread
 * or between executions): for memory reused as a new object, so that its
 * accesses are not compared with those of the old one (the allocator
 * interposer, lu_ipose_malloc.c, calls it on every block it returns). */
void lu__ipose_race_forget(const void *addr, size_t size);

/* Counters since the last lu_ipose_race_reset, for tests and diagnostics. */
struct lu__ipose_race_stats {
    uint64_t accesses;  /* accesses by controlled threads analysed */
    uint64_t granules;  /* 8-byte granules with shadow state */
    uint64_t untracked; /* granule accesses not analysed: shadow memory was full */
    uint64_t races;     /* reports made (handler calls) */
    uint64_t records;   /* access records stored, all granules */
};
void lu__ipose_race_stats(struct lu__ipose_race_stats *out);

/* Bounds of the shadow memory of one execution: granules tracked (each
 * covers 8 bytes of the program's memory) and access records stored (one
 * per thread and kind per byte at most, usually one or two per granule).
 * Past either, further accesses are not analysed (races can be missed,
 * none is invented) and counted in 'untracked'. */
#define LU_IPOSE_RACE_MAX_GRANULES (1u << 19)
#define LU_IPOSE_RACE_MAX_RECORD_BYTES ((size_t)16 << 20)

#pragma GCC visibility pop

#endif
