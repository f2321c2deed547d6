/* rerun_record: rr rerun's raw record layout, field by field (no struct
 * overlay: the layout is unaligned and must not depend on the compiler).
 * The byte-by-byte forms below compile to single loads and stores. */
#include "replayer/rerun_record.h"

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

void rerun_record_encode(const struct rerun_record *r, unsigned char out[RERUN_RECORD_BYTES])
{
    put32(out, r->tid);
    unsigned char *p = out + 4;
    const uint64_t fixed[] = {r->event, r->icount, r->ip, r->fsbase, r->gsbase, r->flags};
    for (unsigned i = 0; i < sizeof fixed / sizeof *fixed; i++, p += 8)
        put64(p, fixed[i]);
    for (int i = 0; i < RERUN_GP_COUNT; i++, p += 8)
        put64(p, r->gp[i]);
    *p = '\n';
}

int rerun_record_decode(const unsigned char in[RERUN_RECORD_BYTES], struct rerun_record *r)
{
    if (in[RERUN_RECORD_BYTES - 1] != '\n')
        return -1;
    r->tid = get32(in);
    const unsigned char *p = in + 4;
    uint64_t *fixed[] = {&r->event, &r->icount, &r->ip, &r->fsbase, &r->gsbase, &r->flags};
    for (unsigned i = 0; i < sizeof fixed / sizeof *fixed; i++, p += 8)
        *fixed[i] = get64(p);
    for (int i = 0; i < RERUN_GP_COUNT; i++, p += 8)
        r->gp[i] = get64(p);
    return 0;
}
