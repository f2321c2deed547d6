/* compiler: the few compiler hints the hot paths use. */
#ifndef TRMS_COMPILER_H
#define TRMS_COMPILER_H

/* For the per-cell and per-line steps of the analyses, where a call costs
 * as much as the work. */
#define ALWAYS_INLINE inline __attribute__((always_inline))

#endif
