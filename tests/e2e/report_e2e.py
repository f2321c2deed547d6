#!/usr/bin/env python3
"""End-to-end tests of the reports: record tests/programs/wordcase (the
word-frequency case study) with `trms record`, analyze, and check what
`trms report` and `trms diff` conclude.

    report_e2e.py CASE      (environment: TRMS, PROGRAMS, ARTIFACTS)

Exit 0 passes, 77 skips, anything else fails."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_lib import TRMS, Failure, check, run, run_case  # noqa: E402
from record_e2e import record  # noqa: E402


def analyze(rec, *options):
    run([TRMS, "analyze", rec, "--cell-size", "1"] + list(options))


def report_json(*args):
    return json.loads(run([TRMS, "report", "--format", "json", "--top", "0"] + list(args)).stdout)


def row(report, name, thread=None):
    rows = [r for r in report["routines"] if r["name"] == name and
            (thread is None or r["thread"] == thread)]
    check(len(rows) == 1, f"{name}: {len(rows)} rows, expected 1")
    return rows[0]


def fit(r, metric="rms", kind="worst"):
    f = r["fit"][metric][kind]
    check(f["verdict"], f"{r['name']}: no {kind} fit by {metric}: {f.get('why')}")
    return f


def sizes(r, metric="rms_points"):
    return {p["n"] for p in r[metric]}


# ---- cases ----

def case_demo(tmp):
    """The README's first command's example, examples/wordfreq.c on its
    input, as tools/demo.sh records and analyzes it: str_tolower fits n^2."""
    here = os.path.dirname(os.path.abspath(__file__))
    text = os.path.join(here, "..", "..", "examples", "wordfreq-input.txt")
    rec = os.path.join(tmp, "wordfreq.rec")
    run([TRMS, "record", "-o", rec, "--", os.path.join(os.environ["EXAMPLES"], "wordfreq"),
         text, "5"])
    analyze(rec)
    slow = row(report_json(rec), "str_tolower")
    check(len(sizes(slow)) >= 15, f"input sizes: {sorted(sizes(slow))}")
    for kind in ("worst", "average"):
        f = fit(slow, "rms", kind)
        check(f["model"] == "n^2" and not f["poor"], f"str_tolower {kind}: {f}")
        check(1.4 <= f["exponent"] <= 2.3, f"str_tolower exponent {f['exponent']}")


def case_growth(tmp):
    """The slides' case: str_tolower (strlen in its loop condition) is
    quadratic in the word length, its fixed version linear, the merge sort
    n log n; for worst-case and average cost, against RMS and TRMS."""
    rec, _ = record(tmp, "wordcase", ["slow", "1", "120", "2048"])
    analyze(rec)
    r = report_json(rec)
    slow, fixed, sort = row(r, "str_tolower"), row(r, "str_tolower_fixed"), row(r, "sort_numbers")
    check(slow["thread"] == fixed["thread"] != sort["thread"], "the counter thread lowers, main sorts")
    check(len(sizes(slow)) == 120, f"one input size per word length: {len(sizes(slow))}")
    for metric in ("rms", "trms"):
        for kind in ("worst", "average"):
            f = fit(slow, metric, kind)
            check(f["model"] == "n^2", f"str_tolower {kind}/{metric}: {f['model']}, expected n^2")
            check(1.7 <= f["exponent"] <= 2.3, f"str_tolower exponent {f['exponent']}")
            lo, hi = f["exponent_ci"]
            check(lo <= f["exponent"] <= hi and hi - lo < 0.2, f"str_tolower interval {lo}..{hi}")
            f = fit(fixed, metric, kind)
            check(f["model"] == "n", f"str_tolower_fixed {kind}/{metric}: {f['model']}, expected n")
            check(0.9 <= f["exponent"] <= 1.1, f"str_tolower_fixed exponent {f['exponent']}")
            f = fit(sort, metric, kind)
            check(f["model"] == "n log n", f"sort_numbers {kind}/{metric}: {f['model']}")
            check(1.0 < f["exponent"] <= 1.35, f"sort_numbers exponent {f['exponent']}")
    # Every model's goodness of fit is reported, the chosen one the best.
    models = fit(slow)["models"]
    check(set(models) == {"1", "log n", "n", "n log n", "n^2", "n^3"}, f"models {set(models)}")
    check(min(models, key=lambda m: models[m]["error"]) == "n^2", f"errors {models}")
    # Too few sizes: no verdict, and the reason says how many are needed.
    main = row(r, "main")["fit"]["rms"]["worst"]
    check(not main["verdict"] and main["why"] == "1 input size; a fit needs 4", f"main: {main}")
    # The text report says it at a glance, with the source location.
    text = run([TRMS, "report", rec]).stdout
    line = next((l for l in text.splitlines() if "str_tolower (wordcase.c:" in l), "")
    check(re.search(r"\s120\s+120\s+n\^2\s+\d\.\d\d±", line), f"text row: {line!r}")
    text = run([TRMS, "report", rec, "--routine", "sort_numbers"]).stdout
    check(re.search(r"worst-case cost by RMS: n log n over n = [\d.]+\.\.[\d.]+ \(\d+ of \d+ "
                    r"size classes\); exponent over n = [\d.]+\.\.[\d.]+: 1\.\d+ \[1\.\d+, 1\.\d+\]", text),
          text[-800:])
    # Threads: one selected, or all added up.
    one = report_json(rec, "--thread", str(sort["thread"]))
    check({x["thread"] for x in one["routines"]} == {sort["thread"]}, "--thread selects")
    agg = report_json(rec, "--aggregate-threads", "--routine", "<root>")
    root = agg["routines"][0]
    check(len(agg["routines"]) == 1 and root["thread"] is None and len(root["threads"]) == 2,
          f"aggregated roots: {agg['routines']}")
    check(root["calls"] == 2, f"two roots added up: {root['calls']}")
    # Calling contexts: text_length called from each of its callers (and
    # str_tolower's from lower_word's), reported apart, adding up to the
    # routine.
    analyze(rec, "--contexts")
    c = report_json(rec, "--contexts", "--routine", "text_length")
    paths = {tuple(x["context"][x["context"].index("counter"):]): x for x in c["routines"]}
    check(set(paths) == {("counter", "str_tolower", "text_length"),
                         ("counter", "str_tolower_fixed", "text_length"),
                         ("counter", "lower_word", "str_tolower", "text_length"),
                         ("counter", "count_word", "text_length")}, f"contexts: {set(paths)}")
    check(paths[("counter", "str_tolower_fixed", "text_length")]["calls"] == 120, "once a word")
    check(sum(x["calls"] for x in paths.values()) == row(r, "text_length")["calls"], "sum")
    check(fit(paths[("counter", "str_tolower_fixed", "text_length")])["model"] == "n", "linear")


def case_merge(tmp):
    """Two recordings of the same program with different inputs: the merged
    report holds the union of their input sizes and the sum of the calls."""
    a, _ = record(tmp, "wordcase", ["slow", "1", "40", "64"])
    b, _ = record(tmp, "wordcase", ["slow", "41", "100", "1024", "100"])
    analyze(a)
    analyze(b)
    ra, rb, merged = report_json(a), report_json(b), report_json(a, b)
    check(merged["recordings"] == [a, b] and merged["threads_by_order"], "merged heading")
    for name in ("str_tolower", "sort_numbers"):
        # Thread ids differ between runs; the merged report numbers threads by order.
        x, y, m = row(ra, name), row(rb, name), row(merged, name)
        for metric in ("rms_points", "trms_points"):
            check(sizes(m, metric) == sizes(x, metric) | sizes(y, metric),
                  f"{name} {metric}: merged sizes are not the union")
            check(len(sizes(m, metric)) > max(len(sizes(x, metric)), len(sizes(y, metric))),
                  f"{name}: the inputs differ, so the union is larger")
        check(m["calls"] == x["calls"] + y["calls"] and m["cost"] == x["cost"] + y["cost"],
              f"{name}: calls and cost add up")
    # Sorting 8 to 64 and 100 to 1024 numbers: merged, 8 to 1024.
    check(fit(row(merged, "sort_numbers"))["model"] == "n log n", "merged: n log n")
    check(fit(row(merged, "sort_numbers"))["sizes"] == 12, "six sizes from each run")
    # Recordings analyzed with other sizes are refused, in one line.
    c, _ = record(tmp, "wordcase", ["slow", "1", "8"])
    run([TRMS, "analyze", c])
    p = run([TRMS, "report", a, c], expect=1)
    check(p.stderr.count("\n") == 1 and "give --cell-size and --line-size" in p.stderr, p.stderr)


def case_diff(tmp):
    """lower_word is linear in one run and quadratic in the other: diff
    flags its growth, and not that of the routines that do the same in both
    (the queue's routines wait as the threads' scheduling has it, which
    varies from run to run)."""
    fast, _ = record(tmp, "wordcase", ["fast", "1", "100", "256"])
    slow, _ = record(tmp, "wordcase", ["slow", "1", "100", "256"])
    analyze(fast)
    analyze(slow)
    d = json.loads(run([TRMS, "diff", fast, slow, "--format", "json"]).stdout)
    flagged = {r["name"]: r for r in d["routines"] if r["growth_changed"]}
    check("lower_word" in flagged, f"lower_word's growth change is not flagged: {list(flagged)}")
    steady = {"str_tolower", "str_tolower_fixed", "text_length", "count_word", "sort_numbers",
              "merge_sort", "lower_char"}
    check(not steady & set(flagged), f"flagged routines whose growth is the same: {list(flagged)}")
    lw = flagged["lower_word"]
    check(lw["growth_a"]["model"] == "n" and lw["growth_b"]["model"] == "n^2", f"{lw}")
    check(lw["cost_changed"] and lw["cost_b"] > 5 * lw["cost_a"], f"{lw}")
    check(d["routines"][0]["name"] == "lower_word", "the growth change comes first")
    same = [r for r in d["routines"] if r["name"] == "str_tolower"][0]
    check(not same["growth_changed"] and same["growth_a"]["model"] == "n^2", f"{same}")
    text = run([TRMS, "diff", fast, slow]).stdout
    check(re.search(r"lower_word \(wordcase\.c:\d+\).* n k=[\d.]+ +n\^2 k=[\d.]+ +GROWTH", text),
          text)
    # A run against itself: nothing changed.
    text = run([TRMS, "diff", slow, slow]).stdout
    check("0 routines changed growth, 0 changed cost" in text, text)


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    raise Failure("chromium is not installed (tools/install-deps.sh installs the Debian "
                  "package chromium)")


def browse(tmp, url, *args):
    """Chromium, headless and offline, on URL; returns (stdout, console lines)."""
    profile = tempfile.mkdtemp(prefix="chromium.", dir=tmp)
    p = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                        "--disable-quic", "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--disable-extensions",
                        f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                        "--virtual-time-budget=2000"] + list(args) + [url],
                       capture_output=True, text=True, timeout=120)
    console = [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
    if p.returncode != 0:
        raise Failure(f"chromium exit {p.returncode}: {p.stderr[-2000:]}")
    return p.stdout, console


def case_html(tmp):
    """The HTML report of a multithreaded recording in headless Chromium:
    it loads without errors, lists the routines, sorts and filters, and each
    plot has one point per input size."""
    rec, _ = record(tmp, "wordcase", ["slow", "1", "60", "512"])
    analyze(rec)
    page = os.path.join(tmp, "report.html")
    run([TRMS, "report", rec, "--format", "html", "-o", page, "--top", "12"])
    html = open(page).read()
    # Self-contained: nothing fetched, no external reference at all.
    check(not re.search(r"(src|href)\s*=\s*\"(?!#)|@import|url\(|https?:", html),
          "the page references something outside itself")
    r = report_json(rec)
    dom, console = browse(tmp, "file://" + page + "#sort=calls&desc=1", "--dump-dom")
    check(not console, f"console messages: {console}")
    body = re.search(r"<body[^>]*>", dom).group(0)
    check('data-ready="1"' in body, "the page's script did not run to its end")
    check("data-errors" not in body, f"the page's script reported errors: {body}")
    names = re.findall(r'<tr(?: class="(?:wrapper|pass)")? data-name="([^"]*)"', dom)
    check(len(names) == len(r["routines"]), f"{len(names)} table rows, {len(r['routines'])} routines")
    for name in ("str_tolower", "str_tolower_fixed", "lower_word", "sort_numbers", "count_word",
                 "put_word", "take_word", "counter", "main"):
        check(any(n.startswith(name + " (wordcase.c:") for n in names), f"table lacks {name}")
    # Sorted by calls, descending, by the address.
    calls = [int(c) for c in re.findall(r'<tr(?: class="(?:wrapper|pass)")? data-name="[^"]*">'
                                        r'<td class="name"[^>]*>.*?</td>'
                                        r'<td data-v="[^"]*">[^<]*</td><td data-v="(\d+)"', dom)]
    check(len(calls) == len(names) and calls == sorted(calls, reverse=True), f"calls {calls[:8]}")
    check('data-key="calls" data-type="num" data-sorted="desc"' in dom, "the heading says so")
    # Each plotted routine: one point per input size in each plot.
    sections = re.findall(r'<section class="routine" id="r-(\d+)"(.*?)</section>', dom, re.S)
    check(len(sections) == 12, f"{len(sections)} plotted routines, expected --top 12")
    by_label = {x["name"] + (f" ({x['file']}:{x['line']})" if "file" in x else ""): x
                for x in r["routines"] if x["thread"] is not None}
    seen = set()
    for index, body in sections:
        label = re.search(r'<h3 title="([^"]*)">(.*?) — thread (\d+)</h3>', body)
        check(label, f"section {index} heading")
        # The full name in the hover text; short ones shown as they are.
        name = label.group(1).replace("&lt;", "<").replace("&gt;", ">")
        check(len(name) > 80 or label.group(2) == label.group(1), f"section {index}: {label}")
        x = [y for y in r["routines"] if y["thread"] == int(label.group(3)) and
             (y["name"] + (f" ({y['file']}:{y['line']})" if "file" in y else "")) == name]
        check(len(x) == 1, f"section {name}")
        x = x[0]
        seen.add(x["name"])
        # A TRMS plot only where TRMS is not RMS.
        as_rms = x["rms_points"] == x["trms_points"]
        check(f'data-trms-as-rms="{int(as_rms)}"' in dom.split(f'id="r-{index}"')[1][:200],
              f"{name}: data-trms-as-rms")
        for metric, cls in (("rms_points", "cost rms"), ("trms_points", "cost trms")):
            svg = re.search(r'<svg class="plot ' + cls + r'"[^>]*data-points="(\d+)"(.*?)</svg>',
                            body, re.S)
            if as_rms and cls == "cost trms":
                check(not svg, f"{name}: a TRMS plot the same as the RMS one")
                continue
            check(svg, f"{name}: no {cls} plot")
            n = len(x[metric])
            check(int(svg.group(1)) == 2 * n, f"{name} {cls}: data-points {svg.group(1)}, n {n}")
            check(svg.group(2).count('class="pt worst ring"') == n, f"{name} {cls}: worst points")
            check(svg.group(2).count('class="pt average"') == n, f"{name} {cls}: average points")
            fitted = x["fit"][metric[:-7]]["worst"]["verdict"]
            check(('class="curve fit-worst"' in svg.group(2)) == fitted, f"{name}: fitted curve")
        svg = re.search(r'<svg class="plot workload"[^>]*>(.*?)</svg>', body, re.S)
        check(svg.group(1).count('class="pt calls"') == len(x["rms_points"]), f"{name}: workload")
    check("str_tolower" in seen, f"str_tolower is among the costliest: {seen}")
    # Figure 9 and the reuse histograms (global and one per thread).
    check(re.search(r'<svg class="plot induced"', dom), "no thread-induced vs external chart")
    check(len(re.findall(r'<svg class="plot reuse (global|thread)"', dom)) == 3, "reuse charts")
    # The filter, set from the address.
    dom, console = browse(tmp, "file://" + page + "#filter=str_tolower", "--dump-dom")
    check(not console, f"console messages: {console}")
    shown = re.search(r'<span id="shown">(\d+)</span>', dom)
    visible = re.findall(r'<tr(?: class="(?:wrapper|pass)")? data-name="([^"]*)"'
                         r'(?! style="display: none;")', dom)
    check(shown and int(shown.group(1)) == 2 == len(visible), f"filter: {shown and shown.group(1)}, {visible}")
    # A screenshot, kept as an artifact of the test run.
    artifacts = os.environ.get("ARTIFACTS", tmp)
    os.makedirs(artifacts, exist_ok=True)
    shot = os.path.join(artifacts, "html_report.png")
    if os.path.exists(shot):
        os.remove(shot)
    browse(tmp, "file://" + page, f"--screenshot={shot}", "--window-size=1280,2400",
           "--hide-scrollbars")
    with open(shot, "rb") as f:
        png = f.read()
    check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000, "screenshot")
    shutil.copy(page, os.path.join(artifacts, "html_report.html"))


def layout(tmp, page, width):
    """PAGE in Chromium at WIDTH pixels, with tests/e2e/layout_check.js
    run on it; returns what the script found (problems, plots, height)."""
    here = os.path.dirname(os.path.abspath(__file__))
    checked = page + ".checked.html"
    with open(page) as f, open(os.path.join(here, "layout_check.js")) as js:
        html = f.read().replace("</body>", "<script>" + js.read() + "</script></body>")
    with open(checked, "w") as f:
        f.write(html)
    dom, console = browse(tmp, "file://" + checked, "--dump-dom", f"--window-size={width},900")
    check(not console, f"console messages: {console}")
    found = re.search(r'data-layout="([^"]*)"', dom)
    check(found, "the layout check did not run")
    import html as html_module
    return json.loads(html_module.unescape(found.group(1)))


def json_label(x):
    """A JSON row's label as the HTML writes it in data-name."""
    if "file" in x:
        return x["name"] + (f" ({x['file']}:{x['line']})" if "line" in x else f" ({x['file']})")
    if "module" in x and not x["name"].startswith("0x"):
        return f"{x['name']} [{os.path.basename(x['module'])}]"
    return x["name"]


def check_page(tmp, name, rec, one_thread, chains):
    """The HTML page of REC at 1400 and 1100 pixels (layout_check.js), its
    screenshots kept in ARTIFACTS; the ranking as the text report's (folded
    chains and wrappers out of the top, hidden in the table until asked
    for; with CHAINS, some chain folded); worst-case points as rings over the average's; a logarithmic
    reuse axis; for a one-thread program, no plot twice."""
    import html as html_module
    r = report_json(rec)
    page = os.path.join(tmp, f"{name}.html")
    run([TRMS, "report", rec, "--format", "html", "-o", page])
    artifacts = os.environ.get("ARTIFACTS", tmp)
    os.makedirs(artifacts, exist_ok=True)
    shutil.copy(page, os.path.join(artifacts, f"{name}.html"))
    for width in (1400, 1100):
        found = layout(tmp, page, width)
        check(found["plots"] >= 25 * 2, f"{name}: {found['plots']} plots")
        check(not found["problems"], f"{name} at {width} px, {len(found['problems'])} layout "
                                     "problems: " + "\n".join(found["problems"][:20]))
        check((found["folded"] > 0 or not chains) and found["folded_shown"] == 0,
              f"{name}: {found['folded_shown']} of {found['folded']} folded rows shown")
        shot = os.path.join(artifacts, f"{name}_{width}.png")
        if os.path.exists(shot):
            os.remove(shot)
        browse(tmp, "file://" + page, f"--screenshot={shot}",
               f"--window-size={width},{min(found['height'], 16000)}", "--hide-scrollbars")
        with open(shot, "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", "screenshot")
    html = open(page).read()
    # The ranking: the text report's top 25 (folded rows out) are the
    # table's first unfolded rows and the plotted routines, in order.
    top = [x for x in r["routines"] if not x["wrapper"] and x["passes_to"] is None][:25]
    want = [(json_label(x), x["thread"]) for x in top]
    plotted = [(html_module.unescape(t), int(tid)) for t, tid in re.findall(
        r'<section class="routine" id="r-\d+"[^>]*><h3 title="([^"]*)">.*? thread (\d+)</h3>',
        html)]
    check(plotted == want, f"{name}: plotted {plotted[:4]}, ranked {want[:4]}")
    table = [(html_module.unescape(n), c) for c, n in
             re.findall(r'<tr(?: class="(wrapper|pass)")? data-name="([^"]*)"', html)]
    unfolded = [n for n, c in table if not c][:25]
    check(unfolded == [w for w, _ in want], f"{name}: table {unfolded[:4]}, ranked {want[:4]}")
    check(len(table) == len(r["routines"]), f"{name}: {len(table)} table rows")
    # Folding is decided in each thread apart: pigz's deflateReset passes
    # its cost to memset in one compressing thread and not in another,
    # whose memset row also counts other callers. So a frame is named by
    # its label and its thread, in the JSON and in the table alike.
    folded = {(json_label(x), x["thread"]) for x in r["routines"] if x["passes_to"] is not None}
    check(folded or not chains, f"{name}: no chain folded")
    check(not folded & set(want), f"{name}: a folded frame among the top rows: "
                                  f"{sorted(folded & set(want))[:4]}")
    passes = {(html_module.unescape(n), None if t == "-1" else int(t)) for n, t in re.findall(
        r'<tr class="pass" data-name="([^"]*)"><td class="name"[^>]*>.*?</td><td data-v="(-?\d+)"',
        html)}
    check(passes == folded, f"{name}: table's folded rows {sorted(passes ^ folded)[:4]} "
                            "differ from the JSON's")
    # Worst-case points: rings drawn after (over) the average's dots.
    for svg in re.findall(r'<svg class="plot cost (?:rms|trms)".*?</svg>', html, re.S):
        rings = svg.find('class="pt worst ring"')
        check(rings < 0 or svg.find('class="pt average"') < rings, f"{name}: rings under dots")
        check('class="pt worst"' not in svg, f"{name}: worst-case points without rings")
    reuse = re.findall(r'<svg class="plot reuse (global|thread)"[^>]*data-log-y="1"', html)
    check(len(reuse) == len(re.findall(r'<svg class="plot reuse', html)) and reuse,
          f"{name}: reuse charts without a logarithmic axis")
    sections = re.findall(r'<section class="routine"[^>]*data-trms-as-rms="(\d)"(.*?)</section>',
                          html, re.S)
    for same, body in sections:
        trms_plots = body.count('<svg class="plot cost trms"')
        check(trms_plots == (0 if same == "1" else 1), f"{name}: TRMS plot where TRMS is RMS")
        check(body.count('<p class="fit">') <= (2 if same == "1" else 4), f"{name}: verdict lines")
    if one_thread:
        check(reuse == ["global"], f"{name}: a per-thread reuse chart equal to the global one")
        check('<svg class="plot induced"' not in html, f"{name}: an all-external induced chart")
        check(all(same == "1" for same, _ in sections), f"{name}: TRMS differs in one thread")
    return r, html


def case_layout(tmp):
    """The HTML pages of a multithreaded recording with hundreds of routines
    (pigz, 4 compressing threads) and of a one-thread C++ program
    (tests/programs/cxx_sorts.cc) in Chromium at 1400 and 1100 pixels:
    nothing overflows its box, the routine table fits the window, no two
    labels or plots overlap (tests/e2e/layout_check.js, from the DOM); the
    ranking is the text report's, chains folded; no plot twice. Full-page
    screenshots are kept in ARTIFACTS for a person to look at."""
    pigz = shutil.which("pigz")
    if not pigz:
        print("skipped: no pigz (tools/install-deps.sh installs it)", file=sys.stderr)
        return 77
    import random
    rng = random.Random(16)
    words = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(2, 9)))
             for _ in range(3000)]
    text = os.path.join(tmp, "words.txt")
    with open(text, "w") as f:
        for _ in range(8000):
            f.write(" ".join(rng.choice(words) for _ in range(8)) + "\n")
    rec = os.path.join(tmp, "pigz.rec")
    run([TRMS, "record", "-o", rec, "--", pigz, "-p", "4", "-b", "32", "-k", "-f", text])
    run([TRMS, "analyze", rec])
    r, html = check_page(tmp, "layout_report", rec, one_thread=False, chains=True)
    threads = {x["thread"] for x in r["routines"]}
    check(len(threads) >= 5, f"threads {threads}: pigz -p 4 runs 4 compressing threads")
    check(len(r["routines"]) >= 300, f"{len(r['routines'])} routines")
    wrappers = [x for x in r["routines"] if x["wrapper"]]
    check(any(x["name"] == "<root>" for x in wrappers), "<root> is a wrapper")
    check(html.count('<tr class="wrapper"') == len(wrappers), "wrappers greyed in the table")
    # The C++ program: one thread; two instantiations of std::sort's
    # templates told apart by their module addresses. No frame of it
    # passes its cost down a chain (operator delete, the nearest, spends 2%
    # of its cost itself): the folded chains are pigz's.
    rec = os.path.join(tmp, "cxx.rec")
    run([TRMS, "record", "-o", rec, "--", os.path.join(os.environ["PROGRAMS"], "cxx_sorts")])
    run([TRMS, "analyze", rec])
    r, html = check_page(tmp, "layout_cxx", rec, one_thread=True, chains=False)
    intro = sorted(set(re.findall(r'std::__introsort_loop&lt;...&gt;\(...\).isra.0 @0x[0-9a-f]+',
                                  html)))
    check(len(intro) == 2, f"the two introsort instantiations in the HTML: {intro}")


CASES = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}

if __name__ == "__main__":
    run_case(CASES, "report_e2e.py", "trms-report-e2e.")
