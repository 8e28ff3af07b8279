#!/usr/bin/python3
"""CPU time per new connection of the wire and its keeper, beside the
plain C forwarder's; never fails on a time.

    bench/conn_cpu.py [BUILD_DIR ...]   (as root, with the test hosts up:
        tests/e2e/nethosts.sh; ROUNDS=3, N1=1000, N64=5000 by default)

The same load as bench/conn_bench.py (one byte each way, a new tunnel per
call, at concurrency 1 and 64; the --port relay and a CONNECT under
--internet-host '*'), but the figure is the CPU time the wire (every
thread: its loop and its log writer) and its keeper used per connection,
read from /proc/PID/task/*/schedstat (nanoseconds) just before and just
after the load, and the forwarder's the same way. On a machine others
are using, the rate swings with their load; the CPU a connection costs
swings far less, so a change is judged by this first and the rate
second. Medians of the rounds, in microseconds. With CONN_PERF=FILE and
one build, the last run's wire and keeper are recorded there by
`perf record -g` (read it with `perf report -i FILE`); with
CONN_STRACE=PREFIX, their system calls are counted by `strace -c -f`
into PREFIX.wire and PREFIX.keeper."""
import os
import signal
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
ENV_FILE = pathlib.Path("/run/lnk-nethosts.env")
ROUNDS = int(os.environ.get("ROUNDS", "3"))
COUNTS = {1: int(os.environ.get("N1", "1000")),
          64: int(os.environ.get("N64", "5000"))}
FAR = "198.18.0.2"


def cpu_ns(pid):
    """Every thread's time on a CPU so far, in nanoseconds."""
    total = 0
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                total += int(f.read().split()[0])
    except OSError:
        pass
    return total


def switches(pid):
    """Every thread's context switches so far (voluntary and not)."""
    total = 0
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/status") as f:
                for line in f:
                    if "ctxt_switches:" in line:
                        total += int(line.split()[1])
    except OSError:
        pass
    return total


def children(pid):
    out = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def inside(argv):
    """Runs in the harness's client: finds this harness's keeper and
    wire, and prints their CPU around the load (the client's own last)."""
    harness = os.getppid()
    keeper = next((p for p in children(harness)
                   if comm(p) == "lnk-wire-keep"), 0)
    wire = next((p for p in children(keeper) if comm(p) == "lnk-wire"), 0)
    rec = None
    if os.environ.get("CONN_PERF"):
        rec = subprocess.Popen(["perf", "record", "-q", "-g", "-o",
                                os.environ["CONN_PERF"], "-p",
                                f"{wire},{keeper}"])
        time.sleep(1)
    traces = []
    if os.environ.get("CONN_STRACE"):
        for pid, who in ((wire, "wire"), (keeper, "keeper")):
            traces.append(subprocess.Popen(
                ["strace", "-c", "-f", "-o",
                 f"{os.environ['CONN_STRACE']}.{who}", "-p", str(pid)]))
        time.sleep(1)
    k0, w0 = cpu_ns(keeper), cpu_ns(wire)
    s0 = switches(keeper) + switches(wire)
    r = subprocess.run(argv, capture_output=True, text=True)
    k1, w1 = cpu_ns(keeper), cpu_ns(wire)
    s1 = switches(keeper) + switches(wire)
    for t in ([rec] if rec else []) + traces:
        t.send_signal(signal.SIGINT)
        t.wait()
    print(w1 - w0, k1 - k0, r.stdout.split()[-1] if r.stdout else "0",
          s1 - s0)
    return r.returncode


def forwarder(fwd, args, load, port, conc, n, env):
    p = subprocess.Popen([fwd, *args], stdout=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        fport = int(p.stdout.readline())
        e = dict(os.environ, **env)
        if "WIRE_LOAD_PROXY" in env:
            e["WIRE_LOAD_PROXY"] = f"127.0.0.1:{fport}"
            target = port
        else:
            target = fport
        c0 = cpu_ns(p.pid)
        out = subprocess.run([load, "conn", str(target), str(conc), str(n)],
                             capture_output=True, text=True, env=e)
        c1 = cpu_ns(p.pid)
        rate = float(out.stdout.split()[-1]) if out.stdout else 0
        return (c1 - c0) / n / 1000, rate
    finally:
        p.kill()
        p.wait()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        return inside(sys.argv[2:])
    builds = [pathlib.Path(b).resolve() for b in sys.argv[1:]] or \
        [ROOT / "build"]
    if os.geteuid() != 0 or not ENV_FILE.exists():
        print("run me as root with the test hosts up "
              "(tests/e2e/nethosts.sh up)")
        return 1
    tmp = tempfile.mkdtemp()
    fwd = os.path.join(tmp, "forwarder")
    subprocess.run(["cc", "-O2", "-o", fwd, str(ROOT / "bench" /
                                                  "forwarder.c")],
                   check=True)
    load = str(builds[0] / "tests" / "helpers" / "wire_load")
    lo = subprocess.Popen([load, "serve", "1"], stdout=subprocess.PIPE,
                          text=True)
    far = subprocess.Popen(["ip", "netns", "exec", "lnk-nethosts", "env",
                            f"WIRE_LOAD_ADDR={FAR}", load, "serve", "1"],
                           stdout=subprocess.PIPE, text=True)
    res = {}
    try:
        lo_port = int(lo.stdout.readline())
        far_port = int(far.stdout.readline())
        for r in range(ROUNDS):
            for conc, n in COUNTS.items():
                for way in ("port", "star"):
                    if way == "port":
                        f = forwarder(fwd, ["127.0.0.1", str(lo_port)], load,
                                      lo_port, conc, n, {})
                    else:
                        f = forwarder(fwd, ["connect"], load, far_port, conc,
                                      n, {"WIRE_LOAD_ADDR": FAR,
                                          "WIRE_LOAD_PROXY": "-"})
                    res.setdefault((way, conc, "forwarder"), []).append(
                        (f[0], 0, f[1]))
                    for b in builds:
                        harness = str(b / "src" / "wire" /
                                      "lnk-wire-harness")
                        bload = str(b / "tests" / "helpers" / "wire_load")
                        db = os.path.join(tmp, f"{r}-{conc}-{way}.db")
                        grant = (["--port", str(lo_port)] if way == "port"
                                 else ["--internet-host", "*"])
                        env = ([] if way == "port" else
                               ["env", f"WIRE_LOAD_ADDR={FAR}",
                                "WIRE_LOAD_PROXY=127.0.0.1:3128"])
                        port = lo_port if way == "port" else far_port
                        out = subprocess.run(
                            [harness, "--db", db, *grant, "--",
                             *env, sys.executable, __file__, "--inside",
                             bload, "conn", str(port), str(conc), str(n)],
                            capture_output=True, text=True)
                        w = out.stdout.split()
                        if len(w) < 3:
                            print("failed:", b, way, conc, out.stderr)
                            continue
                        res.setdefault((way, conc, str(b)), []).append(
                            (int(w[0]) / n / 1000, int(w[1]) / n / 1000,
                             float(w[2]), int(w[3]) / n))
        print(f"CPU per connection in us, median of {ROUNDS} rounds "
              "(wire + keeper; sw: their context switches per "
              "connection; the rate beside)")
        for way in ("port", "star"):
            for conc in COUNTS:
                vs = res.get((way, conc, "forwarder"), [])
                line = f"  {way} c={conc:<3}"
                if vs:
                    line += (f" forwarder {statistics.median(v[0] for v in vs):6.1f}"
                             f" ({statistics.median(v[2] for v in vs):6.0f}/s)")
                for b in builds:
                    vs = res.get((way, conc, str(b)), [])
                    if not vs:
                        continue
                    wm = statistics.median(v[0] for v in vs)
                    km = statistics.median(v[1] for v in vs)
                    rm = statistics.median(v[2] for v in vs)
                    sm = statistics.median(v[3] for v in vs)
                    line += (f"   {b.name}: wire {wm:6.1f} keeper {km:5.1f}"
                             f" sum {wm + km:6.1f} sw {sm:4.2f}"
                             f" ({rm:6.0f}/s)")
                print(line)
    finally:
        for p in (lo, far):
            p.kill()
            p.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
