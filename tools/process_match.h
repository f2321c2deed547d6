/* process_match: which process of one tree is which of another's (`trms
 * diff` of two trees, issue 25).
 *
 * Processes are matched by command line, the k-th of equal command lines
 * in A with the k-th in B (in the order they started); those left then by
 * program name, in the same way (two runs of one program with other
 * arguments: `workers 2` and `workers 3`, whose forked workers carry their
 * parent's command line). What is left matches nothing. */
#ifndef TRMS_PROCESS_MATCH_H
#define TRMS_PROCESS_MATCH_H

#include <stddef.h>

#include "tools/process_tree.h"

/* In new arrays of A->n and B->n: the index of each process's match in
 * the other tree, or -1. */
void process_match(const struct process_tree *a, const struct process_tree *b, long **a_to_b,
                   long **b_to_a);

#endif
