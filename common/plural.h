/* plural: "1 thread", "2 threads": the suffix a count's noun takes. */
#ifndef TRMS_PLURAL_H
#define TRMS_PLURAL_H

#include <stdint.h>

static inline const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

#endif
