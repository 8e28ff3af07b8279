"""Stop, pause, resume, paused and the tripwires.

Two halves:
- The commands against a stand-in wire (this file's FakeWire: the real
  control protocol on the real socket path, registered in the real
  registry), with real processes to stop. Runs everywhere.
- Real sandboxes: `lnk sandbox run` with its wire, programs holding open
  connections through it (as root and as an unprivileged user; the
  other-user test needs root). Skipped, saying why, when `lnk sandbox run
  --internet-host ... -- true` cannot run here or its wire serves no
  control socket.

Network: loopback only (--port to a server on 127.0.0.1) and names the wire
refuses before resolving anything (*.test, 169.254.169.254 as a literal the
wire refuses by class); nothing is ever sent off this machine.
"""
import json
import os
import pathlib
import pwd
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from conftest import LNK, IS_ROOT

REQ = struct.Struct("<4sBBBB")
REP = struct.Struct("<4sBBBBBBBBIqQQ88s")
OPS = {1: "pause", 2: "resume", 3: "stop", 4: "stop_off", 5: "status"}


def proc_start(pid):
    data = pathlib.Path(f"/proc/{pid}/stat").read_text()
    return int(data[data.rindex(")") + 2:].split()[19])


class FakeWire:
    """A stand-in wire: the control protocol of src/wire/ctl.h, registered
    like a real wire, for a 'supervisor' process the test starts."""

    def __init__(self, lnk, name, supervisor):
        self.name = name
        self.ops = []
        self.closed, self.cause = False, 0
        self.reply_garbage = False
        lnk("sandbox", "paused", check=True)  # creates the database
        run = lnk.home / ".lnk" / "sandbox" / "run"
        run.mkdir(mode=0o700, exist_ok=True)
        self.path = run / f"{name}.sock"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(self.path))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        db = sqlite3.connect(str(lnk.home / ".lnk" / "sandbox" / "lnk.db"),
                             timeout=5)
        db.execute(
            "INSERT INTO ctl_sandboxes (name, uid, sup_pid, sup_start, "
            "wire_pid, wire_start, socket, started_ms) "
            "VALUES (?,?,?,?,?,?,?,?)",
            (name, os.getuid(), supervisor.pid, proc_start(supervisor.pid),
             os.getpid(), proc_start(os.getpid()), str(self.path),
             int(time.time() * 1000)))
        db.commit()
        db.close()
        self.stop_flag = False
        self.t = threading.Thread(target=self.serve, daemon=True)
        self.t.start()

    def serve(self):
        while not self.stop_flag:
            try:
                c, _ = self.sock.accept()
            except socket.timeout:
                continue
            with c:
                b = c.recv(64)
                if len(b) != 8 or b[:4] != b"LNKc" or b[4] != 1:
                    continue
                op = b[5]
                self.ops.append(OPS.get(op, op))
                if op == 1:
                    self.closed, self.cause = True, 1
                elif op == 2:
                    self.closed, self.cause = False, 0
                elif op == 3 and not self.closed:
                    self.closed, self.cause = True, 2
                elif op == 4 and self.cause == 2:
                    self.closed, self.cause = False, 0
                if self.reply_garbage:
                    c.sendall(b"LNKr" + b"\xff" * 124)
                    continue
                c.sendall(REP.pack(b"LNKr", 1, op, 0, int(self.closed),
                                   self.cause, 0, 0, 0, 2,
                                   int(time.time() * 1000) if self.closed
                                   else 0, 10, 20, b""))

    def close(self):
        self.stop_flag = True
        self.t.join()
        self.sock.close()


def supervisor(ignore_term=False):
    code = ("import signal, time\n"
            + ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
               if ignore_term else "")
            + "print('ready', flush=True)\ntime.sleep(60)\n")
    p = subprocess.Popen([sys.executable, "-c", code],
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    return p


def lnk_supervisor(lnk, ignore_term=False):
    """A real `lnk sandbox run` as the supervisor: stop signals only
    processes it proves run lnk (a stand-in python would be refused)."""
    code = ("import signal, time\n"
            + ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
               if ignore_term else "")
            + "print('ready', flush=True)\ntime.sleep(60)\n")
    p = subprocess.Popen([lnk.bin, "sandbox", "run", "--", sys.executable,
                          "-c", code], stdout=subprocess.PIPE, text=True,
                         env=lnk.env(), cwd=str(lnk.cwd))
    assert p.stdout.readline().strip() == "ready"
    return p


# ---- the commands, against a stand-in wire ----

def test_no_such_sandbox(lnk):
    for cmd in ("pause", "resume"):
        cp = lnk("sandbox", cmd, "nope")
        assert cp.returncode == 1, cp.stderr
        assert "no sandbox named 'nope' is running here" in cp.stderr
        assert "lnk sandbox traffic" in cp.stderr
    cp = lnk("sandbox", "pause", "../../etc")
    assert cp.returncode == 1
    assert lnk("sandbox", "pause").returncode == 2
    assert lnk("sandbox", "pause", "a", "b").returncode == 2
    assert lnk("sandbox", "pause", "--bogus").returncode == 2
    cp = lnk("sandbox", "paused")
    assert cp.returncode == 0 and cp.stdout == "no wire is closed\n"
    cp = lnk("sandbox", "paused", "--json", check=True)
    assert json.loads(cp.stdout) == {"stop": None, "closed": []}


def test_pause_resume_paused(lnk):
    sup = supervisor()
    w = FakeWire(lnk, "fake-1", sup)
    try:
        cp = lnk("sandbox", "pause", "fake-1", check=True)
        assert "paused fake-1" in cp.stdout
        assert w.ops == ["pause"]
        cp = lnk("sandbox", "paused", check=True)
        lines = cp.stdout.splitlines()
        assert lines[0].split() == ["NAME", "WHY", "SINCE", "RULE"]
        assert lines[1].startswith("fake-1") and "by hand" in lines[1]
        j = json.loads(lnk("sandbox", "paused", "--json",
                           check=True).stdout)
        assert j["closed"][0]["name"] == "fake-1"
        assert j["closed"][0]["why"] == "hand"
        assert j["closed"][0]["since"].endswith("Z")
        cp = lnk("sandbox", "resume", "fake-1", check=True)
        assert "resumed fake-1" in cp.stdout
        assert lnk("sandbox", "paused", check=True).stdout == \
            "no wire is closed\n"
        # A wire that answers garbage: a clear failure, no crash.
        w.reply_garbage = True
        cp = lnk("sandbox", "pause", "fake-1")
        assert cp.returncode == 125
        assert "malformed reply" in cp.stderr
    finally:
        w.close()
        sup.kill()
        sup.wait()
    # Its supervisor gone, the entry is stale: no such sandbox.
    cp = lnk("sandbox", "pause", "fake-1")
    assert cp.returncode == 1


def test_stop_ends_programs_and_persists(lnk):
    polite = lnk_supervisor(lnk)
    stubborn = lnk_supervisor(lnk, ignore_term=True)
    w1 = FakeWire(lnk, "polite", polite)
    w2 = FakeWire(lnk, "stubborn", stubborn)
    try:
        w1.ops.clear()  # the second one's setup asked the first's status
        t0 = time.monotonic()
        cp = lnk("sandbox", "stop", check=True, timeout=30)
        took = time.monotonic() - t0
        # Wires are closed first, then the programs stopped.
        assert w1.ops == ["stop"] and w2.ops == ["stop"]
        # lnk forwards the TERM; the program's death by it is 128+15.
        assert polite.wait(timeout=5) == 128 + signal.SIGTERM
        assert stubborn.wait(timeout=5) == -signal.SIGKILL
        assert "stopped polite: wire closed, programs ended" in cp.stdout
        assert "stopped stubborn: wire closed, programs killed" in cp.stdout
        assert took < 10
        assert "stays in force" in cp.stdout
    finally:
        w1.close()
        w2.close()
    # The stop persists.
    cp = lnk("sandbox", "paused", check=True)
    assert cp.stdout.startswith("a stop is in force since ")
    j = json.loads(lnk("sandbox", "paused", "--json", check=True).stdout)
    assert j["stop"]["since"].endswith("Z")
    # A wire that runs now is told to open again by --off.
    sup = supervisor()
    w = FakeWire(lnk, "later", sup)
    try:
        w.closed, w.cause = True, 2  # as a wire starting under a stop
        cp = lnk("sandbox", "stop", "--off", check=True)
        assert w.ops == ["stop_off"]
        assert not w.closed
        assert "the stop is off" in cp.stdout
        assert lnk("sandbox", "paused", check=True).stdout == \
            "no wire is closed\n"
        # --off reopens only what a stop closed: a paused wire stays.
        lnk("sandbox", "pause", "later", check=True)
        cp = lnk("sandbox", "stop", "--off", check=True)
        assert "later stays closed (by hand)" in cp.stdout
        assert w.closed
    finally:
        w.close()
        if sup.poll() is None:
            sup.kill()
            sup.wait()
    lnk("sandbox", "stop", "--off", check=True)


# ---- every sandbox, with a wire or without ----

def _run_bg(lnk, work, name):
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", name, "--write", str(work),
         "--", "sh", "-c", "echo ready; exec sleep 60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=lnk.env(), cwd=str(work))
    assert p.stdout.readline().strip() == "ready", p.stderr.read()
    return p


def test_sandbox_without_network_is_listed_and_stopped(lnk, work):
    """A sandbox without a network grant has no wire, but it can still
    change files: stop must end it, traffic and paused list it."""
    p = _run_bg(lnk, work, "nowire")
    try:
        cp = lnk("sandbox", "run", "--name", "nowire", "--", "true")
        assert cp.returncode == 125, cp.stderr
        assert "already running" in cp.stderr
        cp = lnk("sandbox", "traffic", check=True)
        row = [l for l in cp.stdout.splitlines() if l.startswith("nowire")]
        assert row and "no wire" in row[0], cp.stdout
        rows = [json.loads(l) for l in lnk("sandbox", "traffic", "--json",
                                           check=True).stdout.splitlines()]
        mine = [r for r in rows if r["sandbox"] == "nowire"]
        assert mine and mine[0]["wire"] is False and mine[0]["up"] is None
        cp = lnk("sandbox", "paused", check=True)
        row = [l for l in cp.stdout.splitlines() if l.startswith("nowire")]
        assert row and "no wire" in row[0], cp.stdout
        j = json.loads(lnk("sandbox", "paused", "--json",
                           check=True).stdout)
        assert [c for c in j["closed"]
                if c["name"] == "nowire" and c["why"] == "no-wire"]
        # paused, its tools are closed, and paused says so
        lnk("sandbox", "pause", "nowire", check=True)
        cp = lnk("sandbox", "paused", check=True)
        row = [l for l in cp.stdout.splitlines() if l.startswith("nowire")]
        assert row and "tools and pages closed by hand" in row[0], cp.stdout
        lnk("sandbox", "resume", "nowire", check=True)
        cp = lnk("sandbox", "paused", check=True)
        row = [l for l in cp.stdout.splitlines() if l.startswith("nowire")]
        assert row and "closed by hand" not in row[0], cp.stdout
        cp = lnk("sandbox", "stop", check=True, timeout=30)
        assert "stopped nowire: no wire, programs ended" in cp.stdout, \
            cp.stdout + cp.stderr
        assert p.wait(timeout=10) == 128 + signal.SIGTERM
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        lnk("sandbox", "stop", "--off")
    cp = lnk("sandbox", "traffic", check=True)
    assert "nowire" not in cp.stdout


def test_entry_of_a_killed_lnk_is_removed(lnk, work, home):
    p = _run_bg(lnk, work, "killed")
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    db = sqlite3.connect(str(home / ".lnk" / "sandbox" / "lnk.db"),
                         timeout=5)
    n = db.execute("SELECT count(*) FROM ctl_sandboxes WHERE name = ?",
                   ("killed",)).fetchone()[0]
    db.close()
    assert n == 1  # left behind: lnk had no chance to leave
    cp = lnk("sandbox", "traffic", check=True)
    assert "killed" not in cp.stdout
    db = sqlite3.connect(str(home / ".lnk" / "sandbox" / "lnk.db"),
                         timeout=5)
    n = db.execute("SELECT count(*) FROM ctl_sandboxes WHERE name = ?",
                   ("killed",)).fetchone()[0]
    db.close()
    assert n == 0
    # The name is free again.
    lnk("sandbox", "run", "--name", "killed", "--", "true", check=True)


# ---- real sandboxes ----

def _probe_real(tmp_path_factory):
    home = tmp_path_factory.mktemp("probe-home")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    try:
        cp = subprocess.run([LNK, "sandbox", "run", "--internet-host",
                             "allowed.test", "--", "true"], env=env,
                            capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"'lnk sandbox run' does not work yet: {e}"
    if cp.returncode != 0:
        return ("'lnk sandbox run --internet-host allowed.test -- true' "
                f"does not work yet (exit {cp.returncode}: "
                f"{cp.stderr.strip()[:200]})")
    p = subprocess.Popen([LNK, "sandbox", "run", "--name", "probe",
                          "--internet-host", "allowed.test", "--",
                          "sleep", "3"], env=env,
                         stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    sock = home / ".lnk" / "sandbox" / "run" / "probe.sock"
    ok = False
    for _ in range(40):
        if sock.exists():
            ok = True
            break
        time.sleep(0.05)
    p.wait()
    if not ok:
        return ("the wire does not serve its control socket "
                "(src/wire/ctl.c)")
    return None


@pytest.fixture(scope="session")
def real(tmp_path_factory):
    why = _probe_real(tmp_path_factory)
    if why:
        pytest.skip(why)


class EchoServer:
    """Holds every connection open and echoes; on loopback only."""

    def __init__(self):
        self.s = socket.socket()
        self.s.bind(("127.0.0.1", 0))
        self.s.listen(64)
        self.port = self.s.getsockname()[1]
        self.conns = []
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        while True:
            try:
                c, _ = self.s.accept()
            except OSError:
                return
            self.conns.append(c)
            threading.Thread(target=self.echo, args=(c,), daemon=True).start()

    @staticmethod
    def echo(c):
        try:
            while True:
                b = c.recv(4096)
                if not b:
                    return
                c.sendall(b)
        except OSError:
            pass


# Inside the sandbox: hold one connection through the wire, note when it
# ends, then try a new one every 0.2 s, and say it still runs.
HOLDER = r"""
import socket, sys, time
port, out = int(sys.argv[1]), sys.argv[2]
def note(s):
    with open(out, "a") as f:
        f.write(f"{time.time():.3f} {s}\n")
def attempt():
    try:
        c = socket.create_connection(("127.0.0.1", port), timeout=2)
        c.sendall(b"ping")
        c.settimeout(2)
        return c if c.recv(4) == b"ping" else None
    except OSError:
        return None
c = attempt()
note("connected" if c else "failed")
if c:
    c.settimeout(None)
    try:
        c.recv(1)
    except OSError:
        pass
    note("ended")
while True:
    c2 = attempt()
    note("new-ok" if c2 else "new-refused")
    if c2:
        c2.close()
    time.sleep(0.2)
"""


def wait_for(pred, timeout, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return pred()


def notes(path):
    try:
        return [l.split(" ", 1) for l in path.read_text().splitlines()]
    except FileNotFoundError:
        return []


def start_holder(lnk, work, name, port, extra=()):
    out = work / f"{name}.notes"
    (work / "holder.py").write_text(HOLDER)
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", name, "--write", str(work),
         "--port", str(port), *extra, "--", "python3",
         str(work / "holder.py"), str(port), str(out)],
        cwd=str(work), env=lnk.env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    return p, out


def test_pause_ends_open_connections_program_runs_on(real, lnk, work):
    srv = EchoServer()
    p, out = start_holder(lnk, work, "hold-1", srv.port)
    try:
        assert wait_for(lambda: any(n[1] == "connected"
                                    for n in notes(out)), 15), notes(out)
        t0 = time.time()
        lnk("sandbox", "pause", "hold-1", check=True)
        ended = wait_for(lambda: [n for n in notes(out)
                                  if n[1].strip() == "ended"], 3)
        assert ended, notes(out)
        assert float(ended[0][0]) - t0 < 1.0
        # New ones are refused while the program runs on.
        assert wait_for(lambda: sum(n[1].strip() == "new-refused"
                                    for n in notes(out)) >= 3, 5)
        assert p.poll() is None
        assert not any(n[1].strip() == "new-ok" for n in notes(out))
        st = lnk("sandbox", "paused", check=True).stdout
        assert "hold-1" in st and "by hand" in st
        # Resume lets new ones through.
        lnk("sandbox", "resume", "hold-1", check=True)
        assert wait_for(lambda: any(n[1].strip() == "new-ok"
                                    for n in notes(out)), 5), notes(out)
    finally:
        p.kill()
        p.wait()


def test_stop_ends_programs_and_persists_for_new_runs(real, lnk, work):
    srv = EchoServer()
    stubborn = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "stubborn",
         "--internet-host", "allowed.test", "--", "sh", "-c",
         "trap '' TERM; while :; do sleep 0.1; done"],
        env=lnk.env(), cwd=str(work), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    # Both start at once, on a new lnk.db.
    p, out = start_holder(lnk, work, "hold-2", srv.port)
    try:
        assert wait_for(lambda: notes(out), 15), "holder did not start"
        # The stubborn one started first, but may register later: stop
        # acts on what is registered when it runs.
        assert wait_for(lambda: "stubborn" in lnk(
            "sandbox", "traffic").stdout, 15), "stubborn did not start"
        cp = lnk("sandbox", "stop", check=True, timeout=30)
        assert p.wait(timeout=10) is not None
        assert stubborn.wait(timeout=10) is not None
        assert "stubborn" in cp.stdout and "hold-2" in cp.stdout
        # A sandbox started now has its wire closed too.
        p2, out2 = start_holder(lnk, work, "hold-3", srv.port)
        try:
            assert wait_for(lambda: notes(out2), 15)
            assert notes(out2)[0][1].strip() == "failed"
            st = lnk("sandbox", "paused", check=True).stdout
            assert "a stop is in force" in st and "hold-3" in st
            assert "by stop" in st
            # stop --off opens the wires again.
            lnk("sandbox", "stop", "--off", check=True)
            assert wait_for(lambda: any(n[1].strip() == "new-ok"
                                        for n in notes(out2)), 5)
        finally:
            p2.kill()
            p2.wait()
    finally:
        for q in (p, stubborn):
            if q.poll() is None:
                q.kill()
                q.wait()
        lnk("sandbox", "stop", "--off")


# Inside the sandbox: calls the wire refuses, through its HTTP proxy.
CALLER = r"""
import os, sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler(
    {"http": os.environ.get("HTTP_PROXY") or os.environ["http_proxy"]}))
for url in sys.argv[1:]:
    try:
        opener.open(url, timeout=5).read()
    except Exception:
        pass
"""


@pytest.mark.parametrize("rule,urls,text", [
    ("refused-rate", ["http://denied.test/"] * 30,
     "too many calls refused within a minute"),
    ("refused-targets", [f"http://d{i}.test/" for i in range(20)],
     "too many different targets refused within 10 minutes"),
    ("metadata", ["http://169.254.169.254/latest/meta-data/"],
     "a call to a cloud metadata address"),
])
def test_tripwires(real, lnk, work, rule, urls, text):
    (work / "caller.py").write_text(CALLER)
    name = f"trip-{rule}"
    cp = lnk("sandbox", "run", "--name", name, "--write", str(work),
             "--internet-host", "allowed.test", "--", "python3",
             f"{work}/caller.py", *urls, timeout=90,
             stdin=subprocess.DEVNULL)
    # The line on lnk's stderr in the sandbox's terminal.
    assert f"lnk: {name}: wire paused: {text}" in cp.stderr, cp.stderr
    assert f"'lnk sandbox resume {name}' opens it" in cp.stderr
    if rule == "metadata":
        return
    # One call short does not trip.
    cp2 = lnk("sandbox", "run", "--name", f"{name}-short", "--write",
              str(work), "--internet-host", "allowed.test", "--",
              "python3", f"{work}/caller.py", *urls[:-1], timeout=90,
              stdin=subprocess.DEVNULL)
    assert "wire paused" not in cp2.stderr, cp2.stderr


def test_trip_shows_in_paused(real, lnk, work):
    (work / "caller.py").write_text(CALLER + "\nimport time\ntime.sleep(30)\n")
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "trip-seen", "--write",
         str(work), "--internet-host", "allowed.test", "--", "python3",
         f"{work}/caller.py", "http://169.254.169.254/"],
        env=lnk.env(), cwd=str(work), stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    try:
        def tripped():
            j = json.loads(lnk("sandbox", "paused", "--json").stdout
                           or "{}")
            return [c for c in j.get("closed", [])
                    if c["name"] == "trip-seen"]
        rows = wait_for(tripped, 20, step=0.2)
        assert rows, "the tripped wire is not listed"
        assert rows[0]["why"] == "tripped"
        assert rows[0]["rule"] == "metadata"
        assert rows[0]["since"].endswith("Z")
        st = lnk("sandbox", "paused", check=True).stdout
        assert "tripped" in st and "metadata" in st
        lnk("sandbox", "resume", "trip-seen", check=True)
        assert not tripped()
    finally:
        p.kill()
        p.wait()


def trip_spec(work, tripwires):
    f = work / "trip.toml"
    f.write_text('version = 1\n[files]\nwrite = ["."]\n'
                 '[internet]\nhosts = ["allowed.test"]\n'
                 '[commands]\nallow = ["python3"]\n'
                 "[tripwires]\n" + tripwires)
    return f


def run_caller(lnk, work, name, grants, urls):
    (work / "caller.py").write_text(CALLER)
    return lnk("sandbox", "run", "--name", name, *grants, "--",
               "python3", f"{work}/caller.py", *urls, timeout=90,
               stdin=subprocess.DEVNULL, cwd=work)


@pytest.mark.parametrize("key,urls", [
    ("refused_calls = 3\n", ["http://denied.test/"] * 3),
    ("refused_targets = 2\n", ["http://d1.test/", "http://d2.test/"]),
])
def test_a_spec_lowers_a_tripwire(real, lnk, work, key, urls):
    """The spec's lower threshold trips after that many refusals; one
    short of it does not."""
    f = trip_spec(work, key)
    cp = run_caller(lnk, work, "trip-low", ["--spec", f, "--yes"], urls)
    assert "lnk: trip-low: wire paused: too many" in cp.stderr, cp.stderr
    cp = run_caller(lnk, work, "trip-short", ["--spec", f, "--yes"],
                    urls[:-1])
    assert "wire paused" not in cp.stderr, cp.stderr


def test_a_spec_cannot_loosen_the_settings_tripwire(real, lnk, work, home):
    """Settings lower refused_calls to 4; a spec's 10 is not taken (and
    lnk says so): the fourth refusal trips."""
    d = home / ".lnk" / "sandbox"
    d.mkdir(parents=True, exist_ok=True)
    (d / "settings.toml").write_text("[tripwires]\nrefused_calls = 4\n")
    f = trip_spec(work, "refused_calls = 10\n")
    cp = run_caller(lnk, work, "trip-set", ["--spec", f, "--yes"],
                    ["http://denied.test/"] * 4)
    assert "[tripwires] refused_calls: 10 is above the 4 calls your " \
        "settings give" in cp.stderr, cp.stderr
    assert "lnk: trip-set: wire paused: too many calls refused" \
        in cp.stderr, cp.stderr
    # A flag is a key too, and lowers further.
    cp = run_caller(lnk, work, "trip-flag",
                    ["--spec", f, "--yes", "--trip-refused-calls", "2"],
                    ["http://denied.test/"] * 2)
    assert "wire paused: too many calls refused" in cp.stderr, cp.stderr


# The env of these runs has PATH=/usr/bin:/bin; runuser lives in sbin.
RUNUSER = shutil.which("runuser", path="/usr/sbin:/sbin:/usr/bin:/bin") \
    or "runuser"


def as_user(user, home, *cmd):
    """runuser sets HOME to the user's own: give it the test's back."""
    return [RUNUSER, "-u", user, "--", "env", f"HOME={home}", *cmd]


def _user(name):
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "-m", name], check=True)
        return pwd.getpwnam(name)


def _owner_home(request):
    """A second account, lnk-ctl-owner, and a home of its own for the test,
    reachable by that account only (as a real one), with the environment
    to run lnk as it. Not under tmp_path: pytest's own folder is 0700, so
    root's is closed to the owner too."""
    owner = _user("lnk-ctl-owner")
    top = pathlib.Path(tempfile.mkdtemp(prefix="lnk-ctl-"))
    request.addfinalizer(lambda: shutil.rmtree(top, ignore_errors=True))
    os.chmod(top, 0o755)
    home = top / "owner-home"
    home.mkdir()
    os.chown(home, owner.pw_uid, owner.pw_gid)
    os.chmod(home, 0o700)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    return owner, home, env


def test_other_user_cannot_pause(real, lnk, work, request):
    if not IS_ROOT:
        pytest.skip("needs root to act as a second user")
    owner, home, env = _owner_home(request)
    other = _user("lnk-ctl-other")
    p = subprocess.Popen(
        as_user(owner.pw_name, home, LNK, "sandbox", "run", "--name",
                "owned", "--internet-host", "allowed.test", "--", "sleep",
                "30"), env=env, cwd="/",
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        sock = home / ".lnk" / "sandbox" / "run" / "owned.sock"
        assert wait_for(sock.exists, 15)
        # Another user, with the owner's HOME: the 0700 folder stops it.
        cp = subprocess.run(
            as_user(other.pw_name, home, LNK, "sandbox", "pause",
                    "owned"), env=env, cwd="/", capture_output=True,
            text=True, timeout=30)
        assert cp.returncode != 0
        # Root with the owner's HOME: the settings are not root's, so lnk
        # refuses to use them at all (the wire's SO_PEERCRED would refuse
        # root too: test_ctl.c).
        cp = subprocess.run([LNK, "sandbox", "pause", "owned"], env=env,
                            cwd="/", capture_output=True, text=True,
                            timeout=30)
        assert cp.returncode == 125, cp.stderr
        assert "not to you" in cp.stderr, cp.stderr
        # The owner's wire is still open.
        cp = subprocess.run(
            as_user(owner.pw_name, home, LNK, "sandbox", "paused",
                    "--json"), env=env, cwd="/", capture_output=True,
            text=True, timeout=30)
        assert json.loads(cp.stdout)["closed"] == []
    finally:
        p.kill()
        p.wait()


def test_home_through_a_link_of_the_users_works(lnk, home, tmp_path):
    """A home folder reached through a link the user owns (a home on
    another disk) is the user's: the settings check accepts it."""
    link = tmp_path / "home-link"
    link.symlink_to(home)
    env = {"HOME": str(link)}
    cp = lnk("sandbox", "paused", env=env)
    assert cp.returncode == 0, cp.stderr
    cp = lnk("sandbox", "run", "--", "true", env=env)
    assert cp.returncode == 0, cp.stderr
    assert (home / ".lnk" / "sandbox" / "lnk.db").exists()


def test_another_accounts_tool_call_is_refused(real, lnk, work, request):
    """Invariant 9 (what acts for the program outside does what was
    allowed): root's tool (root reaches every account's files) found
    another account's sandbox's tools socket and made a call there, with
    that sandbox's grants and in its log. The broker takes calls from
    the sandbox's own account only."""
    if not IS_ROOT:
        pytest.skip("needs root to act as a second account")
    owner, home, env = _owner_home(request)
    p = subprocess.Popen(
        as_user(owner.pw_name, home, LNK, "sandbox", "run", "--name",
                "toolsy", "--tool", "true", "--", "sleep", "30"), env=env,
        cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        run = home / ".lnk" / "sandbox" / "run"
        assert wait_for(lambda: list(run.glob("tools-*/tools.sock")), 15)
        path = str(next(run.glob("tools-*/tools.sock")))
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(3)
        s.connect(path)
        try:
            got = s.recv(4096)
        except socket.timeout:
            got = b""
        s.close()
        assert b"another account" in got, got
    finally:
        p.kill()
        p.wait()
