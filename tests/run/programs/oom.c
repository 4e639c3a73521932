/*
 * Allocates argv[1] MB in a thread and asserts that it got them, the way a
 * program that cannot go on without its memory does; "huge" asks for 64 TB
 * instead, which fails natively too, and asserts that it got NULL. Under a
 * ulimit -v that lineup's own processes fill, the first fails for want of
 * lineup's memory: lineup run must say so, not report the assertion.
 */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static size_t mb;
static int huge;

static void *grab(void *arg)
{
    (void)arg;
    if (huge) {
        void *p = malloc((size_t)1 << 46);
        assert(p == NULL);
        return NULL;
    }
    char *p = malloc(mb << 20);
    assert(p != NULL);
    memset(p, 1, mb << 20);
    free(p);
    return NULL;
}

int main(int argc, char **argv)
{
    huge = argc > 1 && strcmp(argv[1], "huge") == 0;
    mb = argc > 1 && !huge ? strtoul(argv[1], NULL, 10) : 0;
    pthread_t t;
    int rc = pthread_create(&t, NULL, grab, NULL);
    assert(rc == 0);
    grab(NULL);
    pthread_join(t, NULL);
    return 0;
}
