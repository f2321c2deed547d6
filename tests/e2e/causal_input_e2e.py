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
analyze` has stored its own causal.trms. The causal.trms recorded (loads and stores on the
record's batch path) and the one analyze stores (as struct events) must
be equal byte for byte. A damaged causal.trms is said
and the whole trace read instead, with the same output. The stored input
must be far smaller than the trace.

Environment: TRMS (the binary), PROGRAMS (the built test programs)."""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_lib import fail, must, record_quietly, run_with_valgrind  # noqa: E402

CAUSAL_INPUT = "causal.trms"

# program, then extra queries beside end-to-end and --cores 1
CASES = [
    ("coz_ab", [["--progress", "a"], ["--latency", "b", "a"]]),
    ("causal_pipeline_cut0", [["--progress", "consume"], ["--latency", "produce", "consume"]]),
    ("causal_mutex_cut0", [["--progress", "inside"]]),
]


def read_meta_events(rec):
    """The events the recording's meta counts."""
    with open(os.path.join(rec, "meta")) as f:
        for line in f:
            if line.startswith("events "):
                return int(line.split()[1])
    fail("%s: no event count in its meta" % rec)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


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
            fail("%s: %s differs:\n%s\n---\n%s" % (what, name, a[:2000], b[:2000]))


def test(tmp):
    for program, queries in CASES:
        rec = record_quietly(tmp, program)
        stored = os.path.join(rec, CAUSAL_INPUT)
        if not os.path.isfile(stored):
            fail("%s: the recording has no %s" % (program, CAUSAL_INPUT))
        small, whole = os.path.getsize(stored), os.path.getsize(os.path.join(rec, "events.trms"))
        print("%s: %s %d bytes, events.trms %d" % (program, CAUSAL_INPUT, small, whole))
        # Bounded by the run's events, which the trace's encoding does not
        # change: a sixth of a byte each is what a fifth of a format 3
        # trace was (0.84 bytes an event); format 4 shrank the trace, not
        # this. And still a small part of the trace itself.
        events = read_meta_events(rec)
        if small * 6 > events or small * 3 > whole:
            fail("%s: the causal input (%d bytes) is not much smaller than the trace "
                 "(%d bytes, %d events)" % (program, small, whole, events))
        fast, err = profiles(rec, queries)
        if err:
            fail("%s: stderr with the stored input: %s" % (program, err))

        copy = os.path.join(tmp, program + "-old.rec")
        shutil.copytree(rec, copy)
        os.remove(os.path.join(copy, CAUSAL_INPUT))
        slow, err = profiles(copy, queries)
        if "no stored causal input" not in err or len(err.strip().splitlines()) != 1:
            fail("%s: the fallback is not said in one line: %r" % (program, err))
        same(program + " stored against the whole trace", slow, fast, queries)

        must("analyze", copy)
        if not os.path.isfile(os.path.join(copy, CAUSAL_INPUT)):
            fail("%s: trms analyze stored no %s" % (program, CAUSAL_INPUT))
        # The record took its loads and stores on the batch path (the
        # reads of a clear address looked at after the fact), analyze as
        # struct events: the same records, in the same order.
        if read_bytes(stored) != read_bytes(os.path.join(copy, CAUSAL_INPUT)):
            fail("%s: the %s recorded differs from the one analyze stores" %
                 (program, CAUSAL_INPUT))
        analyzed, err = profiles(copy, queries)
        same(program + " stored by analyze against the whole trace", slow, analyzed, queries)

        with open(os.path.join(copy, CAUSAL_INPUT), "r+b") as f:
            f.seek(-7, os.SEEK_END)
            f.write(b"damaged")
        damaged, err = profiles(copy, queries)
        if "reading the whole trace instead" not in err:
            fail("%s: a damaged %s is not said: %r" % (program, CAUSAL_INPUT, err))
        same(program + " damaged input against the whole trace", slow, damaged, queries)


def main():
    return run_with_valgrind("trms-causal-input-", test)


if __name__ == "__main__":
    sys.exit(main())
