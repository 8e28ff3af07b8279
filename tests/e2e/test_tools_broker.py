"""The tools broker as a part of the run (docs/design.md, invariants 7 and
9): the process that reads the program's bytes is confined; a call whose
row cannot be written first is refused, never carried; refusals are
capped; a client that never speaks cannot hold a call's slot.

Each test attacks one promise as the program inside would, as root and as
an unprivileged user (run-all runs the file as both).
"""
import json
import os
import pathlib
import sqlite3
import subprocess
import time

import pytest

from conftest import on_lnk_path

PY = "/usr/bin/python3"

TOOL = """#!/bin/sh
echo "$*" >> "@OUT@/ran"
case "$1" in
  hold) echo started; sleep 3 ;;
  long) echo started; exec sleep 60 ;;
  *) echo "ran:$*" ;;
esac
"""


def tool_allowing(tmp_path, lnk, allow):
    """mytool on lnk's PATH with ALLOW its allow list for good (tools.toml),
    and the folder outside every grant where each run leaves its
    arguments."""
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o777)
    on_lnk_path(lnk, tmp_path / "bin", "mytool",
                TOOL.replace("@OUT@", str(out)))
    lnk("sandbox", "tool", "add", "mytool", "--allow", allow, check=True)
    return out


@pytest.fixture
def mytool(tmp_path, lnk):
    """mytool, every call allowed."""
    return tool_allowing(tmp_path, lnk, "*")


def ran(out):
    f = out / "ran"
    return f.read_text().splitlines() if f.exists() else []


def descendants(pid):
    """Every process below pid (by /proc's PPid)."""
    kids = {}
    for d in pathlib.Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            st = (d / "status").read_text()
        except OSError:
            continue
        pp = int(next(x for x in st.splitlines()
                      if x.startswith("PPid:")).split()[1])
        kids.setdefault(pp, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for k in kids.get(p, []):
            out.append(k)
            todo.append(k)
    return out


def status(pid):
    st = {}
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        st[k] = v.strip()
    return st


def socket_inodes(pid):
    """The inodes of the sockets pid holds."""
    out = set()
    fdd = pathlib.Path(f"/proc/{pid}/fd")
    try:
        fds = list(fdd.iterdir())
    except OSError:
        return out  # the sandbox's own (another user namespace), or gone
    for f in fds:
        try:
            t = os.readlink(f)
        except OSError:
            continue
        if t.startswith("socket:["):
            out.add(int(t[8:-1]))
    return out


def tools_listener_inodes():
    """The inodes of every listening tools.sock (from /proc/net/unix):
    other sandboxes' too, which no process of this one holds."""
    out = set()
    for line in pathlib.Path("/proc/net/unix").read_text().splitlines()[1:]:
        f = line.split()
        if len(f) >= 8 and f[-1].endswith("/tools.sock") and \
                ("/.lnk/sandbox/run/tools-" in f[-1] or
                 f[-1].startswith("/proc/self/fd/")):
            out.add(int(f[6]))
    return out


def test_every_process_holding_the_programs_calls_is_confined(lnk, work,
                                                               mytool):
    """Invariant 9: the tools broker parses the program's calls; the
    process that does (it holds the clients' socket) has no capability,
    no_new_privs and a seccomp filter, and it is not the process that
    starts tools. Read while a tool call runs."""
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--write", work, "--tool", "mytool", "--",
         "/bin/sh", "-c", "mytool hold"], cwd=work, env=lnk.env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 20
        while "hold" not in ran(mytool) and time.time() < deadline:
            time.sleep(0.05)
        assert ran(mytool) == ["hold"]
        inos = tools_listener_inodes()
        assert inos
        holders = [q for q in descendants(p.pid)
                   if inos & socket_inodes(q)]
        assert holders, "no process holds the tools' socket"
        for q in holders:
            st = status(q)
            assert st["NoNewPrivs"] == "1", st
            assert st["Seccomp"] == "2", st
            assert int(st["CapEff"], 16) == 0, st
            assert int(st["CapPrm"], 16) == 0, st
            assert int(st["CapBnd"], 16) == 0 or os.geteuid() != 0, st
        # the tool itself was started by an unconfined process: a tool
        # keeps the user's own powers
        tools = [q for q in descendants(p.pid)
                 if pathlib.Path(f"/proc/{q}/cmdline").read_bytes()
                 .startswith(b"sleep")]
        assert tools and all(status(q)["Seccomp"] == "0" for q in tools)
    finally:
        out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err


def fill_up(folder):
    """Writes into folder until its file system has no room left, as a
    program with a write folder on that file system could."""
    try:
        with open(folder / "fill", "wb") as fh:
            while True:
                fh.write(b"\0" * 4096)
                fh.flush()
    except OSError:
        pass  # full


def outcomes(sb, where):
    """The outcomes of the calls in the log under sb matching where."""
    db = sqlite3.connect(f"file:{sb}/lnk.db?mode=ro", uri=True)
    try:
        return [r[0] for r in db.execute(
            f"SELECT outcome FROM calls WHERE {where}")]
    finally:
        db.close()


def start_waiting(lnk, work, script):
    """A sandbox whose program waits for work/go before it runs script."""
    prog = (f"touch {work}/ready; while [ ! -e {work}/go ]; do sleep 0.05; "
            f"done; {script}")
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "lk", "--write", work,
         "--tool", "mytool", "--", "/bin/sh", "-c", prog], cwd=work, env=lnk.env(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 20
    while not (work / "ready").exists() and time.time() < deadline:
        time.sleep(0.05)
    assert (work / "ready").exists()
    return p


def test_no_tool_call_runs_while_the_log_is_locked(lnk, home, work, mytool):
    """Invariant 7: a call's row is written before it is carried. Another
    process holds lnk.db's write lock (a sqlite3 shell in a transaction):
    every call is refused with the reason, none runs, and lnk's end says
    how many were refused."""
    p = start_waiting(lnk, work,
                      "for i in 1 2 3; do mytool run$i; echo st=$?; done; "
                      f"touch {work}/done")
    db = sqlite3.connect(home / ".lnk" / "sandbox" / "lnk.db",
                         isolation_level=None, timeout=0)
    db.execute("BEGIN IMMEDIATE")
    try:
        (work / "go").touch()
        # the lock is let go once the calls are made: lnk's own end
        # (the registry's row) would only wait for it
        deadline = time.time() + 60
        while not (work / "done").exists() and time.time() < deadline:
            time.sleep(0.05)
    finally:
        db.execute("ROLLBACK")
        db.close()
    out, err = p.communicate(timeout=60)
    assert ran(mytool) == []
    assert out.count("st=126") == 3, (out, err)
    assert "call log cannot be written" in err
    assert "3 tool calls were refused" in err


def test_no_tool_call_runs_when_the_log_cannot_grow(lnk, home, work, mytool,
                                                    is_root, tmp_path):
    """Invariant 7 with a full disk: ~/.lnk on a file system with no room
    left (a small tmpfs, as root; a program's write folder on the same
    file system would fill it the same way): the call is refused, or its
    row is written before it runs."""
    if not is_root:
        pytest.skip("mounting a full file system needs root")
    sb = home / ".lnk" / "sandbox"
    lnk("sandbox", "log", check=False)  # makes ~/.lnk and lnk.db
    sb.mkdir(parents=True, exist_ok=True)
    # The log's folder is a small file system of its own holding a copy of
    # the log; once the sandbox runs, it is filled, as a program with a
    # write folder on the same file system could fill it.
    copy = tmp_path / "db"
    copy.mkdir()
    for f in sb.iterdir():
        if f.is_file():
            (copy / f.name).write_bytes(f.read_bytes())
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700",
                    "tmpfs", str(sb)], check=True)
    try:
        for f in copy.iterdir():
            (sb / f.name).write_bytes(f.read_bytes())
        p = start_waiting(lnk, work, "mytool one; echo st=$?")
        fill_up(sb)
        (work / "go").touch()
        out, err = p.communicate(timeout=60)
        # read while the full file system is still there
        logged = outcomes(sb, "verb = 'tool' AND target LIKE 'mytool one%'")
    finally:
        subprocess.run(["umount", "-l", str(sb)])
    # Refused, or run with its row written: never run unlogged. (SQLite
    # may still write into room its files already hold.)
    if ran(mytool):
        assert logged and logged[0] in ("ended", "allowed"), (logged, err)
        assert "st=0" in out
    else:
        assert "st=126" in out and "call log cannot be written" in err


def rows(lnk, name):
    cp = lnk("sandbox", "log", "--json", "--lines", "100000", "--sandbox",
             name, check=True)
    return [json.loads(x) for x in cp.stdout.splitlines()]


FLOOD = r"""
import socket, time
held = []
for i in range(32):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect("/run/lnk/tools.sock")
    held.append(s)
n = 0
end = time.time() + 3
while time.time() < end:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect("/run/lnk/tools.sock")
    s.close()
    n += 1
print("flood", n)
time.sleep(6)  # past the deadline of the 32 silent clients
"""


def test_silent_clients_and_a_flood_of_refusals_are_bounded(lnk, work, mytool,
                                                            tmp_path):
    """Invariant 7 (a flood of refused calls cannot fill the log) and the
    slots: 32 connections that never send hold every slot, then thousands
    of refused connections; the log takes a bounded number of rows and
    counts the rest, and once the silent ones are cut off at their
    deadline a real call runs."""
    (work / "flood.py").write_text(FLOOD)
    cp = lnk.run("--name", "fl", "--write", work, "--tool", "mytool", "--",
                 "/bin/sh", "-c",
                 f"{PY} flood.py; mytool after; echo st=$?", timeout=120)
    assert cp.returncode == 0, cp.stderr
    n = int(cp.stdout.split("flood ")[1].split()[0])
    assert "st=0" in cp.stdout, cp.stdout
    assert ran(mytool) == ["after"]
    rs = [r for r in rows(lnk, "fl") if r["verb"] == "tool"]
    refused = [r for r in rs if r["outcome"] == "refused"]
    assert n > 1200, n  # enough to pass the burst
    assert len(refused) <= 1000 + 20, len(refused)
    counted = sum(int(r["reason"].split()[0]) for r in refused
                  if "not logged one by one" in r["reason"])
    one_by_one = len(refused) - sum(
        1 for r in refused if "not logged one by one" in r["reason"])
    # every refusal is a row or in a count: 32 deadlines and the flood
    assert one_by_one + counted >= n + 32 - 5, (one_by_one, counted, n)
    assert any("within 5 s" in r["reason"] for r in refused)


CONNECT5 = r"""
import socket, sys, time
for i in range(5):
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", int(sys.argv[1])))
        s.sendall(b"x")
        # the server's answer came back: the call was carried (a wire
        # that refuses it closes the connection it accepted)
        print("call", i, "carried" if s.recv(1) == b"y" else "refused")
    except OSError as e:
        print("call", i, "refused", e.errno)
    s.close()
    time.sleep(0.4)
"""


def test_wire_carries_no_call_unlogged_on_a_full_disk(lnk, home, work,
                                                      is_root, tmp_path):
    """Invariant 7 for the wire: the disk under ~/.lnk fills while the
    sandbox runs (as a program with a write folder on the same file
    system could fill it); five calls after that are each carried with
    its row in lnk.db itself, or refused. None is carried and only
    printed on stderr."""
    import socket as so
    import threading
    if not is_root:
        pytest.skip("mounting a full file system needs root")
    srv = so.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    port = srv.getsockname()[1]

    def serve():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            try:
                c.recv(1)
                c.sendall(b"y")
            except OSError:
                pass
            c.close()
    threading.Thread(target=serve, daemon=True).start()
    (work / "c5.py").write_text(CONNECT5)
    sb = home / ".lnk" / "sandbox"
    sb.mkdir(parents=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0700",
                    "tmpfs", str(sb)], check=True)
    try:
        prog = (f"touch {work}/ready; while [ ! -e {work}/go ]; do "
                f"sleep 0.05; done; {PY} c5.py {port}")
        p = subprocess.Popen(
            [lnk.bin, "sandbox", "run", "--name", "full", "--write", work,
             "--port", str(port), "--", "/bin/sh", "-c", prog], cwd=work,
            env=lnk.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        deadline = time.time() + 20
        while not (work / "ready").exists() and time.time() < deadline:
            time.sleep(0.05)
        fill_up(sb)
        (work / "go").touch()
        out, err = p.communicate(timeout=60)
        rows = outcomes(sb, f"verb = 'tcp' AND target = 'localhost:{port}'")
    finally:
        subprocess.run(["umount", "-l", str(sb)])
        srv.close()
    carried = out.count("carried")
    assert carried + out.count("refused") == 5, (out, err)
    logged = [r for r in rows if r in ("allowed", "ended")]
    assert len(logged) >= carried, (rows, out, err)
    assert "follow here instead" not in err, err


BOTH = r"""
import os, socket, time, urllib.parse
held = []
for i in range(32):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect("/run/lnk/tools.sock")
    held.append(s)
for i in range(700):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect("/run/lnk/tools.sock")
    s.close()
p = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
# The wire pauses itself within the burst (20 targets refused): a call
# it closes while pausing may end before its answer (reset, or no
# bytes), counted here, not by the wire.
lost = 0
for i in range(700):
    try:
        c = socket.create_connection((p.hostname, p.port))
        c.sendall(b"CONNECT refused%d.lnk-test:443 HTTP/1.1\r\n"
                  b"Host: refused%d.lnk-test:443\r\n\r\n" % (i, i))
        lost += not c.recv(100)
        c.close()
    except OSError:
        lost += 1
print("done lost=%d" % lost)
"""


def test_wire_and_tools_share_one_cap_on_refusals(lnk, work, mytool):
    """Invariant 7 across channels: 1400 refusals, half the wire's, half
    the tools broker's, within one burst: the log takes at most one burst
    of rows for the sandbox, whichever channel refused, and counts the
    rest."""
    (work / "both.py").write_text(BOTH)
    cp = lnk.run("--name", "cap", "--write", work, "--tool", "mytool",
                 "--internet-host", "granted.lnk-test", "--", PY,
                 "both.py", timeout=120)
    assert "done" in cp.stdout, cp.stderr
    lost = int(cp.stdout.split("lost=")[1].split()[0])
    assert lost < 10, cp.stdout
    refused = [r for r in rows(lnk, "cap") if r["outcome"] == "refused"]
    summary = [r for r in refused if "not logged one by one" in r["reason"]]
    assert {r["verb"] for r in refused} >= {"tool", "connect"}, refused[:3]
    assert len(refused) - len(summary) <= 1000 + 10, len(refused)
    counted = sum(int(r["reason"].split()[0]) for r in summary)
    assert len(refused) - len(summary) + counted >= 1400 - lost, \
        (len(refused), counted, lost,
         sorted({(r["verb"], r["outcome"], r["reason"][:60])
                 for r in rows(lnk, "cap")}))


PAUSED = """
mytool before; echo st1=$?
mytool long > long.out &
while ! grep -q started long.out 2>/dev/null; do sleep 0.05; done
touch s1; while [ ! -e paused ]; do sleep 0.05; done
wait $!; echo stlong=$?
mytool during; echo st2=$?
touch s2; while [ ! -e resumed ]; do sleep 0.05; done
mytool after; echo st3=$?
"""


def wait_file(f, s=30):
    end = time.time() + s
    while not f.exists() and time.time() < end:
        time.sleep(0.05)
    assert f.exists(), f


def test_a_closed_wire_closes_the_tools_too(lnk, work, mytool):
    """Invariant 7, one log for everything carried: closing a sandbox's
    wire (pause) refuses every new call, a tool's too, and ends the open
    ones, a tool still running among them; the log says why; resume
    opens both again. A tool runs outside as the person: a paused
    sandbox must not go on acting through it."""
    (work / "p.sh").write_text(PAUSED)
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "pt", "--write", work,
         "--internet-host", "granted.lnk-test", "--tool", "mytool", "--",
         "/bin/sh", "p.sh"], cwd=work, env=lnk.env(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_file(work / "s1")
        lnk("sandbox", "pause", "pt", check=True)
        (work / "paused").touch()
        wait_file(work / "s2")
        lnk("sandbox", "resume", "pt", check=True)
        (work / "resumed").touch()
        out, err = p.communicate(timeout=50)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert "st1=0" in out and "st3=0" in out, (out, err)
    assert "st2=126" in out, (out, err)
    assert "stlong=0" not in out, (out, err)
    assert ran(mytool) == ["before", "long", "after"], (ran(mytool), err)
    assert "paused" in err, err
    rs = {r["target"]: r for r in rows(lnk, "pt") if r["verb"] == "tool"}
    assert rs["mytool during"]["outcome"] == "refused", rs
    assert rs["mytool during"]["reason"].startswith("paused"), rs
    assert rs["mytool long"]["outcome"] == "failed", rs
    assert "paused" in rs["mytool long"]["reason"], rs


TRIP = r"""
import os, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler(
    {"http": os.environ["http_proxy"]}))
for i in range(30):
    try:
        opener.open("http://denied.test/", timeout=5).read()
    except Exception:
        pass
"""


def test_a_tripped_wire_refuses_the_tools_too(lnk, work, mytool):
    """Invariant 7: a wire that pauses itself (30 refused calls within a
    minute) refuses the program's tool calls too, and the log says which
    rule closed it."""
    (work / "trip.py").write_text(TRIP)
    cp = lnk.run("--name", "tt", "--write", work, "--internet-host",
                 "granted.lnk-test", "--tool", "mytool", "--", "/bin/sh",
                 "-c", f"{PY} trip.py; mytool after; echo st=$?",
                 timeout=120, stdin=subprocess.DEVNULL)
    assert "wire paused" in cp.stderr, cp.stderr
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    assert ran(mytool) == []
    rs = [r for r in rows(lnk, "tt") if r["verb"] == "tool"]
    assert rs and rs[-1]["outcome"] == "refused", rs
    assert "too many calls refused" in rs[-1]["reason"], rs


def test_pause_closes_the_tools_of_a_sandbox_without_a_wire(lnk, work,
                                                           mytool):
    """Invariant 7: a sandbox granted tools but no network has no wire;
    pause closed nothing and a granted tool went on running outside.
    pause closes its tools (the registry's row the broker reads), resume
    opens them, and the log says why."""
    (work / "p.sh").write_text(PAUSED)
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "nw", "--write", work,
         "--tool", "mytool", "--", "/bin/sh", "p.sh"], cwd=work,
        env=lnk.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    try:
        wait_file(work / "s1")
        cp = lnk("sandbox", "pause", "nw", check=True)
        assert "closed" in cp.stdout, cp.stdout
        (work / "paused").touch()
        wait_file(work / "s2")
        lnk("sandbox", "resume", "nw", check=True)
        (work / "resumed").touch()
        out, err = p.communicate(timeout=50)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert "st1=0" in out and "st3=0" in out, (out, err)
    assert "st2=126" in out, (out, err)
    assert "stlong=0" not in out, (out, err)
    assert ran(mytool) == ["before", "long", "after"], (ran(mytool), err)
    rs = {r["target"]: r for r in rows(lnk, "nw") if r["verb"] == "tool"}
    assert rs["mytool during"]["reason"].startswith("paused"), rs


@pytest.fixture
def oktool(tmp_path, lnk):
    """mytool whose only allowed call is `mytool ok`."""
    return tool_allowing(tmp_path, lnk, "ok")


PROBE_TOOLS = """
i=0
while [ $i -lt 30 ]; do mytool probe$i; i=$((i+1)); done
sleep 1.5
mytool ok; echo st=$?
"""


# 25 refused calls (under the 30 a minute) to 25 targets that differ only
# past a long common start, or only in an argument the log's row leaves
# out: the 20-targets rule must see 25 targets.
PROBE_LONG = """
pad=$(printf '%0300d' 0)
i=0
while [ $i -lt 25 ]; do mytool "$pad$i"; i=$((i+1)); done
i=0
while [ $i -lt 25 ]; do
  mytool a b c d e f g h "m$i" i j k l m n o p q r s t u v w x y z
  i=$((i+1))
done
sleep 1.5
mytool ok; echo st=$?
"""


@pytest.mark.parametrize("wire", [True, False], ids=["wire", "no-wire"])
def test_targets_that_differ_late_are_different_targets(lnk, work, oktool,
                                                        wire):
    """Invariant 7, the tripwires: refused calls to 25 different targets
    within 10 minutes pause the sandbox, however alike their starts. The
    box that tells the wire cut a target at 159 bytes, and a sandbox
    without a wire counted the log's row, which leaves out the middle
    arguments of a long call: 25 calls counted as one target, and the
    program probed on."""
    (work / "probe.sh").write_text(PROBE_LONG)
    net = ["--internet-host", "granted.lnk-test"] if wire else []
    cp = lnk.run("--name", "tl", "--write", work, *net, "--tool", "mytool",
                 "--", "/bin/sh", "probe.sh", timeout=120,
                 stdin=subprocess.DEVNULL)
    assert "paused" in cp.stderr, cp.stderr[-2000:]
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr[-2000:])


def test_refused_tool_calls_trip_the_wire(lnk, work, oktool):
    """Invariant 7, the tripwires: 30 refused calls within a minute (or 20
    targets) pause the sandbox's wire whichever channel refused them. A
    program refused tool call after tool call probes what it may run
    outside as the person; before, only the wire's own refusals counted,
    and the tools it was granted stayed open to it."""
    (work / "probe.sh").write_text(PROBE_TOOLS)
    cp = lnk.run("--name", "tp", "--write", work, "--internet-host",
                 "granted.lnk-test", "--tool", "mytool", "--", "/bin/sh",
                 "probe.sh", timeout=120, stdin=subprocess.DEVNULL)
    assert "wire paused" in cp.stderr, cp.stderr
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    assert ran(oktool) == [], ran(oktool)
    rs = [r for r in rows(lnk, "tp") if r["verb"] == "tool"]
    assert rs[-1]["target"] == "mytool ok", rs[-1]
    assert rs[-1]["reason"].startswith("paused"), rs[-1]


def test_refused_tool_calls_trip_a_sandbox_without_a_wire(lnk, work,
                                                          oktool):
    """Invariant 7, the tripwires, for a sandbox granted tools but no
    network (no wire): the refused calls pause its tools and pages, the
    person is told on lnk's terminal, `paused` says why, and resume opens
    them again."""
    (work / "probe.sh").write_text(PROBE_TOOLS + """
touch s1; while [ ! -e resumed ]; do sleep 0.05; done
mytool ok; echo st2=$?
""")
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "tw", "--write", work,
         "--tool", "mytool", "--", "/bin/sh", "probe.sh"], cwd=work,
        env=lnk.env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        wait_file(work / "s1")
        cp = lnk("sandbox", "paused", check=True)
        assert "tw" in cp.stdout and "tripped" in cp.stdout, cp.stdout
        lnk("sandbox", "resume", "tw", check=True)
        (work / "resumed").touch()
        out, err = p.communicate(timeout=50)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert "tools and pages paused" in err, err
    assert "st=126" in out and "st2=0" in out, (out, err)
    assert ran(oktool) == ["ok"], ran(oktool)
    rs = [r for r in rows(lnk, "tw") if r["verb"] == "tool"]
    closed = [r for r in rs if r["target"] == "mytool ok"]
    assert closed[0]["reason"].startswith("paused"), closed


FIND_SOCKETS = r"""
import os, socket, stat
reached = []
for root in ("/tmp", "/var/tmp", "/dev/shm", "/run/user",
             os.environ.get("HOME", "/nonexistent")):
    for dp, dns, fns in os.walk(root):
        for f in fns:
            p = os.path.join(dp, f)
            try:
                if not stat.S_ISSOCK(os.lstat(p).st_mode):
                    continue
            except OSError:
                continue
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.settimeout(1)
            try:
                s.connect(p)
                reached.append(p)
            except OSError:
                pass
            s.close()
print("reached", reached)
"""


def test_a_tool_cannot_reach_any_sandboxs_tools_socket(lnk, work, mytool,
                                                      tmp_path):
    """Invariant 9 (whatever acts for the program outside is confined): a
    granted tool that runs what the program names (a script of its
    folder) runs outside as the person; the sockets on which sandboxes
    ask for tool calls sat in the host's /tmp, so it reached another
    sandbox's and made calls with that sandbox's grants, in its name and
    its log. No sandbox's tools socket is in a tool's reach."""
    on_lnk_path(lnk, tmp_path / "bin", "runpy",
                f"#!/bin/sh\nexec {PY} \"$@\"\n")
    lnk("sandbox", "tool", "add", "runpy", "--allow", "*", check=True)
    (work / "find.py").write_text(FIND_SOCKETS)
    other = tmp_path / "other"
    other.mkdir()
    other.chmod(0o777)
    victim = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "victim", "--write", other,
         "--tool", "mytool", "--", "/bin/sh", "-c",
         "touch ready; sleep 60"], cwd=other, env=lnk.env(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_file(other / "ready")
        cp = lnk.run("--name", "prober", "--write", work, "--tool", "runpy",
                     "--", "runpy", "find.py", timeout=120,
                     stdin=subprocess.DEVNULL)
    finally:
        victim.kill()
        victim.communicate()
    assert "reached" in cp.stdout, (cp.stdout, cp.stderr)
    assert "tools.sock" not in cp.stdout, cp.stdout
