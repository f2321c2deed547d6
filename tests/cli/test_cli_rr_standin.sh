#!/usr/bin/env bash
# `trms analyze` of an rr recording, through a stand-in rr on PATH (rr
# cannot replay on machines without hardware counters): a hand-assembled
# program, its rerun records and its dump, written from rr 5.6.0's formats.
# The analysis must see the call, the reads, and the kernel's write of the
# read(2) buffer as rr recorded it; rr's failures (missing, dying, a cut
# stream, a foreign trace) are one line each and leave the result intact.
source "$(dirname "$0")/lib.sh"
STANDIN=$(cd "$(dirname "$0")/../rr" && pwd)/standin_rr.sh

mkdir -p bin standin rec.rec/rr
ln -s "$STANDIN" bin/rr
printf 'trms-recording 1\nengine rr\nengine-version 5.6.0\nprogram /t/prog\n' >rec.rec/meta
export RR_STANDIN="$T/standin"

python3 - "$T" <<'PY'
import struct, sys
T = sys.argv[1]
# 0x401000: call 0x401010 ; 0x401005: syscall ; 0x401007: mov eax,[0x404000] ; 0x40100e: nop
# 0x401010: mov eax,[0x404010] ; 0x401017: ret
code = bytes.fromhex("e80b000000" "0f05" "8b042500404000" "9090")
assert len(code) == 0x10
code += bytes.fromhex("8b042510404000" "c3")
open(f"{T}/standin/code.bin", "wb").write(code.ljust(4096, b"\x90"))

names = ["rax","rcx","rdx","rbx","rsp","rbp","rsi","rdi","r8","r9","r10","r11","r12","r13","r14","r15"]
def regline(gp, rip, flags, orig):
    t = [f"{n}:0x{v:x}" for n, v in zip(names, gp)] + [f"rip:0x{rip:x}", f"eflags:0x{flags:x}"]
    t += [f"{s}:0x0" for s in ("cs", "ss", "ds", "es", "fs", "gs")]
    t += [f"orig_rax:0x{orig:x}", "fs_base:0x0", "gs_base:0x0"]
    return " ".join(t) + "\n"
def frame(time, ev, state, gp, rip, orig, body=""):
    return ("{\n  real_time:1.000000 global_time:%d, event:`%s' (state:%s) tid:100, ticks:0\n" % (time, ev, state)
            + regline(gp, rip, 0x246, orig) + body + "}\n")
gp = [0] * 16
gp[4] = 0x7ff000
mapping = ('  { map_file:"/t/prog", addr:0x401000, length:0x1000, prot_flags:"r-xp", file_offset:0x0, '
           'device:1, inode:2, data_file:"%s/standin/code.bin", data_offset:0x0, file_size:0x1000 }\n' % T)
entry = list(gp); entry[0] = (1 << 64) - 38
exitr = list(gp); exitr[0] = 17
dump = frame(1, "SYSCALL: execve", "EXITING_SYSCALL", gp, 0x401000, 59, mapping)
dump += frame(2, "SYSCALL: read", "ENTERING_SYSCALL", entry, 0x401007, 0)
dump += frame(3, "SYSCALL: read", "EXITING_SYSCALL", exitr, 0x401007, 0,
              "  { tid:100, addr:0x404000, length:0x11 }\n")
open(f"{T}/standin/dump.txt", "w").write(dump)

def rec(event, icount, ip, regs):
    return struct.pack("<IQQQQQQ", 100, event, icount, ip, 0, 0, 0x246) + struct.pack("<16Q", *regs) + b"\n"
r = lambda **kw: [kw.get(n, v) for n, v in zip(names, gp)]
pre_syscall = r(rax=0, rdi=0, rsi=0x404000, rdx=64)
out = rec(1, 0, 0x401000, pre_syscall)                                 # before the first step
out += rec(1, 0, 0x401010, r(rax=0, rdi=0, rsi=0x404000, rdx=64, rsp=0x7feff8))  # call
out += rec(1, 1, 0x401017, r(rax=0x11111111, rsi=0x404000, rdx=64, rsp=0x7feff8))  # mov
out += rec(1, 2, 0x401005, r(rax=0, rsi=0x404000, rdx=64))             # ret
out += rec(2, 3, 0x401007, r(rax=(1 << 64) - 38, rcx=0x401007, r11=0x246, rsi=0x404000, rdx=64))  # syscall entry
out += rec(3, 1, 0x401007, r(rax=17, rcx=0x401007, r11=0x246, rsi=0x404000, rdx=64))  # exit
out += rec(4, 1, 0x40100e, r(rax=0x61616161, rcx=0x401007, r11=0x246, rsi=0x404000, rdx=64))  # mov
assert all(len(out[i:i + 181]) == 181 for i in range(0, len(out), 181))
open(f"{T}/standin/rerun.raw", "wb").write(out)
PY

# rr is not installed: one line, nothing stored.
run env PATH=/nonexistent "$(command -v "$TRMS" || echo "$TRMS")" analyze rec.rec
expect_status 1
expect_error_line "rr is not installed (Debian package rr)"
run "$TRMS" info rec.rec
expect_out_contains "analyses         none yet"

export PATH="$T/bin:$PATH"
run "$TRMS" analyze rec.rec --cell-size 4 --activations act.csv
expect_status 0
expect_out_contains "analyzed rec.rec: "
grep -q "^rerun --singlestep=tid,event,icount,ip,fsbase,gsbase,flags,gp_x16 --raw rec.rec/rr$" standin/calls \
    || fail "rerun asked with other arguments: $(cat standin/calls)"
cat >expected.csv <<'CSV'
thread,routine,depth,rms,trms,cost,self_cost,induced_thread,induced_external
100,0x401010,1,1,1,2,2,0,0
100,<root>,0,2,2,5,3,0,1
CSV
diff -u expected.csv act.csv || fail "activations of the replayed program differ"
run "$TRMS" report rec.rec --format json
expect_status 0
python3 - "$T/out" <<'PY' || fail "JSON report of the replay is not as expected"
import json, sys
r = json.load(open(sys.argv[1]))
ev = r["events"]
assert ev["kwrite"] == 1 and ev["kread"] == 0, ev
assert ev["call"] == 1 and ev["return"] == 1, ev
PY
before=$(sha256sum <rec.rec/results/data.mdb)

# A window: rr's -s and -e, stored beside the whole result.
: >standin/calls
run "$TRMS" analyze rec.rec --from 2 --to 4
expect_status 0
grep -q -- "--raw -s 2 -e 4 rec.rec/rr$" standin/calls || fail "no window passed: $(cat standin/calls)"
run "$TRMS" info rec.rec
expect_out_contains "events 2 to 4"
before=$(sha256sum <rec.rec/results/data.mdb)

# rr dies mid-stream: its message, and the results as they were.
run env RR_STANDIN_FAIL=rerun RR_STANDIN_RECORDS=3 "$TRMS" analyze rec.rec
expect_status 1
expect_error_line "rr rerun was killed by signal 6"
expect_error_line "Unable to open performance counter"
[ "$(sha256sum <rec.rec/results/data.mdb)" = "$before" ] || fail "a failed replay changed the results"

# A stream cut inside a record.
run env RR_STANDIN_CUT=400 "$TRMS" analyze rec.rec
expect_status 1
expect_error_line "rerun stream: cut short inside record 2 (byte offset 362, 38 of 181 bytes)"
[ "$(sha256sum <rec.rec/results/data.mdb)" = "$before" ] || fail "a cut stream changed the results"

# An rr whose rerun lacks the fields trms asks for (older than 5.6).
run env RR_STANDIN_FAIL=fields "$TRMS" analyze rec.rec
expect_status 1
expect_error_line "rr rerun exited with status 1: Unknown register 'fsbase': this rr's rerun lacks fields trms reads (--singlestep=tid,event,icount,ip,fsbase,gsbase,flags,gp_x16); rr 5.6.0 or later has them"
[ "$(sha256sum <rec.rec/results/data.mdb)" = "$before" ] || fail "an old rr changed the results"

# A trace rr cannot read (another rr version's).
run env RR_STANDIN_FAIL=dump "$TRMS" analyze rec.rec
expect_status 1
expect_error_line "rr dump exited with status 1: [FATAL src/TraceStream.cc:1134:TraceReader()] Trace was recorded by incompatible rr version"
[ "$(sha256sum <rec.rec/results/data.mdb)" = "$before" ] || fail "a foreign trace changed the results"

# --from/--to only make sense for rr recordings.
write_slides_trace slides.txt
run "$TRMS" import slides.txt -o s.rec
run "$TRMS" analyze s.rec --from 2
expect_status 1
expect_error_line "--from and --to choose part of an rr recording; this one was recorded by import"
run "$TRMS" analyze rec.rec --from 5 --to 2
expect_status 2

# An rr recording travels packed: its rr trace directory with it, its
# result and routine names, the same report on the other side.
echo "rr trace file" >rec.rec/rr/version
run "$TRMS" report rec.rec --format json
expect_status 0
cp "$T/out" rr-before.json
run "$TRMS" pack rec.rec -o rr.trmspack
expect_status 0
run "$TRMS" unpack rr.trmspack -o moved.rec
expect_status 0
cmp -s rec.rec/rr/version moved.rec/rr/version || fail "the rr trace did not travel"
run "$TRMS" report moved.rec --format json
expect_status 0
cmp -s "$T/out" <(sed 's/rec\.rec/moved.rec/g' rr-before.json) || fail "the unpacked rr report differs"
