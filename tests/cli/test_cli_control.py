#!/usr/bin/env python3
"""`trms control REC on|off` turns a recording's window exactly where the
request arrives: at the next basic block of the program that accesses
memory (README, "Recording part of a run"). A program that waits in a
system call when the request comes is turned right there.

control_phases runs the phases its standard input names and says "done"
after each. Recorded with --collect-at-start=no, the test turns
collection on before phase a (300 calls), off before phase b (300 calls)
and on again before a second phase a (200 calls), each time while the
program waits for its next line. The window must then hold both phases a
whole (phase_a's profile equals a full recording's), nothing of phase b,
and the same events in every run. Requests taken only at the boundaries of
the tool's 131,072-word segments (the old behaviour) put all of this small
run on one side of a single boundary, and fail.

Environment: TRMS (the binary), PROGRAMS (the test programs)."""
import json
import os
import subprocess
import sys
import tempfile
import time

TRMS = os.environ["TRMS"]
PROGRAM = os.path.join(os.environ["PROGRAMS"], "control_phases")
PHASES = [("on", "a 300"), ("off", "b 300"), ("on", "a 200")]


def fail(message):
    sys.exit("FAIL: " + message)


def run(*args, expect=0):
    p = subprocess.run([TRMS] + list(args), capture_output=True, text=True, timeout=300)
    if p.returncode != expect:
        fail(f"trms {' '.join(args)}: exit {p.returncode}, expected {expect}: {p.stderr}")
    return p


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def waits_on_stdin(pid):
    """Whether every thread of PID sleeps, one of them in read(0, ...)."""
    reading = False
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
            if state != "S":
                return False
            with open(f"/proc/{pid}/task/{task}/syscall") as f:
                call = f.read().split()
            reading |= len(call) > 1 and call[0] == "0" and int(call[1], 16) == 0
    except OSError:
        return False
    return reading


def await_read(recorder):
    """Until the program (Valgrind's process, the recorder's child) waits
    for its next line: then nothing of it runs until the test writes."""
    for _ in range(30000):
        program = children(recorder)
        if program and waits_on_stdin(program[0]):
            return
        time.sleep(0.01)
    fail("the program never waited for its input")


def record_controlled(tmp, name):
    rec = os.path.join(tmp, name)
    p = subprocess.Popen([TRMS, "record", "--collect-at-start=no", "-o", rec, "--", PROGRAM],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    for request, phase in PHASES:
        await_read(p.pid)
        run("control", rec, request)
        p.stdin.write(phase + "\n")
        p.stdin.flush()
        if not p.stdout.readline().startswith("done"):
            fail("the program did not finish its phase")
    p.stdin.close()
    p.stdout.read()
    err = p.stderr.read()
    if p.wait() != 0:
        fail(f"record: exit {p.returncode}: {err}")
    return rec


def meta(rec):
    with open(os.path.join(rec, "meta")) as f:
        return dict(line.rstrip("\n").split(" ", 1) for line in f if " " in line)


def rows(rec, routine):
    """RMS, TRMS and cost tuples of ROUTINE, without the thread."""
    p = run("report", rec, "--format", "csv", "--routine", routine)
    lines = p.stdout.splitlines()[1:]
    return sorted(",".join(r.split(",")[:1] + r.split(",")[2:]) for r in lines)


def activations(rec, routine):
    report = json.loads(run("report", rec, "--format", "json", "--top", "0").stdout)
    return sum(r["calls"] for r in report["routines"] if r["name"] == routine)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        full = os.path.join(tmp, "full.rec")
        subprocess.run([TRMS, "record", "-o", full, "--", PROGRAM], check=True, text=True,
                       input="".join(phase + "\n" for _, phase in PHASES),
                       capture_output=True, timeout=300)
        first = record_controlled(tmp, "first.rec")
        second = record_controlled(tmp, "second.rec")
        m = meta(first)
        if "`trms control` turned collection on or off 3 times" not in m.get("window", ""):
            fail(f"window: {m.get('window')}")
        if m["window-opened"] != "2":
            fail(f"window-opened {m['window-opened']}, expected 2 (the two phases a)")
        if activations(first, "phase_a") != 500 or activations(full, "phase_a") != 500:
            fail(f"phase_a: {activations(first, 'phase_a')} activations kept, expected 500")
        if activations(first, "phase_b") != 0:
            fail(f"phase_b: {activations(first, 'phase_b')} activations kept, expected none")
        if rows(first, "phase_a") != rows(full, "phase_a"):
            fail("phase_a's profile differs from the full recording's")
        if int(m["left-out-events"]) <= 0:
            fail("nothing left out")
        again = meta(second)
        if (m["events"], m["left-out-events"]) != (again["events"], again["left-out-events"]):
            fail(f"kept {m['events']} and left out {m['left-out-events']} events, then "
                 f"{again['events']} and {again['left-out-events']}: the window moved")
    print("ok: windows turned where the program waited; phases a kept whole, b left out")


main()
