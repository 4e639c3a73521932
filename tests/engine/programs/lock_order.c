/*
 * Lock-order inversion: thread 1 takes a then b, thread 2 takes b then a.
 * DFS must find the execution where each holds its first lock and waits
 * for the other's, and the report must say where: both threads blocked in
 * pthread_mutex_lock, waiting for the right mutex, with the return address
 * of the call inside these functions (which is why they are global: the
 * runner names the pcs with dladdr). The fixed version takes both in the
 * same order and never deadlocks.
 */
#include "programs.h"

pthread_mutex_t lock_order_a, lock_order_b;

void *lock_order_ab(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_order_a);
    pthread_mutex_lock(&lock_order_b);
    pthread_mutex_unlock(&lock_order_b);
    pthread_mutex_unlock(&lock_order_a);
    return NULL;
}

void *lock_order_ba(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock_order_b);
    pthread_mutex_lock(&lock_order_a);
    pthread_mutex_unlock(&lock_order_a);
    pthread_mutex_unlock(&lock_order_b);
    return NULL;
}

void *lock_order_main(void *variant)
{
    pthread_mutex_init(&lock_order_a, NULL);
    pthread_mutex_init(&lock_order_b, NULL);
    pthread_t t1, t2;
    pthread_create(&t1, NULL, lock_order_ab, NULL);
    pthread_create(&t2, NULL, variant == PROG_FIXED ? lock_order_ab : lock_order_ba, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    pthread_mutex_destroy(&lock_order_a);
    pthread_mutex_destroy(&lock_order_b);
    return NULL;
}
