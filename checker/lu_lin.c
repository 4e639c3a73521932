/*
 * lu_lin: the specification trie (phase 1) and the linearizability checks of
 * concurrent histories against it (phase 2).
 */
#include "lu_lin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIT(op) (1ull << (op))

/* The child of a full history's last step: every operation has run, so
 * nothing can follow and the node itself is never stored. */
#define LEAF UINT32_MAX

/* One (operation, outcome) step out of a trie node. */
struct lu__edge {
    struct lu_hist_result res; /* bytes live in the spec's byte chunks */
    uint32_t child;            /* node index or LEAF; meaningless when stuck */
    uint32_t origin;           /* which added history created this edge */
    uint16_t op;
    bool stuck;
};

/* A node is a serial prefix; the set of operations it has run is therefore a
 * function of the node, which lets the search cache failures per node. */
struct lu__node {
    uint64_t kids;          /* operations that have an edge */
    struct lu__edge *edges; /* with more than one edge: all, sorted by op */
    uint32_t stamp;         /* == the search generation: failed in it */
    struct lu__edge one;    /* the edge of a node with one (most nodes) */
};

/* Byte results, in chunks that never move so that edges can point in. */
struct lu__chunk {
    struct lu__chunk *next;
    size_t len, cap;
    unsigned char data[];
};

/* Scratch the checks update although they see the spec as const (as do the
 * nodes' stamps): a spec is not shared between threads. */
struct lu__scratch {
    uint32_t gen; /* search generation */
};

struct lu_lin_spec {
    struct lu_hist_test test;
    int8_t prev[LU_HIST_MAX_OPS]; /* same-thread predecessor, or -1 */
    uint64_t all;                 /* every operation of the test */
    struct lu__node *nodes;       /* nodes[0] is the root */
    size_t nnodes, node_cap;
    struct lu__chunk *bytes;
    uint32_t nadded; /* distinct histories added: the next origin */
    size_t nfull, nstuck;
    bool empty_seen; /* the empty full history of a test without ops */
    unsigned hitting_depth;
    struct lu__scratch *scr;
};

static inline unsigned popcount64(uint64_t x)
{
    return (unsigned)__builtin_popcountll(x);
}

static inline unsigned ctz64(uint64_t x)
{
    return (unsigned)__builtin_ctzll(x);
}

/* The edge for op, which n has. */
static inline const struct lu__edge *edge_at(const struct lu__node *n, unsigned op)
{
    return n->edges ? &n->edges[popcount64(n->kids & (BIT(op) - 1))] : &n->one;
}

static inline const struct lu__edge *edge_of(const struct lu__node *n, unsigned op)
{
    return n->kids >> op & 1 ? edge_at(n, op) : NULL;
}

static inline bool res_eq(const struct lu_hist_result *a, const struct lu_hist_result *b)
{
    if (a->value != b->value || a->nbytes != b->nbytes)
        return false;
    return a->nbytes == 0 || memcmp(a->bytes, b->bytes, a->nbytes) == 0;
}

/* ---- spec ---- */

static int grow_nodes(struct lu_lin_spec *s, size_t need)
{
    if (s->node_cap - s->nnodes >= need)
        return 0;
    size_t cap = s->node_cap ? s->node_cap : 64;
    while (cap - s->nnodes < need)
        cap *= 2;
    if (cap > UINT32_MAX)
        return -1;
    struct lu__node *nodes = realloc(s->nodes, cap * sizeof *nodes);
    if (!nodes)
        return -1;
    s->nodes = nodes;
    s->node_cap = cap;
    return 0;
}

static uint32_t new_node(struct lu_lin_spec *s)
{
    uint32_t i = (uint32_t)s->nnodes++;
    s->nodes[i].kids = 0;
    s->nodes[i].edges = NULL;
    s->nodes[i].stamp = 0; /* never equal to a live generation */
    return i;
}

/* Room for n more bytes in the current chunk; the caller advances len. */
static unsigned char *bytes_reserve(struct lu_lin_spec *s, size_t n)
{
    struct lu__chunk *c = s->bytes;
    if (c && c->cap - c->len >= n)
        return c->data + c->len;
    size_t cap = n > 16384 ? n : 16384;
    c = malloc(sizeof *c + cap);
    if (!c)
        return NULL;
    c->len = 0;
    c->cap = cap;
    c->next = s->bytes;
    s->bytes = c;
    return c->data;
}

struct lu_lin_spec *lu_lin_spec_create(const struct lu_hist_test *t)
{
    if (t->nops > LU_HIST_MAX_OPS)
        return NULL;
    struct lu_lin_spec *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->test = *t;
    s->all = t->nops == 64 ? ~0ull : BIT(t->nops) - 1;
    s->hitting_depth = 2;
    for (unsigned i = 0; i < t->nops; i++) {
        s->prev[i] = -1;
        for (unsigned j = 0; j < t->nops; j++)
            if (t->ops[j].thread == t->ops[i].thread && t->ops[j].pos + 1 == t->ops[i].pos)
                s->prev[i] = (int8_t)j;
    }
    s->scr = calloc(1, sizeof *s->scr);
    if (!s->scr || grow_nodes(s, 1) < 0) {
        lu_lin_spec_free(s);
        return NULL;
    }
    new_node(s);
    return s;
}

void lu_lin_spec_free(struct lu_lin_spec *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nnodes; i++)
        free(s->nodes[i].edges);
    free(s->nodes);
    while (s->bytes) {
        struct lu__chunk *c = s->bytes;
        s->bytes = c->next;
        free(c);
    }
    free(s->scr);
    free(s);
}

const struct lu_hist_test *lu_lin_spec_test(const struct lu_lin_spec *s)
{
    return &s->test;
}

void lu_lin_spec_set_hitting_depth(struct lu_lin_spec *s, unsigned d)
{
    s->hitting_depth = d < 2 ? d : 2;
}

size_t lu_lin_spec_full_count(const struct lu_lin_spec *s)
{
    return s->nfull;
}

size_t lu_lin_spec_stuck_count(const struct lu_lin_spec *s)
{
    return s->nstuck;
}

/* A serial history of this test: each operation at most once, threads in
 * their order, and either every operation returned or (stuck) exactly the
 * last call is pending. */
static bool valid_serial(const struct lu_lin_spec *s, const struct lu_hist *h)
{
    if (!lu_hist_is_serial(h))
        return false;
    uint64_t called = 0, returned = 0;
    for (size_t i = 0; i < h->len; i++) {
        const struct lu_hist_event *e = &h->ev[i];
        if (e->op >= s->test.nops)
            return false;
        if (e->kind == LU_HIST_CALL) {
            int p = s->prev[e->op];
            if (called & BIT(e->op) || (p >= 0 && !(returned & BIT(p))))
                return false;
            called |= BIT(e->op);
        } else {
            returned |= BIT(e->op);
        }
    }
    if (h->stuck)
        return h->len % 2 == 1;
    return h->len % 2 == 0 && returned == s->all;
}

static int put_step(struct lu_hist *c, const struct lu__edge *e)
{
    if (lu_hist_call(c, e->op) < 0)
        return -1;
    if (e->stuck) {
        c->stuck = true;
        return 0;
    }
    return lu_hist_return(c, e->op, e->res.value, e->res.bytes, e->res.nbytes);
}

/* The earlier history that took edge e out of the node h reached after its
 * first len events: it shares that prefix with h, and every edge after e on
 * its path was created by it, so following its origin finds the rest. */
static int add_conflict(const struct lu_lin_spec *s, const struct lu_hist *h, size_t len,
                        const struct lu__edge *e, struct lu_hist *c)
{
    if (!c)
        return 1;
    lu_hist_reset(c);
    for (size_t i = 0; i < len; i++) {
        const struct lu_hist_event *x = &h->ev[i];
        int rc = x->kind == LU_HIST_CALL
                     ? lu_hist_call(c, x->op)
                     : lu_hist_return(c, x->op, x->res.value, x->res.bytes, x->res.nbytes);
        if (rc < 0)
            return -1;
    }
    for (;;) {
        if (put_step(c, e) < 0)
            return -1;
        if (e->stuck)
            return 1;
        if (e->child == LEAF)
            return 1;
        const struct lu__node *n = &s->nodes[e->child];
        const struct lu__edge *next = NULL;
        for (uint64_t k = n->kids; k && !next; k &= k - 1)
            if (edge_at(n, ctz64(k))->origin == e->origin)
                next = edge_at(n, ctz64(k));
        if (!next)
            return 1;
        e = next;
    }
}

int lu_lin_spec_add(struct lu_lin_spec *s, const struct lu_hist *h, struct lu_hist *conflict)
{
    if (!valid_serial(s, h))
        return -2;
    if (h->len == 0) {
        /* Only a test without operations has an empty full history. */
        if (!s->empty_seen) {
            s->empty_seen = true;
            s->nfull++;
        }
        return 0;
    }

    /* Walk the existing trie first: a contradiction must leave it as it was. */
    uint32_t node = 0;
    size_t i = 0;
    while (i < h->len) {
        const struct lu_hist_event *c = &h->ev[i];
        bool stuck_step = i + 1 == h->len;
        const struct lu__edge *e = edge_of(&s->nodes[node], c->op);
        if (!e)
            break;
        if (stuck_step) {
            if (!e->stuck)
                return add_conflict(s, h, i, e, conflict);
            return 0; /* seen before */
        }
        if (e->stuck || !res_eq(&e->res, &h->ev[i + 1].res))
            return add_conflict(s, h, i, e, conflict);
        node = e->child;
        i += 2;
    }
    if (i >= h->len)
        return 0; /* the same full history again */
    if (s->nadded == UINT32_MAX)
        return -1;

    /* Allocate everything before changing anything, so that ENOMEM leaves
     * the trie consistent. Steps from i on are new: the first hangs off
     * node, each later one off the node its predecessor creates, in that
     * node's inline edge. The last step creates no node: it is stuck, or
     * completes the history (LEAF). */
    size_t nsteps = (h->len - i + 1) / 2;
    size_t nbytes = 0;
    for (size_t k = i + 1; k < h->len; k += 2)
        nbytes += h->ev[k].res.nbytes;
    unsigned char *bytes = NULL;
    if (grow_nodes(s, nsteps - 1) < 0 || (nbytes && !(bytes = bytes_reserve(s, nbytes))))
        return -1;
    struct lu__node *br = &s->nodes[node];
    unsigned nk = popcount64(br->kids);
    if (nk > 0) {
        struct lu__edge *all = realloc(br->edges, (nk + 1) * sizeof *all);
        if (!all)
            return -1;
        if (!br->edges)
            all[0] = br->one;
        br->edges = all;
    }

    uint32_t origin = s->nadded++;
    if (nbytes)
        s->bytes->len += nbytes;
    for (size_t k = 0; k < nsteps; k++, i += 2) {
        unsigned op = h->ev[i].op;
        struct lu__node *n = &s->nodes[node];
        struct lu__edge *e = &n->one;
        if (k == 0 && nk > 0) {
            unsigned at = popcount64(n->kids & (BIT(op) - 1));
            memmove(&n->edges[at + 1], &n->edges[at], (nk - at) * sizeof *e);
            e = &n->edges[at];
        }
        n->kids |= BIT(op);
        memset(e, 0, sizeof *e);
        e->op = (uint16_t)op;
        e->origin = origin;
        if (i + 1 == h->len) {
            e->stuck = true;
            continue;
        }
        e->res = h->ev[i + 1].res;
        if (e->res.nbytes) {
            memcpy(bytes, e->res.bytes, e->res.nbytes);
            e->res.bytes = bytes;
            bytes += e->res.nbytes;
        } else {
            e->res.bytes = NULL;
        }
        e->child = k + 1 < nsteps ? new_node(s) : LEAF;
        node = e->child;
    }
    if (h->stuck)
        s->nstuck++;
    else
        s->nfull++;
    return 0;
}

/* ---- history analysis ---- */

/* What the checks need from a concurrent history. */
struct hinfo {
    uint64_t called, returned;
    uint64_t pred[LU_HIST_MAX_OPS]; /* operations that returned before its call */
    const struct lu_hist_result *res[LU_HIST_MAX_OPS];
    uint8_t order[LU_HIST_MAX_OPS]; /* completed operations in call order */
    unsigned n;
};

/* Returns -2 unless h is a well-formed history of the test: known operations,
 * each called at most once and returned at most once after its call, each
 * thread calling its operations in order and one at a time. */
static int analyse(const struct lu_lin_spec *s, const struct lu_hist *h, struct hinfo *hi)
{
    hi->called = hi->returned = 0;
    hi->n = 0;
    for (size_t i = 0; i < h->len; i++) {
        const struct lu_hist_event *e = &h->ev[i];
        unsigned op = e->op;
        if (op >= s->test.nops)
            return -2;
        if (e->kind == LU_HIST_CALL) {
            int p = s->prev[op];
            if (hi->called & BIT(op) || (p >= 0 && !(hi->returned & BIT(p))))
                return -2;
            hi->called |= BIT(op);
            hi->pred[op] = hi->returned;
        } else {
            if (!(hi->called & BIT(op)) || hi->returned & BIT(op))
                return -2;
            hi->returned |= BIT(op);
            hi->res[op] = &e->res;
        }
    }
    for (size_t i = 0; i < h->len; i++) {
        const struct lu_hist_event *e = &h->ev[i];
        if (e->kind == LU_HIST_CALL && hi->returned & BIT(e->op))
            hi->order[hi->n++] = (uint8_t)e->op;
    }
    return 0;
}

/* ---- memoized search ---- */

struct search {
    const struct lu_lin_spec *s;
    const struct hinfo *hi;
    uint64_t target;   /* must all be linearized */
    uint64_t optional; /* pending calls Definition 1 may complete */
    int stuck_op;      /* >= 0: the last node must have it stuck */
    uint32_t gen;
    unsigned depth;
    uint64_t nodes;
    uint16_t *out;
};

static uint32_t next_gen(const struct lu_lin_spec *s)
{
    if (++s->scr->gen == 0) {
        for (size_t i = 0; i < s->nnodes; i++)
            s->nodes[i].stamp = 0;
        s->scr->gen = 1;
    }
    return s->scr->gen;
}

/* Wing-Gong search with Lowe's cache of failed states. A state is (set of
 * linearized operations, trie node), and the node determines the set, so the
 * cache is a per-node stamp: no hashing and no allocation per check. */
static bool dfs(struct search *x, uint32_t node, uint64_t mask)
{
    x->nodes++;
    if ((mask & x->target) == x->target && x->stuck_op < 0)
        return true;
    if (node == LEAF)
        return false; /* nothing can be pending or stuck after every op */
    const struct lu__node *n = &x->s->nodes[node];
    if ((mask & x->target) == x->target) {
        const struct lu__edge *e = edge_of(n, (unsigned)x->stuck_op);
        if (e && e->stuck)
            return true;
    }
    if (n->stamp == x->gen)
        return false;
    uint64_t cand = n->kids & (x->target | x->optional) & ~mask;
    for (; cand; cand &= cand - 1) {
        unsigned op = ctz64(cand);
        if (x->hi->pred[op] & ~mask)
            continue;
        const struct lu__edge *e = edge_at(n, op);
        if (e->stuck)
            continue;
        /* A pending call completed by Definition 1 may return anything. */
        if (x->hi->returned & BIT(op) && !res_eq(&e->res, x->hi->res[op]))
            continue;
        x->out[x->depth++] = (uint16_t)op;
        if (dfs(x, e->child, mask | BIT(op)))
            return true;
        x->depth--;
    }
    x->s->nodes[node].stamp = x->gen;
    return false;
}

static bool search(const struct lu_lin_spec *s, const struct hinfo *hi, uint64_t target, uint64_t optional,
                   int stuck_op, struct lu_lin_verdict *v, struct lu_lin_stats *st)
{
    struct search x = {
        .s = s,
        .hi = hi,
        .target = target,
        .optional = optional,
        .stuck_op = stuck_op,
        .gen = next_gen(s),
        .out = v->witness,
    };
    bool ok = dfs(&x, 0, 0);
    v->witness_len = ok ? x.depth : 0;
    if (st)
        st->search_nodes += x.nodes;
    return ok;
}

/* ---- strong hitting families ---- */

/* Strong d-hitting families (Ozkan, Majumdar, Niksic, PPoPP'19) over the
 * thread chains, for d = 1 and 2. The schedule for index (chain tid, x) is
 * built greedily, one position at a time: among the operations whose
 * real-time predecessors are all placed, take one of the lowest class, where
 * the classes are: others < thread tid's < x. When an operation of thread tid
 * (or x) is placed, nothing of a lower class is available, so every operation
 * placed after it has an unplaced ancestor that is it, a later operation of
 * tid, or x. Hence the schedule strongly hits every tuple (c, x) with c in
 * tid (and every (c) when there is no x), whatever the choice within a class:
 * that is the family's guarantee. Building prefix by prefix lets the walk
 * through the trie stop at the first disagreement, and lets ties go to an
 * operation the trie agrees with. */
struct hitting {
    const struct lu_lin_spec *s; /* NULL: no trie, ties go to the lowest id */
    const struct hinfo *hi;
    uint64_t completed;
    unsigned nchains;
    uint64_t chain[LU_HIST_MAX_OPS];
    uint8_t sched[LU_HIST_MAX_OPS];
    /* The chain's d = 1 run, step by step. The run for (chain, x) makes the
     * same choices until x is first among the candidates, so it resumes
     * there, and is skipped when that never happened before the d = 1 run
     * failed: it would fail at the same step. */
    unsigned base_steps;
    uint8_t base[LU_HIST_MAX_OPS];
    uint32_t base_node[LU_HIST_MAX_OPS];
    uint64_t base_done[LU_HIST_MAX_OPS], base_cand[LU_HIST_MAX_OPS];
};

static bool hitting_run(struct hitting *g, uint64_t chain, uint64_t x, unsigned step, uint64_t done,
                        uint32_t node, bool record)
{
    const struct hinfo *hi = g->hi;
    for (; step < hi->n; step++) {
        uint64_t avail = 0;
        for (uint64_t r = g->completed & ~done; r; r &= r - 1)
            if (!(hi->pred[ctz64(r)] & ~done))
                avail |= r & -r;
        uint64_t pick = avail & ~chain & ~x;
        if (!pick)
            pick = avail & chain & ~x;
        if (!pick)
            pick = avail & x;
        if (record) {
            g->base_steps = step + 1;
            g->base_node[step] = node;
            g->base_done[step] = done;
            g->base_cand[step] = pick;
        }
        unsigned op = ctz64(pick); /* avail is never empty: real time is a partial order */
        if (g->s) {
            /* node is not LEAF: some completed operation has not run yet */
            const struct lu__node *n = &g->s->nodes[node];
            const struct lu__edge *e = NULL;
            for (pick &= n->kids; pick; pick &= pick - 1) {
                op = ctz64(pick);
                e = edge_at(n, op);
                if (!e->stuck && res_eq(&e->res, hi->res[op]))
                    break;
            }
            if (!pick)
                return false; /* whichever of the class comes next disagrees */
            node = e->child;
        }
        g->sched[step] = (uint8_t)op;
        if (record)
            g->base[step] = (uint8_t)op;
        done |= BIT(op);
    }
    return true;
}

static void hitting_init(struct hitting *g, const struct lu_lin_spec *s, const struct hinfo *hi)
{
    g->s = NULL;
    g->hi = hi;
    g->completed = hi->returned;
    g->nchains = 0;
    uint16_t tids[LU_HIST_MAX_OPS];
    for (unsigned i = 0; i < hi->n; i++) {
        unsigned op = hi->order[i], t = s->test.ops[op].thread, c = 0;
        while (c < g->nchains && tids[c] != t)
            c++;
        if (c == g->nchains) {
            tids[g->nchains] = (uint16_t)t;
            g->chain[g->nchains++] = 0;
        }
        g->chain[c] |= BIT(op);
    }
}

typedef bool (*hit_fn)(void *arg, const uint8_t *sched, unsigned n);

/* Runs the schedules of the strong d-hitting family (without its d-1
 * family) until fn returns true; with g->s set, a schedule reaches fn only
 * when the trie accepts it. */
static bool hitting_each(struct hitting *g, unsigned d, hit_fn fn, void *arg)
{
    for (unsigned c = 0; c < g->nchains; c++) {
        if (d == 1) {
            if (hitting_run(g, g->chain[c], 0, 0, 0, 0, false) && fn(arg, g->sched, g->hi->n))
                return true;
            continue;
        }
        hitting_run(g, g->chain[c], 0, 0, 0, 0, true);
        /* x in the chain itself is delayed as a chain element anyway: that
         * schedule is the d = 1 one. */
        for (uint64_t xs = g->completed & ~g->chain[c]; xs; xs &= xs - 1) {
            uint64_t x = xs & -xs;
            unsigned j = 0;
            while (j < g->base_steps && !(g->base_cand[j] & x))
                j++;
            if (j == g->base_steps)
                continue;
            memcpy(g->sched, g->base, j);
            if (hitting_run(g, g->chain[c], x, j, g->base_done[j], g->base_node[j], false) &&
                fn(arg, g->sched, g->hi->n))
                return true;
        }
    }
    return false;
}

static bool hit_found(void *arg, const uint8_t *sched, unsigned n)
{
    struct lu_lin_verdict *v = arg;
    for (unsigned i = 0; i < n; i++)
        v->witness[i] = sched[i];
    v->witness_len = n;
    return true;
}

/* Test hook, not in the header: calls fn on each schedule of the strong
 * d-hitting family (d = 1 or 2, including the smaller family) of h's
 * completed operations, built without the trie's guidance. Returns -2 for a
 * malformed h. */
int lu__lin_hitting_family(const struct lu_lin_spec *s, const struct lu_hist *h, unsigned d,
                           bool (*fn)(void *arg, const uint8_t *sched, unsigned n), void *arg);
int lu__lin_hitting_family(const struct lu_lin_spec *s, const struct lu_hist *h, unsigned d,
                           bool (*fn)(void *arg, const uint8_t *sched, unsigned n), void *arg)
{
    struct hinfo hi;
    if (analyse(s, h, &hi) < 0 || d < 1 || d > 2)
        return -2;
    struct hitting g;
    hitting_init(&g, s, &hi);
    for (unsigned k = 1; k <= d; k++)
        if (hitting_each(&g, k, fn, arg))
            break;
    return 0;
}

/* ---- checks ---- */

static void verdict_init(struct lu_lin_verdict *v)
{
    v->ok = false;
    v->witness_len = 0;
    v->failing_op = -1;
}

int lu_lin_check_full(const struct lu_lin_spec *s, const struct lu_hist *h, struct lu_lin_verdict *v,
                      struct lu_lin_stats *st)
{
    struct hinfo hi;
    verdict_init(v);
    if (analyse(s, h, &hi) < 0)
        return -2;
    if (st)
        st->checks++;
    uint64_t optional = hi.called & ~hi.returned;

    if (hi.n > 0) {
        struct hitting g;
        hitting_init(&g, s, &hi);
        g.s = s;
        for (unsigned d = 1; d <= s->hitting_depth; d++) {
            if (hitting_each(&g, d, hit_found, v)) {
                v->ok = true;
                if (st)
                    st->hitting_hits++;
                return 0;
            }
        }
    }
    v->ok = search(s, &hi, hi.returned, optional, -1, v, st);
    return 0;
}

int lu_lin_check_stuck(const struct lu_lin_spec *s, const struct lu_hist *h, struct lu_lin_verdict *v,
                       struct lu_lin_stats *st)
{
    struct hinfo hi;
    verdict_init(v);
    if (analyse(s, h, &hi) < 0)
        return -2;
    uint64_t pending = hi.called & ~hi.returned;
    /* Definition 2 asks nothing when no call is pending (the execution hung
     * outside the test's calls); the results still have to make sense. */
    if (!pending)
        return lu_lin_check_full(s, h, v, st);
    if (st)
        st->checks++;
    /* H[e] drops the other pending calls, so they neither constrain the
     * order nor appear in the witness; only completed calls precede e. */
    for (uint64_t p = pending; p; p &= p - 1) {
        int e = (int)ctz64(p);
        if (!search(s, &hi, hi.returned, 0, e, v, st)) {
            v->ok = false;
            v->failing_op = e;
            v->witness_len = 0;
            return 0;
        }
    }
    v->ok = true;
    v->witness_len = 0;
    return 0;
}

/* ---- reports ---- */

static void render_label(struct lu_hist_buf *b, const struct lu_lin_spec *s, unsigned op)
{
    lu_hist_buf_puts(b, s->test.ops[op].label);
}

/* The label, and whose call it is when another call of the test has the
 * same label (a test's try_dequeue(0) and a teardown's): for a sentence
 * that names one call. */
static void render_who(struct lu_hist_buf *b, const struct lu_lin_spec *s, unsigned op)
{
    static const char *const nth[] = {"first", "second",  "third",  "fourth", "fifth",
                                      "sixth", "seventh", "eighth", "ninth",  "tenth"};
    render_label(b, s, op);
    const struct lu_hist_test *t = &s->test;
    const struct lu_hist_op *o = &t->ops[op];
    bool other = false;
    unsigned same_thread = 0, before = 0; /* the thread's calls with this label, and those before op */
    for (unsigned i = 0; i < t->nops; i++) {
        if (strcmp(t->ops[i].label, o->label) != 0)
            continue;
        other |= i != op;
        if (t->ops[i].thread == o->thread) {
            same_thread++;
            before += t->ops[i].pos < o->pos ? 1u : 0u;
        }
    }
    if (!other)
        return;
    if (t->main_last && (unsigned)o->thread + 1 == t->nthreads)
        lu_hist_buf_puts(b, " (the main thread's");
    else
        lu_hist_buf_printf(b, " (thread %u's", (unsigned)o->thread);
    /* which of the thread's own calls of it */
    if (same_thread > 1 && before < sizeof nth / sizeof nth[0])
        lu_hist_buf_printf(b, " %s", nth[before]);
    else if (same_thread > 1)
        lu_hist_buf_printf(b, " call %u of them", before + 1);
    lu_hist_buf_puts(b, ")");
}

/* Group lines are indented like the rest of a report's blocks. */
#define GROUP_INDENT "    "

/* The serial histories a witness must be among: those that run exactly the
 * completed operations (then get stuck at stuck_op, if >= 0). */
struct group {
    const struct lu_lin_spec *s;
    const struct hinfo *hi;
    uint64_t target;
    int stuck_op;
    bool agree;                  /* this pass lists the histories that agree with h's results */
    bool returning;              /* stuck_op: list serial histories where it returns instead */
    const struct lu__edge *last; /* stuck_op's edge in the history being emitted */
    struct lu_hist_buf *b;
    unsigned max;
    size_t count;
    unsigned depth;
    const struct lu__edge *path[LU_HIST_MAX_OPS];
    /* Hashes of the lines listed: two threads making the same call give
     * serial histories that read the same, and one line says it. */
    uint64_t *seen;
    size_t nseen, seen_cap;
};

/* Whether the line was listed already (and if not, remembers it). When
 * memory runs out the line is listed again: only cosmetic. */
static bool group_seen(struct group *g, const struct lu_hist_buf *line)
{
    uint64_t h = lu_hist_hash_bytes(line->s, line->len) | 1; /* 0 marks a free slot */
    if (2 * (g->nseen + 1) > g->seen_cap) {
        size_t cap = g->seen_cap ? 2 * g->seen_cap : 64;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t)
            return false;
        for (size_t i = 0; i < g->seen_cap; i++)
            for (size_t j = g->seen[i] % cap; g->seen[i]; j = (j + 1) % cap)
                if (!t[j]) {
                    t[j] = g->seen[i];
                    break;
                }
        free(g->seen);
        g->seen = t;
        g->seen_cap = cap;
    }
    for (size_t j = h % g->seen_cap;; j = (j + 1) % g->seen_cap) {
        if (g->seen[j] == h)
            return true;
        if (!g->seen[j]) {
            g->seen[j] = h;
            g->nseen++;
            return false;
        }
    }
}

static void group_emit(struct group *g)
{
    struct lu_hist_buf line;
    lu_hist_buf_init(&line);
    lu_hist_buf_puts(&line, GROUP_INDENT);
    for (unsigned i = 0; i < g->depth; i++) {
        if (i > 0)
            lu_hist_buf_puts(&line, " ");
        render_label(&line, g->s, g->path[i]->op);
        lu_hist_buf_puts(&line, "->");
        lu_hist_render_result(&line, &g->path[i]->res);
    }
    if (g->stuck_op >= 0) {
        if (g->depth > 0)
            lu_hist_buf_puts(&line, " ");
        render_label(&line, g->s, (unsigned)g->stuck_op);
        if (g->returning && g->last) {
            lu_hist_buf_puts(&line, "->");
            lu_hist_render_result(&line, &g->last->res);
        } else {
            lu_hist_buf_puts(&line, " #");
        }
    }
    lu_hist_buf_puts(&line, "\n");
    if (!line.failed && !group_seen(g, &line) && g->count++ < g->max)
        lu_hist_buf_puts(g->b, line.s);
    lu_hist_buf_free(&line);
}

/* The serial executions of target's operations that get stuck before all
 * of them returned: listed when none completes them all, since then these
 * are everything phase 1 saw of these calls. */
static void group_stuck_dfs(struct group *g, uint32_t node, uint64_t mask)
{
    if (node == LEAF || mask == g->target)
        return;
    const struct lu__node *n = &g->s->nodes[node];
    for (uint64_t cand = n->kids & g->target & ~mask; cand; cand &= cand - 1) {
        unsigned op = ctz64(cand);
        const struct lu__edge *e = edge_of(n, op);
        if (e->stuck) {
            g->stuck_op = (int)op;
            group_emit(g);
            continue;
        }
        g->path[g->depth++] = e;
        group_stuck_dfs(g, e->child, mask | BIT(op));
        g->depth--;
    }
}

static void group_dfs(struct group *g, uint32_t node, uint64_t mask, bool agree)
{
    if (node == LEAF) {
        if (g->stuck_op < 0 && agree == g->agree)
            group_emit(g);
        return;
    }
    const struct lu__node *n = &g->s->nodes[node];
    if (mask == g->target) {
        const struct lu__edge *e =
            g->stuck_op >= 0 && (n->kids >> g->stuck_op & 1) ? edge_of(n, (unsigned)g->stuck_op) : NULL;
        g->last = e;
        if ((g->stuck_op < 0 || (e && e->stuck != g->returning)) && agree == g->agree)
            group_emit(g);
        return;
    }
    for (uint64_t cand = n->kids & g->target & ~mask; cand; cand &= cand - 1) {
        unsigned op = ctz64(cand);
        const struct lu__edge *e = edge_of(n, op);
        if (e->stuck)
            continue;
        bool a = agree && res_eq(&e->res, g->hi->res[op]);
        if (g->agree && !a)
            continue;
        g->path[g->depth++] = e;
        group_dfs(g, e->child, mask | BIT(op), a);
        g->depth--;
    }
}

/* Whether some serial execution runs every operation of target to its
 * return; with hi, in an order that respects h's real-time order and
 * gives each the result it returned in h. */
static bool serial_matches(const struct lu_lin_spec *s, const struct hinfo *hi, uint32_t node, uint64_t mask,
                           uint64_t target)
{
    if (mask == target)
        return true;
    if (node == LEAF)
        return false;
    const struct lu__node *n = &s->nodes[node];
    for (uint64_t cand = n->kids & target & ~mask; cand; cand &= cand - 1) {
        unsigned op = ctz64(cand);
        const struct lu__edge *e = edge_of(n, op);
        if (e->stuck || (hi && ((hi->pred[op] & ~mask) || !res_eq(&e->res, hi->res[op]))))
            continue;
        if (serial_matches(s, hi, e->child, mask | BIT(op), target))
            return true;
    }
    return false;
}

void lu_lin_spec_render_group(struct lu_hist_buf *b, const struct lu_lin_spec *s, const struct lu_hist *h,
                              int failing_op, unsigned max)
{
    struct hinfo hi;
    if (analyse(s, h, &hi) < 0 || failing_op >= (int)s->test.nops) {
        lu_hist_buf_puts(b, GROUP_INDENT "(the history does not belong to this test)\n");
        return;
    }
    struct group g = {
        .s = s,
        .hi = &hi,
        .target = hi.returned & ~(failing_op >= 0 ? BIT(failing_op) : 0),
        .stuck_op = failing_op,
        .b = b,
        .max = max,
    };
    if (!serial_matches(s, NULL, 0, 0, g.target)) {
        /* Nothing to compare with: serially, the calls that returned here
         * never all return. What phase 1 saw instead is where they stick. */
        lu_hist_buf_puts(b, GROUP_INDENT "(every serial execution of the ");
        lu_hist_buf_puts(b, failing_op >= 0 ? "completed calls" : "calls");
        lu_hist_buf_puts(b, " gets stuck before they all return:)\n");
        g.stuck_op = -1;
        group_stuck_dfs(&g, 0, 0);
    } else {
        /* Those that agree with h on every result come first: they are the
         * paper's observation group, wrong only in their order. */
        g.agree = true;
        group_dfs(&g, 0, 0, true);
        g.agree = false;
        group_dfs(&g, 0, 0, true);
        if (g.count == 0 && failing_op >= 0) {
            /* No serial history gets stuck there (that is the finding): show
             * the ones where the pending call returns, which is what the
             * object does serially after the same completed calls. */
            lu_hist_buf_puts(b, GROUP_INDENT
                             "(no serial history gets stuck there; serially the pending call returns:)\n");
            g.returning = true;
            g.agree = true;
            group_dfs(&g, 0, 0, true);
            g.agree = false;
            group_dfs(&g, 0, 0, true);
        }
    }
    if (g.count == 0)
        lu_hist_buf_puts(b, GROUP_INDENT "(no serial history of these calls was observed)\n");
    else if (g.count > max)
        lu_hist_buf_printf(b, GROUP_INDENT "... and %zu more\n", g.count - max);
    free(g.seen);
}

#define EX_VALS 6 /* "0, 1, 2, 3, 4 or 5"; more: "or something else" */

/* The results a group gives one operation: every one, and those where the
 * operation sits where h's real-time order puts it relative to its named
 * neighbours. */
struct ex_vals {
    bool obs;  /* the observed result occurs */
    bool more; /* more distinct others than EX_VALS */
    unsigned n;
    const struct lu_hist_result *v[EX_VALS];
};

struct explain {
    const struct lu_lin_spec *s;
    const struct hinfo *hi;
    uint64_t target;
    uint64_t named_pred[LU_HIST_MAX_OPS], named_succ[LU_HIST_MAX_OPS];
    /* all serial histories; those where the op keeps its place relative to
     * its named neighbours; those that respect the whole real-time order */
    struct ex_vals all[LU_HIST_MAX_OPS], local[LU_HIST_MAX_OPS], rt[LU_HIST_MAX_OPS];
};

static void ex_record(struct ex_vals *x, const struct lu_hist_result *r,
                      const struct lu_hist_result *observed)
{
    if (observed && res_eq(r, observed)) {
        x->obs = true;
        return;
    }
    for (unsigned i = 0; i < x->n; i++)
        if (res_eq(x->v[i], r))
            return;
    if (x->n < EX_VALS)
        x->v[x->n++] = r;
    else
        x->more = true;
}

#define EX_REACH 1u /* node leads to a member of the group */
#define EX_RT 2u    /* ... along a suffix that respects real time */

/* Records the results of the edges that lead to members of the group. The
 * trie is a tree, so each node is visited once; whether a step respects real
 * time depends only on the node, so suffixes can be judged on their own. */
static unsigned ex_dfs(struct explain *x, uint32_t node, uint64_t mask, bool rt_prefix)
{
    if (mask == x->target)
        return EX_REACH | EX_RT;
    if (node == LEAF)
        return 0;
    const struct lu__node *n = &x->s->nodes[node];
    unsigned got = 0;
    for (uint64_t cand = n->kids & x->target & ~mask; cand; cand &= cand - 1) {
        unsigned op = ctz64(cand);
        const struct lu__edge *e = edge_of(n, op);
        if (e->stuck)
            continue;
        bool rt_step = !(x->hi->pred[op] & ~mask);
        unsigned sub = ex_dfs(x, e->child, mask | BIT(op), rt_prefix && rt_step);
        if (!(sub & EX_REACH))
            continue;
        got |= EX_REACH;
        const struct lu_hist_result *obs = x->hi->res[op];
        ex_record(&x->all[op], &e->res, obs);
        if (!(x->named_pred[op] & ~mask) && !(x->named_succ[op] & mask))
            ex_record(&x->local[op], &e->res, obs);
        if (rt_step && sub & EX_RT) {
            got |= EX_RT;
            if (rt_prefix)
                ex_record(&x->rt[op], &e->res, obs);
        }
    }
    return got;
}

static void render_names(struct lu_hist_buf *b, const struct lu_lin_spec *s, uint64_t ops)
{
    unsigned n = popcount64(ops), k = 0;
    for (; ops; ops &= ops - 1, k++) {
        if (k > 0)
            lu_hist_buf_puts(b, k + 1 == n ? " and " : ", ");
        render_label(b, s, ctz64(ops));
    }
}

static bool res_less(const struct lu_hist_result *a, const struct lu_hist_result *b)
{
    if (a->value != b->value)
        return a->value < b->value;
    if (a->nbytes != b->nbytes)
        return a->nbytes < b->nbytes;
    return a->nbytes && memcmp(a->bytes, b->bytes, a->nbytes) < 0;
}

/* A user-space address of x86-64 Linux where a position-independent
 * program's heap and its mappings are (0x55..., 0x7f...): from 2^44 to
 * 2^47. A counter, an index, a pair of 32-bit halves packed into one value
 * or a time in milliseconds is below (from 4 GiB, an audit's packed pair
 * was called an address). */
static bool looks_like_address(const struct lu_hist_result *r)
{
    return r->nbytes == 0 && r->value >= (int64_t)1 << 44 && r->value < (int64_t)1 << 47;
}

/* "1", "1 or 2", "1, 2 or 3", in ascending order. */
static void render_vals(struct lu_hist_buf *b, const struct ex_vals *x)
{
    const struct lu_hist_result *v[EX_VALS];
    for (unsigned i = 0; i < x->n; i++) {
        unsigned k = i;
        for (; k > 0 && res_less(x->v[i], v[k - 1]); k--)
            v[k] = v[k - 1];
        v[k] = x->v[i];
    }
    for (unsigned i = 0; i < x->n; i++) {
        if (i > 0)
            lu_hist_buf_puts(b, i + 1 == x->n && !x->more ? " or " : ", ");
        lu_hist_render_result(b, v[i]);
    }
    if (x->more)
        lu_hist_buf_puts(b, " or something else");
}

static void explain_full(struct lu_hist_buf *b, const struct lu_lin_spec *s, const struct lu_hist *h,
                         const struct hinfo *hi)
{
    if (!serial_matches(s, NULL, 0, 0, hi->returned)) {
        lu_hist_buf_puts(
            b, "Every serial execution of these calls gets stuck before they all return, but here they"
               " all returned.");
        return;
    }
    struct explain *x = calloc(1, sizeof *x);
    if (!x) {
        b->failed = true;
        return;
    }
    x->s = s;
    x->hi = hi;
    x->target = hi->returned;
    /* Name only the nearest real-time neighbours: the latest calls that
     * returned before op was called and the earliest called after it
     * returned. The sentence is then about exactly those. */
    for (uint64_t m = hi->returned; m; m &= m - 1) {
        unsigned op = ctz64(m);
        uint64_t pred = hi->pred[op], np = pred;
        for (uint64_t q = pred; q; q &= q - 1)
            np &= ~hi->pred[ctz64(q)];
        x->named_pred[op] = np;
    }
    for (uint64_t m = hi->returned; m; m &= m - 1) {
        unsigned op = ctz64(m);
        for (uint64_t q = x->named_pred[op]; q; q &= q - 1)
            x->named_succ[ctz64(q)] |= BIT(op);
    }
    ex_dfs(x, 0, 0, true);

    /* Prefer an operation whose result no serial history gives it at all,
     * then one whose result its real-time neighbours rule out, then one whose
     * result the real-time order as a whole rules out; each in the order the
     * operations returned. */
    for (int pass = 0; pass < 3; pass++) {
        for (size_t i = 0; i < h->len; i++) {
            const struct lu_hist_event *ev = &h->ev[i];
            if (ev->kind != LU_HIST_RETURN)
                continue;
            unsigned op = ev->op;
            const struct ex_vals *v = pass == 0 ? &x->all[op] : pass == 1 ? &x->local[op] : &x->rt[op];
            if (v->obs || v->n == 0)
                continue;
            render_who(b, s, op);
            lu_hist_buf_puts(b, " returned ");
            lu_hist_render_result(b, &ev->res);
            if (pass == 0) {
                lu_hist_buf_puts(b, " in this history, but it returned ");
                render_vals(b, v);
                /* the stuck serial executions, where it may have returned
                 * that, do not explain a history whose calls all returned */
                lu_hist_buf_puts(b, lu_lin_spec_stuck_count(s)
                                        ? " in every serial execution of these calls"
                                          " in which they all return."
                                        : " in every serial execution of these calls.");
            } else if (pass == 2) {
                lu_hist_buf_puts(b, " in this history, but it returned ");
                render_vals(b, v);
                lu_hist_buf_puts(b,
                                 " in every serial history that respects the real-time order of the calls.");
            } else {
                lu_hist_buf_puts(b, " in this history, but in every serial history where it runs");
                if (x->named_pred[op]) {
                    lu_hist_buf_puts(b, " after ");
                    render_names(b, s, x->named_pred[op]);
                    lu_hist_buf_puts(b, " completed");
                }
                if (x->named_succ[op]) {
                    lu_hist_buf_puts(b, x->named_pred[op] ? " and before " : " before ");
                    render_names(b, s, x->named_succ[op]);
                    lu_hist_buf_puts(b, " started");
                }
                lu_hist_buf_puts(b, " it returned ");
                render_vals(b, v);
                lu_hist_buf_puts(b, ".");
            }
            if (looks_like_address(&ev->res))
                lu_hist_buf_puts(b,
                                 " That result looks like an address, which changes from one execution to the"
                                 " next: return a value, an index or a count, not a pointer.");
            free(x);
            return;
        }
    }
    free(x);
    lu_hist_buf_puts(
        b, "No serial order of these calls that respects their real-time order produces these results.");
}

/* Collects what op does in the serial histories that run exactly the
 * completed operations first: gets stuck, or returns (which results). */
struct ex_stuck {
    const struct lu_lin_spec *s;
    uint64_t target;
    unsigned op;
    bool stuck;
    struct ex_vals ret;
};

static void ex_stuck_dfs(struct ex_stuck *x, uint32_t node, uint64_t mask)
{
    if (node == LEAF)
        return;
    const struct lu__node *n = &x->s->nodes[node];
    if (mask == x->target) {
        const struct lu__edge *e = edge_of(n, x->op);
        if (e && e->stuck)
            x->stuck = true;
        else if (e)
            ex_record(&x->ret, &e->res, NULL);
        return;
    }
    for (uint64_t cand = n->kids & x->target & ~mask; cand; cand &= cand - 1) {
        unsigned op = ctz64(cand);
        const struct lu__edge *e = edge_of(n, op);
        if (!e->stuck)
            ex_stuck_dfs(x, e->child, mask | BIT(op));
    }
}

void lu_lin_explain(struct lu_hist_buf *b, const struct lu_lin_spec *s, const struct lu_hist *h,
                    const struct lu_lin_verdict *v)
{
    struct hinfo hi;
    if (v->ok || analyse(s, h, &hi) < 0)
        return;
    int e = v->failing_op;
    if (e < 0 || e >= (int)s->test.nops) {
        explain_full(b, s, h, &hi);
        return;
    }
    struct ex_stuck x = {.s = s, .target = hi.returned & ~BIT(e), .op = (unsigned)e};
    render_who(b, s, (unsigned)e);
    if (!serial_matches(s, NULL, 0, 0, x.target)) {
        lu_hist_buf_puts(b,
                         " is stuck here after the other calls returned, but serially they never all return:"
                         " every serial execution of them gets stuck first.");
        return;
    }
    if (!serial_matches(s, &hi, 0, 0, x.target)) {
        /* the stuck call may only follow from a result no serial execution
         * gives: say so first (an audit's buffer whose take returned a
         * stale slot, and whose put then blocked on a buffer fuller than
         * serially possible, sent the reader to the put) */
        lu_hist_buf_puts(b,
                         " is stuck here, but already the calls that returned have no serial explanation: no"
                         " serial order of them that respects their real-time order gives the results they"
                         " returned here. Look at those results first; the stuck call may only follow from"
                         " them.");
        return;
    }
    ex_stuck_dfs(&x, 0, 0);
    if (x.stuck) {
        lu_hist_buf_puts(b, " is stuck here; serial executions of the completed calls followed by ");
        render_label(b, s, (unsigned)e);
        lu_hist_buf_puts(b,
                         " can get stuck, but none of them matches the results and the real-time order of the"
                         " completed calls.");
        return;
    }
    lu_hist_buf_puts(b, " is stuck here, but no serial execution of the completed calls followed by ");
    render_label(b, s, (unsigned)e);
    lu_hist_buf_puts(b, " gets stuck");
    if (x.ret.n) {
        lu_hist_buf_puts(b, " (there it returns ");
        render_vals(b, &x.ret);
        lu_hist_buf_puts(b, ")");
    }
    lu_hist_buf_puts(b, ".");
}
