/*
 * Output without end: 24 MiB to stdout, then a pause long enough for lineup
 * to look at it (a real sleep, outside its control), then a look at the
 * start of its own output, then a failed assertion. lineup keeps only an
 * execution's last 64 KiB for its report, and gives back what is before
 * the last MiB while the execution runs (a hole punched in the file): the
 * start reads back as zeros. A program that printed gigabytes filled the
 * machine's memory before.
 */
#include <assert.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    static char buf[65536];
    memset(buf, 'x', sizeof buf);
    buf[sizeof buf - 1] = '\n';
    for (int i = 0; i < 384; i++)
        if (write(1, buf, sizeof buf) != (ssize_t)sizeof buf)
            return 2;
    poll(NULL, 0, 600);
    char first = 'x';
    if (pread(1, &first, 1, 0) != 1)
        first = '?';
    printf("the start of the output: %s\n", first == 0 ? "given back" : first == 'x' ? "kept" : "unreadable");
    fflush(stdout);
    assert(0);
    return 0;
}
