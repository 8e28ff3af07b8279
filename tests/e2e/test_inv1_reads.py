"""Invariant 1, reads: the program reads the system's programs and
libraries, the parts of /etc programs need, and what is granted; nothing
of $HOME unless granted; never ~/.lnk, ~/Link/Agents or ~/Link/History,
even inside a granted folder. /tmp is private. A grant of /, /proc, /sys,
/dev, /run, $XDG_RUNTIME_DIR, a socket, a device, or anything in ~/.lnk is
refused, after links are resolved; a host daemon's unix socket in a
granted folder is not reached.

Attacks on it from inside a sandbox, one block a promise: each test
PASSES when the sandbox holds and FAILS when the attack works (more in
attack_helpers.py; a new attack: docs/HACKING.md, "Add an attack test").
"""
# Blocks, one a promise of the invariant:
#   A. System secrets, the host's /tmp and other homes
#   B. Grants that reach ~/.lnk or the kernel's trees
#   C. The guard reads nothing for the program
#   D. Host daemons' unix sockets in a granted folder
#   E. Hidden folders and the folder a tool runs in

import os
import pathlib
import socket

import pytest

from conftest import IS_ROOT, on_lnk_path
from attack_helpers import (_tool_on_path, in_private_mounts,
                            lnk_under_mounts, py, raw_py, sh)


# =============================================================================
# A. System secrets, the host's /tmp and other homes
#    Promise: the system's secrets, devices, the host's /tmp and other homes
#    are not read.
# =============================================================================


@pytest.mark.parametrize("path", [
    "/etc/shadow", "/etc/machine-id", "/etc/sudoers", "/etc/ssh", "/sys",
    "/sys/kernel", "/dev/vda", "/dev/sda", "/dev/mem", "/dev/kmsg",
    "/dev/console", "/boot", "/root", "/var/log", "/run/user",
    "/proc/1/root/etc/shadow", "/proc/kcore"])
def test_system_secrets_unreadable(lnk, path):
    """Invariant 1 (reads), promise: the system's secrets, devices, the host's
    /tmp and other homes are not read.

    Threat: read machine secrets, raw disks or kernel memory."""
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


def test_roots_own_files_in_etc_stay_out(lnk):
    """Invariant 1 (reads), promise: every thing of the host's that uid 0
    would own without a capability is kept from root's sandbox (RUNNING AS
    ROOT). Threat: /etc/ssl is taken in for its certificates, and with it
    /etc/ssl/private: root's sandbox read the machine's TLS private keys
    (root's own files, no capability needed). Only what every user may
    read of the /etc lnk takes in enters."""
    if not IS_ROOT:
        pytest.skip("planting a file in /etc needs root")
    d = pathlib.Path("/etc/ssl/private")
    if not d.is_dir():
        pytest.skip("no /etc/ssl/private on this machine")
    key = d / f"lnk-test-{os.getpid()}.key"
    key.write_text("FAKE-PRIVATE-KEY\n")
    key.chmod(0o600)
    try:
        cp = lnk.run("--", "/bin/sh", "-c",
                     f"cat {key}; ls /etc/ssl/private; "
                     "ls /etc/ssl/certs | head -1; true")
    finally:
        key.unlink()
    assert "FAKE-PRIVATE-KEY" not in cp.stdout, cp.stdout
    assert key.name not in cp.stdout, cp.stdout
    assert cp.stdout.strip(), cp.stderr  # the certificates are there


def test_host_tmp_and_other_homes_invisible(lnk, tmp_path):
    """Invariant 1 (reads), promise: the system's secrets, devices, the host's
    /tmp and other homes are not read.

    Threat: read host /tmp files and other users' homes."""
    bait = pathlib.Path("/tmp") / f"lnk-redteam-bait-{os.getpid()}"
    bait.write_text("host tmp secret")
    try:
        cp = sh(lnk, f"cat {bait} 2>&1; ls /home 2>&1; ls /tmp")
    finally:
        bait.unlink()
    assert "host tmp secret" not in cp.stdout
    for name in os.listdir("/home") if os.path.isdir("/home") else []:
        assert name not in cp.stdout.split(), cp.stdout


# =============================================================================
# B. Grants that reach ~/.lnk or the kernel's trees
#    Promise: a grant of ~/.lnk, or of /, /proc, /sys, /dev or /run, is refused
#    after links are resolved.
# =============================================================================


def test_planted_symlinks_in_read_folder_lead_nowhere(lnk, home, work):
    """Invariant 1 (reads), promise: a grant of ~/.lnk, or of /, /proc, /sys,
    /dev or /run, is refused after links are resolved.

    Threat: a symlink planted in a granted folder points at secrets."""
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
    """Invariant 1 (reads), promise: a grant of ~/.lnk, or of /, /proc, /sys,
    /dev or /run, is refused after links are resolved.

    Threat: a grant that opens ~/.lnk through a symlink or `..`."""
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
    """Invariant 1 (reads), promise: a grant of ~/.lnk, or of /, /proc, /sys,
    /dev or /run, is refused after links are resolved.

    Threat: a grant that exposes the kernel, devices or host daemons."""
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist here")
    cp = lnk.run("--read", path, "--", "true")
    assert cp.returncode == 2, (cp.returncode, cp.stderr)


# The host's /proc in a folder the sandbox reads (a chroot's folder with
# /proc mounted in it), or bound at another path.
PROC_SHOWN = """
    mount --rbind /proc '{work}/chroot/proc' || exit 99
    mount --rbind /proc '{second}' || exit 99
    {lnk} sandbox run --read '{work}' -- /bin/sh -c \\
        'ls {work}/chroot/proc | grep -c "^[0-9]"'
    echo "rc=$?"
    {lnk} sandbox run --read '{second}' -- /bin/sh -c \\
        'ls {second} | grep -c "^[0-9]"'
    echo "rc=$?"
    exit 0
"""


def test_grant_showing_the_hosts_proc_refused(lnk, work, tmp_path):
    """Invariant 1 (reads only what is granted), promise: /proc, /sys,
    /dev and /run are never granted, judged by what they are.

    Threat: a granted folder holds the host's /proc (a chroot's folder,
    where /proc is mounted for a build), or is /proc bound at another
    path: refused by spelling only, it showed every process of the
    machine (their command lines, with what tokens they hold) to the
    program."""
    (work / "chroot" / "proc").mkdir(parents=True)
    second = tmp_path / "second"
    second.mkdir()
    cp = in_private_mounts(lnk, PROC_SHOWN.format(
        work=work, second=second, lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert cp.stdout.count("rc=2") == 2, (cp.stdout, cp.stderr)
    assert "/proc" in cp.stderr, cp.stderr


# =============================================================================
# C. The guard reads nothing for the program
#    Promise: the guard opens no file for the program that the program could
#    not open itself.
# =============================================================================


@pytest.mark.skipif(not IS_ROOT, reason="needs root to own a file as "
                    "another user")
def test_root_supervisor_does_not_read_other_users_files(lnk, work):
    """Invariant 1 (reads), promise: the guard opens no file for the program
    that the program could not open itself.

    Threat (root): O_CREAT makes the supervisor open a 0600 file of nobody."""
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
# D. Host daemons' unix sockets in a granted folder
#    Promise: a host daemon's unix socket in a granted folder is not reached.
# =============================================================================


def test_host_unix_socket_in_read_folder_unreachable(lnk, work):
    """Invariant 1 (reads), promise: a host daemon's unix socket in a granted
    folder is not reached.

    Threat: talk to a host daemon (gpg-agent, docker) via a granted folder."""
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
    """Invariant 1 (reads), promise: a host daemon's unix socket in a granted
    folder is not reached.

    Threat: a host daemon's socket (gpg-agent, docker) in a granted
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


def test_host_unix_socket_unreachable_without_dot_guard(lnk, home):
    """Invariant 1 (reads), promise: a host daemon's unix socket in a granted
    folder is not reached.

    Threat: with --write-dot-files lifting the dot-file guard, the
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
    """Invariant 1 (reads), promise: a host daemon's unix socket in a granted
    folder is not reached.

    Threat: a unix datagram socket inherited from the host (stdin)
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


# =============================================================================
# E. Hidden folders and the folder a tool runs in
#    Promise: a tool the program calls acts only within the grants, never in or
#    on a hidden folder.
# =============================================================================


def test_tool_cwd_cannot_be_a_hidden_folder(lnk, home, work, outside_tool):
    """Invariant 1 (reads), promise: a tool the program calls acts only within
    the grants, never in or on a hidden folder.

    Threat: the call says its folder is one the program cannot see
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


def test_tool_cwd_swapped_for_a_link_never_leaves_the_grants(lnk, work,
                                                            tmp_path):
    """Invariant 1 (reads), promise: a tool the program calls acts only within
    the grants, never in or on a hidden folder.

    Threat: the call's folder is checked, then entered; between the two
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


MV = "#!/bin/sh\nexec /bin/mv \"$@\"\n"


CAT = "#!/bin/sh\nexec /bin/cat \"$@\"\n"


def test_a_tool_cannot_read_a_hidden_folder_after_a_tool_renamed_its_parent(
        tmp_path, lnk, home, work):
    """Invariant 1 (reads), promise: a tool the program calls acts only within
    the grants, never in or on a hidden folder.

    Threat: a granted `mv` renames the folder that holds a --hide folder,
    and a granted `cat`, outside, reads the hidden file at its new path."""
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


def test_a_tool_cannot_read_the_agents_folder_after_a_tool_renamed_link(
        tmp_path, lnk, home, work):
    """Invariant 1 (reads), promise: a tool the program calls acts only within
    the grants, never in or on a hidden folder.

    Threat: a granted `mv` renames ~/Link, which holds the agents' folder,
    and a granted `cat`, outside, reads the agents' files at the new path."""
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


def test_tool_never_reads_lnks_settings_at_a_second_path(lnk, home, work,
                                                         tmp_path):
    """Invariant 1 (reads), promise: a tool the program calls acts only within
    the grants, never in or on a hidden folder.

    Threat: the home is also mounted at a second path (/home bound from
    /data/home). A tool runs outside with the machine as the user sees it,
    except ~/.lnk and the hidden folders, which its view covered at their
    one spelling only: `cat /data/home/.lnk/sandbox/NAME.key` through a
    granted `cat *` read the model keys, the call log, the questions and
    their answers (never ~/.lnk, through a tool)."""
    key = home / ".lnk" / "sandbox" / "probe.key"
    cp = lnk.run("--write", work, "--", "/bin/true")
    assert cp.returncode == 0, cp.stderr
    key.write_text("LNKSECRET\n")
    key.chmod(0o600)
    private = work / "private"
    private.mkdir()
    (private / "s").write_text("HIDDENSECRET\n")
    second = tmp_path / "second"
    second.mkdir()
    cp = in_private_mounts(lnk, f"""
        mount --bind '{home}' '{second}' || exit 99
        {lnk_under_mounts(lnk)} sandbox run --write '{work}' \
            --hide '{private}' --tool 'cat *' -- /bin/sh -c '
            cat "{second}/.lnk/sandbox/probe.key"
            cat "{second}/project/private/s"
            echo ran'
        """)
    assert cp.returncode != 99, cp.stderr
    assert "ran" in cp.stdout, (cp.stdout, cp.stderr)
    assert "LNKSECRET" not in cp.stdout + cp.stderr
    assert "HIDDENSECRET" not in cp.stdout + cp.stderr
