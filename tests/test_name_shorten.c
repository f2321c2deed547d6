/* test_name_shorten: long C++ names shortened readably, never past the
 * width, never cut from one end only. */
#include <stdlib.h>
#include <string.h>

#include "report/name_shorten.h"
#include "tests/check.h"

static const char *shorten(const char *name, size_t width, int *cut)
{
    static char out[4096];
    *cut = name_shorten(name, width, out, sizeof out);
    CHECK(strlen(out) <= width);
    return out;
}

#define INTROSORT                                                                          \
    "void std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, std::vector<int, "      \
    "std::allocator<int> > >, long, __gnu_cxx::__ops::_Iter_less_iter>(__gnu_cxx::"        \
    "__normal_iterator<int*, std::vector<int, std::allocator<int> > >, __gnu_cxx::"        \
    "__normal_iterator<int*, std::vector<int, std::allocator<int> > >, long, __gnu_cxx::"  \
    "__ops::_Iter_less_iter) [clone .isra.0]"

static void steps(void)
{
    int cut;
    /* Short names stay. */
    CHECK_STR(shorten("main", 50, &cut), "main");
    CHECK_EQ(cut, 0);
    CHECK_STR(shorten(INTROSORT, (size_t)strlen(INTROSORT), &cut), INTROSORT);
    /* Each step only as far as needed. */
    CHECK_STR(shorten("corpus::sort_vector(std::vector<int, std::allocator<int> >&)", 60, &cut),
              "corpus::sort_vector(std::vector<int, std::allocator<int> >&)");
    CHECK_STR(shorten("corpus::sort_vector(std::vector<int, std::allocator<int> >&)", 40, &cut),
              "corpus::sort_vector(...)");
    CHECK_EQ(cut, 0);
    CHECK_STR(shorten(INTROSORT, 130, &cut),
              "std::__introsort_loop<__gnu_cxx::__normal_iterator<int*, std::vector<...> >, "
              "long, __gnu_cxx::__ops::_Iter_less_iter>(...).isra.0");
    CHECK_STR(shorten(INTROSORT, 110, &cut),
              "std::__introsort_loop<__gnu_cxx::__normal_iterator<...>, long, "
              "__gnu_cxx::__ops::_Iter_less_iter>(...).isra.0");
    CHECK_STR(shorten(INTROSORT, 40, &cut), "std::__introsort_loop<...>(...).isra.0");
    CHECK_EQ(cut, 0);
    CHECK_STR(shorten("std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > "
                      ">::operator[](int const&)", 40, &cut),
              "std::map<...>::operator[](...)");
    /* Operators' brackets open nothing, and their names hold spaces. */
    CHECK_STR(shorten("std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
                      "<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> "
                      ">&, char const*)", 50, &cut),
              "std::operator<< <std::char_traits<char> >(...)");
    CHECK_EQ(cut, 0);
    CHECK_STR(shorten("operator new(unsigned long, std::nothrow_t const&)", 20, &cut),
              "operator new(...)");
    CHECK_STR(shorten("Table<std::string>::operator->() const", 30, &cut),
              "Table<...>::operator->() const");
    CHECK_STR(shorten("bool Less<int>::operator< <int>(int const&, int const&)", 31, &cut),
              "Less<int>::operator< <int>(...)");
    CHECK_STR(shorten("bool Less<std::string>::operator< <std::string>(std::string const&)", 31,
                      &cut),
              "Less<...>::operator< <...>(...)");
    /* A namespace in parentheses is not a parameter list. */
    CHECK_STR(shorten("(anonymous namespace)::helper(std::vector<int, std::allocator<int> > const&)",
                      36, &cut),
              "(anonymous namespace)::helper(...)");
    /* Cut in the middle when nothing else helps: start and end stay, and
     * two names that differ only at the start stay apart. */
    char a[64], b[64];
    strcpy(a, shorten("__memcpy_avx_unaligned_erms", 20, &cut));
    CHECK_EQ(cut, 1);
    strcpy(b, shorten("__mempcpy_avx_unaligned_erms", 20, &cut));
    CHECK_STR(a, "__memcpy...gned_erms");
    CHECK(strcmp(a, b) != 0);
    CHECK_EQ(strlen(shorten("abcdefghijklmnopqrstuvwxyz", 8, &cut)), 8);
}

/* Any text at all, balanced or not: within the width, no crash. */
static void random_text(void)
{
    static const char alphabet[] = "<>()[] a:,&*operator";
    unsigned seed = 12345;
    char name[300], out[400];
    for (int i = 0; i < 200000; i++) {
        size_t len = (size_t)(rand_r(&seed) % 250);
        for (size_t j = 0; j < len; j++)
            name[j] = alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
        name[len] = '\0';
        size_t width = 8 + (size_t)(rand_r(&seed) % 80);
        int cut = name_shorten(name, width, out, sizeof out);
        CHECK(strlen(out) <= width);
        CHECK(cut || strlen(out) <= len);
        if (len <= width)
            CHECK_STR(out, name);
    }
}

int main(void)
{
    steps();
    random_text();
    return check_report("test_name_shorten");
}
