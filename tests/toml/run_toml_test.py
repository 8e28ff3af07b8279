#!/usr/bin/env python3
"""Runs a toml-test decoder over every TOML 1.0.0 case of a toml-test corpus.

Usage: run_toml_test.py DECODER

The corpus, the first that is present:
  1. $TOML_TEST_DIR: a toml-test checkout (with files-toml-1.0.0, which
     then lists the cases) or any folder holding valid/ and invalid/;
  2. the cases Debian ships in golang-github-burntsushi-toml-dev (install.sh
     installs it): every valid/**/*.toml and invalid/**/*.toml there.
With none of them the run fails and says what to install: a conformance
test that finds no cases must not pass.

A valid/ case passes when the decoder exits 0 and prints JSON equal to the
case's .json file under toml-test's rules; an invalid/ case passes when the
decoder exits non-zero without crashing (a signal is a failure: the parser
must refuse, not die). Prints which corpus it ran and how many cases, one
line per failure, and ends with "toml-test: N passed, M failed".
"""

import calendar
import concurrent.futures
import json
import math
import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

DEBIAN_CASES = Path(
    "/usr/share/gocode/src/github.com/BurntSushi/toml/internal/toml-test/tests"
)
# Cases of a corpus without a files-toml-1.0.0 list that are not TOML 1.0.0:
# toml-test's own version table (version.go beside Debian's cases) leaves
# them out of 1.0.0 (\e is a TOML 1.1 escape).
NOT_TOML_1_0 = {"valid/string/escape-esc.toml"}

DT_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?"
    r"([Zz]|[+-]\d{2}:\d{2})$"
)


def instant(s):
    """An offset date-time as an exact number of seconds since the epoch."""
    m = DT_RE.match(s)
    if not m:
        return None
    y, mo, d, h, mi, sec = (int(g) for g in m.groups()[:6])
    t = Fraction(calendar.timegm((y, mo, d, h, mi, sec, 0, 0, 0)))
    if m.group(7):
        frac = m.group(7)[1:]
        t += Fraction(int(frac), 10 ** len(frac))
    off = m.group(8)
    if off not in ("Z", "z"):
        sign = -1 if off[0] == "-" else 1
        t -= sign * (int(off[1:3]) * 3600 + int(off[4:6]) * 60)
    return t


def float_value(s):
    s = s.strip()
    if s in ("nan", "+nan", "-nan"):
        return math.nan
    if s in ("inf", "+inf"):
        return math.inf
    if s == "-inf":
        return -math.inf
    return float(s)


def is_tagged(v):
    return (
        isinstance(v, dict)
        and set(v) == {"type", "value"}
        and isinstance(v["type"], str)
        and isinstance(v["value"], str)
    )


def compare(want, got, path="$"):
    """None when equal, else a description of the first difference."""
    if is_tagged(want):
        if not is_tagged(got):
            return f"{path}: want a {want['type']}, got {json.dumps(got)[:80]}"
        wt, gt = want["type"], got["type"]
        if wt != gt:
            return f"{path}: want type {wt}, got {gt}"
        wv, gv = want["value"], got["value"]
        if wt == "float":
            a, b = float_value(wv), float_value(gv)
            if math.isnan(a) and math.isnan(b):
                return None
            return None if a == b else f"{path}: want float {wv}, got {gv}"
        if wt == "integer":
            return None if int(wv) == int(gv) else f"{path}: want {wv}, got {gv}"
        if wt == "datetime":
            a, b = instant(wv), instant(gv)
            if a is not None and a == b:
                return None
            return f"{path}: want datetime {wv}, got {gv}"
        # strings, booleans and local date/times compare as written
        return None if wv == gv else f"{path}: want {wt} {wv!r}, got {gv!r}"
    if isinstance(want, dict):
        if not isinstance(got, dict) or is_tagged(got):
            return f"{path}: want a table, got {json.dumps(got)[:80]}"
        if set(want) != set(got):
            missing = sorted(set(want) - set(got))
            extra = sorted(set(got) - set(want))
            return f"{path}: keys differ: missing {missing}, extra {extra}"
        for k in want:
            d = compare(want[k], got[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(want, list):
        if not isinstance(got, list):
            return f"{path}: want an array, got {json.dumps(got)[:80]}"
        if len(want) != len(got):
            return f"{path}: want {len(want)} elements, got {len(got)}"
        for i, (a, b) in enumerate(zip(want, got)):
            d = compare(a, b, f"{path}[{i}]")
            if d:
                return d
        return None
    return f"{path}: unexpected JSON {json.dumps(want)[:80]} in the case"


def run_case(decoder, corpus, rel):
    """None on pass, else the reason."""
    toml = corpus / rel
    try:
        with open(toml, "rb") as f:
            p = subprocess.run(
                [decoder], stdin=f, capture_output=True, timeout=30
            )
    except subprocess.TimeoutExpired:
        return "decoder timed out"
    err = p.stderr.decode("utf-8", "replace").strip().splitlines()
    err = err[0] if err else ""
    if p.returncode < 0:
        return f"decoder killed by signal {-p.returncode}"
    if rel.startswith("invalid/"):
        if p.returncode == 0:
            return "accepted invalid input"
        if p.returncode != 1 or not err:
            return f"exit {p.returncode} without a message: {err}"
        return None
    if p.returncode != 0:
        return f"refused valid input: {err}"
    try:
        got = json.loads(p.stdout)
    except ValueError as e:
        return f"decoder printed bad JSON: {e}"
    with open(toml.with_suffix(".json"), encoding="utf-8") as f:
        want = json.load(f)
    return compare(want, got)


def list_cases(folder):
    """The cases of a folder: its files-toml-1.0.0 list when it has one
    (a toml-test checkout also holds TOML 1.1 cases that list leaves out),
    else every .toml under valid/ and invalid/."""
    listing = folder / "files-toml-1.0.0"
    if listing.is_file():
        return [
            line.strip()
            for line in listing.read_text(encoding="utf-8").splitlines()
            if line.strip().endswith(".toml")
        ]
    cases = []
    for kind in ("valid", "invalid"):
        base = folder / kind
        if base.is_dir():
            cases += sorted(
                p.relative_to(folder).as_posix() for p in base.rglob("*.toml")
            )
    return [c for c in cases if c not in NOT_TOML_1_0]


def find_corpus():
    """(folder, name, cases) of the first corpus present, or None."""
    env = os.environ.get("TOML_TEST_DIR")
    if env:
        return Path(env), "TOML_TEST_DIR", list_cases(Path(env))
    if (DEBIAN_CASES / "valid").is_dir():
        return (
            DEBIAN_CASES,
            "toml-test (Debian golang-github-burntsushi-toml-dev)",
            list_cases(DEBIAN_CASES),
        )
    return None


def main():
    if len(sys.argv) != 2:
        print("usage: run_toml_test.py DECODER", file=sys.stderr)
        return 2
    decoder = os.path.abspath(sys.argv[1])
    found = find_corpus()
    if found is None:
        print(
            "toml-test: no corpus found: install Debian's "
            "golang-github-burntsushi-toml-dev (./install.sh --deps), or set "
            "TOML_TEST_DIR to a toml-test checkout",
            file=sys.stderr,
        )
        print("toml-test: 0 passed, 1 failed")
        return 1
    corpus, name, cases = found
    if not cases:
        print(f"toml-test: no .toml cases in {corpus}", file=sys.stderr)
        print("toml-test: 0 passed, 1 failed")
        return 1
    print(f"toml-test: corpus {name} at {corpus}: {len(cases)} cases")
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        results = list(ex.map(lambda c: (c, run_case(decoder, corpus, c)), cases))
    failed = 0
    for case, why in results:
        if why:
            failed += 1
            print(f"FAIL {case}: {why}")
    passed = len(results) - failed
    nvalid = sum(1 for c, _ in results if c.startswith("valid/"))
    print(f"({nvalid} valid and {len(results) - nvalid} invalid cases)")
    print(f"toml-test: {passed} passed, {failed} failed")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
