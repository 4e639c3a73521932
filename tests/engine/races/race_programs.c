/*
 * The scenario programs of the race detector tests (race_programs.h says
 * what each does). Compiled by lineup-cc: plain accesses reach the
 * detector, atomics and pthread calls are scheduling points whose
 * happens-before edges the scheduler tracks.
 */
#include "race_programs.h"

#include <pthread.h>
#include <stdint.h>
#include <malloc.h>
#include <stdlib.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

/* ---- two unsynchronized threads ---- */

int race_plain_x;
int race_plain_seen;

void *race_plain_a(void *arg)
{
    (void)arg;
    race_plain_x = 1;
    return NULL;
}

void *race_plain_b(void *arg)
{
    (void)arg;
    race_plain_x = 2;
    return NULL;
}

void *race_plain_reader(void *arg)
{
    (void)arg;
    race_plain_seen = race_plain_x;
    return NULL;
}

void *race_plain_main(void *variant)
{
    race_plain_x = 0;
    race_plain_seen = -1;
    pthread_t t[2];
    pthread_create(&t[0], NULL, race_plain_a, NULL);
    pthread_create(&t[1], NULL, variant == RACE_PLAIN_RW ? race_plain_reader : race_plain_b, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return NULL;
}

/* ---- many racy accesses, two locations ---- */

int race_multi_x, race_multi_y;

static void *race_multi_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++) {
        race_multi_x++;
        race_multi_y++;
        sched_yield(); /* a scheduling point that orders nothing */
    }
    return NULL;
}

void *race_multi_main(void *arg)
{
    (void)arg;
    race_multi_x = race_multi_y = 0;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, race_multi_thread, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return NULL;
}

/* ---- mutex ---- */

int race_mutex_x;
static pthread_mutex_t race_mutex_m;

static void *race_mutex_locked(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++) {
        pthread_mutex_lock(&race_mutex_m);
        race_mutex_x++;
        pthread_mutex_unlock(&race_mutex_m);
    }
    return NULL;
}

static void *race_mutex_unlocked(void *arg)
{
    (void)arg;
    for (int i = 0; i < 2; i++) {
        race_mutex_x++;
        sched_yield();
    }
    return NULL;
}

void *race_mutex_main(void *variant)
{
    pthread_mutex_init(&race_mutex_m, NULL);
    race_mutex_x = 0;
    pthread_t t[3];
    pthread_create(&t[0], NULL, race_mutex_locked, NULL);
    pthread_create(&t[1], NULL, race_mutex_locked, NULL);
    pthread_create(&t[2], NULL, variant == RACE_FIXED ? race_mutex_locked : race_mutex_unlocked, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    pthread_mutex_destroy(&race_mutex_m);
    return NULL;
}

/* ---- message passing through an atomic flag ---- */

int race_mp_data;
int race_mp_seen;
static _Atomic int race_mp_flag;

static void *race_mp_producer(void *arg)
{
    race_mp_data = 42;
    atomic_store_explicit(&race_mp_flag, 1, memory_order_release);
    (void)arg;
    return NULL;
}

static void *race_mp_producer_late(void *arg)
{
    atomic_store_explicit(&race_mp_flag, 1, memory_order_release);
    race_mp_data = 42;
    (void)arg;
    return NULL;
}

static void *race_mp_consumer(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&race_mp_flag, memory_order_acquire))
        ;
    race_mp_seen = race_mp_data;
    return NULL;
}

void *race_mp_main(void *variant)
{
    atomic_init(&race_mp_flag, 0);
    race_mp_data = 0;
    race_mp_seen = -1;
    pthread_t t[2];
    pthread_create(&t[0], NULL, race_mp_consumer, NULL);
    pthread_create(&t[1], NULL, variant == RACE_FIXED ? race_mp_producer : race_mp_producer_late, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return NULL;
}

/* ---- a failed CAS releases nothing ---- */

int race_fcas_data;
static _Atomic int race_fcas_word, race_fcas_flag;

static void *race_fcas_producer(void *arg)
{
    (void)arg;
    race_fcas_data = 42;
    int expected = 0;
    atomic_compare_exchange_strong(&race_fcas_word, &expected, 1);
    atomic_store_explicit(&race_fcas_flag, 1, memory_order_relaxed);
    return NULL;
}

static void *race_fcas_consumer(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&race_fcas_flag, memory_order_relaxed))
        ;
    (void)atomic_load_explicit(&race_fcas_word, memory_order_acquire);
    race_mp_seen = race_fcas_data;
    return NULL;
}

void *race_fcas_main(void *variant)
{
    atomic_init(&race_fcas_word, variant == RACE_FIXED ? 0 : 5);
    atomic_init(&race_fcas_flag, 0);
    race_fcas_data = 0;
    pthread_t t[2];
    pthread_create(&t[0], NULL, race_fcas_consumer, NULL);
    pthread_create(&t[1], NULL, race_fcas_producer, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return NULL;
}

/* ---- plain and atomic accesses to one variable ---- */

unsigned race_mix_x;
/* The plain read goes through a pointer the compiler cannot see through:
 * clang would otherwise reuse the value of the last atomic load. */
static unsigned *volatile race_mix_ptr = &race_mix_x;

__attribute__((noinline)) void race_mix_writer(void)
{
    __atomic_store_n(&race_mix_x, 1, __ATOMIC_RELEASE);
}

__attribute__((noinline)) void race_mix_reader(void *variant)
{
    if (variant == RACE_FIXED)
        while (!__atomic_load_n(&race_mix_x, __ATOMIC_ACQUIRE))
            ;
    else
        while (!__atomic_load_n(&race_mix_x, __ATOMIC_RELAXED))
            ;
    unsigned *p = race_mix_ptr;
    race_mp_seen = (int)*p; /* plain: ordered after the store by the acquire only */
}

static void *race_mix_writer_thread(void *arg)
{
    (void)arg;
    race_mix_writer();
    return NULL;
}

static void *race_mix_reader_thread(void *variant)
{
    race_mix_reader(variant);
    return NULL;
}

void *race_mix_main(void *variant)
{
    race_mix_x = 0;
    pthread_t t[2];
    pthread_create(&t[0], NULL, race_mix_reader_thread, variant);
    pthread_create(&t[1], NULL, race_mix_writer_thread, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return NULL;
}

unsigned race_mixrmw_x;
static unsigned race_mixrmw_flag;

__attribute__((noinline)) void race_mixrmw_init(void *variant)
{
    race_mixrmw_x = 5; /* plain */
    if (variant == RACE_FIXED)
        __atomic_store_n(&race_mixrmw_flag, 1, __ATOMIC_RELEASE);
    else
        __atomic_store_n(&race_mixrmw_flag, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) void race_mixrmw_add(void)
{
    while (!__atomic_load_n(&race_mixrmw_flag, __ATOMIC_ACQUIRE))
        ;
    __atomic_fetch_add(&race_mixrmw_x, 1, __ATOMIC_RELAXED);
}

static void *race_mixrmw_init_thread(void *variant)
{
    race_mixrmw_init(variant);
    return NULL;
}

static void *race_mixrmw_add_thread(void *arg)
{
    (void)arg;
    race_mixrmw_add();
    return NULL;
}

void *race_mixrmw_main(void *variant)
{
    race_mixrmw_x = 0;
    race_mixrmw_flag = 0;
    pthread_t t[2];
    pthread_create(&t[0], NULL, race_mixrmw_add_thread, NULL);
    pthread_create(&t[1], NULL, race_mixrmw_init_thread, variant);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return NULL;
}

/* ---- create and join ---- */

int race_cj_x;
int race_cj_seen;

static void *race_cj_child(void *arg)
{
    (void)arg;
    race_cj_x += 1;
    return NULL;
}

void *race_cj_main(void *variant)
{
    race_cj_x = 1;
    pthread_t t;
    pthread_create(&t, NULL, race_cj_child, NULL);
    if (variant != RACE_FIXED)
        race_cj_seen = race_cj_x;
    pthread_join(t, NULL);
    if (variant == RACE_FIXED)
        race_cj_seen = race_cj_x;
    return NULL;
}

/* ---- semaphore ---- */

int race_sem_data;
int race_sem_seen;
static sem_t race_sem_s;

static void *race_sem_producer(void *arg)
{
    (void)arg;
    race_sem_data = 42;
    sem_post(&race_sem_s);
    return NULL;
}

static void *race_sem_consumer(void *arg)
{
    (void)arg;
    sem_wait(&race_sem_s);
    race_sem_seen = race_sem_data;
    return NULL;
}

static void *race_sem_consumer_early(void *arg)
{
    (void)arg;
    race_sem_seen = race_sem_data;
    sem_wait(&race_sem_s);
    return NULL;
}

void *race_sem_main(void *variant)
{
    sem_init(&race_sem_s, 0, 0);
    race_sem_data = 0;
    race_sem_seen = -1;
    pthread_t t[2];
    pthread_create(&t[0], NULL, variant == RACE_FIXED ? race_sem_consumer : race_sem_consumer_early, NULL);
    pthread_create(&t[1], NULL, race_sem_producer, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    sem_destroy(&race_sem_s);
    return NULL;
}

/* ---- condition variable ---- */

int race_cond_data;
static int race_cond_ready;
int race_cond_seen;
static pthread_mutex_t race_cond_m;
static pthread_cond_t race_cond_c;

static void *race_cond_producer(void *arg)
{
    race_cond_data = 42; /* outside the lock: ordered by the unlock that follows */
    pthread_mutex_lock(&race_cond_m);
    race_cond_ready = 1;
    pthread_cond_signal(&race_cond_c);
    pthread_mutex_unlock(&race_cond_m);
    (void)arg;
    return NULL;
}

static void *race_cond_producer_late(void *arg)
{
    pthread_mutex_lock(&race_cond_m);
    race_cond_ready = 1;
    pthread_cond_signal(&race_cond_c);
    pthread_mutex_unlock(&race_cond_m);
    race_cond_data = 42;
    (void)arg;
    return NULL;
}

static void *race_cond_consumer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&race_cond_m);
    while (!race_cond_ready)
        pthread_cond_wait(&race_cond_c, &race_cond_m);
    pthread_mutex_unlock(&race_cond_m);
    race_cond_seen = race_cond_data;
    return NULL;
}

void *race_cond_main(void *variant)
{
    pthread_mutex_init(&race_cond_m, NULL);
    pthread_cond_init(&race_cond_c, NULL);
    race_cond_ready = 0;
    race_cond_data = 0;
    race_cond_seen = -1;
    pthread_t t[2];
    pthread_create(&t[0], NULL, race_cond_consumer, NULL);
    pthread_create(&t[1], NULL, variant == RACE_FIXED ? race_cond_producer : race_cond_producer_late, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    pthread_cond_destroy(&race_cond_c);
    pthread_mutex_destroy(&race_cond_m);
    return NULL;
}

/* ---- reads only ---- */

int race_rr_x;
int race_rr_seen[2];

static void *race_rr_reader(void *arg)
{
    race_rr_seen[arg != NULL] = race_rr_x;
    sched_yield();
    race_rr_seen[arg != NULL] += race_rr_x;
    return NULL;
}

static void *race_rr_writer(void *arg)
{
    (void)arg;
    race_rr_x = 7;
    return NULL;
}

void *race_rr_main(void *variant)
{
    race_rr_x = 5;
    pthread_t t[2];
    pthread_create(&t[0], NULL, race_rr_reader, NULL);
    pthread_create(&t[1], NULL, variant == RACE_FIXED ? race_rr_reader : race_rr_writer, (void *)1);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return NULL;
}

/* ---- neighbouring fields ---- */

struct race_bytes_s race_bytes;

static void *race_bytes_ac(void *arg)
{
    (void)arg;
    race_bytes.a = 1;
    race_bytes.c = 3;
    return NULL;
}

static void *race_bytes_bd(void *arg)
{
    race_bytes.b = 2;
    race_bytes.d = 4;
    if (arg)
        race_bytes.c = 5;
    return NULL;
}

void *race_bytes_main(void *variant)
{
    pthread_t t[2];
    pthread_create(&t[0], NULL, race_bytes_ac, NULL);
    pthread_create(&t[1], NULL, race_bytes_bd, variant == RACE_FIXED ? NULL : (void *)1);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return NULL;
}

/* ---- libc's memory and string functions ---- */

char race_libc_buf[32];
static char race_libc_other[32];

/* so that the compiler cannot expand the calls inline */
static size_t race_opaque(size_t n)
{
    __asm__("" : "+r"(n));
    return n;
}

__attribute__((noinline)) void *race_libc_writer(void *arg)
{
    (void)arg;
    memset(race_libc_buf, 'a', race_opaque(16));
    return NULL;
}

__attribute__((noinline)) void *race_libc_copier(void *src)
{
    char local[16];
    memcpy(local, src, race_opaque(sizeof local));
    return local[0] == 'a' ? src : NULL;
}

__attribute__((noinline)) void *race_libc_comparer(void *src)
{
    return strcmp(src, "a") == 0 ? src : NULL;
}

void *race_libc_main(void *variant)
{
    char *src = variant == RACE_FIXED ? race_libc_other : race_libc_buf;
    pthread_t t[2];
    pthread_create(&t[0], NULL, race_libc_writer, NULL);
    pthread_create(&t[1], NULL, variant == RACE_LIBC_STRCMP ? race_libc_comparer : race_libc_copier, src);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return NULL;
}

/* ---- a race on some schedules only ---- */

int race_some_data;
static _Atomic int race_some_flag;

static void *race_some_setter(void *arg)
{
    (void)arg;
    race_some_data = 1;
    atomic_store(&race_some_flag, 1);
    return NULL;
}

static void *race_some_checker(void *arg)
{
    (void)arg;
    if (!atomic_load(&race_some_flag))
        race_some_data = 2;
    return NULL;
}

void *race_some_main(void *arg)
{
    (void)arg;
    atomic_init(&race_some_flag, 0);
    race_some_data = 0;
    pthread_t t[2];
    pthread_create(&t[0], NULL, race_some_setter, NULL);
    pthread_create(&t[1], NULL, race_some_checker, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return NULL;
}

/* ---- relaxed atomics and fences ---- */

int race_relaxed_data;
static _Atomic int race_relaxed_flag;
static void *race_relaxed_variant;
static volatile int race_relaxed_sink;

static void *race_relaxed_producer(void *arg)
{
    (void)arg;
    race_relaxed_data = 7;
    if (race_relaxed_variant != RACE_BUGGY)
        atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&race_relaxed_flag, 1, memory_order_relaxed);
    return NULL;
}

static void *race_relaxed_consumer(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&race_relaxed_flag, memory_order_relaxed))
        sched_yield();
    if (race_relaxed_variant != RACE_BUGGY)
        atomic_thread_fence(memory_order_acquire);
    race_relaxed_sink = race_relaxed_data;
    return NULL;
}

void *race_relaxed_main(void *variant)
{
    race_relaxed_variant = variant;
    race_relaxed_data = 0;
    atomic_init(&race_relaxed_flag, 0);
    pthread_t t[2];
    pthread_create(&t[0], NULL, race_relaxed_consumer, NULL);
    pthread_create(&t[1], NULL, race_relaxed_producer, NULL);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    return NULL;
}

/* ---- barrier and once ---- */

int race_barrier_x[2];
static pthread_barrier_t race_barrier_b;
static void *race_barrier_variant;
static volatile int race_barrier_sink;

static void *race_barrier_worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    race_barrier_x[me] = me + 1;
    if (race_barrier_variant == RACE_BUGGY)
        race_barrier_sink = race_barrier_x[1 - me];
    pthread_barrier_wait(&race_barrier_b);
    if (race_barrier_variant != RACE_BUGGY)
        race_barrier_sink = race_barrier_x[1 - me];
    return NULL;
}

void *race_barrier_main(void *variant)
{
    race_barrier_variant = variant;
    race_barrier_x[0] = race_barrier_x[1] = 0;
    pthread_barrier_init(&race_barrier_b, NULL, 2);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, race_barrier_worker, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&race_barrier_b);
    return NULL;
}

int race_once_x;
static pthread_once_t race_once_ctl;
static void *race_once_variant;
static volatile int race_once_sink;

static _Atomic int race_once_step;

static void race_once_init(void)
{
    race_once_x = 42;
    /* a scheduling point inside the initialization, so that the other
     * caller can find it running and wait for it */
    atomic_store(&race_once_step, 1);
}

static void *race_once_worker(void *arg)
{
    if (race_once_variant == RACE_BUGGY && arg)
        race_once_sink = race_once_x;
    pthread_once(&race_once_ctl, race_once_init);
    race_once_sink = race_once_x;
    return NULL;
}

void *race_once_main(void *variant)
{
    race_once_variant = variant;
    race_once_x = 0;
    race_once_ctl = (pthread_once_t)PTHREAD_ONCE_INIT;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, race_once_worker, (void *)(intptr_t)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return NULL;
}

/* ---- heap blocks ---- */

#define RACE_HEAP_BIG (512 * 1024)

long race_heap_reused;
static char *race_heap_block;
static char *volatile race_heap_first, *volatile race_heap_second;

void *race_heap_user(void *arg)
{
    (void)arg;
    race_heap_block[0] = 1;
    return NULL;
}

void *race_heap_freer(void *arg)
{
    (void)arg;
    free(race_heap_block);
    return NULL;
}

static void *race_heap_old(void *arg)
{
    (void)arg;
    char *p = malloc(RACE_HEAP_BIG);
    p[0] = 1;
    race_heap_first = p;
    __asm__ volatile("" ::: "memory"); /* keep the store: it is dead before free */
    free(p);
    return NULL;
}

static void *race_heap_new(void *arg)
{
    (void)arg;
    char *q = malloc(RACE_HEAP_BIG);
    q[0] = 2;
    race_heap_second = q;
    __asm__ volatile("" ::: "memory");
    free(q);
    return NULL;
}

void *race_heap_main(void *variant)
{
    pthread_t t[2];
    race_heap_first = race_heap_second = NULL;
    /* a fixed threshold keeps big blocks mmap'd (glibc otherwise raises it
     * after the first free), so the second thread gets the same address */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    if (variant == RACE_BUGGY) {
        race_heap_block = malloc(64);
        pthread_create(&t[0], NULL, race_heap_user, NULL);
        pthread_create(&t[1], NULL, race_heap_freer, NULL);
    } else {
        pthread_create(&t[0], NULL, race_heap_old, NULL);
        pthread_create(&t[1], NULL, race_heap_new, NULL);
    }
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    if (variant != RACE_BUGGY && race_heap_first && race_heap_first == race_heap_second)
        race_heap_reused++;
    return NULL;
}

/* ---- overhead measurement ---- */

int race_bench_arr[RACE_BENCH_MAX];
static long race_bench_n;
static int race_bench_span;

/* Called by the controller (uncontrolled: the writes are not analysed). */
void race_bench_set(long n, int span)
{
    race_bench_n = n;
    race_bench_span = span;
}

void *race_bench_main(void *arg)
{
    (void)arg;
    int span = race_bench_span;
    for (long i = 0, j = 0; i < race_bench_n; i++) {
        race_bench_arr[j] = (int)i;
        if (++j == span)
            j = 0;
    }
    return NULL;
}
