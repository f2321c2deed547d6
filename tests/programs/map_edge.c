/* Maps and unmaps one file N times. Each mapping is a record of the
 * recorder's stream that ends with the file's path, so with a long path
 * the ring segments keep ending inside such records unless the whole
 * record is reserved at once (`trms record` refused the stream: "a record
 * crosses a ring segment").
 *
 *   map_edge FILE N */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: map_edge FILE N\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    long n = atol(argv[2]);
    unsigned long sum = 0;
    for (long i = 0; i < n; i++) {
        const unsigned char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        sum += p[i % 4096];
        munmap((void *)p, 4096);
    }
    close(fd);
    printf("%lu\n", sum);
    return 0;
}
