/*
 * main starts a background process through the shell (system("sleep 966.5
 * &"), which the shell leaves behind when it exits), waits 0.3 s of real
 * time (a raw nanosleep, which lineup does not make virtual) and asserts
 * that the process is still alive, then kills it. Correct: the process is
 * the execution's until the execution ends. Until session 31, with --jobs,
 * the sweep after another lane's execution killed it as an orphan (a false
 * FAIL): now each execution is a subreaper of what it detaches.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int x;

static void *worker(void *a)
{
    atomic_fetch_add(&x, 1);
    return a;
}

int main(void)
{
    char cmd[200], f[100];
    snprintf(f, sizeof f, "/tmp/lineup-daemon-alive.%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "sleep 966.5 & echo $! > %s", f);
    if (system(cmd) != 0)
        return 2;
    FILE *fp = fopen(f, "r");
    int pid = 0;
    if (!fp || fscanf(fp, "%d", &pid) != 1)
        return 2;
    fclose(fp);
    unlink(f);
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
    struct timespec ts = {0, 300000000};
    syscall(SYS_nanosleep, &ts, NULL);
    int alive = kill(pid, 0) == 0;
    kill(pid, SIGKILL);
    assert(alive);
    return 0;
}
