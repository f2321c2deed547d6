/* rerun_record: rr rerun's raw record layout, field by field (no struct
 * overlay: the layout is unaligned and must not depend on the compiler). */
#include "replayer/rerun_record.h"

static unsigned char *put(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        *p++ = (unsigned char)(v >> (8 * i));
    return p;
}

static const unsigned char *get(const unsigned char *p, uint64_t *v, int bytes)
{
    uint64_t x = 0;
    for (int i = 0; i < bytes; i++)
        x |= (uint64_t)p[i] << (8 * i);
    *v = x;
    return p + bytes;
}

void rerun_record_encode(const struct rerun_record *r, unsigned char out[RERUN_RECORD_BYTES])
{
    unsigned char *p = put(out, r->tid, 4);
    const uint64_t fixed[] = {r->event, r->icount, r->ip, r->fsbase, r->gsbase, r->flags};
    for (unsigned i = 0; i < sizeof fixed / sizeof *fixed; i++)
        p = put(p, fixed[i], 8);
    for (int i = 0; i < RERUN_GP_COUNT; i++)
        p = put(p, r->gp[i], 8);
    *p = '\n';
}

int rerun_record_decode(const unsigned char in[RERUN_RECORD_BYTES], struct rerun_record *r)
{
    if (in[RERUN_RECORD_BYTES - 1] != '\n')
        return -1;
    uint64_t tid;
    const unsigned char *p = get(in, &tid, 4);
    r->tid = (uint32_t)tid;
    uint64_t *fixed[] = {&r->event, &r->icount, &r->ip, &r->fsbase, &r->gsbase, &r->flags};
    for (unsigned i = 0; i < sizeof fixed / sizeof *fixed; i++)
        p = get(p, fixed[i], 8);
    for (int i = 0; i < RERUN_GP_COUNT; i++)
        p = get(p, &r->gp[i], 8);
    return 0;
}
