#!/usr/bin/env python3
"""Runs a toml-test decoder over every TOML 1.0.0 case.

Usage: run_toml_test.py DECODER

The cases live in <project root>/../shared/toml-test (TOML_TEST_DIR
overrides); files-toml-1.0.0 lists them. A valid/ case passes when the
decoder exits 0 and prints JSON equal to the case's .json file under the
README's rules; an invalid/ case passes when the decoder exits non-zero
without crashing (a signal is a failure: the parser must refuse, not die).
Prints one line per failure and ends with "toml-test: N passed, M failed".
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

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(os.environ.get("TOML_TEST_DIR", ROOT.parent / "shared" / "toml-test"))

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


def run_case(decoder, rel):
    """None on pass, else the reason."""
    toml = CASES / rel
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


def main():
    if len(sys.argv) != 2:
        print("usage: run_toml_test.py DECODER", file=sys.stderr)
        return 2
    decoder = os.path.abspath(sys.argv[1])
    listing = CASES / "files-toml-1.0.0"
    if not listing.is_file():
        print(f"toml-test: no case list at {listing}", file=sys.stderr)
        return 1
    cases = [
        line.strip()
        for line in listing.read_text(encoding="utf-8").splitlines()
        if line.strip().endswith(".toml")
    ]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        results = list(ex.map(lambda c: (c, run_case(decoder, c)), cases))
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
