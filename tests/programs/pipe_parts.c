/* pipe_parts: the two ends of a pipeline, for the data passed between
 * processes (issue 25, item 4).
 *
 *   pipe_parts produce N   writes N bytes to stdout
 *   pipe_parts consume N   consume_input reads N bytes of stdin into a
 *                          buffer and then each byte once, summing them
 *   pipe_parts file-then-consume N
 *                          consume_file does the same with descriptor 3 (a
 *                          regular file) put in place of stdin (dup2), then
 *                          stdin comes back and consume_input reads it: the
 *                          recorder must see descriptor 0 change kinds
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

static inline unsigned read_and_sum(size_t n)
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

static __attribute__((noinline)) unsigned consume_input(size_t n)
{
    return read_and_sum(n);
}

static __attribute__((noinline)) unsigned consume_file(size_t n)
{
    return read_and_sum(n);
}

/* consume_file with descriptor 3 as stdin, then consume_input with stdin. */
static unsigned file_then_consume(size_t n)
{
    int saved = dup(0);
    if (saved < 0 || dup2(3, 0) != 0)
        exit(1);
    unsigned sum = consume_file(n);
    if (dup2(saved, 0) != 0)
        exit(1);
    sum += consume_input(n); /* no other call between the two dup2s and it */
    close(saved);
    return sum;
}

int main(int argc, char **argv)
{
    size_t n = argc == 3 ? strtoul(argv[2], NULL, 10) : 0;
    if (n == 0 || n > MAX_BYTES) {
        fprintf(stderr, "usage: pipe_parts produce|consume|file-then-consume N (N up to %d)\n",
                MAX_BYTES);
        return 2;
    }
    if (strcmp(argv[1], "produce") == 0) {
        produce(n);
        return 0;
    }
    if (strcmp(argv[1], "file-then-consume") == 0) {
        printf("%u\n", file_then_consume(n));
        return 0;
    }
    printf("%u\n", consume_input(n));
    return 0;
}
