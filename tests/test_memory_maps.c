/* test_memory_maps: the list of a process's file mappings: a new map
 * replaces what it overlaps, munmap trims and splits, the REC/maps file
 * round-trips and refuses malformed lines with FILE:LINE, and build ids
 * are read from the ELF notes. */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "symbols/build_id.h"
#include "symbols/memory_maps.h"
#include "tests/check.h"

static char tmpdir[] = "/tmp/trms-test-maps-XXXXXX";

static struct map_entry entry(uint64_t start, uint64_t end, uint64_t offset, const char *path)
{
    return (struct map_entry){.start = start, .end = end, .offset = offset,
                              .prot = MAPS_PROT_R | MAPS_PROT_X, .path = (char *)path};
}

static void check_entry(const struct memory_maps *maps, uint64_t addr, uint64_t start,
                        uint64_t end, uint64_t offset, const char *path)
{
    const struct map_entry *m = memory_maps_find(maps, addr);
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_EQ(m->start, start);
    CHECK_EQ(m->end, end);
    CHECK_EQ(m->offset, offset);
    CHECK_STR(m->path, path);
}

static void overlaps(void)
{
    struct memory_maps maps;
    memory_maps_init(&maps);
    struct map_entry e = entry(0x1000, 0x5000, 0, "/a");
    CHECK(memory_maps_add(&maps, &e) == 0);
    e = entry(0x2000, 0x3000, 0x7000, "/b");
    CHECK(memory_maps_add(&maps, &e) == 0);
    CHECK_EQ(maps.count, 3);
    check_entry(&maps, 0x1fff, 0x1000, 0x2000, 0, "/a");
    check_entry(&maps, 0x2000, 0x2000, 0x3000, 0x7000, "/b");
    /* The part of /a above the hole still maps /a at the matching offset. */
    check_entry(&maps, 0x4fff, 0x3000, 0x5000, 0x2000, "/a");
    CHECK(memory_maps_find(&maps, 0x5000) == NULL);
    CHECK(memory_maps_find(&maps, 0xfff) == NULL);

    e = entry(0x0, 0x1800, 0, "/c"); /* covers the start of /a */
    memory_maps_add(&maps, &e);
    check_entry(&maps, 0x1800, 0x1800, 0x2000, 0x800, "/a");
    check_entry(&maps, 0x17ff, 0x0, 0x1800, 0, "/c");
    e = entry(0x2800, 0x4000, 0x100000, "/d"); /* the end of /b, the start of upper /a */
    memory_maps_add(&maps, &e);
    check_entry(&maps, 0x27ff, 0x2000, 0x2800, 0x7000, "/b");
    check_entry(&maps, 0x4000, 0x4000, 0x5000, 0x3000, "/a");
    CHECK_EQ(maps.count, 5);
    for (size_t i = 1; i < maps.count; i++)
        CHECK(maps.items[i - 1].end <= maps.items[i].start);

    memory_maps_remove(&maps, 0x1000, 0x3000); /* munmap across three maps */
    CHECK(memory_maps_find(&maps, 0x1000) == NULL);
    CHECK(memory_maps_find(&maps, 0x27ff) == NULL);
    check_entry(&maps, 0xfff, 0x0, 0x1000, 0, "/c");
    check_entry(&maps, 0x3000, 0x3000, 0x4000, 0x100800, "/d");
    memory_maps_remove(&maps, 0x4100, 0x4200); /* splits /a */
    check_entry(&maps, 0x40ff, 0x4000, 0x4100, 0x3000, "/a");
    check_entry(&maps, 0x4200, 0x4200, 0x5000, 0x3200, "/a");
    CHECK(memory_maps_find(&maps, 0x4150) == NULL);

    e = entry(0, 0x10000, 0, "/all");
    memory_maps_add(&maps, &e);
    CHECK_EQ(maps.count, 1);
    e = entry(0x20000, 0x20000, 0, "/empty");
    CHECK(memory_maps_add(&maps, &e) != 0);
    e = entry(0x20000, 0x21000, 0, NULL);
    CHECK(memory_maps_add(&maps, &e) != 0);
    CHECK_EQ(maps.count, 1);
    memory_maps_free(&maps);
}

static char *temp_path(const char *name)
{
    static char buf[4][256];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
    return p;
}

static void file_roundtrip(void)
{
    struct memory_maps maps;
    memory_maps_init(&maps);
    struct map_entry e = entry(0x555555554000, 0x555555556000, 0, "/usr/bin/with space");
    strcpy(e.build_id, "0123456789abcdef0123456789abcdef01234567");
    memory_maps_add(&maps, &e);
    e = entry(0x7ffff7dd0000, 0x7ffff7df0000, 0x1d000, "/odd\nname\\x");
    e.prot = MAPS_PROT_R | MAPS_PROT_W;
    strcpy(e.build_id, "abcd");
    memory_maps_add(&maps, &e);
    e = entry(0xffffffffff600000, 0xffffffffff601000, 0, "/p");
    e.prot = 0;
    memory_maps_add(&maps, &e);
    struct trms_error err;
    const char *path = temp_path("maps");
    CHECK(memory_maps_write(&maps, path, &err) == 0);

    struct memory_maps back;
    memory_maps_init(&back);
    CHECK(memory_maps_read(&back, path, &err) == 0);
    CHECK_EQ(back.count, maps.count);
    for (size_t i = 0; i < back.count && i < maps.count; i++) {
        CHECK_EQ(back.items[i].start, maps.items[i].start);
        CHECK_EQ(back.items[i].end, maps.items[i].end);
        CHECK_EQ(back.items[i].offset, maps.items[i].offset);
        CHECK_EQ(back.items[i].prot, maps.items[i].prot);
        CHECK_STR(back.items[i].path, maps.items[i].path);
        CHECK_STR(back.items[i].build_id, maps.items[i].build_id);
    }
    FILE *fp = fopen(path, "r");
    char line[256], text[1024] = "";
    while (fp && fgets(line, sizeof line, fp))
        strcat(text, line);
    if (fp)
        fclose(fp);
    CHECK(strstr(text, "555555554000 555555556000 0 r-x 0123456789abcdef0123456789abcdef01234567 "
                       "/usr/bin/with space\n") != NULL);
    CHECK(strstr(text, "7ffff7dd0000 7ffff7df0000 1d000 rw- abcd /odd\\012name\\134x\n") != NULL);
    CHECK(strstr(text, "ffffffffff600000 ffffffffff601000 0 --- - /p\n") != NULL);
    /* Written through a temporary file that is gone once renamed. */
    DIR *dir = opendir(tmpdir);
    int files = 0;
    for (struct dirent *d; dir && (d = readdir(dir));)
        files += d->d_name[0] != '.';
    if (dir)
        closedir(dir);
    CHECK_EQ(files, 1);
    memory_maps_free(&back);
    memory_maps_free(&maps);
}

static void malformed(void)
{
    static const struct {
        const char *text;
        int line;
        const char *what;
    } cases[] = {
        {"# c\n1000 2000 0 r-x - /a\n1000 2000 0 r-x - /b\n", 3, "overlaps"},
        {"2000 1000 0 r-x - /a\n", 1, "ends at or before its start"},
        {"1000 2000 0 r-x - \n", 1, "bad path"},
        {"1000 2000 0 r-x -\n", 1, "bad build id"},
        {"1000 2000 0 r-x ABC /a\n", 1, "bad build id"},
        {"1000 2000 0 rwz - /a\n", 1, "bad protection"},
        {"1000 2000 0 r-xp - /a\n", 1, "bad protection"},
        {"\n1000 2g00 0 r-x - /a\n", 2, "bad end address"},
        {"10000000000000000 2000 0 r-x - /a\n", 1, "bad start address"},
        {"1000 2000 -1 r-x - /a\n", 1, "bad file offset"},
        {"1000 2000 0 r-x - /a\\01x\n", 1, "bad escape"},
        {"1000  2000 0 r-x - /a\n", 1, "bad end address"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *path = temp_path("bad-maps");
        FILE *fp = fopen(path, "w");
        fputs(cases[i].text, fp);
        fclose(fp);
        struct memory_maps maps;
        memory_maps_init(&maps);
        struct map_entry keep = entry(0x1000, 0x2000, 0, "/kept");
        memory_maps_add(&maps, &keep);
        struct trms_error err = {""};
        CHECK(memory_maps_read(&maps, path, &err) != 0);
        char where[300];
        snprintf(where, sizeof where, "%s:%d: ", path, cases[i].line);
        if (strncmp(err.message, where, strlen(where)) != 0 || !strstr(err.message, cases[i].what)) {
            fprintf(stderr, "case %zu: message \"%s\", expected \"%s\" ... \"%s\"\n", i,
                    err.message, where, cases[i].what);
            check_failures++;
        }
        CHECK_EQ(maps.count, 1);
        CHECK_STR(maps.items[0].path, "/kept");
        memory_maps_free(&maps);
        unlink(path);
    }
    struct memory_maps maps;
    memory_maps_init(&maps);
    struct trms_error err;
    CHECK(memory_maps_read(&maps, temp_path("absent"), &err) != 0);
    CHECK(strstr(err.message, "absent: cannot open") != NULL);
}

/* The build id readelf prints for PATH, or "" when readelf is missing. */
static void readelf_build_id(const char *path, char out[41])
{
    out[0] = '\0';
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "readelf -n '%s' 2>/dev/null", path);
    FILE *p = popen(cmd, "r");
    char line[512];
    while (p && fgets(line, sizeof line, p)) {
        char *at = strstr(line, "Build ID: ");
        if (at)
            sscanf(at + 10, "%40[0-9a-f]", out);
    }
    if (p)
        pclose(p);
}

static void build_ids(void)
{
    struct memory_maps maps;
    memory_maps_init(&maps);
    struct map_entry e = entry(0x10000, 0x11000, 0, SYM_SAMPLE_LIB);
    memory_maps_add(&maps, &e);
    e = entry(0x11000, 0x12000, 0x1000, SYM_SAMPLE_LIB);
    memory_maps_add(&maps, &e);
    e = entry(0x20000, 0x21000, 0, SYM_SAMPLE_PIE);
    memory_maps_add(&maps, &e);
    e = entry(0x30000, 0x31000, 0, "/nonexistent/file");
    memory_maps_add(&maps, &e);
    e = entry(0x40000, 0x41000, 0, tmpdir); /* a directory, not ELF */
    memory_maps_add(&maps, &e);
    CHECK_EQ(memory_maps_fill_build_ids(&maps), 3);
    CHECK_STR(maps.items[0].build_id, SYM_SAMPLE_LIB_BUILD_ID);
    CHECK_STR(maps.items[1].build_id, SYM_SAMPLE_LIB_BUILD_ID);
    char expected[41];
    readelf_build_id(SYM_SAMPLE_PIE, expected);
    if (expected[0])
        CHECK_STR(maps.items[2].build_id, expected);
    else
        printf("test_memory_maps: readelf missing; the executable's build id is unchecked\n");
    CHECK_EQ(strlen(maps.items[2].build_id), 40);
    CHECK_STR(maps.items[3].build_id, "");
    CHECK_STR(maps.items[4].build_id, "");
    char id[41];
    CHECK(file_build_id(SYM_SAMPLE_LIB, id) == 0);
    CHECK_STR(id, SYM_SAMPLE_LIB_BUILD_ID);
    memory_maps_free(&maps);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    overlaps();
    file_roundtrip();
    malformed();
    build_ids();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_report("test_memory_maps");
}
