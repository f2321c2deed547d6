#!/usr/bin/env python3
"""`trms causal` on Coz's own example, recorded under the Valgrind engine:
tests/programs/coz_ab.c (-O2) runs a() and b() in two threads, a about 5%
longer, and joins both, round after round.

From the recording's own costs (the JSON gives each routine's inclusive
instructions and the predicted program time), the predicted program
speedup for a must rise to (cost of a - cost of b) / time and stay flat
from there (a 5% faster is already no longer than b), within 0.5
percentage points; b must give 0 within 0.5 points; a must rank above b.

An older recording (the v2 fixture, made before sync records existed) has
no causal profile: one line that says so, exit status 1.

Environment: TRMS (the binary), PROGRAMS (the built test programs)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_lib import fail, must, record_quietly, run_with_valgrind, trms  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                       "recordings", "v2.rec")
TOLERANCE = 0.005


def test(tmp):
    rec = record_quietly(tmp, "coz_ab")
    profile = json.loads(must("causal", rec, "--format", "json").stdout)
    routines = {r["name"]: r for r in profile["routines"]}
    for name in ("a", "b"):
        if name not in routines:
            fail("no routine %s in %s" % (name, sorted(routines)))
    a, b = routines["a"], routines["b"]
    for r in (a, b):
        speedups = [p["speedup"] for p in r["points"]]
        if speedups != [round(0.05 * i, 2) for i in range(21)]:
            fail("speedups %s" % speedups)
    time = profile["predicted_time"]
    expected = (a["instructions"] - b["instructions"]) / time
    print("a: %d instructions, b: %d, predicted time %d: expected gain %.4f"
          % (a["instructions"], b["instructions"], time, expected))
    print("a:", [round(p["program_speedup"], 4) for p in a["points"]])
    print("b:", [round(p["program_speedup"], 4) for p in b["points"]])
    if not 0.01 < expected < 0.1:
        fail("a and b are not the example's (a - b) / time = %.4f" % expected)
    if abs(a["points"][0]["program_speedup"]) > 1e-9:
        fail("a at 0% is not 0")
    for p in a["points"][2:]:  # from 10%: a is shorter than b
        if abs(p["program_speedup"] - expected) > TOLERANCE:
            fail("a at %.2f predicts %.4f, expected %.4f"
                 % (p["speedup"], p["program_speedup"], expected))
    if abs(a["max_program_speedup"] - expected) > TOLERANCE:
        fail("a's max %.4f, expected %.4f" % (a["max_program_speedup"], expected))
    for p in b["points"]:
        if abs(p["program_speedup"]) > TOLERANCE:
            fail("b at %.2f predicts %.4f, expected 0" % (p["speedup"], p["program_speedup"]))
    names = [r["name"] for r in profile["routines"]]
    if names.index("a") > names.index("b"):
        fail("b ranks above a")
    text = must("causal", rec).stdout
    if "end-to-end" not in text or " a [coz_ab]" not in text:
        fail("text format:\n" + text)

    old = trms("causal", FIXTURE)
    if (old.returncode != 1 or "no causal profile" not in old.stderr
            or len(old.stderr.strip().splitlines()) != 1 or old.stdout):
        fail("an old recording: exit %d: %s" % (old.returncode, old.stderr))


def main():
    return run_with_valgrind("trms-causal-", test)


if __name__ == "__main__":
    sys.exit(main())
