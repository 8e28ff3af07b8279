"""The wire confines itself once set up (man lnk-sandbox, THE WIRE'S
CONFINEMENT): no capabilities, no_new_privs, a seccomp filter; its keeper,
unconfined, still shows desktop notifications. Read from /proc, as the
user and as root. (What a taken-over wire can still reach is
test_inv9_confined.py's, "the wire's confinement".)
"""
import os
import pathlib
import sqlite3
import subprocess
import time

import pytest

from conftest import IS_ROOT

ENV_FILE = pathlib.Path("/run/lnk-nethosts.env")


def wire_pid(lnk, name):
    db = lnk.home / ".lnk" / "sandbox" / "lnk.db"
    if not db.exists():
        return None
    con = sqlite3.connect(str(db), timeout=5)
    try:
        row = con.execute("SELECT wire_pid FROM ctl_sandboxes WHERE "
                          "name = ?", (name,)).fetchone()
    except sqlite3.OperationalError:
        return None
    finally:
        con.close()
    return row[0] if row else None


def status(pid):
    out = {}
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        out[k] = v.strip()
    return out


def confined_wire(lnk, name, deadline_s=20):
    """The running wire's /proc status once it has confined itself (it
    registers just before)."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        pid = wire_pid(lnk, name)
        if pid:
            try:
                st = status(pid)
            except FileNotFoundError:
                st = {}
            if st.get("Seccomp") == "2":
                return pid, st
        time.sleep(0.05)
    pytest.fail(f"no confined wire for {name} (pid {wire_pid(lnk, name)})")


def test_running_wire_holds_no_powers(lnk, work):
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "conf", "--internet-host", "*",
         "--", "sleep", "60"], cwd=str(work), env=lnk.env(),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        pid, st = confined_wire(lnk, "conf")
        assert st["Name"] == "lnk-wire", st
        for cap in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
            assert int(st[cap], 16) == 0, (cap, st[cap])
        if IS_ROOT:
            # the bounding set can only be emptied with CAP_SETPCAP, which
            # only root's wire had
            assert int(st["CapBnd"], 16) == 0, st["CapBnd"]
        assert st["NoNewPrivs"] == "1"
        assert st["Seccomp"] == "2" and int(st["Seccomp_filters"]) >= 1
        # its keeper is its parent, outside the filter: it makes the
        # wire's connects and runs notify-send
        keeper = status(int(st["PPid"]))
        assert keeper["Name"] == "lnk-wire-keep", keeper
        assert keeper["Seccomp"] == "0"
        assert p.poll() is None
        sock = lnk.home / ".lnk" / "sandbox" / "run" / "conf.sock"
        assert sock.is_socket()
    finally:
        p.terminate()
        p.communicate(timeout=30)
    # the confined wire may remove nothing; its keeper removed the socket
    end = time.monotonic() + 10
    while sock.exists() and time.monotonic() < end:
        time.sleep(0.05)
    assert not sock.exists()


def test_a_plain_build_has_no_attack_hook(lnk, home):
    """LNK_TEST_WIRE_ATTACK means something only to a test-hooks build."""
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("secret key\n")
    cp = lnk.run("--internet-host", "*", "--", "true",
                 env={"LNK_TEST_WIRE_ATTACK": "9"}, stdin=subprocess.DEVNULL)
    if "lnk-test-attack" in cp.stderr and not os.environ.get("LNK_BIN_HOOKS"):
        pytest.fail("LNK_BIN is a test-hooks build: " + cp.stderr)
    assert cp.returncode == 0, cp.stderr
    assert "lnk-test-attack" not in cp.stderr and "killed" not in cp.stderr


FAKE_NOTIFY = """#!/bin/sh
{ for a; do echo "arg $a"; done; env | sed 's/^/env /'; } > "$0.out.tmp"
mv "$0.out.tmp" "$0.out"
"""


def test_trip_still_reaches_the_desktop_with_a_clean_environment(lnk, work):
    if not ENV_FILE.exists():
        pytest.skip("no test hosts: run 'tests/e2e/nethosts.sh up' as root "
                    "(writes /run/lnk-nethosts.env)")
    net = dict(line.partition("=")[::2]
               for line in ENV_FILE.read_text().splitlines())
    fake = work / "bin"
    fake.mkdir()
    ns = fake / "notify-send"
    ns.write_text(FAKE_NOTIFY)
    ns.chmod(0o755)
    env = {"LNK_DNS_SERVER": net["LNK_DNS_SERVER"],
           "PATH": f"{fake}:/usr/local/bin:/usr/bin:/bin",
           "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent",
           "LNK_TEST_SECRET": "s3cr3t-env", "LD_PRELOAD": ""}
    cp = lnk.run("--internet-host", "*", "--", "sh", "-c",
                 "curl -s --max-time 10 -o /dev/null "
                 "http://169.254.169.254/latest/ || true",
                 env=env, stdin=subprocess.DEVNULL, timeout=60)
    assert "wire paused: a call to a cloud metadata address" in cp.stderr, \
        cp.stderr
    out = pathlib.Path(str(ns) + ".out")
    end = time.monotonic() + 20
    while not out.exists() and time.monotonic() < end:
        time.sleep(0.05)
    text = out.read_text()
    assert "arg lnk: run-" in text and "wire paused" in text, text
    assert "169.254.169.254" in text, text
    envs = dict(line[4:].partition("=")[::2] for line in text.splitlines()
                if line.startswith("env "))
    assert envs.get("DBUS_SESSION_BUS_ADDRESS") == "unix:path=/nonexistent"
    assert "LNK_TEST_SECRET" not in envs and "LD_PRELOAD" not in envs, envs
    assert envs.get("PATH") == "/usr/local/bin:/usr/bin:/bin", envs


def test_a_model_routes_wire_is_confined_alike(lnk, work):
    """With a model route the wire loads the CA store and sets up TLS
    before it confines itself: it runs under the same filter and holds no
    descriptor of a certificate file or folder afterwards (the Landlock
    domain reaches no file beyond its database's, so none could be read
    later either)."""
    if not ENV_FILE.exists():
        pytest.skip("no test hosts: run tests/e2e/nethosts.sh up as root")
    f = dict(l.partition("=")[::2] for l in ENV_FILE.read_text().split())
    env = lnk.env({"LNK_DNS_SERVER": f["LNK_DNS_SERVER"],
                   "SSL_CERT_FILE": f["CA_FILE"],
                   "SSL_CERT_DIR": "/etc/ssl/certs",
                   "FAKE_API_KEY": "sk-confine"})
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "mconf", "--model",
         "fake=https://origin.lnk-test:8443/v1", "--", "sleep", "60"],
        cwd=str(work), env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pid, st = confined_wire(lnk, "mconf")
        for cap in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
            assert int(st[cap], 16) == 0, (cap, st[cap])
        assert st["NoNewPrivs"] == "1" and st["Seccomp"] == "2"
        fds = [os.readlink(f"/proc/{pid}/fd/{n}")
               for n in os.listdir(f"/proc/{pid}/fd")]
        assert not [d for d in fds if "cert" in d or "/etc/ssl" in d], fds
        assert p.poll() is None, p.stderr.read()
    finally:
        p.terminate()
        p.communicate(timeout=30)
