/*
 * lu_ipose: internal interface of the interposition layer (interpose/),
 * shared by its source files and the rest of liblineup.so. Not installed.
 *
 * Labels: the scheduler carries an opaque uint16_t label per scheduling
 * point, only for printing. Ranges are split by file so that each can grow
 * without touching the other:
 *     0 .. 999      TSan ABI entries (lu_ipose_tsan.c, lu_ipose_tsan.def)
 *     1000 ..       pthread and other interposed calls (lu_ipose_pthread*.c)
 * Additions to this header: append, do not reorder.
 */
#ifndef LU_IPOSE_H
#define LU_IPOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Everything here is internal to liblineup.so; hidden also lets the hot
 * paths reach lu__ipose_record_plain without a GOT load. */
#pragma GCC visibility push(hidden)

/* ---- Labels ----
 * The name look-ups below read constant tables only: any thread,
 * async-signal-safe (a fatal-signal report names labels), none a
 * scheduling point. */

enum lu_ipose_label {
    LU_IPOSE_L_NONE = 0,
#define LU_TSAN_ATOMIC(bits, op, shape, name) LU_IPOSE_L_TSAN_##bits##_##op,
#define LU_TSAN_FENCE(op, name) LU_IPOSE_L_TSAN_##op,
#define LU_TSAN_VOLATILE(op, bytes, kind, name) LU_IPOSE_L_TSAN_##op##bytes,
#define LU_TSAN_GENERIC(op, kind, name) LU_IPOSE_L_TSAN_generic_##op,
#include "lu_ipose_tsan.def"
    LU_IPOSE_L_TSAN_LAST,
    LU_IPOSE_L_PTHREAD_FIRST = 1000
};

_Static_assert(LU_IPOSE_L_TSAN_LAST <= LU_IPOSE_L_PTHREAD_FIRST, "TSan labels overflow their range");

/* Printable name of a TSan ABI label ("atomic_load(32)", "volatile
 * write(4)"), or NULL if label is not one of them. */
const char *lu__ipose_tsan_label_name(uint16_t label);

/* Printable name of a pthread/libc label (lu_ipose_pthread.c), or NULL. */
const char *lu__ipose_pthread_label_name(uint16_t label);

/* Any interposition label, or NULL: suits lu_sched_set_label_names(). */
static inline const char *lu__ipose_label_name(uint16_t label)
{
    return label < LU_IPOSE_L_PTHREAD_FIRST ? lu__ipose_tsan_label_name(label)
                                            : lu__ipose_pthread_label_name(label);
}

/* ---- Plain-access log (for a data-race detector) ----
 * Plain (non-atomic, non-volatile) loads and stores are not scheduling
 * points, and neither is any function here. While lu__ipose_record_plain is
 * nonzero, each one is appended to a per-process ring buffer; when it is
 * zero (the default) the instrumentation hooks cost one predictable branch.
 * Set it only between executions (or from the thread holding the baton).
 * Appending is lock-free and safe from any thread; a record being
 * overwritten by a wrapped-around writer while it is copied may read torn,
 * which only matters for uncontrolled threads (controlled threads never run
 * concurrently). */

#define LU_IPOSE_PLAIN_LOG_CAP (1u << 16) /* records kept; a power of two */

struct lu__ipose_plain_rec {
    uintptr_t addr;
    uintptr_t pc;     /* return address of the hook: the accessing code */
    uint32_t size;    /* bytes; saturated at UINT32_MAX for huge ranges */
    int16_t tid;      /* lu_sched_self(): -1 for uncontrolled threads */
    uint8_t is_write; /* read-modify-write compounds count as writes */
    uint8_t pad;
    uint32_t clock; /* the thread's own vector-clock entry (lu_sched_clock) */
};

extern int lu__ipose_record_plain;

/* Turns recording on or off: a store to lu__ipose_record_plain, allowed
 * where that is (above). */
void lu__ipose_plain_log_enable(bool on);
/* Forgets every record. Call with no instrumented code running, from any
 * thread. */
void lu__ipose_plain_log_reset(void);
/* Records appended since the last reset, including overwritten ones. Any
 * thread. */
uint64_t lu__ipose_plain_log_total(void);
/* Copies the most recent min(max, retained) records, oldest first, to out;
 * returns how many. Any thread; a record being appended meanwhile may be
 * copied torn (above). */
size_t lu__ipose_plain_log_copy(struct lu__ipose_plain_rec *out, size_t max);
/* A plain access of [addr, addr + size) by the instrumented code at pc
 * that the compiler did not instrument (libc's memory and string functions,
 * lu_ipose_libc.c): joins the running step's footprint and, when recording,
 * the log and the race detector, as an instrumented access would. Not a
 * scheduling point; any thread. */
void lu__ipose_plain_range(const void *addr, size_t size, bool is_write, void *pc);

/* ---- Shadow call stack ----
 * Kept per thread by __tsan_func_entry/__tsan_func_exit of instrumented
 * code. Entries are call sites (the return address each instrumented
 * function was entered with), innermost first; the current pc of the
 * innermost function is not among them (the scheduler has it). Frames left
 * behind (by longjmp, or by a stuck thread the scheduler abandoned, whose
 * stack the next execution reuses) are dropped lazily at the next function
 * entry. Not scheduling points. */

#define LU_IPOSE_SHADOW_MAX 256

struct lu__ipose_shadow;

/* Fills out with up to max call sites of the calling thread; returns how
 * many. Any thread, controlled or not: each has a shadow stack of its own. */
int lu__ipose_backtrace(uintptr_t *out, int max);
/* The calling thread's shadow stack, so that a thread can publish it and a
 * report can read it (with lu__ipose_backtrace_of) while that thread is
 * stopped. Valid until the thread exits. Any thread. */
struct lu__ipose_shadow *lu__ipose_shadow_self(void);
/* Any thread, while the owner of s is stopped (under the scheduler, any
 * controlled thread but the one running). */
int lu__ipose_backtrace_of(const struct lu__ipose_shadow *s, uintptr_t *out, int max);

/* ---- Heap accounting (lu_ipose_malloc.c) ----
 * The allocator interposition counts the usable bytes of the heap blocks
 * live in the process, whoever allocated them. A hook gets the allocating
 * function's name ("malloc"), the size asked for, the call site and the
 * count; it is called on controlled threads only (the code under test),
 * and may end the process. None of these is a scheduling point. */

typedef void lu__ipose_alloc_hook(const char *fn, size_t size, uintptr_t pc, int64_t live);

/* Any thread (a relaxed load; uncontrolled threads that allocate at the
 * same time make the count approximate). */
int64_t lu__ipose_heap_live(void);
/* Calls hook when an allocation makes the count pass cap (NULL: no cap),
 * once: the cap is then off until set again. Plain stores that allocations
 * read: set it between executions. */
void lu__ipose_set_heap_cap(int64_t cap, lu__ipose_alloc_hook *hook);
/* Calls hook when an allocation fails, unless the size asked for is more
 * than the process could have natively (the address space limit, or the
 * machine's memory and swap): then the caller sees the failure. Called
 * once, like the cap's hook; set it between executions too. */
void lu__ipose_set_alloc_failed(lu__ipose_alloc_hook *hook);

/* ---- Exit handlers (lu_ipose_pthread.c) ----
 * Under `lineup run` the program's atexit, on_exit, __cxa_atexit and
 * at_quick_exit handlers are kept by lineup, so that exit() (and a return
 * from main) or quick_exit() of a controlled thread runs them, under
 * control, before the process ends; natively glibc's exit would, but
 * lineup ends an execution with the exit_group system call. Only the
 * handlers of the executable whose image starts at base are kept (those of
 * shared libraries go to libc, which does not run them then). Call once,
 * before the program's constructors (no other thread runs yet); not a
 * scheduling point. */
void lu__ipose_exit_capture(const void *base);
/* Runs the kept exit handlers (quick: the at_quick_exit ones), last
 * registered first, on the calling controlled thread. A second thread that
 * exits meanwhile blocks for ever (C11 leaves two exits undefined): its
 * wait is a scheduling point; the first caller's only points are the
 * handlers' own. In a handler between lu_sched_async_enter and _leave they
 * run at once, waiting for nobody; on other threads, or with nothing
 * captured, it does nothing. */
void lu__ipose_exit_handlers(int status, bool quick);

#pragma GCC visibility pop

#endif
