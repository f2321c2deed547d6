#!/usr/bin/env python3
"""bench/real_programs.py's measure of a round's load: /proc/stat's busy
and stolen seconds, read from a hand-written file, and the shares a round
reports; no program runs, no timing. Usage: test_real_programs.py SOURCE_DIR"""
import importlib.util
import os
import sys
import tempfile

sys.argv = sys.argv[:2]  # the module reads its mode from argv[1]; give it none
source = sys.argv.pop(1)
spec = importlib.util.spec_from_file_location(
    "real_programs", os.path.join(source, "bench", "real_programs.py"))
rp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rp)

failures = 0


def check(what, got, want):
    global failures
    ok = abs(got - want) < 1e-9 if isinstance(want, float) else got == want
    if not ok:
        failures += 1
        print(f"FAIL {what}: got {got!r}, want {want!r}")


tick = os.sysconf("SC_CLK_TCK")
with tempfile.NamedTemporaryFile("w", suffix=".stat", delete=False) as f:
    # user nice system idle iowait irq softirq steal guest guest_nice
    f.write(f"cpu  {10 * tick} {tick} {2 * tick} {50 * tick} {3 * tick} 0 {tick} {4 * tick} 0 0\n")
    f.write("cpu0 1 2 3 4 5 6 7 8 9 10\n")
busy, stolen = rp.cpu_seconds(f.name)
os.unlink(f.name)
check("busy seconds (user + nice + system + irq + softirq + steal)", busy, 18.0)
check("stolen seconds", stolen, 4.0)

# A round of 10 s on 2 cores where others took 3 CPU seconds, 2 of them
# stolen by the host: load 0.15 (not flagged at 0.2), steal 0.10.
quiet = rp.Round().finish(10.0, 2, 3.0, 2.0)
check("load", quiet.load, 0.15)
check("steal", quiet.steal, 0.10)
check("flagged", quiet.flagged, False)
busy_round = rp.Round().finish(10.0, 2, 5.0, 0.0)
check("a loaded round is flagged", busy_round.flagged, True)
line = rp.describe_rounds([quiet, busy_round])
check("the steal is listed beside each round's load",
      "0.15 (0.10 stolen), 0.25* (0.00 stolen)" in line, True)
check("the rounds under load are counted", "1 of 2 rounds under load" in line, True)

if failures:
    sys.exit(f"test_real_programs: {failures} check(s) failed")
print("test_real_programs: all checks passed")
