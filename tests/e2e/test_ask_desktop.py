"""Asking on the desktop (lnk-sandbox(1), TOOLS AND ASKING): with a desktop
session in lnk's environment (a display and a session bus), a question is
shown as a notification with Allow and Deny actions, or with a dialog tool
where the notification server has no actions.

Each test starts its own session bus (dbus-daemon) and the notification
server of notify_server.py on it, which records every call and answers as
the test says. lnk runs without a terminal throughout: the desktop alone
is someone to ask. The tool is test_tools.py's script outside every grant.
"""
import json
import os
import pathlib
import shutil
import subprocess
import time

import pytest

from test_tools import calls, opened, opener, tool  # noqa: F401 (fixtures)

PY = "/usr/bin/python3"
SERVER = pathlib.Path(__file__).with_name("notify_server.py")


def _missing():
    if not shutil.which("dbus-daemon"):
        return "dbus-daemon is missing (./install.sh --deps installs it)"
    cp = subprocess.run([PY, "-c", "import dbus, gi.repository.GLib"],
                        capture_output=True)
    if cp.returncode:
        return ("python3-dbus or python3-gi is missing (./install.sh --deps "
                "installs them)")
    return None


class Desktop:
    """A session bus of the test's, and its notification server."""

    def __init__(self, root):
        self.root = root
        self.run = root / "run"
        self.run.mkdir(mode=0o700, parents=True)
        self.record = root / "record.jsonl"
        self.procs = []
        cp = subprocess.run(
            ["dbus-daemon", "--session", "--fork", "--print-address=1",
             "--print-pid=1", f"--address=unix:path={self.run}/bus"],
            capture_output=True, text=True, timeout=30, check=True)
        addr, pid = cp.stdout.split()[:2]
        self.address, self.bus_pid = addr, int(pid)
        self.env = {"DBUS_SESSION_BUS_ADDRESS": self.address,
                    "DISPLAY": ":99"}

    def server(self, act="none", actions=True):
        args = [PY, str(SERVER), "--record", str(self.record),
                "--act", act]
        if not actions:
            args.append("--no-actions")
        p = subprocess.Popen(args, stdout=subprocess.PIPE, text=True,
                             env={"DBUS_SESSION_BUS_ADDRESS": self.address,
                                  "PATH": "/usr/bin:/bin"})
        self.procs.append(p)
        assert p.stdout.readline().strip() == "ready"
        return p

    def rows(self, call=None):
        if not self.record.exists():
            return []
        rows = [json.loads(x) for x in self.record.read_text().splitlines()]
        return [r for r in rows if call is None or r["call"] == call]

    def wait_for(self, call, timeout=30):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.rows(call):
                return self.rows(call)
            time.sleep(0.05)
        raise AssertionError(f"the server got no {call}: {self.rows()}")

    def stop(self):
        """Ends the server and the bus (once: the bus's pid is not used
        again after)."""
        for p in self.procs:
            p.kill()
            p.wait()
        self.procs = []
        if self.bus_pid:
            try:
                os.kill(self.bus_pid, 9)
            except ProcessLookupError:
                pass
            self.bus_pid = None


@pytest.fixture
def desktop(tmp_path):
    why = _missing()
    if why:
        pytest.skip(why)
    d = Desktop(tmp_path / "desktop")
    yield d
    d.stop()


@pytest.fixture
def on_desktop(lnk, tool, desktop):
    """lnk's environment with the desktop session (and the tool's PATH)."""
    base = lnk.env
    lnk.env = lambda extra=None: {**base(extra), **desktop.env}
    return desktop


def run_asking(lnk, script, *grants, **kw):
    return lnk.run("--name", "desk", "--tool", "mytool pr", *grants, "--",
                   "/bin/sh", "-c", script, timeout=90, **kw)


def log_of(lnk):
    out = lnk("sandbox", "log", "--json", "--sandbox", "desk").stdout
    return [json.loads(x) for x in out.splitlines()]


def start_asking(lnk, script):
    """lnk run in the background, its question waiting; returns the
    process and the question."""
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "desk", "--tool", "mytool pr",
         "--", "/bin/sh", "-c", script],
        cwd=str(lnk.cwd), env=lnk.env(), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 30
    while time.monotonic() < end:
        asks = json.loads(lnk("sandbox", "asks", "--json").stdout)
        if asks:
            return p, asks[0]
        time.sleep(0.05)
    p.kill()
    raise AssertionError("no question: " + p.communicate()[1])


@pytest.mark.parametrize("bus", ["address", "runtime-dir"])
def test_allow_runs_the_call_once_with_its_status(lnk, tool, on_desktop,
                                                  bus):
    if bus == "runtime-dir":
        # the bus found at $XDG_RUNTIME_DIR/bus, as systemd puts it
        base = lnk.env
        lnk.env = lambda extra=None: {
            **{k: v for k, v in base(extra).items()
               if k != "DBUS_SESSION_BUS_ADDRESS"},
            "XDG_RUNTIME_DIR": str(on_desktop.run)}
    on_desktop.server(act="allow")
    cp = run_asking(lnk, "mytool status x; echo st=$?")
    assert "st=7" in cp.stdout, (cp.stdout, cp.stderr)
    assert calls(tool) == ["args:status x"]
    [n] = on_desktop.rows("Notify")
    assert n["app"] == "lnk"
    assert n["actions"] == ["allow", "Allow", "deny", "Deny"]
    assert n["hints"] == {"urgency": 2, "resident": True}
    assert n["expire"] == 120 * 1000
    assert "desk" in n["summary"]
    assert n["body"].startswith("mytool status ... (2 arguments), in /\n"
                                "  1  status\n  2  x\n\nAllow"), n["body"]
    rows = log_of(lnk)
    assert [(r["verb"], r["target"], r["outcome"]) for r in rows] == [
        ("tool", "mytool status x", "ended")], rows  # the whole call
    assert "answered yes, exit status 7" in rows[0]["reason"], rows
    assert json.loads(lnk("sandbox", "asks", "--json").stdout) == []


def test_deny_refuses_the_call(lnk, tool, on_desktop):
    on_desktop.server(act="deny")
    cp = run_asking(lnk, "mytool issue close 1; echo st=$?")
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    assert calls(tool) == []
    assert len(on_desktop.rows("Notify")) == 1
    rows = log_of(lnk)
    assert [(r["verb"], r["outcome"]) for r in rows] == [
        ("tool", "refused")], rows
    assert "answered no" in rows[0]["reason"]


def test_answer_from_another_shell_closes_the_notification(lnk, tool,
                                                           on_desktop):
    on_desktop.server(act="none")
    p, ask = start_asking(lnk, "mytool status y; echo st=$?")
    [n] = on_desktop.wait_for("Notify")
    lnk("sandbox", "answer", ask["id"], "yes", check=True)
    out, err = p.communicate(timeout=60)
    assert "st=7" in out, (out, err)
    assert calls(tool) == ["args:status y"]
    closed = on_desktop.wait_for("CloseNotification")
    assert [c["id"] for c in closed] == [n["id"]]


def test_notification_closed_without_an_action_keeps_the_question(
        lnk, tool, on_desktop):
    on_desktop.server(act="close")
    p, ask = start_asking(lnk, "mytool issue close 2; echo st=$?")
    on_desktop.wait_for("closed")
    # closed on the screen is no answer: the question still waits
    asks = json.loads(lnk("sandbox", "asks", "--json").stdout)
    assert [a["id"] for a in asks] == [ask["id"]]
    lnk("sandbox", "answer", ask["id"], "no", check=True)
    out, err = p.communicate(timeout=60)
    assert "st=126" in out, (out, err)
    assert calls(tool) == []
    assert "answered no" in log_of(lnk)[0]["reason"]


def test_no_answer_within_the_wait_refuses_and_closes(lnk, tool,
                                                      on_desktop):
    d = lnk.home / ".lnk" / "sandbox"
    d.mkdir(parents=True, exist_ok=True)
    (d / "settings.toml").write_text("ask_wait = 1\n")
    on_desktop.server(act="none")
    cp = run_asking(lnk, "mytool issue close 3; echo st=$?")
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    assert calls(tool) == []
    [n] = on_desktop.rows("Notify")
    assert n["expire"] == 1000
    closed = on_desktop.wait_for("CloseNotification")
    assert [c["id"] for c in closed] == [n["id"]]
    assert "no answer within 1 s" in log_of(lnk)[0]["reason"]


def test_sandbox_ended_while_asking_closes_the_notification(lnk, tool,
                                                            on_desktop):
    on_desktop.server(act="none")
    p, ask = start_asking(lnk, "mytool issue close 7; echo st=$?")
    [n] = on_desktop.wait_for("Notify")
    p.terminate()
    p.communicate(timeout=60)
    closed = on_desktop.wait_for("CloseNotification")
    assert [c["id"] for c in closed] == [n["id"]]
    assert json.loads(lnk("sandbox", "asks", "--json").stdout) == []
    assert calls(tool) == []


def test_bus_gone_leaves_no_one_to_ask(lnk, tool, on_desktop):
    """The session bus ends while a question waits: that question keeps
    waiting (here until its expiry), and the next call, with no terminal
    and no desktop left, is refused at once with the hint."""
    d = lnk.home / ".lnk" / "sandbox"
    d.mkdir(parents=True, exist_ok=True)
    (d / "settings.toml").write_text("ask_wait = 5\n")
    on_desktop.server(act="none")
    p, ask = start_asking(lnk, "mytool issue close 5; echo st=$?; "
                          "mytool issue close 6; echo st=$?")
    on_desktop.wait_for("Notify")
    on_desktop.stop()
    out, err = p.communicate(timeout=60)
    assert out.splitlines() == ["st=126", "st=126"], (out, err)
    assert "no answer within 5 s" in log_of(lnk)[0]["reason"]
    assert err.count("asks to run, outside") == 1, err
    # the second call is refused with exactly its own call to allow
    assert "there is no one to ask" in err
    assert "lnk sandbox tool add mytool --allow 'issue close 6'" in err
    assert calls(tool) == []


def test_question_text_arrives_escaped(lnk, tool, on_desktop):
    """The program chooses the question's words: markup shows as typed,
    controls as their escapes, in the body the server renders."""
    on_desktop.server(act="deny")
    cp = run_asking(lnk, "mytool '<b>x</b>&amp;' "
                    "\"$(printf 'a\\033]0;t\\007\\nb')\" "
                    "'<a href=\"file:///\">y</a>'; echo st=$?")
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    [n] = on_desktop.rows("Notify")
    body = n["body"]
    assert body.startswith(
        "mytool '&lt;b&gt;x&lt;/b&gt;&amp;amp;' ... (3 arguments), in /\n"
        "  1  '&lt;b&gt;x&lt;/b&gt;&amp;amp;'\n"
        "  2  'a\\x1b]0;t\\x07\\x0ab'\n"
        "  3  '&lt;a href=\"file:///\"&gt;y&lt;/a&gt;'\n\n"), body
    assert not any(ord(ch) < 0x20 and ch != "\n" for ch in body), body
    assert "<" not in body and ">" not in body
    assert "&" not in body.replace("&lt;", "").replace(
        "&gt;", "").replace("&amp;", ""), body


def test_long_call_is_never_asked(lnk, tool, on_desktop):
    """The program pads its call to push `log --output=...` out of the
    notification: a call that cannot be shown whole is never put to the
    person, on the desktop either; it is refused, naming what allows
    exactly it."""
    on_desktop.server(act="allow")
    cp = run_asking(lnk, "set -- log --output=x; i=0; "
                    "while [ $i -lt 500 ]; do set -- \"$@\" pad; "
                    "i=$((i+1)); done; mytool \"$@\" status --short; "
                    "echo st=$?")
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    assert "too long to show whole" in cp.stderr, cp.stderr
    assert on_desktop.rows("Notify") == []
    assert calls(tool) == []


def _dialog(tool, name, status):
    """A recording dialog tool (zenity or kdialog) on lnk's PATH outside,
    answering with its exit status."""
    rec = tool / f"{name}.args"
    d = tool.parent / "toolbin" / name
    d.write_text("#!/usr/bin/python3\nimport json, sys\n"
                 f"open({str(rec)!r}, 'a').write(json.dumps(sys.argv[1:]) "
                 "+ '\\n')\n"
                 f"sys.exit({status})\n")
    d.chmod(0o755)
    return rec


def test_no_actions_and_no_dialog_tool_is_no_one_to_ask(lnk, tool,
                                                        on_desktop):
    for name in ("zenity", "kdialog"):
        if shutil.which(name, path=lnk.env()["PATH"]):
            pytest.skip(f"this machine has {name}, which would be shown")
    on_desktop.server(actions=False)
    cp = run_asking(lnk, "mytool issue close 4; echo st=$?")
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    assert "there is no one to ask" in cp.stderr, cp.stderr
    assert on_desktop.rows("GetCapabilities")
    assert on_desktop.rows("Notify") == []
    assert json.loads(lnk("sandbox", "asks", "--json").stdout) == []


@pytest.mark.parametrize("status,ran", [(0, True), (1, False)])
def test_no_actions_falls_back_to_zenity(lnk, tool, on_desktop, status, ran):
    rec = _dialog(tool, "zenity", status)
    on_desktop.server(actions=False)
    cp = run_asking(lnk, "mytool '<i>q</i>'; echo st=$?")
    assert (f"st={0 if ran else 126}") in cp.stdout, (cp.stdout, cp.stderr)
    assert calls(tool) == (["args:<i>q</i>"] if ran else [])
    assert on_desktop.rows("Notify") == []
    [args] = [json.loads(x) for x in rec.read_text().splitlines()]
    assert args[0] == "--question"
    assert "--ok-label=Allow" in args and "--cancel-label=Deny" in args
    assert "--timeout=120" in args
    assert any(a.startswith("--text=mytool '&lt;i&gt;q&lt;/i&gt;' "
                            "(1 argument), in /\n"
                            "  1  '&lt;i&gt;q&lt;/i&gt;'\n\nAllow")
               for a in args), args


def test_no_actions_falls_back_to_kdialog(lnk, tool, on_desktop):
    rec = _dialog(tool, "kdialog", 0)
    on_desktop.server(actions=False)
    cp = run_asking(lnk, "mytool a; echo st=$?")
    assert "st=0" in cp.stdout, (cp.stdout, cp.stderr)
    assert calls(tool) == ["args:a"]
    [args] = [json.loads(x) for x in rec.read_text().splitlines()]
    assert args[args.index("--yesno") + 1].startswith(
        "<qt><pre>mytool a (1 argument), in /\n  1  a</pre><p>Allow")
    assert args[args.index("--yes-label") + 1] == "Allow"
    assert args[args.index("--no-label") + 1] == "Deny"


def test_page_that_asks_goes_to_the_desktop(lnk, opener, on_desktop):
    on_desktop.server(act="allow")
    cp = lnk.run("--browser-open", "https://example.org/", "--", "/bin/sh",
                 "-c", "xdg-open https://other.test/p; echo st=$?",
                 timeout=90)
    assert "st=0" in cp.stdout, (cp.stdout, cp.stderr)
    assert opened(opener) == ["https://other.test/p"]
    [n] = on_desktop.rows("Notify")
    assert n["body"].startswith("open page https://other.test/p "
                                "(1 argument)\n"
                                "  1  https://other.test/p\n\n"), n


def test_without_a_display_nothing_is_shown(lnk, tool, on_desktop):
    """A session bus without a display is no desktop session: no one to
    ask, as before."""
    on_desktop.server(act="allow")
    base = lnk.env
    lnk.env = lambda extra=None: {**base(extra), "DISPLAY": ""}
    cp = lnk.run("--tool", "mytool pr", "--", "/bin/sh", "-c",
                 "mytool issue 5; echo st=$?")
    assert "st=126" in cp.stdout and "no one to ask" in cp.stderr, cp.stderr
    assert on_desktop.rows() == []
    assert calls(tool) == []


def test_enter_sessions_do_not_ask_on_the_desktop(lnk, tool, on_desktop,
                                                  tmp_path):
    on_desktop.server(act="allow")
    spec = tmp_path / "desk.toml"
    spec.write_text('version = 1\n[commands]\nallow = ["bash", "echo", '
                    '"mytool"]\n[tools]\nallow = ["mytool pr"]\n')
    folder = tmp_path / "deskdir"
    folder.mkdir()
    cp = lnk("sandbox", "enter", "--spec", spec, "--folder", folder, "--",
             "bash", "-c", "mytool issue 6; echo st=$?", timeout=60)
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    assert on_desktop.rows("Notify") == []
    assert calls(tool) == []
