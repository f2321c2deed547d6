/* demangle: source-level names of C++ linker symbols, as perf, callgrind
 * and aprof print them. */
#ifndef TRMS_DEMANGLE_H
#define TRMS_DEMANGLE_H

/* NAME demangled when it is a mangled C++ name
 * ("_ZN6corpus11sort_vectorERSt6vectorIiSaIiEE" becomes
 * "corpus::sort_vector(std::vector<int, std::allocator<int> >&)"), with a
 * symbol version ("@@GLIBCXX_3.4") and a compiler's clone suffix
 * (".isra.0", ".cold") kept readable. NULL when NAME is not a mangled name
 * or does not demangle: C names stay as they are. The caller frees it. */
char *demangle_symbol(const char *name);

#endif
