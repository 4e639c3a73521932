/*
 * lu_ipose_libc: libc's memory, string, formatting, parsing and sorting functions, as plain accesses.
 *
 * gcc's ThreadSanitizer instrumentation leaves a call to memcpy, memset or
 * memmove a call to libc (lu_ipose_tsan.def), and neither compiler
 * instruments what strlen or strcmp read. Uninstrumented, such a call on
 * shared memory was invisible to the reduction: a harness whose reader
 * copies a shared struct with memcpy between two visible operations of a
 * writer passed with reduction on and failed with it off
 * (tests/lineup/harnesses/memcpy_race.c). libtsan intercepts these calls
 * for the same reason; lineup defines them in liblineup.so, which comes
 * before libc in every lookup that reaches code under test (the driver
 * links it, and so do programs built by lineup-cc), reports the bytes each
 * one touches as the instrumentation's hooks do (the reduction's footprint
 * and the race detector), and calls libc's.
 *
 * Not scheduling points. Calls made by lineup's own code (this library) are
 * not accesses of the code under test and are left out. Libraries built
 * without lineup-cc that call these through their PLT (libstdc++) are
 * counted, which only makes the reduction more careful. Calls libc makes
 * internally do not come here. Each function costs one load and one branch
 * when neither consumer is on, as the hooks do.
 *
 * libc's functions are found with dlsym(RTLD_NEXT) by a constructor. Until
 * then (constructors of libraries initialized before this one), byte loops
 * stand in, through volatile pointers so that the compiler does not turn
 * them back into calls of the functions they replace.
 */
#define _GNU_SOURCE
#include "lu_ipose.h"
#include "lu_ipose_race.h"
#include "lu_sched.h"

#include <dlfcn.h>
#include <link.h>
#include <printf.h>
#include <wchar.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* gcc knows these names as builtins; our definitions must keep libc's
 * prototypes, which string.h is not included for so that nothing here is
 * expanded to an inline builtin calling back into the definitions. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wbuiltin-declaration-mismatch"
#endif

#define LU__API __attribute__((visibility("default")))

/* ---- Stand-ins until libc's are found ---- */

static void *lu__fb_memmove(void *d, const void *s, size_t n)
{
    volatile unsigned char *dp = d;
    const volatile unsigned char *sp = s;
    if (dp < sp)
        for (size_t i = 0; i < n; i++)
            dp[i] = sp[i];
    else
        for (size_t i = n; i-- > 0;)
            dp[i] = sp[i];
    return d;
}

static void *lu__fb_memset(void *d, int c, size_t n)
{
    volatile unsigned char *dp = d;
    for (size_t i = 0; i < n; i++)
        dp[i] = (unsigned char)c;
    return d;
}

static int lu__fb_memcmp(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

static size_t lu__fb_strnlen(const char *s, size_t max)
{
    const volatile char *p = s;
    size_t n = 0;
    while (n < max && p[n])
        n++;
    return n;
}

static size_t lu__fb_strlen(const char *s)
{
    return lu__fb_strnlen(s, SIZE_MAX);
}

static int lu__fb_strncmp(const char *a, const char *b, size_t n)
{
    const volatile unsigned char *x = (const void *)a, *y = (const void *)b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i] || !x[i])
            return x[i] < y[i] ? -1 : x[i] > y[i];
    return 0;
}

static int lu__fb_strcmp(const char *a, const char *b)
{
    return lu__fb_strncmp(a, b, SIZE_MAX);
}

/* The checking variants abort as glibc's __chk_fail would. */
static void *lu__fb_chk(void *d, const void *s, size_t n, size_t dlen)
{
    if (dlen < n)
        abort();
    return lu__fb_memmove(d, s, n);
}

static void *lu__fb_memset_chk(void *d, int c, size_t n, size_t dlen)
{
    if (dlen < n)
        abort();
    return lu__fb_memset(d, c, n);
}

/* ---- libc's, one table ---- */

typedef void *lu__copy_fn(void *, const void *, size_t);
typedef void *lu__set_fn(void *, int, size_t);
typedef int lu__cmp_fn(const void *, const void *, size_t);
typedef size_t lu__len_fn(const char *);
typedef size_t lu__nlen_fn(const char *, size_t);
typedef int lu__scmp_fn(const char *, const char *);
typedef int lu__sncmp_fn(const char *, const char *, size_t);
typedef char *lu__scpy_fn(char *, const char *);
typedef char *lu__sncpy_fn(char *, const char *, size_t);
typedef void *lu__copy_chk_fn(void *, const void *, size_t, size_t);
typedef void *lu__set_chk_fn(void *, int, size_t, size_t);
typedef char *lu__scpy_chk_fn(char *, const char *, size_t);
typedef char *lu__sncpy_chk_fn(char *, const char *, size_t, size_t);
typedef char *lu__schr_fn(const char *, int);
typedef void *lu__mchr_fn(const void *, int, size_t);
typedef char *lu__sdup_fn(const char *);
typedef char *lu__sndup_fn(const char *, size_t);
typedef int lu__vsnp_fn(char *, size_t, const char *, va_list);
typedef int lu__vsp_fn(char *, const char *, va_list);
typedef long lu__stol_fn(const char *, char **, int);
typedef unsigned long lu__stoul_fn(const char *, char **, int);
typedef long long lu__stoll_fn(const char *, char **, int);
typedef unsigned long long lu__stoull_fn(const char *, char **, int);
typedef char *lu__scat_chk_fn(char *, const char *, size_t);
typedef char *lu__sncat_chk_fn(char *, const char *, size_t, size_t);
typedef int lu__vsnp_chk_fn(char *, size_t, int, size_t, const char *, va_list);
typedef int lu__vsp_chk_fn(char *, int, size_t, const char *, va_list);
typedef void lu__qsort_fn(void *, size_t, size_t, int (*)(const void *, const void *));
typedef void lu__qsort_r_fn(void *, size_t, size_t, int (*)(const void *, const void *, void *), void *);
typedef int lu__vss_fn(const char *, const char *, va_list);

/* name, type. Each stand-in is named where its function calls libc's
 * (LU__CALL, or a fallback written out); the functions without one find
 * libc's at their first call when the constructor has not run yet
 * (LU__REAL_NOW). */
#define LU__LIBC_FUNCS(X)                                                                                    \
    X(memcpy, lu__copy_fn)                                                                                   \
    X(memmove, lu__copy_fn)                                                                                  \
    X(mempcpy, lu__copy_fn)                                                                                  \
    X(memset, lu__set_fn)                                                                                    \
    X(memcmp, lu__cmp_fn)                                                                                    \
    X(bcmp, lu__cmp_fn)                                                                                      \
    X(strlen, lu__len_fn)                                                                                    \
    X(strnlen, lu__nlen_fn)                                                                                  \
    X(strcmp, lu__scmp_fn)                                                                                   \
    X(strncmp, lu__sncmp_fn)                                                                                 \
    X(strcpy, lu__scpy_fn)                                                                                   \
    X(strncpy, lu__sncpy_fn)                                                                                 \
    X(__memcpy_chk, lu__copy_chk_fn)                                                                         \
    X(__memmove_chk, lu__copy_chk_fn)                                                                        \
    X(__mempcpy_chk, lu__copy_chk_fn)                                                                        \
    X(__memset_chk, lu__set_chk_fn)                                                                          \
    X(__strcpy_chk, lu__scpy_chk_fn)                                                                         \
    X(__strncpy_chk, lu__sncpy_chk_fn)                                                                       \
    X(stpcpy, lu__scpy_fn)                                                                                   \
    X(strcat, lu__scpy_fn)                                                                                   \
    X(strncat, lu__sncpy_fn)                                                                                 \
    X(strchr, lu__schr_fn)                                                                                   \
    X(strrchr, lu__schr_fn)                                                                                  \
    X(memchr, lu__mchr_fn)                                                                                   \
    X(strdup, lu__sdup_fn)                                                                                   \
    X(strndup, lu__sndup_fn)                                                                                 \
    X(vsnprintf, lu__vsnp_fn)                                                                                \
    X(vsprintf, lu__vsp_fn)                                                                                  \
    X(strtol, lu__stol_fn)                                                                                   \
    X(strtoul, lu__stoul_fn)                                                                                 \
    X(strtoll, lu__stoll_fn)                                                                                 \
    X(strtoull, lu__stoull_fn)                                                                               \
    X(stpncpy, lu__sncpy_fn)                                                                                 \
    X(__stpcpy_chk, lu__scpy_chk_fn)                                                                         \
    X(__stpncpy_chk, lu__sncpy_chk_fn)                                                                       \
    X(__strcat_chk, lu__scat_chk_fn)                                                                         \
    X(__strncat_chk, lu__sncat_chk_fn)                                                                       \
    X(__vsnprintf_chk, lu__vsnp_chk_fn)                                                                      \
    X(__vsprintf_chk, lu__vsp_chk_fn)                                                                        \
    X(qsort, lu__qsort_fn)                                                                                   \
    X(qsort_r, lu__qsort_r_fn)                                                                               \
    X(vsscanf, lu__vss_fn)                                                                                   \
    X(__isoc99_vsscanf, lu__vss_fn)

/* Written once by the constructor, before any thread of the code under
 * test; read without ordering, as a pointer that is either the stand-in or
 * libc's is right either way. */
#define LU__REAL_DECL(name, type) static type *lu__real_##name;
LU__LIBC_FUNCS(LU__REAL_DECL)
#undef LU__REAL_DECL

/* [lo, lo + len): this library's mapping, and the lineup driver's when it
 * is the executable (it defines lu_drv_self): their calls are lineup's own. */
static uintptr_t lu__self_lo, lu__self_len, lu__drv_lo, lu__drv_len;
extern const char lu_drv_self __attribute__((weak));

struct lu__range {
    uintptr_t at, lo, len;
};

static int lu__find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct lu__range *r = arg;
    uintptr_t me = r->at, lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo)
            lo = a;
        if (a + ph->p_memsz > hi)
            hi = a + ph->p_memsz;
    }
    if (lo <= me && me < hi) {
        r->lo = lo;
        r->len = hi - lo;
        return 1;
    }
    return 0;
}

__attribute__((constructor(101))) static void lu__libc_resolve(void)
{
    struct lu__range r = {.at = (uintptr_t)lu__libc_resolve};
    dl_iterate_phdr(lu__find_self, &r);
    lu__self_lo = r.lo;
    lu__self_len = r.len;
    if (&lu_drv_self) {
        r = (struct lu__range){.at = (uintptr_t)&lu_drv_self};
        dl_iterate_phdr(lu__find_self, &r);
        lu__drv_lo = r.lo;
        lu__drv_len = r.len;
    }
#define LU__RESOLVE(name, type)                                                                              \
    do {                                                                                                     \
        type *p_ = (type *)dlsym(RTLD_NEXT, #name);                                                          \
        if (p_)                                                                                              \
            __atomic_store_n(&lu__real_##name, p_, __ATOMIC_RELAXED);                                        \
    } while (0);
    LU__LIBC_FUNCS(LU__RESOLVE)
#undef LU__RESOLVE
}

/* ---- The accesses ---- */

static inline bool lu__watched(void)
{
    return __builtin_expect((__atomic_load_n(&lu_sched_footprint, __ATOMIC_RELAXED) |
                             (uintptr_t)__atomic_load_n(&lu__ipose_race_hook, __ATOMIC_RELAXED) |
                             (unsigned)__atomic_load_n(&lu__ipose_record_plain, __ATOMIC_RELAXED)) != 0,
                            0);
}

/* Whether pc is in lineup's own code: this library, or the driver. */
static inline bool lu__from_self(const void *pc)
{
    return (uintptr_t)pc - lu__self_lo < lu__self_len || (uintptr_t)pc - lu__drv_lo < lu__drv_len;
}

static __attribute__((noinline)) void lu__touch(const void *addr, size_t n, bool is_write, void *pc)
{
    if (n == 0 || lu__from_self(pc))
        return;
    lu__ipose_plain_range(addr, n, is_write, pc);
}

#define LU__PC() __builtin_return_address(0)

/* Each libc function through its pointer, or its stand-in. */
#define LU__CALL(name, fb, ...)                                                                              \
    __extension__({                                                                                          \
        __typeof__(lu__real_##name) f_ = __atomic_load_n(&lu__real_##name, __ATOMIC_RELAXED);                \
        f_ ? f_(__VA_ARGS__) : fb(__VA_ARGS__);                                                              \
    })

static inline size_t lu__strnlen(const char *s, size_t max)
{
    return LU__CALL(strnlen, lu__fb_strnlen, s, max);
}

/* Bytes strcmp/strncmp read of each string: up to the first difference or
 * terminator, both included. */
static size_t lu__cmp_extent(const char *a, const char *b, size_t n)
{
    const unsigned char *x = (const void *)a, *y = (const void *)b;
    size_t i = 0;
    while (i < n && x[i] == y[i] && x[i])
        i++;
    return i < n ? i + 1 : n;
}

/* What reading a string of at most max bytes touches: up to its
 * terminator, included, or max bytes. */
static size_t lu__str_extent(const char *s, size_t max)
{
    size_t l = lu__strnlen(s, max);
    return l < max ? l + 1 : max;
}

/* The accesses of the calls below, by kind; each is called only while
 * something watches (lu__watched), pc being the exported function's
 * caller. A copy of n bytes from s to d (of an array onto itself: qsort). */
static void lu__copied(void *d, const void *s, size_t n, void *pc)
{
    lu__touch(s, n, false, pc);
    lu__touch(d, n, true, pc);
}

/* A comparison reading n bytes of each. */
static void lu__compared(const void *a, const void *b, size_t n, void *pc)
{
    lu__touch(a, n, false, pc);
    lu__touch(b, n, false, pc);
}

/* strncpy and stpncpy: s up to its terminator or n bytes, and all n of d,
 * padded with zeros. */
static void lu__ncopied(char *d, const char *s, size_t n, void *pc)
{
    lu__touch(s, lu__str_extent(s, n), false, pc);
    lu__touch(d, n, true, pc);
}

/* strcat and strncat (n is SIZE_MAX for strcat), before the call: d up to
 * its terminator, then s (at most n bytes), written over d's terminator
 * with a terminator of its own. */
static void lu__catted(char *d, const char *s, size_t n, void *pc)
{
    size_t dl = lu__strnlen(d, SIZE_MAX), sl = lu__strnlen(s, n);
    lu__touch(d, dl + 1, false, pc);
    lu__touch(s, sl < n ? sl + 1 : n, false, pc);
    lu__touch(d + dl, sl + 1, true, pc);
}

LU__API void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
    if (lu__watched())
        lu__copied(d, s, n, LU__PC());
    return LU__CALL(memcpy, lu__fb_memmove, d, s, n);
}

LU__API void *memmove(void *d, const void *s, size_t n)
{
    if (lu__watched())
        lu__copied(d, s, n, LU__PC());
    return LU__CALL(memmove, lu__fb_memmove, d, s, n);
}

LU__API void *mempcpy(void *restrict d, const void *restrict s, size_t n)
{
    if (lu__watched())
        lu__copied(d, s, n, LU__PC());
    if (__atomic_load_n(&lu__real_mempcpy, __ATOMIC_RELAXED))
        return lu__real_mempcpy(d, s, n);
    return (char *)lu__fb_memmove(d, s, n) + n;
}

LU__API void *memset(void *d, int c, size_t n)
{
    if (lu__watched())
        lu__touch(d, n, true, LU__PC());
    return LU__CALL(memset, lu__fb_memset, d, c, n);
}

LU__API int memcmp(const void *a, const void *b, size_t n)
{
    /* all n bytes, as TSan's default (strict_memcmp): the C standard lets
     * memcmp read them all */
    if (lu__watched())
        lu__compared(a, b, n, LU__PC());
    return LU__CALL(memcmp, lu__fb_memcmp, a, b, n);
}

LU__API int bcmp(const void *a, const void *b, size_t n)
{
    if (lu__watched())
        lu__compared(a, b, n, LU__PC());
    return LU__CALL(bcmp, lu__fb_memcmp, a, b, n);
}

LU__API size_t strlen(const char *s)
{
    size_t n = LU__CALL(strlen, lu__fb_strlen, s);
    if (lu__watched())
        lu__touch(s, n + 1, false, LU__PC());
    return n;
}

LU__API size_t strnlen(const char *s, size_t max)
{
    size_t n = lu__strnlen(s, max);
    if (lu__watched())
        lu__touch(s, n < max ? n + 1 : n, false, LU__PC());
    return n;
}

LU__API int strcmp(const char *a, const char *b)
{
    if (lu__watched()) {
        lu__compared(a, b, lu__cmp_extent(a, b, SIZE_MAX), LU__PC());
    }
    return LU__CALL(strcmp, lu__fb_strcmp, a, b);
}

LU__API int strncmp(const char *a, const char *b, size_t n)
{
    if (lu__watched()) {
        lu__compared(a, b, lu__cmp_extent(a, b, n), LU__PC());
    }
    return LU__CALL(strncmp, lu__fb_strncmp, a, b, n);
}

LU__API char *strcpy(char *restrict d, const char *restrict s)
{
    if (lu__watched())
        lu__copied(d, s, lu__str_extent(s, SIZE_MAX), LU__PC());
    if (__atomic_load_n(&lu__real_strcpy, __ATOMIC_RELAXED))
        return lu__real_strcpy(d, s);
    return lu__fb_memmove(d, s, lu__str_extent(s, SIZE_MAX));
}

/* strncpy reads up to n bytes of s (less at its terminator) and writes all
 * n of d, padding with zeros. */
LU__API char *strncpy(char *restrict d, const char *restrict s, size_t n)
{
    if (lu__watched())
        lu__ncopied(d, s, n, LU__PC());
    if (__atomic_load_n(&lu__real_strncpy, __ATOMIC_RELAXED))
        return lu__real_strncpy(d, s, n);
    size_t len = lu__strnlen(s, n);
    lu__fb_memmove(d, s, len);
    lu__fb_memset(d + len, 0, n - len);
    return d;
}

/* _FORTIFY_SOURCE's checking variants, which the compiler calls instead of
 * the above where it knows the destination's size. */
LU__API void *__memcpy_chk(void *restrict d, const void *restrict s, size_t n, size_t dlen)
{
    if (lu__watched())
        lu__copied(d, s, n, LU__PC());
    return LU__CALL(__memcpy_chk, lu__fb_chk, d, s, n, dlen);
}

LU__API void *__memmove_chk(void *d, const void *s, size_t n, size_t dlen)
{
    if (lu__watched())
        lu__copied(d, s, n, LU__PC());
    return LU__CALL(__memmove_chk, lu__fb_chk, d, s, n, dlen);
}

LU__API void *__mempcpy_chk(void *restrict d, const void *restrict s, size_t n, size_t dlen)
{
    if (lu__watched())
        lu__copied(d, s, n, LU__PC());
    if (__atomic_load_n(&lu__real___mempcpy_chk, __ATOMIC_RELAXED))
        return lu__real___mempcpy_chk(d, s, n, dlen);
    return (char *)lu__fb_chk(d, s, n, dlen) + n;
}

LU__API void *__memset_chk(void *d, int c, size_t n, size_t dlen)
{
    if (lu__watched())
        lu__touch(d, n, true, LU__PC());
    return LU__CALL(__memset_chk, lu__fb_memset_chk, d, c, n, dlen);
}

LU__API char *__strcpy_chk(char *restrict d, const char *restrict s, size_t dlen)
{
    size_t n = lu__str_extent(s, SIZE_MAX);
    if (lu__watched())
        lu__copied(d, s, n, LU__PC());
    if (__atomic_load_n(&lu__real___strcpy_chk, __ATOMIC_RELAXED))
        return lu__real___strcpy_chk(d, s, dlen);
    return lu__fb_chk(d, s, n, dlen);
}

LU__API char *__strncpy_chk(char *restrict d, const char *restrict s, size_t n, size_t dlen)
{
    if (lu__watched())
        lu__ncopied(d, s, n, LU__PC());
    if (__atomic_load_n(&lu__real___strncpy_chk, __ATOMIC_RELAXED))
        return lu__real___strncpy_chk(d, s, n, dlen);
    if (dlen < n)
        abort();
    return strncpy(d, s, n);
}

/* ---- Building, searching and parsing strings ----
 * Without a stand-in: they are found by the constructor, or at their first
 * call before it (dlsym calls nothing of these through the PLT). */
#define LU__REAL_NOW(name)                                                                                   \
    __extension__({                                                                                          \
        __typeof__(lu__real_##name) f_ = __atomic_load_n(&lu__real_##name, __ATOMIC_RELAXED);                \
        if (__builtin_expect(!f_, 0)) {                                                                      \
            f_ = (__typeof__(f_))dlsym(RTLD_NEXT, #name);                                                    \
            if (!f_)                                                                                         \
                abort();                                                                                     \
            __atomic_store_n(&lu__real_##name, f_, __ATOMIC_RELAXED);                                        \
        }                                                                                                    \
        f_;                                                                                                  \
    })

LU__API char *stpcpy(char *restrict d, const char *restrict s)
{
    char *e = LU__REAL_NOW(stpcpy)(d, s);
    if (lu__watched())
        lu__copied(d, s, (size_t)(e - d) + 1, LU__PC());
    return e;
}

/* strcat reads d up to its terminator, then s, and writes s over it. */
LU__API char *strcat(char *restrict d, const char *restrict s)
{
    if (lu__watched())
        lu__catted(d, s, SIZE_MAX, LU__PC());
    return LU__REAL_NOW(strcat)(d, s);
}

LU__API char *strncat(char *restrict d, const char *restrict s, size_t n)
{
    if (lu__watched())
        lu__catted(d, s, n, LU__PC());
    return LU__REAL_NOW(strncat)(d, s, n);
}

/* stpncpy, as strncpy: it writes all n bytes of d, padding with zeros. */
LU__API char *stpncpy(char *restrict d, const char *restrict s, size_t n)
{
    if (lu__watched())
        lu__ncopied(d, s, n, LU__PC());
    return LU__REAL_NOW(stpncpy)(d, s, n);
}

/* The _FORTIFY_SOURCE variants of the above: gcc -O2 -D_FORTIFY_SOURCE
 * calls them where it knows the destination's size (a field of a shared
 * struct), and would otherwise write it unseen. */
LU__API char *__stpcpy_chk(char *restrict d, const char *restrict s, size_t dlen)
{
    char *e = LU__REAL_NOW(__stpcpy_chk)(d, s, dlen);
    if (lu__watched())
        lu__copied(d, s, (size_t)(e - d) + 1, LU__PC());
    return e;
}

LU__API char *__stpncpy_chk(char *restrict d, const char *restrict s, size_t n, size_t dlen)
{
    if (lu__watched())
        lu__ncopied(d, s, n, LU__PC());
    return LU__REAL_NOW(__stpncpy_chk)(d, s, n, dlen);
}

LU__API char *__strcat_chk(char *restrict d, const char *restrict s, size_t dlen)
{
    if (lu__watched())
        lu__catted(d, s, SIZE_MAX, LU__PC());
    return LU__REAL_NOW(__strcat_chk)(d, s, dlen);
}

LU__API char *__strncat_chk(char *restrict d, const char *restrict s, size_t n, size_t dlen)
{
    if (lu__watched())
        lu__catted(d, s, n, LU__PC());
    return LU__REAL_NOW(__strncat_chk)(d, s, n, dlen);
}

/* The searches read up to what they find, or to the end. */
LU__API char *strchr(const char *s, int c)
{
    char *r = LU__REAL_NOW(strchr)(s, c);
    if (lu__watched())
        lu__touch(s, r ? (size_t)(r - s) + 1 : lu__str_extent(s, SIZE_MAX), false, LU__PC());
    return r;
}

LU__API char *strrchr(const char *s, int c)
{
    char *r = LU__REAL_NOW(strrchr)(s, c);
    if (lu__watched())
        lu__touch(s, lu__str_extent(s, SIZE_MAX), false, LU__PC());
    return r;
}

LU__API void *memchr(const void *s, int c, size_t n)
{
    void *r = LU__REAL_NOW(memchr)(s, c, n);
    if (lu__watched())
        lu__touch(s, r ? (size_t)((const char *)r - (const char *)s) + 1 : n, false, LU__PC());
    return r;
}

LU__API char *strdup(const char *s)
{
    if (lu__watched())
        lu__touch(s, lu__str_extent(s, SIZE_MAX), false, LU__PC());
    return LU__REAL_NOW(strdup)(s);
}

LU__API char *strndup(const char *s, size_t n)
{
    if (lu__watched())
        lu__touch(s, lu__str_extent(s, n), false, LU__PC());
    return LU__REAL_NOW(strndup)(s, n);
}

/* What the %s conversions of a format read: each string up to its
 * terminator, or up to the precision. The arguments' types come from
 * glibc's parse_printf_format, which knows every conversion (and those a
 * program registers); the walk below only pairs each %s with its argument
 * and precision, and a string is read only where both agree that the
 * argument is one. A format they disagree on, with more arguments than fit
 * here, or with a wide string (%ls), makes the step dependent with
 * everything (lu__fmt_reads). */
#define LU__FMT_ARGS 32

struct lu__fmt_str {
    int arg;  /* the string's argument */
    int prec; /* -1: none; >= 0: the precision; <= -2: from argument -prec - 2 */
};

/* A position at *p: a number from 1 and "$" (then *p moves past them);
 * glibc takes "0$" for a flag and a conversion of no argument. */
static bool lu__fmt_pos(const char **p, int *v)
{
    const char *q = *p;
    int n = 0;
    for (; *q >= '0' && *q <= '9'; q++)
        n = n < 100000 ? n * 10 + (*q - '0') : n;
    if (q == *p || *q != '$' || n < 1)
        return false;
    *v = n - 1;
    *p = q + 1;
    return true;
}

/* The %s conversions of fmt, at most LU__FMT_ARGS, and in *nargs the
 * arguments the format takes by this walk (one per conversion but %m and
 * %%, with a width or not, and one per '*'); -1 where the walk cannot
 * follow the format. A conversion a program registered may take another
 * number: the caller compares with parse_printf_format's. */
static int lu__fmt_walk(const char *fmt, struct lu__fmt_str *out, int *nargs)
{
    int next = 0, n = 0, most = 0;
#define LU__FMT_USES(i) (most = (i) + 1 > most ? (i) + 1 : most)
    for (const char *p = fmt; *p; p++) {
        if (*p != '%')
            continue;
        if (*++p == '%')
            continue;
        int pos = -1, k;
        if (lu__fmt_pos(&p, &k))
            pos = k;
        while (*p == '-' || *p == '+' || *p == ' ' || *p == '#' || *p == '0' || *p == '\'' || *p == 'I')
            p++;
        if (*p == '*') {
            p++;
            if (lu__fmt_pos(&p, &k))
                LU__FMT_USES(k);
            else
                LU__FMT_USES(next++);
        } else {
            while (*p >= '0' && *p <= '9')
                p++;
        }
        int prec = -1;
        if (*p == '.') {
            p++;
            if (*p == '*') {
                p++;
                int pa = lu__fmt_pos(&p, &k) ? k : next++;
                LU__FMT_USES(pa);
                prec = -pa - 2;
            } else {
                prec = 0;
                for (; *p >= '0' && *p <= '9'; p++)
                    prec = prec < 100000000 ? prec * 10 + (*p - '0') : prec;
            }
        }
        bool wide = false;
        while (*p == 'h' || *p == 'l' || *p == 'L' || *p == 'q' || *p == 'j' || *p == 'z' || *p == 'Z' ||
               *p == 't') {
            wide |= *p == 'l';
            p++;
        }
        if (!*p)
            return -1;
        if (*p == 'm' || *p == '%')
            continue; /* no argument ("%5%" prints a '%') */
        int arg = pos >= 0 ? pos : next++;
        LU__FMT_USES(arg);
        if ((*p == 's' && wide) || *p == 'S')
            return -1; /* a wide string: what it reads is not named here */
        if (*p == 's') {
            if (n == LU__FMT_ARGS || arg < 0 || arg >= LU__FMT_ARGS || prec < -LU__FMT_ARGS - 1)
                return -1;
            out[n].arg = arg;
            out[n].prec = prec;
            n++;
        }
    }
#undef LU__FMT_USES
    *nargs = most;
    return n;
}

/* What a format's strings read is not known: the step is dependent with
 * everything (unless the call is lineup's own). */
static void lu__fmt_unknown(void *pc)
{
    if (!lu__from_self(pc))
        lu_sched_plain_unknown();
}

/* Reports what the %s conversions of fmt read from the arguments ap. */
static void lu__fmt_reads(const char *fmt, va_list ap, void *pc)
{
    struct lu__fmt_str strs[LU__FMT_ARGS];
    int walked = 0;
    int ns = lu__fmt_walk(fmt, strs, &walked);
    if (ns == 0 && walked == 0)
        return; /* no argument: nothing a conversion could read (a registered one takes some) */
    int types[LU__FMT_ARGS];
    for (int i = 0; i < LU__FMT_ARGS; i++)
        types[i] = -1; /* a gap in the positions stays unknown */
    size_t na = ns >= 0 ? parse_printf_format(fmt, LU__FMT_ARGS, types) : 0;
    /* a format the walk cannot follow, with more arguments than fit here,
     * or a count of its own (a conversion a program registered would pair
     * a %s with another argument): what its strings read is unknown, so
     * the step is dependent with everything */
    if (ns < 0 || na > LU__FMT_ARGS || na != (size_t)walked) {
        lu__fmt_unknown(pc);
        return;
    }
    if (ns == 0)
        return;
    /* each argument's value, as far as a string or a precision needs it */
    const char *ptr[LU__FMT_ARGS];
    long num[LU__FMT_ARGS];
    va_list aq;
    va_copy(aq, ap);
    for (size_t i = 0; i < na; i++) {
        int t = types[i];
        ptr[i] = NULL;
        num[i] = 0;
        if (t < 0) { /* a position the format skips: the arguments after it are unknown */
            va_end(aq);
            lu__fmt_unknown(pc);
            return;
        }
        if (t & PA_FLAG_PTR) {
            (void)va_arg(aq, void *);
            continue;
        }
        switch (t & ~PA_FLAG_MASK) {
        case PA_INT:
            if (t & PA_FLAG_LONG_LONG)
                num[i] = (long)va_arg(aq, long long);
            else if (t & PA_FLAG_LONG)
                num[i] = va_arg(aq, long);
            else
                num[i] = va_arg(aq, int);
            break;
        case PA_CHAR:
            (void)va_arg(aq, int);
            break;
        case PA_WCHAR:
            (void)va_arg(aq, wint_t);
            break;
        case PA_STRING:
            ptr[i] = va_arg(aq, const char *);
            break;
        case PA_WSTRING:
        case PA_POINTER:
            (void)va_arg(aq, void *);
            break;
        case PA_FLOAT:
        case PA_DOUBLE:
            if (t & PA_FLAG_LONG_DOUBLE)
                (void)va_arg(aq, long double);
            else
                (void)va_arg(aq, double);
            break;
        default: /* a type a program registered: its size is unknown */
            va_end(aq);
            lu__fmt_unknown(pc);
            return;
        }
    }
    va_end(aq);
    for (int j = 0; j < ns; j++) {
        int a = strs[j].arg;
        if ((size_t)a >= na || types[a] != PA_STRING || !ptr[a])
            continue;
        size_t max = SIZE_MAX;
        if (strs[j].prec >= 0) {
            max = (size_t)strs[j].prec;
        } else if (strs[j].prec <= -2) {
            int pa = -strs[j].prec - 2;
            if ((size_t)pa >= na || (types[pa] & ~PA_FLAG_MASK) != PA_INT)
                continue;
            if (num[pa] >= 0) /* a negative precision is none */
                max = (size_t)num[pa];
        }
        lu__touch(ptr[a], lu__str_extent(ptr[a], max), false, pc);
    }
}

/* The formatting functions read their %s arguments (lu__fmt_reads, before
 * the call consumes ap) and write what they return and a terminator, within
 * size (SIZE_MAX for the unbounded ones). */
static void lu__wrote(char *d, size_t size, int r, void *pc)
{
    if (r >= 0 && size > 0)
        lu__touch(d, (size_t)r + 1 < size ? (size_t)r + 1 : size, true, pc);
}

#define LU__FORMAT(size, real_call)                                                                          \
    __extension__({                                                                                          \
        bool w_ = lu__watched();                                                                             \
        if (w_)                                                                                              \
            lu__fmt_reads(fmt, ap, LU__PC());                                                                \
        int r_ = real_call;                                                                                  \
        if (w_)                                                                                              \
            lu__wrote(d, size, r_, LU__PC());                                                                \
        r_;                                                                                                  \
    })

/* The variadic ones, through their v-functions. */
#define LU__FORMAT_VA(size, real_call)                                                                       \
    __extension__({                                                                                          \
        va_list ap;                                                                                          \
        va_start(ap, fmt);                                                                                   \
        int v_ = LU__FORMAT(size, real_call);                                                                \
        va_end(ap);                                                                                          \
        v_;                                                                                                  \
    })

LU__API int vsnprintf(char *restrict d, size_t size, const char *restrict fmt, va_list ap)
{
    return LU__FORMAT(size, LU__REAL_NOW(vsnprintf)(d, size, fmt, ap));
}

LU__API int snprintf(char *restrict d, size_t size, const char *restrict fmt, ...)
{
    return LU__FORMAT_VA(size, LU__REAL_NOW(vsnprintf)(d, size, fmt, ap));
}

LU__API int vsprintf(char *restrict d, const char *restrict fmt, va_list ap)
{
    return LU__FORMAT(SIZE_MAX, LU__REAL_NOW(vsprintf)(d, fmt, ap));
}

LU__API int sprintf(char *restrict d, const char *restrict fmt, ...)
{
    return LU__FORMAT_VA(SIZE_MAX, LU__REAL_NOW(vsprintf)(d, fmt, ap));
}

/* The _FORTIFY_SOURCE variants (flag and slen are the checks'). */
LU__API int __vsnprintf_chk(char *restrict d, size_t size, int flag, size_t slen, const char *restrict fmt,
                            va_list ap)
{
    return LU__FORMAT(size, LU__REAL_NOW(__vsnprintf_chk)(d, size, flag, slen, fmt, ap));
}

LU__API int __snprintf_chk(char *restrict d, size_t size, int flag, size_t slen, const char *restrict fmt,
                           ...)
{
    return LU__FORMAT_VA(size, LU__REAL_NOW(__vsnprintf_chk)(d, size, flag, slen, fmt, ap));
}

LU__API int __vsprintf_chk(char *restrict d, int flag, size_t slen, const char *restrict fmt, va_list ap)
{
    return LU__FORMAT(SIZE_MAX, LU__REAL_NOW(__vsprintf_chk)(d, flag, slen, fmt, ap));
}

LU__API int __sprintf_chk(char *restrict d, int flag, size_t slen, const char *restrict fmt, ...)
{
    return LU__FORMAT_VA(SIZE_MAX, LU__REAL_NOW(__vsprintf_chk)(d, flag, slen, fmt, ap));
}

/* The parsers read past the number to the character that ended it, and
 * skip white space and a sign or a "0x" before it even when nothing is
 * converted: what they read is bounded by where they stopped plus that
 * prefix, and by the terminator. */
static void lu__parsed(const char *s, const char *end, void *pc)
{
    const char *p = s;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
        p++;
    size_t n = (size_t)((end > p ? end : p) - s) + 3;
    lu__touch(s, lu__str_extent(s, n), false, pc);
}

#define LU__PARSER(name, type)                                                                               \
    LU__API type name(const char *restrict s, char **restrict endp, int base)                                \
    {                                                                                                        \
        char *e;                                                                                             \
        type v = LU__REAL_NOW(name)(s, &e, base);                                                            \
        if (lu__watched())                                                                                   \
            lu__parsed(s, e, LU__PC());                                                                      \
        if (endp)                                                                                            \
            *endp = e;                                                                                       \
        return v;                                                                                            \
    }
LU__PARSER(strtol, long)
LU__PARSER(strtoul, unsigned long)
LU__PARSER(strtoll, long long)
LU__PARSER(strtoull, unsigned long long)

/* glibc's atoi and atol are strtol's; they come here only as calls. */
LU__API int atoi(const char *s)
{
    char *e;
    long v = LU__REAL_NOW(strtol)(s, &e, 10);
    if (lu__watched())
        lu__parsed(s, e, LU__PC());
    return (int)v;
}

LU__API long atol(const char *s)
{
    char *e;
    long v = LU__REAL_NOW(strtol)(s, &e, 10);
    if (lu__watched())
        lu__parsed(s, e, LU__PC());
    return v;
}

LU__API long long atoll(const char *s)
{
    char *e;
    long long v = LU__REAL_NOW(strtoll)(s, &e, 10);
    if (lu__watched())
        lu__parsed(s, e, LU__PC());
    return v;
}

/* ---- Sorting and scanning ---- */

/* qsort moves the elements itself; the comparisons are the caller's code,
 * instrumented or not. */
LU__API void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (lu__watched())
        lu__copied(base, base, n * size, LU__PC());
    LU__REAL_NOW(qsort)(base, n, size, cmp);
}

LU__API void qsort_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
                     void *arg)
{
    if (lu__watched())
        lu__copied(base, base, n * size, LU__PC());
    LU__REAL_NOW(qsort_r)(base, n, size, cmp, arg);
}

/* The scanners read their input, at most all of it (the whole string is
 * counted: where they stopped is not returned); what they store through
 * their arguments is not seen. __isoc99_ are the names C99 code calls. */
#define LU__SCANNER(name, vname)                                                                             \
    LU__API int vname(const char *restrict s, const char *restrict fmt, va_list ap)                          \
    {                                                                                                        \
        if (lu__watched())                                                                                   \
            lu__touch(s, lu__str_extent(s, SIZE_MAX), false, LU__PC());                                      \
        return LU__REAL_NOW(vname)(s, fmt, ap);                                                              \
    }                                                                                                        \
    LU__API int name(const char *restrict s, const char *restrict fmt, ...)                                  \
    {                                                                                                        \
        if (lu__watched())                                                                                   \
            lu__touch(s, lu__str_extent(s, SIZE_MAX), false, LU__PC());                                      \
        va_list ap;                                                                                          \
        va_start(ap, fmt);                                                                                   \
        int r = LU__REAL_NOW(vname)(s, fmt, ap);                                                             \
        va_end(ap);                                                                                          \
        return r;                                                                                            \
    }
LU__SCANNER(sscanf, vsscanf)
LU__SCANNER(__isoc99_sscanf, __isoc99_vsscanf)
