/*
 * Registrations lineup refuses when it loads the harness, with a message
 * naming the harness or operation and where it is registered; one
 * -DBAD_... per shared object (CMakeLists.txt). Without any, or with
 * -DLEGAL_REPEATS, it is a correct harness.
 */
#include <lineup.h>

#include <stdatomic.h>
#include <stdlib.h>

static void *reg_create(void)
{
    return calloc(1, sizeof(atomic_long));
}

static void reg_destroy(void *o)
{
    free(o);
}

static int64_t reg_write(void *o, int64_t v)
{
    atomic_store((atomic_long *)o, v);
    return 0;
}

static int64_t reg_read(void *o, int64_t unused)
{
    (void)unused;
    return atomic_load((atomic_long *)o);
}

static __attribute__((unused)) int64_t reg_read_twice(void *o, int64_t unused)
{
    return 2 * reg_read(o, unused);
}

#if defined(BAD_NULL_NAME) || defined(BAD_HARNESS_NAME) || defined(BAD_OP_NAME) || defined(BAD_DUP_OPS)
#if defined(BAD_NULL_NAME)
#define NAME NULL
#elif defined(BAD_HARNESS_NAME)
#define NAME "my reg|ister"
#else
#define NAME "reg"
#endif
#if BAD_OP_NAME == 1
#define OPNAME "wr|ite"
#elif BAD_OP_NAME == 2
#define OPNAME "wr(ite"
#elif BAD_OP_NAME == 3
#define OPNAME "wr ite"
#elif BAD_OP_NAME == 4
#define OPNAME ""
#elif BAD_OP_NAME == 5
#define OPNAME "wr)ite"
#elif BAD_OP_NAME == 6
#define OPNAME "a\033[2Jb" /* an escape sequence: shown as \x1b, never sent to the terminal */
#else
#define OPNAME "write"
#endif
/* what LINEUP_HARNESS expands to, with names it cannot produce */
static const struct lineup_op ops[] = {{OPNAME, reg_write, 1},
                                       {"read", reg_read, 0},
#ifdef BAD_DUP_OPS
                                       {"read", reg_read_twice, 0}
#endif
};
static const struct lineup_harness harness = {
    LINEUP_ABI_VERSION, NAME, reg_create, reg_destroy, ops, sizeof ops / sizeof ops[0], __FILE__, __LINE__};
__attribute__((constructor)) static void reg_register(void)
{
    lineup_register(&harness);
}
#else
/* the same function under one name with different arguments is usual */
LINEUP_HARNESS(reg, reg_create, reg_destroy, LINEUP_OP(reg_write, 1), LINEUP_OP(reg_write, 2),
               LINEUP_OP(reg_read, 0), LINEUP_OP(reg_read, 0), LINEUP_OP(reg_read_twice, 0));
#endif

#ifdef BAD_SETUP_UNKNOWN
LINEUP_SETUP(regg, LINEUP_OP(reg_write, 5));
#endif
#ifdef BAD_TEARDOWN_UNKNOWN
LINEUP_TEARDOWN(nosuch, LINEUP_OP(reg_read, 0));
#endif
#ifdef LEGAL_REPEATS
LINEUP_SETUP(reg, LINEUP_OP(reg_write, 5));
LINEUP_TEARDOWN(reg, LINEUP_OP(reg_read, 0), LINEUP_OP(reg_read, 0));
#endif
