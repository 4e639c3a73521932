/*
 * A polling loop of futex wakes and sleeps: main wakes the word and
 * sleeps until the waiter says it got through. The waiter waits on
 * another word by mistake, so main's wakes wake nobody and it polls for
 * ever: a livelock (a wake that would wake nobody, repeated with nothing
 * changed, is a look that waits, as a re-read is), not an execution too
 * long. With -DFIXED the waiter waits on the word main wakes.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic unsigned word;
#ifndef FIXED
static _Atomic unsigned other;
#endif
static atomic_int ack;

static void *waiter(void *arg)
{
    (void)arg;
#ifdef FIXED
    syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
#else
    syscall(SYS_futex, &other, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
#endif
    atomic_store(&ack, 1);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    while (!atomic_load(&ack)) {
        syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        usleep(1000);
    }
    pthread_join(t, NULL);
    return 0;
}
