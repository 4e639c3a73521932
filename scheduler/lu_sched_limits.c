/*
 * Messages for failed system calls of lineup's own machinery: the pool
 * threads behind controlled threads, the processes that run tests and
 * executions, shared mappings. They count against the user's limits like
 * anything else, so a failure is a limit to name, not a behaviour of the
 * code under test, and the user needs to know which one to raise.
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct lu__limit {
    int res;
    const char *name;
    const char *flag; /* of ulimit */
    bool bytes;
};

static const struct lu__limit lu__nproc = {RLIMIT_NPROC, "RLIMIT_NPROC", "-u", false};
static const struct lu__limit lu__as = {RLIMIT_AS, "RLIMIT_AS", "-v", true};
static const struct lu__limit lu__data = {RLIMIT_DATA, "RLIMIT_DATA", "-d", true};
static const struct lu__limit lu__nofile = {RLIMIT_NOFILE, "RLIMIT_NOFILE", "-n", false};
static const struct lu__limit lu__fsize = {RLIMIT_FSIZE, "RLIMIT_FSIZE", "-f", true};

/* Appends to buf[*at..n); a message that does not fit leaves *at at n. */
static void lu__put(char *buf, size_t n, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void lu__put(char *buf, size_t n, size_t *at, const char *fmt, ...)
{
    if (*at >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *at, n - *at, fmt, ap);
    va_end(ap);
    *at = k < 0 || (size_t)k >= n - *at ? n : *at + (size_t)k;
}

/* The limits as the process started, before any code under test ran (a
 * constructor of lineup's library runs before the program's and the
 * harness's): a limit lower now was lowered by that code (setrlimit), and
 * ulimit is not the remedy. */
static const int lu__watched[] = {RLIMIT_NPROC, RLIMIT_AS, RLIMIT_DATA, RLIMIT_NOFILE, RLIMIT_FSIZE};
static rlim_t lu__start_cur[sizeof lu__watched / sizeof lu__watched[0]];
static bool lu__lowered_seen;

__attribute__((constructor)) static void lu__limits_at_start(void)
{
    for (size_t i = 0; i < sizeof lu__watched / sizeof lu__watched[0]; i++) {
        struct rlimit rl;
        lu__start_cur[i] = getrlimit(lu__watched[i], &rl) == 0 ? rl.rlim_cur : RLIM_INFINITY;
    }
}

/* Whether res is lower now than at the start, which goes to *was. */
static bool lu__lowered_from(int res, rlim_t now, rlim_t *was)
{
    for (size_t i = 0; i < sizeof lu__watched / sizeof lu__watched[0]; i++)
        if (lu__watched[i] == res && now < lu__start_cur[i]) {
            *was = lu__start_cur[i];
            return true;
        }
    return false;
}

bool lu_sched_limit_lowered(void)
{
    return lu__lowered_seen;
}

/* Appends "NAME is N...: raise it with ulimit -F" when the limit is set, or
 * that the code under test lowered it; returns whether it did. */
static bool lu__hint(char *buf, size_t n, size_t *at, bool first, const struct lu__limit *l,
                     const char *extra)
{
    struct rlimit rl;
    if (getrlimit(l->res, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return false;
    const char *sep = first ? "" : "; ";
    rlim_t was;
    if (lu__lowered_from(l->res, rl.rlim_cur, &was)) {
        lu__lowered_seen = true;
        lu__put(buf, n, at, "%s%s is %llu%s, lowered by the code under test (setrlimit) from ", sep, l->name,
                (unsigned long long)(l->bytes ? rl.rlim_cur >> 20 : rl.rlim_cur), l->bytes ? " MB" : "");
        if (was == RLIM_INFINITY)
            lu__put(buf, n, at, "unlimited");
        else
            lu__put(buf, n, at, "%llu%s", (unsigned long long)(l->bytes ? was >> 20 : was),
                    l->bytes ? " MB" : "");
        if (*extra)
            lu__put(buf, n, at, ",%s", extra);
        return true;
    }
    if (l->bytes && rl.rlim_cur < (1u << 20))
        lu__put(buf, n, at, "%s%s is %llu KB%s: raise it with ulimit %s", sep, l->name,
                (unsigned long long)(rl.rlim_cur >> 10), extra, l->flag);
    else if (l->bytes)
        lu__put(buf, n, at, "%s%s is %llu MB%s: raise it with ulimit %s", sep, l->name,
                (unsigned long long)(rl.rlim_cur >> 20), extra, l->flag);
    else
        lu__put(buf, n, at, "%s%s is %llu%s: raise it with ulimit %s", sep, l->name,
                (unsigned long long)rl.rlim_cur, extra, l->flag);
    return true;
}

const char *lu_sched_syserr(char *buf, size_t n, enum lu_sched_need need, int err, const char *what,
                            size_t bytes)
{
    if (!n)
        return buf;
    size_t at = 0;
    lu__put(buf, n, &at, "%s: %s", what, strerror(err));
    if (at >= n || (err != EAGAIN && err != ENOMEM && err != EMFILE && err != EFBIG))
        return buf;
    size_t open = at;
    lu__put(buf, n, &at, " (");
    bool named = false;
    if (err == EMFILE)
        named |=
            lu__hint(buf, n, &at, !named, &lu__nofile, ", and lineup's own descriptors count against it");
    if (err == EFBIG) {
        char extra[96] = "";
        if (bytes)
            snprintf(extra, sizeof extra, " and this file needs %zu MB", (bytes + (1u << 20) - 1) >> 20);
        named |= lu__hint(buf, n, &at, !named, &lu__fsize, extra);
    }
    /* root is exempt from RLIMIT_NPROC: naming it would mislead */
    if (geteuid() != 0 && err == EAGAIN && need != LU_SCHED_NEED_MEMORY)
        named |= lu__hint(buf, n, &at, !named, &lu__nproc,
                          ", and lineup's own processes and threads count against it");
    /* glibc's pthread_create reports a stack it could not map as EAGAIN */
    if (need == LU_SCHED_NEED_THREAD || (need == LU_SCHED_NEED_MEMORY && err == ENOMEM)) {
        char extra[96] = "";
        /* a thread that asked for a bigger stack (pthread_attr_setstacksize)
         * gets one: name its size, not the default's */
        if (need == LU_SCHED_NEED_THREAD && bytes > LU__POOL_STACK)
            snprintf(extra, sizeof extra,
                     " and this thread's stack takes %zu MB of it, each other thread's %u MB",
                     (bytes + (1u << 19)) >> 20, (unsigned)(LU__POOL_STACK >> 20));
        else if (need == LU_SCHED_NEED_THREAD)
            snprintf(extra, sizeof extra, " and each thread's stack takes %u MB of it",
                     (unsigned)(LU__POOL_STACK >> 20));
        else if (bytes)
            snprintf(extra, sizeof extra, " and this mapping needs %zu MB of it",
                     (bytes + (1u << 20) - 1) >> 20);
        named |= lu__hint(buf, n, &at, !named, &lu__as, extra);
        /* shared mappings do not count against RLIMIT_DATA */
        if (need == LU_SCHED_NEED_THREAD)
            named |= lu__hint(buf, n, &at, !named, &lu__data, extra);
    }
    if (!named && (err == EMFILE || err == EFBIG)) {
        buf[open] = 0; /* no limit of the user's to name */
        return buf;
    }
    if (!named)
        lu__put(buf, n, &at, "%s",
                err == ENOMEM ? "the system is out of memory, or refuses to overcommit it"
                : need == LU_SCHED_NEED_MEMORY
                    ? "the system refuses the mapping"
                    : "the system's limit on threads: kernel.threads-max, kernel.pid_max or the pids "
                      "limit of a cgroup");
    lu__put(buf, n, &at, ")");
    if (at >= n)
        buf[open] = 0; /* a hint cut short would name half a limit */
    return buf;
}
