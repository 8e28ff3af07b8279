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
import pathlib
import subprocess

import pytest

from conftest import LNK, on_lnk_path

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
