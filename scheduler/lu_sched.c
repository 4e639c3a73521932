/*
 * The controlled scheduler: the pool of threads lending stacks and control
 * blocks, handoffs, scheduling points, spin and livelock detection, the end
 * of an execution. What is chosen is decided in lu_sched_explore.c.
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread struct lu__thread *lu__self __attribute__((tls_model("initial-exec")));
__thread uintptr_t lu_sched_pc __attribute__((tls_model("initial-exec")));
__thread uint64_t lu_sched_arg __attribute__((tls_model("initial-exec")));
__thread int lu_sched_mo __attribute__((tls_model("initial-exec")));

static const char *const lu__err_msgs[] = {
#define LU__ERR_MSG(name, val, msg) [-(val)] = msg,
    LU_SCHED_ERRORS(LU__ERR_MSG)
#undef LU__ERR_MSG
};

const char *lu_sched_strerror(int err)
{
    if (err > 0 || -err >= (int)(sizeof lu__err_msgs / sizeof lu__err_msgs[0]))
        return "unknown error";
    return lu__err_msgs[-err];
}

static const char *const lu__outcome_names[] = {
#define LU__OUT_NAME(name, msg) msg,
    LU_SCHED_OUTCOMES(LU__OUT_NAME)
#undef LU__OUT_NAME
};

const char *lu_sched_outcome_name(enum lu_sched_outcome o)
{
    if ((unsigned)o >= sizeof lu__outcome_names / sizeof lu__outcome_names[0])
        return "?";
    return lu__outcome_names[o];
}

static const char *const lu__misfit_names[] = {
#define LU__MISFIT_NAME(name, msg) msg,
    LU_SCHED_MISFITS(LU__MISFIT_NAME)
#undef LU__MISFIT_NAME
};

const char *lu_sched_misfit_name(enum lu_sched_misfit m)
{
    if ((unsigned)m >= sizeof lu__misfit_names / sizeof lu__misfit_names[0])
        return "?";
    return lu__misfit_names[m];
}

static const char *const lu__kind_names[] = {
#define LU__KIND_NAME(name, msg) msg,
    LU_SCHED_KINDS(LU__KIND_NAME)
#undef LU__KIND_NAME
};

const char *lu_sched_kind_name(enum lu_sched_kind k)
{
    if ((unsigned)k >= LU_SCHED_K_COUNT)
        return "?";
    return lu__kind_names[k];
}

static lu_sched_label_fn lu__label_fn;

void lu_sched_set_label_names(lu_sched_label_fn fn)
{
    lu__label_fn = fn;
}

const char *lu_sched_label_name(uint16_t label)
{
    if (label == LU_SCHED_L_THREAD_END)
        return "the thread's end";
    const char *n = lu__label_fn ? lu__label_fn(label) : NULL;
    return n ? n : "?";
}

static lu_sched_bug_hook *lu__bug_hook;

void lu_sched_set_bug_hook(lu_sched_bug_hook *hook)
{
    lu__bug_hook = hook;
}

void lu_sched_bug(const char *file, int line, const char *what)
{
    lu__sched_bug(file, line, what);
}

uint32_t lu_sched_footprint;

void lu__sched_bug(const char *file, int line, const char *what)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "lineup: internal error at %s:%d: %s\n", file, line, what);
    lu_sched_bug_hook *hook = lu__bug_hook;
    lu__bug_hook = NULL;
    if (hook && n > 0)
        hook(buf);
    if (n > 0 && write(2, buf, (size_t)n) < 0) {
        /* nothing left to report to */
    }
    abort();
}

size_t lu_sched_trace_size(uint32_t cap)
{
    return sizeof(struct lu_sched_trace) + (size_t)cap * sizeof(struct lu_sched_step);
}

/* The exit_group system call without libc's syscall(), which liblineup.so
 * exports and, for controlled threads, turns into an _exit of the program
 * (a scheduling point first): lineup's own ends of the process must not go
 * through it. */
void lu__sched_exit_group(int status)
{
    __asm__ volatile("syscall" : : "a"((long)SYS_exit_group), "D"((long)status) : "rcx", "r11", "memory");
    __builtin_unreachable();
}

/* ---- futex baton ---- */

/* The futex system call without libc's syscall(): liblineup.so exports a
 * syscall() that models SYS_futex for controlled threads (pool threads run
 * on controlled threads' control blocks), and the baton must reach the
 * kernel. */
static long lu__futex(_Atomic uint32_t *w, int op, uint32_t val)
{
    register long r10 __asm__("r10") = 0; /* no timeout */
    long rc;
    __asm__ volatile("syscall"
                     : "=a"(rc)
                     : "0"((long)SYS_futex), "D"(w), "S"((long)op), "d"((long)val), "r"(r10)
                     : "rcx", "r11", "memory");
    return rc;
}

static void lu__give(_Atomic uint32_t *w)
{
    atomic_store_explicit(w, 1, memory_order_release);
    lu__futex(w, FUTEX_WAKE_PRIVATE, 1);
}

static void lu__take(_Atomic uint32_t *w)
{
    for (;;) {
        if (atomic_exchange_explicit(w, 0, memory_order_acquire) == 1)
            return;
        lu__futex(w, FUTEX_WAIT_PRIVATE, 0);
    }
}

/* ---- real pthread functions: pool threads are lineup's, never modelled ---- */

typedef int (*lu__create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*lu__join_fn)(pthread_t, void **);

static lu__create_fn lu__real_create(void)
{
    static lu__create_fn fn;
    if (!fn)
        fn = (lu__create_fn)dlsym(RTLD_NEXT, "pthread_create");
    return fn;
}

static lu__join_fn lu__real_join(void)
{
    static lu__join_fn fn;
    if (!fn)
        fn = (lu__join_fn)dlsym(RTLD_NEXT, "pthread_join");
    return fn;
}

/* ---- objects ---- */

/* The object at addr in the table, whatever its epoch. */
static struct lu__obj *lu__obj_lookup(struct lu_sched *s, const void *addr)
{
    struct lu__obj **c = lu__ocache_slot(s, addr), *o = *c;
    if (o && o->addr == addr)
        return o;
    HASH_FIND(hh, s->objs, &addr, sizeof addr, o);
    if (o)
        *c = o;
    return o;
}

struct lu__obj *lu__obj_find_slow(struct lu_sched *s, const void *addr)
{
    struct lu__obj *o = lu__obj_lookup(s, addr);
    return o && o->epoch == s->epoch ? o : NULL;
}

struct lu__obj *lu__obj_get_slow(struct lu_sched *s, const void *addr, int type)
{
    struct lu__obj *o = lu__obj_lookup(s, addr);
    if (o && o->epoch != s->epoch) {
        /* left by an earlier execution: start it afresh. A location's
         * model is its version (and clock); the union is a sync object's,
         * cleared when a location is adopted as one below. */
        o->epoch = s->epoch;
        o->type = type;
        o->version = 0;
        if (!s->cfg.no_clocks)
            memset(o->vc, 0, sizeof o->vc);
        if (type == LU__O_LOC)
            return o;
        memset(&o->u, 0, sizeof o->u);
        goto init;
    }
    if (o) {
        if (o->type != type && type != LU__O_LOC) {
            /* First seen as memory (e.g. a static initializer read), now used
             * as a sync object: adopt it with its default state. Likewise
             * memory that held another kind of object (a stack slot or a
             * mapping reused without free): whatever the old one's state,
             * the new one starts from its initializer's. */
            bool listed = o->type != LU__O_LOC;
            uint64_t v = o->version;
            memset(&o->u, 0, sizeof o->u);
            o->type = type;
            o->version = v;
            if (listed)
                goto set;
            goto init;
        }
        return o;
    }
    o = s->free_objs;
    if (o)
        s->free_objs = o->next_free;
    else if (!(o = __libc_malloc(sizeof *o))) {
        /* lineup's memory, not the program's: no behaviour of the program */
        if (!lu__self)
            lu__sched_bug(__FILE__, __LINE__, "out of memory for the object model");
        lu_sched_syserr(s->error, sizeof s->error, LU_SCHED_NEED_MEMORY, ENOMEM,
                        "out of memory for the object model", 0);
        lu__end_execution(lu__self, LU_SCHED_OUT_ERROR, s->error);
    }
    memset(o, 0, sizeof *o);
    o->addr = addr;
    o->epoch = s->epoch;
    o->type = type;
    HASH_ADD(hh, s->objs, addr, sizeof o->addr, o);
    *lu__ocache_slot(s, addr) = o;
init:
    if (type != LU__O_LOC) {
        if (s->nsyncs < LU__SYNCS)
            s->syncs[s->nsyncs] = o;
        s->nsyncs++;
    }
set:
    switch (type) {
    case LU__O_MUTEX:
        o->u.mutex.owner = -1;
        break;
    case LU__O_RW:
        o->u.rw.writer = -1;
        break;
    default:
        break;
    }
    return o;
}

/* Empties the table (its objects go to the free list). */
static void lu__objs_clear(struct lu_sched *s)
{
    memset(s->ocache, 0, sizeof s->ocache);
    struct lu__obj *o, *tmp;
    HASH_ITER(hh, s->objs, o, tmp)
    {
        HASH_DEL(s->objs, o);
        o->next_free = s->free_objs;
        s->free_objs = o;
    }
}

/* A new execution: every object of the last one is gone (a new epoch).
 * The table keeps them for their addresses, unless it grew large (the
 * heap may move from one execution to the next) or the epoch wraps. */
static void lu__objs_reset(struct lu_sched *s)
{
    s->nsyncs = 0;
    if (++s->epoch == 0 || HASH_COUNT(s->objs) > LU__OBJS_KEEP) {
        lu__objs_clear(s);
        if (s->epoch == 0)
            s->epoch = 1;
    }
}

static void lu__forget_in(struct lu_sched *s, struct lu__obj *o, uintptr_t a, size_t n)
{
    if (o->epoch != s->epoch || o->type == LU__O_LOC || (uintptr_t)o->addr - a >= n)
        return;
    /* one another thread waits on, or is at an operation on, stays: its
     * code goes on with the model it found (natively, the program's use
     * after free hangs it, or worse). The caller's obj is its last
     * operation's, done. */
    for (int i = 0; i < s->nthreads; i++) {
        const struct lu__thread *t = &s->threads[i];
        if (t != lu__self && t->state == LU__T_RUNNING && (t->obj == o->addr || t->obj2 == o->addr))
            return;
    }
    o->epoch = s->epoch - 1 ? s->epoch - 1 : UINT32_MAX; /* any other: left by "an earlier execution" */
}

void lu_sched_forget_sync(const void *p, size_t n)
{
    struct lu__thread *t = lu__self;
    if (!t || !p || !n)
        return;
    struct lu_sched *s = t->s;
    if (s->nsyncs <= LU__SYNCS) {
        for (unsigned i = 0; i < s->nsyncs; i++)
            lu__forget_in(s, s->syncs[i], (uintptr_t)p, n);
        return;
    }
    struct lu__obj *o, *tmp;
    HASH_ITER(hh, s->objs, o, tmp)
    lu__forget_in(s, o, (uintptr_t)p, n);
}

/* ---- enabledness and spinning ---- */

static bool lu__all_others_finished(struct lu_sched *s, int self)
{
    for (int i = 0; i < s->nthreads; i++)
        if (i != self && s->threads[i].state == LU__T_RUNNING)
            return false;
    return true;
}

static const char lu__turns_key; /* a JOIN_ALL's object: the threads that take turns only */

bool lu__enabled(struct lu_sched *s, struct lu__thread *t)
{
    /* the choice loop asks only about these (lu__enabled_q): a kind that
     * can be disabled belongs in LU__KINDS_MAY_BLOCK as well as below */
    if (!lu__kind_in(t->k, LU__KINDS_MAY_BLOCK))
        return true;
    struct lu__obj *o;
    switch (t->k) {
    case LU_SCHED_K_MUTEX_LOCK:
        o = lu__obj_find(s, t->obj);
        if (!o || o->u.mutex.owner == -1)
            return true;
        /* the owner relocking: recursive counts, errorcheck fails, normal
         * deadlocks on itself */
        return o->u.mutex.owner == t->id && o->u.mutex.kind != PTHREAD_MUTEX_NORMAL;
    /* the writer relocking gets EDEADLK at once, as in glibc */
    case LU_SCHED_K_RW_RDLOCK:
        o = lu__obj_find(s, t->obj);
        return !o || o->u.rw.writer == t->id || lu__rw_read_free(o);
    case LU_SCHED_K_RW_WRLOCK:
        /* on a writer-preferring lock, a writer that must wait first
         * registers (lu__rw_op) */
        o = lu__obj_find(s, t->obj);
        return !o || o->u.rw.writer == t->id || o->u.rw.prefer_writer ||
               (o->u.rw.writer == -1 && o->u.rw.readers == 0);
    case LU_SCHED_K_RW_WR_BLOCKED:
        o = lu__obj_find(s, t->obj);
        return o && o->u.rw.writer == -1 && o->u.rw.readers == 0;
    case LU_SCHED_K_COND_REACQUIRE:
    case LU_SCHED_K_COND_TIMEDWAIT:
        if (!t->signalled) {
            if (t->k != LU_SCHED_K_COND_TIMEDWAIT)
                return false;
            /* Giving up needs no mutex: it takes it back after, as a woken
             * waiter does (lu__cond_wait). While another thread holds it,
             * the give-up is offered only where that holder is about to
             * signal or broadcast this condition, which then finds the
             * waiter gone. A give-up at another step of the holder's is
             * like one made once the mutex is free, or as early as the
             * waiter let it go (a signal by a thread that does not hold
             * the mutex meets those), since the waiter's own state does
             * not change meanwhile. Given up at every step of the
             * holder's, stuck tests of waiters that retry ran up to 45x
             * the executions. Whether it is enabled so depends on the
             * holder's pending operation, which the trace fixes; the
             * reduction's signature of the give-up (the condition and the
             * mutex) meets the holder's signal, though not the steps
             * before it, which may enable it (a review's; the hand-off
             * programs reach the same outcomes with reduction on and
             * off). */
            o = lu__obj_find(s, t->obj2);
            if (!o || o->u.mutex.owner < 0 || o->u.mutex.owner == t->id)
                return true;
            const struct lu__thread *h = &s->threads[o->u.mutex.owner];
            return (h->k == LU_SCHED_K_COND_SIGNAL || h->k == LU_SCHED_K_COND_BROADCAST) && h->obj == t->obj;
        }
        /* its own: a recursive mutex it kept locked through the wait */
        o = lu__obj_find(s, t->obj2);
        return !o || o->u.mutex.owner == -1 || o->u.mutex.owner == t->id;
    case LU_SCHED_K_SEM_WAIT:
        o = lu__obj_find(s, t->obj);
        return o && o->u.sem.value > 0;
    case LU_SCHED_K_BARRIER_BLOCKED:
        o = lu__obj_find(s, t->obj);
        return o && o->u.barrier.generation != t->barrier_gen;
    case LU_SCHED_K_ONCE_BLOCKED:
        o = lu__obj_find(s, t->obj);
        return o && o->u.once.state != 1;
    case LU_SCHED_K_JOIN: {
        const struct lu__thread *target = t->obj;
        return target->state == LU__T_FINISHED;
    }
    case LU_SCHED_K_JOIN_ALL:
        if (t->obj == &lu__turns_key)
            return t->state == LU__T_RUNNING && t->turns ? s->turns_live == 1 : s->turns_live == 0;
        /* asked at every point while main waits: nlive counts the
         * running threads, t among them */
        if (t->state == LU__T_RUNNING)
            return s->nlive == 1;
        return lu__all_others_finished(s, t->id);
    default:
        return true;
    }
}

/* A timed wait that, chosen now, gives up: what it waits for is not there
 * (nobody signalled, the lock is held, the semaphore is 0). Giving up only
 * lets time pass, as a sleep does. */
static bool lu__would_time_out(struct lu_sched *s, struct lu__thread *t)
{
    const struct lu__obj *o = lu__obj_find(s, t->obj);
    switch (t->k) {
    case LU_SCHED_K_COND_TIMEDWAIT:
        return !t->signalled;
    case LU_SCHED_K_MUTEX_TIMEDLOCK:
        /* the owner relocking: recursive counts, errorcheck fails */
        return o && o->u.mutex.owner != -1 &&
               !(o->u.mutex.owner == t->id && o->u.mutex.kind != PTHREAD_MUTEX_NORMAL);
    case LU_SCHED_K_SEM_TIMEDWAIT:
        return !o || o->u.sem.value == 0;
    case LU_SCHED_K_RW_TIMED_RD:
        return o && o->u.rw.writer != t->id && !lu__rw_read_free(o);
    case LU_SCHED_K_RW_TIMED_WR:
        /* on a writer-preferring lock, a writer that must wait registers
         * first (lu__rw_op): a step, not a give-up */
        return o && o->u.rw.writer != t->id && (o->u.rw.writer != -1 || o->u.rw.readers != 0) &&
               (!o->u.rw.prefer_writer || (o->u.rw.writers_waiting >> t->id & 1));
    default:
        return false;
    }
}

/* Whether t's pending operation reads what it read last at the same
 * instruction with the same operand, nobody having changed it since. */
static inline bool lu__reread(struct lu_sched *s, const struct lu__thread *t)
{
    const struct lu__read *r = lu__pending_read(t);
    if (!r)
        return false;
    struct lu__obj *o = lu__obj_find(s, t->obj);
    return r->version == (o ? o->version : 0);
}

/* A futex wake or condition signal with nobody to wake changes nothing, as
 * a read does; repeated unchanged (a waiter arriving is a change, whether
 * or not it bumped the version) it is a look that waits for another
 * thread. Out of line: lu__spinning's reads are the hot path. */
static __attribute__((noinline, cold)) bool lu__wake_spins(struct lu_sched *s, const struct lu__thread *t)
{
    const struct lu__obj *o = lu__obj_find(s, t->obj);
    return o && o->type == LU__O_COND && !o->u.cond.waiters && lu__reread(s, t);
}

/* A thread is spinning when its next operation is a spin hint or a timed
 * wait that would give up, or re-reads, from the same instruction, a
 * location that nobody changed since it last read it there (a wake or
 * signal that would wake nobody reads its object too): running it
 * again cannot make progress until another thread writes. Requiring the
 * same instruction keeps double-checked reads (seqlock readers,
 * double-checked locking) schedulable. */
bool lu__spinning(struct lu_sched *s, struct lu__thread *t)
{
    /* the kinds of LU__KINDS_MAY_SPIN, which lu__spinning_q tests first */
    switch (t->k) {
    case LU_SCHED_K_YIELD:
        return true;
    case LU_SCHED_K_COND_TIMEDWAIT:
    case LU_SCHED_K_MUTEX_TIMEDLOCK:
    case LU_SCHED_K_SEM_TIMEDWAIT:
    case LU_SCHED_K_RW_TIMED_RD:
    case LU_SCHED_K_RW_TIMED_WR:
        return lu__would_time_out(s, t);
    case LU_SCHED_K_READ:
    case LU_SCHED_K_RMW:
    case LU_SCHED_K_MUTEX_TRYLOCK:
    case LU_SCHED_K_RW_TRY:
    case LU_SCHED_K_SEM_TRYWAIT:
        return lu__reread(s, t);
    default:
        /* (not case labels: they would slow the switch down for reads) */
        if (t->k == LU_SCHED_K_COND_SIGNAL || t->k == LU_SCHED_K_COND_BROADCAST)
            return lu__wake_spins(s, t);
        return false;
    }
}

/* Records that t read o (at its pending instruction) without changing it. */
static void lu__note_read(struct lu__thread *t, const struct lu__obj *o)
{
    const void *key = o->addr;
    uint64_t v = o->version;
    uint32_t q = ++t->rseq;
    for (int i = 0; i < t->nreads; i++) {
        if (t->reads[i].addr == key && t->reads[i].pc == t->pc && t->reads[i].oparg == t->oparg) {
            t->reads[i].version = v;
            t->reads[i].seq = q;
            return;
        }
    }
    /* the order of the entries does not matter, only which are kept */
    int at = t->nreads;
    if (at == LU__MAX_READS) {
        at = t->rnext;
        t->rnext = (t->rnext + 1) % LU__MAX_READS;
    } else {
        t->nreads++;
    }
    t->reads[at].addr = key;
    t->reads[at].pc = t->pc;
    t->reads[at].oparg = t->oparg;
    t->reads[at].version = v;
    t->reads[at].seq = q;
}

void lu__progress(struct lu__thread *t)
{
    t->nreads = 0;
    t->rnext = 0;
}

static void lu__vc_join(uint32_t *dst, const uint32_t *src, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[i] > dst[i] ? src[i] : dst[i]; /* branch-free, so that -O3 may vectorize it */
}

void lu__hb_acquire(struct lu__thread *t, struct lu__obj *o)
{
    if (!t->s->cfg.no_clocks)
        lu__vc_join(t->vc, o->vc, t->s->nthreads);
}

void lu__hb_release(struct lu__thread *t, struct lu__obj *o)
{
    if (t->s->cfg.no_clocks)
        return;
    lu__vc_join(o->vc, t->vc, t->s->nthreads);
    t->vc[t->id]++;
}

int lu_sched_vc(int tid, uint32_t *out, int max)
{
    struct lu__thread *self = lu__self;
    if (!self || tid < 0 || tid >= self->s->nthreads)
        return -1;
    int n = self->s->nthreads < max ? self->s->nthreads : max;
    memcpy(out, self->s->threads[tid].vc, (size_t)n * sizeof *out);
    return n;
}

bool lu_sched_live(int tid)
{
    struct lu__thread *self = lu__self;
    return self && tid >= 0 && tid < self->s->nthreads && self->s->threads[tid].state != LU__T_FINISHED;
}

uint64_t *lu_sched_process_sigs(void)
{
    struct lu__thread *t = lu__self;
    return t && !t->async_depth ? &t->s->proc_sigs : NULL;
}

uint64_t lu_sched_sigmask_of(int tid)
{
    return lu_sched_live(tid) ? lu__self->s->threads[tid].sigs.mask : ~0ULL;
}

bool lu_sched_finished(int tid)
{
    struct lu__thread *self = lu__self;
    return self && tid >= 0 && tid < self->s->nthreads && self->s->threads[tid].state == LU__T_FINISHED;
}

uint32_t lu_sched_clock(void)
{
    struct lu__thread *t = lu__self;
    return t ? t->vc[t->id] : 0;
}

/* ---- handoff ---- */

static inline void lu__go(struct lu_sched *s, void **save, void *sp, uintptr_t fs)
{
    if (fs == s->cur_fs) {
        lu__ctx_switch_keep(save, sp, fs);
        return;
    }
    s->cur_fs = fs;
    lu__ctx_switch(save, sp, fs);
}

/* ---- the other layers' per-thread TLS (lu_sched_tls_keep) ---- */

/* The kept variables as pieces of 8, 4, 2 or 1 bytes, each swapped at
 * every switch under a shared TLS (lu__tls_swap) */
static struct {
    intptr_t off; /* from the thread pointer: the same in every thread */
    uint32_t at;  /* in lu__tls_view.kept */
    uint32_t width;
} lu__keep[LU_SCHED_TLS_KEEP_BYTES];
static int lu__nkeep;
static uint32_t lu__keep_used;

int lu_sched_tls_keep(void *var, size_t size)
{
    size_t rounded = (size + 7) & ~(size_t)7;
    if (!var || !size || rounded > LU_SCHED_TLS_KEEP_BYTES - lu__keep_used)
        return LU_SCHED_EINVAL;
    intptr_t off = (intptr_t)((uintptr_t)var - lu__thread_pointer());
    for (uint32_t done = 0; done < size;) {
        uint32_t left = (uint32_t)size - done, w = left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
        lu__keep[lu__nkeep].off = off + (intptr_t)done;
        lu__keep[lu__nkeep].at = lu__keep_used + done;
        lu__keep[lu__nkeep].width = w;
        lu__nkeep++;
        done += w;
    }
    lu__keep_used += (uint32_t)rounded;
    return 0;
}

/* One piece of a kept variable: var's value to out, then in's to var (each
 * read before it is written, as two copies one after the other would). A
 * memcpy call here would be liblineup's own interposer (lu_ipose_libc.c),
 * which asks whether something watches and whether its caller is
 * lineup's code before it copies: two such calls per variable at every
 * switch were 5% of an explorer's instructions. */
#define LU__SWAP_PIECE(type, out, var, in)                                                                   \
    do {                                                                                                     \
        type w_;                                                                                             \
        __builtin_memcpy(&w_, var, sizeof w_);                                                               \
        __builtin_memcpy(out, &w_, sizeof w_);                                                               \
        __builtin_memcpy(&w_, in, sizeof w_);                                                                \
        __builtin_memcpy(var, &w_, sizeof w_);                                                               \
    } while (0)

/* Under a shared TLS (thread pointer tp), what a switch does to it in
 * software: the running thread's values go to out, the next one's come
 * from in. The switching thread does both, so nothing of it waits on a
 * stack. */
static void lu__tls_swap(uintptr_t tp, struct lu__tls_view *out, const struct lu__tls_view *in)
{
    int *err = &errno;
    out->pc = lu_sched_pc;
    out->arg = lu_sched_arg;
    out->mo = lu_sched_mo;
    out->err = *err;
    lu_sched_pc = in->pc;
    lu_sched_arg = in->arg;
    lu_sched_mo = in->mo;
    *err = in->err;
    for (int i = 0; i < lu__nkeep; i++) {
        unsigned char *var = (unsigned char *)(tp + (uintptr_t)lu__keep[i].off);
        unsigned char *o = out->kept + lu__keep[i].at;
        const unsigned char *n = in->kept + lu__keep[i].at;
        switch (lu__keep[i].width) {
        case 8:
            LU__SWAP_PIECE(uint64_t, o, var, n);
            break;
        case 4:
            LU__SWAP_PIECE(uint32_t, o, var, n);
            break;
        case 2:
            LU__SWAP_PIECE(uint16_t, o, var, n);
            break;
        default:
            LU__SWAP_PIECE(uint8_t, o, var, n);
            break;
        }
    }
}
#undef LU__SWAP_PIECE

/* Switches from the running context (a controlled thread's, saved into
 * *save) to thread `to`. Returns when somebody switches back. */
static void lu__switch_to(struct lu_sched *s, void **save, struct lu__thread *to)
{
    s->cur = to->id;
    if (!s->tls_shared) {
        lu__go(s, save, to->sp, to->fs);
        return;
    }
    /* One TLS for every thread (lu_sched_config.tls): the switch moves no
     * FS base but swaps what each thread keeps in it */
    struct lu__thread *me = lu__self;
    lu__tls_swap(s->ctl_fs, me ? &me->tls : &s->ctl_tls, &to->tls);
    lu__self = to;
    lu__go(s, save, to->sp, s->ctl_fs);
}

static void lu__fill_result(struct lu_sched *s);

/* The execution is over (complete or stuck): record how and return to the
 * controller. The threads still inside the code under test are simply
 * abandoned: their contexts are never resumed, the next execution starts
 * fresh ones on the same stacks. */
static void lu__over(struct lu_sched *s, struct lu__thread *from) __attribute__((noreturn));
static void lu__over(struct lu_sched *s, struct lu__thread *from)
{
    lu__fill_result(s);
    s->ended = true;
    if (s->tls_shared) {
        lu__tls_swap(s->ctl_fs, &from->tls, &s->ctl_tls);
        lu__self = NULL;
    }
    lu__go(s, &from->sp, s->ctl_sp, s->ctl_fs);
    lu__sched_bug(__FILE__, __LINE__, "an ended execution resumed a thread");
}

static void lu__fill_result(struct lu_sched *s)
{
    struct lu_sched_result *r = s->res;
    r->nthreads = s->nthreads;
    r->steps = s->cfg.trace->len;
    for (int i = 0; i < s->nthreads; i++) {
        struct lu__thread *t = &s->threads[i];
        struct lu_sched_thread_info *ti = &r->threads[i];
        ti->k = t->k;
        ti->label = t->label;
        ti->obj = (void *)t->obj;
        ti->pc = t->pc;
        if (t->state == LU__T_FINISHED)
            ti->state = LU_SCHED_TS_FINISHED;
        else if (!lu__enabled(s, t))
            ti->state = LU_SCHED_TS_BLOCKED;
        else if (lu__spinning_q(s, t))
            ti->state = LU_SCHED_TS_SPINNING;
        else
            ti->state = LU_SCHED_TS_ENABLED;
    }
}

/* Ends the execution from a controlled thread. */
void lu__end_execution(struct lu__thread *t, enum lu_sched_outcome o, const char *msg)
{
    struct lu_sched *s = t->s;
    s->res->outcome = o;
    if (msg)
        s->res->message = msg;
    if (s->res->culprit < 0)
        s->res->culprit = t->id;
    lu__over(s, t);
}

/* ---- signals from other threads ---- */

static void (*lu__sig_deliver)(int sig);

void lu_sched_set_signal_deliver(void (*fn)(int sig))
{
    lu__sig_deliver = fn;
}

bool lu__sig_handlers;

void lu_sched_note_signal_handler(void)
{
    __atomic_store_n(&lu__sig_handlers, true, __ATOMIC_RELAXED);
}

int lu_sched_kill(int tid, int sig, uint16_t label, uint16_t take_label)
{
    struct lu__thread *t = lu__self;
    struct lu_sched *s = t->s;
    t->pc = lu_sched_pc;
    if (tid < 0 || tid >= s->nthreads)
        return ESRCH;
    LU__ASSERT(tid != t->id && sig >= 0 && sig <= 64);
    lu__point(t, LU_SCHED_K_SIGNAL, &s->threads[tid].sig_pending, label);
    struct lu__thread *to = &s->threads[tid];
    if (to->state != LU__T_RUNNING || sig == 0)
        return 0;
    lu__hb_release(t, lu__obj_get(s, &to->sig_pending, LU__O_LOC));
    if (to->k != LU_SCHED_K_SIGNAL) {
        /* the target is parked at a scheduling point: taking the signal
         * is its next step (it keeps its pc, where it is parked) */
        to->sig_saved.k = to->k;
        to->sig_saved.obj = to->obj;
        to->sig_saved.obj2 = to->obj2;
        to->sig_saved.label = to->label;
        to->sig_saved.oparg = to->oparg;
        to->k = LU_SCHED_K_SIGNAL;
        to->obj = &to->sig_pending;
        to->obj2 = NULL;
        to->label = take_label;
        if (s->cfg.on_point)
            s->cfg.on_point(s->cfg.on_point_arg, to->id, to->k, to->label, to->pc);
    }
    to->sig_pending |= 1ULL << (sig - 1);
    return 0;
}

/* t was chosen to take its pending signals: it goes back to its operation
 * and runs the handlers first (their scheduling points nest in this one's);
 * the caller then chooses again, since the operation may be disabled now,
 * and others may go first. */
static void lu__take_signals(struct lu__thread *t)
{
    struct lu_sched *s = t->s;
    uint64_t pending = t->sig_pending;
    uintptr_t pc = t->pc;
    /* a signal sent while a handler is parked at one of its points saves
     * that point's operation over this one */
    __typeof__(t->sig_saved) saved = t->sig_saved;
    /* what the interrupted operation's caller set for after its point */
    uintptr_t caller_pc = lu_sched_pc;
    uint64_t arg = lu_sched_arg;
    int mo = lu_sched_mo;
    t->sig_pending = 0;
    lu__hb_acquire(t, lu__obj_get(s, &t->sig_pending, LU__O_LOC));
    for (int sig = 1; sig <= 64; sig++) {
        if (pending >> (sig - 1) & 1) {
            LU__ASSERT(lu__sig_deliver != NULL);
            lu__sig_deliver(sig);
        }
    }
    t->k = saved.k;
    t->obj = saved.obj;
    t->obj2 = saved.obj2;
    t->label = saved.label;
    t->oparg = saved.oparg;
    t->pc = pc;
    if (s->cfg.on_point)
        s->cfg.on_point(s->cfg.on_point_arg, t->id, t->k, t->label, t->pc);
    lu_sched_pc = caller_pc;
    lu_sched_arg = arg;
    lu_sched_mo = mo;
}

bool lu_sched_async_enter(struct lu_sched_async *save)
{
    struct lu__thread *t = lu__self;
    if (!t || t->state != LU__T_RUNNING)
        return false;
    save->k = t->k;
    save->obj = t->obj;
    save->obj2 = t->obj2;
    save->label = t->label;
    save->pc = t->pc;
    save->oparg = t->oparg;
    save->caller_pc = lu_sched_pc;
    save->arg = lu_sched_arg;
    save->mo = lu_sched_mo;
    t->async_depth++;
    return true;
}

void lu_sched_async_leave(const struct lu_sched_async *save)
{
    struct lu__thread *t = lu__self;
    t->async_depth--;
    t->k = save->k;
    t->obj = save->obj;
    t->obj2 = save->obj2;
    t->label = save->label;
    t->pc = save->pc;
    t->oparg = save->oparg;
    lu_sched_pc = save->caller_pc;
    lu_sched_arg = save->arg;
    lu_sched_mo = save->mo;
}

static void lu__dispatch(struct lu__thread *t);

/* t was chosen to take signals (lu_sched_kill): out of the way of the
 * common path, which stays small enough to inline. */
static __attribute__((noinline, cold)) void lu__dispatch_signals(struct lu__thread *t)
{
    lu__take_signals(t);
    lu__dispatch(t);
}

/* Hands over to the chosen thread (or ends the execution). Returns when t's
 * pending operation is chosen. Inlined in lu__point, as it was before it
 * had a second caller. */
static inline __attribute__((always_inline)) void lu__dispatch(struct lu__thread *t)
{
    struct lu_sched *s = t->s;
    int next = lu__choose(s, t);
    if (next == t->id)
        return;
    if (next < 0)
        lu__over(s, t);
    s->stats.switches++;
    lu__switch_to(s, &t->sp, &s->threads[next]);
    /* a signal can only have come while t was switched out */
    if (__builtin_expect(t->k == LU_SCHED_K_SIGNAL, 0))
        lu__dispatch_signals(t);
}

void lu__point(struct lu__thread *t, enum lu_sched_kind k, const void *obj, uint16_t label)
{
    struct lu_sched *s = t->s;
    t->k = k;
    t->obj = obj;
    t->label = label;
    t->oparg = lu_sched_arg;
    lu_sched_arg = 0;
    s->stats.points++;
    if (s->cfg.on_point)
        s->cfg.on_point(s->cfg.on_point_arg, t->id, k, label, t->pc);
    if (t->first_run) {
        /* code before a thread's first visible operation is invisible: go
         * straight back to the thread that spawned it */
        t->first_run = false;
        lu__switch_to(s, &t->sp, &s->threads[t->spawner]);
        if (__builtin_expect(t->k == LU_SCHED_K_SIGNAL, 0))
            lu__dispatch_signals(t);
        return;
    }
    lu__dispatch(t);
}

/* ---- thread lifecycle ---- */

static void lu__run_tsd_dtors(struct lu__thread *t)
{
    struct lu_sched *s = t->s;
    if (!t->has_tsd)
        return;
    for (int round = 0; round < 4; round++) {
        bool any = false;
        for (int k = 0; k < LU__MAX_KEYS; k++) {
            void *v = t->tsd[k];
            if (v && s->keys[k].used && s->keys[k].dtor) {
                t->tsd[k] = NULL;
                s->keys[k].dtor(v);
                any = true;
            }
        }
        if (!any)
            break;
    }
}

/* The thread's body returned or it called pthread_exit: hand over for good.
 * Its context is never resumed. */
static void (*lu__process_end)(void);

void lu_sched_set_process_end(void (*fn)(void))
{
    lu__process_end = fn;
}

static void lu__finish(struct lu__thread *t, void *ret) __attribute__((noreturn));
static void lu__finish(struct lu__thread *t, void *ret)
{
    struct lu_sched *s = t->s;
    lu__run_tsd_dtors(t);
    /* the last thread, the main one gone before it: the process ends here */
    if (lu__process_end && s->nlive == 1 && (t->id == 0 || s->threads[0].state == LU__T_FINISHED))
        lu__process_end();
    if (t->once_depth)
        lu__once_abandon(t);
    /* A thread's end shows to others when it holds a robust mutex (its owner
     * dies, EOWNERDEAD) or when a signal may find it alive or gone: after
     * its last operation it is still alive for a while, so the end is a
     * scheduling point of its own there. Elsewhere only a join sees it,
     * which the end enables whenever it comes. */
    if ((s->robust_used && lu__mutexes_held_robust(t)) ||
        __atomic_load_n(&lu__sig_handlers, __ATOMIC_RELAXED))
        lu__point(t, LU_SCHED_K_THREAD_END, NULL, LU_SCHED_L_THREAD_END);
    if (s->robust_used)
        lu__mutexes_orphan(t);
    t->retval = ret;
    t->state = LU__T_FINISHED;
    s->nlive--;
    if (t->turns)
        s->turns_live--;
    t->k = LU_SCHED_K_OTHER;
    t->atomic_depth = 0;
    t->serial_depth = 0;
    if (s->serial_owner == t->id)
        s->serial_owner = -1;
    if (t->first_run) {
        t->first_run = false;
        lu__switch_to(s, &t->sp, &s->threads[t->spawner]);
    } else {
        int next = lu__choose(s, t);
        if (next < 0)
            lu__over(s, t);
        s->stats.switches++;
        lu__switch_to(s, &t->sp, &s->threads[next]);
    }
    lu__sched_bug(__FILE__, __LINE__, "a finished thread was resumed");
}

/* First code of every fresh context (called from lu__ctx_entry). */
void lu__thread_main(struct lu__thread *t)
{
    /* this thread's own TLS: its pool thread's (thread 0's, or everyone's
     * under a shared TLS: the controller's) */
    lu__self = t;
    lu_sched_arg = 0;
    lu_sched_mo = 0;
    errno = 0; /* as in a new thread, and the same in every execution */
    /* a parked thread (lu_sched_spawn_parked) starts here: its point may
     * have taken signals meanwhile, as lu__point's may */
    t->entry_frame = (uintptr_t)__builtin_frame_address(0);
    if (__builtin_expect(t->k == LU_SCHED_K_SIGNAL, 0))
        lu__dispatch_signals(t);
    void *ret = t->fn(t->arg);
    lu__finish(t, ret);
}

/* A pool thread lends its stack and its control block to a controlled
 * thread, then sleeps until the scheduler is destroyed. With every signal
 * blocked the kernel never writes to its stack, and it touches nothing
 * below its own frames, where the controlled thread's frames live. */
static void *lu__pool_main(void *arg)
{
    struct lu__thread *t = arg;
    struct lu_sched *s = t->s;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, NULL);
    char here;
    t->fs = lu__thread_pointer();
    t->stack_top = ((uintptr_t)&here - 64 * 1024) & ~(uintptr_t)63;
    /* glibc puts the thread's control block and static TLS at the top of
     * the size asked for: the stack's bottom is what it reports */
    t->stack_lo = t->stack_top;
    pthread_attr_t a;
    void *lo;
    size_t sz;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        if (pthread_attr_getstack(&a, &lo, &sz) == 0 && (uintptr_t)lo < t->stack_top)
            t->stack_lo = (uintptr_t)lo;
        pthread_attr_destroy(&a);
    }
    lu__give(&s->pool_ready);
    while (!__atomic_load_n(&s->shutdown, __ATOMIC_ACQUIRE) && !__atomic_load_n(&t->retire, __ATOMIC_ACQUIRE))
        lu__take(&t->baton);
    return NULL;
}

/* A pool thread's stack: what its controlled thread gets, glibc's default
 * for new threads (LU__POOL_STACK, 8 MiB under the usual RLIMIT_STACK) or
 * more if the creation asks for more, plus room for the pool thread's own
 * frames above the controlled thread's (64 KiB, lu__pool_main) and
 * glibc's thread control block at its top. */
#define LU__POOL_RESERVE (128u * 1024)

/* Below a slot's own stack: a deep recursion faults there, as it would on
 * a thread's guard page, rather than writing over another mapping. */
#define LU__SLOT_GUARD (64u * 1024)

/* Under a shared TLS a controlled thread needs only a stack: no pool thread
 * lends its thread pointer or control block, so the slot maps one itself.
 * A forked execution (lineup run) then starts no kernel thread for the
 * program's threads, which was most of what a child did besides the fork.
 * On failure s->error says why. */
static int lu__slot_map(struct lu_sched *s, struct lu__thread *t, size_t size)
{
    size_t len = size + LU__SLOT_GUARD;
    void *m = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED || mprotect((char *)m + LU__SLOT_GUARD, size, PROT_READ | PROT_WRITE) != 0) {
        int e = errno;
        if (m != MAP_FAILED)
            munmap(m, len);
        lu_sched_syserr(s->error, sizeof s->error, LU_SCHED_NEED_THREAD, e, "cannot start a thread", size);
        return LU_SCHED_ESYS;
    }
    t->map = m;
    t->map_len = len;
    t->real = 0;
    t->fs = 0; /* never loaded: a shared TLS runs every thread on the controller's */
    t->stack_top = ((uintptr_t)m + len - 256) & ~(uintptr_t)63;
    t->stack_lo = (uintptr_t)m + LU__SLOT_GUARD;
    t->stack_size = size;
    return 0;
}

/* Widens the range that holds every slot's stack to t's: a slot's stack
 * only grows the range, which may so hold stacks no longer mapped, and
 * memory between them (lu_sched_plain_access looks closer there). */
static void lu__stacks_note(struct lu_sched *s, const struct lu__thread *t)
{
    uintptr_t lo = t->stack_lo, hi = t->stack_top;
    if (!lo || lo >= hi)
        return;
    if (s->stacks_span) {
        uintptr_t old_hi = s->stacks_lo + s->stacks_span;
        if (s->stacks_lo < lo)
            lo = s->stacks_lo;
        if (old_hi > hi)
            hi = old_hi;
    }
    s->stacks_lo = lo;
    s->stacks_span = hi - lo;
}

/* Readies slot t with a stack of size bytes for its controlled thread: a
 * pool thread's, or under a shared TLS one of its own (lu__slot_map). On
 * failure s->error says why. */
static int lu__pool_start(struct lu_sched *s, struct lu__thread *t, size_t size)
{
    if (s->tls_shared) {
        int rc = lu__slot_map(s, t, size);
        if (rc == 0)
            lu__stacks_note(s, t);
        return rc;
    }
    lu__create_fn create = lu__real_create();
    if (!create) {
        snprintf(s->error, sizeof s->error, "cannot start a thread: pthread_create not found");
        return LU_SCHED_ESYS;
    }
    atomic_store(&t->baton, 0);
    atomic_store(&s->pool_ready, 0);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    int rc = pthread_attr_setstacksize(&attr, size);
    if (rc == 0)
        rc = create(&t->real, &attr, lu__pool_main, t);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        lu_sched_syserr(s->error, sizeof s->error, LU_SCHED_NEED_THREAD, rc, "cannot start a thread", size);
        return LU_SCHED_ESYS;
    }
    t->stack_size = size;
    lu__take(&s->pool_ready);
    lu__stacks_note(s, t); /* the pool thread set its bounds before it gave pool_ready */
    return 0;
}

/* The stack a pool thread needs for a controlled thread that asks for
 * stack bytes (0: the default). */
static size_t lu__pool_stack_for(size_t stack)
{
    if (stack <= LU__POOL_STACK - LU__POOL_RESERVE)
        return LU__POOL_STACK;
    return (stack + LU__POOL_RESERVE + 4095) & ~(size_t)4095;
}

/* Gives slot t's stack back: its pool thread exits without touching it
 * (nothing of this execution is on it), or its own mapping is unmapped. On
 * failure s->error says why. */
static int lu__pool_stop(struct lu_sched *s, struct lu__thread *t)
{
    if (t->map) {
        munmap(t->map, t->map_len);
        t->map = NULL;
        t->map_len = 0;
        return 0;
    }
    lu__join_fn join = lu__real_join();
    if (!join) {
        snprintf(s->error, sizeof s->error, "cannot replace a thread: pthread_join not found");
        return LU_SCHED_ESYS;
    }
    __atomic_store_n(&t->retire, true, __ATOMIC_RELEASE);
    lu__give(&t->baton);
    join(t->real, NULL);
    t->retire = false;
    return 0;
}

/* Pool slots 0..n-1 are ready, the last with a stack of at least stack
 * bytes for its controlled thread (0: the default). A slot readied under a
 * shared TLS has no pool thread, which a thread on TLS of its own needs:
 * from an execution whose threads have their own, such a slot gets one.
 * On failure s->error says why. */
static int lu__pool_ensure(struct lu_sched *s, int n, size_t stack)
{
    struct lu__thread *t = &s->threads[n - 1];
    if (!s->tls_shared && n <= s->npool && t->map) {
        int rc = lu__pool_stop(s, t);
        if (rc == 0)
            rc = lu__pool_start(s, t, t->stack_size); /* a bigger one, if need be, below */
        if (rc != 0)
            return rc;
    }
    while (s->npool < n) {
        struct lu__thread *u = &s->threads[s->npool];
        u->id = s->npool;
        u->s = s;
        u->retire = false;
        int rc = lu__pool_start(s, u, s->npool == n - 1 ? lu__pool_stack_for(stack) : LU__POOL_STACK);
        if (rc != 0)
            return rc;
        s->npool++;
    }
    if (stack <= t->stack_size - LU__POOL_RESERVE)
        return 0;
    /* Kept from an earlier execution, in which thread n-1 asked for less
     * (which creation gets which number follows the schedule): a bigger
     * one takes its place. */
    int rc = lu__pool_stop(s, t);
    return rc != 0 ? rc : lu__pool_start(s, t, lu__pool_stack_for(stack));
}

int lu__pool_premap(struct lu_sched *s, int n)
{
    if (!s->tls_shared || n <= s->npool)
        return 0;
    return lu__pool_ensure(s, n, 0);
}

static void lu__thread_reset(struct lu__thread *t)
{
    t->state = LU__T_IDLE;
    memset(&t->tls, 0, sizeof t->tls); /* a new thread's errno and the rest */
    t->first_run = false;
    t->retval = NULL;
    t->detached = t->joined = false;
    t->k = LU_SCHED_K_OTHER;
    t->obj = t->obj2 = NULL;
    t->label = 0;
    t->pc = 0;
    t->atomic_depth = 0;
    t->serial_depth = 0;
    t->sect_seq = 0;
    t->section = -1;
    t->section_seq = 0;
    t->turns = false;
    t->nreads = 0;
    t->rnext = 0;
    t->idle = t->settled = t->wrote = false;
    t->quiet_step = 0;
    t->nseen = t->seen_next = 0;
    t->look_stirs = t->looks_news = UINT64_MAX;
    t->nround = t->nprev = 0;
    t->looks = 0;
    t->nspun = t->spun_next = 0;
    t->signalled = t->timed_back = false;
    t->sig_pending = 0;
    memset(&t->sigs, 0, sizeof t->sigs);
    t->async_depth = 0;
    t->cleanup = NULL;
    t->once_depth = 0;
    if (t->has_tsd) {
        memset(t->tsd, 0, sizeof t->tsd);
        t->has_tsd = false;
    }
    /* without clocks only a thread's own entry is ever written, and always
     * 1 (lu__spawn) */
    if (!t->s->cfg.no_clocks)
        memset(t->vc, 0, sizeof t->vc);
    if (t->fenced) {
        memset(t->fence_rel, 0, sizeof t->fence_rel);
        t->fenced = false;
    }
    if (t->acq_used) {
        memset(t->acq_pending, 0, sizeof t->acq_pending);
        t->acq_used = false;
    }
    t->sp = lu__ctx_make(t->stack_top, t);
}

/* parked >= 0: the child starts stopped at a free point with that label */
static int lu__spawn(lu_sched_fn fn, void *arg, size_t stack, int parked)
{
    struct lu__thread *self = lu__self;
    struct lu_sched *s = self->s;
    if (s->nthreads >= LU_SCHED_MAX_THREADS)
        return LU_SCHED_ETHREADS;
    int rc = lu__pool_ensure(s, s->nthreads + 1, stack);
    /* the program would not see this failure outside lineup (its threads
     * are lineup's pool threads here): whatever it did next would be no
     * behaviour of its own */
    if (rc != 0)
        lu__end_execution(self, LU_SCHED_OUT_ERROR, s->error);
    struct lu__thread *t = &s->threads[s->nthreads++];
    lu__thread_reset(t);
    /* glibc clears it at a process's first pthread_create, for good, and
     * code reads it to skip atomics (libstdc++'s reference counts): with
     * threads that share one TLS no kernel thread of glibc's is created,
     * and it stayed 1, so such code took its single-threaded path (an
     * audit: a lost update on the atomic path passed, a race was made up
     * on the plain one) */
    __libc_single_threaded = 0;
    t->fn = fn;
    t->arg = arg;
    t->state = LU__T_RUNNING;
    s->nlive++;
    t->first_run = true;
    t->spawner = self->id;
    /* the creator's own section (not one it only runs beside, taking no
     * turns), and which of its sections: the child belongs to that one */
    t->section = lu__own_section_of(s, self);
    t->section_seq = t->section >= 0 ? s->threads[t->section].sect_seq : 0;
    t->sigs.mask = self->sigs.mask; /* a new thread inherits its creator's signal mask */
    if (t->section >= 0)
        s->section_spawns++;
    if (!s->cfg.no_clocks) {
        memcpy(t->vc, self->vc, sizeof t->vc[0] * (size_t)s->nthreads);
        self->vc[self->id]++;
    }
    t->vc[t->id] = 1;
    if (parked >= 0) {
        /* what lu__point would have recorded had the child run to a free
         * point: its fresh context starts fn when it is first chosen */
        t->first_run = false;
        t->k = LU_SCHED_K_FREE;
        t->label = (uint16_t)parked;
        s->stats.points++;
        if (s->cfg.on_point)
            s->cfg.on_point(s->cfg.on_point_arg, t->id, t->k, t->label, t->pc);
        return t->id;
    }
    /* let the child run its invisible prefix now, then come back */
    lu__switch_to(s, &self->sp, t);
    return t->id;
}

int lu_sched_spawn(lu_sched_fn fn, void *arg)
{
    return lu__spawn(fn, arg, 0, -1);
}

int lu_sched_spawn_parked(lu_sched_fn fn, void *arg, uint16_t label)
{
    return lu__spawn(fn, arg, 0, label);
}

/* The prefix-trace cache of the reduction (docs/por.md, section 8). A
 * search must not pay for zeroing 32 MB it may never fill: the mapping is
 * reserved whole (MAP_NORESERVE) and only the buckets in use are touched.
 * Under a small RLIMIT_AS the code under test needs the room more. */
struct lu_sched_cache *lu_sched_cache_create(size_t max_bytes)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && max_bytes > rl.rlim_cur / 32)
        max_bytes = rl.rlim_cur / 32;
    const size_t bucket = LU__PC_WAYS * sizeof(struct lu__pc_slot);
    uint64_t max = max_bytes / bucket;
    if (max < LU__PC_FIRST)
        return NULL;
    size_t bytes = sizeof(struct lu_sched_cache) + max * bucket;
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    struct lu_sched_cache *c = m;
    c->mask = LU__PC_FIRST - 1;
    c->max = max;
    c->bytes = bytes;
    return c;
}

/* Back to the first size too: which entries push which out depends on
 * the size, and a search's count should not depend on the one before. */
void lu_sched_cache_clear(struct lu_sched_cache *c)
{
    if (!c)
        return;
    memset(lu__pc_slots(c), 0, (c->mask + 1) * LU__PC_WAYS * sizeof(struct lu__pc_slot));
    c->mask = LU__PC_FIRST - 1;
    c->fill = 0;
}

void lu_sched_cache_destroy(struct lu_sched_cache *c)
{
    if (c)
        munmap(c, c->bytes);
}

/* In place: an entry of bucket i belongs in bucket i + k n (k = 0..3) of
 * the table four times as large, and those buckets, above the old table,
 * are empty and receive only bucket i's entries. The new mask is published
 * when they are moved: a look-up meanwhile only misses, and so does an
 * entry another process puts into an old bucket already moved. */
void lu__pc_grow(struct lu_sched_cache *c)
{
    uint64_t n = __atomic_load_n(&c->mask, __ATOMIC_RELAXED) + 1;
    if (n * 4 > c->max || __atomic_exchange_n(&c->growing, 1, __ATOMIC_ACQUIRE))
        return;
    n = __atomic_load_n(&c->mask, __ATOMIC_RELAXED) + 1; /* another may have grown it */
    if (n * 4 <= c->max) {
        struct lu__pc_slot *sl = lu__pc_slots(c);
        uint64_t mask = n * 4 - 1, kept = 0;
        for (uint64_t i = 0; i < n; i++) {
            for (int w = 0; w < LU__PC_WAYS; w++) {
                struct lu__pc_slot *e = &sl[i * LU__PC_WAYS + w];
                uint64_t a = e->a, b = e->b, j = a >> 7 & mask;
                if (!a)
                    continue;
                kept++;
                if (j == i)
                    continue;
                struct lu__pc_slot *d = &sl[j * LU__PC_WAYS];
                int v = 0;
                while (v < LU__PC_WAYS - 1 && d[v].a)
                    v++;
                d[v].b = b;
                d[v].a = a;
                e->a = 0;
            }
        }
        __atomic_store_n(&c->mask, mask, __ATOMIC_RELEASE);
        __atomic_store_n(&c->fill, kept, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&c->growing, 0, __ATOMIC_RELEASE);
}

/* ---- the controller side ---- */

static bool lu__tls_share(struct lu_sched *s);

struct lu_sched *lu_sched_create(const struct lu_sched_config *cfg, int *err)
{
    if (!cfg || !cfg->trace || cfg->trace->cap == 0 ||
        (cfg->strategy == LU_SCHED_REPLAY && cfg->replay_len && !cfg->replay)) {
        if (err)
            *err = LU_SCHED_EINVAL;
        return NULL;
    }
    if (cfg->strategy == LU_SCHED_REPLAY && cfg->replay_len > cfg->trace->cap) {
        /* cutting it would follow a prefix and call that the recording */
        if (err)
            *err = LU_SCHED_EREPLAY;
        return NULL;
    }
    struct lu_sched *s = calloc(1, sizeof *s);
    if (!s) {
        if (err)
            *err = LU_SCHED_ENOMEM;
        return NULL;
    }
    s->cfg = *cfg;
    if (cfg->por) {
        void *m = mmap(NULL, sizeof *s->por, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) {
            free(s);
            if (err)
                *err = LU_SCHED_ENOMEM;
            return NULL;
        }
        s->por = m;
        s->pc = cfg->cache;
    }
    if (!s->cfg.spin_bound)
        s->cfg.spin_bound = 1000;
    if (!s->cfg.watchdog_ms)
        s->cfg.watchdog_ms = 1000;
    s->rng = cfg->seed;
    s->more = true;
    s->cfg.trace->len = 0;
    if ((cfg->strategy == LU_SCHED_REPLAY || cfg->strategy == LU_SCHED_DFS) && cfg->replay &&
        cfg->replay_len) {
        uint32_t n = cfg->replay_len < cfg->trace->cap ? cfg->replay_len : cfg->trace->cap;
        memcpy(s->cfg.trace->steps, cfg->replay, n * sizeof *cfg->replay);
        s->replay_len = n;
        if (cfg->strategy == LU_SCHED_DFS) {
            s->frozen_len = cfg->frozen_len < n ? cfg->frozen_len : n;
            /* the prefix's own alternatives below the frozen part are
             * explored as usual: only its choices are given */
            for (uint32_t i = 0; i < n; i++)
                s->cfg.trace->steps[i].done = 1ULL << s->cfg.trace->steps[i].chosen;
        }
    }
    lu__fatal_handlers_install();
    lu__ctx_setup();
    s->tls_shared = lu__tls_share(s);
    return s;
}

void lu_sched_destroy(struct lu_sched *s)
{
    if (!s)
        return;
    __atomic_store_n(&s->shutdown, true, __ATOMIC_RELEASE);
    lu__join_fn join = lu__real_join();
    for (int i = 0; i < s->npool; i++) {
        struct lu__thread *t = &s->threads[i];
        if (t->map) {
            lu__pool_stop(s, t);
            continue;
        }
        lu__give(&t->baton);
        if (join)
            join(t->real, NULL);
    }
    lu__wd_fini();
    lu__objs_clear(s);
    while (s->free_objs) {
        struct lu__obj *o = s->free_objs;
        s->free_objs = o->next_free;
        __libc_free(o);
    }
    if (s->por)
        munmap(s->por, sizeof *s->por);
    free(s);
}

bool lu_sched_more(struct lu_sched *s)
{
    if (s->need_backtrack) {
        s->need_backtrack = false;
        lu__backtrack(s);
    }
    return s->more;
}

void lu_sched_stats(const struct lu_sched *s, struct lu_sched_stats *out)
{
    *out = s->stats;
}

/* ---- whose TLS (lu_sched_config.tls) ---- */

struct lu__tls_scan {
    unsigned long long adds;
    const char *owner; /* the first object with TLS that is not libc's or ours */
    bool counted;      /* just read adds */
};

static int lu__tls_scan_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct lu__tls_scan *sc = arg;
    (void)size;
    sc->adds = info->dlpi_adds;
    if (sc->counted)
        return 1;
    if (info->dlpi_tls_modid == 0)
        return 0;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    /* glibc's own TLS: errno is swapped at each switch (lu__tls_swap),
     * the rest is what lu_sched_config.tls's comment lists */
    if (strncmp(base, "libc.so.", 8) == 0)
        return 0;
    /* lineup's: lu__self, the hooks' values and the lu_sched_tls_keep
     * variables are swapped at each switch */
    uintptr_t ours = (uintptr_t)lu__tls_scan_cb;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && ours >= lo && ours - lo < ph->p_memsz)
            return 0;
    }
    sc->owner = *name ? name : "the program";
    return 1;
}

int lu_sched_tls_owner(const char **who)
{
    struct lu__tls_scan sc = {0};
    dl_iterate_phdr(lu__tls_scan_cb, &sc);
    if (who)
        *who = sc.owner;
    return sc.owner != NULL;
}

bool lu_sched_tls_shared(const struct lu_sched *s)
{
    return s->tls_shared;
}

/* Whether this execution's threads share the controller's TLS. AUTO looks
 * again only when objects were loaded since it last looked (the first
 * object's callback tells, before the scan). */
static bool lu__tls_share(struct lu_sched *s)
{
    switch (s->cfg.tls) {
    case LU_SCHED_TLS_PER_THREAD:
        return false;
    case LU_SCHED_TLS_SHARED:
        return true;
    default:
        break;
    }
    struct lu__tls_scan sc = {.counted = true};
    dl_iterate_phdr(lu__tls_scan_cb, &sc);
    if (s->tls_adds && sc.adds == s->tls_adds)
        return s->tls_shared;
    s->tls_adds = sc.adds;
    return !lu_sched_tls_owner(NULL);
}

int lu_sched_run(struct lu_sched *s, lu_sched_fn fn, void *arg, struct lu_sched_result *res)
{
    if (!lu_sched_more(s))
        return LU_SCHED_EDONE;
    if (lu__self)
        return LU_SCHED_EINVAL; /* a controlled thread cannot nest executions */
    memset(res, 0, sizeof *res);
    res->culprit = -1;
    /* before thread 0's slot is readied: whether it needs a pool thread */
    s->tls_shared = lu__tls_share(s);
    if (lu__pool_ensure(s, 1, 0) != 0) {
        /* nothing ran: the caller stops with the reason */
        res->outcome = LU_SCHED_OUT_ERROR;
        res->message = s->error;
        return 0;
    }
    s->res = res;
    s->ended = false;
    s->spin_run = 0;
    s->bg_changed = false;
    s->ff_tid = -1;
    s->ff_ask = s->ff_until = s->ff_hit = false;
    s->ff_chain_tid = -1;
    s->ff_chain = 0;
    s->section_spawns = 0;
    s->serial_owner = -1;
    s->sect_seqs = 0;
    s->turns_live = 0;
    s->nthreads = 1;
    s->nlive = 1;
    s->alone_steps = 0;
    s->clock_ns = 0;
    s->proc_sigs = 0;
    lu__objs_reset(s);
    s->robust_used = false;
    if (s->keys_created) {
        memset(s->keys, 0, sizeof s->keys);
        s->keys_created = false;
    }
    if (s->por)
        lu__por_blocks_reset(s);
    struct lu_sched_trace *tr = s->cfg.trace;
    if (s->cfg.strategy == LU_SCHED_RANDOM || s->cfg.strategy == LU_SCHED_PCT ||
        s->cfg.strategy == LU_SCHED_POS) {
        tr->len = 0;
        s->replay_len = 0;
        lu__strat_begin(s);
    } else if (s->cfg.strategy == LU_SCHED_REPLAY) {
        tr->len = 0;
    } else {
        tr->len = 0; /* DFS: replay_len set by the last backtrack */
    }

    lu__explore_begin(s);
    {
        /* with reduction, for the whole execution; without, only while a
         * step judged quiet runs (lu__idle_step), whose plain writes end
         * its quietness */
        static uint32_t gen;
        s->fp_gen = ++gen ? gen : ++gen;
        if (s->x_por)
            __atomic_store_n(&lu_sched_footprint, s->fp_gen, __ATOMIC_RELAXED);
    }
    struct lu__thread *t0 = &s->threads[0];
    lu__thread_reset(t0);
    t0->vc[0] = 1;
    t0->fn = fn;
    t0->arg = arg;
    t0->state = LU__T_RUNNING;
    lu__wd_init(s);
    uintptr_t fs = lu__thread_pointer();
    s->ctl_fs = s->cur_fs = fs;
    /* Thread 0 runs on the controller's thread pointer (its TLS, errno,
     * glibc's thread control block), not on its pool thread's: starting
     * and ending an execution then moves no FS base, two system calls
     * fewer per execution where there is no FSGSBASE. The controller's
     * own code does not run while thread 0 does, and lu__self, which
     * thread 0 sets in that TLS, is cleared when control comes back. */
    t0->fs = fs;
    lu__switch_to(s, &s->ctl_sp, t0);
    lu__self = NULL;
    __atomic_store_n(&lu_sched_footprint, 0, __ATOMIC_RELAXED);
    /* back on the controller: the execution is over, whoever did not
     * finish is abandoned where it stood */
    for (int i = 0; i < s->nthreads; i++)
        s->threads[i].state = LU__T_IDLE;

    if (s->cfg.strategy == LU_SCHED_REPLAY && tr->len < s->replay_len &&
        res->outcome != LU_SCHED_OUT_MISFIT && res->outcome != LU_SCHED_OUT_UNSUPPORTED &&
        res->outcome != LU_SCHED_OUT_ABORTED && res->outcome != LU_SCHED_OUT_ERROR) {
        /* it ended before its schedule did: not the recorded execution
         * (unsupported calls and aborts say more than that, and stay) */
        res->outcome = LU_SCHED_OUT_MISFIT;
        res->misfit = LU_SCHED_MISFIT_LEFT_OVER;
        res->message = lu_sched_misfit_name(LU_SCHED_MISFIT_LEFT_OVER);
    }
    if (res->steps == 0)
        res->steps = tr->len;
    res->nthreads = s->nthreads;
    lu__pc_final(s, res);
    lu__executed(s);
    return 0;
}

void lu__executed(struct lu_sched *s)
{
    s->stats.executions++;
    switch (s->cfg.strategy) {
    case LU_SCHED_DFS:
        /* later, so that the trace still holds this execution's schedule */
        s->need_backtrack = true;
        break;
    case LU_SCHED_REPLAY:
        s->more = false;
        break;
    case LU_SCHED_RANDOM:
    case LU_SCHED_PCT:
    case LU_SCHED_POS:
        break;
    }
}

/* ---- API for the code under test's threads ---- */

int lu_sched_self(void)
{
    struct lu__thread *t = lu__self;
    return t && !t->async_depth ? t->id : -1;
}

struct lu_sched_sigstate *lu_sched_sigstate(void)
{
    struct lu__thread *t = lu__self;
    return t && !t->async_depth ? &t->sigs : NULL;
}

int lu_sched_self_any(void)
{
    struct lu__thread *t = lu__self;
    return t ? t->id : -1;
}

bool lu_sched_in_async(void)
{
    struct lu__thread *t = lu__self;
    return t && t->async_depth;
}

struct lu_sched *lu_sched_current(void)
{
    struct lu__thread *t = lu__self;
    return t ? t->s : NULL;
}

#define LU__CALLER_PC() (lu_sched_pc)

void lu_sched_point_free(uint16_t label)
{
    struct lu__thread *t = lu__self;
    t->pc = LU__CALLER_PC();
    lu__progress(t);
    lu__point(t, LU_SCHED_K_FREE, NULL, label);
}

void lu_sched_sigstate_point(uint16_t label)
{
    struct lu__thread *t = lu__self;
    t->pc = lu_sched_pc;
    lu__point(t, LU_SCHED_K_SIGSTATE, NULL, label);
}

void lu_sched_yield(uint16_t label)
{
    struct lu__thread *t = lu__self;
    t->pc = LU__CALLER_PC();
    lu__point(t, LU_SCHED_K_YIELD, NULL, label);
}

uint64_t lu_sched_time(void)
{
    return lu__self->s->clock_ns;
}

void lu_sched_time_reach(uint64_t ns)
{
    struct lu_sched *s = lu__self->s;
    if (ns > s->clock_ns)
        s->clock_ns = ns;
}

void lu_sched_atomic_begin(void)
{
    struct lu__thread *t = lu__self;
    if (t->atomic_depth++ == 0)
        t->sect_seq = ++t->s->sect_seqs;
    if (t->serial_depth++ == 0)
        t->s->serial_owner = t->id;
}

void lu_sched_atomic_end(void)
{
    struct lu__thread *t = lu__self;
    if (t->serial_depth == 0)
        return;
    t->atomic_depth--;
    if (--t->serial_depth == 0 && t->s->serial_owner == t->id)
        t->s->serial_owner = -1;
}

void lu_sched_takes_turns(int tid)
{
    struct lu_sched *s = lu__self->s;
    if (tid < 0 || tid >= s->nthreads || s->threads[tid].turns)
        return;
    s->threads[tid].turns = true;
    if (s->threads[tid].state == LU__T_RUNNING)
        s->turns_live++;
}

static const char lu__section_key; /* the object all program sections order through */

void lu_sched_section_begin(uint16_t label)
{
    struct lu__thread *t = lu__self;
    if (t->atomic_depth == 0) {
        t->pc = LU__CALLER_PC();
        /* everything, for the reduction: what the section touches is
         * known only as it runs (the object tells it from a real fence) */
        lu__point(t, LU_SCHED_K_FENCE, &lu__section_key, label);
        lu__hb_acquire(t, lu__obj_get(t->s, &lu__section_key, LU__O_MUTEX));
    }
    if (t->atomic_depth++ == 0)
        t->sect_seq = ++t->s->sect_seqs;
}

void lu_sched_section_end(void)
{
    struct lu__thread *t = lu__self;
    /* an end without its begin ends no serial section of the caller's */
    if (t->atomic_depth <= t->serial_depth)
        return;
    if (--t->atomic_depth == 0)
        lu__hb_release(t, lu__obj_get(t->s, &lu__section_key, LU__O_MUTEX));
}

void lu_sched_access_begin(enum lu_sched_kind k, const volatile void *addr, uint16_t label)
{
    struct lu__thread *t = lu__self;
    t->pc = LU__CALLER_PC();
    /* keyed by (location, instruction): see lu__spinning */
    lu__point(t, k, (const void *)addr, label);
}

/* C11 memory orders as the TSan ABI passes them (0 relaxed, 1 consume,
 * 2 acquire, 3 release, 4 acq_rel, 5 seq_cst); lu_sched_mo holds mo + 1,
 * 0 when the caller gave none (then: acquire and release). */
static bool lu__mo_acquires(int mo1)
{
    return mo1 == 0 || (mo1 - 1 != __ATOMIC_RELAXED && mo1 - 1 != __ATOMIC_RELEASE);
}

static bool lu__mo_releases(int mo1)
{
    return mo1 == 0 || mo1 - 1 == __ATOMIC_RELEASE || mo1 - 1 == __ATOMIC_ACQ_REL ||
           mo1 - 1 == __ATOMIC_SEQ_CST;
}

/* The happens-before edges of t's access k to o with memory order mo1
 * (only when the clocks are kept). */
static void lu__access_clocks(struct lu__thread *t, struct lu__obj *o, enum lu_sched_kind k, int mo1)
{
    int n = t->s->nthreads;
    if (k != LU_SCHED_K_WRITE) {
        if (lu__mo_acquires(mo1))
            lu__hb_acquire(t, o);
        else {
            lu__vc_join(t->acq_pending, o->vc, n); /* for a later acquire fence */
            t->acq_used = true;
        }
    }
    if (k != LU_SCHED_K_READ) {
        if (lu__mo_releases(mo1))
            lu__hb_release(t, o);
        else if (t->fenced)
            lu__vc_join(o->vc, t->fence_rel, n); /* after a release fence */
    }
}

void lu_sched_access_end(const volatile void *addr, bool changed)
{
    struct lu__thread *t = lu__self;
    struct lu_sched *s = t->s;
    int mo1 = lu_sched_mo;
    lu_sched_mo = 0;
    bool failed = (mo1 & LU_SCHED_MO_FAILED) && t->k == LU_SCHED_K_RMW;
    mo1 &= ~LU_SCHED_MO_FAILED;
    /* what the access did: a failed CAS only read */
    enum lu_sched_kind k = failed ? LU_SCHED_K_READ : t->k;
    if (!addr) {
        /* a fence: nothing to spin on; it orders the relaxed accesses
         * around it */
        if (s->cfg.no_clocks)
            return;
        int n = s->nthreads;
        if (lu__mo_acquires(mo1))
            lu__vc_join(t->vc, t->acq_pending, n);
        if (lu__mo_releases(mo1)) {
            memcpy(t->fence_rel, t->vc, sizeof t->vc[0] * (size_t)n);
            t->fenced = true;
            t->vc[t->id]++;
        }
        return;
    }
    struct lu__obj *o = lu__obj_get(s, (const void *)addr, LU__O_LOC);
    if (failed && s->x_por)
        lu__por_read_only(t, (const void *)addr);
    /* without clocks (a layer above that detects no data races) the
     * memory orders change nothing: not even decoded then */
    if (!s->cfg.no_clocks)
        lu__access_clocks(t, o, k, mo1);
    if (changed) {
        o->version++;
        lu__progress(t);
    } else if (t->k == LU_SCHED_K_READ || t->k == LU_SCHED_K_RMW) {
        lu__note_read(t, o);
    }
}

/* Sync operations share the read-set bookkeeping through these two. */
/* Every effect on a synchronization object is treated as acquire and
 * release: it over-approximates happens-before a little (a failed trylock
 * orders nothing in C11), which can hide a race but never invent one. */
void lu__sync_changed(struct lu__thread *t, struct lu__obj *o)
{
    o->version++;
    lu__progress(t);
    lu__hb_acquire(t, o);
    lu__hb_release(t, o);
}

void lu__sync_unchanged(struct lu__thread *t, struct lu__obj *o)
{
    lu__note_read(t, o);
    lu__hb_acquire(t, o);
    lu__hb_release(t, o);
}

/* A futex call is not a synchronization object's operation: the kernel
 * reads the word and moves waiters, and orders only what that implies, so
 * these do not over-approximate as the two above do. A wait's comparison
 * reads the word: an acquire load of it (of the releases stored to it),
 * counted as acquire as a volatile load is, so as never to invent a race.
 * A wake that wakes nobody orders nothing; one that wakes a waiter
 * orders the waker before the woken thread, and only that thread
 * (docs/races.md). */
void lu__futex_read(struct lu__thread *t, struct lu__obj *o, bool acquire)
{
    lu__note_read(t, o);
    if (acquire)
        lu__hb_acquire(t, o);
}

void lu__futex_woke(struct lu__thread *t, struct lu__obj *o, uint64_t woken)
{
    struct lu_sched *s = t->s;
    o->version++;
    lu__progress(t);
    if (s->cfg.no_clocks)
        return;
    for (uint64_t x = woken; x; x &= x - 1)
        lu__vc_join(s->threads[__builtin_ctzll(x)].vc, t->vc, s->nthreads);
    t->vc[t->id]++;
}

int lu_sched_create_thread(lu_sched_fn fn, void *arg, size_t stack, uint16_t label)
{
    struct lu__thread *t = lu__self;
    t->pc = LU__CALLER_PC();
    if (t->s->nthreads >= LU_SCHED_MAX_THREADS)
        return LU_SCHED_ETHREADS;
    lu__point(t, LU_SCHED_K_CREATE, NULL, label);
    return lu__spawn(fn, arg, stack, -1);
}

int lu_sched_join(int tid, void **ret, uint16_t label)
{
    struct lu__thread *t = lu__self;
    struct lu_sched *s = t->s;
    t->pc = lu_sched_pc;
    if (tid < 0 || tid >= s->nthreads)
        return ESRCH;
    if (tid == t->id)
        return EDEADLK;
    struct lu__thread *target = &s->threads[tid];
    if (target->detached || target->joined)
        return EINVAL;
    lu__point(t, LU_SCHED_K_JOIN, target, label);
    target->joined = true;
    if (!s->cfg.no_clocks)
        lu__vc_join(t->vc, target->vc, s->nthreads);
    if (ret)
        *ret = target->retval;
    return 0;
}

/* The point a JOIN_ALL waits at (lu__turns_key: for the threads that take
 * turns only), then what the threads it waited for did happens before. */
static void lu__join_others(uint16_t label, bool turns_only)
{
    struct lu__thread *t = lu__self;
    t->pc = LU__CALLER_PC();
    lu__point(t, LU_SCHED_K_JOIN_ALL, turns_only ? &lu__turns_key : NULL, label);
    for (int i = 0; i < t->s->nthreads && !t->s->cfg.no_clocks; i++)
        if (i != t->id && (!turns_only || t->s->threads[i].turns))
            lu__vc_join(t->vc, t->s->threads[i].vc, t->s->nthreads);
}

void lu_sched_join_turns(uint16_t label)
{
    lu__join_others(label, true);
}

void lu_sched_join_all(uint16_t label)
{
    lu__join_others(label, false);
}

int lu_sched_detach(int tid)
{
    struct lu__thread *t = lu__self;
    struct lu_sched *s = t->s;
    if (tid < 0 || tid >= s->nthreads)
        return ESRCH;
    if (s->threads[tid].detached)
        return EINVAL;
    s->threads[tid].detached = true;
    return 0;
}

void lu_sched_exit_point(uint16_t label)
{
    struct lu__thread *t = lu__self;
    t->pc = LU__CALLER_PC();
    /* in the handler of a signal that arrived at a time lineup does not
     * control (lu_sched_async_enter), where in the schedule the exit falls
     * depends on that time: no choice. The only scheduling point reached
     * there: every other call sees lu_sched_self() == -1 */
    if (t->async_depth)
        return;
    lu__point(t, LU_SCHED_K_EXIT, NULL, label);
}

void **lu_sched_cleanup_chain(void)
{
    return &lu__self->cleanup;
}

void lu_sched_private_stack(uintptr_t *lo, uintptr_t *len)
{
    const struct lu__thread *t = lu__self;
    *lo = *len = 0;
    if (t && t->stack_lo && t->stack_lo < t->stack_top) {
        *lo = t->stack_lo;
        *len = t->stack_top - t->stack_lo;
    }
}

uintptr_t lu_sched_entry_frame(void)
{
    return lu__self->entry_frame;
}

pthread_t lu_sched_pool_thread(void)
{
    return lu__self->real;
}

bool lu_sched_own_stack(void **addr, size_t *size)
{
    const struct lu__thread *t = lu__self;
    if (!t || !t->map)
        return false;
    *addr = (void *)t->stack_lo; /* the mapping above its guard (lu__slot_map) */
    *size = (uintptr_t)t->map + t->map_len - t->stack_lo;
    return true;
}

void lu_sched_exit(void *ret)
{
    lu__finish(lu__self, ret);
}

void lu_sched_unsupported(const char *what)
{
    struct lu__thread *t = lu__self;
    t->s->res->culprit = t->id;
    /* where the call is, not the thread's last scheduling point */
    t->pc = LU__CALLER_PC();
    lu__end_execution(t, LU_SCHED_OUT_UNSUPPORTED, what);
}

int lu_sched_choose(int n, uint16_t label)
{
    struct lu__thread *t = lu__self;
    (void)label;
    return lu__choose_data(t, n);
}

void lu_sched_discard(const char *why)
{
    struct lu__thread *t = lu__self;
    lu__end_execution(t, LU_SCHED_OUT_DISCARDED, why);
}

void lu_sched_error(const char *msg)
{
    struct lu__thread *t = lu__self;
    lu__end_execution(t, LU_SCHED_OUT_ERROR, msg);
}

void lu_sched_abort(const char *why)
{
    struct lu__thread *t = lu__self;
    t->s->res->culprit = t->id;
    lu__end_execution(t, LU_SCHED_OUT_ABORTED, why);
}

static int lu__exit_fn; /* what lu_sched_fatal_exit_fn reports */

const char *lu_sched_exit_fn_name(int fn)
{
    static const char *const names[] = {
#define LU__X(id, name) name,
        LU_SCHED_EXITS(LU__X)
#undef LU__X
    };
    return fn >= 0 && fn < LU_SCHED_EXIT_FN_COUNT ? names[fn] : "exit";
}

int lu_sched_fatal_exit_fn(void)
{
    return lu__exit_fn;
}

void lu__sched_fatal_exit(int status, enum lu_sched_exit_fn fn)
{
    struct lu__thread *t = lu__self;
    lu__exit_fn = fn;
    if (t && t->s->cfg.on_fatal)
        t->s->cfg.on_fatal(t->s->cfg.on_fatal_arg, LU_SCHED_FATAL_EXIT, status, t->id, LU__CALLER_PC());
    lu__sched_exit_group(status);
}

void lu_sched_fatal_signal_ahead(int sig)
{
    struct lu__thread *t = lu__self;
    if (t && t->s->cfg.on_fatal)
        t->s->cfg.on_fatal(t->s->cfg.on_fatal_arg, LU_SCHED_FATAL_SIGNAL, sig, t->id, LU__CALLER_PC() - 1);
}

static void lu__exec_notice(int kind, uint16_t label)
{
    struct lu__thread *t = lu__self;
    int e = errno;
    if (t && t->s->cfg.on_fatal)
        t->s->cfg.on_fatal(t->s->cfg.on_fatal_arg, kind, label, t->id, LU__CALLER_PC());
    errno = e;
}

void lu_sched_exec_ahead(uint16_t label)
{
    lu__exec_notice(LU_SCHED_FATAL_EXEC, label);
}

void lu_sched_exec_failed(void)
{
    lu__exec_notice(LU_SCHED_FATAL_NONE, 0);
}

bool lu_sched_known(const void *addr, enum lu_sched_obj kind)
{
    static const int type[] = {
        [LU_SCHED_OBJ_RW] = LU__O_RW, [LU_SCHED_OBJ_SEM] = LU__O_SEM, [LU_SCHED_OBJ_BARRIER] = LU__O_BARRIER};
    struct lu__thread *t = lu__self;
    struct lu__obj *o = t ? lu__obj_find(t->s, addr) : NULL;
    return o && o->type == type[kind];
}

/* ---- thread-specific data ---- */

/* Not scheduling points, but the key a create returns follows the order
 * of the creates and deletes of all threads: for the partial-order
 * reduction they write the key table. */
int lu_sched_key_create(unsigned *key, void (*dtor)(void *), unsigned taken)
{
    struct lu_sched *s = lu__self->s;
    lu__por_touch_hidden(lu__self, s->keys);
    unsigned used = 0;
    for (unsigned k = 0; k < LU__MAX_KEYS; k++)
        used += s->keys[k].used;
    if (used + taken >= LU__MAX_KEYS)
        return EAGAIN;
    for (unsigned k = 0; k < LU__MAX_KEYS; k++) {
        if (!s->keys[k].used) {
            s->keys[k].used = true;
            s->keys[k].dtor = dtor;
            s->keys_created = true;
            for (int i = 0; i < LU_SCHED_MAX_THREADS; i++)
                s->threads[i].tsd[k] = NULL;
            *key = k;
            return 0;
        }
    }
    return EAGAIN;
}

int lu_sched_key_delete(unsigned key)
{
    struct lu_sched *s = lu__self->s;
    if (key >= LU__MAX_KEYS || !s->keys[key].used)
        return EINVAL;
    lu__por_touch_hidden(lu__self, s->keys);
    s->keys[key].used = false;
    return 0;
}

void *lu_sched_getspecific(unsigned key)
{
    struct lu__thread *t = lu__self;
    /* a deleted key's values are gone, as in glibc */
    return key < LU__MAX_KEYS && t->s->keys[key].used ? t->tsd[key] : NULL;
}

int lu_sched_setspecific(unsigned key, const void *value)
{
    struct lu__thread *t = lu__self;
    if (key >= LU__MAX_KEYS || !t->s->keys[key].used)
        return EINVAL;
    t->tsd[key] = (void *)value;
    t->has_tsd = true;
    return 0;
}
