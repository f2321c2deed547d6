/* Work for the causal prediction programs (tests/e2e/causal_predict_e2e.py):
 * a loop of N register-only iterations, no memory access, so that a
 * routine's instructions are what the program says and the trace stays
 * small. The empty asm keeps -O2 from folding the loop away. */
#ifndef CAUSAL_WORK_H
#define CAUSAL_WORK_H

/* CUT: the percentage of the cut routine's work left out, a compile-time
 * constant (0, 25, 50, 75). */
#ifndef CUT
#define CUT 0
#endif
#define CUT_ITERATIONS(n) ((n) * (100 - CUT) / 100)

static inline long work(long n)
{
    long x = 0;
    for (long i = 0; i < n; i++) {
        x += i;
        __asm__ volatile("" : "+r"(x));
    }
    return x;
}

#endif
