/*
 * Unit tests of checker/: histories, the specification trie, the full and
 * stuck linearizability checks (against a brute-force oracle), hitting
 * families and the renderers.
 */
#include "lu_hist.h"
#include "lu_lin.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned n_passed, n_failed;

#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (cond) {                                                                                          \
            n_passed++;                                                                                      \
        } else {                                                                                             \
            n_failed++;                                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                         \
        }                                                                                                    \
    } while (0)

/* Like CHECK, but counts once for a loop of many cases and reports the first
 * failing case only, so a broken oracle comparison cannot flood the log. */
#define CHECK_QUIET(cond, ...)                                                                               \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            if (quiet_fail++ == 0) {                                                                         \
                fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
                fprintf(stderr, __VA_ARGS__);                                                                \
                fputc('\n', stderr);                                                                         \
            }                                                                                                \
        }                                                                                                    \
    } while (0)

static unsigned quiet_fail;

static void quiet_begin(void)
{
    quiet_fail = 0;
}

static void quiet_end(const char *what)
{
    if (quiet_fail)
        fprintf(stderr, "%s: %u failing cases\n", what, quiet_fail);
    CHECK(quiet_fail == 0);
}

/* ---- a tiny deterministic sequential model ---- */

enum mkind { ENQ, TRYDEQ, TAKE, PUSH, POP, WRITE, READ, INC, GET, DEC, TOARRAY };

static const char *const mnames[] = {"enqueue", "try_dequeue", "take", "push", "pop",     "write",
                                     "read",    "inc",         "get",  "dec",  "to_array"};

struct mop {
    enum mkind kind;
    int64_t arg;
};

struct mstate {
    int64_t v[LU_HIST_MAX_OPS];
    unsigned n;
    int64_t reg;
};

struct mres {
    int64_t value;
    unsigned nbytes;
    unsigned char bytes[LU_HIST_MAX_OPS];
};

/* Applies o; false when it blocks (take on an empty queue, dec at zero). */
static bool apply(struct mstate *m, const struct mop *o, struct mres *r)
{
    r->value = 0;
    r->nbytes = 0;
    switch (o->kind) {
    case ENQ:
    case PUSH:
        m->v[m->n++] = o->arg;
        break;
    case TRYDEQ:
    case TAKE:
        if (m->n == 0) {
            if (o->kind == TAKE)
                return false;
            r->value = -1;
            break;
        }
        r->value = m->v[0];
        memmove(m->v, m->v + 1, --m->n * sizeof m->v[0]);
        break;
    case POP:
        r->value = m->n ? m->v[--m->n] : -1;
        break;
    case WRITE:
        m->reg = o->arg;
        break;
    case READ:
    case GET:
        r->value = m->reg;
        break;
    case INC:
        m->reg++;
        break;
    case DEC:
        if (m->reg == 0)
            return false;
        m->reg--;
        break;
    case TOARRAY:
        r->value = m->n;
        r->nbytes = m->n;
        for (unsigned i = 0; i < m->n; i++)
            r->bytes[i] = (unsigned char)m->v[i];
        break;
    }
    return true;
}

static bool mres_eq(const struct mres *a, const struct lu_hist_result *b)
{
    return a->value == b->value && a->nbytes == b->nbytes &&
           (a->nbytes == 0 || memcmp(a->bytes, b->bytes, a->nbytes) == 0);
}

struct desc {
    struct lu_hist_test t;
    struct mop mop[LU_HIST_MAX_OPS];
    unsigned nth;                    /* threads */
    unsigned len[8];                 /* operations per thread */
    unsigned id[8][LU_HIST_MAX_OPS]; /* thread, position -> op id */
};

static void desc_init(struct desc *d)
{
    memset(d, 0, sizeof *d);
}

static int desc_add(struct desc *d, unsigned thread, enum mkind kind, int64_t arg)
{
    char label[48];
    bool has_arg = kind == ENQ || kind == PUSH || kind == WRITE;
    if (has_arg)
        snprintf(label, sizeof label, "%s(%" PRId64 ")", mnames[kind], arg);
    else
        snprintf(label, sizeof label, "%s()", mnames[kind]);
    int id = lu_hist_test_add(&d->t, thread, label);
    if (id < 0)
        return id;
    d->mop[id] = (struct mop){kind, arg};
    if (thread + 1 > d->nth)
        d->nth = thread + 1;
    d->id[thread][d->len[thread]++] = (unsigned)id;
    return id;
}

static int hist_return_mres(struct lu_hist *h, unsigned op, const struct mres *r)
{
    return lu_hist_return(h, op, r->value, r->nbytes ? r->bytes : NULL, r->nbytes);
}

/* Phase 1 by hand: every serial interleaving of the threads, stopping at the
 * first operation that blocks. */
struct specgen {
    const struct desc *d;
    struct lu_lin_spec *s;
    struct lu_hist h;
    unsigned next[8];
    int rc;
    struct lu_hist *out; /* if set, copies of the histories added */
    unsigned nout, maxout;
};

static void specgen_add(struct specgen *g)
{
    int rc = lu_lin_spec_add(g->s, &g->h, NULL);
    if (rc != 0)
        g->rc = rc;
    if (g->out && g->nout < g->maxout) {
        lu_hist_init(&g->out[g->nout]);
        lu_hist_copy(&g->out[g->nout++], &g->h);
    }
}

static void specgen_rec(struct specgen *g, const struct mstate *m)
{
    bool any = false;
    for (unsigned t = 0; t < g->d->nth; t++) {
        if (g->next[t] >= g->d->len[t])
            continue;
        any = true;
        unsigned op = g->d->id[t][g->next[t]];
        struct mstate m2 = *m;
        struct mres r;
        size_t mark = g->h.len;
        lu_hist_call(&g->h, op);
        if (!apply(&m2, &g->d->mop[op], &r)) {
            g->h.stuck = true;
            specgen_add(g);
            g->h.stuck = false;
            g->h.len = mark;
            continue;
        }
        hist_return_mres(&g->h, op, &r);
        g->next[t]++;
        specgen_rec(g, &m2);
        g->next[t]--;
        g->h.len = mark;
    }
    if (!any)
        specgen_add(g);
}

static struct lu_lin_spec *make_spec_out(const struct desc *d, struct lu_hist *out, unsigned maxout,
                                         unsigned *nout)
{
    struct specgen g = {.d = d, .out = out, .maxout = maxout};
    g.s = lu_lin_spec_create(&d->t);
    if (!g.s)
        return NULL;
    lu_hist_init(&g.h);
    struct mstate m = {0};
    specgen_rec(&g, &m);
    lu_hist_free(&g.h);
    if (nout)
        *nout = g.nout;
    if (g.rc != 0) {
        fprintf(stderr, "make_spec: lu_lin_spec_add returned %d\n", g.rc);
        lu_lin_spec_free(g.s);
        return NULL;
    }
    return g.s;
}

static struct lu_lin_spec *make_spec(const struct desc *d)
{
    return make_spec_out(d, NULL, 0, NULL);
}

/* Builds a history from "0[ 2[ ]0 1[ ]2 ]1 3[ ]3 #": "N[" calls op N, "]N"
 * returns it with res[N] (value only), a final "#" marks it stuck. */
static void hist_parse(struct lu_hist *h, const char *text, const int64_t *res)
{
    lu_hist_reset(h);
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        if (*p == '#') {
            h->stuck = true;
            p++;
        } else if (*p == ']') {
            unsigned op = (unsigned)strtoul(p + 1, (char **)&p, 10);
            lu_hist_return(h, op, res[op], NULL, 0);
        } else {
            unsigned op = (unsigned)strtoul(p, (char **)&p, 10);
            if (*p == '[')
                p++;
            lu_hist_call(h, op);
        }
    }
}

static bool contains(const struct lu_hist_buf *b, const char *needle)
{
    bool ok = b->s && strstr(b->s, needle);
    if (!ok)
        fprintf(stderr, "expected \"%s\" in:\n%s\n", needle, b->s ? b->s : "(null)");
    return ok;
}

/* ---- brute-force oracle ---- */

struct hview {
    uint64_t called, returned;
    uint64_t pred[LU_HIST_MAX_OPS];
    const struct lu_hist_result *res[LU_HIST_MAX_OPS];
};

static void hview(const struct lu_hist *h, struct hview *v)
{
    memset(v, 0, sizeof *v);
    for (size_t i = 0; i < h->len; i++) {
        unsigned op = h->ev[i].op;
        if (h->ev[i].kind == LU_HIST_CALL) {
            v->called |= 1ull << op;
            v->pred[op] = v->returned;
        } else {
            v->returned |= 1ull << op;
            v->res[op] = &h->ev[i].res;
        }
    }
}

/* Is there an order of the completed operations respecting real time whose
 * serial run gives their results (and then blocks on stuck_op, if >= 0)? */
static bool brute_rec(const struct desc *d, const struct hview *v, uint64_t used, const struct mstate *m,
                      int stuck_op)
{
    if (used == v->returned) {
        if (stuck_op < 0)
            return true;
        struct mstate m2 = *m;
        struct mres r;
        return !apply(&m2, &d->mop[stuck_op], &r);
    }
    for (unsigned op = 0; op < d->t.nops; op++) {
        if (!(v->returned >> op & 1) || used >> op & 1 || (v->pred[op] & ~used))
            continue;
        struct mstate m2 = *m;
        struct mres r;
        if (!apply(&m2, &d->mop[op], &r) || !mres_eq(&r, v->res[op]))
            continue;
        if (brute_rec(d, v, used | 1ull << op, &m2, stuck_op))
            return true;
    }
    return false;
}

static bool brute_full(const struct desc *d, const struct lu_hist *h)
{
    struct hview v;
    hview(h, &v);
    struct mstate m = {0};
    return brute_rec(d, &v, 0, &m, -1);
}

/* Definition 1 with pending calls: each may be dropped, or completed with
 * whatever result it gets at any point after the calls that returned before
 * it was made. */
static bool brute_pending_rec(const struct desc *d, const struct hview *v, uint64_t used,
                              const struct mstate *m)
{
    if ((used & v->returned) == v->returned)
        return true;
    for (unsigned op = 0; op < d->t.nops; op++) {
        if (!(v->called >> op & 1) || used >> op & 1 || (v->pred[op] & ~used))
            continue;
        struct mstate m2 = *m;
        struct mres r;
        if (!apply(&m2, &d->mop[op], &r) || (v->returned >> op & 1 && !mres_eq(&r, v->res[op])))
            continue;
        if (brute_pending_rec(d, v, used | 1ull << op, &m2))
            return true;
    }
    return false;
}

static bool brute_pending(const struct desc *d, const struct lu_hist *h)
{
    struct hview v;
    hview(h, &v);
    struct mstate m = {0};
    return brute_pending_rec(d, &v, 0, &m);
}

static int brute_stuck(const struct desc *d, const struct lu_hist *h)
{
    struct hview v;
    hview(h, &v);
    uint64_t pending = v.called & ~v.returned;
    for (unsigned e = 0; e < d->t.nops; e++) {
        struct mstate m = {0};
        if (pending >> e & 1 && !brute_rec(d, &v, 0, &m, (int)e))
            return (int)e;
    }
    return -1;
}

/* A witness must be the completed operations in an order that respects real
 * time and replays their results. */
static bool witness_valid(const struct desc *d, const struct lu_hist *h, const struct lu_lin_verdict *v)
{
    struct hview hv;
    hview(h, &hv);
    struct mstate m = {0};
    uint64_t used = 0;
    for (unsigned i = 0; i < v->witness_len; i++) {
        unsigned op = v->witness[i];
        struct mres r;
        if (op >= d->t.nops || used >> op & 1 || (hv.pred[op] & ~used))
            return false;
        if (!apply(&m, &d->mop[op], &r))
            return false;
        if (hv.returned >> op & 1 && !mres_eq(&r, hv.res[op]))
            return false;
        used |= 1ull << op;
    }
    return (used & hv.returned) == hv.returned;
}

/* ---- random tests and histories ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)((rng_state >> 11) % n);
}

static void random_desc(struct desc *d, unsigned max_threads, unsigned max_per_thread)
{
    static const enum mkind fams[][4] = {
        {ENQ, TRYDEQ, TAKE, TOARRAY},
        {PUSH, POP, TOARRAY, POP},
        {WRITE, READ, WRITE, READ},
        {INC, GET, DEC, INC},
    };
    const enum mkind *fam = fams[rnd(4)];
    desc_init(d);
    unsigned nth = 1 + rnd(max_threads);
    for (unsigned t = 0; t < nth; t++) {
        unsigned n = 1 + rnd(max_per_thread);
        for (unsigned k = 0; k < n; k++)
            desc_add(d, t, fam[rnd(4)], 1 + rnd(3));
    }
}

/* A random 3x3 test and its specification, for the loops over random
 * objects below; NULL (a failed check) when the specification cannot be
 * built. */
static struct lu_lin_spec *random_spec(struct desc *d)
{
    random_desc(d, 3, 3);
    struct lu_lin_spec *s = make_spec(d);
    CHECK_QUIET(s != NULL, "make_spec");
    return s;
}

/* A concurrent history: each operation takes effect atomically at a random
 * moment between its call and return, so the history is linearizable unless
 * perturbed afterwards. Ends stuck when only blocked calls remain. */
static void random_history(const struct desc *d, struct lu_hist *h, bool allow_early_stop)
{
    unsigned next[8] = {0}, phase[8] = {0}, cur[8] = {0};
    struct mres pend[8];
    struct mstate m = {0};
    lu_hist_reset(h);
    for (;;) {
        unsigned acts[16], nacts = 0;
        for (unsigned t = 0; t < d->nth; t++) {
            if (phase[t] == 0 && next[t] < d->len[t])
                acts[nacts++] = t;
            else if (phase[t] == 1) {
                struct mstate m2 = m;
                struct mres r;
                if (apply(&m2, &d->mop[cur[t]], &r))
                    acts[nacts++] = t;
            } else if (phase[t] == 2) {
                acts[nacts++] = t;
            }
        }
        if (nacts == 0)
            break;
        if (allow_early_stop && rnd(40) == 0)
            break;
        unsigned t = acts[rnd(nacts)];
        if (phase[t] == 0) {
            cur[t] = d->id[t][next[t]++];
            lu_hist_call(h, cur[t]);
            phase[t] = 1;
        } else if (phase[t] == 1) {
            apply(&m, &d->mop[cur[t]], &pend[t]);
            phase[t] = 2;
        } else {
            hist_return_mres(h, cur[t], &pend[t]);
            phase[t] = 0;
        }
    }
    h->stuck = lu_hist_pending(h) != 0;
}

/* Changes one returned result (value or bytes). */
static void perturb(struct lu_hist *h)
{
    unsigned nret = 0;
    for (size_t i = 0; i < h->len; i++)
        nret += h->ev[i].kind == LU_HIST_RETURN;
    if (nret == 0)
        return;
    unsigned k = rnd(nret);
    for (size_t i = 0; i < h->len; i++) {
        if (h->ev[i].kind != LU_HIST_RETURN || k-- > 0)
            continue;
        struct lu_hist_result *r = &h->ev[i].res;
        if (r->nbytes && rnd(2))
            ((unsigned char *)r->bytes)[rnd(r->nbytes)] ^= 1u << rnd(3);
        else
            r->value = (int64_t)rnd(5) - 1;
        return;
    }
}

/* ---- tests ---- */

static void test_buf(void)
{
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_hist_buf_puts(&b, "abc");
    lu_hist_buf_printf(&b, "-%d-", 42);
    CHECK(b.s && strcmp(b.s, "abc-42-") == 0 && b.len == 7);
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    lu_hist_buf_printf(&b, "%s|%s", big, big);
    CHECK(b.len == 7 + 999 * 2 + 1 && !b.failed);
    CHECK(b.s[b.len] == '\0' && b.s[7 + 999] == '|' && strlen(b.s) == b.len);
    lu_hist_buf_free(&b);
    CHECK(b.s == NULL && b.len == 0);
}

static void test_hist_basics(void)
{
    struct lu_hist_test t = {0};
    CHECK(lu_hist_test_add(&t, 0, "a()") == 0);
    CHECK(lu_hist_test_add(&t, 2, "b()") == 1);
    CHECK(lu_hist_test_add(&t, 0, "c()") == 2);
    CHECK(t.nthreads == 3 && t.nops == 3 && t.ops[2].pos == 1 && t.ops[1].pos == 0 && t.ops[2].thread == 0);
    for (int i = 3; i < LU_HIST_MAX_OPS; i++)
        lu_hist_test_add(&t, 1, "x");
    CHECK(lu_hist_test_add(&t, 1, "overflow") == -1 && t.nops == LU_HIST_MAX_OPS);

    /* Byte results survive arena growth and copies. */
    struct lu_hist h, c;
    lu_hist_init(&h);
    lu_hist_init(&c);
    unsigned char buf[100];
    for (int i = 0; i < 50; i++) {
        for (int k = 0; k < 100; k++)
            buf[k] = (unsigned char)(i * 7 + k);
        CHECK(lu_hist_call(&h, (unsigned)i) == 0);
        CHECK(lu_hist_return(&h, (unsigned)i, i, buf, (size_t)(i % 3 ? 100 : 0)) == 0);
    }
    bool bytes_ok = true;
    for (int i = 0; i < 50; i++) {
        const struct lu_hist_result *r = &h.ev[2 * i + 1].res;
        if (r->nbytes != (i % 3 ? 100u : 0u) || (r->nbytes && (r->bytes[0] != (unsigned char)(i * 7) ||
                                                               r->bytes[99] != (unsigned char)(i * 7 + 99))))
            bytes_ok = false;
    }
    CHECK(bytes_ok);
    /* A result may be copied from the history's own arena. */
    const struct lu_hist_result *own = &h.ev[3].res;
    CHECK(lu_hist_return(&h, 60, 1, own->bytes, own->nbytes) == 0);
    CHECK(lu_hist_result_eq(&(struct lu_hist_result){1, h.ev[3].res.nbytes, h.ev[3].res.bytes},
                            &h.ev[h.len - 1].res));
    CHECK(lu_hist_copy(&c, &h) == 0);
    CHECK(lu_hist_eq(&c, &h) && lu_hist_hash(&c) == lu_hist_hash(&h));
    CHECK(c.ev[3].res.bytes != h.ev[3].res.bytes);
    ((unsigned char *)c.ev[3].res.bytes)[5] ^= 1;
    CHECK(!lu_hist_eq(&c, &h) && lu_hist_hash(&c) != lu_hist_hash(&h));
    c.stuck = true;
    ((unsigned char *)c.ev[3].res.bytes)[5] ^= 1;
    CHECK(!lu_hist_eq(&c, &h) && lu_hist_hash(&c) != lu_hist_hash(&h));
    CHECK(lu_hist_pending(&h) == 0);
    CHECK(!lu_hist_is_serial(&h)); /* the extra return of op 60 */
    lu_hist_reset(&h);
    lu_hist_call(&h, 0);
    lu_hist_return(&h, 0, 0, NULL, 0);
    lu_hist_call(&h, 1);
    CHECK(lu_hist_is_serial(&h) && lu_hist_pending(&h) == 2);
    lu_hist_call(&h, 2);
    CHECK(!lu_hist_is_serial(&h) && lu_hist_pending(&h) == 6);
    /* where two histories part: a result, a prefix, nowhere */
    CHECK(lu_hist_copy(&c, &h) == 0 && lu_hist_divergence(&c, &h) == h.len);
    c.ev[1].res.value = 7;
    CHECK(lu_hist_divergence(&c, &h) == 1 && lu_hist_divergence(&h, &c) == 1);
    c.ev[1].res.value = 0;
    c.len = 3;
    CHECK(lu_hist_divergence(&c, &h) == 3 && lu_hist_divergence(&h, &c) == 3);
    c.len = 4;
    c.ev[3].op = 5;
    CHECK(lu_hist_divergence(&c, &h) == 3);
    CHECK(lu_hist_return(&h, 1, 0, NULL, 3) == -1); /* bytes missing */
    lu_hist_free(&h);
    lu_hist_free(&c);

    struct lu_hist_result a = {5, 2, (const unsigned char *)"ab"}, b = {5, 2, (const unsigned char *)"ac"};
    struct lu_hist_result a2 = {5, 2, (const unsigned char *)"ab"}, v5 = {5, 0, NULL};
    CHECK(lu_hist_result_eq(&a, &a2) && !lu_hist_result_eq(&a, &b) && !lu_hist_result_eq(&a, &v5));
}

/* Counter 1 of the paper (section 2.2.1): inc || inc, then get. */
static void test_counter(void)
{
    struct desc d;
    desc_init(&d);
    int incA = desc_add(&d, 0, INC, 0), get = desc_add(&d, 0, GET, 0), incB = desc_add(&d, 1, INC, 0);
    CHECK(incA == 0 && get == 1 && incB == 2);
    struct lu_lin_spec *s = make_spec(&d);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(lu_lin_spec_full_count(s) == 3 && lu_lin_spec_stuck_count(s) == 0);
    struct lu_hist h;
    lu_hist_init(&h);
    struct lu_lin_verdict v;
    struct lu_lin_stats st = {0};

    int64_t res1[] = {0, 1, 0}, res2[] = {0, 2, 0};
    hist_parse(&h, "0[ 2[ ]0 ]2 1[ ]1", res1);
    CHECK(lu_lin_check_full(s, &h, &v, &st) == 0 && !v.ok);
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_lin_explain(&b, s, &h, &v);
    CHECK(contains(&b,
                   "get() returned 1 in this history, but in every serial history where it runs after inc() "
                   "and inc() completed it returned 2."));
    lu_hist_buf_free(&b);

    hist_parse(&h, "0[ 2[ ]0 ]2 1[ ]1", res2);
    CHECK(lu_lin_check_full(s, &h, &v, &st) == 0 && v.ok && v.witness_len == 3 && witness_valid(&d, &h, &v));
    /* get overlapping the second inc may miss it. */
    hist_parse(&h, "0[ ]0 1[ 2[ ]2 ]1", res1);
    CHECK(lu_lin_check_full(s, &h, &v, &st) == 0 && v.ok && witness_valid(&d, &h, &v));
    CHECK(st.checks == 3 && st.hitting_hits >= 1);
    /* No serial history returns 0 after the thread's own inc. */
    int64_t res0[] = {0, 0, 0};
    hist_parse(&h, "0[ ]0 1[ 2[ ]2 ]1", res0);
    CHECK(lu_lin_check_full(s, &h, &v, &st) == 0 && !v.ok && v.failing_op == -1);
    lu_hist_buf_init(&b);
    lu_lin_explain(&b, s, &h, &v);
    CHECK(contains(&b, "get() returned 0 in this history, but it returned 1 or 2 in every serial execution"));
    CHECK(!contains(&b, "looks like an address"));
    lu_hist_buf_free(&b);
    /* A result that looks like a pointer: say so (a harness mistake). */
    int64_t resp[] = {0, 0x7f0012345678, 0};
    hist_parse(&h, "0[ ]0 1[ 2[ ]2 ]1", resp);
    CHECK(lu_lin_check_full(s, &h, &v, &st) == 0 && !v.ok);
    lu_hist_buf_init(&b);
    lu_lin_explain(&b, s, &h, &v);
    CHECK(contains(&b, "get() returned 139638282147448 in this history"));
    CHECK(contains(&b, "That result looks like an address, which changes from one execution to the next"));
    lu_hist_buf_free(&b);
    /* ... but not a pair of 32-bit halves packed into one result (1, 0) */
    int64_t resq[] = {0, (int64_t)1 << 32, 0};
    hist_parse(&h, "0[ ]0 1[ 2[ ]2 ]1", resq);
    CHECK(lu_lin_check_full(s, &h, &v, &st) == 0 && !v.ok);
    lu_hist_buf_init(&b);
    lu_lin_explain(&b, s, &h, &v);
    CHECK(contains(&b, "get() returned 4294967296 in this history"));
    CHECK(!contains(&b, "looks like an address"));
    lu_hist_buf_free(&b);
    lu_hist_free(&h);
    lu_lin_spec_free(s);
}

/* The queue of the paper's Figures 1 and 7. */
static void test_queue_fig7(void)
{
    struct desc d;
    desc_init(&d);
    desc_add(&d, 0, ENQ, 200);
    desc_add(&d, 0, ENQ, 400);
    desc_add(&d, 1, TAKE, 0);
    desc_add(&d, 1, TRYDEQ, 0);
    struct lu_lin_spec *s = make_spec(&d);
    CHECK(s != NULL);
    if (!s)
        return;
    /* Figure 7: three full serial histories and the stuck "3[ #". */
    CHECK(lu_lin_spec_full_count(s) == 3 && lu_lin_spec_stuck_count(s) == 1);
    struct lu_hist h;
    lu_hist_init(&h);
    struct lu_lin_verdict v;

    int64_t fail[] = {0, 0, 200, -1}, ok400[] = {0, 0, 200, 400};
    hist_parse(&h, "0[ 2[ ]0 1[ ]2 ]1 3[ ]3", fail);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == 0 && !v.ok);
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_lin_explain(&b, s, &h, &v);
    CHECK(contains(&b, "try_dequeue() returned -1 in this history, but in every serial history where it runs "
                       "after enqueue(400) and take() completed it returned 400."));
    lu_hist_buf_free(&b);

    /* The group: the agreeing (observation group) history first. */
    lu_hist_buf_init(&b);
    lu_lin_spec_render_group(&b, s, &h, -1, 2);
    CHECK(contains(&b, "    enqueue(200)->0 take()->200 try_dequeue()->-1 enqueue(400)->0\n"));
    CHECK(b.s && strncmp(b.s, "    enqueue(200)->0 take()->200 try_dequeue()->-1", 49) == 0);
    CHECK(contains(&b, "    ... and 1 more\n"));
    lu_hist_buf_free(&b);

    hist_parse(&h, "0[ 2[ ]0 1[ ]2 ]1 3[ ]3", ok400);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == 0 && v.ok && witness_valid(&d, &h, &v));
    hist_parse(&h, "0[ 2[ ]0 ]2 3[ ]3 1[ ]1", fail);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == 0 && v.ok && witness_valid(&d, &h, &v));
    CHECK(v.witness_len == 4 && v.witness[3] == 1);
    /* try_dequeue() overlapping enqueue(400) may see it or not. */
    hist_parse(&h, "0[ ]0 2[ ]2 3[ 1[ ]1 ]3", fail);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == 0 && v.ok && witness_valid(&d, &h, &v));
    hist_parse(&h, "0[ ]0 2[ ]2 3[ 1[ ]1 ]3", ok400);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == 0 && v.ok && witness_valid(&d, &h, &v));

    /* Malformed: thread order broken, unknown op, double return. */
    hist_parse(&h, "1[ ]1 0[ ]0 2[ ]2 3[ ]3", ok400);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == -2);
    hist_parse(&h, "0[ ]0 7[ ]7", (int64_t[8]){0});
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == -2);
    hist_parse(&h, "0[ ]0 ]0", ok400);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == -2);

    /* Definition 1 completes pending calls: take() can only have returned
     * 200 if enqueue(200), still pending, took effect. */
    int64_t r[] = {0, 0, 200, 0};
    hist_parse(&h, "0[ 2[ ]2", r);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == 0 && v.ok && v.witness_len == 2 && v.witness[0] == 0);
    r[2] = 400;
    hist_parse(&h, "0[ 2[ ]2", r);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == 0 && !v.ok);
    lu_hist_free(&h);
    lu_lin_spec_free(s);
}

static void test_stuck(void)
{
    struct desc d;
    desc_init(&d);
    desc_add(&d, 0, ENQ, 200);
    desc_add(&d, 1, TAKE, 0);
    struct lu_lin_spec *s = make_spec(&d);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(lu_lin_spec_full_count(s) == 1 && lu_lin_spec_stuck_count(s) == 1);
    struct lu_hist h;
    lu_hist_init(&h);
    struct lu_lin_verdict v;
    int64_t r[] = {0, 0};

    hist_parse(&h, "0[ ]0 1[ #", r);
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == 0 && !v.ok && v.failing_op == 1);
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_lin_explain(&b, s, &h, &v);
    CHECK(contains(&b,
                   "take() is stuck here, but no serial execution of the completed calls followed by take() "
                   "gets stuck (there it returns 200)."));
    lu_hist_buf_free(&b);
    lu_hist_buf_init(&b);
    lu_hist_render_timeline(&b, &d.t, &h);
    CHECK(contains(&b, "stuck: take() in thread 1 never returned\n"));
    lu_hist_buf_free(&b);
    lu_hist_buf_init(&b);
    lu_lin_spec_render_group(&b, s, &h, 1, 10);
    /* no serial history gets stuck there (that is the finding): the group
     * shows what the pending call does serially instead */
    CHECK(contains(&b, "(no serial history gets stuck there; serially the pending call returns:)"));
    CHECK(contains(&b, "take()->200\n"));
    CHECK(b.s && !strstr(b.s, "(no serial history of these calls was observed)"));
    lu_hist_buf_free(&b);

    /* take() called first; the enqueue completing later still must wake it. */
    hist_parse(&h, "1[ 0[ ]0 #", r);
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == 0 && !v.ok && v.failing_op == 1);
    /* Nothing enqueued: blocking is right. */
    hist_parse(&h, "1[ #", r);
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == 0 && v.ok && v.failing_op == -1);
    lu_hist_buf_init(&b);
    lu_lin_spec_render_group(&b, s, &h, 1, 10);
    CHECK(b.s && strcmp(b.s, "    take() #\n") == 0);
    lu_hist_buf_free(&b);
    /* Hung with no call pending: the results are checked as in a full one. */
    hist_parse(&h, "0[ ]0 1[ ]1 #", (int64_t[]){0, 200});
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == 0 && v.ok && v.failing_op == -1 && v.witness_len == 2);
    hist_parse(&h, "0[ ]0 1[ ]1 #", (int64_t[]){0, 300});
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == 0 && !v.ok && v.failing_op == -1);
    hist_parse(&h, "1[ ]1", (int64_t[]){0, 300}); /* take() returned on an empty queue */
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == 0 && !v.ok);
    hist_parse(&h, "1[ ]1 ]1 #", (int64_t[]){0, 300}); /* returned twice */
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == -2 && !v.ok);
    lu_lin_spec_free(s);

    /* Two blocked takes: each needs its own stuck witness. */
    desc_init(&d);
    desc_add(&d, 0, TAKE, 0);
    desc_add(&d, 1, TAKE, 0);
    desc_add(&d, 2, ENQ, 5);
    s = make_spec(&d);
    CHECK(s != NULL);
    if (!s) {
        lu_hist_free(&h);
        return;
    }
    int64_t r3[] = {0, 0, 0};
    hist_parse(&h, "0[ 1[ #", r3);
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == 0 && v.ok);
    hist_parse(&h, "0[ 1[ 2[ ]2 #", r3);
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == 0 && !v.ok && v.failing_op == 0);
    /* One take got the element, the other is rightly stuck. */
    int64_t r4[] = {5, 0, 0};
    hist_parse(&h, "0[ 1[ 2[ ]2 ]0 #", r4);
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == 0 && v.ok);
    /* ... but not if it got something never enqueued. */
    r4[0] = 6;
    hist_parse(&h, "0[ 1[ 2[ ]2 ]0 #", r4);
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == 0 && !v.ok && v.failing_op == 1);
    lu_hist_buf_init(&b);
    lu_lin_explain(&b, s, &h, &v);
    /* the completed take's 6 is what no serial execution gives: said first */
    CHECK(contains(&b,
                   "take() (thread 1's) is stuck here, but already the calls that returned have no serial "
                   "explanation"));
    lu_hist_buf_free(&b);
    lu_lin_spec_free(s);

    /* Two takes and nothing enqueued: serially the calls never all return,
     * so the report shows where they stick, each line once (the two takes
     * read the same), and says that is the reason. */
    desc_init(&d);
    desc_add(&d, 0, TAKE, 0);
    desc_add(&d, 1, TAKE, 0);
    s = make_spec(&d);
    CHECK(s != NULL && lu_lin_spec_full_count(s) == 0);
    if (!s) {
        lu_hist_free(&h);
        return;
    }
    hist_parse(&h, "0[ ]0 1[ ]1", (int64_t[]){7, 7});
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == 0 && !v.ok);
    lu_hist_buf_init(&b);
    lu_lin_spec_render_group(&b, s, &h, -1, 10);
    CHECK(b.s && strcmp(b.s, "    (every serial execution of the calls gets stuck before they all return:)\n"
                             "    take() #\n") == 0);
    lu_hist_buf_free(&b);
    lu_hist_buf_init(&b);
    lu_lin_explain(&b, s, &h, &v);
    CHECK(contains(&b,
                   "Every serial execution of these calls gets stuck before they all return, but here they"
                   " all returned."));
    lu_hist_buf_free(&b);
    /* the same when one of them is stuck after the other returned */
    hist_parse(&h, "0[ ]0 1[ #", (int64_t[]){7, 0});
    CHECK(lu_lin_check_stuck(s, &h, &v, NULL) == 0 && !v.ok && v.failing_op == 1);
    lu_hist_buf_init(&b);
    lu_lin_spec_render_group(&b, s, &h, 1, 10);
    CHECK(contains(&b, "(every serial execution of the completed calls gets stuck before they all return:)\n"
                       "    take() #\n"));
    CHECK(!strstr(b.s, "no serial history gets stuck there") && !strstr(b.s, "was observed"));
    lu_hist_buf_free(&b);
    lu_hist_buf_init(&b);
    lu_lin_explain(&b, s, &h, &v);
    CHECK(contains(
        &b, "take() (thread 1's) is stuck here after the other calls returned, but serially they never all "
            "return"));
    lu_hist_buf_free(&b);
    lu_hist_free(&h);
    lu_lin_spec_free(s);
}

static void add_serial(struct lu_hist *h, const unsigned *ops, const int64_t *vals, unsigned n, bool stuck)
{
    lu_hist_reset(h);
    for (unsigned i = 0; i < n; i++) {
        lu_hist_call(h, ops[i]);
        if (i + 1 < n || !stuck)
            lu_hist_return(h, ops[i], vals[i], NULL, 0);
    }
    h->stuck = stuck;
}

static void test_nondeterminism(void)
{
    struct lu_hist_test t = {0};
    lu_hist_test_add(&t, 0, "a()");
    lu_hist_test_add(&t, 0, "b()");
    lu_hist_test_add(&t, 1, "c()");
    struct lu_lin_spec *s = lu_lin_spec_create(&t);
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(lu_lin_spec_test(s)->nops == 3 && strcmp(lu_lin_spec_test(s)->ops[2].label, "c()") == 0);
    struct lu_hist h, first, conflict;
    lu_hist_init(&h);
    lu_hist_init(&first);
    lu_hist_init(&conflict);

    add_serial(&first, (unsigned[]){0, 2, 1}, (int64_t[]){1, 2, 3}, 3, false);
    CHECK(lu_lin_spec_add(s, &first, &conflict) == 0);
    CHECK(lu_lin_spec_add(s, &first, &conflict) == 0); /* duplicate */
    add_serial(&h, (unsigned[]){0, 1, 2}, (int64_t[]){1, 5, 6}, 3, false);
    CHECK(lu_lin_spec_add(s, &h, &conflict) == 0); /* differs only after a different call */
    CHECK(lu_lin_spec_full_count(s) == 2);
    add_serial(&h, (unsigned[]){2, 0}, (int64_t[]){9, 0}, 2, true);
    CHECK(lu_lin_spec_add(s, &h, &conflict) == 0 && lu_lin_spec_stuck_count(s) == 1);
    CHECK(lu_lin_spec_add(s, &h, &conflict) == 0 && lu_lin_spec_stuck_count(s) == 1);

    /* c() returns 2 after a() in the first history, 7 here. */
    add_serial(&h, (unsigned[]){0, 2, 1}, (int64_t[]){1, 7, 3}, 3, false);
    lu_hist_reset(&conflict);
    CHECK(lu_lin_spec_add(s, &h, &conflict) == 1);
    CHECK(lu_hist_eq(&conflict, &first));
    CHECK(lu_lin_spec_full_count(s) == 2);
    /* Returned there, stuck here. */
    add_serial(&h, (unsigned[]){0, 2}, (int64_t[]){1, 0}, 2, true);
    CHECK(lu_lin_spec_add(s, &h, &conflict) == 1 && lu_hist_eq(&conflict, &first));
    /* Stuck there, returned here. */
    add_serial(&h, (unsigned[]){2, 0, 1}, (int64_t[]){9, 0, 0}, 3, false);
    struct lu_hist stuck_one;
    lu_hist_init(&stuck_one);
    add_serial(&stuck_one, (unsigned[]){2, 0}, (int64_t[]){9, 0}, 2, true);
    CHECK(lu_lin_spec_add(s, &h, &conflict) == 1 && lu_hist_eq(&conflict, &stuck_one));
    CHECK(lu_lin_spec_add(s, &h, NULL) == 1);
    /* The first op already differs. */
    add_serial(&h, (unsigned[]){0, 1, 2}, (int64_t[]){4, 5, 6}, 3, false);
    CHECK(lu_lin_spec_add(s, &h, &conflict) == 1 && conflict.len == 6 && conflict.ev[1].res.value == 1);
    CHECK(lu_lin_spec_full_count(s) == 2 && lu_lin_spec_stuck_count(s) == 1);

    /* Not serial / not of this test: -2. */
    lu_hist_reset(&h);
    lu_hist_call(&h, 0);
    lu_hist_call(&h, 2);
    lu_hist_return(&h, 0, 1, NULL, 0);
    lu_hist_return(&h, 2, 2, NULL, 0);
    lu_hist_call(&h, 1);
    lu_hist_return(&h, 1, 3, NULL, 0);
    CHECK(lu_lin_spec_add(s, &h, &conflict) == -2);
    add_serial(&h, (unsigned[]){1, 0, 2}, (int64_t[]){1, 1, 1}, 3, false); /* b() before a() */
    CHECK(lu_lin_spec_add(s, &h, &conflict) == -2);
    add_serial(&h, (unsigned[]){0, 2}, (int64_t[]){1, 2}, 2, false); /* incomplete, not stuck */
    CHECK(lu_lin_spec_add(s, &h, &conflict) == -2);
    add_serial(&h, (unsigned[]){0, 2, 1}, (int64_t[]){1, 2, 3}, 3, false);
    h.stuck = true; /* stuck without a pending call */
    CHECK(lu_lin_spec_add(s, &h, &conflict) == -2);

    /* Nondeterminism in the bytes only. */
    struct lu_hist_test t2 = {0};
    lu_hist_test_add(&t2, 0, "snap()");
    struct lu_lin_spec *s2 = lu_lin_spec_create(&t2);
    CHECK(s2 != NULL);
    if (s2) {
        lu_hist_reset(&h);
        lu_hist_call(&h, 0);
        lu_hist_return(&h, 0, 0, "ab", 2);
        CHECK(lu_lin_spec_add(s2, &h, NULL) == 0);
        h.len = 1;
        lu_hist_return(&h, 0, 0, "ac", 2);
        CHECK(lu_lin_spec_add(s2, &h, &conflict) == 1 && conflict.ev[1].res.nbytes == 2 &&
              memcmp(conflict.ev[1].res.bytes, "ab", 2) == 0);
        lu_lin_spec_free(s2);
    }

    /* A test without operations has exactly one (empty) full history. */
    struct lu_hist_test t0 = {0};
    struct lu_lin_spec *s0 = lu_lin_spec_create(&t0);
    CHECK(s0 != NULL);
    if (s0) {
        lu_hist_reset(&h);
        CHECK(lu_lin_spec_add(s0, &h, NULL) == 0 && lu_lin_spec_add(s0, &h, NULL) == 0 &&
              lu_lin_spec_full_count(s0) == 1);
        struct lu_lin_verdict v;
        CHECK(lu_lin_check_full(s0, &h, &v, NULL) == 0 && v.ok && v.witness_len == 0);
        lu_lin_spec_free(s0);
    }
    lu_hist_free(&h);
    lu_hist_free(&first);
    lu_hist_free(&conflict);
    lu_hist_free(&stuck_one);
    lu_lin_spec_free(s);
}

static void test_bytes(void)
{
    struct desc d;
    desc_init(&d);
    desc_add(&d, 0, ENQ, 1);
    desc_add(&d, 1, ENQ, 2);
    desc_add(&d, 2, TOARRAY, 0);
    struct lu_lin_spec *s = make_spec(&d);
    CHECK(s != NULL);
    if (!s)
        return;
    struct lu_hist h;
    lu_hist_init(&h);
    struct lu_lin_verdict v;
    /* Both enqueues overlap to_array(), which saw [2, 1]: enqueue(2) first. */
    lu_hist_call(&h, 2);
    lu_hist_call(&h, 0);
    lu_hist_call(&h, 1);
    lu_hist_return(&h, 1, 0, NULL, 0);
    lu_hist_return(&h, 0, 0, NULL, 0);
    lu_hist_return(&h, 2, 2, "\x02\x01", 2);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == 0 && v.ok && witness_valid(&d, &h, &v));
    /* Same value, bytes no order gives. */
    h.len = 5;
    lu_hist_return(&h, 2, 2, "\x02\x02", 2);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == 0 && !v.ok);
    /* Right bytes but enqueue(1) returned before enqueue(2) was called. */
    lu_hist_reset(&h);
    lu_hist_call(&h, 2);
    lu_hist_call(&h, 0);
    lu_hist_return(&h, 0, 0, NULL, 0);
    lu_hist_call(&h, 1);
    lu_hist_return(&h, 1, 0, NULL, 0);
    lu_hist_return(&h, 2, 2, "\x02\x01", 2);
    CHECK(lu_lin_check_full(s, &h, &v, NULL) == 0 && !v.ok);
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_lin_explain(&b, s, &h, &v);
    CHECK(contains(&b,
                   "to_array() returned 2 [0201] in this history, but it returned 0, 1 [01] or 2 [0102] in "
                   "every serial history that respects the real-time order of the calls."));
    lu_hist_buf_free(&b);
    lu_hist_free(&h);
    lu_lin_spec_free(s);
}

static void test_render(void)
{
    struct lu_hist_test t = {0};
    lu_hist_test_add(&t, 0, "enqueue(200)");
    lu_hist_test_add(&t, 1, "try_dequeue()");
    struct lu_hist h;
    lu_hist_init(&h);
    lu_hist_call(&h, 0);
    lu_hist_call(&h, 1);
    lu_hist_return(&h, 0, 0, NULL, 0);
    lu_hist_return(&h, 1, -1, NULL, 0);
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    lu_hist_render_timeline(&b, &t, &h);
    const char *want = "       thread 0                thread 1\n"
                       "    1  enqueue(200) ...\n"
                       "    2                          try_dequeue() ...\n"
                       "    3  ... -> 0\n"
                       "    4                          ... -> -1\n";
    CHECK(b.s && strcmp(b.s, want) == 0);
    if (b.s && strcmp(b.s, want) != 0)
        fprintf(stderr, "timeline:\n%s", b.s);
    CHECK(!strstr(b.s ? b.s : "", "stuck"));
    lu_hist_buf_free(&b);

    /* Long cells widen their column; rows stay aligned. */
    struct lu_hist_test t2 = {0};
    lu_hist_test_add(&t2, 0, "a_rather_long_operation_name(12345)");
    lu_hist_test_add(&t2, 1, "x()");
    lu_hist_reset(&h);
    lu_hist_call(&h, 0);
    lu_hist_call(&h, 1);
    lu_hist_buf_init(&b);
    lu_hist_render_timeline(&b, &t2, &h);
    const char *l1 = b.s ? strstr(b.s, "    1  ") : NULL, *l2 = b.s ? strstr(b.s, "    2  ") : NULL;
    CHECK(l1 && l2 && strchr(l2, 'x') - l2 == 7 + 35 + 4 + 2);
    CHECK(contains(&b, "pending: a_rather_long_operation_name(12345) in thread 0 and x() in thread 1 never "
                       "returned\n"));
    lu_hist_buf_free(&b);

    /* Serial rendering, stuck marker, bytes as hex. */
    struct lu_hist_test t3 = {0};
    lu_hist_test_add(&t3, 0, "enqueue(200)");
    lu_hist_test_add(&t3, 0, "try_dequeue()");
    lu_hist_test_add(&t3, 0, "take()");
    lu_hist_reset(&h);
    lu_hist_call(&h, 0);
    lu_hist_return(&h, 0, 0, NULL, 0);
    lu_hist_call(&h, 1);
    lu_hist_return(&h, 1, 200, NULL, 0);
    lu_hist_call(&h, 2);
    h.stuck = true;
    lu_hist_buf_init(&b);
    lu_hist_render_serial(&b, &t3, &h);
    CHECK(b.s && strcmp(b.s, "enqueue(200)->0 try_dequeue()->200 take() #") == 0);
    lu_hist_buf_free(&b);

    unsigned char big[40];
    for (int i = 0; i < 40; i++)
        big[i] = (unsigned char)i;
    struct lu_hist_result r = {7, 3, (const unsigned char *)"\x01\xab\x00"};
    lu_hist_buf_init(&b);
    lu_hist_render_result(&b, &r);
    CHECK(b.s && strcmp(b.s, "7 [01ab00]") == 0);
    b.len = 0;
    r = (struct lu_hist_result){-3, 40, big};
    lu_hist_render_result(&b, &r);
    CHECK(b.s && strncmp(b.s, "-3 [000102", 10) == 0 && strstr(b.s, "1e1f... 40 bytes, hash "));
    /* long results equal in their first 32 bytes still read differently */
    struct lu_hist_buf b2;
    lu_hist_buf_init(&b2);
    big[39] = 0xff;
    lu_hist_render_result(&b2, &r);
    CHECK(b2.s && b.s && strlen(b2.s) == strlen(b.s) && strcmp(b2.s, b.s) != 0);
    lu_hist_buf_free(&b2);
    lu_hist_buf_free(&b);
    lu_hist_free(&h);
}

/* ---- oracle cross-checks ---- */

static void test_cross_full(void)
{
    unsigned cases = 0, lin = 0, nonlin = 0;
    struct lu_lin_stats st = {0};
    struct lu_hist h;
    lu_hist_init(&h);
    quiet_begin();
    for (int spec_i = 0; spec_i < 400; spec_i++) {
        struct desc d;
        struct lu_lin_spec *s = random_spec(&d);
        if (!s)
            continue;
        for (int k = 0; k < 12; k++) {
            random_history(&d, &h, false);
            if (h.stuck)
                continue;
            if (rnd(2))
                perturb(&h);
            struct lu_lin_verdict v;
            int rc = lu_lin_check_full(s, &h, &v, &st);
            bool want = brute_full(&d, &h);
            cases++;
            want ? lin++ : nonlin++;
            CHECK_QUIET(rc == 0 && v.ok == want, "case %u: checker %d, oracle %d", cases, v.ok, want);
            if (v.ok)
                CHECK_QUIET(witness_valid(&d, &h, &v), "case %u: bad witness", cases);
        }
        lu_lin_spec_free(s);
    }
    quiet_end("cross full");
    fprintf(stderr,
            "cross full: %u cases (%u linearizable, %u not), %" PRIu64 " hitting hits, %" PRIu64
            " search nodes\n",
            cases, lin, nonlin, st.hitting_hits, st.search_nodes);
    CHECK(cases > 2000 && lin > 500 && nonlin > 500);
    CHECK(st.checks == cases && st.hitting_hits > 0 && st.hitting_hits <= lin);
    lu_hist_free(&h);
}

/* Histories cut short (not stuck): pending calls are optional. */
static void test_cross_pending(void)
{
    unsigned cases = 0, lin = 0;
    struct lu_hist h;
    lu_hist_init(&h);
    quiet_begin();
    for (int spec_i = 0; spec_i < 200; spec_i++) {
        struct desc d;
        struct lu_lin_spec *s = random_spec(&d);
        if (!s)
            continue;
        for (int k = 0; k < 12; k++) {
            random_history(&d, &h, true);
            if (!lu_hist_pending(&h))
                continue;
            h.stuck = false;
            if (rnd(2))
                perturb(&h);
            struct lu_lin_verdict v;
            int rc = lu_lin_check_full(s, &h, &v, NULL);
            bool want = brute_pending(&d, &h);
            cases++;
            lin += want;
            CHECK_QUIET(rc == 0 && v.ok == want, "case %u: checker %d, oracle %d", cases, v.ok, want);
            if (v.ok)
                CHECK_QUIET(witness_valid(&d, &h, &v), "case %u: bad witness", cases);
        }
        lu_lin_spec_free(s);
    }
    quiet_end("cross pending");
    CHECK(cases > 500 && lin > 100 && cases - lin > 100);
    lu_hist_free(&h);
}

/* The hitting depth changes the work, never the verdict. */
static void test_hitting_depth(void)
{
    struct lu_hist h;
    lu_hist_init(&h);
    struct lu_lin_stats st[3] = {{0}};
    quiet_begin();
    for (int spec_i = 0; spec_i < 100; spec_i++) {
        struct desc d;
        struct lu_lin_spec *s = random_spec(&d);
        if (!s)
            continue;
        for (int k = 0; k < 10; k++) {
            random_history(&d, &h, false);
            if (h.stuck)
                continue;
            if (rnd(2))
                perturb(&h);
            bool ok[3];
            for (unsigned dd = 0; dd < 3; dd++) {
                struct lu_lin_verdict v;
                lu_lin_spec_set_hitting_depth(s, dd);
                lu_lin_check_full(s, &h, &v, &st[dd]);
                ok[dd] = v.ok;
            }
            CHECK_QUIET(ok[0] == ok[1] && ok[1] == ok[2], "verdicts %d %d %d", ok[0], ok[1], ok[2]);
        }
        lu_lin_spec_free(s);
    }
    quiet_end("hitting depth");
    CHECK(st[0].hitting_hits == 0 && st[1].hitting_hits > 0 && st[2].hitting_hits >= st[1].hitting_hits);
    CHECK(st[0].checks == st[2].checks && st[0].search_nodes > st[2].search_nodes);
    lu_hist_free(&h);
}

static void test_cross_stuck(void)
{
    unsigned cases = 0, good = 0, bad = 0;
    struct lu_hist h;
    lu_hist_init(&h);
    quiet_begin();
    for (int spec_i = 0; spec_i < 400; spec_i++) {
        struct desc d;
        desc_init(&d);
        /* Queues with blocking takes, or semaphores. */
        bool sem = rnd(2);
        unsigned nth = 2 + rnd(2);
        for (unsigned t = 0; t < nth; t++)
            for (unsigned k = 0, n = 1 + rnd(3); k < n; k++) {
                if (sem)
                    desc_add(&d, t, rnd(2) ? DEC : (rnd(2) ? INC : GET), 0);
                else
                    desc_add(&d, t, rnd(2) ? TAKE : (rnd(3) ? ENQ : TRYDEQ), 1 + rnd(2));
            }
        struct lu_lin_spec *s = make_spec(&d);
        CHECK_QUIET(s != NULL, "make_spec");
        if (!s)
            continue;
        for (int k = 0; k < 12; k++) {
            random_history(&d, &h, true);
            if (!lu_hist_pending(&h))
                continue;
            h.stuck = true;
            if (rnd(3) == 0)
                perturb(&h);
            struct lu_lin_verdict v;
            int rc = lu_lin_check_stuck(s, &h, &v, NULL);
            int want = brute_stuck(&d, &h);
            cases++;
            want < 0 ? good++ : bad++;
            CHECK_QUIET(rc == 0 && v.ok == (want < 0) && v.failing_op == want,
                        "case %u: checker ok %d failing %d, oracle %d", cases, v.ok, v.failing_op, want);
        }
        lu_lin_spec_free(s);
    }
    quiet_end("cross stuck");
    fprintf(stderr, "cross stuck: %u cases (%u linearizable, %u not)\n", cases, good, bad);
    CHECK(cases > 1000 && good > 200 && bad > 200);
    lu_hist_free(&h);
}

/* Histories that differ only in the order of consecutive calls, or of
 * consecutive returns, have the same real-time order and results: the
 * driver checks one of them (lu_hist_hash_canon), so they must get the same
 * verdict, and a call moved across a return must not be mistaken for one. */
static void test_canon(void)
{
    unsigned cases = 0, swaps = 0, crossings = 0;
    struct lu_hist h, g;
    lu_hist_init(&h);
    lu_hist_init(&g);
    quiet_begin();
    for (int spec_i = 0; spec_i < 300; spec_i++) {
        struct desc d;
        struct lu_lin_spec *s = random_spec(&d);
        if (!s)
            continue;
        for (int k = 0; k < 12; k++) {
            random_history(&d, &h, true);
            bool stuck = lu_hist_pending(&h) && rnd(2);
            h.stuck = stuck;
            if (rnd(2))
                perturb(&h);
            CHECK_QUIET(lu_hist_copy(&g, &h) == 0, "copy");
            unsigned n = 0;
            for (int r = 0; r < 8 && g.len > 1; r++) {
                size_t i = rnd((uint32_t)g.len - 1);
                if (g.ev[i].kind != g.ev[i + 1].kind)
                    continue;
                struct lu_hist_event e = g.ev[i];
                g.ev[i] = g.ev[i + 1];
                g.ev[i + 1] = e;
                n++;
            }
            if (!n)
                continue;
            cases++;
            swaps += n;
            CHECK_QUIET(lu_hist_hash_canon(&g) == lu_hist_hash_canon(&h), "case %u: canonical hashes differ",
                        cases);
            struct lu_lin_verdict vh, vg;
            int rh, rg;
            if (stuck) {
                rh = lu_lin_check_stuck(s, &h, &vh, NULL);
                rg = lu_lin_check_stuck(s, &g, &vg, NULL);
            } else {
                rh = lu_lin_check_full(s, &h, &vh, NULL);
                rg = lu_lin_check_full(s, &g, &vg, NULL);
            }
            CHECK_QUIET(rh == 0 && rg == 0 && vh.ok == vg.ok, "case %u: verdicts %d and %d", cases, vh.ok,
                        vg.ok);
            /* another result: another history (a value, or one byte) */
            for (size_t i = 0; i < g.len; i++) {
                struct lu_hist_result *r = &g.ev[i].res;
                if (g.ev[i].kind != LU_HIST_RETURN)
                    continue;
                uint64_t before = lu_hist_hash_canon(&g);
                if (r->nbytes)
                    ((unsigned char *)r->bytes)[0] ^= 1;
                else
                    r->value++;
                CHECK_QUIET(lu_hist_hash_canon(&g) != before, "case %u: another result, same canonical hash",
                            cases);
                if (r->nbytes)
                    ((unsigned char *)r->bytes)[0] ^= 1;
                else
                    r->value--;
                break;
            }
            /* a call and the return before it exchanged: another history */
            for (size_t i = 0; i + 1 < g.len; i++) {
                if (g.ev[i].kind == LU_HIST_RETURN && g.ev[i + 1].kind == LU_HIST_CALL) {
                    struct lu_hist_event e = g.ev[i];
                    g.ev[i] = g.ev[i + 1];
                    g.ev[i + 1] = e;
                    crossings++;
                    CHECK_QUIET(lu_hist_hash_canon(&g) != lu_hist_hash_canon(&h),
                                "case %u: a return moved after a call, same canonical hash", cases);
                    break;
                }
            }
        }
        lu_lin_spec_free(s);
    }
    quiet_end("canonical histories");
    fprintf(stderr, "canonical histories: %u cases, %u swaps, %u crossings\n", cases, swaps, crossings);
    CHECK(cases > 1000 && crossings > 500);
    lu_hist_free(&h);
    lu_hist_free(&g);
}

/* ---- hitting families ---- */

int lu__lin_hitting_family(const struct lu_lin_spec *s, const struct lu_hist *h, unsigned d,
                           bool (*fn)(void *arg, const uint8_t *sched, unsigned n), void *arg);

struct family {
    unsigned n;
    uint8_t sched[4096][LU_HIST_MAX_OPS];
    unsigned len;
};

static bool collect(void *arg, const uint8_t *sched, unsigned n)
{
    struct family *f = arg;
    if (f->n < 4096)
        memcpy(f->sched[f->n++], sched, n);
    f->len = n;
    return false;
}

/* y >= x in the history's real-time order (reflexive). */
static bool geq(const struct hview *v, unsigned y, unsigned x)
{
    return y == x || v->pred[y] >> x & 1;
}

/* Definition 4.1 of Ozkan et al. */
static bool strongly_hits(const struct hview *v, const uint8_t *sched, unsigned n, const unsigned *xs,
                          unsigned d)
{
    unsigned pos[LU_HIST_MAX_OPS];
    for (unsigned p = 0; p < n; p++)
        pos[sched[p]] = p;
    for (unsigned i = 0; i < d; i++)
        for (unsigned p = pos[xs[i]]; p < n; p++) {
            bool ok = false;
            for (unsigned j = i; j < d && !ok; j++)
                ok = geq(v, sched[p], xs[j]);
            if (!ok)
                return false;
        }
    return true;
}

static void test_hitting_families(void)
{
    static struct family f;
    struct lu_hist h;
    lu_hist_init(&h);
    unsigned histories = 0;
    quiet_begin();
    for (int i = 0; i < 300; i++) {
        struct desc d;
        desc_init(&d);
        unsigned nth = 1 + rnd(4);
        for (unsigned t = 0; t < nth; t++)
            for (unsigned k = 0, n = 1 + rnd(4); k < n; k++)
                desc_add(&d, t, WRITE, 1);
        struct lu_lin_spec *s = lu_lin_spec_create(&d.t);
        if (!s)
            continue;
        random_history(&d, &h, false);
        struct hview v;
        hview(&h, &v);
        unsigned n = d.t.nops;
        for (unsigned dd = 1; dd <= 2; dd++) {
            f.n = 0;
            CHECK_QUIET(lu__lin_hitting_family(s, &h, dd, collect, &f) == 0, "hook");
            /* Every schedule is a linear extension. */
            for (unsigned k = 0; k < f.n; k++) {
                uint64_t seen = 0;
                for (unsigned p = 0; p < n; p++) {
                    unsigned op = f.sched[k][p];
                    CHECK_QUIET(op < n && !(seen >> op & 1) && !(v.pred[op] & ~seen),
                                "not a linear extension");
                    seen |= 1ull << op;
                }
            }
            /* Every d-tuple is strongly hit by some schedule. */
            for (unsigned a = 0; a < n; a++)
                for (unsigned b = 0; b < (dd == 2 ? n : 1); b++) {
                    if (dd == 2 && a == b)
                        continue;
                    unsigned xs[2] = {a, b};
                    bool hit = false;
                    for (unsigned k = 0; k < f.n && !hit; k++)
                        hit = strongly_hits(&v, f.sched[k], n, xs, dd);
                    CHECK_QUIET(hit, "history %u: %u-tuple (%u, %u) not hit", histories, dd, a, b);
                }
        }
        histories++;
        lu_lin_spec_free(s);
    }
    quiet_end("hitting families");
    lu_hist_free(&h);
}

/* ---- allocation failures ---- */

/* The test is linked with -Wl,--wrap=malloc (and realloc, calloc): every
 * allocation of the test and of the checker code compiled into it comes
 * here, and fails once the budget is spent. */
void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_calloc(size_t n, size_t k);
void *__wrap_malloc(size_t n);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_calloc(size_t n, size_t k);

static long alloc_budget = -1; /* allocations that still succeed; -1: all */

static bool alloc_denied(void)
{
    if (alloc_budget < 0)
        return false;
    if (alloc_budget == 0)
        return true;
    alloc_budget--;
    return false;
}

void *__wrap_malloc(size_t n)
{
    return alloc_denied() ? NULL : __real_malloc(n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return alloc_denied() ? NULL : __real_realloc(p, n);
}

void *__wrap_calloc(size_t n, size_t k)
{
    return alloc_denied() ? NULL : __real_calloc(n, k);
}

static void test_alloc_failures(void)
{
    /* lu_hist_buf: nothing allocated, then a truncated but terminated text. */
    struct lu_hist_buf b;
    lu_hist_buf_init(&b);
    alloc_budget = 0;
    lu_hist_buf_printf(&b, "%d", 1);
    lu_hist_buf_puts(&b, "x");
    alloc_budget = -1;
    CHECK(b.failed && b.s == NULL && b.len == 0);
    lu_hist_buf_free(&b);
    char big[600];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    alloc_budget = 1;
    lu_hist_buf_puts(&b, "abc");
    lu_hist_buf_printf(&b, "%s", big);
    lu_hist_buf_puts(&b, big);
    alloc_budget = -1;
    CHECK(b.failed && b.s && strncmp(b.s, "abcyyy", 6) == 0 && strlen(b.s) == b.len && b.len < b.cap);
    lu_hist_buf_free(&b);

    /* Histories: a failed append changes nothing. */
    struct lu_hist h;
    lu_hist_init(&h);
    alloc_budget = 0;
    CHECK(lu_hist_call(&h, 0) == -1 && h.len == 0);
    alloc_budget = -1;
    unsigned char bytes[300];
    memset(bytes, 7, sizeof bytes);
    CHECK(lu_hist_call(&h, 0) == 0 && lu_hist_return(&h, 0, 1, bytes, 200) == 0);
    alloc_budget = 0;
    CHECK(lu_hist_return(&h, 0, 2, bytes, 300) == -1 && h.len == 2 && h.ev[1].res.bytes[199] == 7);
    struct lu_hist c;
    lu_hist_init(&c);
    CHECK(lu_hist_copy(&c, &h) == -1);
    alloc_budget = -1;
    lu_hist_free(&c);

    /* The spec: every allocation inside lu_lin_spec_add fails in turn; a failed
     * add must leave the trie as it was, so the retry succeeds and the result
     * equals a spec built without failures. */
    struct desc d;
    desc_init(&d);
    desc_add(&d, 0, ENQ, 1);
    desc_add(&d, 0, TOARRAY, 0);
    desc_add(&d, 1, TAKE, 0);
    desc_add(&d, 1, ENQ, 2);
    desc_add(&d, 2, TRYDEQ, 0);
    static struct lu_hist serial[256];
    unsigned nserial = 0;
    struct lu_lin_spec *ref = make_spec_out(&d, serial, 256, &nserial);
    CHECK(ref != NULL && nserial > 10);
    fprintf(stderr, "alloc failures: %u serial histories\n", nserial);
    if (!ref) {
        lu_hist_free(&h);
        return;
    }
    struct lu_lin_spec *s = NULL;
    unsigned create_failures = 0, add_failures = 0;
    for (long k = 0; !s; k++) {
        alloc_budget = k;
        s = lu_lin_spec_create(&d.t);
        alloc_budget = -1;
        create_failures += !s;
    }
    bool adds_ok = true;
    for (unsigned i = 0; i < nserial; i++) {
        int rc;
        for (long k = 0;; k++) {
            alloc_budget = k;
            rc = lu_lin_spec_add(s, &serial[i], NULL);
            alloc_budget = -1;
            if (rc != -1)
                break;
            add_failures++;
        }
        adds_ok &= rc == 0;
    }
    CHECK(create_failures > 0 && add_failures > 0 && adds_ok);
    CHECK(lu_lin_spec_full_count(s) == lu_lin_spec_full_count(ref) &&
          lu_lin_spec_stuck_count(s) == lu_lin_spec_stuck_count(ref));
    quiet_begin();
    for (unsigned i = 0; i < nserial; i++)
        CHECK_QUIET(lu_lin_spec_add(s, &serial[i], NULL) == 0, "history %u not in the trie", i);
    for (int k = 0; k < 300; k++) {
        random_history(&d, &h, true);
        if (rnd(2))
            perturb(&h);
        struct lu_lin_verdict v1, v2;
        if (lu_hist_pending(&h) && h.stuck) {
            lu_lin_check_stuck(ref, &h, &v1, NULL);
            alloc_budget = 0; /* the checks do not allocate */
            lu_lin_check_stuck(s, &h, &v2, NULL);
        } else {
            lu_lin_check_full(ref, &h, &v1, NULL);
            alloc_budget = 0;
            lu_lin_check_full(s, &h, &v2, NULL);
        }
        alloc_budget = -1;
        CHECK_QUIET(v1.ok == v2.ok && v1.failing_op == v2.failing_op, "verdicts differ");
        /* Reports under memory pressure: truncated, never a crash. */
        lu_hist_buf_init(&b);
        alloc_budget = k % 4;
        lu_hist_render_timeline(&b, &d.t, &h);
        lu_lin_spec_render_group(&b, s, &h, v2.failing_op, 3);
        lu_lin_explain(&b, s, &h, &v2);
        alloc_budget = -1;
        CHECK_QUIET(!b.s || strlen(b.s) == b.len, "broken buffer");
        lu_hist_buf_free(&b);
    }
    quiet_end("alloc failures");

    /* A conflict whose copy cannot be made is reported as ENOMEM. */
    struct lu_hist conflict;
    lu_hist_init(&conflict);
    lu_hist_copy(&h, &serial[0]);
    h.ev[1].res.value += 100;
    alloc_budget = 0;
    CHECK(lu_lin_spec_add(s, &h, &conflict) == -1);
    alloc_budget = -1;
    CHECK(lu_lin_spec_add(s, &h, &conflict) == 1 && lu_hist_eq(&conflict, &serial[0]));
    lu_hist_free(&conflict);
    for (unsigned i = 0; i < nserial; i++)
        lu_hist_free(&serial[i]);
    lu_hist_free(&h);
    lu_lin_spec_free(s);
    lu_lin_spec_free(ref);
}

/* ---- speed ---- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A 3x4 queue test: 12 operations, thousands of histories. The bound is
 * loose (sanitizers are on); it catches exponential blow-ups, not cycles. */
static void test_speed(void)
{
    struct desc d;
    desc_init(&d);
    static const enum mkind k[3][4] = {
        {ENQ, TRYDEQ, ENQ, TRYDEQ}, {ENQ, ENQ, TRYDEQ, TRYDEQ}, {TRYDEQ, ENQ, TRYDEQ, ENQ}};
    for (unsigned t = 0; t < 3; t++)
        for (unsigned p = 0; p < 4; p++)
            desc_add(&d, t, k[t][p], 10 * t + p);
    double t0 = now();
    struct lu_lin_spec *s = make_spec(&d);
    double t1 = now();
    CHECK(s != NULL);
    if (!s)
        return;
    CHECK(lu_lin_spec_full_count(s) == 34650);
    struct lu_hist h;
    lu_hist_init(&h);
    struct lu_lin_stats st = {0};
    unsigned nok = 0, n = 3000;
    double spent = 0;
    for (unsigned i = 0; i < n; i++) {
        random_history(&d, &h, false);
        if (i % 2)
            perturb(&h);
        struct lu_lin_verdict v;
        double a = now();
        lu_lin_check_full(s, &h, &v, &st);
        spent += now() - a;
        nok += v.ok;
    }
    fprintf(stderr,
            "speed: spec of 12 ops in %.1f ms; %u checks (%u ok) in %.1f us each, %.1f search nodes each\n",
            (t1 - t0) * 1e3, n, nok, spent / n * 1e6, (double)st.search_nodes / n);
    CHECK(spent / n < 2e-3);
    lu_hist_free(&h);
    lu_lin_spec_free(s);
}

int main(void)
{
    test_buf();
    test_hist_basics();
    test_counter();
    test_queue_fig7();
    test_stuck();
    test_nondeterminism();
    test_bytes();
    test_render();
    test_cross_full();
    test_canon();
    test_cross_stuck();
    test_cross_pending();
    test_hitting_depth();
    test_hitting_families();
    test_alloc_failures();
    test_speed();
    printf("%u passed, %u failed\n", n_passed, n_failed);
    return n_failed != 0;
}
