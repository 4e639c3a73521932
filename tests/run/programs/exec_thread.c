/*
 * A thread replaces the program: execl of
 * /bin/sh, which exits with status 5 (default), or the same by execve
 * (-DEXECVE). The report must name the call and the thread that made it.
 * With -DMISSING the exec fails (no such file): it returns -1 with ENOENT
 * and the thread goes on, as natively.
 */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

extern char **environ;
static atomic_int ready;

static void *worker(void *arg)
{
    (void)arg;
    if (atomic_load(&ready)) {
#if defined(MISSING)
        int rc = execl("/nonexistent/lineup-exec-test", "x", (char *)NULL);
        assert(rc == -1 && errno == ENOENT);
#elif defined(EXECVE)
        char *argv[] = {"sh", "-c", "exit 5", NULL};
        execve("/bin/sh", argv, environ);
#else
        execl("/bin/sh", "sh", "-c", "echo replaced; exit 5", (char *)NULL);
#endif
    }
    return NULL;
}

int main(void)
{
    /* set before the thread starts: every schedule replaces the program */
    atomic_store(&ready, 1);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) == 0)
        pthread_join(t, NULL);
    return 0;
}
