"""The router is the LAN: under `--internet-host '*'` an address of the first
router (its second, "public" address, and a port forward on it that leads
back to this machine) is refused, through the proxy and without proxy
settings; a --lan-host grant of that address reaches both; a test host two
hops away is still the internet (docs/design.md, invariant 3; src/wire/hop.h).

The test network (nethosts.sh): the router's 198.18.2.1 serves its own page
on port 80 and forwards port 8000 (DNAT, hairpin NAT) to this machine's
198.18.1.1:8001. Every test runs as root and as an unprivileged user."""
import json
import os
import pathlib
import subprocess

import pytest

from conftest import run_across_a_change

ENV_FILE = pathlib.Path("/run/lnk-nethosts.env")
FIRST_HOP = ("the first router's own address: this machine's network, "
             "not the internet")


def nethosts():
    if not ENV_FILE.exists():
        pytest.skip("no test hosts: run tests/e2e/nethosts.sh up as root")
    f = dict(line.partition("=")[::2]
             for line in ENV_FILE.read_text().split())
    if "ROUTER_WAN_IP" not in f:
        pytest.skip("the test hosts predate the router's second address: "
                    "run tests/e2e/nethosts.sh up again")
    return f


def rows(lnk, *args):
    out = lnk("sandbox", "log", "--json", "--lines", "100000", *args,
              check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def urls(f):
    """(tag, url, what a 200 carries) for each target of the test."""
    wan = f["ROUTER_WAN_IP"]
    u = [("page", f"http://{wan}/router.txt", "hello from the router")]
    if "ROUTER_FWD_PORT" in f:
        u.append(("forward",
                  f"http://{wan}:{f['ROUTER_FWD_PORT']}/secret.txt",
                  "a server of this machine"))
    return u


def script(f, how):
    """One curl per target, through the proxy or without proxy settings
    (the transparent path), printing tag, status and body."""
    noproxy = "--noproxy '*' " if how == "direct" else ""
    s = ""
    targets = urls(f) + [("origin", f"http://{f['ORIGIN_IP']}/hello.txt",
                          "hello from origin")]
    for tag, url, _ in targets:
        s += (f"printf '{how}-{tag} '; curl -s --max-time 20 {noproxy}"
              f"-w ' %{{http_code}}\\n' {url} | tr '\\n' ' '; echo; ")
    return s


@pytest.mark.parametrize("how", ["proxy", "direct"])
def test_star_never_reaches_the_routers_other_address(lnk, how):
    """Threat: under '*' a program reaches the router's admin page at its
    public address, and through a port forward on it (hairpin NAT) a
    service of this machine whose own address the wire refuses."""
    f = nethosts()
    if "ROUTER_FWD_PORT" not in f:
        pytest.skip("no port forward on the test router (nft missing)")
    cp = lnk.run("--internet-host", "*", "--", "/bin/sh", "-c",
                 script(f, how), timeout=120,
                 env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    out = cp.stdout
    for tag, _, body in urls(f):
        assert body not in out, out + cp.stderr
        line = [ln for ln in out.splitlines()
                if ln.startswith(f"{how}-{tag} ")]
        assert line and not line[0].rstrip().endswith(" 200"), \
            out + cp.stderr
    # two hops away: still the internet
    assert "hello from origin" in out, out + cp.stderr
    refused = {r["target"]: r["reason"] for r in rows(lnk, "--refused")}
    wan = f["ROUTER_WAN_IP"]
    assert refused.get(f"{wan}:80") == FIRST_HOP, refused
    assert refused.get(f"{wan}:{f['ROUTER_FWD_PORT']}") == FIRST_HOP, refused
    # and the terminal says so, with the grant that reaches it
    assert f"lnk: refused {wan}:80: {FIRST_HOP}; --lan-host {wan} " \
        "allows it" in cp.stderr, cp.stderr
    ended = [r["target"] for r in rows(lnk) if r["outcome"] == "ended"]
    assert f"{f['ORIGIN_IP']}:80" in ended, ended


def six_to_four(v4):
    """The 6to4 address (2002:AABB:CCDD::1) of an IPv4 address."""
    a, b, c, d = (int(x) for x in v4.split("."))
    return f"2002:{(a << 8) | b:x}:{(c << 8) | d:x}::1"


def test_an_embedded_form_of_the_routers_address_is_refused(lnk):
    """Threat: the router's public address is refused under '*', and the
    program asks for its 6to4 form (2002:c612:201::1) instead: where
    IPv6 reaches a 6to4 relay, that carries the call to the router's
    address and its port forward. Once the router's address is judged,
    every embedding of it is refused the same way, never attempted."""
    f = nethosts()
    wan = f["ROUTER_WAN_IP"]
    v6 = six_to_four(wan)
    port = f.get("ROUTER_FWD_PORT", "80")
    cp = lnk.run("--internet-host", "*", "--", "/bin/sh", "-c",
                 f"curl -s --max-time 10 http://{wan}:{port}/; "
                 f"curl -s --max-time 10 'http://[{v6}]:{port}/'; true",
                 timeout=120, env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    got = {r["target"]: r for r in rows(lnk)}
    assert got[f"{wan}:{port}"]["reason"] == FIRST_HOP, got
    r = got.get(f"[{v6}]:{port}") or got.get(f"{v6}:{port}")
    assert r and r["outcome"] == "refused", (r, cp.stderr)
    assert "first router's own address" in r["reason"], r


@pytest.mark.parametrize("how", ["proxy", "direct"])
def test_lan_host_of_the_routers_address_reaches_it(lnk, how):
    """The person grants the router's address as the LAN: its page and
    its port forward are reached, and the internet still is."""
    f = nethosts()
    wan = f["ROUTER_WAN_IP"]
    cp = lnk.run("--internet-host", "*", "--lan-host", wan, "--",
                 "/bin/sh", "-c", script(f, how), timeout=120,
                 env={"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    for tag, _, body in urls(f) + [("origin", "", "hello from origin")]:
        assert f"{how}-{tag} {body}" in cp.stdout, cp.stdout + cp.stderr
    assert not [r for r in rows(lnk, "--refused")
                if r["target"].startswith(wan)]


def test_a_new_network_is_judged_again(lnk, work):
    """Threat: a laptop moves to another network while a sandbox under '*'
    runs. An address the old first router forwarded (the internet) is the
    new first router's own: a verdict kept from before must not reach its
    admin page. A routing change on this machine empties the kept
    verdicts; the next call to that address is probed again (refused as
    the first hop), and the log says so."""
    if os.geteuid() != 0:
        pytest.skip("moving an address between the test's namespaces and "
                    "changing this machine's routes needs root")
    f = nethosts()
    addr = "198.18.2.77"
    far = ["ip", "-n", "lnk-nethosts"]
    rt = ["ip", "-n", "lnk-nethosts-r"]
    call = ("curl -s --max-time 5 -w ' {t} %{{http_code}}\\n' "
            f"http://{addr}/; ")
    env = lnk.env({"LNK_DNS_SERVER": f["LNK_DNS_SERVER"]})
    undo = [far + ["addr", "del", f"{addr}/32", "dev", "lnkh1"],
            rt + ["route", "del", f"{addr}/32"],
            rt + ["addr", "del", f"{addr}/32", "dev", "lo"],
            ["ip", "route", "del", f"{addr}/32"]]

    def change():
        # the new network: the address is the first router's own, and
        # this machine's routes change
        subprocess.run(undo[0], check=True)
        subprocess.run(undo[1], check=True)
        subprocess.run(rt + ["addr", "add", f"{addr}/32", "dev", "lo"],
                       check=True)
        subprocess.run(["ip", "route", "add", f"{addr}/32", "via",
                        f["ROUTER_IP"]], check=True)

    try:
        # beyond the router: the far host's (nothing listens there)
        subprocess.run(far + ["addr", "add", f"{addr}/32", "dev",
                              "lnkh1"], check=True)
        subprocess.run(rt + ["route", "add", f"{addr}/32", "via",
                             f["ORIGIN_IP"]], check=True)
        out, err = run_across_a_change(lnk, work, ["--internet-host", "*"],
                                       call, change, env)
    finally:
        for u in undo:
            subprocess.run(u, capture_output=True)
    assert " before 502" in out, out + err
    assert " after 403" in out, out + err
    got = [r for r in rows(lnk) if r["target"] == f"{addr}:80"]
    assert got and got[0]["outcome"] == "failed", got
    assert got[-1]["outcome"] == "refused", got
    assert got[-1]["reason"] == FIRST_HOP, got[-1]


BURST = """
import os, socket, threading
host, port = os.environ["HTTP_PROXY"][7:].rstrip("/").rsplit(":", 1)
def one(x):
    try:
        s = socket.create_connection((host, int(port)), timeout=20)
        s.sendall(f"CONNECT 198.19.202.{x}:80 HTTP/1.1\\r\\n\\r\\n".encode())
        print(x, s.recv(100).split(b"\\r\\n")[0].decode(), flush=True)
    except OSError as e:
        print(x, "error", e, flush=True)
ts = [threading.Thread(target=one, args=(x,)) for x in range(1, 8)]
[t.start() for t in ts]
[t.join() for t in ts]
"""


def test_a_burst_of_new_addresses_waits_for_the_router(lnk, hopnet,
                                                       tmp_path):
    """A first router answers only a few probes a second to one host (a
    Linux router: a burst of up to 6, then one a second; in this test's
    network only the first probe of the burst is answered). A program
    that calls seven new addresses at once under '*' must not have the
    calls whose probes met that limit refused: the keeper asks again, a
    second apart, while the call's connect may still wait, and silence
    refuses only then. Every address beyond the router refuses the
    connect here (the router resets it), so each call ends as soon as
    its probe's verdict is known."""
    router = hopnet[:-1] + "r"
    subprocess.run(
        ["ip", "netns", "exec", router, "nft", "-f", "-"], check=True,
        input="table ip far {\n chain onward {\n type filter hook forward "
              "priority 0;\n ip daddr 198.19.202.0/24 tcp flags syn "
              "reject with tcp reset\n }\n}\n", text=True)
    prog = tmp_path / "burst.py"
    prog.write_text(BURST)
    tmp_path.chmod(0o755)
    env = ["env", "-i", f"HOME={lnk.home}", "PATH=/usr/bin:/bin",
           "LANG=C.UTF-8"]
    cp = subprocess.run(
        ["ip", "netns", "exec", hopnet, *env, lnk.bin, "sandbox", "run",
         "--read", str(tmp_path), "--internet-host", "*", "--",
         "python3", str(prog)],
        cwd=str(tmp_path), capture_output=True, text=True, timeout=120)
    got = rows(lnk)
    mine = [r for r in got if r["target"].startswith("198.19.202.")]
    assert len({r["target"] for r in mine}) == 7, cp.stdout + cp.stderr
    unheard = [r for r in mine if "first-hop probe" in r["reason"]]
    assert not unheard, (unheard, cp.stdout)
