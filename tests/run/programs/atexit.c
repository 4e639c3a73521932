/*
 * Exit handlers run when the program exits under lineup, as natively:
 * main registers a check with atexit and returns without joining its
 * workers, so the check fails on schedules where a worker has not run
 * yet. With -DFIXED main joins first, and the handlers run in reverse
 * order of registration, the one a constructor registered last, which
 * ends the process with status 42 when the others ran before it (on_exit's
 * with the status). With -DQUICK main ends with quick_exit, which runs the
 * at_quick_exit handler only: it ends the process with status 43.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_int done;
static int step;

static void from_constructor(void)
{
    _exit(step == 2 ? 42 : 1);
}

__attribute__((constructor)) static void setup(void)
{
    atexit(from_constructor);
}

static void with_status(int status, void *arg)
{
    assert(status == 0 && strcmp(arg, "argument") == 0);
    assert(step++ == 1);
}

static void check(void)
{
    assert(atomic_load(&done) == 2);
    assert(step++ == 0);
}

static void quick(void)
{
    _exit(step == 0 ? 43 : 1);
}

static void *worker(void *arg)
{
    (void)arg;
    atomic_fetch_add(&done, 1);
    return NULL;
}

int main(void)
{
    on_exit(with_status, "argument");
    atexit(check);
    at_quick_exit(quick);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, NULL);
#if defined(FIXED) || defined(QUICK)
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
#endif
#ifdef QUICK
    quick_exit(0);
#endif
    return 0;
}
