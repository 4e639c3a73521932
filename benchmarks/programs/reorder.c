/*
 * reorder: N threads share a configuration of two fields that readers
 * expect to change together: (0, 0) before, (1, -1) after. N - 1 setter
 * threads publish the new configuration, one checker thread reads it.
 * Compile with -DN=3, 5, 10 ... (default 3).
 *
 * Bug: the two fields are separate atomics, stored one after the other;
 * the pair is not updated atomically, so the checker can read a mix.
 *
 * Failing interleaving: the first setter stores `size` and is preempted
 * before `sign`; the checker reads (1, 0). (Or the checker reads `size`
 * (0), is preempted, a setter stores both, the checker reads `sign` (-1).)
 * Once any setter has finished, every later read is consistent, so the
 * window belongs to the first setter that runs: the more setters, the
 * smaller the share of schedules that open it (the point of the reorder_N
 * family: random schedulers degrade with N, PCT much less).
 *
 * Preemptions: 1.
 * Kind: assertion in the checker.
 * Fixed (-DFIXED): the pair is written and read under a mutex.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 3
#endif
#if N < 2 || N > 60
#error "N: between 2 and 60 threads"
#endif

static atomic_int size, sign;
#ifdef FIXED
static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

static void *setter(void *arg)
{
    (void)arg;
#ifdef FIXED
    pthread_mutex_lock(&config_lock);
#endif
    atomic_store(&size, 1);
    atomic_store(&sign, -1);
#ifdef FIXED
    pthread_mutex_unlock(&config_lock);
#endif
    return NULL;
}

static void *checker(void *arg)
{
    (void)arg;
#ifdef FIXED
    pthread_mutex_lock(&config_lock);
#endif
    int a = atomic_load(&size);
    int b = atomic_load(&sign);
#ifdef FIXED
    pthread_mutex_unlock(&config_lock);
#endif
    assert((a == 0 && b == 0) || (a == 1 && b == -1));
    return NULL;
}

int main(void)
{
    pthread_t t[N];
    for (int i = 0; i < N - 1; i++)
        pthread_create(&t[i], NULL, setter, NULL);
    pthread_create(&t[N - 1], NULL, checker, NULL);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    return 0;
}
