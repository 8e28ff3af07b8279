"""Say why, where the person looks: a write the sandbox refuses on an
existing protected entry (.git, .envrc, .vscode) is named once by lnk on
stderr, with the flag that allows it, and logged, instead of the kernel's
"Read-only file system" or "Device or resource busy"; the log keeps a
reason whole and a tool refusal's whole call; and the small answers
(`answer`, `log` with a filter, a page nothing can open, the thrown-away
home, `man lnk`, `run --help`) say what they did or what was asked.

Each test runs as root and as an unprivileged user (run-all runs the file
as both)."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import on_lnk_path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(work, *args):
    subprocess.run(["git", *args], cwd=str(work), check=True,
                   capture_output=True, env={**os.environ, **GIT_ENV})


@pytest.fixture
def repo(work):
    """An existing repository with a commit, a .envrc and a .vscode."""
    git(work, "init", "-q", ".")
    (work / "a").write_text("a\n")
    git(work, "add", "a")
    git(work, "commit", "-qm", "first")
    (work / ".envrc").write_text("export A=1\n")
    (work / ".vscode").mkdir()
    (work / ".vscode" / "settings.json").write_text("{}\n")
    return work


def run_in(lnk, script, *grants):
    args = []
    for k in GIT_ENV:
        args += ["--env", k]
    return lnk.run(*args, "--write", ".", *grants, "--", "/bin/sh", "-c",
                   script, env=GIT_ENV)


def refused_lines(cp, entry):
    """lnk's own lines about entry (the program's own errors are not)."""
    return [l for l in cp.stderr.splitlines()
            if l.startswith("lnk: refused") and entry in l]


def file_rows(lnk):
    cp = lnk("sandbox", "log", "--refused", "--json", check=True)
    rows = [json.loads(l) for l in cp.stdout.splitlines() if l.strip()]
    return [r for r in rows if r["verb"] == "file"]


def one_named(lnk, cp, work, entry):
    """Exactly one lnk line names entry in work and the flag that allows
    it, and exactly one log row holds it with the same fix."""
    lines = refused_lines(cp, entry)
    assert len(lines) == 1, cp.stderr
    assert str(work) in lines[0], lines
    assert f"--write-dot-files {work}" in lines[0], lines
    rows = [r for r in file_rows(lnk) if r["target"] == f"{work}/{entry}"]
    assert len(rows) == 1, file_rows(lnk)
    assert f"--write-dot-files {work}" in rows[0]["reason"], rows


def test_commit_in_an_existing_repository_names_git_once(lnk, repo):
    """git commit writes .git/index.lock: refused by the read-only .git,
    which lnk names once (two commits, one line, one row), with
    --write-dot-files; the program still sees the kernel's error."""
    cp = run_in(lnk, "echo b >> a; git commit -qam one; git commit -qam two")
    assert cp.returncode != 0, cp
    assert "index.lock" in cp.stderr, cp.stderr  # git's own words stay
    one_named(lnk, cp, repo, ".git")
    line = refused_lines(cp, ".git")[0]
    assert ".git/index.lock" in line, line  # what was written, in it


def test_commit_on_a_terminal_shows_the_line_once(lnk, repo):
    """On a person's terminal (lnk relays the program's pty): lnk's line
    is there, whole, once, beside git's own error."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    args = []
    for k in GIT_ENV:
        args += ["--env", k]
    lnk.env = (lambda base: lambda extra=None: {**base(extra), **GIT_ENV})(
        lnk.env)
    pid, fd = spawn_on_pty(lnk, [*args, "--write", ".", "--", "/bin/sh",
                                 "-c", "echo b >> a; git commit -qam one; "
                                 "git commit -qam two; echo done"])
    try:
        out = read_until(fd, b"done\r\n")
    finally:
        wait_status(pid)
        os.close(fd)
    text = out.decode(errors="replace")
    lines = [l for l in text.splitlines() if l.startswith("lnk: refused")]
    assert len(lines) == 1, text
    assert lines[0].startswith("lnk: refused to write .git/index.lock in "
                               f"{repo}: .git is kept read only"), lines
    assert lines[0].rstrip("\r").endswith(
        f"--write-dot-files {repo} allows it"), lines


def test_edit_of_envrc_is_named_once(lnk, repo):
    cp = run_in(lnk, "echo 'export B=2' >> .envrc; echo x > .envrc")
    assert cp.returncode != 0, cp
    one_named(lnk, cp, repo, ".envrc")
    assert (repo / ".envrc").read_text() == "export A=1\n"


def test_edit_of_vscode_settings_is_named_once(lnk, repo):
    cp = run_in(lnk, "echo '{\"x\":1}' > .vscode/settings.json")
    assert cp.returncode != 0, cp
    one_named(lnk, cp, repo, ".vscode")
    assert ".vscode/settings.json" in refused_lines(cp, ".vscode")[0]


def test_rm_of_envrc_is_named_once(lnk, repo):
    """unlink of the read-only mount is EBUSY: the program sees that,
    the person sees lnk's line."""
    cp = run_in(lnk, "rm -f .envrc; rm -f .envrc")
    assert cp.returncode != 0, cp
    assert "busy" in cp.stderr, cp.stderr
    one_named(lnk, cp, repo, ".envrc")
    assert (repo / ".envrc").exists()


def test_rename_over_truncate_and_chmod_are_named_once(lnk, repo):
    """Rename over it, truncate it, change its mode, rm -rf .git: each is
    refused, and each entry is named once in all."""
    cp = run_in(lnk, "mv a .envrc; truncate -s0 .envrc; chmod 600 .envrc;"
                     " rm -rf .git .vscode; exit 0")
    assert cp.returncode == 0, cp
    for entry in (".envrc", ".git", ".vscode"):
        one_named(lnk, cp, repo, entry)
    assert (repo / ".envrc").read_text() == "export A=1\n"
    assert (repo / ".git" / "HEAD").exists()


def test_nothing_named_when_dot_files_are_writable(lnk, repo):
    """--write-dot-files: the commit and the edit work, and lnk says
    nothing of them."""
    cp = run_in(lnk, "echo b >> a; git commit -qam one; rm .envrc",
                "--write-dot-files", ".")
    assert cp.returncode == 0, cp
    assert "lnk: refused" not in cp.stderr, cp.stderr
    assert not (repo / ".envrc").exists()
    assert file_rows(lnk) == []


def test_a_write_in_a_read_folder_is_not_named(lnk, repo, home):
    """A --read folder is read only too, but nothing there is kept: the
    kernel's words alone, no lnk line."""
    other = home / "other"
    other.mkdir()
    (other / "f").write_text("x")
    cp = run_in(lnk, f"echo y > {other}/f", "--read", str(other))
    assert cp.returncode != 0, cp
    assert "Read-only file system" in cp.stderr, cp.stderr
    assert "lnk: refused" not in cp.stderr, cp.stderr


# --- the log keeps a reason whole, and a tool refusal's whole call ---

TOOL = "#!/bin/sh\necho ran \"$@\"\n"
CALL = ["pr", "view", "123", "--comments", "--json",
        "title,body,author,labels,comments,reviews,state,url"]


def log_json(lnk, *args):
    cp = lnk("sandbox", "log", "--json", *args, check=True)
    return [json.loads(l) for l in cp.stdout.splitlines() if l.strip()]


def test_a_long_reason_and_the_call_come_back_whole(lnk, tmp_path):
    """A tool's call refused with no one to ask: its reason ends with the
    command that lets it through, far past 95 bytes, and the log gives it
    whole, as text and as JSON; the target is the call, not the tool's
    name."""
    on_lnk_path(lnk, tmp_path / "bin", "mytool", TOOL)
    cp = lnk.run("--name", "whole", "--tool", "mytool", "--", "mytool",
                 *CALL, stdin=subprocess.DEVNULL)
    assert cp.returncode == 126, cp
    fix = "lnk sandbox tool add mytool --allow '" + " ".join(CALL) + "'"
    rows = log_json(lnk, "--sandbox", "whole")
    assert len(rows) == 1, rows
    assert rows[0]["target"] == "mytool " + " ".join(CALL), rows
    assert rows[0]["reason"].endswith(fix), rows
    assert len(rows[0]["reason"]) > 200, rows
    text = lnk("sandbox", "log", "--sandbox", "whole", check=True).stdout
    assert text.rstrip("\n").endswith(fix), text
    assert "mytool " + " ".join(CALL) in text, text


# --- the small answers ---

def test_log_says_what_was_asked_when_nothing_matches(lnk):
    cp = lnk("sandbox", "log", check=True)
    assert cp.stdout == "no calls logged yet\n", cp
    lnk.run("--name", "one", "--write", ".", "--", "/bin/sh", "-c",
            "echo x > .envrc", check=False)
    assert lnk("sandbox", "log", "--refused", check=True).stdout.count(
        "\n") == 2  # the heading and the row
    cp = lnk("sandbox", "log", "--sandbox", "nosuch", check=True)
    assert cp.stdout == ("no sandbox named nosuch has logged a call "
                         "('lnk sandbox log' shows every sandbox's)\n"), cp
    cp = lnk("sandbox", "log", "--since", "2099-01-01T00:00:00Z",
             check=True)
    assert cp.stdout == "no calls since 2099-01-01T00:00:00Z in the log\n"
    cp = lnk("sandbox", "log", "--sandbox", "one", "--since", "0s",
             check=True)
    # a span is said with the time it stands for (the row may fall in the
    # same second: then it is shown instead)
    assert (cp.stdout.startswith("no calls of sandbox one since ") and
            cp.stdout.endswith(" (--since 0s) in the log\n")) or \
        "TIME" in cp.stdout, cp
    cp = lnk("sandbox", "log", "--sandbox", "one", "--since",
             "2099-01-01T00:00:00Z", "--refused", check=True)
    assert cp.stdout == ("no refused calls of sandbox one since "
                         "2099-01-01T00:00:00Z in the log\n"), cp


def no_opener(lnk):
    path = lnk.env()["PATH"]
    if any(os.access(os.path.join(d, "xdg-open"), os.X_OK)
           for d in path.split(":")):
        pytest.skip("xdg-open is installed here: nothing to miss")


def test_a_page_with_a_display_but_no_opener_is_shown(lnk):
    """DISPLAY set, no xdg-open: not "no desktop", but what is missing,
    and the page on lnk's stderr so that the person can open it."""
    no_opener(lnk)
    url = "https://example.org/login?next=%2Fhome"
    cp = lnk.run("--browser-open", "https://example.org/", "--", "xdg-open",
                 url, env={"DISPLAY": ":99"})
    assert cp.returncode == 126, cp
    assert "no desktop" not in cp.stderr, cp.stderr
    assert "xdg-open, which opens pages on this desktop, is not " \
           "installed" in cp.stderr, cp.stderr
    line = [l for l in cp.stderr.splitlines()
            if l.startswith("lnk: sandbox ") and "open a page" in l]
    assert len(line) == 1 and line[0].endswith(": " + url), cp.stderr
    # with no display at all: "no desktop", and the page all the same
    cp = lnk.run("--browser-open", "https://example.org/", "--", "xdg-open",
                 url)
    assert "no desktop here to open it in" in cp.stderr, cp.stderr
    assert url in cp.stderr, cp.stderr


def test_a_page_refused_for_dots_is_logged_so(lnk):
    cp = lnk.run("--name", "dots", "--browser-open", "https://example.org/",
                 "--", "xdg-open", "https://example.org/docs/../admin",
                 env={"DISPLAY": ":99"})
    assert cp.returncode != 0, cp
    rows = log_json(lnk, "--sandbox", "dots")
    assert len(rows) == 1, rows
    assert "'.' or '..' folder" in rows[0]["reason"], rows
    assert "admin" not in json.dumps(rows), rows  # never a page's path


def test_run_help_names_command_folders(lnk):
    cp = lnk("sandbox", "run", "--help", check=True)
    text = " ".join(cp.stdout.split())
    assert "a folder ending in '/' for every program under it" in text, \
        cp.stdout


def test_answer_says_what_it_answered(lnk, tmp_path):
    """`lnk sandbox answer ID no` says the answer, the id, the sandbox and
    the question; the refusal's row has the whole call as its target."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    from test_ask_terminal import Pane, ASK_ID
    on_lnk_path(lnk, tmp_path / "bin", "mytool", TOOL)
    p = Pane(lnk, tmp_path, ["--name", "asker", "--tool", "mytool pr", "--",
                             "/bin/sh", "-c",
                             "mytool issue close 7; echo st=$?"])
    try:
        t = p.wait_for(ASK_ID)
        qid = ASK_ID.search(t).group(1)
        cp = lnk("sandbox", "answer", qid, "no", check=True)
        assert cp.stdout.startswith(
            f"answered no to {qid} (sandbox asker): mytool issue"), cp
        p.wait_for("st=126")
    finally:
        p.close()
    rows = log_json(lnk, "--sandbox", "asker")
    assert [(r["target"], r["outcome"]) for r in rows] == [
        ("mytool issue close 7", "refused")], rows
    assert f"asked {qid}: answered no" in rows[0]["reason"], rows


def test_thrown_away_home_says_nothing_of_tools_own_dot_names(lnk):
    """npm's cache and logs, a tool's ~/.cache: never the person's files,
    so no line after every run; a file of the program's own still is."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    pid, fd = spawn_on_pty(lnk, [
        "--write", ".", "--", "/bin/sh", "-c",
        "mkdir -p ~/.npm/_logs ~/.cache/x; echo l > ~/.npm/_logs/debug.log;"
        " echo c > ~/.cache/x/y; echo done"])
    try:
        out = read_until(fd, b"\x00never")
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert status == 0 and b"done" in out, out
    assert b"thrown away" not in out, out

    pid, fd = spawn_on_pty(lnk, [
        "--write", ".", "--", "/bin/sh", "-c",
        "mkdir -p ~/.npm; echo l > ~/.npm/l; echo r > ~/report.txt"])
    try:
        out = read_until(fd, b"with --write to keep files")
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert b"lnk: 1 file the program wrote in the home folder was " \
           b"thrown away" in out, out


def test_refusal_lines_bounded_and_names_cut(lnk, home):
    """A program that may write the home refuses on every new dot name:
    it chooses how many lines lnk says, and their names' text. A flood
    scrolled a question lnk asks off the screen, and a long name wrapped
    to start a row with the program's words, lined up as lnk's rows. The
    lines stop after ten, with one that says the log names the rest (it
    does, each once); a name is cut to 40 bytes and says its length."""
    long = "." + "x" * 150
    script = ("for i in $(seq 1 30); do touch ~/.n$i; done 2>/dev/null; "
              f"touch ~/{long} 2>/dev/null; true")
    cp = lnk.run("--write", home, "--", "/bin/sh", "-c", script)
    assert cp.returncode == 0, cp.stderr
    lines = [x for x in cp.stderr.splitlines()
             if x.startswith("lnk: refused to create")]
    assert len(lines) == 10, cp.stderr
    assert "lnk: more writes refused; 'lnk sandbox log --refused' names " \
        "them" in cp.stderr, cp.stderr
    assert "x" * 41 not in cp.stderr, cp.stderr
    out = lnk("sandbox", "log", "--json", "--refused", "--lines", "200",
              check=True).stdout
    rows = [json.loads(x) for x in out.splitlines()]
    files = [r for r in rows if r["verb"] == "file"]
    assert len(files) == 31, files
