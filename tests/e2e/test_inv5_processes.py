"""Invariant 5, processes: the program cannot see, signal or trace anything
outside, nor inject into the terminal; when lnk dies the sandbox dies, and
when the program exits everything it started is gone. As root, the
program's uid 0 holds no capability and nothing of the host's that uid 0
would own is writable (/proc, sysctls, the keyring, kernel file systems,
device nodes). A sandbox takes only its share of the machine.

Attacks on it from inside a sandbox, one block a promise: each test
PASSES when the sandbox holds and FAILS when the attack works (more in
attack_helpers.py; a new attack: docs/HACKING.md, "Add an attack test").
"""
# Blocks, one a promise of the invariant:
#   A. Processes outside, and every process inside confined
#   B. The guard as a deputy into pid 1
#   C. The user's terminal
#   D. When the program exits
#   E. Only its share of the machine
#   F. What uid 0 without capabilities still owns

import json
import os
import signal
import subprocess
import textwrap
import time

import pytest

from conftest import FORKER, HELPERS, IS_ROOT, helper
from attack_helpers import PY, py


# =============================================================================
# A. Processes outside, and every process inside confined
#    Promise: the program cannot see, signal or trace anything outside, and
#    every process inside is confined.
# =============================================================================


def test_host_processes_unreachable(lnk):
    """Invariant 5 (processes), promise: the program cannot see, signal or
    trace anything outside, and every process inside is confined.

    Threat: signal, ptrace or read the memory of host processes or pid 1."""
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
    """Invariant 5 (processes), promise: the program cannot see, signal or
    trace anything outside, and every process inside is confined.

    Threat: a process inside without seccomp or Landlock (bwrap's own
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


def test_kernel_surfaces_refused(lnk):
    """Invariant 5 (processes), promise: the program cannot see, signal or
    trace anything outside, and every process inside is confined.

    Threat: kernel attack surface and namespace escapes from inside.
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


# =============================================================================
# B. The guard as a deputy into pid 1
#    Promise: the guard opens nothing of another process for the program (pid
#    1's memory, maps, environment).
# =============================================================================


# Every open() with O_CREAT goes to the supervisor outside, which opens the
# file itself and injects the fd. Whatever it opens, it opens with its own
# credentials and without the program's Landlock domain.
def test_pid1_memory_not_writable_through_supervisor(lnk, work):
    """Invariant 5 (processes), promise: the guard opens nothing of another
    process for the program (pid 1's memory, maps, environment).

    Threat: O_CREAT on /proc/1/mem, then run code in pid 1 unconfined."""
    attack = helper("attack_pid1")
    target = work / ".envrc"
    cp = lnk.run("--write", work, "--read", HELPERS, "--", attack,
                 f"echo pwned > {target}", timeout=60)
    assert not target.exists(), cp.stdout + cp.stderr
    assert "O_CREAT open /proc/1/mem: opened" not in cp.stdout, cp.stdout


@pytest.mark.parametrize("path", ["/proc/1/mem", "/proc/1/maps",
                                  "/proc/1/environ"])
def test_proc_of_pid1_not_opened_by_supervisor(lnk, work, path):
    """Invariant 5 (processes), promise: the guard opens nothing of another
    process for the program (pid 1's memory, maps, environment).

    Threat: read/write another process's memory or maps via the deputy."""
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
    """Invariant 5 (processes), promise: the guard opens nothing of another
    process for the program (pid 1's memory, maps, environment).

    Threat: an O_PATH fd on /proc/1/mem reopened with O_CREAT through
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


# =============================================================================
# C. The user's terminal
#    Promise: the program cannot reach or inject into the user's terminal.
# =============================================================================


def test_dev_tty_is_never_lnks_own_terminal(lnk, work):
    """Invariant 5 (processes), promise: the program cannot reach or inject
    into the user's terminal.

    Threat: `echo x > /dev/tty` (O_CREAT) opened by the supervisor names
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


# =============================================================================
# D. When the program exits
#    Promise: when the program exits everything it started is gone, and lnk
#    returns only then.
# =============================================================================


def test_nothing_keeps_running_after_the_program_exits(lnk, work):
    """Invariant 5 (processes), promise: when the program exits everything it
    started is gone, and lnk returns only then.

    Threat: double fork + setsid + ignored signals outlive lnk."""
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


def test_fifo_flood_on_supervisor_does_not_hang_lnk(lnk, work):
    """Invariant 5 (processes), promise: when the program exits everything it
    started is gone, and lnk returns only then.

    Threat: blocked FIFO opens tie up the supervisor so lnk never exits."""
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
    """Invariant 5 (processes), promise: when the program exits everything it
    started is gone, and lnk returns only then.

    Threat: a program leaves processes behind that would outlive it (one
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
    """Invariant 5 (processes), promise: when the program exits everything it
    started is gone, and lnk returns only then.

    Threat: lnk returns while bwrap (or anything else it started) still
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


# =============================================================================
# E. Only its share of the machine
#    Promise: a sandbox takes only its share: of the machine's tasks and of the
#    guard's workers.
# =============================================================================


def _user_settings(home, text):
    d = home / ".lnk" / "sandbox"
    d.mkdir(parents=True, exist_ok=True)
    (d / "settings.toml").write_text(text)


def test_spec_cannot_raise_the_task_limit(lnk, home, work):
    """Invariant 5 (processes), promise: a sandbox takes only its share: of the
    machine's tasks and of the guard's workers.

    Threat: a spec from a repository asks for 100000 tasks (or none) to
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


def test_create_still_works_after_a_fifo_flood(lnk, work):
    """Invariant 5 (processes), promise: a sandbox takes only its share: of the
    machine's tasks and of the guard's workers.

    Threat: 300 blocked FIFO opens with O_CREAT tie up every supervisor
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
# F. What uid 0 without capabilities still owns
#    Promise: as root, the program's uid 0 changes nothing of the host: /proc,
#    sysctls, the keyring, kernel file systems, device nodes.
# =============================================================================


# Run as root, the program's uid 0 is the host's root, without capabilities.
# The kernel still lets the owner of an object change it: every sysctl, every
# /proc entry, the device nodes bwrap binds from the host. Each test runs as
# a user too, where the kernel's own checks must hold the same.
def test_kernel_settings_unwritable(lnk):
    """Invariant 5 (processes), promise: as root, the program's uid 0 changes
    nothing of the host: /proc, sysctls, the keyring, kernel file systems,
    device nodes.

    Threat: as root, write kernel.core_pattern (the next crash runs the
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


def test_proc_entries_keep_their_mode_and_owner(lnk):
    """Invariant 5 (processes), promise: as root, the program's uid 0 changes
    nothing of the host: /proc, sysctls, the keyring, kernel file systems,
    device nodes.

    Threat: as root, chmod a /proc file: every /proc of the machine
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
    """Invariant 5 (processes), promise: as root, the program's uid 0 changes
    nothing of the host: /proc, sysctls, the keyring, kernel file systems,
    device nodes.

    Threat: the keyring outside (the user's session keyring, or root's)
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
    """Invariant 5 (processes), promise: as root, the program's uid 0 changes
    nothing of the host: /proc, sysctls, the keyring, kernel file systems,
    device nodes.

    Threat: sysfs, cgroupfs, debugfs, bpffs... mounted inside, or a /proc
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
    """Invariant 5 (processes), promise: as root, the program's uid 0 changes
    nothing of the host: /proc, sysctls, the keyring, kernel file systems,
    device nodes.

    Threat: as root, chmod 0600 /dev/null inside changes the host's
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
