/*
 * FUTEX_WAKE with a count of 0 wakes one waiter: the kernel counts the
 * waiter before it compares with the count. main wakes with 0 until
 * somebody was woken, which ends natively.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

static _Atomic unsigned word;

static void *waiter(void *arg)
{
    (void)arg;
    syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    while (syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 0, NULL, NULL, 0) == 0)
        usleep(100);
    pthread_join(t, NULL);
    return 0;
}
