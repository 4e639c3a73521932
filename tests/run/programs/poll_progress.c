/*
 * Waits that poll under a lock, for the livelock detection.
 *
 * default: two threads hand a turn back and forth ROUNDS times through a
 * mutex and a plain field, yielding while it is not theirs: each handover
 * is progress (a plain write under the lock), so the run passes even with
 * a --spin-bound far below ROUNDS.
 *
 * TICKER: one thread stores to an atomic between yields ROUNDS times
 * while main waits for it: progress too.
 *
 * STACK: main counts to ROUNDS under a lock in a struct on its own stack,
 * yielding between counts, while a thread polls the count: progress too,
 * though main's writes to its own stack are not reported (the reason
 * lineup run does not take waits that poll under a lock for spinning).
 *
 * STUCK: a thread polls under the lock for a flag nobody sets; main joins
 * it. Under lineup run, an execution that runs into the limit of
 * scheduling points (a Line-Up test takes such a wait for stuck).
 */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#define ROUNDS 300

#if defined(STUCK)
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int flag;

static void *poller(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&m);
        int f = flag;
        pthread_mutex_unlock(&m);
        if (f)
            return 0;
        sched_yield();
    }
}

int main(void)
{
    pthread_t a;
    pthread_create(&a, 0, poller, 0);
    pthread_join(a, 0);
    return 0;
}
#elif defined(STACK)
struct shared {
    pthread_mutex_t m;
    int count;
};

static void *poller(void *arg)
{
    struct shared *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->m);
        int c = s->count;
        pthread_mutex_unlock(&s->m);
        if (c == ROUNDS)
            return 0;
        sched_yield();
    }
}

int main(void)
{
    struct shared s = {PTHREAD_MUTEX_INITIALIZER, 0};
    pthread_t a;
    pthread_create(&a, 0, poller, &s);
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&s.m);
        s.count++;
        pthread_mutex_unlock(&s.m);
        sched_yield();
    }
    pthread_join(a, 0);
    assert(s.count == ROUNDS);
    return 0;
}
#elif defined(TICKER)
static atomic_int ticks;

static void *ticker(void *arg)
{
    (void)arg;
    for (int n = 0; n < ROUNDS; n++) {
        atomic_store(&ticks, n + 1);
        sched_yield();
    }
    return 0;
}

int main(void)
{
    pthread_t a;
    pthread_create(&a, 0, ticker, 0);
    pthread_join(a, 0);
    assert(atomic_load(&ticks) == ROUNDS);
    return 0;
}
#else
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int turn, done[2];

static void *player(void *arg)
{
    int me = (int)(long)arg;
    for (int n = 0; n < ROUNDS;) {
        pthread_mutex_lock(&m);
        if (turn == me) {
            turn = !me;
            n++;
        }
        pthread_mutex_unlock(&m);
        sched_yield();
    }
    done[me] = 1;
    return 0;
}

int main(void)
{
    pthread_t a, b;
    pthread_create(&a, 0, player, (void *)0L);
    pthread_create(&b, 0, player, (void *)1L);
    pthread_join(a, 0);
    pthread_join(b, 0);
    assert(done[0] && done[1]);
    return 0;
}
#endif
