#!/usr/bin/env python3
"""A recording from elsewhere is untrusted input (issue 19):

  - control characters in its meta reach no terminal raw (`info`);
  - a damaged store is named as such, not as "Cannot allocate memory";
  - paths inside it are names, not orders: a FIFO, a device or a symbolic
    link where its meta, maps, trace, routine names or store files belong is
    never opened (no command hangs, none reads /dev/zero), and nothing is
    written through a link out of the recording;
  - `trms unpack` refuses a damaged archive (every record's checksum, a
    cut, a flipped byte anywhere), an archive naming a file outside the
    recording or the result store's files, and one whose files do not read
    as a recording; each in one line, leaving nothing behind;
  - `trms pack` refuses a damaged recording, packs a recording whose store
    is damaged without its results (saying so), and round-trips from
    standard input.

Environment: TRMS (the binary)."""
import json
import os
import pty
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

TRMS = os.environ["TRMS"]
SLIDES = """thread 1
call f
read 0x100 4
write 0x104 4
cost 3
call g
read 0x100 4
read 0x104 4
read 0x108 4
write 0x10c 4
cost 10
return
read 0x10c 4
cost 2
return
thread 2
call 0x401136
read 0x100 4
return
"""


def fail(message):
    sys.exit("FAIL: " + message)


def run(*args, stdin=None):
    try:
        return subprocess.run([TRMS] + list(args), capture_output=True, timeout=20, input=stdin)
    except subprocess.TimeoutExpired:
        fail("trms %s hangs" % " ".join(args))


def ok(*args):
    r = run(*args)
    if r.returncode != 0:
        fail("trms %s: %s" % (" ".join(args), r.stderr.decode()))
    return r


def refused(text, *args):
    """The command fails with one line on stderr containing TEXT."""
    r = run(*args)
    err = r.stderr.decode()
    if r.returncode != 1 or len(err.splitlines()) != 1 or text not in err:
        fail("trms %s: expected one line with %r and exit 1, got %d: %s" %
             (" ".join(args), text, r.returncode, err))
    return r


def digest(path):
    return open(path, "rb").read()


def paths_are_names(tmp, good):
    """Each file of a recording replaced by a FIFO, a device, a link."""
    outside = os.path.join(tmp, "outside.txt")
    open(outside, "w").write("not the recording's\n")
    cases = {
        "meta": ["info", "report", "analyze", "pack"],
        "events.trms": ["analyze", "export", "pack"],
        "symbols": ["report", "pack"],
        "maps": ["pack"],
    }
    for name, commands in cases.items():
        for kind in ("fifo", "device", "link"):
            rec = os.path.join(tmp, "%s-%s.rec" % (name.replace(".", "_"), kind))
            shutil.copytree(good, rec, symlinks=True)
            path = os.path.join(rec, name)
            if os.path.exists(path):
                os.unlink(path)
            if kind == "fifo":
                os.mkfifo(path)
            elif kind == "device":
                os.symlink("/dev/zero", path)  # a device, through a link
            else:
                os.symlink(outside, path)
            for command in commands:
                args = [command, rec] + (["-o", rec + ".pack"] if command == "pack" else [])
                r = run(*args)
                err = r.stderr.decode()
                if r.returncode != 1 or len(err.splitlines()) != 1 or name not in err:
                    fail("%s as a %s: trms %s: exit %d: %s" % (name, kind, command, r.returncode,
                                                                err))
                if kind == "fifo" and "FIFO" not in err:
                    fail("%s as a FIFO: trms %s does not say so: %s" % (name, command, err))
            # The maps only name a report's objects: a report goes on without.
            if name == "maps":
                ok("report", rec)

    # The store's files: a link to a file outside is not followed, read or
    # written; analyze sets the store aside and builds a new one.
    for victim in ("data.mdb", "lock.mdb"):
        rec = os.path.join(tmp, "store-%s.rec" % victim.replace(".", "_"))
        shutil.copytree(good, rec, symlinks=True)
        path = os.path.join(rec, "results", victim)
        os.unlink(path)
        os.symlink(outside, path)
        before = digest(outside)
        refused("the result store is damaged (%s is a symbolic link)" % victim, "report", rec)
        r = ok("analyze", rec)
        if b"set aside as" not in r.stderr:
            fail("analyze did not set a linked store aside: %s" % r.stderr.decode())
        ok("report", rec)
        if digest(outside) != before or not os.path.islink(
                os.path.join(rec, "results.damaged", victim)):
            fail("the file a store's link names was touched")
    # The store directory itself a link out of the recording: refused.
    rec = os.path.join(tmp, "store-dir.rec")
    shutil.copytree(good, rec, symlinks=True)
    elsewhere = os.path.join(tmp, "elsewhere-store")
    shutil.move(os.path.join(rec, "results"), elsewhere)
    os.symlink(elsewhere, os.path.join(rec, "results"))
    before = digest(os.path.join(elsewhere, "data.mdb"))
    refused("not a result store (a symbolic link)", "analyze", rec)
    refused("not a result store (a symbolic link)", "report", rec)
    if digest(os.path.join(elsewhere, "data.mdb")) != before:
        fail("a store outside the recording was written")


def wrong_cause(tmp, good):
    """A store whose meta pages say it has 2^40 pages made LMDB map that
    much and fail with "Cannot allocate memory": the message names the
    damage instead."""
    rec = os.path.join(tmp, "huge.rec")
    shutil.copytree(good, rec)
    with open(os.path.join(rec, "results", "data.mdb"), "r+b") as f:
        for meta in (0, 1):
            f.seek(meta * 4096 + 16 + 120)  # the meta's last page number
            f.write(struct.pack("<Q", 1 << 40))
    for command in ("report", "info"):
        r = refused("the result store is damaged (meta page 0 says the file has 1099511627777 "
                    "pages", command, rec)
        if b"allocate" in r.stderr:
            fail("the wrong cause is named: %s" % r.stderr.decode())


def varint(v):
    out = b""
    while True:
        b, v = v & 0x7F, v >> 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def archive(records, fmt=1):
    """A pack archive of [(kind, payload)], checksummed as trms does."""
    data = b"TRMSPACK" + varint(fmt)
    for kind, payload in records:
        body = kind + payload
        data += body + struct.pack("<I", zlib.crc32(body))
    end = b"E" + varint(len(records)) + varint(len(data))
    data += end
    return data + struct.pack("<I", zlib.crc32(data))


def file_record(name, content):
    name = name.encode()
    return (b"F", varint(len(name)) + name + varint(len(content)) + content)


def process_record(name):
    name = name.encode()
    return (b"P", varint(len(name)) + name)


def unpack_refuses(tmp, data, text, label):
    path = os.path.join(tmp, "crafted.trmspack")
    open(path, "wb").write(data)
    target = os.path.join(tmp, "crafted.rec")
    r = run("unpack", path, "-o", target)
    err = r.stderr.decode()
    if r.returncode != 1 or len(err.splitlines()) != 1 or text not in err:
        fail("unpack of %s: expected one line with %r, got exit %d: %s" %
             (label, text, r.returncode, err))
    leftovers = [n for n in os.listdir(tmp) if "crafted.rec" in n]
    if leftovers:
        fail("unpack of %s left %s behind" % (label, leftovers))


def archives(tmp, good):
    pack = os.path.join(tmp, "good.trmspack")
    r = ok("pack", good, "-o", pack)
    data = open(pack, "rb").read()
    ok("unpack", pack, "-o", os.path.join(tmp, "whole.rec"))
    expected = ok("report", good, "--format", "json").stdout.replace(good.encode(), b"REC")
    got = ok("report", os.path.join(tmp, "whole.rec"), "--format", "json").stdout
    if got.replace(os.path.join(tmp, "whole.rec").encode(), b"REC") != expected:
        fail("the unpacked report differs")
    # From standard input.
    r = run("unpack", "-", "-o", os.path.join(tmp, "stdin.rec"), stdin=data)
    if r.returncode != 0:
        fail("unpack from stdin: " + r.stderr.decode())
    # Onto an existing path: refused, the path untouched.
    refused("already exists", "unpack", pack, "-o", os.path.join(tmp, "whole.rec"))

    # Every byte of the archive changed, and every cut: refused in one
    # line, nothing left behind (the archive is small: all of them).
    for at in range(len(data)):
        bad = bytearray(data)
        bad[at] ^= 1 << (at % 8)
        unpack_refuses(tmp, bytes(bad), "crafted.trmspack", "a byte changed at %d" % at)
    for cut in range(0, len(data), max(1, len(data) // 200)):
        unpack_refuses(tmp, data[:cut], "crafted.trmspack", "a cut at %d" % cut)

    meta = open(os.path.join(good, "meta"), "rb").read()
    events = open(os.path.join(good, "events.trms"), "rb").read()
    base = [file_record("meta", meta), file_record("events.trms", events)]
    for name in ("../escape", "/etc/passwd", "rr/../../escape", "a/b/c", "results/data.mdb",
                 "results.damaged/data.mdb", ".hidden", "new\nline", "rr/", ".",
                 "processes/2-12"):
        unpack_refuses(tmp, archive(base + [file_record(name, b"x")]),
                       "names a file a recording does not hold", repr(name))
    unpack_refuses(tmp, archive(base + [file_record("meta", meta)]), "holds it twice",
                   "a file twice")
    unpack_refuses(tmp, archive([file_record("meta", b"not a meta\n")] + base[1:]),
                   "the recording it holds is damaged", "a foreign meta")
    unpack_refuses(tmp, archive(base[:1] + [file_record("events.trms", events[:-3])]),
                   "the recording it holds is damaged", "a cut trace with good checksums")
    unpack_refuses(tmp, archive(base + [(b"R", varint(5) + b"cell=" + varint(0) + b"\x00" +
                                         varint(1) + b"\x03")]),
                   "is not a result trms stores", "a malformed result key")
    unpack_refuses(tmp, archive(base + [(b"R", varint(14) + b"cell=4/line=64" + varint(0) +
                                         b"\x01" + varint(3) + b"\x03\x04\x40")]),
                   "stored result is corrupt", "a result without its checksum")
    # A process tree's archive (format 2): a 'P' record names a process's
    # directory, processes/N-PID and nothing else; none in format 1.
    for name in ("processes/../escape", "processes/2-12/x", "other/2-12", "processes/2-",
                 "processes/x-1", "processes/02-1", "processes/-1", "processes/2-1-1",
                 "../escape", "processes/2-12/../../../escape", "processes/99999999999-1"):
        unpack_refuses(tmp, archive(base + [process_record(name)] + base, 2),
                       "names a process directory a recording does not hold", repr(name))
    unpack_refuses(tmp, archive(base + [process_record("processes/2-12")] + base, 1),
                   "is of no known kind", "a process in format 1")
    unpack_refuses(tmp, archive(base + [process_record("processes/2-12")] + base +
                                [process_record("processes/2-12")] + base, 2),
                   "holds it twice", "a process twice")
    unpack_refuses(tmp, archive(base + [process_record("processes/2-12"),
                                        file_record("processes/3-1/meta", meta)] + base, 2),
                   "names a file a recording does not hold", "a process's file in another")
    unpack_refuses(tmp, archive(base + [process_record("processes/2-12"), base[1]], 2),
                   "the recording it holds is damaged", "a process without its meta")
    unpack_refuses(tmp, archive(base + [process_record("processes/2-12")] + base, 2),
                   "the tree it holds does not hold together", "a process the meta does not name")
    if os.path.exists(os.path.join(tmp, "escape")) or os.path.exists("/etc/passwd.x"):
        fail("an archive wrote outside the recording")

    # Packing: a damaged recording is not packed; one whose store is
    # damaged is packed without results, which it says.
    damaged = os.path.join(tmp, "damaged-trace.rec")
    shutil.copytree(good, damaged)
    with open(os.path.join(damaged, "events.trms"), "r+b") as f:
        f.seek(40)
        b = f.read(1)
        f.seek(40)
        f.write(bytes([b[0] ^ 0x55]))
    refused("corrupt recording", "pack", damaged, "-o", os.path.join(tmp, "no.trmspack"))
    if os.path.exists(os.path.join(tmp, "no.trmspack")):
        fail("a refused pack left its archive")
    store = os.path.join(tmp, "damaged-store.rec")
    shutil.copytree(good, store)
    with open(os.path.join(store, "results", "data.mdb"), "r+b") as f:
        f.seek(16)  # meta page 0's magic number
        f.write(b"\0\0\0\0")
    r = ok("pack", store, "-o", os.path.join(tmp, "noresults.trmspack"))
    if b"the result store is damaged" not in r.stderr or b"0 results" not in r.stderr:
        fail("pack of a damaged store: %s" % r.stderr.decode())
    ok("unpack", os.path.join(tmp, "noresults.trmspack"), "-o", os.path.join(tmp, "nr.rec"))
    refused("no analysis stored yet", "report", os.path.join(tmp, "nr.rec"))
    ok("analyze", os.path.join(tmp, "nr.rec"))


def archive_of(rec):
    """An archive of REC's files as trms pack writes them (results left
    out), whatever they hold: crafted, with every checksum right."""
    records = []
    for name in sorted(os.listdir(rec)):
        path = os.path.join(rec, name)
        if os.path.isfile(path) and not os.path.islink(path):
            records.append(file_record(name, open(path, "rb").read()))
    records.sort(key=lambda r: r[1][1:5] != b"meta")  # the meta first
    return archive(records)


def one_notion(tmp, good):
    """verify, pack, unpack and info share one notion of a valid recording:
    what verify refuses, pack refuses and unpack refuses to make, and what
    unpack makes, verify accepts (issue 27)."""
    meta = open(os.path.join(good, "meta")).read()
    crafted = {
        "events off by one": ("meta", meta.replace("\nevents 19\n", "\nevents 20\n")),
        "threads 2^32": ("meta", meta.replace("\nthreads 2\n", "\nthreads 4294967296\n")),
        "threads fewer than the trace": ("meta", meta.replace("\nthreads 2\n", "\nthreads 1\n")),
        "events not a number": ("meta", meta.replace("\nevents 19\n", "\nevents 19x\n")),
        "routines negative": ("meta", meta.replace("\nroutines 3\n", "\nroutines -3\n")),
        "no trace": ("events.trms", None),
        "rr without its trace": ("meta", meta.replace("engine import", "engine rr")),
        "damaged maps": ("maps", "not a mapping line\n"),
        "damaged names": ("symbols", "TRMSSYMS garbage"),
        "good maps": ("maps", "400000 401000 0 r-x - /bin/true\n"),
        "as it was": ("meta", meta),
    }
    for label, (name, content) in crafted.items():
        if name == "meta" and content == meta and label != "as it was":
            fail("the crafted meta of %r changed nothing" % label)
        rec = os.path.join(tmp, "notion.rec")
        shutil.rmtree(rec, ignore_errors=True)
        shutil.copytree(good, rec, symlinks=True)
        path = os.path.join(rec, name)
        if content is None:
            os.unlink(path)
        else:
            open(path, "w").write(content)
        if label == "rr without its trace":
            os.unlink(os.path.join(rec, "events.trms"))
        verified = run("verify", rec).returncode
        packed = run("pack", rec, "-o", os.path.join(tmp, "notion.trmspack")).returncode
        if packed != verified:
            fail("%s: verify exits %d, pack %d" % (label, verified, packed))
        if (verified == 0) != (label in ("good maps", "as it was")):
            fail("%s: verify exits %d" % (label, verified))
        info = json.loads(ok("info", rec, "--format", "json").stdout)
        # (but for the trace's threads, which only a read of every block counts)
        if verified != 0 and info["problem"] is None and info["trace_check"] == "verified" and \
                "threads fewer" not in label:
            fail("%s: info sees no problem where verify refuses" % label)
        crafted_pack = os.path.join(tmp, "notion-crafted.trmspack")
        open(crafted_pack, "wb").write(archive_of(rec))
        out = os.path.join(tmp, "notion-unpacked.rec")
        shutil.rmtree(out, ignore_errors=True)
        unpacked = run("unpack", crafted_pack, "-o", out).returncode
        if unpacked != verified:
            fail("%s: verify exits %d, unpack of its archive %d" % (label, verified, unpacked))
        if unpacked == 0 and run("verify", out).returncode != 0:
            fail("%s: unpack made a recording verify refuses" % label)
        if unpacked != 0 and os.path.exists(out):
            fail("%s: a refused unpack left %s" % (label, out))
    # An archive of the meta alone makes no recording.
    unpack_refuses(tmp, archive([file_record("meta", meta.encode())]),
                   "the event trace (events.trms) is missing", "the meta alone")


def trace_file(payload, events):
    """An event trace of one uncompressed block of PAYLOAD (EVENTS records),
    every checksum right (trace/event_codec.h)."""
    block = struct.pack("<IIII", 1, len(payload), events, zlib.crc32(payload)) + payload
    end = varint(events) + varint(1) + varint(0) + varint(3)
    return b"TRMSEVTS" + struct.pack("<II", 3, 0) + block + \
        struct.pack("<IIII", 2, len(end), 0, zlib.crc32(end)) + end


def smaller_items(tmp, good):
    """Messages name what the user knows: an archive cut short says where
    it ends; unpack never names its staging directory; analyze names the
    recording whatever failed (issue 27)."""
    pack = os.path.join(tmp, "small.trmspack")
    ok("pack", good, "-o", pack)
    data = open(pack, "rb").read()
    for cut in (20, len(data) // 2, len(data) - 9):
        open(pack, "wb").write(data[:cut])
        r = run("unpack", pack, "-o", os.path.join(tmp, "small.rec"))
        err = r.stderr.decode()
        if "cut short: it ends at byte %d," % cut not in err:
            fail("an archive cut at byte %d: %s" % (cut, err))
    # A recording that does not hold together: its archive is refused
    # naming the recording to be made, not .staging-XXXXXX.
    rec = os.path.join(tmp, "crafted-trace.rec")
    shutil.copytree(good, rec)
    meta = open(os.path.join(rec, "meta")).read()
    events = re.search(r"\nevents (\d+)\n", meta).group(1)
    open(os.path.join(rec, "meta"), "w").write(meta.replace("\nevents %s\n" % events,
                                                            "\nevents 7\n"))
    open(pack, "wb").write(archive_of(rec))
    target = os.path.join(tmp, "named.rec")
    r = run("unpack", pack, "-o", target)
    err = r.stderr.decode()
    if r.returncode != 1 or ".staging-" in err or "named.rec" not in err:
        fail("unpack of a damaged recording: %s" % err)
    # A return no call opened, in a trace whose checksums hold: analyze
    # says which recording.
    open(os.path.join(rec, "meta"), "w").write(meta.replace("\nevents %s\n" % events,
                                                            "\nevents 2\n"))
    shutil.rmtree(os.path.join(rec, "results"))
    open(os.path.join(rec, "events.trms"), "wb").write(trace_file(b"\x01\x01\x03", 2))
    r = refused("return with no pending call", "analyze", rec)
    if rec not in r.stderr.decode():
        fail("analyze does not name the recording: %s" % r.stderr.decode())


# What a hostile recording may put in names and values: an OSC that
# retitles the terminal (ESC ] ... BEL), a CSI that clears it, the 8-bit
# CSI alone (0x9b) and as UTF-8 (U+009B), DEL, and a byte of no UTF-8.
HOSTILE = b"\x1b]0;owned\x07clear\x1b[2J\x9b31m\xc2\x9b1m\x7f\xff"


def optional(data):
    return varint(len(data) + 1) + data


def symbols_file(entries):
    """A routine names file (store/symbol_file.h, format 1, entries of
    codec version 2): [(addr, name, file, line, module)]."""
    body = b"TRMSSYMS" + varint(1) + varint(len(entries))
    for addr, name, file, line, module in entries:
        body += varint(addr) + varint(2) + optional(name) + optional(file) + varint(line) + \
            varint(0) + optional(module) + varint(0x1136)
    return body + struct.pack("<I", zlib.crc32(body))


def terminal_output(args):
    """Runs trms with its standard output and error on a terminal (a pty):
    what the terminal got."""
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([TRMS] + list(args), stdin=subprocess.DEVNULL, stdout=slave,
                             stderr=slave)
    finally:
        os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    os.close(master)
    p.wait(timeout=60)
    return p.returncode, got


def raw_bytes(data):
    """The bytes of DATA a terminal would act on, or None: controls but
    newline, carriage return (the pty's) and tab, DEL, C1, no UTF-8."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return data[max(0, e.start - 20):e.end + 20]
    for i, ch in enumerate(text):
        if (ord(ch) < 0x20 and ch not in "\r\n\t") or 0x7f <= ord(ch) <= 0x9f:
            return text[max(0, i - 20):i + 20].encode()
    return None


def escapes(tmp):
    """Nothing from a recording reaches a terminal raw: routine, file and
    module names and meta values, in every command and format that goes to
    a terminal (JSON by its own escapes); a data file written with -o keeps
    its bytes (export then import is exact) (issue 27)."""
    trace = os.path.join(tmp, "hostile.txt")
    open(trace, "wb").write(b"thread 1\ncall name" + HOSTILE + b"\nread 0x100 4\ncost 3\n"
                            b"call 0x401136\nread 0x104 4\ncost 2\nreturn\nreturn\n")
    rec = os.path.join(tmp, "hostile.rec")
    ok("import", trace, "-o", rec)
    ok("analyze", rec)
    ok("analyze", rec, "--contexts")
    open(os.path.join(rec, "symbols"), "wb").write(
        symbols_file([(0x401136, b"sym" + HOSTILE, b"file" + HOSTILE + b".c", 7,
                       b"/lib/mod" + HOSTILE + b".so")]))
    open(os.path.join(rec, "maps"), "wb").write(b"400000 402000 0 r-x - /bin/evil" + HOSTILE +
                                                b"\n")
    with open(os.path.join(rec, "meta"), "ab") as f:
        f.write(b"note " + HOSTILE + b"\n")
    other = os.path.join(tmp, "hostile2.rec")
    shutil.copytree(rec, other)
    for args in (["report", rec], ["report", rec, "--format", "csv"],
                 ["report", rec, "--format", "json"], ["report", rec, "--top", "0"],
                 ["report", rec, "--routine", "*"], ["report", rec, "--contexts"],
                 ["export", rec], ["info", rec], ["info", rec, "--format", "json"],
                 ["verify", rec], ["diff", rec, other, "--all"],
                 ["diff", rec, other, "--all", "--format", "json"],
                 ["gc", "--dry-run", rec]):
        status, got = terminal_output(args)
        if status not in (0, 1):
            fail("trms %s: exit %d: %r" % (" ".join(args), status, got[-300:]))
        bad = raw_bytes(got)
        if bad is not None:
            fail("trms %s puts raw bytes on a terminal: %r" % (" ".join(args), bad))
        if b"\\x1b]0;owned\\x07" not in got and args[-1] != "json" and args[0] not in ("gc", "verify"):
            fail("trms %s does not show the name escaped: %r" % (" ".join(args), got[-500:]))
    # Errors name what they name escaped too.
    damaged = os.path.join(tmp, "hostile3.rec")
    shutil.copytree(rec, damaged)
    meta = open(os.path.join(damaged, "meta"), "rb").read()
    open(os.path.join(damaged, "meta"), "wb").write(re.sub(rb"\nevents \d+\n",
                                                           b"\nevents 9" + HOSTILE + b"\n", meta))
    for args in (["verify", damaged], ["pack", damaged, "-o", os.path.join(tmp, "h.pack")]):
        status, got = terminal_output(args)
        if status != 1 or raw_bytes(got) is not None:
            fail("trms %s: %d %r" % (" ".join(args), status, got))
    # The text report written to a file is text for a terminal: escaped.
    out = os.path.join(tmp, "report.txt")
    ok("report", rec, "-o", out)
    if raw_bytes(open(out, "rb").read()) is not None:
        fail("report -o writes raw bytes")
    # The event trace written to a file is data: exact, and imports back.
    out = os.path.join(tmp, "events.txt")
    ok("export", rec, "-o", out)
    if b"name" + HOSTILE not in open(out, "rb").read():
        fail("export -o does not keep the names' bytes")
    back = os.path.join(tmp, "back.rec")
    ok("import", out, "-o", back)
    ok("analyze", back)
    json_a = ok("report", rec, "--format", "json").stdout
    json_b = ok("report", back, "--format", "json").stdout
    if raw_bytes(json_a) is not None:
        fail("JSON holds raw bytes")
    if b"\\u001b]0;owned\\u0007" not in json_a or b"\\u009b" not in json_a:
        fail("JSON does not escape the name's controls: %r" % json_a[:2000])
    # (the trace's own names: the symbols file is not exported)
    names = [sorted(r["name"] for r in json.loads(j)["routines"] if r["name"].startswith("name"))
             for j in (json_a, json_b)]
    if names[0] != names[1] or len(names[0]) != 1:
        fail("export then import changed the names: %r" % names)


def main():
    tmp = tempfile.mkdtemp(prefix="trms-untrusted-")
    try:
        trace = os.path.join(tmp, "slides.txt")
        open(trace, "w").write(SLIDES)
        good = os.path.join(tmp, "good.rec")
        ok("import", trace, "-o", good)
        ok("analyze", good)
        ok("analyze", good, "--contexts")
        sym = os.path.join(good, "symbols")
        body = b"TRMSSYMS" + varint(1) + varint(1) + varint(0x401136) + varint(1) + varint(4) + \
            b"name" + varint(0) + varint(0)
        open(sym, "wb").write(body + struct.pack("<I", zlib.crc32(body)))
        if b"name" not in ok("report", good).stdout:
            fail("the symbols file does not name 0x401136")
        # Control characters a meta holds reach no terminal raw.
        shown = os.path.join(tmp, "escape.rec")
        shutil.copytree(good, shown)
        with open(os.path.join(shown, "meta"), "ab") as f:
            f.write(b"note \x1b]0;owned\x07 and \x1b[2J\n")
        for fmt in ("text", "json"):
            out = ok("info", shown, "--format", fmt).stdout
            if b"\x1b" in out or b"\x07" in out:
                fail("info --format %s prints a meta's control characters raw" % fmt)
        if b"\\x1b]0;owned\\x07" not in ok("info", shown).stdout:
            fail("info does not show the control characters escaped")
        paths_are_names(tmp, good)
        one_notion(tmp, good)
        smaller_items(tmp, good)
        escapes(tmp)
        wrong_cause(tmp, good)
        archives(tmp, good)
        print("untrusted paths, archives and packs: all refused or carried as they should")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
