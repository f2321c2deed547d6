/* test_object_reuse: reuse distances over the accesses to chosen objects
 * (analyses/object_reuse.h): the memory-distance paper's Table 1 and the
 * seven interleavings of its Table 3, access by access; units inside
 * objects and accesses across them; refused object lists; and the naive
 * reference (tests/naive_reference.c) on thousands of random traces with
 * random objects, for several unit sizes. */
#include <stdlib.h>

#include "analyses/object_reuse.h"
#include "common/oom.h"
#include "tests/check.h"
#include "tests/fixture.h"
#include "tests/naive_reference.h"
#include "tests/random_trace.h"

/* The paper's variables A, B, C: three ints in a row. */
static const struct object_range abc[] = {{0x1000, 4}, {0x1004, 4}, {0x1008, 4}};

/* Feeds STREAM ("A B C A ...", one letter an access, alternately by two
 * threads as it says: "A1 B2") and checks each object's histogram against
 * DISTANCES ("x x x 2 ...", x for cold), the paper's row. */
static void check_stream(const char *stream, const char *distances)
{
    struct object_reuse *o = object_reuse_new(abc, 3, 4);
    uint64_t want[3][16] = {{0}}, cold[3] = {0}, total[3] = {0};
    const char *s = stream, *d = distances;
    while (*s) {
        int var = *s - 'A';
        uint32_t tid = s[1] >= '1' && s[1] <= '9' ? (uint32_t)(s[1] - '0') : 1;
        struct event ev = {.type = EVENT_THREAD, .tid = tid};
        object_reuse_event(o, &ev);  /* ignored */
        ev = (struct event){.type = var % 2 ? EVENT_WRITE : EVENT_READ,
                            .addr = abc[var].start, .size = 4};
        object_reuse_event(o, &ev);
        total[var]++;
        if (*d == 'x')
            cold[var]++;
        else
            want[var][*d - '0']++;
        while (*s && *s != ' ')
            s++;
        while (*s == ' ')
            s++;
        d += *d ? 1 : 0;
        while (*d == ' ')
            d++;
    }
    for (int v = 0; v < 3; v++) {
        const struct object_reuse_stats *st = object_reuse_stats(o, (size_t)v);
        CHECK_EQ(st->accesses, total[v]);
        CHECK_EQ(st->cold, cold[v]);
        size_t bins = 0;
        for (uint64_t dist = 0; dist < 16; dist++) {
            if (!want[v][dist])
                continue;
            CHECK(bins < st->n_bins && st->bins[bins].distance == dist &&
                  st->bins[bins].count == want[v][dist]);
            bins++;
        }
        CHECK_EQ(st->n_bins, bins);
    }
    CHECK_EQ(object_reuse_accesses(o), total[0] + total[1] + total[2]);
    object_reuse_free(o);
}

static void paper_tables(void)
{
    /* Table 1 */
    check_stream("A B C A C C B A C B A C B B A C", "x x x 2 1 0 2 2 2 2 2 2 2 0 2 2");
    /* Table 3, its seven interleavings of Table 2's threads */
    check_stream("C2 B2 A2 C2 B2 B2 A2 C2 A1 B1 C1 A1 C1 C1 B1 A1",
                 "x x x 2 2 0 2 2 1 2 2 2 1 0 2 2");
    check_stream("C2 B2 A2 C2 A1 B1 C1 A1 C1 C1 B1 A1 C2 B2 B2 A2",
                 "x x x 2 1 2 2 2 1 0 2 2 2 2 0 2");
    check_stream("A1 B1 C1 C2 B2 A2 C2 A1 C1 C1 B1 A1 C2 B2 B2 A2",
                 "x x x 0 1 2 2 1 1 0 2 2 2 2 0 2");
    check_stream("A1 C2 B2 B1 C1 A2 C2 A1 C1 C2 B2 C1 B1 A1 B2 A2",
                 "x x x 0 1 2 1 1 1 0 2 1 1 2 1 1");
    check_stream("A1 C2 B1 B2 C1 A2 C2 A1 C1 C2 C1 B2 B1 B2 A1 A2",
                 "x x x 0 1 2 1 1 1 0 0 2 0 0 2 0");
    check_stream("C2 B2 A1 B1 A2 C2 C1 A1 B2 B2 C1 C1 A2 C2 B1 A1",
                 "x x x 1 1 2 0 1 2 0 2 0 2 1 2 2");
    check_stream("C2 A1 B2 B1 A2 C1 A1 C2 B2 B2 C1 A2 C1 C2 B1 A1",
                 "x x x 0 1 2 1 1 2 0 1 2 1 0 2 2");
}

static void feed(struct object_reuse *o, enum event_type type, uint64_t addr, uint64_t size)
{
    struct event ev = {.type = type, .addr = addr, .size = size};
    object_reuse_event(o, &ev);
}

static uint64_t distance_count(struct object_reuse *o, size_t i, uint64_t distance)
{
    const struct object_reuse_stats *s = object_reuse_stats(o, i);
    for (size_t b = 0; b < s->n_bins; b++)
        if (s->bins[b].distance == distance)
            return s->bins[b].count;
    return 0;
}

/* Units are counted from each object's start; two objects in one line
 * stay apart; an access touches every unit it overlaps, of every object,
 * in address order; kernel accesses and memory outside the objects are
 * not in the stream. */
static void units(void)
{
    /* x: 16 bytes at 0x2002 (units of 8: [0x2002, 0x200a), [0x200a, 0x2012));
     * y: 2 bytes right after; nothing at 0x2014.. */
    struct object_range objs[] = {{0x2002, 16}, {0x2012, 2}};
    struct object_reuse *o = object_reuse_new(objs, 2, 8);
    feed(o, EVENT_READ, 0x2000, 32);  /* x unit 0, x unit 1, y: three cold */
    feed(o, EVENT_KWRITE, 0x2002, 16); /* not in the stream */
    feed(o, EVENT_WRITE, 0x2030, 8);  /* outside both */
    feed(o, EVENT_READ, 0x2009, 2);   /* x unit 0 (dist 2: x1, y), x unit 1 (dist 2: y, x0) */
    feed(o, EVENT_WRITE, 0x2013, 1);  /* y: dist 2 (x0, x1) */
    feed(o, EVENT_WRITE, 0x2013, 1);  /* y again: 0 */
    feed(o, EVENT_READ, 0x200c, 1);   /* x unit 1: dist 1 (y) */
    CHECK_EQ(object_reuse_accesses(o), 8);
    const struct object_reuse_stats *x = object_reuse_stats(o, 0);
    CHECK(x->accesses == 5 && x->cold == 2 && x->n_bins == 2);
    CHECK(distance_count(o, 0, 2) == 2 && distance_count(o, 0, 1) == 1);
    const struct object_reuse_stats *y = object_reuse_stats(o, 1);
    CHECK(y->accesses == 3 && y->cold == 1 && y->n_bins == 2);
    CHECK(distance_count(o, 1, 2) == 1 && distance_count(o, 1, 0) == 1);
    object_reuse_free(o);

    /* An object at the very top of the address space. */
    struct object_range top[] = {{UINT64_MAX - 7, 8}};
    o = object_reuse_new(top, 1, 4);
    feed(o, EVENT_READ, UINT64_MAX - 3, 4);
    feed(o, EVENT_READ, UINT64_MAX - 7, 8);
    CHECK(object_reuse_stats(o, 0)->accesses == 3 && object_reuse_stats(o, 0)->cold == 2);
    CHECK_EQ(distance_count(o, 0, 1), 1);  /* the high unit again, after the low one */
    object_reuse_free(o);

    /* No objects: nothing counted. */
    o = object_reuse_new(NULL, 0, 4);
    feed(o, EVENT_READ, 0x1000, 4);
    CHECK_EQ(object_reuse_accesses(o), 0);
    object_reuse_free(o);
}

static void refused(void)
{
    struct object_range overlap[] = {{0x1000, 8}, {0x1004, 8}};
    struct object_range unsorted[] = {{0x2000, 8}, {0x1000, 8}};
    struct object_range empty[] = {{0x1000, 0}};
    struct object_range wraps[] = {{UINT64_MAX, 2}};
    CHECK(object_reuse_new(overlap, 2, 4) == NULL);
    CHECK(object_reuse_new(unsorted, 2, 4) == NULL);
    CHECK(object_reuse_new(empty, 1, 4) == NULL);
    CHECK(object_reuse_new(wraps, 1, 4) == NULL);
    CHECK(object_reuse_new(abc, 3, 3) == NULL);
    CHECK(object_reuse_new(abc, 3, 0) == NULL);
}

static int by_start(const void *a, const void *b)
{
    const struct object_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Objects over the random trace's regions (random_trace.c: region r
 * spans SPAN bytes from its base): random lengths, gaps between them,
 * sometimes none. */
static size_t random_objects(uint64_t *rng, unsigned regions, uint64_t span,
                             struct object_range *out, size_t cap)
{
    size_t n = 0;
    for (unsigned r = 0; r < regions; r++) {
        uint64_t base = r == 0 ? UINT64_MAX - (1u << 16) + 1
                               : 0x10000ull * r + 0x7f0000000000ull * (r % 3);
        uint64_t at = base + random_below(rng, 8);
        uint64_t end = base + span + 600;  /* a rep movs can run past the span */
        while (at < end && n < cap) {
            uint64_t size = 1 + random_below(rng, random_below(rng, 4) ? 12 : 200);
            if (UINT64_MAX - at < size - 1)
                break;
            if (random_below(rng, 3))
                out[n++] = (struct object_range){at, size};
            if (UINT64_MAX - at - (size - 1) < 1 + 8)
                break;
            at += size + random_below(rng, 8);
        }
    }
    qsort(out, n, sizeof *out, by_start);  /* region 0 is the highest */
    return n;
}

static const uint64_t unit_sizes[] = {1, 2, 4, 8, 64};

static void differential(unsigned traces)
{
    struct object_range objs[512];
    struct naive_object naive_objs[512];
    unsigned failed = 0;
    for (uint64_t seed = 1; seed <= traces; seed++) {
        uint64_t rng = seed * 6151;
        struct random_trace_shape shape = {
            .threads = 1 + (unsigned)random_below(&rng, 4),
            .events = 20 + (unsigned)random_below(&rng, seed % 20 ? 300 : 1000),
            .routines = 2,
            .regions = 1 + (unsigned)random_below(&rng, 3),
            .region_span = 16 + random_below(&rng, 256),
            .max_depth = 3,
        };
        uint64_t unit = unit_sizes[random_below(&rng, sizeof unit_sizes / sizeof *unit_sizes)];
        struct event_list events = {0};
        struct routine_table routines;
        routine_table_init(&routines);
        random_trace(rng, &shape, &events, &routines);
        size_t n = random_objects(&rng, shape.regions, shape.region_span, objs, 512);
        for (size_t i = 0; i < n; i++)
            naive_objs[i] = (struct naive_object){objs[i].start, objs[i].size};
        struct naive_histogram *want = xcalloc(n ? n : 1, sizeof *want);
        CHECK(naive_object_reuse(events.items, events.count, naive_objs, n, unit, want) == 0);
        struct object_reuse *o = object_reuse_new(objs, n, unit);
        CHECK(o != NULL);
        for (size_t e = 0; o && e < events.count; e++)
            object_reuse_event(o, &events.items[e]);
        uint64_t total = 0;
        for (size_t i = 0; o && i < n; i++) {
            const struct object_reuse_stats *s = object_reuse_stats(o, i);
            int same = s->accesses == want[i].accesses && s->cold == want[i].cold;
            size_t bins = 0;
            for (size_t d = 0; d < want[i].length; d++) {
                if (!want[i].count_by_distance[d])
                    continue;
                same &= bins < s->n_bins && s->bins[bins].distance == d &&
                        s->bins[bins].count == want[i].count_by_distance[d];
                bins++;
            }
            same &= bins == s->n_bins;
            total += s->accesses;
            if (!same && failed++ < 10)
                fprintf(stderr, "seed %" PRIu64 " unit %" PRIu64 ": object %zu of %zu differs "
                                "from the naive reference\n", seed, unit, i, n);
        }
        CHECK(!o || total == object_reuse_accesses(o));
        object_reuse_free(o);
        for (size_t i = 0; i < n; i++)
            naive_histogram_free(&want[i]);
        free(want);
        event_list_free(&events);
        routine_table_free(&routines);
    }
    check_failures += failed;
    printf("compared %u random traces with the naive reference\n", traces);
}

int main(int argc, char **argv)
{
    paper_tables();
    units();
    refused();
    const char *env = getenv("TRMS_DIFFERENTIAL_TRACES");
    differential(argc > 1 ? (unsigned)atoi(argv[1]) : env ? (unsigned)atoi(env) : 2000);
    return check_report("test_object_reuse");
}
