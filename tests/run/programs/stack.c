/*
 * A worker created with a 64 MiB stack (pthread_attr_setstacksize) uses
 * 16 MiB of it, as it may natively. With -DDEFAULT_STACK the attribute is
 * left out: 16 MiB is more than the default 8 MiB, a crash natively and
 * under lineup alike; -DHUGE_STACK asks for 1 GiB (resources.sh).
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define BIG (16u << 20)

static atomic_int sum;

static void *worker(void *arg)
{
    volatile char big[BIG];
    memset((char *)big, 1, sizeof big);
    atomic_fetch_add(&sum, big[12345] + big[BIG - 1]);
    return arg;
}

int main(void)
{
    pthread_attr_t a;
    pthread_attr_init(&a);
#if defined HUGE_STACK
    pthread_attr_setstacksize(&a, 1u << 30);
#elif !defined DEFAULT_STACK
    pthread_attr_setstacksize(&a, 64u << 20);
#endif
    pthread_t t;
    int rc = pthread_create(&t, &a, worker, NULL);
    assert(rc == 0);
    pthread_attr_destroy(&a);
    atomic_fetch_add(&sum, 1);
    pthread_join(t, NULL);
    assert(atomic_load(&sum) == 3);
    return 0;
}
