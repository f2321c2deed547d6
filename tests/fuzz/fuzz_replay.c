/* fuzz_replay: runs a fuzz target on files, for the ordinary test suite:
 * its seed corpus and every input that once made it crash
 * (tests/fuzz/regressions/TARGET/), so that a crash fixed stays fixed in
 * every build, sanitizers included.
 *
 *   fuzz_replay_TARGET FILE_OR_DIRECTORY... */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz_target.h"

static int run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len, fp)) > 0) {
        len += n;
        if (len == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(fp);
    if (!buf)
        return -1;
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

static int run_path(const char *path, size_t *files)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        ++*files;
        return run_file(path);
    }
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        rc = run_path(child, files);
    }
    closedir(dir);
    return rc;
}

int main(int argc, char **argv)
{
    size_t files = 0;
    for (int i = 1; i < argc; i++)
        if (run_path(argv[i], &files) != 0)
            return 1;
    printf("%s: %zu inputs, no crash\n", argv[0], files);
    return files ? 0 : 1;
}
