/*
 * bank_check_then_act: two withdrawals from one account.
 *
 * Bug: withdraw() checks the balance in one critical section and debits it
 * in another. Each step is correctly locked, but the pair is not atomic: both
 * withdrawals can pass the check before either debits.
 *
 * Failing interleaving: withdrawal 1 reads 100 >= 80 and is preempted before
 * it locks again to debit; withdrawal 2 checks and debits (20); withdrawal 1
 * debits too: -60, an overdraft.
 *
 * Preemptions: 1 (withdrawal 1 between the check and the debit).
 * Kind: assertion in main (balance >= 0).
 * Fixed (-DFIXED): check and debit in one critical section.
 * Native (native.sh): failed once in 1200 gcc runs, never with clang.
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdbool.h>

struct account {
    pthread_mutex_t lock;
    long balance;
};

static struct account acct = {PTHREAD_MUTEX_INITIALIZER, 100};

static long balance_of(struct account *a)
{
    pthread_mutex_lock(&a->lock);
    long b = a->balance;
    pthread_mutex_unlock(&a->lock);
    return b;
}

static bool withdraw(struct account *a, long amount)
{
#ifdef FIXED
    bool ok = false;
    pthread_mutex_lock(&a->lock);
    if (a->balance >= amount) {
        a->balance -= amount;
        ok = true;
    }
    pthread_mutex_unlock(&a->lock);
    return ok;
#else
    if (balance_of(a) < amount)
        return false;
    pthread_mutex_lock(&a->lock);
    a->balance -= amount;
    pthread_mutex_unlock(&a->lock);
    return true;
#endif
}

static void *client(void *arg)
{
    (void)arg;
    withdraw(&acct, 80);
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, client, NULL);
    pthread_create(&t2, NULL, client, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(balance_of(&acct) >= 0);
    return 0;
}
