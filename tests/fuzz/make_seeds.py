#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/), small valid
inputs that start the fuzzer inside each format.

    python3 tests/fuzz/make_seeds.py build/bin/trms

The binary traces are the text seeds imported with `trms import`; the
recording seeds are recordings imported from them, analyzed, and packed,
with a store damaged as in issue 19. Run it again when a format changes;
the corpora are committed. The *.v2.trms and *.v3.trms seeds are the same
texts as trms wrote them in format versions 2 (before compressed blocks)
and 3 (before per-region slots), kept so that the fuzzer also starts from
the old formats, which trms still reads."""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

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
# Synchronization (issue 26): every kind of #@sync line, in two threads.
texts["sync.txt"] = """thread 1
#@sync start
call main
cost 10
#@sync create 2 0x7f00
#@sync atomic 0x600 1
write 0x600 4
#@sync atomic 0x600 2
#@sync futex_wake 0x600 1
#@sync futex_wait 0x7f00
thread 2
#@sync start
call worker
#@sync blocking 0 120000
cost 50
return
#@sync exit
thread 1
#@sync futex_resume 0x7f00 0
read 0x7f00 4
return
"""


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

# Whole recordings (fuzz_recording.c): sections of a tag byte, a 2-byte
# little-endian length and the bytes; a longer one in pieces of one tag.
def section(tag, data):
    data = data if isinstance(data, bytes) else data.encode()
    pieces = [data[i:i + 65535] for i in range(0, len(data), 65535)] or [b""]
    return b"".join(tag.encode() + struct.pack("<H", len(p)) + p for p in pieces)


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def symbols_file(names):
    """REC/symbols (store/symbol_file.h) for [(addr, name, file, line)]."""
    body = b"TRMSSYMS" + varint(1) + varint(len(names))
    for addr, name, file, line in sorted(names):
        body += varint(addr) + varint(1) + varint(len(name)) + name.encode()
        body += varint(len(file) + 1) + file.encode() if file else varint(0)
        body += varint(line)
    return body + struct.pack("<I", zlib.crc32(body))


def recording(tmp, text, analyses):
    rec = os.path.join(tmp, "r%d.rec" % len(os.listdir(tmp)))
    src = rec + ".txt"
    open(src, "w").write(text)
    subprocess.run([trms, "import", src, "-o", rec], check=True, stdout=subprocess.DEVNULL)
    for options in analyses:
        subprocess.run([trms, "analyze", rec] + options, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return rec


def read(path):
    return open(path, "rb").read()


maps = ("# trms memory maps: START END OFFSET PROT BUILD_ID PATH\n"
        "401000 402000 1000 r-x - /usr/bin/prog\n"
        "7f0000000000 7f0000002000 0 r-x 0123456789abcdef0123456789abcdef01234567 "
        "/lib/libc\\040copy.so\n")
addressed = texts["threads.txt"] + "thread 7\ncall 0x401136\nread 0x601000 4\nreturn\n"
names = [(0x401136, "str_tolower", "wf.c", 44), (0x401a2c, "helper", None, 0)]
with tempfile.TemporaryDirectory() as tmp:
    slides = recording(tmp, texts["slides.txt"], [[]])
    write("recording", "slides_store",
          section("m", read(os.path.join(slides, "meta"))) +
          section("e", read(os.path.join(slides, "events.trms"))) +
          section("d", read(os.path.join(slides, "results", "data.mdb"))))
    threads = recording(tmp, addressed, [[], ["--contexts"], ["--cell-size", "1"]])
    open(os.path.join(threads, "maps"), "w").write(maps)
    open(os.path.join(threads, "symbols"), "wb").write(symbols_file(names))
    write("recording", "threads_contexts",
          section("m", read(os.path.join(threads, "meta"))) + section("p", maps) +
          section("s", symbols_file(names)) +
          section("e", read(os.path.join(threads, "events.trms"))) +
          section("d", read(os.path.join(threads, "results", "data.mdb"))) +
          section("o", bytes([0x3d])))
    subprocess.run([trms, "pack", threads, "-o", os.path.join(tmp, "t.trmspack")], check=True,
                   stderr=subprocess.DEVNULL)
    write("recording", "packed",
          section("k", read(os.path.join(tmp, "t.trmspack"))) + section("o", bytes([0x22])))
    # Three bytes changed in the first 24 bytes of pages, as the issue did.
    store = read(os.path.join(threads, "results", "data.mdb"))
    patches = b"".join(struct.pack("<IB", page * 4096 + at, value)
                       for page, at, value in [(2, 12, 0x40), (3, 17, 0x9f), (1, 10, 0)])
    write("recording", "damaged_store",
          section("m", read(os.path.join(threads, "meta"))) +
          section("e", read(os.path.join(threads, "events.trms"))) + section("d", store) +
          section("x", patches))
    # A checkpoint after event 20 resumed (--resume), once as saved and once
    # with bytes of its analysis state changed.
    events = read(os.path.join(threads, "events.trms"))
    write("recording", "checkpoint",
          section("m", read(os.path.join(threads, "meta"))) + section("e", events) +
          section("c", struct.pack("<H", 20)) + section("o", bytes([0x40])))
    write("recording", "checkpoint_changed",
          section("m", read(os.path.join(threads, "meta"))) + section("e", events) +
          section("c", struct.pack("<H", 12) + struct.pack("<HB", 200, 0x7f) +
                  struct.pack("<HB", 321, 0)) + section("o", bytes([0x50])))
    meta = read(os.path.join(slides, "meta")).replace(b"engine import", b"engine rr")
    write("recording", "rr_meta", section("m", meta) + section("o", bytes([0x10])))
print("seeds written under", corpus)
