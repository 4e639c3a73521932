/*
 * lu_hist: tests, histories and the text buffers reports are rendered into.
 *
 * A test is a set of operations, each owned by a thread at a position in that
 * thread's sequence. A history is the sequence of call and return events one
 * execution produced; it is stuck when the execution ended with calls that
 * never returned. Plain data, no global state: any thread, and several at
 * once on different objects; calls on one object must not overlap, unless
 * all of them only read it (const). None of these is a scheduling point (of
 * what lineup models they reach only the allocator, which has none), so a
 * controlled thread may record events with them in mid-execution.
 */
#ifndef LU_HIST_H
#define LU_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LU_HIST_MAX_OPS 64 /* operations in one test (bitmask width) */

/* ---- growable text buffer ---- */
struct lu_hist_buf {
    char *s;
    size_t len, cap;
    bool failed; /* an allocation failed; the text is truncated */
};
/* Empty: s stays NULL until the first append allocates. */
void lu_hist_buf_init(struct lu_hist_buf *b);
/* Frees the text and leaves b empty, ready for reuse. */
void lu_hist_buf_free(struct lu_hist_buf *b);
/* Append to the text. When growing fails, what fits is kept and failed set:
 * a report cut short still ends cleanly. */
void lu_hist_buf_printf(struct lu_hist_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lu_hist_buf_puts(struct lu_hist_buf *b, const char *s);

/* ---- tests ---- */
struct lu_hist_op {
    uint16_t thread; /* 0-based column of the test matrix */
    uint16_t pos;    /* position in that thread's sequence */
    char label[48];  /* what to print, e.g. "enqueue(200)" */
};

struct lu_hist_test {
    unsigned nthreads;
    bool main_last; /* the last thread is the harness's main thread (setup and teardown calls) */
    unsigned nops;
    struct lu_hist_op ops[LU_HIST_MAX_OPS];
};

/* Adds an operation at the end of thread t's sequence; returns its id, or -1
 * when the test is full. */
int lu_hist_test_add(struct lu_hist_test *t, unsigned thread, const char *label);

/* ---- results and histories ---- */
struct lu_hist_result {
    int64_t value;
    uint32_t nbytes;            /* optional byte-string result (0: none) */
    const unsigned char *bytes; /* owned by the history (or spec) holding it */
};

/* Same value and, byte for byte, the same byte string. */
bool lu_hist_result_eq(const struct lu_hist_result *a, const struct lu_hist_result *b);

enum lu_hist_ev_kind { LU_HIST_CALL = 0, LU_HIST_RETURN = 1 };

struct lu_hist_event {
    uint16_t op;               /* operation id in the test */
    uint8_t kind;              /* enum lu_hist_ev_kind */
    struct lu_hist_result res; /* RETURN only */
};

struct lu_hist {
    struct lu_hist_event *ev;
    size_t len, cap;
    bool stuck;           /* ended with pending calls that can't return */
    unsigned char *arena; /* byte-string results */
    size_t arena_len, arena_cap;
};

/* Empty, allocating nothing until the first event. */
void lu_hist_init(struct lu_hist *h);
void lu_hist_reset(struct lu_hist *h); /* empty, keeps memory */
/* Frees its memory and leaves h empty, ready for reuse. */
void lu_hist_free(struct lu_hist *h);
/* Append events; return 0 or -1 on allocation failure. Bytes are copied. */
int lu_hist_call(struct lu_hist *h, unsigned op);
int lu_hist_return(struct lu_hist *h, unsigned op, int64_t value, const void *bytes, size_t nbytes);
/* Deep copy (dst initialised or reset first). */
int lu_hist_copy(struct lu_hist *dst, const struct lu_hist *src);
/* Hash of the event sequence with results and the stuck flag. */
uint64_t lu_hist_hash(const struct lu_hist *h);
/* A 64-bit hash of a byte string (for telling texts and results apart;
 * not cryptographic). */
uint64_t lu_hist_hash_bytes(const void *data, size_t len);
/* Hash that ignores the order of consecutive calls and of consecutive
 * returns (events of one thread alternate, so these are other threads'). */
uint64_t lu_hist_hash_canon(const struct lu_hist *h);
/* Same events with the same results, and the same stuck flag: what
 * lu_hist_hash hashes. */
bool lu_hist_eq(const struct lu_hist *a, const struct lu_hist *b);
/* True when calls and returns alternate and each return matches its call. */
bool lu_hist_is_serial(const struct lu_hist *h);
/* The index of the first event where a and b differ (another call or
 * return, or another result), or the length of the shorter one when it is
 * a prefix of the other; a->len when they are equal. */
size_t lu_hist_divergence(const struct lu_hist *a, const struct lu_hist *b);
/* Bitmask of operations called but not returned. */
uint64_t lu_hist_pending(const struct lu_hist *h);

/* Renders h as a timeline, one row per event, one column per thread:
 *
 *        thread 0              thread 1
 *     1  enqueue(200) ...
 *     2                        try_dequeue() ...
 *     3  ... -> 0
 *     4                        ... -> -1
 *
 * A stuck history ends with a line "stuck: ..." naming the pending calls.
 * Byte results are printed as hex (at most 32 bytes, then "..."). */
void lu_hist_render_timeline(struct lu_hist_buf *b, const struct lu_hist_test *t, const struct lu_hist *h);
/* Renders a serial history on one line: "enqueue(200)->0 try_dequeue()->200"
 * with a final "take() #" when it is stuck. */
void lu_hist_render_serial(struct lu_hist_buf *b, const struct lu_hist_test *t, const struct lu_hist *h);
/* Renders one result the way the two renderers above do. */
void lu_hist_render_result(struct lu_hist_buf *b, const struct lu_hist_result *r);

#endif
