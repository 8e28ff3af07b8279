#!/usr/bin/env python3
"""Writes seed inputs for the fuzz targets, made from this tree only:

  tests/fuzz/seeds.py OUTDIR

OUTDIR/<target>/ gets one file per seed: the string literals and byte
arrays of the unit tests of that target's parser (tests/unit/test_*.c,
the rows every refusal and acceptance is tested with), the TOML cases kept
in tests/fuzz/corpus/toml for the spec loader too, and valid messages of
the binary protocols built here from their documented form (proto/ctl.h,
proto/handoff.h, proto/toolcall.h, proto/toolpass.h, proto/keeper.h,
and for the resolver DNS queries and proto/tproxy.h's head). tests/run-all and a long run (README.md here) pass
OUTDIR/<target> and tests/fuzz/corpus/<target> to the target as seeds."""
import hashlib
import pathlib
import re
import struct
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
UNIT = ROOT / "tests" / "unit"

# target -> the unit tests whose rows feed it
SOURCES = {
    "toml": ["test_toml.c", "test_spec.c"],
    "spec": ["test_spec.c", "test_policy.c", "test_trust.c"],
    "http": ["test_http.c", "test_filter.c"],
    "socks5": ["test_socks5.c"],
    "esc": ["test_esc.c", "test_term.c"],
    "grammar": ["test_grammar.c", "test_addr.c", "test_keys.c"],
    "initcfg": ["test_initcfg.c"],
    "ctl": ["test_ctl.c"],
    "handoff": [],
    "guard": ["test_guard_paths.c", "test_guard_fs.c",
               "test_guard_sockaddr.c"],
    "toolcall": [],
    "keeper": [],
    "toolconf": ["test_guard_protect.c"],
    "usage": ["test_usage.c"],
    "dnsd": ["test_tproxy.c"],
}

LIT = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
ARRAY = re.compile(r"\{\s*((?:(?:0x[0-9a-fA-F]+|\d+|'.')\s*,\s*){2,}"
                   r"(?:0x[0-9a-fA-F]+|\d+|'.')?)\s*,?\s*\}")


def unescape(s):
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        n = s[i + 1]
        i += 2
        simple = {"n": 10, "r": 13, "t": 9, "\\": 92, '"': 34, "'": 39,
                  "a": 7, "b": 8, "f": 12, "v": 11, "e": 27, "?": 63}
        if n in simple:
            out.append(simple[n])
        elif n == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", s[i:])
            out.append(int(m.group(0), 16))
            i += len(m.group(0))
        elif n in "01234567":
            m = re.match(r"[0-7]{0,2}", s[i:])
            out.append(int(n + m.group(0), 8) & 0xFF)
            i += len(m.group(0))
        else:
            out += n.encode()
    return bytes(out)


def literals(text):
    """Each run of adjacent string literals, joined as C joins them."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    out = []
    pos = 0
    while True:
        m = LIT.search(text, pos)
        if not m:
            break
        parts = [m.group(1)]
        end = m.end()
        while True:
            n = re.match(r'\s*"((?:[^"\\\n]|\\.)*)"', text[end:])
            if not n:
                break
            parts.append(n.group(1))
            end += n.end()
        out.append(unescape("".join(parts)))
        pos = end
    for m in ARRAY.finditer(text):
        b = bytearray()
        for v in re.split(r"\s*,\s*", m.group(1).strip().rstrip(",")):
            v = v.strip()
            if not v:
                continue
            b.append((ord(v[1]) if v.startswith("'") else int(v, 0)) & 0xFF)
        out.append(bytes(b))
    return out


def ctl_seeds():
    out = []
    for op in range(1, 6):
        out.append(b"LNKc\x01" + bytes([op, 0, 0]))
    for op, closed, cause, rule, detail in (
            (5, 0, 0, 0, b""), (1, 1, 1, 0, b""), (3, 1, 2, 0, b""),
            (5, 1, 3, 3, b"169.254.169.254:80"), (0, 0, 0, 0, b"")):
        r = b"LNKr\x01" + bytes([op, 0, closed, cause, rule, 0, 0])
        r += struct.pack("<IqQQ", 3, 1700000000000 if closed else 0,
                         1234, 56789)
        r += detail.ljust(88, b"\0")
        out.append(r)
    return out


def handoff_seeds():
    out = []
    for nfds, last, entries in ((0, 1, []), (1, 1, [(1, 4, 3128)]),
                                (3, 1, [(1, 4, 3128), (2, 4, 1080),
                                        (3, 6, 8080)]),
                                (2, 0, [(3, 4, 5432), (3, 6, 5432)])):
        m = struct.pack("<IBBBB", 0x574B4E4C, 1, last, len(entries), 0)
        for k, fam, port in entries:
            m += struct.pack("<BBH", k, fam, port)
        m += b"\0" * (4 * (32 - len(entries)))
        out.append(bytes([nfds]) + m)
    return out


def toolcall_seeds():
    """Tool calls as lnk-tool sends them (src/proto/toolcall.h), and the
    forms the decoder refuses: cut short, bytes after, another magic; the
    reader's messages to the starter (src/proto/toolpass.h), good and
    bad: fuzz_toolcall feeds every input to both decoders."""
    def call(magic, strs, version=1):
        return (magic + struct.pack("<II", version, len(strs)) +
                b"".join(x + b"\0" for x in strs))
    out = [
        call(b"LNKC", [b"git", b"/home/u/p", b"status"]),
        call(b"LNKC", [b"gh", b"/", b"pr", b"list", b"--json", b"number"]),
        call(b"LNKC", [b"xdg-open", b"/", b"https://example.com/a?b#c"]),
        call(b"LNKC", [b"git", b"/p"] + [b"x" * 10] * 50),
        call(b"LNKC", [b"git", b"/p", b""]),
        call(b"LNKC", [b"git"]),
        call(b"LNKC", [b"git", b"/p"], version=2),
        call(b"LNKB", [b"git", b"/p", b"log"]),
        call(b"LNKC", [b"git", b"/p", b"log"])[:-1],
        call(b"LNKC", [b"git", b"/p", b"log"]) + b"junk",
        b"LNKC" + struct.pack("<II", 1, 0xFFFFFFFF),
    ]
    passed = call(b"LNKB", [b"git", b"/p", b"status"])
    out += [
        b"C\x00" + passed,
        b"C\x1f" + passed,
        b"C\x20" + passed,
        b"S\x03\x02",
        b"S\x03\x09",
        b"G\x04",
        b"G\x04\x00",
        b"D\x00a tool call cut short",
        b"D\x01why",
        b"N\x00" + struct.pack("<Q", 3),
        b"N\x00\x01",
        b"X\x00\x00",
    ]
    return out


def keeper_seeds():
    """The wire's messages to its keeper and the keeper's answers
    (src/proto/keeper.h), each kind in its form and the forms the
    decoder refuses: another magic, an unknown kind, a family, port 0, a
    flag, a rule, a target's length or byte, padding, the size."""
    size = 8 + 255 + 1

    def msg(kind, body=b""):
        m = b"LNKK" + kind + body
        return m + b"\0" * (size - len(m))

    def addr(fam, port, a):
        return bytes([fam]) + struct.pack(">H", port) + a.ljust(16, b"\0")

    v4 = bytes([93, 184, 216, 34])
    v6 = bytes([0x20, 0x01, 0x0d, 0xb8]) + bytes(11) + b"\x01"
    mapped = bytes(10) + b"\xff\xff" + bytes([127, 0, 0, 1])

    def connect(fam, port, a, flags=0, cookie=7):
        return msg(b"C", addr(fam, port, a) + bytes([flags]) + bytes(7) +
                   struct.pack("<Q", cookie))

    def trip(rule, target, n=None):
        n = len(target) if n is None else n
        return msg(b"T", bytes([rule, n, 0]) + target)

    good = [
        msg(b"A", addr(4, 53, bytes([192, 0, 2, 53]))),
        msg(b"A", addr(6, 53, v6)),
        msg(b"L", b"\0\0\0" + struct.pack("<I", 9)),
        msg(b"B", b"\0\0\0" + struct.pack("<I", 12)),
        msg(b"P", b"\0" + struct.pack(">H", 80) + struct.pack("<I", 13)),
        msg(b"P", b"\0" + struct.pack(">H", 1023) + struct.pack("<I", 5)),
        trip(1, b"example.org:443"),
        trip(3, b"169.254.169.254:80"),
        trip(4, b"*.evil.example"),
        trip(2, b"x" * 255),
        connect(4, 443, v4),
        connect(4, 443, v4, flags=1, cookie=2 ** 64 - 1),
        connect(6, 22, v6, flags=1),
        connect(6, 80, mapped),
    ]
    bad = [
        b"LNKT" + msg(b"A", addr(4, 53, v4))[4:],
        msg(b"Z"),
        msg(b"R"),
        msg(b"A", addr(5, 53, v4)),
        msg(b"A", addr(4, 0, v4)),
        msg(b"A", addr(4, 53, v4 + b"\x01")),
        connect(4, 443, v4, flags=2),
        connect(7, 443, v4),
        connect(4, 0, v4),
        msg(b"L", b"\0\0\0" + struct.pack("<I", 2 ** 31)),
        msg(b"B", b"\x01\0\0" + struct.pack("<I", 3)),
        msg(b"P", b"\0\0\0" + struct.pack("<I", 13)),
        msg(b"P", b"\x04" + struct.pack(">H", 22) + struct.pack("<I", 13)),
        trip(0, b"a:1"),
        trip(5, b"a:1"),
        trip(1, b"a:1", n=2),
        trip(1, b"a\0b"),
        trip(1, b"a\x1bb"),
        trip(1, b"\xc3\xa9:1"),
        msg(b"A", addr(4, 53, v4))[:-1],
        msg(b"A", addr(4, 53, v4)) + b"\0",
    ]

    def answer(kind, outcome=0, err=0, cookie=0):
        return (b"LNKA" + kind + bytes([outcome, 0, 0]) +
                struct.pack("<IQ", err, cookie))

    answers = [
        answer(b"K"), answer(b"N"),
        answer(b"R", 0, 0, 1), answer(b"R", 1, 111, 2),
        answer(b"R", 2, 13, 3), answer(b"R", 3, 110, 4),
        answer(b"R", 4, 11, 5),
        answer(b"R", 5, 0, 6), answer(b"R", 0, 1, 7),
        answer(b"R", 1, 4096, 8), answer(b"C"),
        b"LNKK" + answer(b"K")[4:],
    ]
    return good + bad + answers


def dnsd_seeds():
    """DNS queries as a program's resolver sends them to the sandbox's
    127.0.0.1:53 (src/wire/dnsd.h), the forms dnsd_parse refuses (a
    pointer in the question, two questions, an answer, another opcode,
    cut short), and transparent heads (src/proto/tproxy.h), good and
    bad: fuzz_dnsd feeds every input to both."""
    def name(n):
        out = b""
        for label in n.split(b".") if n else []:
            out += bytes([len(label)]) + label
        return out + b"\0"

    def query(n, qtype=1, qid=0x1234, flags=0x0100, qd=1, an=0, ar=0,
              tail=b""):
        head = struct.pack(">HHHHHH", qid, flags, qd, an, 0, ar)
        return head + name(n) + struct.pack(">HH", qtype, 1) + tail

    opt = b"\0" + struct.pack(">HHIH", 41, 1232, 0, 0)
    out = [
        query(b"example.org"),
        query(b"example.org", qtype=28),
        query(b"www.example.org", qtype=15),
        query(b"example.org", qtype=255),
        query(b"example.org", ar=1, tail=opt),
        query(b""),
        query(b"localhost"),
        query(b"metadata.google.internal"),
        query(b"169.254.169.254"),
        query(b"a" * 63 + b"." + b"b" * 63 + b"." + b"c" * 63 + b"." +
              b"d" * 61),
        query(b"Example.ORG"),
        query(b"example.org", flags=0x8180),
        query(b"example.org", flags=0x2800),
        query(b"example.org", qd=2),
        query(b"example.org", an=1),
        query(b"example.org")[:20],
        struct.pack(">HHHHHH", 1, 0x0100, 1, 0, 0, 0) + b"\xc0\x0c" +
        struct.pack(">HH", 1, 1),
        struct.pack(">HHHHHH", 1, 0x0100, 1, 0, 0, 0) + b"\x40" +
        b"x" * 64 + b"\0" + struct.pack(">HH", 1, 1),
    ]
    for fam, port, addr in ((4, 443, bytes([93, 184, 216, 34])),
                            (6, 22, bytes(15) + b"\x01"),
                            (4, 0, bytes(4)), (5, 80, bytes(4))):
        out.append(b"LNKT\x01" + bytes([fam]) + struct.pack(">H", port) +
                   addr.ljust(16, b"\0"))
    out.append(b"LNKT\x02\x04" + struct.pack(">H", 80) + bytes(16))
    out.append(b"LNKT\x01\x04\x00")
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tests/fuzz/seeds.py OUTDIR")
    outdir = pathlib.Path(sys.argv[1])
    for target, files in SOURCES.items():
        seeds = []
        for f in files:
            p = UNIT / f
            if p.exists():
                seeds += literals(p.read_text(errors="replace"))
        if target == "grammar":
            # The first byte picks the parser (fuzz_grammar.c).
            seeds = [bytes([k]) + s for s in seeds for k in range(7)]
        if target == "guard":
            # The first byte picks the parser (fuzz_guard.c).
            seeds = [bytes([k]) + s for s in seeds for k in range(4)]
        if target == "usage":
            # The first two bytes choose where the answer is split
            # (fuzz_usage.c): each row whole and split in two places.
            seeds = [bytes(k) + s for s in seeds
                     for k in ((0, 0), (7, 3), (255, 255))]
        if target == "spec":
            corpus = ROOT / "tests" / "fuzz" / "corpus" / "toml"
            if corpus.is_dir():
                seeds += [p.read_bytes() for p in sorted(corpus.iterdir())
                          if p.is_file()]
        if target == "ctl":
            seeds += ctl_seeds()
        if target == "handoff":
            seeds += handoff_seeds()
        if target == "toolcall":
            seeds += toolcall_seeds()
        if target == "keeper":
            seeds += keeper_seeds()
        if target == "dnsd":
            seeds += dnsd_seeds()
        d = outdir / target
        d.mkdir(parents=True, exist_ok=True)
        n = 0
        for s in seeds:
            if not s:
                continue
            (d / hashlib.sha1(s).hexdigest()).write_bytes(s)
            n += 1
        print(f"{target}: {n} seeds")


if __name__ == "__main__":
    main()
