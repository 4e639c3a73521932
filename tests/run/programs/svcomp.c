/*
 * SV-COMP style: the program declares the verifier functions itself (and
 * includes lineup.h too, whose prototypes must agree), defines reach_error
 * with __assert_fail, and has a race-free bug on atomics: the flag is
 * checked and set in two steps.
 */
#include <lineup.h>
#include <pthread.h>
#include <stdatomic.h>

// clang-format off
extern void abort(void);
extern void __assert_fail(const char *, const char *, unsigned int, const char *) __attribute__((__nothrow__, __leaf__)) __attribute__((__noreturn__));
void reach_error() { __assert_fail("0", "svcomp.c", 14, "reach_error"); }
// clang-format on
extern int __VERIFIER_nondet_int(void);
extern _Bool __VERIFIER_nondet_bool();
extern void __VERIFIER_assume(int cond);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);

static atomic_int busy, inside;

static void *enter(void *arg)
{
    (void)arg;
    if (atomic_load(&busy) == 0) {
        atomic_store(&busy, 1);
        if (atomic_fetch_add(&inside, 1) != 0)
            reach_error();
        atomic_fetch_sub(&inside, 1);
        atomic_store(&busy, 0);
    }
    return NULL;
}

int main(void)
{
    pthread_t t1, t2;
    if (__VERIFIER_nondet_bool())
        __VERIFIER_assume(__VERIFIER_nondet_int() >= 0);
    pthread_create(&t1, NULL, enter, NULL);
    pthread_create(&t2, NULL, enter, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    return 0;
}
