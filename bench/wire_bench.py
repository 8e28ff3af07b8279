#!/usr/bin/python3
"""Figures for the wire, side by side; never fails on a time.

    bench/wire_bench.py [BUILD_DIR]     (default build)

1. one big download (1 GiB, kernel sendfile server on loopback) direct vs
   through the wire (a --port listener: the same relay as every tunnel),
   GB/s and CPU seconds per GB of client + wire;
2. new connections per second through the wire at concurrency 1 and 64;
3. 9,000 idle tunnels held at once, and the wire's memory per tunnel.
Server and clients are tests/helpers/wire_load (C: epoll server, sendfile,
threads), so the figures are the wire's, not Python's. Runs the wire with
lnk-wire-harness (the client in a network namespace of its own, loopback
only)."""
import os
import pathlib
import resource
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build")
HARNESS = str(BUILD / "src" / "wire" / "lnk-wire-harness")
LOAD = str(BUILD / "tests" / "helpers" / "wire_load")
SIZE = 1 << 30

# The wire's pid, for its memory: the harness's grandchild named lnk-wire
# (the harness forks the wire's watcher, which forks the wire). /proc is
# the host's inside the harness: it unshares only the network. Just
# started, the watcher may not have forked the wire yet: look again.
FIND_WIRE = (
    "W=0; for i in 1 2 3 4 5 6 7 8 9 10; do "
    "for w in $(cat /proc/$PPID/task/*/children); do "
    "for p in $w $(cat /proc/$w/task/*/children 2>/dev/null); do "
    "[ \"$(cat /proc/$p/comm 2>/dev/null)\" = lnk-wire ] && W=$p; "
    "done; done; [ $W = 0 ] || break; sleep 0.1; done; ")


def cpu_of_children(fn):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                before.ru_stime)
    return out, cpu


def through_wire(port, args, db):
    script = FIND_WIRE + f"exec {LOAD} " + " ".join(
        a if a != "WIRE" else "$W" for a in args)
    out, cpu = cpu_of_children(lambda: subprocess.run(
        [HARNESS, "--db", db, "--port", str(port), "--", "sh", "-c",
         script], capture_output=True, text=True, timeout=600))
    return out.stdout.split(), cpu, out.stderr


def direct(args):
    out, cpu = cpu_of_children(lambda: subprocess.run(
        [LOAD, *[a if a != "WIRE" else "0" for a in args]],
        capture_output=True, text=True, timeout=600))
    return out.stdout.split(), cpu


def main():
    for p in (HARNESS, LOAD):
        if not os.access(p, os.X_OK):
            print(f"not built: {p} (build with -Dtests=true)")
            return
    import tempfile
    tmp = tempfile.mkdtemp()
    db = os.path.join(tmp, "lnk.db")
    srv = subprocess.Popen([LOAD, "serve", str(SIZE)],
                           stdout=subprocess.PIPE, text=True)
    try:
        port = int(srv.stdout.readline())
        p = str(port)
        (n, secs), cpu_d = direct(["get", p])
        (wn, wsecs), cpu_w, err = through_wire(port, ["get", p], db)
        gb = int(n) / 1e9
        wgb = int(wn) / 1e9
        print("1 GiB download           direct   through the wire")
        print(f"  GB/s                  {gb / float(secs):8.2f}   "
              f"{wgb / float(wsecs):8.2f}   (target >= 1.5)")
        print(f"  client+wire CPU s/GB  {cpu_d / gb:8.2f}   "
              f"{cpu_w / wgb:8.2f}   (+{cpu_w / wgb - cpu_d / gb:.2f} s/GB "
              "over direct; target <= 0.6)")
        for conc, total in ((1, 5000), (64, 20000)):
            args = ["conn", p, str(conc), str(total)]
            (d,), _ = direct(args)
            w, _, err = through_wire(port, args, db)
            wv = f"{float(w[0]):8.0f}" if w else "  failed"
            print(f"connections/s at {conc:2d}   {float(d):8.0f}   {wv}"
                  + ("   (target >= 2500)" if conc == 1 else "")
                  + (f"  {err.strip()[:120]}" if not w else ""))
        out, _, err = through_wire(port, ["idle", p, "9000", "WIRE"], db)
        if len(out) == 2:
            held, rss = int(out[0]), int(out[1])
            print(f"idle tunnels held: {held}; wire RSS {rss} KiB, "
                  f"{rss * 1024 / max(held, 1) / 1000:.1f} KB per tunnel "
                  "(including the wire's base; target <= 10)")
        else:
            print("idle tunnels: could not measure:", err.strip()[:200])
    finally:
        srv.kill()
        srv.wait()


if __name__ == "__main__":
    main()
