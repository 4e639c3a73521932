/*
 * Divergence: a thread waits on a plain int nobody sets. Plain accesses are
 * not scheduling points, so only the watchdog can stop it. The empty asm
 * keeps the load in the loop and gives the loop a side effect (C11
 * 6.8.5p6 would let the compiler delete it).
 *
 * SIGNALS_OFF: the waiter first blocks every signal and ignores the
 * real-time ones, as a careless program might: the watchdog must still
 * fire, not the per-execution timeout.
 *
 * SIGNALS_CTOR: a constructor blocks every signal before main, where no
 * interposer keeps the watchdog's signal out of the mask.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

static int plain_flag;
static atomic_int started;

#ifdef SIGNALS_CTOR
__attribute__((constructor)) static void block_all(void)
{
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
}
#endif

static void *waiter(void *arg)
{
    (void)arg;
#ifdef SIGNALS_OFF
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    sigprocmask(SIG_SETMASK, &all, NULL);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++) {
        signal(s, SIG_IGN);
        struct sigaction ign = {.sa_handler = SIG_IGN};
        sigaction(s, &ign, NULL);
    }
#endif
    atomic_store(&started, 1);
    while (!plain_flag)
        __asm__ __volatile__("" ::: "memory");
    return NULL;
}

int main(void)
{
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    pthread_join(t, NULL);
    return 0;
}
