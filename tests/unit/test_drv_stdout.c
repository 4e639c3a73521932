/*
 * lineup's standard output (harness/lu_drv_util.c, lu_drv_stdio_init):
 * everything written reaches the file, and a write error is reported at
 * exit with its reason and exit status 3, whatever the size of the output
 * and however it was flushed. glibc keeps errno only in the call whose
 * flush failed; a single write longer than the buffer, or an fflush
 * nobody checked, as the last output, left lineup's exit check with the
 * error flag and no reason ("write error on standard output" alone).
 *
 *   test_drv_stdout            the test: runs itself as a writer, below
 *   test_drv_stdout write HOW N   a writer: lineup's stdio set-up, then N
 *                              bytes written HOW (one: one fputs; lines:
 *                              64-byte lines; flush: lines, then fflush)
 */
#include "lu_drv.h"
#include "lu_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *text(size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        abort();
    for (size_t i = 0; i < n; i++)
        s[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
    s[n] = 0;
    return s;
}

static int writer(const char *how, size_t n)
{
    signal(SIGPIPE, SIG_IGN); /* as lineup does */
    lu_drv_stdio_init();
    char *s = text(n);
    if (strcmp(how, "one") == 0) {
        fputs(s, stdout);
    } else {
        for (size_t i = 0; i < n; i += 64)
            fwrite(s + i, 1, n - i < 64 ? n - i : 64, stdout);
        if (strcmp(how, "flush") == 0)
            fflush(stdout);
    }
    free(s);
    return 0;
}

/* Runs a writer with stdout on out_fd, stderr into a file; its exit status
 * (-1: killed) and what it wrote on stderr. */
static int run_writer(const char *self, const char *how, size_t n, int out_fd, char *err, size_t errsz)
{
    char errpath[] = "/tmp/lu_test_stdout_err.XXXXXX";
    int efd = mkstemp(errpath);
    if (efd < 0)
        abort();
    unlink(errpath);
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "%zu", n);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out_fd, STDOUT_FILENO);
        dup2(efd, STDERR_FILENO);
        execl(self, self, "write", how, nbuf, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ssize_t got = pread(efd, err, errsz - 1, 0);
    err[got > 0 ? got : 0] = 0;
    close(efd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *const hows[] = {"one", "lines", "flush"};
static const size_t sizes[] = {10, 4095, 4097, 8192, 100000};

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "write") == 0)
        return writer(argv[2], strtoul(argv[3], NULL, 10));
    char err[4096];

    /* a regular file gets every byte, and no complaint */
    for (size_t h = 0; h < 3; h++)
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            char path[] = "/tmp/lu_test_stdout_out.XXXXXX";
            int fd = mkstemp(path);
            CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
            if (fd < 0)
                continue;
            unlink(path);
            int rc = run_writer(argv[0], hows[h], sizes[k], fd, err, sizeof err);
            CHECK(rc == 0 && err[0] == 0, "%s %zu to a file: exit %d, stderr '%s'", hows[h], sizes[k], rc,
                  err);
            struct stat st;
            char *want = text(sizes[k]), *got = malloc(sizes[k] + 1);
            ssize_t n = fstat(fd, &st) == 0 ? pread(fd, got, sizes[k] + 1, 0) : -1;
            CHECK(n == (ssize_t)sizes[k] && memcmp(got, want, sizes[k]) == 0,
                  "%s %zu to a file: %zd bytes back", hows[h], sizes[k], n);
            free(want);
            free(got);
            close(fd);
        }

    /* a full device: exit status 3 and the reason, for every size and way */
    int full = open("/dev/full", O_WRONLY);
    if (full < 0) {
        printf("(no /dev/full: its cases skipped)\n");
    } else {
        for (size_t h = 0; h < 3; h++)
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                int rc = run_writer(argv[0], hows[h], sizes[k], full, err, sizeof err);
                CHECK(rc == 3 &&
                          strcmp(err, "lineup: write error on standard output: No space left on device\n") ==
                              0,
                      "%s %zu to /dev/full: exit %d, stderr '%s'", hows[h], sizes[k], rc, err);
            }
        close(full);
    }

    /* a reader that went away is not an error */
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int p[2];
        if (pipe(p) != 0)
            abort();
        close(p[0]);
        int rc = run_writer(argv[0], "one", sizes[k], p[1], err, sizeof err);
        CHECK(rc == 0 && err[0] == 0, "one %zu to a closed pipe: exit %d, stderr '%s'", sizes[k], rc, err);
        close(p[1]);
    }

    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
