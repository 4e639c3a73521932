/* Built by lineup_add_harness with _FORTIFY_SOURCE asked for by the
 * project's options: the harness must be compiled without it, as
 * lineup-cc compiles it (see cmake/LineupHarness.cmake). */
#include <string.h>
#if defined(_FORTIFY_SOURCE)
#error "_FORTIFY_SOURCE is on in a harness built by lineup_add_harness"
#endif
int fortify_probe(void);
int fortify_probe(void)
{
    return 0;
}
