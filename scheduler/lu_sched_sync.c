/*
 * Models of the synchronization objects: mutexes, reader-writer locks,
 * condition variables, semaphores, barriers and once controls. Every
 * operation stops at a scheduling point first; when the thread is chosen its
 * operation is enabled (lu__enabled in lu_sched.c says when), and the effect
 * below happens while it holds the baton, so it is atomic.
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#define LU__CALLER_PC() (lu_sched_pc)

void lu__sync_changed(struct lu__thread *t, struct lu__obj *o);
void lu__sync_unchanged(struct lu__thread *t, struct lu__obj *o);

static struct lu__thread *lu__me(void)
{
    struct lu__thread *t = lu__self;
    LU__ASSERT(t != NULL);
    return t;
}

/* A timed wait that gives up marks the choice that ran it, so that
 * reports can say so (the replay reproduces it either way). */
static int lu__timed_out(struct lu__thread *t, int rc)
{
    struct lu_sched_trace *tr = t->s->cfg.trace;
    if (rc == ETIMEDOUT && t->chosen_at && t->chosen_at <= tr->len)
        tr->steps[t->chosen_at - 1].flags |= LU_SCHED_STEP_TIMEOUT;
    return rc;
}

/* ---- mutexes ---- */

void lu_sched_mutex_init(void *m, int type)
{
    struct lu__thread *t = lu__me();
    struct lu__obj *o = lu__obj_get(t->s, m, LU__O_MUTEX);
    o->u.mutex.owner = -1;
    o->u.mutex.count = 0;
    o->u.mutex.kind = type;
    /* a new mutex: what the old one at this address was (robust, left
     * unrecoverable) is gone, as glibc's init overwrites it all */
    o->u.mutex.robust = false;
    o->u.mutex.health = LU__ROBUST_OK;
}

int lu_sched_mutex_destroy(void *m)
{
    struct lu__thread *t = lu__me();
    struct lu__obj *o = lu__obj_find(t->s, m);
    if (o && o->type == LU__O_MUTEX && o->u.mutex.owner != -1)
        return EBUSY;
    return 0;
}

static int lu__mutex_acquire(struct lu__thread *t, struct lu__obj *o, int busy_rc)
{
    if (o->u.mutex.owner == t->id) {
        if (o->u.mutex.kind == PTHREAD_MUTEX_RECURSIVE) {
            o->u.mutex.count++;
            return 0;
        }
        /* a failed relock only looked: a poll of it spins until another
         * thread unlocks (glibc lets anyone unlock a normal mutex or a
         * spin lock) */
        lu__sync_unchanged(t, o);
        if (o->u.mutex.kind == PTHREAD_MUTEX_ERRORCHECK)
            return EDEADLK;
        return busy_rc;
    }
    if (o->u.mutex.owner != -1) {
        lu__sync_unchanged(t, o);
        return busy_rc;
    }
    if (o->u.mutex.health == LU__ROBUST_UNRECOVERABLE) {
        lu__sync_unchanged(t, o);
        return ENOTRECOVERABLE;
    }
    o->u.mutex.owner = t->id;
    o->u.mutex.count = 1;
    lu__sync_changed(t, o);
    if (o->u.mutex.health == LU__ROBUST_OWNER_DEAD) {
        o->u.mutex.health = LU__ROBUST_INCONSISTENT;
        return EOWNERDEAD;
    }
    return 0;
}

int lu_sched_mutex_kind(const void *m, bool *robust, bool *mine)
{
    struct lu__thread *t = lu__me();
    struct lu__obj *o = lu__obj_find(t->s, m);
    if (!o || o->type != LU__O_MUTEX)
        return -1;
    *robust = o->u.mutex.robust;
    *mine = o->u.mutex.owner == t->id;
    return o->u.mutex.kind;
}

void lu_sched_mutex_set_robust(void *m)
{
    struct lu__thread *t = lu__me();
    lu__obj_get(t->s, m, LU__O_MUTEX)->u.mutex.robust = true;
    t->s->robust_used = true;
}

int lu_sched_mutex_consistent(void *m)
{
    struct lu__thread *t = lu__me();
    struct lu__obj *o = lu__obj_find(t->s, m);
    if (!o || o->type != LU__O_MUTEX || o->u.mutex.health != LU__ROBUST_INCONSISTENT)
        return EINVAL;
    o->u.mutex.health = LU__ROBUST_OK;
    return 0;
}

/* A robust mutex of this execution that t holds: its end orphans it. */
static bool lu__robust_held_by(const struct lu_sched *s, const struct lu__obj *o, const struct lu__thread *t)
{
    return o->epoch == s->epoch && o->type == LU__O_MUTEX && o->u.mutex.robust && o->u.mutex.owner == t->id;
}

bool lu__mutexes_held_robust(const struct lu__thread *t)
{
    const struct lu_sched *s = t->s;
    struct lu__obj *o, *tmp;
    HASH_ITER(hh, s->objs, o, tmp)
    {
        if (lu__robust_held_by(s, o, t))
            return true;
    }
    return false;
}

void lu__mutexes_orphan(struct lu__thread *t)
{
    struct lu_sched *s = t->s;
    struct lu__obj *o, *tmp;
    HASH_ITER(hh, s->objs, o, tmp)
    {
        if (!lu__robust_held_by(s, o, t))
            continue;
        o->u.mutex.owner = -1;
        o->u.mutex.count = 0;
        o->u.mutex.health = LU__ROBUST_OWNER_DEAD;
        lu__sync_changed(t, o);
        lu__por_touch_sync(t, o->addr);
    }
}

int lu_sched_mutex_lock(void *m, uint16_t label)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, m, LU__O_MUTEX);
    lu__point(t, LU_SCHED_K_MUTEX_LOCK, m, label);
    struct lu__obj *o = lu__obj_find(t->s, m);
    int rc = lu__mutex_acquire(t, o, EBUSY);
    LU__ASSERT(rc != EBUSY); /* the scheduler only picks an enabled lock */
    return rc;
}

int lu_sched_mutex_trylock(void *m, uint16_t label)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, m, LU__O_MUTEX);
    lu__point(t, LU_SCHED_K_MUTEX_TRYLOCK, m, label);
    int rc = lu__mutex_acquire(t, lu__obj_find(t->s, m), EBUSY);
    return rc == EDEADLK ? EBUSY : rc;
}

int lu_sched_mutex_timedlock(void *m, uint16_t label)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, m, LU__O_MUTEX);
    lu__point(t, LU_SCHED_K_MUTEX_TIMEDLOCK, m, label);
    return lu__timed_out(t, lu__mutex_acquire(t, lu__obj_find(t->s, m), ETIMEDOUT));
}

int lu_sched_mutex_unlock(void *m, uint16_t label)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, m, LU__O_MUTEX);
    lu__point(t, LU_SCHED_K_MUTEX_UNLOCK, m, label);
    struct lu__obj *o = lu__obj_find(t->s, m);
    if (o->u.mutex.owner != t->id) {
        /* glibc checks who unlocks error-checking, recursive and robust
         * mutexes only: a normal one is released, whoever holds it */
        if (o->u.mutex.kind != PTHREAD_MUTEX_NORMAL || o->u.mutex.robust)
            return EPERM;
        if (o->u.mutex.owner == -1) {
            lu__sync_unchanged(t, o);
            return 0;
        }
        o->u.mutex.count = 1;
    }
    if (--o->u.mutex.count == 0) {
        o->u.mutex.owner = -1;
        if (o->u.mutex.health == LU__ROBUST_INCONSISTENT) /* never made consistent */
            o->u.mutex.health = LU__ROBUST_UNRECOVERABLE;
    }
    lu__sync_changed(t, o);
    return 0;
}

/* ---- reader-writer locks ---- */

void lu_sched_rw_init(void *rw, bool prefer_writer)
{
    struct lu__thread *t = lu__me();
    struct lu__obj *o = lu__obj_get(t->s, rw, LU__O_RW);
    memset(&o->u.rw, 0, sizeof o->u.rw);
    o->u.rw.writer = -1;
    o->u.rw.prefer_writer = prefer_writer;
}

static int lu__rw_acquire(struct lu__thread *t, struct lu__obj *o, bool write, int busy_rc)
{
    /* glibc's blocking and timed calls check only the writer (a reader
     * asking for the write lock waits for itself); its trylocks check
     * nobody */
    if (o->u.rw.writer == t->id)
        return busy_rc == EBUSY ? EBUSY : EDEADLK;
    if (write) {
        if (o->u.rw.writer != -1 || o->u.rw.readers) {
            lu__sync_unchanged(t, o);
            return busy_rc;
        }
        o->u.rw.writer = t->id;
    } else {
        if (!lu__rw_read_free(o)) {
            lu__sync_unchanged(t, o);
            return busy_rc;
        }
        if (o->u.rw.held[t->id] == UINT16_MAX)
            return EAGAIN; /* glibc's "too many read locks" */
        o->u.rw.readers++;
        o->u.rw.held[t->id]++;
    }
    lu__sync_changed(t, o);
    return 0;
}

static int lu__rw_op(void *rw, enum lu_sched_kind k, bool write, int busy_rc, uint16_t label, uintptr_t pc)
{
    struct lu__thread *t = lu__me();
    t->pc = pc;
    lu__obj_get(t->s, rw, LU__O_RW);
    lu__point(t, k, rw, label);
    struct lu__obj *o = lu__obj_find(t->s, rw);
    if ((k == LU_SCHED_K_RW_WRLOCK || k == LU_SCHED_K_RW_TIMED_WR) && o->u.rw.prefer_writer &&
        o->u.rw.writer != t->id && (o->u.rw.writer != -1 || o->u.rw.readers)) {
        /* a writer-preferring lock: the writer registers (new readers wait
         * from now on), then waits for the lock, or, timed, may give up;
         * the registration is a step of its own, so that readers may also
         * come first */
        o->u.rw.writers_waiting |= 1ULL << t->id;
        lu__sync_changed(t, o);
        lu__point(t, k == LU_SCHED_K_RW_WRLOCK ? LU_SCHED_K_RW_WR_BLOCKED : k, rw, label);
        o = lu__obj_find(t->s, rw);
        o->u.rw.writers_waiting &= ~(1ULL << t->id);
        /* one that gave up lets the readers it turned away in: news for
         * their polls */
        if (k == LU_SCHED_K_RW_TIMED_WR && (o->u.rw.writer != -1 || o->u.rw.readers))
            lu__sync_changed(t, o);
    }
    int rc = lu__rw_acquire(t, o, write, busy_rc);
    LU__ASSERT(rc != -1);
    return lu__timed_out(t, rc);
}

int lu_sched_rw_rdlock(void *rw, uint16_t label)
{
    return lu__rw_op(rw, LU_SCHED_K_RW_RDLOCK, false, -1, label, LU__CALLER_PC());
}

int lu_sched_rw_wrlock(void *rw, uint16_t label)
{
    return lu__rw_op(rw, LU_SCHED_K_RW_WRLOCK, true, -1, label, LU__CALLER_PC());
}

int lu_sched_rw_tryrdlock(void *rw, uint16_t label)
{
    return lu__rw_op(rw, LU_SCHED_K_RW_TRY, false, EBUSY, label, LU__CALLER_PC());
}

int lu_sched_rw_trywrlock(void *rw, uint16_t label)
{
    return lu__rw_op(rw, LU_SCHED_K_RW_TRY, true, EBUSY, label, LU__CALLER_PC());
}

int lu_sched_rw_timedrdlock(void *rw, uint16_t label)
{
    return lu__rw_op(rw, LU_SCHED_K_RW_TIMED_RD, false, ETIMEDOUT, label, LU__CALLER_PC());
}

int lu_sched_rw_timedwrlock(void *rw, uint16_t label)
{
    return lu__rw_op(rw, LU_SCHED_K_RW_TIMED_WR, true, ETIMEDOUT, label, LU__CALLER_PC());
}

int lu_sched_rw_unlock(void *rw, uint16_t label)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, rw, LU__O_RW);
    lu__point(t, LU_SCHED_K_RW_UNLOCK, rw, label);
    struct lu__obj *o = lu__obj_find(t->s, rw);
    if (o->u.rw.writer == t->id) {
        o->u.rw.writer = -1;
    } else if (o->u.rw.held[t->id]) {
        o->u.rw.held[t->id]--;
        o->u.rw.readers--;
    } else {
        return EPERM;
    }
    lu__sync_changed(t, o);
    return 0;
}

int lu_sched_rw_destroy(void *rw)
{
    /* glibc checks nothing (destroying a held rwlock is undefined) */
    (void)rw;
    (void)lu__me();
    return 0;
}

/* ---- condition variables ---- */

static int lu__cond_wait(void *c, void *m, bool timed, uint16_t label, uintptr_t pc)
{
    struct lu__thread *t = lu__me();
    struct lu_sched *s = t->s;
    t->pc = pc;
    struct lu__obj *om = lu__obj_get(s, m, LU__O_MUTEX);
    /* glibc checks the caller holds an error-checking, recursive or robust
     * mutex; a normal one it releases whoever holds it, as an unlock does,
     * and waits, and the waiter holds it once woken */
    if (om->u.mutex.owner != t->id && (om->u.mutex.kind != PTHREAD_MUTEX_NORMAL || om->u.mutex.robust))
        return EPERM;
    lu__obj_get(s, c, LU__O_COND);
    lu__point(t, LU_SCHED_K_COND_WAIT, c, label);
    /* gone if another thread freed and reused its block meanwhile (the
     * point protects c, not m: lu_sched_forget_sync) */
    om = lu__obj_get(s, m, LU__O_MUTEX);
    struct lu__obj *oc = lu__obj_find(s, c);
    /* glibc releases one level of a recursive mutex: locked more than once,
     * it stays the waiter's while it waits (and whoever must lock it to
     * signal blocks for good), and the count is restored when it wakes */
    bool kept = om->u.mutex.owner == t->id && om->u.mutex.count > 1;
    int saved = om->u.mutex.owner == t->id ? om->u.mutex.count : 1;
    if (kept) {
        om->u.mutex.count--;
    } else {
        om->u.mutex.owner = -1;
        om->u.mutex.count = 0;
        lu__sync_changed(t, om);
    }
    oc->u.cond.waiters |= 1ULL << t->id;
    oc->u.cond.seq[t->id] = oc->u.cond.next_seq++;
    t->signalled = false;
    t->obj2 = m;
    lu__point(t, timed ? LU_SCHED_K_COND_TIMEDWAIT : LU_SCHED_K_COND_REACQUIRE, c, label);
    int rc = 0;
    if (!t->signalled) {
        LU__ASSERT(timed);
        oc = lu__obj_find(s, c);
        if (oc)
            oc->u.cond.waiters &= ~(1ULL << t->id);
        rc = lu__timed_out(t, ETIMEDOUT);
        om = lu__obj_find(s, m);
        if (!kept && om && om->u.mutex.owner != -1) {
            /* It gave up while another thread held the mutex, and takes it
             * back once free, as a woken waiter does. Giving up only where
             * the mutex was free (one step, until session 30) missed the
             * deadline passing while a signaller held it: the signaller
             * saw the waiter, handed it something, signalled nobody, and
             * the waiter ignored the hand-off on ETIMEDOUT (an audit's
             * lost token, with every schedule said to be explored). */
            t->signalled = t->timed_back = true;
            lu__point(t, LU_SCHED_K_COND_REACQUIRE, c, label);
            t->timed_back = false;
        }
    }
    t->signalled = false;
    om = lu__obj_find(s, m);
    t->obj2 = NULL;
    if (kept) {
        LU__ASSERT(om->u.mutex.owner == t->id);
        om->u.mutex.count = saved;
        return rc;
    }
    LU__ASSERT(om->u.mutex.owner == -1);
    /* a robust mutex whose owner died meanwhile: as a lock would */
    if (om->u.mutex.health == LU__ROBUST_UNRECOVERABLE) {
        lu__sync_unchanged(t, om);
        return ENOTRECOVERABLE;
    }
    om->u.mutex.owner = t->id;
    om->u.mutex.count = saved;
    lu__sync_changed(t, om);
    if (om->u.mutex.health == LU__ROBUST_OWNER_DEAD) {
        om->u.mutex.health = LU__ROBUST_INCONSISTENT;
        return EOWNERDEAD;
    }
    return rc;
}

int lu_sched_cond_wait(void *c, void *m, uint16_t label)
{
    return lu__cond_wait(c, m, false, label, LU__CALLER_PC());
}

int lu_sched_cond_timedwait(void *c, void *m, uint16_t label)
{
    return lu__cond_wait(c, m, true, label, LU__CALLER_PC());
}

/* Waiters ordered by arrival, so that data choice n means the same thread
 * whenever the same schedule is replayed. */
static int lu__cond_waiters(struct lu_sched *s, struct lu__obj *oc, int *out)
{
    int n = 0;
    for (int i = 0; i < s->nthreads; i++)
        if (oc->u.cond.waiters >> i & 1)
            out[n++] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && oc->u.cond.seq[out[j]] < oc->u.cond.seq[out[j - 1]]; j--) {
            int x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return n;
}

static int lu__cond_wake(void *c, bool all, enum lu_sched_kind k, uint16_t label, uintptr_t pc)
{
    struct lu__thread *t = lu__me();
    struct lu_sched *s = t->s;
    t->pc = pc;
    lu__obj_get(s, c, LU__O_COND);
    lu__point(t, k, c, label);
    struct lu__obj *oc = lu__obj_find(s, c);
    int w[LU_SCHED_MAX_THREADS];
    int n = lu__cond_waiters(s, oc, w);
    if (n == 0) {
        lu__sync_unchanged(t, oc);
        return 0;
    }
    if (all) {
        for (int i = 0; i < n; i++)
            s->threads[w[i]].signalled = true;
        oc->u.cond.waiters = 0;
    } else {
        int pick = w[lu__choose_data(t, n)];
        s->threads[pick].signalled = true;
        oc->u.cond.waiters &= ~(1ULL << pick);
    }
    lu__sync_changed(t, oc);
    return 0;
}

int lu_sched_cond_signal(void *c, uint16_t label)
{
    return lu__cond_wake(c, false, LU_SCHED_K_COND_SIGNAL, label, LU__CALLER_PC());
}

int lu_sched_cond_broadcast(void *c, uint16_t label)
{
    return lu__cond_wake(c, true, LU_SCHED_K_COND_BROADCAST, label, LU__CALLER_PC());
}

int lu_sched_cond_destroy(void *c)
{
    struct lu__thread *t = lu__me();
    struct lu__obj *o = lu__obj_find(t->s, c);
    if (o && o->type == LU__O_COND && o->u.cond.waiters)
        return EBUSY;
    return 0;
}

/* ---- futexes ---- */

/* The word of a futex is memory or a futex, never a mutex, semaphore, ...
 * the model keeps at that address (their state would be read as a
 * condition's). */
static bool lu__futex_word_ok(struct lu_sched *s, const void *addr)
{
    const struct lu__obj *o = lu__obj_find(s, addr);
    return !o || o->type == LU__O_LOC || o->type == LU__O_COND;
}

/* A futex call's scheduling point, a condition wait's or signal's step on
 * the word's object: it writes the object, so the reduction orders it with
 * every access to the word. Returns the object after the point, or NULL
 * when the word is another kind of object's. */
static struct lu__obj *lu__futex_point(struct lu__thread *t, void *addr, enum lu_sched_kind k, uint16_t label)
{
    if (!lu__futex_word_ok(t->s, addr))
        return NULL;
    lu__obj_get(t->s, addr, LU__O_COND);
    lu__point(t, k, addr, label);
    return lu__obj_get(t->s, addr, LU__O_COND);
}

int lu_sched_futex_wait(void *addr, uint32_t val, bool timed, uint16_t label)
{
    struct lu__thread *t = lu__me();
    struct lu_sched *s = t->s;
    t->pc = LU__CALLER_PC();
    struct lu__obj *o = lu__futex_point(t, addr, LU_SCHED_K_COND_WAIT, label);
    if (!o)
        return -1;
    lu__futex_read(t, o, true);
    if (__atomic_load_n((const uint32_t *)addr, __ATOMIC_RELAXED) != val)
        return EAGAIN;
    o->u.cond.waiters |= 1ULL << t->id;
    o->u.cond.seq[t->id] = o->u.cond.next_seq++;
    t->signalled = false;
    t->obj2 = NULL; /* no mutex to re-acquire: runnable once woken */
    lu__point(t, timed ? LU_SCHED_K_COND_TIMEDWAIT : LU_SCHED_K_COND_REACQUIRE, addr, label);
    o = lu__obj_get(s, addr, LU__O_COND);
    int rc = 0;
    if (!t->signalled) {
        LU__ASSERT(timed);
        o->u.cond.waiters &= ~(1ULL << t->id);
        rc = lu__timed_out(t, ETIMEDOUT);
    }
    t->signalled = false;
    /* woken: the waker joined its clock into ours (lu__futex_woke) */
    lu__futex_read(t, o, false);
    return rc;
}

int lu_sched_futex_wake(void *addr, int n, uint16_t label)
{
    struct lu__thread *t = lu__me();
    struct lu_sched *s = t->s;
    t->pc = LU__CALLER_PC();
    struct lu__obj *o = lu__futex_point(t, addr, LU_SCHED_K_COND_SIGNAL, label);
    if (!o)
        return -1;
    int w[LU_SCHED_MAX_THREADS];
    int nw = lu__cond_waiters(s, o, w), woken = 0;
    uint64_t mask = 0;
    /* the kernel counts a waiter woken before it compares with n: a count
     * of 0 or less wakes one */
    if (n < 1)
        n = 1;
    while (woken < n && nw > 0) {
        /* waking them all leaves nothing to choose */
        int i = n - woken >= nw ? 0 : lu__choose_data(t, nw);
        s->threads[w[i]].signalled = true;
        o->u.cond.waiters &= ~(1ULL << w[i]);
        mask |= 1ULL << w[i];
        memmove(&w[i], &w[i + 1], sizeof w[0] * (size_t)(nw - i - 1));
        nw--;
        woken++;
    }
    if (woken)
        lu__futex_woke(t, o, mask);
    else
        lu__futex_read(t, o, false);
    return woken;
}

/* ---- semaphores ---- */

void lu_sched_sem_init(void *sem, unsigned value)
{
    struct lu__thread *t = lu__me();
    struct lu__obj *o = lu__obj_get(t->s, sem, LU__O_SEM);
    memset(&o->u.sem, 0, sizeof o->u.sem);
    o->u.sem.value = value;
}

int lu_sched_sem_destroy(void *sem)
{
    (void)sem;
    return 0;
}

static int lu__sem_take(struct lu__thread *t, void *sem, int busy_rc)
{
    struct lu__obj *o = lu__obj_find(t->s, sem);
    if (o->u.sem.value == 0) {
        lu__sync_unchanged(t, o);
        return busy_rc;
    }
    o->u.sem.value--;
    /* a token that may be a signal is taken first (lu__quiet_step) */
    if (o->u.sem.fresh)
        o->u.sem.fresh--;
    if (o->u.sem.taken[t->id] < UINT16_MAX)
        o->u.sem.taken[t->id]++;
    lu__sync_changed(t, o);
    return 0;
}

int lu_sched_sem_wait(void *sem, uint16_t label)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, sem, LU__O_SEM);
    lu__point(t, LU_SCHED_K_SEM_WAIT, sem, label);
    int rc = lu__sem_take(t, sem, -1);
    LU__ASSERT(rc == 0);
    return 0;
}

int lu_sched_sem_trywait(void *sem, uint16_t label)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, sem, LU__O_SEM);
    lu__point(t, LU_SCHED_K_SEM_TRYWAIT, sem, label);
    return lu__sem_take(t, sem, EAGAIN);
}

int lu_sched_sem_timedwait(void *sem, uint16_t label)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, sem, LU__O_SEM);
    lu__point(t, LU_SCHED_K_SEM_TIMEDWAIT, sem, label);
    return lu__timed_out(t, lu__sem_take(t, sem, ETIMEDOUT));
}

int lu_sched_sem_post(void *sem, uint16_t label)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, sem, LU__O_SEM);
    lu__point(t, LU_SCHED_K_SEM_POST, sem, label);
    struct lu__obj *o = lu__obj_find(t->s, sem);
    if (o->u.sem.value >= SEM_VALUE_MAX) { /* as glibc: the count stays */
        lu__sync_unchanged(t, o);
        return EOVERFLOW;
    }
    o->u.sem.value++;
    if (o->u.sem.taken[t->id])
        o->u.sem.taken[t->id]--; /* one it took, given back */
    else
        o->u.sem.fresh++;
    lu__sync_changed(t, o);
    return 0;
}

int lu_sched_sem_getvalue(void *sem, int *value)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, sem, LU__O_SEM);
    lu__point(t, LU_SCHED_K_READ, sem, 0);
    struct lu__obj *o = lu__obj_find(t->s, sem);
    lu__sync_unchanged(t, o);
    *value = (int)o->u.sem.value;
    return 0;
}

/* ---- barriers ---- */

void lu_sched_barrier_init(void *b, unsigned count)
{
    struct lu__thread *t = lu__me();
    struct lu__obj *o = lu__obj_get(t->s, b, LU__O_BARRIER);
    o->u.barrier.count = count;
    o->u.barrier.arrived = 0;
}

int lu_sched_barrier_destroy(void *b)
{
    (void)b;
    return 0;
}

int lu_sched_barrier_wait(void *b, uint16_t label)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, b, LU__O_BARRIER);
    lu__point(t, LU_SCHED_K_BARRIER_WAIT, b, label);
    struct lu__obj *o = lu__obj_find(t->s, b);
    if (o->u.barrier.count == 0)
        return EINVAL;
    if (++o->u.barrier.arrived >= o->u.barrier.count) {
        o->u.barrier.arrived = 0;
        o->u.barrier.generation++;
        lu__sync_changed(t, o);
        return 1;
    }
    t->barrier_gen = o->u.barrier.generation;
    lu__sync_changed(t, o);
    lu__point(t, LU_SCHED_K_BARRIER_BLOCKED, b, label);
    /* released: everything every thread did before arriving happens before
     * what this one does next (the last arrival joined all into o) */
    lu__hb_acquire(t, lu__obj_find(t->s, b));
    return 0;
}

/* ---- once ---- */

/* What the once word holds after its routine ran under control: glibc's
 * "not done" (bit 1 clear) to glibc and to a later execution, which runs the
 * routine again (its memory is all the model has of an earlier one), but
 * not PTHREAD_ONCE_INIT, so that a word set back to that by assignment (a
 * module reset) is told from one that ran. */
#define LU__ONCE_MARK 0x4c550000

int lu_sched_once(void *once, void (*init)(void), uint16_t label)
{
    struct lu__thread *t = lu__me();
    t->pc = LU__CALLER_PC();
    lu__obj_get(t->s, once, LU__O_ONCE);
    lu__point(t, LU_SCHED_K_ONCE, once, label);
    struct lu__obj *o = lu__obj_find(t->s, once);
    if (o->u.once.state == 2 && __atomic_load_n((const int *)once, __ATOMIC_RELAXED) != LU__ONCE_MARK)
        o->u.once.state = 0; /* re-armed: the routine runs again, as glibc would */
    if (o->u.once.state == 2) {
        lu__sync_unchanged(t, o);
        return 0;
    }
    while (o->u.once.state == 1) {
        lu__point(t, LU_SCHED_K_ONCE_BLOCKED, once, label);
        o = lu__obj_find(t->s, once);
        if (o->u.once.state == 2) {
            /* the initialization happens before the return of every caller */
            lu__hb_acquire(t, o);
            return 0;
        }
        /* its runner exited inside the routine (lu__once_abandon): the
         * routine is not done, and this caller runs it, as with glibc */
    }
    o->u.once.state = 1;
    lu__sync_changed(t, o);
    int depth = t->once_depth;
    if (depth < LU__ONCE_NEST)
        t->once_running[depth] = once;
    t->once_depth = depth + 1;
    init();
    t->once_depth = depth;
    o = lu__obj_find(t->s, once);
    o->u.once.state = 2;
    __atomic_store_n((int *)once, LU__ONCE_MARK, __ATOMIC_RELAXED);
    lu__sync_changed(t, o);
    return 0;
}

void lu__once_abandon(struct lu__thread *t)
{
    int n = t->once_depth < LU__ONCE_NEST ? t->once_depth : LU__ONCE_NEST;
    for (int i = 0; i < n; i++) {
        /* still running: an exception thrown out of the routine may have
         * left a record of one a later call completed */
        struct lu__obj *o = lu__obj_find(t->s, t->once_running[i]);
        if (!o || o->type != LU__O_ONCE || o->u.once.state != 1)
            continue;
        o->u.once.state = 0;
        lu__sync_changed(t, o);
        lu__por_touch_sync(t, t->once_running[i]);
    }
    t->once_depth = 0;
}
