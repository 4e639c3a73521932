/*
 * stress: the test a user would try before lineup. It runs a harness's
 * operations on real threads in a tight loop, with random test matrices,
 * for a fixed time, and checks every run; no scheduler controls anything.
 *
 * Build it against the harness source with the plain compiler (not
 * lineup-cc: nothing is instrumented):
 *
 *     cc -O2 -pthread -I<lineup>/harness -o stress benchmarks/subjects/stress.c SUBJECT.c [-DBUG_...]
 *     ./stress --seconds 60 --matrix 3x3 [--seed S] [--harness NAME]
 *
 * lineup.h's registration constructors call this file's lineup_register,
 * so the harness is the same object, the same operations and the same
 * setup and teardown sequences lineup runs.
 *
 * The oracle: linearizability against the serial behaviour, the same
 * criterion lineup checks. For each random matrix, every serial order of its
 * calls (program order kept, as lineup's phase 1) is first run on a fresh
 * object, one call at a time on a helper thread; a call that blocks (the
 * helper sleeps in the kernel and does not return) makes that order stuck,
 * as in lineup. Then the matrix runs concurrently, again and again: T
 * persistent threads released together by a spinning barrier, each making
 * its calls back to back, with the monotonic clock read around each call.
 *   - A run that completes passes if some complete serial order gives every
 *     call (and every teardown call) the same result and puts call a before
 *     call b whenever a returned before b was invoked (real-time order).
 *   - A run that does not complete (all unfinished threads asleep in the
 *     kernel for two polls, or no progress for --hang-ms) passes if, for
 *     every pending call e, some serial order runs exactly the completed
 *     calls, with their results and real-time order, and then gets stuck in
 *     e (Definition 2 of the Line-Up paper); the process running it is
 *     killed, and the next run starts in a fresh one.
 *   - A signal or exit() in the code under test is a crash.
 * The first run that fails stops the search. This oracle is as strong as
 * lineup's (it is the same check); what stress lacks is control over the
 * interleavings, so the difference in what the two find is the scheduling.
 *
 * Output: progress on stderr, the failing run on stdout, and a last line
 *     stress-result: found=none|violation|stuck|crash seconds=S matrices=M runs=R
 * Exit status: 0 nothing found, 1 a bug was found, 2 usage or harness error.
 */
#define _GNU_SOURCE
#include <lineup.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_T 4
#define MAX_N 4
#define MAX_CALLS (MAX_T * MAX_N)
#define MAX_SEQ 8 /* setup or teardown calls */
#define MAX_ORDERS 200000
#define MAX_HARNESSES 16
#define MAX_ABANDONED 2000 /* blocked helper threads per serial table */

/* Exit statuses of the child processes, apart from any the code under test
 * might use with exit() */
#define EXIT_SLICE_DONE 100
#define EXIT_VIOLATION 101
#define EXIT_TABLE_DONE 102
#define EXIT_TOOL_ERROR 103 /* stress itself failed (pthread_create) */

/* ---- the lineup.h runtime, for real threads ---- */

struct seq {
    const char *name;
    const struct lineup_op *ops;
    unsigned n;
};

static const struct lineup_harness *harnesses[MAX_HARNESSES];
static unsigned nharnesses;
static struct seq setups[MAX_HARNESSES], teardowns[MAX_HARNESSES];
static unsigned nsetups, nteardowns;

void lineup_register(const struct lineup_harness *h)
{
    if (nharnesses < MAX_HARNESSES)
        harnesses[nharnesses++] = h;
}

void lineup_register_sequence(const char *name, int teardown, const struct lineup_op *ops, unsigned nops)
{
    struct seq *s = teardown ? &teardowns[nteardowns++] : &setups[nsetups++];
    s->name = name;
    s->ops = ops;
    s->n = nops;
}

/* byte results are folded into a hash kept next to the return value */
static __thread uint64_t *current_bytes_hash;

void lineup_result_bytes(const void *data, size_t len)
{
    if (!current_bytes_hash)
        return;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ ((const unsigned char *)data)[i]) * 1099511628211ull;
    *current_bytes_hash = h | 1; /* 0 means: no bytes */
}

void lineup_yield(void)
{
    sched_yield();
}

/* ---- shared state (parent and the child processes) ---- */

enum { CALL_IDLE, CALL_RUNNING, CALL_DONE };

struct call_rec {
    int64_t result;
    uint64_t bytes;
    int64_t t_call, t_ret;
    _Atomic int state;
};

/* a serial order: which thread's next call at each step, and the results in
 * canonical positions (setup, then thread t call i at S + t*N + i, then
 * teardown); stuck_at is the canonical position of the call that blocked,
 * or -1 for a complete order */
struct entry {
    uint8_t order[MAX_CALLS];
    int16_t stuck_at;
    uint8_t len; /* steps of order that ran (stuck: including the stuck one) */
    int64_t res[MAX_SEQ + MAX_CALLS + MAX_SEQ];
    uint64_t bytes[MAX_SEQ + MAX_CALLS + MAX_SEQ];
};

struct shared {
    /* the matrix */
    int T, N, S, D; /* threads, calls per thread, setup calls, teardown calls */
    int ops[MAX_T][MAX_N];
    /* the serial table */
    unsigned nentries;
    int table_error;
    /* the concurrent runs */
    _Atomic uint64_t runs;     /* completed runs in this child */
    _Atomic uint64_t progress; /* bumped at every call start and end */
    _Atomic int phase;         /* 0 idle, 1 setup, 2 test calls, 3 teardown */
    pid_t tids[MAX_T];
    struct call_rec setup[MAX_SEQ], calls[MAX_T][MAX_N], teardown[MAX_SEQ];
    int failed; /* the child found a violation; the run is in the records */
    struct entry entries[];
};

static struct shared *sh;
static const struct lineup_harness *H;
static const struct seq *SETUP, *TEARDOWN;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6)};
    nanosleep(&ts, NULL);
}

static const struct lineup_op *test_op(int t, int i)
{
    return &H->ops[sh->ops[t][i]];
}

/* State letter of a thread from /proc (R running, S/D asleep), or 0. */
static char thread_state(pid_t pid, pid_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : 0;
}

/* ---- phase 1: the serial table, computed in a child process ---- */

/* One helper thread runs the calls of a serial order, one at a time; when a
 * call blocks, the helper is abandoned (blocked for good) and a new one
 * starts. */
struct helper {
    sem_t go, done;
    void *obj;
    const struct lineup_op *op;
    int64_t result;
    uint64_t bytes;
    pid_t tid;
};

static void *helper_main(void *arg)
{
    struct helper *h = arg;
    h->tid = (pid_t)syscall(SYS_gettid);
    sem_post(&h->done);
    for (;;) {
        while (sem_wait(&h->go) != 0)
            ;
        h->bytes = 0;
        current_bytes_hash = &h->bytes;
        h->result = h->op->fn(h->obj, h->op->arg);
        sem_post(&h->done);
    }
    return NULL;
}

static struct helper *helper_new(void)
{
    struct helper *h = calloc(1, sizeof *h);
    sem_init(&h->go, 0, 0);
    sem_init(&h->done, 0, 0);
    pthread_t th;
    if (pthread_create(&th, NULL, helper_main, h) != 0) {
        fprintf(stderr, "stress: pthread_create failed\n");
        _exit(EXIT_TOOL_ERROR);
    }
    pthread_detach(th);
    while (sem_wait(&h->done) != 0)
        ;
    return h;
}

/* Runs one call on the helper. Returns false if it blocked: the helper
 * slept in the kernel for 3 checks 0.2 ms apart without returning (nobody
 * else touches the object in a serial run, so nobody could wake it; a
 * helper that waits for a CPU is runnable, not asleep), or ran for 2 s
 * without returning (a serial spin: livelock). */
static bool helper_call(struct helper *h, void *obj, const struct lineup_op *op, int64_t *res,
                        uint64_t *bytes)
{
    h->obj = obj;
    h->op = op;
    sem_post(&h->go);
    int64_t start = now_ns();
    while (now_ns() - start < 20000)
        if (sem_trywait(&h->done) == 0)
            goto done;
    int asleep = 0;
    for (;;) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 200000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        if (sem_timedwait(&h->done, &ts) == 0)
            goto done;
        char st = thread_state(getpid(), h->tid);
        asleep = st == 'S' || st == 'D' ? asleep + 1 : 0;
        if (asleep >= 3 || now_ns() - start > 2000000000)
            return false;
    }
done:
    *res = h->result;
    *bytes = h->bytes;
    return true;
}

static void build_table(void)
{
    int T = sh->T, N = sh->N, S = sh->S, D = sh->D, total = T * N;
    struct helper *h = helper_new();
    int next[MAX_T];
    uint8_t order[MAX_CALLS];
    /* a prefix known to block: orders that start with it are not run again */
    uint8_t stuck_prefix[MAX_CALLS];
    int stuck_len = 0;
    unsigned n = 0, abandoned = 0;
    /* enumerate orders in lexicographic order of thread ids */
    for (int k = 0, t = 0; t < T; t++)
        for (int i = 0; i < N; i++)
            order[k++] = (uint8_t)t;
    for (;;) {
        bool skip = stuck_len > 0 && memcmp(order, stuck_prefix, (size_t)stuck_len) == 0;
        if (!skip) {
            if (n >= MAX_ORDERS) {
                sh->table_error = 1;
                return;
            }
            struct entry *e = &sh->entries[n++];
            memcpy(e->order, order, (size_t)total);
            e->stuck_at = -1;
            e->len = (uint8_t)total;
            void *obj = H->create();
            bool ok = true;
            for (int j = 0; ok && j < S; j++)
                if (!helper_call(h, obj, &SETUP->ops[j], &e->res[j], &e->bytes[j])) {
                    /* every order gets stuck there: one entry says it */
                    e->stuck_at = (int16_t)j;
                    e->len = 0;
                    sh->nentries = n;
                    return;
                }
            memset(next, 0, sizeof next);
            for (int k = 0; ok && k < total; k++) {
                int t = order[k], i = next[t]++;
                int pos = S + t * N + i;
                if (!helper_call(h, obj, test_op(t, i), &e->res[pos], &e->bytes[pos])) {
                    e->stuck_at = (int16_t)pos;
                    e->len = (uint8_t)(k + 1);
                    memcpy(stuck_prefix, order, (size_t)(k + 1));
                    stuck_len = k + 1;
                    ok = false;
                }
            }
            for (int j = 0; ok && j < D; j++) {
                int pos = S + total + j;
                if (!helper_call(h, obj, &TEARDOWN->ops[j], &e->res[pos], &e->bytes[pos])) {
                    e->stuck_at = (int16_t)pos;
                    ok = false;
                }
            }
            if (ok) {
                if (H->destroy)
                    H->destroy(obj);
            } else if (++abandoned > MAX_ABANDONED) {
                sh->table_error = 2;
                return;
            } else {
                h = helper_new(); /* the old one stays blocked; obj leaks */
            }
        }
        /* next permutation of the multiset */
        int i = total - 2;
        while (i >= 0 && order[i] >= order[i + 1])
            i--;
        if (i < 0)
            break;
        int j = total - 1;
        while (order[j] <= order[i])
            j--;
        uint8_t tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
        for (int a = i + 1, b = total - 1; a < b; a++, b--) {
            tmp = order[a];
            order[a] = order[b];
            order[b] = tmp;
        }
    }
    sh->nentries = n;
}

/* ---- the check ---- */

/* position of each test call in an order */
static void positions(const struct entry *e, int pos[MAX_T][MAX_N])
{
    int next[MAX_T] = {0};
    for (int k = 0; k < e->len && k < sh->T * sh->N; k++) {
        int t = e->order[k];
        pos[t][next[t]++] = k;
    }
}

static bool same_result(const struct entry *e, int canon, const struct call_rec *c)
{
    return e->res[canon] == c->result && e->bytes[canon] == c->bytes;
}

/* real time among the completed test calls: a returned before b began
 * implies a before b */
static bool real_time_ok(int pos[MAX_T][MAX_N], int done[MAX_T])
{
    for (int ta = 0; ta < sh->T; ta++)
        for (int ia = 0; ia < done[ta]; ia++)
            for (int tb = 0; tb < sh->T; tb++) {
                if (tb == ta)
                    continue;
                for (int ib = 0; ib < done[tb]; ib++)
                    if (sh->calls[ta][ia].t_ret < sh->calls[tb][ib].t_call && pos[ta][ia] > pos[tb][ib])
                        return false;
            }
    return true;
}

/* A complete run: some complete serial order explains it. */
static bool check_complete(void)
{
    int T = sh->T, N = sh->N, S = sh->S, D = sh->D;
    int done[MAX_T];
    for (int t = 0; t < T; t++)
        done[t] = N;
    for (unsigned k = 0; k < sh->nentries; k++) {
        const struct entry *e = &sh->entries[k];
        if (e->stuck_at >= 0)
            continue;
        bool ok = true;
        for (int j = 0; ok && j < S; j++)
            ok = same_result(e, j, &sh->setup[j]);
        for (int t = 0; ok && t < T; t++)
            for (int i = 0; ok && i < N; i++)
                ok = same_result(e, S + t * N + i, &sh->calls[t][i]);
        for (int j = 0; ok && j < D; j++)
            ok = same_result(e, S + T * N + j, &sh->teardown[j]);
        if (!ok)
            continue;
        int pos[MAX_T][MAX_N];
        positions(e, pos);
        if (real_time_ok(pos, done))
            return true;
    }
    return false;
}

/* A run that hangs in test calls: every pending call has a serial order of
 * exactly the completed calls after which it is stuck. Setup and teardown
 * calls run alone, so a hang there must be a serial one. */
static bool check_stuck(char *why, size_t whylen)
{
    int T = sh->T, N = sh->N, S = sh->S, D = sh->D;
    int done[MAX_T];
    int phase = atomic_load(&sh->phase);
    if (phase == 1 || phase == 3) {
        const struct call_rec *seq = phase == 1 ? sh->setup : sh->teardown;
        int n = phase == 1 ? S : D, j = 0;
        while (j < n && atomic_load(&seq[j].state) == CALL_DONE)
            j++;
        int canon = phase == 1 ? j : S + T * N + j;
        for (unsigned k = 0; k < sh->nentries; k++)
            if (sh->entries[k].stuck_at == canon)
                return true;
        snprintf(why, whylen, "%s call %d (%s) hangs, but never does serially",
                 phase == 1 ? "setup" : "teardown", j, (phase == 1 ? SETUP : TEARDOWN)->ops[j].name);
        return false;
    }
    for (int t = 0; t < T; t++) {
        done[t] = 0;
        while (done[t] < N && atomic_load(&sh->calls[t][done[t]].state) == CALL_DONE)
            done[t]++;
    }
    for (int pt = 0; pt < T; pt++) {
        if (done[pt] == N || atomic_load(&sh->calls[pt][done[pt]].state) != CALL_RUNNING)
            continue;
        int pending = S + pt * N + done[pt];
        bool explained = false;
        for (unsigned k = 0; k < sh->nentries && !explained; k++) {
            const struct entry *e = &sh->entries[k];
            if (e->stuck_at != pending)
                continue;
            /* the prefix before the stuck call holds exactly the completed calls */
            int cnt[MAX_T] = {0};
            for (int q = 0; q + 1 < e->len; q++)
                cnt[e->order[q]]++;
            bool ok = memcmp(cnt, done, sizeof(int) * (size_t)T) == 0;
            for (int j = 0; ok && j < S; j++)
                ok = same_result(e, j, &sh->setup[j]);
            for (int t = 0; ok && t < T; t++)
                for (int i = 0; ok && i < done[t]; i++)
                    ok = same_result(e, S + t * N + i, &sh->calls[t][i]);
            if (!ok)
                continue;
            int pos[MAX_T][MAX_N];
            positions(e, pos);
            explained = real_time_ok(pos, done);
        }
        if (!explained) {
            snprintf(why, whylen,
                     "%s(%" PRId64
                     ") in thread %d never returned, but no serial order of the completed calls "
                     "gets stuck in it",
                     test_op(pt, done[pt])->name, test_op(pt, done[pt])->arg, pt);
            return false;
        }
    }
    return true;
}

/* ---- phase 2: concurrent runs, in a child process ---- */

static _Atomic uint64_t go_gen;
static _Atomic int finished;
static void *run_obj;

static void wait_spin(bool (*cond)(uint64_t), uint64_t arg)
{
    for (unsigned i = 0; !cond(arg); i++)
        if (i > 256)
            sched_yield();
}

static bool gen_reached(uint64_t g)
{
    return atomic_load_explicit(&go_gen, memory_order_acquire) >= g;
}

static bool all_finished(uint64_t t)
{
    return (uint64_t)atomic_load_explicit(&finished, memory_order_acquire) >= t;
}

static void *worker_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    sh->tids[t] = (pid_t)syscall(SYS_gettid);
    for (uint64_t g = 1;; g++) {
        wait_spin(gen_reached, g);
        for (int i = 0; i < sh->N; i++) {
            struct call_rec *c = &sh->calls[t][i];
            const struct lineup_op *op = test_op(t, i);
            c->bytes = 0;
            current_bytes_hash = &c->bytes;
            c->t_call = now_ns();
            atomic_store(&c->state, CALL_RUNNING);
            atomic_fetch_add(&sh->progress, 1);
            c->result = op->fn(run_obj, op->arg);
            c->t_ret = now_ns();
            atomic_store(&c->state, CALL_DONE);
            atomic_fetch_add(&sh->progress, 1);
        }
        atomic_fetch_add_explicit(&finished, 1, memory_order_release);
    }
    return NULL;
}

static void run_seq(const struct lineup_op *ops, int n, struct call_rec *recs)
{
    for (int j = 0; j < n; j++) {
        recs[j].bytes = 0;
        current_bytes_hash = &recs[j].bytes;
        atomic_store(&recs[j].state, CALL_RUNNING);
        atomic_fetch_add(&sh->progress, 1);
        recs[j].result = ops[j].fn(run_obj, ops[j].arg);
        atomic_store(&recs[j].state, CALL_DONE);
        atomic_fetch_add(&sh->progress, 1);
    }
}

/* Runs the matrix until `until` (monotonic ns); exits EXIT_SLICE_DONE, or
 * EXIT_VIOLATION with the run left in sh->calls. */
static void run_child(int64_t until)
{
    int T = sh->T;
    for (int t = 0; t < T; t++) {
        pthread_t th;
        if (pthread_create(&th, NULL, worker_main, (void *)(intptr_t)t) != 0) {
            fprintf(stderr, "stress: pthread_create failed\n");
            _exit(EXIT_TOOL_ERROR);
        }
    }
    for (uint64_t g = 1; now_ns() < until; g++) {
        for (int t = 0; t < T; t++)
            for (int i = 0; i < sh->N; i++)
                atomic_store(&sh->calls[t][i].state, CALL_IDLE);
        for (int j = 0; j < sh->D; j++)
            atomic_store(&sh->teardown[j].state, CALL_IDLE);
        run_obj = H->create();
        atomic_store(&sh->phase, 1);
        run_seq(SETUP ? SETUP->ops : NULL, sh->S, sh->setup);
        atomic_store(&finished, 0);
        atomic_store(&sh->phase, 2);
        atomic_store_explicit(&go_gen, g, memory_order_release);
        wait_spin(all_finished, (uint64_t)T);
        atomic_store(&sh->phase, 3);
        run_seq(TEARDOWN ? TEARDOWN->ops : NULL, sh->D, sh->teardown);
        atomic_store(&sh->phase, 0);
        if (!check_complete()) {
            sh->failed = 1;
            _exit(EXIT_VIOLATION);
        }
        if (H->destroy)
            H->destroy(run_obj);
        atomic_fetch_add(&sh->runs, 1);
    }
    _exit(EXIT_SLICE_DONE);
}

/* ---- the parent ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void print_matrix(FILE *f)
{
    for (int t = 0; t < sh->T; t++) {
        fprintf(f, "%s", t ? " | " : "");
        for (int i = 0; i < sh->N; i++)
            fprintf(f, "%s%s(%" PRId64 ")", i ? " " : "", test_op(t, i)->name, test_op(t, i)->arg);
    }
}

static void print_run(int64_t t0)
{
    printf("run (times in microseconds from the first call):\n");
    for (int j = 0; j < sh->S; j++)
        printf("    setup    %s(%" PRId64 ") -> %" PRId64 "\n", SETUP->ops[j].name, SETUP->ops[j].arg,
               sh->setup[j].result);
    for (int t = 0; t < sh->T; t++)
        for (int i = 0; i < sh->N; i++) {
            struct call_rec *c = &sh->calls[t][i];
            int st = atomic_load(&c->state);
            printf("    thread %d %s(%" PRId64 ")", t, test_op(t, i)->name, test_op(t, i)->arg);
            if (st == CALL_DONE)
                printf(" -> %" PRId64 "   [%.1f, %.1f]\n", c->result, (c->t_call - t0) / 1e3,
                       (c->t_ret - t0) / 1e3);
            else if (st == CALL_RUNNING)
                printf(" never returned   [%.1f, ...]\n", (c->t_call - t0) / 1e3);
            else
                printf(" not started\n");
        }
    for (int j = 0; j < sh->D; j++)
        if (atomic_load(&sh->teardown[j].state) == CALL_DONE)
            printf("    teardown %s(%" PRId64 ") -> %" PRId64 "\n", TEARDOWN->ops[j].name,
                   TEARDOWN->ops[j].arg, sh->teardown[j].result);
}

static int64_t first_call_time(void)
{
    int64_t t0 = INT64_MAX;
    for (int t = 0; t < sh->T; t++)
        if (atomic_load(&sh->calls[t][0].state) != CALL_IDLE && sh->calls[t][0].t_call < t0)
            t0 = sh->calls[t][0].t_call;
    return t0 == INT64_MAX ? 0 : t0;
}

static void usage(void)
{
    fprintf(stderr, "usage: stress [--seconds S] [--matrix TxN] [--seed S] [--harness NAME] [--slice-ms MS]\n"
                    "              [--hang-ms MS] [--quiet]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    double seconds = 60, slice_ms = 1000, hang_ms = 2000;
    int T = 3, N = 3;
    const char *want = NULL;
    bool quiet = false;
    uint64_t seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 16;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quiet")) {
            quiet = true;
            continue;
        }
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "--seconds"))
            seconds = atof(v);
        else if (!strcmp(a, "--matrix")) {
            if (sscanf(v, "%dx%d", &T, &N) != 2 || T < 1 || T > MAX_T || N < 1 || N > MAX_N) {
                fprintf(stderr, "stress: --matrix takes TxN with T <= %d, N <= %d\n", MAX_T, MAX_N);
                return 2;
            }
        } else if (!strcmp(a, "--seed"))
            seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--harness"))
            want = v;
        else if (!strcmp(a, "--slice-ms"))
            slice_ms = atof(v);
        else if (!strcmp(a, "--hang-ms"))
            hang_ms = atof(v);
        else
            usage();
    }
    for (unsigned i = 0; i < nharnesses && !H; i++)
        if (!want || !strcmp(harnesses[i]->name, want))
            H = harnesses[i];
    if (!H) {
        fprintf(stderr, "stress: no harness%s%s in this program\n", want ? " named " : "", want ? want : "");
        return 2;
    }
    for (unsigned i = 0; i < nsetups; i++)
        if (!strcmp(setups[i].name, H->name))
            SETUP = &setups[i];
    for (unsigned i = 0; i < nteardowns; i++)
        if (!strcmp(teardowns[i].name, H->name))
            TEARDOWN = &teardowns[i];
    if ((SETUP && SETUP->n > MAX_SEQ) || (TEARDOWN && TEARDOWN->n > MAX_SEQ)) {
        fprintf(stderr, "stress: at most %d setup and teardown calls\n", MAX_SEQ);
        return 2;
    }
    size_t size = sizeof(struct shared) + sizeof(struct entry) * MAX_ORDERS;
    sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (sh == MAP_FAILED) {
        perror("stress: mmap");
        return 2;
    }
    sh->T = T;
    sh->N = N;
    sh->S = SETUP ? (int)SETUP->n : 0;
    sh->D = TEARDOWN ? (int)TEARDOWN->n : 0;
    rng_state = seed;
    printf("stress: harness %s, %dx%d matrices, seed %" PRIu64 ", %.0f s\n", H->name, T, N, seed, seconds);
    fflush(stdout);

    int64_t start = now_ns(), deadline = start + (int64_t)(seconds * 1e9);
    uint64_t matrices = 0, runs = 0, hangs = 0;
    const char *found = "none";
    while (now_ns() < deadline && !strcmp(found, "none")) {
        for (int t = 0; t < T; t++)
            for (int i = 0; i < N; i++)
                sh->ops[t][i] = (int)(rng_next() % H->nops);
        matrices++;
        /* phase 1 */
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            build_table();
            _exit(EXIT_TABLE_DONE);
        }
        int status;
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_TOOL_ERROR)
            return 2;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != EXIT_TABLE_DONE) {
            printf("serial run of ");
            print_matrix(stdout);
            printf(WIFSIGNALED(status) ? ": crash (signal %d) in a serial execution\n" : ": failed (%d)\n",
                   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
            found = "crash";
            break;
        }
        if (sh->table_error) {
            fprintf(stderr, "stress: %s: use a smaller matrix\n",
                    sh->table_error == 1 ? "too many serial orders" : "too many serial orders get stuck");
            return 2;
        }
        /* phase 2, in slices; a hung run ends a slice early */
        int64_t slice_end = now_ns() + (int64_t)(slice_ms * 1e6);
        if (slice_end > deadline)
            slice_end = deadline;
        while (now_ns() < slice_end && !strcmp(found, "none")) {
            atomic_store(&sh->runs, 0);
            atomic_store(&sh->phase, 0);
            sh->failed = 0;
            memset(sh->tids, 0, sizeof sh->tids);
            fflush(stdout);
            pid = fork();
            if (pid == 0)
                run_child(slice_end);
            uint64_t last_progress = UINT64_MAX;
            int64_t last_change = now_ns();
            int asleep = 0;
            bool hung = false;
            for (;;) {
                pid_t r = waitpid(pid, &status, WNOHANG);
                if (r == pid)
                    break;
                sleep_ms(2);
                uint64_t p = atomic_load(&sh->progress);
                int64_t now = now_ns();
                if (p != last_progress) {
                    last_progress = p;
                    last_change = now;
                    asleep = 0;
                    continue;
                }
                /* no call started or returned since the last poll: hung if
                 * every thread inside a call sleeps in the kernel (and
                 * none is still to start one) */
                bool all_asleep = atomic_load(&sh->phase) == 2;
                int inside = 0;
                for (int t = 0; all_asleep && t < T; t++) {
                    int n = 0;
                    while (n < N && atomic_load(&sh->calls[t][n].state) == CALL_DONE)
                        n++;
                    if (n == N)
                        continue;
                    if (atomic_load(&sh->calls[t][n].state) != CALL_RUNNING) {
                        all_asleep = false;
                        break;
                    }
                    char st = sh->tids[t] ? thread_state(pid, sh->tids[t]) : 0;
                    all_asleep = st == 'S' || st == 'D';
                    inside++;
                }
                if (inside == 0)
                    all_asleep = false;
                asleep = all_asleep ? asleep + 1 : 0;
                if (asleep >= 2 || now - last_change > (int64_t)(hang_ms * 1e6)) {
                    hung = true;
                    break;
                }
            }
            if (hung) {
                char why[256] = "";
                bool ok = check_stuck(why, sizeof why);
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                runs += atomic_load(&sh->runs) + 1;
                hangs++;
                if (!ok) {
                    printf("FAIL: stuck run with no serial explanation\n  matrix: ");
                    print_matrix(stdout);
                    printf("\n  why: %s\n", why);
                    print_run(first_call_time());
                    found = "stuck";
                }
                continue;
            }
            runs += atomic_load(&sh->runs);
            if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_TOOL_ERROR)
                return 2;
            if (WIFSIGNALED(status)) {
                printf("FAIL: crash (signal %d: %s)\n  matrix: ", WTERMSIG(status),
                       strsignal(WTERMSIG(status)));
                print_matrix(stdout);
                printf("\n");
                print_run(first_call_time());
                found = "crash";
                runs++;
            } else if (WEXITSTATUS(status) == EXIT_VIOLATION && sh->failed) {
                printf("FAIL: linearizability violation: no serial order of the calls gives these results\n"
                       "  matrix: ");
                print_matrix(stdout);
                printf("\n");
                print_run(first_call_time());
                found = "violation";
                runs++;
            } else if (WEXITSTATUS(status) != EXIT_SLICE_DONE) {
                printf("FAIL: the code under test called exit(%d)\n  matrix: ", WEXITSTATUS(status));
                print_matrix(stdout);
                printf("\n");
                found = "crash";
                runs++;
            }
        }
        if (!quiet)
            fprintf(stderr, "\rstress: %.1f s, %" PRIu64 " matrices, %" PRIu64 " runs, %" PRIu64 " hung   ",
                    (now_ns() - start) / 1e9, matrices, runs, hangs);
    }
    if (!quiet)
        fprintf(stderr, "\n");
    printf("stress-result: found=%s seconds=%.2f matrices=%" PRIu64 " runs=%" PRIu64 " hung=%" PRIu64 "\n",
           found, (now_ns() - start) / 1e9, matrices, runs, hangs);
    return strcmp(found, "none") ? 1 : 0;
}
