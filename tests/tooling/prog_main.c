/* A small threaded program built with lineup-cc in one compile-and-link
 * command. Run outside lineup, every __tsan_* call passes through, so it
 * prints the plain result: "result 4000 4000". */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

void helper_add(int n);
long helper_total(void);

static atomic_int counter;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int guarded;

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        atomic_fetch_add(&counter, 1);
        pthread_mutex_lock(&lock);
        guarded++;
        pthread_mutex_unlock(&lock);
    }
    helper_add(1000);
    return NULL;
}

int main(void)
{
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0)
            return 1;
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    printf("result %d %ld\n", atomic_load(&counter), helper_total() == guarded ? helper_total() : -1L);
    return 0;
}
