/*
 * Condition-variable lost wakeup: the buggy waiter tests the flag before
 * taking the mutex, so the signaller can set it and signal in the window
 * between the test and the wait; the waiter then waits for a signal that
 * already happened, which the scheduler must report as a deadlock. The flag
 * is a plain int on purpose: the window exists without any scheduling point
 * of its own (the mutex lock after the test is one). The fixed waiter tests
 * under the mutex in a loop and must never get stuck.
 */
#include "programs.h"

int cond_wakeup_saw;
static pthread_mutex_t m;
static pthread_cond_t c;
static int ready;

static void *waiter_buggy(void *arg)
{
    (void)arg;
    if (!ready) {
        pthread_mutex_lock(&m);
        pthread_cond_wait(&c, &m);
        pthread_mutex_unlock(&m);
    }
    cond_wakeup_saw = ready;
    return NULL;
}

static void *waiter_fixed(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&c, &m);
    cond_wakeup_saw = ready;
    pthread_mutex_unlock(&m);
    return NULL;
}

static void *signaller(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    return NULL;
}

void *cond_wakeup_main(void *variant)
{
    ready = 0;
    cond_wakeup_saw = -1;
    pthread_mutex_init(&m, NULL);
    pthread_cond_init(&c, NULL);
    pthread_t w, s;
    pthread_create(&w, NULL, variant == PROG_FIXED ? waiter_fixed : waiter_buggy, NULL);
    pthread_create(&s, NULL, signaller, NULL);
    pthread_join(w, NULL);
    pthread_join(s, NULL);
    pthread_cond_destroy(&c);
    pthread_mutex_destroy(&m);
    return NULL;
}
