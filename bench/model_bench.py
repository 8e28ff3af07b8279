#!/usr/bin/python3
"""Figures for the model route, side by side; never fails on a time.

    sudo bench/model_bench.py [BUILD_DIR]     (default build)

Needs root and the network test hosts (tests/e2e/nethosts.sh up): the
servers run in the test network on origin.lnk-test, with the test CA.

1. added latency per streamed chunk: a server sends 400 server-sent events,
   one every 5 ms, each carrying the CLOCK_MONOTONIC time it was sent (the
   clock is the machine's, in every namespace); the client notes when each
   arrives. Median and 99th percentile of (arrival - sending), direct TLS
   from this machine vs through the route from inside a sandbox; the
   difference is the route's (target: under 0.2 ms median).
2. throughput of one large answer (512 MiB, 1 MiB writes) direct
   with curl vs through the route with curl inside (target: 500 MB/s).
"""
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
BUILD = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build")
LNK = str(BUILD / "lnk")
ENV_FILE = pathlib.Path("/run/lnk-nethosts.env")
NS = "lnk-nethosts"
LAT_PORT, BIG_PORT = 8445, 8446
BIG = 512 << 20

SERVER = r'''
import socket, ssl, sys, threading, time
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[2], sys.argv[3])
ls = socket.socket(); ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("198.18.0.2", int(sys.argv[1]))); ls.listen(16)
def serve(c):
    try:
        s = ctx.wrap_socket(c, server_side=True)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        d = b""
        while b"\r\n\r\n" not in d:
            d += s.recv(65536)
        if sys.argv[4] == "big":
            size = int(sys.argv[5])
            s.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/"
                      b"octet-stream\r\nContent-Length: %d\r\n\r\n" % size)
            block = bytes(1 << 20)
            for _ in range(size >> 20):
                s.sendall(block)
            s.close()
            return
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        for i in range(400):
            ev = b"data: %d\n\n" % time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            s.sendall(b"%x\r\n" % len(ev) + ev + b"\r\n")
            time.sleep(0.005)
        s.sendall(b"0\r\n\r\n")
        s.close()
    except OSError:
        pass
while True:
    c, _ = ls.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
'''

CLIENT = r'''
import os, socket, ssl, sys, time
url = sys.argv[1]
tls = url.startswith("https://")
hostport, _, path = url.split("://", 1)[1].partition("/")
host, _, port = hostport.partition(":")
s = socket.create_connection((host, int(port)))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
if tls:
    ctx = ssl.create_default_context(cafile=sys.argv[2])
    s = ctx.wrap_socket(s, server_hostname=host)
s.sendall(b"GET /%s HTTP/1.1\r\nHost: %s\r\n\r\n" % (path.encode(), host.encode()))
buf = b""; lat = []
while True:
    b = s.recv(65536)
    now = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    if not b:
        break
    buf += b
    while b"\n\n" in buf:
        ev, _, buf = buf.partition(b"\n\n")
        i = ev.find(b"data: ")
        if i >= 0:
            lat.append(now - int(ev[i + 6:].split(b"\r")[0]))
    if b"0\r\n\r\n" in buf and len(lat) >= 400:
        break
print(" ".join(map(str, lat)))
'''


def ns(*cmd, **kw):
    return subprocess.Popen(["ip", "netns", "exec", NS, *cmd], **kw)


def summary(name, lat_ns):
    lat = sorted(x / 1e6 for x in lat_ns[20:])  # the first ones warm up
    med = statistics.median(lat)
    p99 = lat[int(len(lat) * 0.99) - 1]
    print(f"  {name:8} median {med:.3f} ms, p99 {p99:.3f} ms "
          f"({len(lat)} chunks)")
    return med


def main():
    if os.geteuid() != 0 or not ENV_FILE.exists():
        sys.exit("model_bench: run as root with the network test hosts up "
                 "(tests/e2e/nethosts.sh up)")
    f = dict(l.partition("=")[::2] for l in ENV_FILE.read_text().split())
    cert, key = f["CA_FILE"], str(pathlib.Path(f["CA_FILE"]).parent /
                                  "key.pem")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="lnk-model-bench."))
    (tmp / "server.py").write_text(SERVER)
    (tmp / "client.py").write_text(CLIENT)
    tmp.chmod(0o755)
    for p in tmp.iterdir():
        p.chmod(0o644)
    procs = [
        ns("python3", str(tmp / "server.py"), str(LAT_PORT), cert, key,
           "stamps"),
        ns("python3", str(tmp / "server.py"), str(BIG_PORT), cert, key,
           "big", str(BIG)),
    ]
    try:
        time.sleep(1)
        env = dict(os.environ, HOME=str(tmp), LNK_DNS_SERVER=f["LNK_DNS_SERVER"],
                   SSL_CERT_FILE=cert, LAT_API_KEY="k", BIG_API_KEY="k")
        print("added latency per streamed chunk (one every 5 ms):")
        direct = subprocess.run(
            ["python3", str(tmp / "client.py"),
             f"https://origin.lnk-test:{LAT_PORT}/stamps", cert],
            capture_output=True, text=True, env=env)
        # the host resolves origin.lnk-test only through the test DNS:
        # the direct client uses the address
        if direct.returncode:
            direct = subprocess.run(
                ["python3", str(tmp / "client.py"),
                 f"https://198.18.0.2:{LAT_PORT}/stamps", cert],
                capture_output=True, text=True, env=env)
        d = summary("direct", list(map(int, direct.stdout.split())))
        grants = ["--model", f"lat=https://origin.lnk-test:{LAT_PORT}",
                  "--model", f"big=https://origin.lnk-test:{BIG_PORT}",
                  "--read", str(tmp)]
        routed = subprocess.run(
            [LNK, "sandbox", "run", *grants, "--", "sh", "-c",
             f"python3 {tmp}/client.py \"$LNK_MODEL_LAT_URL/stamps\""],
            capture_output=True, text=True, env=env, cwd=str(tmp))
        r = summary("route", list(map(int, routed.stdout.split())))
        print(f"  added by the route: {r - d:.3f} ms median "
              "(target: under 0.2 ms)")
        print(f"throughput of one {BIG >> 20} MiB answer:")
        cp = subprocess.run(
            ["curl", "-s", "-o", "/dev/null", "-w", "%{speed_download}",
             "--cacert", cert, "--resolve",
             f"origin.lnk-test:{BIG_PORT}:198.18.0.2",
             f"https://origin.lnk-test:{BIG_PORT}/big.bin"],
            capture_output=True, text=True)
        print(f"  direct   {float(cp.stdout or 0) / 1e6:8.0f} MB/s")
        cp = subprocess.run(
            [LNK, "sandbox", "run", *grants, "--", "sh", "-c",
             "curl -s -o /dev/null -w '%{speed_download}' "
             "\"$LNK_MODEL_BIG_URL/big.bin\""],
            capture_output=True, text=True, env=env, cwd=str(tmp))
        print(f"  route    {float(cp.stdout or 0) / 1e6:8.0f} MB/s "
              "(target: at least 500 MB/s)")
    finally:
        for p in procs:
            p.terminate()
            p.wait()
        subprocess.run(["rm", "-rf", str(tmp)])


main()
