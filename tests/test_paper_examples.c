/* test_paper_examples: the worked examples of the papers, with their exact
 * numbers, through the text reader and the real analyses.
 *
 *  - RMS slides (seed 001): f reads x, writes y, calls g (reads x, y, z,
 *    writes w), then reads w: RMS(g) = 3, RMS(f) = 2.
 *  - TRMS paper (seed 002) Figure 1a / Example 1, Figure 1b / Example 2,
 *    the producer-consumer of Example 3 and the buffered external read of
 *    Example 4.
 *  - Reuse distance (seed 004): the distance row of Table 1, and the global
 *    distances of the seven interleavings of Table 3. */
#include <stdlib.h>

#include "analyses/reuse_distance.h"
#include "tests/check.h"
#include "tests/fixture.h"

static void rms_slides(void)
{
    struct run run;
    fixture_run_text("call f\n"
                     "read 0x100 4   # x\n"
                     "write 0x104 4  # y\n"
                     "call g\n"
                     "read 0x100 4\n"
                     "read 0x104 4\n"
                     "read 0x108 4   # z\n"
                     "write 0x10c 4  # w\n"
                     "return\n"
                     "read 0x10c 4\n"
                     "return\n",
                     4, 64, &run);
    const struct activation *f = run_find(&run, "f", 1, 0), *g = run_find(&run, "g", 1, 0);
    CHECK(f && g);
    if (f && g) {
        CHECK_EQ(g->rms, 3);
        CHECK_EQ(f->rms, 2);
        CHECK_EQ(g->trms, 3); /* one thread, no kernel: TRMS = RMS */
        CHECK_EQ(f->trms, 2);
        CHECK_EQ(g->depth, 2);
        CHECK_EQ(f->depth, 1);
    }
    /* Completion order: g, f, then the thread's root. */
    CHECK_EQ(run.n_activations, 3);
    if (run.n_activations == 3) {
        char buf[19];
        CHECK_STR(routine_table_label(&run.routines, run.activations[0].routine, buf), "g");
        CHECK_STR(routine_table_label(&run.routines, run.activations[1].routine, buf), "f");
        CHECK_EQ(run.activations[2].routine, ROUTINE_ROOT);
    }
    run_free(&run);
}

/* Figure 1a: g in T2 overwrites x between f's two reads. */
static void figure_1a(void)
{
    struct run run;
    fixture_run_text("thread 1\ncall f\nread 0x10 4\n"
                     "thread 2\ncall g\nwrite 0x10 4\nreturn\n"
                     "thread 1\nread 0x10 4\nreturn\n",
                     4, 64, &run);
    const struct activation *f = run_find(&run, "f", 1, 0), *g = run_find(&run, "g", 2, 0);
    CHECK(f && g);
    if (f && g) {
        CHECK_EQ(f->rms, 1);
        CHECK_EQ(f->trms, 2);           /* Example 1 */
        CHECK_EQ(f->induced_thread, 1); /* the second read */
        CHECK_EQ(f->induced_external, 0);
        CHECK_EQ(g->rms, 0);
        CHECK_EQ(g->trms, 0);
    }
    run_free(&run);
}

/* Figure 1b: the write by T2 comes before f calls h, which reads x; f then
 * reads x a third time. */
static void figure_1b(void)
{
    struct run run;
    fixture_run_text("thread 1\ncall f\nread 0x10 4\n"
                     "thread 2\nwrite 0x10 4\n"
                     "thread 1\ncall h\nread 0x10 4\nreturn\nread 0x10 4\nreturn\n",
                     4, 64, &run);
    const struct activation *f = run_find(&run, "f", 1, 0), *h = run_find(&run, "h", 1, 0);
    CHECK(f && h);
    if (f && h) {
        CHECK_EQ(h->rms, 1); /* Example 2 */
        CHECK_EQ(f->rms, 1);
        CHECK_EQ(h->trms, 1);
        CHECK_EQ(f->trms, 2);
        /* h's read is both a first access and induced: classified induced. */
        CHECK_EQ(h->induced_thread, 1);
        CHECK_EQ(f->induced_thread, 1);
    }
    run_free(&run);
}

/* Example 3: n values pass through one location x. */
static void producer_consumer(unsigned n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    fprintf(fp, "thread 1\ncall producer\nthread 2\ncall consumer\n");
    for (unsigned i = 0; i < n; i++)
        fprintf(fp, "thread 1\ncall produceData\nwrite 0x40 4\nreturn\n"
                    "thread 2\ncall consumeData\nread 0x40 4\nreturn\n");
    fprintf(fp, "thread 1\nreturn\nthread 2\nreturn\n");
    fclose(fp);
    struct run run;
    fixture_run_text(text, 4, 64, &run);
    free(text);
    const struct activation *c = run_find(&run, "consumer", 2, 0);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ(c->rms, 1);
        CHECK_EQ(c->trms, n);
        CHECK_EQ(c->induced_thread, n);
        CHECK_EQ(c->induced_external, 0);
    }
    for (unsigned i = 0; i < n; i++) {
        const struct activation *d = run_find(&run, "consumeData", 2, i);
        CHECK(d && d->rms == 1 && d->trms == 1 && d->induced_thread == 1);
    }
    run_free(&run);
}

/* Example 4: the kernel refills a 2-cell buffer; only b[0] is read. */
static void buffered_external_read(unsigned n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    fprintf(fp, "call externalRead\n");
    for (unsigned i = 0; i < n; i++)
        fprintf(fp, "kwrite 0x200 8   # read(fd, b, 2 cells)\nread 0x200 4\n");
    fprintf(fp, "return\n");
    fclose(fp);
    struct run run;
    fixture_run_text(text, 4, 64, &run);
    free(text);
    const struct activation *e = run_find(&run, "externalRead", 1, 0);
    CHECK(e != NULL);
    if (e) {
        CHECK_EQ(e->rms, 1);
        CHECK_EQ(e->trms, n);
        CHECK_EQ(e->induced_external, n);
        CHECK_EQ(e->induced_thread, 0);
    }
    run_free(&run);
}

/* Feeds one line sequence to a reuse stack and checks every distance;
 * -1 stands for a cold access. */
static void check_distances(const char *lines, const int *expected, size_t n)
{
    struct reuse_distance *rd = reuse_distance_new(0);
    for (size_t i = 0; i < n; i++) {
        uint64_t cold = reuse_distance_cold(rd);
        uint64_t before[8];
        for (uint64_t d = 0; d < 8; d++)
            before[d] = reuse_distance_count(rd, d);
        reuse_distance_access(rd, (uint64_t)(lines[i] - 'A'));
        int got = -2;
        if (reuse_distance_cold(rd) == cold + 1)
            got = -1;
        for (uint64_t d = 0; d < 8; d++)
            if (reuse_distance_count(rd, d) == before[d] + 1)
                got = (int)d;
        if (got != expected[i]) {
            fprintf(stderr, "%s: access %zu (%c): distance %d, expected %d\n", lines, i + 1,
                    lines[i], got, expected[i]);
            check_failures++;
        }
    }
    CHECK_EQ(reuse_distance_accesses(rd), n);
    reuse_distance_free(rd);
}

#define INF -1

static void reuse_table_1(void)
{
    static const int row[16] = {INF, INF, INF, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 0, 2, 2};
    check_distances("ABCACCBACBACBBAC", row, 16);

    /* The same through the whole pipeline, 64-byte lines. */
    struct run run;
    fixture_run_text("read 0 8\nread 64 8\nread 128 8\nread 0 8\nread 128 8\nread 128 8\n"
                     "read 64 8\nread 0 8\nread 128 8\nread 64 8\nread 0 8\nread 128 8\n"
                     "read 64 8\nread 64 8\nread 0 8\nread 128 8\n",
                     4, 64, &run);
    const struct reuse_histogram *h = &run.result->reuse_global;
    CHECK_EQ(h->accesses, 16);
    CHECK_EQ(h->cold, 3);
    CHECK_EQ(histogram_count(h, 0), 2);
    CHECK_EQ(histogram_count(h, 1), 1);
    CHECK_EQ(histogram_count(h, 2), 10);
    CHECK_EQ(h->n_bins, 3);
    run_free(&run);
}

/* Table 3: seven interleavings of the two threads of Table 2 and the
 * global memory distances the paper gives for each. (Rows 2-5 interleave a
 * thread-2 stream that differs from Table 2's; the distances of every row
 * are consistent with the row's own sequence, which is what is checked.) */
static void reuse_table_3(void)
{
    static const struct {
        const char *refs;     /* line letter, then thread */
        int distances[16];
    } rows[] = {
        {"C2B2A2C2B2B2A2C2A1B1C1A1C1C1B1A1", {INF, INF, INF, 2, 2, 0, 2, 2, 1, 2, 2, 2, 1, 0, 2, 2}},
        {"C2B2A2C2A1B1C1A1C1C1B1A1C2B2B2A2", {INF, INF, INF, 2, 1, 2, 2, 2, 1, 0, 2, 2, 2, 2, 0, 2}},
        {"A1B1C1C2B2A2C2A1C1C1B1A1C2B2B2A2", {INF, INF, INF, 0, 1, 2, 2, 1, 1, 0, 2, 2, 2, 2, 0, 2}},
        {"A1C2B2B1C1A2C2A1C1C2B2C1B1A1B2A2", {INF, INF, INF, 0, 1, 2, 1, 1, 1, 0, 2, 1, 1, 2, 1, 1}},
        {"A1C2B1B2C1A2C2A1C1C2C1B2B1B2A1A2", {INF, INF, INF, 0, 1, 2, 1, 1, 1, 0, 0, 2, 0, 0, 2, 0}},
        {"C2B2A1B1A2C2C1A1B2B2C1C1A2C2B1A1", {INF, INF, INF, 1, 1, 2, 0, 1, 2, 0, 2, 0, 2, 1, 2, 2}},
        {"C2A1B2B1A2C1A1C2B2B2C1A2C1C2B1A1", {INF, INF, INF, 0, 1, 2, 1, 1, 2, 0, 1, 2, 1, 0, 2, 2}},
    };
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        char lines[17];
        for (int i = 0; i < 16; i++)
            lines[i] = rows[r].refs[2 * i];
        lines[16] = '\0';
        check_distances(lines, rows[r].distances, 16);

        /* Through the pipeline: the global histogram must match the row. */
        char *text = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&text, &len);
        for (int i = 0; i < 16; i++)
            fprintf(fp, "thread %c\nwrite %d 4\n", rows[r].refs[2 * i + 1],
                    (rows[r].refs[2 * i] - 'A') * 64);
        fclose(fp);
        struct run run;
        fixture_run_text(text, 4, 64, &run);
        free(text);
        uint64_t expected[3] = {0, 0, 0};
        for (int i = 0; i < 16; i++)
            if (rows[r].distances[i] >= 0)
                expected[rows[r].distances[i]]++;
        const struct reuse_histogram *h = &run.result->reuse_global;
        CHECK_EQ(h->cold, 3);
        for (int d = 0; d < 3; d++)
            CHECK_EQ(histogram_count(h, (uint64_t)d), expected[d]);
        run_free(&run);
    }
}

/* Per-thread distances of Table 2's two threads, interleaved as in Table
 * 3's first row: each thread's own stream, unaffected by the other. */
static void reuse_per_thread(void)
{
    static const int t1[8] = {INF, INF, INF, 2, 1, 0, 2, 2}; /* A B C A C C B A */
    static const int t2[8] = {INF, INF, INF, 2, 2, 0, 2, 2}; /* C B A C B B A C */
    check_distances("ABCACCBA", t1, 8);
    check_distances("CBACBBAC", t2, 8);
    const char *refs = "C2B2A2C2B2B2A2C2A1B1C1A1C1C1B1A1";
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    for (int i = 0; i < 16; i++)
        fprintf(fp, "thread %c\nread %d 1\n", refs[2 * i + 1], (refs[2 * i] - 'A') * 64);
    fclose(fp);
    struct run run;
    fixture_run_text(text, 4, 64, &run);
    free(text);
    CHECK_EQ(run.result->n_threads, 2);
    for (size_t i = 0; i < run.result->n_threads; i++) {
        const struct reuse_histogram *h = &run.result->reuse_threads[i].histogram;
        CHECK_EQ(h->accesses, 8);
        CHECK_EQ(h->cold, 3);
        CHECK_EQ(histogram_count(h, 0), 1);
        CHECK_EQ(histogram_count(h, 1), run.result->reuse_threads[i].tid == 1 ? 1 : 0);
        CHECK_EQ(histogram_count(h, 2), run.result->reuse_threads[i].tid == 1 ? 3 : 4);
    }
    run_free(&run);
}

int main(void)
{
    rms_slides();
    figure_1a();
    figure_1b();
    for (unsigned n = 1; n <= 64; n *= 2)
        producer_consumer(n);
    for (unsigned n = 1; n <= 64; n *= 2)
        buffered_external_read(n);
    reuse_table_1();
    reuse_table_3();
    reuse_per_thread();
    return check_report("test_paper_examples");
}
