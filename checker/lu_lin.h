/*
 * lu_lin: the synthesized specification of one test (phase 1) and the checks
 * of concurrent histories against it (phase 2).
 *
 * The specification is the trie of the serial histories phase 1 observed:
 * a node is the state after a sequence of (operation, result) pairs; its
 * children say, for each next operation, the result it returned or that it
 * got stuck. A second serial history that disagrees with the trie (same
 * prefix, same next operation, different result or stuck/not stuck) proves
 * the object nondeterministic (Line-Up, section 2.4).
 *
 * No global state: any thread, and several at once on different specs. A
 * spec is never shared between threads, not even by the calls that take it
 * const: the checks keep their search's scratch in it. None of these is a
 * scheduling point (of what lineup models they reach only the allocator,
 * which has none).
 */
#ifndef LU_LIN_H
#define LU_LIN_H

#include "lu_hist.h"

struct lu_lin_spec;

/* Creates an empty specification for test t (t is copied). NULL on ENOMEM. */
struct lu_lin_spec *lu_lin_spec_create(const struct lu_hist_test *t);
/* Frees s and everything it owns; NULL is nothing to free. */
void lu_lin_spec_free(struct lu_lin_spec *s);

/* The test the spec belongs to. */
const struct lu_hist_test *lu_lin_spec_test(const struct lu_lin_spec *s);

/* Adds a serial history (full, or stuck with exactly one pending call as its
 * last event). Returns 0, -1 on allocation failure, or 1 when it contradicts
 * an earlier one; then *conflict (if not NULL) receives a copy of that earlier
 * history, so that both can be shown. Returns -2 when h is not serial. */
int lu_lin_spec_add(struct lu_lin_spec *s, const struct lu_hist *h, struct lu_hist *conflict);

/* Largest d of the strong d-hitting families lu_lin_check_full tries before
 * its exact search: 2 (the default), 1, or 0 to search at once. Verdicts do
 * not depend on it, only speed and lu_lin_stats.hitting_hits. */
void lu_lin_spec_set_hitting_depth(struct lu_lin_spec *s, unsigned d);

/* Number of distinct full and stuck serial histories added. */
size_t lu_lin_spec_full_count(const struct lu_lin_spec *s);
size_t lu_lin_spec_stuck_count(const struct lu_lin_spec *s);

/* Statistics of the checks, for the summary and the benchmarks. */
struct lu_lin_stats {
    uint64_t checks;       /* histories checked */
    uint64_t hitting_hits; /* witnesses found in the strong hitting family */
    uint64_t search_nodes; /* nodes of the memoized search */
};

struct lu_lin_verdict {
    bool ok;
    /* full history: the witness (operation ids in serial order) when ok */
    unsigned witness_len;
    uint16_t witness[LU_HIST_MAX_OPS];
    /* stuck history: the pending operation without a stuck serial witness
     * when !ok, else -1 */
    int failing_op;
};

/* Checks a full (complete, every operation of the test returned) history
 * for a serial witness in s: same per-thread results, real-time order
 * respected (Definition 1). Tries witnesses from the strong d-hitting
 * families for d = 1, 2 first, then runs a memoized (Wing-Gong/Lowe) search
 * over (linearized set, spec node), so the answer is exact. */
int lu_lin_check_full(const struct lu_lin_spec *s, const struct lu_hist *h, struct lu_lin_verdict *v,
                      struct lu_lin_stats *st);

/* Checks a stuck history (Definition 2): for each pending call e, H[e] (H
 * with every other pending call removed) needs a stuck serial witness in s.
 * Returns 0; v->ok says the verdict, v->failing_op the first e without one.
 * Without pending calls it checks h as lu_lin_check_full does. */
int lu_lin_check_stuck(const struct lu_lin_spec *s, const struct lu_hist *h, struct lu_lin_verdict *v,
                       struct lu_lin_stats *st);

/* Renders the serial histories of s that a witness for h would have to be
 * among: those whose per-thread operation sequences equal h's completed
 * operations (and, for a stuck h, end with the failing pending call), like
 * the observation groups of the paper's Figure 7. At most max histories are
 * listed, then a count of the rest. */
void lu_lin_spec_render_group(struct lu_hist_buf *b, const struct lu_lin_spec *s, const struct lu_hist *h,
                              int failing_op, unsigned max);

/* Explains in one or two sentences why no witness fits h, e.g. "try_dequeue()
 * returned -1, but every serial history in which it follows enqueue(200)
 * returns 200" (best effort; plain text). */
void lu_lin_explain(struct lu_hist_buf *b, const struct lu_lin_spec *s, const struct lu_hist *h,
                    const struct lu_lin_verdict *v);

#endif
