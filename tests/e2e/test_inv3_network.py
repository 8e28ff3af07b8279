"""Invariant 3, network: the sandbox has its own network namespace, loopback
only; everything leaves through the wire, which matches the host against
the grants, resolves it once, classifies every resolved address and
connects to exactly the address it checked. '*' never reaches this
machine or its network; a plain-HTTP connection carries one checked
request; IP literals are parsed strictly, and a grant the wire would
refuse is refused in the spec.

Attacks on it from inside a sandbox, one block a promise: each test
PASSES when the sandbox holds and FAILS when the attack works (more in
attack_helpers.py; a new attack: docs/HACKING.md, "Add an attack test").
"""
# Blocks, one a promise of the invariant:
#   A. This machine and its network
#   B. One checked request to the checked host
#   C. Datagrams and ICMP
#   D. Hostile clients of the wire and its resolver
#   E. The one grammar of hosts and addresses
#   F. Model routes
#   G. Tripwires
#   H. Pages opened outside

import json
import os
import pathlib
import socket
import subprocess
import textwrap
import threading
import time

import pytest

from conftest import IS_ROOT, on_lnk_path
from attack_helpers import PROXY_PRELUDE, PY, nethosts, py, sh


# =============================================================================
# A. This machine and its network
#    Promise: nothing reaches this machine or its network: no host socket, and
#    '*' is the internet only.
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


def local_addresses():
    """This machine's own IPv4 addresses (traffic to them never leaves)."""
    out = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True,
                         text=True).stdout
    return [l.split()[3].split("/")[0] for l in out.splitlines()
            if " inet " in l]


def test_no_grant_reaches_no_host_socket(lnk, recorder):
    """Invariant 3 (network), promise: nothing reaches this machine or its
    network: no host socket, and '*' is the internet only.

    Threat: with no grant, reach host loopback or abstract unix sockets."""
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
    """Invariant 3 (network), promise: nothing reaches this machine or its
    network: no host socket, and '*' is the internet only.

    Threat: '*' or a host pattern reaches an address the routing table
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
    """Invariant 3 (network), promise: nothing reaches this machine or its
    network: no host socket, and '*' is the internet only.

    Threat: an address this machine gains while a sandbox runs (DHCP, a
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
    """Invariant 3 (network), promise: nothing reaches this machine or its
    network: no host socket, and '*' is the internet only.

    Threat: a program without proxy settings connects by address or by
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


def test_star_never_reaches_this_machine_without_proxy_variables(lnk):
    """Invariant 3 (network), promise: nothing reaches this machine or its
    network: no host socket, and '*' is the internet only.

    Threat: the attacks of test_star_never_reaches_local_routes_or_on_link
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


def test_forged_transparent_head_gains_nothing(lnk, recorder):
    """Invariant 3 (network), promise: nothing reaches this machine or its
    network: no host socket, and '*' is the internet only.

    Threat: the program speaks to the transparent listener itself and
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


# A machine and its first router in namespaces of their own (198.19.200.0/22,
# inside the test range 198.18.0.0/15): the router's "public" address
# 198.19.201.1 forwards port 8000 back to the machine's 198.19.200.1:8001
# (hairpin NAT), 198.19.202.0/24 lies beyond the router, and the router
# limits its ICMP errors as Linux does by default (one a second to a host,
# after a short burst).
# The first sandbox's program: a connect a tenth of a second, each to a
# new address beyond the router, whose first-hop probes spend the router's
# ICMP errors to this machine.
DRAIN = """
import os, socket, threading, time
host, port = os.environ["HTTP_PROXY"][7:].rstrip("/").rsplit(":", 1)
def one(x):
    try:
        s = socket.create_connection((host, int(port)), timeout=3)
        s.sendall(f"CONNECT 198.19.202.{x}:80 HTTP/1.1\\r\\n\\r\\n".encode())
        s.recv(100)
    except OSError:
        pass
end, x = time.time() + 12, 1
while time.time() < end:
    threading.Thread(target=one, args=(x,), daemon=True).start()
    x = x % 250 + 1
    time.sleep(0.05)
"""


def test_another_sandbox_cannot_silence_the_first_router(lnk, hopnet,
                                                         tmp_path):
    """Invariant 3 (reaches only the hosts allowed), promise: under
    --internet-host '*' the first router's own address (a port forward on
    its public address that leads back to this machine) is refused.

    Threat: a router sends a few ICMP errors a second to one host, and the
    first-hop probe of a wire that has not heard the router yet takes
    silence for a router that never answers (the internet). A program in
    one sandbox spends those errors with connects beyond the router; the
    first call of a second sandbox's program, to the router's forwarded
    port, meets silence and reaches this machine's server."""
    import subprocess
    import time
    drain = tmp_path / "drain.py"
    drain.write_text(DRAIN)
    tmp_path.chmod(0o755)
    env = ["env", "-i", f"HOME={lnk.home}", "PATH=/usr/bin:/bin",
           "LANG=C.UTF-8"]
    run = ["ip", "netns", "exec", hopnet, *env, lnk.bin, "sandbox", "run",
           "--read", str(tmp_path), "--internet-host", "*", "--"]
    a = subprocess.Popen([*run, "python3", str(drain)], cwd=str(tmp_path),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = ""
    try:
        time.sleep(2)
        # each a new sandbox, whose wire has not heard the router
        for _ in range(3):
            b = subprocess.run(
                [*run, "/bin/sh", "-c",
                 "curl -s -m 3 -x \"$HTTP_PROXY\" "
                 "http://198.19.201.1:8000/secret.txt"],
                cwd=str(tmp_path), capture_output=True, text=True,
                timeout=60)
            out += b.stdout + b.stderr
            if "a server of this machine" in b.stdout:
                break
    finally:
        a.kill()
        a.wait()
    assert "a server of this machine" not in out, out


@pytest.mark.parametrize("other_user", ["home", "uid"])
def test_another_users_sandbox_cannot_silence_the_first_router(
        lnk, hopnet, tmp_path, other_user):
    """Invariant 3 (reaches only the hosts allowed), promise: under
    --internet-host '*' the first router's own address (a port forward on
    its public address that leads back to this machine) is refused.

    Threat: the routers heard (~/.lnk/sandbox/routers) are the user's own,
    but the router's budget of ICMP errors is the machine's: a program in
    another user's sandbox (a second HOME here; on a box, another box
    user; or any program of anyone outside a sandbox, with a hop limit of
    1) spends it, and the wire of a user who never heard that router
    takes the silence for a router that never answers.

    The routers heard are also kept in the machine's folder
    (/var/lib/lnk/routers, root's and sticky; tests/run-all makes it as
    the package does): one file a user, read by every keeper, so the
    second wire knows the router the first heard and refuses its
    silence. The other user: a second HOME of the same user, and (as
    root) the test user, whose file root's keeper reads."""
    import pwd
    import subprocess
    import time
    as_user = []
    if other_user == "uid":
        if os.geteuid() != 0:
            pytest.skip("another user's sandbox beside this one needs root")
        try:
            pw = pwd.getpwnam("lnk-e2e")
        except KeyError:
            pytest.skip("no test user lnk-e2e (tests/run-all makes it)")
        as_user = ["runuser", "-u", "lnk-e2e", "--"]
    # the other sandbox's folder: one the test user can reach (pytest's
    # folders are root's alone)
    import shutil
    import tempfile
    base = pathlib.Path(tempfile.mkdtemp(prefix="lnk-drain-"))
    base.chmod(0o755)
    drain = base / "drain.py"
    drain.write_text(DRAIN)
    drain.chmod(0o644)
    tmp_path.chmod(0o755)
    other = base / "other-home"
    other.mkdir(mode=0o700)
    if as_user:
        os.chown(other, pw.pw_uid, pw.pw_gid)

    def run(home, folder, who=()):
        env = ["env", "-i", f"HOME={home}", "PATH=/usr/bin:/bin",
               "LANG=C.UTF-8"]
        return ["ip", "netns", "exec", hopnet, *who, *env, lnk.bin,
                "sandbox", "run", "--read", str(folder),
                "--internet-host", "*", "--"]
    a_log = tmp_path / "drain.log"
    with open(a_log, "w") as f:
        a = subprocess.Popen(
            [*run(other, base, as_user), "python3", str(drain)],
            cwd=str(base), stdout=f, stderr=f)
    out = ""
    try:
        time.sleep(2)
        for _ in range(3):
            b = subprocess.run(
                [*run(lnk.home, tmp_path), "/bin/sh", "-c",
                 "curl -s -m 3 -x \"$HTTP_PROXY\" "
                 "http://198.19.201.1:8000/secret.txt"],
                cwd=str(tmp_path), capture_output=True, text=True,
                timeout=60)
            out += b.stdout + b.stderr
            if "a server of this machine" in b.stdout:
                break
        # the other sandbox drained all along (else nothing was tried)
        drained = a.poll() is None
    finally:
        a.kill()
        a.wait()
        shutil.rmtree(base, ignore_errors=True)
    assert drained, "the draining sandbox ended early: " + a_log.read_text()
    assert "a server of this machine" not in out, out


def test_a_router_heard_once_is_never_taken_for_a_silent_one(lnk, hopnet,
                                                              tmp_path):
    """Invariant 3 (reaches only the hosts allowed), promise: under
    --internet-host '*' the first router's own address is refused, also
    when the router says nothing to a wire that has not heard it yet.

    Threat: silence from a router no wire has heard is taken for a router
    that never answers (a cloud's), and a port forward on its own address
    leads back to this machine. A router that any earlier wire of the user
    heard is remembered (~/.lnk/sandbox/routers, by its address and
    link-layer address): when it falls silent later (its ICMP errors
    spent, or dropped here by a rule), a new wire refuses the call once
    the probes it asks again have met silence too, and the log says
    why."""
    import json
    import subprocess
    env = ["env", "-i", f"HOME={lnk.home}", "PATH=/usr/bin:/bin",
           "LANG=C.UTF-8"]
    run = ["ip", "netns", "exec", hopnet, *env, lnk.bin, "sandbox", "run",
           "--read", str(tmp_path), "--internet-host", "*", "--",
           "/bin/sh", "-c"]
    # a first wire hears the router: a call beyond it (no host there)
    first = subprocess.run(
        [*run, "curl -s -m 3 -x \"$HTTP_PROXY\" http://198.19.202.7/"],
        cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert "a server of this machine" not in first.stdout
    routers = pathlib.Path(lnk.home, ".lnk", "sandbox", "routers")
    assert routers.is_file(), first.stderr
    assert "gw=198.19.200.2,ll=" in routers.read_text(errors="replace")
    # then the router says nothing to this machine
    router = hopnet[:-1] + "r"
    subprocess.run(
        ["ip", "netns", "exec", router, "nft", "-f", "-"], check=True,
        input="table ip quiet {\n chain out {\n type filter hook output "
              "priority 0;\n icmp type time-exceeded drop\n }\n}\n",
        text=True)
    second = subprocess.run(
        [*run, "curl -s -m 20 -x \"$HTTP_PROXY\" "
               "http://198.19.201.1:8000/secret.txt"],
        cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert "a server of this machine" not in second.stdout, second.stdout
    out = subprocess.run(
        [*env, lnk.bin, "sandbox", "log", "--json", "--lines", "1000"],
        capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    mine = [r for r in rows if r["target"] == "198.19.201.1:8000"]
    assert mine and mine[-1]["outcome"] == "refused", rows
    assert "no answer to the first-hop probe" in mine[-1]["reason"], mine


def settle(*namespaces):
    """Waits for a network that has settled, as one the machine has been on
    a while: an address still tentative announces itself when it is not,
    and that routing change drops every first-hop verdict of a wire (an
    attack must meet the kept one)."""
    for _ in range(100):
        if not any(subprocess.run(["ip", "-n", ns, "addr", "show",
                                   "tentative"], capture_output=True,
                                  text=True).stdout.strip()
                   for ns in namespaces):
            break
        time.sleep(0.1)
    time.sleep(0.5)


# A second first router beside hopnet's: this machine's 198.19.204.1/30 on
# a link to router r2 (198.19.204.2), whose "public" address 198.19.205.1
# forwards port 8000 back to this machine's 198.19.200.1:8001;
# 198.19.206.0/24 lies beyond r2.
SECOND_ROUTER = """
set -e
ip netns add {r2}
ip link add {m}1 netns {m} type veth peer name {r2}0 netns {r2}
ip link add {r2}w netns {r2} type veth peer name {r2}v netns {r2}
ip -n {r2} link set lo up
ip -n {m} addr add 198.19.204.1/30 dev {m}1; ip -n {m} link set {m}1 up
ip -n {r2} addr add 198.19.204.2/30 dev {r2}0; ip -n {r2} link set {r2}0 up
ip -n {r2} addr add 198.19.205.1/24 dev {r2}w
ip -n {r2} link set {r2}w up; ip -n {r2} link set {r2}v up
ip -n {r2} route add 198.19.206.0/24 via 198.19.205.2 dev {r2}w
ip -n {r2} route add default via 198.19.204.1
ip -n {m} route add 198.19.205.0/24 via 198.19.204.2
ip -n {m} route add 198.19.206.0/24 via 198.19.204.2
ip netns exec {r2} sysctl -qw net.ipv4.ip_forward=1
ip netns exec {r2} nft -f - <<'NFT'
table ip hop {{
	chain pre {{
		type nat hook prerouting priority dstnat;
		ip daddr 198.19.205.1 tcp dport 8000 dnat to 198.19.200.1:8001
	}}
	chain post {{
		type nat hook postrouting priority srcnat;
		oifname "{r2}0" masquerade
	}}
}}
NFT
"""


def test_every_first_router_heard_is_remembered(lnk, hopnet, tmp_path):
    """Invariant 3 (reaches only the hosts allowed), promise: under
    --internet-host '*' the first router's own address (a port forward on
    its public address that leads back to this machine) is refused, also
    when the router says nothing to a wire that has not heard it yet.

    Threat: a machine with two first routers (a second link whose routes
    lead to other networks). A wire remembered only the first router it
    heard: one that heard the first, then the second, left no record of
    the second, so when the second falls silent (its ICMP errors spent by
    another sandbox, or dropped here by a rule), a new wire takes it for
    a router that never answers and reaches its port forward."""
    import subprocess
    r2 = hopnet[:-1] + "s"
    up = subprocess.run(
        ["bash", "-c", SECOND_ROUTER.format(m=hopnet, r2=r2)],
        capture_output=True, text=True)
    try:
        assert up.returncode == 0, up.stderr
        settle(hopnet, hopnet[:-1] + "r", r2)
        env = ["env", "-i", f"HOME={lnk.home}", "PATH=/usr/bin:/bin",
               "LANG=C.UTF-8"]
        run = ["ip", "netns", "exec", hopnet, *env, lnk.bin, "sandbox",
               "run", "--read", str(tmp_path), "--internet-host", "*", "--",
               "/bin/sh", "-c"]
        # a first wire hears the first router, then the second: a call
        # beyond each (no host there)
        subprocess.run(
            [*run, "curl -s -m 3 -x \"$HTTP_PROXY\" http://198.19.202.7/; "
                   "curl -s -m 3 -x \"$HTTP_PROXY\" http://198.19.206.7/"],
            cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
        # then the second router says nothing to this machine
        subprocess.run(
            ["ip", "netns", "exec", r2, "nft", "-f", "-"], check=True,
            input="table ip quiet {\n chain out {\n type filter hook "
                  "output priority 0;\n icmp type time-exceeded drop\n "
                  "}\n}\n", text=True)
        second = subprocess.run(
            [*run, "curl -s -m 20 -x \"$HTTP_PROXY\" "
                   "http://198.19.205.1:8000/secret.txt"],
            cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
        assert "a server of this machine" not in second.stdout, \
            second.stdout
    finally:
        subprocess.run(["ip", "netns", "del", r2], capture_output=True)


def test_a_closed_port_of_the_router_opens_no_other(lnk, hopnet, tmp_path):
    """Invariant 3 (reaches only the hosts allowed), promise: under
    --internet-host '*' the first router's own address (a port forward on
    its public address that leads back to this machine) is refused.

    Threat: a router drops what comes to its public address on the ports
    it serves nothing on (a home router's firewall does, by default), so
    a probe of such a port meets silence. Before any wire of the user has
    heard the router, silence is taken for a router that never answers,
    and the verdict was kept for the address: the program's next call, to
    the port the router forwards back to this machine, was connected
    without a probe of its own, though the router answers that one."""
    import json
    import subprocess
    router = hopnet[:-1] + "r"
    subprocess.run(
        ["ip", "netns", "exec", router, "nft", "-f", "-"], check=True,
        input="table ip closed {\n chain in {\n type filter hook input "
              "priority 0;\n ip daddr 198.19.201.1 tcp dport 80 drop\n "
              "}\n}\n", text=True)
    settle(hopnet, router)
    env = ["env", "-i", f"HOME={lnk.home}", "PATH=/usr/bin:/bin",
           "LANG=C.UTF-8"]
    cp = subprocess.run(
        ["ip", "netns", "exec", hopnet, *env, lnk.bin, "sandbox", "run",
         "--read", str(tmp_path), "--internet-host", "*", "--", "/bin/sh",
         "-c", "curl -s -m 2 -x \"$HTTP_PROXY\" http://198.19.201.1/; "
               "curl -s -m 10 -x \"$HTTP_PROXY\" "
               "http://198.19.201.1:8000/secret.txt"],
        cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert "a server of this machine" not in cp.stdout, cp.stdout
    out = subprocess.run(
        [*env, lnk.bin, "sandbox", "log", "--json", "--lines", "1000"],
        capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    mine = [r for r in rows if r["target"] == "198.19.201.1:8000"]
    assert mine and mine[-1]["outcome"] == "refused", rows
    assert "first router's own address" in mine[-1]["reason"], mine


def test_a_model_route_never_reaches_the_routers_own_address(lnk):
    """Invariant 3 (reaches only the hosts allowed), promise: the first
    router's own address (a port forward on its public address that leads
    back to this machine) is this machine's network: only --lan-host
    reaches it.

    Threat: a model route's host resolves to the router's public address
    (a provider's name whose DNS answers it, or a route written with it):
    the route's connect went out without the first-hop probe that every
    other call gets, and its TLS handshake reached, through the router's
    port forward, a server of this machine."""
    f = nethosts()
    if "ROUTER_FWD_PORT" not in f:
        pytest.skip("no port forward on the test router (nft missing)")
    wan, fwd = f["ROUTER_WAN_IP"], f["ROUTER_FWD_PORT"]
    cp = lnk.run("--name", "mhop", "--model", f"fwd=https://{wan}:{fwd}/v1",
                 "--", "/bin/sh", "-c",
                 "curl -s -m 20 -H 'content-type: application/json' "
                 "\"$LNK_MODEL_FWD_URL/chat/completions\" -d '{}'",
                 env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"],
                      "FWD_API_KEY": "sk-test-hop"}, timeout=60)
    out = lnk("sandbox", "log", "--json", "--sandbox", "mhop",
              check=True).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["outcome"] for r in rows] == ["refused"], (rows, cp.stderr)
    assert "first router's own address" in rows[0]["reason"], rows


# =============================================================================
# B. One checked request to the checked host
#    Promise: the wire connects to exactly the host it checked, with one
#    checked request per plain-HTTP connection.
# =============================================================================


def test_smuggling_never_reaches_a_second_host(lnk, recorder):
    """Invariant 3 (network), promise: the wire connects to exactly the host it
    checked, with one checked request per plain-HTTP connection.

    Threat: pipelined, CONNECT-after-GET and userinfo tricks reach loopback."""
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


def test_host_header_is_the_checked_host(lnk):
    """Invariant 3 (network), promise: the wire connects to exactly the host it
    checked, with one checked request per plain-HTTP connection.

    Threat: absolute-form GET http://granted/ with Host: another site is
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


# =============================================================================
# C. Datagrams and ICMP
#    Promise: everything leaves through the wire: no datagram or ICMP echo
#    leaves the sandbox.
# =============================================================================


def test_datagrams_never_leave_the_sandbox(lnk):
    """Invariant 3 (network), promise: everything leaves through the wire: no
    datagram or ICMP echo leaves the sandbox.

    Threat: UDP (DNS to another server, QUIC, a tunnel) or ICMP reaches
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


def test_icmp_echo_never_leaves_the_sandbox(lnk):
    """Invariant 3 (network), promise: everything leaves through the wire: no
    datagram or ICMP echo leaves the sandbox.

    Threat: an unprivileged ICMP echo socket (no raw socket needed)
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


# =============================================================================
# D. Hostile clients of the wire and its resolver
#    Promise: the wire and its resolver withstand hostile clients and keep
#    serving.
# =============================================================================


def test_wire_survives_hostile_clients(lnk):
    """Invariant 3 (network), promise: the wire and its resolver withstand
    hostile clients and keep serving.

    Threat: slow/oversized heads, bad SOCKS5 and a flood stop the wire."""
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


def test_hostile_dns_queries_answered_or_dropped(lnk):
    """Invariant 3 (network), promise: the wire and its resolver withstand
    hostile clients and keep serving.

    Threat: malformed queries (compression in the question, two
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


# =============================================================================
# E. The one grammar of hosts and addresses
#    Promise: a grant the wire would refuse is refused in the spec.
# =============================================================================


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
    """Invariant 3 (network), promise: a grant the wire would refuse is refused
    in the spec.

    Threat: a spec someone else wrote grants loopback, a cloud metadata
    address or an ambiguous literal in a spelling another parser reads
    differently (above)."""
    (work / "hostile.toml").write_text(
        f"version = 1\n[{section}]\nhosts = [{value}]\n"
        '[commands]\nallow = ["true"]\n')
    cp = lnk.run("--spec", "hostile.toml", "--", "true")
    assert cp.returncode == 2, (value, cp.stdout, cp.stderr)
    assert words in cp.stderr, (value, cp.stderr)


# =============================================================================
# F. Model routes
#    Promise: a model route carries the key only to its provider, one request
#    at a time, and opens no other way to it.
# =============================================================================


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
    """Invariant 3 (network), promise: a model route carries the key only to
    its provider, one request at a time, and opens no other way to it.

    Threat: the route is a way around the grants: the program CONNECTs
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
    """Invariant 3 (network), promise: a model route carries the key only to
    its provider, one request at a time, and opens no other way to it.

    Threat: the program makes the wire send the key to a host of its
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
    """Invariant 3 (network), promise: a model route carries the key only to
    its provider, one request at a time, and opens no other way to it.

    Threat: a request smuggled behind the first on the same connection
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


def test_model_provider_not_reached_without_proxy_settings(lnk, work):
    """Invariant 3 (network), promise: a model route carries the key only to
    its provider, one request at a time, and opens no other way to it.

    Threat: the route's provider is granted only as the route; a
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


@pytest.mark.parametrize("host", ["rebind.lnk-test", "mixed.lnk-test",
                                  "127.0.0.1"])
def test_model_route_never_sends_the_key_to_this_machine(lnk, work, host):
    """Invariant 3 (network), promise: a model route carries the key only to
    its provider, one request at a time, and opens no other way to it.

    Threat: a spec's route names a provider whose name resolves to this
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


# =============================================================================
# G. Tripwires
#    Promise: the tripwires pause the wire, and a spec cannot loosen them.
# =============================================================================


def test_transparent_metadata_trips_the_wire(lnk):
    """Invariant 3 (network), promise: the tripwires pause the wire, and a spec
    cannot loosen them.

    Threat: a program without proxy settings reaches for a cloud's
    metadata service by address; the wire refuses and pauses itself, so
    the next call (to a granted host) is refused too."""
    cp, f = tp_net(lnk, """
        print("meta", tcp(socket.AF_INET, ("169.254.169.254", 80)))
        print("next", tcp(socket.AF_INET, ("origin.lnk-test", 80)))
    """, "--internet-host", "*")
    assert "meta refused 111" in cp.stdout, cp.stdout + cp.stderr
    assert "next CONNECTED" not in cp.stdout, cp.stdout
    assert "wire paused" in cp.stderr, cp.stderr


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


def test_spec_cannot_loosen_or_turn_off_tripwires(lnk, work):
    """Invariant 3 (network), promise: the tripwires pause the wire, and a spec
    cannot loosen them.

    Threat: a spec sets the tripwires so high (or to 0) that a program
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


def test_model_route_probing_trips_the_wire(lnk, work):
    """Invariant 3 (network), promise: the tripwires pause the wire, and a spec
    cannot loosen them.

    Threat: a program guesses route names and paths without end; each
    refusal counts for the tripwire, which pauses the wire."""
    f, tm = _model_net()
    script = ("for i in $(seq 40); do curl -s -o /dev/null "
              "http://127.0.0.1:3128/model/guess$i/v1/models; done")
    cp = lnk.run("--model", tm.CUSTOM, "--", "sh", "-c", script,
                 env=_model_env(f, tm.secret()), timeout=120)
    # 20 different routes refused within 10 minutes, or 30 calls
    assert "wire paused: too many" in cp.stderr, cp.stderr


# =============================================================================
# H. Pages opened outside
#    Promise: a page opens outside only when it is the granted one.
# =============================================================================


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
    """Invariant 3 (network), promise: a page opens outside only when it is the
    granted one.

    Threat: a page that is not the granted one (another scheme, a host
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


@pytest.mark.parametrize("url", [
    "https://good.example.org/docs/..;/admin",
    "https://good.example.org/docs/..;x=1/admin",
    "https://good.example.org/docs/.;/..;/admin",
    "https://good.example.org/docs/..%3B/admin",
])
def test_page_dot_segments_with_parameters_cannot_leave_the_path(
        lnk, tmp_path, url):
    """Invariant 3 (network), promise: a page opens outside only when it is the
    granted one.

    Threat: Java servers (Tomcat, Jetty, Spring) strip a segment's ';'
    parameters before they resolve the path, so docs/..;/admin is
    docs/../admin there, /admin; a browser keeps '..;' as a name and asks
    for it as written. Refused like a plain '..'."""
    rec = recording_opener(lnk, tmp_path)
    cp = lnk.run("--browser-open", "https://*.example.org/docs", "--",
                 "xdg-open", url)
    assert cp.returncode == 126, (cp.stdout, cp.stderr)
    assert not rec.exists(), rec.read_text()
    # a ';' elsewhere in a name still opens
    ok = "https://good.example.org/docs/a;v=1/b..;c"
    cp = lnk.run("--browser-open", "https://*.example.org/docs", "--",
                 "xdg-open", ok)
    assert cp.returncode == 0, (ok, cp.stderr)
    assert rec.read_text().splitlines() == [ok]


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
    """Invariant 3 (network), promise: a page opens outside only when it is the
    granted one.

    Threat: the grant is a path prefix (https://*.example.org/docs); a
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
