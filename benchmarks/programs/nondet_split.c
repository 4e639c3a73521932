/*
 * nondet_split: SV-COMP style. main reads the number of work items n from
 * the environment (__VERIFIER_nondet_int, restricted to 1..4 with
 * __VERIFIER_assume) and splits them between two workers, which claim each
 * item (check a flag, then set it) before processing it. reach_error() is
 * the failure, defined here as SV-COMP tasks do.
 *
 * Bug: the split is off by one for odd n: worker 1 takes [0, (n+1)/2),
 * worker 2 takes [n/2, n), so item n/2 belongs to both. The claim is a
 * check-then-act (atomic load, then atomic store), which only protects the
 * shared item when the two claims do not interleave.
 *
 * Failing interleaving: n odd (1 or 3); worker 1 reads the shared item's
 * flag as free and is preempted before setting it; worker 2 claims and
 * processes it; worker 1 sets the flag and processes it again: n + 1 items
 * processed.
 *
 * Preemptions: 1, and the nondet input must be odd (1 or 3 of 1..4): a
 * data choice explored together with the schedule.
 * Kind: reach_error() (assertion failure).
 * Fixed (-DFIXED): the claim is made in an SV-COMP atomic section
 * (__VERIFIER_atomic_begin/end), so the overlap is harmless; a tool that
 * preempted inside the section would make this twin fail.
 * Native (native.sh, with verifier_native.c): never failed in 1200 runs
 * per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int cond);
#ifdef FIXED
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
#endif

void reach_error(void)
{
    assert(0);
}

#define MAXN 4

static int n;
static atomic_int claimed[MAXN];
static atomic_int processed;

struct range {
    int lo, hi;
};

static int claim(int k)
{
#ifdef FIXED
    __VERIFIER_atomic_begin();
    int mine = !atomic_load(&claimed[k]);
    if (mine)
        atomic_store(&claimed[k], 1);
    __VERIFIER_atomic_end();
    return mine;
#else
    if (atomic_load(&claimed[k]))
        return 0;
    atomic_store(&claimed[k], 1);
    return 1;
#endif
}

static void *worker(void *arg)
{
    struct range *r = arg;
    for (int k = r->lo; k < r->hi; k++)
        if (claim(k))
            atomic_fetch_add(&processed, 1);
    return NULL;
}

int main(void)
{
    n = __VERIFIER_nondet_int();
    __VERIFIER_assume(n >= 1 && n <= MAXN);
    struct range r1 = {0, (n + 1) / 2}, r2 = {n / 2, n};
    pthread_t t1, t2;
    pthread_create(&t1, NULL, worker, &r1);
    pthread_create(&t2, NULL, worker, &r2);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    if (atomic_load(&processed) != n)
        reach_error();
    return 0;
}
