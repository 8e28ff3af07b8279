#!/usr/bin/python3
"""New connections per second through the wire, beside a plain C forwarder,
in one run; never fails on a time.

    bench/conn_bench.py [BUILD_DIR [BEFORE_BUILD_DIR]]   (as root, with the
        test hosts up: tests/e2e/nethosts.sh; ROUNDS=5 by default)

Each connection is a new tunnel carrying one ask and one answer (one byte
each way, then close: tests/helpers/wire_load, C, threads), at
concurrency 1 and 64, two ways:

- "port": the wire's --port listener to a loopback server, beside
  bench/forwarder.c relaying to the same server: the relay floor, the
  keeper's connect included;
- "star": an HTTP CONNECT per connection to a test host two hops away
  (198.18.0.2) under --internet-host '*', beside bench/forwarder.c in its
  CONNECT mode: the grants, the route lookups, the log and the first-hop
  check (its verdict kept after the first call) included.

The ratios are to the forwarder run in a session of its own, as the wire
runs (see below); the forwarder in the client's session is shown beside
("same-session"): with the kernel's autogroup, a process in a session of
its own is scheduled as one group against every other session, and on a
busy machine that alone cost the forwarder a quarter to a half.

The wire runs under lnk-wire-harness (the client in a network namespace of
its own). With BEFORE_BUILD_DIR, that build's wire is measured in the same
rounds. Rounds interleave the variants; the figures are medians, and
beside them the median of each round's own ratio to the forwarder (which
a load drifting between rounds disturbs less)."""
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
ENV_FILE = pathlib.Path("/run/lnk-nethosts.env")
ROUNDS = int(os.environ.get("ROUNDS", "5"))
COUNTS = {1: int(os.environ.get("N1", "2000")),
          64: int(os.environ.get("N64", "10000"))}


def run(cmd, env=None, timeout=300):
    e = dict(os.environ)
    e.update(env or {})
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=e,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    w = out.stdout.split()
    return float(w[-1]) if out.returncode == 0 and w else None


def start(cmd, session=False):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True,
                         start_new_session=session)
    return p, int(p.stdout.readline())


def floor_note(tmp, res):
    """What one more round trip between two processes costs here
    (bench/floor.c): the keeper's connect is one per connection that a
    forwarder connecting itself does not make, and at c=1 nothing hides
    it. The least ratio at c=1 is the forwarder's time per connection
    over that time plus one round trip."""
    exe = os.path.join(tmp, "floor")
    if subprocess.run(["cc", "-O2", "-o", exe,
                       str(ROOT / "bench" / "floor.c")]).returncode:
        return
    out = subprocess.run([exe, "2000"], capture_output=True,
                         text=True).stdout
    print("this machine (bench/floor.c):")
    for line in out.splitlines():
        print("  " + line)
    near = re.search(r"puts them ([0-9.]+)", out)
    far = re.search(r"on two CPUs ([0-9.]+)", out)
    if not near:
        return
    for way in ("port", "star"):
        f = [v for v in res.get((way, 1, "forwarder"), []) if v]
        if not f:
            continue
        t = 1e6 / statistics.median(f)
        line = (f"  {way} c=1: the forwarder takes {t:.0f} us a "
                f"connection; one round trip more: at most "
                f"{t / (t + float(near.group(1))):.2f}x when the keeper "
                f"shares the wire's CPU")
        if far:
            line += (f", {t / (t + float(far.group(1))):.2f}x when it is "
                     f"woken on the other")
        print(line)


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1
                         else ROOT / "build").resolve()
    builds = {"after": build}
    if len(sys.argv) > 2:
        builds = {"before": pathlib.Path(sys.argv[2]).resolve(), **builds}
    load = str(build / "tests" / "helpers" / "wire_load")
    if os.geteuid() != 0 or not ENV_FILE.exists():
        print("run me as root with the test hosts up "
              "(tests/e2e/nethosts.sh up)")
        return
    tmp = tempfile.mkdtemp()
    fwd = os.path.join(tmp, "forwarder")
    subprocess.run(["cc", "-O2", "-o", fwd, str(ROOT / "bench" /
                                                  "forwarder.c")],
                   check=True)
    procs = []
    try:
        lo, lo_port = start([load, "serve", "1"])
        procs.append(lo)
        far, far_port = start(["ip", "netns", "exec", "lnk-nethosts", "env",
                               "WIRE_LOAD_ADDR=198.18.0.2", load, "serve",
                               "1"])
        procs.append(far)
        # The wire runs in a session of its own (wire_start: setsid),
        # and so in a scheduling group of its own where the kernel groups
        # by session (autogroup); the forwarder the ratios are to runs
        # the same way. The one in the client's session is printed too.
        relay, relay_port = start([fwd, "127.0.0.1", str(lo_port)], True)
        procs.append(relay)
        proxy, proxy_port = start([fwd, "connect"], True)
        procs.append(proxy)
        relay_s, relay_s_port = start([fwd, "127.0.0.1", str(lo_port)])
        procs.append(relay_s)
        proxy_s, proxy_s_port = start([fwd, "connect"])
        procs.append(proxy_s)
        res = {}

        def note(key, v):
            res.setdefault(key, []).append(v)

        for r in range(ROUNDS):
            for conc, n in COUNTS.items():
                note(("port", conc, "forwarder"),
                     run([load, "conn", str(relay_port), str(conc), str(n)]))
                note(("star", conc, "forwarder"),
                     run([load, "conn", str(far_port), str(conc), str(n)],
                         env={"WIRE_LOAD_ADDR": "198.18.0.2",
                              "WIRE_LOAD_PROXY": f"127.0.0.1:{proxy_port}"}))
                note(("port", conc, "same-session"),
                     run([load, "conn", str(relay_s_port), str(conc),
                          str(n)]))
                note(("star", conc, "same-session"),
                     run([load, "conn", str(far_port), str(conc), str(n)],
                         env={"WIRE_LOAD_ADDR": "198.18.0.2",
                              "WIRE_LOAD_PROXY":
                              f"127.0.0.1:{proxy_s_port}"}))
                for name, b in builds.items():
                    harness = str(b / "src" / "wire" / "lnk-wire-harness")
                    bload = str(b / "tests" / "helpers" / "wire_load")
                    db = os.path.join(tmp, f"{name}-{r}-{conc}.db")
                    note(("port", conc, name),
                         run([harness, "--db", db, "--port", str(lo_port),
                              "--", bload, "conn", str(lo_port), str(conc),
                              str(n)]))
                    db = os.path.join(tmp, f"{name}-{r}-{conc}-star.db")
                    note(("star", conc, name),
                         run([harness, "--db", db, "--internet-host", "*",
                              "--", "env", "WIRE_LOAD_ADDR=198.18.0.2",
                              "WIRE_LOAD_PROXY=127.0.0.1:3128", bload,
                              "conn", str(far_port), str(conc), str(n)]))
        print(f"new connections per second, median of {ROUNDS} rounds "
              "(ratio to the forwarder)")
        for way in ("port", "star"):
            for conc in COUNTS:
                f = [v for v in res[(way, conc, "forwarder")] if v]
                fm = statistics.median(f) if f else 0
                line = f"  {way} c={conc:<3} forwarder {fm:8.0f}"
                for name in ["same-session", *builds]:
                    w = [v for v in res[(way, conc, name)] if v]
                    if not w:
                        line += f"   {name} failed"
                        continue
                    wm = statistics.median(w)
                    ratio = f"{wm / fm:.2f}x" if fm else "-"
                    line += f"   {name} {wm:8.0f} ({ratio})"
                print(line)
        # Each round's own ratio (the variant beside the forwarder run
        # seconds before it): a load that drifts between rounds cancels
        # out of these, where it does not out of the medians above.
        print("the median of each round's own ratio to the forwarder")
        for way in ("port", "star"):
            for conc in COUNTS:
                f = res[(way, conc, "forwarder")]
                line = f"  {way} c={conc:<3}"
                for name in ["same-session", *builds]:
                    rs = [w / fv for w, fv in zip(res[(way, conc, name)], f)
                          if w and fv]
                    line += (f"   {name} {statistics.median(rs):.2f}x"
                             if rs else f"   {name} failed")
                print(line)
        floor_note(tmp, res)
        print("every round:", {" ".join(map(str, k)): [
            round(v) if v else None for v in vs] for k, vs in res.items()})
    finally:
        for p in procs:
            p.kill()
            p.wait()


if __name__ == "__main__":
    main()
