/* process_tree: the processes of one recording (see process_tree.h). */
#define _GNU_SOURCE  /* memrchr */
#include "tools/process_tree.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/oom.h"
#include "common/parse_number.h"

void process_tree_free(struct process_tree *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->items[i].dir);
        free(t->items[i].end);
        free(t->items[i].command);
    }
    for (size_t i = 0; i < t->n_left_out; i++) {
        free(t->left_out[i].reason);
        free(t->left_out[i].command);
    }
    free(t->items);
    free(t->left_out);
    *t = (struct process_tree){0};
}

/* The value of FIELD= in the space-separated TEXT, up to the next space
 * (or, for "command", to the end), in a new string; NULL when absent. */
static char *field(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = text; p && *p;) {
        if (strncmp(p, name, len) == 0 && p[len] == '=') {
            const char *v = p + len + 1;
            size_t n = strcmp(name, "command") == 0 ? strlen(v) : strcspn(v, " ");
            char *out = xmalloc(n + 1);
            memcpy(out, v, n);
            out[n] = '\0';
            return out;
        }
        if (strncmp(p, "command=", 8) == 0)
            break;  /* the rest is the command's */
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    return NULL;
}

static int number_field(const char *text, const char *name, uint64_t max, uint64_t *out)
{
    char *v = field(text, name);
    int ok = v && parse_u64_cstr(v, out) == PARSE_NUMBER_OK && *out <= max;
    free(v);
    return ok ? 0 : -1;
}

/* A directory name inside the recording: "." or processes/N-PID, never
 * a way out of it. */
static int dir_is_safe(const char *dir)
{
    if (strcmp(dir, ".") == 0)
        return 1;
    size_t prefix = strlen(PROCESS_TREE_DIR "/");
    if (strncmp(dir, PROCESS_TREE_DIR "/", prefix) != 0 || !dir[prefix])
        return 0;
    return strspn(dir + prefix, "0123456789-") == strlen(dir + prefix);
}

static int read_process(const char *text, unsigned k, struct tree_process *p,
                        struct trms_error *err)
{
    uint64_t pid, ppid, parent, events;
    char *via = field(text, "via");
    *p = (struct tree_process){.number = k, .dir = field(text, "dir"),
                               .end = field(text, "end"), .command = field(text, "command")};
    int ok = number_field(text, "pid", INT32_MAX, &pid) == 0 &&
             number_field(text, "ppid", INT32_MAX, &ppid) == 0 &&
             number_field(text, "parent", UINT32_MAX, &parent) == 0 &&
             number_field(text, "events", UINT64_MAX, &events) == 0 && via &&
             strlen(via) < sizeof p->via && p->dir && dir_is_safe(p->dir) && p->end &&
             p->command && parent < k;
    if (ok) {
        p->pid = (int)pid;
        p->ppid = (int)ppid;
        p->parent = (unsigned)parent;
        p->events = events;
        strcpy(p->via, via);
    }
    free(via);
    if (!ok)
        return error_set(err, "%s: meta: process-%u is malformed", "recording", k);
    return 0;
}

int process_tree_read(const struct recording *rec, struct process_tree *t,
                      struct trms_error *err)
{
    *t = (struct process_tree){0};
    const char *count = recording_meta(rec, "processes");
    uint64_t n = 0;
    if (!count) {
        /* One process: the recording itself. */
        const char *events = recording_meta(rec, "events");
        const char *command = recording_meta(rec, "command");
        uint64_t e = 0;
        if (events)
            parse_u64_cstr(events, &e);
        t->items = xcalloc(1, sizeof *t->items);
        t->items[0] = (struct tree_process){.number = 1, .via = "start", .dir = xstrdup("."),
                                            .events = e, .end = xstrdup("-"),
                                            .command = xstrdup(command ? command : "?")};
        t->n = 1;
        return 0;
    }
    if (parse_u64_cstr(count, &n) != PARSE_NUMBER_OK || n == 0 || n > 1u << 20)
        return error_set(err, "%s: meta: processes is not a number of processes", rec->path);
    t->items = xcalloc((size_t)n, sizeof *t->items);
    for (unsigned k = 1; k <= n; k++) {
        char key[32];
        snprintf(key, sizeof key, "process-%u", k);
        const char *text = recording_meta(rec, key);
        if (!text) {
            process_tree_free(t);
            return error_set(err, "%s: meta: %s is missing", rec->path, key);
        }
        if (read_process(text, k, &t->items[t->n], err) != 0) {
            t->n++;
            process_tree_free(t);
            return error_set(err, "%s: meta: %s is malformed", rec->path, key);
        }
        t->n++;
    }
    const char *left = recording_meta(rec, "processes-left-out");
    uint64_t n_left = 0;
    if (left && (parse_u64_cstr(left, &n_left) != PARSE_NUMBER_OK || n_left > 1u << 20)) {
        process_tree_free(t);
        return error_set(err, "%s: meta: processes-left-out is not a number", rec->path);
    }
    t->left_out = xcalloc((size_t)n_left + 1, sizeof *t->left_out);
    for (unsigned i = 1; i <= n_left; i++) {
        char key[32];
        snprintf(key, sizeof key, "left-out-%u", i);
        const char *text = recording_meta(rec, key);
        uint64_t pid = 0;
        struct tree_left_out *l = &t->left_out[t->n_left_out];
        if (text) {
            l->reason = field(text, "reason");
            l->command = field(text, "command");
        }
        t->n_left_out++;
        if (!text || !l->reason || !l->command ||
            number_field(text, "pid", INT32_MAX, &pid) != 0) {
            process_tree_free(t);
            return error_set(err, "%s: meta: %s is missing or malformed", rec->path, key);
        }
        l->pid = (int)pid;
    }
    const char *over = recording_meta(rec, "processes-over-limit");
    if (over && parse_u64_cstr(over, &t->over_limit) != PARSE_NUMBER_OK) {
        process_tree_free(t);
        return error_set(err, "%s: meta: processes-over-limit is not a number", rec->path);
    }
    return 0;
}

static void add(char ***keys, char ***values, size_t *n, char *key, char *value)
{
    *keys = xrealloc(*keys, (*n + 1) * sizeof **keys);
    *values = xrealloc(*values, (*n + 1) * sizeof **values);
    (*keys)[*n] = key;
    (*values)[(*n)++] = value;
}

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *out = xmalloc((size_t)len + 1);
    va_start(ap, fmt);
    vsnprintf(out, (size_t)len + 1, fmt, ap);
    va_end(ap);
    return out;
}

size_t process_tree_meta(const struct process_tree *t, char ***keys, char ***values)
{
    size_t n = 0;
    *keys = *values = NULL;
    add(keys, values, &n, xstrdup("processes"), format("%zu", t->n));
    for (size_t i = 0; i < t->n; i++) {
        const struct tree_process *p = &t->items[i];
        add(keys, values, &n, format("process-%u", p->number),
            format("pid=%d ppid=%d parent=%u via=%s dir=%s events=%" PRIu64
                   " end=%s command=%s", p->pid, p->ppid, p->parent, p->via, p->dir,
                   p->events, p->end, p->command));
    }
    add(keys, values, &n, xstrdup("processes-left-out"), format("%zu", t->n_left_out));
    for (size_t i = 0; i < t->n_left_out; i++) {
        const struct tree_left_out *l = &t->left_out[i];
        add(keys, values, &n, format("left-out-%zu", i + 1),
            format("reason=%s pid=%d command=%s", l->reason, l->pid, l->command));
    }
    add(keys, values, &n, xstrdup("processes-over-limit"), format("%" PRIu64, t->over_limit));
    return n;
}

void process_tree_free_meta(char **keys, char **values, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(keys[i]);
        free(values[i]);
    }
    free(keys);
    free(values);
}

const char *process_tree_name(const struct tree_process *p, char *buf, size_t size)
{
    const char *c = p->command;
    size_t len = strcspn(c, " ");
    const char *slash = memrchr(c, '/', len);
    const char *base = slash ? slash + 1 : c;
    snprintf(buf, size, "%.*s", (int)(len - (size_t)(base - c)), base);
    return buf;
}

int process_tree_matches(const struct tree_process *p, const char *which)
{
    uint64_t pid;
    char name[256];
    if (parse_u64_cstr(which, &pid) == PARSE_NUMBER_OK)
        return (uint64_t)p->pid == pid;
    if (which[0] == '#' && parse_u64_cstr(which + 1, &pid) == PARSE_NUMBER_OK)
        return p->number == pid;  /* the images of one pid (exec chains) told apart */
    return strcmp(process_tree_name(p, name, sizeof name), which) == 0;
}

int process_tree_chosen(const struct tree_process *p, const char *const *which, size_t n_which)
{
    for (size_t w = 0; w < n_which; w++)
        if (process_tree_matches(p, which[w]))
            return 1;
    return n_which == 0;
}

int process_tree_load(const char *rec_path, const char *const *which, size_t n_which,
                      struct process_tree *t, struct trms_error *err)
{
    struct recording rec;
    if (recording_open(rec_path, &rec, err) != 0)
        return -1;
    int rc = process_tree_read(&rec, t, err);
    recording_close(&rec);
    if (rc != 0)
        return -1;
    for (size_t w = 0; w < n_which; w++) {
        int found = 0;
        for (size_t i = 0; i < t->n && !found; i++)
            found = process_tree_matches(&t->items[i], which[w]);
        if (!found) {
            process_tree_free(t);
            return error_set(err, "%s: no process is '%s' (`trms info %s` lists them)", rec_path,
                             which[w], rec_path);
        }
    }
    return 0;
}

static const char *reason_text(const char *reason)
{
    static const struct {
        const char *reason, *text;
    } texts[] = {
        {"excluded", "excluded (--exclude)"},
        {"setuid", "a setuid or setgid program, which Valgrind cannot follow"},
        {"not-followed", "Valgrind did not follow this exec"},
        {"dynamic", "dynamically linked, which the step engine leaves out (single-stepping "
                    "ld.so alone takes 100,000+ steps): it ran untraced"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (strcmp(texts[i].reason, reason) == 0)
            return texts[i].text;
    return reason;
}

static void print_subtree(FILE *out, const struct process_tree *t, unsigned number, int depth)
{
    const struct tree_process *p = &t->items[number - 1];
    char events[32];
    snprintf(events, sizeof events, "%" PRIu64, p->events);
    fprintf(out, "  %*s#%u pid %d %s%s, %s events, %s  %s\n", 2 * depth, "", p->number,
            p->pid, p->via, strcmp(p->via, "start") ? "" : "ed", events, p->end,
            strcmp(p->dir, ".") ? p->dir : "(this recording)");
    fprintf(out, "  %*s   %s\n", 2 * depth, "", p->command);
    for (size_t i = 0; i < t->n; i++)
        if (t->items[i].parent == number && t->items[i].number != number)
            print_subtree(out, t, t->items[i].number, depth + 1);
}

void process_tree_print(FILE *out, const struct process_tree *t)
{
    fprintf(out, "%-16s %zu recorded, %zu left out%s\n", "processes", t->n,
            t->n_left_out + (size_t)t->over_limit, t->n > 1 ? "; the tree:" : "");
    if (t->n > 1)
        for (size_t i = 0; i < t->n; i++)
            if (t->items[i].parent == 0)
                print_subtree(out, t, t->items[i].number, 0);
    for (size_t i = 0; i < t->n_left_out; i++)
        fprintf(out, "%-16s %s (pid %d): %s\n", i ? "" : "left out", t->left_out[i].command,
                t->left_out[i].pid, reason_text(t->left_out[i].reason));
    if (t->over_limit)
        fprintf(out, "%-16s %" PRIu64 " process%s ran unrecorded beyond --max-processes\n",
                t->n_left_out ? "" : "left out", t->over_limit, t->over_limit == 1 ? "" : "es");
}

int process_tree_key(const char *key)
{
    return strncmp(key, "process-", 8) == 0 || strncmp(key, "processes", 9) == 0 ||
           strncmp(key, "left-out-", 9) == 0;
}

char *process_tree_path(const char *rec_path, const struct tree_process *p,
                        struct trms_error *err)
{
    if (strcmp(p->dir, ".") == 0)
        return xstrdup(rec_path);
    /* A recording from elsewhere: both levels real directories, no links. */
    char *top = recording_file(rec_path, PROCESS_TREE_DIR);
    char *path = recording_file(rec_path, p->dir);
    struct stat st_top, st;
    if (lstat(top, &st_top) != 0 || !S_ISDIR(st_top.st_mode) || lstat(path, &st) != 0 ||
        !S_ISDIR(st.st_mode)) {
        error_set(err, "%s: process %d's recording %s is missing or not a directory", rec_path,
                  p->pid, p->dir);
        free(path);
        path = NULL;
    }
    free(top);
    return path;
}
