"""Attacks on the tools' views and folders and on the log, each written as
the program inside would try it, each failing if the attack works: a
hidden folder moved by a tool's rename, a repository another sandbox made
below the top of a --read folder, a padded call hiding its last argument
from the log.
"""
import pytest

from conftest import on_lnk_path

MV = "#!/bin/sh\nexec /bin/mv \"$@\"\n"
CAT = "#!/bin/sh\nexec /bin/cat \"$@\"\n"


def test_a_tool_cannot_read_a_hidden_folder_after_a_tool_renamed_its_parent(
        tmp_path, lnk, home, work):
    secret = work / "sub" / "secret"
    secret.mkdir(parents=True)
    (secret / "key").write_text("TOPSECRET\n")
    on_lnk_path(lnk, tmp_path / "bin", "mv", MV)
    on_lnk_path(lnk, tmp_path / "bin", "cat", CAT)
    lnk("sandbox", "tool", "add", "mv", "--allow", "*", check=True)
    lnk("sandbox", "tool", "add", "cat", "--allow", "*", check=True)
    cp = lnk.run("--write", work, "--hide", secret, "--tool", "mv",
                 "--tool", "cat", "--",
                 "/bin/sh", "-c", "mv sub sub2; cat sub2/secret/key",
                 timeout=120)
    assert "TOPSECRET" not in cp.stdout, (cp.stdout, cp.stderr)


ECHO = "#!/bin/sh\necho \"ran $#\"\n"


def test_the_log_names_the_last_argument_of_a_call_that_ran(
        tmp_path, lnk, work):
    import json
    on_lnk_path(lnk, tmp_path / "bin", "mytool", ECHO)
    lnk("sandbox", "tool", "add", "mytool", "--allow", "*", check=True)
    pad = "a" * 5000
    cp = lnk.run("--write", work, "--tool", "mytool", "--",
                 "/bin/sh", "-c", f"mytool {pad} --output=TAILMARK",
                 timeout=120)
    assert "ran 2" in cp.stdout, (cp.stdout, cp.stderr)
    out = lnk("sandbox", "log", "--json", "--lines", "1000",
              check=True).stdout
    rows = [json.loads(x) for x in out.splitlines()]
    tool = [r for r in rows if r.get("verb") == "tool"]
    assert tool, rows
    assert "TAILMARK" in tool[-1]["target"], tool[-1]


def test_a_tool_cannot_read_the_agents_folder_after_a_tool_renamed_link(
        tmp_path, lnk, home, work):
    agents = home / "Link" / "Agents"
    agents.mkdir(parents=True)
    (agents / "key").write_text("AGENTSECRET\n")
    on_lnk_path(lnk, tmp_path / "bin", "mv", MV)
    on_lnk_path(lnk, tmp_path / "bin", "cat", CAT)
    lnk("sandbox", "tool", "add", "mv", "--allow", "*", check=True)
    lnk("sandbox", "tool", "add", "cat", "--allow", "*", check=True)
    cp = lnk.run("--write", work, "--tool", "mv", "--tool", "cat", "--",
                 "/bin/sh", "-c",
                 f"mv {home}/Link {home}/L2; cat {home}/L2/Agents/key",
                 timeout=120)
    assert "AGENTSECRET" not in cp.stdout, (cp.stdout, cp.stderr)


GIT = "#!/bin/sh\nexec /usr/bin/git \"$@\"\n"


def test_a_tool_never_runs_in_a_repository_an_earlier_sandbox_made(
        tmp_path, lnk, work):
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o777)
    mark = out / "pwned"
    plant = (f"mkdir sub && cd sub && /usr/bin/git init -q . && "
             f"/usr/bin/git config core.fsmonitor 'touch {mark}; false #'")
    cp = lnk.run("--write", work, "--", "/bin/sh", "-c", plant,
                 timeout=120)
    assert cp.returncode == 0, cp.stderr
    on_lnk_path(lnk, tmp_path / "bin", "git", GIT)
    lnk("sandbox", "tool", "add", "git", "--allow", "status", check=True)
    cp = lnk.run("--read", work, "--tool", "git status", "--",
                 "/bin/sh", "-c", "cd sub && git status", timeout=120)
    assert not mark.exists(), (cp.stdout, cp.stderr)
