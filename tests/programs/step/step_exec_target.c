/* The program step_processes execs into: its routine must be recorded. */
__attribute__((noinline)) static int after_exec(int n)
{
    return n * 3;
}

int main(void)
{
    return after_exec(5) == 15 ? 0 : 1;
}
