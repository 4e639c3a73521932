/*
 * bank_lost_update: two customers deposit into one account.
 *
 * Bug: the balance is a volatile long and deposit() does `balance += amount`
 * on it. volatile makes every access reach memory, but the update is still a
 * load and a separate store; a deposit that lands between them is
 * overwritten.
 *
 * Failing interleaving: customer 1 loads the balance (100), is preempted
 * before its store; customer 2 makes both deposits (120); customer 1 stores
 * 110 and makes its second deposit: 120 instead of 140.
 *
 * Preemptions: 1 (customer 1 between its load and its store).
 * Kind: assertion in main.
 * Fixed (-DFIXED): the update is done under the account's mutex.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>

#define CUSTOMERS 2
#define DEPOSITS 2
#define AMOUNT 10

static volatile long balance = 100;
#ifdef FIXED
static pthread_mutex_t account_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

static void deposit(long amount)
{
#ifdef FIXED
    pthread_mutex_lock(&account_lock);
    balance += amount;
    pthread_mutex_unlock(&account_lock);
#else
    balance += amount;
#endif
}

static void *customer(void *arg)
{
    (void)arg;
    for (int i = 0; i < DEPOSITS; i++)
        deposit(AMOUNT);
    return NULL;
}

int main(void)
{
    pthread_t t[CUSTOMERS];
    for (int i = 0; i < CUSTOMERS; i++)
        pthread_create(&t[i], NULL, customer, NULL);
    for (int i = 0; i < CUSTOMERS; i++)
        pthread_join(t[i], NULL);
    assert(balance == 100 + CUSTOMERS * DEPOSITS * AMOUNT);
    return 0;
}
