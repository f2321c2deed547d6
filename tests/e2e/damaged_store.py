#!/usr/bin/env python3
"""Issue 19's experiment as a test: 40 copies of a recording, each with 3
random bytes changed in the first 24 bytes of random pages of its
results/data.mdb (the page headers), then `trms report`, `info`, `analyze`
and `report` again on each.

Every run must end without a signal and without a sanitizer report, and
each must either succeed from sound or rebuilt data or say what is wrong in
one line and exit 1:
  - report: exit 0 with exactly the undamaged recording's report, or one
    line and exit 1;
  - info: exit 0, or everything else printed and one line, exit 1;
  - analyze: exit 0 always (a damaged store is set aside, said in one
    warning line, and analyzed into anew), and the report that follows is
    exactly the undamaged recording's report of the same analysis.
At least a third of the copies must be caught as damaged: else the test no
longer damages what it should.

    damaged_store.py import    a recording imported from a generated
                               multithreaded trace (runs in the sanitizer
                               build too)
    damaged_store.py record    wordfreq recorded under Valgrind, analyzed as
                               the issue's user did (the experiment itself)

Environment: TRMS (the binary), EXAMPLES (the built examples, for record),
DAMAGED_COPIES (default 40), DAMAGED_SEED (default 19)."""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

TRMS = os.environ["TRMS"]
COPIES = int(os.environ.get("DAMAGED_COPIES", "40"))
SEED = int(os.environ.get("DAMAGED_SEED", "19"))
PAGE = 4096
SANITIZER = re.compile(r"Sanitizer|runtime error:|LeakSanitizer")


def trms(*args, check=True):
    r = subprocess.run([TRMS] + list(args), capture_output=True, text=True, timeout=900)
    if check and r.returncode != 0:
        sys.exit("FAIL: trms %s: %s" % (" ".join(args), r.stderr))
    return r


def generated_trace(path):
    """Four threads, 60 routines (some named by address), nested calls,
    shared and private memory: enough results and keys for a store of
    several pages with branch pages and overflow runs."""
    rng = random.Random(7)
    lines = []
    for step in range(3000):
        tid = 1 + step % 4
        lines.append("thread %d" % tid)
        routine = rng.randrange(60)
        name = "0x%x" % (0x401000 + 16 * routine) if routine % 3 == 0 else "routine_%d" % routine
        lines.append("call " + name)
        base = 0x10000 * tid if rng.random() < 0.7 else 0x900000
        for _ in range(rng.randrange(1, 12)):
            kind = rng.choice(["read", "read", "write", "kread", "kwrite"])
            lines.append("%s 0x%x %d" % (kind, base + 4 * rng.randrange(4096), rng.choice([1, 4, 8, 64])))
        lines.append("cost %d" % rng.randrange(1, 500))
        lines.append("return")
    open(path, "w").write("\n".join(lines) + "\n")


def make_recording(tmp, mode):
    rec = os.path.join(tmp, "base.rec")
    if mode == "import":
        trace = os.path.join(tmp, "t.txt")
        generated_trace(trace)
        trms("import", trace, "-o", rec)
    else:
        examples = os.environ["EXAMPLES"]
        r = subprocess.run([TRMS, "record", "--engine", "valgrind", "-o", rec, "--",
                            os.path.join(examples, "wordfreq"),
                            os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                                         "wordfreq-input.txt")],
                           capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            sys.exit("FAIL: record: " + r.stderr)
    for options in [[], ["--contexts"], ["--cell-size", "1"]]:
        trms("analyze", rec, "--checkpoint-every", "0", *options)
    return rec


def normalized(text, rec):
    return text.replace(rec, "REC")


def damage(path, rng):
    data = bytearray(open(path, "rb").read())
    pages = len(data) // PAGE
    for _ in range(3):
        data[rng.randrange(pages) * PAGE + rng.randrange(24)] = rng.randrange(256)
    open(path, "wb").write(data)


def check_run(what, r):
    if r.returncode < 0 or r.returncode >= 128:
        sys.exit("FAIL: %s died of signal %d: %s" % (what, -r.returncode if r.returncode < 0
                                                      else r.returncode - 128, r.stderr[-2000:]))
    if SANITIZER.search(r.stderr):
        sys.exit("FAIL: %s: a sanitizer report:\n%s" % (what, r.stderr[-4000:]))
    if r.returncode not in (0, 1):
        sys.exit("FAIL: %s exited %d: %s" % (what, r.returncode, r.stderr))


def one_line(what, r):
    if r.returncode == 1 and len(r.stderr.splitlines()) != 1:
        sys.exit("FAIL: %s failed without saying why in one line:\n%s" % (what, r.stderr))


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "import"
    tmp = tempfile.mkdtemp(prefix="trms-damaged-store-")
    try:
        base = make_recording(tmp, mode)
        pages = os.path.getsize(os.path.join(base, "results", "data.mdb")) // PAGE
        latest = normalized(trms("report", base, "--format", "json").stdout, base)
        default = normalized(trms("report", base, "--format", "json", "--cell-size", "4",
                                  "--line-size", "64").stdout, base)
        rng = random.Random(SEED)
        caught = rebuilt = 0
        for i in range(COPIES):
            rec = os.path.join(tmp, "copy%d.rec" % i)
            shutil.copytree(base, rec)
            damage(os.path.join(rec, "results", "data.mdb"), rng)
            name = "copy %d" % i
            r = trms("report", rec, "--format", "json", check=False)
            check_run(name + ": report", r)
            one_line(name + ": report", r)
            if r.returncode == 0 and normalized(r.stdout, rec) != latest:
                sys.exit("FAIL: %s: report succeeded with other numbers" % name)
            caught += r.returncode != 0
            r = trms("info", rec, check=False)
            check_run(name + ": info", r)
            one_line(name + ": info", r)
            if "recording" not in r.stdout:
                sys.exit("FAIL: %s: info printed nothing" % name)
            r = trms("analyze", rec, "--checkpoint-every", "0", check=False)
            check_run(name + ": analyze", r)
            if r.returncode != 0:
                sys.exit("FAIL: %s: analyze did not rebuild: %s" % (name, r.stderr))
            warnings = [line for line in r.stderr.splitlines() if "warning" in line]
            if warnings:
                if len(warnings) != 1 or "the result store is damaged" not in warnings[0]:
                    sys.exit("FAIL: %s: analyze said %s" % (name, r.stderr))
                rebuilt += 1
            r = trms("report", rec, "--format", "json", "--cell-size", "4", "--line-size", "64",
                     check=False)
            check_run(name + ": report after analyze", r)
            if r.returncode != 0 or normalized(r.stdout, rec) != default:
                sys.exit("FAIL: %s: the report after analyze differs: %s" % (name, r.stderr))
            shutil.rmtree(rec)
        print("%d copies of a %d-page store: %d reports refused the damage, %d stores rebuilt "
              "by analyze, 0 signals, 0 sanitizer reports" % (COPIES, pages, caught, rebuilt))
        if caught * 3 < COPIES:
            sys.exit("FAIL: only %d of %d damaged copies were caught" % (caught, COPIES))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
