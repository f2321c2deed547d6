/* The main of the Coz builds of bench/causal.sh: runs the test program's
 * own main (renamed by causal_coz_hook.h) CAUSAL_REPEAT times, so that one
 * Coz run lasts long enough for its experiments. */
#ifndef CAUSAL_REPEAT
#define CAUSAL_REPEAT 200
#endif

int causal_program_main(void);

int main(void)
{
    for (int i = 0; i < CAUSAL_REPEAT; i++)
        if (causal_program_main() != 0)
            return 1;
    return 0;
}
