/*
 * A use after free: main frees the block of an object another thread waits
 * on, or is about to operate on, and allocates the block again. Natively
 * the waiter sleeps for good; under lineup the model of an object a thread
 * is at stays (lu_sched_forget_sync), so the execution is a deadlock, not
 * a crash in lineup's own code blamed on the program. The argument picks
 * the object: 0 mutex, 1 semaphore, 2 rwlock, 3 barrier, 4 condition.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

struct obj {
    pthread_mutex_t m;
    pthread_rwlock_t rw;
    sem_t s;
    pthread_barrier_t b;
    pthread_cond_t c;
};
static struct obj *a;
static pthread_mutex_t gm = PTHREAD_MUTEX_INITIALIZER;
static int mode;

static void *waiter(void *p)
{
    (void)p;
    switch (mode) {
    case 0:
        pthread_mutex_lock(&a->m);
        break;
    case 1:
        sem_wait(&a->s);
        break;
    case 2:
        pthread_rwlock_rdlock(&a->rw);
        break;
    case 3:
        pthread_barrier_wait(&a->b);
        break;
    default:
        pthread_mutex_lock(&gm);
        pthread_cond_wait(&a->c, &gm);
        pthread_mutex_unlock(&gm);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    mode = argc > 1 ? atoi(argv[1]) : 0;
    a = malloc(sizeof *a);
    pthread_mutex_init(&a->m, NULL);
    pthread_rwlock_init(&a->rw, NULL);
    sem_init(&a->s, 0, 0);
    pthread_barrier_init(&a->b, NULL, 2);
    pthread_cond_init(&a->c, NULL);
    pthread_mutex_lock(&a->m);
    pthread_rwlock_wrlock(&a->rw);
    pthread_t t;
    pthread_create(&t, NULL, waiter, NULL);
    free(a);
    void *b = malloc(sizeof *a);
    pthread_join(t, NULL);
    free(b);
    return 0;
}
