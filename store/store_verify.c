#include "store/store_verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/regular_file.h"
#include "store/store_env.h"
#include "store/store_map.h"

/* LMDB's file format (data version 1, liblmdb 0.9), as it lays it out on a
 * 64-bit machine, in the machine's byte order. Offsets in bytes. */
#define LMDB_MAGIC 0xBEEFC0DEu
#define LMDB_DATA_VERSION 1u
#define NUM_METAS 2
#define PAGE_HEADER 16      /* pgno u64, pad u16, flags u16, lower u16, upper u16 | pages u32 */
#define NODE_HEADER 8       /* lo u16, hi u16, flags u16, key size u16; key; data */
#define DB_RECORD 48        /* pad u32, flags u16, depth u16, 5 x u64 */
#define META_RECORD 136     /* magic, version, address, mapsize, 2 DB records, last page, txnid */
#define MAX_DEPTH 32        /* LMDB's cursor stack */
#define MAX_KEY 511         /* LMDB's largest key */
#define P_BRANCH 0x01
#define P_LEAF 0x02
#define P_OVERFLOW 0x04
#define P_META 0x08
#define F_BIGDATA 0x01
#define F_SUBDATA 0x02
#define NO_PAGE UINT64_MAX  /* the root of an empty tree */
#define PLAUSIBLE_PAGES ((UINT64_C(16) << 30) / 4096)  /* the map trms reserves */

struct db_record {
    uint32_t pad;
    uint16_t flags, depth;
    uint64_t branch, leaf, overflow, entries, root;
};

struct meta {
    uint32_t magic, version;
    uint64_t address, mapsize;
    struct db_record free, main;
    uint64_t last_page, txnid;
};

static uint16_t u16_at(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint32_t u32_at(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint64_t u64_at(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void read_db_record(const uint8_t *p, struct db_record *d)
{
    d->pad = u32_at(p);
    d->flags = u16_at(p + 4);
    d->depth = u16_at(p + 6);
    d->branch = u64_at(p + 8);
    d->leaf = u64_at(p + 16);
    d->overflow = u64_at(p + 24);
    d->entries = u64_at(p + 32);
    d->root = u64_at(p + 40);
}

__attribute__((format(printf, 3, 4)))
static int fail(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Reads LEN bytes at OFFSET whole: 0, or -1 (short: past the end). */
static int read_at(int fd, void *buf, size_t len, uint64_t offset)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (uint8_t *)buf + done, len - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

/* ---- the meta pages ---- */

/* Reads and checks meta page INDEX of a file of FILE_SIZE bytes whose
 * pages are PSIZE bytes (0: take it from this page, the first). */
static int read_meta(int fd, int index, uint64_t file_size, uint32_t *psize, struct meta *m,
                     char *why, size_t len)
{
    uint8_t buf[PAGE_HEADER + META_RECORD];
    if (read_at(fd, buf, sizeof buf, (uint64_t)index * *psize) != 0)
        return fail(why, len, "meta page %d cannot be read", index);
    const uint8_t *p = buf + PAGE_HEADER;
    m->magic = u32_at(p);
    m->version = u32_at(p + 4);
    m->address = u64_at(p + 8);
    m->mapsize = u64_at(p + 16);
    read_db_record(p + 24, &m->free);
    read_db_record(p + 24 + DB_RECORD, &m->main);
    m->last_page = u64_at(p + 24 + 2 * DB_RECORD);
    m->txnid = u64_at(p + 24 + 2 * DB_RECORD + 8);
    if (u64_at(buf) != (uint64_t)index || u16_at(buf + 10) != P_META)
        return fail(why, len, "meta page %d has a bad header", index);
    if (m->magic != LMDB_MAGIC)
        return fail(why, len, "meta page %d lacks LMDB's magic number", index);
    if (m->version != LMDB_DATA_VERSION)
        return fail(why, len, "meta page %d says data format %" PRIu32 "; LMDB 0.9 writes %u",
                    index, m->version, LMDB_DATA_VERSION);
    uint32_t page_size = m->free.pad;  /* LMDB keeps the page size there */
    if (*psize == 0) {
        long os = sysconf(_SC_PAGESIZE);
        if (os <= 0 || page_size != (uint32_t)os)
            return fail(why, len, "meta page 0 says pages of %" PRIu32 " bytes; this machine's "
                                  "LMDB writes %ld", page_size, os);
        *psize = page_size;
    } else if (page_size != *psize) {
        return fail(why, len, "the meta pages disagree on the page size");
    }
    if (m->address != 0)
        return fail(why, len, "meta page %d asks for a fixed map address", index);
    if (m->free.flags != MDB_INTEGERKEY || m->main.flags != 0)
        return fail(why, len, "meta page %d has unknown flags", index);
    /* A file shorter than the pages its meta names was cut short, unless
     * the meta names more than a store can hold: then it is the meta. */
    if (m->last_page >= file_size / *psize && m->last_page < PLAUSIBLE_PAGES)
        return fail(why, len, "data.mdb was cut short: meta page %d says %" PRIu64 " pages, the "
                              "file holds %" PRIu64, index, m->last_page + 1, file_size / *psize);
    if (m->last_page < NUM_METAS - 1 || m->last_page >= file_size / *psize)
        return fail(why, len, "meta page %d says the file has %" PRIu64 " pages; it has %" PRIu64,
                    index, m->last_page + 1, file_size / *psize);
    const struct db_record *dbs[] = {&m->free, &m->main};
    for (int i = 0; i < 2; i++)
        if (dbs[i]->depth > MAX_DEPTH ||
            (dbs[i]->root != NO_PAGE && (dbs[i]->root < NUM_METAS || dbs[i]->root > m->last_page)))
            return fail(why, len, "meta page %d points outside the file", index);
    return 0;
}

/* DIR/NAME is a regular file with one name, or absent. */
static int check_file(const char *dir, const char *name, int writable, char *why, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;  /* LMDB creates it, or says why it cannot */
    if (!S_ISREG(st.st_mode))
        return fail(why, len, "%s is %s", name, S_ISLNK(st.st_mode) ? "a symbolic link"
                                                 : S_ISDIR(st.st_mode) ? "a directory"
                                                                       : "not a regular file");
    if (writable && st.st_nlink > 1)
        return fail(why, len, "%s has other names (hard links), which a write would change "
                              "too", name);
    return 0;
}

int store_verify_files(const char *dir, int writable, char *why, size_t len)
{
    if (check_file(dir, "data.mdb", writable, why, len) != 0 ||
        check_file(dir, "lock.mdb", writable, why, len) != 0 ||
        check_file(dir, STORE_ENV_LOCK_FILE, 0, why, len) != 0)
        return -1;
    char data_path[4096];
    snprintf(data_path, sizeof data_path, "%s/data.mdb", dir);
    const char *cause;
    int fd = regular_file_open(data_path, REGULAR_FILE_NOFOLLOW, &cause);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;  /* a new store */
        return fail(why, len, "data.mdb: %s", cause);
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0) {
        rc = fail(why, len, "data.mdb: %s", strerror(errno));
    } else if (st.st_size > 0) {
        uint32_t psize = 0;
        struct meta m;
        rc = read_meta(fd, 0, (uint64_t)st.st_size, &psize, &m, why, len);
        if (rc == 0)
            rc = read_meta(fd, 1, (uint64_t)st.st_size, &psize, &m, why, len);
    }
    close(fd);
    return rc;
}

/* ---- the trees of one snapshot ---- */

struct key {
    const uint8_t *data;
    size_t size;
};

/* One node as the page holds it. */
struct node {
    uint16_t offset, size;      /* size rounded up to even, as LMDB packs them */
};

struct named_db {
    char name[MAX_KEY + 1];
    struct db_record record;
};

struct walk {
    int fd;
    uint32_t psize;
    uint64_t last_page, txnid;
    uint8_t *used;              /* one bit per page: reached from a tree */
    uint8_t *freed;             /* one bit per page: in a free-page list */
    struct level {              /* what a page read at each level holds */
        uint8_t *page;
        struct key *keys;
        uint64_t *children;
    } levels[MAX_DEPTH];
    struct node *nodes, *sorted;  /* scratch of the page at hand */
    uint8_t header[PAGE_HEADER];
    char *why;
    size_t len;
    /* The tree being walked. */
    const char *tree;
    enum { FREE_TREE, MAIN_TREE, NAMED_TREE } kind;
    uint64_t branch, leaf, overflow, entries;
    /* The databases the main tree names. */
    struct named_db *named;
    size_t n_named;
};

static int bit(const uint8_t *map, uint64_t i)
{
    return map[i >> 3] >> (i & 7) & 1;
}

static void set_bit(uint8_t *map, uint64_t i)
{
    map[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* Claims page PGNO for a tree: inside the file, not a meta page, and not
 * reached before (no page belongs to two places, so no walk loops). */
static int claim(struct walk *w, uint64_t pgno)
{
    if (pgno < NUM_METAS || pgno > w->last_page)
        return fail(w->why, w->len, "%s points to page %" PRIu64 ", outside the file's %" PRIu64
                                    " pages", w->tree, pgno, w->last_page + 1);
    if (bit(w->used, pgno))
        return fail(w->why, w->len, "page %" PRIu64 " is reached twice", pgno);
    set_bit(w->used, pgno);
    return 0;
}

/* LMDB's orders: bytes (shorter first on a tie), or for the free-page
 * list, native 8-byte integers. */
static int compare_keys(const struct walk *w, const struct key *a, const struct key *b)
{
    if (w->kind == FREE_TREE) {
        uint64_t x = u64_at(a->data), y = u64_at(b->data);
        return x < y ? -1 : x > y;
    }
    size_t n = a->size < b->size ? a->size : b->size;
    int c = memcmp(a->data, b->data, n);
    if (c != 0)
        return c;
    return a->size < b->size ? -1 : a->size > b->size;
}

/* The overflow run at PGNO holding a value of SIZE bytes. */
static int check_overflow(struct walk *w, uint64_t pgno, uint64_t size)
{
    if (pgno < NUM_METAS || pgno > w->last_page)
        return fail(w->why, w->len, "%s points to page %" PRIu64 ", outside the file", w->tree,
                    pgno);
    if (read_at(w->fd, w->header, PAGE_HEADER, pgno * w->psize) != 0)
        return fail(w->why, w->len, "page %" PRIu64 " cannot be read", pgno);
    uint64_t pages = u32_at(w->header + 12);
    uint64_t needed = (PAGE_HEADER - 1 + size) / w->psize + 1;
    if (u64_at(w->header) != pgno || u16_at(w->header + 10) != P_OVERFLOW)
        return fail(w->why, w->len, "page %" PRIu64 " has a bad header (an overflow page was "
                                    "expected)", pgno);
    if (pages < needed || pages > w->last_page - pgno + 1)
        return fail(w->why, w->len, "the overflow run at page %" PRIu64 " has a bad length",
                    pgno);
    for (uint64_t i = 0; i < pages; i++)
        if (claim(w, pgno + i) != 0)
            return -1;
    w->overflow += pages;
    return 0;
}

/* A free-page list: its count, then as many page numbers, descending. */
static int check_free_list(struct walk *w, const uint8_t *ids, uint64_t size, uint64_t at)
{
    uint64_t n = size >= 8 ? u64_at(ids) : 0;
    if (size % 8 != 0 || size < 8 || n != size / 8 - 1)
        return fail(w->why, w->len, "a free-page list on page %" PRIu64 " is malformed", at);
    uint64_t previous = UINT64_MAX;
    for (uint64_t i = 1; i <= n; i++) {
        uint64_t pgno = u64_at(ids + 8 * i);
        if (pgno < NUM_METAS || pgno > w->last_page || pgno >= previous || bit(w->freed, pgno))
            return fail(w->why, w->len, "a free-page list on page %" PRIu64 " names page %" PRIu64
                                        " wrongly", at, pgno);
        set_bit(w->freed, pgno);
        previous = pgno;
    }
    return 0;
}

/* The value of leaf node NODE (of page PGNO), of SIZE bytes, NODE_FLAGS. */
static int check_value(struct walk *w, uint64_t pgno, const struct key *k, const uint8_t *data,
                       uint64_t size, unsigned node_flags)
{
    if ((node_flags & F_SUBDATA) != (w->kind == MAIN_TREE ? F_SUBDATA : 0))
        return fail(w->why, w->len, "page %" PRIu64 " of %s holds a %s where a %s belongs", pgno,
                    w->tree, node_flags & F_SUBDATA ? "database" : "value",
                    w->kind == MAIN_TREE ? "database" : "value");
    if (node_flags & F_BIGDATA) {
        uint64_t first = u64_at(data);
        if (check_overflow(w, first, size) != 0)
            return -1;
        if (w->kind != FREE_TREE)
            return 0;
        uint8_t *ids = malloc(size ? size : 1);
        if (!ids)
            return fail(w->why, w->len, "no memory to check a free-page list");
        int rc = read_at(w->fd, ids, size, first * w->psize + PAGE_HEADER) != 0
                     ? fail(w->why, w->len, "page %" PRIu64 " cannot be read", first)
                     : check_free_list(w, ids, size, first);
        free(ids);
        return rc;
    }
    switch (w->kind) {
    case FREE_TREE:
        return check_free_list(w, data, size, pgno);
    case MAIN_TREE: {
        if (size != DB_RECORD)
            return fail(w->why, w->len, "the list of databases on page %" PRIu64 " holds "
                                        "something else", pgno);
        struct named_db *d = realloc(w->named, (w->n_named + 1) * sizeof *d);
        if (!d)
            return fail(w->why, w->len, "no memory to check the store");
        w->named = d;
        d = &w->named[w->n_named++];
        memcpy(d->name, k->data, k->size);
        d->name[k->size] = '\0';
        read_db_record(data, &d->record);
        return 0;
    }
    case NAMED_TREE:
        break;
    }
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    const struct node *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Page PGNO, HEIGHT levels above the leaves (1: a leaf), at LEVEL from the
 * root, whose keys must lie in [LO, HI) (NULL: unbounded). */
static int walk_page(struct walk *w, uint64_t pgno, unsigned height, unsigned level,
                     const struct key *lo, const struct key *hi)
{
    if (claim(w, pgno) != 0)
        return -1;
    uint8_t *page = w->levels[level].page;
    struct key *keys = w->levels[level].keys;
    uint64_t *children = w->levels[level].children;
    struct node *nodes = w->nodes;
    const uint32_t psize = w->psize;
    if (read_at(w->fd, page, psize, pgno * psize) != 0)
        return fail(w->why, w->len, "page %" PRIu64 " cannot be read", pgno);
    int branch = height > 1;
    uint16_t flags = u16_at(page + 10), lower = u16_at(page + 12), upper = u16_at(page + 14);
    if (u64_at(page) != pgno)
        return fail(w->why, w->len, "page %" PRIu64 "'s header names page %" PRIu64, pgno,
                    u64_at(page));
    if (flags != (branch ? P_BRANCH : P_LEAF))
        return fail(w->why, w->len, "page %" PRIu64 " of %s has flags 0x%x where a %s page "
                                    "belongs", pgno, w->tree, flags, branch ? "branch" : "leaf");
    if (lower < PAGE_HEADER + 2 || (lower - PAGE_HEADER) % 2 != 0 || upper < lower ||
        upper > psize)
        return fail(w->why, w->len, "page %" PRIu64 "'s free space bounds are wrong (%u, %u)",
                    pgno, lower, upper);
    size_t n = (size_t)(lower - PAGE_HEADER) / 2;
    if (branch && n < 2)  /* LMDB asserts that a branch page points to two pages at least */
        return fail(w->why, w->len, "branch page %" PRIu64 " points to one page", pgno);
    size_t packed = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t at = u16_at(page + PAGE_HEADER + 2 * i);
        if (at < upper || at % 2 != 0 || (size_t)at + NODE_HEADER > psize)
            return fail(w->why, w->len, "page %" PRIu64 "'s node %zu lies outside its nodes",
                        pgno, i);
        const uint8_t *node = page + at;
        uint16_t lo16 = u16_at(node), hi16 = u16_at(node + 2), nflags = u16_at(node + 4),
                 ksize = u16_at(node + 6);
        uint64_t size = NODE_HEADER + (uint64_t)ksize;
        uint64_t dsize = lo16 | (uint64_t)hi16 << 16;
        if (branch) {
            children[i] = dsize | (uint64_t)nflags << 32;
        } else {
            if (nflags & ~(unsigned)(F_BIGDATA | F_SUBDATA) ||
                (nflags & F_BIGDATA && nflags & F_SUBDATA))
                return fail(w->why, w->len, "page %" PRIu64 "'s node %zu has unknown flags",
                            pgno, i);
            size += nflags & F_BIGDATA ? 8 : dsize;
        }
        if (at + size > psize)
            return fail(w->why, w->len, "page %" PRIu64 "'s node %zu runs past the page", pgno, i);
        if ((ksize == 0 && (!branch || i > 0)) || ksize > MAX_KEY ||
            (w->kind == FREE_TREE && ksize != 8 && (!branch || i > 0)))
            return fail(w->why, w->len, "page %" PRIu64 "'s node %zu has a bad key size", pgno,
                        i);
        keys[i] = (struct key){node + NODE_HEADER, ksize};
        nodes[i] = (struct node){at, (uint16_t)((size + 1) & ~(uint64_t)1)};
        packed += nodes[i].size;
    }
    /* LMDB packs the nodes from the end of the page down to UPPER. Nodes
     * written in key order lie in descending order already: sort only
     * when they do not. */
    struct node *sorted = w->sorted;
    int descending = 1;
    for (size_t i = 0; i + 1 < n && descending; i++)
        descending = nodes[i].offset > nodes[i + 1].offset;
    for (size_t i = 0; i < n; i++)
        sorted[i] = descending ? nodes[n - 1 - i] : nodes[i];
    if (!descending)
        qsort(sorted, n, sizeof *sorted, by_offset);
    for (size_t i = 0; i + 1 < n; i++)
        if (sorted[i].offset + sorted[i].size > sorted[i + 1].offset)
            return fail(w->why, w->len, "page %" PRIu64 "'s nodes overlap", pgno);
    if (packed != (size_t)(psize - upper))
        return fail(w->why, w->len, "page %" PRIu64 "'s nodes do not fill its used space", pgno);
    /* Keys in order, inside the bounds the parent set. A branch's first
     * key is not used (everything below the second key goes left). */
    size_t first = branch ? 1 : 0;
    for (size_t i = first; i < n; i++) {
        if ((i > first && compare_keys(w, &keys[i - 1], &keys[i]) >= 0) ||
            (lo && compare_keys(w, &keys[i], lo) < 0) || (hi && compare_keys(w, &keys[i], hi) >= 0))
            return fail(w->why, w->len, "page %" PRIu64 "'s keys are out of order", pgno);
    }
    if (!branch) {
        w->leaf++;
        w->entries += n;
        /* Free pages are listed under the transaction that freed them. */
        for (size_t i = 0; i < n && w->kind == FREE_TREE; i++)
            if (u64_at(keys[i].data) == 0 || u64_at(keys[i].data) > w->txnid)
                return fail(w->why, w->len, "page %" PRIu64 " lists pages freed by a "
                                            "transaction to come", pgno);
        for (size_t i = 0; i < n; i++) {
            const uint8_t *node = page + nodes[i].offset;
            uint64_t dsize = u16_at(node) | (uint64_t)u16_at(node + 2) << 16;
            if (check_value(w, pgno, &keys[i], node + NODE_HEADER + keys[i].size, dsize,
                            u16_at(node + 4)) != 0)
                return -1;
        }
        return 0;
    }
    w->branch++;
    for (size_t i = 0; i < n; i++) {
        const struct key *child_lo = i == 0 ? lo : &keys[i];
        const struct key *child_hi = i + 1 < n ? &keys[i + 1] : hi;
        if (walk_page(w, children[i], height - 1, level + 1, child_lo, child_hi) != 0)
            return -1;
    }
    return 0;
}

/* The tree RECORD describes, named NAME in messages. */
static int walk_tree(struct walk *w, const char *name, const struct db_record *record)
{
    w->tree = name;
    w->branch = w->leaf = w->overflow = w->entries = 0;
    if (record->root == NO_PAGE) {
        if (record->depth || record->branch || record->leaf || record->overflow || record->entries)
            return fail(w->why, w->len, "%s is empty but its record says otherwise", name);
        return 0;
    }
    if (record->depth == 0 || record->depth > MAX_DEPTH)
        return fail(w->why, w->len, "%s has depth %u", name, record->depth);
    if (walk_page(w, record->root, record->depth, 0, NULL, NULL) != 0)
        return -1;
    if (w->branch != record->branch || w->leaf != record->leaf ||
        w->overflow != record->overflow || w->entries != record->entries)
        return fail(w->why, w->len, "%s's page or entry counts are wrong", name);
    return 0;
}

static int walk_snapshot(struct walk *w, const struct meta *m)
{
    size_t bytes = (size_t)(m->last_page / 8 + 1);
    w->last_page = m->last_page;
    w->txnid = m->txnid;
    w->used = calloc(bytes, 1);
    w->freed = calloc(bytes, 1);
    size_t most = (w->psize - PAGE_HEADER) / 2;  /* nodes a page can hold */
    int rc = !w->used || !w->freed || !(w->nodes = malloc(most * sizeof *w->nodes)) ||
             !(w->sorted = malloc(most * sizeof *w->sorted));
    for (int i = 0; i < MAX_DEPTH && rc == 0; i++) {
        struct level *l = &w->levels[i];
        rc = !(l->page = malloc(w->psize)) || !(l->keys = malloc(most * sizeof *l->keys)) ||
             !(l->children = malloc(most * sizeof *l->children));
    }
    if (rc != 0)
        return 1;
    w->kind = FREE_TREE;
    if (walk_tree(w, "the free-page list", &m->free) != 0)
        return -1;
    w->kind = MAIN_TREE;
    if (walk_tree(w, "the list of databases", &m->main) != 0)
        return -1;
    w->kind = NAMED_TREE;
    for (size_t i = 0; i < w->n_named; i++) {
        char name[MAX_KEY + 32];
        snprintf(name, sizeof name, "database '%s'", w->named[i].name);
        if (w->named[i].record.flags != 0)
            return fail(w->why, w->len, "%s has flags trms never sets", name);
        if (walk_tree(w, name, &w->named[i].record) != 0)
            return -1;
    }
    for (uint64_t p = NUM_METAS; p <= m->last_page; p++)
        if (bit(w->freed, p) && bit(w->used, p))
            return fail(w->why, w->len, "page %" PRIu64 " is both free and in use", p);
    return 0;
}

static int verify_txn(MDB_env *env, MDB_txn *txn, char *why, size_t len)
{
    int fd;
    if (mdb_env_get_fd(env, &fd) != 0)
        return fail(why, len, "no file to check"), 1;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return fail(why, len, "%s", strerror(errno)), 1;
    uint32_t psize = 0;
    struct meta m;
    if (read_meta(fd, 0, (uint64_t)st.st_size, &psize, &m, why, len) != 0)
        return -1;
    uint64_t id = mdb_txn_id(txn);
    if ((id & 1) && read_meta(fd, 1, (uint64_t)st.st_size, &psize, &m, why, len) != 0)
        return -1;
    if (m.txnid != id)
        return 2;  /* a writer replaced the meta page meanwhile: look again */
    struct walk w = {.fd = fd, .psize = psize, .why = why, .len = len};
    int rc = walk_snapshot(&w, &m);
    if (rc > 0)
        fail(why, len, "no memory to check the store");
    free(w.used);
    free(w.freed);
    for (int i = 0; i < MAX_DEPTH; i++) {
        free(w.levels[i].page);
        free(w.levels[i].keys);
        free(w.levels[i].children);
    }
    free(w.nodes);
    free(w.sorted);
    free(w.named);
    return rc;
}

int store_verify_snapshot(MDB_env *env, char *why, size_t len)
{
    for (int attempt = 0; attempt < 16; attempt++) {
        MDB_txn *txn;
        int rc = store_txn_begin(env, MDB_RDONLY, &txn);
        if (rc != 0)
            return fail(why, len, "%s", mdb_strerror(rc)), 1;
        rc = verify_txn(env, txn, why, len);
        mdb_txn_abort(txn);
        if (rc != 2)
            return rc;
    }
    return fail(why, len, "no meta page holds the transaction LMDB reads");
}
