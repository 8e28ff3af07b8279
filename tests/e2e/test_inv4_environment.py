"""Invariant 4, environment: the environment is cleared, and only a small
documented set is set (PATH, HOME, TERM, LANG, the proxy variables, what
the user names). Descriptors above 2 are closed.

Attacks on it from inside a sandbox, one block a promise: each test
PASSES when the sandbox holds and FAILS when the attack works (more in
attack_helpers.py; a new attack: docs/HACKING.md, "Add an attack test").
"""
# Blocks, one a promise of the invariant:
#   A. The environment
#   B. Descriptors

import os
import pathlib
import socket
import subprocess
import time

import pytest

from conftest import IS_ROOT, LNK
from attack_helpers import py, sh


# =============================================================================
# A. The environment
#    Promise: the environment is cleared: no secret of lnk's environment, and
#    no route's key, reaches the program.
# =============================================================================


def test_secrets_in_environment_do_not_reach(lnk):
    """Invariant 4 (environment), promise: the environment is cleared: no
    secret of lnk's environment, and no route's key, reaches the program.

    Threat: tokens, agent sockets and loader tricks in the environment."""
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


def test_model_key_cannot_be_passed_in_by_env(lnk, work):
    """Invariant 4 (environment), promise: the environment is cleared: no
    secret of lnk's environment, and no route's key, reaches the program.

    Threat: a spec that grants a route also passes the route's key
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


# =============================================================================
# B. Descriptors
#    Promise: descriptors above 2 are closed: the program, and pid 1, hold
#    nothing of the host's or lnk's.
# =============================================================================


@pytest.fixture
def own_provider(tmp_path):
    """A fake provider of this test's own (tests/e2e/fake_provider.py, the
    worktree's), in the test hosts' namespace on origin.lnk-test:8444:
    the shared one on 8443 may be an older copy. Needs root."""
    env_file = pathlib.Path("/run/lnk-nethosts.env")
    if not env_file.exists():
        pytest.skip("no test hosts: run tests/e2e/nethosts.sh up as root")
    if not IS_ROOT:
        pytest.skip("starting a provider in the test hosts' namespace "
                    "needs root")
    f = dict(l.partition("=")[::2] for l in env_file.read_text().split())
    log = tmp_path / "requests.jsonl"
    p = subprocess.Popen(
        ["ip", "netns", "exec", "lnk-nethosts", "/usr/bin/python3",
         str(pathlib.Path(__file__).with_name("fake_provider.py")),
         f["ORIGIN_IP"], "8444", "/run/lnk-nethosts/cert.pem",
         "/run/lnk-nethosts/key.pem", str(log)])
    for _ in range(50):
        if subprocess.run(["ip", "netns", "exec", "lnk-nethosts", "python3",
                           "-c", "import socket; socket.create_connection("
                           f"('{f['ORIGIN_IP']}', 8444), 1)"],
                          capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    yield f
    p.kill()
    p.wait()


def test_model_key_echoed_across_chunk_framing_is_masked(lnk, own_provider):
    """Invariant 4 (environment), promise: the environment is cleared: no
    secret of lnk's environment, and no route's key, reaches the program.

    Threat: the program asks the route's host for something that shows the
    request back (an echo behind a route of one's own, an error quoting the
    header). The wire masked the key where its bytes came whole; a server
    that answers chunked in pieces of a fixed size (a buffered writer; the
    program pads its request to place the key across a boundary) puts
    chunk framing inside the key, which the program's HTTP client removes:
    the key whole, inside."""
    f = own_provider
    key = "sk-test-" + os.urandom(16).hex()
    cp = lnk.run(
        "--model", "fake=https://origin.lnk-test:8444/v1", "--", "sh", "-c",
        "curl -sS --max-time 20 -H 'content-type: application/json' "
        "\"$LNK_MODEL_FAKE_URL/chat/completions\" "
        "-d '{\"model\":\"m-echochunks\"}'",
        env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"],
             "SSL_CERT_FILE": f["CA_FILE"], "FAKE_API_KEY": key})
    assert cp.returncode == 0, cp.stderr
    assert "you_sent" in cp.stdout, (cp.stdout, cp.stderr)
    assert key not in cp.stdout, cp.stdout
    assert key[8:20] not in cp.stdout, cp.stdout
    assert "Bearer " + "*" * len(key) in cp.stdout, cp.stdout


def test_inherited_sockets_do_not_leak(lnk, home):
    """Invariant 4 (environment), promise: descriptors above 2 are closed: the
    program, and pid 1, hold nothing of the host's or lnk's.

    Threat: a host socket fd (agent, listening TCP) left open into the box."""
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


def test_pid1_holds_no_descriptor(lnk, work):
    """Invariant 4 (environment), promise: descriptors above 2 are closed: the
    program, and pid 1, hold nothing of the host's or lnk's.

    Threat: pid 1 keeps the config memfd, the wire or guard socket,
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


def test_program_holds_no_socket_to_lnk(lnk, work):
    """Invariant 4 (environment), promise: descriptors above 2 are closed: the
    program, and pid 1, hold nothing of the host's or lnk's.

    Threat: pid 1 keeps the guard's socket until lnk has sent the
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
