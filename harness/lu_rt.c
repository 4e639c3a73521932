/* The runtime side of lineup.h: what a harness calls while loaded and run. */
#define _GNU_SOURCE
#include "lu_rt.h"

#include "lu_ipose.h"
#include "lu_sched.h"

#include <sched.h>
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
    lu__rt_seq[lu__rt_nseq++] = (struct lu_rt_seq){name, teardown, ops, nops};
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
    b->overflow = len > b->cap;
    b->len = len > b->cap ? b->cap : len;
    if (b->len)
        memcpy(b->data, data, b->len);
}

/* Labels: 0-999 atomics (interpose/lu_ipose_tsan.def), 1000-2999 pthread
 * calls (interpose/lu_ipose.def), 3000- the driver and lineup.h. */
static const char *lu__rt_label_name(uint16_t label)
{
    switch (label) {
    case LU_RT_L_CALL:
        return "operation call";
    case LU_RT_L_JOIN:
        return "waiting for the test threads";
    case LU_RT_L_YIELD:
        return "lineup_yield";
    default:
        return label < LU_RT_L_FIRST ? lu__ipose_label_name(label) : NULL;
    }
}

__attribute__((constructor)) static void lu__rt_init(void)
{
    lu_sched_set_label_names(lu__rt_label_name);
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
