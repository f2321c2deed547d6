/* The main of the Coz builds of bench/causal.sh: runs the test program's
 * own main (renamed by causal_coz_hook.h) again and again for
 * CAUSAL_COZ_SECONDS seconds of wall time (environment; default 15), so
 * that one Coz run holds a few dozen of its half-second experiments
 * whatever the machine's load. */
#include <stdlib.h>
#include <time.h>

int causal_program_main(void);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
    const char *text = getenv("CAUSAL_COZ_SECONDS");
    double seconds = text ? atof(text) : 15.0;
    double end = now() + seconds;
    do {
        if (causal_program_main() != 0)
            return 1;
    } while (now() < end);
    return 0;
}
