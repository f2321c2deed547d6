/* pipe_parts: the two ends of a pipeline, for the data passed between
 * processes (issue 25, item 4).
 *
 *   pipe_parts produce N   writes N bytes to stdout
 *   pipe_parts consume N   consume_input reads N bytes of stdin into a
 *                          buffer and then each byte once, summing them
 *
 * The consumer's N reads of the buffer are induced input of consume_input
 * (the kernel wrote the cells); from a pipe the producer wrote, the report
 * attributes them to the producer's pid, from a regular file to nobody. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_BYTES 65536

static unsigned char buffer[MAX_BYTES];

static void produce(size_t n)
{
    memset(buffer, 'x', n);
    for (size_t done = 0; done < n;) {
        ssize_t w = write(1, buffer + done, n - done);
        if (w <= 0)
            exit(1);
        done += (size_t)w;
    }
}

static __attribute__((noinline)) unsigned consume_input(size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(0, buffer + got, n - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    unsigned sum = 0;
    for (size_t i = 0; i < got; i++)
        sum += buffer[i];
    return sum;
}

int main(int argc, char **argv)
{
    size_t n = argc == 3 ? strtoul(argv[2], NULL, 10) : 0;
    if (n == 0 || n > MAX_BYTES) {
        fprintf(stderr, "usage: pipe_parts produce|consume N (N up to %d)\n", MAX_BYTES);
        return 2;
    }
    if (strcmp(argv[1], "produce") == 0) {
        produce(n);
        return 0;
    }
    printf("%u\n", consume_input(n));
    return 0;
}
