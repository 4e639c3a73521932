/*
 * exit() from a thread in one interleaving only: the checker (thread 1)
 * calls exit(3) when the setter (thread 2) already stored the flag. Thread 1
 * runs first by default, so the exit needs a schedule that runs thread 2's
 * store before thread 1's load, and the recorded schedule is what makes the
 * replay exit again. Under control, exit() must be reported through
 * on_fatal (kind EXIT, code 3) and end the process with status 3.
 */
#include "programs.h"

#include <stdatomic.h>
#include <stdlib.h>

static _Atomic int flag;

void *exit3_checker(void *arg)
{
    (void)arg;
    if (atomic_load(&flag))
        exit(3);
    return NULL;
}

static void *setter(void *arg)
{
    (void)arg;
    atomic_store(&flag, 1);
    return NULL;
}

void *exit3_main(void *arg)
{
    (void)arg;
    atomic_init(&flag, 0);
    pthread_t c, s;
    pthread_create(&c, NULL, exit3_checker, NULL);
    pthread_create(&s, NULL, setter, NULL);
    pthread_join(c, NULL);
    pthread_join(s, NULL);
    return NULL;
}
