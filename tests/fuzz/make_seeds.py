#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/), small valid
inputs that start the fuzzer inside each format.

    python3 tests/fuzz/make_seeds.py build/bin/trms

The binary traces are the text seeds imported with `trms import`. Run it
again when a format changes; the corpora are committed. The *.v2.trms seeds
are the same texts as trms wrote them in format version 2 (before
compressed blocks), kept so that the fuzzer also starts from the old
format, which trms still reads."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(here, "corpus")
trms = sys.argv[1]

texts = {
    "slides.txt": """# f reads x, writes y, calls g (reads x, y, z, writes w), then reads w
thread 1
call f
read 0x100 4
write 0x104 4
cost 3
call g
read 0x100 4
read 0x104 4
read 0x108 4
write 0x10c 4
cost 10
return
read 0x10c 4
cost 2
return
""",
    "threads.txt": """thread 7
call producer
kwrite 0x7ffd0000 64   # read(2)
read 0x7ffd0000 8
write 0x601000 8
cost 100
thread 9
call std::vector<int>::push_back(int const&)
read 0x601000 8
kread 0x601000 8
call 0x401a2c
write 0xffffffffffffffff 1
read 0 1
return
cost 18446744073709551615
return
thread 7
return
call deep
call deep
return
""",
}
wordfreq = open(os.path.join(here, "..", "..", "examples", "wordfreq.trace")).read().splitlines()
texts["wordfreq_head.txt"] = "\n".join(wordfreq[:80]) + "\n"


def write(target, name, data):
    os.makedirs(os.path.join(corpus, target), exist_ok=True)
    with open(os.path.join(corpus, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


for name, text in texts.items():
    write("text_trace", name, text)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "t.txt")
        open(src, "w").write(text)
        subprocess.run([trms, "import", src, "-o", os.path.join(tmp, "r.rec")], check=True,
                       stdout=subprocess.DEVNULL)
        shutil.copy(os.path.join(tmp, "r.rec", "events.trms"),
                    os.path.join(corpus, "trace_reader", name.replace(".txt", ".trms")))

# rerun records: 64 bytes of code (seen at every address), then records of
# tid, event, icount, ip, fsbase, gsbase, flags, 16 registers, '\n'.
code = bytes.fromhex(
    "4889e5"          # mov %rsp,%rbp
    "488b4508"        # mov 0x8(%rbp),%rax
    "48894510"        # mov %rax,0x10(%rbp)
    "e800000000"      # call next
    "c3"              # ret
    "50"              # push %rax
    "58"              # pop %rax
    "0f05"            # syscall
    "f3a4"            # rep movsb
    "ebe0"            # jmp back
).ljust(64, b"\x90")


def record(tid, event, icount, ip, rsp, rax=0):
    gp = [rax, 1, 2, 3, rsp, rsp, 0x1000, 0x2000] + [0] * 8
    return struct.pack("<I6Q16Q", tid, event, icount, ip, 0, 0, 0x202, *gp) + b"\n"


stream = b""
ip, rsp = 0x401000, 0x7ffd1000
for i in range(12):
    stream += record(100, 1, i, ip + i * 3, rsp - 8 * (i % 3))
write("rerun_stream", "straight_line", code + stream)
write("rerun_stream", "two_threads",
      code + record(100, 1, 0, 0x401003, rsp) + record(101, 2, 0, 0x401010, rsp - 0x1000) +
      record(100, 3, 1, 0x401007, rsp) + record(101, 3, 2, 0x40100b, rsp - 0x1000, rax=2**64 - 38))
write("rerun_stream", "cut_record", code + record(100, 1, 0, 0x401000, rsp)[:100])

dump = open(os.path.join(here, "..", "fixtures", "rr", "dump_e_m_p.txt")).read()
write("rr_dump", "dump_e_m_p.txt", dump)
write("rr_dump", "first_frame.txt", dump[: dump.index("}\n") + 2])
print("seeds written under", corpus)
