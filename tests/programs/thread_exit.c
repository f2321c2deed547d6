/* A thread leaves through pthread_exit() from inside nested routines: its
 * pending activations end with it, and the main thread's are untouched. */
#include <pthread.h>
#include <stdio.h>

static long results[4];

__attribute__((noinline)) void deep_exit(long i)
{
    results[i] = i * i;
    pthread_exit(NULL);
}

__attribute__((noinline)) void nested(long i)
{
    deep_exit(i);
    results[i] = -1;  /* never */
}

static void *worker(void *arg)
{
    nested((long)arg);
    return NULL;
}

__attribute__((noinline)) void after_threads(void)
{
    printf("%ld\n", results[0] + results[1] + results[2] + results[3]);
}

int main(void)
{
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    after_threads();
    return 0;
}
