/*
 * dining_philosophers: three philosophers, three forks, each philosopher
 * takes the fork on the left, then the one on the right.
 *
 * Bug: a lock-order cycle of length three (0 -> 1 -> 2 -> 0). No two
 * philosophers alone can deadlock; all three must hold their left fork.
 *
 * Failing interleaving: philosopher 0 takes fork 0 and is preempted;
 * philosopher 2 takes fork 2 and blocks on fork 0; philosopher 1 takes fork
 * 1 and blocks on fork 2; philosopher 0 blocks on fork 1.
 *
 * Preemptions: 1 (philosopher 0 between its two locks; every other switch
 * happens when a philosopher blocks). The order matters: after the
 * preemption, philosopher 2 must run before philosopher 1 (in the other
 * order philosopher 1 eats with forks 1 and 2 and the cycle never closes
 * without a second preemption).
 * Kind: deadlock (natively: a hang).
 * Fixed (-DFIXED): the last philosopher takes the lower-numbered fork
 * first, which breaks the cycle (resource ordering).
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdint.h>

#define N 3

static pthread_mutex_t fork_lock[N];
static int meals[N];

static void *philosopher(void *arg)
{
    int id = (int)(intptr_t)arg;
    int left = id, right = (id + 1) % N;
#ifdef FIXED
    if (right < left) {
        int t = left;
        left = right;
        right = t;
    }
#endif
    pthread_mutex_lock(&fork_lock[left]);
    pthread_mutex_lock(&fork_lock[right]);
    meals[id]++;
    pthread_mutex_unlock(&fork_lock[right]);
    pthread_mutex_unlock(&fork_lock[left]);
    return NULL;
}

int main(void)
{
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_mutex_init(&fork_lock[i], NULL);
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], NULL, philosopher, (void *)(intptr_t)i);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < N; i++)
        assert(meals[i] == 1);
    return 0;
}
