/*
 * A thread raises a synchronous signal itself (SIG, default SIGSEGV): a
 * raise() is not re-executed like a faulting load, so lineup's fatal
 * handler must end the process itself or the program goes on as if
 * nothing happened.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#ifndef SIG
#define SIG SIGSEGV
#endif

static void *worker(void *arg)
{
    (void)arg;
    raise(SIG);
    puts("survived the signal");
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    return 0;
}
