"""Invariant 7, the log never holds a request's path, headers or body, and
does not grow without bound: refused calls and lookups past a burst are
logged as a count. A call is never carried unlogged, also when the disk
that holds the log is full.

Attacks on it from inside a sandbox, one block a promise: each test
PASSES when the sandbox holds and FAILS when the attack works (more in
attack_helpers.py; a new attack: docs/HACKING.md, "Add an attack test").
"""
# Blocks, one a promise of the invariant:
#   A. What a row holds
#   B. No call unlogged
#   C. A bounded log

import json
import subprocess
import textwrap

import pytest

from conftest import IS_ROOT, on_lnk_path
from attack_helpers import PY, nethosts, sh


# =============================================================================
# A. What a row holds
#    Promise: the log never holds a request's path, headers or body, and names
#    a call truthfully.
# =============================================================================


def test_log_holds_no_path_headers_or_body(lnk, home):
    """Invariant 7 (the log), promise: the log never holds a request's path,
    headers or body, and names a call truthfully.

    Threat (invariant 7): secrets in a request's path/headers reach the log."""
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


ECHO = "#!/bin/sh\necho \"ran $#\"\n"


def test_the_log_names_the_last_argument_of_a_call_that_ran(
        tmp_path, lnk, work):
    """Invariant 7 (the log), promise: the log never holds a request's path,
    headers or body, and names a call truthfully.

    Threat: a tool call padded with a 5000-byte argument hides its last
    argument (--output=...) from the log row of the call that ran."""
    import json
    on_lnk_path(lnk, tmp_path / "bin", "mytool", ECHO)
    lnk("sandbox", "tool", "add", "mytool", "--allow", "*", check=True)
    pad = "a" * 5000
    cp = lnk.run("--write", work, "--tool", "mytool", "--",
                 "/bin/sh", "-c", f"mytool {pad} --output=TAILMARK",
                 timeout=120)
    assert "ran 2" in cp.stdout, (cp.stdout, cp.stderr)
    out = lnk("sandbox", "log", "--json", "--lines", "1000",
              check=True).stdout
    rows = [json.loads(x) for x in out.splitlines()]
    tool = [r for r in rows if r.get("verb") == "tool"]
    assert tool, rows
    assert "TAILMARK" in tool[-1]["target"], tool[-1]


# =============================================================================
# B. No call unlogged
#    Promise: a call is never carried unlogged, also when the disk is full.
# =============================================================================


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
    """Invariant 7 (the log), promise: a call is never carried unlogged, also
    when the disk is full.

    Threat: the program fills the file system holding ~/.lnk, then
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


def test_full_disk_no_lookup_unlogged(small_home):
    """Invariant 7 (the log), promise: a call is never carried unlogged, also
    when the disk is full.

    Threat: with the log down (the program filled the disk), names still
    went to the upstream resolver, each carrying what the program put in
    it, and no row said so: by the sandbox's resolver (getent) and by the
    proxy's own lookup for a name it was asked to reach."""
    import uuid
    from conftest import Lnk
    f = nethosts()
    if "DNS_LOG" not in f:
        pytest.skip("test hosts from an older nethosts.sh: no query log")
    work = small_home / "work"
    work.mkdir()
    lnk = Lnk(small_home, work)
    tag = uuid.uuid4().hex[:12]
    script = f"""
        c() {{ curl -s -o /dev/null -w '%{{http_code}}' \
            http://origin.lnk-test/hello.txt; }}
        echo "start $(c)"
        head -c 100M /dev/zero > {work}/fill 2>/dev/null
        i=0; while [ $i -lt 200 ]; do
            r=$(c); [ "$r" = 503 ] && break
            i=$((i + 1)); sleep 0.1
        done
        echo "full $r"
        getent hosts resolver-{tag}.lnk-test; echo "getent=$?"
        curl -s -o /dev/null -w 'proxy %{{http_code}}\n' \
            http://proxy-{tag}.lnk-test/
        rm {work}/fill
    """
    cp = sh(lnk, script, "--write", work, "--internet-host", "*.lnk-test",
            timeout=180, env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    out = cp.stdout
    assert "start 200" in out and "full 503" in out, out + cp.stderr
    assert "getent=0" not in out, out
    assert "proxy 503" in out, out
    sent = open(f["DNS_LOG"], errors="replace").read()
    assert f"resolver-{tag}" not in sent, "the resolver's name went out"
    assert f"proxy-{tag}" not in sent, "the proxy's lookup went out"


def test_the_wire_sends_upstream_only_the_name_it_logs(lnk, work):
    """Invariant 7 (the log), promise: every lookup the wire sends
    upstream is in the log, by the name it sent.

    Threat: the wire's resolver took the host's search domains (the
    search line of resolv.conf, or LOCALDOMAIN): a name that did not
    resolve was sent again with each domain appended, names the log
    never showed, toward the resolver of the host's network."""
    import uuid
    f = nethosts()
    if "DNS_LOG" not in f:
        pytest.skip("test hosts from an older nethosts.sh: no query log")
    tag = uuid.uuid4().hex[:12]
    cp = sh(lnk, f"curl -s -o /dev/null -w '%{{http_code}}' "
            f"http://nosuch-{tag}.lnk-test/; echo",
            "--write", work, "--internet-host", "*.lnk-test",
            env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"],
                 "LOCALDOMAIN": f"search-{tag}.lnk-test",
                 "RES_OPTIONS": "ndots:5"})
    assert cp.returncode == 0, cp.stderr
    sent = open(f["DNS_LOG"], errors="replace").read()
    assert f"nosuch-{tag}.lnk-test" in sent, "the name itself never went"
    assert f"search-{tag}" not in sent, "a searched name went out unlogged"


LEAVE = r"""
import os, socket, sys, time
host, port = os.environ["HTTP_PROXY"][7:].rstrip("/").rsplit(":", 1)
for target in sys.argv[1:]:
    s = socket.create_connection((host, int(port)))
    s.sendall(f"CONNECT {target} HTTP/1.1\r\n\r\n".encode())
    time.sleep(0.4)
    s.close()
time.sleep(0.5)
print("left")
"""


def test_a_call_left_while_it_connects_is_logged(lnk, work):
    """Invariant 7 (the log), promise: every call the wire makes toward a
    host is in the log, also one the program leaves before it connected.

    Threat: the wire connects for the program, and the program closes its
    side while that connect is under way: the handshake reaches the host
    (which host, which port and when carry data), but the call was
    logged only once connected or refused, so none of it is in the log.
    Here the test host never answers (its replies go to a blackhole), so
    the connect is still under way when the program leaves."""
    f = nethosts()
    targets = [f"{f['SILENT_IP']}:80", f"{f['SILENT_IP']}:8443"]
    prog = work / "leave.py"
    prog.write_text(LEAVE)
    cp = lnk.run("--read", work, "--internet-host", "*", "--", PY,
                 str(prog), *targets, timeout=60,
                 env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    assert "left" in cp.stdout, cp.stdout + cp.stderr
    log = lnk("sandbox", "log", "--json", "--lines", "1000")
    rows = [json.loads(l) for l in log.stdout.splitlines()]
    for t in targets:
        mine = [r for r in rows if r["target"] == t]
        assert mine, (t, rows)
        assert mine[-1]["outcome"] == "failed", mine
        assert "before" in mine[-1]["reason"], mine


def test_a_call_left_while_its_name_is_looked_up_is_logged(lnk, work):
    """Invariant 7 (the log), promise: every name the wire sends to the
    resolver is in the log, also for a call the program leaves before
    the answer came.

    Threat: under '*' the program asks for CONNECT to a name that carries
    data (d41d8cd9.example.test) and leaves at once: the wire has sent the
    name upstream, but the call was logged only at its outcome, so the
    name left with no row. The resolver here never answers."""
    import socket
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    silent.bind(("127.0.0.1", 0))
    dns = f"127.0.0.1:{silent.getsockname()[1]}"
    targets = ["d41d8cd9.example.test:443", "8f00b204.example.test:443"]
    prog = work / "leave.py"
    prog.write_text(LEAVE)
    try:
        cp = lnk.run("--read", work, "--internet-host", "*", "--", PY,
                     str(prog), *targets, timeout=60,
                     env={"LNK_DNS_SERVER": dns})
    finally:
        silent.close()
    assert "left" in cp.stdout, cp.stdout + cp.stderr
    log = lnk("sandbox", "log", "--json", "--lines", "1000")
    rows = [json.loads(l) for l in log.stdout.splitlines()]
    for t in targets:
        mine = [r for r in rows if r["target"] == t]
        assert mine, (t, rows)
        assert mine[-1]["outcome"] == "failed", mine
        assert "looked up" in mine[-1]["reason"], mine


def test_a_model_call_left_while_it_connects_is_logged(lnk, work):
    """Invariant 7 (the log), promise: every call the wire makes toward a
    host is in the log, also a model call the program leaves before the
    wire has connected to the provider.

    Threat: as above, through a model route: the program sends a request
    and leaves while the wire connects (or shakes hands) with the
    provider; a model call was logged only once its TLS handshake was
    done. The provider here is the test host that never answers."""
    f = nethosts()
    route = f"slow=https://{f['SILENT_IP']}:8443/v1"
    script = ("curl -s --max-time 1 -H 'content-type: application/json' "
              "\"$LNK_MODEL_SLOW_URL/chat/completions\" "
              "-d '{\"model\":\"m\"}'; sleep 0.5; echo left")
    cp = lnk.run("--name", "mleft", "--model", route, "--read", work,
                 "--", "sh", "-c",
                 script, timeout=60,
                 env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"],
                      "SSL_CERT_FILE": f["CA_FILE"],
                      "SLOW_API_KEY": "sk-test-left"})
    assert "left" in cp.stdout, cp.stdout + cp.stderr
    log = lnk("sandbox", "log", "--json", "--sandbox", "mleft")
    rows = [json.loads(l) for l in log.stdout.splitlines()]
    mine = [r for r in rows if r["verb"] == "model"]
    assert mine, (rows, cp.stderr)
    assert mine[-1]["outcome"] == "failed", mine
    assert "before" in mine[-1]["reason"], mine


# =============================================================================
# C. A bounded log
#    Promise: the log does not grow without bound under a flood of refusals or
#    lookups.
# =============================================================================


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


# Datagrams to a new address each time: the guard refuses each, and once
# per target it was a row, past any cap, and past 1024 targets unseen.
FLOOD_UDP = r"""
import socket, time
t0 = time.time(); i = 0
while time.time() - t0 < 4:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect((f"198.18.{(i >> 8) & 255}.{i & 255}", 1000 + i % 5000))
    except OSError:
        pass
    s.close()
    i += 1
print("sent", i)
"""


# Connects to a granted host's closed port: each allowed, each failed (the
# host answers with a reset), none a refusal; a row each, without end.
FLOOD_FAILED = r"""
import os, socket, time
host = os.environ["LNK_ORIGIN"]
t0 = time.time(); i = 0
while time.time() - t0 < 6:
    try:
        s = socket.create_connection(("127.0.0.1", 3128), timeout=5)
        s.sendall(f"CONNECT {host}:81 HTTP/1.1\r\n\r\n".encode())
        s.recv(200); s.close()
    except OSError:
        pass
    i += 1
print("sent", i)
"""


@pytest.mark.parametrize("code", [FLOOD_CONNECT, FLOOD_DNS, FLOOD_UDP,
                                  FLOOD_FAILED],
                         ids=["connect-after-trip", "dns-unique-names",
                              "udp-new-addresses", "failed-closed-port"])
def test_program_cannot_grow_the_call_log_without_bound(lnk, work, code):
    """Invariant 7 (the log), promise: the log does not grow without bound
    under a flood of refusals, lookups or failed calls.

    Threat: a program with one host granted writes the user's disk
    outside its folders (~/.lnk/sandbox/lnk.db) as fast as it can make
    refused calls, tripped wire or not (measured: 0.5 to 5.5 MB a second),
    until the disk is full and no sandbox starts, and buries the calls a
    person looks for. Refusals past a burst are counted, and the count is
    logged."""
    f = nethosts()
    (work / "flood.py").write_text(textwrap.dedent(code))
    db = lnk.home / ".lnk/sandbox/lnk.db"
    cp = lnk.run("--read", work, "--internet-host", f["ORIGIN"],
                 "--env", "LNK_ORIGIN", "--",
                 PY, str(work / "flood.py"), timeout=120,
                 env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"],
                      "LNK_ORIGIN": f["ORIGIN"]})
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
