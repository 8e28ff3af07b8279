"""A tool's view and folder (src/tools/view.h, src/tools/folder.h), run
with real tools through tests/helpers/tool_view, which starts a program
the way lnk's tools broker starts a tool: the folder checked against the
write folders, then the program in its own view, with the hidden paths
closed. test_tools.py tries the same attacks through lnk itself.
"""
import os
import subprocess

import pytest

from conftest import helper

GIT = "/usr/bin/git"


def view(*args, cwd):
    return subprocess.run([helper("tool_view"), *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def place(tmp_path):
    """A write folder w (the user's repository at its top), a secret
    folder, and a folder outside for marks."""
    w = tmp_path / "w"
    w.mkdir()
    subprocess.run([GIT, "init", "-q", str(w)], check=True)
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "k").write_text("KEYSECRET\n")
    return tmp_path


def test_repository_made_inside_the_write_folder_is_refused(place):
    """Threat: a repository made in the write folder whose fsmonitor is a
    command: git status there runs it, outside."""
    w, mark = place / "w", place / "OUTSIDE_MARK"
    subprocess.run([GIT, "init", "-q", str(w / "sub")], check=True)
    subprocess.run([GIT, "-C", str(w / "sub"), "config", "core.fsmonitor",
                    f"touch {mark}"], check=True)
    cp = view("--write", w, "--", GIT, "status", cwd=w / "sub")
    assert cp.returncode == 126, (cp.stdout, cp.stderr)
    assert not mark.exists()
    assert f"'{w}/sub' lies inside the write folder '{w}'" in cp.stderr
    # the same repository, found upward from a folder deeper in it
    (w / "sub" / "deep").mkdir()
    cp = view("--write", w, "--", GIT, "status", cwd=w / "sub" / "deep")
    assert cp.returncode == 126 and not mark.exists(), cp.stderr
    # at the top, the user's own repository works
    cp = view("--write", w, "--", GIT, "status", cwd=w)
    assert cp.returncode == 0, cp.stderr
    assert "No commits yet" in cp.stdout or "On branch" in cp.stdout


def test_write_dot_files_top_is_refused(place):
    w = place / "w"
    cp = view("--write", w, "--write-dot-files", w, "--", GIT, "status",
              cwd=w)
    assert cp.returncode == 126
    assert "--write-dot-files" in cp.stderr


def test_hidden_file_cannot_be_read_by_the_tool(place):
    """Threat: `git diff --no-index FILE /dev/null` prints any file the
    user can read."""
    secret = place / "secret"
    cp = view("--write", place / "w", "--hide", secret, "--", GIT, "diff",
              "--no-index", secret / "k", "/dev/null", cwd=place / "w")
    assert "KEYSECRET" not in cp.stdout + cp.stderr
    assert f"Could not access '{secret}/k'" in cp.stderr, cp.stderr
    # everything else is as it was: the same user, the home, the files
    cp = view("--hide", secret, "--", "/bin/sh", "-c",
              f"id -u; id -g; cat {place}/w/.git/HEAD", cwd=place)
    assert cp.stdout.split()[:2] == [str(os.getuid()), str(os.getgid())]
    assert "ref: refs/heads/" in cp.stdout


def test_tool_cannot_unmount_what_hides(place):
    """A tool may make a user and mount namespace of its own (where it
    holds every capability): the mounts it inherits are locked; as root,
    the tool holds no capability of the host's either."""
    secret, m = place / "secret", place / "m"
    m.mkdir()
    # a bind of the parent without its submounts would show what lies
    # under the cover: the kernel refuses it while they are locked
    uncover = (f"umount -l {secret}; umount -l /proc; "
               f"mount --bind {place} {m}; cat {m}/secret/k; "
               f"cat {secret}/k")
    script = (f"{uncover} 2>/dev/null; "
              f"unshare -Urm sh -c '{uncover}; ls /proc | wc -l'")
    cp = view("--hide", secret, "--", "/bin/sh", "-c", script, cwd=place)
    assert "KEYSECRET" not in cp.stdout + cp.stderr


def test_tool_sees_only_its_own_processes(place):
    cp = view("--", "/bin/sh", "-c",
              "for p in /proc/[0-9]*; do echo ${p#/proc/}; done",
              cwd=place)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.split() == ["1", "2"]


def test_tool_status_and_signal(place):
    cp = view("--", "/bin/sh", "-c", "exit 7", cwd=place)
    assert cp.returncode == 7
    cp = view("--", "/bin/sh", "-c", "kill -TERM $$", cwd=place)
    assert cp.returncode == 128 + 15
