/*
 * The indexer of SV-COMP's pthread set (after Flanagan and Godefroid's
 * DPOR paper, POPL 2005), with 3 threads: each inserts 4 values into a
 * hash table by a compare-and-swap under the slot's own mutex, probing on
 * a collision. Correct; its threads rarely touch the same slot, so with
 * partial-order reduction an unbounded search needs 155 executions, and
 * preemption bounds 0 to 2 each cut some schedules (bound 3 cuts none).
 */
#include <assert.h>
#include <pthread.h>

#define SIZE 128
#define MAX 4
#define NUM_THREADS 3

static int table[SIZE];
static pthread_mutex_t cas_mutex[SIZE];

static int cas(int *tab, int h, int val, int new_val)
{
    int ret = 0;
    pthread_mutex_lock(&cas_mutex[h]);
    if (tab[h] == val) {
        tab[h] = new_val;
        ret = 1;
    }
    pthread_mutex_unlock(&cas_mutex[h]);
    return ret;
}

static void *insert(void *arg)
{
    int tid = (int)(long)arg;
    for (int m = 1; m <= MAX; m++) {
        int w = m * 11 + tid;
        int h = (w * 7) % SIZE;
        while (cas(table, h, 0, w) == 0)
            h = (h + 1) % SIZE;
    }
    return NULL;
}

int main(void)
{
    pthread_t tids[NUM_THREADS];
    for (int i = 0; i < SIZE; i++)
        pthread_mutex_init(&cas_mutex[i], NULL);
    for (long i = 0; i < NUM_THREADS; i++)
        pthread_create(&tids[i], NULL, insert, (void *)i);
    for (int i = 0; i < NUM_THREADS; i++)
        pthread_join(tids[i], NULL);
    int n = 0;
    for (int i = 0; i < SIZE; i++)
        n += table[i] != 0;
    assert(n == NUM_THREADS * MAX);
    return 0;
}
