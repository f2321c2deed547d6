/* routine_match: whether what a user typed after --routine names a report
 * row, in any form a report prints the routine: its name (demangled),
 * its label with source line or module ("walk (array_walk.c:12)",
 * "strlen [libc.so.6]"), an unnamed routine's "0x9ad0 [sort]" or "0x9ad0",
 * "symbol+0x1a [libc.so.6]", a shortened C++ name
 * ("std::__introsort_loop<...>(...).isra.0", with " @0x29b0" where two
 * read the same), or its address at run time; each also as a shell
 * pattern, and "..." in what was typed standing for whatever a short form
 * left out. */
#ifndef TRMS_ROUTINE_MATCH_H
#define TRMS_ROUTINE_MATCH_H

struct report_row;

/* ROW's routine (not its calling context) against TYPED. */
int routine_match(const struct report_row *row, const char *typed);

#endif
