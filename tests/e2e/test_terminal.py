"""lnk sandbox run on a real terminal: the program gets its own
pseudo-terminal that lnk relays (docs/design.md, "The processes of one
run"). Interactive shells work, the window size passes through, ^C
reaches the program, TIOCSTI is refused, and the user's terminal is left as
it was found."""
import errno
import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import termios
import time

from conftest import HELPERS, LNK, helper


def read_until(fd, want, timeout=20):
    """Reads fd until want (bytes) shows, or EOF/EIO, or timeout."""
    out = b""
    end = time.monotonic() + timeout
    while want not in out and time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if not r:
            continue
        try:
            data = os.read(fd, 4096)
        except OSError as e:
            if e.errno == errno.EIO:
                break
            raise
        if not data:
            break
        out += data
    return out


def spawn_on_pty(lnk, args, rows=24, cols=80):
    """Starts lnk on a new pty as its controlling terminal (a person's
    terminal). Returns (pid, master fd)."""
    pid, fd = pty.fork()
    if pid == 0:
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ,
                        struct.pack("HHHH", rows, cols, 0, 0))
            os.chdir(str(lnk.cwd))
            os.execve(LNK, [LNK, "sandbox", "run", *map(str, args)],
                      lnk.env({"TERM": "xterm"}))
        finally:
            os._exit(126)
    return pid, fd


def wait_status(pid, timeout=20):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p == pid:
            return os.waitstatus_to_exitcode(st)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise AssertionError("lnk did not exit")


def test_interactive_bash(lnk):
    pid, fd = spawn_on_pty(lnk, ["--", "/bin/bash", "--norc", "--noprofile",
                                 "-i"])
    try:
        os.write(fd, b"echo h''i; tty; exit 7\n")
        out = read_until(fd, b"\nexit\r\n")
        out += read_until(fd, b"never", timeout=2)
    finally:
        status = wait_status(pid)
        os.close(fd)
    lines = [l.split(b"\r")[-1] for l in out.replace(b"\r\n", b"\n")
             .split(b"\n")]
    assert b"hi" in lines, out
    # Its stdin is a terminal (bwrap shows the pty as /dev/console).
    assert any(l.startswith(b"/dev/") for l in lines), out
    assert status == 7


def test_window_size_passes_through(lnk):
    pid, fd = spawn_on_pty(lnk, ["--", "/bin/sh", "-c",
                                 "stty size; read x; stty size"],
                           rows=40, cols=100)
    try:
        first = read_until(fd, b"40 100")
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
        time.sleep(0.3)
        os.write(fd, b"go\n")
        second = read_until(fd, b"50 120")
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert b"40 100" in first, first
    assert b"50 120" in second, second
    assert status == 0


def test_ctrl_c_reaches_the_program(lnk):
    pid, fd = spawn_on_pty(lnk, ["--", "/bin/sh", "-c",
                                 "trap 'echo got-int; exit 5' INT; "
                                 "echo ready; while :; do sleep 0.1; done"])
    try:
        assert b"ready" in read_until(fd, b"ready")
        os.write(fd, b"\x03")
        out = read_until(fd, b"got-int")
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert b"got-int" in out
    assert status == 5


def test_tiocsti_refused_on_a_terminal(lnk):
    tiocsti = helper("tiocsti")
    pid, fd = spawn_on_pty(lnk, ["--read", HELPERS, "--", tiocsti])
    try:
        out = read_until(fd, b"never")
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert out.count(b"TIOCSTI refused") == 2, out
    assert b"allowed" not in out
    assert status == 0


def test_tiocsti_refused_without_pty(lnk):
    """stdin a terminal, stdout a pipe: no pty, a new session, and still
    no injection into the user's terminal."""
    tiocsti = helper("tiocsti")
    master, slave = os.openpty()
    try:
        cp = subprocess.run(
            [LNK, "sandbox", "run", "--read", HELPERS, "--", tiocsti],
            stdin=slave, capture_output=True, cwd=str(lnk.cwd),
            env=lnk.env(), timeout=30, start_new_session=True)
        os.set_blocking(master, False)
        try:
            pending = os.read(master, 100)
        except BlockingIOError:
            pending = b""
    finally:
        os.close(master)
        os.close(slave)
    assert cp.stdout.count(b"TIOCSTI refused") == 2, (cp.stdout, cp.stderr)
    assert cp.returncode == 0
    assert b"#" not in pending


def test_terminal_modes_restored(lnk):
    master, slave = os.openpty()
    try:
        before = termios.tcgetattr(slave)
        cp = subprocess.run(
            [LNK, "sandbox", "run", "--", "/bin/sh", "-c", "exit 3"],
            stdin=slave, stdout=slave, stderr=subprocess.PIPE,
            cwd=str(lnk.cwd), env=lnk.env(), timeout=30,
            start_new_session=True)
        after = termios.tcgetattr(slave)
    finally:
        os.close(master)
        os.close(slave)
    assert cp.returncode == 3, cp.stderr
    assert before == after


def test_program_leads_the_foreground_group(lnk):
    """lnk-init (pid 1) gives the program a process group of its own and
    makes it the pty's foreground group, as a shell does for a job."""
    pid, fd = spawn_on_pty(lnk, ["--", "/usr/bin/python3", "-c",
                                 "import os; print('pg', os.getpid(), "
                                 "os.getpgrp(), os.tcgetpgrp(0))"])
    try:
        out = read_until(fd, b"never", timeout=5)
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert b"pg 2 2 2" in out, out
    assert status == 0


def test_bash_job_control(lnk):
    """^Z stops a foreground job and gives the shell the terminal back;
    jobs, bg, kill %1 and ^C work as on a real terminal."""
    pid, fd = spawn_on_pty(lnk, ["--", "/bin/bash", "--norc", "--noprofile",
                                 "-i"])
    try:
        # Each step waits for the shell's answer (computed, so that the
        # echo of what was typed never matches), then for the job to run.
        out = b""
        os.write(fd, b"set -o | grep monitor; echo m-$((1+2))\n")
        out += read_until(fd, b"m-3")
        os.write(fd, b"echo s-$((2+2)); sleep 30\n")
        out += read_until(fd, b"s-4")
        time.sleep(0.7)
        os.write(fd, b"\x1a")
        out += read_until(fd, b"Stopped")
        os.write(fd, b"bg; jobs; kill %1; wait %1; echo jc-$?\n")
        out += read_until(fd, b"jc-143")
        os.write(fd, b"echo c-$((3+3)); sleep 30\n")
        out += read_until(fd, b"c-6")
        time.sleep(0.7)
        os.write(fd, b"\x03")
        os.write(fd, b"echo after-$((1+1)); exit 4\n")
        out += read_until(fd, b"after-2")
        out += read_until(fd, b"never", timeout=2)
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert b"no job control" not in out, out
    assert b"monitor        \ton" in out, out
    assert b"Stopped" in out, out
    # the stopped job, continued in the background, ended by kill %1
    assert b"jc-143" in out and b"after-2" in out, out
    assert status == 4


def test_ctrl_z_without_job_control_does_not_hang(lnk):
    """The program's group is orphaned (pid 1 left the pty's session):
    ^Z on a program without job control is
    discarded by the kernel, not left stopped with nobody to continue it."""
    pid, fd = spawn_on_pty(lnk, ["--", "/bin/sh", "-c",
                                 "echo ready; read x; echo got-$x"])
    try:
        out = read_until(fd, b"ready")
        os.write(fd, b"\x1a")
        time.sleep(0.5)
        os.write(fd, b"go\n")
        out += read_until(fd, b"got-go")
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert b"got-go" in out, out
    assert status == 0


# --- what the user sees on the terminal ---

def test_terminal_shows_stop_and_where_the_program_starts(lnk, home):
    """On a person's terminal: the folder the program starts in when the
    current one is not granted, the sandbox's name in the prompt's
    variables, and 'stopped by lnk sandbox stop' when stop ends it."""
    other = home / "other"
    other.mkdir()
    pid, fd = spawn_on_pty(lnk, ["--write", str(other), "--internet-host",
                                 "example.invalid", "--", "/bin/sh", "-c",
                                 'echo "name=$LNK_SANDBOX"; pwd; '
                                 "while :; do sleep 0.1; done"])
    try:
        out = read_until(fd, str(other).encode() + b"\r\n")
        assert b"current folder is not granted" in out, out
        assert b"name=run-" in out, out
        for _ in range(100):
            st = lnk("sandbox", "stop")
            if "stopped run-" in st.stdout:
                break
            time.sleep(0.1)
        assert "stopped run-" in st.stdout, st
        out += read_until(fd, b"lnk sandbox stop'")
    finally:
        status = wait_status(pid)
        os.close(fd)
        lnk("sandbox", "stop", "--off")
    assert b"lnk: stopped by 'lnk sandbox stop'" in out, out
    assert status == 128 + signal.SIGTERM


def test_terminal_says_how_many_files_the_thrown_away_home_lost(lnk, home):
    """The home inside is an empty tmpfs: on a terminal, lnk says at exit
    how many files the program wrote there (links count, folders and
    granted folders below the home do not); nothing when it wrote none,
    when the home is granted, or off a terminal."""
    kept = home / "kept"
    kept.mkdir()
    pid, fd = spawn_on_pty(lnk, [
        "--write", ".", "--write", str(kept), "--", "/bin/sh", "-c",
        'touch ~/a; mkdir -p ~/d/e; echo x > ~/d/e/b; ln -s /etc ~/l; '
        f'touch {kept}/k1 {kept}/k2; echo done'])
    try:
        out = read_until(fd, b"with --write to keep files")
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert status == 0
    assert b"lnk: 3 files the program wrote in the home folder were " \
           b"thrown away" in out, out

    pid, fd = spawn_on_pty(lnk, ["--write", ".", "--", "/bin/sh", "-c",
                                 "mkdir ~/only-a-folder; echo done"])
    try:
        out = read_until(fd, b"\x00never")
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert status == 0 and b"done" in out, out
    assert b"thrown away" not in out, out

    # the home granted: it is the real one, nothing is thrown away
    pid, fd = spawn_on_pty(lnk, ["--write", str(home), "--", "/bin/sh",
                                 "-c", "touch ~/real-file; echo done"])
    try:
        out = read_until(fd, b"\x00never")
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert status == 0 and b"done" in out, out
    assert b"thrown away" not in out, out
    assert (home / "real-file").exists()

    # off a terminal: not a word
    cp = lnk("sandbox", "run", "--write", ".", "--", "/bin/sh", "-c",
             "touch ~/a")
    assert cp.returncode == 0, cp
    assert "thrown away" not in cp.stderr, cp
