#define _GNU_SOURCE  /* fopencookie */
#include "common/visible.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The length of the UTF-8 sequence a lead byte starts, and the least
 * second byte allowed (overlong forms and surrogates excluded). */
static const struct {
    unsigned char lo, hi;       /* lead bytes */
    int len;
    unsigned char second_lo, second_hi;
} leads[] = {
    {0xc2, 0xdf, 2, 0x80, 0xbf}, {0xe0, 0xe0, 3, 0xa0, 0xbf}, {0xe1, 0xec, 3, 0x80, 0xbf},
    {0xed, 0xed, 3, 0x80, 0x9f}, {0xee, 0xef, 3, 0x80, 0xbf}, {0xf0, 0xf0, 4, 0x90, 0xbf},
    {0xf1, 0xf3, 4, 0x80, 0xbf}, {0xf4, 0xf4, 4, 0x80, 0x8f},
};

int visible_char(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    if (c == '\n' || c == '\t')
        return 1;
    if (c < 0x20 || c == 0x7f)
        return 0;
    if (c < 0x80)
        return 1;
    for (size_t i = 0; i < sizeof leads / sizeof *leads; i++) {
        if (c < leads[i].lo || c > leads[i].hi)
            continue;
        int len = leads[i].len;
        for (int k = 1; k < len; k++) {
            if ((size_t)k >= n)
                return -1;
            unsigned char lo = k == 1 ? leads[i].second_lo : 0x80,
                          hi = k == 1 ? leads[i].second_hi : 0xbf;
            if (p[k] < lo || p[k] > hi)
                return 0;
        }
        /* U+0080..U+009F: the C1 controls (0x9b alone is CSI to some). */
        if (c == 0xc2 && p[1] <= 0x9f)
            return 0;
        return len;
    }
    return 0;
}

/* Escaped S (LEN bytes) appended to BUF; how much of S was taken (a
 * character cut at the end stays when MORE_COMES). */
static size_t escape_into(char *buf, size_t *used, const unsigned char *s, size_t len,
                          int more_comes)
{
    static const char hex[] = "0123456789abcdef";
    size_t i = 0;
    while (i < len) {
        int n = visible_char(s + i, len - i);
        if (n < 0 && more_comes)
            break;
        if (n <= 0) {
            buf[(*used)++] = '\\';
            buf[(*used)++] = 'x';
            buf[(*used)++] = hex[s[i] >> 4];
            buf[(*used)++] = hex[s[i] & 15];
            i++;
        } else {
            memcpy(buf + *used, s + i, (size_t)n);
            *used += (size_t)n;
            i += (size_t)n;
        }
    }
    return i;
}

void visible_write(FILE *out, const char *s, size_t len)
{
    char buf[1024];
    while (len > 0) {
        size_t take = len < sizeof buf / 4 ? len : sizeof buf / 4, used = 0;
        size_t done = escape_into(buf, &used, (const unsigned char *)s, take, take < len);
        if (done == 0)  /* a sequence cut where the chunk ends: take it whole */
            done = escape_into(buf, &used, (const unsigned char *)s, take, 0);
        fwrite(buf, 1, used, out);
        s += done;
        len -= done;
    }
}

void visible_fputs(const char *s, FILE *out)
{
    visible_write(out, s, strlen(s));
}

/* ---- the stream ---- */

struct cookie {
    FILE *raw;
    int fd, own;
    unsigned char pending[4];   /* the start of a UTF-8 sequence the last write cut */
    size_t n_pending;
};

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static ssize_t cookie_write(void *ctx, const char *data, size_t size)
{
    struct cookie *c = ctx;
    unsigned char in[1024 + 4];
    char out[4 * sizeof in];
    size_t taken = 0;
    while (taken < size) {
        size_t n = c->n_pending, room = sizeof in - n;
        memcpy(in, c->pending, n);
        size_t fresh = size - taken < room ? size - taken : room;
        memcpy(in + n, data + taken, fresh);
        size_t used = 0, done = escape_into(out, &used, in, n + fresh, 1);
        if (write_all(c->fd, out, used) != 0)
            return -1;
        c->n_pending = n + fresh - done;  /* at most 3: a sequence not yet whole */
        memcpy(c->pending, in + done, c->n_pending);
        taken += fresh;
    }
    return (ssize_t)size;
}

/* The cookies of the streams that live as long as the process (standard
 * output and error): glibc keeps a cookie's pointer mangled, so that leak
 * checkers would take them for lost. */
static struct cookie *lifelong[2];

static int cookie_close(void *ctx)
{
    struct cookie *c = ctx;
    int rc = 0;
    for (size_t i = 0; i < sizeof lifelong / sizeof lifelong[0]; i++)
        if (lifelong[i] == c)
            lifelong[i] = NULL;
    if (c->n_pending) {  /* cut for good: escaped as it is */
        char out[16];
        size_t used = 0;
        escape_into(out, &used, c->pending, c->n_pending, 0);
        rc = write_all(c->fd, out, used);
    }
    if (c->own && fclose(c->raw) != 0)
        rc = -1;
    free(c);
    return rc;
}

FILE *visible_stream(FILE *raw, int own)
{
    if (fflush(raw) != 0)
        return NULL;
    struct cookie *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->raw = raw;
    c->fd = fileno(raw);
    c->own = own;
    cookie_io_functions_t io = {.write = cookie_write, .close = cookie_close};
    FILE *f = c->fd >= 0 ? fopencookie(c, "w", io) : NULL;
    if (!f) {
        free(c);
        return NULL;
    }
    setvbuf(f, NULL, _IOLBF, BUFSIZ);
    if (!own)
        for (size_t i = 0; i < sizeof lifelong / sizeof lifelong[0]; i++)
            if (!lifelong[i]) {
                lifelong[i] = c;
                break;
            }
    return f;
}

void visible_std_streams(void)
{
    FILE *err = visible_stream(stderr, 0);
    if (err)
        stderr = err;
    if (isatty(STDOUT_FILENO)) {
        FILE *out = visible_stream(stdout, 0);
        if (out)
            stdout = out;
    }
}
