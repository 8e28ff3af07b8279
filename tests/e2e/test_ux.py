"""What the user sees: lnk's own words instead of bubblewrap's, where the
program starts, what the sandbox is called inside, and grants that do
nothing yet. Each runs as an unprivileged user and as root."""
import os
import pathlib
import stat

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

def test_tool_and_browser_open_say_they_do_nothing_yet(lnk):
    cp = lnk.run("--write", ".", "--tool", "gh", "--", "true")
    assert cp.returncode == 0, cp
    assert "--tool: tools are not served yet" in cp.stderr
    cp = lnk.run("--write", ".", "--browser-open", "https://example.com/",
                 "--", "true")
    assert cp.returncode == 0, cp
    assert "--browser-open: opening pages in the browser is not served" \
        in cp.stderr
    cp = lnk.run("--write", ".", "--", "true")
    assert cp.stderr == "", cp.stderr
