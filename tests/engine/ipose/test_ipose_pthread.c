/*
 * The pthread interposition layer under the controlled scheduler: small
 * programs written against plain pthreads (and C11 threads), explored with
 * DFS, and the same calls outside control where they must reach libc.
 * Linked against liblineup.so, which precedes libc in the search order, so
 * the calls below resolve to the interposers.
 */
#define _GNU_SOURCE
#include "lu_sched.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "lu_test.h"
#include "lu_test_sched.h"

/* Optional scheduler API the interposer uses when present (see
 * lu_ipose_pthread.c); tests that depend on it are skipped without it. */
extern bool lu_sched_known(const void *addr, enum lu_sched_obj kind) __attribute__((weak));

/* The interposer's trace labels, numbered as lu_ipose_pthread.c numbers them
 * (from 1000, in table order). */
enum {
    L_BASE_ = 999,
#define LU_IPOSE_FN(ret, name, version, params, args, printed) L_##name,
#include "lu_ipose.def"
    L_END_
};

/* ---- exploring a scenario ---- */

static struct lu_sched_trace *cur_trace; /* of the execution a check sees */

#define MAX_EXECUTIONS 20000

struct tally {
    uint64_t executions;
    uint64_t outcome[LU_SCHED_OUT_COUNT];
    bool capped;
};

typedef void (*check_fn)(const struct lu_sched_result *res, void *ctx);

static enum lu_sched_tls explore_tls = LU_SCHED_TLS_AUTO; /* of explore's schedulers */

/* Runs body on thread 0 of every execution DFS finds (unbounded preemptions
 * unless bound >= 0); check sees each result right after its execution. */
static struct tally explore(lu_sched_fn body, int bound, check_fn check, void *ctx)
{
    struct tally t;
    memset(&t, 0, sizeof t);
    uint32_t cap = 4096;
    struct lu_sched_trace *tr = lu_test_trace(cap);
    struct lu_sched_config cfg = lu_test_config(LU_SCHED_DFS, bound, tr);
    cfg.tls = explore_tls;
    cur_trace = tr;
    struct lu_sched *s = lu_test_sched(&cfg);
    struct lu_sched_result res;
    while (lu_sched_more(s)) {
        if (t.executions == MAX_EXECUTIONS) {
            t.capped = true;
            break;
        }
        int rc = lu_sched_run(s, body, NULL, &res);
        if (rc != 0) {
            printf("lu_sched_run: %s\n", lu_sched_strerror(rc));
            failures++;
            break;
        }
        if (res.redundant)
            continue; /* a spinning thread given extra turns that kept spinning: nothing new */
        t.executions++;
        if ((unsigned)res.outcome < LU_SCHED_OUT_COUNT)
            t.outcome[res.outcome]++;
        if (check)
            check(&res, ctx);
    }
    lu_sched_destroy(s);
    free(tr);
    return t;
}

static bool all_complete(const struct tally *t)
{
    return t->executions > 0 && !t->capped && t->outcome[LU_SCHED_OUT_COMPLETE] == t->executions;
}

static void print_outcomes(const char *name, const struct tally *t)
{
    printf("  %-28s %6llu executions:", name, (unsigned long long)t->executions);
    for (int o = 0; o < LU_SCHED_OUT_COUNT; o++)
        if (t->outcome[o])
            printf(" %s=%llu", lu_sched_outcome_name((enum lu_sched_outcome)o),
                   (unsigned long long)t->outcome[o]);
    printf("%s\n", t->capped ? " (capped)" : "");
}

/* A visible operation with no effect on the scenario: a place where the
 * scheduler may switch threads. */
static pthread_mutex_t step_m[8];

static void step(int i)
{
    pthread_mutex_lock(&step_m[i]);
    pthread_mutex_unlock(&step_m[i]);
}

static bool is_fake_handle(pthread_t t)
{
    return ((uint64_t)t >> 48) != 0;
}

/* ======================================================= outside control */

static int once_outside_runs;
static void once_outside_init(void)
{
    once_outside_runs++;
}

static void *real_thread(void *arg)
{
    return (void *)((intptr_t)arg + 1);
}

static int c11_real_thread(void *arg)
{
    return (int)(intptr_t)arg * 2;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pthread_key_t foreign_key; /* created outside control, used under it */
static pthread_once_t once_done_outside = PTHREAD_ONCE_INIT;

static void test_uncontrolled(void)
{
    CHECK(lu_sched_self() < 0, "main is not a controlled thread");

    pthread_mutex_t m;
    CHECK(pthread_mutex_init(&m, NULL) == 0, "mutex init");
    CHECK(pthread_mutex_lock(&m) == 0, "mutex lock");
    CHECK(pthread_mutex_trylock(&m) == EBUSY, "real trylock of a held mutex is EBUSY");
    CHECK(pthread_mutex_unlock(&m) == 0, "mutex unlock");
    CHECK(pthread_mutex_destroy(&m) == 0, "mutex destroy");

    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&m, &ma);
    pthread_mutex_lock(&m);
    CHECK(pthread_mutex_lock(&m) == EDEADLK, "real errorcheck relock is EDEADLK");
    pthread_mutex_unlock(&m);
    pthread_mutex_destroy(&m);
    pthread_mutexattr_destroy(&ma);

    pthread_cond_t c;
    pthread_mutex_init(&m, NULL);
    CHECK(pthread_cond_init(&c, NULL) == 0, "cond init");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 5 * 1000 * 1000;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&m);
    double t0 = now_s();
    CHECK(pthread_cond_timedwait(&c, &m, &ts) == ETIMEDOUT, "real cond timedwait times out");
    CHECK(now_s() - t0 >= 0.004, "real cond timedwait waited");
    CHECK(pthread_cond_signal(&c) == 0 && pthread_cond_broadcast(&c) == 0, "cond signal/broadcast");
    pthread_mutex_unlock(&m);
    CHECK(pthread_cond_destroy(&c) == 0, "cond destroy");
    pthread_mutex_destroy(&m);

    pthread_rwlock_t rw;
    CHECK(pthread_rwlock_init(&rw, NULL) == 0, "rwlock init");
    CHECK(pthread_rwlock_rdlock(&rw) == 0 && pthread_rwlock_tryrdlock(&rw) == 0, "two read locks");
    CHECK(pthread_rwlock_trywrlock(&rw) == EBUSY, "real trywrlock under readers is EBUSY");
    pthread_rwlock_unlock(&rw);
    pthread_rwlock_unlock(&rw);
    CHECK(pthread_rwlock_wrlock(&rw) == 0 && pthread_rwlock_unlock(&rw) == 0, "write lock");
    CHECK(pthread_rwlock_destroy(&rw) == 0, "rwlock destroy");

    pthread_spinlock_t sl;
    CHECK(pthread_spin_init(&sl, 0) == 0 && pthread_spin_lock(&sl) == 0, "spin lock");
    CHECK(pthread_spin_trylock(&sl) == EBUSY, "real spin trylock of a held lock");
    CHECK(pthread_spin_unlock(&sl) == 0 && pthread_spin_destroy(&sl) == 0, "spin unlock");

    sem_t sem;
    int v = -1;
    CHECK(sem_init(&sem, 0, 1) == 0, "sem init");
    CHECK(sem_wait(&sem) == 0, "sem wait");
    errno = 0;
    CHECK(sem_trywait(&sem) == -1 && errno == EAGAIN, "real sem trywait on 0: -1/EAGAIN");
    CHECK(sem_post(&sem) == 0 && sem_getvalue(&sem, &v) == 0 && v == 1, "sem post/getvalue (%d)", v);
    CHECK(sem_destroy(&sem) == 0, "sem destroy");

    pthread_barrier_t b;
    CHECK(pthread_barrier_init(&b, NULL, 1) == 0, "barrier init");
    CHECK(pthread_barrier_wait(&b) == PTHREAD_BARRIER_SERIAL_THREAD, "barrier of 1 is serial");
    CHECK(pthread_barrier_destroy(&b) == 0, "barrier destroy");

    pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, once_outside_init);
    pthread_once(&once, once_outside_init);
    CHECK(once_outside_runs == 1, "real once runs once (%d)", once_outside_runs);
    pthread_once(&once_done_outside, once_outside_init);

    pthread_key_t k;
    CHECK(pthread_key_create(&k, NULL) == 0, "key create");
    CHECK(k < PTHREAD_KEYS_MAX, "real key is a real key (%u)", k);
    CHECK(pthread_setspecific(k, &k) == 0 && pthread_getspecific(k) == &k, "real tsd");
    CHECK(pthread_key_delete(k) == 0, "key delete");
    CHECK(pthread_key_create(&foreign_key, NULL) == 0, "foreign key create");
    pthread_setspecific(foreign_key, &foreign_key);

    pthread_t th;
    void *ret = NULL;
    CHECK(pthread_create(&th, NULL, real_thread, (void *)41) == 0, "real create");
    CHECK(!is_fake_handle(th), "real pthread_t is a real handle");
    CHECK(pthread_join(th, &ret) == 0 && ret == (void *)42, "real join value");
    CHECK(!is_fake_handle(pthread_self()), "real pthread_self");
    CHECK(pthread_equal(pthread_self(), pthread_self()), "pthread_equal self");

    thrd_t ct;
    int cres = 0;
    CHECK(thrd_create(&ct, c11_real_thread, (void *)21) == thrd_success, "real thrd_create");
    CHECK(thrd_join(ct, &cres) == thrd_success && cres == 42, "real thrd_join (%d)", cres);
    mtx_t mx;
    CHECK(mtx_init(&mx, mtx_plain) == thrd_success && mtx_lock(&mx) == thrd_success, "real mtx_lock");
    CHECK(mtx_trylock(&mx) == thrd_busy, "real mtx_trylock busy");
    CHECK(mtx_unlock(&mx) == thrd_success, "real mtx_unlock");
    mtx_destroy(&mx);

    t0 = now_s();
    CHECK(sched_yield() == 0, "sched_yield");
    CHECK(usleep(3000) == 0, "usleep");
    struct timespec d = {0, 3 * 1000 * 1000};
    CHECK(nanosleep(&d, NULL) == 0, "nanosleep");
    CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL) == 0, "clock_nanosleep");
    CHECK(now_s() - t0 >= 0.008, "real sleeps take time (%.4f s)", now_s() - t0);

    char name[32];
    CHECK(pthread_getname_np(pthread_self(), name, sizeof name) == 0, "real getname");
}

/* ======================================================= lock-order inversion */

static pthread_mutex_t inv_a = PTHREAD_MUTEX_INITIALIZER, inv_b = PTHREAD_MUTEX_INITIALIZER;

static void *inv_ab(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&inv_a);
    pthread_mutex_lock(&inv_b);
    pthread_mutex_unlock(&inv_b);
    pthread_mutex_unlock(&inv_a);
    return NULL;
}

static void *inv_ba(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&inv_b);
    pthread_mutex_lock(&inv_a);
    pthread_mutex_unlock(&inv_a);
    pthread_mutex_unlock(&inv_b);
    return NULL;
}

static void *inv_body(void *arg)
{
    (void)arg;
    pthread_t t1, t2;
    pthread_create(&t1, NULL, inv_ab, NULL);
    pthread_create(&t2, NULL, inv_ba, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return NULL;
}

static void inv_check(const struct lu_sched_result *r, void *ctx)
{
    int *found = ctx;
    if (r->outcome == LU_SCHED_OUT_DEADLOCK && r->nthreads == 3 && r->threads[1].k == LU_SCHED_K_MUTEX_LOCK &&
        r->threads[2].k == LU_SCHED_K_MUTEX_LOCK && r->threads[1].state == LU_SCHED_TS_BLOCKED &&
        r->threads[2].state == LU_SCHED_TS_BLOCKED && r->threads[0].k == LU_SCHED_K_JOIN)
        (*found)++;
}

/* Labels and call sites the interposers hand to the scheduler. */
static int label_bad, pc_bad, pc_seen;

static bool pc_in(uintptr_t pc, void *fn)
{
    return pc > (uintptr_t)fn && pc < (uintptr_t)fn + 256;
}

static void inv_check_labels(const struct lu_sched_result *r, void *ctx)
{
    inv_check(r, ctx);
    for (uint32_t i = 0; i < cur_trace->len; i++) {
        const struct lu_sched_step *st = &cur_trace->steps[i];
        if (st->kind != LU_SCHED_CHOOSE_THREAD)
            continue;
        int want = st->op == LU_SCHED_K_MUTEX_LOCK     ? L_pthread_mutex_lock
                   : st->op == LU_SCHED_K_MUTEX_UNLOCK ? L_pthread_mutex_unlock
                   : st->op == LU_SCHED_K_CREATE       ? L_pthread_create
                   : st->op == LU_SCHED_K_JOIN         ? L_pthread_join
                                                       : -1;
        if (want < 0 || st->label != want) {
            if (!label_bad)
                printf("  step %u: op %s label %u, want %d\n", i, lu_sched_kind_name(st->op), st->label,
                       want);
            label_bad++;
        }
    }
    /* a blocked thread's pc is its call of pthread_mutex_lock */
    for (int t = 1; t < r->nthreads && t < 3; t++) {
        if (r->threads[t].state != LU_SCHED_TS_BLOCKED)
            continue;
        pc_seen++;
        if (!pc_in(r->threads[t].pc, t == 1 ? (void *)inv_ab : (void *)inv_ba))
            pc_bad++;
    }
}

static void test_inversion(void)
{
    int found = 0;
    struct tally t = explore(inv_body, -1, inv_check_labels, &found);
    print_outcomes("lock-order inversion", &t);
    CHECK(label_bad == 0, "trace labels are the interposers' (%d bad)", label_bad);
    CHECK(pc_seen > 0 && pc_bad == 0, "blocked threads' pc is their call site (%d of %d bad)", pc_bad,
          pc_seen);
    CHECK(found > 0, "the inversion deadlock is found with both threads pending MUTEX_LOCK");
    CHECK(t.outcome[LU_SCHED_OUT_COMPLETE] > 0, "some executions complete");
    CHECK(found == (int)t.outcome[LU_SCHED_OUT_DEADLOCK], "every deadlock is the inversion");
}

/* ======================================================= counter */

static pthread_mutex_t cnt_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t cnt_spin;
static int counter;
static int cnt_mode; /* 0 mutex, 1 no lock (control), 2 spin lock */

static void *cnt_worker(void *arg)
{
    int i = (int)(intptr_t)arg;
    if (cnt_mode == 0)
        pthread_mutex_lock(&cnt_m);
    else if (cnt_mode == 2)
        pthread_spin_lock(&cnt_spin);
    int v = counter;
    step(i);
    counter = v + 1;
    if (cnt_mode == 0)
        pthread_mutex_unlock(&cnt_m);
    else if (cnt_mode == 2)
        pthread_spin_unlock(&cnt_spin);
    return NULL;
}

static void *cnt_body(void *arg)
{
    (void)arg;
    counter = 0;
    if (cnt_mode == 2)
        pthread_spin_init(&cnt_spin, PTHREAD_PROCESS_PRIVATE);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, cnt_worker, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    if (cnt_mode == 2)
        pthread_spin_destroy(&cnt_spin);
    return NULL;
}

struct cnt_ctx {
    int lost, ok;
};

static void cnt_check(const struct lu_sched_result *r, void *ctx)
{
    struct cnt_ctx *c = ctx;
    if (r->outcome != LU_SCHED_OUT_COMPLETE)
        return;
    if (counter == 2)
        c->ok++;
    else
        c->lost++;
}

static void test_counter(void)
{
    static const char *const names[] = {"counter, mutex", "counter, no lock", "counter, spin lock"};
    for (int mode = 0; mode < 3; mode++) {
        cnt_mode = mode;
        struct cnt_ctx c = {0, 0};
        struct tally t = explore(cnt_body, -1, cnt_check, &c);
        print_outcomes(names[mode], &t);
        CHECK(all_complete(&t), "%s: every execution completes", names[mode]);
        if (mode == 1)
            CHECK(c.lost > 0 && c.ok > 0, "without a lock some execution loses an update (lost %d)", c.lost);
        else
            CHECK(c.lost == 0 && c.ok > 1, "%s: no lost update (lost %d, ok %d)", names[mode], c.lost, c.ok);
    }
}

/* ======================================================= semaphores */

static sem_t pc_empty, pc_full;
static int pc_slot, pc_sum;

static void *pc_producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= 3; i++) {
        sem_wait(&pc_empty);
        pc_slot = i;
        sem_post(&pc_full);
    }
    return NULL;
}

static void *pc_consumer(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++) {
        sem_wait(&pc_full);
        pc_sum += pc_slot;
        sem_post(&pc_empty);
    }
    return NULL;
}

static void *pc_body(void *arg)
{
    (void)arg;
    pc_sum = pc_slot = 0;
    sem_init(&pc_empty, 0, 1);
    sem_init(&pc_full, 0, 0);
    pthread_t p, c;
    pthread_create(&c, NULL, pc_consumer, NULL);
    pthread_create(&p, NULL, pc_producer, NULL);
    pthread_join(p, NULL);
    pthread_join(c, NULL);
    sem_destroy(&pc_empty);
    sem_destroy(&pc_full);
    return NULL;
}

static void pc_check(const struct lu_sched_result *r, void *ctx)
{
    int *bad = ctx;
    if (r->outcome == LU_SCHED_OUT_COMPLETE && pc_sum != 6)
        (*bad)++;
}

static int sem_rc[6], sem_errno[6];
static sem_t sem_misc;

static void *sem_errors_body(void *arg)
{
    (void)arg;
    sem_init(&sem_misc, 0, 0);
    errno = 0;
    sem_rc[0] = sem_trywait(&sem_misc);
    sem_errno[0] = errno;
    struct timespec bad = {0, 1000000000L};
    errno = 0;
    sem_rc[1] = sem_timedwait(&sem_misc, &bad);
    sem_errno[1] = errno;
    struct timespec ok = {1, 0};
    errno = 0;
    sem_rc[2] = sem_timedwait(&sem_misc, &ok);
    sem_errno[2] = errno;
    sem_post(&sem_misc);
    int v = -1;
    sem_getvalue(&sem_misc, &v);
    sem_rc[3] = v;
    sem_rc[4] = sem_clockwait(&sem_misc, CLOCK_MONOTONIC, &ok);
    errno = 0;
    sem_rc[5] = sem_clockwait(&sem_misc, 12345, &ok);
    sem_errno[5] = errno;
    return NULL;
}

static void test_semaphores(void)
{
    int bad = 0;
    struct tally t = explore(pc_body, -1, pc_check, &bad);
    print_outcomes("semaphore producer/consumer", &t);
    CHECK(all_complete(&t), "producer/consumer completes in every execution");
    CHECK(bad == 0, "consumer sums 6 in every execution (%d bad)", bad);

    t = explore(sem_errors_body, -1, NULL, NULL);
    CHECK(all_complete(&t), "sem errors scenario completes");
    CHECK(sem_rc[0] == -1 && sem_errno[0] == EAGAIN, "sem_trywait on 0: -1/EAGAIN (%d/%d)", sem_rc[0],
          sem_errno[0]);
    CHECK(sem_rc[1] == -1 && sem_errno[1] == EINVAL, "sem_timedwait bad nsec: -1/EINVAL (%d/%d)", sem_rc[1],
          sem_errno[1]);
    CHECK(sem_rc[2] == -1 && sem_errno[2] == ETIMEDOUT, "sem_timedwait on 0: -1/ETIMEDOUT (%d/%d)", sem_rc[2],
          sem_errno[2]);
    CHECK(sem_rc[3] == 1, "sem_getvalue after post (%d)", sem_rc[3]);
    CHECK(sem_rc[4] == 0, "sem_clockwait takes the posted unit (%d)", sem_rc[4]);
    CHECK(sem_rc[5] == -1 && sem_errno[5] == EINVAL, "sem_clockwait bad clock: -1/EINVAL");
}

/* ======================================================= barrier */

static pthread_barrier_t bar;
static int bar_arrived, bar_serial, bar_early;

static void bar_round(int round)
{
    bar_arrived++;
    int rc = pthread_barrier_wait(&bar);
    if (rc == PTHREAD_BARRIER_SERIAL_THREAD)
        bar_serial++;
    else if (rc != 0)
        bar_early += 100;
    if (bar_arrived < 3 * round)
        bar_early++;
}

static void *bar_worker(void *arg)
{
    (void)arg;
    bar_round(1);
    bar_round(2);
    return NULL;
}

static void *bar_body(void *arg)
{
    (void)arg;
    bar_arrived = bar_serial = bar_early = 0;
    pthread_barrier_init(&bar, NULL, 3);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, bar_worker, NULL);
    bar_round(1);
    bar_round(2);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&bar);
    return NULL;
}

static void bar_check(const struct lu_sched_result *r, void *ctx)
{
    int *bad = ctx;
    if (r->outcome != LU_SCHED_OUT_COMPLETE || bar_serial != 2 || bar_early != 0)
        (*bad)++;
}

static void test_barrier(void)
{
    int bad = 0;
    struct tally t = explore(bar_body, -1, bar_check, &bad);
    print_outcomes("barrier of 3, two rounds", &t);
    CHECK(all_complete(&t), "barrier completes in every execution");
    CHECK(bad == 0, "one serial thread per round, nobody passes early (%d bad)", bad);
}

/* ======================================================= once */

static pthread_once_t once_ctl;
static int once_runs, once_after_bad;

static void once_init(void)
{
    once_runs++;
    step(7);
}

static void *once_worker(void *arg)
{
    (void)arg;
    pthread_once(&once_ctl, once_init);
    if (once_runs != 1)
        once_after_bad++;
    return NULL;
}

static void *once_body(void *arg)
{
    (void)arg;
    once_ctl = (pthread_once_t)PTHREAD_ONCE_INIT;
    once_runs = once_after_bad = 0;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, once_worker, NULL);
    once_worker(NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    /* ran outside control before any execution: must not run again */
    pthread_once(&once_done_outside, once_init);
    return NULL;
}

static void once_check(const struct lu_sched_result *r, void *ctx)
{
    int *bad = ctx;
    if (r->outcome != LU_SCHED_OUT_COMPLETE || once_runs != 1 || once_after_bad)
        (*bad)++;
}

static void test_once(void)
{
    int bad = 0;
    struct tally t = explore(once_body, -1, once_check, &bad);
    print_outcomes("pthread_once, 3 threads", &t);
    CHECK(all_complete(&t) && t.executions > 1, "once completes in every execution");
    CHECK(bad == 0, "init runs exactly once and before every return (%d bad)", bad);
}

/* ======================================================= condition variables */

static pthread_mutex_t cv_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv_c = PTHREAD_COND_INITIALIZER;
static int cv_ready;
static int cv_mode; /* 0: `if` checked outside the lock (lost wakeup), 1: correct `while` */

static void *cv_waiter(void *arg)
{
    (void)arg;
    if (cv_mode == 0) {
        if (!cv_ready) {
            pthread_mutex_lock(&cv_m);
            pthread_cond_wait(&cv_c, &cv_m);
            pthread_mutex_unlock(&cv_m);
        }
    } else {
        pthread_mutex_lock(&cv_m);
        while (!cv_ready)
            pthread_cond_wait(&cv_c, &cv_m);
        pthread_mutex_unlock(&cv_m);
    }
    return NULL;
}

static void *cv_signaller(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&cv_m);
    cv_ready = 1;
    pthread_cond_signal(&cv_c);
    pthread_mutex_unlock(&cv_m);
    return NULL;
}

static void *cv_body(void *arg)
{
    (void)arg;
    cv_ready = 0;
    pthread_t w, s;
    pthread_create(&w, NULL, cv_waiter, NULL);
    pthread_create(&s, NULL, cv_signaller, NULL);
    pthread_join(w, NULL);
    pthread_join(s, NULL);
    return NULL;
}

static void cv_check(const struct lu_sched_result *r, void *ctx)
{
    int *stuck = ctx;
    if (r->outcome == LU_SCHED_OUT_DEADLOCK && r->nthreads == 3 &&
        r->threads[1].state == LU_SCHED_TS_BLOCKED && r->threads[1].obj == (void *)&cv_c)
        (*stuck)++;
}

static int tw_rc[3];
static int tw_timeouts, tw_wakeups;

static void *tw_waiter(void *arg)
{
    (void)arg;
    struct timespec ts = {1, 0};
    pthread_mutex_lock(&cv_m);
    tw_rc[0] = 0;
    while (!cv_ready) {
        int rc = pthread_cond_timedwait(&cv_c, &cv_m, &ts);
        if (rc == ETIMEDOUT) {
            tw_rc[0] = ETIMEDOUT;
            break;
        }
    }
    pthread_mutex_unlock(&cv_m);
    return NULL;
}

static void *tw_body(void *arg)
{
    (void)arg;
    cv_ready = 0;
    struct timespec bad = {0, -1};
    pthread_mutex_lock(&cv_m);
    tw_rc[1] = pthread_cond_timedwait(&cv_c, &cv_m, &bad);
    tw_rc[2] = pthread_cond_clockwait(&cv_c, &cv_m, 4242, &bad);
    pthread_mutex_unlock(&cv_m);
    pthread_t w, s;
    pthread_create(&w, NULL, tw_waiter, NULL);
    pthread_create(&s, NULL, cv_signaller, NULL);
    pthread_join(w, NULL);
    pthread_join(s, NULL);
    return NULL;
}

static void tw_check(const struct lu_sched_result *r, void *ctx)
{
    (void)ctx;
    if (r->outcome != LU_SCHED_OUT_COMPLETE)
        return;
    if (tw_rc[0] == ETIMEDOUT)
        tw_timeouts++;
    else
        tw_wakeups++;
}

static void test_cond(void)
{
    int stuck = 0;
    cv_mode = 0;
    struct tally t = explore(cv_body, -1, cv_check, &stuck);
    print_outcomes("cond, `if` outside the lock", &t);
    CHECK(stuck > 0, "the lost wakeup is found: waiter stuck on the condition");
    CHECK(t.outcome[LU_SCHED_OUT_COMPLETE] > 0, "some executions complete");

    stuck = 0;
    cv_mode = 1;
    t = explore(cv_body, -1, cv_check, &stuck);
    print_outcomes("cond, `while` under the lock", &t);
    CHECK(all_complete(&t) && stuck == 0, "the correct wait completes in every execution");

    t = explore(tw_body, -1, tw_check, NULL);
    print_outcomes("cond timedwait", &t);
    CHECK(all_complete(&t), "timedwait completes in every execution");
    CHECK(tw_timeouts > 0 && tw_wakeups > 0, "timedwait both times out and wakes (%d/%d)", tw_timeouts,
          tw_wakeups);
    CHECK(tw_rc[1] == EINVAL && tw_rc[2] == EINVAL, "bad abstime / clock: EINVAL (%d, %d)", tw_rc[1],
          tw_rc[2]);
}

/* ======================================================= threads: self, equal, exit, detach */

static pthread_t th_handle, th_child_self, th_main_self;
static int th_saw_own_handle, th_equal_bad;
static int th_stack_bad; /* threads whose own stack bounds miss their frame */

/* pthread_getattr_np of the caller names the stack it runs on: runtimes
 * (garbage collectors, stack probes) rely on it. Thread 0 runs on the
 * controller's thread pointer, so the real pthread_self() is no answer. */
static void th_check_stack(void)
{
    char here;
    pthread_attr_t a;
    void *lo = NULL;
    size_t n = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0) {
        th_stack_bad++;
        return;
    }
    if (pthread_attr_getstack(&a, &lo, &n) != 0 || (uintptr_t)&here < (uintptr_t)lo ||
        (uintptr_t)&here >= (uintptr_t)lo + n)
        th_stack_bad++;
    pthread_attr_destroy(&a);
}

static void *th_child(void *arg)
{
    (void)arg;
    /* before any visible operation: the creator's pthread_t must be set */
    th_saw_own_handle = pthread_equal(th_handle, pthread_self());
    th_child_self = pthread_self();
    th_check_stack();
    step(1);
    if (!pthread_equal(pthread_self(), th_child_self))
        th_equal_bad++;
    pthread_exit((void *)0x1234);
}

static void *th_detached(void *arg)
{
    (void)arg;
    step(2);
    return NULL;
}

static int th_join_rc[4];
static void *th_ret;
static char th_name[32];
static int th_name_rc[3];

static void *th_body(void *arg)
{
    (void)arg;
    th_saw_own_handle = th_equal_bad = th_stack_bad = 0;
    th_ret = NULL;
    th_main_self = pthread_self();
    th_check_stack();
    pthread_create(&th_handle, NULL, th_child, NULL);
    if (pthread_equal(th_handle, pthread_self()))
        th_equal_bad++;
    th_join_rc[0] = pthread_join(th_handle, &th_ret);
    th_join_rc[1] = pthread_join(pthread_self(), NULL);

    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_t d;
    pthread_create(&d, &a, th_detached, NULL);
    pthread_attr_destroy(&a);
    th_join_rc[2] = pthread_join(d, NULL);
    pthread_t d2;
    pthread_create(&d2, NULL, th_detached, NULL);
    th_join_rc[3] = pthread_detach(d2);

    th_name_rc[0] = pthread_setname_np(pthread_self(), "worker");
    th_name_rc[1] = pthread_setname_np(pthread_self(), "a name that is far too long");
    th_name_rc[2] = pthread_getname_np(th_handle, th_name, sizeof th_name);
    return NULL;
}

static void th_check(const struct lu_sched_result *r, void *ctx)
{
    int *bad = ctx;
    if (r->outcome != LU_SCHED_OUT_COMPLETE || !th_saw_own_handle || th_equal_bad ||
        !pthread_equal(th_child_self, th_handle) || th_ret != (void *)0x1234 || th_join_rc[0] != 0 ||
        th_stack_bad)
        (*bad)++;
}

static void test_threads(void)
{
    int bad = 0;
    struct tally t = explore(th_body, -1, th_check, &bad);
    print_outcomes("self/equal/exit/detach", &t);
    CHECK(all_complete(&t), "thread scenario completes");
    CHECK(bad == 0,
          "handles consistent, child sees its handle, pthread_exit value joined, own stack bounds hold the "
          "frame (%d bad)",
          bad);
    /* with TLS per thread a pool thread lends each its stack; shared (auto,
     * here), a stack of lineup's own mapping: both are named */
    explore_tls = LU_SCHED_TLS_PER_THREAD;
    int bad_own = 0;
    struct tally t_own = explore(th_body, -1, th_check, &bad_own);
    explore_tls = LU_SCHED_TLS_AUTO;
    CHECK(all_complete(&t_own) && t_own.executions == t.executions && bad_own == 0,
          "the same with TLS per thread: %llu executions, %d bad", (unsigned long long)t_own.executions,
          bad_own);
    CHECK(is_fake_handle(th_main_self) && is_fake_handle(th_handle), "controlled handles are lineup's");
    CHECK(!pthread_equal(th_main_self, th_handle), "thread 0 and child differ");
    CHECK(th_join_rc[1] == EDEADLK, "joining self is EDEADLK (%d)", th_join_rc[1]);
    CHECK(th_join_rc[2] == EINVAL, "joining a detached thread is EINVAL (%d)", th_join_rc[2]);
    CHECK(th_join_rc[3] == 0, "pthread_detach (%d)", th_join_rc[3]);
    CHECK(th_name_rc[0] == 0 && th_name_rc[1] == ERANGE && th_name_rc[2] == 0 &&
              strncmp(th_name, "lineup-", 7) == 0,
          "setname/getname on lineup handles (%d %d %d '%s')", th_name_rc[0], th_name_rc[1], th_name_rc[2],
          th_name);
    CHECK(pthread_join(th_handle, NULL) == ESRCH, "a stale lineup handle outside control is ESRCH");
}

/* ======================================================= too many threads */

static int many_ok, many_first_err;

static void *many_child(void *arg)
{
    (void)arg;
    return NULL;
}

static void *many_body(void *arg)
{
    (void)arg;
    many_ok = many_first_err = 0;
    pthread_t seen[LU_SCHED_MAX_THREADS + 8];
    for (int i = 0; i < LU_SCHED_MAX_THREADS + 8; i++) {
        pthread_t t;
        int rc = pthread_create(&t, NULL, many_child, NULL);
        if (rc != 0) {
            if (!many_first_err)
                many_first_err = rc;
            continue;
        }
        for (int j = 0; j < many_ok; j++)
            if (pthread_equal(seen[j], t))
                many_first_err = -1; /* a handle handed out twice */
        seen[many_ok++] = t;
    }
    for (int j = 0; j < many_ok; j++)
        pthread_join(seen[j], NULL);
    return NULL;
}

static void test_too_many(void)
{
    struct tally t = explore(many_body, 0, NULL, NULL);
    print_outcomes("too many threads", &t);
    CHECK(t.executions >= 1, "ran");
    /* not EAGAIN, which the program would never get outside lineup: the
     * execution ends as unsupported at the create that goes past the bound */
    CHECK(many_ok == LU_SCHED_MAX_THREADS - 1 && many_first_err == 0 &&
              t.outcome[LU_SCHED_OUT_UNSUPPORTED] == t.executions,
          "creation beyond %d threads ends the execution as unsupported (ok %d, first error %d, %llu of %llu "
          "unsupported)",
          LU_SCHED_MAX_THREADS, many_ok, many_first_err,
          (unsigned long long)t.outcome[LU_SCHED_OUT_UNSUPPORTED], (unsigned long long)t.executions);
}

/* The pool thread behind a created thread cannot start (here: no address
 * space for its stack): the program must not see an EAGAIN it never gets
 * outside lineup, the execution ends as ERROR naming the limit. In a child
 * process, which the limit would cripple. */
static char pool_msg[400];

static void pool_check(const struct lu_sched_result *res, void *ctx)
{
    (void)ctx;
    if (res->outcome == LU_SCHED_OUT_ERROR && res->message && !pool_msg[0])
        snprintf(pool_msg, sizeof pool_msg, "%s", res->message);
}

static void test_pool_limit(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        unsigned long pages = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        if (!f || fscanf(f, "%lu", &pages) != 1)
            _exit(2);
        fclose(f);
        /* room for a few 8 MB stacks, not for 64; lowered after the
         * library started, as code under test would, which the message
         * says instead of advising ulimit */
        rlim_t now = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
        struct rlimit rl = {now + (40u << 20), now + (40u << 20)};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(2);
        struct tally t = explore(many_body, 0, pool_check, NULL);
        print_outcomes("pool thread cannot start", &t);
        bool ok = t.executions >= 1 && t.outcome[LU_SCHED_OUT_ERROR] == t.executions && many_first_err == 0 &&
                  strstr(pool_msg, "cannot start a thread: ") && strstr(pool_msg, "RLIMIT_AS is ") &&
                  strstr(pool_msg, "lowered by the code under test (setrlimit) from ") &&
                  !strstr(pool_msg, "raise it with ulimit -v");
        printf("  message: %s (created %d, first error %d)\n", pool_msg, many_ok, many_first_err);
        fflush(NULL);
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "a pool thread that cannot start ends the execution as ERROR naming RLIMIT_AS, no EAGAIN (status "
          "%#x)",
          (unsigned)st);
}

/* ======================================================= mutex kinds, trylock, timedlock */

static int mk_rc[12];
static pthread_mutex_t mk_m, mk_r, mk_e;
static pthread_mutex_t mk_static_rec = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void *mk_other(void *arg)
{
    (void)arg;
    mk_rc[8] = pthread_mutex_unlock(&mk_e); /* not the owner */
    mk_rc[9] = pthread_mutex_trylock(&mk_m);
    struct timespec ts = {1, 0};
    mk_rc[10] = pthread_mutex_timedlock(&mk_m, &ts);
    if (mk_rc[9] == 0)
        pthread_mutex_unlock(&mk_m);
    if (mk_rc[10] == 0)
        pthread_mutex_unlock(&mk_m);
    return NULL;
}

static void *mk_body(void *arg)
{
    (void)arg;
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutex_init(&mk_m, NULL);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&mk_r, &a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&mk_e, &a);
    pthread_mutexattr_destroy(&a);

    mk_rc[0] = pthread_mutex_lock(&mk_r);
    mk_rc[1] = pthread_mutex_lock(&mk_r);
    mk_rc[2] = pthread_mutex_unlock(&mk_r);
    mk_rc[3] = pthread_mutex_unlock(&mk_r);
    mk_rc[4] = pthread_mutex_unlock(&mk_r); /* not held any more */
    mk_rc[5] = pthread_mutex_lock(&mk_e);
    mk_rc[6] = pthread_mutex_lock(&mk_e);
    /* glibc looks at the time only when it must wait: a free mutex is taken */
    struct timespec bad = {0, 1000000000L};
    mk_rc[7] = pthread_mutex_timedlock(&mk_m, &bad);
    if (mk_rc[7] == 0)
        pthread_mutex_unlock(&mk_m);

    pthread_mutex_lock(&mk_m);
    pthread_t t;
    pthread_create(&t, NULL, mk_other, NULL);
    step(0);
    pthread_mutex_unlock(&mk_m);
    pthread_join(t, NULL);
    pthread_mutex_unlock(&mk_e);
    mk_rc[11] = pthread_mutex_destroy(&mk_m);
    pthread_mutex_destroy(&mk_r);
    pthread_mutex_destroy(&mk_e);
    return NULL;
}

struct mk_ctx {
    int bad, try_busy, try_ok, timed_out, timed_ok;
};

static void mk_check(const struct lu_sched_result *r, void *ctx)
{
    struct mk_ctx *c = ctx;
    if (r->outcome != LU_SCHED_OUT_COMPLETE || mk_rc[0] || mk_rc[1] || mk_rc[2] || mk_rc[3] ||
        mk_rc[4] != EPERM || mk_rc[5] || mk_rc[6] != EDEADLK || mk_rc[7] != 0 || mk_rc[8] != EPERM ||
        mk_rc[11] != 0) {
        if (!c->bad)
            printf("  mutex kinds: outcome %d rc %d %d %d %d %d %d %d %d %d %d\n", r->outcome, mk_rc[0],
                   mk_rc[1], mk_rc[2], mk_rc[3], mk_rc[4], mk_rc[5], mk_rc[6], mk_rc[7], mk_rc[8], mk_rc[11]);
        c->bad++;
    }
    if (mk_rc[9] == EBUSY)
        c->try_busy++;
    else if (mk_rc[9] == 0)
        c->try_ok++;
    if (mk_rc[10] == ETIMEDOUT)
        c->timed_out++;
    else if (mk_rc[10] == 0)
        c->timed_ok++;
}

static int rec_rc[4];

static void *static_rec_body(void *arg)
{
    (void)arg;
    rec_rc[0] = pthread_mutex_lock(&mk_static_rec);
    rec_rc[1] = pthread_mutex_lock(&mk_static_rec);
    rec_rc[2] = pthread_mutex_unlock(&mk_static_rec);
    rec_rc[3] = pthread_mutex_unlock(&mk_static_rec);
    return NULL;
}

static void test_mutex_kinds(void)
{
    struct mk_ctx c;
    memset(&c, 0, sizeof c);
    struct tally t = explore(mk_body, -1, mk_check, &c);
    print_outcomes("mutex kinds/trylock/timedlock", &t);
    CHECK(all_complete(&t), "mutex kinds scenario completes");
    CHECK(c.bad == 0, "recursive, errorcheck and invalid-abstime results (%d bad)", c.bad);
    CHECK(c.try_busy > 0 && c.try_ok > 0, "trylock is both busy and free (%d/%d)", c.try_busy, c.try_ok);
    CHECK(c.timed_out > 0 && c.timed_ok > 0, "timedlock both times out and locks (%d/%d)", c.timed_out,
          c.timed_ok);

    if (lu_sched_known) {
        t = explore(static_rec_body, -1, NULL, NULL);
        CHECK(all_complete(&t) && !rec_rc[0] && !rec_rc[1] && !rec_rc[2] && !rec_rc[3],
              "static recursive initializer is adopted as recursive");
    } else {
        printf("  (skipped: static recursive initializer needs lu_sched_known)\n");
    }
}

/* ======================================================= rwlock */

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int rw_readers, rw_writer, rw_overlap, rw_both_read;

static void *rw_reader(void *arg)
{
    int i = (int)(intptr_t)arg;
    pthread_rwlock_rdlock(&rw);
    rw_readers++;
    if (rw_writer)
        rw_overlap++;
    step(i);
    if (rw_readers == 2)
        rw_both_read = 1;
    rw_readers--;
    pthread_rwlock_unlock(&rw);
    return NULL;
}

static void *rw_writer_fn(void *arg)
{
    (void)arg;
    pthread_rwlock_wrlock(&rw);
    rw_writer = 1;
    if (rw_readers)
        rw_overlap++;
    step(3);
    rw_writer = 0;
    pthread_rwlock_unlock(&rw);
    return NULL;
}

static void *rw_body(void *arg)
{
    (void)arg;
    rw_readers = rw_writer = rw_overlap = rw_both_read = 0;
    pthread_t t[3];
    pthread_create(&t[0], NULL, rw_reader, (void *)1);
    pthread_create(&t[1], NULL, rw_reader, (void *)2);
    pthread_create(&t[2], NULL, rw_writer_fn, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    return NULL;
}

static void rw_check(const struct lu_sched_result *r, void *ctx)
{
    int *c = ctx;
    if (r->outcome != LU_SCHED_OUT_COMPLETE || rw_overlap)
        c[0]++;
    c[1] += rw_both_read;
}

static void test_rwlock(void)
{
    int c[2] = {0, 0};
    struct tally t = explore(rw_body, 2, rw_check, c);
    print_outcomes("rwlock 2 readers, 1 writer", &t);
    CHECK(all_complete(&t), "rwlock completes in every execution");
    CHECK(c[0] == 0, "writer excludes readers (%d bad)", c[0]);
    CHECK(c[1] > 0, "readers share the lock in some execution");
}

/* glibc's rules beyond exclusion: nested read locks, the writer relocking,
 * and the writer-preferring kind. */
static pthread_rwlock_t rwk_dyn, rwk_srw = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
static pthread_rwlock_t *rwk_p = &rwk_dyn;
#define rwk (*rwk_p)
static bool rwk_static;
static int rwk_rc[4];

static void *rwk_writer(void *arg)
{
    (void)arg;
    pthread_rwlock_wrlock(&rwk);
    pthread_rwlock_unlock(&rwk);
    return NULL;
}

/* A default-kind lock, made anew in each execution. */
static void rwk_fresh(void)
{
    rwk_p = &rwk_dyn;
    pthread_rwlock_init(&rwk, NULL);
}

/* Read twice, unlock twice: the lock is free again for a writer. */
static void *rwk_nested_body(void *arg)
{
    (void)arg;
    rwk_fresh();
    rwk_rc[0] = pthread_rwlock_rdlock(&rwk) | pthread_rwlock_rdlock(&rwk);
    rwk_rc[1] = pthread_rwlock_unlock(&rwk) | pthread_rwlock_unlock(&rwk);
    rwk_rc[2] = pthread_rwlock_unlock(&rwk); /* not held any more */
    pthread_t w;
    pthread_create(&w, NULL, rwk_writer, NULL);
    pthread_join(w, NULL);
    return NULL;
}

static void *rwk_writer_relock_body(void *arg)
{
    (void)arg;
    rwk_fresh();
    pthread_rwlock_wrlock(&rwk);
    rwk_rc[0] = pthread_rwlock_rdlock(&rwk);
    rwk_rc[1] = pthread_rwlock_wrlock(&rwk);
    rwk_rc[2] = pthread_rwlock_tryrdlock(&rwk);
    pthread_rwlock_unlock(&rwk);
    return NULL;
}

/* A reader asking for the write lock waits for itself (glibc: forever). */
static void *rwk_upgrade_body(void *arg)
{
    (void)arg;
    rwk_fresh();
    pthread_rwlock_rdlock(&rwk);
    rwk_rc[0] = pthread_rwlock_trywrlock(&rwk);
    pthread_rwlock_wrlock(&rwk);
    return NULL;
}

static int rwk_kind;

static void rwk_init(void)
{
    rwk_p = rwk_static ? &rwk_srw : &rwk_dyn;
    if (rwk_static)
        return;
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setkind_np(&a, rwk_kind);
    pthread_rwlock_init(&rwk, &a);
    pthread_rwlockattr_destroy(&a);
}

static void *rwk_try_reader(void *arg)
{
    (void)arg;
    int rc = pthread_rwlock_tryrdlock(&rwk);
    rwk_rc[0] = rc;
    if (rc == 0)
        pthread_rwlock_unlock(&rwk);
    return NULL;
}

/* main reads; a writer comes; a second reader tries: with writers
 * preferred it is turned away once the writer has registered. */
static void *rwk_pref_body(void *arg)
{
    (void)arg;
    rwk_init();
    rwk_rc[0] = -1;
    pthread_rwlock_rdlock(&rwk);
    pthread_t w, r;
    pthread_create(&w, NULL, rwk_writer, NULL);
    pthread_create(&r, NULL, rwk_try_reader, NULL);
    pthread_join(r, NULL);
    pthread_rwlock_unlock(&rwk);
    pthread_join(w, NULL);
    return NULL;
}

/* The reader nests a read lock while a writer waits: with writers
 * preferred that deadlocks (hence glibc's "nonrecursive"). */
static void *rwk_pref_nested_body(void *arg)
{
    (void)arg;
    rwk_init();
    pthread_rwlock_rdlock(&rwk);
    pthread_t w;
    pthread_create(&w, NULL, rwk_writer, NULL);
    pthread_rwlock_rdlock(&rwk);
    pthread_rwlock_unlock(&rwk);
    pthread_rwlock_unlock(&rwk);
    pthread_join(w, NULL);
    return NULL;
}

static void rwk_count(const struct lu_sched_result *r, void *ctx)
{
    int *c = ctx;
    (void)r;
    if (rwk_rc[0] == 0)
        c[0]++;
    if (rwk_rc[0] == EBUSY)
        c[1]++;
}

static void rwk_same(const struct lu_sched_result *r, void *ctx)
{
    int *c = ctx;
    (void)r;
    c[0] += rwk_rc[0] == 0 && rwk_rc[1] == 0 && rwk_rc[2] == EPERM;
}

static void rwk_relock(const struct lu_sched_result *r, void *ctx)
{
    int *c = ctx;
    (void)r;
    c[0] += rwk_rc[0] == EDEADLK && rwk_rc[1] == EDEADLK && rwk_rc[2] == EBUSY;
}

static void test_rwlock_kinds(void)
{
    int c[2] = {0, 0};
    struct tally t = explore(rwk_nested_body, -1, rwk_same, c);
    print_outcomes("rwlock nested read locks", &t);
    CHECK(all_complete(&t) && c[0] == (int)t.executions,
          "two read locks need two unlocks, then a writer gets the lock (%d of %llu)", c[0],
          (unsigned long long)t.executions);

    c[0] = 0;
    t = explore(rwk_writer_relock_body, -1, rwk_relock, c);
    CHECK(all_complete(&t) && c[0] == (int)t.executions,
          "the writer relocking gets EDEADLK, and EBUSY from tryrdlock, as in glibc");

    rwk_rc[0] = -1;
    t = explore(rwk_upgrade_body, -1, NULL, NULL);
    CHECK(t.executions == 1 && t.outcome[LU_SCHED_OUT_DEADLOCK] == 1 && rwk_rc[0] == EBUSY,
          "a reader's wrlock waits for itself: a deadlock, not EDEADLK");

    for (int k = 0; k < 2; k++) {
        rwk_kind = k ? PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP : PTHREAD_RWLOCK_PREFER_READER_NP;
        c[0] = c[1] = 0;
        t = explore(rwk_pref_body, -1, rwk_count, c);
        printf("  rwlock kind %d: tryrdlock 0 in %d, EBUSY in %d of %llu executions\n", rwk_kind, c[0], c[1],
               (unsigned long long)t.executions);
        CHECK(all_complete(&t) && c[0] > 0, "kind %d: tryrdlock succeeds while only readers hold the lock",
              rwk_kind);
        if (k)
            CHECK(c[1] > 0, "writer preferred: tryrdlock is EBUSY once a writer waits");
        else
            CHECK(c[1] == 0, "readers preferred: tryrdlock never fails while only readers hold the lock");

        t = explore(rwk_pref_nested_body, -1, NULL, NULL);
        print_outcomes(k ? "rwlock writer-pref nesting" : "rwlock reader-pref nesting", &t);
        if (k)
            CHECK(t.outcome[LU_SCHED_OUT_DEADLOCK] > 0 && t.outcome[LU_SCHED_OUT_COMPLETE] > 0,
                  "writer preferred: a nested read lock deadlocks when a writer waits, completes otherwise");
        else
            CHECK(all_complete(&t), "readers preferred: nested read locks never deadlock");
    }

    /* a static initializer's kind is read from the lock's memory */
    rwk_static = true;
    c[0] = c[1] = 0;
    t = explore(rwk_pref_body, -1, rwk_count, c);
    rwk_static = false;
    if (lu_sched_known)
        CHECK(all_complete(&t) && c[0] > 0 && c[1] > 0,
              "PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP is adopted as writer-preferring");
    else
        printf("  (skipped: static rwlock initializer needs lu_sched_known)\n");
}

/* ======================================================= thread-specific data */

static pthread_key_t tsd_key;
static int tsd_dtor_calls, tsd_bad;
static int tsd_vals[3];

static void tsd_dtor(void *v)
{
    (void)v;
    tsd_dtor_calls++;
}

static void *tsd_worker(void *arg)
{
    int i = (int)(intptr_t)arg;
    if (pthread_getspecific(tsd_key) != NULL || pthread_getspecific(foreign_key) != NULL)
        tsd_bad++;
    pthread_setspecific(tsd_key, &tsd_vals[i]);
    pthread_setspecific(foreign_key, &tsd_vals[i]);
    step(i);
    if (pthread_getspecific(tsd_key) != &tsd_vals[i] || pthread_getspecific(foreign_key) != &tsd_vals[i])
        tsd_bad++;
    return NULL;
}

static void *tsd_body(void *arg)
{
    (void)arg;
    tsd_dtor_calls = tsd_bad = 0;
    if (pthread_key_create(&tsd_key, tsd_dtor) != 0)
        tsd_bad += 100;
    /* set outside control in main: every execution starts without it */
    if (pthread_getspecific(foreign_key) != NULL)
        tsd_bad += 1000;
    pthread_setspecific(foreign_key, &tsd_vals[0]);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, tsd_worker, (void *)(intptr_t)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    if (pthread_getspecific(foreign_key) != &tsd_vals[0])
        tsd_bad += 10000;
    return NULL;
}

static void tsd_check(const struct lu_sched_result *r, void *ctx)
{
    int *bad = ctx;
    if (r->outcome != LU_SCHED_OUT_COMPLETE || tsd_bad || tsd_dtor_calls != 2) {
        if (!*bad)
            printf("  tsd: outcome %d bad %d dtors %d\n", r->outcome, tsd_bad, tsd_dtor_calls);
        (*bad)++;
    }
}

static void test_tsd(void)
{
    int bad = 0;
    struct tally t = explore(tsd_body, -1, tsd_check, &bad);
    print_outcomes("thread-specific data", &t);
    CHECK(all_complete(&t) && bad == 0, "keys are per thread, per execution, destructors run (%d bad)", bad);
    CHECK(pthread_getspecific(foreign_key) == &foreign_key,
          "main's own value of the foreign key is untouched");
}

/* ======================================================= sleeping */

static int sl_rc[6];

static void *sleep_body(void *arg)
{
    (void)arg;
    struct timespec d = {5, 0};
    sl_rc[0] = (int)sleep(5);
    sl_rc[1] = usleep(999999);
    sl_rc[2] = nanosleep(&d, NULL);
    sl_rc[3] = clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
    sl_rc[4] = sched_yield();
    sl_rc[5] = thrd_sleep(&d, NULL);
    return NULL;
}

static void test_sleep(void)
{
    double t0 = now_s();
    struct tally t = explore(sleep_body, -1, NULL, NULL);
    double dt = now_s() - t0;
    CHECK(all_complete(&t), "sleep scenario completes");
    CHECK(dt < 2.0, "time does not pass under lineup (%.3f s)", dt);
    CHECK(!sl_rc[0] && !sl_rc[1] && !sl_rc[2] && !sl_rc[3] && !sl_rc[4] && !sl_rc[5],
          "sleeps return success");
}

/* ======================================================= spin loops on trylock and yield */

static pthread_mutex_t sp_m = PTHREAD_MUTEX_INITIALIZER;
static volatile int sp_flag;
static int sp_mode; /* 0: holder releases, 1: holder never releases */

static void *sp_spinner(void *arg)
{
    (void)arg;
    while (pthread_mutex_trylock(&sp_m) == EBUSY)
        ;
    pthread_mutex_unlock(&sp_m);
    while (!sp_flag)
        sched_yield();
    return NULL;
}

static void *sp_body(void *arg)
{
    (void)arg;
    sp_flag = 0;
    pthread_mutex_lock(&sp_m);
    pthread_t t;
    pthread_create(&t, NULL, sp_spinner, NULL);
    step(0);
    if (sp_mode == 1) {
        pthread_join(t, NULL); /* never: the spinner waits for sp_m */
        return NULL;
    }
    pthread_mutex_unlock(&sp_m);
    step(0);
    sp_flag = 1;
    sem_t s; /* a visible operation after the plain store */
    sem_init(&s, 0, 1);
    sem_wait(&s);
    pthread_join(t, NULL);
    return NULL;
}

static void test_spin(void)
{
    sp_mode = 0;
    struct tally t = explore(sp_body, 2, NULL, NULL);
    print_outcomes("trylock/yield spin loops", &t);
    CHECK(all_complete(&t), "spin loops on trylock and sched_yield complete in every execution");
    sp_mode = 1;
    t = explore(sp_body, 2, NULL, NULL);
    print_outcomes("trylock spin, never released", &t);
    CHECK(t.executions > 0 && t.outcome[LU_SCHED_OUT_LIVELOCK] == t.executions,
          "a trylock loop on a lock never released is a livelock");
}

/* ======================================================= unsupported calls */

static void *cancel_body(void *arg)
{
    (void)arg;
    pthread_cancel(pthread_self());
    return NULL;
}

static void *fork_body(void *arg)
{
    (void)arg;
    if (fork() == 0)
        _exit(0); /* not reached: fork is unsupported under control */
    return NULL;
}

static void unsup_check(const struct lu_sched_result *r, void *ctx)
{
    const char *want = ctx;
    if (r->outcome != LU_SCHED_OUT_UNSUPPORTED || !r->message || !strstr(r->message, want) || r->culprit != 0)
        printf("  unsupported: outcome %d message %s\n", r->outcome, r->message ? r->message : "(null)");
}

static void test_unsupported(void)
{
    struct tally t = explore(cancel_body, -1, unsup_check, "pthread_cancel");
    CHECK(t.executions == 1 && t.outcome[LU_SCHED_OUT_UNSUPPORTED] == 1,
          "pthread_cancel ends as UNSUPPORTED");
    t = explore(fork_body, -1, unsup_check, "fork");
    CHECK(t.executions == 1 && t.outcome[LU_SCHED_OUT_UNSUPPORTED] == 1, "fork ends as UNSUPPORTED");
}

/* ======================================================= exit from a controlled thread */

static int fatal_pipe[2];
static int exit_how;

static void on_fatal(void *arg, int kind, int code, int tid, uintptr_t pc)
{
    (void)arg;
    int msg[3] = {kind, code, tid};
    ssize_t n = write(fatal_pipe[1], msg, sizeof msg);
    (void)n;
    (void)pc;
}

static int atexit_ran;
static void atexit_handler(void)
{
    /* must never run: the scheduler exits without atexit handlers */
    ssize_t n = write(fatal_pipe[1], "ATEXIT", 6);
    (void)n;
    atexit_ran = 1;
}

static void *exit_child(void *arg)
{
    (void)arg;
    step(1);
    if (exit_how == 0)
        exit(7);
    _exit(9);
}

static void *exit_body(void *arg)
{
    (void)arg;
    pthread_t t;
    pthread_create(&t, NULL, exit_child, NULL);
    pthread_join(t, NULL);
    return NULL;
}

static void test_exit(void)
{
    for (exit_how = 0; exit_how < 2; exit_how++) {
        int want = exit_how == 0 ? 7 : 9;
        if (pipe(fatal_pipe) != 0) {
            CHECK(0, "pipe");
            return;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            close(fatal_pipe[0]);
            atexit(atexit_handler);
            struct lu_sched_config cfg = lu_test_config(LU_SCHED_DFS, -1, lu_test_trace(1024));
            cfg.on_fatal = on_fatal;
            struct lu_sched *s = lu_test_sched(&cfg);
            struct lu_sched_result res;
            lu_sched_run(s, exit_body, NULL, &res);
            _exit(100); /* the execution must not come back */
        }
        close(fatal_pipe[1]);
        int st = 0;
        waitpid(pid, &st, 0);
        int msg[3] = {0, 0, 0};
        ssize_t n = read(fatal_pipe[0], msg, sizeof msg);
        char extra[8];
        ssize_t m = read(fatal_pipe[0], extra, sizeof extra);
        close(fatal_pipe[0]);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == want,
              "%s in a controlled thread ends the process with %d (%d)", exit_how ? "_exit" : "exit", want,
              WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        CHECK(n == (ssize_t)sizeof msg && msg[0] == LU_SCHED_FATAL_EXIT && msg[1] == want && msg[2] == 1,
              "on_fatal reports exit(%d) by thread 1 (%d %d %d)", want, msg[0], msg[1], msg[2]);
        CHECK(m == 0, "no atexit handler ran");
    }
}

/* ======================================================= C11 threads */

static mtx_t c11_m;
static cnd_t c11_c;
static int c11_ready, c11_got;

static int c11_waiter(void *arg)
{
    (void)arg;
    mtx_lock(&c11_m);
    while (!c11_ready)
        cnd_wait(&c11_c, &c11_m);
    c11_got = c11_ready;
    mtx_unlock(&c11_m);
    return 5;
}

static int c11_signaller(void *arg)
{
    (void)arg;
    mtx_lock(&c11_m);
    c11_ready = 3;
    cnd_signal(&c11_c);
    mtx_unlock(&c11_m);
    thrd_exit(6);
}

static int c11_res[2];
static thrd_t c11_self;

static void *c11_body(void *arg)
{
    (void)arg;
    c11_ready = c11_got = 0;
    mtx_init(&c11_m, mtx_plain);
    cnd_init(&c11_c);
    c11_self = thrd_current();
    thrd_t w, s;
    thrd_create(&w, c11_waiter, NULL);
    thrd_create(&s, c11_signaller, NULL);
    thrd_join(w, &c11_res[0]);
    thrd_join(s, &c11_res[1]);
    cnd_destroy(&c11_c);
    mtx_destroy(&c11_m);
    return NULL;
}

static void c11_check(const struct lu_sched_result *r, void *ctx)
{
    int *bad = ctx;
    if (r->outcome != LU_SCHED_OUT_COMPLETE || c11_got != 3 || c11_res[0] != 5 || c11_res[1] != 6)
        (*bad)++;
}

static mtx_t c11_a, c11_b;

static int c11_ab(void *arg)
{
    (void)arg;
    mtx_lock(&c11_a);
    mtx_lock(&c11_b);
    mtx_unlock(&c11_b);
    mtx_unlock(&c11_a);
    return 0;
}

static int c11_ba(void *arg)
{
    (void)arg;
    mtx_lock(&c11_b);
    mtx_lock(&c11_a);
    mtx_unlock(&c11_a);
    mtx_unlock(&c11_b);
    return 0;
}

static void *c11_inv_body(void *arg)
{
    (void)arg;
    mtx_init(&c11_a, mtx_plain);
    mtx_init(&c11_b, mtx_plain);
    thrd_t t1, t2;
    thrd_create(&t1, c11_ab, NULL);
    thrd_create(&t2, c11_ba, NULL);
    thrd_join(t1, NULL);
    thrd_join(t2, NULL);
    return NULL;
}

static void test_c11(void)
{
    int bad = 0;
    struct tally t = explore(c11_body, -1, c11_check, &bad);
    print_outcomes("C11 mtx/cnd/thrd", &t);
    CHECK(all_complete(&t) && bad == 0, "C11 threads scenario completes with the right results (%d bad)",
          bad);
    CHECK(is_fake_handle((pthread_t)c11_self), "thrd_current under control is a lineup handle");

    int found = 0;
    t = explore(c11_inv_body, -1, inv_check, &found);
    print_outcomes("C11 lock-order inversion", &t);
    CHECK(found > 0, "C11 mutex inversion deadlock is found");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 0; i < 8; i++)
        pthread_mutex_init(&step_m[i], NULL);

    test_uncontrolled();
    test_inversion();
    test_counter();
    test_semaphores();
    test_barrier();
    test_once();
    test_cond();
    test_threads();
    test_mutex_kinds();
    test_rwlock();
    test_rwlock_kinds();
    test_tsd();
    test_sleep();
    test_spin();
    test_unsupported();
    test_c11();
    test_too_many();
    test_pool_limit();
    test_exit();

    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
