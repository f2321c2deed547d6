/* report_fold: the call chains a ranking folds. A frame that spends under
 * REPORT_PASS_SELF_SHARE of its cost in its own code, and whose other cost
 * is one callee's (a row of its thread costing within REPORT_PASS_SLACK
 * of it), only passes that cost on: ranked by cumulative cost, a chain of
 * them (lzma_code > 0xb070 > ... > the match finder) fills the top rows
 * with one cost. Each such frame is folded into the deepest frame of its
 * chain, the one that does the work; the reports list folded frames on
 * demand (text: --top 0; HTML: a switch). Without calling contexts the
 * callee is recognised by its cost: the row of the thread whose cost is
 * the frame's cost less its own. */
#ifndef TRMS_REPORT_FOLD_H
#define TRMS_REPORT_FOLD_H

#define REPORT_PASS_SELF_SHARE 0.01
#define REPORT_PASS_SLACK 0.01

struct report_model;

/* Sets every row's passes_to: the index of the row its chain ends in, or
 * -1 for a row that does its own work, or is a wrapper (folded as such).
 * Rows' wrapper flags must be set. */
void report_fold_chains(struct report_model *m);

#endif
