/* rr_dump: a line-at-a-time parser of rr 5.6.0's dump text (see rr_dump.h).
 *
 * Each line is matched against the printf format rr wrote it with, through
 * a cursor that consumes literals and numbers; anything else is an error
 * naming the line. Two quirks of rr's printing are read as printed: glibc
 * prints a null %p as "(nil)", and rr 5.6.0 writes a mapping's holes with
 * no separator between them ("0x10-0x200x30-0x40"). */
#include "replayer/rr_dump.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

struct cursor {
    const char *p;
};

static int literal(struct cursor *c, const char *text)
{
    size_t n = strlen(text);
    if (strncmp(c->p, text, n) != 0)
        return -1;
    c->p += n;
    return 0;
}

static int hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return -1;
}

/* 0x-prefixed lowercase hex, at most 64 bits. Digits followed by 'x'
 * end one digit early: that "0x" starts the next number (holes are
 * printed without a separator). */
static int hex(struct cursor *c, uint64_t *out)
{
    if (literal(c, "0x") != 0 || hex_digit(*c->p) < 0)
        return -1;
    const char *end = c->p;
    while (hex_digit(*end) >= 0)
        end++;
    if (*end == 'x' && end - c->p >= 2 && end[-1] == '0')
        end--;
    uint64_t v = 0;
    for (; c->p < end; c->p++) {
        if (v >> 60)
            return -1;  /* more than 64 bits */
        v = v << 4 | (uint64_t)hex_digit(*c->p);
    }
    *out = v;
    return 0;
}

/* A %p: hex, or glibc's "(nil)" for 0. */
static int pointer(struct cursor *c, uint64_t *out)
{
    if (literal(c, "(nil)") == 0) {
        *out = 0;
        return 0;
    }
    return hex(c, out);
}

static int decimal(struct cursor *c, int64_t *out)
{
    int negative = *c->p == '-';
    const char *p = c->p + negative;
    if (*p < '0' || *p > '9')
        return -1;
    uint64_t v = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_C(1) << 63) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > (UINT64_C(1) << 63) - !negative)
        return -1;
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    c->p = p;
    return 0;
}

static int unsigned_decimal(struct cursor *c, uint64_t *out)
{
    int64_t v;
    if (*c->p == '-' || decimal(c, &v) != 0)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static int tid(struct cursor *c, uint32_t *out)
{
    int64_t v;
    if (decimal(c, &v) != 0 || v < 0 || v > INT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Copies the text up to (not including) END into BUF; fails when END does
 * not follow or the text does not fit. */
static int text_until(struct cursor *c, const char *end, char *buf, size_t size)
{
    const char *stop = strstr(c->p, end);
    if (!stop || (size_t)(stop - c->p) >= size)
        return -1;
    memcpy(buf, c->p, (size_t)(stop - c->p));
    buf[stop - c->p] = '\0';
    c->p = stop + strlen(end);
    return 0;
}

/* ---- frame header and registers ---- */

static int parse_header(const char *line, struct rr_frame *f)
{
    struct cursor c = {line};
    double real_time;
    char *after;
    if (literal(&c, "  real_time:") != 0)
        return -1;
    real_time = strtod(c.p, &after);
    (void)real_time;
    if (after == c.p)
        return -1;
    c.p = after;
    int64_t ticks;
    if (literal(&c, " global_time:") != 0 || unsigned_decimal(&c, &f->time) != 0 ||
        literal(&c, ", event:`") != 0 || text_until(&c, "' ", f->event, sizeof f->event) != 0)
        return -1;
    f->state[0] = '\0';
    if (literal(&c, "(state:") == 0 &&
        (text_until(&c, ") ", f->state, sizeof f->state) != 0 || !f->state[0]))
        return -1;
    if (literal(&c, "tid:") != 0 || tid(&c, &f->tid) != 0 || literal(&c, ", ticks:") != 0 ||
        decimal(&c, &ticks) != 0 || *c.p)
        return -1;
    f->ticks = ticks;
    return 0;
}

/* Where each register the frame needs goes; the x86-64 table of rr's
 * Registers.cc, in its order. Segment selectors are read and dropped. */
static uint64_t *register_slot(struct rr_frame *f, const char *name, size_t len, int *index)
{
    static const char *const names[] = {
        "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10",
        "r11", "r12", "r13", "r14", "r15", "rip", "eflags", "orig_rax", "fs_base", "gs_base"};
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++) {
        if (strlen(names[i]) != len || strncmp(names[i], name, len) != 0)
            continue;
        *index = i;
        if (i < 16)
            return &f->gp[i];
        uint64_t *rest[] = {&f->rip, &f->eflags, &f->orig_rax, &f->fs_base, &f->gs_base};
        return rest[i - 16];
    }
    *index = -1;
    return NULL;
}

/* "name:0xVALUE" tokens separated by single spaces: the general registers
 * (all of the ones rr_frame keeps must be there), then the extra
 * registers (st0.., ymm0.., wider than 64 bits), which are skipped. */
static int parse_registers(const char *line, struct rr_frame *f)
{
    struct cursor c = {line};
    uint32_t seen = 0;
    while (*c.p) {
        const char *name = c.p;
        const char *colon = strchr(name, ':');
        if (!colon || colon == name || memchr(name, ' ', (size_t)(colon - name)))
            return -1;
        c.p = colon + 1;
        int index;
        uint64_t *slot = register_slot(f, name, (size_t)(colon - name), &index);
        if (slot) {
            if (hex(&c, slot) != 0)
                return -1;
            seen |= UINT32_C(1) << index;
        } else {
            if (literal(&c, "0x") != 0 || hex_digit(*c.p) < 0)
                return -1;
            while (hex_digit(*c.p) >= 0)
                c.p++;
        }
        if (*c.p && literal(&c, " ") != 0)
            return -1;
    }
    return seen == (UINT32_C(1) << 21) - 1 ? 0 : -1;
}

/* ---- items ---- */

static int parse_task_event(const char *line, struct rr_task_event *e)
{
    struct cursor c = {line};
    *e = (struct rr_task_event){0};
    int64_t status;
    uint64_t flags;
    if (literal(&c, "  TraceTaskEvent::CLONE tid=") == 0) {
        e->kind = RR_TASK_CLONE;
        if (tid(&c, &e->tid) != 0 || literal(&c, " parent=") != 0 || tid(&c, &e->parent) != 0 ||
            literal(&c, " clone_flags=") != 0 || hex(&c, &flags) != 0 || flags > UINT32_MAX)
            return -1;
        e->clone_flags = (uint32_t)flags;
    } else if (literal(&c, "  TraceTaskEvent::EXEC tid=") == 0) {
        e->kind = RR_TASK_EXEC;
        if (tid(&c, &e->tid) != 0 || literal(&c, " file=") != 0)
            return -1;
        e->file = c.p;  /* the rest of the line */
        c.p += strlen(c.p);
    } else if (literal(&c, "  TraceTaskEvent::EXIT tid=") == 0) {
        e->kind = RR_TASK_EXIT;
        if (tid(&c, &e->tid) != 0 || literal(&c, " status=") != 0 || decimal(&c, &status) != 0 ||
            status < INT32_MIN || status > INT32_MAX)
            return -1;
        e->exit_status = (int)status;
    } else if (literal(&c, "  TraceTaskEvent::DETACH tid=") == 0) {
        e->kind = RR_TASK_DETACH;
        if (tid(&c, &e->tid) != 0)
            return -1;
    } else {
        return -1;
    }
    return *c.p ? -1 : 0;
}

static unsigned prot_bits(const char flags[5], int *shared)
{
    static const char expect[] = "rwx";
    unsigned prot = 0;
    for (int i = 0; i < 3; i++)
        if (flags[i] == expect[i])
            prot |= 1u << i;
        else if (flags[i] != '-')
            return ~0u;
    if (flags[3] != 'p' && flags[3] != 's')
        return ~0u;
    *shared = flags[3] == 's';
    return prot;
}

/* The two paths are printed unescaped, so each ends at the first
 * occurrence of what rr prints after it: a file name containing
 * `", addr:` would be misread (and then rejected, not guessed). */
static int parse_mapping(char *line, struct rr_mapping *m)
{
    struct cursor c = {line};
    if (literal(&c, "  { map_file:\"") != 0)
        return -1;
    char *map_file = (char *)c.p;
    char *end = strstr(map_file, "\", addr:");
    if (!end)
        return -1;
    c.p = end + strlen("\", addr:");
    *end = '\0';
    char prot[5];
    int64_t device, inode;
    if (pointer(&c, &m->addr) != 0 || literal(&c, ", length:") != 0 ||
        pointer(&c, &m->length) != 0 || literal(&c, ", prot_flags:\"") != 0 ||
        text_until(&c, "\", ", prot, sizeof prot) != 0 || strlen(prot) != 4 ||
        (m->prot = prot_bits(prot, &m->shared)) == ~0u || literal(&c, "file_offset:") != 0 ||
        hex(&c, &m->file_offset) != 0 || literal(&c, ", device:") != 0 ||
        decimal(&c, &device) != 0 || literal(&c, ", inode:") != 0 || decimal(&c, &inode) != 0 ||
        literal(&c, ", data_file:\"") != 0)
        return -1;
    char *data_file = (char *)c.p;
    end = strstr(data_file, "\", data_offset:");
    if (!end)
        return -1;
    c.p = end + strlen("\", data_offset:");
    *end = '\0';
    if (hex(&c, &m->data_offset) != 0 || literal(&c, ", file_size:") != 0 ||
        hex(&c, &m->file_size) != 0 || literal(&c, " }") != 0 || *c.p)
        return -1;
    m->map_file = map_file;
    m->data_file = data_file;
    m->device = device;
    m->inode = inode;
    return 0;
}

struct holes {
    struct rr_hole *items;
    size_t n, capacity;
};

static int parse_mem_write(const char *line, struct rr_mem_write *w, struct holes *holes)
{
    struct cursor c = {line};
    holes->n = 0;
    if (literal(&c, "  { tid:") != 0 || tid(&c, &w->tid) != 0 || literal(&c, ", addr:") != 0 ||
        pointer(&c, &w->addr) != 0 || literal(&c, ", length:") != 0 ||
        pointer(&c, &w->length) != 0)
        return -1;
    if (literal(&c, ", holes:[") == 0) {
        while (literal(&c, "]") != 0) {
            uint64_t start, stop;
            if (holes->n)
                (void)literal(&c, ", ");  /* a later rr's separator; 5.6.0 has none */
            if (pointer(&c, &start) != 0 || literal(&c, "-") != 0 || pointer(&c, &stop) != 0 ||
                stop < start || stop > w->length)
                return -1;
            if (holes->n == holes->capacity) {
                holes->capacity = holes->capacity ? 2 * holes->capacity : 4;
                holes->items = xrealloc(holes->items, holes->capacity * sizeof *holes->items);
            }
            holes->items[holes->n++] = (struct rr_hole){start, stop - start};
        }
    }
    if (literal(&c, " }") != 0 || *c.p)
        return -1;
    w->holes = holes->items;
    w->n_holes = holes->n;
    return 0;
}

/* ---- the dump ---- */

enum state { BETWEEN_FRAMES, EXPECT_HEADER, IN_FRAME };

static int call(int (*fn)(void *, const struct rr_frame *, struct trms_error *), void *ctx,
                const struct rr_frame *f, struct trms_error *err)
{
    return fn ? fn(ctx, f, err) : 0;
}

int rr_dump_parse(FILE *in, const char *name, const struct rr_dump_callbacks *cb,
                  struct trms_error *err)
{
    char *line = NULL;
    size_t size = 0;
    ssize_t len;
    uint64_t number = 0;
    enum state state = BETWEEN_FRAMES;
    int announced = 0;  /* `frame` called for the current frame */
    struct rr_frame frame;
    struct holes holes = {0};
    int rc = 0;
    const char *what = NULL;
    while (rc == 0 && (len = getline(&line, &size, in)) >= 0) {
        number++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        if ((size_t)len != strlen(line)) {
            what = "a NUL byte in the line";
            break;
        }
        if (state == BETWEEN_FRAMES) {
            if (strcmp(line, "{") != 0) {
                what = "expected '{' opening a frame";
                break;
            }
            state = EXPECT_HEADER;
            continue;
        }
        if (state == EXPECT_HEADER) {
            frame = (struct rr_frame){0};
            if (parse_header(line, &frame) != 0) {
                what = "not a frame header (real_time:... global_time:..., event:`...' tid:..., "
                       "ticks:...)";
                break;
            }
            state = IN_FRAME;
            announced = 0;
            continue;
        }
        if (strncmp(line, "rax:", 4) == 0) {
            if (announced || frame.has_regs || parse_registers(line, &frame) != 0) {
                what = "not a register line of x86-64 (rax:0x.. ... gs_base:0x..)";
                break;
            }
            frame.has_regs = 1;
            continue;
        }
        if (!announced) {
            rc = call(cb->frame, cb->ctx, &frame, err);
            announced = 1;
            if (rc != 0)
                break;
        }
        if (strcmp(line, "}") == 0) {
            rc = call(cb->frame_end, cb->ctx, &frame, err);
            state = BETWEEN_FRAMES;
        } else if (strncmp(line, "  TraceTaskEvent::", 18) == 0) {
            struct rr_task_event e;
            if (parse_task_event(line, &e) != 0) {
                what = "not a task event (TraceTaskEvent::CLONE|EXEC|EXIT|DETACH tid=...)";
                break;
            }
            rc = cb->task_event ? cb->task_event(cb->ctx, &frame, &e, err) : 0;
        } else if (strncmp(line, "  { map_file:", 13) == 0) {
            struct rr_mapping m;
            if (parse_mapping(line, &m) != 0) {
                what = "not a mapping ({ map_file:\"...\", addr:..., ... file_size:0x... })";
                break;
            }
            rc = cb->mapping ? cb->mapping(cb->ctx, &frame, &m, err) : 0;
        } else if (strncmp(line, "  { tid:", 8) == 0) {
            struct rr_mem_write w;
            if (parse_mem_write(line, &w, &holes) != 0) {
                what = "not a recorded memory write ({ tid:..., addr:..., length:... })";
                break;
            }
            rc = cb->mem_write ? cb->mem_write(cb->ctx, &frame, &w, err) : 0;
        } else {
            what = "not a line of `rr dump -e -m -p`";
            break;
        }
    }
    if (!what && rc == 0 && ferror(in))
        rc = error_set(err, "%s: read error", name);
    else if (!what && rc == 0 && state != BETWEEN_FRAMES)
        rc = error_set(err, "%s:%llu: the dump ends inside a frame (truncated)", name,
                       (unsigned long long)number);
    else if (what)
        rc = error_set(err, "%s:%llu: %s", name, (unsigned long long)number, what);
    free(line);
    free(holes.items);
    return rc;
}
