/*
 * Waits that poll, and objects with a thread of their own beside a wait:
 * lineup must see a wait that never ends as stuck (a serial order where it
 * runs first is specified behaviour), not run it until the cap of
 * scheduling points and report a divergence. Until session 28 every one of
 * the correct harnesses below was reported as a divergence (exit 1).
 * Each is selected with --harness:
 *   event       a one-shot event; wait_yield() takes and releases the lock to
 *               look at the flag and calls lineup_yield() between looks;
 *               wait_timed() retries a pthread_cond_timedwait that gives up;
 *               wait_try() looks only when a trylock takes the lock;
 *               set_slow() sleeps 400 times before it sets the flag (the
 *               pollers' turns meanwhile were counted against the one
 *               poller left running, and the test was a livelock).
 *               Correct: two waiters that poll one lock at once, with
 *               nobody to set the flag, pass it back and forth for good;
 *   event_lost  set() forgets the flag on its contended path (trylock
 *               fails): a wait that never ends where serially it returns;
 *   token       take() polls under the lock until a token is there and takes
 *               it; put() adds one. Correct: of two takers, either one gets
 *               the token (both orders are distinct histories);
 *   token_race  take() looks for the token and takes it under two separate
 *               holds of the lock: two takers polling when put() comes can
 *               both see it and both take it, which only a schedule where
 *               both look at the news before either takes shows;
 *   ticker      create() starts a thread that counts ticks (an atomic add,
 *               then usleep) until destroy() stops it; wait_flag() blocks on
 *               a condition variable until set_flag(). Correct;
 *   tickpoll_lost  the same ticker; poll_flag() polls the flag under the
 *               lock and yields, set_lost() forgets it when its trylock
 *               fails (as event_lost): the ticker's ticks stir the settled
 *               poller only in the first quarter of the livelock count, or
 *               every round branches (the default budget of 20,000 ran
 *               out where 2,015 executions had covered the bound before
 *               stirs; 3,317 with the quarter);
 *   tickleak    the same ticker, and bump() leaks its lock on the contended
 *               path: get() after it blocks for good while the ticker runs,
 *               a deadlock of the test's calls, not a livelock;
 *               tickleak_plain: its ticks are a plain count under the lock;
 *   deadline    a timer whose thread ticks (an atomic add, then usleep) and
 *               wakes sleep_for() calls DEADLINE ticks after they began,
 *               with pthread_cond_signal where two sleepers need a
 *               broadcast (a bug). A wait of 1500 ticks is taken for stuck
 *               at the default --spin-bound (the note says so), and the bug
 *               is found under --spin-bound 3000;
 *   worker      create() starts a worker that serves requests: each round
 *               it takes the lock with a trylock (skipping the round when
 *               it is busy), serves what is pending, and sleeps twice;
 *               request() registers a request under the lock and polls
 *               for it. Correct: a first take at turns among settled
 *               threads switched at every step, which put the worker's
 *               trylock right after the poller's lock at every turn, a
 *               livelock of a schedule no fair scheduler keeps up;
 *               worker_drop: the worker drops the pending request when its
 *               trylock finds the lock busy (racy), a request never served;
 *   parity      hold() polls a flag with the lock held across a sleep (a
 *               look inside its critical section), set_try2() retries a
 *               trylock with two sleeps a round: fixed turns among the
 *               spinners met the lock held at every trylock, a livelock
 *               no fair scheduler keeps up (an audit's);
 *   scan        total() backs off twice (two sleeps: two looks with no news
 *               between), then sums 16 striped counters under their locks
 *               40 times: 1,280 quiet steps that a first take at settled
 *               threads counted as spins, a livelock of a correct object;
 *               bump() yields, then counts under a lock total() leaves;
 *   churn       an operation that raises a counter and yields, for good:
 *               it changes memory at every turn, a divergence;
 *   semlock     the event with a binary semaphore as its lock (sem_wait,
 *               look, sem_post, lineup_yield()). Correct: a divergence
 *               until session 29, when only a failing sem_trywait was quiet;
 *               semlock_lost: set forgets the flag when its sem_trywait
 *               fails, a wait that never ends;
 *   nolook      the event's wait with no look at all (lock, look at the
 *               flag, unlock, again): nothing tells it from a loop that
 *               makes progress, and it is still a divergence (a known
 *               limit: the report says what loops are seen as waits);
 *   future      get() starts a thread that counts ten steps of work (an
 *               atomic add, then usleep), then publishes a result and a
 *               state; get() polls, reading the result and then the state
 *               under two holds of its lock, and yields. The state can come
 *               between the two reads, and get() returns the result it read
 *               before (a bug): missed until session 29, the work being
 *               steps of a thread that takes no turns, which left the
 *               settled poller's rounds whole; future_ok reads the state
 *               first. Correct;
 *   semposts    get(n) starts a thread that counts ten steps of work (as
 *               future's), sleeps n times and then posts
 *               two semaphores, a result and then a state; get() tries the
 *               result and then the state with sem_trywait (putting back a
 *               token it takes) and yields. Both posts can come between the
 *               two tries, and get() returns no result (a bug): missed
 *               until session 30 for 3, 5, 9 and 30 sleeps, where the
 *               poller, which spun while the worker slept, stood before
 *               its first try when the posts came (0 is found in phase 2,
 *               16 as nondeterminism in phase 1); semposts_ok tries the
 *               state first. Correct; flagposts: the same with two atomic
 *               flags that get() loads;
 *   handoff     a semaphore that hands a token straight to a registered
 *               waiter: post() under the lock gives it to a waiter (and
 *               signals) or counts it; twait() waits with
 *               pthread_cond_timedwait until handed one, or gives up. On
 *               ETIMEDOUT it unregisters and returns 0 without looking
 *               whether a post handed it the token after its deadline and
 *               before it got the lock back (a bug: the token is lost).
 *               Missed until session 30: giving up was one step with taking
 *               the lock back, so the deadline never passed while post()
 *               held it; handoff_ok looks. Correct;
 *   ttake       a queue whose take() waits with pthread_cond_timedwait in
 *               a retry loop: two takes of an empty queue are stuck, as
 *               serially. While the other held the lock, a wait could give
 *               up at every step (a first take at handoff's fix): a
 *               divergence under POS, and dfs ran 168 executions at bound 2
 *               where 21 cover it; now only before the holder's signal;
 *   trypoll     poll() tries two locks in each of three rounds, sleeping
 *               between (it is idle); hold() takes the lock (reading an atomic under
 *               it), then adds to a counter;
 *               cas() sets the counter from 0. Not linearizable (poll's
 *               count of its tries is its result); the test is how many
 *               distinct histories the search meets: the prefix-trace
 *               cache, which names nodes by their trace, missed one while
 *               poll was idle (an audit's random harness; the cache is off
 *               there since session 30);
 *   flags       wait_any() looks at 24 atomic flags under the lock each
 *               round and yields; set_last() sets the last. Correct: a
 *               divergence while an idle thread remembered 8 locations
 *               (until session 29), or 16 (until session 32; 32 now);
 *   timedlost   wait() looks at the flag, then takes the lock and retries
 *               a timed wait for good; a lost wakeup whose report lists
 *               hundreds of timeouts (16 of them since session 32).
 */
#include <lineup.h>

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* ---- event, event_lost ---- */

struct event {
    pthread_mutex_t m;
    pthread_cond_t c;
    int ready;
};

static void *event_create(void)
{
    struct event *e = calloc(1, sizeof *e);
    if (e) {
        pthread_mutex_init(&e->m, NULL);
        pthread_cond_init(&e->c, NULL);
    }
    return e;
}

static int64_t event_set(void *o, int64_t unused)
{
    struct event *e = o;
    (void)unused;
    pthread_mutex_lock(&e->m);
    e->ready = 1;
    pthread_cond_broadcast(&e->c);
    pthread_mutex_unlock(&e->m);
    return 0;
}

static int64_t event_set_slow(void *o, int64_t unused)
{
    for (int i = 0; i < 400; i++)
        usleep(1000);
    return event_set(o, unused);
}

static int64_t event_set_lost(void *o, int64_t unused)
{
    struct event *e = o;
    (void)unused;
    if (pthread_mutex_trylock(&e->m) == 0) {
        e->ready = 1;
        pthread_mutex_unlock(&e->m);
        return 0;
    }
    pthread_mutex_lock(&e->m); /* BUG: the flag is not set on this path */
    pthread_mutex_unlock(&e->m);
    return 0;
}

static int64_t event_wait_yield(void *o, int64_t unused)
{
    struct event *e = o;
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&e->m);
        int r = e->ready;
        pthread_mutex_unlock(&e->m);
        if (r)
            return 1;
        lineup_yield();
    }
}

static int64_t event_wait_timed(void *o, int64_t unused)
{
    struct event *e = o;
    (void)unused;
    pthread_mutex_lock(&e->m);
    while (!e->ready) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&e->c, &e->m, &ts);
    }
    pthread_mutex_unlock(&e->m);
    return 2;
}

static int64_t event_wait_try(void *o, int64_t unused)
{
    struct event *e = o;
    (void)unused;
    for (;;) {
        if (pthread_mutex_trylock(&e->m) == 0) {
            int r = e->ready;
            pthread_mutex_unlock(&e->m);
            if (r)
                return 3;
        }
        lineup_yield();
    }
}

static void event_destroy(void *o)
{
    struct event *e = o;
    pthread_cond_destroy(&e->c);
    pthread_mutex_destroy(&e->m);
    free(e);
}

LINEUP_HARNESS(event, event_create, event_destroy, LINEUP_OP(event_wait_yield, 0),
               LINEUP_OP(event_wait_timed, 0), LINEUP_OP(event_wait_try, 0), LINEUP_OP(event_set, 0),
               LINEUP_OP(event_set_slow, 0));
LINEUP_HARNESS(event_lost, event_create, event_destroy, LINEUP_OP(event_wait_yield, 0),
               LINEUP_OP(event_set_lost, 0));

/* ---- token, token_race ---- */

static int64_t token_take(void *o, int64_t unused)
{
    struct event *e = o;
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&e->m);
        if (e->ready > 0) {
            e->ready--;
            pthread_mutex_unlock(&e->m);
            return 1;
        }
        pthread_mutex_unlock(&e->m);
        lineup_yield();
    }
}

static int64_t token_take_race(void *o, int64_t unused)
{
    struct event *e = o;
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&e->m);
        int seen = e->ready;
        pthread_mutex_unlock(&e->m);
        if (seen > 0) {
            pthread_mutex_lock(&e->m); /* BUG: another taker may have taken it meanwhile */
            e->ready--;
            pthread_mutex_unlock(&e->m);
            return 1;
        }
        lineup_yield();
    }
}

static int64_t token_put(void *o, int64_t unused)
{
    struct event *e = o;
    (void)unused;
    pthread_mutex_lock(&e->m);
    e->ready++;
    pthread_mutex_unlock(&e->m);
    return 0;
}

LINEUP_HARNESS(token, event_create, event_destroy, LINEUP_OP(token_take, 0), LINEUP_OP(token_put, 0));
LINEUP_HARNESS(token_race, event_create, event_destroy, LINEUP_OP(token_take_race, 0),
               LINEUP_OP(token_put, 0));

/* ---- ticker, tickleak ---- */

struct ticker {
    pthread_mutex_t m;
    pthread_cond_t c;
    int flag;
    long v;
    atomic_int stop;
    atomic_long ticks;
    bool plain; /* ticks counted in plain_ticks, under tm */
    pthread_mutex_t tm;
    long plain_ticks;
    pthread_t th;
};

static void *ticker_tick(void *arg)
{
    struct ticker *t = arg;
    while (!atomic_load(&t->stop)) {
        if (t->plain) {
            pthread_mutex_lock(&t->tm);
            t->plain_ticks++;
            pthread_mutex_unlock(&t->tm);
        } else {
            atomic_fetch_add(&t->ticks, 1);
        }
        usleep(1000);
    }
    return NULL;
}

static void *ticker_start(bool plain)
{
    struct ticker *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->plain = plain;
    pthread_mutex_init(&t->tm, NULL);
    pthread_mutex_init(&t->m, NULL);
    pthread_cond_init(&t->c, NULL);
    if (pthread_create(&t->th, NULL, ticker_tick, t) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

static void *ticker_create(void)
{
    return ticker_start(false);
}

static void *ticker_create_plain(void)
{
    return ticker_start(true);
}

static void ticker_destroy(void *o)
{
    struct ticker *t = o;
    atomic_store(&t->stop, 1);
    pthread_join(t->th, NULL);
    free(t);
}

static int64_t ticker_wait_flag(void *o, int64_t unused)
{
    struct ticker *t = o;
    (void)unused;
    pthread_mutex_lock(&t->m);
    while (!t->flag)
        pthread_cond_wait(&t->c, &t->m);
    pthread_mutex_unlock(&t->m);
    return 1;
}

static int64_t ticker_set_flag(void *o, int64_t unused)
{
    struct ticker *t = o;
    (void)unused;
    pthread_mutex_lock(&t->m);
    t->flag = 1;
    pthread_cond_broadcast(&t->c);
    pthread_mutex_unlock(&t->m);
    return 0;
}

static int64_t ticker_bump(void *o, int64_t unused)
{
    struct ticker *t = o;
    (void)unused;
    if (pthread_mutex_trylock(&t->m) == 0) {
        t->v++;
        pthread_mutex_unlock(&t->m);
        return 0;
    }
    pthread_mutex_lock(&t->m);
    t->v++; /* BUG: no unlock on the contended path */
    return 0;
}

static int64_t ticker_get(void *o, int64_t unused)
{
    struct ticker *t = o;
    (void)unused;
    pthread_mutex_lock(&t->m);
    long v = t->v;
    pthread_mutex_unlock(&t->m);
    return v;
}

static int64_t ticker_poll_flag(void *o, int64_t unused)
{
    struct ticker *t = o;
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&t->m);
        int r = t->flag;
        pthread_mutex_unlock(&t->m);
        if (r)
            return 1;
        lineup_yield();
    }
}

static int64_t ticker_set_lost(void *o, int64_t unused)
{
    struct ticker *t = o;
    (void)unused;
    if (pthread_mutex_trylock(&t->m) == 0) {
        t->flag = 1;
        pthread_mutex_unlock(&t->m);
        return 0;
    }
    pthread_mutex_lock(&t->m); /* BUG: the flag is not set on this path */
    pthread_mutex_unlock(&t->m);
    return 0;
}

LINEUP_HARNESS(ticker, ticker_create, ticker_destroy, LINEUP_OP(ticker_wait_flag, 0),
               LINEUP_OP(ticker_set_flag, 0));
LINEUP_HARNESS(tickpoll_lost, ticker_create, ticker_destroy, LINEUP_OP(ticker_poll_flag, 0),
               LINEUP_OP(ticker_set_lost, 0));
LINEUP_HARNESS(tickleak, ticker_create, ticker_destroy, LINEUP_OP(ticker_bump, 0), LINEUP_OP(ticker_get, 0));
LINEUP_HARNESS(tickleak_plain, ticker_create_plain, ticker_destroy, LINEUP_OP(ticker_bump, 0),
               LINEUP_OP(ticker_get, 0));

/* ---- deadline ---- */

#define DEADLINE 1500

struct deadline {
    pthread_mutex_t m;
    pthread_cond_t c;
    long next; /* the earliest deadline asked for, 0: none */
    atomic_long ticks;
    atomic_int stop;
    pthread_t th;
};

static void *deadline_tick(void *arg)
{
    struct deadline *d = arg;
    while (!atomic_load(&d->stop)) {
        atomic_fetch_add(&d->ticks, 1);
        pthread_mutex_lock(&d->m);
        if (d->next && atomic_load(&d->ticks) >= d->next) {
            d->next = 0;
            pthread_cond_signal(&d->c); /* BUG: two sleepers with one deadline need a broadcast */
        }
        pthread_mutex_unlock(&d->m);
        usleep(1000);
    }
    return NULL;
}

static void *deadline_create(void)
{
    struct deadline *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    pthread_mutex_init(&d->m, NULL);
    pthread_cond_init(&d->c, NULL);
    if (pthread_create(&d->th, NULL, deadline_tick, d) != 0) {
        free(d);
        return NULL;
    }
    return d;
}

static void deadline_destroy(void *o)
{
    struct deadline *d = o;
    atomic_store(&d->stop, 1);
    pthread_join(d->th, NULL);
    free(d);
}

static int64_t sleep_for(void *o, int64_t unused)
{
    struct deadline *d = o;
    (void)unused;
    pthread_mutex_lock(&d->m);
    long due = atomic_load(&d->ticks) + DEADLINE;
    while (atomic_load(&d->ticks) < due) {
        if (!d->next || due < d->next)
            d->next = due;
        pthread_cond_wait(&d->c, &d->m);
    }
    pthread_mutex_unlock(&d->m);
    return 1;
}

LINEUP_HARNESS(deadline, deadline_create, deadline_destroy, LINEUP_OP(sleep_for, 0));

/* ---- scan ---- */

#define SCAN_STRIPES 16

struct scan {
    pthread_mutex_t m[SCAN_STRIPES];
    long c[SCAN_STRIPES];
    pthread_mutex_t bm;
    long b;
};

static void *scan_create(void)
{
    struct scan *sc = calloc(1, sizeof *sc);
    if (!sc)
        return NULL;
    for (int i = 0; i < SCAN_STRIPES; i++) {
        pthread_mutex_init(&sc->m[i], NULL);
        sc->c[i] = 1;
    }
    pthread_mutex_init(&sc->bm, NULL);
    return sc;
}

static int64_t scan_total(void *o, int64_t unused)
{
    struct scan *sc = o;
    (void)unused;
    usleep(10); /* back off, twice */
    usleep(10);
    long least = 0;
    for (int r = 0; r < 40; r++) {
        long sum = 0;
        for (int i = 0; i < SCAN_STRIPES; i++) {
            pthread_mutex_lock(&sc->m[i]);
            sum += sc->c[i];
            pthread_mutex_unlock(&sc->m[i]);
        }
        if (r == 0 || sum < least)
            least = sum;
    }
    return least;
}

static int64_t scan_bump(void *o, int64_t unused)
{
    struct scan *sc = o;
    (void)unused;
    lineup_yield();
    pthread_mutex_lock(&sc->bm);
    long r = ++sc->b;
    pthread_mutex_unlock(&sc->bm);
    return r;
}

LINEUP_HARNESS(scan, scan_create, free, LINEUP_OP(scan_total, 0), LINEUP_OP(scan_bump, 0));

/* ---- worker, worker_drop ---- */

struct worker {
    pthread_mutex_t m;
    int pending, done;
    bool drop;
    atomic_int stop;
    pthread_t th;
};

static void *worker_serve(void *arg)
{
    struct worker *w = arg;
    while (!atomic_load(&w->stop)) {
        if (pthread_mutex_trylock(&w->m) == 0) {
            if (w->pending) {
                w->pending = 0;
                w->done++;
            }
            pthread_mutex_unlock(&w->m);
        } else if (w->drop) {
            w->pending = 0; /* BUG: a request dropped, unlocked, when the lock is busy */
        }
        usleep(1000);
        usleep(1000);
    }
    return NULL;
}

static void *worker_start(bool drop)
{
    struct worker *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->drop = drop;
    pthread_mutex_init(&w->m, NULL);
    if (pthread_create(&w->th, NULL, worker_serve, w) != 0) {
        free(w);
        return NULL;
    }
    return w;
}

static void *worker_create(void)
{
    return worker_start(false);
}

static void *worker_create_drop(void)
{
    return worker_start(true);
}

static void worker_destroy(void *o)
{
    struct worker *w = o;
    atomic_store(&w->stop, 1);
    pthread_join(w->th, NULL);
    free(w);
}

static int64_t worker_request(void *o, int64_t unused)
{
    struct worker *w = o;
    (void)unused;
    pthread_mutex_lock(&w->m);
    int want = w->done + 1;
    w->pending = 1;
    pthread_mutex_unlock(&w->m);
    for (;;) {
        pthread_mutex_lock(&w->m);
        int d = w->done;
        pthread_mutex_unlock(&w->m);
        if (d >= want)
            return 1;
        lineup_yield();
    }
}

LINEUP_HARNESS(worker, worker_create, worker_destroy, LINEUP_OP(worker_request, 0));
LINEUP_HARNESS(worker_drop, worker_create_drop, worker_destroy, LINEUP_OP(worker_request, 0));

/* ---- parity ---- */

struct parity {
    pthread_mutex_t m;
    atomic_int flag;
};

static void *parity_create(void)
{
    struct parity *p = calloc(1, sizeof *p);
    if (p)
        pthread_mutex_init(&p->m, NULL);
    return p;
}

static int64_t parity_hold(void *o, int64_t unused)
{
    struct parity *p = o;
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&p->m);
        int f = atomic_load(&p->flag);
        usleep(10); /* a look, the lock held */
        pthread_mutex_unlock(&p->m);
        if (f)
            return 1;
        usleep(10);
    }
}

static int64_t parity_set_try2(void *o, int64_t unused)
{
    struct parity *p = o;
    (void)unused;
    for (;;) {
        if (pthread_mutex_trylock(&p->m) == 0) {
            atomic_store(&p->flag, 1);
            pthread_mutex_unlock(&p->m);
            return 0;
        }
        usleep(10);
        usleep(10);
    }
}

LINEUP_HARNESS(parity, parity_create, free, LINEUP_OP(parity_hold, 0), LINEUP_OP(parity_set_try2, 0));

/* ---- churn ---- */

static void *churn_create(void)
{
    return calloc(1, sizeof(atomic_long));
}

static int64_t churn(void *o, int64_t unused)
{
    (void)unused;
    /* a count that starts at 0 never comes back to -1 */
    while (atomic_fetch_add((atomic_long *)o, 1) != -1)
        lineup_yield();
    return 0;
}

LINEUP_HARNESS(churn, churn_create, free, LINEUP_OP(churn, 0));

/* ---- semlock, semlock_lost ---- */

struct semlock {
    sem_t s; /* a binary semaphore used as the flag's lock */
    int ready;
};

static void *semlock_create(void)
{
    struct semlock *e = calloc(1, sizeof *e);
    if (e)
        sem_init(&e->s, 0, 1);
    return e;
}

static int64_t semlock_wait(void *o, int64_t unused)
{
    struct semlock *e = o;
    (void)unused;
    for (;;) {
        sem_wait(&e->s);
        int r = e->ready;
        sem_post(&e->s);
        if (r)
            return 1;
        lineup_yield();
    }
}

static int64_t semlock_set(void *o, int64_t unused)
{
    struct semlock *e = o;
    (void)unused;
    sem_wait(&e->s);
    e->ready = 1;
    sem_post(&e->s);
    return 0;
}

static int64_t semlock_set_lost(void *o, int64_t unused)
{
    struct semlock *e = o;
    (void)unused;
    if (sem_trywait(&e->s) == 0) {
        e->ready = 1;
        sem_post(&e->s);
        return 0;
    }
    sem_wait(&e->s); /* BUG: the flag is not set on this path */
    sem_post(&e->s);
    return 0;
}

static void semlock_destroy(void *o)
{
    struct semlock *e = o;
    sem_destroy(&e->s);
    free(e);
}

LINEUP_HARNESS(semlock, semlock_create, semlock_destroy, LINEUP_OP(semlock_wait, 0),
               LINEUP_OP(semlock_set, 0));
LINEUP_HARNESS(semlock_lost, semlock_create, semlock_destroy, LINEUP_OP(semlock_wait, 0),
               LINEUP_OP(semlock_set_lost, 0));

/* ---- nolook ---- */

static int64_t nolook_wait(void *o, int64_t unused)
{
    struct event *e = o;
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&e->m);
        int r = e->ready;
        pthread_mutex_unlock(&e->m);
        if (r)
            return 1;
    }
}

LINEUP_HARNESS(nolook, event_create, event_destroy, LINEUP_OP(nolook_wait, 0), LINEUP_OP(event_set, 0));

/* ---- future, future_ok ---- */

struct future {
    pthread_mutex_t m;
    atomic_int result, state, progress;
    bool state_first; /* future_ok: the poller reads state, then result */
};

static void *future_work(void *arg)
{
    struct future *f = arg;
    for (int i = 0; i < 10; i++) {
        atomic_fetch_add(&f->progress, 1);
        usleep(100);
    }
    atomic_store(&f->result, 42);
    atomic_store(&f->state, 1);
    return NULL;
}

static void *future_create(bool state_first)
{
    struct future *f = calloc(1, sizeof *f);
    if (f) {
        pthread_mutex_init(&f->m, NULL);
        f->state_first = state_first;
    }
    return f;
}

static void *future_create_bug(void)
{
    return future_create(false);
}

static void *future_create_ok(void)
{
    return future_create(true);
}

static int load_locked(pthread_mutex_t *m, atomic_int *v)
{
    pthread_mutex_lock(m);
    int r = atomic_load(v);
    pthread_mutex_unlock(m);
    return r;
}

static int64_t future_get(void *o, int64_t unused)
{
    struct future *f = o;
    (void)unused;
    pthread_t th;
    if (pthread_create(&th, NULL, future_work, f) != 0)
        return -1;
    int r, done;
    for (;;) {
        if (f->state_first) {
            done = load_locked(&f->m, &f->state);
            r = load_locked(&f->m, &f->result);
        } else {
            r = load_locked(&f->m, &f->result); /* BUG: the state may come between */
            done = load_locked(&f->m, &f->state);
        }
        if (done)
            break;
        sched_yield();
    }
    pthread_join(th, NULL);
    return r;
}

static int64_t future_nop(void *o, int64_t v)
{
    (void)o;
    return v;
}

LINEUP_HARNESS(future, future_create_bug, free, LINEUP_OP(future_get, 0), LINEUP_OP(future_nop, 0));
LINEUP_HARNESS(future_ok, future_create_ok, free, LINEUP_OP(future_get, 0), LINEUP_OP(future_nop, 0));

/* ---- semposts, semposts_ok, flagposts ---- */

struct semposts {
    sem_t result, state;
    atomic_int fresult, fstate;
    atomic_int sleeps, progress;
    bool state_first, flags;
};

static void *semposts_work(void *arg)
{
    struct semposts *p = arg;
    for (int i = 0; i < 10; i++) {
        atomic_fetch_add(&p->progress, 1);
        usleep(100);
    }
    for (int i = atomic_load(&p->sleeps); i > 0; i--)
        usleep(100);
    if (p->flags) {
        atomic_store(&p->fresult, 1);
        atomic_store(&p->fstate, 1);
    } else {
        sem_post(&p->result);
        sem_post(&p->state);
    }
    return NULL;
}

static void *semposts_create_as(bool state_first, bool flags)
{
    struct semposts *p = calloc(1, sizeof *p);
    if (p) {
        sem_init(&p->result, 0, 0);
        sem_init(&p->state, 0, 0);
        p->state_first = state_first;
        p->flags = flags;
    }
    return p;
}

static void *semposts_create(void)
{
    return semposts_create_as(false, false);
}

static void *semposts_create_ok(void)
{
    return semposts_create_as(true, false);
}

static void *flagposts_create(void)
{
    return semposts_create_as(false, true);
}

static void semposts_destroy(void *o)
{
    struct semposts *p = o;
    sem_destroy(&p->result);
    sem_destroy(&p->state);
    free(p);
}

/* whether the result (or the state) is there, leaving it there */
static int semposts_try(struct semposts *p, bool state)
{
    if (p->flags)
        return atomic_load(state ? &p->fstate : &p->fresult);
    sem_t *s = state ? &p->state : &p->result;
    if (sem_trywait(s) != 0)
        return 0;
    sem_post(s);
    return 1;
}

static int64_t semposts_get(void *o, int64_t sleeps)
{
    struct semposts *p = o;
    atomic_store(&p->sleeps, (int)sleeps);
    pthread_t th;
    if (pthread_create(&th, NULL, semposts_work, p) != 0)
        return -1;
    int r, done;
    for (;;) {
        if (p->state_first) {
            done = semposts_try(p, true);
            r = semposts_try(p, false);
        } else {
            r = semposts_try(p, false); /* BUG: both posts may come before the next try */
            done = semposts_try(p, true);
        }
        if (done)
            break;
        sched_yield();
    }
    pthread_join(th, NULL);
    return r;
}

/* get(n): n sleeps before the posts */
#define SEMPOSTS_OPS                                                                                         \
    LINEUP_OP(semposts_get, 0), LINEUP_OP(semposts_get, 3), LINEUP_OP(semposts_get, 5),                      \
        LINEUP_OP(semposts_get, 9), LINEUP_OP(semposts_get, 16), LINEUP_OP(semposts_get, 30),                \
        LINEUP_OP(future_nop, 0)
LINEUP_HARNESS(semposts, semposts_create, semposts_destroy, SEMPOSTS_OPS);
LINEUP_HARNESS(semposts_ok, semposts_create_ok, semposts_destroy, SEMPOSTS_OPS);
LINEUP_HARNESS(flagposts, flagposts_create, semposts_destroy, SEMPOSTS_OPS);

/* ---- handoff, handoff_ok ---- */

struct handoff {
    pthread_mutex_t m;
    pthread_cond_t c;
    int count, waiters, handed;
    bool look; /* handoff_ok: a waiter that timed out looks for a hand-off */
};

static void *handoff_create_as(bool look)
{
    struct handoff *h = calloc(1, sizeof *h);
    if (h) {
        pthread_mutex_init(&h->m, NULL);
        pthread_cond_init(&h->c, NULL);
        h->look = look;
    }
    return h;
}

static void *handoff_create(void)
{
    return handoff_create_as(false);
}

static void *handoff_create_ok(void)
{
    return handoff_create_as(true);
}

static void handoff_destroy(void *o)
{
    struct handoff *h = o;
    pthread_cond_destroy(&h->c);
    pthread_mutex_destroy(&h->m);
    free(h);
}

static int64_t handoff_post(void *o, int64_t unused)
{
    struct handoff *h = o;
    (void)unused;
    pthread_mutex_lock(&h->m);
    if (h->waiters > 0) {
        h->waiters--;
        h->handed++;
        pthread_cond_signal(&h->c);
    } else {
        h->count++;
    }
    pthread_mutex_unlock(&h->m);
    return 0;
}

static int64_t handoff_try(void *o, int64_t unused)
{
    struct handoff *h = o;
    (void)unused;
    pthread_mutex_lock(&h->m);
    int64_t r = h->count > 0;
    if (r)
        h->count--;
    pthread_mutex_unlock(&h->m);
    return r;
}

static int64_t handoff_twait(void *o, int64_t unused)
{
    struct handoff *h = o;
    (void)unused;
    pthread_mutex_lock(&h->m);
    if (h->count > 0) {
        h->count--;
        pthread_mutex_unlock(&h->m);
        return 1;
    }
    h->waiters++;
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 1;
    while (h->handed == 0) {
        if (pthread_cond_timedwait(&h->c, &h->m, &dl) == ETIMEDOUT) {
            if (h->look && h->handed > 0)
                break;
            h->waiters--; /* BUG (without look): a token handed meanwhile is lost */
            pthread_mutex_unlock(&h->m);
            return 0;
        }
    }
    h->handed--;
    pthread_mutex_unlock(&h->m);
    return 1;
}

LINEUP_HARNESS(handoff, handoff_create, handoff_destroy, LINEUP_OP(handoff_twait, 0),
               LINEUP_OP(handoff_post, 0), LINEUP_OP(handoff_try, 0));
LINEUP_HARNESS(handoff_ok, handoff_create_ok, handoff_destroy, LINEUP_OP(handoff_twait, 0),
               LINEUP_OP(handoff_post, 0), LINEUP_OP(handoff_try, 0));

/* ---- ttake ---- */

static int64_t ttake_put(void *o, int64_t v)
{
    struct handoff *h = o; /* its count is the queue's length */
    pthread_mutex_lock(&h->m);
    h->count++;
    pthread_cond_signal(&h->c);
    pthread_mutex_unlock(&h->m);
    return v;
}

static int64_t ttake_take(void *o, int64_t unused)
{
    struct handoff *h = o;
    (void)unused;
    pthread_mutex_lock(&h->m);
    while (h->count == 0) {
        struct timespec dl;
        clock_gettime(CLOCK_REALTIME, &dl);
        dl.tv_sec += 1;
        pthread_cond_timedwait(&h->c, &h->m, &dl);
    }
    h->count--;
    pthread_mutex_unlock(&h->m);
    return 1;
}

LINEUP_HARNESS(ttake, handoff_create, handoff_destroy, LINEUP_OP(ttake_put, 1), LINEUP_OP(ttake_take, 0));

/* ---- trypoll ---- */

struct trypoll {
    pthread_mutex_t m, m2;
    atomic_int x, y;
    int ready;
};

static void *trypoll_create(void)
{
    struct trypoll *p = calloc(1, sizeof *p);
    if (p) {
        pthread_mutex_init(&p->m, NULL);
        pthread_mutex_init(&p->m2, NULL);
    }
    return p;
}

static int64_t trypoll_poll(void *o, int64_t unused)
{
    struct trypoll *p = o;
    (void)unused;
    int got = 0, ready = 0, i;
    for (i = 0; i < 3; i++) {
        if (pthread_mutex_trylock(&p->m2) == 0) {
            pthread_mutex_unlock(&p->m2);
            got++;
        }
        if (pthread_mutex_trylock(&p->m) == 0) {
            ready += p->ready; /* nobody sets it: three rounds */
            pthread_mutex_unlock(&p->m);
        }
        if (ready)
            break;
        usleep(1000);
    }
    return got * 8 + ready + (i < 3) * 4;
}

static int64_t trypoll_hold(void *o, int64_t unused)
{
    struct trypoll *p = o;
    (void)unused;
    pthread_mutex_lock(&p->m2);
    int64_t r = 1 + atomic_load(&p->y); /* a point while it holds the lock */
    pthread_mutex_unlock(&p->m2);
    atomic_fetch_add(&p->x, 1);
    return r;
}

static int64_t trypoll_cas(void *o, int64_t unused)
{
    struct trypoll *p = o;
    (void)unused;
    int e = 0;
    return atomic_compare_exchange_strong(&p->x, &e, 5);
}

LINEUP_HARNESS(trypoll, trypoll_create, free, LINEUP_OP(trypoll_poll, 0), LINEUP_OP(trypoll_hold, 0),
               LINEUP_OP(trypoll_cas, 0));

/* ---- flags ---- */

#define FLAGS 24

struct flags {
    pthread_mutex_t m;
    atomic_int f[FLAGS];
};

static void *flags_create(void)
{
    struct flags *e = calloc(1, sizeof *e);
    if (e)
        pthread_mutex_init(&e->m, NULL);
    return e;
}

static int64_t flags_wait_any(void *o, int64_t unused)
{
    struct flags *e = o;
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&e->m);
        int r = 0;
        for (int i = 0; i < FLAGS; i++)
            r |= atomic_load(&e->f[i]);
        pthread_mutex_unlock(&e->m);
        if (r)
            return 1;
        lineup_yield();
    }
}

static int64_t flags_set_last(void *o, int64_t unused)
{
    struct flags *e = o;
    (void)unused;
    atomic_store(&e->f[FLAGS - 1], 1);
    return 0;
}

LINEUP_HARNESS(flags, flags_create, free, LINEUP_OP(flags_wait_any, 0), LINEUP_OP(flags_set_last, 0));

/* ---- timedlost ---- */

/* wait() looks at the flag before it takes the lock, then retries a timed
 * wait for good without looking again; set() sets the flag and signals
 * under the lock. A lost wakeup: set() between the look and the lock. */
struct timedlost {
    pthread_mutex_t m;
    pthread_cond_t c;
    atomic_int flag;
};

static void *timedlost_create(void)
{
    struct timedlost *t = calloc(1, sizeof *t);
    if (t) {
        pthread_mutex_init(&t->m, NULL);
        pthread_cond_init(&t->c, NULL);
    }
    return t;
}

static int64_t timedlost_wait(void *o, int64_t unused)
{
    struct timedlost *t = o;
    (void)unused;
    if (atomic_load(&t->flag))
        return 1;
    pthread_mutex_lock(&t->m);
    for (;;) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 5000000;
        ts.tv_sec += ts.tv_nsec / 1000000000;
        ts.tv_nsec %= 1000000000;
        pthread_cond_timedwait(&t->c, &t->m, &ts);
    }
}

static int64_t timedlost_set(void *o, int64_t unused)
{
    struct timedlost *t = o;
    (void)unused;
    pthread_mutex_lock(&t->m);
    atomic_store(&t->flag, 1);
    pthread_cond_signal(&t->c);
    pthread_mutex_unlock(&t->m);
    return 0;
}

LINEUP_HARNESS(timedlost, timedlost_create, free, LINEUP_OP(timedlost_wait, 0), LINEUP_OP(timedlost_set, 0));
