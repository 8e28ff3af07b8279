"""The transparent path end to end: programs that ignore the proxy
variables (a raw socket client, curl --noproxy '*', getent, dig) reach
what the grants allow through the wire, and nothing else.

The proxy variables are removed inside (env -u ...), so every connection
here is the guard's to bring to the wire (src/guard/tproxy.c), and every
name the wire's resolver's (src/wire/dnsd.c). "Internet" hosts come from
tests/e2e/nethosts.sh (198.18.0.0/15 behind a blackhole route); nothing is
sent anywhere else (8.8.8.8 is only ever refused inside the sandbox's own
network namespace, which has no route out).
"""
import json
import pathlib
import shutil
import subprocess

import pytest

ENV_FILE = pathlib.Path("/run/lnk-nethosts.env")
NOPROXY = ("env -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy "
           "-u ALL_PROXY -u all_proxy")


@pytest.fixture(scope="module")
def net():
    if not ENV_FILE.exists():
        pytest.skip("no test hosts: run 'tests/e2e/nethosts.sh up' as root "
                    "(writes /run/lnk-nethosts.env)")
    return dict(line.partition("=")[::2]
                for line in ENV_FILE.read_text().splitlines())


def run(lnk, net, grants, script, timeout=90):
    return lnk.run(*grants, "--", "sh", "-c", f"{NOPROXY} sh -c '{script}'",
                   timeout=timeout,
                   env={"LNK_DNS_SERVER": net["LNK_DNS_SERVER"]},
                   stdin=subprocess.DEVNULL)


def calls(lnk):
    cp = lnk("sandbox", "log", "--json", "--lines", "1000", check=True)
    return [json.loads(line) for line in cp.stdout.splitlines()]


# A raw client: no proxy, no library that knows one. Prints one line per
# target: the first bytes of the answer, or the errno of the failure.
CLIENT = r"""
import errno, socket, sys
for t in sys.argv[1:]:
    host, _, port = t.rpartition(":")
    try:
        s = socket.create_connection((host, int(port)), timeout=15)
        s.sendall(b"GET /hello.txt HTTP/1.0\r\nHost: " + host.encode() +
                  b"\r\n\r\n")
        data = b""
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
        print(t, "OK", data.split(b"\r\n\r\n", 1)[-1].decode().strip())
    except socket.gaierror as e:
        print(t, "NONAME", e.errno)
    except OSError as e:
        print(t, "ERR", errno.errorcode.get(e.errno, e.errno))
"""


def client(work, *targets):
    (work / "client.py").write_text(CLIENT)
    return f"python3 {work}/client.py " + " ".join(targets)


def lines(out):
    return dict(l.split(" ", 1) for l in out.splitlines() if " " in l)


def test_raw_client_reaches_granted_host_only(lnk, net, work):
    o, x = net["ORIGIN"], net["OTHER"]
    cp = run(lnk, net, ["--read", work, "--internet-host", o],
             client(work, f"{o}:80", f"{x}:80", "198.18.0.3:80"))
    got = lines(cp.stdout)
    assert got[f"{o}:80"] == "OK hello from origin.lnk-test", cp.stdout + \
        cp.stderr
    # the name no grant allows has no address inside
    assert got[f"{x}:80"].startswith("NONAME"), cp.stdout
    # and its address, written out, is refused at connect
    assert got["198.18.0.3:80"] == "ERR ECONNREFUSED", cp.stdout
    rows = calls(lnk)
    # the bytes each way are counted as for any call
    assert any(r["verb"] == "tcp" and r["target"] == f"{o}:80" and
               r["outcome"] == "ended" and r["up"] > 0 and r["down"] > 0
               for r in rows), rows
    # a lookup's target is "NAME TYPE"
    assert any(r["verb"] == "dns" and r["target"].split(" ")[0] == x and
               r["outcome"] == "refused" and
               r["reason"] == "host not in the sandbox's grants"
               for r in rows), rows
    assert any(r["verb"] == "tcp" and r["target"] == "198.18.0.3:80" and
               r["outcome"] == "refused" for r in rows), rows


def test_nonblocking_connect_works(lnk, net, work):
    (work / "nb.py").write_text(r"""
import errno, select, socket, sys
a = socket.getaddrinfo(sys.argv[1], 80, socket.AF_INET)[0][4]
s = socket.socket(); s.setblocking(False)
r = s.connect_ex(a)
assert r in (0, errno.EINPROGRESS), r
select.select([], [s], [], 15)
assert s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
s.setblocking(True); s.settimeout(15)
s.sendall(b"GET /hello.txt HTTP/1.0\r\nHost: x\r\n\r\n")
d = b""
while True:
    b = s.recv(4096)
    if not b: break
    d += b
print(d.split(b"\r\n\r\n", 1)[1].decode().strip())
""")
    cp = run(lnk, net, ["--read", work, "--internet-host", net["ORIGIN"]],
             f"python3 {work}/nb.py {net['ORIGIN']}")
    assert cp.stdout.strip() == "hello from origin.lnk-test", \
        cp.stdout + cp.stderr


def test_curl_without_proxy_https(lnk, net, work):
    ca = work / "ca.pem"
    shutil.copyfile(net["CA_FILE"], ca)
    o, x = net["ORIGIN"], net["OTHER"]
    cp = run(lnk, net, ["--read", work, "--internet-host", o],
             f"curl -s --noproxy \"*\" --max-time 20 --cacert {ca} "
             f"https://{o}/hello.txt; echo curl=$?; "
             f"curl -s --noproxy \"*\" --max-time 20 http://{x}/; "
             "echo other=$?")
    assert "hello from origin.lnk-test" in cp.stdout, cp.stdout + cp.stderr
    assert "curl=0" in cp.stdout
    assert "other=6" in cp.stdout, cp.stdout  # could not resolve
    assert any(r["verb"] == "tcp" and r["target"] == f"{o}:443"
               for r in calls(lnk))


def test_getent_and_dig_inside(lnk, net, work):
    o = net["ORIGIN"]
    dig = shutil.which("dig")
    script = (f"getent hosts {o}; echo a=$?; getent hosts {net['OTHER']}; "
              "echo b=$?; getent hosts rebind.lnk-test; echo c=$?; "
              "getent hosts mixed.lnk-test; echo d=$?")
    if dig:
        script += (f"; dig +short {o}; dig +tcp +short {o}; "
                   f"dig {net['OTHER']} | grep -o NXDOMAIN")
    cp = run(lnk, net, ["--internet-host", "*"], script)
    out = cp.stdout
    assert f"{net['ORIGIN_IP']}" in out and "a=0" in out, out + cp.stderr
    # '*' allows the name, not the answer: a name that resolves to this
    # machine (in part or whole) is a rebinding attempt
    assert "c=2" in out and "d=2" in out, out
    assert "b=0" in out  # '*' allows other.lnk-test
    if dig:
        assert out.count(net["ORIGIN_IP"]) >= 3, out
    reasons = {r["target"].split(" ")[0]: r["reason"] for r in calls(lnk)
               if r["verb"] == "dns" and r["outcome"] == "refused"}
    assert "rebind.lnk-test" in reasons and "mixed.lnk-test" in reasons, \
        reasons
    if not dig:
        pytest.skip("dig is not installed: only getent was tried")


def test_dns_to_another_server_refused(lnk, net, work):
    (work / "udp.py").write_text(r"""
import errno, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.connect(("8.8.8.8", 53)); print("connect OK")
except OSError as e:
    print("connect", errno.errorcode[e.errno])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.sendto(b"x" * 12, ("8.8.8.8", 53)); print("sendto OK")
except OSError as e:
    print("sendto", errno.errorcode[e.errno])
""")
    cp = run(lnk, net, ["--read", work, "--internet-host", "*"],
             f"python3 {work}/udp.py")
    assert "connect ECONNREFUSED" in cp.stdout, cp.stdout + cp.stderr
    assert "sendto OK" not in cp.stdout, cp.stdout
    rows = [r for r in calls(lnk) if r["verb"] == "udp"]
    assert [r["target"] for r in rows] == ["8.8.8.8:53"], rows
    assert rows[0]["outcome"] == "refused"


def test_lan_grant_with_port_reaches_that_port(lnk, net, work):
    if "ROUTER_IP" not in net:
        pytest.skip("test hosts from an older nethosts.sh: no router")
    r = net["ROUTER_IP"]
    cp = run(lnk, net, ["--read", work, "--lan-host", f"{r}:80"],
             client(work, f"{r}:80", f"{r}:81"))
    got = lines(cp.stdout)
    assert got[f"{r}:80"].startswith("OK"), cp.stdout + cp.stderr
    assert got[f"{r}:81"] == "ERR ECONNREFUSED", cp.stdout
    # by name: the resolver answers for the LAN name, and the grant's
    # port holds for the address it answered
    n = "router.lnk-test"
    cp = run(lnk, net, ["--read", work, "--lan-host", f"{n}:80"],
             client(work, f"{n}:80", f"{n}:81", f"{r}:81"))
    got = lines(cp.stdout)
    assert got[f"{n}:80"].startswith("OK"), cp.stdout + cp.stderr
    assert got[f"{n}:81"] == "ERR ECONNREFUSED", cp.stdout
    assert got[f"{r}:81"] == "ERR ECONNREFUSED", cp.stdout
    assert any(x["target"] == f"{n}:81" and x["outcome"] == "refused"
               for x in calls(lnk)), calls(lnk)


def test_pause_refuses_transparent_connects(lnk, net, work):
    o = net["ORIGIN"]
    (work / "loop.py").write_text(r"""
import socket, sys, time
a = socket.gethostbyname(sys.argv[1])
for i in range(200):
    try:
        s = socket.create_connection((a, 80), timeout=5)
        s.close(); print("ok", flush=True)
    except OSError as e:
        print("refused", e.errno, flush=True); break
    time.sleep(0.1)
""")
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "tp-pause", "--read",
         str(work), "--internet-host", o, "--", "python3",
         f"{work}/loop.py", o],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        cwd=str(lnk.cwd),
        env=lnk.env({"LNK_DNS_SERVER": net["LNK_DNS_SERVER"]}))
    try:
        assert p.stdout.readline().strip() == "ok"
        lnk("sandbox", "pause", "tp-pause", check=True)
        rest = p.communicate(timeout=60)[0]
    finally:
        p.kill()
    assert rest.strip().splitlines()[-1] == "refused 111", rest
    assert any(r["target"] == f"{o}:80" and r["reason"] == "paused"
               for r in calls(lnk)), calls(lnk)


def test_ssh_and_git_clone_over_ssh(lnk, net, work):
    """ssh and git over ssh ignore the proxy variables: with the host
    granted by name they reach its sshd; an ungranted host they do not."""
    if "SSH_KEY" not in net or not pathlib.Path(net["SSH_KEY"]).exists():
        pytest.skip("no sshd on the test hosts: run "
                    "'tests/e2e/nethosts.sh ssh' as root")
    if not shutil.which("ssh") or not shutil.which("git"):
        pytest.skip("ssh or git is not installed")
    key = work / "id_test"
    key.write_bytes(pathlib.Path(net["SSH_KEY"]).read_bytes())
    key.chmod(0o600)
    o, x = net["ORIGIN"], net["OTHER"]
    opts = (f"-i {key} -o StrictHostKeyChecking=no "
            "-o UserKnownHostsFile=/dev/null -o BatchMode=yes "
            "-o ConnectTimeout=15")
    (work / "ssh.sh").write_text(
        f"ssh {opts} root@{o} </dev/null | head -c 60; echo\n"
        f"GIT_SSH_COMMAND=\"ssh {opts}\" git clone -q root@{o}:repo.git "
        f"{work}/clone && cat {work}/clone/README\n"
        f"ssh {opts} root@{x} </dev/null; echo other=$?\n")
    cp = run(lnk, net, ["--write", work, "--internet-host", o],
             f"sh {work}/ssh.sh")
    assert "HEAD" in cp.stdout, cp.stdout + cp.stderr
    assert "cloned through the wire" in cp.stdout, cp.stdout + cp.stderr
    assert "other=255" in cp.stdout, cp.stdout
    rows = calls(lnk)
    assert sum(r["verb"] == "tcp" and r["target"] == f"{o}:22"
               for r in rows) == 2, rows
    assert any(r["verb"] == "dns" and r["target"].split(" ")[0] == x
               for r in rows)


def test_refusals_without_proxy_settings_trip_the_wire(lnk, net, work):
    """The tripwires count transparent refusals: 30 refused within a
    minute pause the wire, and the next call, to a granted host, is
    refused too."""
    (work / "many.py").write_text(r"""
import socket, sys
for i in range(31):
    try:
        socket.create_connection(("198.18.0.3", 80), timeout=5).close()
    except OSError:
        pass
try:
    socket.create_connection((sys.argv[1], 80), timeout=5).close()
    print("granted OK")
except OSError as e:
    print("granted refused", e.errno)
""")
    cp = run(lnk, net, ["--read", work, "--internet-host", net["ORIGIN"]],
             f"python3 {work}/many.py {net['ORIGIN']}")
    assert "wire paused: too many calls refused" in cp.stderr, cp.stderr
    assert "granted refused" in cp.stdout, cp.stdout


def test_wire_dies_transparent_path_closed(lnk, net, work):
    """Fail closed: when the wire dies, a connect without proxy settings
    is refused at once (its listener died with it) and names no longer
    resolve; the program runs on."""
    import os
    import signal
    import sqlite3
    import time
    a = net["ORIGIN_IP"]
    (work / "try.py").write_text(r"""
import socket, sys, time
out = sys.argv[1]
while True:
    try:
        socket.create_connection((sys.argv[2], 80), timeout=3).close()
        r = "ok"
    except OSError as e:
        r = "down:%s" % e.errno
    with open(out, "a") as f:
        f.write(r + "\n")
    time.sleep(0.2)
""")
    out = work / "tries"
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "tp-dies", "--write",
         str(work), "--internet-host", "*", "--", "python3",
         str(work / "try.py"), str(out), a], cwd=str(work),
        env=lnk.env({"LNK_DNS_SERVER": net["LNK_DNS_SERVER"]}),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        def lines():
            return out.read_text().split() if out.exists() else []
        deadline = time.monotonic() + 20
        while "ok" not in lines() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "ok" in lines(), lines()
        db = sqlite3.connect(str(lnk.home / ".lnk" / "sandbox" / "lnk.db"),
                             timeout=5)
        try:
            (pid,) = db.execute("SELECT wire_pid FROM ctl_sandboxes WHERE "
                                "name = 'tp-dies'").fetchone()
        finally:
            db.close()
        os.kill(pid, signal.SIGKILL)
        n = len(lines())
        deadline = time.monotonic() + 10
        while len(lines()) < n + 5 and time.monotonic() < deadline:
            time.sleep(0.1)
        after = lines()[n + 1:]
        assert after and all(x == "down:111" for x in after), after
        assert p.poll() is None
    finally:
        p.kill()
        p.communicate(timeout=30)


ICMP = r"""
import socket
for kind, proto in (("raw", socket.SOCK_RAW), ("ping", socket.SOCK_DGRAM)):
    try:
        s = socket.socket(socket.AF_INET, proto, socket.IPPROTO_ICMP)
    except OSError as e:
        print(kind, "socket", e.errno)
        continue
    try:
        s.settimeout(5)
        s.connect(("198.18.0.2", 0))
        s.send(b"\x08\x00\xf7\xff\x00\x00\x00\x00")
        print(kind, "sent")
    except OSError as e:
        print(kind, "connect", e.errno)
"""


def test_icmp_refused_at_once(lnk, net, work):
    """ICMP never leaves: a raw socket is refused when made, a ping
    socket is refused when made or at its connect (and logged, verb
    icmp); nothing waits."""
    (work / "icmp.py").write_text(ICMP)
    cp = run(lnk, net, ["--write", work, "--internet-host", "*"],
             f"python3 {work}/icmp.py")
    out = cp.stdout.splitlines()
    assert len(out) == 2, cp.stdout + cp.stderr
    assert all("sent" not in ln for ln in out), out
    assert out[0].startswith("raw socket"), out
    if out[1].startswith("ping connect"):
        assert any(r["verb"] == "icmp" and r["target"].startswith(
            "198.18.0.2") for r in calls(lnk)), calls(lnk)
