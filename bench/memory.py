#!/usr/bin/env python3
"""Peak memory of `trms analyze` over the shapes of issue 27: what the
analysis keeps must follow the work (the cells, lines and threads a trace
touches), never the span of the addresses between them or the square of
the threads.

    python3 bench/memory.py [TRMS ...]     (default: build/bin/trms)

For each shape, each binary imports a text trace (`trms import`) and
analyzes it under GNU time; the table gives the peak RSS of `trms analyze`
(VmHWM, in MB), its wall time, and the peak above a one-event trace's (the
binary, its libraries and the store's first pages) per event, per distinct
4-byte cell and per distinct 4 KiB page touched. Given several binaries
(an older build's first), it prints them one after the other, so that a
change is read as before and after. The shapes:

- scattered: 100,000 8-byte writes, each on a page of its own, spread over
  the 47-bit user address space (the 0.9 MB trace of issue 27);
- threads N: N threads (10,000, 20,000, 40,000) with one write each;
- kwrite: one kernel write of 256 MiB (a read(2) into a large buffer),
  then a read of its first and last words;
- dense: 1,000,000 8-byte writes and reads over 8 MiB (the ordinary case,
  for scale).
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time


def scattered(f):
    rng = random.Random(27)
    f.write("thread 1\n")
    for _ in range(100000):
        page = rng.randrange(1 << 35)  # 4 KiB pages below 2^47
        f.write(f"write {page * 4096 + rng.randrange(0, 4096, 8):#x} 8\n")
    return {"events": 100001, "cells": 200000, "pages": 100000}


def threads(n):
    def make(f):
        for tid in range(1, n + 1):
            f.write(f"thread {tid}\nwrite {0x10000 + 64 * tid:#x} 8\n")
        return {"events": 2 * n, "cells": 2 * n, "pages": (64 * n) // 4096 + 1}
    return make


def kwrite(f):
    size = 256 << 20
    f.write(f"thread 1\nkwrite 0x7f0000000000 {size}\n"
            f"read 0x7f0000000000 8\nread {0x7f0000000000 + size - 8:#x} 8\n")
    return {"events": 4, "cells": size // 4, "pages": size // 4096}


def dense(f):
    rng = random.Random(5)
    f.write("thread 1\n")
    span = 8 << 20
    for i in range(1000000):
        op = "read" if i % 3 else "write"
        f.write(f"{op} {0x555555554000 + rng.randrange(0, span, 8):#x} 8\n")
    return {"events": 1000001, "cells": span // 4, "pages": span // 4096}


def one_event(f):
    f.write("thread 1\nwrite 0x10000 8\n")
    return {"events": 2, "cells": 2, "pages": 1}


SHAPES = [("scattered", scattered), ("threads 10000", threads(10000)),
          ("threads 20000", threads(20000)), ("threads 40000", threads(40000)),
          ("kwrite 256 MiB", kwrite), ("dense 8 MiB", dense)]


def measure(trms, rec):
    """Peak RSS (KB) and seconds of `trms analyze REC`."""
    for name in os.listdir(rec):
        if name.startswith("results"):
            shutil.rmtree(os.path.join(rec, name))
    start = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", trms, "analyze", rec, "--checkpoint-every",
                        "0"], capture_output=True, text=True)
    seconds = time.monotonic() - start
    if p.returncode != 0:
        raise SystemExit(f"{trms} analyze {rec}: {p.stderr}")
    return int(p.stderr.strip().splitlines()[-1]), seconds


def main():
    binaries = sys.argv[1:] or [os.path.join(os.path.dirname(__file__), "..", "build", "bin",
                                             "trms")]
    tmp = tempfile.mkdtemp(prefix="trms-memory-")
    try:
        recs = {}
        for name, make in [("one event", one_event)] + SHAPES:
            trace = os.path.join(tmp, "trace.txt")
            with open(trace, "w") as f:
                counts = make(f)
            rec = os.path.join(tmp, name.replace(" ", "_") + ".rec")
            subprocess.run([binaries[0], "import", trace, "-o", rec], check=True,
                           capture_output=True)
            os.unlink(trace)
            recs[name] = (rec, counts)
        for trms in binaries:
            print(f"\n{trms}\n")
            base, _ = measure(trms, recs["one event"][0])
            print(f"| shape | events | cells | pages | peak RSS (MB) | time (s) "
                  f"| bytes/event | bytes/cell | bytes/page |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
            print(f"| one event | 2 | 2 | 1 | {base / 1024:.1f} | | | | |")
            for name, _ in SHAPES:
                rec, c = recs[name]
                kb, seconds = measure(trms, rec)
                above = max(kb - base, 0) * 1024
                print(f"| {name} | {c['events']:,} | {c['cells']:,} | {c['pages']:,} "
                      f"| {kb / 1024:.0f} | {seconds:.1f} | {above / c['events']:,.0f} "
                      f"| {above / c['cells']:,.1f} | {above / c['pages']:,.0f} |", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
