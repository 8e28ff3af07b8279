#!/bin/sh
# The fake model provider (fake_provider.py) in the network test hosts'
# namespace, on origin.lnk-test (198.18.0.2) port 8443, with the test CA's
# certificate (run as root, after nethosts.sh up; idempotent).
#
#   fake_provider.sh up     start it; requests are logged to $DIR/requests.jsonl
#   fake_provider.sh down   stop it
#   fake_provider.sh status exit 0 only if it is running
set -eu
NS=lnk-nethosts
DIR=/run/lnk-fakemodel
CERTS=/run/lnk-nethosts
HERE=$(cd "$(dirname "$0")" && pwd)

# The pid file outlives a session that ended, and its pid may now be
# another program's: it counts only while it is our provider.
ours() {
	[ -f "$DIR/pid" ] && tr '\0' ' ' 2>/dev/null \
		< "/proc/$(cat "$DIR/pid")/cmdline" | grep -q "$DIR/fake_provider.py"
}

case "${1:-}" in
up)
	# running, and the same program as here (a test may need a kind of
	# answer a copy started from an older tree does not know)
	if ours && cmp -s "$HERE/fake_provider.py" "$DIR/fake_provider.py"; then
		exit 0
	fi
	if ours; then
		kill "$(cat "$DIR/pid")" 2>/dev/null || true
		sleep 0.2
	fi
	[ -f "$CERTS/cert.pem" ] || { echo "fake_provider.sh: the network test hosts are not up" >&2; exit 1; }
	mkdir -p "$DIR"
	chmod 755 "$DIR"
	cp "$HERE/fake_provider.py" "$DIR/fake_provider.py"
	: > "$DIR/requests.jsonl"
	chmod 644 "$DIR/requests.jsonl"
	ip netns exec "$NS" setsid /usr/bin/python3 "$DIR/fake_provider.py" \
		198.18.0.2 8443 "$CERTS/cert.pem" "$CERTS/key.pem" \
		"$DIR/requests.jsonl" >"$DIR/log" 2>&1 &
	echo $! > "$DIR/pid"
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		ip netns exec "$NS" python3 -c 'import socket; socket.create_connection(("198.18.0.2", 8443), 1)' 2>/dev/null && exit 0
		sleep 0.2
	done
	echo "fake_provider.sh: it did not start: $(cat "$DIR/log")" >&2
	exit 1
	;;
status)
	ours
	;;
down)
	if ours; then kill "$(cat "$DIR/pid")" 2>/dev/null || true; fi
	rm -rf "$DIR"
	;;
*)
	echo "usage: fake_provider.sh up|down|status" >&2
	exit 2
	;;
esac
