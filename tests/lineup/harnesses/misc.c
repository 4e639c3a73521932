/*
 * Harnesses that misbehave on purpose, each selected with --harness:
 *   spin      waits on a plain (not atomic) flag: the watchdog must report
 *             divergence, not hang;
 *   quit      calls exit(3) inside an operation: a crash report, lineup goes on
 *             (its other operation calls _Exit(4): the report names it);
 *   snapshot  a correct set whose to_array() returns its contents as bytes,
 *             to exercise byte-string results (no failure expected);
 *   selfsignal, baddestroy, badcreate  raise SIGSEGV in an operation, in
 *             destroy(), in create();
 *   bytes     byte-string results at and over the size limit;
 *   timed     a timed lock that gives up: the replay names the timeout;
 *   selfkill  kill(getpid(), SIGKILL) in an operation;
 *   twokinds  a lost update and a lost wakeup: two kinds of failure in one test;
 *   busy      computes for about 0.1 s without a scheduling point: divergence
 *             under --watchdog-ms 20, none under the default 1000;
 *   vacuous   an operation that never returns in a serial execution;
 *   stacks    calls that start threads with and without an explicit stack size;
 *   execs     operations that replace the program (exec): a crash that names
 *             the exec and the new program's end; one whose exec fails;
 *   spair     a 12-byte _Atomic struct (libatomic's generic calls) updated
 *             by load and store, a lost update; spair_cas, by compare-exchange;
 *   leaklock  a call that returns with its lock held when another runs in
 *             its middle, so that destroy() blocks after every call returned;
 *   nochld    an operation that ignores SIGCHLD, as daemons do: the kernel
 *             must not reap lineup's phase-2 processes (it did: "internal
 *             error: waitpid: No child processes");
 *   selfstop  an operation that stops its own process (raise(SIGSTOP)):
 *             a timeout that says so, not a call that may block in I/O;
 *   killparent an operation that sends SIGTERM to its parent process:
 *             lineup's own in phase 1, which notes and ignores it (it took
 *             it for a request to stop until session 31), a worker in phase
 *             2, whose end is then the call's crash;
 *   lowerlimit an operation that lowers the process's RLIMIT_AS to 64 MB,
 *             after which lineup cannot start threads: a harness error that
 *             says the code under test lowered it (it said "raise it with
 *             ulimit -v", exit 3, until session 31);
 *   spawner   an operation that starts a process it never waits for
 *             (posix_spawn of "sleep 988.5"): lineup kills and reaps what the
 *             executions leave (each left one running after lineup until
 *             session 31);
 *   assume    an operation whose __VERIFIER_assume is always false: no
 *             serial execution is left to check against (a harness error;
 *             it passed, with nothing checked, until session 31);
 *   smash     an operation with a wild write: it fills the first 4 KB of
 *             every shared writable mapping of its process with 0x41, as a
 *             stray pointer could; lineup must report it, not crash (it did,
 *             reading the smashed bounds of the test) or print garbage.
 */
#include <lineup.h>

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static void *create(void)
{
    return calloc(1, 64);
}

static int64_t spin_wait(void *o, int64_t unused)
{
    int *flag = o;
    (void)unused;
    while (!*flag)
        ;
    return 0;
}

static int64_t quit(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    exit(3);
}

static int64_t quit_now(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    _Exit(4);
}

struct set {
    pthread_mutex_t lock;
    unsigned char member[8];
};

static void *set_create(void)
{
    struct set *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    return s;
}

static int64_t add(void *o, int64_t v)
{
    struct set *s = o;
    pthread_mutex_lock(&s->lock);
    int64_t was = s->member[v];
    s->member[v] = 1;
    pthread_mutex_unlock(&s->lock);
    return !was;
}

static int64_t to_array(void *o, int64_t unused)
{
    struct set *s = o;
    (void)unused;
    unsigned char out[8];
    int64_t n = 0;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < 8; i++)
        if (s->member[i])
            out[n++] = (unsigned char)i;
    pthread_mutex_unlock(&s->lock);
    lineup_result_bytes(out, (size_t)n);
    return n;
}

LINEUP_HARNESS(spin, create, free, LINEUP_OP(spin_wait, 0));
LINEUP_HARNESS(quit, create, free, LINEUP_OP(quit, 0), LINEUP_OP(quit_now, 0));
LINEUP_HARNESS(snapshot, set_create, free, LINEUP_OP(add, 1), LINEUP_OP(add, 2), LINEUP_OP(to_array, 0));

/* cancel: uses pthread_cancel, which lineup cannot model: a clear
 * "unsupported" error (exit status 2), not a verdict. */
static int64_t cancel_self(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    pthread_cancel(pthread_self());
    return 0;
}

LINEUP_HARNESS(cancel, create, free, LINEUP_OP(cancel_self, 0));

/* selfsignal: raises SIGSEGV itself. Unlike a faulting load, a raise() is
 * not executed again when the handler returns: the crash must be reported,
 * not lost. */
static int64_t raise_segv(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    raise(SIGSEGV);
    return 0;
}

LINEUP_HARNESS(selfsignal, create, free, LINEUP_OP(raise_segv, 0));

/* selfkill: SIGKILL to its own process, which no handler sees: kill()
 * reports it on the way, so it is a crash with a place, not a kill from
 * outside. */
static int64_t kill_self(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    kill(getpid(), SIGKILL);
    return 0;
}

LINEUP_HARNESS(selfkill, create, free, LINEUP_OP(kill_self, 0));

/* baddestroy: its destroy() crashes, on the main thread (not a test thread:
 * the report must not number it like one). */
static void crash_destroy(void *o)
{
    free(o);
    raise(SIGSEGV);
}

static int64_t nop(void *o, int64_t v)
{
    (void)o;
    return v;
}

LINEUP_HARNESS(baddestroy, create, crash_destroy, LINEUP_OP(nop, 0));

/* badcreate: its create() crashes, so every test does, at one place: one
 * bug, reported once. */
static void *crash_create(void)
{
    raise(SIGSEGV);
    return NULL;
}

LINEUP_HARNESS(badcreate, crash_create, free, LINEUP_OP(nop, 0), LINEUP_OP(nop, 1));

/* timed: take_timed() gives up while hold() has the lock, which no serial
 * order does: a violation whose replay must say the lock timed out. */
static pthread_mutex_t timed_m = PTHREAD_MUTEX_INITIALIZER;

static int64_t hold(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    pthread_mutex_lock(&timed_m);
    pthread_mutex_unlock(&timed_m);
    return 0;
}

static int64_t take_timed(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    if (pthread_mutex_timedlock(&timed_m, &ts) != 0)
        return 0;
    pthread_mutex_unlock(&timed_m);
    return 1;
}

LINEUP_HARNESS(timed, create, free, LINEUP_OP(hold, 0), LINEUP_OP(take_timed, 0));

/* bytes: results of 4096 bytes (the most lineup keeps) and of 4097, which
 * must be a harness error, not a result silently cut to 4096. */
static int64_t bytes(void *o, int64_t n)
{
    static unsigned char buf[4097];
    (void)o;
    memset(buf, (int)n, sizeof buf);
    lineup_result_bytes(buf, (size_t)n);
    return 0;
}

LINEUP_HARNESS(bytes, create, free, LINEUP_OP(bytes, 4096), LINEUP_OP(bytes, 4097));

/* helper: an operation that does its work on a thread of its own and joins
 * it. Phase 1 runs each call alone, but the call's own thread must run
 * with it, or the join blocks forever (the helper stops at its first
 * scheduling point, the mutex) and a correct object looks stuck. */
struct helped {
    pthread_mutex_t m;
    int64_t total;
};

struct helped_call {
    struct helped *h;
    int64_t v;
};

static void *helped_create(void)
{
    struct helped *h = calloc(1, sizeof *h);
    if (h)
        pthread_mutex_init(&h->m, NULL);
    return h;
}

static void *helped_work(void *p)
{
    struct helped_call *c = p;
    pthread_mutex_lock(&c->h->m);
    int64_t r = c->h->total += c->v;
    pthread_mutex_unlock(&c->h->m);
    return (void *)(intptr_t)r;
}

static int64_t add_via_thread(void *o, int64_t v)
{
    struct helped_call c = {o, v};
    pthread_t t;
    void *r;
    if (pthread_create(&t, NULL, helped_work, &c) != 0 || pthread_join(t, &r) != 0)
        return -1;
    return (int64_t)(intptr_t)r;
}

LINEUP_HARNESS(helper, helped_create, free, LINEUP_OP(add_via_thread, 1), LINEUP_OP(add_via_thread, 2));

/* twokinds: two bugs of different kinds in one object. inc() loses updates
 * (a load and a store, not one atomic add), so `inc | inc` then get() can see
 * 1: a linearizability violation; await() tests the count outside the lock
 * before it waits, so an inc() between the test and the wait is missed and
 * await() sleeps forever although an inc() completed: a stuck history that
 * no serial order shows. */
struct twokinds {
    atomic_long n;
    pthread_mutex_t m;
    pthread_cond_t c;
};

static void *twokinds_create(void)
{
    struct twokinds *t = calloc(1, sizeof *t);
    if (t) {
        pthread_mutex_init(&t->m, NULL);
        pthread_cond_init(&t->c, NULL);
    }
    return t;
}

static int64_t tk_inc(void *o, int64_t unused)
{
    (void)unused;
    struct twokinds *t = o;
    long x = atomic_load(&t->n);
    atomic_store(&t->n, x + 1);
    pthread_mutex_lock(&t->m);
    pthread_cond_broadcast(&t->c);
    pthread_mutex_unlock(&t->m);
    return 0;
}

static int64_t tk_get(void *o, int64_t unused)
{
    (void)unused;
    return atomic_load(&((struct twokinds *)o)->n);
}

static int64_t tk_await(void *o, int64_t unused)
{
    (void)unused;
    struct twokinds *t = o;
    if (atomic_load(&t->n) == 0) {
        pthread_mutex_lock(&t->m);
        pthread_cond_wait(&t->c, &t->m);
        pthread_mutex_unlock(&t->m);
    }
    return 0;
}

LINEUP_HARNESS(twokinds, twokinds_create, free, LINEUP_OP(tk_inc, 0), LINEUP_OP(tk_get, 0),
               LINEUP_OP(tk_await, 0));

static int64_t compute(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    uint64_t x = 1;
    for (uint64_t i = 0; i < 50000000; i++)
        x = x * 6364136223846793005u + i;
    return (int64_t)(x >> 63) * 0;
}
LINEUP_HARNESS(busy, create, free, LINEUP_OP(compute, 0));

/* A harness mistake: await() waits on a semaphore no operation posts, so it
 * never returns in any serial execution, and the calls after it in its
 * thread are never checked (lineup notes it); peek() returns its value. */
static void *vacuous_create(void)
{
    sem_t *s = malloc(sizeof *s);
    if (s)
        sem_init(s, 0, 0);
    return s;
}

static int64_t await(void *o, int64_t unused)
{
    (void)unused;
    sem_wait(o);
    return 0;
}

static int64_t peek(void *o, int64_t unused)
{
    int v = -1;
    (void)unused;
    sem_getvalue(o, &v);
    return v;
}

LINEUP_HARNESS(vacuous, vacuous_create, free, LINEUP_OP(await, 0), LINEUP_OP(peek, 0));

/* stacks: calls that start a thread of their own, one with glibc's
 * default stack size asked for explicitly, one with the default: the
 * system thread lineup keeps for the slot from one execution to the next
 * must fit both, whichever took the slot first. */
static void *stacks_work(void *p)
{
    return p;
}

static int64_t start_sized(void *o, int64_t kb)
{
    (void)o;
    pthread_attr_t a;
    pthread_t t;
    void *r;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, (size_t)kb << 10);
    /* kb 0: no attributes at all */
    int rc = pthread_create(&t, kb ? &a : NULL, stacks_work, (void *)(intptr_t)kb);
    pthread_attr_destroy(&a);
    if (rc != 0 || pthread_join(t, &r) != 0)
        return -1;
    return (int64_t)(intptr_t)r;
}

LINEUP_HARNESS(stacks, create, free, LINEUP_OP(start_sized, 8192), LINEUP_OP(start_sized, 0));

/* execs: exec_status runs a shell that exits 5, exec_killed one that kills
 * itself with SIGSEGV, exec_hangs one that outlives --timeout; exec_failed's exec fails (it returns, as
 * natively) and the operation then calls _Exit(4), which the report must name, not the exec. exec_racy execs
 * only when it sees a flip's store half done, which needs a preemption: a crash in phase 2 that replays. */
static int64_t exec_status(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    execl("/bin/sh", "sh", "-c", "exit 5", (char *)NULL);
    return -1;
}

static int64_t exec_killed(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    execlp("sh", "sh", "-c", "kill -SEGV $$", (char *)NULL);
    return -1;
}

static int64_t exec_hangs(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    execl("/bin/sleep", "sleep", "60", (char *)NULL);
    return -1;
}

static int64_t exec_failed(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    char *const argv[] = {"lineup-no-such-program", NULL};
    execv("/nonexistent/lineup-no-such-program", argv);
    _Exit(4);
}

static int64_t flip(void *o, int64_t unused)
{
    atomic_int *x = o;
    (void)unused;
    atomic_store(x, 1);
    atomic_store(x, 0);
    return 0;
}

static int64_t exec_racy(void *o, int64_t unused)
{
    atomic_int *x = o;
    (void)unused;
    if (atomic_load(x))
        execl("/bin/sh", "sh", "-c", "exit 6", (char *)NULL);
    return 0;
}

LINEUP_HARNESS(execs, create, free, LINEUP_OP(exec_status, 0), LINEUP_OP(exec_killed, 0),
               LINEUP_OP(exec_hangs, 0), LINEUP_OP(exec_failed, 0), LINEUP_OP(flip, 0),
               LINEUP_OP(exec_racy, 0));

/* spair, spair_cas: the struct is not lock-free, so the compiler calls
 * libatomic's generic __atomic_load, __atomic_store and
 * __atomic_compare_exchange, which lineup makes scheduling points. */
struct spair {
    int32_t lo, hi, gen;
};

static void *spair_create(void)
{
    return calloc(1, sizeof(_Atomic struct spair));
}

static int64_t spair_inc(void *o, int64_t unused)
{
    _Atomic struct spair *p = o;
    (void)unused;
    struct spair v = atomic_load(p);
    v.lo++;
    atomic_store(p, v);
    return v.lo;
}

static int64_t spair_cas_inc(void *o, int64_t unused)
{
    _Atomic struct spair *p = o;
    (void)unused;
    struct spair v = atomic_load(p), n;
    do {
        n = v;
        n.lo++;
    } while (!atomic_compare_exchange_weak(p, &v, n));
    return n.lo;
}

LINEUP_HARNESS(spair, spair_create, free, LINEUP_OP(spair_inc, 0));
LINEUP_HARNESS(spair_cas, spair_create, free, LINEUP_OP(spair_cas_inc, 0));

/* leaklock: leak_quiet returns 0 either way, leak_loud 1 when it leaks.
 * Every call returns; then destroy(), which takes the lock, blocks for
 * good: no serial execution gets stuck, so the stuck end is the finding
 * (with leak_loud, its result is, first). */
struct leaklock {
    pthread_mutex_t m;
    atomic_int flag;
};

static void *leak_create(void)
{
    struct leaklock *o = calloc(1, sizeof *o);
    pthread_mutex_init(&o->m, NULL);
    return o;
}

static void leak_destroy(void *p)
{
    struct leaklock *o = p;
    pthread_mutex_lock(&o->m);
    pthread_mutex_unlock(&o->m);
    free(o);
}

static int64_t leak_call(void *p, int64_t leaked)
{
    struct leaklock *o = p;
    pthread_mutex_lock(&o->m);
    int x = atomic_load(&o->flag);
    if (x != atomic_load(&o->flag))
        return leaked; /* the lock stays held */
    pthread_mutex_unlock(&o->m);
    return 0;
}

static int64_t leak_quiet(void *p, int64_t unused)
{
    (void)unused;
    return leak_call(p, 0);
}

static int64_t leak_loud(void *p, int64_t unused)
{
    (void)unused;
    return leak_call(p, 1);
}

static int64_t leak_set(void *p, int64_t unused)
{
    struct leaklock *o = p;
    (void)unused;
    atomic_store(&o->flag, 1);
    return 0;
}

LINEUP_HARNESS(leaklock, leak_create, leak_destroy, LINEUP_OP(leak_quiet, 0), LINEUP_OP(leak_loud, 0),
               LINEUP_OP(leak_set, 0));
/* leaklock_td: the same, with a teardown call that takes the lock: the
 * stuck call is the main thread's */
LINEUP_HARNESS(leaklock_td, leak_create, leak_destroy, LINEUP_OP(leak_quiet, 0), LINEUP_OP(leak_set, 0));
LINEUP_TEARDOWN(leaklock_td, LINEUP_OP(leak_quiet, 0));

static int64_t nochld_get(void *o, int64_t unused)
{
    (void)unused;
    signal(SIGCHLD, SIG_IGN);
    return atomic_load((atomic_long *)o);
}

static int64_t nochld_inc(void *o, int64_t unused)
{
    (void)unused;
    return atomic_fetch_add((atomic_long *)o, 1);
}

LINEUP_HARNESS(nochld, create, free, LINEUP_OP(nochld_inc, 0), LINEUP_OP(nochld_get, 0));

static int64_t smash(void *o, int64_t unused)
{
    (void)unused;
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perm[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 && perm[1] == 'w' && perm[3] == 's')
            memset((void *)lo, 0x41, hi - lo < 4096 ? hi - lo : 4096);
    }
    if (f)
        fclose(f);
    return atomic_fetch_add((atomic_long *)o, 1);
}

LINEUP_HARNESS(smash, create, free, LINEUP_OP(smash, 0));

static int64_t stop_self(void *o, int64_t unused)
{
    (void)o;
    (void)unused;
    raise(SIGSTOP);
    return 0;
}

LINEUP_HARNESS(selfstop, create, free, LINEUP_OP(stop_self, 0));

static int64_t assume_never(void *o, int64_t unused)
{
    (void)unused;
    atomic_fetch_add((_Atomic int64_t *)o, 1);
    __VERIFIER_assume(0);
    return 0;
}

LINEUP_HARNESS(assume, create, free, LINEUP_OP(assume_never, 0));

extern char **environ;

/* a sleep left running: 0, or -1 when it could not start */
static int start_sleeper(void)
{
    pid_t child;
    char *argv[] = {"sleep", "988.5", 0};
    return posix_spawnp(&child, "sleep", 0, 0, argv, environ) == 0 ? 0 : -1;
}

static int64_t spawn_sleep(void *o, int64_t unused)
{
    (void)unused;
    if (start_sleeper() != 0)
        return -1;
    return atomic_fetch_add((_Atomic int64_t *)o, 1) >= 0;
}

/* through the shell, which leaves it behind: the worker's or explorer's
 * orphan once the shell exits (they are subreapers) */
static int64_t spawn_detached(void *o, int64_t unused)
{
    (void)unused;
    if (system("sleep 988.5 &") != 0)
        return -1;
    return atomic_fetch_add((_Atomic int64_t *)o, 1) >= 0;
}

LINEUP_HARNESS(spawner, create, free, LINEUP_OP(spawn_sleep, 0), LINEUP_OP(spawn_sleep, 1),
               LINEUP_OP(spawn_detached, 0));

/* spawnlost: the spawn beside a lost update, so that phase 2 fails and
 * the serial executions run again in a child of the worker (the recheck),
 * which must sweep what they start too */
static int64_t spawn_inc(void *o, int64_t unused)
{
    (void)unused;
    if (start_sleeper() != 0)
        return -1;
    int64_t v = atomic_load((_Atomic int64_t *)o);
    atomic_store((_Atomic int64_t *)o, v + 1);
    return 0;
}

static int64_t spawn_get(void *o, int64_t unused)
{
    (void)unused;
    return atomic_load((_Atomic int64_t *)o);
}

LINEUP_HARNESS(spawnlost, create, free, LINEUP_OP(spawn_inc, 0), LINEUP_OP(spawn_get, 0));

static int64_t lower_as(void *o, int64_t unused)
{
    (void)unused;
    atomic_fetch_add((_Atomic int64_t *)o, 1);
    struct rlimit r = {64 << 20, 64 << 20};
    return setrlimit(RLIMIT_AS, &r);
}

static int64_t bump(void *o, int64_t unused)
{
    (void)unused;
    return atomic_fetch_add((_Atomic int64_t *)o, 1);
}

LINEUP_HARNESS(lowerlimit, create, free, LINEUP_OP(lower_as, 0), LINEUP_OP(bump, 0));

static int64_t kill_parent(void *o, int64_t unused)
{
    (void)unused;
    atomic_fetch_add((_Atomic int64_t *)o, 1);
    kill(getppid(), SIGTERM);
    return 0;
}

LINEUP_HARNESS(killparent, create, free, LINEUP_OP(kill_parent, 0));

/*
 * popnull: pop() on an empty stack dereferences NULL, in phase 1, in
 * whichever thread pops first: a sample's crash in thread 1 is another's in
 * thread 0 (an audit found both reported in full).
 */
struct pn_node {
    int64_t value;
    struct pn_node *next;
};

static void *pn_create(void)
{
    return calloc(1, sizeof(_Atomic(struct pn_node *)));
}

static void pn_destroy(void *o)
{
    struct pn_node *n = atomic_load((_Atomic(struct pn_node *) *)o);
    while (n) {
        struct pn_node *next = n->next;
        free(n);
        n = next;
    }
    free(o);
}

static int64_t pn_push(void *o, int64_t v)
{
    _Atomic(struct pn_node *) *top = o;
    struct pn_node *n = malloc(sizeof *n);
    if (!n)
        return -1;
    n->value = v;
    n->next = atomic_load(top);
    while (!atomic_compare_exchange_weak(top, &n->next, n))
        ;
    return 0;
}

static int64_t pn_pop(void *o, int64_t unused)
{
    _Atomic(struct pn_node *) *top = o;
    (void)unused;
    struct pn_node *n = atomic_load(top);
    while (!atomic_compare_exchange_weak(top, &n, n->next)) /* NULL when empty */
        ;
    int64_t v = n->value;
    free(n);
    return v;
}

LINEUP_HARNESS(popnull, pn_create, pn_destroy, LINEUP_OP(pn_push, 1), LINEUP_OP(pn_pop, 0));
