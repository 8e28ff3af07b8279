#!/bin/sh
# The transparent path against CONNECT, side by side in one sandbox: a
# 1 GiB download and new connections per second (concurrency 1 and 16)
# from a client inside `lnk sandbox run --internet-host '*'` to a server
# on a test host (198.18.0.2, tests/e2e/nethosts.sh), once through the
# guard and the wire's transparent listener (no proxy settings), once as a
# CONNECT through the wire's HTTP proxy. Target: within 10% of each other.
# A benchmark: it prints figures and never fails on a time.
#
#   bench/transparent.sh [BUILD_DIR]    (default build; as root, with the
#                                        test hosts up; SIZE=bytes, N=conns)
#
# Client and server are tests/helpers/wire_load (C: sendfile server,
# threaded client), so the figures are the path's, not a client's.
set -eu
BUILD=$(cd "${1:-build}" && pwd)
LOAD=$BUILD/tests/helpers/wire_load
LNK=$BUILD/lnk
SIZE=${SIZE:-1073741824}
N=${N:-2000}
ENVF=/run/lnk-nethosts.env
[ -x "$LOAD" ] && [ -x "$LNK" ] || { echo "build $BUILD first"; exit 0; }
[ -f "$ENVF" ] || { echo "no test hosts: tests/e2e/nethosts.sh up (as root)"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "run me as root (the server runs in the test hosts' namespace)"; exit 0; }
. "$ENVF"
T=$(mktemp -d)
trap 'kill $SRV 2>/dev/null; rm -rf "$T"' EXIT
export HOME=$T
ip netns exec lnk-nethosts env WIRE_LOAD_ADDR=198.18.0.2 "$LOAD" serve "$SIZE" >"$T/port" &
SRV=$!
i=0
while [ ! -s "$T/port" ]; do
	i=$((i + 1)); [ $i -lt 100 ] || { echo "the server did not start"; exit 0; }
	sleep 0.05
done
PORT=$(cat "$T/port")
cp "$LOAD" "$T/wire_load"
cat >"$T/inside.sh" <<EOS
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy ALL_PROXY all_proxy
export WIRE_LOAD_ADDR=198.18.0.2
L=$T/wire_load
for how in transparent connect; do
	if [ \$how = connect ]; then export WIRE_LOAD_PROXY=127.0.0.1:3128; fi
	echo "\$how get \$(\$L get $PORT)"
	echo "\$how conn1 \$(\$L conn $PORT 1 $N)"
	echo "\$how conn16 \$(\$L conn $PORT 16 $N)"
done
EOS
LNK_DNS_SERVER=$LNK_DNS_SERVER "$LNK" sandbox run --read "$T" \
	--internet-host '*' -- sh "$T/inside.sh" >"$T/out" 2>"$T/err" || true
grep -q "conn16" "$T/out" || { echo "the run failed:"; cat "$T/err" "$T/out"; exit 0; }
/usr/bin/python3 - "$T/out" "$SIZE" <<'PY'
import sys
r = {}
for line in open(sys.argv[1]):
    w = line.split()
    r[(w[0], w[1])] = [float(x) for x in w[2:]]
size = int(sys.argv[2])
def gbps(how):
    b, s = r[(how, "get")]
    return b / s / 1e9
print(f"{'':22} {'transparent':>12} {'CONNECT':>12} {'ratio':>7}")
t, c = gbps("transparent"), gbps("connect")
print(f"{'download GB/s':22} {t:12.2f} {c:12.2f} {t / c:7.2f}")
for k, label in (("conn1", "connections/s (1)"), ("conn16", "connections/s (16)")):
    t, c = r[("transparent", k)][0], r[("connect", k)][0]
    print(f"{label:22} {t:12.0f} {c:12.0f} {t / c:7.2f}")
PY
