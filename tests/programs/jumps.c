/* longjmp out of nested calls: the frames it skips must end there, and
 * what the target calls next must be its child, not theirs. */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static volatile int depth_reached;

__attribute__((noinline)) void leaf(int i)
{
    depth_reached = i;
    longjmp(env, 1);
}

__attribute__((noinline)) void middle(int i)
{
    leaf(i);
    depth_reached = -1;  /* never */
}

__attribute__((noinline)) void after_jump(void)
{
    depth_reached = 0;
}

__attribute__((noinline)) void jumper(int i)
{
    if (setjmp(env) == 0)
        middle(i);
    after_jump();
}

int main(void)
{
    for (int i = 0; i < 3; i++)
        jumper(i);
    printf("%d\n", depth_reached);
    return 0;
}
