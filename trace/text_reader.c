#include "trace/text_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse_number.h"
#include "common/u64map.h"

/* The operands each keyword takes; `call` takes a name instead. */
static const struct {
    const char *keyword;
    enum event_type type;
    int numbers;
    const char *operands[2];
} keywords[] = {
    {"thread", EVENT_THREAD, 1, {"thread id", NULL}},
    {"call", EVENT_CALL, 0, {NULL, NULL}},
    {"return", EVENT_RETURN, 0, {NULL, NULL}},
    {"read", EVENT_READ, 2, {"address", "size"}},
    {"write", EVENT_WRITE, 2, {"address", "size"}},
    {"kread", EVENT_KREAD, 2, {"address", "size"}},
    {"kwrite", EVENT_KWRITE, 2, {"address", "size"}},
    {"cost", EVENT_COST, 1, {"instruction count", NULL}},
};
#define N_KEYWORDS (sizeof keywords / sizeof *keywords)

struct parser {
    const char *path;
    uint64_t line;
    struct routine_table *routines;
    struct u64map depth;    /* tid -> pending calls, to reject a bare return */
    int has_thread;
    uint32_t thread;
    event_sink sink;
    void *ctx;
    text_annotation annotate;
    void *annotate_ctx;
    sync_sink sync;
    void *sync_ctx;
};

__attribute__((format(printf, 3, 4)))
static int fail(const struct parser *p, struct trms_error *err, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return error_set(err, "%s:%" PRIu64 ": %s", p->path, p->line, what);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Next whitespace-delimited token after *CURSOR; length 0 at end of line. */
static size_t next_token(const char **cursor, const char **token)
{
    const char *s = *cursor;
    while (is_space(*s))
        s++;
    *token = s;
    while (*s && !is_space(*s))
        s++;
    *cursor = s;
    return (size_t)(s - *token);
}

/* At most 40 characters of a token, for messages. */
#define SHOWN(len) (int)((len) < 40 ? (len) : 40)

static int parse_operand(const struct parser *p, const char *token, size_t len,
                         const char *what, uint64_t *out, struct trms_error *err)
{
    switch (parse_u64(token, len, out)) {
    case PARSE_NUMBER_OK:
        return 0;
    case PARSE_NUMBER_OVERFLOW:
        return fail(p, err, "%s %.*s does not fit in 64 bits", what, SHOWN(len), token);
    default:
        return fail(p, err, "%s '%.*s' is not a number (decimal or 0x hex)", what,
                    SHOWN(len), token);
    }
}

static int emit(const struct parser *p, const struct event *ev, struct trms_error *err)
{
    if (p->sink(p->ctx, ev, err) == 0)
        return 0;
    char inner[sizeof err->message];
    memcpy(inner, err->message, sizeof inner);
    return fail(p, err, "%s", inner);
}

static int parse_call(struct parser *p, const char *rest, struct event *ev,
                      struct trms_error *err)
{
    while (is_space(*rest))
        rest++;
    size_t len = strlen(rest);
    while (len > 0 && is_space(rest[len - 1]))
        len--;
    if (len == 0)
        return fail(p, err, "call needs a routine name or 0x address");
    uint64_t addr;
    int rc;
    if (len > 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') &&
        parse_u64(rest, len, &addr) == PARSE_NUMBER_OK)
        rc = routine_table_intern_addr(p->routines, addr, &ev->routine);
    else
        rc = routine_table_intern_name(p->routines, rest, len, &ev->routine);
    if (rc != 0)
        return fail(p, err, "too many distinct routines");
    return 0;
}

static int parse_operands(struct parser *p, size_t k, const char *cursor, struct event *ev,
                          struct trms_error *err)
{
    const char *token;
    size_t len;
    uint64_t numbers[2] = {0, 0};
    for (int i = 0; i < keywords[k].numbers; i++) {
        len = next_token(&cursor, &token);
        if (len == 0)
            return fail(p, err, "%s needs %s", keywords[k].keyword,
                        keywords[k].numbers == 2 ? "an address and a size" : "a number");
        if (parse_operand(p, token, len, keywords[k].operands[i], &numbers[i], err) != 0)
            return -1;
    }
    len = next_token(&cursor, &token);
    if (len != 0)
        return fail(p, err, "unexpected '%.*s' after %s", SHOWN(len), token,
                    keywords[k].keyword);
    switch (ev->type) {
    case EVENT_THREAD:
        if (numbers[0] > UINT32_MAX)
            return fail(p, err, "thread id %" PRIu64 " does not fit in 32 bits", numbers[0]);
        ev->tid = (uint32_t)numbers[0];
        return 0;
    case EVENT_COST:
        ev->size = numbers[0];
        return 0;
    case EVENT_RETURN:
        return 0;
    default:
        ev->addr = numbers[0];
        ev->size = numbers[1];
        if (ev->size == 0)
            return fail(p, err, "%s of 0 bytes", keywords[k].keyword);
        if (ev->size > EVENT_MAX_ACCESS_SIZE)
            return fail(p, err, "%s of 4 GiB or more", keywords[k].keyword);
        if (ev->addr + (ev->size - 1) < ev->addr)
            return fail(p, err, "%s runs past the end of the address space",
                        keywords[k].keyword);
        return 0;
    }
}

/* Tracks pending calls per thread so a bare return is caught at its line. */
static int check_nesting(struct parser *p, const struct event *ev, struct trms_error *err)
{
    uint64_t *depth = u64map_upsert(&p->depth, p->thread, NULL);
    if (ev->type == EVENT_CALL)
        (*depth)++;
    else if (ev->type == EVENT_RETURN && (*depth)-- == 0)
        return fail(p, err, "return with no pending call in thread %" PRIu32, p->thread);
    return 0;
}

/* "#@WORD REST": for the annotation callback, if there is one. */
static int parse_annotation(struct parser *p, const char *line, struct trms_error *err)
{
    const char *word = line + 2;
    size_t len = strcspn(word, " ");
    struct trms_error inner;
    if (p->annotate(p->annotate_ctx, word, len, word + len + (word[len] == ' '), &inner) != 0)
        return fail(p, err, "#@%.*s: %s", SHOWN(len), word, inner.message);
    return 0;
}

int text_sync_parse(const char *rest, struct sync_event *ev, struct trms_error *err)
{
    const char *cursor = rest, *token;
    size_t len = next_token(&cursor, &token);
    uint32_t kind = 1;
    while (kind < SYNC_KIND_END && !(strlen(sync_kind_name(kind)) == len &&
                                      memcmp(sync_kind_name(kind), token, len) == 0))
        kind++;
    if (kind == SYNC_KIND_END)
        return error_set(err, "unknown kind '%.*s' (expected create, start, exit, futex_wait, "
                              "futex_resume, futex_wake, blocking or atomic)",
                         SHOWN(len), token);
    *ev = (struct sync_event){.kind = kind};
    const char *ops = sync_kind_operands(kind);
    for (size_t i = 0; ops[i]; i++) {
        len = next_token(&cursor, &token);
        uint64_t *out = ops[i] == 'a' ? &ev->addr : &ev->value;
        if (len == 0)
            return error_set(err, "%s needs %zu number%s", sync_kind_name(kind), strlen(ops),
                             strlen(ops) > 1 ? "s" : "");
        if (parse_u64(token, len, out) != PARSE_NUMBER_OK)
            return error_set(err, "'%.*s' is not a number (decimal or 0x hex)", SHOWN(len),
                             token);
    }
    len = next_token(&cursor, &token);
    if (len != 0)
        return error_set(err, "unexpected '%.*s' after %s", SHOWN(len), token,
                         sync_kind_name(kind));
    if (kind == SYNC_CREATE && ev->value > UINT32_MAX)
        return error_set(err, "thread id %" PRIu64 " does not fit in 32 bits", ev->value);
    return 0;
}

static int first_thread(struct parser *p, struct trms_error *err);

/* "#@sync ...": a sync record of the current thread. */
static int parse_sync(struct parser *p, const char *rest, struct trms_error *err)
{
    struct sync_event ev;
    struct trms_error inner;
    if (text_sync_parse(rest, &ev, &inner) != 0)
        return fail(p, err, "#@sync: %s", inner.message);
    if (first_thread(p, err) != 0)
        return -1;
    ev.tid = p->thread;
    if (p->sync(p->sync_ctx, &ev, err) == 0)
        return 0;
    memcpy(inner.message, err->message, sizeof inner.message);
    return fail(p, err, "%s", inner.message);
}

/* Events before the first `thread` line are thread 1's. */
static int first_thread(struct parser *p, struct trms_error *err)
{
    if (p->has_thread)
        return 0;
    struct event first = {.type = EVENT_THREAD, .tid = 1};
    p->has_thread = 1;
    p->thread = 1;
    return emit(p, &first, err);
}

static int parse_line(struct parser *p, char *line, struct trms_error *err)
{
    if (p->sync && strncmp(line, "#@sync ", 7) == 0)
        return parse_sync(p, line + 7, err);
    if (p->annotate && line[0] == '#' && line[1] == '@')
        return parse_annotation(p, line, err);
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    const char *cursor = line, *token;
    size_t len = next_token(&cursor, &token);
    if (len == 0)
        return 0; /* blank or comment */
    size_t k = 0;
    while (k < N_KEYWORDS &&
           !(strlen(keywords[k].keyword) == len && memcmp(keywords[k].keyword, token, len) == 0))
        k++;
    if (k == N_KEYWORDS)
        return fail(p, err, "unknown event '%.*s' (expected thread, call, return, read, "
                            "write, kread, kwrite or cost)", SHOWN(len), token);
    struct event ev = {.type = keywords[k].type};
    int rc = ev.type == EVENT_CALL ? parse_call(p, cursor, &ev, err)
                                   : parse_operands(p, k, cursor, &ev, err);
    if (rc != 0)
        return -1;
    if (ev.type == EVENT_THREAD) {
        p->has_thread = 1;
        p->thread = ev.tid;
        return emit(p, &ev, err);
    }
    if (first_thread(p, err) != 0)
        return -1;
    if (check_nesting(p, &ev, err) != 0)
        return -1;
    return emit(p, &ev, err);
}

int text_trace_read(FILE *fp, const char *path, struct routine_table *routines,
                    event_sink sink, void *ctx, struct trms_error *err)
{
    return text_trace_read_annotated(fp, path, routines, sink, ctx, NULL, NULL, err);
}

int text_trace_read_annotated(FILE *fp, const char *path, struct routine_table *routines,
                              event_sink sink, void *ctx, text_annotation annotate,
                              void *annotate_ctx, struct trms_error *err)
{
    return text_trace_read_sync(fp, path, routines, sink, ctx, annotate, annotate_ctx, NULL,
                                NULL, err);
}

int text_trace_read_sync(FILE *fp, const char *path, struct routine_table *routines,
                         event_sink sink, void *ctx, text_annotation annotate,
                         void *annotate_ctx, sync_sink sync, void *sync_ctx,
                         struct trms_error *err)
{
    struct parser p = {.path = path, .routines = routines, .sink = sink, .ctx = ctx,
                       .annotate = annotate, .annotate_ctx = annotate_ctx, .sync = sync,
                       .sync_ctx = sync_ctx};
    u64map_init(&p.depth);
    char *line = NULL;
    size_t capacity = 0;
    ssize_t got;
    int rc = 0;
    while (rc == 0 && (got = getline(&line, &capacity, fp)) >= 0) {
        p.line++;
        if (got > 0 && line[got - 1] == '\n')
            line[--got] = '\0';
        if (strlen(line) != (size_t)got)
            rc = fail(&p, err, "the line holds a NUL byte (not a text trace?)");
        else
            rc = parse_line(&p, line, err);
    }
    if (rc == 0 && ferror(fp))
        rc = error_set(err, "%s: cannot read: %s", path, strerror(errno));
    free(line);
    u64map_free(&p.depth);
    return rc;
}
