/* A SIGALRM-style handler runs between a routine's instructions: it must
 * show up as an activation of on_signal with its own children, and the
 * interrupted routine must carry on as before. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile long handled;

__attribute__((noinline)) void in_handler(int sig)
{
    handled += sig;
}

__attribute__((noinline)) void on_signal(int sig)
{
    in_handler(sig);
}

__attribute__((noinline)) void raiser(int i)
{
    raise(SIGUSR1);
    handled += i;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    for (int i = 0; i < 5; i++)
        raiser(i);
    printf("%ld\n", handled);
    return 0;
}
