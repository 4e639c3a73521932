/*
 * Other processes, through /proc with open, read and close only (no stdio
 * streams, no allocation): who a process's parent is, which a signal handler may
 * ask, and ending the children that the code under test left running.
 * Apart from the rest of the scheduler, so that the driver's helpers link
 * it alone.
 */
#define _GNU_SOURCE
#include "lu_sched.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

unsigned lu_sched_reap_children(long tid, const pid_t *keep, unsigned nkeep)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/self/task/%ld/children", tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    /* a number cut at the buffer's end is left for the next call */
    char *last = n == (ssize_t)sizeof buf - 1 ? strrchr(buf, ' ') : NULL;
    if (last)
        *last = 0;
    unsigned killed = 0;
    for (char *p = buf, *end; *p; p = end) {
        long pid = strtol(p, &end, 10);
        if (end == p || pid <= 0)
            break;
        bool kept = false;
        for (unsigned i = 0; i < nkeep; i++)
            kept |= keep[i] == (pid_t)pid;
        if (kept)
            continue;
        kill((pid_t)pid, SIGKILL);
        while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR) {
        }
        killed++;
    }
    return killed;
}

pid_t lu_sched_parent_of(pid_t pid)
{
    char path[32] = "/proc/", digits[12];
    int n = 0;
    for (unsigned v = (unsigned)pid; n == 0 || v; v /= 10)
        digits[n++] = (char)('0' + v % 10);
    size_t at = 6;
    while (n)
        path[at++] = digits[--n];
    memcpy(path + at, "/stat", 6);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[512];
    ssize_t len = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (len <= 0)
        return -1;
    buf[len] = 0;
    /* "pid (comm) state ppid ...": comm may hold spaces and parentheses */
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
        return -1;
    pid_t pp = 0;
    for (p += 4; *p >= '0' && *p <= '9'; p++)
        pp = pp * 10 + (*p - '0');
    return pp;
}
