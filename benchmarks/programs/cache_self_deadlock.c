/*
 * cache_self_deadlock: a cached value refreshed when its source changes.
 *
 * Bug: cache_get() holds the cache lock and, when it sees that the source
 * version moved, calls cache_refresh(), which takes the same (default,
 * non-recursive) mutex again: the thread deadlocks with itself. The path
 * is only taken when the updater ran before the reader looked, so most
 * runs never see it.
 *
 * Failing interleaving: the updater bumps the version before the reader's
 * check (the reader is created first and runs first by default).
 *
 * Preemptions: 0 (which thread runs first when main blocks in join is a
 * free choice); 1 delay for delay bounding.
 * Kind: deadlock (a self-deadlock; natively: a hang).
 * Fixed (-DFIXED): cache_get() calls the unlocked helper refresh_locked().
 * Native (native.sh): hangs now and then (once in about 200 runs).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int source_version;
static int cached_version;
static int cached_value;

static int load_source(void)
{
    return 40 + atomic_load(&source_version);
}

/* Caller holds cache_lock. */
static void refresh_locked(void)
{
    cached_version = atomic_load(&source_version);
    cached_value = load_source();
}

static void cache_refresh(void)
{
    pthread_mutex_lock(&cache_lock);
    refresh_locked();
    pthread_mutex_unlock(&cache_lock);
}

static int cache_get(void)
{
    pthread_mutex_lock(&cache_lock);
    if (atomic_load(&source_version) != cached_version) {
#ifdef FIXED
        refresh_locked();
#else
        cache_refresh();
#endif
    }
    int v = cached_value;
    pthread_mutex_unlock(&cache_lock);
    return v;
}

static void *reader(void *arg)
{
    (void)arg;
    int v = cache_get();
    assert(v == 40 || v == 41);
    return NULL;
}

static void *updater(void *arg)
{
    (void)arg;
    atomic_fetch_add(&source_version, 1);
    return NULL;
}

int main(void)
{
    cache_refresh();
    pthread_t r, u;
    pthread_create(&r, NULL, reader, NULL);
    pthread_create(&u, NULL, updater, NULL);
    pthread_join(r, NULL);
    pthread_join(u, NULL);
    return 0;
}
