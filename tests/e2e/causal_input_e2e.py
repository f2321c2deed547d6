#!/usr/bin/env python3
"""The stored causal input (REC/causal.trms, analyses/causal_input.h) gives
`trms causal` exactly what the whole trace gives: the fast path cannot
drift from the decode path.

Three -O2 programs recorded under the Valgrind engine (the analysis while
recording writes causal.trms): Coz's example (joins), a pipeline over a
bounded queue (futex waits and wakes), two threads on one mutex (locked
read-modify-writes). For each, `trms causal --format json` (end-to-end,
--cores 1, a progress point, a latency) must be byte for byte the same
from the recording as from a copy without causal.trms (which reads the
whole trace and says so on stderr), and from that copy once `trms
analyze` has stored its own causal.trms. A damaged causal.trms is said
and the whole trace read instead, with the same output. The stored input
must be far smaller than the trace.

Environment: TRMS (the binary), PROGRAMS (the built test programs)."""
import os
import shutil
import subprocess
import sys
import tempfile

TRMS = os.environ["TRMS"]
PROGRAMS = os.environ["PROGRAMS"]
CAUSAL_INPUT = "causal.trms"

# program, then extra queries beside end-to-end and --cores 1
CASES = [
    ("coz_ab", [["--progress", "a"], ["--latency", "b", "a"]]),
    ("causal_pipeline_cut0", [["--progress", "consume"], ["--latency", "produce", "consume"]]),
    ("causal_mutex_cut0", [["--progress", "inside"]]),
]


def run(*args):
    return subprocess.run([TRMS] + list(args), capture_output=True, text=True, timeout=900)


def must(*args):
    r = run(*args)
    if r.returncode != 0:
        sys.exit("FAIL: trms %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr))
    return r


def profiles(rec, queries):
    """The JSON of every query, and the stderr of the first."""
    out, first_err = [], None
    for q in [[], ["--cores", "1"]] + queries:
        r = must("causal", rec, "--format", "json", *q)
        out.append(r.stdout)
        if first_err is None:
            first_err = r.stderr
    return out, first_err


def same(what, expected, got, queries):
    names = ["end-to-end", "--cores 1"] + [" ".join(q) for q in queries]
    for name, a, b in zip(names, expected, got):
        if a != b:
            sys.exit("FAIL: %s: %s differs:\n%s\n---\n%s" % (what, name, a[:2000], b[:2000]))


def main():
    if shutil.which("valgrind") is None:
        print("SKIP: no valgrind")
        return 77
    tmp = tempfile.mkdtemp(prefix="trms-causal-input-")
    try:
        for program, queries in CASES:
            rec = os.path.join(tmp, program + ".rec")
            r = subprocess.run([TRMS, "record", "--engine", "valgrind", "-o", rec, "--",
                                os.path.join(PROGRAMS, program)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, timeout=900)
            if r.returncode != 0:
                sys.exit("FAIL: record %s: %s" % (program, r.stderr))
            stored = os.path.join(rec, CAUSAL_INPUT)
            if not os.path.isfile(stored):
                sys.exit("FAIL: %s: the recording has no %s" % (program, CAUSAL_INPUT))
            small, whole = os.path.getsize(stored), os.path.getsize(os.path.join(rec, "events.trms"))
            print("%s: %s %d bytes, events.trms %d" % (program, CAUSAL_INPUT, small, whole))
            if small * 5 > whole:
                sys.exit("FAIL: %s: the causal input is not much smaller than the trace" % program)
            fast, err = profiles(rec, queries)
            if err:
                sys.exit("FAIL: %s: stderr with the stored input: %s" % (program, err))

            copy = os.path.join(tmp, program + "-old.rec")
            shutil.copytree(rec, copy)
            os.remove(os.path.join(copy, CAUSAL_INPUT))
            slow, err = profiles(copy, queries)
            if "no stored causal input" not in err or len(err.strip().splitlines()) != 1:
                sys.exit("FAIL: %s: the fallback is not said in one line: %r" % (program, err))
            same(program + " stored against the whole trace", slow, fast, queries)

            must("analyze", copy)
            if not os.path.isfile(os.path.join(copy, CAUSAL_INPUT)):
                sys.exit("FAIL: %s: trms analyze stored no %s" % (program, CAUSAL_INPUT))
            analyzed, err = profiles(copy, queries)
            same(program + " stored by analyze against the whole trace", slow, analyzed, queries)

            with open(os.path.join(copy, CAUSAL_INPUT), "r+b") as f:
                f.seek(-7, os.SEEK_END)
                f.write(b"damaged")
            damaged, err = profiles(copy, queries)
            if "reading the whole trace instead" not in err:
                sys.exit("FAIL: %s: a damaged %s is not said: %r" % (program, CAUSAL_INPUT, err))
            same(program + " damaged input against the whole trace", slow, damaged, queries)
        print("PASS")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
