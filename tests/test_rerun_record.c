/* test_rerun_record: rr rerun's raw record layout, byte by byte, against a
 * record written out by hand from the layout in ../shared/REFERENCE.md. */
#include <string.h>

#include "replayer/rerun_record.h"
#include "tests/check.h"

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

int main(void)
{
    /* tid 4 bytes, then event, icount, ip, fsbase, gsbase, flags, then
     * rax rcx rdx rbx rsp rbp rsi rdi r8..r15, then '\n'. */
    unsigned char bytes[RERUN_RECORD_BYTES];
    put_le(bytes, 0x1234, 4);
    put_le(bytes + 4, 77, 8);
    put_le(bytes + 12, 5, 8);
    put_le(bytes + 20, 0x401000, 8);
    put_le(bytes + 28, 0x7f0000001000, 8);
    put_le(bytes + 36, 0, 8);
    put_le(bytes + 44, 0x246 | 0x400, 8);
    for (int i = 0; i < 16; i++)
        put_le(bytes + 52 + 8 * i, 0x1000 + (uint64_t)i, 8);
    bytes[180] = '\n';

    struct rerun_record r;
    CHECK_EQ(rerun_record_decode(bytes, &r), 0);
    CHECK_EQ(r.tid, 0x1234);
    CHECK_EQ(r.event, 77);
    CHECK_EQ(r.icount, 5);
    CHECK_EQ(r.ip, 0x401000);
    CHECK_EQ(r.fsbase, 0x7f0000001000);
    CHECK_EQ(r.gsbase, 0);
    CHECK_EQ(r.flags, 0x646);
    CHECK_EQ(r.gp[RERUN_RAX], 0x1000);
    CHECK_EQ(r.gp[RERUN_RSP], 0x1004);
    CHECK_EQ(r.gp[RERUN_RDI], 0x1007);
    CHECK_EQ(r.gp[RERUN_R15], 0x100f);

    unsigned char again[RERUN_RECORD_BYTES];
    rerun_record_encode(&r, again);
    CHECK(memcmp(again, bytes, sizeof bytes) == 0);

    /* Every byte of every field counts: no byte of this record is 0. */
    for (int i = 0; i < 180; i++)
        bytes[i] = (unsigned char)(0x80 + i);
    CHECK_EQ(rerun_record_decode(bytes, &r), 0);
    CHECK_EQ(r.tid, get_le(bytes, 4));
    const uint64_t fixed[] = {r.event, r.icount, r.ip, r.fsbase, r.gsbase, r.flags};
    for (int i = 0; i < 6; i++)
        CHECK_EQ(fixed[i], get_le(bytes + 4 + 8 * i, 8));
    for (int i = 0; i < 16; i++)
        CHECK_EQ(r.gp[i], get_le(bytes + 52 + 8 * i, 8));
    rerun_record_encode(&r, again);
    CHECK(memcmp(again, bytes, sizeof bytes) == 0);

    bytes[180] = 0;  /* another field list, or a stream out of step */
    CHECK_EQ(rerun_record_decode(bytes, &r), (uint64_t)-1);
    return check_report("test_rerun_record");
}
