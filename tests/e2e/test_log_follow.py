"""lnk sandbox log --follow and --since, and its colour (lnk-sandbox(1),
COMMANDS, log): a follower reads the database, so it sees the calls of
every wire of the user made after it started; colour only on a terminal."""
import json
import os
import pty
import select
import subprocess
import time

import pytest

ALLOWED = "allowed.lnk-test"


def refused_call(lnk, host):
    """One call the wire refuses (an unlisted host): logged as refused."""
    cp = lnk.run("--internet-host", ALLOWED, "--", "curl", "-s", "-o",
                 "/dev/null", "-w", "%{http_code}", f"http://{host}/")
    assert cp.stdout == "403", (cp.stdout, cp.stderr)


def read_until(p, want, timeout=60):
    """Lines of p's stdout until one holds want (bytes); fails on timeout
    (a bound for a broken follower, not a measured time)."""
    got = b""
    end = time.monotonic() + timeout
    while want not in got:
        left = end - time.monotonic()
        assert left > 0, f"{want!r} never came; got {got!r}"
        r, _, _ = select.select([p.stdout], [], [], left)
        if r:
            chunk = os.read(p.stdout.fileno(), 65536)
            assert chunk, f"follower ended before {want!r}; got {got!r}"
            got += chunk
    return got


def follower(lnk, *args):
    return subprocess.Popen([lnk.bin, "sandbox", "log", *args],
                            cwd=str(lnk.cwd), env=lnk.env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def stop(p):
    p.terminate()
    p.communicate(timeout=30)


@pytest.mark.parametrize("flag", ["--follow", "-f"])
def test_follow_json_sees_calls_made_after_it_started(lnk, flag):
    refused_call(lnk, "before.example")
    p = follower(lnk, flag, "--json")
    try:
        # The earlier call shows first: the follower has read the log.
        first = read_until(p, b"before.example:80")
        assert b"after.example" not in first
        refused_call(lnk, "after.example")
        got = read_until(p, b"after.example:80")
        lines = (first + got).decode().splitlines()
        rows = [json.loads(l) for l in lines if l]
        assert [r["target"] for r in rows] == ["before.example:80",
                                               "after.example:80"]
        assert all(r["outcome"] == "refused" and r["verb"] == "http"
                   for r in rows)
        assert p.poll() is None, "the follower stopped by itself"
    finally:
        stop(p)


def test_follow_waits_for_a_log_that_does_not_exist_yet(lnk):
    p = follower(lnk, "--follow")
    try:
        refused_call(lnk, "first.example")
        got = read_until(p, b"first.example:80")
        assert got.startswith(b"TIME"), got
        assert b"\x1b[" not in got, "colour in a pipe"
    finally:
        stop(p)


def test_follow_keeps_filters(lnk):
    p = follower(lnk, "-f", "--json", "--sandbox", "other")
    try:
        refused_call(lnk, "unseen.example")
        lnk.run("--name", "other", "--internet-host", ALLOWED, "--", "curl",
                "-s", "-o", "/dev/null", "http://seen.example/")
        got = read_until(p, b"seen.example:80")
        assert b"unseen.example" not in got
    finally:
        stop(p)


def rows(lnk, *args):
    cp = lnk("sandbox", "log", "--json", *args)
    assert cp.returncode == 0, cp.stderr
    return [json.loads(l) for l in cp.stdout.splitlines()]


def test_since(lnk):
    refused_call(lnk, "old.example")
    assert [r["target"] for r in rows(lnk, "--since", "1h")] == [
        "old.example:80"]
    assert rows(lnk, "--since", "2099-01-01T00:00:00Z") == []
    # An offset names the same moment in UTC.
    assert rows(lnk, "--since", "2099-01-01T02:00:00+02:00") == []
    assert len(rows(lnk, "--since=2000-01-01T00:00:00Z")) == 1
    when = rows(lnk)[0]["time"]
    assert len(rows(lnk, "--since", when)) == 1
    cp = lnk("sandbox", "log", "--since", "2099-01-01T00:00:00Z")
    # what was asked, not "no calls logged yet": there are calls
    assert cp.returncode == 0 and cp.stdout == \
        "no calls since 2099-01-01T00:00:00Z in the log\n", cp.stdout
    # --since with --follow: the backlog is only what is since then.
    p = follower(lnk, "-f", "--json", "--since", "2099-01-01T00:00:00Z")
    try:
        refused_call(lnk, "new.example")
        refused_call(lnk, "newer.example")
        # Nothing comes: every call is older than the year 2099. Ended by
        # a bound, not a timing: the follower is still running after it.
        r, _, _ = select.select([p.stdout], [], [], 2)
        assert not r, os.read(p.stdout.fileno(), 4096)
        assert p.poll() is None
    finally:
        stop(p)


@pytest.mark.parametrize("bad", ["yesterday", "10", "2024-05-01",
                                 "-5m", "\x1b]0;pwned\x07"])
def test_since_refuses_what_is_not_a_time(lnk, bad):
    cp = lnk("sandbox", "log", "--since", bad)
    assert cp.returncode == 2
    assert "is not a time" in cp.stderr and "10m" in cp.stderr
    assert "\x1b" not in cp.stderr


def test_since_needs_a_value(lnk):
    cp = lnk("sandbox", "log", "--since")
    assert cp.returncode == 2 and "needs a value" in cp.stderr


def on_pty(lnk, *args, env=None):
    """lnk's output with stdout a terminal (a pty), as a person sees it."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(str(lnk.cwd))
        os.execve(lnk.bin, [lnk.bin, *args], lnk.env(env))
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.waitpid(pid, 0)
    os.close(fd)
    return out


def test_colour_on_a_terminal_never_in_a_pipe(lnk):
    refused_call(lnk, "red.example")
    out = on_pty(lnk, "sandbox", "log", env={"TERM": "xterm"})
    assert b"\x1b[31mrefused: host not in the sandbox's grants\x1b[0m" \
        in out, out
    # Only the outcome is coloured, so the target cannot be mistaken.
    assert b"red.example:80" in out
    for env in ({"TERM": "xterm", "NO_COLOR": "1"}, {"TERM": "dumb"}):
        out = on_pty(lnk, "sandbox", "log", env=env)
        assert b"red.example:80" in out and b"\x1b[" not in out, (env, out)
    # NO_COLOR set but empty does not count (no-color.org).
    out = on_pty(lnk, "sandbox", "log", env={"TERM": "xterm",
                                             "NO_COLOR": ""})
    assert b"\x1b[31m" in out
    # A pipe, and --json on a terminal: never.
    cp = lnk("sandbox", "log", env={"TERM": "xterm"})
    assert "red.example" in cp.stdout and "\x1b" not in cp.stdout
    out = on_pty(lnk, "sandbox", "log", "--json", env={"TERM": "xterm"})
    assert b"red.example" in out and b"\x1b" not in out


def test_follow_colours_on_a_terminal(lnk):
    """The follower on a pty colours what arrives after it started."""
    refused_call(lnk, "seen-first.example")
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(str(lnk.cwd))
        os.execve(lnk.bin, [lnk.bin, "sandbox", "log", "-f"],
                  lnk.env({"TERM": "xterm"}))
    try:
        got = b""
        while b"seen-first.example" not in got:
            r, _, _ = select.select([fd], [], [], 60)
            assert r, got
            got += os.read(fd, 65536)
        refused_call(lnk, "seen-later.example")
        while b"seen-later.example:80" not in got or \
                not got.rstrip().endswith(b"\x1b[0m"):
            r, _, _ = select.select([fd], [], [], 60)
            assert r, got
            got += os.read(fd, 65536)
        later = got[got.index(b"seen-later.example"):]
        assert b"\x1b[31mrefused" in later, got
    finally:
        os.kill(pid, 15)
        os.waitpid(pid, 0)
        os.close(fd)
