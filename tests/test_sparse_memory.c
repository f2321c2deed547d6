/* test_sparse_memory: a 64-bit address space used sparsely (the first
 * page, a heap low, mmaps in the middle, a stack just below the top of
 * user space, the last page of the address space) costs shadow memory in
 * proportion to the cells and lines touched, not to the span of addresses
 * between them; the results stay exact (counted directly here). Also
 * prints what an isolated cell costs (the worst case: a chunk to itself). */
#include <stdlib.h>

#include "analyses/analysis.h"
#include "tests/check.h"
#include "tests/fixture.h"
#include "common/u64map.h"
#include "tests/random_trace.h"

#define REGION (64u << 10)

static const uint64_t bases[] = {
    0x0,                      /* the first page */
    0x555555554000,           /* a PIE program's heap */
    0x7f1234560000,           /* a library's mapping */
    0x7ffffffde000,           /* the main stack */
    0xffffffffffff0000,       /* the top of the address space */
};
#define N_REGIONS (sizeof bases / sizeof *bases)

static void push(struct event_list *l, enum event_type type, uint32_t tid, uint64_t addr,
                 uint64_t size)
{
    struct event ev = {.type = type, .tid = tid, .addr = addr, .size = size};
    event_list_push(l, &ev);
}

static unsigned shards;

static struct analysis_result *analyze(const struct event_list *events,
                                       struct analysis_memory *mem)
{
    struct analysis_options opt;
    analysis_options_default(&opt);
    shards = opt.shards;
    struct trms_error err;
    struct analysis *a = analysis_new(&opt, &err);
    for (size_t i = 0; i < events->count; i++)
        CHECK(analysis_event(a, &events->items[i], &err) == 0);
    struct analysis_result *r = analysis_finish(a, NULL);
    analysis_memory(a, mem);
    analysis_free(a);
    return r;
}

/* Two threads walk every region, a word at a time, reading and writing. */
static void dense_regions(void)
{
    struct event_list events = {0};
    uint64_t rng = 5;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t tid = 1; tid <= 2; tid++) {
            push(&events, EVENT_THREAD, tid, 0, 0);
            for (size_t r = 0; r < N_REGIONS; r++)
                for (uint64_t off = 0; off < REGION; off += 8)
                    push(&events, random_below(&rng, 3) ? EVENT_READ : EVENT_WRITE, tid,
                         bases[r] + off, 8);
        }
    struct analysis_memory mem;
    struct analysis_result *r = analyze(&events, &mem);
    uint64_t cells = N_REGIONS * REGION / 4, lines = N_REGIONS * REGION / 64;
    /* Input size, in each shard: 8 bytes of record per cell of the shard;
     * the cells the other thread took over are widened to 32 bytes, their
     * chunk of 8 leaving 4 KiB to be reused by the next chunk made; a page
     * of chunk pointers (8 KiB) per map and 2 MiB region touched. Reuse: an 8-byte time per line in the global stack
     * and in each thread's, pages alike, an exact histogram (8 bytes per
     * distance up to the largest, at most the lines, in an array that
     * doubles), windows of marks (1 bit per time, 64 Ki times at least)
     * and their tree. The 2^64 bytes between the regions cost nothing. */
    uint64_t input_maps = shards * 3, reuse_maps = 3;
    uint64_t input_bound = cells * (8 + 32) + N_REGIONS * input_maps * 8192 + (64u << 10);
    uint64_t reuse_bound = lines * (8 + 16) * 3 + N_REGIONS * reuse_maps * 8192 +
                           reuse_maps * (65536 / 8 + 65536 / 64 * 4) + (64u << 10);
    printf("dense: %" PRIu64 " cells, %zu bytes of input-size state (%.1f per cell, bound %.1f), "
           "%" PRIu64 " lines, %zu bytes of reuse state (%.1f per line, bound %.1f)\n",
           cells, mem.input_size, (double)mem.input_size / (double)cells,
           (double)input_bound / (double)cells, lines, mem.reuse,
           (double)mem.reuse / (double)lines, (double)reuse_bound / (double)lines);
    CHECK(mem.input_size <= input_bound);
    CHECK(mem.reuse <= reuse_bound);
    /* The results, counted directly: every line is cold once; each root
     * activation's RMS is the cells its thread read before writing. */
    CHECK_EQ(r->reuse_global.cold, lines);
    CHECK_EQ(r->reuse_global.accesses, events.count - 4);
    for (uint32_t tid = 1; tid <= 2; tid++) {
        struct u64map seen;
        u64map_init(&seen);
        uint64_t rms = 0;
        uint32_t current = 0;
        for (size_t i = 0; i < events.count; i++) {
            const struct event *ev = &events.items[i];
            if (ev->type == EVENT_THREAD)
                current = ev->tid;
            else if (current == tid)
                for (uint64_t c = ev->addr / 4; c <= (ev->addr + 7) / 4; c++) {
                    int inserted;
                    u64map_upsert(&seen, c, &inserted);
                    rms += inserted && ev->type == EVENT_READ;
                }
        }
        const struct routine_profile *p = &r->profiles[tid - 1];
        CHECK_EQ(p->tid, tid);
        CHECK_EQ(p->n_rms_points, 1);
        CHECK_EQ(p->rms_points[0].n, rms);
        u64map_free(&seen);
    }
    analysis_result_free(r);
    event_list_free(&events);
}

/* Single cells scattered over the whole address space: each costs a chunk
 * of 512 records (4 KiB) and a place in a small page (a few words: a page
 * of chunk addresses is made only where a page has more than
 * SHADOW_SMALL_PAGE chunks) in each map that holds it, one map for input
 * size, one for reuse (one thread: its stack is the global one); bounded,
 * and printed for docs/analyses.md (Memory). */
static void scattered_cells(void)
{
    struct event_list events = {0};
    uint64_t rng = 11;
    enum { N = 2000 };
    push(&events, EVENT_THREAD, 1, 0, 0);
    for (int i = 0; i < N; i++)
        push(&events, EVENT_READ, 1, random_next(&rng) & ~UINT64_C(63), 4);
    struct analysis_memory mem;
    struct analysis_result *r = analyze(&events, &mem);
    printf("scattered: %d isolated cells, %.0f bytes of input-size state per cell, %.0f of "
           "reuse state per line\n",
           N, (double)mem.input_size / N, (double)mem.reuse / N);
    CHECK(mem.input_size <= (uint64_t)N * (4096 + 256) + (64u << 10));
    CHECK(mem.reuse <= (uint64_t)N * (4096 + 256) + 3 * (256u << 10));
    CHECK_EQ(r->reuse_global.cold, N);
    analysis_result_free(r);
    event_list_free(&events);
}

/* Many threads, each with one write of its own: what a thread costs to
 * create is bounded, whatever their number (a stack of its own, its
 * window, its chunk), and nothing grows with the square of their number
 * (the test would run for minutes). */
/* Under AddressSanitizer, whose shadow and quarantine make every page a
 * process touches dearer (this test took 8 minutes there, nearly all in the
 * kernel), a tenth of the threads and a quarter of the kernel write: the
 * same bounds on fewer. The plain build checks the full sizes. */
#ifdef __SANITIZE_ADDRESS__
#define SPARSE_SCALE_DOWN 1
#else
#define SPARSE_SCALE_DOWN 0
#endif

static void many_threads(void)
{
    enum { N = SPARSE_SCALE_DOWN ? 10000 : 100000 };
    struct event_list events = {0};
    for (uint32_t tid = 1; tid <= N; tid++) {
        push(&events, EVENT_THREAD, tid, 0, 0);
        push(&events, EVENT_WRITE, tid, 0x10000 + 64 * (uint64_t)tid, 8);
    }
    struct analysis_memory mem;
    struct analysis_result *r = analyze(&events, &mem);
    size_t total = mem.input_size + mem.reuse + mem.profiles + mem.engine;
    printf("threads: %d threads, %.0f bytes each (input size %.0f, reuse %.0f, profiles %.0f, "
           "engine %.0f)\n",
           N, (double)total / N, (double)mem.input_size / N, (double)mem.reuse / N,
           (double)mem.profiles / N, (double)mem.engine / N);
    CHECK(total <= (uint64_t)N * 10240);
    CHECK_EQ(r->n_threads, N);
    CHECK_EQ(r->reuse_global.cold, N);
    analysis_result_free(r);
    event_list_free(&events);
}

/* One kernel write of 64 MiB (a read(2) into a large buffer), then reads
 * of a few of its cells: 8 bytes of record per cell written, plus the
 * pages that find the chunks; nothing in proportion to the access beyond
 * its cells (the pass walks it a shadow chunk at a time). Each cell read
 * is the routine's input, induced by the kernel. */
static void huge_kernel_write(void)
{
    const uint64_t base = 0x7f0000000003,
                   size = (UINT64_C(64) << 20 >> (SPARSE_SCALE_DOWN ? 2 : 0)) + 5;
    struct event_list events = {0};
    push(&events, EVENT_THREAD, 1, 0, 0);
    push(&events, EVENT_KWRITE, 1, base, size);
    push(&events, EVENT_READ, 1, base, 4);                    /* 2 cells */
    push(&events, EVENT_READ, 1, base + size / 2, 2);         /* 1 */
    push(&events, EVENT_READ, 1, base + size - 1, 1);         /* 1 */
    push(&events, EVENT_READ, 1, base + size - 1, 1);         /* the same */
    struct analysis_memory mem;
    struct analysis_result *r = analyze(&events, &mem);
    uint64_t cells = ((base + size - 1) >> 2) - (base >> 2) + 1;
    uint64_t bound = cells * 8 + cells / 512 * 64 + (1u << 20);
    printf("kernel write: %" PRIu64 " cells, %.2f bytes of input-size state per cell "
           "(bound %.2f)\n",
           cells, (double)mem.input_size / (double)cells, (double)bound / (double)cells);
    CHECK(mem.input_size <= bound);
    CHECK_EQ(r->reuse_global.cold, 3);
    CHECK_EQ(r->events[EVENT_KWRITE], 1);
    const struct routine_profile *p = &r->profiles[0];
    CHECK_EQ(p->n_rms_points, 1);
    CHECK_EQ(p->rms_points[0].n, 4);
    CHECK_EQ(p->n_trms_points, 1);
    CHECK_EQ(p->trms_points[0].n, 4);
    analysis_result_free(r);
    event_list_free(&events);
}

int main(void)
{
    dense_regions();
    scattered_cells();
    many_threads();
    huge_kernel_write();
    return check_report("test_sparse_memory");
}
