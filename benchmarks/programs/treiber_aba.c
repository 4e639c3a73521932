/*
 * treiber_aba: a lock-free (Treiber) stack of nodes taken from a fixed
 * array and reused, with compare-and-swap on a 64-bit head word that holds
 * a node index (low 32 bits) and a tag (high 32 bits).
 *
 * Bug: the tag is never changed, so the CAS compares only the node index:
 * the ABA problem. A pop that read head = A and next = B succeeds even if,
 * meanwhile, A was popped, B was popped, and A was pushed back: the head
 * becomes B, a node that is no longer on the stack.
 *
 * Failing interleaving: with the stack A -> B -> C, thread 1 reads head A
 * and next B and is preempted before its CAS; thread 2 pops A, pops B,
 * pushes A back (stack A -> C, thread 2 keeps B); thread 1's CAS succeeds:
 * head = B. B is now both owned by thread 2 and on the stack (and C is
 * lost).
 *
 * Preemptions: 1 (thread 1 between reading next and its CAS).
 * Kind: assertion in main (each node exactly once: on the stack or owned).
 * Fixed (-DFIXED): every successful CAS increments the tag.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define NODES 4 /* index 0 is the null node */

#ifdef FIXED
#define TAG_STEP 1
#else
#define TAG_STEP 0
#endif

static _Atomic uint64_t head;
static _Atomic uint32_t next[NODES];

static uint32_t idx(uint64_t w)
{
    return (uint32_t)w;
}

static uint64_t word(uint32_t i, uint64_t old)
{
    return ((old >> 32) + TAG_STEP) << 32 | i;
}

static void push(uint32_t n)
{
    uint64_t h = atomic_load(&head);
    do
        atomic_store(&next[n], idx(h));
    while (!atomic_compare_exchange_weak(&head, &h, word(n, h)));
}

static uint32_t pop(void)
{
    uint64_t h = atomic_load(&head);
    for (;;) {
        uint32_t n = idx(h);
        if (n == 0)
            return 0;
        uint32_t nx = atomic_load(&next[n]);
        if (atomic_compare_exchange_weak(&head, &h, word(nx, h)))
            return n;
    }
}

static uint32_t owned1, owned2;

static void *popper(void *arg)
{
    (void)arg;
    owned1 = pop();
    return NULL;
}

static void *recycler(void *arg)
{
    (void)arg;
    uint32_t a = pop();
    uint32_t b = pop();
    if (a)
        push(a);
    owned2 = b;
    return NULL;
}

int main(void)
{
    for (uint32_t n = NODES - 1; n >= 1; n--)
        push(n); /* stack 1 -> 2 -> 3 */
    pthread_t t1, t2;
    pthread_create(&t1, NULL, popper, NULL);
    pthread_create(&t2, NULL, recycler, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);

    int seen[NODES] = {0};
    seen[owned1]++;
    seen[owned2]++;
    for (uint32_t n = idx(atomic_load(&head)), steps = 0; n != 0 && steps < NODES;
         n = atomic_load(&next[n]), steps++)
        seen[n]++;
    for (int n = 1; n < NODES; n++)
        assert(seen[n] == 1);
    return 0;
}
