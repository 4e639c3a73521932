/*
 * Scenario programs of the race detector tests: small pthread programs
 * compiled by lineup-cc (gcc and clang), explored by race_runner.c with
 * the detector on. Each entry point is the body of controlled thread 0: it
 * resets its globals, creates the threads and joins them. Most come as a
 * pair: RACE_BUGGY leaves out (or misplaces) the synchronization, so a race
 * must be reported; RACE_FIXED has it, so none may be.
 *
 * Functions and variables the runner names (dladdr on pcs, report
 * addresses) are global; the runner is linked with -rdynamic.
 */
#ifndef RACE_PROGRAMS_H
#define RACE_PROGRAMS_H

#define RACE_BUGGY ((void *)0)
#define RACE_FIXED ((void *)1)

/* Two unsynchronized threads: race_plain_a writes race_plain_x, then
 * race_plain_b writes it (RACE_PLAIN_WW) or race_plain_reader reads it
 * (RACE_PLAIN_RW). */
#define RACE_PLAIN_WW ((void *)0)
#define RACE_PLAIN_RW ((void *)1)
void *race_plain_main(void *variant);
void *race_plain_a(void *arg);
void *race_plain_b(void *arg);
void *race_plain_reader(void *arg);
extern int race_plain_x;

/* Two threads increment race_multi_x and race_multi_y three times each,
 * yielding in between: many racy accesses, two racy locations. */
void *race_multi_main(void *arg);
extern int race_multi_x, race_multi_y;

/* A counter incremented twice by each of three threads, all under a
 * pthread mutex (fixed) or the third without it (buggy). */
void *race_mutex_main(void *variant);
extern int race_mutex_x;

/* Message passing: the producer writes race_mp_data and sets an atomic
 * flag with release, the consumer spins on it with acquire and reads the
 * data. Buggy: the producer sets the flag before writing the data. */
void *race_mp_main(void *variant);
extern int race_mp_data;

/* A failed compare-and-swap stores nothing, so it releases nothing (C11:
 * only its failure order applies, a load's). The producer writes
 * race_fcas_data, then CASes a word from 0 to 1 (seq_cst) and sets a relaxed
 * flag; the consumer waits for the flag, loads the word with acquire and
 * reads the data. Fixed: the word is 0, the CAS succeeds and the acquire
 * load synchronizes with it. Buggy: the word is 5, the CAS fails and nothing
 * orders the data write before the read. */
void *race_fcas_main(void *variant);
extern int race_fcas_data;

/* Plain and atomic accesses to one variable: race_mix_writer stores
 * race_mix_x atomically with release; race_mix_reader spins on it with
 * atomic loads, then reads it plainly. Fixed: the loads acquire, so the
 * plain read happens after the store (the store's record must carry the
 * epoch it released, not the next one). Buggy: relaxed loads order nothing,
 * so the plain read races with the atomic store. */
void *race_mix_main(void *variant);
void race_mix_writer(void);
void race_mix_reader(void *variant);
extern unsigned race_mix_x;

/* race_mixrmw_init writes race_mixrmw_x plainly, then sets a flag (release:
 * fixed; relaxed: buggy); race_mixrmw_add waits for the flag with acquire
 * and increments the variable with an atomic fetch_add, which races with
 * the plain write unless the flag published it. */
void *race_mixrmw_main(void *variant);
void race_mixrmw_init(void *variant);
void race_mixrmw_add(void);
extern unsigned race_mixrmw_x;

/* Main writes race_cj_x, creates a child that increments it and reads it
 * after the join (fixed) or before (buggy). */
void *race_cj_main(void *variant);
extern int race_cj_x;

/* Producer writes race_sem_data and posts a semaphore; the consumer waits
 * and reads (fixed) or reads before waiting (buggy). */
void *race_sem_main(void *variant);
extern int race_sem_data;

/* Producer writes race_cond_data, then sets a flag under a mutex and
 * signals a condition the consumer waits on; buggy: the data is written
 * after the unlock. */
void *race_cond_main(void *variant);
extern int race_cond_data;

/* Two threads read race_rr_x (fixed) or one reads, one writes (buggy). */
void *race_rr_main(void *variant);
extern int race_rr_x;

/* Fields of one 8-byte granule written by two threads: a and c by one,
 * b and d by the other (fixed); buggy: the second also writes c. */
struct race_bytes_s {
    char a;
    char b;
    short c;
    int d;
};
void *race_bytes_main(void *variant);
extern struct race_bytes_s race_bytes;

/* One thread memsets race_libc_buf while another copies it with memcpy
 * (buggy), compares it with strcmp (RACE_LIBC_STRCMP), or copies another
 * buffer (fixed): libc calls the instrumentation leaves alone, seen
 * through lu_ipose_libc.c. */
#define RACE_LIBC_STRCMP ((void *)2)
void *race_libc_main(void *variant);
void *race_libc_writer(void *arg);
void *race_libc_copier(void *src);
void *race_libc_comparer(void *src);
extern char race_libc_buf[32];

/* Thread 1 writes race_some_data then sets an atomic flag; thread 2 writes
 * the data only if it does not see the flag yet: a race on the schedules
 * where thread 2 looks first, none on the others. */
void *race_some_main(void *arg);
extern int race_some_data;

/* For the overhead measurement: thread 0 makes n plain 4-byte writes over
 * an array of 'span' ints (span <= RACE_BENCH_MAX). */
/* What the readers saw: globals, so that the compiler keeps the reads. */
extern int race_plain_seen, race_mp_seen, race_cj_seen, race_sem_seen, race_cond_seen, race_rr_seen[2];

#define RACE_BENCH_MAX (1 << 18)
void race_bench_set(long n, int span);
extern int race_bench_arr[RACE_BENCH_MAX];
void *race_bench_main(void *arg);

/* Heap blocks (interpose/lu_ipose_malloc.c). Buggy: race_heap_user writes
 * a block main allocated while race_heap_freer frees it, unordered (a
 * use-after-free race: free is a write of the whole block). Fixed: one
 * thread writes and frees a large block, the other allocates one of the
 * same size (mmap'd: usually the same address) and writes it; reuse is a
 * new object, not a race. race_heap_reused counts the executions where
 * the address was reused. */
void *race_heap_main(void *variant);
void *race_heap_user(void *arg);
void *race_heap_freer(void *arg);
extern long race_heap_reused;

/* Two threads each write their own slot of race_barrier_x, wait at a
 * barrier of 2 and read the other's slot: after the barrier (fixed), or
 * before it (buggy). The thread that blocks at the barrier must acquire
 * the other's writes when released. */
void *race_barrier_main(void *variant);
extern int race_barrier_x[2];

/* Two threads call pthread_once; the init function writes race_once_x and
 * both read it after pthread_once returns (fixed), or one reads it before
 * its call (buggy). The caller that waits for the other's init must
 * acquire its writes. */
void *race_once_main(void *variant);
extern int race_once_x;

/* Message passing through a relaxed atomic flag: without fences the
 * data is not published (buggy, a C11 data race); with a release fence
 * before the flag's store and an acquire fence after its load (fixed) it
 * is. */
void *race_relaxed_main(void *variant);
extern int race_relaxed_data;

#endif
