/* linear_solve: small dense linear systems, for the growth fits. */
#ifndef TRMS_LINEAR_SOLVE_H
#define TRMS_LINEAR_SOLVE_H

#define LINEAR_SOLVE_MAX 7

/* Solves the K x K system A x = B (K <= LINEAR_SOLVE_MAX) by elimination
 * with partial pivoting; returns non-zero when A is singular (a pivot under
 * 1e-12 of its largest entry). A and B are destroyed. */
int linear_solve(int k, double a[LINEAR_SOLVE_MAX][LINEAR_SOLVE_MAX], double *b, double *x);

#endif
