/* What the step engine cannot schedule from the program alone, and must
 * count instead: a read of standard input that waits for whoever writes
 * at the other end (outside the program), and a timed futex wait that no
 * one ends, so that its outcome (timed out) is the host clock's. Without
 * libc (tiny_threads.h). */
#include "tiny_threads.h"

enum { SYS_READ = 0 };
#define RESULT_ETIMEDOUT (-110)

static int word;

int main(void)
{
    char c;
    if (tiny_syscall(SYS_READ, 0, (long)&c, 1, 0) != 1)
        return 2;
    struct { long seconds, nanoseconds; } limit = {0, 1000000};
    return tiny_syscall(SYS_FUTEX, (long)&word, FUTEX_WAIT, 0, (long)&limit) == RESULT_ETIMEDOUT
               ? 0 : 3;
}
