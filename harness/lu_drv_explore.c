/*
 * Support for phase 2's search across processes: the shared set of distinct
 * histories, the queue of work items (DFS stacks, lu_sched_stack_next) given
 * to idle explorers and the explorers' lock. Everything lives in MAP_SHARED memory mapped before
 * the explorers are forked, so its addresses are the same in all of them.
 * None of it runs on a controlled thread.
 */
#define _GNU_SOURCE
#include "lu_drv.h"

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- the set of distinct histories ---- */

/* Open addressing over 64-bit hashes. The table of 2^k slots sits at byte
 * offset 2^k * 8 of one reserved mapping, so growing never moves the
 * mapping (other processes keep valid addresses) and only touched pages use
 * memory; a table given up is handed back to the kernel. */
#define LU__SEEN_MIN 12
#define LU__SEEN_MAX 27

struct lu_drv_seen {
    _Atomic uint32_t lock;
    unsigned log2;
    unsigned max_log2; /* LU__SEEN_MAX, or less where RLIMIT_AS left no room */
    uint64_t count;
};

static uint64_t *lu__seen_table(const struct lu_drv_seen *s, unsigned log2)
{
    return (uint64_t *)((char *)s + ((size_t)8 << log2));
}

static size_t lu__seen_size(unsigned max_log2)
{
    return (size_t)8 << (max_log2 + 1);
}

size_t lu_drv_seen_full_size(void)
{
    return lu__seen_size(LU__SEEN_MAX);
}

size_t lu_drv_seen_min_size(void)
{
    return lu__seen_size(LU__SEEN_MIN);
}

static void *lu__seen_map(unsigned max_log2)
{
    void *m = mmap(NULL, lu__seen_size(max_log2), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

/* The full reservation is 2 GB of address space, mostly never touched. A
 * limit on address space (ulimit -v) that leaves less gets a smaller table,
 * half of the largest that fits so that the threads and mappings still to
 * come have room too: it only bounds the distinct histories of one test,
 * and most tests have far fewer than even a small table holds. */
struct lu_drv_seen *lu_drv_seen_create(void)
{
    unsigned max = LU__SEEN_MAX;
    void *m;
    while (!(m = lu__seen_map(max)))
        if (errno != ENOMEM || max-- == LU__SEEN_MIN)
            return NULL;
    if (max < LU__SEEN_MAX && max > LU__SEEN_MIN) {
        munmap(m, lu__seen_size(max));
        if (!(m = lu__seen_map(--max)))
            return NULL;
    }
    struct lu_drv_seen *s = m;
    s->log2 = LU__SEEN_MIN;
    s->max_log2 = max;
    return s;
}

bool lu_drv_seen_limited(const struct lu_drv_seen *s)
{
    return s->max_log2 < LU__SEEN_MAX;
}

static void lu__spin_lock(_Atomic uint32_t *l)
{
    for (unsigned n = 0; atomic_exchange_explicit(l, 1, memory_order_acquire); n++)
        if (n > 64)
            syscall(SYS_sched_yield); /* the holder may be descheduled: never spin long on 2 cores */
}

static void lu__spin_unlock(_Atomic uint32_t *l)
{
    atomic_store_explicit(l, 0, memory_order_release);
}

static uint64_t *lu__seen_slot(uint64_t *t, unsigned log2, uint64_t h)
{
    uint64_t mask = (1ULL << log2) - 1;
    /* the history hash may be weak in its low bits: mix before indexing */
    uint64_t i = (h * 0x9e3779b97f4a7c15ULL) >> (64 - log2);
    while (t[i] && t[i] != h)
        i = (i + 1) & mask;
    return &t[i];
}

int lu_drv_seen_insert(struct lu_drv_seen *s, uint64_t h)
{
    if (!h)
        h = 1; /* 0 marks a free slot */
    lu__spin_lock(&s->lock);
    uint64_t *t = lu__seen_table(s, s->log2);
    uint64_t *slot = lu__seen_slot(t, s->log2, h);
    int rc = 0;
    if (*slot) {
        rc = 0;
    } else if ((s->count + 1) * 2 > (1ULL << s->log2) && s->log2 >= s->max_log2) {
        rc = -1;
    } else {
        *slot = h;
        s->count++;
        rc = 1;
        if (s->count * 2 > (1ULL << s->log2)) {
            unsigned nl = s->log2 + 1;
            uint64_t *nt = lu__seen_table(s, nl);
            for (uint64_t i = 0; i < (1ULL << s->log2); i++)
                if (t[i])
                    *lu__seen_slot(nt, nl, t[i]) = t[i];
            s->log2 = nl;
            madvise(t, (size_t)8 << (nl - 1), MADV_REMOVE);
        }
    }
    lu__spin_unlock(&s->lock);
    return rc;
}

uint64_t lu_drv_seen_count(const struct lu_drv_seen *s)
{
    return s->count;
}

/* ---- the queue of given-away items ---- */

/* Items are given away from the shallow end of a stack, so their prefixes
 * are short; a deeper one is simply not given away. */
#define LU__ITEMS 256
#define LU__ITEM_CAP 4096

struct lu_drv_items {
    unsigned head, count;
    uint32_t len[LU__ITEMS];
    struct lu_sched_step steps[LU__ITEMS][LU__ITEM_CAP];
};

size_t lu_drv_items_size(void)
{
    return sizeof(struct lu_drv_items);
}

struct lu_drv_items *lu_drv_items_create(void)
{
    void *m = mmap(NULL, sizeof(struct lu_drv_items), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

bool lu_drv_items_full(const struct lu_drv_items *q)
{
    return q->count >= LU__ITEMS;
}

unsigned lu_drv_items_count(const struct lu_drv_items *q)
{
    return q->count;
}

bool lu_drv_items_push(struct lu_drv_items *q, const struct lu_sched_step *g, uint32_t len)
{
    if (q->count >= LU__ITEMS || len > LU__ITEM_CAP)
        return false;
    unsigned k = (q->head + q->count++) % LU__ITEMS;
    q->len[k] = len;
    memcpy(q->steps[k], g, len * sizeof *g);
    return true;
}

bool lu_drv_items_pop(struct lu_drv_items *q, struct lu_sched_step *g, uint32_t *len)
{
    if (!q->count)
        return false;
    unsigned k = q->head;
    q->head = (q->head + 1) % LU__ITEMS;
    q->count--;
    *len = q->len[k];
    memcpy(g, q->steps[k], *len * sizeof *g);
    return true;
}

/* ---- the explorers' lock and wake-ups ---- */

void lu_drv_pool_lock(struct lu_drv_pool *p)
{
    lu__spin_lock(&p->lock);
}

void lu_drv_pool_unlock(struct lu_drv_pool *p)
{
    lu__spin_unlock(&p->lock);
}

void lu_drv_pool_wake(struct lu_drv_pool *p)
{
    atomic_fetch_add(&p->seq, 1);
    syscall(SYS_futex, &p->seq, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

void lu_drv_pool_wait(struct lu_drv_pool *p, uint32_t seen)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    syscall(SYS_futex, &p->seq, FUTEX_WAIT, seen, &ts, NULL, 0);
}
