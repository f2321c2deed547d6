/* name_shorten: readable short forms of long routine names (see
 * name_shorten.h). */
#include "report/name_shorten.h"

#include <stdlib.h>
#include <string.h>

#include "common/oom.h"

/* "(anonymous namespace)" is part of a qualified name, not a parameter
 * list; `operator<`, `operator<<`, `operator->` ... hold brackets that
 * open nothing. */
static const char anonymous[] = "(anonymous namespace)";

static int is_operator_bracket(const char *name, const char *p)
{
    static const char op[] = "operator";
    size_t n = sizeof op - 1;
    for (size_t back = 0; back <= 2; back++) {
        const char *start = p - back - n;
        if (start >= name && strncmp(start, op, n) == 0) {
            for (const char *q = start + n; q < p; q++)
                if (!strchr("<>-=", *q))
                    return 0;
            return 1;
        }
    }
    return 0;
}

/* Steps over the character at P, keeping the template depth *ANGLE;
 * returns the last character it consumed ("(anonymous namespace)" whole)
 * and whether *P is plain text at depth 0 through *TOP. */
static const char *step(const char *name, const char *p, int *angle, int *top)
{
    *top = 0;
    if (strncmp(p, anonymous, sizeof anonymous - 1) == 0)
        return p + sizeof anonymous - 2;
    if ((*p == '<' || *p == '>') && is_operator_bracket(name, p))
        return p;
    if (*p == '<')
        ++*angle;
    else if (*p == '>' && *angle > 0)
        --*angle;
    else
        *top = *angle == 0;
    return p;
}

/* Where the parameter list (the last top-level "(...)") opens, or NULL. */
static const char *parameter_list(const char *name)
{
    const char *open = NULL;
    int angle = 0, paren = 0, top;
    for (const char *p = name; *p; p++) {
        p = step(name, p, &angle, &top);
        if (top && *p == '(' && paren++ == 0)
            open = p;
        else if (*p == ')' && paren > 0)
            paren--;
    }
    return open;
}

/* Whether the space at P follows an operator's name ("operator new",
 * "operator<< <char>"): part of the name, not after a return type. */
static int after_operator(const char *name, const char *p)
{
    const char *token = p;
    while (token > name && token[-1] != ' ')
        token--;
    for (const char *q = token; q + 8 <= p; q++)
        if (strncmp(q, "operator", 8) == 0)
            return 1;
    return 0;
}

/* The name without the return type of a template function: text before
 * the last top-level space ahead of the parameter list. */
static void strip_return_type(char *name)
{
    const char *params = parameter_list(name);
    if (!params)
        return;
    const char *space = NULL;
    int angle = 0, top;
    for (const char *p = name; p < params; p++) {
        p = step(name, p, &angle, &top);
        if (top && *p == ' ' && !after_operator(name, p))
            space = p;
    }
    if (!space)
        return;
    memmove(name, space + 1, strlen(space + 1) + 1);
}

/* The parameter list's contents become "...". */
static void collapse_parameters(char *name)
{
    char *open = (char *)parameter_list(name);
    if (!open || open[1] == ')')
        return;
    int depth = 0;
    char *p = open;
    for (; *p; p++) {
        depth += *p == '(';
        depth -= *p == ')';
        if (depth == 0)
            break;
    }
    if (!*p || p - open - 1 <= 3)
        return;
    memcpy(open + 1, "...", 3);
    memmove(open + 4, p, strlen(p) + 1);
}

/* Template arguments nested KEEP deep or deeper become "...", in place:
 * NAME has room for 4 times its length ("<>" becomes "<...>"). */
static void collapse_templates(char *name, int keep)
{
    size_t len = strlen(name);
    char *copy = xmalloc(len + 1);
    memcpy(copy, name, len + 1);
    const char *in = copy;
    char *out = name;
    int depth = 0;
    for (const char *p = in; *p; p++) {
        int bracket = (*p == '<' || *p == '>') && !is_operator_bracket(in, p);
        if (bracket && *p == '<') {
            if (depth++ < keep)
                *out++ = '<';
            if (depth == keep) {
                memcpy(out, "...", 3);
                out += 3;
            }
            continue;
        }
        if (bracket && *p == '>' && depth > 0) {
            if (--depth < keep)
                *out++ = '>';
            continue;
        }
        if (depth < keep)
            *out++ = *p;
    }
    *out = '\0';
    free(copy);
}

/* " [clone .isra.0]" (a compiler's specialized copy) becomes ".isra.0". */
static void compact_clones(char *name)
{
    static const char clone[] = " [clone ";
    char *p;
    while ((p = strstr(name, clone)) != NULL) {
        char *end = strchr(p, ']');
        if (!end)
            return;
        size_t kept = (size_t)(end - p) - (sizeof clone - 1);
        memmove(p, p + sizeof clone - 1, kept);
        memmove(p + kept, end + 1, strlen(end + 1) + 1);
    }
}

void name_short_forms(const char *name, void (*fn)(const char *form, void *arg), void *arg)
{
    size_t len = strlen(name);
    char *work = xmalloc(4 * len + 4), *last = xmalloc(4 * len + 4);
    memcpy(work, name, len + 1);
    memcpy(last, name, len + 1);
    for (int stage = 0; stage < 6; stage++) {
        if (stage == 0)
            compact_clones(work);
        else if (stage == 1)
            strip_return_type(work);
        else if (stage == 2)
            collapse_parameters(work);
        else
            collapse_templates(work, 6 - stage);
        if (strcmp(work, last) != 0) {
            fn(work, arg);
            strcpy(last, work);
        }
    }
    free(work);
    free(last);
}

int name_shorten(const char *name, size_t width, char *out, size_t out_size)
{
    size_t len = strlen(name);
    char *work = xmalloc(4 * len + 4);
    memcpy(work, name, len + 1);
    if (strlen(work) > width)
        compact_clones(work);
    if (strlen(work) > width)
        strip_return_type(work);
    if (strlen(work) > width)
        collapse_parameters(work);
    for (int keep = 3; keep >= 1 && strlen(work) > width; keep--)
        collapse_templates(work, keep);
    len = strlen(work);
    int cut = len > width;
    if (cut) {
        /* The middle goes: the start says where, the end says what. */
        size_t head = (width - 3) / 2, tail = width - 3 - head;
        memmove(work + head + 3, work + len - tail, tail + 1);
        memcpy(work + head, "...", 3);
    }
    size_t n = strlen(work);
    if (n >= out_size)
        n = out_size - 1;
    memcpy(out, work, n);
    out[n] = '\0';
    free(work);
    return cut;
}
