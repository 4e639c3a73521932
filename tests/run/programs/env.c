/*
 * Depends on an environment variable, which a replay file does not record:
 * with LINEUP_TEST_RACY=1 the two increments are a load and a store (a lost
 * update); without it, one atomic increment each.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_int counter;
static int racy;

static void *incr(void *arg)
{
    (void)arg;
    if (racy)
        atomic_store(&counter, atomic_load(&counter) + 1);
    else
        atomic_fetch_add(&counter, 1);
    return NULL;
}

int main(void)
{
    const char *e = getenv("LINEUP_TEST_RACY");
    racy = e && strcmp(e, "1") == 0;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, incr, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    assert(atomic_load(&counter) == 2);
    return 0;
}
