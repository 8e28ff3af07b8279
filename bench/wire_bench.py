#!/usr/bin/python3
"""Figures for the wire (issue 5), side by side; never fails on a time.

    bench/wire_bench.py [BUILD_DIR]     (default build)

1. one big download (1 GiB, kernel sendfile server on loopback) direct vs
   through the wire (a --port listener: the same relay as every tunnel),
   GB/s and CPU seconds per GB of everything involved;
2. new connections per second through the wire at concurrency 1 and 64;
3. 9,000 idle tunnels held at once, and the wire's memory per tunnel.
Runs the wire with lnk-wire-harness (the client in a network namespace of
its own, loopback only)."""
import os
import pathlib
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build")
HARNESS = str(BUILD / "src" / "wire" / "lnk-wire-harness")
SIZE = 1 << 30


def serve(port_holder, payload_fd):
    """A loopback server: on each connection, send SIZE bytes with
    sendfile when asked 'G', else answer one byte and close."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(4096)
    port_holder.append(ls.getsockname()[1])

    def one(c):
        try:
            b = c.recv(1)
            if b == b"G":
                c.sendfile(os.fdopen(os.dup(payload_fd), "rb"), 0, SIZE)
            elif b == b"I":
                c.recv(1)  # idle until the client closes
            else:
                c.sendall(b"!")
        except OSError:
            pass
        c.close()

    while True:
        c, _ = ls.accept()
        threading.Thread(target=one, args=(c,), daemon=True).start()


CLIENT = r'''
import os, socket, sys, time, threading, resource
port, what = int(sys.argv[1]), sys.argv[2]
def get():
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"G")
    n = 0
    while True:
        b = s.recv(1 << 20)
        if not b: break
        n += len(b)
    return n
if what == "get":
    t = time.time(); n = get(); print(n, time.time() - t)
elif what.startswith("conn"):
    conc = int(what[4:]); total = 3000 if conc == 1 else 6000
    left = [total]; lock = threading.Lock()
    def worker():
        while True:
            with lock:
                if left[0] <= 0: return
                left[0] -= 1
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"x"); s.recv(1); s.close()
    t = time.time()
    ths = [threading.Thread(target=worker) for _ in range(conc)]
    [x.start() for x in ths]; [x.join() for x in ths]
    print(total / (time.time() - t))
elif what.startswith("idle"):
    n = int(what[4:])
    resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
    socks = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"I")
        socks.append(s)
    time.sleep(1.5)
    wire = int(sys.argv[3])
    rss = 0
    for line in open(f"/proc/{wire}/status"):
        if line.startswith("VmRSS:"): rss = int(line.split()[1])
    print(len(socks), rss)
'''


def wire_pid_of(harness_pid):
    try:
        kids = open(f"/proc/{harness_pid}/task/{harness_pid}/children")
        for pid in kids.read().split():
            if open(f"/proc/{pid}/comm").read().strip() == "lnk-wire":
                return int(pid)
    except OSError:
        pass
    return 0


def through_wire(port, what, db):
    # the wire's pid is found by the client from the harness's children
    script = (f"W=$(for p in $(cat /proc/$PPID/task/$PPID/children); do "
              f"[ \"$(cat /proc/$p/comm)\" = lnk-wire ] && echo $p; done); "
              f"exec /usr/bin/python3 -c '{CLIENT}' {port} {what} \"$W\"")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([HARNESS, "--db", db, "--port", str(port), "--",
                          "sh", "-c", script], capture_output=True,
                         text=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                before.ru_stime)
    return out.stdout.split(), cpu, out.stderr


def direct(port, what):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(["/usr/bin/python3", "-c", CLIENT, str(port), what,
                          "0"], capture_output=True, text=True, timeout=600)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                before.ru_stime)
    return out.stdout.split(), cpu


def main():
    if not os.access(HARNESS, os.X_OK):
        print(f"no harness at {HARNESS}: build with -Dtests=true")
        return
    tmp = tempfile.mkdtemp()
    payload = os.open(os.path.join(tmp, "payload"), os.O_RDWR | os.O_CREAT)
    os.ftruncate(payload, SIZE)  # sparse: the page cache serves zeros
    db = os.path.join(tmp, "lnk.db")
    holder = []
    threading.Thread(target=serve, args=(holder, payload),
                     daemon=True).start()
    while not holder:
        time.sleep(0.01)
    port = holder[0]

    (n, secs), cpu_d = direct(port, "get")
    (wn, wsecs), cpu_w, err = through_wire(port, "get", db)
    gb = int(n) / 1e9
    print("1 GiB download        direct        through the wire")
    print(f"  GB/s                 {gb / float(secs):8.2f}      "
          f"{int(wn) / 1e9 / float(wsecs):8.2f}")
    print(f"  client+wire CPU s/GB {cpu_d / gb:8.2f}      {cpu_w / gb:8.2f}"
          f"   (+{(cpu_w - cpu_d) / gb:.2f} s/GB over direct)")
    for conc in (1, 64):
        (d,), _ = direct(port, f"conn{conc}")
        (w,), _, _ = through_wire(port, f"conn{conc}", db)
        print(f"connections/s at {conc:2d}   {float(d):8.0f}      "
              f"{float(w):8.0f}")
    out, _, err = through_wire(port, "idle9000", db)
    if len(out) == 2:
        held, rss = int(out[0]), int(out[1])
        print(f"idle tunnels held: {held}; wire RSS {rss} KiB, "
              f"{rss * 1024 / max(held, 1) / 1000:.1f} KB per tunnel "
              "(including the wire's base)")
    else:
        print("idle tunnels: could not measure:", err.strip()[:200])


if __name__ == "__main__":
    main()
