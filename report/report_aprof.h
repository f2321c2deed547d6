/* report_aprof: the classic aprof report (format version 6), for users of
 * aprof's viewer.
 *
 * One file per thread (or one for all, with threads aggregated) and input
 * metric: DIR/PROG-tTID-rms.aprof with RMS as the input size (`i rms`) and
 * DIR/PROG-tTID-drms.aprof with TRMS (`i drms`, aprof's name for it). Cost
 * is instructions (`m vex-instr`), the memory resolution our cell size
 * (`t`). Each routine is an `r "NAME" "OBJECT" ID` line followed by its
 * `p ID N MIN MAX SUM SQR CALLS REAL_SUM SELF_SUM SELF_MIN SELF_MAX
 * SELF_SQR` tuples; with calling contexts, by `q CONTEXT ...` tuples of its
 * contexts instead, and the tree as `x ID CONTEXT PARENT` lines (-1 for the
 * root) at the end. The drms input statistics aprof appended to `p` lines
 * (induced input per tuple) are not written: trms keeps them per routine,
 * not per tuple. */
#ifndef TRMS_REPORT_APROF_H
#define TRMS_REPORT_APROF_H

#include "common/error.h"
#include "report/report_load.h"
#include "report/report_model.h"

/* Writes the files into DIR (created when missing). */
int report_aprof(const char *dir, const struct report_model *m, const struct loaded_reports *l,
                 struct trms_error *err);

#endif
