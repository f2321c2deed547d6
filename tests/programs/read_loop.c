/* read_file() reads a file through a 64-byte buffer: the kernel refills
 * the same cells, so its TRMS grows with the file while its RMS does not. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* Takes the descriptor, not the path: the path's cells (read by open)
 * would depend on its length and alignment. */
__attribute__((noinline)) long read_file(int fd)
{
    char buf[64];
    long sum = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            sum += (unsigned char)buf[i];
    return sum;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        int fd = open(argv[i], O_RDONLY);
        if (fd < 0)
            return 1;
        printf("%s %ld\n", argv[i], read_file(fd));
        close(fd);
    }
    return 0;
}
