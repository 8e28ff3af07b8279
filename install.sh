#!/bin/sh
# Installs what lnk needs from Debian, builds it, and installs it.
#
#   sudo ./install.sh          Debian packages, build, install to /usr/local
#   sudo ./install.sh --deps   only the Debian packages (build and test)
#
# Debian 12 (bookworm) or newer. Run it from the source folder.
set -eu
cd "$(dirname "$0")"

# Runtime: bubblewrap, the CA certificates (--model's TLS). Build:
# compiler, meson, ninja, the libraries (OpenSSL for --model).
# Tests: cmocka, python3-pytest, and the real peers the end-to-end tests
# start on loopback or in a network namespace (curl, git, iproute2,
# dnsmasq, openssl, openssh); the toml-test conformance cases that Debian
# ships in golang-github-burntsushi-toml-dev; clang and its runtime
# libraries (libFuzzer, sanitizers) for the fuzz targets tests/run-all runs;
# zsh and fish, whose completion scripts the tests parse and drive;
# bash-completion, without which bash loads no completion script at all;
# dbus-daemon, python3-dbus and python3-gi, a session bus and the
# notification server the desktop asking tests start. Build: libdbus-1-dev
# (questions shown as desktop notifications).
# The Debian package (dpkg-buildpackage -b, which tests/run-all builds and
# checks): debhelper, dpkg-dev and lintian.
# Benchmarks: hyperfine, strace. musl-tools: lnk-init built with musl
# (meson.build, init_musl: glibc's start-up costs 0.85 ms on a VM).
PACKAGES="bubblewrap gcc libc6-dev musl-tools clang libclang-rt-dev clang-format meson \
ninja-build pkg-config \
libseccomp-dev libsqlite3-dev libc-ares-dev libssl-dev ca-certificates \
libcap-dev libcmocka-dev libdbus-1-dev \
golang-github-burntsushi-toml-dev \
python3 python3-pytest curl git iproute2 dnsmasq-base nftables openssl \
openssh-server openssh-client procps util-linux passwd zsh fish \
bash-completion \
dbus-daemon python3-dbus python3-gi \
debhelper dpkg-dev lintian \
hyperfine strace"

if [ "$(id -u)" != 0 ]; then
	echo "install.sh: run it as root (sudo ./install.sh)" >&2
	exit 1
fi

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
# Tests: node and npm run the model SDKs' tests (tests/package.json); a
# node installed another way (with its own npm) is kept as it is.
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
fi

[ "${1:-}" = "--deps" ] && exit 0

if [ -f build/build.ninja ]; then
	meson setup --reconfigure build >/dev/null
else
	meson setup build
fi
ninja -C build
meson install -C build --no-rebuild
# The routers every user's sandboxes heard (src/wire/heard.h): root's and
# sticky, one file a user that only that user writes; as the package.
install -d -m 0755 /var/lib/lnk
install -d -m 1777 /var/lib/lnk/routers
echo
echo "installed: $(command -v lnk || echo /usr/local/bin/lnk)"
lnk sandbox ready || true
