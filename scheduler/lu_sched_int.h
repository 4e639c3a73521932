/* Internal state of the scheduler, shared by its source files only. */
#ifndef LU_SCHED_INT_H
#define LU_SCHED_INT_H

#include "lu_sched.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The scheduler's own memory comes straight from glibc, not through the
 * allocator interposition: that reports every block a controlled thread
 * allocates to the reduction, which names heap words by the block's rank
 * among the execution's allocations. The object model allocates on a
 * controlled thread the first time it meets an object and recycles
 * afterwards, so counting its blocks would give the program's blocks other
 * ranks in the first execution through a prefix than in the next ones, and
 * an entry learnt in one would not meet the same word in the other. */
extern void *__libc_malloc(size_t n);
extern void __libc_free(void *p);
#define uthash_malloc(sz) __libc_malloc(sz)
#define uthash_free(ptr, sz) __libc_free(ptr)
#include <uthash.h>

#include "lu_sched_strategy.h"

/* Pointers are the only keys: a cheap mixer beats uthash's Jenkins default. */
#undef HASH_FUNCTION
#define HASH_FUNCTION(keyptr, keylen, hashv)                                                                 \
    do {                                                                                                     \
        uint64_t lu__k;                                                                                      \
        memcpy(&lu__k, (keyptr), sizeof lu__k);                                                              \
        lu__k ^= lu__k >> 33;                                                                                \
        lu__k *= 0xff51afd7ed558ccdULL;                                                                      \
        lu__k ^= lu__k >> 33;                                                                                \
        (hashv) = (unsigned)lu__k;                                                                           \
    } while (0)

#define LU__ASSERT(cond)                                                                                     \
    do {                                                                                                     \
        if (__builtin_expect(!(cond), 0))                                                                    \
            lu__sched_bug(__FILE__, __LINE__, #cond);                                                        \
    } while (0)

void lu__sched_bug(const char *file, int line, const char *what) __attribute__((noreturn, cold));

#define LU__SYNCS 64
#define LU__MAX_KEYS 1024         /* glibc's PTHREAD_KEYS_MAX */
#define LU__POOL_STACK (8u << 20) /* of a pool thread (real pthread) */
/* Locations a thread remembers reading since its last change: a wait loop
 * that polls more than this many atomics is not seen as one (a divergence
 * of a correct wait for all of 9 flags, an audit's). Not more: a re-read at
 * one instruction is a look, so a double collect over that many locations
 * spins, and spinners lose histories that cannot change a verdict (where
 * they all take turns: docs/strategies.md, "Known limits of the run until
 * a met step"); 32 made that reach 32 locations (a review's, session 32). */
#define LU__MAX_READS 8
#define LU__MAX_SEEN 32 /* locations an idle thread remembers (lu__thread.seen) */
#define LU__MAX_ROUND 8 /* quiet steps of a round an idle thread remembers (lu__thread.round) */
#define LU__MAX_SPUN 8  /* spinning steps a thread remembers (lu__thread.spun) */
#define LU__MAX_MEET 8  /* objects a spinner's run may meet (lu_sched.ff_meet) */

enum lu__obj_type { LU__O_LOC, LU__O_MUTEX, LU__O_RW, LU__O_COND, LU__O_SEM, LU__O_BARRIER, LU__O_ONCE };

/* The model of one object the code under test synchronizes on, keyed by its
 * address. Reset at the start of every execution: an object whose epoch is
 * not the execution's is not there (lu__obj_find), and lu__obj_get resets
 * it in place, so that the objects of one execution are not re-added to
 * the table in the next (most addresses come back). */
struct lu__obj {
    const void *addr;
    uint32_t epoch;
    int type;
    uint64_t version; /* bumped on every state change: spin detection */
    union {
        struct {
            int owner; /* -1: free */
            int count;
            int kind;       /* PTHREAD_MUTEX_* */
            bool robust;    /* PTHREAD_MUTEX_ROBUST */
            uint8_t health; /* robust ones: enum lu__robust */
        } mutex;
        struct {
            int writer;
            int readers;                         /* read locks held, by all threads */
            uint64_t writers_waiting;            /* writers registered in wrlock (prefer_writer only) */
            bool prefer_writer;                  /* PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP */
            uint16_t held[LU_SCHED_MAX_THREADS]; /* read locks held per thread (glibc allows nesting) */
        } rw;
        struct {
            uint64_t waiters; /* threads waiting, in no order */
            uint32_t seq[LU_SCHED_MAX_THREADS];
            uint32_t next_seq;
        } cond;
        struct {
            unsigned value;
            /* for idle threads (lu__quiet_step): tokens posted by a thread
             * that gave back none it took (a signal, not a lock handed
             * back), and tokens each thread took and has not posted */
            unsigned fresh;
            uint16_t taken[LU_SCHED_MAX_THREADS];
        } sem;
        struct {
            unsigned count, arrived;
            uint64_t generation;
        } barrier;
        struct {
            int state; /* 0 not run, 1 running, 2 done */
        } once;
    } u;
    uint32_t vc[LU_SCHED_MAX_THREADS]; /* happens-before: joined on release */
    UT_hash_handle hh;
    struct lu__obj *next_free;
};

/* What a robust mutex went through: its owner ended holding it (the next
 * lock gets EOWNERDEAD and the mutex), the new owner has not called
 * pthread_mutex_consistent yet, it was unlocked so (every lock from then on
 * fails with ENOTRECOVERABLE). */
enum lu__robust { LU__ROBUST_OK, LU__ROBUST_OWNER_DEAD, LU__ROBUST_INCONSISTENT, LU__ROBUST_UNRECOVERABLE };

/* Whether a read lock can be taken now: no writer holds the lock, and on a
 * writer-preferring one none is registered (lu__enabled, lu__rw_acquire).
 * The writer itself gets EDEADLK before this is asked. */
static inline bool lu__rw_read_free(const struct lu__obj *o)
{
    return o->u.rw.writer == -1 && !(o->u.rw.prefer_writer && o->u.rw.writers_waiting);
}

/* ---- partial-order reduction state (lu_sched_explore.c, docs/por.md) ---- */

#define LU__OCACHE 64      /* object cache slots (a power of two) */
#define LU__OBJS_KEEP 1024 /* objects kept from one execution to the next; more: the table is emptied */
#define LU__ONCE_NEST 8    /* once routines inside once routines a thread's exit resets */
#define LU__POR_KEYS 8     /* locations/objects a signature names before it becomes "everything" */
#define LU__POR_ALTS 6     /* explored alternatives per step that can put a thread to sleep */
#define LU__POR_ENTS 8     /* sleeping threads per step */
#define LU__POR_DEPTH 2048 /* steps with reduction; deeper steps are explored in full */

/* What a step, or a run of steps of one thread, touches. */
struct lu__por_sig {
    uint8_t n;                  /* keys used */
    uint8_t flags;              /* LU__PS_* */
    uint8_t wmask;              /* bit i: key[i] is written (or changed as a sync object) */
    uint8_t smask;              /* bit i: key[i] is a synchronization object */
    uint64_t key[LU__POR_KEYS]; /* lu__por_key */
};

#define LU__PS_ALL 0x01 /* dependent with everything */
#define LU__PS_BOUNDARY                                                                                      \
    0x02                    /* a boundary step (YIELD, CREATE, JOIN, JOIN_ALL, OTHER, or one that starts a   \
                             * thread): ordered with every other boundary, call and return */
#define LU__PS_ALLSYNC 0x04 /* changes a sync object it does not name (cond wait's mutex) */
#define LU__PS_ENDFREE 0x08 /* the thread is at a FREE point after it */
#define LU__PS_DATA 0x10    /* a data choice happened in the step's transition */
#define LU__PS_CALL 0x20    /* chosen at a FREE point: the layer above records a call in it */
#define LU__PS_RET                                                                                           \
    0x40 /* ends at a FREE point or ends its thread: the layer above records a return in it; calls and       \
          * returns are ordered with each other, calls commute with calls, returns with returns */

/* A thread explored at a step, and what it did from there in the first
 * execution of that branch: its step alone, and its run up to its next FREE
 * point or until it stopped (docs/por.md: light and heavy sleep entries). */
struct lu__por_alt {
    uint8_t tid;
    uint8_t pending; /* LU__PA_*: not known yet */
};

/* Where in a block each part of its signature first occurs: the index,
 * counted from 1, of the first of the run's steps (k + 1: the operation it
 * waits for at the end, or what is unknown after it) that touches key[i],
 * that writes it, that is a call, a return, a boundary, a cond wait, or
 * "everything"; LU__PI_NONE: none. A step of another thread that is
 * dependent with the block is dependent with its steps from that index on,
 * and independent of the ones before (lu__dep_index). */
#define LU__PI_NONE 255
struct lu__por_bidx {
    uint8_t any[LU__POR_KEYS], w[LU__POR_KEYS];
    uint8_t call, ret, bnd, allsync, all;
};

/* What the alternative of the same index touched (kept apart from the
 * alternatives' ids, which every step looks at: one cache line for those). */
struct lu__por_altsig {
    struct lu__por_sig first, block;
    struct lu__por_bidx idx; /* of block */
    bool ev_ok;              /* the first step's event is known: its share of the prefix's name */
    uint64_t ev_h1, ev_h2;
};

#define LU__PA_FIRST 0x01
#define LU__PA_BLOCK 0x02

/* A sleeping thread: which alternative of which step put it to sleep.
 * A heavy entry whose block is dependent with a step executed since, but
 * only from its block's step `from` (>= 2) on, is "partial": the thread may
 * be chosen, but a schedule that switches away from it before it ran
 * from - 1 steps (while it is still a candidate) is covered (docs/por.md, section 3). */
struct lu__por_ent {
    uint32_t step;
    uint8_t tid, alt, light;
    uint8_t from; /* LU__PI_NONE: asleep */
};

struct lu__por_step {
    uint8_t nalt, nent;
    struct lu__por_alt alt[LU__POR_ALTS]; /* explored here, in order; the last is the chosen one */
    uint64_t sleep;                       /* threads asleep at this step */
    uint64_t sleep_exec;                  /* execution (lu__por.exec_id) that computed sleep */
    struct lu__por_sig exec;              /* the chosen thread's operation */
    struct lu__por_ent ent[LU__POR_ENTS];
    struct lu__por_altsig sig[LU__POR_ALTS];
    int8_t rtid;  /* only this thread may be chosen here (a partial entry's run), or -1 */
    uint8_t rrem; /* steps after this one that the run still holds */
    bool pcok;    /* the state here is named by its trace: no atomic section, not everyone spinning, no forced
                     run */
};

/* Heap blocks allocated in this execution and not freed, sorted by address
 * (lu_sched_note_alloc): a location inside one is keyed by (rank, offset). */
#define LU__POR_BLOCKS 1024
struct lu__por_blocks {
    uint32_t n;
    uint32_t hint;  /* index of the block found last (may be stale: checked) */
    uint32_t ranks; /* allocations so far in this execution */
    bool lost;      /* more than LU__POR_BLOCKS, or an odd overlap: keys unknown, no reduction */
    struct {
        uintptr_t lo, hi;
        uint32_t rank;
        bool freed; /* kept until the execution ends (lu__por_block_add) */
    } b[LU__POR_BLOCKS];
};

/* The prefix-trace cache (docs/por.md, section 8): each step's event in the
 * partial order of the execution (its thread, its index in that thread and
 * its vector clock under the reduction's dependence), and the hash of the
 * prefix up to it, the sum of its events' hashes, which every schedule of
 * the same Mazurkiewicz trace shares. */
#define LU__PC_THREADS 16 /* more threads: no cache for that execution */
struct lu__pc_ev {
    uint16_t own;  /* index of the event in its thread, from 1 */
    int16_t plink; /* the step of the thread's previous event, or -1 */
    uint16_t vc[LU__PC_THREADS];
};

/* The hash state after a step, kept for the next execution, which replays
 * the same prefix up to where DFS took a new alternative: it starts from
 * the last replayed step's state instead of hashing the prefix again. */
struct lu__pc_snap {
    uint64_t exec; /* lu__por.exec_id of the execution that wrote it; 0: none */
    uint64_t h1, h2;
    uint32_t pos;
    int16_t tlast[LU__PC_THREADS], born[LU__PC_THREADS];
};

/* One remembered node: a state (the prefix's trace), the thread that ran
 * last there, and the preemptions the DFS had left when it explored the
 * whole subtree below it with no sleeping thread (so every continuation
 * within that budget was explored from there). */
struct lu__pc_slot {
    uint64_t a; /* first half of the 128-bit prefix hash; 0: empty */
    uint64_t b; /* second half's top 40 bits | prev << 16 | preemptible << 15 | budget */
};
#define LU__PC_WAYS 4     /* slots per bucket (one cache line) */
#define LU__PC_FIRST 4096 /* buckets to start with (256 KB) */

/* struct lu_sched_cache: this header line, then up to max buckets, of
 * which mask + 1 are in use. The mapping is reserved for max from the
 * start (its pages cost nothing until touched), so that the table grows
 * in place and every process that shares it sees the growth. */
struct lu_sched_cache {
    uint64_t mask; /* buckets in use - 1 (atomic: another process may grow it) */
    uint64_t fill; /* entries put since it last grew, the moved ones too (approximate) */
    uint64_t max;  /* buckets it may grow to */
    size_t bytes;  /* of the mapping */
    uint32_t growing;
    char pad[64 - 4 * 8 - 4];
};
_Static_assert(sizeof(struct lu_sched_cache) == 64, "the slots start on their own cache line");

struct lu__por {
    struct lu__por_blocks blocks;
    /* prefix-trace cache, per execution (lu__pc_*) */
    bool pc_off;                      /* this execution hashes no more (too deep, too many threads...) */
    int16_t pc_nth;                   /* threads numbered when the last node was reached */
    uint64_t pc_h1, pc_h2;            /* hash of the prefix hashed so far */
    uint32_t pc_pos;                  /* trace steps hashed so far */
    int16_t pc_tlast[LU__PC_THREADS]; /* each thread's latest hashed event (step), or -1 */
    int16_t pc_born[LU__PC_THREADS];  /* the step that started the thread, or -1 */
    int pc_lazy;                      /* the replayed step whose snapshot holds the state, or -1 */
    struct lu__pc_ev pc_ev[LU__POR_DEPTH];
    struct lu__pc_snap pc_snap[LU__POR_DEPTH];
    struct lu__pc_slot pc_node[LU__POR_DEPTH]; /* nodes of the path to put when left (a = 0: none) */
    uint64_t exec_id;                          /* executions run in this process (0: none) */
    int last;                                  /* last thread step of this execution, or -1 */
    uint32_t last_alone;                       /* lu_sched.alone_steps when it was chosen */
    int run_tid;                               /* thread whose run is being recorded, or -1 */
    uint32_t run_start;
    uint32_t valid;    /* steps whose alt lists belong to the current path */
    uint32_t pending;  /* no alternative before this step still waits to be learnt */
    int nthreads;      /* threads when the last step was chosen (a step that spawns is a boundary) */
    uint32_t ahead_at; /* the step whose alternative's event lu__pc_ahead predicted, to be checked; 0: none */
    uint64_t ahead_h1, ahead_h2;
    struct lu__por_step step[LU__POR_DEPTH];
};

enum lu__tstate {
    LU__T_IDLE,    /* pool thread without work */
    LU__T_RUNNING, /* started in this execution, not finished */
    LU__T_FINISHED,
};

/* A thread's values of what it keeps in a shared TLS (lu_sched_config.tls):
 * errno, the hooks' values set before a scheduling point and read after it,
 * and the other layers' variables (lu_sched_tls_keep). Held here, not on
 * the thread's stack, where code under test that writes through a pointer
 * to a dead local of another thread would overwrite them. All zero for a
 * thread that has not run yet. */
struct lu__tls_view {
    uintptr_t pc;
    uint64_t arg;
    int mo;
    int err;
    unsigned char kept[LU_SCHED_TLS_KEEP_BYTES] __attribute__((aligned(8)));
};

struct lu__thread {
    int id;
    /* in the handler of a signal lineup did not deliver (lu_sched_async_enter):
     * next to id, which lu_sched_self reads with it on every hook */
    int async_depth;
    _Atomic uint32_t baton; /* futex word of the pool thread: start-up and shutdown only */
    bool retire;            /* the pool thread is to exit (a bigger stack takes its place) */
    struct lu_sched *s;
    pthread_t real; /* the pool thread lending its stack and control block (map: none) */
    void *map;      /* or the slot's own stack mapping (lu__slot_map), guard included */
    size_t map_len;
    uintptr_t fs;            /* its thread pointer (FS base) */
    uintptr_t stack_top;     /* where a fresh context starts on its stack */
    uintptr_t entry_frame;   /* lu__thread_main's frame (lu_sched_entry_frame) */
    uintptr_t stack_lo;      /* the lowest address of its stack (below stack_top) */
    size_t stack_size;       /* of that stack */
    void *sp;                /* saved stack pointer while switched out */
    struct lu__tls_view tls; /* under a shared TLS: its values while it is switched out */
    int state;
    bool first_run; /* has not reached its first scheduling point yet */
    int spawner;
    lu_sched_fn fn;
    void *arg;
    void *retval;
    bool detached, joined;

    /* pending visible operation at the current scheduling point */
    enum lu_sched_kind k;
    const void *obj;
    const void *obj2; /* cond: the mutex */
    uint16_t label;
    uintptr_t pc;
    uint32_t chosen_at; /* 1 + the trace step that chose it to go on, 0 if none did (it was alone) */
    int atomic_depth;
    int serial_depth;     /* of atomic_depth, lu_sched_atomic_begin's (the rest: program sections) */
    uint32_t sect_seq;    /* while atomic_depth > 0: which of the execution's sections it is in */
    int section;          /* owner of the atomic section this thread was created in, or -1 */
    uint32_t section_seq; /* and that section's sect_seq: a later one of the owner's is not it */
    bool turns;           /* lu_sched_takes_turns */

    /* spin detection: locations read since the last change this thread made */
    struct lu__read {
        const void *addr;
        uintptr_t pc;
        uint64_t oparg;
        uint64_t version;
        uint32_t seq; /* rseq at its last read: another read since, if it differs */
    } reads[LU__MAX_READS];
    uint64_t oparg; /* operand of the pending access (see LU_SCHED_SET_ARG) */
    int nreads;
    int rnext;     /* once reads is full: the oldest, which the next new one replaces */
    uint32_t rseq; /* reads noted */
    /* livelock detection: the thread looked (spun) and has learnt nothing
     * new since, nor changed anything but locks it took and gave back
     * (lu__quiet_step); seen[] holds the versions it read meanwhile */
    bool idle;
    bool settled;       /* two looks in a row with no stir between (lu__settled_spin) */
    uint8_t quiet_step; /* its last step was judged quiet before it ran (1; 2: a
                         * thread that takes no turns, lu__background_quiet) ... */
    bool wrote;         /* ... and wrote plain memory (lu_sched_plain_access) */
    uint8_t nseen, seen_next;
    uint64_t look_stirs; /* lu_sched.stirs at its last look */
    /* the quiet steps (instruction, object) it took since its last look,
     * and in the round before (between its last two looks): only a step
     * that repeats one of the round before is a settled spin; nround or
     * nprev past LU__MAX_ROUND: too many to tell */
    uint8_t nround, nprev;
    struct {
        uintptr_t pc;
        const void *obj;
    } round[LU__MAX_ROUND], prev[LU__MAX_ROUND];
    uint32_t looks;      /* turns it took while everyone spun, since news ... */
    uint64_t looks_news; /* ... that is, while lu_sched.news was this */
    struct {
        const void *addr;
        uint64_t version;
    } seen[LU__MAX_SEEN];
    /* the steps (instruction, object) it took while it spun, since its last
     * step that did not spin: a ring of the last LU__MAX_SPUN (lu__ff_offer) */
    uint8_t nspun, spun_next;
    struct {
        uintptr_t pc;
        const void *obj;
    } spun[LU__MAX_SPUN];

    /* signals sent by other threads (lu_sched_kill): bit sig - 1, and the
     * operation the thread was at when the first came */
    uint64_t sig_pending;
    struct lu_sched_sigstate sigs; /* the interposition layer's (lu_sched_sigstate) */
    struct {
        enum lu_sched_kind k;
        const void *obj, *obj2;
        uint16_t label;
        uint64_t oparg;
    } sig_saved;

    /* condition variable and barrier wait state */
    bool signalled;
    bool timed_back; /* at a COND_REACQUIRE after its timed wait gave up (lu__cond_wait) */
    uint64_t barrier_gen;

    void *cleanup; /* lu_sched_cleanup_chain */
    /* the once routines this thread runs, outermost first (nested deeper
     * than LU__ONCE_NEST: not kept): one it leaves by exiting is not done,
     * as with glibc. Addresses, not pointers into its stack, which an
     * exception thrown out of a routine leaves behind. */
    void *once_running[LU__ONCE_NEST];
    int once_depth;

    bool has_tsd; /* some tsd[] slot was set in this execution */
    void *tsd[LU__MAX_KEYS];

    /* happens-before vector clock of this thread */
    uint32_t vc[LU_SCHED_MAX_THREADS];
    /* C11 fences: the clock at the last release fence (released by later
     * relaxed stores), and what relaxed loads read since the last acquire
     * fence (acquired by the next one) */
    bool fenced;   /* fence_rel holds a release fence's clock */
    bool acq_used; /* acq_pending holds something */
    uint32_t fence_rel[LU_SCHED_MAX_THREADS];
    uint32_t acq_pending[LU_SCHED_MAX_THREADS];
};

/* The entry of t->reads for its pending access (the same location,
 * instruction and operand), or NULL: whether that access re-reads, and
 * whether it read anything else since (lu__reread, lu__ff_offer). */
static inline const struct lu__read *lu__pending_read(const struct lu__thread *t)
{
    for (int i = 0; i < t->nreads; i++)
        if (t->reads[i].addr == t->obj && t->reads[i].pc == t->pc && t->reads[i].oparg == t->oparg)
            return &t->reads[i];
    return NULL;
}

struct lu_sched {
    struct lu_sched_config cfg;
    struct lu__thread threads[LU_SCHED_MAX_THREADS];
    int nthreads;         /* started in this execution */
    int nlive;            /* of those, not finished */
    bool robust_used;     /* a robust mutex was initialized in this execution */
    uint64_t clock_ns;    /* the execution's virtual time (lu_sched_time) */
    uint64_t proc_sigs;   /* signals pending on the process, every thread blocking them */
    uint32_t alone_steps; /* points passed alone (lu__choose), for the length limit */
    int npool;            /* pool slots ready: a pool thread's, or a stack of their own */
    int fork_threads;     /* fork server: the most threads an execution in a child had */
    /* [stacks_lo, stacks_lo + stacks_span): every stack a slot of this
     * scheduler was given, for lu_sched_plain_access's quick test (0: none) */
    uintptr_t stacks_lo, stacks_span;
    _Atomic uint32_t pool_ready;
    char error[320]; /* why a pool thread could not start: res->message of an ERROR outcome */
    bool shutdown;
    void *ctl_sp;                /* the controller's context while an execution runs */
    uintptr_t ctl_fs;            /* its thread pointer, which thread 0 runs on too */
    uintptr_t cur_fs;            /* the FS base now loaded */
    bool tls_shared;             /* this execution: every controlled thread runs on ctl_fs */
    struct lu__tls_view ctl_tls; /* the controller's, while a controlled thread runs */
    unsigned long long tls_adds; /* dl_iterate_phdr's count of loads when AUTO last looked */

    /* execution */
    bool ended;
    struct lu_sched_result *res;
    int cur;             /* thread that runs */
    uint32_t replay_len; /* steps of trace to follow */
    uint64_t spin_run;
    uint64_t news;   /* steps that were not quiet (lu__idle_step), threads that ended */
    uint64_t stirs;  /* news, and changes by threads that take no turns (lu__bg_stir) */
    bool bg_changed; /* since the last news: a thread that takes no turns changed memory */
    uint32_t fp_gen; /* this execution's lu_sched_footprint, while it watches writes */
    /* a spinning thread chosen at a cost (lu_sched_step.spin) runs alone
     * until it stops spinning, for at most config.spin_bound more looks */
    int ff_tid;
    uint32_t ff_looks;
    /* ... or, DFS's other way (a data choice at its next point, ff_ask),
     * until it has taken a step on an object that a thread that could run
     * was about to act on (ff_until, ff_meet; ff_hit: that step is taken).
     * Back at its first step (ff_pc, ff_obj) without one, it went round for
     * nothing (lu__ff_offer). */
    bool ff_ask, ff_until, ff_hit;
    uint8_t nff_meet;
    int ff_chain_tid;  /* the thread whose such runs ended one after the other, */
    unsigned ff_chain; /* how many, with no other thread's step since the first */
    uintptr_t ff_pc;
    const void *ff_obj;
    const void *ff_meet[LU__MAX_MEET];
    uint32_t section_spawns; /* threads created inside atomic sections in this execution */
    int serial_owner;        /* the thread in a lu_sched_atomic_begin section, or -1 */
    uint32_t sect_seqs;      /* sections begun in this execution (lu__thread.sect_seq) */
    int turns_live;          /* running threads marked by lu_sched_takes_turns */
    struct lu__obj *objs;
    uint32_t epoch; /* of this execution's objects; never 0 */
    struct lu__obj *free_objs;
    /* this execution's synchronization objects (lu_sched_forget_sync); past
     * LU__SYNCS of them the whole table is searched */
    struct lu__obj *syncs[LU__SYNCS];
    unsigned nsyncs;
    /* direct-mapped cache in front of objs: most points look up one of a
     * few objects, and the hash lookup was a tenth of the run time */
    struct lu__obj *ocache[LU__OCACHE];
    struct {
        bool used;
        void (*dtor)(void *);
    } keys[LU__MAX_KEYS];
    bool keys_created; /* some key was created in this execution: keys[] to clear at the next */
    bool more;
    bool need_backtrack;
    uint32_t frozen_len;
    struct lu__strat strat; /* PCT/POS state (lu_sched_strategy.c) */
    uint64_t rng;

    struct lu_sched_stats stats;

    /* DFS partial-order reduction (config.por; NULL when off): about 2 MB,
     * in a shared mapping so that a fork server learns what the children
     * that run its executions learnt (lu_sched_fork.c) */
    struct lu__por *por;
    /* the prefix-trace cache (docs/por.md, section 8), with the reduction:
     * config.cache, or NULL */
    struct lu_sched_cache *pc;
    /* the configuration's answers for this execution (lu__explore_begin):
     * asked at every point */
    bool x_por, x_rand;
};

/* Owner o's section is a serial one (lu_sched_atomic_begin) that threads
 * taking no turns may share: not inside a program section of its own. */
static inline bool lu__shares_section(const struct lu_sched *s, int o)
{
    const struct lu__thread *w = &s->threads[o];
    return w->state == LU__T_RUNNING && w->serial_depth > 0 && w->atomic_depth == w->serial_depth;
}

/* The atomic section t runs in, named by its owner, or -1: t's own while
 * it is inside one, or the one t was created in while that lasts (not a
 * later section of the same owner: lu__own_section_of). At the
 * points of a section's threads only they may go on: an operation that
 * starts a helper thread and joins it stays one step of a serial execution
 * instead of blocking forever on the join. */
/* t was created in owner o's section under way (not in an earlier one) */
static inline bool lu__created_in(const struct lu_sched *s, const struct lu__thread *t, int o)
{
    return t->section == o && s->threads[o].sect_seq == t->section_seq;
}

static inline int lu__own_section_of(const struct lu_sched *s, const struct lu__thread *t)
{
    if (t->state == LU__T_RUNNING && t->atomic_depth > 0)
        return t->id;
    int o = t->section;
    if (o >= 0 && o < s->nthreads && s->threads[o].state == LU__T_RUNNING && s->threads[o].atomic_depth > 0 &&
        lu__created_in(s, t, o))
        return o;
    return -1;
}

static inline int lu__section_of(const struct lu_sched *s, const struct lu__thread *t)
{
    int o = lu__own_section_of(s, t);
    if (o >= 0)
        return o;
    /* with config.turns, a thread that takes no turns runs beside the
     * serial section under way, as part of it */
    o = s->serial_owner;
    if (s->cfg.turns && !t->turns && o >= 0 && lu__shares_section(s, o))
        return o;
    return -1;
}

static inline bool lu__in_section(const struct lu_sched *s, const struct lu__thread *t)
{
    return lu__section_of(s, t) >= 0;
}

extern __thread struct lu__thread *lu__self __attribute__((tls_model("initial-exec")));

/* Core (lu_sched.c) */
void lu__point(struct lu__thread *t, enum lu_sched_kind k, const void *obj, uint16_t label);
int lu__choose_data(struct lu__thread *t, int n);

/* The object model's look-ups: lu__obj_find gives the object at addr if
 * this execution met it, lu__obj_get creates it if not, and (re)starts
 * one of an earlier execution or a location now used as a sync object
 * with its initial state. Both answer inline from the cache when the
 * object is there and of this execution, as it mostly is; the rest is
 * out of line. */
static inline struct lu__obj **lu__ocache_slot(struct lu_sched *s, const void *addr)
{
    return &s->ocache[((uintptr_t)addr >> 3) & (LU__OCACHE - 1)];
}

struct lu__obj *lu__obj_find_slow(struct lu_sched *s, const void *addr);
struct lu__obj *lu__obj_get_slow(struct lu_sched *s, const void *addr, int type);

static inline struct lu__obj *lu__obj_find(struct lu_sched *s, const void *addr)
{
    struct lu__obj *o = *lu__ocache_slot(s, addr);
    if (o && o->addr == addr)
        return o->epoch == s->epoch ? o : NULL;
    return lu__obj_find_slow(s, addr);
}

static inline struct lu__obj *lu__obj_get(struct lu_sched *s, const void *addr, int type)
{
    struct lu__obj *o = *lu__ocache_slot(s, addr);
    if (o && o->addr == addr && o->epoch == s->epoch && (o->type == type || type == LU__O_LOC))
        return o;
    return lu__obj_get_slow(s, addr, type);
}
void lu__progress(struct lu__thread *t);
/* happens-before edges: acquire joins the object's clock into the thread's,
 * release joins the thread's into the object's and ticks the thread. */
void lu__hb_acquire(struct lu__thread *t, struct lu__obj *o);
void lu__hb_release(struct lu__thread *t, struct lu__obj *o);
/* a futex wait's read of its word; a wake that woke the threads in woken */
void lu__futex_read(struct lu__thread *t, struct lu__obj *o, bool acquire);
void lu__futex_woke(struct lu__thread *t, struct lu__obj *o, uint64_t woken);
void lu__end_execution(struct lu__thread *t, enum lu_sched_outcome o, const char *msg)
    __attribute__((noreturn));
bool lu__enabled(struct lu_sched *s, struct lu__thread *t);
bool lu__spinning(struct lu_sched *s, struct lu__thread *t);

/* Sets of operation kinds, as bit masks: the choice loop asks at every
 * point of every thread which set its pending operation is in, and one
 * shift and test answer that where a chain of comparisons took several. */
_Static_assert(LU_SCHED_K_COUNT <= 64, "operation kinds must fit a uint64_t mask");
#define LU__K(name) (1ULL << LU_SCHED_K_##name)

static inline bool lu__kind_in(enum lu_sched_kind k, uint64_t kinds)
{
    return kinds >> k & 1;
}

/* Operations another thread's step can disable: lu__enabled says true of
 * every other kind without looking. */
#define LU__KINDS_MAY_BLOCK                                                                                  \
    (LU__K(MUTEX_LOCK) | LU__K(RW_RDLOCK) | LU__K(RW_WRLOCK) | LU__K(RW_WR_BLOCKED) |                        \
     LU__K(COND_REACQUIRE) | LU__K(COND_TIMEDWAIT) | LU__K(SEM_WAIT) | LU__K(BARRIER_BLOCKED) |              \
     LU__K(ONCE_BLOCKED) | LU__K(JOIN) | LU__K(JOIN_ALL))

/* Timed waits: they may give up, and then spin (lu__spinning). */
#define LU__KINDS_TIMED                                                                                      \
    (LU__K(COND_TIMEDWAIT) | LU__K(MUTEX_TIMEDLOCK) | LU__K(SEM_TIMEDWAIT) | LU__K(RW_TIMED_RD) |            \
     LU__K(RW_TIMED_WR))

/* Reads that spin when they look again at what they saw (lu__spinning),
 * a futex wake or condition signal that would wake nobody among them. */
#define LU__KINDS_REREAD                                                                                     \
    (LU__K(READ) | LU__K(RMW) | LU__K(MUTEX_TRYLOCK) | LU__K(RW_TRY) | LU__K(SEM_TRYWAIT) |                  \
     LU__K(COND_SIGNAL) | LU__K(COND_BROADCAST))

/* The kinds lu__spinning may say true of, with an earlier read or without. */
#define LU__KINDS_MAY_SPIN (LU__K(YIELD) | LU__KINDS_TIMED | LU__KINDS_REREAD)

static inline bool lu__timed_kind(enum lu_sched_kind k)
{
    return lu__kind_in(k, LU__KINDS_TIMED);
}

/* lu__enabled and lu__spinning for the choice loop, which asks them of
 * every thread at every point: most pending operations are memory
 * accesses, always enabled, and a thread that read nothing since its last
 * change cannot be spinning, so neither needs an object lookup. */
static inline bool lu__enabled_q(struct lu_sched *s, struct lu__thread *t)
{
    if (!lu__kind_in(t->k, LU__KINDS_MAY_BLOCK))
        return true;
    /* lu__enabled's case, inline: the caller's main thread may wait so
     * through a whole execution (lu_sched_join_all or _turns), asked
     * about at every choice */
    if (t->k == LU_SCHED_K_JOIN_ALL && t->state == LU__T_RUNNING)
        return t->obj ? s->turns_live == 1 : s->nlive == 1; /* lu_sched_join_turns: t takes turns */
    return lu__enabled(s, t);
}

/* A look: a re-read, a spin hint, a timed wait that gives up (lu__spinning). */
static inline bool lu__looking_q(struct lu_sched *s, struct lu__thread *t)
{
    /* a re-read needs an earlier read; a spin hint or a timed wait does not */
    uint64_t kinds = t->nreads ? LU__KINDS_MAY_SPIN : LU__KINDS_MAY_SPIN & ~LU__KINDS_REREAD;
    return lu__kind_in(t->k, kinds) && lu__spinning(s, t);
}

bool lu__settled_spin(struct lu_sched *s, const struct lu__thread *t);

/* A look, or a quiet step of a thread that went round once without news
 * (lu__settled_spin): either way, running it changes nothing. */
static inline bool lu__spinning_q(struct lu_sched *s, struct lu__thread *t)
{
    return lu__looking_q(s, t) || (__builtin_expect(t->settled, 0) && lu__settled_spin(s, t));
}

/* An execution ended (here or in a forked child): count it and move the
 * strategy on (lu_sched.c). */
void lu__executed(struct lu_sched *s);
/* Readies pool slots 0..n-1 under a shared TLS, each with a stack of its
 * own, so that children forked afterwards inherit the mappings; 0, or an
 * error with s->error saying why. */
int lu__pool_premap(struct lu_sched *s, int n);
/* The prefix-trace cache's name of the execution that just ended
 * (res->trace_named, res->trace_name; lu_sched_explore.c). */
void lu__pc_final(struct lu_sched *s, struct lu_sched_result *res);

/* The prefix-trace cache (lu_sched_explore.c, lu_sched.c): its buckets;
 * put an entry (a, b) of struct lu__pc_slot; grow the table fourfold in
 * place, keeping its entries, once it is full enough that they start
 * pushing each other out (a process that finds another growing it skips) */
static inline struct lu__pc_slot *lu__pc_slots(struct lu_sched_cache *c)
{
    return (struct lu__pc_slot *)(c + 1);
}
void lu__pc_put(struct lu_sched_cache *c, uint64_t a, uint64_t b);
void lu__pc_grow(struct lu_sched_cache *c);

/* splitmix64's finalizer: the random strategies' generator, the fork
 * server's per-child seeds and the prefix-trace cache's event hashes */
static inline uint64_t lu__mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Exploration (lu_sched_explore.c) */
int lu__choose(struct lu_sched *s, struct lu__thread *cur);
void lu__backtrack(struct lu_sched *s);
uint64_t lu__rand(struct lu_sched *s);
unsigned lu__cost(int bound_kind, uint64_t cand, int prev, uint8_t flags, int a);
/* What taking alternative a at step st costs against the bound of kind
 * bound_kind: the rule DFS's backtracking and the work items' stack
 * functions (lu_sched_split.c) share. Data choices cost nothing. */
unsigned lu__step_cost(int bound_kind, const struct lu_sched_step *st, int a);
void lu__por_blocks_reset(struct lu_sched *s); /* an execution starts */
/* t's running step wrote shared state that no scheduling point shows (the
 * allocator, the table of thread-specific keys), named by word */
void lu__por_touch_hidden(struct lu__thread *t, const void *word);
/* t ends: its robust mutexes go to the next locker with EOWNERDEAD (its
 * other mutexes stay locked for ever, as in glibc) */
void lu__mutexes_orphan(struct lu__thread *t);
/* The thread holds a robust mutex (its end makes the owner dead). */
bool lu__mutexes_held_robust(const struct lu__thread *t);
/* The thread exits inside once routines: they are not done (state 0), and a
 * caller waiting for one runs it. */
void lu__once_abandon(struct lu__thread *t);
/* The program has a signal handler (lu_sched_note_signal_handler): a signal
 * may find a thread between its last operation and its end. */
extern bool lu__sig_handlers;

/* t's running step changed the sync object obj where no scheduling point
 * shows it (a thread ending releases its robust mutexes) */
void lu__por_touch_sync(struct lu__thread *t, const void *obj);
/* t's step was a CAS that failed: it only read addr (LU_SCHED_SET_MO_FAILED) */
void lu__por_read_only(struct lu__thread *t, const void *addr);
void lu__explore_begin(struct lu_sched *s); /* an execution starts */

/* Randomized strategies (lu_sched_strategy.c). begin: a new execution
 * starts (draw priorities, change points); pick: choose among allowed (more
 * than one bit); executed: thread chosen's pending operation runs now. */
void lu__strat_begin(struct lu_sched *s);
int lu__strat_pick(struct lu_sched *s, struct lu__thread *cur, uint64_t allowed);
void lu__strat_executed(struct lu_sched *s, int chosen);

/* Context switches (lu_sched_ctx.c) */
typedef void (*lu__ctx_switch_fn)(void **save_sp, void *new_sp, uintptr_t new_fs);
extern lu__ctx_switch_fn lu__ctx_switch;
/* when the FS base stays: no system call even without FSGSBASE */
void lu__ctx_switch_keep(void **save_sp, void *new_sp, uintptr_t new_fs);

/* The calling thread's thread pointer (FS base): the x86-64 TLS ABI keeps
 * it at %fs:0, a load where arch_prctl(ARCH_GET_FS) is a system call. */
static inline uintptr_t lu__thread_pointer(void)
{
    uintptr_t tp;
    __asm__("movq %%fs:0, %0" : "=r"(tp));
    return tp;
}
void lu__ctx_setup(void);
const char *lu__ctx_name(void);
void *lu__ctx_make(uintptr_t stack_top, struct lu__thread *t);
void lu__thread_main(struct lu__thread *t) __attribute__((noreturn));

/* Watchdog (lu_sched_watchdog.c): armed on the controller's kernel thread,
 * on which every controlled thread runs. */
void lu__wd_init(struct lu_sched *s);
void lu__wd_fini(void);
void lu__fatal_handlers_install(void);

#endif
