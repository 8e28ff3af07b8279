"""Fixtures for the end-to-end tests.

Every test drives the real binary (LNK_BIN, default build/lnk) with real
bubblewrap. tests/run-all runs this suite twice: as an unprivileged user it
creates (who our users are) and as root. Each test gets a private HOME so no
test can see another's settings.
"""
import os
import pathlib
import socket
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
LNK = os.environ.get("LNK_BIN") or str(ROOT / "build" / "lnk")
IS_ROOT = os.geteuid() == 0
# Helper programs (tests/helpers/*.c), built into <build>/tests/helpers.
HELPERS = pathlib.Path(os.environ.get("LNK_HELPERS")
                       or ROOT / "build" / "tests" / "helpers")

# A Python program that forks 100 children that sleep, and prints how many
# it made and how many forks failed: the task limit's probe.
FORKER = """
import os, time
kids, failed = [], 0
for _ in range(100):
    try:
        pid = os.fork()
    except OSError:
        failed += 1
        continue
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    kids.append(pid)
print(len(kids), failed)
"""


def helper(name):
    """Absolute path of a built test helper; skips if it was not built."""
    p = HELPERS / name
    if not p.exists():
        pytest.skip(f"test helper {name} is not built ({p})")
    return str(p)


def free_port():
    """A loopback TCP port free at the moment of asking."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def run_across_a_change(lnk, work, grants, call, change, env):
    """Runs `call` (a shell command with {t} for its tag) twice in one
    sandbox under grants, tagged "before" and "after", and calls change()
    outside between the two: the second call meets what change() did.
    Returns the sandbox's (stdout, stderr)."""
    ready, go = work / "ready", work / "go"
    script = (call.format(t="before") + f"touch {ready}; "
              f"while [ ! -e {go} ]; do sleep 0.05; done; " +
              call.format(t="after"))
    p = subprocess.Popen([lnk.bin, "sandbox", "run", "--write", str(work),
                          *grants, "--", "/bin/sh", "-c", script],
                         cwd=str(work), env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for _ in range(600):
            if ready.exists() or p.poll() is not None:
                break
            time.sleep(0.02)
        assert ready.exists(), p.communicate(timeout=30)
        change()
        go.touch()
        return p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def on_lnk_path(lnk, folder, name, text, **env):
    """A program NAME with TEXT in FOLDER (outside every grant), put first
    on lnk's own PATH, with ENV added to lnk's environment: a tool or an
    opener lnk finds outside, never inside. Returns the program's path."""
    folder.mkdir(exist_ok=True)
    prog = folder / name
    prog.write_text(text)
    prog.chmod(0o755)
    folder.chmod(0o755)
    base = lnk.env
    lnk.env = lambda extra=None: {**base(extra), **env,
                                  "PATH": f"{folder}:{base(extra)['PATH']}"}
    return prog


class Lnk:
    """Runs `lnk` with a private HOME and a minimal, known environment."""

    def __init__(self, home, cwd):
        self.home = pathlib.Path(home)
        self.cwd = pathlib.Path(cwd)
        self.bin = LNK

    def env(self, extra=None):
        env = {
            "HOME": str(self.home),
            "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
            "LANG": "C.UTF-8",
        }
        for k in ("LNK_DNS_SERVER",):
            if k in os.environ:
                env[k] = os.environ[k]
        if extra:
            env.update(extra)
        return env

    def __call__(self, *args, cwd=None, input=None, timeout=60, env=None,
                 check=False, **kw):
        """lnk(ARGS...) -> CompletedProcess with text stdout/stderr."""
        cp = subprocess.run(
            [self.bin, *map(str, args)],
            cwd=str(cwd or self.cwd),
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=self.env(env),
            **kw,
        )
        if check and cp.returncode != 0:
            raise AssertionError(
                f"lnk {' '.join(map(str, args))} exited {cp.returncode}\n"
                f"stdout: {cp.stdout}\nstderr: {cp.stderr}")
        return cp

    def run(self, *args, **kw):
        """lnk sandbox run ARGS... (grants, then -- and the program)."""
        return self(*("sandbox", "run", *args), **kw)


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def work(home):
    """A project folder inside the home, the usual --write target."""
    w = home / "project"
    w.mkdir()
    return w


@pytest.fixture
def lnk(home, work):
    return Lnk(home, work)


@pytest.fixture
def is_root():
    return IS_ROOT


# The tool of the attack tests (test_inv*.py): it records each call's
# arguments outside every grant, where attack_helpers.tool_calls() reads
# them, so a test sees on the host whether a tool ran.
TOOL_SCRIPT = """#!/bin/sh
echo "args:$*" >> "@OUT@/calls"
echo "cwd:$(pwd)"
"""


@pytest.fixture
def outside_tool(tmp_path, lnk):
    """'mytool' on lnk's PATH only; returns the folder it marks."""
    out = tmp_path / "toolout"
    out.mkdir()
    out.chmod(0o777)
    on_lnk_path(lnk, tmp_path / "toolbin", "mytool",
                TOOL_SCRIPT.replace("@OUT@", str(out)))
    return out


# A private first-router network, root only: this machine's namespace m
# (198.19.200.1) behind router r (198.19.200.2, and 198.19.201.1 on a
# second link, whose port 8000 is forwarded back to 198.19.200.1:8001, a
# hairpin NAT); 198.19.202.0/24 lies beyond r. The router keeps Linux's
# default limit on its ICMP errors (icmp_ratelimit 1000 ms, a burst of 6).
HOPNET_UP = """
set -e
ip netns add {m}; ip netns add {r}
ip link add {m}0 netns {m} type veth peer name {r}0 netns {r}
ip link add {r}w netns {r} type veth peer name {r}v netns {r}
ip -n {m} link set lo up; ip -n {r} link set lo up
ip -n {m} addr add 198.19.200.1/30 dev {m}0; ip -n {m} link set {m}0 up
ip -n {r} addr add 198.19.200.2/30 dev {r}0; ip -n {r} link set {r}0 up
ip -n {r} addr add 198.19.201.1/24 dev {r}w
ip -n {r} link set {r}w up; ip -n {r} link set {r}v up
ip -n {r} route add 198.19.202.0/24 via 198.19.201.2 dev {r}w
ip -n {m} route add default via 198.19.200.2
ip netns exec {r} sysctl -qw net.ipv4.ip_forward=1 \\
    net.ipv4.icmp_ratelimit=1000
ip netns exec {r} nft -f - <<'NFT'
table ip hop {{
	chain pre {{
		type nat hook prerouting priority dstnat;
		ip daddr 198.19.201.1 tcp dport 8000 dnat to 198.19.200.1:8001
	}}
	chain post {{
		type nat hook postrouting priority srcnat;
		oifname "{r}0" ip saddr 198.19.200.0/30 masquerade
	}}
}}
NFT
"""



@pytest.fixture
def hopnet(tmp_path):
    """The machine's namespace name in a private first-router network, and
    the path of a file its server serves; root only."""
    if os.geteuid() != 0:
        pytest.skip("building the router's namespaces needs root")
    import shutil
    import subprocess
    if not shutil.which("nft"):
        pytest.skip("nft is not installed")
    tag = f"ah{os.getpid() % 100000}"
    m, r = f"{tag}m", f"{tag}r"
    up = subprocess.run(["bash", "-c", HOPNET_UP.format(m=m, r=r)],
                        capture_output=True, text=True)
    srv = None
    try:
        if up.returncode != 0:
            pytest.skip("cannot build the router's namespaces: " + up.stderr)
        site = tmp_path / "site"
        site.mkdir()
        (site / "secret.txt").write_text("a server of this machine\n")
        srv = subprocess.Popen(
            ["ip", "netns", "exec", m, "python3", "-m", "http.server",
             "8001", "--bind", "198.19.200.1", "--directory", str(site)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import time
        time.sleep(0.5)
        yield m
    finally:
        if srv:
            srv.kill()
            srv.wait()
        subprocess.run(["ip", "netns", "del", m], capture_output=True)
        subprocess.run(["ip", "netns", "del", r], capture_output=True)
