"""What the user sees: lnk's own words instead of bubblewrap's, where the
program starts, what the sandbox is called inside, and grants that do
nothing yet. Each runs as an unprivileged user and as root."""
import json
import os
import pathlib
import shlex
import shutil
import subprocess
import time
import tomllib

import pytest

from conftest import IS_ROOT, LNK


def lnk_said(cp):
    """The messages on stderr are lnk's, none is bubblewrap's."""
    assert "bwrap" not in cp.stderr, cp.stderr
    for word in ("guard", "plan", " init"):
        assert word not in cp.stderr, cp.stderr


# --- grants bwrap would refuse: refused first, in lnk's words ---

def test_write_and_hide_same_folder_is_usage_error(lnk):
    cp = lnk.run("--write", ".", "--hide", ".", "--", "true")
    assert cp.returncode == 2, cp
    assert "--hide" in cp.stderr and "--write" in cp.stderr
    lnk_said(cp)


def test_write_a_file_is_usage_error(lnk, work):
    (work / "notes.txt").write_text("x")
    cp = lnk.run("--write", "notes.txt", "--", "true")
    assert cp.returncode == 2, cp
    assert "--write takes a folder; use --read for a file" in cp.stderr
    lnk_said(cp)


@pytest.mark.skipif(IS_ROOT, reason="root can enter every folder")
def test_write_a_folder_the_user_cannot_enter(lnk, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o711)
    inner = locked / "inner"
    inner.mkdir(mode=0o555)
    cp = lnk.run("--write", str(inner), "--", "true")
    assert cp.returncode == 125, cp
    assert "cannot write" in cp.stderr and str(inner) in cp.stderr
    lnk_said(cp)
    if os.access("/root", os.X_OK):
        return
    cp = lnk.run("--write", "/root", "--", "true")
    assert cp.returncode == 125, cp
    assert "'/root'" in cp.stderr
    lnk_said(cp)


@pytest.mark.skipif(IS_ROOT, reason="root can read every folder")
def test_read_a_folder_the_user_cannot_read(lnk, tmp_path):
    d = tmp_path / "secret"
    d.mkdir()
    d.chmod(0o311)
    try:
        cp = lnk.run("--read", str(d), "--", "true")
    finally:
        d.chmod(0o755)
    assert cp.returncode == 125, cp
    assert "cannot read" in cp.stderr and str(d) in cp.stderr
    lnk_said(cp)


def test_sandbox_inside_a_sandbox_says_so(lnk):
    bindir = str(pathlib.Path(LNK).resolve().parent)
    cp = lnk.run("--read", bindir, "--", LNK, "sandbox", "run", "--",
                 "true")
    assert cp.returncode == 125, cp
    assert "already inside a lnk sandbox" in cp.stderr, cp.stderr
    assert "namespace" not in cp.stderr
    cp = lnk.run("--read", bindir, "--", LNK, "sandbox", "log")
    assert cp.returncode == 125, cp
    assert "cannot read the log" in cp.stderr, cp.stderr
    assert "no calls logged yet" not in cp.stdout


@pytest.mark.parametrize("cmd", [
    ["changes"], ["traffic"], ["stop"], ["pause", "x"], ["resume", "x"], ["paused"],
    ["tool", "add", "git", "--allow", "status"], ["tool", "list"], ["asks"],
    ["answer", "abc234", "yes"], ["ready"],
    ["enter", "--check", "--folder", "/tmp"]])
def test_commands_inside_a_sandbox_say_so(lnk, cmd):
    """Inside a sandbox there are no sandboxes of this user to list, stop
    or answer, and no settings to store a call in: each command says
    where it is and fails, never "no sandbox is running" or "stored"."""
    bindir = str(pathlib.Path(LNK).resolve().parent)
    cp = lnk.run("--read", bindir, "--", LNK, "sandbox", *cmd)
    assert cp.returncode == 125, (cmd, cp)
    assert "inside a lnk sandbox" in cp.stderr, cp.stderr
    assert f"run 'lnk sandbox {cmd[0]}' outside it" in cp.stderr
    # its --help still works there
    cp = lnk.run("--read", bindir, "--", LNK, "sandbox", cmd[0], "--help")
    assert cp.returncode == 0, cp


# --- where the program starts ---

def test_current_folder_not_granted_is_said(lnk, home, work):
    other = home / "other"
    other.mkdir()
    cp = lnk.run("--write", str(other), "--", "pwd")
    assert cp.returncode == 0, cp
    assert cp.stdout.strip() == str(other)
    assert "current folder is not granted" in cp.stderr
    assert str(other) in cp.stderr
    # granted: not a word
    cp = lnk.run("--write", ".", "--", "pwd")
    assert cp.returncode == 0, cp
    assert cp.stdout.strip() == str(work)
    assert "not granted" not in cp.stderr


def test_relative_program_in_an_ungranted_folder_is_refused(lnk, home,
                                                            work):
    script = work / "clean.sh"
    script.write_text("#!/bin/sh\necho cleaned\n")
    script.chmod(0o755)
    other = home / "other"
    other.mkdir()
    cp = lnk.run("--write", str(other), "--", "./clean.sh")
    assert cp.returncode == 2, cp
    assert "'./clean.sh' is relative to the current folder" in cp.stderr
    assert "cleaned" not in cp.stdout
    cp = lnk.run("--write", ".", "--", "./clean.sh")
    assert cp.returncode == 0, cp
    assert cp.stdout.strip() == "cleaned"


# --- the sandbox shows itself ---

def test_sandbox_name_in_environment_and_hostname(lnk):
    cp = lnk.run("--name", "shown", "--write", ".", "--", "sh", "-c",
                 'echo "$LNK_SANDBOX"; cat /proc/sys/kernel/hostname')
    assert cp.returncode == 0, cp
    assert cp.stdout.split() == ["shown", "shown"]
    cp = lnk.run("--write", ".", "--", "sh", "-c", 'echo "$LNK_SANDBOX"')
    assert cp.stdout.strip().startswith("run-"), cp


# --- grants that nothing serves yet ---

def test_tool_and_page_grants_start_quietly(lnk):
    # both are served (test_tools.py): granting one says nothing at start
    cp = lnk.run("--write", ".", "--tool", "sh", "--", "true")
    assert cp.returncode == 0 and cp.stderr == "", cp
    cp = lnk.run("--write", ".", "--browser-open", "https://example.com/",
                 "--", "true")
    assert cp.returncode == 0 and cp.stderr == "", cp
    cp = lnk.run("--write", ".", "--", "true")
    assert cp.stderr == "", cp.stderr


# --- [commands] folders: a trailing slash allows the programs under it ---

def make_tool(folder, name, text="#!/bin/sh\necho ran {name}\n"):
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(text.format(name=name))
    p.chmod(0o755)
    return p


def test_command_folder_with_slash_allows_programs_under_it(lnk, work):
    make_tool(work / "tools" / "sub", "t.sh")
    # relative to the working folder for a flag
    cp = lnk.run("--write", ".", "--command", "tools/", "--command", "sh",
                 "--", "tools/sub/t.sh")
    assert cp.returncode == 0, cp
    assert cp.stdout.strip() == "ran t.sh"
    # absolute
    cp = lnk.run("--write", ".", "--command", f"{work}/tools/", "--",
                 f"{work}/tools/sub/t.sh")
    assert cp.returncode == 0, cp
    # a program outside the folder stays refused, by lnk and by the kernel
    cp = lnk.run("--write", ".", "--command", "tools/", "--", "/usr/bin/id")
    assert cp.returncode == 126, cp
    cp = lnk.run("--write", ".", "--command", "tools/", "--", "tools/sub/t.sh",
                 "x")
    assert cp.returncode == 0, cp
    cp = lnk.run("--write", ".", "--command", "tools/", "--command", "sh",
                 "--", "sh", "-c", "/usr/bin/id; echo $?")
    assert cp.stdout.strip().endswith("126"), cp


def test_command_folder_without_slash_is_refused(lnk, work):
    make_tool(work / "tools", "t.sh")
    cp = lnk.run("--write", ".", "--command", f"{work}/tools", "--",
                 f"{work}/tools/t.sh")
    assert cp.returncode == 2, cp
    assert f"write '{work}/tools/'" in cp.stderr
    assert "trailing slash" in cp.stderr
    assert "ran" not in cp.stdout


def test_command_folder_in_a_spec_is_relative_to_the_spec(lnk, home, work):
    make_tool(work / "bin", "t.sh")
    (work / "app.toml").write_text(
        'version = 1\n[files]\nwrite = ["."]\n'
        '[commands]\nallow = ["bin/", "sh"]\n')
    # run from elsewhere: the folder is the spec's, not the working one
    cp = lnk.run("--yes", "--spec", str(work / "app.toml"), "--",
                 f"{work}/bin/t.sh", cwd=str(home))
    assert cp.returncode == 0, cp
    assert cp.stdout.strip() == "ran t.sh"


NPM = shutil.which("npm")


@pytest.mark.skipif(not NPM or not shutil.which("node"),
                    reason="npm and node are not installed")
def test_readme_spec_runs_npm_test(lnk, work):
    """The README's spec example, as written, runs `npm test` of a project
    whose test script runs a program from node_modules/.bin."""
    (work / "package.json").write_text(
        '{"name":"app","version":"1.0.0","scripts":'
        '{"test":"mytool && node -e \\"console.log(1+1)\\""}}')
    make_tool(work / "node_modules" / "mytool" / "bin", "mytool.js",
              '#!/usr/bin/env node\nconsole.log("mytool ran")\n')
    (work / "node_modules" / ".bin").mkdir()
    (work / "node_modules" / ".bin" / "mytool").symlink_to(
        "../mytool/bin/mytool.js")
    readme = (pathlib.Path(os.environ.get("LNK_SOURCE") or
                           pathlib.Path(__file__).resolve().parents[2])
              / "README.md")
    if not readme.exists():
        pytest.skip(f"the README is not at {readme}")
    line = next(ln for ln in readme.read_text().splitlines()
                if ln.startswith("lnk sandbox spec ") and "npm" in ln)
    words = shlex.split(line.split(">")[0])[3:]
    words = [str(work) if w == "~/code/app" else w for w in words]
    spec = lnk("sandbox", "spec", *words)
    assert spec.returncode == 0, spec
    (work / "app.toml").write_text(spec.stdout)
    cp = lnk.run("--yes", "--spec", "app.toml", "--", "npm", "test",
                 timeout=120)
    assert cp.returncode == 0, cp
    assert "mytool ran" in cp.stdout and "\n2\n" in cp.stdout, cp.stdout


# --- the thrown-away home, and the README's fixes for it ---

def test_readme_git_commit_example_works_as_written(lnk, home, work):
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Tester\n\temail = t@example.com\n")
    genv = {"GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["add", "."]):
        subprocess.run(["git", *args], cwd=work, check=True,
                       env=lnk.env(genv))
    (work / "f").write_text("1")
    subprocess.run(["git", "add", "f"], cwd=work, check=True,
                   env=lnk.env(genv))
    subprocess.run(["git", "commit", "-qm", "one"], cwd=work, check=True,
                   env=lnk.env(genv))
    (work / "f").write_text("2")
    readme = (pathlib.Path(os.environ.get("LNK_SOURCE") or
                           pathlib.Path(__file__).resolve().parents[2])
              / "README.md")
    if not readme.exists():
        pytest.skip(f"the README is not at {readme}")
    line = next(ln for ln in readme.read_text().splitlines()
                if ln.startswith("lnk sandbox run") and "git commit" in ln)
    words = shlex.split(line)[3:]
    words = [str(home / ".gitconfig") if w == "~/.gitconfig" else w
             for w in words]
    cp = lnk.run(*words)
    assert cp.returncode == 0, cp
    log = subprocess.run(["git", "log", "--format=%an %s", "-1"], cwd=work,
                         capture_output=True, text=True, env=lnk.env(genv))
    assert log.stdout.strip() == "Tester fix", log


# --- check: risks of the grants themselves ---

def test_check_warns_home_readable_with_any_internet_host(lnk):
    cp = lnk("sandbox", "check", "--read", "~", "--internet-host", "*",
             timeout=120)
    assert cp.returncode == 0, cp
    assert "nothing leaked" in cp.stdout
    assert ("warning: the home folder is readable and any internet host "
            "is reachable") in cp.stdout, cp.stdout
    # either alone: no warning
    cp = lnk("sandbox", "check", "--read", "~", timeout=120)
    assert "warning: the home folder" not in cp.stdout
    cp = lnk("sandbox", "check", "--internet-host", "*", timeout=120)
    assert "warning: the home folder" not in cp.stdout


def test_check_warns_write_folder_with_other_repositories(lnk, work):
    (work / ".git").mkdir()
    cp = lnk("sandbox", "check", "--write", ".", timeout=120)
    assert cp.returncode == 0, cp
    assert "holds other repositories" not in cp.stdout  # its own .git
    (work / "vendor" / "lib" / ".git").mkdir(parents=True)
    (work / "other\x1b[31m" / ".git").mkdir(parents=True)
    cp = lnk("sandbox", "check", "--write", ".", timeout=120)
    assert cp.returncode == 0, cp
    line = next(ln for ln in cp.stdout.splitlines()
                if "holds other repositories" in ln)
    assert "vendor/lib" in line and f"'{work}'" in line
    assert "\x1b" not in cp.stdout
    # --json carries the same warnings, as JSON strings
    cp = lnk("sandbox", "check", "--write", ".", "--json", timeout=120)
    assert cp.returncode == 0, cp
    doc = json.loads(cp.stdout)
    assert any("holds other repositories" in w and "vendor/lib" in w
               for w in doc["warnings"]), doc["warnings"]
    assert not any("\x1b" in w for w in doc["warnings"])


def test_check_json_warnings_empty_without_risk(lnk):
    cp = lnk("sandbox", "check", "--json", timeout=120)
    assert cp.returncode == 0, cp
    assert json.loads(cp.stdout)["warnings"] == []


# --- stop: the stopped sandbox and later ones say so ---

def test_stop_is_said_to_the_stopped_sandbox_and_to_later_ones(lnk):
    # a network grant, so that the sandbox is in the registry stop reads
    # (the test host name is never reached: the program makes no call)
    args = [lnk.bin, "sandbox", "run", "--write", ".", "--internet-host",
            "example.invalid", "--", "sh", "-c", "echo ready; sleep 30"]
    p = subprocess.Popen(args, cwd=str(lnk.cwd), env=lnk.env(),
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        # the wire registers itself as the program starts: stop (which
        # stays in force and may be repeated) until it has stopped it
        for _ in range(100):
            st = lnk("sandbox", "stop")
            assert st.returncode == 0, st
            if "stopped run-" in st.stdout:
                break
            time.sleep(0.1)
        assert "stopped run-" in st.stdout, st
        out, err = p.communicate(timeout=30)
        assert p.returncode == 128 + 15, (p.returncode, err)
        assert "lnk: stopped by 'lnk sandbox stop'" in err, err
        cp = lnk.run("--write", ".", "--", "true")
        assert cp.returncode == 0, cp
        assert "a stop is in force ('lnk sandbox stop')" in cp.stderr
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        lnk("sandbox", "stop", "--off")
    cp = lnk.run("--write", ".", "--", "true")
    assert "stop is in force" not in cp.stderr, cp.stderr
    # a program ended by a signal with no stop: not a word about stop
    cp = lnk.run("--write", ".", "--", "sh", "-c", "kill -TERM $$")
    assert cp.returncode == 128 + 15, cp
    assert "stopped by" not in cp.stderr


# --- specs: acceptances per set of flags, and the flag named ---

def test_flag_beside_spec_is_named_and_switching_back_is_not_asked(
        lnk, home, work):
    other = home / "other"
    other.mkdir()
    (work / "app.toml").write_text(
        'version = 1\n[files]\nwrite = ["."]\n[commands]\nallow = ["true"]\n')
    # no terminal to ask on
    run = lambda *a: lnk.run(*a, start_new_session=True,  # noqa: E731
                             stdin=subprocess.DEVNULL)
    assert run("--yes", "--spec", "app.toml", "--", "true").returncode == 0
    cp = run("--spec", "app.toml", "--write", str(other), "--", "true")
    assert cp.returncode == 125, cp
    assert "with --write beside it" in cp.stderr, cp.stderr
    cp = run("--yes", "--spec", "app.toml", "--write", str(other), "--",
             "true")
    assert cp.returncode == 0, cp
    # back and forth: both were accepted, neither asks
    for extra in ([], ["--write", str(other)], []):
        cp = run("--spec", "app.toml", *extra, "--", "true")
        assert cp.returncode == 0, (extra, cp)
    record = (home / ".lnk" / "specs" / "sandbox.toml").read_text()
    assert "text = " in record


def test_second_run_of_a_named_spec_gets_the_next_free_name(lnk, work):
    (work / "app.toml").write_text(
        'name = "app"\nversion = 1\n[files]\nwrite = ["."]\n'
        '[commands]\nallow = ["sh", "sleep"]\n')
    # the first with a network grant, so that it is in the registry the
    # name is checked against (the host is never reached)
    first = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--yes", "--spec", "app.toml",
         "--internet-host", "example.invalid", "--",
         "sh", "-c", "echo ready; sleep 30"], cwd=str(work), env=lnk.env(),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        assert first.stdout.readline().strip() == "ready"
        # the first registers as its wire starts: wait until it shows
        for _ in range(100):
            if "app " in lnk("sandbox", "traffic").stdout:
                break
            time.sleep(0.1)
        cp = lnk.run("--yes", "--spec", "app.toml", "--", "sh", "-c",
                     'echo "$LNK_SANDBOX"')
        assert cp.returncode == 0, cp
        assert cp.stdout.strip() == "app-2"
        assert "a sandbox named 'app' is already running; this one is " \
            "'app-2'" in cp.stderr
        # a name given with --name is the person's: refused, not renamed
        cp = lnk.run("--yes", "--spec", "app.toml", "--name", "app", "--",
                     "sh", "-c", "true")
        assert cp.returncode == 125, cp
        assert "choose another --name" in cp.stderr
    finally:
        first.kill()
        first.wait()


# --- spec: paths as written, so a spec can live in its repository ---

def test_spec_keeps_paths_as_written_and_spec_spec_prints_absolute(
        lnk, home, work):
    (work / "sub").mkdir()
    (home / "docs").mkdir()
    made = lnk("sandbox", "spec", "--write", ".", "--read", "~/docs",
               "--read", str(work / "sub"), "--command", "node_modules/",
               "--command", "sh", check=True).stdout
    assert 'write = ["."]' in made
    assert 'read = ["~/docs", "sub"]' in made
    assert 'allow = ["node_modules/", "sh"]' in made
    assert str(work) not in made and str(home) not in made
    (work / "node_modules").mkdir()
    (work / "app.toml").write_text(made)
    absolute = lnk("sandbox", "spec", "--spec", "app.toml",
                   check=True).stdout
    spec = tomllib.loads(absolute)
    assert spec["files"]["write"] == [str(work)]
    assert spec["files"]["read"] == [str(home / "docs"), str(work / "sub")]
    assert spec["commands"]["allow"] == [f"{work}/node_modules/", "sh"]
    # the repository moves: the spec follows it
    moved = home / "moved"
    work.rename(moved)
    cp = lnk.run("--yes", "--spec", str(moved / "app.toml"), "--", "sh",
                 "-c", "pwd", cwd=str(moved))
    assert cp.returncode == 0, cp
    assert cp.stdout.strip() == str(moved)


def test_program_refused_by_commands_is_named(lnk, work):
    """Landlock refuses what [commands] does not allow with EACCES, and a
    shell says only "Permission denied": lnk names the program once, with
    the flag that allows it, on stderr and in the log (verb exec)."""
    cp = lnk.run("--write", ".", "--command", "sh", "--", "sh", "-c",
                 "/usr/bin/id; /usr/bin/id; ls >/dev/null; nosuchprog; "
                 "exit 0")
    assert cp.returncode == 0, cp
    line = ("lnk: refused to run /usr/bin/id: [commands] does not allow "
            "it; --command /usr/bin/id allows it")
    assert cp.stderr.count(line) == 1, cp.stderr
    ls = shutil.which("ls")
    assert f"lnk: refused to run {os.path.realpath(ls)}:" in cp.stderr, \
        cp.stderr
    # a missing program is the shell's own "not found", not lnk's
    assert "nosuchprog" not in "".join(
        ln for ln in cp.stderr.splitlines() if ln.startswith("lnk:"))
    rows = [json.loads(ln) for ln in
            lnk("sandbox", "log", "--json").stdout.splitlines()]
    execs = [r for r in rows if r.get("verb") == "exec"]
    assert any(r["target"] == "/usr/bin/id" and r["outcome"] == "refused"
               for r in execs), execs
    # allowed programs, a folder of programs: not a word
    tools = work / "tools"
    tools.mkdir()
    (tools / "hello").write_text("#!/bin/sh\necho hello\n")
    (tools / "hello").chmod(0o755)
    cp = lnk.run("--write", ".", "--command", "sh", "--command",
                 f"{tools}/", "--", "sh", "-c", f"{tools}/hello")
    assert cp.returncode == 0 and cp.stdout.strip() == "hello", cp
    assert "refused to run" not in cp.stderr, cp.stderr


def test_refused_program_name_is_escaped(lnk, work):
    """The program chose the file's name: it is escaped where it is said."""
    evil = work / "x\x1b]0;pwned\x07"
    evil.write_text("#!/bin/sh\necho ran\n")
    evil.chmod(0o755)
    cp = lnk.run("--write", ".", "--command", "sh", "--", "sh", "-c",
                 f"'{evil}'; exit 0")
    assert cp.returncode == 0, cp
    assert "ran" not in cp.stdout
    named = [ln for ln in cp.stderr.splitlines()
             if ln.startswith("lnk: refused to run")]
    assert len(named) == 1, cp.stderr
    assert "\x1b" not in named[0] and "\x07" not in named[0], named


def test_exit_126_under_commands_points_at_commands(lnk):
    # named: the 126 hint is not repeated
    cp = lnk.run("--write", ".", "--command", "sh", "--", "sh", "-c",
                 "/usr/bin/id")
    assert cp.returncode == 126, cp
    assert "Permission denied" in cp.stderr
    assert "refused to run /usr/bin/id" in cp.stderr
    assert "exited with 126" not in cp.stderr
    # not named (the program's own 126): where to look
    cp = lnk.run("--write", ".", "--command", "sh", "--", "sh", "-c",
                 "exit 126")
    assert cp.returncode == 126, cp
    assert "[commands] does not allow it; add --command NAME" in cp.stderr
    # every program allowed: 126 is the program's own business
    cp = lnk.run("--write", ".", "--", "sh", "-c", "exit 126")
    assert cp.returncode == 126, cp
    assert "[commands]" not in cp.stderr


def test_programs_named_are_bounded(lnk, work):
    """A program that makes and runs hundreds of refused files gets the
    first 64 named and one line saying so, not a flood."""
    d = work / "many"
    d.mkdir()
    for i in range(100):
        f = d / f"p{i}"
        f.write_text("#!/bin/sh\n")
        f.chmod(0o755)
    cp = lnk.run("--write", ".", "--command", "sh", "--", "sh", "-c",
                 f"for f in {d}/*; do \"$f\" 2>/dev/null; done; exit 0")
    assert cp.returncode == 0, cp
    named = [ln for ln in cp.stderr.splitlines()
             if ln.startswith("lnk: refused to run")]
    assert len(named) == 64, len(named)
    assert "only the first 64 are named" in cp.stderr


# --- faults: lnk.db damaged or from a newer lnk ---

@pytest.mark.parametrize("damage", ["not-a-database", "newer"])
def test_damaged_or_newer_database_is_named_never_a_crash(lnk, work, damage):
    """A call log lnk cannot trust is refused by every command that opens
    it, naming the file and saying what to do; never a crash, and never a
    sandbox started without a log it can write."""
    import sqlite3
    assert lnk.run("--write", work, "--", "true").returncode == 0
    db = lnk.home / ".lnk" / "sandbox" / "lnk.db"
    assert db.exists()
    for side in ("-wal", "-shm"):
        pathlib.Path(f"{db}{side}").unlink(missing_ok=True)
    if damage == "newer":
        c = sqlite3.connect(db)
        c.execute("PRAGMA user_version=999")
        c.commit()
        c.close()
        want = "newer lnk"
    else:
        db.write_bytes(b"this is not a database " * 200)
        want = "move it away"
    for args in (("sandbox", "log"), ("sandbox", "paused"),
                 ("sandbox", "traffic"),
                 ("sandbox", "run", "--write", work, "--", "true")):
        cp = lnk(*args)
        assert cp.returncode == 125, (args, cp.returncode, cp.stderr)
        assert str(db) in cp.stderr, cp.stderr
        assert want in cp.stderr, cp.stderr


# --- the home folder as HOME names it ---

def test_home_with_a_trailing_or_doubled_slash_works(lnk, work):
    """HOME=/home/u/ (or /home//u) is the same home: its hidden folders
    are found and hidden, and the run works."""
    h = str(lnk.home)
    for home in (h + "/", h.replace("/home", "//home") + "//"):
        cp = lnk.run("--write", ".", "--", "sh", "-c",
                     "echo ok; ls -a ~/.lnk 2>&1 || true",
                     env={"HOME": home})
        assert cp.returncode == 0, (home, cp.stderr)
        assert cp.stdout.startswith("ok\n"), (home, cp.stdout)
        assert "bug in lnk" not in cp.stderr, cp.stderr
        lnk_said(cp)


def test_home_with_dot_dot_is_refused_clearly(lnk, work):
    home = str(lnk.home / ".." / lnk.home.name)
    cp = lnk.run("--write", ".", "--", "true", env={"HOME": home})
    assert cp.returncode == 125, cp
    assert "HOME names your home folder with '.' or '..'" in cp.stderr
    lnk_said(cp)


def test_spec_asks_for_what_flags_add_never_for_what_is_removed(
        lnk, home, work):
    """Asked first by what a run opens: a flag beside an accepted spec that
    adds a host, a port or a variable asks (naming the flag); a --write
    below the spec's folder, an edit that only removes, never asks."""
    (work / "sub").mkdir()
    (work / "app.toml").write_text(
        'version = 1\n[files]\nwrite = ["."]\n[internet]\n'
        'hosts = ["a.lnk-test", "b.lnk-test"]\n[commands]\n'
        'allow = ["true"]\n')
    run = lambda *a: lnk.run(*a, start_new_session=True,  # noqa: E731
                             stdin=subprocess.DEVNULL)
    assert run("--yes", "--spec", "app.toml", "--", "true").returncode == 0
    for flag, value in (("--internet-host", "c.lnk-test"),
                        ("--port", "8080"), ("--env", "HOME_TOKEN")):
        cp = run("--spec", "app.toml", flag, value, "--", "true")
        assert cp.returncode == 125, (flag, cp)
        assert f"with {flag} beside it" in cp.stderr, cp.stderr
    # narrower: a folder below, fewer hosts, a grant left out
    cp = run("--spec", "app.toml", "--write", str(work / "sub"), "--",
             "true")
    assert cp.returncode == 0, cp.stderr
    cp = run("--spec", "app.toml", "--internet-host", "a.lnk-test", "--",
             "true")
    assert cp.returncode == 0, cp.stderr
    (work / "app.toml").write_text(
        'version = 1\n[files]\nwrite = ["."]\n[commands]\nallow = ["true"]\n')
    cp = run("--spec", "app.toml", "--", "true")
    assert cp.returncode == 0, cp.stderr


def test_a_folder_below_an_accepted_one_that_was_kept_closed_asks(
        lnk, home, work):
    """Invariant 6 (what a spec opens is shown first), promise: a run that
    opens what no acceptance of the spec opened asks first.

    Threat: a folder below an accepted one counted as narrower, even where
    the accepted run kept it closed: a dot entry at the top of its write
    folder (read only: `.git/hooks`, `.vscode`) or a folder it hid. The
    program rewrote its own spec (in its write folder) to write
    `.git/hooks` too, and the next run planted a hook with no question,
    which the user's next commit ran; a flag beside the spec granting a
    hidden folder's file was not asked about either."""
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / "secret" / "inner").mkdir(parents=True)
    (work / "ro" / "sub").mkdir(parents=True)
    (work / "app.toml").write_text(
        'version = 1\n[files]\nwrite = ["."]\nread = ["ro"]\n'
        'hide = ["secret"]\n[commands]\nallow = ["true"]\n')
    run = lambda *a: lnk.run(*a, start_new_session=True,  # noqa: E731
                             stdin=subprocess.DEVNULL)
    assert run("--yes", "--spec", "app.toml", "--", "true").returncode == 0
    # a flag beside it: writing the kept dot entry, showing the hidden
    # folder (reading the dot entry, readable before, is narrower)
    for grant, below in (("--write", work / ".git" / "hooks"),
                         ("--write", work / "secret" / "inner"),
                         ("--read", work / "secret" / "inner")):
        cp = run("--spec", "app.toml", grant, str(below), "--", "true")
        assert cp.returncode == 125, (grant, below, cp.stderr)
    cp = run("--spec", "app.toml", "--read", str(work / ".git" / "hooks"),
             "--read", str(work / "ro"), "--", "true")
    assert cp.returncode == 0, cp.stderr
    # a --read beside it replaces the file's: ro/, read only inside the
    # write folder, would be written
    cp = run("--spec", "app.toml", "--read", str(work / ".git" / "hooks"),
             "--", "true")
    assert cp.returncode == 125, cp.stderr
    # the spec edited to open them
    # (a submodule's git directory, kept whole, is a dot entry below)
    for extra in ('write = [".", ".git/hooks"]', 'write = [".", ".vscode"]',
                  'write = ["."]\nread = ["secret/inner"]',
                  'write = ["ro"]', 'write = [".", "ro/sub"]',
                  'write = [".", "sub/.git"]', 'write = [".", "sub/.git/x"]',
                  'write = [".", "bare.git/hooks"]'):
        (work / ".vscode").mkdir(exist_ok=True)
        (work / "sub" / ".git" / "x").mkdir(parents=True, exist_ok=True)
        (work / "bare.git" / "hooks").mkdir(parents=True, exist_ok=True)
        (work / "app.toml").write_text(
            f'version = 1\n[files]\n{extra}\nhide = ["secret"]\n'
            '[commands]\nallow = ["true"]\n')
        cp = run("--spec", "app.toml", "--", "true")
        assert cp.returncode == 125, (extra, cp.stderr)
    # still narrower: a plain folder below the accepted one
    (work / "app.toml").write_text(
        'version = 1\n[files]\nwrite = ["."]\nread = ["ro"]\n'
        'hide = ["secret"]\n[commands]\nallow = ["true"]\n')
    (work / "src").mkdir()
    cp = run("--spec", "app.toml", "--write", str(work / "src"), "--",
             "true")
    assert cp.returncode == 0, cp.stderr


def test_what_lnk_kept_read_only_below_an_accepted_folder_asks(lnk, home,
                                                                 work):
    """Invariant 6 (what a spec opens is shown first), promise: a run that
    opens what no acceptance of the spec opened asks first.

    Threat: the program rewrote its own spec (in its write folder) from
    `write = ["."]` to a folder below it that the accepted run kept read
    only by what it is, not by its name (a folder on the user's PATH,
    ~/bin under `write = ["~"]`), or left out a read folder the accepted
    run had inside its write folder (read only there); the next run took
    it for a narrower one and wrote there with no question. A plain
    folder below stays narrower."""
    run = lambda *a, env=None, cwd=None: lnk.run(  # noqa: E731
        *a, start_new_session=True, stdin=subprocess.DEVNULL, env=env,
        cwd=cwd)
    app = work / "app.toml"
    tools = work / "tools"
    tools.mkdir()
    (work / "src").mkdir()
    (work / "ro").mkdir()
    path = {"PATH": f"{tools}:/usr/local/bin:/usr/bin:/bin"}

    def spec(files):
        app.write_text(f'version = 1\n[files]\n{files}\n'
                       '[commands]\nallow = ["true"]\n')
    spec('write = ["."]\nread = ["ro"]')
    assert run("--yes", "--spec", app, "--", "true", env=path
               ).returncode == 0
    for files, at in (('write = ["tools"]', tools), ('write = ["."]', work),
                      ('write = ["src", "tools"]', work / "src")):
        spec(files)
        cp = run("--spec", app, "--", "true", env=path, cwd=at)
        assert cp.returncode == 125, (files, cp.stderr)
        assert "opens something different" in cp.stderr, cp.stderr
    spec('write = ["src"]')
    cp = run("--spec", app, "--", "true", env=path, cwd=work / "src")
    assert cp.returncode == 0, cp.stderr

    # ~/bin, kept read only under `write = ["~"]`
    (home / "bin").mkdir()
    (home / "code").mkdir()
    happ = home / "app.toml"
    happ.write_text('version = 1\n[files]\nwrite = ["~"]\n'
                    '[commands]\nallow = ["true"]\n')
    assert run("--yes", "--spec", happ, "--", "true").returncode == 0
    happ.write_text('version = 1\n[files]\nwrite = ["~/bin"]\n'
                    '[commands]\nallow = ["true"]\n')
    cp = run("--spec", happ, "--", "true", cwd=home / "bin")
    assert cp.returncode == 125, cp.stderr
    happ.write_text('version = 1\n[files]\nwrite = ["~/code"]\n'
                    '[commands]\nallow = ["true"]\n')
    cp = run("--spec", happ, "--", "true", cwd=home / "code")
    assert cp.returncode == 0, cp.stderr


def question_declined(lnk, app):
    """The question `run --spec app -- true` asks on a terminal, answered
    no: what it showed (bytes); the run must not go on."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    pid, fd = spawn_on_pty(lnk, ["--spec", app, "--", "true"])
    try:
        out = read_until(fd, b"[y/N]")
        os.write(fd, b"n\r")
        out += read_until(fd, b"\x00", timeout=10)
    finally:
        assert wait_status(pid) != 0
        os.close(fd)
    return out


def test_a_grant_accepted_with_a_flag_is_not_the_files_alone(lnk, work):
    """Invariant 6 (what a spec opens is shown first), promise: a spec
    that opens something different now asks first.

    Threat: the person ran an accepted spec once with `--read X` (or
    `--internet-host '*'`) beside it, and the program, during that run,
    wrote the grant into its own spec; the next plain run took the file
    alone for that acceptance and ran with the grant unasked."""
    run = lambda *a: lnk.run(  # noqa: E731
        *a, start_new_session=True, stdin=subprocess.DEVNULL)
    app = work / "app.toml"
    other = work.parent / "other-proj"
    other.mkdir()
    app.write_text('version = 1\n[files]\nwrite = ["."]\n'
                   '[commands]\nallow = ["true"]\n')
    assert run("--yes", "--spec", app, "--", "true").returncode == 0
    assert run("--yes", "--spec", app, "--read", other, "--",
               "true").returncode == 0
    app.write_text('version = 1\n[files]\nwrite = ["."]\n'
                   f'read = ["{other}"]\n'
                   '[commands]\nallow = ["true"]\n')
    cp = run("--spec", app, "--", "true")
    assert cp.returncode == 125, cp.stderr
    # nor with a flag beside it that sets another key
    junk = work / "junk"
    junk.mkdir()
    for extra in (("--hide", junk), ("--ask-wait", "30"),
                  ("--changes", "full")):
        cp = run("--spec", app, *extra, "--", "true")
        assert cp.returncode == 125, (extra, cp.stderr)
    # the same flag beside it again is what was accepted
    cp = run("--spec", app, "--read", other, "--", "true")
    assert cp.returncode == 0, cp.stderr
    # asked, the question says the grant is the file's now
    out = question_declined(lnk, app)
    assert (f"+ reads {other} (by --read beside it when you accepted "
            "it; by the file now)").encode() in out, out


def test_a_read_folder_left_out_is_asked_as_written(lnk, work):
    """Invariant 6 (what a spec opens is shown first): a read folder
    inside the write folder, left out of the spec, is written now; the
    question said only "- reads ro", which reads as a narrowing."""
    app = work / "app.toml"
    (work / "ro").mkdir()
    app.write_text('version = 1\n[files]\nwrite = ["."]\nread = ["ro"]\n'
                   '[commands]\nallow = ["true"]\n')
    assert lnk.run("--yes", "--spec", app, "--", "true",
                   stdin=subprocess.DEVNULL).returncode == 0
    app.write_text('version = 1\n[files]\nwrite = ["."]\n'
                   '[commands]\nallow = ["true"]\n')
    out = question_declined(lnk, app)
    assert (f"+ writes {work / 'ro'} (read only when you accepted "
            "it)").encode() in out, out


def test_a_specs_name_is_shown_and_another_asks_again(lnk, work):
    """Invariant 6 (what a spec opens is shown first): a spec's name opens
    nothing, but its sandbox's calls are logged, counted and paused under
    it; a hostile spec named itself main-link (an agent's name) and the
    question never showed it. It is shown now, and a spec renamed after
    it was accepted asks again."""
    import os
    from test_terminal import read_until, spawn_on_pty, wait_status
    f = work / "n.toml"
    f.write_text('version = 1\nname = "app"\n[commands]\n'
                 'allow = ["true"]\n')
    pid, fd = spawn_on_pty(lnk, ["--spec", str(f), "--", "true"])
    try:
        out = read_until(fd, b"[y/N]").decode()
        os.write(fd, b"n\n")
    finally:
        wait_status(pid)
        os.close(fd)
    assert "is named app" in out, out
    run = lambda *a: lnk.run(*a, start_new_session=True,  # noqa: E731
                             stdin=subprocess.DEVNULL)
    assert run("--yes", "--spec", str(f), "--", "true").returncode == 0
    assert run("--spec", str(f), "--", "true").returncode == 0
    f.write_text('version = 1\nname = "main-link"\n[commands]\n'
                 'allow = ["true"]\n')
    cp = run("--spec", str(f), "--", "true")
    assert cp.returncode == 125, cp.stderr


def test_a_long_target_pushes_only_its_own_row(lnk):
    """A host of 200 characters the program named widened the TARGET
    column of every row of 'lnk sandbox log', so each row's outcome stood
    200 columns to the right, out of sight. A value past 64 characters
    now overflows its own row only."""
    long_host = "a" * 60 + "." + "b" * 60 + "." + "c" * 60 + ".invalid"
    code = ("import socket\n"
            "for h in ('short.invalid', '" + long_host + "'):\n"
            "    s = socket.create_connection(('127.0.0.1', 3128))\n"
            "    s.sendall(f'CONNECT {h}:443 HTTP/1.1\\r\\n\\r\\n'.encode())\n"
            "    s.recv(100); s.close()\n")
    cp = lnk.run("--name", "wide", "--internet-host", "granted.invalid",
                 "--", "python3", "-c", code)
    assert cp.returncode == 0, cp.stderr
    out = lnk("sandbox", "log", "--sandbox", "wide", check=True).stdout
    short = [l for l in out.splitlines() if "short.invalid" in l]
    assert short, out
    assert short[0].index("refused") < 120, out
    assert any(long_host in l for l in out.splitlines()), out
