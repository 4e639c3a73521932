/*
 * lu_sched_config.tls = AUTO in a program without thread-local variables of
 * its own: the controlled threads share the controller's TLS (one errno
 * address for all, each thread's value kept across switches), until a
 * library with a TLS segment is loaded; from the next execution on each
 * thread has its pool thread's, and that library's variables are per thread.
 * Keep this program free of __thread and _Thread_local: that is the point.
 */
#define _GNU_SOURCE
#include "lu_sched.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lu_test.h"
#include "lu_test_sched.h"

#define NT 3

static _Atomic int shared;

/* Kernel threads of this process: under a shared TLS the controlled
 * threads need none of their own, only stacks. */
static int kernel_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    if (!d)
        return -1;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}
static int *(*module_var)(void); /* the loaded library's thread-local variable */
static uintptr_t errno_at[NT], var_at[NT];
static int errno_kept[NT];

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    errno_kept[id] = 1;
    for (int i = 0; i < 3; i++) {
        errno = 200 + id;
        lu_sched_access_begin(LU_SCHED_K_RMW, &shared, 1); /* others run here */
        atomic_fetch_add(&shared, 1);
        lu_sched_access_end(&shared, true);
        errno_kept[id] &= errno == 200 + id;
    }
    errno_at[id] = (uintptr_t)&errno;
    var_at[id] = module_var ? (uintptr_t)module_var() : 0;
    return NULL;
}

static void *main_fn(void *arg)
{
    (void)arg;
    for (int i = 1; i < NT; i++)
        lu_sched_spawn(worker, (void *)(intptr_t)i);
    worker((void *)0);
    lu_sched_join_all(2);
    return NULL;
}

/* Runs a random walk of 50 executions; how many kept errno, and whether the
 * threads' errno (and the module's variable) had one address. */
static void walk(struct lu_sched *s, int *kept, bool *one_errno, bool *one_var)
{
    struct lu_sched_result res;
    *kept = 0;
    *one_errno = *one_var = true;
    for (int run = 0; run < 50; run++) {
        CHECK(lu_sched_run(s, main_fn, NULL, &res) == 0 && res.outcome == LU_SCHED_OUT_COMPLETE, "run %d",
              run);
        for (int i = 0; i < NT; i++) {
            *kept += errno_kept[i];
            *one_errno &= errno_at[i] == errno_at[0];
            *one_var &= var_at[i] == var_at[0];
        }
    }
}

int main(int argc, char **argv)
{
    const char *who = "?";
    CHECK(lu_sched_tls_owner(&who) == 0, "no object of this program has TLS but libc and lineup (%s)",
          who ? who : "none");
    struct lu_sched_trace *tr = lu_test_trace(1 << 12);
    struct lu_sched_config cfg = lu_test_config(LU_SCHED_RANDOM, -1, tr);
    cfg.seed = 3;
    struct lu_sched *s = lu_test_sched(&cfg);
    int kept;
    bool one_errno, one_var;
    walk(s, &kept, &one_errno, &one_var);
    CHECK(lu_sched_tls_shared(s) && one_errno, "auto: the threads share one TLS (one errno address)");
    CHECK(kept == 50 * NT, "auto, shared: each thread keeps its errno across switches (%d of %d)", kept,
          50 * NT);
    int kt = kernel_threads();
    CHECK(kt == 1, "auto, shared: %d threads ran on stacks of their own, no pool thread (%d kernel threads)",
          NT, kt);

    if (argc < 2) {
        printf("usage: %s TLS_MODULE.so\n", argv[0]);
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW);
    CHECK(h != NULL, "dlopen %s: %s", argv[1], h ? "" : dlerror());
    if (!h)
        return 1;
    module_var = (int *(*)(void))dlsym(h, "tls_module_var");
    who = NULL;
    CHECK(lu_sched_tls_owner(&who) == 1 && who && strstr(who, "tls_module"),
          "a loaded library with thread-local variables is named (%s)", who ? who : "none");
    walk(s, &kept, &one_errno, &one_var);
    CHECK(!lu_sched_tls_shared(s) && !one_errno && !one_var,
          "auto, after the load: every thread has its own TLS, the library's variable too");
    CHECK(kept == 50 * NT, "auto, per-thread: each thread keeps its errno (%d of %d)", kept, 50 * NT);
    kt = kernel_threads();
    CHECK(kt == NT + 1, "auto, per-thread: a pool thread lends each its TLS (%d kernel threads)", kt);
    lu_sched_destroy(s);
    free(tr);
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
