/*
 * lock_leak_error_path: a pool of one connection shared by two clients.
 *
 * Bug: pool_take() returns early when the pool is empty, without unlocking
 * the pool mutex. The error path runs only when a client asks while the
 * other one holds the connection; the client then gives up and ends, the
 * mutex stays locked, and the next pool call (the other client returning
 * its connection) blocks forever.
 *
 * Failing interleaving: client 1 takes the connection and is preempted
 * before returning it; client 2 finds the pool empty and leaves with the
 * lock held; client 1 blocks in pool_put().
 *
 * Preemptions: 1 (client 1 while it holds the connection).
 * Kind: deadlock (a mutex held by a thread that has ended; natively: a
 * hang).
 * Fixed (-DFIXED): the error path unlocks.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static int available = 1;
static atomic_int served, refused;

static int pool_take(void)
{
    pthread_mutex_lock(&pool_lock);
    if (available == 0) {
#ifdef FIXED
        pthread_mutex_unlock(&pool_lock);
#endif
        return -1;
    }
    available--;
    pthread_mutex_unlock(&pool_lock);
    return 0;
}

static void pool_put(void)
{
    pthread_mutex_lock(&pool_lock);
    available++;
    pthread_mutex_unlock(&pool_lock);
}

static void *client(void *arg)
{
    (void)arg;
    if (pool_take() == 0) {
        atomic_fetch_add(&served, 1); /* use the connection */
        pool_put();
    } else {
        atomic_fetch_add(&refused, 1);
    }
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    pthread_create(&t1, NULL, client, NULL);
    pthread_create(&t2, NULL, client, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert(atomic_load(&served) + atomic_load(&refused) == 2);
    pthread_mutex_lock(&pool_lock);
    assert(available == 1);
    pthread_mutex_unlock(&pool_lock);
    return 0;
}
