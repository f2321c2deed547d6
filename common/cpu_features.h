/* cpu_features: what the processor running us does fast, for the few hot
 * loops that have a variant for it. */
#ifndef TRMS_CPU_FEATURES_H
#define TRMS_CPU_FEATURES_H

/* Whether BMI2's pext is there and fast (a few cycles): Intel's since
 * Haswell and AMD's since Zen 3; AMD's before (families 15h and 17h)
 * spell it out in microcode, slower than the shifts it replaces. */
int cpu_fast_pext(void);

/* FORBID: cpu_fast_pext() says no from here, whatever the processor (so
 * that tests read both ways on one machine); 0 undoes it. */
void cpu_pext_forbid(int forbid);

#endif
