"""Helpers shared by the attack tests, tests/e2e/test_inv1_reads.py to
test_inv9_confined.py: one file per security invariant of docs/design.md,
one block per promise of it.

Each attack test PASSES when the sandbox holds and FAILS when the attack
works, so it guards against regressions. A hole found and not yet fixed is
marked `xfail(strict=True, reason="HOLE: ...")`: the suite stays green
while it is open and turns red the day it is fixed, so the mark gets
removed. The tests run as an unprivileged user and as root
(tests/run-all). Network tests use only loopback and the test hosts of
tests/e2e/nethosts.sh (198.18.0.0/15 behind a blackhole route).

A helper used by one file lives in that file; one used by two or more
lives here (the fixture `outside_tool` in conftest.py).
"""

import os
import pathlib
import subprocess
import textwrap
import unicodedata

import pytest

from conftest import IS_ROOT, on_lnk_path


PY = "/usr/bin/python3"


def py(lnk, code, *grants, timeout=60, **kw):
    """Runs python CODE in a sandbox with GRANTS; returns the CompletedProcess."""
    return lnk.run(*grants, "--", PY, "-c", textwrap.dedent(code),
                   timeout=timeout, **kw)


def sh(lnk, script, *grants, timeout=60, **kw):
    """Runs sh SCRIPT in a sandbox with GRANTS; returns the CompletedProcess."""
    return lnk.run(*grants, "--", "/bin/sh", "-c", script, timeout=timeout,
                   **kw)


def nethosts():
    """The test hosts' settings (tests/e2e/nethosts.sh); skips without them."""
    env = pathlib.Path("/run/lnk-nethosts.env")
    if not env.exists():
        pytest.skip("no test hosts: run tests/e2e/nethosts.sh up as root")
    f = dict(line.partition("=")[::2] for line in env.read_text().split())
    return f


PROXY_PRELUDE = """
import socket, struct
def raw(port, data, wait=3):
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(wait)
    out = b""
    try:
        s.sendall(data)
    except OSError:
        pass  # refused before it was all sent: read what it said
    try:
        while True:
            b = s.recv(65536)
            if not b: break
            out += b
    except OSError:
        pass
    s.close(); return out
def socks(atyp, addr, port):
    s = socket.create_connection(("127.0.0.1", 1080)); s.settimeout(3)
    s.sendall(b"\\x05\\x01\\x00"); s.recv(2)
    s.sendall(b"\\x05\\x01\\x00" + bytes([atyp]) + addr + struct.pack(">H", port))
    try:
        r = s.recv(10)
        if r[:2] == b"\\x05\\x00":
            s.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n"); r += s.recv(100)
    except OSError:
        r = b""
    s.close(); return r
"""


def assert_clean(out, what, allow_cr=False):
    """out (bytes) holds valid UTF-8 and no character a terminal acts on or
    hides, other than newline and tab."""
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AssertionError(f"{what}: not UTF-8 ({e}): {out!r}")
    for ch in text:
        c = ord(ch)
        if ch in "\n\t" or (allow_cr and ch == "\r"):
            continue
        bad = (unicodedata.category(ch) in ("Cc", "Cf")
               or 0xe0000 <= c <= 0xe007f or ch in "\u2028\u2029")
        assert not bad, f"{what}: raw U+{c:04X} reaches the terminal: {out!r}"


def plant(lnk, work, code):
    """The program writes into its folder (the attack's first step)."""
    cp = py(lnk, code, "--write", str(work))
    assert cp.returncode == 0, cp.stderr


RAW_CALL = """
import array, os, socket, struct, sys
sys.stdout.reconfigure(line_buffering=True)  # in order with the tool's
def call(tool, cwd, args, fds=(0, 1, 2), raw=None):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect("/run/lnk/tools.sock")
    msg = raw if raw is not None else (
        b"LNKC" + struct.pack("<II", 1, 2 + len(args))
        + b"".join(x.encode() + b"\\0" for x in [tool, cwd, *args]))
    anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
    s.sendmsg([msg], anc if fds else [])
    r = s.recv(65536)
    s.close()
    return r
"""


def raw_py(lnk, code, *grants):
    """Python CODE in a sandbox, with call() to speak the socket by hand."""
    return lnk.run(*grants, "--", PY, "-c", RAW_CALL + textwrap.dedent(code),
                   timeout=60)


def tool_calls(out):
    """The calls outside_tool's tool recorded in OUT, one line each."""
    f = out / "calls"
    return f.read_text().splitlines() if f.exists() else []


def _tool_on_path(lnk, tmp_path, text, name="mytool"):
    """NAME on lnk's PATH only (a folder outside every grant), with TEXT."""
    return on_lnk_path(lnk, tmp_path / "toolbin2", name, text)


def in_private_mounts(lnk, script):
    """Runs sh SCRIPT in a mount namespace of its own (a user namespace too
    when not root), with lnk's environment; returns the CompletedProcess."""
    pre = ["unshare", "-m", "--propagation", "private"]
    if not IS_ROOT:
        pre = ["unshare", "-r", "-m", "--propagation", "private"]
    return subprocess.run([*pre, "/bin/sh", "-c", script], env=lnk.env(),
                          cwd=str(lnk.cwd), capture_output=True, text=True,
                          timeout=60)


def lnk_under_mounts(lnk):
    """lnk as the shell of in_private_mounts starts it: as root, itself; as a
    user, in a user namespace below the one that mounted, as a user that is
    not root there either (what a user's bind mount of their home looks like
    to lnk)."""
    if IS_ROOT:
        return f"'{lnk.bin}'"
    return (f"unshare --user --map-user={os.getuid()} "
            f"--map-group={os.getgid()} '{lnk.bin}'")
