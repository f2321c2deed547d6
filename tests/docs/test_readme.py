#!/usr/bin/env python3
"""The README is a front page and docs/ holds the reference (issue 30,
item 4). Fails when:

  (a) README.md has 200 lines or more;
  (b) a section of the README as it was before the move (its `##` and `###`
      headings, frozen below with the file each now lives in) is in none
      of its files: nothing of the old README may be lost;
  (c) a relative link of README.md or docs/*.md names a file that does not
      exist, or an anchor that no heading of that file makes (GitHub's
      rule: lower case, punctuation dropped, spaces as hyphens);
  (d) the two commands are not on the README under "## Two commands" as
      CI and the tests run them (.ci/run runs `bash tools/test.sh`);
  (e) a file of docs/*.md is linked from no page (README.md or docs/),
      the screenshot the README shows is missing or 300 KB or more, or the
      script that takes it is gone.

    test_readme.py [SOURCE_DIR]     (default: the repository holding it)

Exit 0 passes, anything else fails, naming every problem found."""
import os
import re
import sys

SOURCE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                         os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# Every `##` and `###` heading of README.md at d4fdda2 (1,133 lines), in
# order, with the files that hold its section now (all of them must have
# the heading). The checklist of the move: old section -> new place.
OLD_HEADINGS = [
    ("## Two commands", ["README.md", "docs/installing.md"]),
    ("## Installing", ["README.md", "docs/installing.md"]),
    ("## Engines: which runs where", ["README.md"]),
    ("## Commands", ["docs/commands.md"]),
    ("### Reports", ["docs/commands.md"]),
    ("### Calling contexts", ["docs/commands.md"]),
    ("## The text event format", ["docs/formats.md"]),
    ("## What is computed", ["docs/analyses.md"]),
    ("### How, and how exactly", ["docs/analyses.md"]),
    ("### Memory", ["docs/analyses.md"]),
    ("## Recording with Valgrind", ["docs/recording.md"]),
    ("## Analyzing as it records", ["docs/recording.md"]),
    ("## Windows for long runs", ["docs/recording.md"]),
    ("## Recording with the step engine", ["docs/recording.md"]),
    ("## Exploring interleavings", ["docs/explore.md"]),
    ("## Analyzing an rr recording", ["docs/recording.md"]),
    ("## Recordings and results", ["docs/recordings.md"]),
    ("### Recordings from elsewhere: what is trusted", ["docs/recordings.md"]),
    ("### Bug reports", ["docs/recordings.md"]),
    ("## Faults: what survives what", ["docs/faults.md"]),
    ("## Checkpoints and resuming", ["docs/recordings.md"]),
    ("## Fuzzing", ["docs/development.md"]),
    ("## Layout", ["docs/development.md"]),
    ("## Not yet supported", ["docs/limitations.md"]),
]

MAX_README_LINES = 200
MAX_SCREENSHOT_BYTES = 300 * 1024
SCREENSHOT = "docs/report.png"
SCREENSHOT_SCRIPT = "docs/screenshot.sh"

problems = []


def read(rel):
    with open(os.path.join(SOURCE, rel), encoding="utf-8") as f:
        return f.read()


def outside_code(text):
    """TEXT's lines outside fenced code blocks, with their numbers, and
    inline code spans blanked (a link inside backquotes is no link)."""
    fence = False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if not fence:
            yield number, re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)


def headings(text):
    return [line.rstrip() for _, line in outside_code(text) if re.match(r"#{1,6} ", line)]


def heading_text(line):
    return line.lstrip("#").strip()


def slug(title):
    """GitHub's anchor of a heading: lower case, every character but
    letters, digits, '_', '-' and spaces dropped, spaces as hyphens."""
    s = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return s.replace(" ", "-")


def anchors(text):
    """Every anchor the headings of TEXT make, duplicates numbered as
    GitHub numbers them (name, name-1, name-2...)."""
    seen, out = {}, set()
    fence = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence or not re.match(r"#{1,6} ", line):
            continue
        base = slug(heading_text(line).replace("`", ""))
        n = seen.get(base, 0)
        out.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return out


def markdown_pages():
    pages = ["README.md"]
    pages += sorted("docs/" + f for f in os.listdir(os.path.join(SOURCE, "docs"))
                    if f.endswith(".md"))
    return pages


# (a) a front page
readme = read("README.md")
count = len(readme.rstrip("\n").split("\n"))
if count >= MAX_README_LINES:
    problems.append(f"README.md has {count} lines; a front page has fewer than "
                    f"{MAX_README_LINES} (the reference belongs in docs/)")

# (b) no section of the old README lost
for heading, files in OLD_HEADINGS:
    title = heading_text(heading)
    for rel in files:
        if not os.path.exists(os.path.join(SOURCE, rel)):
            problems.append(f"{rel} is missing (it holds the old README's '{heading}')")
            continue
        if title not in [heading_text(h) for h in headings(read(rel))]:
            problems.append(f"the old README's section '{heading}' is not in {rel} "
                            f"(no heading '{title}' there)")

# (c) every relative link resolves, anchors included
link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
anchor_cache = {}
linked = set()
for page in markdown_pages():
    text = read(page)
    # Link texts may wrap: join the lines outside code, keeping numbers.
    body = list(outside_code(text))
    joined = "\n".join(line for _, line in body)
    for m in link.finditer(joined):
        target = m.group(1)
        number = body[joined.count("\n", 0, m.start())][0]
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # http:, https:, mailto:
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        where = f"{page}:{number}: link '{target}'"
        if not os.path.exists(os.path.join(SOURCE, resolved)):
            problems.append(f"{where}: {resolved} does not exist")
            continue
        linked.add(resolved)
        if anchor and resolved.endswith(".md"):
            if resolved not in anchor_cache:
                anchor_cache[resolved] = anchors(read(resolved))
            if anchor not in anchor_cache[resolved]:
                problems.append(f"{where}: no heading of {resolved} makes the anchor #{anchor}")

# (d) the two commands, as CI and the tests run them
section = re.search(r"^## Two commands\n(.*?)(?=^## |\Z)", readme, re.S | re.M)
if not section:
    problems.append("README.md has no '## Two commands' section")
else:
    block = re.search(r"```sh\n(.*?)```", section.group(1), re.S)
    commands = [line.split("#")[0].strip() for line in (block.group(1) if block else "").split("\n")]
    for command in ("bash tools/demo.sh", "bash tools/test.sh"):
        if command not in commands:
            problems.append(f"README.md's '## Two commands' block lacks `{command}`")
        script = command.split()[1]
        if not os.path.exists(os.path.join(SOURCE, script)):
            problems.append(f"{script} (the README's `{command}`) does not exist")
if "bash tools/test.sh" not in read(".ci/run"):
    problems.append(".ci/run no longer runs the README's `bash tools/test.sh`")

# (e) docs reachable, the screenshot small and reproducible
for page in markdown_pages()[1:]:
    if page not in linked:
        problems.append(f"{page} is linked from no page (README.md or docs/)")
if f"]({SCREENSHOT})" not in readme:
    problems.append(f"README.md does not show {SCREENSHOT}")
shot = os.path.join(SOURCE, SCREENSHOT)
if not os.path.exists(shot):
    problems.append(f"{SCREENSHOT} is missing (bash {SCREENSHOT_SCRIPT} takes it)")
elif os.path.getsize(shot) >= MAX_SCREENSHOT_BYTES:
    problems.append(f"{SCREENSHOT} has {os.path.getsize(shot)} bytes; keep it under "
                    f"{MAX_SCREENSHOT_BYTES}")
# The text beside the picture is the one the same script wrote.
quoted = re.search(r"^Its text equivalent.*?\n```\n(.*?)```", readme, re.S | re.M)
if not quoted or quoted.group(1) != read("docs/report.txt"):
    problems.append("README.md's text report is not docs/report.txt (bash "
                    f"{SCREENSHOT_SCRIPT} writes both; paste it again)")
if not os.path.exists(os.path.join(SOURCE, SCREENSHOT_SCRIPT)):
    problems.append(f"{SCREENSHOT_SCRIPT}, which takes the README's screenshot, is missing")

for p in problems:
    print("test_readme:", p, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"test_readme: README.md {count} lines; {len(OLD_HEADINGS)} old sections found; "
      f"links of {len(markdown_pages())} pages resolve")
