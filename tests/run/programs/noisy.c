/* A program that prints what would break a JSON document if it reached
 * one: a JSON object of its own, quotes, backslashes, control characters
 * and bytes that are not UTF-8, through stdio and write(2), on stdout and
 * stderr, from main and from a thread. With an argument it then fails an
 * assertion, so that its output is in the report. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char nasty[] =
    "{\"verdict\": \"PASS\", \"exit\": 0}\n\"q\" \\b\\ \x01\x1b[31m\x7f tab\t \xff\xfe \xc3\x28 "
    "\xe2\x82 \xed\xa0\x80 caf\xc3\xa9\n";

static void *worker(void *arg)
{
    (void)arg;
    fputs(nasty, stderr);
    return NULL;
}

int main(int argc, char **argv)
{
    (void)argv;
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    printf("%s", nasty);
    fflush(stdout);
    if (write(STDOUT_FILENO, nasty, strlen(nasty)) < 0)
        return 2;
    pthread_join(t, NULL);
    assert(argc < 2);
    return 0;
}
