#!/bin/sh
# Test "internet" hosts for the wire's end-to-end tests (run as root by the
# test runner before the suite; idempotent).
#
#   nethosts.sh up     make them; writes the facts to /run/lnk-nethosts.env
#   nethosts.sh down   remove them
#   nethosts.sh status exit 0 only if every server and the DNS answer now
#                      (an env file alone proves nothing: the servers die
#                      with the session that started them, the namespaces
#                      and the file stay)
#
# Safety first: 198.18.0.0/15 (benchmarking, RFC 2544) is blackholed BEFORE
# anything else, and checked, so no test traffic can ever leave this
# machine. The test hosts sit behind a router, as the internet does: the
# wire counts an address on a directly connected network (a route without a
# gateway) as this machine's network, never the internet.
#
#   this machine   198.18.1.1/30 on lnkh0   (its own address: never
#                                            "internet" for the wire)
#      | veth
#   router (netns lnk-nethosts-r)  198.18.1.2/30, and 198.18.0.1/24
#      | veth                      (on-link from here: this machine's
#                                   network, refused under '*'; HTTP on
#                                   198.18.1.2:80 for [lan] grants)
#   hosts (netns lnk-nethosts)
#                    198.18.0.2   origin.lnk-test: HTTP on 80, HTTPS on 443,
#                                 on 8080 a server that answers with the
#                                 Host header it received, on 8081 one
#                                 that answers with every byte the
#                                 connection brought (a pipelined second
#                                 request too)
#                    198.18.0.3   other.lnk-test: HTTP on 80
#                    198.18.0.9   a host that never answers: what it
#                                 sends goes to a blackhole route, so a
#                                 connect to it stays under way until the
#                                 caller gives up (no neighbour lookup that
#                                 fails early, as for an unused address)
# The router has a second address, 198.18.2.1 (its "public" one, as a home
# router's from its provider: on its loopback, routed from here through
# 198.18.1.2 like the test hosts), where it serves its own page on port 80
# and forwards port 8000 (DNAT, hairpin NAT with masquerade, nftables) back
# to this machine's 198.18.1.1:8001, a server that must never answer a
# sandbox under '*'. The router sends ICMP errors without a rate limit
# (icmp_ratelimit 0 in its namespace): the wire's first-hop probes of many
# tests at once must each get their answer. Without nft (or nf_tables) the
# forward is left out (ROUTER_FWD_PORT is then not in the env file).
# Routes on this machine: 198.18.0.0/24 and 198.18.2.0/24 via 198.18.1.2, and a local route
# 198.18.78.0/24 on lo (AnyIP: this machine, on no interface) with an HTTP
# server on 198.18.78.1:80 that must never answer a sandbox.
# A DNS server (dnsmasq, no upstream) answers on 127.0.0.1:$DNS_PORT, and
# writes each query it gets to $DIR/dns-queries.log (DNS_LOG: a test can
# tell whether a name reached it):
#   origin.lnk-test  198.18.0.2      other.lnk-test   198.18.0.3
#   rebind.lnk-test  127.0.0.1       meta.lnk-test    169.254.169.254
#   self.lnk-test    198.18.1.1      mixed.lnk-test   198.18.0.2, 127.0.0.1
#   private.lnk-test 10.0.0.1        router.lnk-test  198.18.1.2
#   anyip.lnk-test   198.18.78.1     router-wan.lnk-test 198.18.2.1
# A git repository, http://origin.lnk-test/repo.git, served by the same
# HTTP server (git's "dumb" HTTP protocol: plain files, which the wire's
# absolute-form HTTP carries like any other download).
# An sshd on 198.18.0.2:22 (origin.lnk-test) for a program that ignores
# proxy settings: root with the key $DIR/ssh/client_key (SSH_KEY in the
# env file) runs only `git-upload-pack` of that same repository (a forced
# command: read only, nothing else), so `git clone root@origin.lnk-test:x`
# clones it and `ssh root@origin.lnk-test` prints its refs.
#
#   nethosts.sh repo   (re)make only the repository (servers keep running)
#   nethosts.sh ssh    (re)start only the sshd (the others keep running)
#   nethosts.sh tell   (re)start only the server on 8081
set -eu

NS=lnk-nethosts
RT=lnk-nethosts-r
DIR=/run/lnk-nethosts
ENV=/run/lnk-nethosts.env
DNS_PORT=${LNK_NETHOSTS_DNS_PORT:-5353}
PY=/usr/bin/python3

die() { echo "nethosts.sh: $*" >&2; exit 1; }

blackhole() {
	ip route replace blackhole 198.18.0.0/15
	ip route show type blackhole | grep -q '^blackhole 198.18.0.0/15' ||
		die "the blackhole route for 198.18.0.0/15 is missing; refusing to go on"
}

# A server that died with its session left its pid file behind, and the
# pid may now be another program's: a pid counts only while its command
# line names our folder.
ours() {
	tr '\0' ' ' 2>/dev/null < "/proc/$(cat "$1")/cmdline" | grep -q "$DIR"
}

down() {
	for p in "$DIR"/*.pid; do
		[ -f "$p" ] || continue
		ours "$p" && kill "$(cat "$p")" 2>/dev/null || true
	done
	ip netns pids "$NS" 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip netns pids "$RT" 2>/dev/null | xargs -r kill 2>/dev/null || true
	ip link del lnkh0 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	ip netns del "$RT" 2>/dev/null || true
	ip route del local 198.18.78.0/24 dev lo 2>/dev/null || true
	ip route del 198.18.2.0/24 2>/dev/null || true
	rm -rf "$DIR" "$ENV"
}

repo() {
	r="$DIR/www/repo.git"
	t="$DIR/repo-src"
	rm -rf "$r" "$t"
	git init -q -b main "$t"
	echo "cloned through the wire" > "$t/README"
	git -C "$t" add README
	git -C "$t" -c user.name=lnk-test -c user.email=lnk-test@lnk-test \
		commit -q -m "the test repository"
	git clone -q --bare "$t" "$r"
	git -C "$r" update-server-info
	rm -rf "$t"
	chmod -R a+rX "$r"
}

sshd_up() {
	d="$DIR/ssh"
	[ -f "$DIR/sshd.pid" ] && kill "$(cat "$DIR/sshd.pid")" 2>/dev/null || true
	rm -rf "$d"
	mkdir -p "$d" /run/sshd
	ssh-keygen -q -t ed25519 -N '' -f "$d/host_key"
	ssh-keygen -q -t ed25519 -N '' -C lnk-test -f "$d/client_key"
	# a test key that opens one read-only repository: readable by the
	# unprivileged test user, who copies it (ssh wants it private)
	chmod 755 "$d"
	chmod 644 "$d/client_key"
	printf 'restrict,command="git-upload-pack %s" %s\n' \
		"$DIR/www/repo.git" "$(cat "$d/client_key.pub")" \
		> "$d/authorized_keys"
	cat > "$d/sshd_config" <<EOT
ListenAddress 198.18.0.2:22
HostKey $d/host_key
PidFile $DIR/sshd.pid
AuthorizedKeysFile $d/authorized_keys
AllowUsers root
PermitRootLogin forced-commands-only
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
EOT
	ip netns exec "$NS" /usr/sbin/sshd -f "$d/sshd_config" -E "$d/sshd.log"
	i=0
	until ip netns exec "$NS" ss -Hltn 'sport = :22' | grep -q .; do
		i=$((i + 1))
		[ $i -lt 100 ] || die "the sshd did not start"
		sleep 0.1
	done
	grep -q '^SSH_KEY=' "$ENV" 2>/dev/null ||
		echo "SSH_KEY=$d/client_key" >> "$ENV"
}

# What reached the server: it reads until the client is quiet for a
# second (or 64 kB), then answers with every byte, so a test sees whether
# bytes after a request's end were relayed.
tell_up() {
	[ -f "$DIR/tell.pid" ] && ours "$DIR/tell.pid" &&
		kill "$(cat "$DIR/tell.pid")" 2>/dev/null || true
	cat > "$DIR/tell.py" <<'PY'
import socket, threading
def serve(c):
    c.settimeout(1.0)
    got = b""
    try:
        while len(got) < 65536:
            b = c.recv(65536)
            if not b:
                break
            got += b
    except OSError:
        pass
    try:
        c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n"
                  % len(got) + got)
    except OSError:
        pass
    c.close()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("198.18.0.2", 8081))
s.listen(64)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
	ip netns exec "$NS" setsid "$PY" "$DIR/tell.py" >"$DIR/tell.log" 2>&1 &
	echo $! > "$DIR/tell.pid"
	i=0
	until ip netns exec "$NS" ss -Hltn 'sport = :8081' | grep -q .; do
		i=$((i + 1))
		[ $i -lt 100 ] || die "the server on 8081 did not start"
		sleep 0.1
	done
	grep -q '^TELL_PORT=' "$ENV" 2>/dev/null ||
		echo "TELL_PORT=8081" >> "$ENV"
}

up() {
	[ "$(id -u)" = 0 ] || die "run me as root"
	blackhole
	down
	blackhole
	mkdir -p "$DIR/www"
	chmod 755 "$DIR" "$DIR/www"
	ip netns add "$RT"
	ip netns add "$NS"
	# this machine <-> router
	ip link add lnkh0 type veth peer name lnkr1
	ip link set lnkr1 netns "$RT"
	ip addr add 198.18.1.1/30 dev lnkh0
	ip link set lnkh0 up
	ip -n "$RT" link set lo up
	ip -n "$RT" addr add 198.18.1.2/30 dev lnkr1
	ip -n "$RT" link set lnkr1 up
	# router <-> hosts
	ip -n "$RT" link add lnkr0 type veth peer name lnkh1
	ip -n "$RT" link set lnkh1 netns "$NS"
	ip -n "$RT" addr add 198.18.0.1/24 dev lnkr0
	ip -n "$RT" link set lnkr0 up
	# /proc/sys/net is the netns of whoever opens it (no procps needed)
	ip netns exec "$RT" sh -c "echo 1 > /proc/sys/net/ipv4/ip_forward"
	ip -n "$NS" link set lo up
	ip -n "$NS" addr add 198.18.0.2/24 dev lnkh1
	ip -n "$NS" addr add 198.18.0.3/24 dev lnkh1
	ip -n "$NS" addr add 198.18.0.9/24 dev lnkh1
	ip -n "$NS" rule add from 198.18.0.9 lookup 99
	ip -n "$NS" route add blackhole default table 99
	ip -n "$NS" link set lnkh1 up
	ip -n "$NS" route add default via 198.18.0.1
	ip route add 198.18.0.0/24 via 198.18.1.2 dev lnkh0
	# the router's second ("public") address, and its port forward back
	# to this machine (hairpin NAT)
	ip -n "$RT" addr add 198.18.2.1/32 dev lo
	ip route add 198.18.2.0/24 via 198.18.1.2 dev lnkh0
	ip netns exec "$RT" sh -c "echo 0 > /proc/sys/net/ipv4/icmp_ratelimit"
	FWD=""
	# a kernel without nf_tables leaves the forward out, not the hosts
	if command -v nft >/dev/null 2>&1 &&
		ip netns exec "$RT" nft -f - <<'NFT'
table ip lnk_hairpin {
	chain pre {
		type nat hook prerouting priority dstnat;
		ip daddr 198.18.2.1 tcp dport 8000 dnat to 198.18.1.1:8001
	}
	chain post {
		type nat hook postrouting priority srcnat;
		ip daddr 198.18.1.1 tcp dport 8001 masquerade
	}
}
NFT
	then
		FWD=1
	fi
	# this machine by a local route, on no interface
	ip route add local 198.18.78.0/24 dev lo

	echo "hello from origin.lnk-test" > "$DIR/www/hello.txt"
	# An npm registry's document for one package: `npm view` reads it.
	cat > "$DIR/www/lnk-test-pkg" <<'JSON'
{"name": "lnk-test-pkg", "dist-tags": {"latest": "1.0.0"},
 "versions": {"1.0.0": {"name": "lnk-test-pkg", "version": "1.0.0",
  "description": "served by the lnk test hosts",
  "dist": {"tarball": "http://origin.lnk-test/lnk-test-pkg-1.0.0.tgz"}}}}
JSON
	head -c 1048576 /dev/urandom > "$DIR/www/1m.bin"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
		-subj "/CN=origin.lnk-test" \
		-addext "subjectAltName=DNS:origin.lnk-test,IP:198.18.0.2" \
		-keyout "$DIR/key.pem" -out "$DIR/cert.pem" >/dev/null 2>&1
	chmod 644 "$DIR/cert.pem" "$DIR"/www/*
	repo

	cat > "$DIR/https.py" <<'PY'
import http.server, ssl, sys
d, cert, key = sys.argv[1:4]
class H(http.server.SimpleHTTPRequestHandler):
    def __init__(s, *a, **k): super().__init__(*a, directory=d, **k)
    def log_message(s, *a): pass
srv = http.server.ThreadingHTTPServer(("198.18.0.2", 443), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
PY
	mkdir -p "$DIR/anyip"
	echo "a server of this machine" > "$DIR/anyip/secret.txt"
	chmod 755 "$DIR/anyip"; chmod 644 "$DIR/anyip/secret.txt"
	setsid "$PY" -m http.server 80 --bind 198.18.78.1 \
		--directory "$DIR/anyip" >"$DIR/anyip.log" 2>&1 &
	echo $! > "$DIR/anyip.pid"
	cat > "$DIR/echohost.py" <<'PY'
import http.server
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(s):
        hosts = s.headers.get_all("Host") or []
        body = ("host=" + "|".join(hosts) + "\n").encode()
        s.send_response(200)
        s.send_header("Content-Type", "text/plain")
        s.send_header("Content-Length", str(len(body)))
        s.end_headers()
        s.wfile.write(body)
    def log_message(s, *a): pass
http.server.ThreadingHTTPServer(("198.18.0.2", 8080), H).serve_forever()
PY
	mkdir -p "$DIR/router"
	echo "hello from the router" > "$DIR/router/router.txt"
	chmod 755 "$DIR/router"; chmod 644 "$DIR/router/router.txt"
	ip netns exec "$RT" setsid "$PY" -m http.server 80 --bind 198.18.1.2 \
		--directory "$DIR/router" >"$DIR/router.log" 2>&1 &
	echo $! > "$DIR/router.pid"
	ip netns exec "$RT" setsid "$PY" -m http.server 80 --bind 198.18.2.1 \
		--directory "$DIR/router" >"$DIR/router-wan.log" 2>&1 &
	echo $! > "$DIR/router-wan.pid"
	mkdir -p "$DIR/hostside"
	echo "a server of this machine, behind the router's port forward" \
		> "$DIR/hostside/secret.txt"
	chmod 755 "$DIR/hostside"; chmod 644 "$DIR/hostside/secret.txt"
	setsid "$PY" -m http.server 8001 --bind 198.18.1.1 \
		--directory "$DIR/hostside" >"$DIR/hostside.log" 2>&1 &
	echo $! > "$DIR/hostside.pid"
	ip netns exec "$NS" setsid "$PY" "$DIR/echohost.py" \
		>"$DIR/echohost.log" 2>&1 &
	echo $! > "$DIR/echohost.pid"
	for a in 198.18.0.2 198.18.0.3; do
		ip netns exec "$NS" setsid "$PY" -m http.server 80 --bind "$a" \
			--directory "$DIR/www" >"$DIR/http-$a.log" 2>&1 &
		echo $! > "$DIR/http-$a.pid"
	done
	ip netns exec "$NS" setsid "$PY" "$DIR/https.py" "$DIR/www" \
		"$DIR/cert.pem" "$DIR/key.pem" >"$DIR/https.log" 2>&1 &
	echo $! > "$DIR/https.pid"

	# The query log, readable by the unprivileged test pass too: it holds
	# test names only. dnsmasq 2.90 sets its log's mode to 0660 when it
	# opens it (before it forks to the background), so the mode is set
	# again once it runs.
	: > "$DIR/dns-queries.log"
	chown nobody "$DIR/dns-queries.log" 2>/dev/null || true
	dnsmasq --port="$DNS_PORT" --listen-address=127.0.0.1 \
		--bind-interfaces --no-resolv --no-hosts --no-poll \
		--pid-file="$DIR/dnsmasq.pid" \
		--log-queries --log-facility="$DIR/dns-queries.log" \
		--address=/origin.lnk-test/198.18.0.2 \
		--address=/other.lnk-test/198.18.0.3 \
		--address=/rebind.lnk-test/127.0.0.1 \
		--address=/meta.lnk-test/169.254.169.254 \
		--address=/self.lnk-test/198.18.1.1 \
		--address=/router.lnk-test/198.18.1.2 \
		--address=/router-wan.lnk-test/198.18.2.1 \
		--address=/anyip.lnk-test/198.18.78.1 \
		--address=/private.lnk-test/10.0.0.1 \
		--host-record=mixed.lnk-test,198.18.0.2 \
		--host-record=mixed.lnk-test,127.0.0.1
	chmod 0644 "$DIR/dns-queries.log"

	# wait for the servers
	i=0
	while ! curl -s -o /dev/null --max-time 1 http://198.18.0.2/hello.txt ||
	      ! curl -s -o /dev/null --max-time 1 -k https://198.18.0.2/hello.txt ||
	      ! curl -s -o /dev/null --max-time 1 http://198.18.0.2:8080/ ||
	      ! curl -s -o /dev/null --max-time 1 http://198.18.78.1/secret.txt ||
	      ! curl -s -o /dev/null --max-time 1 http://198.18.1.2/router.txt ||
	      ! curl -s -o /dev/null --max-time 1 http://198.18.2.1/router.txt ||
	      ! curl -s -o /dev/null --max-time 1 http://198.18.1.1:8001/secret.txt ||
	      { [ -n "$FWD" ] &&
		! curl -s -o /dev/null --max-time 1 http://198.18.2.1:8000/secret.txt; }; do
		i=$((i + 1))
		[ $i -lt 300 ] || die "the test servers did not start"
		sleep 0.1
	done
	cat > "$ENV" <<EOT
LNK_NETHOSTS=1
LNK_DNS_SERVER=127.0.0.1:$DNS_PORT
ORIGIN=origin.lnk-test
ORIGIN_IP=198.18.0.2
OTHER=other.lnk-test
HOST_SIDE_IP=198.18.1.1
ROUTER_IP=198.18.1.2
ROUTER_WAN_IP=198.18.2.1
HOST_SERVICE_PORT=8001
ANYIP_IP=198.18.78.1
SILENT_IP=198.18.0.9
ECHO_HOST_PORT=8080
CA_FILE=$DIR/cert.pem
DNS_LOG=$DIR/dns-queries.log
EOT
	[ -z "$FWD" ] || echo "ROUTER_FWD_PORT=8000" >> "$ENV"
	chmod 644 "$ENV"
	if [ -x /usr/sbin/sshd ]; then sshd_up; fi
	tell_up
}

# Every server answers once, and the DNS server names origin.lnk-test.
alive() {
	[ -f "$ENV" ] && [ -d "$DIR/www" ] || return 1
	grep -q '^SILENT_IP=' "$ENV" && grep -q '^DNS_LOG=' "$ENV" &&
		ip -n "$NS" route show table 99 | grep -q blackhole || return 1
	for p in "$DIR"/*.pid; do
		[ -f "$p" ] && ours "$p" || return 1
	done
	for u in http://198.18.0.2/hello.txt http://198.18.0.2:8080/ \
		 http://198.18.78.1/secret.txt http://198.18.1.2/router.txt \
		 http://198.18.2.1/router.txt http://198.18.1.1:8001/secret.txt; do
		curl -s -o /dev/null --max-time 2 "$u" || return 1
	done
	curl -s -o /dev/null --max-time 2 -k https://198.18.0.2/hello.txt ||
		return 1
	if grep -q '^ROUTER_FWD_PORT=' "$ENV"; then
		curl -s -o /dev/null --max-time 2 \
			http://198.18.2.1:8000/secret.txt || return 1
	fi
	"$PY" - "$DNS_PORT" <<'PY' || return 1
import socket, sys
q = bytes.fromhex("abcd01000001000000000000") + b"".join(
    bytes([len(p)]) + p.encode() for p in "origin.lnk-test".split(".")) \
    + b"\0\0\x01\0\x01"
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.sendto(q, ("127.0.0.1", int(sys.argv[1])))
a = s.recv(512)
sys.exit(0 if a[:2] == q[:2] and bytes([198, 18, 0, 2]) in a else 1)
PY
}

case "${1:-}" in
up) up ;;
status) if alive; then echo "the test hosts answer"; else
	echo "the test hosts are not (all) up: run 'nethosts.sh up'" >&2; exit 1; fi ;;
repo) [ -d "$DIR/www" ] || die "no test hosts: run 'nethosts.sh up' first"; repo ;;
ssh) [ -d "$DIR/www" ] || die "no test hosts: run 'nethosts.sh up' first"; sshd_up ;;
tell) [ -d "$DIR/www" ] || die "no test hosts: run 'nethosts.sh up' first"; tell_up ;;
down) down; echo "left the blackhole route for 198.18.0.0/15 in place" ;;
*) echo "usage: nethosts.sh up|down|status|repo|ssh|tell" >&2; exit 2 ;;
esac
