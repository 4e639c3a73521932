/*
 * bank_transfer_deadlock: two transfers in opposite directions.
 *
 * Bug: transfer(from, to) locks `from` then `to`. transfer(a, b) and
 * transfer(b, a) take the two account locks in opposite orders: a
 * lock-order inversion between two threads.
 *
 * Failing interleaving: thread 1 locks a and is preempted before locking b;
 * thread 2 locks b and blocks on a; thread 1 blocks on b. Deadlock.
 *
 * Preemptions: 1 (thread 1 between its two locks).
 * Kind: deadlock (natively: a hang).
 * Fixed (-DFIXED): locks are taken in a global order (by account number).
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>

struct account {
    int number;
    pthread_mutex_t lock;
    long balance;
};

static struct account a = {1, PTHREAD_MUTEX_INITIALIZER, 100};
static struct account b = {2, PTHREAD_MUTEX_INITIALIZER, 100};

static void transfer(struct account *from, struct account *to, long amount)
{
#ifdef FIXED
    struct account *first = from->number < to->number ? from : to;
    struct account *second = first == from ? to : from;
#else
    struct account *first = from, *second = to;
#endif
    pthread_mutex_lock(&first->lock);
    pthread_mutex_lock(&second->lock);
    from->balance -= amount;
    to->balance += amount;
    pthread_mutex_unlock(&second->lock);
    pthread_mutex_unlock(&first->lock);
}

static void *a_to_b(void *arg)
{
    (void)arg;
    transfer(&a, &b, 10);
    return NULL;
}

static void *b_to_a(void *arg)
{
    (void)arg;
    transfer(&b, &a, 20);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, a_to_b, NULL);
    pthread_create(&t2, NULL, b_to_a, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(a.balance == 110 && b.balance == 90);
    return 0;
}
