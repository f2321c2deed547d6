#!/usr/bin/env python3
"""Compares trms with the original aprof on one run of a program, routine
by routine (docs/aprof-comparison.md; bench/aprof_compare.sh runs it).

    aprof_compare.py names REC ROUTINES > NAMES.json
    aprof_compare.py compare --name NAME --rec REC --names NAMES.json \
        --orig ORIG.json --model-rms RMS.json --model-drms DRMS.json \
        --flags FLAGS.json --aprof-rms DIR --aprof-drms DIR

`names` lists the symbol names (every alias, versioned as the dynamic
symbol table gives them) of each routine address in ROUTINES (from
bench/aprof_model.py pass1). `compare` takes trms's reports of the
recording imported unchanged (ORIG: per routine address) and of the two
aprof models (bench/aprof_model.py), aprof's reports (one file per
thread, plain and --drms=yes), and for each aprof routine and thread
classifies the RMS tuples and the TRMS tuples (against aprof's DRMS), each
as a multiset of (input size, calls):

  identical      aprof's tuples are trms's
  +2             aprof's input sizes are trms's plus 2 cells, calls alike:
                 the return address `ret` reads, which aprof counts
  model:R        trms's analysis of its own events rewritten by aprof's
                 rules (bench/aprof_model.py) gives aprof's tuples exactly;
                 R says why it is not a plain +2: kernel (kernel accesses
                 aprof does not model), tail (a tail call, or a frame not
                 ended by its own ret), depth0 (accesses with no pending
                 activation, which aprof ignores), _start (aprof's
                 below_main also counts the program's entry point, an
                 activation to aprof)
  signal         a signal handler: aprof's activation of it lasts until the
                 interrupted routine returns
  schedule       the routine runs the C library's thread synchronization or
                 runs inside it, in a program of several threads, and its
                 tuples differ: Valgrind interleaves the threads
                 differently under the two tools

and routines one tool reports and the other does not: trms-only:no-symbol
(no symbol, or only symbols of size 0, which Valgrind ignores, so that
aprof leaves the code out of its report; trms names it by its symbol or
its address), trms-only:schedule. Anything else is UNEXPLAINED and the
exit status is 1.

Costs differ in kind (aprof counts basic blocks, trms instructions): the
table gives, per routine, the median and the spread (max / min) of the
ratio of trms's worst-case cost to aprof's over the tuples both have,
after the model."""
import argparse
import collections
import glob
import json
import os
import re
import statistics
import subprocess
import sys

RETURN_ADDRESS_CELLS = 2  # 8 bytes at aprof's default 4-byte resolution
# Valgrind's name for the routine below main (aprof writes "below_main").
VALGRIND_BELOW_MAIN = "__libc_start_call_main"


# ---- symbols ------------------------------------------------------------

def load_maps(rec):
    maps = []
    with open(os.path.join(rec, "maps")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            start, end, offset, prot, build_id, path = line.rstrip("\n").split(" ", 5)
            maps.append((int(start, 16), int(end, 16), int(offset, 16), prot, build_id, path))
    return maps


_symbols = {}


def symbols(path, build_id):
    """value -> {full name (with its version, as the dynamic symbol table
    gives it): size}, for the functions of PATH: its symbol table, its
    dynamic symbols and its separate debug file (by build-id), which is
    what Valgrind and libdw read."""
    if path in _symbols:
        return _symbols[path]
    by_value = collections.defaultdict(dict)
    files = [path]
    if build_id and build_id != "-":
        debug = f"/usr/lib/debug/.build-id/{build_id[:2]}/{build_id[2:]}.debug"
        if os.path.exists(debug):
            files.append(debug)
    for file in files:
        for flags in (["-S", "--defined-only"], ["-S", "-D", "--defined-only"]):
            out = subprocess.run(["nm"] + flags + [file], capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split(" ", 3)
                if len(parts) == 3:  # no size: 0
                    parts = [parts[0], "0"] + parts[1:]
                if len(parts) != 4 or parts[2] not in "TtWwiI":
                    continue
                value, size, name = int(parts[0], 16), int(parts[1], 16), parts[3]
                names = by_value[value]
                names[name] = max(names.get(name, 0), size)
    _symbols[path] = by_value
    return by_value


def load_bias(maps, path):
    """Run-time address minus ELF address for PATH's mappings."""
    start = min(m[0] - m[2] for m in maps if m[5] == path)
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
    loads = [int(line.split()[2], 16) for line in out.splitlines()
             if line.split()[:1] == ["LOAD"]]
    return start - (min(loads) if loads else 0)


class Objects:
    def __init__(self, maps):
        self.maps = [m for m in maps if m[5].startswith("/")]
        self.paths = sorted({m[5] for m in self.maps})
        self.build_id = {m[5]: m[4] for m in self.maps}
        self._bias = {}

    def bias(self, path):
        if path not in self._bias:
            self._bias[path] = load_bias(self.maps, path)
        return self._bias[path]

    def object_of(self, address):
        for start, end, _, _, _, path in self.maps:
            if start <= address < end:
                return path
        return None

    def names_at(self, address):
        """{name: size} of the functions at ADDRESS."""
        path = self.object_of(address)
        if path is None:
            return {}
        return dict(symbols(path, self.build_id[path]).get(address - self.bias(path), {}))


# ---- reports ------------------------------------------------------------

def parse_aprof(directory):
    """One dict per thread file, in thread order:
    (name, object, mangled) -> {n: tuple}."""
    files = glob.glob(os.path.join(directory, "*.aprof"))
    files.sort(key=lambda f: int(f.rsplit("_", 2)[-2]))
    threads = []
    for file in files:
        names, mangled, points = {}, {}, collections.defaultdict(dict)
        with open(file) as f:
            for line in f:
                if line.startswith("r "):
                    m = re.match(r'r "(.*)" "(.*)" (\d+)$', line.rstrip("\n"))
                    names[m.group(3)] = (m.group(1), m.group(2))
                elif line.startswith("u "):
                    m = re.match(r'u (\d+) "(.*)"$', line.rstrip("\n"))
                    mangled[m.group(1)] = m.group(2)
                elif line.startswith("p "):
                    p = line.split()
                    points[p[1]][int(p[2])] = {"calls": int(p[7]), "min": int(p[3]),
                                               "max": int(p[4])}
        threads.append({names[r] + (mangled.get(r),): pts for r, pts in points.items()})
    return threads


def trms_points(report, metric):
    """tid -> {address: {n: tuple}}; the routines of an imported (model)
    recording are named by their address."""
    out = collections.defaultdict(dict)
    for r in report["routines"]:
        if r["name"] == "<root>":
            continue
        address = r.get("address") or r["name"]
        out[r["thread"]][int(address, 16)] = {p["n"]: p for p in r[f"{metric}_points"]}
    return out


def merge(point_sets):
    merged = {}
    for points in point_sets:
        for n, p in points.items():
            m = merged.setdefault(n, {"calls": 0, "min": p["min"], "max": p["max"]})
            m["calls"] += p["calls"]
            m["min"] = min(m["min"], p["min"])
            m["max"] = max(m["max"], p["max"])
    return merged


def calls_of(points):
    return {n: p["calls"] for n, p in points.items()}


def shifted(points, by):
    return {n + by: c for n, c in calls_of(points).items()}


def cost_ratio(model, aprof):
    ratios = [model[n]["max"] / aprof[n]["max"] for n in model if n in aprof and aprof[n]["max"]]
    if not ratios:
        return None
    return statistics.median(ratios), max(ratios) / min(ratios)


# ---- classification -----------------------------------------------------

def without_largest(calls):
    """CALLS less one call of its largest input size."""
    out = dict(calls)
    if out:
        n = max(out)
        out[n] -= 1
        if out[n] == 0:
            del out[n]
    return out


def classify(orig, model, aprof, flags, metric, name, threads):
    a = calls_of(aprof)
    if calls_of(orig) == a:
        return "identical"
    if shifted(orig, RETURN_ADDRESS_CELLS) == a:
        return "+2"
    if calls_of(model) == a:
        if flags.get(f"kernel_{metric}"):
            return "model:kernel"
        if flags.get("tail"):
            return "model:tail"
        return "model:depth0"
    if name == "below_main" and calls_of(model) == without_largest(a):
        # Valgrind names the program's entry point below main too, and
        # aprof makes ld.so's jump to it an activation (the largest).
        return "model:_start"
    if flags.get("signal"):
        return "signal"
    if flags.get("sync") and threads > 1:
        return "schedule"
    return "UNEXPLAINED"


def describe(points, limit=6):
    items = sorted(calls_of(points).items())
    text = " ".join(f"{n}x{c}" for n, c in items[:limit])
    return text + (f" ...({len(items)})" if len(items) > limit else "")


def cmd_names(args):
    objects = Objects(load_maps(args.rec))
    names = {}
    with open(args.routines) as f:
        for line in f:
            address = int(line, 16)
            found = objects.names_at(address)
            names[f"{address:#x}"] = {"names": sorted(found) or [f"{address:#x}"],
                                      "sized": any(size > 0 for size in found.values()),
                                      "object": objects.object_of(address)}
    json.dump(names, sys.stdout, indent=0)


BELOW_MAIN = {"__libc_start_main", "__libc_start_call_main", "generic_start_main"}


def aprof_name_of(address, symbol, routines):
    """The aprof routine (name, object, mangled) that stands for ADDRESS,
    whose symbols are SYMBOL, among ROUTINES (one thread's), or None.
    aprof names a routine by the symbol Valgrind prefers (versioned when
    from the dynamic symbols, demangled with its mangled name aside), and
    routines of several objects with that name are one to it; Valgrind
    calls the routines below main "(below main)"."""
    full = set(symbol["names"])
    exact = [k for k in routines if (k[2] or k[0]) in full]
    if not exact:  # Valgrind gives some versioned names without their version
        bare = {n.split("@")[0] for n in full}
        exact = [k for k in routines if (k[2] or k[0]).split("@")[0] in bare]
    if not exact and {n.split("@")[0] for n in full} & BELOW_MAIN:
        exact = [k for k in routines if k[0] == "below_main"]
    if len(exact) > 1:
        same_object = [k for k in exact if os.path.realpath(k[1]) == symbol["object"]]
        exact = same_object or exact
    return sorted(exact)[0] if exact else None


def cmd_compare(args):
    reports = {}
    for key in ("orig", "model_rms", "model_drms"):
        with open(getattr(args, key)) as f:
            reports[key] = json.load(f)
    with open(args.flags) as f:
        flags = {int(k, 16): v for k, v in json.load(f).items()}
    with open(args.names) as f:
        names = {int(k, 16): v for k, v in json.load(f).items()}
    aprof = {"rms": parse_aprof(args.aprof_rms), "drms": parse_aprof(args.aprof_drms)}
    trms = {"rms": (trms_points(reports["orig"], "rms"), trms_points(reports["model_rms"], "rms")),
            "drms": (trms_points(reports["orig"], "trms"),
                     trms_points(reports["model_drms"], "trms"))}
    tids = sorted(trms["rms"][0])
    for metric in ("rms", "drms"):
        if len(aprof[metric]) != len(tids):
            sys.exit(f"aprof_compare: {args.name}: aprof {metric} reports {len(aprof[metric])} "
                     f"threads, trms {len(tids)}")

    rows = []
    for order, tid in enumerate(tids):
        routines = set(aprof["rms"][order]) | set(aprof["drms"][order])
        groups = collections.defaultdict(set)
        for address in trms["rms"][0][tid]:
            key = aprof_name_of(address, names[address], routines)
            if key is not None:
                groups[key].add(address)
        for key in sorted(routines, key=lambda k: k[0]):
            addresses = groups.get(key, set())
            row = {"thread": order + 1, "routine": key[0], "trms_routines": len(addresses)}
            rows.append(row)
            if not addresses:
                row["rms"] = row["drms"] = "UNEXPLAINED"
                row["detail"] = " aprof only"
                continue
            f = collections.Counter()
            for a in addresses:
                f.update(flags.get(a, {}))
            row["calls"] = sum(calls_of(merge(trms["rms"][0][tid].get(a, {})
                                              for a in addresses)).values())
            for metric in ("rms", "drms"):
                orig_all, model_all = trms[metric]
                orig = merge(orig_all[tid].get(a, {}) for a in addresses)
                model = merge(model_all[tid].get(a, {}) for a in addresses)
                ap = merge(pts for k, pts in aprof[metric][order].items() if k == key)
                row[metric] = classify(orig, model, ap, f, metric, key[0], len(tids))
                row[f"{metric}_ratio"] = cost_ratio(model, ap)
                if row[metric] in ("identical", "+2") or row[metric].startswith("model"):
                    row[f"{metric}_tuples"] = (len(ap), sum(p["calls"] == 1 for p in ap.values()))
                if row[metric] not in ("identical", "+2") and not row[metric].startswith("model"):
                    row["detail"] = row.get("detail", "") + (
                        f" {metric}: aprof {describe(ap)} | trms {describe(orig)}"
                        f" | model {describe(model)}")
        claimed = set().union(*groups.values()) if groups else set()
        for address in sorted(set(trms["rms"][0][tid]) - claimed):
            symbol = names[address]
            label = ("trms-only:no-symbol" if not symbol["sized"] else
                     "trms-only:schedule" if flags.get(address, {}).get("sync") and len(tids) > 1
                     else
                     "UNEXPLAINED")
            rows.append({"thread": order + 1, "routine": symbol["names"][0], "rms": label,
                         "drms": label, "detail": " trms only",
                         "calls": sum(calls_of(trms["rms"][0][tid][address]).values())})
    return report(args.name, rows)


def report(name, rows):
    counts = collections.Counter()
    unexplained = 0
    for row in rows:
        for metric in ("rms", "drms"):
            counts[(metric, row[metric])] += 1
            unexplained += row[metric] == "UNEXPLAINED"
    print(f"## {name}\n")
    print("| thread | routine | calls | RMS | TRMS (aprof DRMS) | cost ratio trms/aprof |")
    print("|---|---|---|---|---|---|")
    for row in sorted(rows, key=lambda r: (r["thread"], r["rms"] == "+2", r["routine"])):
        ratio = row.get("rms_ratio")
        ratio_text = f"{ratio[0]:.2f} (x{ratio[1]:.2f})" if ratio else "-"
        routine = row["routine"] if len(row["routine"]) <= 60 else row["routine"][:57] + "..."
        print(f"| {row['thread']} | `{routine}` | {row.get('calls', '-')} | {row['rms']} | "
              f"{row['drms']} | {ratio_text} |")
    print()
    for metric, label in (("rms", "RMS"), ("drms", "TRMS")):
        summary = ", ".join(f"{k[1]} {v}" for k, v in sorted(counts.items()) if k[0] == metric)
        tuples = [r[f"{metric}_tuples"] for r in rows if f"{metric}_tuples" in r]
        print(f"{label}: {summary}; tuples equal (after the stated difference): "
              f"{sum(t[0] for t in tuples)}, of which single activations "
              f"{sum(t[1] for t in tuples)}")
    ratios = [r["rms_ratio"] for r in rows if r.get("rms_ratio")]
    if ratios:
        steady = sum(spread <= 1.02 for _, spread in ratios)
        print(f"Cost, trms instructions per aprof basic block (worst case, by routine): median "
              f"{statistics.median(m for m, _ in ratios):.2f}, from "
              f"{min(m for m, _ in ratios):.2f} to {max(m for m, _ in ratios):.2f}; the same "
              f"within 2% over all of a routine's tuples for {steady} of {len(ratios)} routines")
    details = [r for r in rows if r.get("detail")]
    if details:
        print("\nWhere the tuples differ otherwise (input size x calls):\n")
        for r in details:
            print(f"- thread {r['thread']} `{r['routine']}`:{r['detail']}")
    if unexplained:
        print(f"\naprof_compare: {name}: {unexplained} classifications UNEXPLAINED",
              file=sys.stderr)
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    n = sub.add_parser("names")
    n.add_argument("rec")
    n.add_argument("routines")
    c = sub.add_parser("compare")
    for option in ("name", "rec", "orig", "model-rms", "model-drms", "flags", "aprof-rms",
                   "aprof-drms", "names"):
        c.add_argument(f"--{option}", required=True)
    args = ap.parse_args()
    if args.cmd == "names":
        cmd_names(args)
        return 0
    return cmd_compare(args)


if __name__ == "__main__":
    sys.exit(main())
