"""The network's edges, end to end on the test network (nethosts.sh):
an IPv4 grant never widens to the IPv6 forms that embed its address,
every lookup the sandbox's resolver sends upstream is in the log, and a
plain-HTTP connection carries one checked request, never a second one
unchecked (docs/design.md, invariant 3 and "The transparent path").

Every test runs as root and as an unprivileged user (tests/e2e/README)."""
import json
import subprocess
import pathlib
import re
import socket
import textwrap
import time

import pytest

from conftest import IS_ROOT, run_across_a_change

PY = "/usr/bin/python3"
ENV_FILE = pathlib.Path("/run/lnk-nethosts.env")


def nethosts():
    if not ENV_FILE.exists():
        pytest.skip("no test hosts: run tests/e2e/nethosts.sh up as root")
    return dict(line.partition("=")[::2]
                for line in ENV_FILE.read_text().split())


def py(lnk, code, *grants, f, timeout=90):
    return lnk.run(*grants, "--", PY, "-c", textwrap.dedent(code),
                   timeout=timeout, env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})


def rows(lnk, *args):
    out = lnk("sandbox", "log", "--json", "--lines", "100000", *args,
              check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


CURL = "curl -s -o /dev/null -w '{t} %{{http_code}}\\n' http://{h}/hello.txt; "


def test_ipv4_grant_never_reaches_its_6to4_form(lnk):
    """Threat: `--internet-host 198.18.0.2` (or a [lan] grant of one
    address) also grants every IPv6 form that embeds that address: the
    6to4 [2002:c612:2::1] is a relay's other machine, NAT64 a
    translator's, and none of them is the granted host."""
    f = nethosts()
    forms = ["[2002:c612:2::1]", "[64:ff9b::c612:2]", "[::198.18.0.2]",
             "[2001:0:c612:2::39ed:fffd]", "[2001:db8::5efe:c612:2]"]
    script = CURL.format(t="plain", h=f["ORIGIN_IP"])
    script += "".join(CURL.format(t=h, h=h) for h in forms)
    cp = lnk.run("--internet-host", f["ORIGIN_IP"], "--", "/bin/sh", "-c",
                 script, timeout=90,
                 env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    assert "plain 200" in cp.stdout, cp.stdout + cp.stderr
    for h in forms:
        assert f"{h} 403" in cp.stdout, cp.stdout + cp.stderr
    got = {r["target"]: r["reason"] for r in rows(lnk, "--refused")}
    for h in forms:
        assert got.get(f"{h}:80") == "host not in the sandbox's grants", got

    # a [lan] grant of the router's one address: not its 6to4 form
    router6 = "[2002:c612:102::2]"
    script = CURL.format(t="router", h=f["ROUTER_IP"]).replace(
        "hello.txt", "router.txt")
    script += CURL.format(t="six", h=router6)
    cp = lnk.run("--lan-host", f["ROUTER_IP"], "--", "/bin/sh", "-c", script,
                 timeout=90, env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    assert "router 200" in cp.stdout, cp.stdout + cp.stderr
    assert "six 403" in cp.stdout, cp.stdout + cp.stderr
    got = {r["target"]: r["reason"] for r in rows(lnk, "--refused")}
    # not granted, and what it embeds is this machine's network
    assert got.get(f"{router6}:80") in (
        "host not in the sandbox's grants",
        "address on this machine's network, not the internet"), got


def test_mapped_address_of_a_dual_stack_socket_is_its_ipv4(lnk):
    """A dual-stack client (an IPv6 socket, Java's default) connects to
    ::ffff:198.18.0.2 without proxy settings: the kernel sends that to
    198.18.0.2, so the grant of 198.18.0.2 (and the name the resolver
    answered) covers it, and the log names the IPv4 address."""
    f = nethosts()
    code = f"""
        import socket
        for host in ["::ffff:{f['ORIGIN_IP']}", "::ffff:198.18.0.3"]:
            s = socket.socket(socket.AF_INET6)
            s.settimeout(10)
            try:
                s.connect((host, 80))
                s.sendall(b"GET /hello.txt HTTP/1.0\\r\\n\\r\\n")
                print(host, s.recv(100).split(b"\\r\\n")[0].decode())
            except OSError as e:
                print(host, "refused", e.errno)
            s.close()
    """
    cp = py(lnk, code, "--internet-host", f["ORIGIN_IP"], f=f)
    assert f"::ffff:{f['ORIGIN_IP']} HTTP/1.0 200" in cp.stdout, \
        cp.stdout + cp.stderr
    assert "::ffff:198.18.0.3 refused" in cp.stdout, cp.stdout + cp.stderr
    ended = [r for r in rows(lnk) if r["outcome"] == "ended"]
    assert any(r["target"] == f"{f['ORIGIN_IP']}:80" for r in ended), ended


RAW = """
import socket
def raw(data, wait=10):
    s = socket.create_connection(("127.0.0.1", 3128)); s.settimeout(wait)
    s.sendall(data); out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b: break
            out += b
    except OSError:
        pass
    s.close(); return out
"""


def test_pipelined_request_never_reaches_the_server(lnk):
    """Threat: after a plain-HTTP request to a granted host, a second
    request pipelined on the same connection (`Host: other.lnk-test`, a
    path the log never shows) is relayed verbatim to the server, where a
    shared address or a proxying server serves it. The server on
    TELL_PORT answers with every byte it received."""
    f = nethosts()
    if "TELL_PORT" not in f:
        pytest.skip("the test hosts predate the server on 8081: run "
                    "tests/e2e/nethosts.sh tell (or up) as root")
    url = f"http://origin.lnk-test:{f['TELL_PORT']}"
    code = RAW + textwrap.dedent(f"""
        print("one", raw(b"GET {url}/first HTTP/1.1\\r\\nHost: origin.lnk-test"
                         b"\\r\\n\\r\\nGET /second HTTP/1.1\\r\\n"
                         b"Host: other.lnk-test\\r\\n\\r\\n"))
        print("body", raw(b"POST {url}/post HTTP/1.1\\r\\nContent-Length: 5"
                          b"\\r\\n\\r\\nhelloGET /third HTTP/1.1\\r\\n"
                          b"Host: other.lnk-test\\r\\n\\r\\n"))
        print("chunked", raw(b"POST {url}/c HTTP/1.1\\r\\nTransfer-Encoding: "
                             b"chunked\\r\\n\\r\\n5\\r\\nhello\\r\\n0\\r\\n\\r\\n"
                             b"GET /fourth HTTP/1.1\\r\\n\\r\\n"))
    """)
    cp = py(lnk, code, "--internet-host", "origin.lnk-test", f=f)
    out = cp.stdout
    one = next(l for l in out.splitlines() if l.startswith("one "))
    body = next(l for l in out.splitlines() if l.startswith("body "))
    chunked = next(l for l in out.splitlines() if l.startswith("chunked "))
    assert "GET /first HTTP/1.1" in one, out + cp.stderr
    assert "/second" not in one and "other.lnk-test" not in one, one
    assert "POST /post HTTP/1.1" in body and "hello" in body, body
    assert "/third" not in body and "other.lnk-test" not in body, body
    assert "411 Length Required" in chunked, chunked
    assert "/fourth" not in chunked, chunked


DNS_QUERIES = """
import socket, struct, sys
def ask(name, qtype=1):
    q = struct.pack(">HHHHHH", 0x4c4e, 0x100, 1, 0, 0, 0) + b"".join(
        bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\\0" + \\
        struct.pack(">HH", qtype, 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(12)
    s.sendto(q, ("127.0.0.1", 53))
    try:
        a = s.recv(512)
    except OSError:
        return "timeout"
    return {0: "ok", 2: "servfail", 3: "nxdomain", 5: "refused"}.get(
        a[3] & 15, str(a[3] & 15))
"""


def test_a_lookup_sent_before_the_wire_closed_is_no_refusal(lnk, work):
    """Invariant 7 (the log says what happened): 200 different names
    asked at once, without waiting, trip the wire while many are already
    at the upstream resolver. A name that left is never logged as
    refused (`log --refused` would say it never left): it ended, or
    failed because the wire closed before its answer came."""
    f = nethosts()
    tag = "b%d" % (time.time_ns() % 10**9)  # this run's names only
    code = DNS_QUERIES + textwrap.dedent("""
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for i in range(200):
            name = "TAG-%03d.other.lnk-test" % i
            q = struct.pack(">HHHHHH", i, 0x100, 1, 0, 0, 0) + b"".join(
                bytes([len(p)]) + p.encode() for p in name.split(".")) + \\
                b"\\0" + struct.pack(">HH", 1, 1)
            s.sendto(q, ("127.0.0.1", 53))
        s.settimeout(3)
        try:
            while True:
                s.recv(512)
        except OSError:
            pass
        print("done", flush=True)
    """).replace("TAG", tag)
    cp = lnk.run("--name", "burst", "--internet-host", "*.lnk-test", "--",
                 PY, "-c", code, env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]},
                 timeout=90)
    assert "done" in cp.stdout, cp.stderr
    assert "too many different names" in cp.stderr, cp.stderr
    sent = set()
    for line in pathlib.Path(f["DNS_LOG"]).read_text().splitlines():
        for w in line.split():
            if w.startswith(tag + "-") and w.endswith(".other.lnk-test"):
                sent.add(w)
    assert sent, "no lookup reached the resolver"
    dns = {r["target"].split()[0]: r for r in rows(lnk, "--sandbox", "burst")
           if r["verb"] == "dns"}
    for name in sent:
        assert name in dns, (name, sorted(dns)[:5])
        assert dns[name]["outcome"] != "refused", dns[name]


def test_every_lookup_is_logged_and_a_burst_of_names_trips(lnk, work):
    """Threat: under a granted wildcard (or '*') the program carries data
    out in the names it asks the sandbox's resolver for: each went to the
    upstream resolver with no log row, no traffic count and no tripwire.
    Now each is a dns row (name and type), `traffic` counts them, and 50
    different names under one domain within a minute pause the wire."""
    f = nethosts()
    code = DNS_QUERIES + textwrap.dedent("""
        print("origin", ask("origin.lnk-test"), flush=True)
        print("aaaa", ask("origin.lnk-test", 28), flush=True)
        for i in range(60):
            print("leak", i, ask("c%02d.leak.lnk-test" % i), flush=True)
        print("done", flush=True)
        sys.stdin.read()
    """)
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "dnsleak", "--internet-host",
         "*.lnk-test", "--", PY, "-c", code],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=lnk.env({"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]}),
        cwd=str(work))
    try:
        out = []
        for line in p.stdout:
            out.append(line.strip())
            if line.startswith("done"):
                break
        text = "\n".join(out)
        assert "origin ok" in text and "aaaa ok" in text, text
        answers = [l.split()[2] for l in out if l.startswith("leak ")]
        assert len(answers) == 60, text
        # up to the 49th the name went upstream (this resolver knows none
        # of them); the 50th tripped the wire, and from then on none leaves
        assert "refused" not in answers[:49], text
        assert set(answers[49:]) == {"refused"}, text
        # traffic counts every lookup sent upstream, while it runs (the
        # wire refreshes its counters each tick)
        for _ in range(200):
            mine = [w for w in map(json.loads, lnk(
                "sandbox", "traffic", "--json",
                check=True).stdout.splitlines())
                if w["sandbox"] == "dnsleak"]
            if mine and mine[0]["lookups"] >= 51:
                break
            time.sleep(0.1)
        assert mine and mine[0]["lookups"] == 51, mine
        assert " 51 " in lnk("sandbox", "traffic", check=True).stdout
        assert "dnsleak" in lnk("sandbox", "paused", check=True).stdout
    finally:
        p.stdin.close()
        err = p.stderr.read()
        p.wait(timeout=30)
    assert "too many different names looked up under one domain" in err, err
    got = rows(lnk)
    dns = {r["target"]: r for r in got if r["verb"] == "dns"}
    assert dns["origin.lnk-test A"]["outcome"] == "ended", dns
    assert dns["origin.lnk-test AAAA"]["outcome"] == "ended", dns
    for i in range(49):
        r = dns[f"c{i:02d}.leak.lnk-test A"]
        assert r["outcome"] == "failed", r
    r = dns["c49.leak.lnk-test A"]
    assert r["outcome"] == "refused" and "paused" in r["reason"], r
    text = lnk("sandbox", "log", "--lines", "1000", check=True).stdout
    assert re.search(r"dns +c00\.leak\.lnk-test A +failed: name lookup "
                     r"failed", text), text


def test_a_flood_of_lookups_is_bounded_and_counted(lnk):
    """Threat: a lookup row each, for as many names as the program likes,
    fills the disk under ~/.lnk. The rows take the refusals' bound: a
    burst of them one by one, then one a second, and the rest as one
    count row, so the flood is never invisible."""
    f = nethosts()
    n = 1100
    code = DNS_QUERIES + textwrap.dedent(f"""
        got = [ask("c%d.d%d.lnk-test" % (i, i)) for i in range({n})]
        print("answers", len(got), "refused", got.count("refused"))
    """)
    cp = py(lnk, code, "--internet-host", "*.lnk-test", f=f, timeout=240)
    assert f"answers {n} refused 0" in cp.stdout, cp.stdout + cp.stderr
    got = [r for r in rows(lnk) if r["verb"] == "dns"]
    one_by_one = [r for r in got if r["target"] != "-"]
    count = [r for r in got if r["target"] == "-"]
    assert 1000 <= len(one_by_one) < n, len(one_by_one)
    assert len(count) == 1, count
    m = re.match(r"(\d+) more lookups, not logged one by one", count[0]["reason"])
    assert m and len(one_by_one) + int(m.group(1)) == n, count



def test_a_route_change_is_judged_at_the_next_call(lnk, work):
    """The wire and its keeper keep where an address is until the routing
    changes (src/wire/route.h): the kernel announces each change, and the
    next call is judged by the new routes, well within the second an
    answer is kept otherwise.

    Threat: an address first called as the internet becomes this
    machine's (DHCP, a VPN, an address gained while the sandbox runs),
    and the verdict kept from the first call lets the second reach a
    server of this machine on it."""
    if not IS_ROOT:
        pytest.skip("changing this machine's addresses needs root; the "
                    "unit test test_route (test_kernel_changes) makes "
                    "every kind of change as this user in a namespace")
    f = nethosts()
    # beyond the router (the internet), on the far host's link for the
    # first call (refused there at once: nothing listens), then this
    # machine's own; a server of this machine listens on every address
    addr = "198.18.0.77"
    far = ["ip", "netns", "exec", "lnk-nethosts", "ip", "addr"]
    d = work.parent / "route-www"
    d.mkdir()
    (d / "secret.txt").write_text("HOST-SECRET on a changed route\n")
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        port = s.getsockname()[1]
    call = ("curl -s --max-time 5 -w ' {t} %{{http_code}}\\n' "
            f"http://{addr}:{port}/secret.txt; ")
    env = lnk.env({"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    srv = subprocess.Popen([PY, "-m", "http.server", str(port), "--bind",
                            "0.0.0.0", "--directory", str(d)],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)

    def change():
        subprocess.run(far + ["del", f"{addr}/24", "dev", "lnkh1"],
                       check=True)
        subprocess.run(["ip", "addr", "add", f"{addr}/32", "dev", "lo"],
                       check=True)

    try:
        subprocess.run(far + ["add", f"{addr}/24", "dev", "lnkh1"],
                       check=True)
        out, err = run_across_a_change(lnk, work, ["--internet-host", "*"],
                                       call, change, env)
    finally:
        srv.kill()
        srv.wait()
        subprocess.run(far + ["del", f"{addr}/24", "dev", "lnkh1"],
                       capture_output=True)
        subprocess.run(["ip", "addr", "del", f"{addr}/32", "dev", "lo"],
                       capture_output=True)
    assert " before 502" in out, out + err
    assert "HOST-SECRET" not in out, out
    assert " after 403" in out, out + err
    got = [r for r in rows(lnk) if r["target"] == f"{addr}:{port}"]
    # the first call was judged the internet (it failed: nothing listens
    # there); the second, this machine
    assert got and got[0]["outcome"] == "failed", got
    assert got[-1]["outcome"] == "refused", got
    assert got[-1]["reason"] == "address of this machine", got[-1]
