/*
 * lu_hist: tests, histories, text buffers and the history renderers.
 */
#include "lu_hist.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- growable text buffer ---- */

void lu_hist_buf_init(struct lu_hist_buf *b)
{
    b->s = NULL;
    b->len = 0;
    b->cap = 0;
    b->failed = false;
}

void lu_hist_buf_free(struct lu_hist_buf *b)
{
    free(b->s);
    lu_hist_buf_init(b);
}

/* Makes room for need more characters plus the terminator. On failure the
 * buffer keeps what it has and stays failed, so that a report truncated by
 * ENOMEM still ends cleanly instead of crashing the reporter. */
static bool buf_reserve(struct lu_hist_buf *b, size_t need)
{
    if (b->failed)
        return false;
    if (b->cap > 0 && need < b->cap - b->len)
        return true;
    size_t want = b->len + need + 1;
    if (want < b->len) {
        b->failed = true;
        return false;
    }
    size_t cap = b->cap ? b->cap : 128;
    while (cap < want) {
        if (cap > SIZE_MAX / 2) {
            cap = want;
            break;
        }
        cap *= 2;
    }
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = true;
        return false;
    }
    if (!b->s)
        s[0] = '\0';
    b->s = s;
    b->cap = cap;
    return true;
}

/* Appends what fits when growing failed, keeping the text terminated. */
static void buf_append(struct lu_hist_buf *b, const char *s, size_t n)
{
    if (!buf_reserve(b, n)) {
        if (b->cap == 0)
            return;
        size_t room = b->cap - b->len - 1;
        if (n > room)
            n = room;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void lu_hist_buf_puts(struct lu_hist_buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

void lu_hist_buf_printf(struct lu_hist_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        buf_append(b, small, (size_t)n);
        return;
    }
    if (!buf_reserve(b, (size_t)n)) {
        buf_append(b, small, sizeof small - 1);
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* ---- tests ---- */

int lu_hist_test_add(struct lu_hist_test *t, unsigned thread, const char *label)
{
    if (t->nops >= LU_HIST_MAX_OPS || thread > UINT16_MAX - 1)
        return -1;
    unsigned pos = 0;
    for (unsigned i = 0; i < t->nops; i++)
        if (t->ops[i].thread == thread)
            pos++;
    struct lu_hist_op *op = &t->ops[t->nops];
    op->thread = (uint16_t)thread;
    op->pos = (uint16_t)pos;
    snprintf(op->label, sizeof op->label, "%s", label ? label : "");
    if (thread + 1 > t->nthreads)
        t->nthreads = thread + 1;
    return (int)t->nops++;
}

/* ---- results and histories ---- */

bool lu_hist_result_eq(const struct lu_hist_result *a, const struct lu_hist_result *b)
{
    if (a->value != b->value || a->nbytes != b->nbytes)
        return false;
    return a->nbytes == 0 || memcmp(a->bytes, b->bytes, a->nbytes) == 0;
}

void lu_hist_init(struct lu_hist *h)
{
    memset(h, 0, sizeof *h);
}

void lu_hist_reset(struct lu_hist *h)
{
    h->len = 0;
    h->stuck = false;
    h->arena_len = 0;
}

void lu_hist_free(struct lu_hist *h)
{
    free(h->ev);
    free(h->arena);
    lu_hist_init(h);
}

static int ev_reserve(struct lu_hist *h, size_t n)
{
    if (h->cap - h->len >= n)
        return 0;
    size_t cap = h->cap ? h->cap : 32;
    while (cap - h->len < n)
        cap *= 2;
    struct lu_hist_event *ev = realloc(h->ev, cap * sizeof *ev);
    if (!ev)
        return -1;
    h->ev = ev;
    h->cap = cap;
    return 0;
}

/* Grows the arena by moving it, not realloc: the events' byte pointers must
 * be rebased while the old block is still valid, and the caller's source
 * bytes may themselves live in the old block. */
static int arena_reserve(struct lu_hist *h, size_t n)
{
    if (h->arena_cap - h->arena_len >= n)
        return 0;
    size_t cap = h->arena_cap ? h->arena_cap : 256;
    while (cap - h->arena_len < n) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    unsigned char *a = malloc(cap);
    if (!a)
        return -1;
    if (h->arena_len)
        memcpy(a, h->arena, h->arena_len);
    /* Every event's bytes live in the arena (lu_hist_return and lu_hist_copy
     * copy them there), so each one moves with it. */
    for (size_t i = 0; i < h->len; i++) {
        struct lu_hist_result *r = &h->ev[i].res;
        if (r->nbytes)
            r->bytes = a + (r->bytes - h->arena);
    }
    unsigned char *old = h->arena;
    h->arena = a;
    h->arena_cap = cap;
    free(old);
    return 0;
}

int lu_hist_call(struct lu_hist *h, unsigned op)
{
    if (op > UINT16_MAX || ev_reserve(h, 1) < 0)
        return -1;
    struct lu_hist_event *e = &h->ev[h->len++];
    memset(e, 0, sizeof *e);
    e->op = (uint16_t)op;
    e->kind = LU_HIST_CALL;
    return 0;
}

int lu_hist_return(struct lu_hist *h, unsigned op, int64_t value, const void *bytes, size_t nbytes)
{
    if (op > UINT16_MAX || nbytes > UINT32_MAX || (nbytes && !bytes))
        return -1;
    if (ev_reserve(h, 1) < 0)
        return -1;
    const unsigned char *src = bytes;
    unsigned char *copy = NULL;
    if (nbytes) {
        /* bytes may point into our own arena, which arena_reserve moves. */
        uintptr_t p = (uintptr_t)src, base = (uintptr_t)h->arena;
        bool inside = h->arena && p >= base && p < base + h->arena_len;
        size_t off = inside ? (size_t)(p - base) : 0;
        if (arena_reserve(h, nbytes) < 0)
            return -1;
        if (inside)
            src = h->arena + off;
        copy = h->arena + h->arena_len;
        memmove(copy, src, nbytes);
        h->arena_len += nbytes;
    }
    struct lu_hist_event *e = &h->ev[h->len++];
    memset(e, 0, sizeof *e);
    e->op = (uint16_t)op;
    e->kind = LU_HIST_RETURN;
    e->res.value = value;
    e->res.nbytes = (uint32_t)nbytes;
    e->res.bytes = copy;
    return 0;
}

int lu_hist_copy(struct lu_hist *dst, const struct lu_hist *src)
{
    if (dst == src)
        return 0;
    lu_hist_reset(dst);
    size_t total = 0;
    for (size_t i = 0; i < src->len; i++)
        total += src->ev[i].res.nbytes;
    if (ev_reserve(dst, src->len) < 0 || arena_reserve(dst, total) < 0)
        return -1;
    /* Bytes are copied one by one rather than as src's arena, so that a
     * history whose results point elsewhere still copies correctly. */
    for (size_t i = 0; i < src->len; i++) {
        struct lu_hist_event *e = &dst->ev[i];
        *e = src->ev[i];
        if (e->res.nbytes) {
            unsigned char *p = dst->arena + dst->arena_len;
            memcpy(p, src->ev[i].res.bytes, e->res.nbytes);
            dst->arena_len += e->res.nbytes;
            e->res.bytes = p;
        } else {
            e->res.bytes = NULL;
        }
    }
    dst->len = src->len;
    dst->stuck = src->stuck;
    return 0;
}

static uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

uint64_t lu_hist_hash_bytes(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t x = mix(0x6279746573000000ull, len);
    for (size_t i = 0; i < len; i++)
        x = mix(x, p[i]);
    return x;
}

uint64_t lu_hist_hash(const struct lu_hist *h)
{
    uint64_t x = mix(0x6c75686973740000ull, h->len);
    for (size_t i = 0; i < h->len; i++) {
        const struct lu_hist_event *e = &h->ev[i];
        x = mix(x, (uint64_t)e->op << 8 | e->kind);
        if (e->kind != LU_HIST_RETURN)
            continue;
        x = mix(x, (uint64_t)e->res.value);
        x = mix(x, e->res.nbytes);
        for (uint32_t k = 0; k < e->res.nbytes; k++)
            x = mix(x, e->res.bytes[k]);
    }
    return mix(x, h->stuck);
}

uint64_t lu_hist_hash_canon(const struct lu_hist *h)
{
    uint64_t x = mix(0x6c7563616e6f6e00ull, h->len);
    size_t i = 0;
    while (i < h->len) {
        /* a run of calls (returns) is a set: its events' hashes are
         * summed, which no order changes, instead of sorting them */
        uint8_t kind = h->ev[i].kind;
        uint64_t sum = 0;
        size_t n = 0;
        for (; i < h->len && h->ev[i].kind == kind; i++, n++) {
            const struct lu_hist_event *e = &h->ev[i];
            /* one mix per event on the usual path: a call's operation, or a
             * return's operation and value */
            uint64_t y = mix(0x6576656e74000000ull ^ (uint64_t)e->op << 8,
                             kind == LU_HIST_RETURN ? (uint64_t)e->res.value : 0);
            if (kind == LU_HIST_RETURN && e->res.nbytes) {
                y = mix(y, e->res.nbytes);
                for (uint32_t k = 0; k < e->res.nbytes; k++)
                    y = mix(y, e->res.bytes[k]);
            }
            sum += y;
        }
        x = mix(x, (uint64_t)n << 8 | kind);
        x = mix(x, sum);
    }
    return mix(x, h->stuck);
}

bool lu_hist_eq(const struct lu_hist *a, const struct lu_hist *b)
{
    if (a->len != b->len || a->stuck != b->stuck)
        return false;
    for (size_t i = 0; i < a->len; i++) {
        const struct lu_hist_event *x = &a->ev[i], *y = &b->ev[i];
        if (x->op != y->op || x->kind != y->kind)
            return false;
        if (x->kind == LU_HIST_RETURN && !lu_hist_result_eq(&x->res, &y->res))
            return false;
    }
    return true;
}

size_t lu_hist_divergence(const struct lu_hist *a, const struct lu_hist *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    for (size_t i = 0; i < n; i++) {
        const struct lu_hist_event *x = &a->ev[i], *y = &b->ev[i];
        if (x->op != y->op || x->kind != y->kind ||
            (x->kind == LU_HIST_RETURN && !lu_hist_result_eq(&x->res, &y->res)))
            return i;
    }
    return n;
}

bool lu_hist_is_serial(const struct lu_hist *h)
{
    for (size_t i = 0; i < h->len; i++) {
        const struct lu_hist_event *e = &h->ev[i];
        if (i % 2 == 0 ? e->kind != LU_HIST_CALL : e->kind != LU_HIST_RETURN || e->op != h->ev[i - 1].op)
            return false;
    }
    return true;
}

uint64_t lu_hist_pending(const struct lu_hist *h)
{
    uint64_t called = 0, returned = 0;
    for (size_t i = 0; i < h->len; i++) {
        const struct lu_hist_event *e = &h->ev[i];
        if (e->op >= LU_HIST_MAX_OPS)
            continue;
        if (e->kind == LU_HIST_CALL)
            called |= 1ull << e->op;
        else
            returned |= 1ull << e->op;
    }
    return called & ~returned;
}

/* ---- rendering ---- */

#define RESULT_MAX_HEX 32

void lu_hist_render_result(struct lu_hist_buf *b, const struct lu_hist_result *r)
{
    lu_hist_buf_printf(b, "%" PRId64, r->value);
    if (!r->nbytes)
        return;
    lu_hist_buf_puts(b, " [");
    uint32_t n = r->nbytes < RESULT_MAX_HEX ? r->nbytes : RESULT_MAX_HEX;
    for (uint32_t i = 0; i < n; i++)
        lu_hist_buf_printf(b, "%02x", r->bytes[i]);
    if (n < r->nbytes) {
        /* two long results that share their first bytes must still read
         * differently when they differ */
        lu_hist_buf_printf(b, "... %" PRIu32 " bytes, hash %08" PRIx32, r->nbytes,
                           (uint32_t)lu_hist_hash_bytes(r->bytes, r->nbytes));
    }
    lu_hist_buf_puts(b, "]");
}

static void render_label(struct lu_hist_buf *b, const struct lu_hist_test *t, unsigned op)
{
    if (op < t->nops)
        lu_hist_buf_puts(b, t->ops[op].label);
    else
        lu_hist_buf_printf(b, "op%u", op);
}

static unsigned op_thread(const struct lu_hist_test *t, unsigned op)
{
    return op < t->nops ? t->ops[op].thread : 0;
}

static void render_cell(struct lu_hist_buf *b, const struct lu_hist_test *t, const struct lu_hist_event *e)
{
    if (e->kind == LU_HIST_CALL) {
        render_label(b, t, e->op);
        lu_hist_buf_puts(b, " ...");
    } else {
        lu_hist_buf_puts(b, "... -> ");
        lu_hist_render_result(b, &e->res);
    }
}

static void pad(struct lu_hist_buf *b, size_t n)
{
    static const char spaces[] = "                                ";
    while (n > 0) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        lu_hist_buf_printf(b, "%.*s", (int)k, spaces);
        n -= k;
    }
}

#define TIMELINE_COL 24
#define TIMELINE_GAP 2

void lu_hist_render_timeline(struct lu_hist_buf *b, const struct lu_hist_test *t, const struct lu_hist *h)
{
    unsigned ncol = t->nthreads ? t->nthreads : 1;
    for (size_t i = 0; i < h->len; i++)
        if (op_thread(t, h->ev[i].op) >= ncol)
            ncol = op_thread(t, h->ev[i].op) + 1;
    size_t *width = calloc(ncol, sizeof *width);
    if (!width) {
        b->failed = true;
        return;
    }
    /* Columns widen to their longest cell so that rows stay aligned even
     * with long labels or byte results. */
    struct lu_hist_buf cell;
    lu_hist_buf_init(&cell);
    for (unsigned c = 0; c < ncol; c++)
        width[c] = TIMELINE_COL;
    for (size_t i = 0; i < h->len; i++) {
        cell.len = 0;
        render_cell(&cell, t, &h->ev[i]);
        unsigned c = op_thread(t, h->ev[i].op);
        if (cell.len + TIMELINE_GAP > width[c])
            width[c] = cell.len + TIMELINE_GAP;
    }
    lu_hist_buf_free(&cell);

    pad(b, 7);
    for (unsigned c = 0; c < ncol; c++) {
        char head[32];
        int n = t->main_last && c + 1 == t->nthreads ? snprintf(head, sizeof head, "main thread")
                                                     : snprintf(head, sizeof head, "thread %u", c);
        lu_hist_buf_puts(b, head);
        if (c + 1 < ncol)
            pad(b, width[c] > (size_t)n ? width[c] - (size_t)n : 1);
    }
    lu_hist_buf_puts(b, "\n");
    for (size_t i = 0; i < h->len; i++) {
        unsigned c = op_thread(t, h->ev[i].op);
        lu_hist_buf_printf(b, "%5zu  ", i + 1);
        size_t off = 0;
        for (unsigned k = 0; k < c; k++)
            off += width[k];
        pad(b, off);
        render_cell(b, t, &h->ev[i]);
        lu_hist_buf_puts(b, "\n");
    }
    free(width);

    /* Name the pending calls in the order they were made. */
    uint64_t pending = lu_hist_pending(h);
    if (!pending) /* stuck after every call returned: the caller says where */
        return;
    unsigned npend = (unsigned)__builtin_popcountll(pending), k = 0;
    lu_hist_buf_puts(b, h->stuck ? "stuck: " : "pending: ");
    for (size_t i = 0; i < h->len; i++) {
        const struct lu_hist_event *e = &h->ev[i];
        if (e->kind != LU_HIST_CALL || e->op >= LU_HIST_MAX_OPS || !(pending >> e->op & 1))
            continue;
        if (k > 0)
            lu_hist_buf_puts(b, k + 1 == npend ? " and " : ", ");
        render_label(b, t, e->op);
        unsigned th = op_thread(t, e->op);
        if (t->main_last && th + 1 == t->nthreads)
            lu_hist_buf_puts(b, " in the main thread"); /* a setup or teardown call, as its column says */
        else
            lu_hist_buf_printf(b, " in thread %u", th);
        k++;
    }
    lu_hist_buf_puts(b, " never returned\n");
}

void lu_hist_render_serial(struct lu_hist_buf *b, const struct lu_hist_test *t, const struct lu_hist *h)
{
    for (size_t i = 0; i < h->len; i++) {
        const struct lu_hist_event *e = &h->ev[i];
        if (i > 0)
            lu_hist_buf_puts(b, " ");
        if (e->kind == LU_HIST_RETURN) {
            /* Only in a history that is not serial. */
            lu_hist_buf_puts(b, "...");
            render_label(b, t, e->op);
            lu_hist_buf_puts(b, "->");
            lu_hist_render_result(b, &e->res);
            continue;
        }
        render_label(b, t, e->op);
        if (i + 1 < h->len && h->ev[i + 1].kind == LU_HIST_RETURN && h->ev[i + 1].op == e->op) {
            lu_hist_buf_puts(b, "->");
            lu_hist_render_result(b, &h->ev[i + 1].res);
            i++;
        } else {
            lu_hist_buf_puts(b, h->stuck && i + 1 == h->len ? " #" : " ...");
        }
    }
}
