/*
 * A writer-preferring rwlock: a writer waiting in pthread_rwlock_timedwrlock
 * turns new readers away, as one waiting in pthread_rwlock_wrlock does.
 * main holds a read lock and polls tryrdlock until it fails (the writer
 * waits) or the writer gave up: passes. Until session 31 a timed writer
 * never registered, so main's poll went on for ever: a false "execution too
 * long".
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

static pthread_rwlock_t rw;
static atomic_int writer_done;

static void *writer(void *a)
{
    (void)a;
    struct timespec d;
    clock_gettime(CLOCK_REALTIME, &d);
    d.tv_sec += 10;
    int rc = pthread_rwlock_timedwrlock(&rw, &d);
    assert(rc == 0 || rc == ETIMEDOUT);
    if (rc == 0)
        pthread_rwlock_unlock(&rw);
    atomic_store(&writer_done, 1);
    return 0;
}

int main(void)
{
    pthread_rwlockattr_t at;
    pthread_rwlockattr_init(&at);
    pthread_rwlockattr_setkind_np(&at, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&rw, &at);
    pthread_rwlock_rdlock(&rw);
    pthread_t w;
    pthread_create(&w, 0, writer, 0);
    while (!atomic_load(&writer_done) && pthread_rwlock_tryrdlock(&rw) == 0) {
        pthread_rwlock_unlock(&rw);
        sched_yield();
    }
    pthread_rwlock_unlock(&rw);
    pthread_join(w, 0);
    return 0;
}
