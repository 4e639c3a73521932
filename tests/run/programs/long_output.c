/*
 * More output than a report keeps (the last 64 KiB): one line of 100,000
 * bytes, or with -DLINES 20,000 short lines, then a failed assertion. The
 * report must say what it left out, never show the end of the long line
 * as if it were a line of its own.
 */
#include <assert.h>
#include <stdio.h>

int main(void)
{
#ifdef LINES
    for (int i = 0; i < 20000; i++)
        printf("line %d of the output\n", i);
#else
    for (int i = 0; i < 100000; i++)
        putchar('0' + i % 10);
    putchar('\n');
#endif
    assert(0);
    return 0;
}
