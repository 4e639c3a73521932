/*
 * Exploration: what the strategy chooses at each scheduling point, and how
 * DFS moves to the next schedule. The handoff mechanics are in lu_sched.c;
 * this file only decides.
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

#include <limits.h>
#include <string.h>

/* ---- choosing ---- */

uint64_t lu__rand(struct lu_sched *s)
{
    /* splitmix64: seeded, reproducible, good enough for schedules */
    return lu__mix(s->rng += 0x9e3779b97f4a7c15ULL);
}

static bool lu__randomized(const struct lu_sched *s)
{
    return s->cfg.strategy == LU_SCHED_RANDOM || s->cfg.strategy == LU_SCHED_PCT ||
           s->cfg.strategy == LU_SCHED_POS;
}

static int lu__pick_default(uint64_t cand, int cur, int n)
{
    if (cur >= 0 && (cand >> cur & 1))
        return cur;
    for (int i = 1; i <= n; i++) {
        int j = (cur + i) % n;
        if (cand >> j & 1)
            return j;
    }
    return __builtin_ctzll(cand);
}

static struct lu_sched_step *lu__new_step(struct lu__thread *t)
{
    struct lu_sched *s = t->s;
    struct lu_sched_trace *tr = s->cfg.trace;
    if (tr->len >= tr->cap)
        lu__end_execution(t, LU_SCHED_OUT_TOO_LONG, "the execution exceeded the trace capacity");
    return &tr->steps[tr->len];
}

/* What choosing thread a at a step costs against the bound. Preemption
 * bounding: switching away from a thread that could go on and is not at an
 * operation boundary costs 1. Delay bounding (Emmi, Qadeer, Rakamaric,
 * POPL 2011): the deterministic scheduler keeps the current thread, or when
 * it cannot go on takes the next candidate in round-robin order; every
 * candidate skipped on the way to a is a delay. At an operation boundary (and
 * when everyone spins) switching is free under both. A finished thread also
 * sets STEP_FREE, but under delays its round-robin successor is still the
 * deterministic choice: skipping it is a delay, or delay bound 0 would not
 * be a single schedule. It is told apart by prev not being a candidate
 * (a thread at a boundary is always one; when everyone spins there is one
 * candidate, which costs nothing anyway). */
unsigned lu__cost(int bound_kind, uint64_t cand, int prev, uint8_t flags, int a)
{
    if (bound_kind != LU_SCHED_BOUND_DELAYS) {
        if (flags & LU_SCHED_STEP_FREE)
            return 0;
        return (flags & LU_SCHED_STEP_PREEMPTIBLE) && a != prev ? 1 : 0;
    }
    if ((flags & LU_SCHED_STEP_FREE) && (cand >> ((unsigned)prev & 63) & 1))
        return 0;
    /* candidates in the cyclic range [prev, a): bits never reach nthreads,
     * so a cycle over 64 positions is a cycle over the threads */
    unsigned p = (unsigned)prev & 63, q = (unsigned)a & 63;
    uint64_t rot = (cand >> p) | (p ? cand << (64 - p) : 0);
    unsigned dist = (q - p) & 63;
    uint64_t below = dist ? (dist == 64 ? ~0ULL : (1ULL << dist) - 1) : 0;
    return (unsigned)__builtin_popcountll(rot & below);
}

/* More than one bit set: without -mpopcnt, __builtin_popcountll is a
 * libgcc call, and this runs at every choice. */
static inline bool lu__several(uint64_t m)
{
    return (m & (m - 1)) != 0;
}

/* The candidates a choice may take within the bound, base being the cost so
 * far (bound < 0: no bound). The default choice always costs nothing. */
static inline uint64_t lu__within_bound(const struct lu_sched *s, uint64_t cand, int prev, uint8_t flags,
                                        unsigned base, int bound)
{
    if (bound < 0)
        return cand;
    uint64_t allowed = cand, m = cand;
    while (m) {
        int a = __builtin_ctzll(m);
        m &= m - 1;
        if (base + lu__cost(s->cfg.bound_kind, cand, prev, flags, a) > (unsigned)bound)
            allowed &= ~(1ULL << a);
    }
    return allowed;
}

/* ---- partial-order reduction (docs/por.md) ----
 *
 * Sleep sets in the stateless DFS, made sound with the preemption bound.
 * An alternative explored at a step goes to sleep in the later alternatives
 * of that step, until a step dependent with it runs; a choice of a sleeping
 * thread is not explored, and an execution whose candidates are all asleep
 * ends as redundant. A sleeping thread stands either for its one pending
 * step ("light": when it was the thread running at a preemptible step, so
 * moving its step first saves the preemption the later alternative paid) or
 * for its whole run up to its next FREE point ("heavy": when running it
 * first cost as much as the later alternative), and wakes also on the
 * bound-induced dependences docs/por.md derives. Everything is computed
 * here from the thread structs at choices: lu_sched.c has no hook. */

/* Partial heavy entries (docs/por.md, section 3) need where each part of a
 * block first occurs, which costs about an eighth of an execution to
 * record. At bounds 0 and 1 they saved no execution of the Treiber
 * subject's tests and one of 71 in run.reduction's (RESULTS.md,
 * S11.merged), and the default strategy spends most budgets there: below
 * bound 2 an entry wakes whole, as it did before partial entries, which is
 * sound at every bound. */
static inline bool lu__por_partial(const struct lu_sched *s)
{
    return s->cfg.preemption_bound < 0 || s->cfg.preemption_bound >= 2;
}

static bool lu__por_on(const struct lu_sched *s)
{
    return s->por && s->cfg.strategy == LU_SCHED_DFS &&
           !(s->cfg.preemption_bound >= 0 && s->cfg.bound_kind == LU_SCHED_BOUND_DELAYS);
}

void lu__explore_begin(struct lu_sched *s)
{
    s->x_por = lu__por_on(s);
    s->x_rand = lu__randomized(s);
}

static void lu__sig_add(struct lu__por_sig *g, uint64_t key, bool write, bool sync)
{
    if (g->flags & LU__PS_ALL)
        return;
    for (int i = 0; i < g->n; i++) {
        if (g->key[i] == key) {
            g->wmask |= (uint8_t)((write ? 1u : 0u) << i);
            g->smask |= (uint8_t)((sync ? 1u : 0u) << i);
            return;
        }
    }
    if (g->n == LU__POR_KEYS) {
        g->flags |= LU__PS_ALL; /* too much to name: dependent with everything */
        return;
    }
    g->key[g->n] = key;
    g->wmask |= (uint8_t)((write ? 1u : 0u) << g->n);
    g->smask |= (uint8_t)((sync ? 1u : 0u) << g->n);
    g->n++;
}

static void lu__sig_merge(struct lu__por_sig *d, const struct lu__por_sig *x)
{
    d->flags |= x->flags & (LU__PS_ALL | LU__PS_BOUNDARY | LU__PS_ALLSYNC | LU__PS_CALL | LU__PS_RET);
    for (int i = 0; i < x->n; i++)
        lu__sig_add(d, x->key[i], x->wmask >> i & 1, x->smask >> i & 1);
}

/* Locations are keyed by their 8-byte word, so that accesses of different
 * sizes to one word (a union, a 32-bit half of a 64-bit atomic) meet. A word
 * inside a block allocated in this execution is named by the block's rank
 * and the offset (top bit set; addresses never have it): entries learnt in
 * one execution are compared with steps of another that shares the prefix,
 * and only the rank is the same in both. A freed block keeps its entry,
 * and its rank goes to the block that reuses its memory
 * (lu__por_block_add). Offsets beyond 128 MB share keys, which only adds
 * dependences. */
static int lu__por_block(const struct lu__por_blocks *bl, uintptr_t a)
{
    int lo = 0, hi = (int)bl->n - 1;
    while (lo <= hi) {
        int m = (lo + hi) / 2;
        if (a < bl->b[m].lo)
            hi = m - 1;
        else if (a >= bl->b[m].hi)
            lo = m + 1;
        else
            return m;
    }
    return -1;
}

/* The rank of a block allocated before the execution: its words are keyed
 * by address, as before it was freed, also when a new block reuses them
 * (lu__por_block_forget). */
#define LU__RANK_ADDR UINT32_MAX

#define LU__KEY_HEAP (1ULL << 63)  /* a word of a block allocated in this execution */
#define LU__KEY_WHOLE (1ULL << 62) /* with LU__KEY_HEAP: every word of the block */
#define LU__KEY_OFF 0xffffffULL

/* Whether two keys name a common word: the same key, or a block's whole
 * key and a key of the same block. Every comparison of keys for dependence
 * goes through here; lu__sig_add merges equal keys only. */
static inline bool lu__key_meet(uint64_t x, uint64_t y)
{
    if (x == y)
        return true;
    return ((x | y) & LU__KEY_WHOLE) && (x & y & LU__KEY_HEAP) &&
           ((x ^ y) & ~(LU__KEY_WHOLE | LU__KEY_OFF)) == 0;
}

static uint64_t lu__por_key(const struct lu_sched *s, const void *p)
{
    uintptr_t a = (uintptr_t)p;
    struct lu__por_blocks *bl = &s->por->blocks;
    /* most accesses are to the block of the one before (the object) */
    int i = bl->hint;
    if (i >= (int)bl->n || a < bl->b[i].lo || a >= bl->b[i].hi) {
        i = bl->n ? lu__por_block(bl, a) : -1;
        if (i < 0)
            return (uint64_t)a >> 3;
        bl->hint = (uint32_t)i;
    }
    if (bl->b[i].rank == LU__RANK_ADDR)
        return (uint64_t)a >> 3;
    uint64_t off = (uint64_t)(a - bl->b[i].lo) >> 3;
    return LU__KEY_HEAP | (uint64_t)bl->b[i].rank << 24 | (off & LU__KEY_OFF);
}

/* The whole key of the block that holds [a, end), if one does. */
static bool lu__por_whole_key(const struct lu_sched *s, uintptr_t a, uintptr_t end, uint64_t *key)
{
    const struct lu__por_blocks *bl = &s->por->blocks;
    int i = bl->n ? lu__por_block(bl, a) : -1;
    if (i < 0 || end > bl->b[i].hi || bl->b[i].rank == LU__RANK_ADDR)
        return false;
    *key = LU__KEY_HEAP | LU__KEY_WHOLE | (uint64_t)bl->b[i].rank << 24;
    return true;
}

/* Where a block starting at a would go (the first one not below it). */
static uint32_t lu__por_block_slot(const struct lu__por_blocks *bl, uintptr_t a)
{
    uint32_t lo = 0, hi = bl->n;
    while (lo < hi) {
        uint32_t m = (lo + hi) / 2;
        if (bl->b[m].lo < a)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

static struct lu__por_blocks *lu__por_blocks_of_caller(void)
{
    struct lu__thread *t = lu__self;
    if (!t || !t->s->por)
        return NULL;
    return &t->s->por->blocks;
}

/* A freed block stays in the table, marked, for the rest of the
 * execution: a thread that still holds a pointer into it (a stale read
 * after a free) touches its words under its key, and when the allocator
 * hands the same memory out again, the new block takes the old one's
 * rank, so that the stale access and the new owner's meet (they are the
 * same bytes: with a new rank they never did, and a read of a reused node
 * commuted with the writes that filled it again; an audit). A new block
 * that overlaps freed ones any other way leaves the keys unknown. */
/* A new entry at slot i (lu__por_block_slot's), or the table given up when
 * it is full. */
static void lu__por_block_insert(struct lu__por_blocks *bl, uint32_t i, uintptr_t lo, uintptr_t hi,
                                 uint32_t rank, bool freed)
{
    if (bl->n == LU__POR_BLOCKS) {
        bl->lost = true;
        return;
    }
    memmove(&bl->b[i + 1], &bl->b[i], (bl->n - i) * sizeof bl->b[0]);
    bl->b[i].lo = lo;
    bl->b[i].hi = hi;
    bl->b[i].rank = rank;
    bl->b[i].freed = freed;
    bl->n++;
}

static void lu__por_block_add(struct lu__por_blocks *bl, uintptr_t a, size_t n, uint32_t rank)
{
    uintptr_t hi = a + (n ? n : 1);
    uint32_t i = lu__por_block_slot(bl, a);
    /* the blocks it overlaps: i - 1 reaching past a, and those from i on
     * that start before hi */
    uint32_t first = i > 0 && bl->b[i - 1].hi > a ? i - 1 : i, last = i;
    while (last < bl->n && bl->b[last].lo < hi)
        last++;
    if (last > first) {
        if (last - first == 1 && bl->b[first].lo == a && bl->b[first].freed) {
            bl->b[first].hi = hi;
            bl->b[first].freed = false;
            return; /* the freed block's rank */
        }
        bl->lost = true; /* overlaps a live block (cannot happen) or freed ones in part */
        return;
    }
    lu__por_block_insert(bl, i, a, hi, rank, false);
}

/* A block from before the execution is freed: its start is kept, freed and
 * keyed by address, so that a new block that reuses the memory from there
 * keeps the address keys its stale readers use (a review: with a rank of
 * its own, a stale read of such a node was lost). Its size is unknown: a
 * new block that starts elsewhere in it is not recognized. */
static void lu__por_block_forget(struct lu__por_blocks *bl, uintptr_t a)
{
    uint32_t i = lu__por_block_slot(bl, a);
    if ((i < bl->n && bl->b[i].lo == a) || (i > 0 && bl->b[i - 1].hi > a))
        return; /* inside a block of this execution: not one from before */
    lu__por_block_insert(bl, i, a, a + 1, LU__RANK_ADDR, true);
}

/* Marks a live block freed; returns its rank, or -1 if it was not allocated
 * in this execution (or is freed already). */
static int64_t lu__por_block_remove(struct lu__por_blocks *bl, uintptr_t a)
{
    uint32_t i = lu__por_block_slot(bl, a);
    if (i >= bl->n || bl->b[i].lo != a || bl->b[i].freed)
        return -1;
    bl->b[i].freed = true;
    return bl->b[i].rank;
}

/* The allocator as one shared word that every malloc, free and realloc
 * writes. The calls are not scheduling points, but which block a malloc
 * returns depends on the frees before it: a step that frees a block and a
 * step of another thread that allocates one may commute for every visible
 * location and still not commute (glibc hands a block freed into an arena
 * to the next allocation from that arena, and an ABA bug needs exactly
 * that). So the running step is marked as writing this word, and two steps
 * that call the allocator are dependent. The mark is added after the
 * operation ran, where the step's signature is still open: sleep-set entries
 * and wake-ups read it at the next choice (lu__por_arrive, lu__por_sleep). */
static char lu__allocator_word;

/* The signature of the step t is running, or NULL when t runs outside one:
 * before the first choice (create()) or alone (lu__choose records no step
 * then, and p->last is an earlier step of t's). */
static struct lu__por_sig *lu__por_running_step(struct lu__thread *t)
{
    struct lu_sched *s = t->s;
    struct lu__por *p = s->por;
    const struct lu_sched_trace *tr = s->cfg.trace;
    if (!tr->len || p->last < 0 || p->last >= LU__POR_DEPTH || tr->steps[p->last].chosen != t->id ||
        p->last_alone != s->alone_steps)
        return NULL;
    return &p->step[p->last].exec;
}

void lu__por_touch_hidden(struct lu__thread *t, const void *word)
{
    if (!t || !t->s->x_por)
        return;
    struct lu__por_sig *g = lu__por_running_step(t);
    if (g)
        lu__sig_add(g, (uintptr_t)word >> 3, true, false);
}

void lu__por_touch_sync(struct lu__thread *t, const void *obj)
{
    if (!t || !t->s->x_por)
        return;
    struct lu__por_sig *g = lu__por_running_step(t);
    if (g)
        lu__sig_add(g, lu__por_key(t->s, obj), true, true);
}

/* Wider accesses (memcpy, memset of a buffer) name each word up to this;
 * a wider one inside a block allocated in this execution names the whole
 * block (lu__key_meet), and any other makes the step dependent with
 * everything. */
#define LU__POR_PLAIN_WORDS 8

void lu_sched_plain_access(const void *addr, size_t size, bool write)
{
    struct lu__thread *t = lu__self;
    if (!t)
        return;
    t->wrote |= write; /* for idleness (lu__idle_wrote), reduction or not */
    if (!t->s->x_por)
        return;
    struct lu__por_sig *g = lu__por_running_step(t);
    if (!g || (g->flags & LU__PS_ALL))
        return;
    /* Another thread's stack: its owner's own accesses there are left out
     * (the hooks take a thread's stack as private), so this step is
     * dependent with everything, those included (a local passed by
     * address to a thread that races with its owner). */
    uintptr_t a0 = (uintptr_t)addr;
    /* most accesses are to the heap, outside every slot's stack: one test
     * (lu__stacks_note) instead of a look at each thread's */
    if (a0 - t->s->stacks_lo < t->s->stacks_span) {
        for (int u = 0; u < t->s->nthreads; u++) {
            const struct lu__thread *o = &t->s->threads[u];
            if (o != t && o->stack_lo && a0 >= o->stack_lo && a0 < o->stack_top) {
                g->flags |= LU__PS_ALL;
                return;
            }
        }
    }
    uintptr_t a = (uintptr_t)addr & ~(uintptr_t)7, end = (uintptr_t)addr + (size ? size : 1);
    if ((end - a + 7) / 8 > LU__POR_PLAIN_WORDS) {
        uint64_t whole;
        if (lu__por_whole_key(t->s, a, end, &whole))
            lu__sig_add(g, whole, write, false);
        else
            g->flags |= LU__PS_ALL;
        return;
    }
    for (; a < end && !(g->flags & LU__PS_ALL); a += 8)
        lu__sig_add(g, lu__por_key(t->s, (const void *)a), write, false);
}

void lu_sched_plain_unknown(void)
{
    struct lu__thread *t = lu__self;
    if (!t)
        return;
    t->wrote = true;
    if (!t->s->x_por)
        return;
    struct lu__por_sig *g = lu__por_running_step(t);
    if (g)
        g->flags |= LU__PS_ALL;
}

static void lu__por_touch_allocator(void)
{
    lu__por_touch_hidden(lu__self, &lu__allocator_word);
}

/* The signature of a step is taken from its pending operation when it is
 * chosen, where a CAS is a write; once it has failed, it is known to have
 * read only (and released nothing, lu_sched_access_end). The step's
 * signature is still open here, as for the allocator above. */
void lu__por_read_only(struct lu__thread *t, const void *addr)
{
    struct lu__por_sig *g = lu__por_running_step(t);
    if (!g || (g->flags & LU__PS_ALL))
        return;
    uint64_t key = lu__por_key(t->s, addr);
    for (int i = 0; i < g->n; i++)
        if (g->key[i] == key)
            g->wmask &= (uint8_t) ~(1u << i);
}

void lu_sched_note_alloc(const void *p, size_t n)
{
    struct lu__por_blocks *bl = lu__por_blocks_of_caller();
    if (bl && p) {
        lu__por_block_add(bl, (uintptr_t)p, n, bl->ranks++);
        lu__por_touch_allocator();
    }
}

void lu_sched_note_free(const void *p)
{
    struct lu__por_blocks *bl = lu__por_blocks_of_caller();
    if (bl && p) {
        if (lu__por_block_remove(bl, (uintptr_t)p) < 0)
            lu__por_block_forget(bl, (uintptr_t)p);
        lu__por_touch_allocator();
    }
}

void lu_sched_note_realloc(const void *old, const void *p, size_t n)
{
    struct lu__por_blocks *bl = lu__por_blocks_of_caller();
    if (!bl || !p)
        return;
    lu__por_touch_allocator();
    int64_t rank = old ? lu__por_block_remove(bl, (uintptr_t)old) : -1;
    if (old && rank < 0)
        lu__por_block_forget(bl, (uintptr_t)old); /* from before: in place, it stays keyed by address */
    lu__por_block_add(bl, (uintptr_t)p, n, old == p && rank >= 0 ? (uint32_t)rank : bl->ranks++);
}

void lu__por_blocks_reset(struct lu_sched *s)
{
    s->por->blocks.n = 0;
    s->por->blocks.ranks = 0;
    s->por->blocks.lost = false;
}

/* What a pending operation touches. Synchronization operations count as
 * writes of their object (even a failed trylock: it changes what a spinning
 * thread sees). */
static void lu__sig_of(const struct lu_sched *s, struct lu__por_sig *g, enum lu_sched_kind k, const void *obj,
                       const void *obj2)
{
    g->n = 0;
    g->flags = 0;
    g->wmask = g->smask = 0;
    if (s->por->blocks.lost) {
        g->flags = LU__PS_ALL;
        return;
    }
    switch (k) {
    case LU_SCHED_K_FREE:
        g->flags = LU__PS_CALL;
        break;
    case LU_SCHED_K_YIELD:
    case LU_SCHED_K_CREATE:
    case LU_SCHED_K_JOIN:
    case LU_SCHED_K_JOIN_ALL:
    case LU_SCHED_K_OTHER:
        g->flags = LU__PS_BOUNDARY;
        break;
    case LU_SCHED_K_READ:
        lu__sig_add(g, lu__por_key(s, obj), false, false);
        break;
    case LU_SCHED_K_WRITE:
    case LU_SCHED_K_RMW:
        lu__sig_add(g, lu__por_key(s, obj), true, false);
        break;
    case LU_SCHED_K_COND_WAIT:
        /* releases a mutex the thread struct does not name yet */
        lu__sig_add(g, lu__por_key(s, obj), true, true);
        g->flags |= LU__PS_ALLSYNC;
        break;
    case LU_SCHED_K_COND_REACQUIRE:
    case LU_SCHED_K_COND_TIMEDWAIT:
        lu__sig_add(g, lu__por_key(s, obj), true, true);
        if (obj2)
            lu__sig_add(g, lu__por_key(s, obj2), true, true);
        else
            g->flags |= LU__PS_ALLSYNC;
        break;
    case LU_SCHED_K_MUTEX_LOCK:
    case LU_SCHED_K_MUTEX_TRYLOCK:
    case LU_SCHED_K_MUTEX_TIMEDLOCK:
    case LU_SCHED_K_MUTEX_UNLOCK:
    case LU_SCHED_K_RW_RDLOCK:
    case LU_SCHED_K_RW_WRLOCK:
    case LU_SCHED_K_RW_TRY:
    case LU_SCHED_K_RW_TIMED_RD:
    case LU_SCHED_K_RW_TIMED_WR:
    case LU_SCHED_K_RW_UNLOCK:
    case LU_SCHED_K_RW_WR_BLOCKED:
    case LU_SCHED_K_COND_SIGNAL:
    case LU_SCHED_K_COND_BROADCAST:
    case LU_SCHED_K_SEM_WAIT:
    case LU_SCHED_K_SEM_TRYWAIT:
    case LU_SCHED_K_SEM_TIMEDWAIT:
    case LU_SCHED_K_SEM_POST:
    case LU_SCHED_K_BARRIER_WAIT:
    case LU_SCHED_K_BARRIER_BLOCKED:
    case LU_SCHED_K_ONCE:
    case LU_SCHED_K_ONCE_BLOCKED:
        lu__sig_add(g, lu__por_key(s, obj), true, true);
        break;
    case LU_SCHED_K_FENCE:
        /* Under sequential consistency a fence reads and writes nothing and
         * enables or disables nothing, so it commutes with every step. Only
         * the happens-before clocks see it (acquire and release fences order
         * accesses for the race detector); a program section (obj set)
         * touches what it runs. */
        if (!obj && s->cfg.no_clocks)
            break;
        /* fall through */
    default:
        g->flags = LU__PS_ALL;
        break;
    }
}

static void lu__sig_thread(const struct lu_sched *s, struct lu__por_sig *g, const struct lu__thread *t)
{
    lu__sig_of(s, g, t->k, t->obj, t->obj2);
}

/* Operations some other thread's step can disable (lu__enabled). */
static bool lu__may_block(enum lu_sched_kind k)
{
    return lu__kind_in(k, LU__KINDS_MAY_BLOCK);
}

/* Whether two steps (or runs) may fail to commute. A step that leaves a FREE
 * point (CALL) and one that reaches a FREE point or its thread's end (RET)
 * are ordered, so that the order of the events the layer above records
 * there is kept; two CALLs or two RETs are not, as their order must not
 * matter to it (docs/por.md, section 1). Boundaries are ordered with every
 * boundary, CALL and RET. */
static bool lu__dep(const struct lu__por_sig *a, const struct lu__por_sig *b)
{
    if ((a->flags | b->flags) & LU__PS_ALL)
        return true;
    const uint8_t events = LU__PS_BOUNDARY | LU__PS_CALL | LU__PS_RET;
    if (((a->flags & LU__PS_BOUNDARY) && (b->flags & events)) ||
        ((b->flags & LU__PS_BOUNDARY) && (a->flags & events)))
        return true;
    if (((a->flags & LU__PS_CALL) && (b->flags & LU__PS_RET)) ||
        ((a->flags & LU__PS_RET) && (b->flags & LU__PS_CALL)))
        return true;
    if (((a->flags & LU__PS_ALLSYNC) && b->smask) || ((b->flags & LU__PS_ALLSYNC) && a->smask))
        return true;
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++)
            if (lu__key_meet(a->key[i], b->key[j]) && ((a->wmask >> i | b->wmask >> j) & 1))
                return true;
    return false;
}

/* The first step of a block (counted from 1, see struct lu__por_bidx)
 * that a step with signature a is dependent with, by the rules of lu__dep;
 * LU__PI_NONE if a is independent of the whole block. */
static unsigned lu__dep_index(const struct lu__por_sig *a, const struct lu__por_sig *b,
                              const struct lu__por_bidx *ix)
{
    if (a->flags & LU__PS_ALL)
        return 1;
    unsigned m = LU__PI_NONE;
#define LU__MIN(x) (m = (x) < m ? (x) : m)
    if (b->flags & LU__PS_ALL)
        LU__MIN(ix->all);
    const uint8_t events = LU__PS_BOUNDARY | LU__PS_CALL | LU__PS_RET;
    if (a->flags & LU__PS_BOUNDARY) {
        LU__MIN(ix->bnd);
        LU__MIN(ix->call);
        LU__MIN(ix->ret);
    }
    if (a->flags & events)
        LU__MIN(ix->bnd);
    if (a->flags & LU__PS_CALL)
        LU__MIN(ix->ret);
    if (a->flags & LU__PS_RET)
        LU__MIN(ix->call);
    if (a->smask)
        LU__MIN(ix->allsync);
    for (int j = 0; j < b->n; j++) {
        if ((a->flags & LU__PS_ALLSYNC) && (b->smask >> j & 1))
            LU__MIN(ix->any[j]);
        for (int i = 0; i < a->n; i++)
            if (lu__key_meet(a->key[i], b->key[j]))
                LU__MIN((a->wmask >> i & 1) ? ix->any[j] : ix->w[j]);
    }
#undef LU__MIN
    return m;
}

/* lu__dep_index, or for an entry that wakes whole: 1 or none. */
static unsigned lu__dep_from(const struct lu_sched *s, const struct lu__por_sig *a,
                             const struct lu__por_sig *b, const struct lu__por_bidx *ix)
{
    if (!lu__por_partial(s))
        return lu__dep(a, b) ? 1 : LU__PI_NONE;
    return lu__dep_index(a, b, ix);
}

/* A block that is "everything" from its first step. */
static void lu__bidx_all(struct lu__por_bidx *ix)
{
    memset(ix, LU__PI_NONE, sizeof *ix);
    ix->all = 1;
}

static const struct lu__por_sig *lu__por_ent_sig(const struct lu__por *p, const struct lu__por_ent *e)
{
    const struct lu__por_altsig *a = &p->step[e->step].sig[e->alt];
    return e->light ? &a->first : &a->block;
}

/* The alternative being explored at step i (the last one of its list), if
 * it is the chosen thread's. */
static struct lu__por_alt *lu__por_cur_alt(struct lu__por_step *ps, int tid)
{
    if (!ps->nalt || ps->alt[ps->nalt - 1].tid != tid)
        return NULL;
    return &ps->alt[ps->nalt - 1];
}

/* An execution starts: forget the previous one's transient state. */
static void lu__por_begin(struct lu_sched *s)
{
    struct lu__por *p = s->por;
    p->exec_id++;
    p->last = -1;
    p->run_tid = -1;
    p->pc_off = !s->pc;
    p->pc_nth = -1;
    p->pc_h1 = p->pc_h2 = 0;
    p->pc_pos = 0;
    p->pc_lazy = -1;
    memset(p->pc_tlast, 0xff, sizeof p->pc_tlast);
    memset(p->pc_born, 0xff, sizeof p->pc_born);
}

/* The run of p->run_tid ended at p->last: its thread stopped (FREE point,
 * blocked, spinning, finished), or was switched away from while it could go
 * on (cut: only when a prefix is replayed). Every step of the run whose
 * alternative was explored for the first time now knows its block: what
 * the thread touched from that step to the end of the run, and what it
 * waits for at the end. */
static void lu__por_end_run(struct lu_sched *s, const struct lu__thread *r, bool cut)
{
    struct lu__por *p = s->por;
    const bool partial = lu__por_partial(s);
    const struct lu_sched_trace *tr = s->cfg.trace;
    int tid = p->run_tid;
    p->run_tid = -1;
    if (tid < 0 || p->last < 0)
        return;
    bool live = r && r->id == tid && r->state == LU__T_RUNNING;
    struct lu__por_sig acc;
    acc.n = 0;
    acc.flags = 0;
    acc.wmask = acc.smask = 0;
    /* where each part of acc first occurs: trace positions (the run's
     * steps are added last to first, so each is overwritten by earlier
     * ones); what comes after the run sits at p->last + 1 */
    int fa[LU__POR_KEYS], fw[LU__POR_KEYS], fcall = -1, fret = -1, fbnd = -1, fsync = -1, fall = -1;
    for (int i = 0; i < LU__POR_KEYS; i++)
        fa[i] = fw[i] = -1;
    if (cut || !r || r->id != tid || (live && lu__in_section(s, r))) {
        acc.flags = LU__PS_ALL;
        fall = p->last + 1;
    } else if (live && r->k == LU_SCHED_K_FREE) {
        acc.flags = LU__PS_ENDFREE;
    } else if (live) {
        /* what it waits for: its enabledness must not change behind it */
        struct lu__por_sig w;
        lu__sig_thread(s, &w, r);
        lu__sig_merge(&acc, &w);
        if (acc.flags & LU__PS_ALL)
            fall = p->last + 1;
        if (acc.flags & LU__PS_BOUNDARY)
            fbnd = p->last + 1;
        if (acc.flags & LU__PS_ALLSYNC)
            fsync = p->last + 1;
        for (int i = 0; i < acc.n; i++) {
            fa[i] = p->last + 1;
            if (acc.wmask >> i & 1)
                fw[i] = p->last + 1;
        }
    }
    /* below p->pending every alternative knows its block already */
    int low = p->run_start > p->pending ? (int)p->run_start : (int)p->pending;
    for (int k = p->last; k >= low; k--) {
        if (tr->steps[k].kind != LU_SCHED_CHOOSE_THREAD)
            continue;
        struct lu__por_step *ps = &p->step[k];
        const struct lu__por_sig *x = &ps->exec;
        lu__sig_merge(&acc, x);
        if (x->flags & LU__PS_DATA)
            acc.flags |= LU__PS_ALL; /* the rest of the run depended on a data choice */
        if (acc.flags & LU__PS_ALL) {
            /* no key is added to "everything" any more: it stands for
             * this step and every later one */
            fall = k;
        } else if (partial) {
            for (int i = 0; i < x->n; i++)
                for (int j = 0; j < acc.n; j++)
                    if (lu__key_meet(acc.key[j], x->key[i])) {
                        fa[j] = k;
                        if (x->wmask >> i & 1)
                            fw[j] = k;
                    }
        }
        if (x->flags & LU__PS_CALL)
            fcall = k;
        if (x->flags & LU__PS_RET)
            fret = k;
        if (x->flags & LU__PS_BOUNDARY)
            fbnd = k;
        if (x->flags & LU__PS_ALLSYNC)
            fsync = k;
        struct lu__por_alt *a = lu__por_cur_alt(ps, tid);
        if (a && (a->pending & LU__PA_BLOCK)) {
            struct lu__por_altsig *as = &ps->sig[a - ps->alt];
            as->block = acc;
            a->pending &= (uint8_t)~LU__PA_BLOCK;
            if (!partial)
                continue; /* the index table is read only by partial entries */
#define LU__REL(f) ((f) < 0 ? LU__PI_NONE : (f)-k + 1 < LU__PI_NONE ? (uint8_t)((f)-k + 1) : LU__PI_NONE - 1)
            /* keys past acc.n never occurred (fa, fw -1): none */
            memset(&as->idx.any[acc.n], LU__PI_NONE, LU__POR_KEYS - (size_t)acc.n);
            memset(&as->idx.w[acc.n], LU__PI_NONE, LU__POR_KEYS - (size_t)acc.n);
            for (int i = 0; i < acc.n; i++) {
                as->idx.any[i] = LU__REL(fa[i]);
                as->idx.w[i] = LU__REL(fw[i]);
            }
            as->idx.call = LU__REL(fcall);
            as->idx.ret = LU__REL(fret);
            as->idx.bnd = LU__REL(fbnd);
            as->idx.allsync = LU__REL(fsync);
            as->idx.all = LU__REL(fall);
#undef LU__REL
        }
    }
}

/* Stops reducing for the rest of this execution (too deep, or something
 * unexpected): pending knowledge becomes "dependent with everything". */
static void lu__por_abandon(struct lu_sched *s)
{
    struct lu__por *p = s->por;
    if (p->run_tid >= 0)
        lu__por_end_run(s, NULL, true);
    p->last = -1;
    p->pc_off = true;
}

/* cur arrived at a choice after running its step p->last: now it is known
 * whether that step ended an operation or the thread (a return event is
 * recorded by the layer above after it: a boundary), and whether the run
 * being recorded goes on. */
static void lu__por_arrive(struct lu_sched *s, struct lu__thread *cur, bool cand)
{
    struct lu__por *p = s->por;
    const struct lu_sched_trace *tr = s->cfg.trace;
    int j = p->last;
    if (j < 0)
        return;
    if (tr->steps[j].chosen != cur->id) {
        lu__por_abandon(s);
        return;
    }
    bool live = cur->state == LU__T_RUNNING;
    struct lu__por_step *ps = &p->step[j];
    /* the layer above records a return after an operation's last step; a
     * thread's end enables joins; a spawn numbers the new thread */
    if (!live || cur->k == LU_SCHED_K_FREE)
        ps->exec.flags |= LU__PS_RET;
    if (s->nthreads != p->nthreads)
        ps->exec.flags |= LU__PS_BOUNDARY;
    struct lu__por_alt *a = lu__por_cur_alt(ps, cur->id);
    if (a && (a->pending & LU__PA_FIRST)) {
        struct lu__por_sig *first = &ps->sig[a - ps->alt].first;
        *first = ps->exec;
        first->flags &= (uint8_t)~LU__PS_DATA;
        /* its next steps depended on a data choice, or only it may run now */
        if ((ps->exec.flags & LU__PS_DATA) || (live && lu__in_section(s, cur)))
            first->flags |= LU__PS_ALL;
        if (live && cur->k == LU_SCHED_K_FREE)
            first->flags |= LU__PS_ENDFREE;
        a->pending &= (uint8_t)~LU__PA_FIRST;
    }
    if (p->run_tid == cur->id && (!live || cur->k == LU_SCHED_K_FREE || !cand))
        lu__por_end_run(s, cur, false);
}

/* Whether some thread may spin by lu__settled_spin now, or once another
 * thread's quiet step frees what it waits for: the exchange argument and
 * the prefix-trace cache assume that only a look spins, and that another
 * thread's step cannot make one (docs/por.md), so neither applies then. */
static bool lu__settled_any(const struct lu_sched *s)
{
    for (int i = 0; i < s->nthreads; i++) {
        const struct lu__thread *t = &s->threads[i];
        if (t->settled && t->look_stirs == s->stirs && t->state == LU__T_RUNNING)
            return true;
    }
    return false;
}

/* Whether some live thread is idle (Line-Up tests: config.quiet_waits).
 * Its bookkeeping (its round, the versions it saw, whether it settles and
 * when) is not fixed by the trace: two schedules of one trace can leave a
 * poller about to settle in one and not in the other, and what DFS explores
 * below then differs. The prefix-trace cache names nodes by trace, so it is
 * off there (an audit's random harness, a trylock poller beside a lock
 * holder, lost a history at bound 3 and unbounded). */
static bool lu__idle_any(const struct lu_sched *s)
{
    if (!s->cfg.quiet_waits)
        return false;
    for (int i = 0; i < s->nthreads; i++)
        if (s->threads[i].idle && s->threads[i].state == LU__T_RUNNING)
            return true;
    return false;
}

/* The sleep set at step i: the previous thread step's entries that its
 * operation did not wake, the alternatives explored there before the chosen
 * one (when the bound allows the exchange), minus those the state here
 * wakes; plus, while a thread chosen with a partial entry has not run the
 * steps that entry covers, every other candidate. Returns the sleeping
 * threads. no_exchange: everyone spins, or some thread is settled
 * (lu__settled_any), and nothing sleeps. */
static uint64_t lu__por_sleep(struct lu_sched *s, struct lu__thread *cur, uint32_t i, uint64_t enabled,
                              uint64_t cand, bool no_exchange)
{
    struct lu__por *p = s->por;
    const struct lu_sched_trace *tr = s->cfg.trace;
    struct lu__por_step *ps = &p->step[i];
    int bound = s->cfg.preemption_bound;
    ps->nent = 0;
    ps->sleep = 0;
    ps->sleep_exec = p->exec_id;
    ps->rtid = -1;
    ps->rrem = 0;
    int j = p->last;
    if (j < 0 || no_exchange)
        return 0;
    const struct lu__por_step *pj = &p->step[j];
    const struct lu_sched_step *sj = &tr->steps[j];
    /* While a thread spins and others can run, DFS may choose it at a cost
     * and run it alone (lu_sched_step.spin): the exchange argument of
     * docs/por.md does not cover those choices, so nothing sleeps there */
    if (s->ff_tid >= 0 || (sj->spin >> sj->chosen & 1) || (enabled & ~cand))
        return 0;
    int u = sj->chosen;
    /* the run of a thread chosen with a partial entry: switching away from
     * it before it ran the steps the entry covers is covered */
    int hold = pj->rtid == u ? pj->rrem : 0;
    struct lu__por_ent cands[LU__POR_ENTS + LU__POR_ALTS];
    int nc = 0;
    for (int e = 0; e < pj->nent; e++) {
        struct lu__por_ent en = pj->ent[e];
        const struct lu__por_sig *g = lu__por_ent_sig(p, &en);
        if (en.tid == u) {
            if (en.from != LU__PI_NONE && en.from - 1 > hold)
                hold = en.from - 1;
            continue;
        }
        if (en.light) {
            if (lu__dep(&pj->exec, g))
                continue;
        } else {
            unsigned d = lu__dep_from(s, &pj->exec, g, &p->step[en.step].sig[en.alt].idx);
            if (d < en.from)
                en.from = (uint8_t)d;
            if (en.from <= 1)
                continue;
        }
        cands[nc++] = en;
    }
    unsigned cu = lu__cost(s->cfg.bound_kind, sj->enabled, sj->prev, sj->flags, u);
    for (int a = 0; a + 1 < pj->nalt; a++) {
        const struct lu__por_alt *al = &pj->alt[a];
        if (al->tid == u || (sj->spin >> al->tid & 1))
            continue;
        bool light = bound < 0 || (al->tid == sj->prev && (sj->flags & LU_SCHED_STEP_PREEMPTIBLE) &&
                                   !(sj->flags & LU_SCHED_STEP_FREE));
        if (!light && lu__cost(s->cfg.bound_kind, sj->enabled, sj->prev, sj->flags, al->tid) > cu)
            continue; /* running it first cost more than u: no exchange */
        if (al->pending & (light ? LU__PA_FIRST : LU__PA_BLOCK))
            continue;
        unsigned from = LU__PI_NONE;
        if (light) {
            if (lu__dep(&pj->exec, &pj->sig[a].first))
                continue;
        } else {
            from = lu__dep_from(s, &pj->exec, &pj->sig[a].block, &pj->sig[a].idx);
            if (from <= 1)
                continue;
        }
        cands[nc++] = (struct lu__por_ent){
            .step = (uint32_t)j, .tid = al->tid, .alt = (uint8_t)a, .light = light, .from = (uint8_t)from};
    }

    uint64_t sleep = 0;
    if (hold > 0 && (cand >> u & 1) && cur->id == u) {
        sleep = cand & ~(1ULL << u);
        ps->rtid = (int8_t)u;
        ps->rrem = (uint8_t)(hold - 1);
    }
    ps->sleep = sleep;
    if (!nc)
        return sleep;

    bool cur_live = cur->state == LU__T_RUNNING;
    /* the previous thread cannot be preempted now (blocked or spinning):
     * moving a sleeper's steps before could make it preemptible */
    struct lu__por_sig cs;
    bool cur_stuck = bound >= 0 && cur_live && cur->k != LU_SCHED_K_FREE && !(cand >> cur->id & 1);
    if (cur_stuck)
        lu__sig_thread(s, &cs, cur);
    for (int e = 0; e < nc; e++) {
        const struct lu__por_ent *en = &cands[e];
        const struct lu__por_sig *g = lu__por_ent_sig(p, en);
        int t = en->tid;
        if (s->threads[t].state != LU__T_RUNNING)
            continue;
        if (cur_stuck && lu__dep(&cs, g))
            continue;
        if ((cand >> t & 1) && !(g->flags & LU__PS_ENDFREE) && en->from == LU__PI_NONE &&
            (enabled & ~(1ULL << t))) {
            /* after its steps, everyone could be spinning, and the forced
             * turn-taking would start from another thread: keep it asleep
             * only if some other candidate surely stays runnable (its
             * steps cannot make anyone spin, only disable). A partial
             * entry covers only schedules that leave its thread a
             * candidate, so not everyone spins there. */
            bool ok = false;
            for (uint64_t m = cand & ~(1ULL << t); m && !ok; m &= m - 1) {
                const struct lu__thread *y = &s->threads[__builtin_ctzll(m)];
                struct lu__por_sig ys;
                lu__sig_thread(s, &ys, y);
                ok = !lu__may_block(y->k) || !lu__dep(&ys, g);
            }
            if (!ok)
                continue;
        }
        /* one entry per thread: the one that covers most */
        int k = 0;
        while (k < ps->nent && ps->ent[k].tid != t)
            k++;
        if (k < ps->nent) {
            if (en->from > ps->ent[k].from)
                ps->ent[k] = *en;
        } else if (ps->nent < LU__POR_ENTS) {
            ps->ent[ps->nent++] = *en;
        }
    }
    for (int k = 0; k < ps->nent; k++)
        if (ps->ent[k].from == LU__PI_NONE)
            sleep |= 1ULL << ps->ent[k].tid;
    ps->sleep = sleep;
    return sleep;
}

/* ---- the prefix-trace cache (docs/por.md, section 8) ----
 *
 * Schedules of one Mazurkiewicz trace reach the same state: that is what
 * the reduction rests on. So when DFS reaches a node whose prefix has the
 * trace of a node it fully explored before, with the same thread last and
 * no fewer preemptions left there, everything below the new node was
 * explored below the old one, and the execution ends as redundant. Sleep
 * sets cannot see this: most such pairs differ by moving a thread's first
 * steps to the front together with a preemption, which no exchange of a
 * whole block expresses. A prefix's trace is named by the sum of its
 * events' hashes, an event being its thread, its index in the thread, its
 * vector clock under the reduction's own dependence (lu__dep) and the
 * data choices made in it: equal for every linearization of the same
 * partial order, and order-independent, so kept incrementally. */

/* Whether a step's record was stamped by the previous execution, which
 * replayed the same prefix; 0 is "never", not an execution before the
 * first: a search's first execution replays a prefix it was given
 * (a restarted explorer's, a part of a tree) that nobody went through. */
static inline bool lu__por_by_previous(const struct lu__por *p, uint64_t stamp)
{
    return stamp && stamp + 1 == p->exec_id;
}

/* Data choices made before the first thread step (by a thread alone, or
 * one starting a thread) stand at the same places in every execution. */
static void lu__pc_data(struct lu_sched *s, uint32_t upto)
{
    struct lu__por *p = s->por;
    const struct lu_sched_trace *tr = s->cfg.trace;
    for (uint32_t k = p->pc_pos; k < upto; k++) {
        if (tr->steps[k].kind != LU_SCHED_CHOOSE_DATA)
            continue;
        p->pc_h1 += lu__mix(0x5be0cd19137e2179ULL ^ (uint64_t)k << 8 ^ tr->steps[k].chosen);
        p->pc_h2 += lu__mix(0x1f83d9abfb41bd6bULL + ((uint64_t)k << 12 | tr->steps[k].chosen));
    }
    if (upto > p->pc_pos)
        p->pc_pos = upto;
}

/* The step p->last ran to its end (cur arrived at its next point): add its
 * event to the prefix's hash. Data choices it made follow it in the trace. */
static void lu__pc_event(struct lu_sched *s, uint32_t len)
{
    struct lu__por *p = s->por;
    const struct lu_sched_trace *tr = s->cfg.trace;
    int j = p->last;
    if (p->pc_off)
        return;
    /* the step and its data choices lie before the one DFS changed: the
     * previous execution hashed the same */
    struct lu__pc_snap *sn = j >= 0 ? &p->pc_snap[j] : NULL;
    if (sn && len < s->replay_len && lu__por_by_previous(p, sn->exec)) {
        sn->exec = p->exec_id;
        p->pc_lazy = j;
        return;
    }
    if (p->pc_lazy >= 0) {
        const struct lu__pc_snap *r = &p->pc_snap[p->pc_lazy];
        p->pc_h1 = r->h1;
        p->pc_h2 = r->h2;
        p->pc_pos = r->pos;
        memcpy(p->pc_tlast, r->tlast, sizeof p->pc_tlast);
        memcpy(p->pc_born, r->born, sizeof p->pc_born);
        p->pc_lazy = -1;
    }
    if (j < 0) {
        lu__pc_data(s, len);
        return;
    }
    int t = tr->steps[j].chosen;
    if (t >= LU__PC_THREADS || s->nthreads > LU__PC_THREADS) {
        p->pc_off = true;
        return;
    }
    for (uint32_t k = (uint32_t)j + 1; k < len; k++)
        if (tr->steps[k].kind != LU_SCHED_CHOOSE_DATA) {
            p->pc_off = true; /* an event that was never hashed: cannot happen */
            return;
        }
    lu__pc_data(s, (uint32_t)j);
    p->pc_pos = len;
    struct lu__pc_ev *e = &p->pc_ev[j];
    int nth = s->nthreads;
    int pl = p->pc_tlast[t];
    if (pl >= 0) {
        memcpy(e->vc, p->pc_ev[pl].vc, sizeof e->vc);
        e->own = (uint16_t)(p->pc_ev[pl].own + 1);
    } else {
        memset(e->vc, 0, sizeof e->vc);
        e->own = 1;
        if (p->pc_born[t] >= 0) /* a thread's first event follows its start */
            for (int u = 0; u < LU__PC_THREADS; u++) {
                uint16_t v = p->pc_ev[p->pc_born[t]].vc[u];
                e->vc[u] = v > e->vc[u] ? v : e->vc[u];
            }
    }
    e->vc[t] = e->own;
    e->plink = (int16_t)pl;
    const struct lu__por_sig *g = &p->step[j].exec;
    for (int u = 0; u < nth; u++) {
        if (u == t)
            continue;
        /* the latest event of u that e depends on and does not know yet:
         * its clock covers u's earlier ones */
        for (int k = p->pc_tlast[u]; k >= 0 && p->pc_ev[k].own > e->vc[u]; k = p->pc_ev[k].plink) {
            if (lu__dep(&p->step[k].exec, g)) {
                const uint16_t *w = p->pc_ev[k].vc;
                for (int x = 0; x < nth; x++)
                    e->vc[x] = w[x] > e->vc[x] ? w[x] : e->vc[x];
                break;
            }
        }
    }
    p->pc_tlast[t] = (int16_t)j;
    /* threads this step started: their first events come after it */
    for (int u = p->pc_nth < 0 ? nth : p->pc_nth; u < nth; u++)
        p->pc_born[u] = (int16_t)j;
    uint64_t h1 = 0x6a09e667f3bcc909ULL ^ (uint64_t)t << 32 ^ e->own, h2 = 0xbb67ae8584caa73bULL ^ h1;
    h1 = lu__mix(h1);
    h2 = lu__mix(h2 ^ 0x3c6ef372fe94f82bULL);
    /* zeros left out: a thread started by an independent step may exist
     * or not when an event of one trace is hashed */
    for (int u = 0; u < nth; u++) {
        if (!e->vc[u])
            continue;
        h1 = lu__mix(h1 ^ ((uint64_t)e->vc[u] << 8 | (uint64_t)u));
        h2 = lu__mix(h2 + ((uint64_t)e->vc[u] << 20 | (uint64_t)u << 4 | 5));
    }
    /* the event of the alternative explored here, for lu__pc_ahead: the
     * same wherever the step runs after steps independent of it */
    struct lu__por_alt *al = len == (uint32_t)j + 1 ? lu__por_cur_alt(&p->step[j], t) : NULL;
    if (al) {
        struct lu__por_altsig *as = &p->step[j].sig[al - p->step[j].alt];
        as->ev_h1 = h1;
        as->ev_h2 = h2;
        as->ev_ok = true;
    }
    for (uint32_t k = (uint32_t)j + 1; k < len; k++) {
        h1 = lu__mix(h1 ^ (0x100000000ULL | tr->steps[k].chosen));
        h2 = lu__mix(h2 + (0x700000000ULL | tr->steps[k].chosen));
    }
    p->pc_h1 += h1;
    p->pc_h2 += h2;
    if (p->ahead_at && p->ahead_at == (uint32_t)j) {
        /* the step whose event lu__pc_ahead predicted and did not find
         * covered: the prediction is checked, so that tests see it exact */
        p->ahead_at = 0;
        s->stats.pc_ahead_checked++;
        if (p->pc_h1 != p->ahead_h1 || p->pc_h2 != p->ahead_h2)
            s->stats.pc_ahead_wrong++;
    }
    sn->exec = p->exec_id;
    sn->h1 = p->pc_h1;
    sn->h2 = p->pc_h2;
    sn->pos = p->pc_pos;
    memcpy(sn->tlast, p->pc_tlast, sizeof sn->tlast);
    memcpy(sn->born, p->pc_born, sizeof sn->born);
}

void lu__pc_final(struct lu_sched *s, struct lu_sched_result *res)
{
    const struct lu__por *p = s->por;
    res->trace_named = p && !p->pc_off;
    if (!res->trace_named)
        return;
    /* the end of a replayed prefix: the hash is the snapshot's */
    const struct lu__pc_snap *r = p->pc_lazy >= 0 ? &p->pc_snap[p->pc_lazy] : NULL;
    res->trace_name[0] = r ? r->h1 : p->pc_h1;
    res->trace_name[1] = r ? r->h2 : p->pc_h2;
}

/* The nodes of one trace, whichever thread ran last, share a bucket: a
 * look-up asks about every one of them in one cache line. */
static inline struct lu__pc_slot *lu__pc_bucket(struct lu_sched_cache *c, uint64_t h1)
{
    return &lu__pc_slots(c)[(h1 >> 7 & __atomic_load_n(&c->mask, __ATOMIC_RELAXED)) * LU__PC_WAYS];
}

#define LU__PC_HI 0xffffffffff000000ULL

/* Whether a node with this prefix, prev thread and budget left was covered
 * by an earlier one: the same trace with prev x, explored with budget b1,
 * covers every continuation that costs b1 from there, and a continuation
 * from another prev costs at most one more (its first switch) when x was
 * preemptible. Looked up under every prev, as the cover may be another's. */
static bool lu__pc_covered_as(struct lu_sched_cache *c, uint64_t h1, uint64_t h2, int prev, unsigned budget)
{
    uint64_t a = h1 | 1, hi = h2 & LU__PC_HI;
    const struct lu__pc_slot *b = lu__pc_bucket(c, a);
    for (int w = 0; w < LU__PC_WAYS; w++) {
        if (b[w].a != a || (b[w].b & LU__PC_HI) != hi)
            continue;
        int x = (int)(b[w].b >> 16 & 0xff);
        unsigned b1 = (unsigned)(b[w].b & 0xff);
        unsigned need = budget + (x != prev && (b[w].b >> 15 & 1) ? 1 : 0);
        if (b1 == 255 || b1 >= need)
            return true;
    }
    return false;
}

static bool lu__pc_covered(const struct lu_sched *s, int prev, unsigned budget)
{
    return lu__pc_covered_as(s->pc, s->por->pc_h1, s->por->pc_h2, prev, budget);
}

void lu__pc_put(struct lu_sched_cache *c, uint64_t a, uint64_t b)
{
    unsigned budget = (unsigned)(b & 0xff);
    struct lu__pc_slot *bk = lu__pc_bucket(c, a);
    int victim = (int)(b >> 24 & (LU__PC_WAYS - 1));
    /* a count another process may miss an increment of: it only decides
     * when the table grows */
    __atomic_store_n(&c->fill, __atomic_load_n(&c->fill, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    for (int w = 0; w < LU__PC_WAYS; w++) {
        if (bk[w].a == a && (bk[w].b & ~0xffULL) == (b & ~0xffULL)) {
            if ((bk[w].b & 0xff) < budget) /* 255, unbounded, is the largest */
                bk[w].b = b;
            return;
        }
        if (!bk[w].a)
            victim = w;
    }
    /* b first: a fork server's child that dies between the two leaves an
     * entry whose halves do not match, never a match it did not make */
    bk[victim].a = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    bk[victim].b = b;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    bk[victim].a = a;
}

/* The node at step len, to be put once DFS has left its subtree
 * (lu__pc_leave). Not before: an entry then states a fact, "explored", and
 * a search that shares the table (a restarted explorer, a parallel one, a
 * part of the subtree given away) can rely on it. Put on arrival, an entry
 * would be a promise, which two searches could each keep only by relying
 * on the other's: parts of both subtrees would never be explored. A single
 * DFS loses nothing by the wait: a node of the same trace has the same
 * depth, so it is never inside the subtree, and DFS reaches it only after
 * leaving the subtree. */
static void lu__pc_note(struct lu_sched *s, uint32_t len, int prev, bool preemptible, unsigned budget)
{
    struct lu__por *p = s->por;
    uint64_t hi = p->pc_h2 & LU__PC_HI;
    p->pc_node[len].b = hi | (uint64_t)prev << 16 | (preemptible ? 1u << 15 : 0) | budget;
    p->pc_node[len].a = p->pc_h1 | 1;
}

/* DFS left the nodes at steps from .. to - 1 of the last execution's path
 * (it backtracks above them, or the search is over). */
static void lu__pc_leave(struct lu_sched *s, uint32_t from, uint32_t to)
{
    struct lu__por *p = s->por;
    if (!s->pc)
        return;
    if (to > LU__POR_DEPTH)
        to = LU__POR_DEPTH;
    for (uint32_t d = from; d < to; d++) {
        if (p->pc_node[d].a) {
            lu__pc_put(s->pc, p->pc_node[d].a, p->pc_node[d].b);
            p->pc_node[d].a = 0;
        }
    }
}

/* Bookkeeping after the choice at step i. */
static void lu__por_chosen(struct lu_sched *s, uint32_t i, int chosen, bool known)
{
    struct lu__por *p = s->por;
    struct lu__por_step *ps = &p->step[i];
    if (!known) /* a replayed step keeps what the previous execution computed */
        lu__sig_thread(s, &ps->exec, &s->threads[chosen]);
    p->nthreads = s->nthreads;
    if (i >= p->valid) {
        ps->nalt = 1;
        ps->alt[0].tid = (uint8_t)chosen;
        ps->alt[0].pending = LU__PA_FIRST | LU__PA_BLOCK;
        ps->sig[0].ev_ok = false;
        p->valid = i + 1;
        if (p->pending > i)
            p->pending = i;
    }
    if (p->run_tid >= 0 && p->run_tid != chosen)
        lu__por_end_run(s, NULL, true); /* switched away from a thread that could go on */
    if (p->run_tid < 0) {
        p->run_tid = chosen;
        p->run_start = i;
    }
    p->last = (int)i;
    p->last_alone = s->alone_steps;
}

/* End of an execution, however it ended, seen from DFS: what was not
 * learnt in it is "dependent with everything". */
static void lu__por_settle(struct lu_sched *s)
{
    struct lu__por *p = s->por;
    uint32_t n = p->valid < LU__POR_DEPTH ? p->valid : LU__POR_DEPTH;
    for (uint32_t k = p->pending; k < n; k++) {
        struct lu__por_step *ps = &p->step[k];
        for (int a = 0; a < ps->nalt; a++) {
            struct lu__por_alt *al = &ps->alt[a];
            if (al->pending & LU__PA_FIRST)
                ps->sig[a].first.flags = LU__PS_ALL;
            if (al->pending & LU__PA_BLOCK) {
                ps->sig[a].block.flags = LU__PS_ALL;
                lu__bidx_all(&ps->sig[a].idx);
            }
            al->pending = 0;
        }
    }
    p->pending = n;
    p->run_tid = -1;
    p->last = -1;
}

/* A replay that cannot follow its schedule stops here: see
 * LU_SCHED_MISFITS. */
static void lu__misfit(struct lu_sched *s, struct lu__thread *cur, enum lu_sched_misfit why)
{
    s->res->misfit = why;
    s->res->culprit = cur->id;
    s->res->message = lu_sched_misfit_name(why);
    s->res->outcome = LU_SCHED_OUT_MISFIT;
}

/* The randomized strategies take no costly alternatives, except a timed
 * wait that would give up: it only spins because time does not pass, and
 * natively a timeout can fire while the thread it waits for is still at
 * work (a bug on the give-up path needs exactly that). Other spinners are
 * left out: running one alone until it stops would mostly be dropped. */
static uint64_t lu__timed_spinners(struct lu_sched *s, uint64_t spinning)
{
    uint64_t m = 0;
    for (uint64_t x = spinning; x; x &= x - 1) {
        int i = __builtin_ctzll(x);
        if (lu__timed_kind(s->threads[i].k))
            m |= 1ULL << i;
    }
    return m;
}

/* Whether a randomized strategy gives up one of the timed waits in timed
 * now, and which (-1: none): each of them is as likely as each thread
 * that could run, so that a loop of timed waits (a periodic worker) still
 * lets the others on, as under the random strategy; PCT and POS choose
 * among the others by their own rules. */
static int lu__draw_giveup(struct lu_sched *s, uint64_t allowed, uint64_t timed)
{
    uint64_t na = (uint64_t)__builtin_popcountll(allowed), nt = (uint64_t)__builtin_popcountll(timed);
    uint64_t k = lu__rand(s) % (na + nt);
    if (k < na)
        return -1;
    k -= na;
    while (k--)
        timed &= timed - 1;
    return __builtin_ctzll(timed);
}

/* The spinning threads that may be chosen at a cost of one preemption:
 * those within the bound. */
static inline uint64_t lu__spin_within(uint64_t spin_alt, uint16_t base, int bound)
{
    return bound < 0 || (unsigned)base + 1 <= (unsigned)bound ? spin_alt : 0;
}

/* Ends the execution at a choice as covered by explored ones (asleep
 * everywhere, or a prefix whose trace was explored): lu__choose's -1. */
static int lu__por_cut(struct lu_sched *s)
{
    s->stats.por_pruned++;
    s->res->message = "redundant under partial-order reduction";
    s->res->outcome = LU_SCHED_OUT_DISCARDED;
    s->res->redundant = true;
    return -1;
}

/* ---- livelock: idle threads ---- */

static int lu__seen_find(const struct lu__thread *t, const void *addr)
{
    for (int i = 0; i < t->nseen; i++)
        if (t->seen[i].addr == addr)
            return i;
    return -1;
}

/* Whether idle thread t's pending step, which is not a look (lu__spinning),
 * brings t nothing it did not know and changes nothing another thread
 * could wait for. Such steps keep the livelock count going: a wait that
 * polls a flag under a lock (lock, look, unlock, yield) goes round through
 * them, and its lock and unlock would otherwise start the count again at
 * every turn, so that the wait never ended as stuck. Taking and giving
 * back a lock is quiet whoever held it last: what the holder changed under
 * it is in its steps, whose plain writes end their quietness (lu__idle_wrote),
 * and two threads that poll one lock for a flag nobody sets pass it back
 * and forth for ever. What other threads changed reaches t by a version of
 * a location t has not seen, or by waking it: neither is quiet. Does not
 * change t (lu__seen_note does). */
static bool lu__quiet_step(struct lu_sched *s, const struct lu__thread *t)
{
    const struct lu__obj *o = lu__obj_find(s, t->obj);
    int me = t->id;
    switch (t->k) {
    case LU_SCHED_K_MUTEX_TRYLOCK:
        /* one that fails changes nothing: a look (not a re-read when the
         * thread's own lock and unlock came between) */
        return true;
    case LU_SCHED_K_MUTEX_LOCK:
    case LU_SCHED_K_MUTEX_TIMEDLOCK:
        /* one that takes it */
        return !o || (o->type == LU__O_MUTEX && (o->u.mutex.owner == -1 || o->u.mutex.owner == me));
    case LU_SCHED_K_MUTEX_UNLOCK:
        return o && o->type == LU__O_MUTEX && o->u.mutex.owner == me;
    case LU_SCHED_K_RW_TRY:
        return true; /* taking it (as below) or failing */
    case LU_SCHED_K_RW_RDLOCK:
    case LU_SCHED_K_RW_WRLOCK:
    case LU_SCHED_K_RW_TIMED_RD:
    case LU_SCHED_K_RW_TIMED_WR:
        /* one that takes it, without turning readers away (a writer's
         * registration on a writer-preferring lock) */
        return !o || (o->type == LU__O_RW && o->u.rw.writer == -1 && !o->u.rw.writers_waiting &&
                      (t->k == LU_SCHED_K_RW_RDLOCK || t->k == LU_SCHED_K_RW_TIMED_RD ||
                       o->u.rw.readers == o->u.rw.held[me]));
    case LU_SCHED_K_RW_UNLOCK:
        return o && o->type == LU__O_RW && (o->u.rw.writer == me || o->u.rw.held[me]);
    case LU_SCHED_K_COND_WAIT:
        /* gives up the lock and waits: being woken is the news */
        return true;
    case LU_SCHED_K_COND_REACQUIRE: {
        /* after its timed wait gave up (a look), taking back the lock it
         * gave up, as a lock that takes it is quiet; after a wakeup, news
         * (two timed waiters that gave up while the other held the lock
         * and took it back were news at every round, a divergence of a
         * correct stuck test) */
        const struct lu__obj *om = lu__obj_find(s, t->obj2);
        return t->timed_back && (!om || om->u.mutex.owner == -1 || om->u.mutex.owner == me);
    }
    case LU_SCHED_K_COND_SIGNAL:
    case LU_SCHED_K_COND_BROADCAST:
        return !o || (o->type == LU__O_COND && !o->u.cond.waiters);
    case LU_SCHED_K_SEM_TRYWAIT:
    case LU_SCHED_K_SEM_WAIT:
    case LU_SCHED_K_SEM_TIMEDWAIT:
        /* one that fails (a timed wait that gives up is a look), or that
         * takes a token given back: a semaphore used as a lock is taken
         * and given back as a mutex is. Taking a token another thread
         * posted as a signal (fresh) is news; tokens being alike, any
         * fresh one there is taken first. */
        return o && o->type == LU__O_SEM && (o->u.sem.value == 0 || !o->u.sem.fresh);
    case LU_SCHED_K_SEM_POST:
        /* giving back a token the thread took; a post that adds one is a
         * signal, news */
        return o && o->type == LU__O_SEM && o->u.sem.taken[me] && o->u.sem.value < SEM_VALUE_MAX;
    case LU_SCHED_K_READ: {
        int i = lu__seen_find(t, t->obj);
        return i >= 0 && t->seen[i].version == (o ? o->version : 0);
    }
    default:
        return false;
    }
}

/* Records the version idle thread t's pending read is about to see. */
static void lu__seen_note(struct lu_sched *s, struct lu__thread *t)
{
    const struct lu__obj *o = lu__obj_find(s, t->obj);
    int i = lu__seen_find(t, t->obj);
    if (i < 0) {
        if (t->nseen < LU__MAX_SEEN)
            i = t->nseen++;
        else
            i = t->seen_next++ % LU__MAX_SEEN;
        t->seen[i].addr = t->obj;
    }
    t->seen[i].version = o ? o->version : 0;
}

static bool lu__any_turns(const struct lu_sched *s, uint64_t threads)
{
    for (uint64_t m = threads; m; m &= m - 1)
        if (s->threads[__builtin_ctzll(m)].turns)
            return true;
    return false;
}

/* With config.turns, a step of a thread that takes no turns (the object's
 * own: a timer, a worker) while none that takes turns can go on counts as
 * quiet: what the test waits for happens only when such a step wakes one
 * of its threads, whose step then is not quiet. Without it, a timer that
 * counts its ticks beside a call blocked for good would keep the execution
 * going until the length limit, and a specified stuck history would be
 * reported as divergence. */
static bool lu__background_quiet(struct lu_sched *s, const struct lu__thread *t, uint64_t runnable)
{
    return s->cfg.turns && !t->turns && !lu__any_turns(s, runnable);
}

/* Whether some thread in runnable could take a quiet step now: if none
 * can, the livelock count starts again whoever goes on. */
static bool lu__quiet_possible(struct lu_sched *s, uint64_t runnable)
{
    if (!s->cfg.quiet_waits)
        return false;
    for (uint64_t m = runnable; m; m &= m - 1) {
        const struct lu__thread *t = &s->threads[__builtin_ctzll(m)];
        if ((t->idle && lu__quiet_step(s, t)) || lu__background_quiet(s, t, runnable))
            return true;
    }
    return false;
}

/* A quiet step of idle thread t that went round once already with no
 * news anywhere (it looked twice, and nothing that was not quiet happened
 * since the first look) is as good as a look: the state it acts on is the
 * one its last round acted on, and that round changed nothing. It spins
 * then, as a re-read of an unchanged location does, so that pollers take
 * turns without branching until the livelock count ends them (two threads
 * polling one lock for a flag nobody sets passed it back and forth in
 * every order their preemptions allowed). Its first round after news is
 * scheduled as any step, so that which poller sees the news first is
 * explored; and a step that turns out to write plain memory ends the
 * idleness (lu__idle_wrote). */
bool lu__settled_spin(struct lu_sched *s, const struct lu__thread *t)
{
    if (!t->settled || !t->idle || t->look_stirs != s->stirs || t->nprev > LU__MAX_ROUND)
        return false;
    /* a repetition of its last round, not a loop's first pass: a thread
     * that slept twice and then sums 16 striped counters under their locks
     * 40 times was taken for a livelock */
    bool again = false;
    for (int i = 0; i < t->nprev && !again; i++)
        again = t->prev[i].pc == t->pc && t->prev[i].obj == t->obj;
    return again && lu__quiet_step(s, t);
}

/* Notes a quiet step of t's current round (lu__settled_spin). */
static void lu__round_note(struct lu__thread *t)
{
    if (t->nround < LU__MAX_ROUND) {
        t->round[t->nround].pc = t->pc;
        t->round[t->nround].obj = t->obj;
    }
    if (t->nround <= LU__MAX_ROUND)
        t->nround++;
}

/* t looks: its round ends, and becomes the one a settled spin repeats. */
static void lu__round_end(struct lu__thread *t)
{
    t->nprev = t->nround;
    memcpy(t->prev, t->round, sizeof t->round[0] * (t->nround < LU__MAX_ROUND ? t->nround : LU__MAX_ROUND));
    t->nround = 0;
}

/* Something happened that a waiting thread may see: the livelock count
 * starts again, and every idle thread's next round is scheduled as any
 * step (lu__settled_spin). */
static inline void lu__news(struct lu_sched *s)
{
    s->spin_run = 0;
    s->news++;
    s->stirs++;
    s->bg_changed = false;
}

/* A thread that takes no turns changed memory while no test thread could go
 * on (lu__background_quiet). Not news: a ticker beside a call blocked for
 * good would keep the livelock count from ever ending. But it stirs settled
 * threads, whose next round is scheduled as any step: a worker that counts
 * its progress and then publishes a result and a state, beside a poller
 * that reads the two under two holds of its lock, must be able to publish
 * between the poller's reads (with settled pollers, whose rounds then ran
 * whole between the worker's steps, an audit's future that read its result
 * before its state passed). */
static inline void lu__bg_stir(struct lu_sched *s)
{
    s->bg_changed = true;
    /* For the first quarter of the livelock count only: a ticker stirs
     * pollers at every round, and a round scheduled as any step branches.
     * Stirred for good, a poller beside a ticker and a setter that loses
     * the flag (waits.tickpoll_lost) took 20,000 executions (the budget)
     * where 2,015 had covered the bound before stirs, and 3,317 now; a
     * worker that counts 160 steps before it publishes is still met
     * (docs/strategies.md). */
    if (s->spin_run <= s->cfg.spin_bound / 4)
        s->stirs++;
}

/* Plain writes of the step about to run decide whether it was quiet: with
 * reduction the hooks report them anyway; without, only for such a step. */
static inline void lu__watch_writes(struct lu_sched *s, bool on)
{
    if (!s->x_por)
        __atomic_store_n(&lu_sched_footprint, on ? s->fp_gen : 0, __ATOMIC_RELAXED);
}

/* Thread t goes on from this point (runnable: the threads that could, not
 * spinning; spins: t is one that spins, all_spin: everyone does). A look
 * makes it idle; a step that is not quiet ends its idleness and is news. */
static void lu__idle_step(struct lu_sched *s, struct lu__thread *t, bool spins, bool all_spin,
                          uint64_t runnable)
{
    t->quiet_step = 0;
    if (all_spin) {
        /* a turn among spinners: counted for the livelock (lu__looked) */
        if (t->looks_news != s->news) {
            t->looks = 0;
            t->looks_news = s->news;
        }
        t->looks++;
    }
    if (!s->cfg.quiet_waits) {
        /* any step but a turn among spinners is news */
        if (!all_spin)
            lu__news(s);
        return;
    }
    bool bg = lu__background_quiet(s, t, runnable);
    if (spins) {
        /* a quiet step taken for a look is quiet only if it writes no
         * plain memory; a real look's writes (a count of its tries) do
         * not make a spin loop progress, as before */
        bool quiet = !lu__looking_q(s, t);
        t->idle = true;
        if (quiet) {
            lu__round_note(t); /* a settled spin: a step of the round */
        } else {
            t->settled = t->look_stirs == s->stirs;
            t->look_stirs = s->stirs;
            lu__round_end(t);
        }
        if (!all_spin)
            s->spin_run = 0; /* chosen at a cost, or forced: bounded by those */
        if (quiet) {
            t->quiet_step = bg ? 2 : 1;
            t->wrote = false;
            lu__watch_writes(s, true);
        }
        return;
    }
    bool quiet = t->idle && lu__quiet_step(s, t);
    if (t->idle && t->k == LU_SCHED_K_READ)
        lu__seen_note(s, t); /* news or not, known at its next turn */
    if (!quiet)
        t->idle = t->settled = false;
    else
        lu__round_note(t);
    if (bg && !quiet) {
        lu__bg_stir(s);
    } else if (!quiet) {
        lu__news(s);
    } else {
        /* quiet unless it writes plain memory: known at its next point */
        t->quiet_step = bg ? 2 : 1;
        t->wrote = false;
        lu__watch_writes(s, true);
    }
}

/* At cur's point after a step judged quiet: one that wrote plain memory
 * (a shared field, under the lock it took) was not, and another thread
 * may be waiting for what it wrote. A thread that takes no turns, while
 * every call waits, only changed memory (lu__background_quiet). */
static inline void lu__idle_wrote(struct lu_sched *s, struct lu__thread *cur)
{
    if (!cur->quiet_step)
        return;
    uint8_t q = cur->quiet_step;
    cur->quiet_step = 0;
    lu__watch_writes(s, false);
    if (!cur->wrote)
        return;
    if (q == 2) {
        lu__bg_stir(s);
        return;
    }
    cur->idle = cur->settled = false;
    lu__news(s);
}

/* Whether the thread whose turn ends keeps it for one more look: at the
 * triangular counts of turns (1, 3, 6, 10, ...), while some thread is
 * settled. Fixed turns are one fair schedule, but a periodic one: a thread
 * that holds a lock across a look (a sleep in its critical section) and a
 * trylock poller with two looks a round met the lock held at every turn,
 * a livelock no fair scheduler keeps up; an extra turn at irregular
 * intervals shifts their phases. Turns among looks alone, where nobody is
 * settled, are as they were. */
static bool lu__extra_turn(const struct lu_sched *s)
{
    /* n is triangular when 8n + 1 is a square (integer square root) */
    uint64_t k = 8 * s->spin_run + 1, n = k, r = 0, b = 1ULL << 62;
    while (b > n)
        b >>= 2;
    for (; b; b >>= 2) {
        if (n >= r + b) {
            n -= r + b;
            r = (r >> 1) + b;
        } else {
            r >>= 1;
        }
    }
    return r * r == k && lu__settled_any(s);
}

/* Notes the step t is chosen for: spins says whether it spins. */
static inline void lu__spun_note(struct lu_sched *s, struct lu__thread *t, bool spins)
{
    if (!spins) {
        /* progress: what it did before, and its runs in a row, are over */
        t->nspun = t->spun_next = 0;
        if (s->ff_chain_tid == t->id)
            s->ff_chain_tid = -1;
        return;
    }
    unsigned i = t->spun_next++ % LU__MAX_SPUN;
    t->spun[i].pc = t->pc;
    t->spun[i].obj = t->obj;
    if (t->nspun < LU__MAX_SPUN)
        t->nspun++;
}

/* Whether obj is one of those the current run may meet (lu_sched.ff_meet). */
static bool lu__ff_meets(const struct lu_sched *s, const void *obj)
{
    if (!obj)
        return false;
    for (int i = 0; i < s->nff_meet; i++)
        if (s->ff_meet[i] == obj)
            return true;
    return false;
}

/* Spinning thread t is chosen at a cost while the threads in runnable could
 * go on. Run alone until it stops spinning, it ends where it began its
 * round, so the other threads' next steps always find it at the same point
 * of its round: at one phase of the turns that the counts fixed, when it
 * spun while everyone did. A worker that slept a few times and then posted
 * two semaphores, beside a poller that tried the two in turn, was missed
 * for some numbers of sleeps, where the poller stood before its first try
 * when the posts came. So DFS may also run it only until it has taken a
 * step on an object that one of them is about to act on: that puts the
 * step (and only the order of dependent steps matters) before theirs, and
 * a second such run, at another preemption, the next one. Offered where
 * that can happen within a round: its spinning steps since it last made
 * progress act on one of those objects, and its loop is more than one
 * step: two instructions, two locations, or another read since it last
 * read what it looks at. A loop with one point on one location, such as a
 * test-and-set spin, is taken to be back where it was after any of its
 * steps: wrong for a poll that counts its looks (a known limit,
 * docs/strategies.md), but offered to every such loop the runs multiplied
 * unbounded searches of spin locks (session 33). A collect's first look
 * was never run until it met a step before session 33
 * (tests/lineup/harnesses/snapshot.c). Fills ff_meet, and
 * returns how many of its instructions meet one, or 0 where the way is not
 * offered. */
static unsigned lu__ff_offer(struct lu_sched *s, const struct lu__thread *t, uint64_t runnable)
{
    s->nff_meet = 0;
    for (uint64_t m = runnable; m && s->nff_meet < LU__MAX_MEET; m &= m - 1) {
        const void *o = s->threads[__builtin_ctzll(m)].obj;
        if (o && !lu__ff_meets(s, o))
            s->ff_meet[s->nff_meet++] = o;
    }
    /* the instructions of its steps that meet one (the pending one too) */
    uintptr_t met[LU__MAX_SPUN + 1];
    unsigned nmet = 0;
    bool two = false;
    for (int i = -1; i < t->nspun; i++) {
        uintptr_t pc = i < 0 ? t->pc : t->spun[i].pc;
        const void *o = i < 0 ? t->obj : t->spun[i].obj;
        two = two || pc != t->pc || o != t->obj;
        bool seen = false;
        for (unsigned j = 0; j < nmet && !seen; j++)
            seen = met[j] == pc;
        if (!seen && lu__ff_meets(s, o))
            met[nmet++] = pc;
    }
    /* it read something else since it last read what it looks at: a loop
     * over several locations (a collect), not back where it was after a
     * step, known at its first look already (before it spun a step) */
    const struct lu__read *r = lu__pending_read(t);
    two = two || (r && r->seq != t->rseq);
    return two ? nmet : 0;
}

/* Whether every thread in enabled took spin_bound turns while everyone
 * spun, since the last news: per thread, not in all, since a thread that
 * blocks on a lock a spinner holds drops out of the turns (three pollers
 * and a sleeping setter were a livelock when the count of all their turns
 * was held against the one thread left running). */
static bool lu__looked(const struct lu_sched *s, uint64_t enabled)
{
    for (uint64_t m = enabled; m; m &= m - 1) {
        const struct lu__thread *t = &s->threads[__builtin_ctzll(m)];
        if (t->looks_news != s->news || t->looks < s->cfg.spin_bound)
            return false;
    }
    return true;
}

/* Decides the thread that performs its pending operation next; cur is the
 * thread asking (it may be finished). Returns -1 when nobody can run: the
 * execution is then over, complete or stuck, and s->res says which. */
int lu__choose(struct lu_sched *s, struct lu__thread *cur)
{
    uint64_t enabled = 0, spinning = 0;
    struct lu_sched_trace *tr = s->cfg.trace;
    bool cur_live = cur->state == LU__T_RUNNING;
    lu__idle_wrote(s, cur);
    if (__builtin_expect(s->ff_ask, 0)) {
        /* the first step of a run lu__ff_offer offered is done: DFS's data
         * choice says how long it goes on (1: until it met a step) */
        s->ff_ask = false;
        if (s->ff_tid == cur->id && cur_live && s->nlive > 1 && lu__enabled_q(s, cur) &&
            lu__spinning_q(s, cur))
            s->ff_until = lu__choose_data(cur, 2) == 1;
    }
    if (cur_live && s->nlive == 1 && lu__enabled_q(s, cur) && !lu__spinning_q(s, cur)) {
        /* Alone (before the first thread starts, after the last one
         * finished): nothing to choose, so nothing is recorded; a schedule
         * lists only the steps where another thread exists. */
        if (++s->alone_steps > tr->cap)
            lu__end_execution(cur, LU_SCHED_OUT_TOO_LONG, "the execution exceeded the trace capacity");
        if (cur->idle)
            lu__idle_step(s, cur, false, false, 1ULL << cur->id);
        lu__spun_note(s, cur, false);
        cur->chosen_at = 0;
        return cur->id;
    }
    /* read once: the trace's fields are bytes, and a store to one may alias
     * anything, so that each use would load these again */
    const uint32_t len = tr->len;
    const int me = cur->id;
    const int strategy = s->cfg.strategy;
    bool por = s->x_por;
    if (por && len == 0)
        lu__por_begin(s);

    /* At a point of a thread in an atomic section (its owner, or a thread
     * the owner created in it), only the section's threads may go on
     * (lu__section_of). Others may run while an owner is paused at its
     * first point inside a section (where pthread_create left it): nothing
     * of the section has happened yet, so that is the same as running
     * before it began. */
    int owner = lu__section_of(s, cur);
    /* with config.turns, threads that take no turns may share a serial
     * section (lu__shares_section) */
    bool shared = owner >= 0 && s->cfg.turns && lu__shares_section(s, owner);
    if (owner >= 0 && !s->section_spawns && !shared) {
        /* the usual section (a serial execution's): its owner, cur, alone */
        if (lu__enabled_q(s, cur)) {
            enabled = 1ULL << me;
            if (lu__spinning_q(s, cur))
                spinning = enabled;
        }
    } else if (owner < 0) {
        for (int i = 0; i < s->nthreads; i++) {
            struct lu__thread *t = &s->threads[i];
            if (t->state != LU__T_RUNNING || !lu__enabled_q(s, t))
                continue;
            enabled |= 1ULL << i;
            if (lu__spinning_q(s, t))
                spinning |= 1ULL << i;
        }
    } else {
        for (int i = 0; i < s->nthreads; i++) {
            struct lu__thread *t = &s->threads[i];
            if (t->state != LU__T_RUNNING ||
                (i != owner && !lu__created_in(s, t, owner) && !(shared && !t->turns)) ||
                !lu__enabled_q(s, t))
                continue;
            enabled |= 1ULL << i;
            if (lu__spinning_q(s, t))
                spinning |= 1ULL << i;
        }
    }

    if (s->cfg.turns_first && enabled) {
        uint64_t first = 0;
        for (uint64_t m = enabled & ~spinning; m; m &= m - 1) {
            int i = __builtin_ctzll(m);
            const struct lu__thread *t = &s->threads[i];
            if (t->turns || (owner >= 0 && lu__created_in(s, t, owner)))
                first |= 1ULL << i;
        }
        if (first) {
            enabled = first;
            spinning = 0;
        }
    }

    if (por) {
        lu__por_arrive(s, cur, cur_live && ((enabled & ~spinning) >> me & 1));
        lu__pc_event(s, len);
        s->por->pc_nth = (int16_t)s->nthreads;
    }

    if (cur_live && cur->k != LU_SCHED_K_FREE && (!(enabled >> me & 1) || (spinning >> me & 1)))
        s->stats.stalled |= 1ULL << (me < 63 ? me : 63);

    if (!enabled) {
        bool stuck = false;
        for (int i = 0; i < s->nthreads; i++)
            if (s->threads[i].state == LU__T_RUNNING)
                stuck = true;
        s->res->outcome = stuck ? LU_SCHED_OUT_DEADLOCK : LU_SCHED_OUT_COMPLETE;
        return -1;
    }

    uint64_t cand = enabled & ~spinning;
    const uint64_t runnable = cand;
    bool all_spin = cand == 0;
    /* A spinning thread chosen at a cost goes on alone while it spins: a
     * bounded wait (look N times, then give up), or a read loop that only
     * looks like one, runs to its end. If it is still spinning after
     * spin_bound looks (the bound that defines "forever" for livelocks) it
     * is a real spin, and the execution only repeats one where it was not
     * chosen: dropped. A smaller limit would miss what a longer bounded
     * loop does while another thread is preempted. */
    bool forced = false;
    uint64_t giveups = 0; /* everyone spins: the timed waits that may give up at a cost */
    if (s->ff_tid >= 0) {
        bool going = s->ff_tid == me && cur_live && (spinning >> me & 1) && !all_spin;
        if (going && s->ff_until && cur->pc == s->ff_pc && cur->obj == s->ff_obj) {
            /* back where it began, having seen what it saw before: the
             * same state as if it had not been chosen */
            s->stats.spin_dropped++;
            s->res->message = "a spinning thread run until it met another thread's next step went round";
            s->res->outcome = LU_SCHED_OUT_DISCARDED;
            s->res->redundant = true;
            return -1;
        }
        if (s->ff_until && !going) {
            /* it stopped spinning (or everyone spins, or it ended) before
             * it met a step: where the run until it stops spinning ends
             * too, the same execution */
            s->stats.spin_dropped++;
            s->res->message = "a spinning thread run until it met another thread's next step ended as a run "
                              "until it stops spinning does";
            s->res->outcome = LU_SCHED_OUT_DISCARDED;
            s->res->redundant = true;
            return -1;
        }
        if (going && s->ff_until && s->ff_hit) {
            going = false;
            if (s->ff_chain_tid != me)
                s->ff_chain = 0;
            s->ff_chain_tid = me;
            s->ff_chain++;
        }
        if (going) {
            if (s->ff_until)
                s->ff_hit = lu__ff_meets(s, cur->obj);
            if (++s->ff_looks > s->cfg.spin_bound) {
                s->stats.spin_dropped++;
                s->res->message = "a spinning thread given extra turns did not stop spinning";
                s->res->outcome = LU_SCHED_OUT_DISCARDED;
                s->res->redundant = true;
                return -1;
            }
            cand = 1ULL << me;
            forced = true;
        } else {
            s->ff_tid = -1;
            s->ff_until = false;
        }
    }
    if (all_spin) {
        /* Everyone who can run is spinning: let them take turns without
         * branching, and call it a livelock if nothing changes for long. */
        /* spin_bound looks each: the spinners take turns, and bounded
         * loops that each end within the bound must not add up to one. A
         * thread that just ended made progress: the count starts again. */
        if (!cur_live)
            lu__news(s);
        if (++s->spin_run > s->cfg.spin_bound && lu__looked(s, enabled)) {
            /* only threads that take no turns went round: those that do
             * are blocked for good (lu__background_quiet) */
            bool blocked = s->cfg.turns && !lu__any_turns(s, enabled);
            s->res->outcome = blocked ? LU_SCHED_OUT_DEADLOCK : LU_SCHED_OUT_LIVELOCK;
            s->res->bounded = s->bg_changed;
            return -1;
        }
        /* A timed wait that would give up waits on while the others take
         * their turns, until they have taken the bound's (a deadline
         * outlasts their looks): given up at its turn, as it was until
         * session 30, it gave up before a holder that slept once and then
         * let go, and only that was explored (an audit's worker with a 5 s
         * timed lock beside a 1 ms sleep, a bug missed with every schedule
         * said to be explored). Giving up is the alternative at a cost of
         * 1, as where others can run (spin_alt below), at the first 8
         * turns after news and then at the 16th, 32nd, ...: a turn of a
         * look changes nothing but a loop's counter (a bounded sleep loop's
         * third look was never met at the first turn alone), and offered
         * at every turn, a holder's thousand sleeps would be a thousand
         * alternatives. Where only timed waits spin, they take turns
         * giving up without branching, as before: which gives up first
         * follows the turns, not their deadlines (a branch for each made
         * stuck tests of waiters that retry 38x dearer, an audit's). */
        uint64_t turns = enabled, timed = lu__timed_spinners(s, enabled);
        if (timed && timed != enabled && !lu__looked(s, enabled & ~timed))
            turns = enabled & ~timed;
        int pick = lu__pick_default(turns, cur_live ? me : -1, s->nthreads);
        /* turns change at looks: a settled thread's quiet steps (its lock,
         * its unlock) run on to its next look, or a switch at every step
         * could set another thread's trylock right after its lock at every
         * turn, and nobody would ever get the lock (an unfair livelock of a
         * correct worker) */
        if (cur_live && pick == me && lu__several(turns) && lu__looking_q(s, cur) && !lu__extra_turn(s))
            pick = lu__pick_default(turns & ~(1ULL << me), me, s->nthreads);
        cand = 1ULL << pick;
        if (turns != enabled && (s->spin_run <= 8 || !(s->spin_run & (s->spin_run - 1))))
            giveups = timed;
    } else if (s->spin_run && !lu__quiet_possible(s, runnable)) {
        /* whoever goes on ends the count (lu__idle_step): known now, so
         * that the state below depends on the trace alone again */
        s->spin_run = 0;
    }

    bool cur_spin = cur_live && (spinning >> me & 1);
    /* DFS may also choose a spinning thread while others can run, at the
     * cost of a preemption: without it a thread that looks at a location a
     * few times and then gives up would never give up while anyone else can
     * run (docs/strategies.md, "Spinning threads"). Any spinning thread, not
     * only one that just started: the reduction's exchange argument
     * (docs/por.md) moves such a choice to later points. */
    uint64_t spin_alt = 0;
    if (!all_spin && !forced && !(cur_live && owner >= 0))
        spin_alt = s->x_rand ? lu__timed_spinners(s, spinning) : spinning;
    else if (all_spin && !(cur_live && owner >= 0))
        spin_alt = giveups;
    /* A thread whose timed wait just gave up and that waits again (a retry
     * loop) does not give up again before somebody else took a step: that
     * would be time passing while nobody runs, an unfair schedule, and an
     * endless one under an unbounded search. */
    if (cur_live && (spin_alt >> me & 1) && cur->chosen_at && cur->chosen_at == len &&
        (tr->steps[len - 1].flags & LU_SCHED_STEP_TIMEOUT))
        spin_alt &= ~(1ULL << me);
    bool preemptible = cur_live && (enabled >> me & 1) && cur->k != LU_SCHED_K_FREE && !cur_spin && !all_spin;
    uint16_t base = len ? tr->steps[len - 1].preempts : 0;
    int bound = s->cfg.preemption_bound;
    struct lu_sched_step *st = lu__new_step(cur);
    if (strategy == LU_SCHED_REPLAY && len >= s->replay_len) {
        lu__misfit(s, cur, LU_SCHED_MISFIT_ENDED);
        return -1;
    }
    uint8_t flags =
        (uint8_t)((preemptible ? LU_SCHED_STEP_PREEMPTIBLE : 0) | (cur_spin ? LU_SCHED_STEP_SPIN : 0) |
                  ((!cur_live || cur->k == LU_SCHED_K_FREE || all_spin || forced) ? LU_SCHED_STEP_FREE : 0));
    int chosen;
    /* a new node's candidates within the bound: DFS's choice below, and
     * the prefix-trace cache's test of whether DFS branches here */
    uint64_t allowed = len >= s->replay_len ? lu__within_bound(s, cand, me, flags, base, bound) : 0;
    uint64_t sleep = 0;
    bool por_known = false;
    if (por && len >= LU__POR_DEPTH)
        lu__por_abandon(s); /* deeper steps are explored in full */
    else if (por && len < s->replay_len && lu__por_by_previous(s->por, s->por->step[len].sleep_exec)) {
        /* a replayed step that the previous execution went through with the
         * same prefix (DFS changes only the last replayed choice): same
         * state, same sleep set, and nothing new learnt below it yet. In a
         * search's first execution the prefix's steps are new: their
         * signatures must be recorded, or the prefix-trace cache would
         * name traces of different prefixes alike (docs/por.md, section 8). */
        s->por->step[len].sleep_exec = s->por->exec_id;
        sleep = s->por->step[len].sleep;
        /* the same thread is chosen here again, except at the last
         * replayed step, where DFS takes a new alternative */
        por_known = len + 1 < s->replay_len;
    } else if (por) {
        bool settled = lu__settled_any(s);
        bool idle = lu__idle_any(s); /* settled ones too; the cache's, not the sleep set's */
        s->por->step[len].pcok =
            owner < 0 && !all_spin && s->ff_tid < 0 && s->ff_chain_tid < 0 && !s->spin_run && !idle;
        /* a new node (below the replayed prefix) in a state where no
         * scheduler state outside the trace matters: not everyone spins
         * (turns among spinners follow counters), no atomic section,
         * nothing forced, and the last step was no timed wait giving up
         * (its thread may not give up again at once, which depends on
         * more than the trace and prev) */
        /* (ff_chain_tid: whether a run until a met step is offered below
         * depends on the runs in a row before, which the trace does not
         * name) */
        bool pc = !s->por->pc_off && len > 0 && len >= s->replay_len && !all_spin && owner < 0 &&
                  s->ff_tid < 0 && s->ff_chain_tid < 0 && !s->spin_run && !idle &&
                  !(tr->steps[len - 1].flags & LU_SCHED_STEP_TIMEOUT) && (bound < 0 || bound - base < 255);
        /* ... and where DFS may go another way: two candidates within the
         * bound, or a spinning thread at a cost of 1 (whatever sleeps, so
         * that every node of one trace, prev and budget is alike). Below a
         * node with one way on, the search is the same (but for entries
         * the table lacks) whether a look-up ends the execution there or
         * at the next node that branches, or lets it run to its end if
         * none does; and nine look-ups in ten were at such nodes, each a
         * cache miss that cut nothing (docs/por.md, section 8, "Where"). */
        if (pc && !lu__several(allowed | lu__spin_within(spin_alt, base, bound)))
            pc = false;
        unsigned budget = bound < 0 ? 255 : (unsigned)(bound - base);
        /* the bucket is a cache miss more often than not: ask for it
         * before the sleep set is worked out, read it after */
        if (pc)
            __builtin_prefetch(lu__pc_bucket(s->pc, s->por->pc_h1 | 1));
        sleep = lu__por_sleep(s, cur, len, enabled, cand, all_spin || settled);
        if (pc && lu__pc_covered(s, me, budget)) {
            s->stats.pc_pruned++;
            return lu__por_cut(s);
        }
        if (pc && !sleep && !s->por->step[len].nent && s->por->step[len].rtid < 0)
            lu__pc_note(s, len, me, preemptible, budget);
    }

    if (len < s->replay_len) {
        /* following a recorded prefix: it must fit what we see now */
        bool fits = st->kind == LU_SCHED_CHOOSE_THREAD && st->chosen < 64 &&
                    ((cand | spin_alt) >> st->chosen & 1) &&
                    (strategy == LU_SCHED_REPLAY || st->enabled == (cand | spin_alt));
        if (!fits && strategy == LU_SCHED_REPLAY) {
            lu__misfit(s, cur,
                       st->kind != LU_SCHED_CHOOSE_THREAD ? LU_SCHED_MISFIT_NOT_THREAD
                       : st->chosen >= s->nthreads        ? LU_SCHED_MISFIT_NO_THREAD
                                                          : LU_SCHED_MISFIT_NOT_RUNNABLE);
            return -1;
        }
        if (!fits) {
            /* DFS re-running its own prefix: the program, not the
             * schedule, changed */
            s->res->culprit = me;
            s->res->message = "a replayed schedule reached a different set of runnable threads";
            s->res->outcome = LU_SCHED_OUT_NONDET;
            return -2;
        }
        chosen = st->chosen;
        st->enabled = cand | spin_alt; /* st->done keeps DFS's bookkeeping */
    } else {
        /* alternatives that would exceed the bound are not taken */
        LU__ASSERT(allowed); /* the default choice always costs nothing */
        if (sleep) {
            allowed &= ~sleep;
            if (!allowed) {
                /* every way on is covered by an explored schedule */
                return lu__por_cut(s);
            }
        }
        /* a give-up costs a preemption, as DFS counts it: within the bound
         * only (a drawn one past it left later nodes with nothing allowed) */
        uint64_t timed = lu__spin_within(spin_alt, base, bound);
        int giveup = s->x_rand && timed ? lu__draw_giveup(s, allowed, timed) : -1;
        if (giveup >= 0) {
            chosen = giveup;
        } else if (lu__several(allowed) && strategy == LU_SCHED_RANDOM) {
            int k = (int)(lu__rand(s) % (uint64_t)__builtin_popcountll(allowed));
            uint64_t m = allowed;
            while (k--)
                m &= m - 1;
            chosen = __builtin_ctzll(m);
        } else if (lu__several(allowed) && (strategy == LU_SCHED_PCT || strategy == LU_SCHED_POS)) {
            chosen = lu__strat_pick(s, cur, allowed);
            LU__ASSERT(allowed >> chosen & 1);
        } else {
            chosen = lu__pick_default(allowed, cur_live ? me : -1, s->nthreads);
        }
        st->kind = LU_SCHED_CHOOSE_THREAD;
        st->enabled = cand | spin_alt;
        st->done = 1ULL << chosen;
        st->chosen = (uint8_t)chosen;
    }
    /* a replay file stores only the choices: derive the rest again */
    st->prev = (uint8_t)(me);
    st->spin = spin_alt;
    st->flags = flags;
    unsigned c = (spin_alt >> chosen & 1) ? 1 : lu__cost(s->cfg.bound_kind, cand, me, flags, chosen);
    /* A timed wait gives up in the step it was chosen for: nothing to run
     * alone to its end. Forced on, a retry loop (wait again until the
     * holder lets go) would only spin until dropped, and what the thread
     * does once it got what it waited for, after a give-up, would never
     * run. */
    if ((spin_alt >> chosen & 1) && !lu__timed_kind(s->threads[chosen].k)) {
        struct lu__thread *ft = &s->threads[chosen];
        s->ff_tid = chosen;
        s->ff_looks = 0;
        s->ff_until = false;
        /* runs in a row, with no other thread's step between, go round
         * its steps that meet one at most once (unbounded, they would
         * pass them round and round) */
        unsigned nmet = lu__ff_offer(s, ft, runnable);
        s->ff_ask = nmet > (s->ff_chain_tid == chosen ? s->ff_chain : 0);
        s->ff_hit = lu__ff_meets(s, ft->obj);
        s->ff_pc = ft->pc;
        s->ff_obj = ft->obj;
    }
    st->flags = (uint8_t)(flags | (preemptible && chosen != me ? LU_SCHED_STEP_PREEMPT : 0));
    st->preempts = (uint16_t)(base + c);
    if (strategy == LU_SCHED_PCT || strategy == LU_SCHED_POS)
        lu__strat_executed(s, chosen);
    struct lu__thread *ct = &s->threads[chosen];
    if (chosen != s->ff_chain_tid)
        s->ff_chain_tid = -1;
    lu__spun_note(s, ct, all_spin || (spinning >> chosen & 1));
    lu__idle_step(s, ct, all_spin || (spinning >> chosen & 1), all_spin, runnable);
    st->op = (uint8_t)ct->k;
    st->label = ct->label;
    if (por && len < LU__POR_DEPTH)
        lu__por_chosen(s, len, chosen, por_known);
    tr->len = len + 1;
    ct->chosen_at = len + 1;
    return chosen;
}

int lu__choose_data(struct lu__thread *t, int n)
{
    struct lu_sched *s = t->s;
    struct lu_sched_trace *tr = s->cfg.trace;
    if (n <= 1)
        return 0;
    if (n > 64)
        n = 64;
    uint64_t mask = n == 64 ? ~0ULL : (1ULL << n) - 1;
    uint16_t base = tr->len ? tr->steps[tr->len - 1].preempts : 0;
    if (s->x_por) {
        if (tr->len == 0)
            lu__por_begin(s);
        else if (s->por->last >= 0)
            s->por->step[s->por->last].exec.flags |= LU__PS_DATA;
    }
    struct lu_sched_step *st = lu__new_step(t);
    if (s->cfg.strategy == LU_SCHED_REPLAY && tr->len >= s->replay_len) {
        lu__misfit(s, t, LU_SCHED_MISFIT_ENDED);
        lu__end_execution(t, LU_SCHED_OUT_MISFIT, NULL);
    }
    int chosen;
    if (tr->len < s->replay_len) {
        if (s->cfg.strategy == LU_SCHED_REPLAY && (st->kind != LU_SCHED_CHOOSE_DATA || st->chosen >= n)) {
            lu__misfit(s, t,
                       st->kind != LU_SCHED_CHOOSE_DATA ? LU_SCHED_MISFIT_NOT_DATA
                                                        : LU_SCHED_MISFIT_DATA_RANGE);
            lu__end_execution(t, LU_SCHED_OUT_MISFIT, NULL);
        }
        if (st->kind != LU_SCHED_CHOOSE_DATA || st->chosen >= n ||
            (s->cfg.strategy != LU_SCHED_REPLAY && st->enabled != mask)) {
            s->res->culprit = t->id;
            s->res->message = "a replayed schedule reached a different choice";
            lu__end_execution(t, LU_SCHED_OUT_NONDET, s->res->message);
        }
        chosen = st->chosen;
    } else {
        chosen = s->x_rand ? (int)(lu__rand(s) % (uint64_t)n) : 0;
        st->kind = LU_SCHED_CHOOSE_DATA;
        st->enabled = mask;
        st->done = 1ULL << chosen;
        st->chosen = (uint8_t)chosen;
    }
    /* derived again on a replay, whose file stores only the choice
     * (lu_sched_step_until_met reads prev) */
    st->prev = (uint8_t)t->id;
    st->flags = 0;
    st->spin = 0;
    st->preempts = base;
    st->op = (uint8_t)t->k;
    st->label = t->label;
    tr->len++;
    return chosen;
}

unsigned lu__step_cost(int bound_kind, const struct lu_sched_step *st, int a)
{
    if (st->kind != LU_SCHED_CHOOSE_THREAD)
        return 0;
    if (st->spin >> a & 1)
        return 1; /* a spinning thread, while others could run */
    return lu__cost(bound_kind, st->enabled & ~st->spin, st->prev, st->flags, a);
}

/* a's first step from the node of ps, if a was explored there, ran it,
 * and its event was named */
static const struct lu__por_altsig *lu__por_alt_first(const struct lu__por_step *ps, int a)
{
    for (int q = 0; q < ps->nalt; q++)
        if (ps->alt[q].tid == a && !(ps->alt[q].pending & LU__PA_FIRST) && ps->sig[q].ev_ok)
            return &ps->sig[q];
    return NULL;
}

/* as, if its step is a's step at every node from step `from` to step
 * `to`: every step in between (none of them a's) is independent of it, so
 * a reads the same and does the same there, and its event has the same
 * clock. Not for a step that synchronizes or starts or ends threads, which
 * could enable, disable or un-spin others (section 8, "Ahead"). */
static const struct lu__por_altsig *
lu__por_sig_across(const struct lu__por *p, const struct lu__por_altsig *as, uint32_t from, uint32_t to)
{
    const struct lu__por_sig *g = &as->first;
    if ((g->flags & (LU__PS_ALL | LU__PS_BOUNDARY | LU__PS_ALLSYNC)) || g->smask)
        return NULL;
    for (uint32_t k = from; k < to; k++)
        if (lu__dep(&p->step[k].exec, g))
            return NULL;
    return as;
}

/* Thread a's next step at step i, and its event, if an explored branch
 * shows them: a's first step from another node where a was explored, when
 * every step between that node and step i is independent of it. That
 * node is the one after step i on the path just left (whose step i,
 * another thread's, is about to change), or else an earlier node of the
 * path, where a was explored before the path's choice. NULL: not known. */
static const struct lu__por_altsig *lu__por_next_step(const struct lu_sched *s, uint32_t i, int a)
{
    const struct lu__por *p = s->por;
    const struct lu_sched_trace *tr = s->cfg.trace;
    const struct lu__por_altsig *as;
    if (tr->steps[i].chosen != a && i + 1 < tr->len && i + 1 < p->valid &&
        tr->steps[i + 1].kind == LU_SCHED_CHOOSE_THREAD && (as = lu__por_alt_first(&p->step[i + 1], a)) &&
        (as = lu__por_sig_across(p, as, i, i + 1)))
        return as;
    for (uint32_t k = i; k-- > s->frozen_len;) {
        if (tr->steps[k].kind != LU_SCHED_CHOOSE_THREAD || tr->steps[k].chosen == a || k >= p->valid)
            return NULL;
        if ((as = lu__por_alt_first(&p->step[k], a)))
            return lu__por_sig_across(p, as, k, i);
    }
    return NULL;
}

/* Whether choosing a at step i (reaching it with preempts spent) leads to
 * a node of the prefix-trace cache's that covers it: then DFS does not
 * start that alternative, where it would otherwise run an execution that
 * the cache ends right after a's step, or that runs to an explored trace
 * without a node in between where DFS branches (docs/por.md, section 8,
 * "Ahead"). The node's name is the name of the node at step i, which the
 * execution just ended left in its snapshot, plus the event of a's step
 * (lu__por_next_step). */
static bool lu__pc_ahead(struct lu_sched *s, uint32_t i, int a, unsigned preempts)
{
    struct lu__por *p = s->por;
    const struct lu_sched_trace *tr = s->cfg.trace;
    const struct lu_sched_step *st = &tr->steps[i];
    int bound = s->cfg.preemption_bound;
    if (!s->pc || i == 0 || i + 1 >= LU__POR_DEPTH || i >= p->valid || !p->step[i].pcok ||
        (bound >= 0 && bound - (int)preempts >= 255))
        return false;
    const struct lu__pc_snap *r = &p->pc_snap[i - 1];
    if (tr->steps[i - 1].kind != LU_SCHED_CHOOSE_THREAD || r->exec != p->exec_id || r->pos != i)
        return false;
    /* a step that does not synchronize disables nobody and makes nobody
     * spin: with another candidate that does not spin, not everyone spins
     * after it, and the node after it is named by its trace */
    if ((st->spin >> a & 1) || !(st->enabled & ~st->spin & ~(1ULL << a)))
        return false;
    const struct lu__por_altsig *as = lu__por_next_step(s, i, a);
    if (!as)
        return false;
    uint64_t h1 = r->h1 + as->ev_h1, h2 = r->h2 + as->ev_h2;
    unsigned budget = bound < 0 ? 255 : (unsigned)(bound - (int)preempts);
    if (lu__pc_covered_as(s->pc, h1, h2, a, budget))
        return true;
    p->ahead_at = i;
    p->ahead_h1 = h1;
    p->ahead_h2 = h2;
    return false;
}

/* DFS: flip the deepest choice that still has an unexplored alternative
 * within the preemption bound; the next execution replays up to it. */
void lu__backtrack(struct lu_sched *s)
{
    struct lu_sched_trace *tr = s->cfg.trace;
    int bound = s->cfg.preemption_bound;
    bool por = lu__por_on(s);
    if (por) {
        lu__por_settle(s);
        s->por->ahead_at = 0;
    }
    /* full enough that entries start pushing each other out */
    if (s->pc && __atomic_load_n(&s->pc->fill, __ATOMIC_RELAXED) >
                     (__atomic_load_n(&s->pc->mask, __ATOMIC_RELAXED) + 1) * LU__PC_WAYS)
        lu__pc_grow(s->pc);
    for (int i = (int)tr->len - 1; i >= (int)s->frozen_len; i--) {
        struct lu_sched_step *st = &tr->steps[i];
        uint64_t alts = st->enabled & ~st->done;
        if (!alts)
            continue; /* most steps on the way up: all explored */
        uint16_t base = i ? tr->steps[i - 1].preempts : 0;
        /* sleeping alternatives are covered by the ones explored before
         * (only when this process computed the sleep set: not in a fork
         * server, whose children run the executions) */
        struct lu__por_step *ps = por && i < LU__POR_DEPTH ? &s->por->step[i] : NULL;
        uint64_t asleep =
            ps && st->kind == LU_SCHED_CHOOSE_THREAD && s->por->exec_id && ps->sleep_exec == s->por->exec_id
                ? ps->sleep
                : 0;
        while (alts) {
            int a = __builtin_ctzll(alts);
            alts &= alts - 1;
            st->done |= 1ULL << a;
            if ((asleep >> a & 1) && !(st->spin >> a & 1))
                continue;
            unsigned c = lu__step_cost(s->cfg.bound_kind, st, a);
            if (bound >= 0 && base + c > (unsigned)bound) {
                s->stats.pruned++;
                continue;
            }
            /* the node a leads to was explored from: a is not started */
            if (ps && st->kind == LU_SCHED_CHOOSE_THREAD && lu__pc_ahead(s, (uint32_t)i, a, base + c)) {
                s->stats.pc_skipped++;
                continue;
            }
            if (ps) {
                if (st->kind == LU_SCHED_CHOOSE_THREAD) {
                    if ((uint32_t)i >= s->por->valid) {
                        /* nothing known here about the branch explored so far */
                        ps->nalt = 1;
                        ps->alt[0].tid = st->chosen;
                        ps->alt[0].pending = 0;
                        ps->sig[0].ev_ok = false;
                        ps->sig[0].first.flags = ps->sig[0].block.flags = LU__PS_ALL;
                        lu__bidx_all(&ps->sig[0].idx);
                    }
                    if (ps->nalt == LU__POR_ALTS) {
                        /* the oldest alternative stops putting threads to sleep */
                        memmove(&ps->alt[0], &ps->alt[1], (LU__POR_ALTS - 1) * sizeof ps->alt[0]);
                        memmove(&ps->sig[0], &ps->sig[1], (LU__POR_ALTS - 1) * sizeof ps->sig[0]);
                        ps->nalt--;
                    }
                    struct lu__por_alt *al = &ps->alt[ps->nalt++];
                    al->tid = (uint8_t)a;
                    al->pending = LU__PA_FIRST | LU__PA_BLOCK;
                    ps->sig[al - ps->alt].ev_ok = false;
                    if (s->por->pending > (uint32_t)i)
                        s->por->pending = (uint32_t)i;
                }
                s->por->valid = (uint32_t)i + 1;
            }
            bool pre = st->kind == LU_SCHED_CHOOSE_THREAD && (st->flags & LU_SCHED_STEP_PREEMPTIBLE) &&
                       a != st->prev;
            st->chosen = (uint8_t)a;
            st->flags = (uint8_t)((st->flags & ~LU_SCHED_STEP_PREEMPT) | (pre ? LU_SCHED_STEP_PREEMPT : 0));
            st->preempts = (uint16_t)(base + c);
            if (por)
                lu__pc_leave(s, (uint32_t)i + 1, tr->len);
            tr->len = (uint32_t)i + 1;
            s->replay_len = tr->len;
            return;
        }
    }
    if (por)
        lu__pc_leave(s, s->frozen_len, tr->len);
    s->more = false;
}
