#!/usr/bin/env python3
"""`--analyses` (issue 28): each set of analyses gives exactly its parts of
the full result, in the JSON report. The parts of a JSON report
(docs/analyses.md):

  rms    each routine's "rms_points" and "fit"."rms"
  trms   each routine's "trms_points", "fit"."trms", "induced_thread",
         "induced_external", "induced_process", "input_from",
         "thread_input_share", "external_input_share"
  rms or trms   "activations" and "routines" (the profiles)
  reuse  "reuse"

The JSON of a subset is the JSON of the full result with the parts it did
not compute removed and "analyses" naming its own: checked here on random
traces (several threads, kernel writes, calls left pending) and, where
Valgrind runs, on a real recording, analyzed in one pass while it records
and again by `trms analyze`.

    test_cli_analyses.py    (environment: TRMS, MAKE_RECORDING, PROGRAMS)"""
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile

TRMS = os.environ["TRMS"]
MAKE_RECORDING = os.environ["MAKE_RECORDING"]
PROGRAMS = os.environ.get("PROGRAMS", "")
PARTS = ["rms", "trms", "reuse"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=600, **kw)


def ok(args, **kw):
    p = run(args, **kw)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p


def report(rec, *options):
    return json.loads(ok([TRMS, "report", rec, "--format", "json", "--top", "0", *options]).stdout)


def parts_of(full, parts):
    """FULL's JSON report with only PARTS kept."""
    want = json.loads(json.dumps(full))
    want["analyses"] = [p for p in PARTS if p in parts]
    for row in want.get("routines", []):
        if "rms" not in parts:
            del row["rms_points"]
            del row["fit"]["rms"]
        if "trms" not in parts:
            for key in ("trms_points", "induced_thread", "induced_external",
                        "induced_process", "input_from",
                        "thread_input_share", "external_input_share"):
                del row[key]
            del row["fit"]["trms"]
    if "rms" not in parts and "trms" not in parts:
        del want["activations"]
        del want["routines"]
    if "reuse" not in parts:
        del want["reuse"]
    return want


def subsets():
    for n in range(1, 4):
        yield from itertools.combinations(PARTS, n)


def same_json(got, want, what):
    # json.dumps keeps the key order the report wrote: byte for byte, once
    # both are written alike.
    check(json.dumps(got) == json.dumps(want), what)


def check_subsets(rec, full, label):
    for parts in subsets():
        listed = ",".join(parts)
        ok([TRMS, "analyze", rec, "--analyses", listed, "--checkpoint-every", "0"])
        got = report(rec, "--analyses", listed)
        same_json(got, parts_of(full, parts), f"{label}: --analyses {listed}")
    # Every result is stored beside the others, as results of other sizes
    # are; the full one is still there, unchanged.
    info = json.loads(ok([TRMS, "info", rec, "--format", "json"]).stdout)
    stored = sorted(a["analyses"] for a in info["analyses"])
    check(len(stored) == 7 and "rms,trms,reuse" in stored, f"{label}: stored {stored}")
    same_json(report(rec, "--analyses", "all"), full, f"{label}: the full result after")


def main():
    tmp = tempfile.mkdtemp(prefix="trms-analyses-")
    try:
        for seed in (3, 8):
            rec = os.path.join(tmp, f"random{seed}.rec")
            ok([MAKE_RECORDING, rec, "300000", str(seed)])
            ok([TRMS, "analyze", rec, "--checkpoint-every", "0"])
            full = report(rec)
            check(full["analyses"] == PARTS, f"a default analysis: {full['analyses']}")
            check_subsets(rec, full, f"random trace {seed}")
        rec = os.path.join(tmp, "random3.rec")
        # What was not computed is said.
        text = ok([TRMS, "report", rec, "--analyses", "reuse"]).stdout
        check("not computed: RMS, TRMS and induced input (analyzed with --analyses reuse)" in text,
              f"text report: {text[:300]}")
        p = ok([TRMS, "report", rec, "--analyses", "rms", "--format", "csv"])
        check("not computed: TRMS and induced input, reuse distances" in p.stderr, p.stderr)
        check(",trms," not in p.stdout and ",rms," in p.stdout, "csv of rms only has TRMS rows")
        html = ok([TRMS, "report", rec, "--analyses", "trms", "--format", "html"]).stdout
        check("not computed: RMS, reuse distances" in html, "html says what was not computed")
        info = ok([TRMS, "info", rec]).stdout
        check("analyses rms,reuse (not computed: TRMS and induced input)" in info, info)
        # Bad lists and what cannot go together: one line, exit 2.
        for args in (["analyze", rec, "--analyses", "rms,bogus"],
                     ["analyze", rec, "--analyses", ""],
                     ["analyze", rec, "--analyses", "rms", "--activations", "a.csv"],
                     ["report", rec, "--analyses", "reuse,"],
                     ["record", "--analyses", "x", "--", "true"],
                     ["record", "--no-analysis", "--analyses", "rms", "--", "true"]):
            p = run([TRMS, *args], cwd=tmp)
            check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1,
                  f"{args}: {p.returncode} {p.stderr}")
        # A diff against a metric the latest result did not compute is refused.
        ok([TRMS, "analyze", rec, "--analyses", "rms", "--checkpoint-every", "0"])
        p = run([TRMS, "diff", rec, rec, "--metric", "trms"])
        check(p.returncode == 1 and "its result has no trms" in p.stderr
              and len(p.stderr.strip().splitlines()) == 1, f"diff: {p.returncode} {p.stderr}")
        check(run([TRMS, "diff", rec, rec]).returncode == 0, "diff of rms results by rms")
        real(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        return 1
    print("test_cli_analyses: ok")
    return 0


def real(tmp):
    """A real recording: the one-pass analysis of a subset is what `trms
    analyze` of that subset stores, and each subset is its part of the
    full result."""
    program = os.path.join(PROGRAMS, "producer_consumer")
    if not shutil.which("valgrind") or not os.path.exists(program):
        print("no valgrind or no test program: the real recording is left out", file=sys.stderr)
        return
    rec = os.path.join(tmp, "real.rec")
    p = ok([TRMS, "record", "--engine", "valgrind", "--analyses", "rms,trms", "-o", rec, "--",
            program], cwd=tmp)
    check("analyses rms,trms" in p.stderr, f"record says its analyses: {p.stderr}")
    one_pass = report(rec)
    check(one_pass["analyses"] == ["rms", "trms"] and "reuse" not in one_pass,
          f"one pass: {one_pass['analyses']}")
    ok([TRMS, "analyze", rec, "--analyses", "trms,rms", "--checkpoint-every", "0"])
    same_json(report(rec, "--analyses", "rms,trms"), one_pass, "record --analyses rms,trms "
              "stores what analyze --analyses rms,trms does")
    ok([TRMS, "analyze", rec, "--checkpoint-every", "0"])
    full = report(rec)
    check(full["analyses"] == PARTS and len(full["reuse"]["threads"]) > 1, "a full analysis")
    check_subsets(rec, full, "producer_consumer")


if __name__ == "__main__":
    sys.exit(main())
