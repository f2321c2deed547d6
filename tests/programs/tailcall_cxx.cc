/* tailcall.c compiled as C++: dispatch(long) ends in a tail call of
 * target_a(long) or target_b(long), whose names are mangled, and must nest
 * like the C ones (a Valgrind tool that compares two demangled names, each
 * in the demangler's one buffer, sees every such jump as a loop). */
#include "tailcall.c"
