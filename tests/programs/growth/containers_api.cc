// The C driver's way in to the C++ routines; a file apart, so that the
// routines stay out-of-line as in a program of many files.
#include <algorithm>
#include <vector>

#include "containers.h"
#include "corpus.h"

extern "C" void sort_values(int *values, size_t n)
{
    std::vector<int> v(values, values + n);
    corpus::sort_vector(v);
    std::copy(v.begin(), v.end(), values);
}

extern "C" size_t build_map(const int *keys, size_t n)
{
    return corpus::count_distinct(keys, n);
}
