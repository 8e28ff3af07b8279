"""Attacks on what changed today (tools' views and folders, the log, the
model route and the wire's DNS), each written as the program inside would
try it. A test marked xfail(strict) is a hole that still works: it fails
while the hole exists, and its xfail goes when the hole is closed.
"""
import pytest

from conftest import on_lnk_path

MV = "#!/bin/sh\nexec /bin/mv \"$@\"\n"
CAT = "#!/bin/sh\nexec /bin/cat \"$@\"\n"


@pytest.mark.xfail(strict=True, reason=(
    "a tool's view hides a --hide folder by its path, looked up anew at "
    "each call (src/tools/view.c hide_one: a path that no longer exists "
    "hides nothing); a granted tool that renames (mv, git mv) moves a "
    "folder above the hidden one outside the guard, and the next call "
    "reads the hidden folder under its new path"))
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


@pytest.mark.xfail(strict=True, reason=(
    "the log's row of a call keeps only the arguments that fit from the "
    "front (src/tools/allow.c tools_call_text, used for the row): one "
    "long argument first pushes every later one out of the log, so the "
    "decisive option of a call that ran (an --output=, a -c) is never "
    "named; the question shows the last arguments, the row does not"))
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


@pytest.mark.xfail(strict=True, reason=(
    "the same hole as a --hide folder's for the always-hidden agents' "
    "folder: src/tools/view.c hides ~/Link/Agents by its path at each "
    "call; a granted tool that renames moves ~/Link, and the next call "
    "reads the agents' folder under its new name"))
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


@pytest.mark.xfail(strict=True, reason=(
    "src/tools/folder.c judges a tool's folder by this run's write "
    "folders only: a --read folder where an earlier sandbox (with --write "
    "on it) made a repository is a folder the program configured, and "
    "git there runs its core.fsmonitor outside the sandbox"))
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
