/* lib_scale() lives in a shared library, reached through the PLT. */
__attribute__((noinline)) long lib_scale(long x)
{
    return 3 * x + 1;
}
