#!/usr/bin/env python3
"""`trms pack` and `trms unpack` carry a recording of a multithreaded
program to another path, where its reports are exactly the original's with
the program's binary gone: the stored results (text, JSON, CSV, calling
contexts) as they were, the routine names and source lines from the
recording's symbols file, and an analysis run again there stores the same
result. `trms info` lists the same analyses, with their dates.

The program is a copy of the bundled wordfreq (a reader thread and a
counter thread) in a directory of its own, removed after packing.

Environment: TRMS (the binary), EXAMPLES (the built examples)."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_lib import TRMS, must  # noqa: E402

EXAMPLES = os.environ["EXAMPLES"]
INPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                     "wordfreq-input.txt")


REPORTS = [["--format", "json"], ["--format", "text", "--top", "0"], ["--format", "csv"],
           ["--format", "json", "--contexts"], ["--format", "text", "--routine", "str_tolower"]]


def reports(rec):
    return [must("report", rec, *args).stdout.replace(rec, "REC") for args in REPORTS]


def info_analyses(rec):
    out = must("info", rec).stdout
    return [line for line in out.splitlines() if "cell size" in line]


def main():
    tmp = tempfile.mkdtemp(prefix="trms-pack-")
    try:
        bin_dir = os.path.join(tmp, "bin")
        os.mkdir(bin_dir)
        program = os.path.join(bin_dir, "wordfreq")
        shutil.copy2(os.path.join(EXAMPLES, "wordfreq"), program)
        here = os.path.join(tmp, "here")
        os.mkdir(here)
        rec = os.path.join(here, "wf.rec")
        r = subprocess.run([TRMS, "record", "--engine", "valgrind", "-o", rec, "--", program, INPUT],
                           capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            sys.exit("FAIL: record: " + r.stderr)
        if must("info", rec, "--format", "json").stdout.count('"threads": "2"') != 1:
            sys.exit("FAIL: wordfreq did not run two threads")
        must("analyze", rec, "--contexts")
        must("analyze", rec)
        before = reports(rec)
        if "str_tolower (wordfreq.c:" not in before[1]:
            sys.exit("FAIL: the original report lacks str_tolower's source line")
        analyses = info_analyses(rec)

        archive = os.path.join(tmp, "bug-report.trmspack")
        packed = must("pack", rec, "-o", archive)
        if "2 results" not in packed.stderr:
            sys.exit("FAIL: pack: " + packed.stderr)
        shutil.rmtree(bin_dir)
        shutil.rmtree(here)  # the original recording is gone too

        elsewhere = os.path.join(tmp, "elsewhere", "deeper")
        os.makedirs(elsewhere)
        copy = os.path.join(elsewhere, "received.rec")
        must("unpack", archive, "-o", copy)
        after = reports(copy)
        for args, a, b in zip(REPORTS, before, after):
            if a != b:
                sys.exit("FAIL: report %s differs after pack and unpack" % " ".join(args))
        if info_analyses(copy) != analyses:
            sys.exit("FAIL: info lists other analyses: %s vs %s" % (info_analyses(copy), analyses))

        # Analyzing the unpacked recording again, the binary still gone,
        # stores the same result under the same names.
        must("analyze", copy, "--contexts")
        must("analyze", copy)
        again = reports(copy)
        for args, a, b in zip(REPORTS, before, again):
            if a != b:
                sys.exit("FAIL: report %s differs after analyzing the unpacked recording" %
                         " ".join(args))
        print("wordfreq (2 threads): %d reports identical after pack, unpack on another path "
              "without the binary, and a new analysis there" % len(REPORTS))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
