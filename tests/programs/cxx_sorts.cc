// cxx_sorts: a small C++ program as people write them (-O2 -g,
// libstdc++): std::sort of ints and of strings (two instantiations of the
// same templates, whose short names read the same) and std::map counts of
// words, at sizes from 16 to 4096. The HTML layout test and the homonym
// tests record it.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

static unsigned long long state = 0x9e3779b97f4a7c15ull;

static unsigned next_random()
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (unsigned)(state >> 16);
}

__attribute__((noinline)) void sort_ints(std::vector<int> &v)
{
    std::sort(v.begin(), v.end());
}

__attribute__((noinline)) void sort_strings(std::vector<std::string> &v)
{
    std::sort(v.begin(), v.end());
}

__attribute__((noinline)) size_t count_words(const std::vector<std::string> &words)
{
    std::map<std::string, int> counts;
    for (const std::string &w : words)
        counts[w]++;
    return counts.size();
}

int main()
{
    size_t total = 0;
    for (size_t n = 16; n <= 4096; n += (n + 3) / 4) {
        std::vector<int> ints(n);
        std::vector<std::string> words(n);
        for (size_t i = 0; i < n; i++) {
            ints[i] = (int)next_random();
            words[i] = "w" + std::to_string(next_random() % (n / 2 + 1));
        }
        sort_ints(ints);
        total += count_words(words);
        sort_strings(words);
        total += (size_t)ints[n / 2] + words[n / 2].size();
    }
    std::printf("%zu\n", total);
    return 0;
}
