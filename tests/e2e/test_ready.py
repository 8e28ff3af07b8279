"""lnk sandbox ready: one line per check, each from a real probe, and exit
0 only when run works (lnk-sandbox(1), COMMANDS,
ready)."""
import json
import os
import pathlib
import pty
import re
import select
import subprocess

import pytest

from conftest import IS_ROOT

CHECKS = ("bubblewrap", "user namespaces", "lnk-init", "landlock",
          "seccomp", "seccomp notify", "limits", "path", "routers")


def test_ready_agrees_with_run(lnk):
    cp = lnk("sandbox", "ready")
    lines = cp.stdout.strip().splitlines()
    assert len(lines) == len(CHECKS) + 1, cp.stdout
    for line in lines[:-1]:
        assert line.split()[0] in ("ok", "warn", "FAIL"), line
    run = lnk.run("--", "/bin/true")
    # ready says yes exactly when a bare run works here.
    assert (cp.returncode == 0) == (run.returncode == 0), (cp.stdout,
                                                           run.stderr)
    if cp.returncode == 0:
        assert lines[-1] == "the sandbox can run here"
        assert lines[0].startswith("ok    bubblewrap ")


def test_ready_json(lnk):
    cp = lnk("sandbox", "ready", "--json")
    doc = json.loads(cp.stdout)
    assert [c["check"] for c in doc["checks"]] == list(CHECKS)
    assert doc["ready"] == (cp.returncode == 0)
    for c in doc["checks"]:
        assert c["verdict"] in ("ok", "warn", "fail") and c["detail"]


def test_ready_names_the_machines_routers_folder(lnk):
    """tests/run-all makes /var/lib/lnk/routers as the package does:
    ready finds it (root's and sticky) and says where the routers every
    user's wires heard are kept."""
    cp = lnk("sandbox", "ready")
    assert ("ok    the routers every user's wires heard are kept in "
            "/var/lib/lnk/routers") in cp.stdout.splitlines(), cp.stdout
    doc = json.loads(lnk("sandbox", "ready", "--json").stdout)
    assert [c["verdict"] for c in doc["checks"]
            if c["check"] == "routers"] == ["ok"], doc


def test_ready_help_and_usage(lnk):
    cp = lnk("sandbox", "ready", "--help")
    assert cp.returncode == 0 and "usage: lnk sandbox ready" in cp.stdout
    cp = lnk("sandbox", "ready", "--jsno")
    assert cp.returncode == 2 and "--json" in cp.stderr


def test_run_help_lists_grants_and_run_flags(lnk):
    cp = lnk.run("--help")
    assert cp.returncode == 0
    for flag in ("--write", "--read", "--hide", "--spec", "--yes", "--env",
                 "--name"):
        assert flag in cp.stdout, flag


def test_run_without_program_is_usage(lnk):
    cp = lnk.run("--write", ".")
    assert cp.returncode == 2
    assert "program" in cp.stderr


# ready where AppArmor restricts user namespaces (Ubuntu 23.10 and newer),
# shown to a test build (LNK_BIN_HOOKS, meson -Dtest_hooks=true): its
# LNK_TEST_HOST_ROOT names a folder whose proc/sys and etc/os-release ready
# reads instead of the host's, and there a restriction stops bubblewrap for
# everyone but root, as AppArmor does.

HOOKS = os.environ.get("LNK_BIN_HOOKS")
GOLDEN = (pathlib.Path(__file__).parent / "golden" /
          "apparmor-bwrap.profile").read_text()
UBUNTU = ('PRETTY_NAME="Ubuntu 24.04.1 LTS"\nNAME="Ubuntu"\n'
          'VERSION_ID="24.04"\nID=ubuntu\n')
needs_hooks = pytest.mark.skipif(
    not HOOKS, reason="LNK_BIN_HOOKS is not set: it names an lnk built with "
    "-Dtest_hooks=true (tests/run-all sets it)")


def fake_host(tmp_path, restrict="1", os_release=UBUNTU):
    root = tmp_path / "host"
    (root / "proc/sys/kernel").mkdir(parents=True)
    (root / "etc").mkdir()
    if restrict is not None:
        (root / "proc/sys/kernel/apparmor_restrict_unprivileged_userns"
         ).write_text(restrict + "\n")
    (root / "etc/os-release").write_text(os_release)
    return root


def ready_hooks(lnk, root, *args, env=None):
    e = {"LNK_TEST_HOST_ROOT": str(root)}
    e.update(env or {})
    return subprocess.run([HOOKS, "sandbox", "ready", *args],
                          capture_output=True, text=True, env=lnk.env(e),
                          cwd=str(lnk.cwd), stdin=subprocess.DEVNULL,
                          timeout=120)


def bwrap_of(out):
    m = re.search(r"^ok +bubblewrap [0-9.]+ \((/[^)]+)\)", out, re.M)
    assert m, out
    return m.group(1)


def commands_in(out):
    """The two commands ready prints, and the profile the first writes."""
    head = "  sudo tee /etc/apparmor.d/bwrap > /dev/null <<'EOF'\n"
    assert head in out, out
    rest = out.split(head, 1)[1]
    profile, after = rest.split("EOF\n", 1)
    assert after.startswith(
        "  sudo apparmor_parser -r /etc/apparmor.d/bwrap\n"), after
    return profile


@needs_hooks
def test_apparmor_restriction_explained_with_the_two_commands(lnk,
                                                              tmp_path):
    cp = ready_hooks(lnk, fake_host(tmp_path))
    if IS_ROOT:
        # AppArmor's restriction is for unprivileged users: root's bwrap
        # works, and ready says whom it stops.
        assert cp.returncode == 0, cp.stdout
        assert "AppArmor restricts them for users other than root" \
            in cp.stdout
        assert "sudo" not in cp.stdout
        return
    assert cp.returncode == 1, cp.stdout
    assert "Ubuntu 24.04.1 LTS restricts unprivileged user namespaces " \
        "with AppArmor" in cp.stdout
    assert "from 23.10 on" in cp.stdout
    profile = commands_in(cp.stdout)
    assert profile == GOLDEN.replace("/usr/bin/bwrap", bwrap_of(cp.stdout))
    assert "FAIL  AppArmor restricts unprivileged user namespaces" \
        in cp.stdout
    assert cp.stdout.endswith("the sandbox cannot run here: fix each FAIL "
                              "above, then run 'lnk sandbox ready' again\n")


@needs_hooks
def test_apparmor_json_keeps_stdout_json(lnk, tmp_path):
    cp = ready_hooks(lnk, fake_host(tmp_path), "--json")
    doc = json.loads(cp.stdout)
    us = [c for c in doc["checks"] if c["check"] == "user namespaces"][0]
    if IS_ROOT:
        assert us["verdict"] == "ok"
        return
    assert doc["ready"] is False and us["verdict"] == "fail"
    assert "apparmor_restrict_unprivileged_userns=1" in us["detail"]
    assert commands_in(cp.stderr).startswith("# lnk: lets bubblewrap")


@needs_hooks
def test_apparmor_elsewhere_and_unrestricted(lnk, tmp_path):
    """The sysctl decides, not the name: another system that restricts
    gets the same offer without Ubuntu's name; with the sysctl at 0 or
    absent nothing is said of AppArmor."""
    if not IS_ROOT:
        cp = ready_hooks(lnk, fake_host(
            tmp_path, os_release='PRETTY_NAME="Debian GNU/Linux 12"\n'
            'ID=debian\nVERSION_ID="12"\n'))
        assert "Debian GNU/Linux 12 restricts unprivileged" in cp.stdout
        assert "23.10" not in cp.stdout
        commands_in(cp.stdout)
        cp = ready_hooks(lnk, fake_host(
            tmp_path / "old", os_release='PRETTY_NAME="Ubuntu 22.04 LTS"\n'
            'ID=ubuntu\nVERSION_ID="22.04"\n'))
        assert "23.10" not in cp.stdout
        commands_in(cp.stdout)
    for i, restrict in enumerate(("0", None)):
        cp = ready_hooks(lnk, fake_host(tmp_path / f"u{i}", restrict))
        assert "AppArmor" not in cp.stdout and "sudo" not in cp.stdout
        assert cp.returncode == 0 or "FAIL" in cp.stdout, cp.stdout


@needs_hooks
def test_apparmor_os_name_is_escaped(lnk, tmp_path):
    """Threat: os-release is a file; its PRETTY_NAME carries terminal
    escapes into ready's explanation."""
    if IS_ROOT:
        pytest.skip("root is not restricted: no explanation to show")
    cp = ready_hooks(lnk, fake_host(
        tmp_path, os_release='PRETTY_NAME="Ubuntu\x1b]0;pwned\x07 24.04"\n'
        'ID=ubuntu\nVERSION_ID="24.04"\n'))
    assert "\x1b" not in cp.stdout and "\x07" not in cp.stdout
    assert "\\x1b]0;pwned" in cp.stdout


def on_pty(argv, env, answer):
    """argv on a terminal; answer is typed at the first "[y/N]"."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(argv[0], argv, env)
    out = b""
    sent = False
    while True:
        r, _, _ = select.select([fd], [], [], 120)
        assert r, out
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if not sent and b"[y/N] " in out:
            os.write(fd, answer)
            sent = True
    _, st = os.waitpid(pid, 0)
    os.close(fd)
    return out.decode().replace("\r\n", "\n"), os.waitstatus_to_exitcode(st)


@needs_hooks
@pytest.mark.parametrize("answer", [b"n\n", b"y\n"])
def test_apparmor_offer_on_a_terminal(lnk, tmp_path, answer):
    if IS_ROOT:
        pytest.skip("root is not restricted: nothing is offered to root")
    # sudo is a stand-in that records what it was asked to run and read
    fake = tmp_path / "bin"
    fake.mkdir()
    log = tmp_path / "sudo.log"
    (fake / "sudo").write_text(
        f"#!/bin/sh\n{{ echo \"sudo $*\"; cat; }} >> {log}\n")
    (fake / "sudo").chmod(0o755)
    env = lnk.env({"LNK_TEST_HOST_ROOT": str(fake_host(tmp_path)),
                   "PATH": f"{fake}:/usr/bin:/bin", "TERM": "dumb"})
    out, rc = on_pty([HOOKS, "sandbox", "ready"], env, answer)
    assert rc == 1, out
    # the explanation and the profile come before the question
    q = out.index("Add this profile now, with sudo? [y/N]")
    assert "Ubuntu 24.04.1 LTS restricts" in out[:q]
    assert GOLDEN.replace("/usr/bin/bwrap", bwrap_of(out)) in out[:q]
    if answer == b"n\n":
        commands_in(out[q:])
        assert not log.exists(), log.read_text()
        return
    # yes: the profile written with sudo tee, then loaded
    assert log.read_text() == (
        "sudo tee /etc/apparmor.d/bwrap\n" +
        GOLDEN.replace("/usr/bin/bwrap", bwrap_of(out)) +
        "sudo apparmor_parser -r /etc/apparmor.d/bwrap\n")
    # the faked restriction stays: ready says the profile did not help
    assert "FAIL  the AppArmor profile for bubblewrap was added, but " \
        "bubblewrap cannot make a sandbox" in out
