"""Attacks that reach what lnk protects under another spelling: a path
written another way, a configuration the rules look for under one name only,
a system tree granted by a link (docs/runs-outside.md; docs/design.md,
invariants 1, 2 and 8).

Each test PASSES when the sandbox holds and FAILS when the attack works. They
run as an unprivileged user and as root.
"""
import os
import pathlib
import subprocess

import pytest

from conftest import IS_ROOT


def sh(lnk, script, *grants, timeout=60, **kw):
    return lnk.run(*grants, "--", "/bin/sh", "-c", script, timeout=timeout,
                   **kw)


# --- names still missing from the list -------------------------------------

# Read from the folder an interpreter or debugger starts in (their startup
# code): the OCaml toplevel and utop (.ocamlinit), irb (irb.rc, _irbrc),
# perl -d (.perldb), R (.Renviron names the profile it runs), lldb.
STARTUP_NAMES = [".ocamlinit", "irb.rc", "_irbrc", ".perldb", ".Renviron",
                 ".lldbinit"]


@pytest.mark.parametrize("name", STARTUP_NAMES)
def test_interpreter_startup_names_not_planted(lnk, work, name):
    """Threat: the program leaves `.ocamlinit` (or another startup file an
    interpreter reads from the current folder) in the project; the user's
    next `ocaml` or `utop` there runs it, outside."""
    cp = sh(lnk, f"echo 'Sys.command \"touch pwned\";;' > {name}; true",
            "--write", work)
    assert not (work / name).exists(), cp.stderr
    (work / name).write_text("(* mine *)\n")
    cp = sh(lnk, f"echo 'Sys.command \"touch pwned\";;' >> {name}; "
                 f"mv {name} old; true", "--write", work)
    assert (work / name).read_text() == "(* mine *)\n", cp.stderr
    assert not (work / "old").exists()
