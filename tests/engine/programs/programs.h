/*
 * The scenario programs of the engine tier: small pthread programs whose
 * code is compiled by lineup-cc (ThreadSanitizer instrumentation, so their
 * atomics and volatiles are scheduling points) and linked into the runner,
 * which explores them with lu_sched_run. Each entry point is the body of
 * controlled thread 0: it resets its globals (every execution starts from
 * the same state), creates the threads, joins them and leaves what the
 * runner checks in plain globals, read after lu_sched_run returned.
 *
 * Thread functions the runner names with dladdr (pcs of blocking calls and
 * crashes) are global; the runner is linked with -rdynamic for that.
 */
#ifndef LU_PROGRAMS_H
#define LU_PROGRAMS_H

#include <pthread.h>

/* Variant selected through the entry point's argument. */
#define PROG_BUGGY ((void *)0)
#define PROG_FIXED ((void *)1)

/* lost_update.c: two threads, two increments each. */
void *lost_update_main(void *variant);
extern int lost_update_final;

/* lock_order.c: thread 1 locks a then b; thread 2 b then a (buggy) or a
 * then b (fixed). */
void *lock_order_main(void *variant);
void *lock_order_ab(void *arg);
void *lock_order_ba(void *arg);
extern pthread_mutex_t lock_order_a, lock_order_b;

/* cond_wakeup.c: thread 1 waits for a flag thread 2 sets and signals. */
void *cond_wakeup_main(void *variant);
extern int cond_wakeup_saw;

/* spin_locks.c: spin_threads threads each take the lock spin_iters times
 * and increment spin_counter under it. */
enum spin_kind {
    SPIN_TAS,         /* test-and-set with atomic_exchange */
    SPIN_TICKET,      /* ticket lock */
    SPIN_TICKET_LEAK, /* ticket lock, thread 1 never releases it */
    SPIN_NEVER_SET    /* thread 1 waits for a flag thread 2 never writes */
};
void *spin_locks_main(void *kind);
extern int spin_threads, spin_iters;
extern int spin_final;

/* plain_spin.c: thread 1 waits on a plain int nobody sets. */
void *plain_spin_main(void *arg);

/* segv.c: thread 2 checks a pointer, thread 1 clears it, thread 2 uses it. */
void *segv_main(void *arg);
void *segv_clearer(void *arg);
void *segv_reader(void *arg);
extern int segv_seen;

/* exit3.c: thread 1 calls exit(3) if thread 2 already set a flag. */
void *exit3_main(void *arg);
void *exit3_checker(void *arg);

/* replay_mix.c: two condition waiters, a signaller, atomics; the values
 * each thread observed, in the order they were logged. */
#define REPLAY_MIX_LOG 16
void *replay_mix_main(void *arg);
extern int replay_mix_log[REPLAY_MIX_LOG];
extern int replay_mix_nlog;

#endif
