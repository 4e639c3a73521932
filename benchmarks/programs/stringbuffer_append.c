/*
 * stringbuffer_append: a string buffer whose methods each lock the buffer
 * (like Java's StringBuffer, the model of the jdk1.4 bug in SCTBench's
 * CB.stringbuffer); append_buffer(dst, src) copies src into dst.
 *
 * Bug: append_buffer() asks for src's length in one call and copies its
 * characters in another. Each call locks src, but src can be truncated in
 * between; the copy then asks for more characters than src has, which
 * get_chars() reports as an out-of-bounds request.
 *
 * Failing interleaving: the appender reads src's length (5) and is
 * preempted before get_chars(); another thread truncates src to 0; the
 * appender asks for 5 characters.
 *
 * Preemptions: 1 (the appender between the two calls).
 * Kind: assertion (bounds check in get_chars).
 * Fixed (-DFIXED): the appender holds src's lock across both steps
 * (src's mutex is recursive, as a Java monitor is).
 * Native (native.sh): failed once in 1200 gcc runs, never with clang.
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <string.h>

#define CAP 16

struct sbuf {
    pthread_mutex_t lock;
    int len;
    char chars[CAP];
};

static struct sbuf src, dst;

static void sb_init(struct sbuf *s, const char *text)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&s->lock, &a);
    pthread_mutexattr_destroy(&a);
    s->len = (int)strlen(text);
    memcpy(s->chars, text, (size_t)s->len);
}

static int length(struct sbuf *s)
{
    pthread_mutex_lock(&s->lock);
    int n = s->len;
    pthread_mutex_unlock(&s->lock);
    return n;
}

static void get_chars(struct sbuf *s, int n, char *out)
{
    pthread_mutex_lock(&s->lock);
    assert(n <= s->len); /* StringIndexOutOfBoundsException */
    memcpy(out, s->chars, (size_t)n);
    pthread_mutex_unlock(&s->lock);
}

static void truncate_to(struct sbuf *s, int n)
{
    pthread_mutex_lock(&s->lock);
    if (n < s->len)
        s->len = n;
    pthread_mutex_unlock(&s->lock);
}

static void append_buffer(struct sbuf *d, struct sbuf *s)
{
    char tmp[CAP];
#ifdef FIXED
    pthread_mutex_lock(&s->lock);
#endif
    int n = length(s);
    get_chars(s, n, tmp);
#ifdef FIXED
    pthread_mutex_unlock(&s->lock);
#endif
    pthread_mutex_lock(&d->lock);
    if (d->len + n <= CAP) {
        memcpy(d->chars + d->len, tmp, (size_t)n);
        d->len += n;
    }
    pthread_mutex_unlock(&d->lock);
}

static void *appender(void *arg)
{
    (void)arg;
    append_buffer(&dst, &src);
    return NULL;
}

static void *truncater(void *arg)
{
    (void)arg;
    truncate_to(&src, 0);
    return NULL;
}

int main(void)
{
    sb_init(&src, "hello");
    sb_init(&dst, "> ");
    pthread_t a, t;
    pthread_create(&a, NULL, appender, NULL);
    pthread_create(&t, NULL, truncater, NULL);
    pthread_join(a, NULL);
    pthread_join(t, NULL);
    assert(length(&dst) == 2 || length(&dst) == 7);
    return 0;
}
