#include "symbols/memory_maps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/oom.h"
#include "common/regular_file.h"
#include "symbols/build_id.h"

void memory_maps_init(struct memory_maps *maps)
{
    maps->items = NULL;
    maps->count = maps->capacity = 0;
}

void memory_maps_free(struct memory_maps *maps)
{
    for (size_t i = 0; i < maps->count; i++)
        free(maps->items[i].path);
    free(maps->items);
    memory_maps_init(maps);
}

static void insert_at(struct memory_maps *maps, size_t i, const struct map_entry *e)
{
    if (maps->count == maps->capacity) {
        maps->capacity = maps->capacity ? 2 * maps->capacity : 16;
        maps->items = xrealloc(maps->items, maps->capacity * sizeof *maps->items);
    }
    memmove(&maps->items[i + 1], &maps->items[i], (maps->count - i) * sizeof *maps->items);
    maps->items[i] = *e;
    maps->count++;
}

/* Index of the first entry whose end lies above ADDR. */
static size_t first_ending_after(const struct memory_maps *maps, uint64_t addr)
{
    size_t lo = 0, hi = maps->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (maps->items[mid].end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void memory_maps_remove(struct memory_maps *maps, uint64_t start, uint64_t end)
{
    if (end <= start)
        return;
    size_t i = first_ending_after(maps, start);
    while (i < maps->count && maps->items[i].start < end) {
        struct map_entry *m = &maps->items[i];
        if (m->start < start && m->end > end) {
            /* The hole splits M in two; the upper part maps further into the file. */
            struct map_entry upper = *m;
            upper.path = strdup(m->path);
            if (!upper.path)
                oom_exit("memory maps");
            upper.offset += end - m->start;
            upper.start = end;
            m->end = start;
            insert_at(maps, i + 1, &upper);
            return;
        }
        if (m->start < start) {
            m->end = start;
            i++;
        } else if (m->end > end) {
            m->offset += end - m->start;
            m->start = end;
            return;
        } else {
            free(m->path);
            memmove(m, m + 1, (maps->count - i - 1) * sizeof *m);
            maps->count--;
        }
    }
}

int memory_maps_add(struct memory_maps *maps, const struct map_entry *e)
{
    if (e->end <= e->start || !e->path)
        return -1;
    memory_maps_remove(maps, e->start, e->end);
    struct map_entry copy = *e;
    copy.path = strdup(e->path);
    if (!copy.path)
        oom_exit("memory maps");
    copy.build_id[sizeof copy.build_id - 1] = '\0';
    insert_at(maps, first_ending_after(maps, e->start), &copy);
    return 0;
}

const struct map_entry *memory_maps_find(const struct memory_maps *maps, uint64_t addr)
{
    size_t i = first_ending_after(maps, addr);
    if (i < maps->count && maps->items[i].start <= addr)
        return &maps->items[i];
    return NULL;
}

static void write_path(FILE *fp, const char *path)
{
    for (const char *p = path; *p; p++) {
        if (*p == '\n' || *p == '\\')
            fprintf(fp, "\\%03o", (unsigned)(unsigned char)*p);
        else
            fputc(*p, fp);
    }
}

int memory_maps_write(const struct memory_maps *maps, const char *path, struct trms_error *err)
{
    size_t len = strlen(path) + 32;
    char *tmp = xmalloc(len);
    snprintf(tmp, len, "%s.tmp-%ld", path, (long)getpid());
    FILE *fp = fopen(tmp, "w");
    if (!fp) {
        error_set(err, "%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    fputs("# trms memory maps: START END OFFSET PROT BUILD_ID PATH\n", fp);
    for (size_t i = 0; i < maps->count; i++) {
        const struct map_entry *m = &maps->items[i];
        fprintf(fp, "%" PRIx64 " %" PRIx64 " %" PRIx64 " %c%c%c %s ", m->start, m->end,
                m->offset, m->prot & MAPS_PROT_R ? 'r' : '-', m->prot & MAPS_PROT_W ? 'w' : '-',
                m->prot & MAPS_PROT_X ? 'x' : '-', m->build_id[0] ? m->build_id : "-");
        write_path(fp, m->path);
        fputc('\n', fp);
    }
    int rc = 0;
    if (fflush(fp) != 0 || ferror(fp) || fsync(fileno(fp)) != 0)
        rc = error_set(err, "%s: cannot write: %s", path, strerror(errno));
    if (fclose(fp) != 0 && rc == 0)
        rc = error_set(err, "%s: cannot write: %s", path, strerror(errno));
    if (rc == 0 && rename(tmp, path) != 0)
        rc = error_set(err, "%s: cannot create: %s", path, strerror(errno));
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* Parsing one line: each helper consumes a field and the space after it. */
struct line_parser {
    char *p;
    const char *problem;
};

static int hex_field(struct line_parser *lp, const char *what, uint64_t *out)
{
    char *p = lp->p;
    uint64_t v = 0;
    int digits = 0;
    for (; *p && *p != ' '; p++, digits++) {
        int d = *p >= '0' && *p <= '9'   ? *p - '0'
                : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
                                         : -1;
        if (d < 0 || digits == 16) {
            lp->problem = what;
            return -1;
        }
        v = v << 4 | (uint64_t)d;
    }
    if (!digits || *p != ' ') {
        lp->problem = what;
        return -1;
    }
    lp->p = p + 1;
    *out = v;
    return 0;
}

static int prot_field(struct line_parser *lp, unsigned *prot)
{
    const char *p = lp->p;
    static const char letters[] = "rwx";
    *prot = 0;
    for (int i = 0; i < 3; i++) {
        if (p[i] == letters[i])
            *prot |= 1u << i;
        else if (p[i] != '-')
            goto bad;
    }
    if (p[3] != ' ')
        goto bad;
    lp->p += 4;
    return 0;
bad:
    lp->problem = "protection (like r-x)";
    return -1;
}

static int build_id_field(struct line_parser *lp, char out[41])
{
    char *p = lp->p;
    size_t n = strcspn(p, " ");
    if (p[n] != ' ' || n == 0 || n > 40)
        goto bad;
    if (n == 1 && *p == '-') {
        out[0] = '\0';
    } else {
        for (size_t i = 0; i < n; i++)
            if (!strchr("0123456789abcdef", p[i]))
                goto bad;
        memcpy(out, p, n);
        out[n] = '\0';
    }
    lp->p = p + n + 1;
    return 0;
bad:
    lp->problem = "build id (up to 40 lowercase hex digits, or -)";
    return -1;
}

/* Undoes write_path's escapes in place. */
static int unescape_path(struct line_parser *lp)
{
    char *in = lp->p, *out = lp->p;
    while (*in) {
        if (*in != '\\') {
            *out++ = *in++;
            continue;
        }
        if (in[1] < '0' || in[1] > '3' || in[2] < '0' || in[2] > '7' || in[3] < '0' ||
            in[3] > '7') {
            lp->problem = "escape in path (\\ and three octal digits)";
            return -1;
        }
        *out++ = (char)((in[1] - '0') << 6 | (in[2] - '0') << 3 | (in[3] - '0'));
        in += 4;
    }
    *out = '\0';
    if (!*lp->p) {
        lp->problem = "path";
        return -1;
    }
    return 0;
}

int memory_maps_read(struct memory_maps *maps, const char *path, struct trms_error *err)
{
    const char *why;
    FILE *fp = regular_file_fopen(path, REGULAR_FILE_NOFOLLOW, &why);
    if (!fp)
        return error_set(err, "%s: cannot open: %s", path, why);
    struct memory_maps read;
    memory_maps_init(&read);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned long lineno = 0;
    int rc = 0;
    while ((len = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        struct line_parser lp = {line, NULL};
        struct map_entry e = {0};
        if (hex_field(&lp, "start address (hex)", &e.start) || hex_field(&lp, "end address (hex)", &e.end) ||
            hex_field(&lp, "file offset (hex)", &e.offset) || prot_field(&lp, &e.prot) ||
            build_id_field(&lp, e.build_id) || unescape_path(&lp)) {
            rc = error_set(err, "%s:%lu: expected START END OFFSET PROT BUILD_ID PATH; bad %s",
                           path, lineno, lp.problem);
            break;
        }
        if (e.end <= e.start) {
            rc = error_set(err, "%s:%lu: the map ends at or before its start", path, lineno);
            break;
        }
        if (read.count && e.start < read.items[read.count - 1].end) {
            rc = error_set(err, "%s:%lu: the map overlaps or precedes the one before it", path,
                           lineno);
            break;
        }
        e.path = lp.p;
        memory_maps_add(&read, &e);
    }
    if (rc == 0 && ferror(fp))
        rc = error_set(err, "%s: cannot read: %s", path, strerror(errno));
    free(line);
    fclose(fp);
    if (rc != 0) {
        memory_maps_free(&read);
        return rc;
    }
    for (size_t i = 0; i < read.count; i++) {
        memory_maps_add(maps, &read.items[i]);
    }
    memory_maps_free(&read);
    return 0;
}

size_t memory_maps_fill_build_ids(struct memory_maps *maps)
{
    size_t filled = 0;
    for (size_t i = 0; i < maps->count; i++) {
        struct map_entry *m = &maps->items[i];
        /* An earlier entry of the same file already read it. */
        size_t j = 0;
        while (j < i && strcmp(maps->items[j].path, m->path) != 0)
            j++;
        if (j < i)
            memcpy(m->build_id, maps->items[j].build_id, sizeof m->build_id);
        else if (file_build_id(m->path, m->build_id) != 0)
            m->build_id[0] = '\0';
        filled += m->build_id[0] != '\0';
    }
    return filled;
}
