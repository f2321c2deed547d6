/* check: the assertions of the unit tests. A failed check prints where and
 * what, and the test program's exit status counts the failures. */
#ifndef TRMS_CHECK_H
#define TRMS_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);       \
            check_failures++;                                                              \
        }                                                                                  \
    } while (0)

#define CHECK_EQ(actual, expected)                                                         \
    do {                                                                                   \
        uint64_t a_ = (uint64_t)(actual), e_ = (uint64_t)(expected);                       \
        if (a_ != e_) {                                                                    \
            fprintf(stderr, "%s:%d: %s is %" PRIu64 ", expected %" PRIu64 "\n", __FILE__,   \
                    __LINE__, #actual, a_, e_);                                            \
            check_failures++;                                                              \
        }                                                                                  \
    } while (0)

#define CHECK_STR(actual, expected)                                                        \
    do {                                                                                   \
        const char *a_ = (actual), *e_ = (expected);                                       \
        if (!a_ || strcmp(a_, e_) != 0) {                                                  \
            fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__,  \
                    #actual, a_ ? a_ : "(null)", e_);                                      \
            check_failures++;                                                              \
        }                                                                                  \
    } while (0)

static inline int check_report(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

#endif
