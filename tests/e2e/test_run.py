"""lnk sandbox run, end to end: the walls (reads, writes, hidden folders,
~/.lnk), the environment, inherited descriptors, processes, exit codes and
signals (docs/design.md, invariants 1, 4, 5). Each test fails if its layer is
removed: it asserts what the program saw from inside, not lnk's word."""
import os
import pathlib
import pwd
import shutil
import signal
import subprocess
import textwrap
import time

import pytest

from conftest import HELPERS, IS_ROOT, LNK, helper


def sh(lnk, script, *grants, **kw):
    return lnk.run(*grants, "--", "/bin/sh", "-c", script, **kw)


# --- reads -----------------------------------------------------------------

def test_home_is_empty_without_grants(lnk, home):
    (home / "secret.txt").write_text("s3cret\n")
    cp = sh(lnk, f"cat {home}/secret.txt; ls -A {home}; echo end")
    assert "s3cret" not in cp.stdout
    assert cp.stdout.strip() == "end"
    assert cp.returncode == 0


def test_other_homes_and_root_are_absent(lnk):
    cp = sh(lnk, "ls -A /root /home 2>&1; echo rc=$?")
    assert "rc=2" in cp.stdout or "No such file" in cp.stdout
    # Nothing of the host's /root or /home shows.
    for name in os.listdir("/home"):
        assert f"\n{name}\n" not in "\n" + cp.stdout


def test_system_is_readable_and_read_only(lnk):
    cp = sh(lnk, "cat /etc/hosts >/dev/null && echo read-ok; "
                 "touch /usr/lnk-test 2>&1 || echo usr-ro; "
                 "touch /lnk-test 2>&1 || echo root-ro")
    assert "read-ok" in cp.stdout
    assert "usr-ro" in cp.stdout and "root-ro" in cp.stdout
    assert not os.path.exists("/usr/lnk-test")


def test_etc_secrets_absent(lnk):
    cp = sh(lnk, "ls /etc/shadow /etc/ssh /etc/machine-id 2>&1; "
                 "cat /etc/passwd")
    assert "shadow:" not in cp.stdout
    assert cp.stdout.count("No such file") == 3
    # Generated accounts: no host account other than the user's shows.
    me = pwd.getpwuid(os.getuid()).pw_name
    names = {l.split(":")[0] for l in cp.stdout.splitlines() if ":x:" in l}
    assert names <= {"root", me, "nobody"}


def test_etc_globbed_names_as_outside_and_cache_names_nothing_else(lnk,
                                                                   home):
    """The /etc entries a glob of the list stands for (python3*) are those
    outside, first run and cached alike; a cache written by hand with /etc's
    key cannot bring in anything else of /etc (shadow, a path with '/')."""
    want = sorted(n for n in os.listdir("/etc") if n.startswith("python3"))
    script = "cd /etc && ls -d python3* 2>/dev/null; ls -d shadow sudoers " \
             "2>/dev/null; true"
    for _ in range(2):  # made, then read from the cache
        cp = sh(lnk, script)
        assert cp.stdout.split() == want, cp.stdout
    cache = home / ".lnk" / "sandbox" / "etc-names"
    lines = cache.read_text().splitlines()
    st = os.stat("/etc")
    assert lines[:3] == ["lnk etc-names 1", "python3",
                         f"{st.st_dev} {st.st_ino} "
                         f"{st.st_mtime_ns // 10**9}."
                         f"{st.st_mtime_ns % 10**9:09d} "
                         f"{st.st_ctime_ns // 10**9}."
                         f"{st.st_ctime_ns % 10**9:09d}"], lines
    for bad in ("shadow", "python3/../shadow", "../etc/sudoers"):
        cache.write_text("\n".join(lines[:3] + [bad]) + "\n")
        cp = sh(lnk, script)
        assert cp.stdout.split() == want, (bad, cp.stdout)


@pytest.mark.skipif(os.getuid() != 0, reason="device node copies are made "
                    "only as root")
def test_dev_copies_a_killed_lnk_left_are_swept(lnk):
    """As root each sandbox copies its device nodes into /dev/.lnk-PID-*; a
    lnk killed with SIGKILL leaves its folder, which a later run removes
    (and only when that pid no longer runs)."""
    dead = pathlib.Path("/dev/.lnk-999999999-abcdef")
    live = pathlib.Path(f"/dev/.lnk-{os.getpid()}-abcdef")
    for d in (dead, live):
        d.mkdir(mode=0o700)
        (d / "null").write_text("")
    try:
        sh(lnk, "true")
        assert not dead.exists()
        assert (live / "null").exists()
    finally:
        for d in (dead, live):
            if d.exists():
                shutil.rmtree(d)


def test_read_is_read_only(lnk, home):
    d = home / "docs"
    d.mkdir()
    (d / "a.txt").write_text("hello\n")
    cp = sh(lnk, f"cat {d}/a.txt; echo x > {d}/a.txt || echo write-refused;"
                 f" rm {d}/a.txt || echo rm-refused", "--read", d)
    assert "hello" in cp.stdout
    assert "write-refused" in cp.stdout and "rm-refused" in cp.stdout
    assert (d / "a.txt").read_text() == "hello\n"


def test_hidden_folder_is_empty_but_grants_inside_show(lnk, home):
    priv = home / "private"
    (priv / "inner").mkdir(parents=True)
    (priv / "key.txt").write_text("k\n")
    (priv / "inner" / "ok.txt").write_text("ok\n")
    cp = sh(lnk, f"ls -A {priv}; cat {priv}/key.txt; cat {priv}/inner/ok.txt",
            "--read", home, "--hide", priv, "--read", priv / "inner")
    assert "key.txt" not in cp.stdout
    assert "ok" in cp.stdout.split()


@pytest.mark.parametrize("grant", [["--read", "~"], ["--write", "~"]])
def test_lnk_settings_never_readable(lnk, home, grant):
    (home / ".lnk").mkdir(mode=0o700, exist_ok=True)
    (home / ".lnk" / "bait").write_text("lnk-bait\n")
    agents = home / "Link" / "Agents" / "a1"
    agents.mkdir(parents=True)
    (agents / "bait").write_text("agent-bait\n")
    cp = sh(lnk, f"ls -A {home}/.lnk {home}/Link/Agents; "
                 f"cat {home}/.lnk/bait {agents}/bait; "
                 f"echo x > {home}/.lnk/new || echo write-refused", *grant)
    if cp.returncode == 2:  # the grant itself was refused: also fine
        assert ".lnk" in cp.stderr or "lnk" in cp.stderr
        return
    assert "bait" not in cp.stdout.replace("write-refused", "")
    assert "write-refused" in cp.stdout
    assert not (home / ".lnk" / "new").exists()


# --- writes ----------------------------------------------------------------

def test_write_appears_on_host_owned_by_user(lnk, work):
    cp = sh(lnk, "echo made > made.txt && mkdir sub && echo ok", "--write",
            work)
    assert cp.returncode == 0, cp.stderr
    f = work / "made.txt"
    assert f.read_text() == "made\n"
    st = f.stat()
    assert st.st_uid == os.getuid() and st.st_gid == os.getgid()
    assert (work / "sub").is_dir()


def test_writes_outside_write_do_not_reach_host(lnk, home, work, tmp_path):
    # lnk's own settings folder is the one thing lnk itself makes.
    before = sorted(p.name for p in home.iterdir() if p.name != ".lnk")
    cp = sh(lnk, f"echo x > {home}/outside.txt; mkdir {home}/newdir; "
                 f"echo x > /tmp/in-tmp; echo x > {tmp_path}/beside; "
                 "echo done", "--write", work)
    assert "done" in cp.stdout
    assert sorted(p.name for p in home.iterdir()
                  if p.name != ".lnk") == before
    assert not (tmp_path / "beside").exists()
    assert not pathlib.Path("/tmp/in-tmp").exists()


def test_tmp_is_empty_and_private(lnk, home):
    marker = pathlib.Path("/tmp") / f"lnk-host-marker-{os.getpid()}"
    marker.write_text("host\n")
    # The (empty) home is mounted at its path: when that path is under
    # /tmp, its first folder shows in /tmp, and nothing else does.
    expect = []
    if str(home).startswith("/tmp/"):
        expect = [str(home)[len("/tmp/"):].split("/")[0]]
    try:
        name = f"lnk-inside-{os.getpid()}"
        cp = sh(lnk, f"ls -A /tmp; echo in > /tmp/{name}; cat /tmp/{name}")
        assert marker.name not in cp.stdout
        assert cp.stdout.split() == expect + ["in"]
        assert marker.read_text() == "host\n"
        # the file written inside never reaches the host's /tmp
        assert not (pathlib.Path("/tmp") / name).exists()
    finally:
        marker.unlink()


def test_write_under_host_tmp(lnk, tmp_path):
    d = tmp_path / "granted"
    d.mkdir()
    cp = sh(lnk, f"echo hi > {d}/f && ls -A /tmp", "--write", d)
    assert cp.returncode == 0, cp.stderr
    assert (d / "f").read_text() == "hi\n"


def test_missing_grant_path_is_a_clear_error(lnk, home):
    cp = sh(lnk, "true", "--write", home / "does-not-exist")
    assert cp.returncode == 2
    assert "does-not-exist" in cp.stderr


def test_hide_of_a_file_is_a_clear_error(lnk, home):
    """--hide closes a folder: a file is refused before anything starts,
    with what to do, not bwrap's own error."""
    secret = home / "secret.txt"
    secret.write_text("s")
    cp = sh(lnk, "cat ~/secret.txt", "--read", home, "--hide", secret)
    assert cp.returncode == 2, cp.stderr
    assert "is not a folder" in cp.stderr and "bwrap" not in cp.stderr, \
        cp.stderr
    assert cp.stdout == ""


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
    cp = lnk.run(grant, work, "--", "/usr/bin/python3", "-c", code, where,
                 timeout=60)
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert "b'PING' b'PING' b'PING' b'PING'" in cp.stdout, cp.stdout
    assert "b'dgram'" in cp.stdout and "abstract True" in cp.stdout
    assert "tcp ok" in cp.stdout


# --- environment and descriptors -------------------------------------------

def test_environment_does_not_leak(lnk):
    cp = sh(lnk, "env", env={"SECRET_TOKEN": "tok-123",
                             "SSH_AUTH_SOCK": "/run/ssh-agent.sock",
                             "LD_PRELOAD": "/nonexistent.so",
                             "TMPDIR": "/run/user/x"})
    assert cp.returncode == 0, cp.stderr
    names = {l.split("=", 1)[0] for l in cp.stdout.splitlines() if "=" in l}
    assert "tok-123" not in cp.stdout
    for bad in ("SECRET_TOKEN", "SSH_AUTH_SOCK", "LD_PRELOAD", "TMPDIR"):
        assert bad not in names
    assert {"PATH", "HOME", "LANG"} <= names


def test_env_flag_passes_a_name(lnk):
    cp = sh(lnk, 'echo "v=$PASSED"; echo "s=$OTHER"', "--env", "PASSED",
            env={"PASSED": "yes", "OTHER": "no"})
    assert "v=yes" in cp.stdout and "s=\n" in cp.stdout + "\n"


def test_inherited_descriptors_do_not_leak(lnk, home):
    fdleak = helper("fdleak")
    dfd = os.open(str(home), os.O_RDONLY | os.O_DIRECTORY)
    r, w = os.pipe()
    f = open(home / "open-file", "w")
    try:
        cp = lnk.run("--read", HELPERS, "--", fdleak,
                     pass_fds=(dfd, r, w, f.fileno()))
    finally:
        os.close(dfd)
        os.close(r)
        os.close(w)
        f.close()
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.strip().splitlines()[-1] == "count 0", cp.stdout


# --- processes ---------------------------------------------------------------

def test_host_processes_are_invisible(lnk):
    cp = sh(lnk, f"ls /proc | grep -c '^[0-9]'; kill -0 {os.getpid()} "
                 "2>&1 && echo killed || echo kill-refused")
    lines = cp.stdout.split()
    # pid 1, the resolver of a sandbox without network, the shell, ls,
    # grep
    assert int(lines[0]) <= 5, cp.stdout
    assert "kill-refused" in cp.stdout


def test_program_exit_ends_everything_it_started(lnk, tmp_path):
    # A background child that would outlive its parent on the host.
    cp = sh(lnk, "(sleep 30; echo late) & echo started")
    assert cp.returncode == 0 and "started" in cp.stdout
    assert "late" not in cp.stdout


def test_pid1_is_lnk_init_and_the_program_leads_its_own_group(lnk):
    """No bwrap reaper inside: pid 1 is lnk-init, confined like the
    program; the program is pid 2, in a process group of its own."""
    cp = lnk.run("--", "/usr/bin/python3", "-c",
                 "import os; print(open('/proc/1/cmdline').read()"
                 ".split(chr(0))[0]); print(os.getpid(), os.getpgrp()); "
                 "print(open('/proc/1/status').read().count('Seccomp:\t2'))")
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.split("\n")[:3] == ["/run/lnk/init", "2 2", "1"], \
        cp.stdout


def test_orphans_are_reaped_and_exit_ends_them_at_once(lnk):
    """Invariant 5 with lnk-init as pid 1: orphans are reaped while the
    program runs (no zombies), and when it exits, a child that ignores
    SIGTERM and a setsid daemon die with it at once (not after their 4242
    seconds, not after lnk's timeout)."""
    marker = f"4242.{os.getpid()}"
    cp = lnk.run("--", "/usr/bin/python3", "-c", f"""
import os, signal, time
for i in range(20):
    c = os.fork()
    if c == 0:
        if os.fork() == 0:
            time.sleep(0.1)
            os._exit(0)
        os._exit(0)
    os.waitpid(c, 0)
time.sleep(1)
print("zombies", sum(1 for p in os.listdir("/proc") if p.isdigit() and
      open(f"/proc/{{p}}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"))
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.execv("/bin/sleep", ["sleep", "{marker}"])
    os._exit(0)
if os.fork() == 0:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    os.execv("/bin/sleep", ["sleep", "{marker}"])
time.sleep(0.3)
print("bye")
""", timeout=30)
    left = subprocess.run(["pgrep", "-f", f"sleep {marker}"],
                          capture_output=True, text=True).stdout.split()
    for pid in left:
        os.kill(int(pid), signal.SIGKILL)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout == "zombies 0\nbye\n", cp.stdout
    assert left == [], "processes outlived the program"


@pytest.mark.parametrize("policy", ["SCHED_OTHER", "SCHED_BATCH",
                                    "SCHED_IDLE"])
def test_scheduling_policy_is_the_one_lnk_was_started_with(lnk, policy):
    """lnk is SCHED_BATCH for the clone that becomes bwrap (a start-time
    cut): the program, and lnk's own threads after it, still run with
    the policy lnk was started with, whatever that was."""
    want = getattr(os, policy)

    def start_with_policy():
        os.sched_setscheduler(0, want, os.sched_param(0))

    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--", "/usr/bin/python3", "-c",
         "import os, sys, time; print(os.sched_getscheduler(0), flush=True);"
         " sys.stdin.read()"],
        cwd=str(lnk.cwd), env=lnk.env(), text=True, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=start_with_policy)
    try:
        inside = p.stdout.readline().strip()
        # the supervisor's threads, read while the program runs
        policies = set()
        for tid in os.listdir(f"/proc/{p.pid}/task"):
            stat = pathlib.Path(f"/proc/{p.pid}/task/{tid}/stat").read_text()
            policies.add(int(stat.rsplit(")", 1)[1].split()[38]))
    finally:
        p.stdin.close()
        p.wait(timeout=30)
        err = p.stderr.read()
        p.stdout.close()
        p.stderr.close()
    assert p.returncode == 0, err
    assert inside == str(want), (inside, err)
    assert policies == {want}, policies


# --- exit codes and signals -------------------------------------------------

@pytest.mark.parametrize("code", [0, 3, 1, 42])
def test_exit_status_passes_through(lnk, code):
    assert sh(lnk, f"exit {code}").returncode == code


def test_missing_program_is_127(lnk):
    cp = lnk.run("--", "no-such-program-lnk")
    assert cp.returncode == 127
    assert "no-such-program-lnk" in cp.stderr


def test_not_executable_is_126(lnk, work):
    f = work / "script.sh"
    f.write_text("#!/bin/sh\necho hi\n")
    f.chmod(0o644)
    cp = lnk.run("--write", work, "--", str(f))
    assert cp.returncode == 126, (cp.stdout, cp.stderr)


def test_signal_is_128_plus_n(lnk):
    assert sh(lnk, "kill -TERM $$").returncode == 128 + signal.SIGTERM
    assert sh(lnk, "kill -KILL $$").returncode == 128 + signal.SIGKILL


def test_arguments_after_dashdash_unchanged(lnk):
    args = ["--write", "/", "--config-fd", "3", "--args", "--", "a b", ""]
    cp = lnk.run("--", "/usr/bin/printf", "[%s]", *args)
    assert cp.stdout == "".join(f"[{a}]" for a in args)


def test_sigterm_to_lnk_reaches_the_program(lnk, home):
    p = subprocess.Popen(
        [LNK, "sandbox", "run", "--", "/bin/sh", "-c",
         "trap 'echo got-term; exit 42' TERM; echo ready; "
         "while :; do sleep 0.1; done"],
        cwd=str(home), env=lnk.env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    assert "got-term" in out, err
    assert p.returncode == 42


SIGNAL_PROGRAM = """
import os, signal, sys, time
def say(who):  # os.write: a handler may run inside another's print
    def h(sig, _):
        os.write(1, f"{who} {signal.Signals(sig).name}\\n".encode())
    return h
r, w = os.pipe()
if os.fork() == 0:  # a child in the program's process group
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1, signal.SIGHUP):
        signal.signal(s, say("child"))
    os.write(w, b"x")
    while True:
        time.sleep(0.05)
os.read(r, 1)
for s in (signal.SIGINT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGHUP):
    signal.signal(s, say("parent"))
def term(sig, _):
    os.write(1, b"parent SIGTERM\\n")
    time.sleep(0.5)  # the child would have said so by now
    os._exit(9)
signal.signal(signal.SIGTERM, term)
print("ready", flush=True)
while True:
    time.sleep(0.05)
"""


def _lines(p):
    import queue
    import threading
    q = queue.Queue()

    def pump():
        for line in p.stdout:
            q.put(line.strip())
        q.put(None)
    threading.Thread(target=pump, daemon=True).start()
    return q


def _until(q, want, timeout=10):
    seen = []
    end = time.monotonic() + timeout
    while want not in seen and time.monotonic() < end:
        try:
            line = q.get(timeout=0.1)
        except Exception:
            continue
        if line is None:
            break
        seen.append(line)
    return seen


def test_signals_to_lnk_reach_the_program_or_its_group(lnk, home):
    """SIGINT (and SIGQUIT) reach the program's whole process group, as a
    terminal's ^C does; SIGUSR1, SIGUSR2, SIGHUP and SIGTERM the program
    alone, as kill PID does. Through lnk and lnk-init, pid 1."""
    p = subprocess.Popen(
        [LNK, "sandbox", "run", "--", "/usr/bin/python3", "-c",
         SIGNAL_PROGRAM], cwd=str(home), env=lnk.env(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        q = _lines(p)
        assert "ready" in _until(q, "ready")
        p.send_signal(signal.SIGINT)
        got = _until(q, "child SIGINT")
        got += _until(q, "parent SIGINT") if "parent SIGINT" not in got \
            else []
        assert {"parent SIGINT", "child SIGINT"} <= set(got), got
        for sig in (signal.SIGUSR1, signal.SIGUSR2, signal.SIGHUP):
            p.send_signal(sig)
            got = _until(q, f"parent {sig.name}")
            assert f"parent {sig.name}" in got, got
        p.send_signal(signal.SIGTERM)
        rest = _until(q, None, timeout=20)
        p.wait(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    assert "parent SIGTERM" in rest, (rest, p.stderr.read())
    assert not any(l.startswith("child") for l in rest), rest
    assert p.returncode == 9, p.stderr.read()


@pytest.mark.parametrize("delay", [0, 0.005, 0.02, 0.05, 0.1, 0.3])
def test_sigterm_at_any_moment_of_the_start_ends_the_run(lnk, home, delay):
    """While bwrap makes the sandbox, its pid 1 (lnk-init from the clone
    on) would drop a signal it has no handler for: lnk starts bwrap with
    them blocked, so the signal waits for lnk-init, which stops before the
    program or forwards it. Either way the run ends with 128+15, never
    hangs for the program's 30 seconds. (Sent before lnk itself blocks
    its signals, SIGTERM ends lnk, and the lifeline the rest.)"""
    p = subprocess.Popen(
        [LNK, "sandbox", "run", "--", "/bin/sleep", "30"], cwd=str(home),
        env=lnk.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    time.sleep(delay)
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode in (128 + signal.SIGTERM, -signal.SIGTERM), err


def test_lnk_killed_kills_the_sandbox(lnk, home, tmp_path):
    flag = tmp_path / "out"
    flag.mkdir()
    p = subprocess.Popen(
        [LNK, "sandbox", "run", "--write", str(flag), "--", "/bin/sh", "-c",
         f"echo ready; sleep 2; echo alive > {flag}/late"],
        cwd=str(home), env=lnk.env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    p.kill()
    p.wait()
    time.sleep(3)
    assert not (flag / "late").exists()


def test_no_capabilities_and_no_nested_user_namespace(lnk):
    """Root inside holds no capability (also when lnk runs as root), and
    cannot make a user namespace of its own to get some."""
    cp = sh(lnk, "grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status; "
                 "unshare -U true 2>/dev/null && echo nested || echo no-nest")
    for line in cp.stdout.splitlines()[:3]:
        assert line.split()[1] == "0000000000000000", cp.stdout
    assert "no-nest" in cp.stdout


def test_proc_self_write_refused_as_read_only_with_a_folder(lnk, work):
    """With a folder granted every open that writes goes to the guard,
    which cannot resolve /proc/self (the task's, not its own): such a
    write fails as on the read-only /proc, with EROFS, not as a missing
    file; /proc/self/fd/N still names the task's descriptor."""
    code = textwrap.dedent("""
        import os
        for p in ("/proc/self/oom_score_adj", "/proc/thread-self/comm",
                  "/proc/self/fd/1"):
            try:
                os.close(os.open(p, os.O_WRONLY))
                print(p, "opened")
            except OSError as e:
                print(p, e.errno)
    """)
    cp = lnk.run("--write", work, "--", "/usr/bin/python3", "-c", code,
                 timeout=60)
    assert cp.returncode == 0, cp.stderr
    assert "/proc/self/oom_score_adj 30" in cp.stdout, cp.stdout
    assert "/proc/thread-self/comm 30" in cp.stdout, cp.stdout
    assert "/proc/self/fd/1 opened" in cp.stdout, cp.stdout


def test_lnk_settings_made_during_the_run_stay_hidden(lnk, home):
    """~/.lnk did not exist when the run started; what lnk writes there
    while the program runs (the wire's log) must not show inside."""
    assert not (home / ".lnk").exists()
    p = subprocess.Popen(
        [LNK, "sandbox", "run", "--read", str(home), "--", "/bin/sh", "-c",
         f"echo ready; read x; ls -A {home}/.lnk; cat {home}/.lnk/bait; "
         "echo end"],
        cwd=str(home), env=lnk.env(), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        (home / ".lnk").mkdir(exist_ok=True)
        (home / ".lnk" / "bait").write_text("lnk-bait\n")
        out, err = p.communicate("go\n", timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    assert "bait" not in out, out
    assert out.strip().endswith("end")


# --- a spec that runs no program -------------------------------------------

def test_spec_without_commands_says_it_runs_no_program(lnk, work):
    """A spec with no sections runs no program, and says so clearly when
    asked to run one: which spec, which key, and the two ways to allow it."""
    (work / "empty.toml").write_text("version = 1\n")
    cp = lnk.run("--spec", "empty.toml", "--yes", "--", "true")
    assert cp.returncode == 126, cp.stderr
    assert cp.stderr.strip() == (
        "lnk: empty.toml has no [commands] section, so it runs no program: "
        "add [commands] allow = [\"true\"] to it, or --command true")
    # an empty allow says where it is
    (work / "none.toml").write_text("[commands]\nallow = []\n")
    cp = lnk.run("--spec", "none.toml", "--yes", "--", "/usr/bin/true")
    assert cp.returncode == 126, cp.stderr
    assert "none.toml:2: [commands] allow is empty, so it runs no program" \
        in cp.stderr
    # a program that is not there is still "not found" (127)
    cp = lnk.run("--spec", "empty.toml", "--yes", "--", "no-such-program")
    assert cp.returncode == 127, cp.stderr
    assert "not found" in cp.stderr
    # --command beside the spec lets it run; a listed program runs too
    cp = lnk.run("--spec", "empty.toml", "--yes", "--command", "true", "--",
                 "true")
    assert cp.returncode == 0, cp.stderr
    (work / "some.toml").write_text("[commands]\nallow = [\"sh\"]\n")
    cp = lnk.run("--spec", "some.toml", "--yes", "--", "true")
    assert cp.returncode == 126
    assert "'true' is not allowed" in cp.stderr


# --- one name, one running sandbox -----------------------------------------

def _registered(home, name):
    import sqlite3
    db = home / ".lnk" / "sandbox" / "lnk.db"
    if not db.exists():
        return False
    try:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return c.execute("SELECT 1 FROM ctl_sandboxes WHERE name = ?",
                             (name,)).fetchone() is not None
        finally:
            c.close()
    except sqlite3.Error:
        return False


@pytest.mark.parametrize("second_wire", [False, True],
                         ids=["second-without-wire", "second-with-wire"])
def test_a_running_name_is_refused_before_anything_starts(lnk, home, work,
                                                          second_wire):
    """--name x twice: the second is refused before its program (or its
    wire) starts, with 125, whether or not it has a wire; once the first
    ends, the name is free again."""
    first = subprocess.Popen(
        [LNK, "sandbox", "run", "--name", "twice", "--internet-host",
         "example.test", "--", "/bin/sh", "-c", "echo ready; read x"],
        cwd=str(work), env=lnk.env(), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert first.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 10
        while not _registered(home, "twice"):
            assert time.monotonic() < deadline, "the wire never registered"
            time.sleep(0.02)
        grants = ["--port", "9"] if second_wire else []
        cp = lnk.run("--name", "twice", "--write", work, *grants, "--",
                     "/bin/sh", "-c", "touch ran")
        assert cp.returncode == 125, cp.stderr
        assert cp.stderr.strip() == (
            "lnk: a sandbox named 'twice' is already running here; "
            "choose another --name")
        assert not (work / "ran").exists()
        # another name runs beside it
        cp = lnk.run("--name", "other", "--", "true")
        assert cp.returncode == 0, cp.stderr
        out, err = first.communicate("go\n", timeout=20)
        assert first.returncode == 0, err
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    cp = lnk.run("--name", "twice", "--write", work, "--", "/bin/sh", "-c",
                 "touch ran")
    assert cp.returncode == 0, cp.stderr
    assert (work / "ran").exists()


def _sandbox_left(token, home):
    """pids on the host of that sandbox: the program (`sleep <token>`), or
    a bwrap that never got to start it (its working folder is the run's
    home, where lnk started it)."""
    want = b"sleep\0" + token.encode() + b"\0"
    left = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                if f.read().endswith(want):
                    left.append(int(d))
                    continue
            if os.readlink(f"/proc/{d}/cwd").startswith(str(home)):
                left.append(int(d))
        except OSError:
            pass
    return left


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "?"


def _gone_within(token, home, seconds):
    deadline = time.monotonic() + seconds
    while _sandbox_left(token, home):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


# Invariant 5: when lnk dies, the sandbox dies, also when lnk is SIGKILLed
# while bwrap is still making the sandbox: with --die-with-parent, bwrap
# would die with lnk and its child wait forever for bwrap's go-ahead, or
# run the program unbound (docs/kernel-facts.md,
# die-with-parent-misses-setup). The lifeline (a pipe whose write end only
# lnk holds; lnk-init exits when it hangs up) closes that window. The
# delays sweep lnk's start, bwrap's setup and the first moments of the
# program; the last runs kill a program that is surely running.
REPS = int(os.environ.get("LNK_LIFELINE_REPS", "30"))


@pytest.mark.parametrize("late", [False, True])
def test_sigkill_of_lnk_leaves_no_sandbox(lnk, home, late):
    stray = []
    for i in range(REPS):
        token = f"60.{os.getpid()}{i:02d}{int(late)}"
        p = subprocess.Popen(
            [LNK, "sandbox", "run", "--", "/bin/sh", "-c",
             f"echo ready; sleep {token}"],
            cwd=str(home), env=lnk.env(), stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
        try:
            if late:
                assert p.stdout.readline().strip() == b"ready"
            else:
                time.sleep(i % 30 * 0.0005)  # 0 to 15 ms: the whole start
            p.kill()
            p.wait()
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stdout.close()
        if not _gone_within(token, home, 2):
            left = _sandbox_left(token, home)
            stray.append((i, [_cmdline(pid) for pid in left]))
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
    assert not stray, f"sandboxes outlived lnk: {stray}"


def _children(pid):
    kids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and ')'
        if int(st[st.rindex(")") + 2:].split()[1]) == pid:
            kids.append((int(d), st[st.index("(") + 1:st.rindex(")")]))
    return kids


def _pipe_writes(pid):
    """The pipes whose write end pid holds (by inode)."""
    held = set()
    for n in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{n}")
            with open(f"/proc/{pid}/fdinfo/{n}") as f:
                flags = next(int(line.split()[1], 8) for line in f
                             if line.startswith("flags:"))
        except (OSError, StopIteration):
            continue
        if target.startswith("pipe:") and flags & os.O_ACCMODE == os.O_WRONLY:
            held.add(target)
    return held


def test_the_keeper_holds_no_lifeline_of_lnk(lnk, home):
    """The keeper is forked as bwrap starts, when lnk already holds the
    write end of the sandbox's lifeline (and of the wire's own): it and
    the wire it forks keep none of lnk's descriptors, so that only lnk's
    death hangs those up (invariant 5). A keeper that kept a copy would
    keep the sandbox alive after lnk is gone for as long as it lives."""
    p = subprocess.Popen(
        [LNK, "sandbox", "run", "--internet-host", "*", "--", "/bin/sh",
         "-c", "echo ready; sleep 30"],
        cwd=str(home), env=lnk.env(), stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL)
    try:
        assert p.stdout.readline().strip() == b"ready"
        keeper = [k for k, comm in _children(p.pid) if comm == "lnk-wire-keep"]
        assert len(keeper) == 1, _children(p.pid)
        wire = [k for k, comm in _children(keeper[0]) if comm == "lnk-wire"]
        assert len(wire) == 1, _children(keeper[0])
        lnks = _pipe_writes(p.pid)
        # the sandbox's lifeline and the wire's: both lnk's alone
        assert len(lnks) >= 2, lnks
        for pid in keeper + wire:
            shared = _pipe_writes(pid) & lnks
            assert not shared, f"{_cmdline(pid)} holds {shared} of lnk's"
    finally:
        p.kill()
        p.wait()
        p.stdout.close()


def test_a_bad_name_is_refused_alike_with_or_without_a_wire(lnk):
    """One rule for sandbox names: the flag's check is the registry's and
    the wire's, so a name is refused before anything starts, the same way
    whatever else the command grants."""
    plain = lnk.run("--name", ".x", "--", "true")
    wired = lnk.run("--name", ".x", "--internet-host", "*", "--", "true")
    assert plain.returncode == 2, plain.stderr
    assert wired.returncode == 2, wired.stderr
    assert plain.stderr == wired.stderr
    assert "'.x' is not a sandbox name" in plain.stderr
