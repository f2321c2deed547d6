// C++ routines of the growth corpus.
#ifndef CONTAINERS_H
#define CONTAINERS_H

#include <cstddef>
#include <vector>

namespace corpus {
void sort_vector(std::vector<int> &values);
size_t count_distinct(const int *keys, size_t n);
} // namespace corpus

#endif
