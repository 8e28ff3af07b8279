"""The wire end to end: real clients (curl, Python) through the
wire against real servers.

These drive lnk-wire-harness (src/wire/wire_harness.c), so that a client
can be driven directly: the wire exactly as run starts it, with the
client in a network namespace of its own that has loopback only and the
listeners handed over by handoff_send, as lnk-init does.

"Internet" hosts come from tests/e2e/nethosts.sh (198.18.0.0/15 behind a
blackhole route); tests that need them skip when it has not run.
"""
import json
import os
import pathlib
import socket
import subprocess
import threading
import http.server

import pytest

from conftest import LNK, free_port

BUILD = pathlib.Path(LNK).resolve().parent
HARNESS = os.environ.get("LNK_WIRE_HARNESS") or str(
    BUILD / "src" / "wire" / "lnk-wire-harness")
ENV_FILE = pathlib.Path("/run/lnk-nethosts.env")
PY = "/usr/bin/python3"


def nethosts():
    if not ENV_FILE.exists():
        pytest.skip("no test hosts: run tests/e2e/nethosts.sh up as root")
    facts = {}
    for line in ENV_FILE.read_text().splitlines():
        k, _, v = line.partition("=")
        facts[k] = v
    return facts


@pytest.fixture
def harness(home):
    if not os.access(HARNESS, os.X_OK):
        pytest.skip(f"no wire harness at {HARNESS}")
    db = home / ".lnk" / "sandbox" / "lnk.db"

    def run(script, *grants, dns=None, name="wire-test", timeout=60):
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home)}
        if dns:
            env["LNK_DNS_SERVER"] = dns
        cmd = [HARNESS, "--name", name, "--db", str(db), *grants,
               "--", "sh", "-c", script]
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout, env=env)
    run.db = db
    return run


def calls(lnk, *args):
    cp = lnk("sandbox", "log", "--json", "--lines", "1000", *args,
             check=True)
    return [json.loads(line) for line in cp.stdout.splitlines()]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"loopback server\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


@pytest.fixture
def loopback_server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv.server_address[1]
    srv.shutdown()


def test_port_reaches_loopback_and_nothing_else(harness, lnk,
                                                loopback_server):
    p = loopback_server
    other = free_port()
    cp = harness(
        f"curl -s http://127.0.0.1:{p}/x; "
        f"curl -s -o /dev/null -w '%{{http_code}}' http://127.0.0.1:{other}/;"
        " echo \" rc=$?\"", "--port", str(p))
    assert "loopback server" in cp.stdout, cp.stderr
    # no listener inside for another port: refused inside, nothing leaves
    assert "000 rc=7" in cp.stdout
    rows = calls(lnk)
    assert any(r["verb"] == "tcp" and r["target"] == f"localhost:{p}"
               and r["outcome"] == "ended" and r["down"] > 0 for r in rows)


def cpus(text):
    """The CPUs of a Cpus_allowed_list value ("0-3,6")."""
    out = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def test_the_keeper_stays_on_the_wires_cpu(harness, lnk, loopback_server):
    """The keeper moves to the CPU the wire asked from (src/wire/near.h):
    at one connection at a time, a keeper woken on the other CPU made
    every connect pay a round trip across CPUs. The wire itself is never
    pinned, and the keeper is on its whole set until the first ask."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("this process may use one CPU only: nothing to follow")
    p = loopback_server
    show = ("k=$(pgrep -P $PPID -x lnk-wire-keep); "
            "w=$(pgrep -P $k -x lnk-wire); "
            "echo $1 keeper $(grep Cpus_allowed_list: /proc/$k/status); "
            "echo $1 wire $(grep Cpus_allowed_list: /proc/$w/status)")
    cp = harness(
        f"show() {{ {show}; }}; show before; "
        f"curl -s http://127.0.0.1:{p}/x; show after", "--port", str(p))
    assert "loopback server" in cp.stdout, cp.stderr
    seen = {}
    for line in cp.stdout.splitlines():
        w = line.split()
        if len(w) == 4 and w[2] == "Cpus_allowed_list:":
            seen[(w[0], w[1])] = cpus(w[3])
    full = os.sched_getaffinity(0)
    assert seen.get(("before", "keeper")) == full, cp.stdout
    assert seen.get(("before", "wire")) == full, cp.stdout
    after = seen.get(("after", "keeper"))
    assert after and len(after) == 1 and after <= full, cp.stdout
    assert seen.get(("after", "wire")) == full, cp.stdout


def test_unlisted_refused_403_and_logged(harness, lnk):
    cp = harness(
        "curl -s -D - -o /dev/null http://unlisted.example/secret/path?q=1;"
        "curl -s -o /dev/null -w '%{http_code}' "
        "https://unlisted.example/secret/path; echo \" rc=$?\"",
        "--internet-host", "allowed.example")
    assert "403" in cp.stdout.splitlines()[0]
    assert "X-Lnk-Reason: host not in the sandbox's grants" in cp.stdout
    # CONNECT refused with 403: curl reports 000 / exit 56
    assert "rc=56" in cp.stdout
    rows = calls(lnk, "--refused")
    targets = {(r["verb"], r["target"]) for r in rows}
    assert ("http", "unlisted.example:80") in targets
    assert ("connect", "unlisted.example:443") in targets
    text = lnk("sandbox", "log", check=True).stdout
    assert "secret" not in text and "path" not in text
    assert "refused: host not in the sandbox's grants" in text


LOOPBACK_SPELLINGS = ["127.0.0.1", "127.1", "2130706433", "0x7f000001",
                      "0177.0.0.1", "[::1]", "[::ffff:127.0.0.1]",
                      "0.0.0.0", "[::]", "169.254.169.254",
                      "100.100.100.200", "[fd00:ec2::254]", "localhost"]


def test_loopback_and_metadata_refused_every_spelling(harness, lnk,
                                                      loopback_server):
    p = loopback_server
    lines = []
    for h in LOOPBACK_SPELLINGS:
        # --noproxy '' makes curl use the proxy even for 127.0.0.1
        lines.append(
            f"printf '%s ' '{h}'; curl -s --noproxy '' -x \"$HTTP_PROXY\" "
            f"-o /dev/null -w '%{{http_code}}\\n' 'http://{h}:{p}/'")
        lines.append(
            f"printf 'socks %s ' '{h}'; curl -s --noproxy '' "
            f"--socks5-hostname 127.0.0.1:1080 -o /dev/null "
            f"-w '%{{http_code}} %{{exitcode}}\\n' 'http://{h}:{p}/'")
    cp = harness("; ".join(lines), "--internet-host", "*")
    out = cp.stdout.splitlines()
    assert len(out) == 2 * len(LOOPBACK_SPELLINGS), cp.stdout + cp.stderr
    for line in out:
        if line.startswith("socks "):
            assert line.endswith(" 000 97"), line  # SOCKS refused
        else:
            assert line.endswith(" 403") or line.endswith(" 000"), line
    # and the server saw nothing: every call is refused in the log
    rows = calls(lnk)
    assert rows and all(r["outcome"] == "refused" for r in rows)


def test_a_socks_name_with_a_port_is_named_for_what_it_is(harness, lnk):
    """A SOCKS5 name given with its port ("origin.lnk-test:80") is no
    host name: refused, and the row says so, not that a number is
    ambiguous."""
    f = nethosts()
    script = ("curl -s --noproxy '' --socks5-hostname 127.0.0.1:1080 "
              "-o /dev/null -w '%{exitcode}\\n' "
              "'http://origin.lnk-test:80:80/'; "
              f"{PY} -c \"import socket,struct;s=socket.create_connection(("
              "'127.0.0.1',1080));s.sendall(b'\\5\\1\\0');s.recv(2);"
              "h=b'origin.lnk-test:80';s.sendall(b'\\5\\1\\0\\3'+"
              "bytes([len(h)])+h+struct.pack('>H',80));"
              "print('rep',s.recv(10)[1])\"")
    cp = harness(script, "--internet-host", "origin.lnk-test",
                 dns=f["LNK_DNS_SERVER"])
    assert "rep 2" in cp.stdout, cp.stdout + cp.stderr
    reasons = [r["reason"] for r in calls(lnk, "--refused")]
    assert any("not a host name or an IPv6 address" in r
               for r in reasons), reasons
    assert not any("ambiguous" in r for r in reasons), reasons


def test_internet_hosts_http_https_socks_python(harness, lnk):
    f = nethosts()
    script = (
        "curl -s http://origin.lnk-test/hello.txt; "
        f"curl -s --cacert {f['CA_FILE']} https://origin.lnk-test/hello.txt;"
        " curl -s --noproxy '' --socks5-hostname 127.0.0.1:1080 "
        "http://Origin.LNK-test./hello.txt; "
        f"{PY} -c \"import urllib.request as u;"
        "print(u.urlopen('http://origin.lnk-test/hello.txt').read().decode()"
        ".strip())\"; "
        "curl -s -o /dev/null -w 'other %{http_code}\\n' "
        "http://other.lnk-test/hello.txt")
    cp = harness(script, "--internet-host", "origin.lnk-test",
                 dns=f["LNK_DNS_SERVER"])
    assert cp.stdout.count("hello from origin.lnk-test") == 4, \
        cp.stdout + cp.stderr
    assert "other 403" in cp.stdout
    rows = calls(lnk)
    ended = [r for r in rows if r["outcome"] == "ended"]
    assert {r["verb"] for r in ended} == {"http", "connect", "tcp"}
    assert all(r["up"] > 0 and r["down"] > 0 for r in ended)


def test_star_never_reaches_this_machine_or_network(harness, lnk):
    f = nethosts()
    # meta last: a name that resolves to the metadata service trips the
    # wire (its control socket), which then refuses everything as paused
    names = ["rebind", "self", "mixed", "private", "meta"]
    script = ("curl -s -o /dev/null -w 'hostside %{http_code}\\n' "
              f"http://{f['HOST_SIDE_IP']}/; "
              "curl -s -o /dev/null -w 'ok %{http_code}\\n' "
              f"http://{f['ORIGIN_IP']}/hello.txt; ")
    script += "; ".join(
        f"curl -s -o /dev/null -w '{n} %{{http_code}}\\n' "
        f"http://{n}.lnk-test/" for n in names)
    script += ("; curl -s -o /dev/null -w 'after %{http_code}\\n' "
               f"http://{f['ORIGIN_IP']}/hello.txt")
    cp = harness(script, "--internet-host", "*", dns=f["LNK_DNS_SERVER"])
    for n in names + ["hostside"]:
        assert f"{n} 403" in cp.stdout, cp.stdout + cp.stderr
    assert "ok 200" in cp.stdout
    assert "after 403" in cp.stdout
    assert ("wire paused: a call to a cloud metadata address "
            "(meta.lnk-test:80)") in cp.stderr
    reasons = {r["target"]: r["reason"] for r in calls(lnk, "--refused")}
    assert "loopback" in reasons["rebind.lnk-test:80"]
    assert "metadata" in reasons["meta.lnk-test:80"]
    assert "this machine" in reasons["self.lnk-test:80"]
    assert reasons[f"{f['ORIGIN_IP']}:80"] == \
        "paused: a call to a cloud metadata address"


def test_bad_clients_close_only_themselves(harness, lnk, loopback_server):
    f = nethosts()
    # garbage, an oversized head, a half request left hanging; then a good
    # request must still work
    script = (
        f"{PY} - <<'EOF'\n"
        "import socket\n"
        "def c(b, read=True):\n"
        "    s = socket.create_connection(('127.0.0.1', 3128))\n"
        "    s.sendall(b)\n"
        "    if read:\n"
        "        s.settimeout(15)\n"
        "        print(s.recv(100).split(b'\\r\\n')[0].decode())\n"
        "    return s\n"
        "c(b'\\x00\\x01garbage\\r\\n\\r\\n')\n"
        "c(b'GET http://origin.lnk-test/ HTTP/1.1\\r\\nA: ' + b'a' * 20000)\n"
        "hang = c(b'GET http://origin.lnk-test/ HTTP/1.1\\r\\n', read=False)\n"
        "s = socket.create_connection(('127.0.0.1', 1080))\n"
        "s.sendall(b'\\x05\\x01\\x02')\n"
        "print('socks', s.recv(10))\n"
        "EOF\n"
        "curl -s http://origin.lnk-test/hello.txt")
    cp = harness(script, "--internet-host", "origin.lnk-test",
                 dns=f["LNK_DNS_SERVER"])
    out = cp.stdout.splitlines()
    assert out[0] == "HTTP/1.1 400 Bad Request", cp.stdout + cp.stderr
    assert out[1] == "HTTP/1.1 431 Request Header Fields Too Large"
    assert out[2] == "socks b'\\x05\\xff'"
    assert out[3] == "hello from origin.lnk-test"


def test_traffic_counts_a_running_wire(harness, lnk):
    f = nethosts()
    script = ("curl -s -o /dev/null http://origin.lnk-test/1m.bin; "
              "sleep 1; " + LNK + " sandbox traffic --json")
    cp = harness(script, "--internet-host", "origin.lnk-test",
                 dns=f["LNK_DNS_SERVER"], name="traffic-test")
    rows = [json.loads(x) for x in cp.stdout.splitlines()]
    mine = [r for r in rows if r["sandbox"] == "traffic-test"]
    assert mine and mine[0]["down"] > 1048576, cp.stdout + cp.stderr
    # ended: no longer running
    rows = [json.loads(x) for x in
            lnk("sandbox", "traffic", "--json", check=True)
            .stdout.splitlines()]
    assert not [r for r in rows if r["sandbox"] == "traffic-test"]
