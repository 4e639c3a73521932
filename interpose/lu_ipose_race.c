/*
 * lu_ipose_race: happens-before data-race detection on plain accesses
 * (interface: lu_ipose_race.h; design and limits: docs/races.md).
 *
 * Shadow memory: an open-addressing hash table of cells, one per 8-byte
 * granule of the program's memory that was accessed in this execution.
 * A cell holds access records: (thread, its clock entry at the access,
 * read or write, pc) and the bytes of the granule it stands for. Per byte,
 * the records are exactly what FastTrack keeps (Flanagan and Freund, PLDI
 * 2009): the last write, and the reads since then that are not known to
 * happen before a later read (a read epoch, or a read vector when reads
 * are concurrent). Byte masks make sub-granule accesses exact (two threads
 * writing adjacent chars do not race) without a cell per byte: the common
 * case is one record covering the whole access.
 *
 * Epochs: a thread's clock entry only grows at a release (lu__hb_release
 * increments it after publishing), so all accesses of one thread between two
 * releases are ordered identically with respect to every other thread's
 * later accesses. That is what makes the same-epoch fast path and the
 * record merging below exact.
 *
 * Memory comes from mmap, never from the program's heap, so that turning
 * detection on does not move the program's own allocations.
 */
#include "lu_ipose_race.h"
#include "lu_sched.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

struct lu__race_rec {
    uintptr_t pc;
    uint32_t clock;
    uint8_t tid;
    uint8_t mask; /* bytes of the granule this access is still the relevant one for */
    uint8_t write;
    uint8_t atomic; /* atomic accesses race with plain ones only */
};

struct lu__race_cell {
    uintptr_t key;    /* granule number: address >> 3 */
    uint32_t gen;     /* the cell is live iff gen == lu__race.gen */
    uint16_t n;       /* records */
    uint8_t cap_log;  /* capacity 1 << cap_log; 0: the one inline record */
    uint8_t reported; /* bytes already reported in this execution */
    union {
        struct lu__race_rec one;
        struct lu__race_rec *many; /* in the arena */
    } u;
};

_Static_assert(sizeof(struct lu__race_rec) == 16, "record layout");
_Static_assert(sizeof(struct lu__race_cell) == 32, "cell layout");

/* Records per granule are bounded: disjoint write masks (8) plus disjoint
 * read masks per thread (8 * threads); 2^10 covers 64 threads. */
#define LU__RACE_MAX_CAP_LOG 10
_Static_assert(8 + 8 * LU_SCHED_MAX_THREADS <= (1 << LU__RACE_MAX_CAP_LOG), "record capacity");
#define LU__RACE_FIRST_SLOTS 4096
#define LU__RACE_MAX_SLOTS ((size_t)2 * LU_IPOSE_RACE_MAX_GRANULES) /* load factor <= 1/2 */
#define LU__RACE_CHUNK ((size_t)256 << 10)

/* Races of one access, reported after its shadow state is updated: the
 * handler may then end the execution or turn detection off safely. A race
 * that does not fit stays unmarked and is reported by a later access. */
#define LU__RACE_QUEUE 16

struct lu__race_chunk {
    struct lu__race_chunk *next;
    size_t size; /* bytes mapped, this header included */
};

static struct {
    void (*fn)(void *arg, const struct lu_ipose_race *r);
    void *arg;
    int busy; /* inside the detector or its handler: accesses are not analysed */
    struct lu__race_cell *tab;
    size_t slots; /* a power of two, or 0 */
    unsigned bits;
    size_t used; /* live cells */
    uint32_t gen;
    struct lu__race_chunk *chunks, *cur; /* the arena; chunks are kept across resets */
    char *bump, *end;
    size_t mapped; /* arena bytes */
    struct lu__ipose_race_stats st;
} lu__race = {.gen = 1};

/* ---- Memory ---- */

static void *lu__race_map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void *lu__race_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    while (!lu__race.cur || (size_t)(lu__race.end - lu__race.bump) < n) {
        struct lu__race_chunk *c = lu__race.cur ? lu__race.cur->next : lu__race.chunks;
        if (!c) {
            if (lu__race.mapped + LU__RACE_CHUNK > LU_IPOSE_RACE_MAX_RECORD_BYTES)
                return NULL;
            c = lu__race_map(LU__RACE_CHUNK);
            if (!c)
                return NULL;
            c->next = NULL;
            c->size = LU__RACE_CHUNK;
            lu__race.mapped += LU__RACE_CHUNK;
            if (lu__race.cur)
                lu__race.cur->next = c;
            else
                lu__race.chunks = c;
        }
        lu__race.cur = c;
        lu__race.bump = (char *)c + ((sizeof *c + 15) & ~(size_t)15);
        lu__race.end = (char *)c + c->size;
    }
    void *p = lu__race.bump;
    lu__race.bump += n;
    return p;
}

static void lu__race_free_all(void)
{
    if (lu__race.tab)
        munmap(lu__race.tab, lu__race.slots * sizeof *lu__race.tab);
    for (struct lu__race_chunk *c = lu__race.chunks, *next; c; c = next) {
        next = c->next;
        munmap(c, c->size);
    }
    lu__race.tab = NULL;
    lu__race.slots = lu__race.used = 0;
    lu__race.bits = 0;
    lu__race.chunks = lu__race.cur = NULL;
    lu__race.bump = lu__race.end = NULL;
    lu__race.mapped = 0;
    memset(&lu__race.st, 0, sizeof lu__race.st);
}

/* ---- The granule table ---- */

static inline size_t lu__race_hash(uintptr_t key, unsigned bits)
{
    /* Fibonacci hashing: neighbouring granules land far apart */
    return (size_t)(((uint64_t)key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
}

static bool lu__race_grow(void)
{
    size_t slots = lu__race.slots ? lu__race.slots * 2 : LU__RACE_FIRST_SLOTS;
    if (slots > LU__RACE_MAX_SLOTS)
        return false;
    struct lu__race_cell *tab = lu__race_map(slots * sizeof *tab);
    if (!tab)
        return false;
    unsigned bits = 0;
    while (((size_t)1 << bits) < slots)
        bits++;
    /* fresh pages are zero: gen 0 is never current */
    for (size_t i = 0; i < lu__race.slots; i++) {
        const struct lu__race_cell *c = &lu__race.tab[i];
        if (c->gen != lu__race.gen)
            continue;
        size_t j = lu__race_hash(c->key, bits);
        while (tab[j].gen == lu__race.gen)
            j = (j + 1) & (slots - 1);
        tab[j] = *c; /* 'many' points into the arena, 'one' moves along */
    }
    if (lu__race.tab)
        munmap(lu__race.tab, lu__race.slots * sizeof *lu__race.tab);
    lu__race.tab = tab;
    lu__race.slots = slots;
    lu__race.bits = bits;
    return true;
}

/* The live cell of granule key, or NULL. */
static inline struct lu__race_cell *lu__race_find(uintptr_t key)
{
    if (!lu__race.slots)
        return NULL;
    size_t i = lu__race_hash(key, lu__race.bits);
    for (;;) {
        struct lu__race_cell *c = &lu__race.tab[i];
        if (c->gen != lu__race.gen)
            return NULL;
        if (c->key == key)
            return c;
        i = (i + 1) & (lu__race.slots - 1);
    }
}

/* The cell of granule key; inserted if absent and insert is set. NULL when
 * absent, or when the table is full and cannot grow. */
static struct lu__race_cell *lu__race_cell(uintptr_t key, bool insert)
{
    if (!lu__race.slots) {
        if (!insert || !lu__race_grow())
            return NULL;
    }
    for (;;) {
        size_t i = lu__race_hash(key, lu__race.bits);
        for (;;) {
            struct lu__race_cell *c = &lu__race.tab[i];
            if (c->gen != lu__race.gen)
                break;
            if (c->key == key)
                return c;
            i = (i + 1) & (lu__race.slots - 1);
        }
        if (!insert)
            return NULL;
        if (lu__race.used >= lu__race.slots / 2) {
            if (!lu__race_grow())
                return NULL;
            continue; /* the slot moved */
        }
        struct lu__race_cell *c = &lu__race.tab[i];
        memset(c, 0, sizeof *c);
        c->key = key;
        c->gen = lu__race.gen;
        lu__race.used++;
        return c;
    }
}

static inline struct lu__race_rec *lu__race_recs(struct lu__race_cell *c)
{
    return c->cap_log ? c->u.many : &c->u.one;
}

static bool lu__race_append(struct lu__race_cell *c, const struct lu__race_rec *r)
{
    unsigned cap = 1u << c->cap_log;
    if (c->n == cap) {
        if (c->cap_log >= LU__RACE_MAX_CAP_LOG)
            return false;
        struct lu__race_rec *m = lu__race_alloc(sizeof *m * cap * 2);
        if (!m)
            return false;
        /* the old array is abandoned to the arena until the next reset */
        memcpy(m, lu__race_recs(c), sizeof *m * c->n);
        c->u.many = m;
        c->cap_log++;
    }
    lu__race_recs(c)[c->n++] = *r;
    lu__race.st.records++;
    return true;
}

/* ---- One access ---- */

struct lu__race_acc {
    int tid;
    uint32_t clock;
    bool write;
    bool atomic;
    uintptr_t pc;
    bool have_vc;
    int nvc;
    int nq;
    uint32_t vc[LU_SCHED_MAX_THREADS]; /* fetched on the first comparison with another thread */
    struct lu_ipose_race q[LU__RACE_QUEUE];
};

/* True when the access of record r happens before the current access. */
static inline bool lu__race_hb(struct lu__race_acc *a, const struct lu__race_rec *r)
{
    if (r->tid == a->tid)
        return true;
    if (!a->have_vc) {
        a->nvc = lu_sched_vc(a->tid, a->vc, LU_SCHED_MAX_THREADS);
        if (a->nvc < 0)
            a->nvc = 0;
        a->have_vc = true;
    }
    return r->tid < a->nvc && r->clock <= a->vc[r->tid];
}

/* Queues a race on bytes ov of the granule at base with record r; extends
 * the last one when it continues it (a wide access racing with another). */
static bool lu__race_note(struct lu__race_acc *a, uintptr_t base, unsigned ov, const struct lu__race_rec *r)
{
    unsigned lo = (unsigned)__builtin_ctz(ov), hi = 31u - (unsigned)__builtin_clz(ov);
    uintptr_t addr = base + lo;
    if (a->nq > 0) {
        struct lu_ipose_race *p = &a->q[a->nq - 1];
        if (p->tid[0] == r->tid && p->write[0] == (bool)r->write && p->atomic[0] == (bool)r->atomic &&
            p->pc[0] == r->pc && p->addr + p->size == addr) {
            p->size += hi - lo + 1;
            return true;
        }
    }
    if (a->nq == LU__RACE_QUEUE)
        return false;
    struct lu_ipose_race *p = &a->q[a->nq++];
    p->addr = addr;
    p->size = hi - lo + 1;
    p->tid[0] = r->tid;
    p->tid[1] = a->tid;
    p->write[0] = r->write;
    p->write[1] = a->write;
    p->atomic[0] = r->atomic;
    p->atomic[1] = a->atomic;
    p->pc[0] = r->pc;
    p->pc[1] = a->pc;
    return true;
}

/* Two accesses conflict when one writes and one is plain: atomic accesses
 * never race with each other (C11), but do with plain ones. */
static inline bool lu__race_conflict(bool w1, bool at1, bool w2, bool at2)
{
    return (w1 || w2) && !(at1 && at2);
}

/* Every access that conflicts with an access of kind (w2, at2) conflicts
 * with one of kind (w1, at1) too: a write covers a read, a plain access an
 * atomic one. */
static inline bool lu__race_kind_covers(bool w1, bool at1, bool w2, bool at2)
{
    return (w1 || !w2) && (!at1 || at2);
}

/* Same epoch as an earlier access of this thread that covers bytes m and
 * is at least as strong (lu__race_kind_covers): whatever races with this
 * access raced with that one (and was reported), and recording it would
 * teach nothing. */
static inline bool lu__race_covered(struct lu__race_cell *c, int tid, uint32_t clock, bool write, bool atomic,
                                    unsigned m)
{
    const struct lu__race_rec *rs = lu__race_recs(c);
    for (unsigned i = 0; i < c->n; i++)
        if (rs[i].tid == tid && rs[i].clock == clock &&
            lu__race_kind_covers(rs[i].write, rs[i].atomic, write, atomic) && (rs[i].mask & m) == m)
            return true;
    return false;
}

/* The access on bytes m of the granule of cell c: check, then update. */
static void lu__race_granule(struct lu__race_acc *a, struct lu__race_cell *c, unsigned m)
{
    struct lu__race_rec *rs = lu__race_recs(c);
    unsigned n = c->n;

    if (lu__race_covered(c, a->tid, a->clock, a->write, a->atomic, m))
        return;

    unsigned fresh = m & ~(unsigned)c->reported;
    for (unsigned i = 0; i < n && fresh; i++) {
        unsigned ov = rs[i].mask & fresh;
        if (!ov || !lu__race_conflict(a->write, a->atomic, rs[i].write, rs[i].atomic) ||
            lu__race_hb(a, &rs[i]))
            continue;
        if (lu__race_note(a, c->key << 3, ov, &rs[i])) {
            c->reported |= (uint8_t)ov;
            fresh &= ~ov;
        }
    }

    /* An access supersedes the earlier accesses of its bytes that happen
     * before it and that it covers (lu__race_kind_covers): a later access
     * concurrent with one of those is concurrent with this one too, and
     * conflicts with it. A write also supersedes the conflicting accesses
     * it does not follow: they were just reported. So a plain write
     * supersedes everything, a plain read the reads before it; the last
     * write stays, and atomic accesses do not supersede plain ones. */
    unsigned j = 0;
    for (unsigned i = 0; i < n; i++) {
        struct lu__race_rec r = rs[i];
        if (r.mask & m) {
            bool gone;
            if (a->write && !a->atomic)
                gone = true;
            else if (lu__race_hb(a, &r))
                gone = lu__race_kind_covers(a->write, a->atomic, r.write, r.atomic);
            else
                gone = a->write && lu__race_conflict(a->write, a->atomic, r.write, r.atomic);
            if (gone)
                r.mask &= (uint8_t)~m;
        }
        if (r.mask)
            rs[j++] = r;
    }
    lu__race.st.records -= n - j;
    c->n = (uint16_t)j;

    for (unsigned i = 0; i < j; i++) {
        if (rs[i].tid == a->tid && rs[i].clock == a->clock && rs[i].write == a->write &&
            rs[i].atomic == a->atomic && rs[i].pc == a->pc) {
            rs[i].mask |= (uint8_t)m;
            return;
        }
    }
    struct lu__race_rec r = {.pc = a->pc,
                             .clock = a->clock,
                             .tid = (uint8_t)a->tid,
                             .mask = (uint8_t)m,
                             .write = a->write,
                             .atomic = a->atomic};
    if (!lu__race_append(c, &r))
        lu__race.st.untracked++;
}

/* Runs body for each granule of [addr, addr + size), with 'cell' (NULL if
 * absent or untrackable) and 'mask' (the bytes of the granule in range). */
#define LU__RACE_FOR_GRANULES(addr, size, insert, body)                                                      \
    do {                                                                                                     \
        uintptr_t p_ = (uintptr_t)(addr);                                                                    \
        uintptr_t e_ = p_ + (size);                                                                          \
        if (e_ < p_)                                                                                         \
            e_ = UINTPTR_MAX;                                                                                \
        while (p_ < e_) {                                                                                    \
            uintptr_t key_ = p_ >> 3, g_ = key_ << 3;                                                        \
            unsigned lo_ = (unsigned)(p_ - g_);                                                              \
            unsigned hi_ = e_ - g_ < 8 ? (unsigned)(e_ - g_) : 8u;                                           \
            unsigned mask = ((1u << (hi_ - lo_)) - 1u) << lo_;                                               \
            struct lu__race_cell *cell = lu__race_cell(key_, (insert));                                      \
            body;                                                                                            \
            if (g_ + 8 < g_)                                                                                 \
                break;                                                                                       \
            p_ = g_ + 8;                                                                                     \
        }                                                                                                    \
    } while (0)

/* Everything but the same-epoch case of a one-granule access: out of line,
 * so that the fast path needs no room for the vector clock and the
 * reports. */
static __attribute__((noinline)) void lu__race_slow(const void *addr, size_t size, bool is_write, bool atomic,
                                                    uintptr_t pc, int tid, uint32_t clock)
{
    lu__race.busy = 1;
    struct lu__race_acc a;
    a.tid = tid;
    a.clock = clock;
    a.write = is_write;
    a.atomic = atomic;
    a.pc = pc;
    a.have_vc = false;
    a.nq = 0;
    LU__RACE_FOR_GRANULES(addr, size, true, {
        if (cell)
            lu__race_granule(&a, cell, mask);
        else
            lu__race.st.untracked++;
    });
    /* The state is consistent now: the handler may reset, turn detection
     * off or never return (lu_sched_abort); busy stays set while it runs
     * so that its own accesses are not analysed. */
    for (int i = 0; i < a.nq && lu__race.fn; i++) {
        lu__race.st.races++;
        lu__race.fn(lu__race.arg, &a.q[i]);
    }
    lu__race.busy = 0;
}

void lu__ipose_race_access(const void *addr, size_t size, bool is_write, uintptr_t pc)
{
    /* uncontrolled threads return before touching any state */
    int tid = lu_sched_self();
    if (tid < 0 || !lu__race.fn || lu__race.busy || size == 0)
        return;
    uint32_t clock = lu_sched_clock();
    lu__race.st.accesses++;
    uintptr_t p = (uintptr_t)addr;
    unsigned lo = (unsigned)(p & 7);
    if (size <= 8 - lo) {
        /* one granule, most often already covered by this epoch */
        struct lu__race_cell *c = lu__race_find(p >> 3);
        if (c && lu__race_covered(c, tid, clock, is_write, false, ((1u << size) - 1u) << lo))
            return;
    }
    lu__race_slow(addr, size, is_write, false, pc, tid, clock);
}

void lu__ipose_race_atomic(const void *addr, size_t size, bool is_write, uintptr_t pc, uint32_t clock)
{
    int tid = lu_sched_self();
    if (tid < 0 || !lu__race.fn || lu__race.busy || size == 0)
        return;
    lu__race.st.accesses++;
    lu__race_slow(addr, size, is_write, true, pc, tid, clock);
}

void lu__ipose_race_forget(const void *addr, size_t size)
{
    if (!lu__race.tab || size == 0)
        return;
    LU__RACE_FOR_GRANULES(addr, size, false, {
        if (cell) {
            struct lu__race_rec *rs = lu__race_recs(cell);
            unsigned j = 0;
            for (unsigned i = 0; i < cell->n; i++) {
                rs[i].mask &= (uint8_t)~mask;
                if (rs[i].mask)
                    rs[j++] = rs[i];
            }
            lu__race.st.records -= cell->n - j;
            cell->n = (uint16_t)j;
            cell->reported &= (uint8_t)~mask;
        }
    });
}

/* ---- Control ---- */

void lu_ipose_race_set_handler(void (*fn)(void *arg, const struct lu_ipose_race *r), void *arg)
{
    if (!fn) {
        __atomic_store_n(&lu__ipose_race_hook, NULL, __ATOMIC_RELAXED);
        __atomic_store_n(&lu__ipose_race_atomic_hook, NULL, __ATOMIC_RELAXED);
        lu__race.fn = NULL;
        lu__race.arg = NULL;
        lu__race_free_all();
        return;
    }
    lu__race.fn = fn;
    lu__race.arg = arg;
    __atomic_store_n(&lu__ipose_race_hook, lu__ipose_race_access, __ATOMIC_RELAXED);
    __atomic_store_n(&lu__ipose_race_atomic_hook, lu__ipose_race_atomic, __ATOMIC_RELAXED);
}

void lu_ipose_race_reset(void)
{
    if (++lu__race.gen == 0) {
        /* after 2^32 resets: stale stamps could look current again */
        if (lu__race.tab)
            memset(lu__race.tab, 0, lu__race.slots * sizeof *lu__race.tab);
        lu__race.gen = 1;
    }
    lu__race.used = 0;
    lu__race.cur = NULL;
    lu__race.bump = lu__race.end = NULL;
    lu__race.busy = 0;
    memset(&lu__race.st, 0, sizeof lu__race.st);
}

void lu__ipose_race_stats(struct lu__ipose_race_stats *out)
{
    *out = lu__race.st;
    out->granules = lu__race.used;
}
