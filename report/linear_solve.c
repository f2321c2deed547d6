/* linear_solve: Gaussian elimination with partial pivoting. */
#include "report/linear_solve.h"

#include <math.h>

int linear_solve(int k, double a[LINEAR_SOLVE_MAX][LINEAR_SOLVE_MAX], double *b, double *x)
{
    double norm = 0;
    for (int r = 0; r < k; r++)
        for (int j = 0; j < k; j++)
            norm = fmax(norm, fabs(a[r][j]));
    for (int c = 0; c < k; c++) {
        int p = c;
        for (int r = c + 1; r < k; r++)
            if (fabs(a[r][c]) > fabs(a[p][c]))
                p = r;
        if (!(fabs(a[p][c]) > 1e-12 * norm))
            return -1;
        for (int j = 0; j < k; j++) {
            double t = a[c][j];
            a[c][j] = a[p][j];
            a[p][j] = t;
        }
        double t = b[c];
        b[c] = b[p];
        b[p] = t;
        for (int r = c + 1; r < k; r++) {
            double f = a[r][c] / a[c][c];
            for (int j = c; j < k; j++)
                a[r][j] -= f * a[c][j];
            b[r] -= f * b[c];
        }
    }
    for (int c = k - 1; c >= 0; c--) {
        double s = b[c];
        for (int j = c + 1; j < k; j++)
            s -= a[c][j] * x[j];
        x[c] = s / a[c][c];
    }
    return 0;
}
