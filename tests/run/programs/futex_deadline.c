/*
 * A futex wait with a deadline, as a try_lock_for or a semaphore with a
 * timeout does it: wait for the time left, read the clock, wait again.
 * A timed futex wait that gives up has waited until its deadline, as the
 * other timed waits have (relative for FUTEX_WAIT, absolute for
 * FUTEX_WAIT_BITSET, on CLOCK_REALTIME with FUTEX_CLOCK_REALTIME). Until
 * session 32 it moved the virtual clock by nothing, the loop never ended
 * and lineup reported a livelock (an audit's). Correct: exit 0.
 */
#include <assert.h>
#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static struct timespec ts_of(int64_t ns)
{
    struct timespec t = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    return t;
}

int main(void)
{
    static atomic_uint word;
    /* relative waits, recomputed from the clock */
    int64_t deadline = now_ns(CLOCK_MONOTONIC) + 100000000;
    int64_t left;
    while ((left = deadline - now_ns(CLOCK_MONOTONIC)) > 0) {
        struct timespec rel = ts_of(left);
        long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &rel, NULL, 0);
        assert(r == -1 && errno == ETIMEDOUT);
    }
    /* absolute, on the monotonic clock and then on the realtime clock */
    int64_t t0 = now_ns(CLOCK_MONOTONIC);
    struct timespec abs = ts_of(t0 + 50000000);
    while (syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE, 0, &abs, NULL, FUTEX_BITSET_MATCH_ANY) != 0)
        if (now_ns(CLOCK_MONOTONIC) >= t0 + 50000000)
            break;
    assert(now_ns(CLOCK_MONOTONIC) >= t0 + 50000000);
    /* to the deadline, not past it: a deadline read on the wrong clock
     * would move the clock by decades */
    assert(now_ns(CLOCK_MONOTONIC) < t0 + 1000000000);
    int64_t r0 = now_ns(CLOCK_REALTIME);
    abs = ts_of(r0 + 50000000);
    while (syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 0, &abs, NULL,
                   FUTEX_BITSET_MATCH_ANY) != 0)
        if (now_ns(CLOCK_REALTIME) >= r0 + 50000000)
            break;
    assert(now_ns(CLOCK_REALTIME) >= r0 + 50000000);
    assert(now_ns(CLOCK_REALTIME) < r0 + 1000000000);
    return 0;
}
