/* The runtime side of lineup.h: what a harness calls while loaded and run. */
#define _GNU_SOURCE
#include "lu_rt.h"

#include "lu_ipose.h"
#include "lu_sched.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

#define LU_EXPORT __attribute__((visibility("default")))

static const struct lineup_harness *lu__rt_harness[LU_RT_MAX_HARNESSES];
static unsigned lu__rt_nharness;
static struct lu_rt_seq lu__rt_seq[LU_RT_MAX_HARNESSES * 2];
static unsigned lu__rt_nseq;
static unsigned lu__rt_nrejected;

static __thread struct lu_rt_bytes *lu__rt_bytes __attribute__((tls_model("initial-exec")));

LU_EXPORT void lineup_register(const struct lineup_harness *h)
{
    if (!h || h->abi != LINEUP_ABI_VERSION || lu__rt_nharness == LU_RT_MAX_HARNESSES) {
        lu__rt_nrejected++;
        return;
    }
    lu__rt_harness[lu__rt_nharness++] = h;
}

LU_EXPORT void lineup_register_sequence(const char *name, int teardown, const struct lineup_op *ops,
                                        unsigned nops)
{
    if (!name || lu__rt_nseq == sizeof lu__rt_seq / sizeof lu__rt_seq[0]) {
        lu__rt_nrejected++;
        return;
    }
    /* the sequence macros pass no source location: the constructor's call
     * site is one */
    lu__rt_seq[lu__rt_nseq++] = (struct lu_rt_seq){
        name, teardown, ops, nops, __builtin_extract_return_addr(__builtin_return_address(0))};
}

const struct lineup_harness *const *lu_rt_harnesses(unsigned *n)
{
    *n = lu__rt_nharness;
    return lu__rt_harness;
}

const struct lu_rt_seq *lu_rt_sequences(unsigned *n)
{
    *n = lu__rt_nseq;
    return lu__rt_seq;
}

unsigned lu_rt_rejected(void)
{
    return lu__rt_nrejected;
}

/* --harness takes the name LINEUP_HARNESS stringized; job and report
 * buffers hold 128 bytes. */
static bool lu__rt_identifier(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 127 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9')))
            return false;
    return true;
}

/* A --test token is "name(arg)" up to a space or '|', and --test reads at
 * most 127 bytes of one; other characters (a '-', a '.') are harmless. */
static bool lu__rt_op_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 100)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f || strchr("|()", s[i]))
            return false;
    return true;
}

/* s for a message: control characters and bytes past ASCII as \xNN, so
 * that a name cannot drive the terminal; at most 160 bytes of s. */
static const char *lu__rt_printable(const char *s, char *buf, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; s[i] && i < 160 && o + 5 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < ' ' || c >= 0x7f)
            o += (size_t)snprintf(buf + o, n - o, "\\x%02x", c);
        else
            buf[o++] = (char)c;
    }
    buf[o] = 0;
    return buf;
}

int lu_rt_check(char *msg, size_t n, const void *at[2])
{
    at[0] = at[1] = NULL;
    for (unsigned i = 0; i < lu__rt_nharness; i++) {
        const struct lineup_harness *h = lu__rt_harness[i];
        const char *file = h->file ? h->file : "?";
        if (!h->name) {
            snprintf(msg, n, "the harness registered at %s:%d has no name", file, h->line);
            return -1;
        }
        if (!lu__rt_identifier(h->name)) {
            snprintf(msg, n,
                     "harness name \"%.160s\" (%s:%d) is not a C identifier of at most 127 characters",
                     h->name, file, h->line);
            return -1;
        }
        for (unsigned j = 0; j < i; j++) {
            const struct lineup_harness *g = lu__rt_harness[j];
            if (strcmp(g->name, h->name) == 0) {
                snprintf(msg, n,
                         "two harnesses are named %s, at %s:%d and at %s:%d: harness names must be unique "
                         "in one shared object",
                         h->name, g->file ? g->file : "?", g->line, file, h->line);
                return -1;
            }
        }
        for (unsigned k = 0; h->ops && k < h->nops; k++) {
            const struct lineup_op *op = &h->ops[k];
            if (!op->name || !lu__rt_op_name_ok(op->name)) {
                char shown[700];
                snprintf(msg, n,
                         "harness %s (%s:%d): operation %u has the name \"%s\", which --test cannot write "
                         "(empty, longer than 100 characters, or with white space, control characters, '|', "
                         "'(' or ')')",
                         h->name, file, h->line, k,
                         op->name ? lu__rt_printable(op->name, shown, sizeof shown) : "(null)");
                return -1;
            }
            /* enqueue(200) and enqueue(400) are one function: legal */
            for (unsigned j = 0; j < k; j++) {
                if (h->ops[j].fn != op->fn && strcmp(h->ops[j].name, op->name) == 0) {
                    snprintf(msg, n,
                             "harness %s (%s:%d): operations %u and %u are two different functions both "
                             "named %s; a report or --test could not tell them apart",
                             h->name, file, h->line, j, k, op->name);
                    return -1;
                }
            }
        }
    }
    for (unsigned i = 0; i < lu__rt_nseq; i++) {
        const struct lu_rt_seq *q = &lu__rt_seq[i];
        const char *macro = q->teardown ? "LINEUP_TEARDOWN" : "LINEUP_SETUP";
        bool known = false;
        for (unsigned j = 0; j < lu__rt_nharness && !known; j++)
            known = strcmp(lu__rt_harness[j]->name, q->name) == 0;
        if (!known) {
            at[0] = q->at;
            snprintf(msg, n, "%s(%.160s, ...) names no harness of this shared object", macro, q->name);
            return -1;
        }
        for (unsigned j = 0; j < i; j++) {
            if (lu__rt_seq[j].teardown == q->teardown && strcmp(lu__rt_seq[j].name, q->name) == 0) {
                at[0] = lu__rt_seq[j].at;
                at[1] = q->at;
                snprintf(msg, n, "harness %s has two %s sequences (it may have one)", q->name, macro);
                return -1;
            }
        }
    }
    return 0;
}

void lu_rt_reset(void)
{
    lu__rt_nharness = lu__rt_nseq = lu__rt_nrejected = 0;
}

void lu_rt_set_bytes_target(struct lu_rt_bytes *b)
{
    lu__rt_bytes = b;
}

LU_EXPORT void lineup_result_bytes(const void *data, size_t len)
{
    struct lu_rt_bytes *b = lu__rt_bytes;
    if (!b)
        return;
    b->set = true;
    b->offered = len;
    b->len = len > b->cap ? b->cap : len;
    /* the bytes are read here, in the step of the call: they belong to its
     * footprint (and the race detector's view) as the caller's own reads,
     * or the reduction takes the copy for independent of a writer's steps
     * (an audit: PASS with reduction on, FAIL off); lineup's memcpy below
     * is not the harness's */
    if (b->len) {
        lu__ipose_plain_range(data, b->len, false, __builtin_return_address(0));
        memcpy(b->data, data, b->len);
    }
}

/* Labels: 0-999 atomics (interpose/lu_ipose_tsan.def), 1000-2999 pthread
 * calls (interpose/lu_ipose.def), 3000- the driver and lineup.h. */
static const char *lu__rt_label_name(uint16_t label)
{
    static const char *const names[] = {
#define LU_RT_L_NAME(name, printed) printed,
        LU_RT_LABELS(LU_RT_L_NAME)
#undef LU_RT_L_NAME
    };
    if (label < LU_RT_L_FIRST)
        return lu__ipose_label_name(label);
    return label < LU_RT_L_END ? names[label - LU_RT_L_FIRST] : NULL;
}

__attribute__((constructor)) static void lu__rt_init(void)
{
    lu_sched_set_label_names(lu__rt_label_name);
    /* set around each operation, which has scheduling points: each test
     * thread's own, under a shared TLS too */
    if (lu_sched_tls_keep(&lu__rt_bytes, sizeof lu__rt_bytes) != 0)
        lu_sched_bug(__FILE__, __LINE__, "lu_sched_tls_keep: the table is full");
}

LU_EXPORT void lineup_yield(void)
{
    if (lu_sched_self() >= 0) {
        LU_SCHED_SET_PC();
        lu_sched_yield(LU_RT_L_YIELD);
    } else {
        sched_yield();
    }
}

int64_t lu_rt_heap_live(void)
{
    return lu__ipose_heap_live();
}

void lu_rt_set_heap_cap(int64_t cap, lu_rt_alloc_hook *hook)
{
    lu__ipose_set_heap_cap(cap, hook);
}

void lu_rt_set_alloc_failed(lu_rt_alloc_hook *hook)
{
    lu__ipose_set_alloc_failed(hook);
}
