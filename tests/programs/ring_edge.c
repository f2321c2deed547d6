/* Loops whose every superblock has a helper-recorded access (fnstenv's
 * 28-byte environment, a Valgrind dirty helper) between inline-recorded
 * loads and stores. Each loop appends the same few words per turn, so the
 * recorder's ring segments fill in steady steps and the superblock that
 * ends a segment starts with exactly the room its inline words need: the
 * helper's word must be reserved too, or the stores after it run past the
 * segment (which `trms record` refuses: "the recorder's ring announced
 * ... bytes"). The loops are in assembly so that -O0 adds nothing to them.
 *
 *   ring_edge N    (N turns of each loop) */
#include <stdio.h>
#include <stdlib.h>

static char environment[28];
static long value[2];

#define LOOP(name, before, after)                                              \
    static void name(long n)                                                   \
    {                                                                          \
        __asm__ volatile("1:\n\t" before "fnstenv (%[env])\n\t" after          \
                         "dec %[n]\n\t"                                        \
                         "jnz 1b\n\t"                                          \
                         : [n] "+r"(n)                                         \
                         : [v] "r"(value), [env] "r"(environment)             \
                         : "rax", "memory", "cc");                             \
    }

#define LOAD "mov (%[v]), %%rax\n\t"
#define STORE "mov %%rax, (%[v])\n\t"

LOOP(load_env_store, LOAD, STORE)
LOOP(env_store_store, "", STORE STORE)
LOOP(load_load_env_store, LOAD "add 8(%[v]), %%rax\n\t", STORE)

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    if (n < 1)
        return 2;
    load_env_store(n);
    env_store_store(n);
    load_load_env_store(n);
    printf("%ld\n", value[0]);
    return 0;
}
