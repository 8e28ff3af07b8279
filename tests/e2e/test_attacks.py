"""Red team: attacks from inside a sandbox, the way a hostile script or AI
agent would try them (DESIGN.md, Security invariants 1-7).

Each test PASSES when the sandbox holds and FAILS when the attack works, so
it guards against regressions. A hole found and not yet fixed is marked
`xfail(strict=True, reason="HOLE: ...")`: the suite stays green while it is
open and turns red the day it is fixed, so the mark gets removed.

The tests run as an unprivileged user and as root (tests/run-all). Network
tests use only loopback and the test hosts of tests/e2e/nethosts.sh
(198.18.0.0/15 behind a blackhole route).
"""
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from conftest import HELPERS, IS_ROOT, LNK, helper

PY = "/usr/bin/python3"


def py(lnk, code, *grants, timeout=60, **kw):
    """Runs python CODE in a sandbox with GRANTS; returns the CompletedProcess."""
    return lnk.run(*grants, "--", PY, "-c", textwrap.dedent(code),
                   timeout=timeout, **kw)


def sh(lnk, script, *grants, timeout=60, **kw):
    return lnk.run(*grants, "--", "/bin/sh", "-c", script, timeout=timeout,
                   **kw)


def top_names(d):
    return sorted(p.name for p in pathlib.Path(d).iterdir())


# =============================================================================
# The dot-file supervisor as a confused deputy (invariants 2 and 5)
#
# Every open() with O_CREAT goes to the supervisor outside, which opens the
# file itself and injects the fd. Whatever it opens, it opens with its own
# credentials and without the program's Landlock domain.
# =============================================================================

@pytest.mark.xfail(strict=True, reason=(
    "HOLE: the notify supervisor opens /proc/1/mem for an O_CREAT open "
    "(src/notify/supervise.c do_open), so the program writes code into "
    "bwrap's pid 1, which has no seccomp and no Landlock, and creates "
    ".envrc"))
def test_pid1_memory_not_writable_through_supervisor(lnk, work):
    """Threat: O_CREAT on /proc/1/mem, then run code in pid 1 unconfined."""
    attack = helper("attack_pid1")
    target = work / ".envrc"
    cp = lnk.run("--write", work, "--read", HELPERS, "--", attack,
                 f"echo pwned > {target}", timeout=60)
    assert not target.exists(), cp.stdout + cp.stderr
    assert "O_CREAT open /proc/1/mem: opened" not in cp.stdout, cp.stdout


@pytest.mark.xfail(strict=True, reason=(
    "HOLE: an O_RDWR|O_CREAT open of /proc/1/mem is performed by the "
    "supervisor (src/notify/supervise.c do_open) though the program's own "
    "open is refused by Landlock"))
@pytest.mark.parametrize("path", ["/proc/1/mem", "/proc/1/maps",
                                  "/proc/1/environ"])
def test_proc_of_pid1_not_opened_by_supervisor(lnk, work, path):
    """Threat: read/write another process's memory or maps via the deputy."""
    cp = py(lnk, f"""
        import os
        for fl in (os.O_RDONLY, os.O_RDONLY | os.O_CREAT, os.O_RDWR | os.O_CREAT):
            try:
                os.close(os.open({path!r}, fl)); print("opened", fl)
            except OSError as e:
                print("refused", fl, e.errno)
    """, "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert "opened" not in cp.stdout, cp.stdout


def test_own_seccomp_listener_cannot_steal_creates(lnk, work):
    """Threat: our own USER_NOTIF filter answers CONTINUE for .envrc."""
    attack = helper("attack_notify")
    cp = lnk.run("--write", work, "--read", HELPERS, "--", attack, ".envrc")
    assert cp.returncode == 3, cp.stdout + cp.stderr
    assert not (work / ".envrc").exists()
