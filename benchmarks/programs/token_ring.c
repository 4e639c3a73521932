/*
 * token_ring: four stations pass a token round a ring for two laps;
 * station 0 starts each lap and counts it, the others check the lap count
 * when the token reaches them. Token and lap counter are volatile ints, as
 * in older code that uses volatile for shared flags; stations wait for the
 * token with sched_yield().
 *
 * Bug: station 0 passes the token on before it records the new lap. A
 * station that gets the token in between sees the previous lap number.
 *
 * Failing interleaving: station 0 stores token = 1 and is preempted before
 * storing laps; station 1 takes the token and reads the old lap count.
 *
 * Preemptions: 1 (station 0 between its two stores; the hand-offs between
 * stations are free, the waiting stations are spinning).
 * Kind: assertion in a station.
 * Fixed (-DFIXED): station 0 records the lap, then passes the token.
 * Native (native.sh): never failed in 1200 runs per compiler (gcc, clang).
 */
#ifdef NDEBUG
#error "the benchmark programs check their result with assert"
#endif
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#define STATIONS 4
#define LAPS 2

static volatile int token; /* the station that holds the token */
static volatile int laps;  /* laps started, written by station 0 only */

static void *station(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int lap = 0; lap < LAPS; lap++) {
        while (token != me)
            sched_yield();
        if (me == 0) {
#ifdef FIXED
            laps = lap + 1;
            token = 1;
#else
            token = 1;
            laps = lap + 1;
#endif
        } else {
            assert(laps == lap + 1);
            token = (me + 1) % STATIONS;
        }
    }
    return NULL;
}

int main(void)
{
    pthread_t t[STATIONS];
    for (int i = 0; i < STATIONS; i++)
        pthread_create(&t[i], NULL, station, (void *)(intptr_t)i);
    for (int i = 0; i < STATIONS; i++)
        pthread_join(t[i], NULL);
    assert(laps == LAPS && token == 0);
    return 0;
}
