/*
 * Questions about other processes that a signal handler may ask: open,
 * read and close of /proc only, no stdio and no allocation. Apart from the
 * rest of the scheduler, so that the driver's helpers link it alone.
 */
#define _GNU_SOURCE
#include "lu_sched.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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
