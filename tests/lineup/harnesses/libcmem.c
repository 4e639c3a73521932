/*
 * Readers that see shared memory only through libc's memory and string
 * functions, which gcc's instrumentation leaves as calls to libc: the
 * reduction must see what they read and write (lu_ipose_libc.c), or it
 * takes the read for independent of a writer's steps and skips the torn
 * state. Each writer updates two halves under a lock with an atomic store
 * between them; each reader takes no lock, so it can see one half new and
 * the other old, which no serial order explains. Selected with --harness:
 *   copy    set() writes a struct's fields; get() copies it with memcpy
 *   halves  fill() memsets two halves of a buffer; same() compares them
 *           with memcmp
 *   name    rename_to() strcpys a longer name, then the old one back;
 *           length() is its strlen
 *   literal put() strcpys a literal, then another; is_ab() strcmps the
 *           name with a literal
 *   number  print() sprintfs a number into the name, then another; parse()
 *           reads it back with strtol
 *   cat     grow() strcats a letter to the name, then another; length() is
 *           its strlen (for --test only: the name has room for 29 letters)
 *   scan    print() as in number; scan() reads the name with sscanf
 *   format  rename_to() as in name; formatted() copies the name with
 *           snprintf's "%.*s" and counts what it got
 *   format_pos  the same with a positional "%2$.*1$s"
 *   format_pct  the same with "%5%%s%s": "%5%" prints a '%' and takes no
 *           argument (the walk took one and paired the name with "")
 *   format_custom  the same with "%W%s", %W a conversion this file
 *           registers that takes two arguments: the step is taken as
 *           dependent with everything; format_w with "%W" alone
 *   format_big  the same with "%.1000000000s" (a precision of ten digits
 *           ended the walk's digits, and the %s was lost)
 *   edge    snprintf's "%.3s", "%2$.*1$s", "%5%%s%.3s" and "%1$.3s%0$s" (no
 *           position: glibc prints the "%0$s") of three letters with no
 *           terminator, the last bytes before an inaccessible page: what a
 *           precision bounds must not be read past (a pass, not a crash)
 *   sort    resort() qsorts three numbers up, then down; first() reads the
 *           first (3 in every serial order, 1 in the middle)
 * Sizes pass through an empty asm so that the compiler cannot expand the
 * calls inline, as it does for small constant sizes, except in literal,
 * whose calls gcc expands inline without instrumenting them (strcpy of a
 * literal at -O0, strcmp with one at -O2) unless lineup-cc tells it not to.
 * Built with -O2 -D_FORTIFY_SOURCE=2, gcc would expand the literal's strcpy
 * inline unseen and call glibc's checking variants for the others; lineup-cc
 * undoes the flag. With -DFORTIFY_IN_SOURCE the source sets it, as a source
 * may, and the writers call __sprintf_chk, __snprintf_chk, __strcat_chk and
 * __strcpy_chk, which liblineup.so sees as well.
 */
#ifdef FORTIFY_IN_SOURCE
#undef _FORTIFY_SOURCE
#define _FORTIFY_SOURCE 2
#endif
#include <lineup.h>

#include <printf.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct obj {
    pthread_mutex_t m;
    atomic_int mid; /* the scheduling point between the halves */
    struct {
        int64_t a, b;
    } pair;
    char buf[16];
    char name[32];
    int nums[3];
    char tail[8]; /* _FORTIFY_SOURCE takes no size of a trailing array */
};

static size_t opaque(size_t n)
{
    __asm__("" : "+r"(n));
    return n;
}

static void *create(void)
{
    struct obj *o = calloc(1, sizeof *o);
    if (o) {
        pthread_mutex_init(&o->m, NULL);
        strcpy(o->name, "ab");
        o->nums[0] = 3;
        o->nums[1] = 1;
        o->nums[2] = 2;
    }
    return o;
}

static void destroy(void *p)
{
    struct obj *o = p;
    pthread_mutex_destroy(&o->m);
    free(o);
}

static int64_t set(void *p, int64_t v)
{
    struct obj *o = p;
    pthread_mutex_lock(&o->m);
    o->pair.a = v;
    atomic_store(&o->mid, 1);
    o->pair.b = v;
    pthread_mutex_unlock(&o->m);
    return 0;
}

/* The value, or -1 for a torn copy. */
static int64_t get(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    struct {
        int64_t a, b;
    } l;
    memcpy(&l, &o->pair, opaque(sizeof l));
    return l.a == l.b ? l.a : -1;
}

static int64_t fill(void *p, int64_t c)
{
    struct obj *o = p;
    pthread_mutex_lock(&o->m);
    memset(o->buf, (int)c, opaque(8));
    atomic_store(&o->mid, 1);
    memset(o->buf + 8, (int)c, opaque(8));
    pthread_mutex_unlock(&o->m);
    return 0;
}

/* 1 when the halves are equal. */
static int64_t same(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    return memcmp(o->buf, o->buf + 8, opaque(8)) == 0;
}

static const char *opaque_str(const char *s)
{
    __asm__("" : "+r"(s));
    return s;
}

/* Lengthens the name to n letters and back to "ab": a reader in the middle
 * sees the long one, which no serial order can. */
static int64_t rename_to(void *p, int64_t n)
{
    struct obj *o = p;
    char part[32];
    memset(part, 'x', sizeof part);
    part[n] = '\0';
    pthread_mutex_lock(&o->m);
    strcpy(o->name, opaque_str(part));
    atomic_store(&o->mid, 1);
    strcpy(o->name, opaque_str("ab"));
    pthread_mutex_unlock(&o->m);
    return 0;
}

static int64_t length(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    return (int64_t)strlen(o->name);
}

static int64_t put(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    pthread_mutex_lock(&o->m);
    strcpy(o->name, "xxxx");
    atomic_store(&o->mid, 1);
    strcpy(o->name, "ab");
    pthread_mutex_unlock(&o->m);
    return 0;
}

static int64_t is_ab(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    return strcmp(o->name, "ab") == 0;
}

static int64_t print(void *p, int64_t v)
{
    struct obj *o = p;
    pthread_mutex_lock(&o->m);
    snprintf(o->name, sizeof o->name, "%d", (int)v * 100);
    atomic_store(&o->mid, 1);
    sprintf(o->name, "%d", (int)v);
    pthread_mutex_unlock(&o->m);
    return 0;
}

static int64_t parse(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    return strtol(o->name, NULL, 10);
}

static int64_t grow(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    pthread_mutex_lock(&o->m);
    strcat(o->name, opaque_str("x"));
    atomic_store(&o->mid, 1);
    strcat(o->name, opaque_str("y"));
    pthread_mutex_unlock(&o->m);
    return 0;
}

static int64_t scan(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    int v = -1;
    sscanf(o->name, "%d", &v);
    return v;
}

static int up(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static int down(const void *a, const void *b)
{
    return *(const int *)b - *(const int *)a;
}

static int64_t resort(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    pthread_mutex_lock(&o->m);
    qsort(o->nums, 3, sizeof o->nums[0], up);
    atomic_store(&o->mid, 1);
    qsort(o->nums, 3, sizeof o->nums[0], down);
    pthread_mutex_unlock(&o->m);
    return 0;
}

static int64_t first(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    return o->nums[0];
}

static int64_t formatted(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    char b[48];
    int n = snprintf(b, sizeof b, "%d:%.*s", 1, (int)opaque(30), o->name);
    return n - 2;
}

static int64_t formatted_pos(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    char b[48];
    int n = snprintf(b, sizeof b, "%2$.*1$s", (int)opaque(30), o->name);
    return n;
}

/* Two pages, the second inaccessible, and "abc" unterminated before it. */
static char *edge_page;

static int64_t edge(void *p, int64_t unused)
{
    (void)p, (void)unused;
    long page = sysconf(_SC_PAGESIZE);
    if (!edge_page) {
        char *m = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED || mprotect(m + page, (size_t)page, PROT_NONE) != 0)
            return -1;
        memcpy(m + page - 3, "abc", 3);
        edge_page = m;
    }
    const char *abc = edge_page + page - 3;
    char b[16];
    int n = snprintf(b, sizeof b, "%.3s", abc);
    n += snprintf(b, sizeof b, "%2$.*1$s", (int)opaque(3), abc);
    n += snprintf(b, sizeof b, opaque_str("%5%%s%.3s"), "x", abc);
    n += snprintf(b, sizeof b, opaque_str("%1$.3s%0$s"), abc);
    return n;
}

static int64_t formatted_pct(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    char b[64];
    return snprintf(b, sizeof b, opaque_str("%5%%s%s"), o->name, "") - 5;
}

/* %W: an int and a string, printed as <int:string> */
static int w_arginfo(const struct printf_info *info, size_t n, int *types, int *size)
{
    (void)info;
    (void)size;
    if (n >= 2) {
        types[0] = PA_INT;
        types[1] = PA_STRING;
    }
    return 2;
}

static int w_print(FILE *f, const struct printf_info *info, const void *const *args)
{
    (void)info;
    return fprintf(f, "<%d:%s>", *(const int *)args[0], *(const char *const *)args[1]);
}

__attribute__((constructor)) static void register_w(void)
{
    register_printf_specifier('W', w_print, w_arginfo);
}

static int64_t formatted_custom(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    char b[64];
    return snprintf(b, sizeof b, opaque_str("%W%s"), 1, "", o->name) - 5;
}

static int64_t formatted_w(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    char b[64];
    return snprintf(b, sizeof b, opaque_str("%W"), 1, o->name) - 4;
}

static int64_t formatted_big(void *p, int64_t unused)
{
    struct obj *o = p;
    (void)unused;
    char b[64];
    return snprintf(b, sizeof b, opaque_str("%.1000000000s"), o->name);
}

LINEUP_HARNESS(copy, create, destroy, LINEUP_OP(set, 1), LINEUP_OP(get, 0));
LINEUP_HARNESS(halves, create, destroy, LINEUP_OP(fill, 'a'), LINEUP_OP(same, 0));
LINEUP_HARNESS(name, create, destroy, LINEUP_OP(rename_to, 6), LINEUP_OP(length, 0));
LINEUP_HARNESS(literal, create, destroy, LINEUP_OP(put, 0), LINEUP_OP(is_ab, 0));
LINEUP_HARNESS(number, create, destroy, LINEUP_OP(print, 7), LINEUP_OP(parse, 0));
LINEUP_HARNESS(cat, create, destroy, LINEUP_OP(grow, 0), LINEUP_OP(length, 0));
LINEUP_HARNESS(scan, create, destroy, LINEUP_OP(print, 7), LINEUP_OP(scan, 0));
LINEUP_HARNESS(format, create, destroy, LINEUP_OP(rename_to, 6), LINEUP_OP(formatted, 0));
LINEUP_HARNESS(format_pos, create, destroy, LINEUP_OP(rename_to, 6), LINEUP_OP(formatted_pos, 0));
LINEUP_HARNESS(edge, create, destroy, LINEUP_OP(edge, 0));
LINEUP_HARNESS(format_pct, create, destroy, LINEUP_OP(rename_to, 6), LINEUP_OP(formatted_pct, 0));
LINEUP_HARNESS(format_custom, create, destroy, LINEUP_OP(rename_to, 6), LINEUP_OP(formatted_custom, 0));
LINEUP_HARNESS(format_w, create, destroy, LINEUP_OP(rename_to, 6), LINEUP_OP(formatted_w, 0));
LINEUP_HARNESS(format_big, create, destroy, LINEUP_OP(rename_to, 6), LINEUP_OP(formatted_big, 0));
LINEUP_HARNESS(sort, create, destroy, LINEUP_OP(resort, 0), LINEUP_OP(first, 0));
