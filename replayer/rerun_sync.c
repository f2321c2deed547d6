/* rerun_sync: sync transitions from records (rerun_sync.h). */
#include "replayer/rerun_sync.h"

#include "trace/sync_event.h"

#define MAX_INSN_BYTES 15
#define ZF 0x40u

/* x86 register numbers (ModRM.reg with REX.R) are RERUN_RAX.. in order. */

static uint64_t width_mask(unsigned bytes)
{
    return bytes >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * bytes)) - 1;
}

/* Register REG of width BYTES in R (without REX, byte registers 4..7 are
 * ah, ch, dh, bh). */
static uint64_t reg_value(const struct rerun_record *r, unsigned reg, unsigned bytes, int rex)
{
    if (bytes == 1 && !rex && reg >= 4 && reg < 8)
        return (r->gp[reg - 4] >> 8) & 0xff;
    return r->gp[reg] & width_mask(bytes);
}

enum rmw { RMW_NONE, RMW_CMPXCHG, RMW_XCHG, RMW_XADD, RMW_OTHER };

/* Locked arithmetic on memory: add or adc sbb and sub xor (00-35 even
 * pairs), 80-83 group 1, f6/f7 group 3 not/neg, fe/ff inc/dec, 0f ab/b3/
 * bb/ba bts/btr/btc. */
static int is_locked_arith(uint8_t op, int two_byte, unsigned modrm_reg)
{
    if (two_byte)
        return op == 0xab || op == 0xb3 || op == 0xbb || op == 0xba;
    if (op < 0x36 && (op & 7) < 2)
        return 1;
    if (op >= 0x80 && op <= 0x83)
        return 1;
    if (op == 0xf6 || op == 0xf7)
        return modrm_reg == 2 || modrm_reg == 3;
    if (op == 0xfe || op == 0xff)
        return modrm_reg <= 1;
    return 0;
}

enum rerun_atomic rerun_sync_atomic(const uint8_t *bytes, size_t n, const struct rerun_record *pre,
                                    const struct rerun_record *post, uint64_t *transition)
{
    if (n > MAX_INSN_BYTES)
        n = MAX_INSN_BYTES;
    size_t i = 0;
    int lock = 0, opsize16 = 0, rex = 0;
    for (; i < n; i++) {
        uint8_t b = bytes[i];
        if ((b & 0xf0) == 0x40) {
            rex = b;
            continue;
        }
        if (b == 0xf0 || b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0x2e ||
            b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65) {
            lock |= b == 0xf0;
            opsize16 |= b == 0x66;
            rex = 0;  /* a REX before another prefix is ignored */
            continue;
        }
        break;
    }
    int two_byte = i < n && bytes[i] == 0x0f;
    size_t op_at = i + (size_t)two_byte;
    if (op_at + 1 >= n)
        return RERUN_ATOMIC_NONE;
    uint8_t op = bytes[op_at], modrm = bytes[op_at + 1];
    if ((modrm >> 6) == 3)
        return RERUN_ATOMIC_NONE;  /* a register operand: nothing shared */
    unsigned reg = ((modrm >> 3) & 7) | (rex & 4 ? 8 : 0);
    enum rmw kind = RMW_NONE;
    if (two_byte && (op == 0xb0 || op == 0xb1) && lock)
        kind = RMW_CMPXCHG;
    else if (two_byte && (op == 0xc0 || op == 0xc1) && lock)
        kind = RMW_XADD;
    else if (!two_byte && (op == 0x86 || op == 0x87))
        kind = RMW_XCHG;
    else if (lock && is_locked_arith(op, two_byte, (modrm >> 3) & 7))
        kind = RMW_OTHER;
    if (kind == RMW_NONE)
        return RERUN_ATOMIC_NONE;
    if (kind == RMW_OTHER)
        return RERUN_ATOMIC_UNREAD;
    unsigned bytes_wide = (op & 1) == 0 ? 1 : rex & 8 ? 8 : opsize16 ? 2 : 4;
    uint64_t mask = width_mask(bytes_wide), old, new;
    switch (kind) {
    case RMW_CMPXCHG:
        if (!(post->flags & ZF)) {
            *transition = 0;  /* failed: the word was left as it was */
            return RERUN_ATOMIC_READ;
        }
        old = pre->gp[RERUN_RAX] & mask;
        new = reg_value(pre, reg, bytes_wide, rex);
        break;
    case RMW_XCHG:
        old = reg_value(post, reg, bytes_wide, rex);
        new = reg_value(pre, reg, bytes_wide, rex);
        break;
    default: /* RMW_XADD */
        old = reg_value(post, reg, bytes_wide, rex);
        new = (old + reg_value(pre, reg, bytes_wide, rex)) & mask;
        break;
    }
    uint64_t t = (old == 0 ? SYNC_ATOMIC_FOUND_ZERO : 0) | (new == 0 ? SYNC_ATOMIC_LEFT_ZERO : 0);
    *transition = t == SYNC_ATOMIC_FOUND_ZERO || t == SYNC_ATOMIC_LEFT_ZERO ? t : 0;
    return RERUN_ATOMIC_READ;
}

int rerun_sync_futex_waits(uint64_t op)
{
    uint64_t cmd = op & 0x7f;  /* without FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME */
    return cmd == 0 || cmd == 9;  /* WAIT, WAIT_BITSET */
}

int rerun_sync_futex_wakes(uint64_t op)
{
    uint64_t cmd = op & 0x7f;
    return cmd == 1 || cmd == 3 || cmd == 4 || cmd == 5 || cmd == 10;
}

int rerun_sync_may_block(uint64_t nr)
{
    static const uint16_t blocking[] = {0,  1,  7,  17, 18, 19,  20,  23,  35,  42,  43, 44,
                                        45, 46, 47, 61, 230, 232, 270, 271, 281, 288};
    for (size_t i = 0; i < sizeof blocking / sizeof *blocking; i++)
        if (blocking[i] == nr)
            return 1;
    return 0;
}
