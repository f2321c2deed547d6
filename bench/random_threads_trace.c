/* trms-random-threads-trace: the text event trace of issue 15's stress
 * case, printed on stdout for `trms import - -o REC`:
 *
 *   trms-random-threads-trace [ACCESSES] [SEED]     (default 30000000, 1)
 *
 * Four threads take turns of 64 accesses (the next thread drawn at random);
 * each access is a read (3 in 4) or a write of 8 bytes at a random aligned
 * address of one 32 MiB region all threads share, so cells keep changing
 * hands and reuse distances are long. Each thread runs one of 16 routines
 * at a time, returning and calling the next every 4096 of its accesses, and
 * spends 64 instructions per turn. Text, so that any trms build imports
 * it: the benchmarks analyze it with an old build and a new one side by
 * side. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define REGION_BASE UINT64_C(0x10000000)
#define REGION_BYTES (UINT64_C(32) << 20)
#define TURN 64
#define ACTIVATION 4096
#define ROUTINES 16

static uint64_t next_random(uint64_t *s)
{
    /* splitmix64: reproducible on every machine */
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    uint64_t accesses = argc > 1 ? strtoull(argv[1], NULL, 10) : 30000000;
    uint64_t state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    static char buf[1 << 20];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    uint64_t done_by[THREADS] = {0};
    int started[THREADS] = {0};
    for (uint64_t done = 0; done < accesses;) {
        unsigned t = (unsigned)(next_random(&state) % THREADS);
        printf("thread %u\n", t + 1);
        if (!started[t]) {
            printf("call routine_%u\n", (unsigned)(next_random(&state) % ROUTINES));
            started[t] = 1;
        }
        for (unsigned k = 0; k < TURN && done < accesses; k++, done++) {
            uint64_t r = next_random(&state);
            uint64_t addr = REGION_BASE + (r >> 8) % (REGION_BYTES / 8) * 8;
            printf("%s 0x%" PRIx64 " 8\n", (r & 3) == 0 ? "write" : "read", addr);
            if (++done_by[t] % ACTIVATION == 0)
                printf("return\ncall routine_%u\n", (unsigned)(next_random(&state) % ROUTINES));
        }
        printf("cost %u\n", TURN);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
