// A C++ exception unwinds thrower() and middle() to catcher(), which then
// calls after_catch(): that must be catcher's child.
#include <cstdio>
#include <stdexcept>

extern "C" {
__attribute__((noinline)) void thrower(int i)
{
    throw std::runtime_error(i ? "odd" : "even");
}

__attribute__((noinline)) void middle(int i)
{
    thrower(i);
    std::puts("never");
}

__attribute__((noinline)) int after_catch(int i)
{
    return i + 1;
}

__attribute__((noinline)) int catcher(int i)
{
    try {
        middle(i);
    } catch (const std::exception &) {
    }
    return after_catch(i);
}
}

int main()
{
    int sum = 0;
    for (int i = 0; i < 4; i++)
        sum += catcher(i);
    std::printf("%d\n", sum);
    return 0;
}
