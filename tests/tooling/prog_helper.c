/* Compiled separately with lineup-cc -c, then linked with prog_main.c. */
#include <math.h>

static long total;

void helper_add(int n)
{
    __atomic_fetch_add(&total, (long)sqrt((double)n * n), __ATOMIC_SEQ_CST);
}

long helper_total(void)
{
    return __atomic_load_n(&total, __ATOMIC_SEQ_CST);
}
