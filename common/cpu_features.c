#include "common/cpu_features.h"

static int forbidden;

void cpu_pext_forbid(int forbid)
{
    __atomic_store_n(&forbidden, forbid, __ATOMIC_RELAXED);
}

int cpu_fast_pext(void)
{
    if (__atomic_load_n(&forbidden, __ATOMIC_RELAXED))
        return 0;
#if defined(__x86_64__) && defined(__GNUC__)
    static int known, fast;
    /* Threads racing here compute the same value. */
    if (!__atomic_load_n(&known, __ATOMIC_ACQUIRE)) {
        __builtin_cpu_init();
        int slow_amd = __builtin_cpu_is("amdfam15h") || __builtin_cpu_is("amdfam17h");
        __atomic_store_n(&fast, __builtin_cpu_supports("bmi2") && !slow_amd, __ATOMIC_RELAXED);
        __atomic_store_n(&known, 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(&fast, __ATOMIC_RELAXED);
#else
    return 0;
#endif
}
