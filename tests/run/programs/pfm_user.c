/*
 * A program that uses libpfm4 itself and initializes it in a constructor,
 * before lineup's runtime encodes its watchdog's events with the same
 * library: the runtime must leave the program's library state alone, so
 * the encoding in main succeeds.
 */
#include <assert.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <string.h>

static int init_rc = -1;

__attribute__((constructor)) static void init(void)
{
    init_rc = pfm_initialize();
}

static void *worker(void *arg)
{
    return arg;
}

int main(void)
{
    assert(init_rc == PFM_SUCCESS);
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    struct perf_event_attr attr;
    pfm_perf_encode_arg_t arg;
    memset(&attr, 0, sizeof attr);
    memset(&arg, 0, sizeof arg);
    arg.attr = &attr;
    arg.size = sizeof arg;
    assert(pfm_get_os_event_encoding("perf::TASK-CLOCK", PFM_PLM3, PFM_OS_PERF_EVENT, &arg) == PFM_SUCCESS);
    return 0;
}
