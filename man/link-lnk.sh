#!/bin/sh
# `man lnk`: the command people type is lnk, and its one page is
# lnk-sandbox(1). Links lnk.1 to it where meson installed it (under
# $DESTDIR when that is set), as the Debian package does (debian/lnk.links).
#
#   man/link-lnk.sh BUILD_DIR       (install.sh runs it after meson install)
set -eu
page=$(meson introspect "$1" --installed | python3 -c '
import json, sys
for dst in json.load(sys.stdin).values():
    if dst.endswith("/man1/lnk-sandbox.1"):
        print(dst)
')
if [ -z "$page" ]; then
	echo "link-lnk.sh: $1 installs no lnk-sandbox.1" >&2
	exit 1
fi
ln -sfn lnk-sandbox.1 "${DESTDIR:-}$(dirname "$page")/lnk.1"
