/*
 * A futex wake orders the waker before the threads it wakes, and nothing
 * else: a wake that woke nobody publishes nothing, and a wait that
 * returns EAGAIN only read the word (an acquire load of it). Here the
 * writer wakes nobody and main's wait returns EAGAIN (the word is never
 * 0), so main's plain read of data races with the write before the
 * wake. With -DFIXED the writer stores the word with release order and
 * main waits until it changed: woken by the wake, or EAGAIN having read
 * the release store; either orders the write before the read.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef FIXED
static _Atomic unsigned word;
#else
static _Atomic unsigned word = 1;
#endif
static atomic_int woke; /* relaxed: orders nothing */
static int data;

static long futex(int op, unsigned val)
{
    return syscall(SYS_futex, &word, op, val, NULL, NULL, 0);
}

static void *writer(void *arg)
{
    (void)arg;
    data = 42;
#ifdef FIXED
    atomic_store_explicit(&word, 1, memory_order_release);
#endif
    futex(FUTEX_WAKE_PRIVATE, 1);
    atomic_store_explicit(&woke, 1, memory_order_relaxed);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, writer, NULL);
#ifdef FIXED
    do
        futex(FUTEX_WAIT_PRIVATE, 0);
    while (atomic_load_explicit(&word, memory_order_relaxed) == 0);
    printf("data %d\n", data);
#else
    if (atomic_load_explicit(&woke, memory_order_relaxed) && futex(FUTEX_WAIT_PRIVATE, 0) == -1)
        printf("data %d\n", data);
#endif
    pthread_join(t, NULL);
    return 0;
}
