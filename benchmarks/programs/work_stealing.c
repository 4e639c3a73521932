/*
 * work_stealing: a Chase-Lev style work-stealing deque (fixed array,
 * sequentially consistent atomics). The owner pushes two tasks and pops
 * them from the bottom; a thief steals one from the top.
 *
 * Bug: when the owner's pop finds exactly one task left (top == bottom
 * after its decrement), it takes it by storing top + 1 instead of winning a
 * compare-and-swap on top against a thief. A thief that read top and the
 * old bottom before the owner's decrement can take the same task with its
 * CAS: the task runs twice.
 *
 * Failing interleaving (the owner has pushed both tasks and popped task 2):
 * the owner is preempted before its second pop; the thief reads top (0)
 * and bottom (1): one task; it is preempted; the owner decrements bottom,
 * reads top: the last task; it is preempted before it stores top + 1; the
 * thief reads task 1 and wins its CAS; the owner stores top + 1 and returns
 * task 1 as well.
 *
 * Preemptions: 3 (owner, thief, owner: the thief's two halves must each
 * fall in a window of the owner's pop). The owner never blocks, so every
 * switch between them but the last costs a preemption.
 * Kind: assertion in main (every task taken exactly once).
 * Fixed (-DFIXED): the owner races for the last task with a CAS on top, as
 * in Chase and Lev's deque.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#define CAP 4
#define TASKS 2
#define EMPTY 0

static atomic_long top, bottom;
static atomic_int tasks[CAP];
static int owner_took[TASKS + 1], thief_took[TASKS + 1];

static void push(int task)
{
    long b = atomic_load(&bottom);
    atomic_store(&tasks[b % CAP], task);
    atomic_store(&bottom, b + 1);
}

static int pop(void)
{
    long b = atomic_load(&bottom) - 1;
    atomic_store(&bottom, b);
    long t = atomic_load(&top);
    if (t > b) { /* empty */
        atomic_store(&bottom, b + 1);
        return EMPTY;
    }
    int task = atomic_load(&tasks[b % CAP]);
    if (t == b) { /* the last task: a thief may want it too */
#ifdef FIXED
        if (!atomic_compare_exchange_strong(&top, &t, t + 1))
            task = EMPTY;
#else
        atomic_store(&top, t + 1);
#endif
        atomic_store(&bottom, b + 1);
    }
    return task;
}

static int steal(void)
{
    long t = atomic_load(&top);
    long b = atomic_load(&bottom);
    if (t >= b)
        return EMPTY;
    int task = atomic_load(&tasks[t % CAP]);
    if (!atomic_compare_exchange_strong(&top, &t, t + 1))
        return EMPTY; /* lost the race */
    return task;
}

static void *owner(void *arg)
{
    (void)arg;
    for (int i = 1; i <= TASKS; i++)
        push(i);
    for (int i = 0; i < TASKS; i++)
        owner_took[pop()]++;
    return NULL;
}

static void *thief(void *arg)
{
    (void)arg;
    thief_took[steal()]++;
    return NULL;
}

int main(void)
{
    pthread_t o, th;
    pthread_create(&o, NULL, owner, NULL);
    pthread_create(&th, NULL, thief, NULL);
    pthread_join(o, NULL);
    pthread_join(th, NULL);
    for (int i = 1; i <= TASKS; i++)
        assert(owner_took[i] + thief_took[i] == 1);
    return 0;
}
