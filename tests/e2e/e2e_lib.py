"""What the end-to-end scripts share: running trms, failing, recording a
test program quietly, and the scripts' two ways of running:

  - a script of cases (record_e2e.py CASE): Failure, check, run and
    run_case, the case named on the command line in a temporary directory;
  - a script of one test under Valgrind (causal_e2e.py): fail, trms, must,
    record_quietly and run_with_valgrind.

Imported from the scripts' own directory (each puts it on sys.path, so
that ctest may run them from anywhere). Environment: TRMS (the binary),
PROGRAMS (the built test programs, for the scripts that record them)."""
import os
import shutil
import subprocess
import sys
import tempfile

TRMS = os.environ["TRMS"]
PROGRAMS = os.environ.get("PROGRAMS", "")
SKIP = 77
# No trms run of these tests takes longer, even on a loaded host.
TIMEOUT = 900


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)


def run(args, expect=0, cwd=None, timeout=None):
    """ARGS run with their output captured; exit EXPECT (None: any) or
    Failure, as when they run past TIMEOUT seconds (None: no limit)."""
    try:
        p = subprocess.run(args, capture_output=True, text=True, cwd=cwd, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise Failure(f"{' '.join(args)}: still running after {timeout} s (stopped)\n"
                      f"stderr: {e.stderr or ''}")
    if expect is not None and p.returncode != expect:
        raise Failure(f"{' '.join(args)}: exit {p.returncode}, expected {expect}\n"
                      f"stdout: {p.stdout}\nstderr: {p.stderr}")
    return p


def run_case(cases, script, prefix, skip_reason=None):
    """Runs the case of CASES (name -> function of a temporary directory)
    named on the command line, in a new directory named PREFIX...; exits
    with what it returned (None: 0), 1 on a Failure, SKIP when SKIP_REASON
    (a function, may be None) gives a reason."""
    if len(sys.argv) != 2 or sys.argv[1] not in cases:
        sys.exit(f"usage: {script} {'|'.join(cases)}")
    reason = skip_reason() if skip_reason else None
    if reason:
        print(reason, file=sys.stderr)
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        try:
            sys.exit(cases[sys.argv[1]](tmp) or 0)
        except Failure as e:
            print(f"FAIL {sys.argv[1]}: {e}", file=sys.stderr)
            sys.exit(1)


def fail(msg):
    sys.exit("FAIL: " + msg)


def trms(*args):
    """trms ARGS, its output captured, whatever its exit."""
    return subprocess.run([TRMS, *args], capture_output=True, text=True, timeout=TIMEOUT)


def must(*args):
    """trms ARGS, which must exit 0."""
    r = trms(*args)
    if r.returncode != 0:
        fail("trms %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr))
    return r


def record_quietly(tmp, program):
    """PROGRAMS/PROGRAM recorded under Valgrind into TMP/PROGRAM.rec. Its
    output goes to /dev/null: a write to a pipe can wait on a busy host,
    and the causal model counts a blocking call's wall time."""
    rec = os.path.join(tmp, program + ".rec")
    r = subprocess.run([TRMS, "record", "--engine", "valgrind", "-o", rec, "--",
                        os.path.join(PROGRAMS, program)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=TIMEOUT)
    if r.returncode != 0:
        fail("record %s: %s" % (program, r.stderr))
    return rec


def run_with_valgrind(prefix, test):
    """TEST(tmp) in a new temporary directory named PREFIX..., removed
    after; returns SKIP without Valgrind, else 0 once TEST returned (it
    fails by exiting)."""
    if shutil.which("valgrind") is None:
        print("SKIP: no valgrind")
        return SKIP
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        test(tmp)
        print("PASS")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ptrace_forbidden():
    """Why the step engine cannot run here (a sandbox, yama's ptrace_scope
    = 3), or None."""
    try:
        with open("/proc/sys/kernel/yama/ptrace_scope") as f:
            if f.read().strip() == "3":
                return "skipped: ptrace is forbidden here (kernel.yama.ptrace_scope = 3)"
    except OSError:
        pass
    return None
