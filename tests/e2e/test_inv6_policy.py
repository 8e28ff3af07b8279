"""Invariant 6, policy travels only outward-in: nothing inside can change the
wire, the log, the spec record or its own next run. ~/.lnk is the user's
alone, checked before any command uses it, and never mounted; the
always-hidden folders are known by identity; a grant through a link a
sandbox could have left is refused; the control socket checks its peer;
a spec that opens something new is asked about first, and only the user
answers lnk's questions.

Attacks on it from inside a sandbox, one block a promise: each test
PASSES when the sandbox holds and FAILS when the attack works (more in
attack_helpers.py; a new attack: docs/HACKING.md, "Add an attack test").
"""
# Blocks, one a promise of the invariant:
#   A. ~/.lnk is the user's alone
#   B. The registry and the control sockets
#   C. The hidden folders, known by identity
#   D. The grants of the next run
#   E. lnk's questions
#   F. What lnk suggests or writes as policy

import json
import os
import pathlib
import shutil
import subprocess
import textwrap
import time

import pytest

from conftest import IS_ROOT, LNK
from attack_helpers import (PY, assert_clean, in_private_mounts,
                            lnk_under_mounts, plant, sh, tool_calls)


# =============================================================================
# A. ~/.lnk is the user's alone
#    Promise: ~/.lnk is the user's alone, proved before any command uses it,
#    and never changed from inside.
# =============================================================================


def test_lnk_settings_untouchable_with_home_write(lnk, home):
    """Invariant 6 (policy travels only outward-in), promise: ~/.lnk is the
    user's alone, proved before any command uses it, and never changed from
    inside.

    Threat: --write '~' then move, replace or write into ~/.lnk."""
    (home / ".lnk" / "specs").mkdir(parents=True)
    spec = home / ".lnk" / "specs" / "sandbox.toml"
    spec.write_text("# the user's accepted specs\n")
    # lnk keeps files of its own in ~/.lnk (caches, the log): let it make
    # them first, so what the program does is all that differs.
    lnk.run("--write", home, "--", "true", check=True)
    before = sorted(str(p) for p in (home / ".lnk").rglob("*"))
    cp = sh(lnk, """
        ls -la ~/.lnk; cat ~/.lnk/specs/sandbox.toml
        echo evil > ~/.lnk/specs/sandbox.toml; mkdir -p ~/.lnk/specs
        mv ~/.lnk ~/lnk-moved; rm -rf ~/.lnk; ln -s /tmp ~/.lnk/x
        python3 -c 'import os; os.rename(os.path.expanduser("~/.lnk"), "/tmp/x")'
        true""", "--write", home)
    assert "the user's accepted specs" not in cp.stdout
    assert spec.read_text() == "# the user's accepted specs\n"
    assert sorted(str(p) for p in (home / ".lnk").rglob("*")) == before
    assert not (home / "lnk-moved").exists()


# ~/.lnk holds the log, the registry whose pids `stop` signals, the accepted
# specs and the control sockets: it must be the user's alone, and `stop`
# must signal only what it proves is one of the user's sandboxes.
E2E_USER = "lnk-e2e"


def _other_user():
    import pwd
    try:
        return pwd.getpwnam(E2E_USER)
    except KeyError:
        pytest.skip(f"the user {E2E_USER} does not exist here")


def _settings_refused(lnk, cp, path):
    assert cp.returncode == 125, cp.stdout + cp.stderr
    assert str(path) in cp.stderr, cp.stderr


SWAP = r"""
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b, secs = sys.argv[1].encode(), sys.argv[2].encode(), float(sys.argv[3])
end = time.time() + secs
while time.time() < end:
    libc.renameat2(-100, a, -100, b, 2)  # RENAME_EXCHANGE
"""


def test_a_grant_raced_with_a_link_never_shows_the_home(lnk, home,
                                                        tmp_path):
    """Invariant 6 (lnk's settings are never in reach), promise: what a
    sandbox gets is what the person granted.

    Threat: sandbox A, with --write P, swaps P/X for a relative link
    (../../home) and back, in a loop, while sandbox B is given --read P
    and --write P/X: lnk's real path and its walk for links saw P/X at
    different moments (the grant became the home, which then was bound
    writable), or bwrap followed the link as its mount's destination from
    B's live view of P (the real home over B's empty one) and the folder
    was back by the time lnk-init looked. The swaps run 3 s; B tries 30
    times (an attacker hit about one in five before)."""
    secret = home / "secret.txt"
    secret.write_text("TOPSECRET\n")
    base = tmp_path / "u"
    P = base / "P"
    (P / "X").mkdir(parents=True)
    (P / "L").symlink_to("../../home")
    assert (P / "L" / "secret.txt").exists()  # it leads to the home
    tool = tmp_path / "bin"
    tool.mkdir()
    (tool / "swap.py").write_text(SWAP)
    a = subprocess.Popen(
        [LNK, "sandbox", "run", "--read", str(tool), "--write", str(P),
         "--", "python3", str(tool / "swap.py"), str(P / "X"), str(P / "L"),
         "3"], cwd=lnk.cwd, env=lnk.env(), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        hits = []
        for _ in range(30):
            cp = lnk.run("--read", P, "--write", P / "X", "--", "/bin/sh",
                         "-c", f"cat '{secret}'", stdin=subprocess.DEVNULL)
            if "TOPSECRET" in cp.stdout:
                hits.append(cp.stderr)
        assert hits == [], hits[:2]
    finally:
        a.wait(timeout=30)


@pytest.mark.parametrize("what", ["grant", "kept"])
def test_a_grant_swapped_for_a_link_after_the_checks_is_never_bound(
        lnk, home, what):
    """Invariant 6 (lnk's settings are never in reach), promise: no grant
    opens lnk's settings, and what is bound is what was checked.

    Threat: bwrap binds each granted folder (and each dot entry kept read
    only over itself) by path. A program of another sandbox with --write
    above the grant swaps it for a link to ~/.lnk after lnk's checks
    (while the trust question waits, or between the plan and bwrap's
    mount): the link was followed, and the new sandbox read and wrote
    lnk's log, tool lists and trusted specs. The swap is played by a
    test build's hook at the last moment before bwrap starts."""
    hooks = os.environ.get("LNK_BIN_HOOKS")
    if not hooks:
        pytest.skip("LNK_BIN_HOOKS is not set: it names an lnk built with "
                    "meson -Dtest_hooks=true, which this test needs")
    settings = home / ".lnk" / "sandbox"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "tools.toml").write_text("# the user's\n")
    proj = home / "proj"
    out = proj / "out"
    out.mkdir(parents=True)
    if what == "grant":
        grant, swapped = out, out
    else:  # a dot entry at the top of the write folder, kept read only
        (out / ".vscode").mkdir()
        grant, swapped = out, out / ".vscode"
    swap = (f"mv '{swapped}' '{swapped}.old' && "
            f"ln -s '{home}/.lnk' '{swapped}'")
    cp = subprocess.run(
        [hooks, "sandbox", "run", "--write", str(grant), "--", "/bin/sh",
         "-c", f"ls '{swapped}/sandbox' && echo PWNED > "
         f"'{swapped}/sandbox/tools.toml'; echo ran"],
        cwd=lnk.cwd, env=lnk.env({"LNK_TEST_BEFORE_SPAWN": swap}),
        capture_output=True, text=True, timeout=60)
    assert (settings / "tools.toml").read_text() == "# the user's\n", \
        cp.stdout + cp.stderr
    assert "ran" not in cp.stdout, cp.stdout + cp.stderr
    assert "tools.toml" not in cp.stdout, cp.stdout + cp.stderr
    assert cp.returncode != 0, cp.stdout + cp.stderr
    # said in lnk's words (for a kept entry bwrap may fail first: a link
    # as the destination of its bind leads nowhere inside)
    assert "the program was not started" in cp.stderr or \
        (what == "kept" and "bwrap: Can't bind mount" in cp.stderr), \
        cp.stderr


@pytest.mark.parametrize("cmd", [
    ("sandbox", "run", "--", "true"),
    ("sandbox", "stop"),
    ("sandbox", "log"),
    ("sandbox", "paused"),
])
def test_home_someone_else_can_change_is_refused(lnk, home, cmd):
    """Invariant 6 (policy travels only outward-in), promise: ~/.lnk is the
    user's alone, proved before any command uses it, and never changed from
    inside.

    Threat: root runs lnk with a HOME another user owns (sudo -E, a
    service's HOME=/tmp/x); that user reads the log, forges the registry
    and answers on the control sockets. As a user: a home any account can
    write."""
    if IS_ROOT:
        other = _other_user()
        os.chown(home, other.pw_uid, other.pw_gid)
        os.chmod(home, 0o755)
        what = "not to you"
    else:
        os.chmod(home, 0o777)
        what = "chmod go-w"
    cp = lnk(*cmd)
    _settings_refused(lnk, cp, home)
    assert what in cp.stderr, cp.stderr
    assert not (home / ".lnk").exists()


def test_settings_folder_that_is_a_link_is_refused(lnk, home, tmp_path):
    """Invariant 6 (policy travels only outward-in), promise: ~/.lnk is the
    user's alone, proved before any command uses it, and never changed from
    inside.

    Threat: ~/.lnk is a link to a folder someone else controls."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (home / ".lnk").symlink_to(elsewhere)
    for cmd in (("sandbox", "run", "--", "true"), ("sandbox", "stop"),
                ("sandbox", "traffic")):
        cp = lnk(*cmd)
        _settings_refused(lnk, cp, home / ".lnk")
        assert "symbolic link" in cp.stderr, cp.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_home_link_removed_inside_leaves_no_new_home(lnk, home, tmp_path):
    """Invariant 6 (policy travels only outward-in), promise: ~/.lnk is the
    user's alone and never changed from inside; lnk makes no home of its
    own where the home is gone.

    Threat: HOME runs through a link inside a write folder (HOME=/data/me,
    /data/me -> real, --write /data). The program removes the link (a
    link may be removed, never made again); lnk, at the run's end, made
    the home's path again as a new folder with a new ~/.lnk, inside the
    write folder: this sandbox and any other of that folder could write
    its tools.toml and dot files, and the next run took it for lnk's
    settings, the real ones left unhidden below the write folder."""
    data = tmp_path / "data"
    real = data / "real"
    real.mkdir(parents=True, mode=0o700)
    (real / ".bashrc").write_text("orig\n")
    me = data / "me"
    me.symlink_to("real")
    lnk.home = me
    lnk("sandbox", "paused", check=True)  # ~/.lnk made, in real
    cp = lnk.run("--write", data, "--", "sh", "-c",
                 f"rm {me} && echo removed && touch {data}/x", cwd=data)
    assert "removed" in cp.stdout, (cp.stdout, cp.stderr)
    assert not os.path.lexists(me), (
        "lnk made the home again", sorted(os.listdir(me)))
    assert (real / ".lnk" / "sandbox" / "lnk.db").exists()
    cp = lnk.run("--write", data, "--", "sh", "-c",
                 f"ls {real}/.lnk/sandbox; echo ran", cwd=data)
    assert "ran" not in cp.stdout and cp.returncode != 0, (cp.stdout,
                                                             cp.stderr)
    assert f"'{me}'" in cp.stderr and "home folder" in cp.stderr, cp.stderr
    assert not os.path.lexists(me)


def test_settings_inside_the_folder_must_be_the_users(lnk, home):
    """Invariant 6 (policy travels only outward-in), promise: ~/.lnk is the
    user's alone, proved before any command uses it, and never changed from
    inside.

    Threat: a file or link inside ~/.lnk that someone else owns or can
    write (a forged registry, a spec record pointed elsewhere)."""
    lnk("sandbox", "paused", check=True)  # makes ~/.lnk/sandbox/lnk.db
    db = home / ".lnk" / "sandbox" / "lnk.db"
    os.chmod(db, 0o666)
    cp = lnk("sandbox", "stop")
    _settings_refused(lnk, cp, db)
    assert "chmod go-w" in cp.stderr
    os.chmod(db, 0o600)
    link = home / ".lnk" / "specs"
    link.symlink_to("/tmp")
    cp = lnk("sandbox", "run", "--", "true")
    _settings_refused(lnk, cp, link)
    link.unlink()
    if IS_ROOT:
        other = _other_user()
        os.chown(db, other.pw_uid, other.pw_gid)
        cp = lnk("sandbox", "paused")
        _settings_refused(lnk, cp, db)
        assert "not to you" in cp.stderr
        os.chown(db, 0, 0)
    lnk("sandbox", "paused", check=True)


# Every command the table marks as using ~/.lnk has it proved the user's by
# main() before its own code runs (src/cli/main.c), so a command added
# later cannot forget it.

# The commands that never read or write ~/.lnk.
_NO_SETTINGS = {"ready", "spec", "permissions"}


def _table_commands(lnk):
    cp = lnk("sandbox", "--help", check=True)
    names, listing = [], False
    for line in cp.stdout.splitlines():
        if line == "commands:":
            listing = True
        elif listing and line.startswith("  "):
            names.append(line.split()[0])
        elif listing:
            break
    return names


def test_every_command_using_settings_proves_them_first(lnk, home, tmp_path):
    """Invariant 6 (policy travels only outward-in), promise: ~/.lnk is the
    user's alone, proved before any command uses it, and never changed from
    inside.

    Threat: a command that opens the log, the registry or a control
    socket in a ~/.lnk someone else controls, because it parsed its
    arguments, or forgot the check, before proving ~/.lnk the user's.
    Every command in the table is tried, so a new one is too."""
    names = _table_commands(lnk)
    assert {"run", "enter", "pause", "stop"} <= set(names), names
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (home / ".lnk").symlink_to(elsewhere)
    for name in names:
        if name in _NO_SETTINGS:
            continue
        cp = lnk("sandbox", name)
        _settings_refused(lnk, cp, home / ".lnk")
        assert "symbolic link" in cp.stderr, (name, cp.stderr)
    assert list(elsewhere.iterdir()) == []


def test_helpers_beside_a_users_copy_of_lnk_are_not_taken(lnk, tmp_path):
    """Invariant 6 (policy travels only outward-in), promise: ~/.lnk is the
    user's alone, proved before any command uses it, and never changed from
    inside.

    Threat: lnk finds its helpers in PREFIX/lib/lnk beside its own
    folder, so an unpacked package runs where it lies. A user's own copy
    of lnk (~/bin/lnk) would then take ~/lib/lnk/lnk-init, which a sandbox
    with a --write of the home folder can plant: the program that confines
    the next sandbox. Only a tree that is root's alone counts."""
    if IS_ROOT:
        pytest.skip("root's own files are root's: the tree is trusted")
    prefix = tmp_path / "prefix"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib" / "lnk").mkdir(parents=True)
    shutil.copy2(LNK, prefix / "bin" / "lnk")
    planted = prefix / "lib" / "lnk" / "lnk-init"
    planted.write_text("#!/bin/sh\nexit 0\n")
    planted.chmod(0o755)
    cp = subprocess.run([str(prefix / "bin" / "lnk"), "sandbox", "ready"],
                        capture_output=True, text=True, env=lnk.env(),
                        cwd=str(lnk.cwd), timeout=120)
    assert "lnk-init" in cp.stdout, cp.stdout
    assert str(planted) not in cp.stdout, cp.stdout
    cp = subprocess.run([str(prefix / "bin" / "lnk"), "sandbox", "run",
                         "--", "/bin/true"], capture_output=True,
                        text=True, env=lnk.env(), cwd=str(lnk.cwd),
                        timeout=120)
    assert str(planted) not in cp.stdout + cp.stderr


# =============================================================================
# B. The registry and the control sockets
#    Promise: the registry and the control sockets are believed only when
#    proved: stop and pause act on the user's own sandboxes alone.
# =============================================================================


def _proc_start(pid):
    data = pathlib.Path(f"/proc/{pid}/stat").read_text()
    return int(data[data.rindex(")") + 2:].split()[19])


def test_stop_does_not_kill_a_process_a_forged_row_names(lnk, home):
    """Invariant 6 (policy travels only outward-in), promise: the registry and
    the control sockets are believed only when proved: stop and pause act on
    the user's own sandboxes alone.

    Threat: a registry row naming an unrelated process (forged, or a
    bug): `stop` must prove a process is one of the user's lnk sandboxes
    before it signals it."""
    lnk("sandbox", "paused", check=True)  # creates the registry
    victim = subprocess.Popen(["sleep", "60"])
    try:
        start = _proc_start(victim.pid)
        import sqlite3
        db = sqlite3.connect(str(home / ".lnk" / "sandbox" / "lnk.db"),
                             timeout=5)
        db.execute(
            "INSERT INTO ctl_sandboxes (name, uid, sup_pid, sup_start, "
            "box_pid, box_start, wire_pid, wire_start, socket, "
            "started_ms) VALUES (?,?,?,?,?,?,?,?,?,?)",
            ("forged", os.getuid(), victim.pid, start, victim.pid, start,
             victim.pid, start, "", int(time.time() * 1000)))
        db.commit()
        db.close()
        cp = lnk("sandbox", "stop", timeout=30)
        time.sleep(0.5)
        assert victim.poll() is None, cp.stdout + cp.stderr
        assert "does not run lnk" in cp.stderr, cp.stderr
        assert cp.returncode == 125
    finally:
        victim.kill()
        victim.wait()
        lnk("sandbox", "stop", "--off")


def test_control_client_refuses_a_socket_another_user_serves(lnk, home):
    """Invariant 6 (policy travels only outward-in), promise: the registry and
    the control sockets are believed only when proved: stop and pause act on
    the user's own sandboxes alone.

    Threat: a socket in the run folder served by another account
    answers `pause` with a fake OK while the wire stays open."""
    if not IS_ROOT:
        pytest.skip("a second uid serving a socket needs root")
    other = _other_user()
    lnk("sandbox", "paused", check=True)
    run = home / ".lnk" / "sandbox" / "run"
    run.mkdir(mode=0o700, exist_ok=True)
    path = run / "liar.sock"
    # Bound by root in root's folder, then listening as the other user:
    # SO_PEERCRED names the uid that called listen().
    code = textwrap.dedent(f"""
        import os, socket, struct, time
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind({str(path)!r})
        os.setresgid({other.pw_gid}, {other.pw_gid}, {other.pw_gid})
        os.setresuid({other.pw_uid}, {other.pw_uid}, {other.pw_uid})
        s.listen(4)
        print("ready", flush=True)
        while True:
            c, _ = s.accept()
            b = c.recv(8)
            rep = struct.pack("<4sBBBBBBBBIqQQ88s", b"LNKr", 1, b[5], 0,
                              1, 1, 0, 0, 0, 0, int(time.time() * 1000),
                              0, 0, b"")
            c.sendall(rep)
            c.close()
    """)
    liar = subprocess.Popen([PY, "-c", code], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert liar.stdout.readline().strip() == "ready"
        import sqlite3
        db = sqlite3.connect(str(home / ".lnk" / "sandbox" / "lnk.db"),
                             timeout=5)
        db.execute(
            "INSERT INTO ctl_sandboxes (name, uid, sup_pid, sup_start, "
            "wire_pid, wire_start, socket, started_ms) "
            "VALUES (?,?,?,?,?,?,?,?)",
            ("liar", 0, liar.pid, _proc_start(liar.pid), liar.pid,
             _proc_start(liar.pid), str(path), int(time.time() * 1000)))
        db.commit()
        db.close()
        cp = lnk("sandbox", "pause", "liar")
        assert cp.returncode == 125, cp.stdout + cp.stderr
        assert "paused liar" not in cp.stdout
        assert "not by you" in cp.stderr, cp.stderr
    finally:
        liar.kill()
        liar.wait()


# =============================================================================
# C. The hidden folders, known by identity
#    Promise: the always-hidden folders are known by identity: moved, replaced,
#    planted or seen at a second path, they are never shown.
# =============================================================================


def _agents(home):
    agents = home / "Link" / "Agents"
    (agents / "a1").mkdir(parents=True)
    (agents / "a1" / "secret").write_text("agent-secret\n")
    (home / "Link" / "History").mkdir()
    return agents


def _moved_away(lnk, home):
    """A sandbox with --write ~ moves the folder that holds the agents'
    folder and leaves a decoy. Where the guard refuses that rename, it is
    done here, as a sandbox of an older lnk could have."""
    sh(lnk, "mv ~/Link ~/Link.moved; mkdir -p ~/Link/Agents ~/Link/History",
       "--write", home)
    if not (home / "Link.moved").exists():
        (home / "Link").rename(home / "Link.moved")
        (home / "Link" / "Agents").mkdir(parents=True)
        (home / "Link" / "History").mkdir()


@pytest.mark.parametrize("how", ["moved", "gone", "link"])
def test_moved_agents_folder_is_never_shown(lnk, home, how):
    """Invariant 6 (policy travels only outward-in), promise: the always-hidden
    folders are known by identity: moved, replaced, planted or seen at a second
    path, they are never shown.

    Threat: the agents' folder is hidden by path; once moved or swapped
    for a link, later sandboxes hide a decoy and show the real one."""
    _agents(home)
    lnk.run("--read", home, "--", "true", check=True)  # lnk sees them
    if how == "moved":
        _moved_away(lnk, home)
    elif how == "gone":
        (home / "Link").rename(home / "Link.moved")
    else:
        (home / "Link").rename(home / "Link.moved")
        (home / "Link").mkdir()
        (home / "Link" / "Agents").symlink_to(home / "Link.moved" / "Agents")
        (home / "Link" / "History").mkdir()
    cp = sh(lnk, "cat ~/Link.moved/Agents/a1/secret ~/Link/Agents/a1/secret",
            "--read", home)
    assert "agent-secret" not in cp.stdout, cp.stdout
    assert cp.returncode == 125, cp.stdout + cp.stderr
    assert str(home / "Link" / "Agents") in cp.stderr, cp.stderr
    # Put back, it runs again.
    if how == "link":
        (home / "Link" / "Agents").unlink()
        (home / "Link" / "History").rmdir()
        (home / "Link").rmdir()
    elif how == "moved":
        shutil.rmtree(home / "Link")
    (home / "Link.moved").rename(home / "Link")
    cp = sh(lnk, "ls ~/Link/Agents | wc -l", "--read", home)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.strip() == "0"


def test_missing_hidden_folder_cannot_be_planted(lnk, home):
    """Invariant 6 (policy travels only outward-in), promise: the always-hidden
    folders are known by identity: moved, replaced, planted or seen at a second
    path, they are never shown.

    Threat: with --write '~' and no ~/Link yet, the program makes
    ~/Link/Agents a link (or a folder of its own); every later sandbox
    then refuses to start, or would be shown what the program put there.
    The path to a hidden folder that does not exist is kept like the
    folders that hold one: its names cannot be created."""
    link = home / "Link"
    if link.exists():
        shutil.rmtree(link)
    cp = sh(lnk, """
        mkdir -p ~/Link/Agents; echo mkdir=$?
        ln -s /tmp ~/Link; echo ln=$?
        true""", "--write", home)
    assert not link.exists() and not link.is_symlink(), cp.stdout
    assert "mkdir=0" not in cp.stdout and "ln=0" not in cp.stdout, cp.stdout
    cp = lnk.run("--write", home, "--", "true")
    assert cp.returncode == 0, cp.stderr


def test_folder_holding_a_hidden_folder_not_renamed(lnk, home):
    """Invariant 6 (policy travels only outward-in), promise: the always-hidden
    folders are known by identity: moved, replaced, planted or seen at a second
    path, they are never shown.

    Threat: with --write '~', `mv ~/Link ~/Link.moved; mkdir -p
    ~/Link/Agents`: the next sandbox hides the empty new folder and shows
    the host's agents' files at ~/Link.moved/Agents."""
    (home / "Link" / "Agents").mkdir(parents=True)
    (home / "Link" / "Agents" / "a").write_text("agent\n")
    cp = sh(lnk, "mv ~/Link ~/Link.moved; mkdir -p ~/Link/Agents; true",
            "--write", home)
    assert (home / "Link" / "Agents" / "a").exists(), cp.stderr
    assert not (home / "Link.moved").exists()


def test_real_holder_of_a_hidden_folder_behind_a_link_not_renamed(
        lnk, home, tmp_path):
    """Invariant 6 (policy travels only outward-in), promise: the always-hidden
    folders are known by identity: moved, replaced, planted or seen at a second
    path, they are never shown.

    Threat: ~/Link is a link into a write folder (~/Link -> W/LinkReal).
    The folders on the way to ~/Link/Agents were kept by the hidden
    path's spelling, which no write folder holds, so the program renamed
    W/LinkReal and made a new one: every later start then refused ('is
    gone'), and the agents' files sat at a path the program chose."""
    w = tmp_path / "w"
    (w / "LinkReal" / "Agents").mkdir(parents=True)
    (w / "LinkReal" / "Agents" / "a").write_text("agent\n")
    (home / "Link").symlink_to(w / "LinkReal")
    cp = sh(lnk, f"cd {w} && mv LinkReal L2; echo mv=$?; mkdir LinkReal; "
            "true", "--write", w)
    assert "mv=0" not in cp.stdout, (cp.stdout, cp.stderr)
    assert (w / "LinkReal" / "Agents" / "a").exists(), cp.stderr
    assert not (w / "L2").exists()
    lnk.run("--", "true", check=True)


def test_home_not_renamed_under_a_grant_above_it(lnk, home):
    """Invariant 6 (policy travels only outward-in), promise: the always-hidden
    folders are known by identity: moved, replaced, planted or seen at a second
    path, they are never shown.

    Threat: a write grant above the home folder: rename the home away
    and make a new one; the next sandbox hides the new empty ~/.lnk and
    shows the real one (the log, the specs, the sockets) at the moved
    path."""
    lnk.run("--", "true", check=True)  # lnk makes its ~/.lnk
    cp = sh(lnk, f"mv {home} {home}.moved; mkdir -p {home}/.lnk; true",
            "--write", home.parent)
    assert not pathlib.Path(f"{home}.moved").exists(), cp.stderr
    assert (home / ".lnk").is_dir()


def test_folder_holding_a_hide_not_renamed(lnk, work):
    """Invariant 6 (policy travels only outward-in), promise: the always-hidden
    folders are known by identity: moved, replaced, planted or seen at a second
    path, they are never shown.

    Threat: --hide work/secret; rename work/outer (which holds it) and
    the next run with the same --hide shows the moved secret."""
    (work / "outer" / "secret").mkdir(parents=True)
    (work / "outer" / "secret" / "k").write_text("key\n")
    cp = sh(lnk, "mv outer outer2; mkdir -p outer/secret; true",
            "--write", work, "--hide", work / "outer" / "secret")
    assert (work / "outer" / "secret" / "k").exists(), cp.stderr
    assert not (work / "outer2").exists()


SECOND_PATH = """
    mount --bind '{home}' '{second}' || exit 99
    {lnk} sandbox run --write '{second}' -- /bin/sh -c '
        ls -A "{second}/.lnk" > "{second}/seen-lnk" 2>&1
        echo evil >> "{second}/.bashrc"; mkdir "{second}/.config"
        mv "{second}/.profile" "{second}/p2"
        echo ran > "{second}/ran.marker"' || exit 3
    {lnk} sandbox run --read '{second}' --write '{work}' -- /bin/sh -c '
        ls -A "{second}/.lnk" > "{work}/seen-lnk-read" 2>&1' || exit 4
    {lnk} sandbox run --write '{second}/.lnk' -- /bin/true &&
        echo write >> '{tmp}/accepted'
    {lnk} sandbox run --read '{second}/.lnk' -- /bin/true &&
        echo read >> '{tmp}/accepted'
    exit 0
"""


def test_home_at_a_second_path_known_by_identity(lnk, home, work, tmp_path):
    """Invariant 6 (policy travels only outward-in), promise: the always-hidden
    folders are known by identity: moved, replaced, planted or seen at a second
    path, they are never shown.

    Threat: the home is also reachable at a second path (a bind mount:
    /home bound from /data/home, a container's bind); --write or --read of
    that path showed ~/.lnk (keys, answers, the log), and the home-top
    rule did not apply there: .bashrc appended, new dot folders made. The
    home and its hidden folders are recognised by identity."""
    cp = lnk.run("--write", work, "--", "/bin/true")
    assert cp.returncode == 0, cp.stderr
    assert any((home / ".lnk").iterdir())
    (home / ".bashrc").write_text("# mine\n")
    (home / ".profile").write_text("# mine\n")
    second = tmp_path / "second"
    second.mkdir()
    cp = in_private_mounts(lnk, SECOND_PATH.format(
        home=home, second=second, work=work, lnk=lnk_under_mounts(lnk),
        tmp=tmp_path))
    assert cp.returncode != 99, cp.stderr
    assert cp.returncode == 0, (cp.returncode, cp.stderr)
    assert (home / "ran.marker").exists(), cp.stderr
    assert (home / "seen-lnk").read_text() == "", cp.stderr
    assert (work / "seen-lnk-read").read_text() == "", cp.stderr
    assert (home / ".bashrc").read_text() == "# mine\n", cp.stderr
    assert not (home / ".config").exists(), cp.stderr
    assert (home / ".profile").exists() and not (home / "p2").exists()
    assert not (tmp_path / "accepted").exists(), cp.stderr


def test_a_bind_of_a_folder_inside_a_hidden_one_is_hidden(lnk, home, work,
                                                          tmp_path):
    """Invariant 6 (policy travels only outward-in), promise: the always-hidden
    folders are known by identity: moved, replaced, planted or seen at a second
    path, they are never shown.

    Threat: a folder INSIDE ~/.lnk (or a --hide folder), not the folder
    itself, is bound somewhere below a grant (an admin's, a container's or
    a sync tool's bind): the grant showed it, and with --write the program
    read lnk's files there and planted its own."""
    cp = lnk.run("--write", work, "--", "/bin/true")
    assert cp.returncode == 0, cp.stderr
    (home / ".lnk" / "sandbox" / "probe.key").write_text("LNKSECRET\n")
    private = tmp_path / "private"
    (private / "sub").mkdir(parents=True)
    (private / "sub" / "s").write_text("HIDDENSECRET\n")
    alt = work / "alt"
    (alt / "s").mkdir(parents=True)
    (alt / "p").mkdir()
    cp = in_private_mounts(lnk, f"""
        mount --bind '{home}/.lnk/sandbox' '{alt}/s' || exit 99
        mount --bind '{private}/sub' '{alt}/p' || exit 99
        {lnk_under_mounts(lnk)} sandbox run --write '{work}' \
            --hide '{private}' -- /bin/sh -c '
            cat "{alt}/s/probe.key"; cat "{alt}/p/s"
            echo planted > "{alt}/s/planted"
            echo ran'
        """)
    assert cp.returncode != 99, cp.stderr
    assert "ran" in cp.stdout, (cp.stdout, cp.stderr)
    assert "LNKSECRET" not in cp.stdout + cp.stderr
    assert "HIDDENSECRET" not in cp.stdout + cp.stderr
    assert not (home / ".lnk" / "sandbox" / "planted").exists()


# =============================================================================
# D. The grants of the next run
#    Promise: a grant of the next run means what the user named: never a link a
#    sandbox left, never a folder it moved.
# =============================================================================


@pytest.mark.parametrize("flag,name,target", [
    ("--write", "build", "~"),
    ("--read", "docs", "~/.ssh"),
    ("--write", "conf", "/etc"),
    ("--read", "conf", "/etc"),
])
def test_grant_through_a_link_the_sandbox_left_is_refused(lnk, home, work,
                                                          flag, name,
                                                          target):
    """Invariant 6 (policy travels only outward-in), promise: a grant of the
    next run means what the user named: never a link a sandbox left, never a
    folder it moved.

    Threat: run 1 (--write PROJ) replaces PROJ/build by a link to the
    home folder (~/bin is on PATH), or PROJ/docs by one to ~/.ssh, or, as
    root, PROJ/conf by one to /etc; run 2, given only that subfolder,
    would write or read where the link points."""
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("ssh-secret\n")
    (work / name).mkdir()
    real = target.replace("~", str(home))
    cp = sh(lnk, f"rm -rf {name} && ln -s {real} {name}", "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert (work / name).is_symlink()
    cp = sh(lnk, "mkdir -p bin; echo pwned > bin/t4-sneaky; "
                 "cat id_ed25519 2>/dev/null; true",
            flag, f"./{name}", cwd=work)
    assert cp.returncode != 0, cp.stdout + cp.stderr
    assert "ssh-secret" not in cp.stdout
    assert not (home / "bin" / "t4-sneaky").exists()
    assert f"'{os.path.realpath(real)}'" in cp.stderr, cp.stderr
    if flag == "--write" and target == "/etc":
        assert "system folder" in cp.stderr, cp.stderr
    else:
        assert "symbolic link" in cp.stderr, cp.stderr
        assert "grant that path" in cp.stderr


def test_folder_holding_another_grant_not_renamed(lnk, home, work):
    """Invariant 6 (policy travels only outward-in), promise: a grant of the
    next run means what the user named: never a link a sandbox left, never a
    folder it moved.

    Threat: --write '~' --read ~/project/docs: move ~/project away and
    put a link at its place; the next run's --read ~/project/docs (or a
    --write of it) then names what the program chose."""
    (work / "docs").mkdir()
    cp = sh(lnk, "mv ~/project ~/p2; mkdir -p ~/project; true",
            "--write", home, "--read", work / "docs")
    assert (work / "docs").is_dir() and not (home / "p2").exists(), \
        cp.stderr


@pytest.mark.parametrize("how", ["file", "folder"])
def test_spec_swapped_for_a_link_to_another_accepted_spec_asks(lnk, home,
                                                              work, how):
    """Invariant 6 (policy travels only outward-in), promise: a grant of the
    next run means what the user named: never a link a sandbox left, never a
    folder it moved.

    Threat: the user accepted ~/specs/wide.toml (it reads ~/secret) for one
    job and ~/project/app.toml (it writes the project) for the agent. The
    agent replaces app.toml (or the folder conf/ that holds it) with a link
    to wide.toml; the acceptance was kept by the spec's real path, so the
    next `lnk sandbox run --spec app.toml` ran with wide.toml's grants
    without asking, and read ~/secret."""
    (home / "secret").mkdir()
    (home / "secret" / "x").write_text("s3cret\n")
    specs = home / "specs"
    specs.mkdir()
    cmds = '[commands]\nallow = ["cat", "true"]\n'
    (specs / "app.toml").write_text(
        f'version = 1\n{cmds}[files]\nread = ["{home}/secret"]\n')
    conf = work / "conf"
    conf.mkdir()
    (conf / "app.toml").write_text(
        f'version = 1\n{cmds}[files]\nwrite = ["{work}"]\n')
    for spec in (specs / "app.toml", conf / "app.toml"):
        cp = lnk.run("--spec", spec, "--yes", "--", "true")
        assert cp.returncode == 0, cp.stderr
    swap = ("rm conf/app.toml && ln -s ../../specs/app.toml conf/app.toml"
            if how == "file" else
            "rm -r conf && ln -s ../specs conf")
    cp = sh(lnk, swap, "--write", work, cwd=work)
    assert cp.returncode == 0, cp.stderr
    assert (conf if how == "folder" else conf / "app.toml").is_symlink()
    cp = lnk.run("--spec", work / "conf" / "app.toml", "--", "cat",
                 home / "secret" / "x", stdin=subprocess.DEVNULL)
    assert "s3cret" not in cp.stdout, cp.stderr
    assert cp.returncode != 0, cp.stderr


# =============================================================================
# E. lnk's questions
#    Promise: only the user answers lnk's questions, and a question shows
#    exactly what is asked.
# =============================================================================


# C1 controls (CSI 2K, CSI 1A: erase the line, go up) that would erase the
# lines before them on the terminal, and a right-to-left override.
SPOOF = "d\u009b2K\u009b1A\u009b2K\u009b1A\u009b2K\u202e"


def test_trust_question_cannot_be_redrawn(lnk, work):
    """Invariant 6 (policy travels only outward-in), promise: only the user
    answers lnk's questions, and a question shows exactly what is asked.

    Threat: a spec the program rewrote hides its new `hosts = ["*"]`
    from the asked-first question with C1 controls in a value. [commands]
    refuses control characters (test_inv8_runs_outside.py,
    test_spec_values_...); a folder may be named with them."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    name = "".join(c if " " <= c < "\x7f" else "\\u%04X" % ord(c)
                   for c in SPOOF)
    spec = ('version = 1\n[commands]\nallow = ["true"]\n[files]\n'
            f'write = ["{work}/{name}"]\n[internet]\nhosts = ["*"]\n')
    plant(lnk, work, f"""
        import os
        os.mkdir({SPOOF!r})
        open("app.toml", "w").write({spec!r})
    """)
    pid, fd = spawn_on_pty(lnk, ["--spec", work / "app.toml", "--", "true"])
    try:
        out = read_until(fd, b"[y/N]")
        assert b"[y/N]" in out, out
        os.write(fd, b"n\r")
        out += read_until(fd, b"\x00", timeout=10)
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert status != 0
    assert b"reaches any host on the internet" in out, out
    assert b"\\u{9b}2K" in out and b"\\u{202e}" in out, out
    assert_clean(out, "the question", allow_cr=True)


def test_program_cannot_answer_its_own_question(lnk, outside_tool):
    """Invariant 6 (policy travels only outward-in), promise: only the user
    answers lnk's questions, and a question shows exactly what is asked.

    Threat: while its call waits for the user, the program finds the
    question (its id, its file) and answers yes itself."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    script = ("mytool issue close 1 & "
              "sleep 1; ls -a $HOME/.lnk /run/lnk 2>&1; "
              "for f in $HOME/.lnk/sandbox/asks/*.q /tmp/*.q; do "
              "echo yes > ${f%.q}.a; done 2>&1; wait; echo st=$?")
    pid, fd = spawn_on_pty(lnk, ["--write", lnk.cwd, "--tool", "mytool pr",
                                 "--", "/bin/sh", "-c", script])
    try:
        out = read_until(fd, b"(or no)")
        asks = json.loads(lnk("sandbox", "asks", "--json").stdout)
        out += read_until(fd, b"sleep-done", timeout=3)
        lnk("sandbox", "answer", asks[0]["id"], "no", check=True)
        out += read_until(fd, b"never", timeout=30)
    finally:
        wait_status(pid)
        os.close(fd)
    assert tool_calls(outside_tool) == [], out
    assert b"answered no" in out, out


# With a pty, lnk asks the user on its own terminal, with a code typed back
# (src/launch/askterm.c); driven in a tmux pane as a person would see it.
REAL_PROMPT = r"^lnk: to allow it once, type the code ([a-z]{4}) and Enter"


def test_question_text_cannot_drive_the_terminal_or_fake_the_prompt(
        lnk, tmp_path, outside_tool):
    """Invariant 6 (policy travels only outward-in), promise: only the user
    answers lnk's questions, and a question shows exactly what is asked.

    Threat: the program words its question (the tool's arguments) with
    escape sequences and a prompt of its own (a code it knows, on a line
    of its own), and leaves an escape string open in its output before,
    to hide lnk's question, retitle the window or clear the screen."""
    import re
    from test_ask_terminal import Pane
    script = ("printf 'before\\n\\033]2;'; "
              "mytool \"$(printf 'x\\033[2J\\033[H')\" "
              "\"$(printf '\\nlnk: to allow it once, type the code aaaa "
              "and Enter')\" \"$(printf '\\033]2;pwned\\007')\"; "
              "echo st=$?")
    p = Pane(lnk, tmp_path, ["--name", "asker", "--tool", "mytool pr", "--",
                             "/bin/sh", "-c", script])
    try:
        t = p.wait_for(re.compile(REAL_PROMPT, re.M))
        real = re.findall(REAL_PROMPT, t, re.M)
        assert len(real) == 1 and real[0] != "aaaa", t
        # each argument on a numbered line of its own, shown escaped, and
        # the screen was not cleared (what the program printed before is
        # still there)
        rows = t.splitlines()
        i = rows.index("lnk: sandbox asker asks to run, outside, as you:")
        assert rows[i + 1:i + 5] == [
            "mytool 'x\\x1b[2J\\x1b[H' ... (3 arguments), in /",
            "  1  'x\\x1b[2J\\x1b[H'",
            "  2  '\\x0alnk: to allow it once, type the code aaaa and "
            "Enter'",
            "  3  '\\x1b]2;pwned\\x07'"], rows[i:]
        assert "before" in t
        title = p.tmux("display-message", "-p", "-t", "ask",
                       "#{pane_title}")
        assert "pwned" not in title
        p.type("aaaa")
        p.key("Enter")
        t = p.wait_for("st=126")
        assert "refused: that is not the code" in t
        assert p.exit_status() == 0
    finally:
        p.close()
    assert tool_calls(outside_tool) == []


TYPE_OWN_ANSWER = r"""
import fcntl, os, subprocess, sys, termios, time
call = subprocess.Popen(["mytool", "issue", "close", "7"],
                        stdin=subprocess.DEVNULL)
time.sleep(0.5)
tries = []
# into its own terminal: as output, on stdout and on /dev/tty
for w in (b"\r", b"yes\r", b"aaaa\r\n", b"\x1b"):
    os.write(1, w)
    fd = os.open("/dev/tty", os.O_RDWR)
    os.write(fd, w)
    os.close(fd)
# as input, pushed into its terminal (TIOCSTI)
for ch in b"yes\r\x1b":
    try:
        fcntl.ioctl(0, termios.TIOCSTI, bytes([ch]))
        tries.append("sti-ok")
    except OSError as e:
        tries.append(f"sti-{e.errno}")
open("tried", "w").write(" ".join(tries))
call.wait()
print("st=%d" % call.returncode)
"""


def test_program_cannot_type_its_own_answer(lnk, tmp_path, outside_tool):
    """Invariant 6 (policy travels only outward-in), promise: only the user
    answers lnk's questions, and a question shows exactly what is asked.

    Threat: while its call waits, the program types into its own
    terminal (writes, /dev/tty, TIOCSTI) an Enter, a yes or a guessed code,
    for lnk to take as the user's keystrokes."""
    import re
    from test_ask_terminal import Pane
    p = Pane(lnk, tmp_path, ["--name", "asker", "--write", lnk.cwd,
                             "--tool", "mytool pr", "--", PY, "-c",
                             TYPE_OWN_ANSWER])
    try:
        t = p.wait_for(re.compile(REAL_PROMPT, re.M))
        at = t.index("lnk: to allow it once")
        for _ in range(300):
            if (lnk.cwd / "tried").exists():
                break
            time.sleep(0.1)
        tried = (lnk.cwd / "tried").read_text()
        assert "sti-ok" not in tried, tried
        # the question is still up, unanswered: nothing the program did
        # was a keystroke of lnk's
        t = p.text()
        assert "(question " not in t[at:], t
        assert json.loads(lnk("sandbox", "asks", "--json").stdout) != []
        assert tool_calls(outside_tool) == []
        p.key("Escape")
        t = p.wait_for("st=126")
        assert "lnk: refused (question " in t
        assert p.exit_status() == 0
    finally:
        p.close()
    assert tool_calls(outside_tool) == []


# A question is shown on the desktop's session bus (a notification with
# Allow and Deny); the program must not press Allow itself.
BUS_TRIES = """
import os, socket, subprocess, sys
addr = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
print("address:", addr)
for path in [sys.argv[1], os.environ.get("XDG_RUNTIME_DIR", "/x") + "/bus"]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        s.sendall(b"\\0AUTH EXTERNAL 30\\r\\n")
        print("reached", path, s.recv(100))
    except OSError as e:
        print("unreachable", path, e.errno)
cp = subprocess.run(["mytool", "issue", "close", "1"])
print("st=%d" % cp.returncode)
"""


@pytest.mark.parametrize("granted", [False, True])
def test_program_cannot_reach_the_session_bus_to_answer_itself(
        lnk, outside_tool, tmp_path, granted):
    """Invariant 6 (policy travels only outward-in), promise: only the user
    answers lnk's questions, and a question shows exactly what is asked.

    Threat: the program answers its own question on the desktop: it
    finds the session bus lnk shows the question on (its address in the
    environment, its socket in the file system) and invokes the Allow
    action, or talks to the notification server. Also when the user
    passes the address in and grants the bus's folder: the socket is
    bound outside, so the guard refuses the connect."""
    from test_ask_desktop import Desktop, _missing
    why = _missing()
    if why:
        pytest.skip(why)
    desk = Desktop(tmp_path / "desktop")
    try:
        desk.server(act="none")
        base = lnk.env
        # the runtime folder is never granted (lnk refuses it): the
        # granted case has the bus in a folder of its own
        run = {} if granted else {"XDG_RUNTIME_DIR": str(desk.run)}
        lnk.env = lambda extra=None: {**base(extra), **desk.env, **run}
        d = lnk.home / ".lnk" / "sandbox"
        d.mkdir(parents=True, exist_ok=True)
        (d / "settings.toml").write_text("ask_wait = 2\n")
        grants = ("--read", str(desk.run), "--env",
                  "DBUS_SESSION_BUS_ADDRESS") if granted else ()
        cp = lnk.run("--tool", "mytool pr", *grants, "--", PY, "-c",
                     BUS_TRIES, str(desk.run / "bus"), timeout=60)
        out = cp.stdout
        assert "reached" not in out, out
        assert out.count("unreachable") == 2, (out, cp.stderr)
        if not granted:
            assert "address: None" in out, out
        assert "st=126" in out, (out, cp.stderr)
        # the question was shown, and only the server's own signals answer
        assert len(desk.rows("Notify")) == 1
        assert desk.rows("invoked") == []
        assert tool_calls(outside_tool) == []
    finally:
        desk.stop()


def test_question_shows_the_exact_call(lnk, outside_tool):
    """Invariant 6 (policy travels only outward-in), promise: only the user
    answers lnk's questions, and a question shows exactly what is asked.

    Threat: the user answers for the call the question shows. The
    program asks with arguments that read as others: one argument holding
    spaces shown as several words, or an argument padded so long that the
    ones after it (a --delete) fall off the question unsaid, or are cut
    from it: a call that cannot be shown whole is never asked."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    pad = "x" * 6000
    script = ("mytool issue 'close 7 --comment ok' & "
              f"mytool issue view {pad} --delete & wait; echo never")
    pid, fd = spawn_on_pty(lnk, ["--write", lnk.cwd, "--tool", "mytool pr",
                                 "--ask-wait", "20", "--", "/bin/sh", "-c",
                                 script])
    try:
        out = read_until(fd, b"(or no)")
        out += read_until(fd, b"whole", timeout=10)
        for _ in range(100):
            asks = json.loads(lnk("sandbox", "asks", "--json").stdout)
            if len(asks) == 1:
                break
            time.sleep(0.1)
        for a in asks:
            lnk("sandbox", "answer", a["id"], "no")
        out += read_until(fd, b"never", timeout=30)
    finally:
        wait_status(pid)
        os.close(fd)
    qs = [a["lines"] for a in asks]
    assert len(qs) == 1, (qs, out)
    # each argument one shell word on its own numbered line
    assert qs[0] == [f"mytool issue ... (2 arguments), in {lnk.cwd}",
                     "  1  issue", "  2  'close 7 --comment ok'"], qs
    # the padded call is refused unasked: no screen would show it whole
    assert b"too long to show whole" in out.replace(b"\r\n", b" "), out
    assert tool_calls(outside_tool) == []


@pytest.mark.parametrize("state", ["nowrap", "region", "leftover"])
def test_terminal_state_the_program_left_cannot_hide_the_question(
        lnk, tmp_path, outside_tool, state):
    """Invariant 6 (policy travels only outward-in), promise: only the user
    answers lnk's questions, and a question shows exactly what is asked.

    Threat: before its call, the program sets the terminal so that lnk's
    question is cut or scrolled away while its code stays visible: no
    autowrap (the arguments past the right margin unseen), a scroll region
    of three lines under a fake question it drew, or the cursor moved up
    onto text it drew (the rest of a line, ' --dry-run', read as part of
    lnk's). What the user sees must be the whole question, and nothing of
    the program's on its lines."""
    import re
    from test_ask_terminal import Pane
    fake = "lnk: sandbox asker asks to run, outside: mytool pr list"
    setup = {
        "nowrap": "\\033[?7l",
        "region": f"\\033[2J\\033[H{fake}\\n\\033[3;5r\\033[3H",
        "leftover": "\\033[2J\\033[H" + "\\n".join(
            [f"{'':>130} --dry-run"] * 8) + "\\033[H",
    }[state]
    script = (f"printf '{setup}'; mytool pr delete "
              f"{'y' * 150} DANGER; echo st=$?")
    p = Pane(lnk, tmp_path, ["--name", "asker", "--tool", "mytool pr list",
                             "--", "/bin/sh", "-c", script])
    try:
        p.wait_for(re.compile(REAL_PROMPT, re.M))
        time.sleep(0.3)
        shown = p.tmux("capture-pane", "-p", "-J", "-t", "ask")
        lines = [x.rstrip() for x in shown.splitlines()]
        i = lines.index("lnk: sandbox asker asks to run, outside, as you:")
        assert lines[i + 1:i + 4] == ["mytool pr ... (4 arguments), in /",
                                      "  1  pr", "  2  delete"], shown
        assert lines[i + 4].startswith("  3  " + "y" * 150), shown
        assert lines[i + 5] == "  4  DANGER", shown
        assert re.search(REAL_PROMPT, shown, re.M), shown
        # nothing of the program's on the question's rows
        assert "dry-run" not in "".join(lines[i:]), shown
        p.key("Escape")
        p.wait_for("st=126")
    finally:
        p.close()
    assert tool_calls(outside_tool) == []


def test_question_names_the_folder_the_tool_runs_in(lnk, work, tmp_path,
                                                    outside_tool):
    """Invariant 6 (policy travels only outward-in), promise: only the user
    answers lnk's questions, and a question shows exactly what is asked.

    Threat: gh and git act on the repository of their folder, and the
    program picks the folder (any granted one): it asks `gh pr merge 5`
    from another project it may only read, and the user, seeing just the
    call, merges there. The question names the folder, which is where the
    tool runs even if the program moves or swaps it after asking."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    other = tmp_path / "other project"
    other.mkdir()
    pid, fd = spawn_on_pty(lnk, [
        "--name", "asker", "--read", other, "--write", work,
        "--tool", "mytool pr list", "--", "/bin/sh", "-c",
        f"cd '{other}' && mytool pr merge 5; echo st=$?"], cols=200)
    try:
        out = read_until(fd, b"(or no)")
        asks = json.loads(lnk("sandbox", "asks", "--json",
                              check=True).stdout)
        lnk("sandbox", "answer", asks[0]["id"], "yes", check=True)
        out += read_until(fd, b"st=", timeout=30)
    finally:
        wait_status(pid)
        os.close(fd)
    assert [a["question"] for a in asks] == [
        f"mytool pr ... (3 arguments), in '{other}'"], asks
    assert f"in '{other}'".encode() in out, out
    assert f"cwd:{other}".encode() in out, out


# =============================================================================
# F. What lnk suggests or writes as policy
#    Promise: what lnk suggests to paste, or writes as a profile, grants
#    exactly what it names.
# =============================================================================


# Names a program or a repository chose, each a different way a pasted
# suggestion could become more than the one value lnk means: more words
# (more grants), a command substitution, a tilde, a quote of its own.
PASTED_NAMES = [
    "a --write ~ --write-dot-files ~ --internet-host *",
    "b;touch${IFS}pwned",
    "c$(touch pwned)`touch pwned`",
    "it's ~",
]


def _pasted_words(text, flag, tmp_path):
    """What a shell makes of the value lnk suggests after FLAG (the text up
    to ' allows it' or ' or '), pasted: the words bash gives a program."""
    start = text.index(flag + " ") + len(flag) + 1
    end = min(i for i in (text.find(" allows it", start),
                          text.find(" or [commands]", start)) if i > 0)
    cp = subprocess.run(["bash", "-c", 'printf "%s\\0" ' + text[start:end]],
                        capture_output=True, text=True, cwd=tmp_path,
                        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                             "IFS": " "})
    return cp.stdout.split("\0")[:-1]


@pytest.mark.parametrize("name", PASTED_NAMES)
def test_refused_program_suggestion_is_one_shell_word(lnk, work, tmp_path,
                                                      name):
    """Invariant 6 (policy travels only outward-in), promise: what lnk suggests
    to paste, or writes as a profile, grants exactly what it names.

    Threat: a program names a file it made 'a --write ~ --internet-host
    *' (or '$(...)') and runs it; lnk's "--command X allows it" is what a
    user pastes to allow it, and pasted it would grant the whole home and
    the internet, or run a command. The suggested value must be exactly
    the path, one word, whatever the program chose."""
    cp = lnk.run("--write", work, "--command", PY, "--", PY, "-c",
                 "import os, shutil, sys\n"
                 "n = os.path.join(os.getcwd(), sys.argv[1])\n"
                 "shutil.copy('/bin/true', n); os.chmod(n, 0o755)\n"
                 "try: os.execv(n, [n])\n"
                 "except OSError: pass\n", name, cwd=work)
    line = [l for l in cp.stderr.splitlines() if "refused to run" in l]
    assert line, cp.stderr
    assert _pasted_words(line[0], "--command", tmp_path) == \
        [str(work / name)], line[0]
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize("name", PASTED_NAMES)
def test_script_interpreter_suggestion_is_one_shell_word(lnk, work,
                                                         tmp_path, name):
    """Invariant 6 (policy travels only outward-in), promise: what lnk suggests
    to paste, or writes as a profile, grants exactly what it names.

    Threat: a cloned repository's script names an interpreter the
    repository holds, called 'x;touch${IFS}pwned'; lnk's "add --command X"
    for it, pasted, runs the repository's command as the user. A shebang
    ends at a blank, so a blank is written as ${IFS}."""
    name = name.replace(" ", "${IFS}")
    interp = work / name
    shutil.copy("/bin/sh", interp)
    script = work / "run.sh"
    script.write_text(f"#!{interp}\ntrue\n")
    script.chmod(0o755)
    cp = lnk.run("--write", work, "--command", "true", "--", script,
                 cwd=work)
    assert cp.returncode != 0 and "--command" in cp.stderr, cp.stderr
    assert _pasted_words(cp.stderr, "--command", tmp_path) == [name], \
        cp.stderr
    assert not (tmp_path / "pwned").exists()


def _sbpl_forms(text):
    """Reads an SBPL profile as Seatbelt's TinyScheme reader would: lists,
    symbols, "strings" with the escapes \\" \\\\ \\n \\t \\r only, #"regex"
    literals, ; comments. Returns the top-level forms as nested lists,
    strings as ('str', value); fails on anything else."""
    i, n = 0, len(text)

    def form():
        nonlocal i
        while i < n:
            c = text[i]
            if c in " \t\r\n":
                i += 1
            elif c == ";":
                while i < n and text[i] != "\n":
                    i += 1
            else:
                break
        assert i < n, "unended form"
        c = text[i]
        if c == "(":
            i += 1
            out = []
            while True:
                while i < n and text[i] in " \t\r\n":
                    i += 1
                assert i < n, "unbalanced ("
                if text[i] == ")":
                    i += 1
                    return out
                out.append(form())
        assert c != ")", "stray )"
        if c == '"':
            i += 1
            s = []
            while True:
                assert i < n, "unended string"
                ch = text[i]
                i += 1
                if ch == '"':
                    return ("str", "".join(s))
                assert ord(ch) >= 0x20 and ch != "\x7f", "raw control"
                if ch == "\\":
                    e = text[i]
                    i += 1
                    s.append({'"': '"', "\\": "\\", "n": "\n", "t": "\t",
                              "r": "\r"}[e])
                else:
                    s.append(ch)
        if text.startswith('#"', i):
            j = text.index('"', i + 2)
            r = text[i + 2:j]
            assert "\\" not in r and "\n" not in r
            i = j + 1
            return ("regex", r)
        j = i
        while j < n and text[j] not in ' \t\r\n();"':
            j += 1
        assert j > i, f"unexpected {c!r}"
        sym = text[i:j]
        i = j
        return sym

    forms = []
    while True:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i < n and text[i] == ";":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if i >= n:
            return forms
        forms.append(form())


def test_seatbelt_profile_folder_names_cannot_add_rules(lnk, work):
    """Invariant 6 (policy travels only outward-in), promise: what lnk suggests
    to paste, or writes as a profile, grants exactly what it names.

    Threat: a folder whose name holds a quote, a backslash, a newline or
    SBPL's own syntax ends the string it is written in and adds a rule
    to the printed profile, (allow default) or a write grant elsewhere.
    Every name stays one string, read back whole."""
    names = ['x") (allow default) (allow file-write* (subpath "',
             'a\\" (allow default)',
             'nl\n(allow default)\n;',
             '#"^.*" [regex]* (|)',
             "tab\there ; (allow network*)"]
    for name in names:
        d = work / name
        d.mkdir()
        cp = lnk("sandbox", "spec", "--seatbelt", "--write", d, cwd=work)
        assert cp.returncode == 0, cp.stderr
        forms = _sbpl_forms(cp.stdout)
        assert all(isinstance(f, list) and f and
                   f[0] in ("version", "allow", "deny") for f in forms)
        assert ["allow", "default"] not in forms
        written = []
        for f in forms:
            if f[0] == "allow" and "file-write*" in f:
                assert any(isinstance(x, list) for x in f), f
                written += [x[1][1] for x in f
                            if isinstance(x, list) and x[0] == "subpath"]
        assert written == [os.path.realpath(d)], written
        assert not any(f[0] == "allow" and any(
            isinstance(x, str) and x.startswith("network") for x in f[1:])
            for f in forms)


def test_seatbelt_profile_refuses_a_control_character(lnk, work):
    """Invariant 6 (policy travels only outward-in), promise: what lnk suggests
    to paste, or writes as a profile, grants exactly what it names.

    Threat: a name SBPL has no escape for (an ESC) reaches the profile
    raw, or the terminal through the message. Refused, escaped."""
    d = work / "esc\x1b[2Jx"
    d.mkdir()
    cp = lnk("sandbox", "spec", "--seatbelt", "--write", d, cwd=work)
    assert cp.returncode == 2, cp.stderr
    assert cp.stdout == ""
    assert "control character" in cp.stderr
    assert "\x1b" not in cp.stderr
