#!/usr/bin/env python3
"""Writes trms's man pages and its bash completion from the binary's own
help, so that the two cannot drift: `trms --help` gives trms(1) and the
list of commands, `trms COMMAND --help` gives trms-COMMAND(1) and the
options the completion offers.

    man_from_help.py TRMS OUTDIR

writes OUTDIR/man1/trms.1, OUTDIR/man1/trms-COMMAND.1 for every command,
and OUTDIR/completion/trms (bash). Help texts are plain text laid out in
a few shapes, each turned into its roff: the usage lines (SYNOPSIS),
paragraphs, a heading line ending in ':' followed by indented lines (a
subsection, kept as laid out), and indented blocks (kept as laid out)."""
import re
import subprocess
import sys
import os

def help_of(trms, *args):
    p = subprocess.run([trms, *args, "--help"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"man_from_help: `{trms} {' '.join(args)} --help` failed: {p.stderr}")
    return p.stdout


def version_of(trms):
    out = subprocess.run([trms, "--version"], capture_output=True, text=True).stdout
    return out.split()[1] if out.startswith("trms ") else "unknown"


def commands_of(top_help):
    """(name, summary) of each command `trms --help` lists."""
    listing = top_help.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [tuple(re.match(r"\s+(\S+)\s+(.*)", line).groups()) for line in listing.splitlines()]


def roff(text):
    """TEXT escaped for roff: backslashes, hyphens (so that options copy
    as typed), and control characters at the start of a line."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + line if line[:1] in (".", "'") else line for line in text.split("\n"))


def blocks(text):
    """TEXT split at blank lines, each block a list of lines."""
    out, current = [], []
    for line in text.rstrip("\n").split("\n"):
        if line.strip():
            current.append(line)
        elif current:
            out.append(current)
            current = []
    if current:
        out.append(current)
    return out


def body(text):
    """The roff of a help text after its usage lines."""
    lines = []
    for block in blocks(text):
        first = block[0]
        heading = not first.startswith(" ") and first.endswith(":") and len(block) > 1 and \
            block[1].startswith(" ")
        if heading:
            lines += [".SS " + roff(first[:-1]), ".nf", roff("\n".join(block[1:])), ".fi"]
            continue
        # A paragraph, possibly followed by a laid-out part (indented lines).
        prose = []
        for i, line in enumerate(block):
            if line.startswith(" "):
                if prose:
                    lines += [".PP", roff(" ".join(prose))]
                    prose = []
                lines += [".nf", roff("\n".join(block[i:])), ".fi"]
                break
            prose.append(line)
        else:
            lines += [".PP", roff(" ".join(prose))]
    return lines


def split_usage(text):
    """(usage lines without "usage: ", the rest) of a help text; the
    usage's continuation lines lose the indent that lined them up after
    "usage: "."""
    usage, rest = text.split("\n\n", 1) if "\n\n" in text else (text, "")
    lines = usage.split("\n")
    prefix = "usage: "
    lines = [lines[0][len(prefix):] if lines[0].startswith(prefix) else lines[0]] + \
        [line[len(prefix):] if line.startswith(" " * len(prefix)) else line for line in lines[1:]]
    return "\n".join(lines), rest


def page(name, section, summary, version, synopsis, rest, see_also):
    out = [f'.TH {name.upper()} {section} "" "trms {version}" "trms manual"',
           ".SH NAME", f"{roff(name)} \\- {roff(summary)}",
           ".SH SYNOPSIS", ".nf", roff(synopsis), ".fi",
           ".SH DESCRIPTION", *body(rest)]
    if see_also:
        out += [".SH SEE ALSO", ",\n".join(f".BR {roff(n)} ({s})" for n, s in see_also)]
    return "\n".join(out) + "\n"


OPTION = r"(?<![\w-])(--?[A-Za-z][\w-]*)"


def options_of(text):
    """The options a help text offers: those in its usage lines, and those
    that begin an entry of an option list (an indented line starting with
    a dash, up to the gap before its description); and the values the
    usage lines list for an option (--format text|json: text, json)."""
    usage, rest = split_usage(text)
    names = set(re.findall(OPTION, usage))
    for line in rest.split("\n"):
        entry = re.match(r"\s+(-.*?)(?:\s{2,}|$)", line)
        if entry:
            names.update(re.findall(OPTION, entry.group(1)))
    values = {}
    for option, choices in re.findall(r"(--[\w-]+)[ =]([a-z0-9]+(?:\|[a-z0-9]+)+)", usage):
        values.setdefault(option, set()).update(choices.split("|"))
    return sorted(names), {k: sorted(v) for k, v in values.items()}


def completion(commands, helps):
    cases, value_cases = [], []
    for name, _ in commands:
        names, values = options_of(helps[name])
        cases.append(f"        {name}) opts=\"{' '.join(names)}\" ;;")
        for option, choices in sorted(values.items()):
            value_cases.append(f"        {name}:{option}) COMPREPLY=($(compgen -W \"{' '.join(choices)}\""
                               f" -- \"$cur\")); return ;;")
    return f"""# bash completion for trms, written by tools/man_from_help.py from `trms --help`
_trms() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} opts=
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "{' '.join(n for n, _ in commands)} --help --version" -- "$cur"))
        return
    fi
    local i
    for ((i = 2; i < COMP_CWORD; i++)); do
        [ "${{COMP_WORDS[i]}}" = -- ] && {{ COMPREPLY=($(compgen -f -- "$cur")); return; }}
    done
    case "${{COMP_WORDS[1]}}:$prev" in
{chr(10).join(value_cases)}
    esac
    case "${{COMP_WORDS[1]}}" in
{chr(10).join(cases)}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}}
complete -o filenames -F _trms trms
"""


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: man_from_help.py TRMS OUTDIR")
    trms, outdir = sys.argv[1:]
    version = version_of(trms)
    top = help_of(trms)
    commands = commands_of(top)
    helps = {name: help_of(trms, name) for name, _ in commands}
    os.makedirs(os.path.join(outdir, "man1"), exist_ok=True)
    os.makedirs(os.path.join(outdir, "completion"), exist_ok=True)
    everyone = [("trms", 1)] + [(f"trms-{n}", 1) for n, _ in commands]
    intro, rest = top.split("\n\n", 1)
    usage, rest = split_usage(rest)
    with open(os.path.join(outdir, "man1", "trms.1"), "w") as f:
        f.write(page("trms", 1, "record a program once, then analyze that exact execution",
                     version, usage, intro.split(": ", 1)[-1] + "\n\n" + rest,
                     [e for e in everyone if e[0] != "trms"] + [("trms-trace", 5)]))
    for name, summary in commands:
        synopsis, rest = split_usage(helps[name])
        with open(os.path.join(outdir, "man1", f"trms-{name}.1"), "w") as f:
            f.write(page(f"trms-{name}", 1, summary, version, synopsis, rest,
                         [e for e in everyone if e[0] != f"trms-{name}"]))
    with open(os.path.join(outdir, "completion", "trms"), "w") as f:
        f.write(completion(commands, helps))


if __name__ == "__main__":
    main()
