/*
 * Creates THREADS threads at once (default 70), more than lineup runs in
 * one execution; every pthread_create is checked, as careful programs do.
 * Under lineup the execution must end as unsupported at the create that
 * goes past the bound, not fail it with EAGAIN.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef THREADS
#define THREADS 70
#endif

static void *work(void *arg)
{
    return arg;
}

int main(void)
{
    static pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        int err = pthread_create(&t[i], NULL, work, NULL);
        if (err) {
            fprintf(stderr, "pthread_create %d: error %d\n", i, err);
            return 1;
        }
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    puts("all joined");
    return 0;
}
