// The standard library's containers and algorithms, as C++ users call them.
#include <algorithm>
#include <map>
#include <vector>

#include "containers.h"

namespace corpus {

// std::sort on a vector: introsort, n log n comparisons.
void sort_vector(std::vector<int> &values)
{
    std::sort(values.begin(), values.end());
}

// n insertions into a red-black tree: n log n.
size_t count_distinct(const int *keys, size_t n)
{
    std::map<int, int> seen;
    for (size_t i = 0; i < n; i++)
        seen[keys[i]]++;
    return seen.size();
}

} // namespace corpus
