"""The host's memory and processes: each tmpfs of a sandbox is bounded, and
its tasks and memory are limited by a cgroup of its own where lnk may make
one, else its tasks by RLIMIT_NPROC (src/launch/limits.h); `ready` says
which applies."""
import json
import os
import re
import signal
import subprocess
import time

import pytest
from conftest import FORKER


def settings(home, text):
    d = home / ".lnk" / "sandbox"
    d.mkdir(parents=True, exist_ok=True)
    (d / "settings.toml").write_text(text)


def limits_line(lnk):
    cp = lnk("sandbox", "ready", "--json")
    doc = json.loads(cp.stdout)
    (c,) = [c for c in doc["checks"] if c["check"] == "limits"]
    return c


def py(lnk, code, *grants, **kw):
    return lnk.run(*grants, "--", "/usr/bin/python3", "-c", code, **kw)


def test_each_tmpfs_is_bounded_by_default(lnk):
    """Without settings, each tmpfs holds at most an eighth of the memory
    (not the kernel's half of it each)."""
    mem = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    cp = py(lnk, "import os\n"
                 "for p in ('/tmp', '/var/tmp', '/dev/shm', os.environ['HOME']):"
                 "\n    s = os.statvfs(p); print(p, s.f_blocks * s.f_frsize)")
    assert cp.returncode == 0, cp.stderr
    sizes = dict(l.split() for l in cp.stdout.splitlines())
    assert len(sizes) == 4, cp.stdout
    for p, size in sizes.items():
        assert 0 < int(size) <= mem // 8, (p, size, mem)


def test_holding_more_than_the_tmpfs_size_fails(lnk, home):
    settings(home, '[limits]\ntmp_size = "4M"\n')
    cp = py(lnk, """
import errno, os
for p in ('/tmp', '/var/tmp', '/dev/shm', os.environ['HOME']):
    try:
        with open(p + '/fill', 'wb') as f:
            for _ in range(8):
                f.write(b'x' * (1 << 20))
                f.flush()
        print(p, 'HELD 8M')
    except OSError as e:
        print(p, errno.errorcode[e.errno])
""")
    assert cp.returncode == 0, cp.stderr
    lines = cp.stdout.splitlines()
    assert len(lines) == 4 and all(l.endswith(" ENOSPC") for l in lines), \
        cp.stdout


def test_forking_past_the_task_limit_fails(lnk, home):
    c = limits_line(lnk)
    if "tasks and memory not limited" in c["detail"]:
        pytest.skip("nothing limits tasks here: " + c["detail"])
    settings(home, "[limits]\ntasks = 32\n")
    cp = py(lnk, FORKER, timeout=120)
    assert cp.returncode == 0, cp.stderr
    made, failed = map(int, cp.stdout.split())
    assert made < 32 and failed > 60, cp.stdout


def test_memory_past_the_limit_is_refused(lnk, home):
    """Where a cgroup applies, tmpfs pages count too: holding more than
    the memory limit in /dev/shm fails, though the tmpfs would take it."""
    c = limits_line(lnk)
    if "a cgroup of its own" not in c["detail"]:
        pytest.skip("no cgroup here: " + c["detail"])
    settings(home, '[limits]\nmemory = "64M"\ntmp_size = "512M"\n')
    cp = py(lnk, """
with open('/dev/shm/fill', 'wb') as f:
    for _ in range(256):
        f.write(b'x' * (1 << 20))
        f.flush()
print('HELD 256M')
""", timeout=120)
    assert "HELD" not in cp.stdout
    assert cp.returncode != 0


def test_the_cgroup_holds_the_program_alone_and_is_gone_at_return(lnk,
                                                                  work):
    """With cgroup v1 (root here) and the guard (a folder is granted), the
    program's own process moves itself into the sandbox's cgroup before
    it runs: the cgroup counts the program's processes, not pid 1 or
    bwrap, so lnk can remove it as soon as they are gone, and it is gone
    when run returns (even with its output in a file, so that nothing
    waits for bwrap)."""
    c = limits_line(lnk)
    parents = re.findall(r"under (/\S+?)(?: and (/\S+?))?:", c["detail"])
    if "a cgroup of its own" not in c["detail"] or not parents \
            or not parents[0][1]:
        pytest.skip("no cgroup v1 here: " + c["detail"])
    out = lnk.cwd / "cgroups.txt"
    with open(out, "w") as f:
        p = subprocess.Popen(
            [lnk.bin, "sandbox", "run", "--write", str(work), "--",
             "/bin/sh", "-c",
             "grep -E ':(pids|memory):' /proc/self/cgroup; echo; "
             "grep -E ':(pids|memory):' /proc/1/cgroup"],
            stdout=f, stderr=subprocess.STDOUT, env=lnk.env(), cwd=lnk.cwd)
        assert p.wait(timeout=60) == 0, out.read_text()
        gone = [os.path.exists(f"{d}/lnk-run-{p.pid}-{p.pid}")
                for d in parents[0] if d]
    mine, init = out.read_text().split("\n\n")
    assert mine.count(f"/lnk-run-{p.pid}-{p.pid}") == 2, mine
    assert "lnk-run" not in init, init
    assert gone == [False, False], (parents, gone)


def test_ready_says_which_limit_applies(lnk, home):
    settings(home, '[limits]\nmemory = "1G"\ntasks = 100\ntmp_size = "64M"\n')
    c = limits_line(lnk)
    assert "each tmpfs 64 MiB" in c["detail"], c
    if c["verdict"] == "ok":
        assert "a cgroup of its own under /" in c["detail"], c
        assert "memory 1 GiB, tasks 100" in c["detail"], c
    else:
        assert c["verdict"] == "warn", c
        assert "no cgroup lnk may write" in c["detail"], c
        if os.geteuid() != 0:
            assert "tasks 100 (RLIMIT_NPROC)" in c["detail"], c


@pytest.mark.parametrize("text,what", [
    ('[limits]\nmemory = "lots"\n', "memory must be a size"),
    ("[limits]\ntasks = -1\n", "tasks must be a whole number"),
    ("[limits]\nprocesses = 5\n", "has no key 'processes'"),
    ("limits = 3\n", "limits must be a table"),
])
def test_bad_settings_are_refused(lnk, home, text, what):
    settings(home, text)
    cp = lnk.run("--", "/bin/true")
    assert cp.returncode == 125, (cp.returncode, cp.stderr)
    assert what in cp.stderr and "settings.toml:" in cp.stderr, cp.stderr


def test_what_a_killed_lnk_left_is_removed_by_the_next(lnk, home, work):
    """lnk killed with SIGKILL cannot remove its sandbox's cgroup (nor, as
    root, its device nodes' folder): the next lnk does."""
    c = limits_line(lnk)
    parents = re.findall(r"under (/\S+?)(?: and (/\S+?))?:", c["detail"])
    parents = [p for p in (parents[0] if parents else ()) if p]
    if not parents and os.geteuid() != 0:
        pytest.skip("lnk makes nothing here to leave: " + c["detail"])
    p = subprocess.Popen([lnk.bin, "sandbox", "run", "--", "/bin/sh", "-c",
                          "echo up; exec cat"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, env=lnk.env(), cwd=work)
    assert p.stdout.readline() == b"up\n"
    pid = p.pid

    def left():
        found = [f"{d}/{n}" for d in parents for n in os.listdir(d)
                 if n.startswith("lnk-") and n.endswith(f"-{pid}")]
        return found + [f"/dev/{n}" for n in os.listdir("/dev")
                        if n.startswith(f".lnk-{pid}-")]
    assert left(), "nothing was made to leave"
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=10)
    assert left(), "lnk removed them though it was killed"
    # The sandbox ends through its lifeline, not at once: until its last
    # process has left, its cgroup cannot be removed; the next lnk tries.
    deadline = time.time() + 30
    while left() and time.time() < deadline:
        cp = lnk.run("--", "/bin/true")
        assert cp.returncode == 0, cp.stderr
        time.sleep(0.2)
    assert not left()


# --- limits as keys of a spec: a spec or flag only lowers ---------------

def spec(work, text):
    f = work / "app.toml"
    f.write_text('version = 1\n[commands]\nallow = ["/usr/bin/python3"]\n'
                 + text)
    return f


def test_a_spec_lowers_the_task_limit(lnk, home, work):
    """Settings give the default 4096 tasks; the spec's 16 applies."""
    c = limits_line(lnk)
    if "tasks and memory not limited" in c["detail"]:
        pytest.skip("nothing limits tasks here: " + c["detail"])
    f = spec(work, "[limits]\ntasks = 16\n")
    cp = lnk.run("--spec", f, "--yes", "--", "/usr/bin/python3", "-c",
                 FORKER, timeout=120)
    assert cp.returncode == 0, cp.stderr
    made, failed = map(int, cp.stdout.split())
    assert made < 16 and failed > 80, cp.stdout


def test_a_spec_cannot_raise_memory_or_tasks(lnk, home, work):
    """A spec comes from anyone: one asking for more than the settings
    give keeps the settings' limit, and lnk says so, with where."""
    settings(home, '[limits]\nmemory = "64M"\ntasks = 32\ntmp_size = "512M"\n')
    f = spec(work, '[limits]\nmemory = "8G"\ntasks = 100000\n')
    code = "print('ran')\n" if "a cgroup of its own" not in \
        limits_line(lnk)["detail"] else """
with open('/dev/shm/fill', 'wb') as f:
    for _ in range(256):
        f.write(b'x' * (1 << 20))
        f.flush()
print('HELD 256M')
"""
    cp = lnk.run("--spec", f, "--yes", "--", "/usr/bin/python3", "-c", code,
                 timeout=120)
    assert "app.toml:5:1: [limits] memory: 8G is above the 64 MiB your " \
        "settings give" in cp.stderr, cp.stderr
    assert "[limits] tasks: 100000 is above the 32 your settings give" \
        in cp.stderr, cp.stderr
    assert "the sandbox keeps 64 MiB" in cp.stderr
    assert "HELD" not in cp.stdout


def test_dev_holds_no_file_of_the_programs(lnk):
    """Invariant 5 (memory and processes), promise: each of the sandbox's
    file systems in memory holds at most its size. Threat: /dev is bwrap's
    tmpfs of the device nodes, without a size: a program wrote 500 MB
    there past --tmp-size 10M, the only memory bound a user without a
    cgroup has. Nothing is made in /dev (its nodes are written, not made),
    /dev/shm keeps its size."""
    cp = lnk.run("--tmp-size", "10M", "--", "/bin/sh", "-c",
                 "head -c 1M /dev/zero > /dev/big; echo big=$?; "
                 "mkdir /dev/d; echo dir=$?; ln -s /tmp /dev/l; echo ln=$?; "
                 "echo x > /dev/null; echo null=$?; "
                 "head -c 20M /dev/zero > /dev/shm/x; echo shm=$?")
    out = cp.stdout
    for what in ("big", "dir", "ln"):
        assert f"{what}=0" not in out, (out, cp.stderr)
    assert "null=0" in out and "shm=1" in out, (out, cp.stderr)


def test_tmp_size_flag_lowers_and_spec_round_trips(lnk, home, work):
    cp = py(lnk, "import os; s = os.statvfs('/tmp'); "
                 "print(s.f_blocks * s.f_frsize)", "--tmp-size", "4M")
    assert cp.returncode == 0, cp.stderr
    assert int(cp.stdout) <= 4 << 20, cp.stdout
    f = spec(work, '[limits]\nmemory = "2048M"\ntasks = 64\n'
             'tmp_size = 1048576\n[tripwires]\nrefused_calls = 3\n'
             'refused_targets = 0\n')
    cp = lnk("sandbox", "spec", "--spec", str(f), check=True)
    assert '[limits]\nmemory = "2G"\ntasks = 64\ntmp_size = "1M"\n\n' \
        '[tripwires]\nrefused_calls = 3\nrefused_targets = 0\n' \
        in cp.stdout, cp.stdout


@pytest.mark.parametrize("text,what", [
    ('[limits]\nmemory = "0"\n', "0 would be no limit"),
    ('[limits]\nmemory = "2GB"\n', "is not a size"),
    ("[limits]\ntasks = \"64\"\n", "tasks must be an integer"),
    ("[tripwires]\nrefused_calls = -1\n", "must not be negative"),
    ("[tripwires]\nmetadata = false\n", "unknown key 'metadata'"),
])
def test_bad_limit_keys_are_refused(lnk, work, text, what):
    f = spec(work, text)
    cp = lnk.run("--spec", f, "--yes", "--", "/bin/true")
    assert cp.returncode == 2, (cp.returncode, cp.stderr)
    assert what in cp.stderr and "app.toml:" in cp.stderr, cp.stderr


def test_bad_tripwire_settings_are_refused(lnk, home):
    for text, what in [("[tripwires]\nrefused_calls = 5000\n", "from 1 to"),
                       ("[tripwires]\nmetadata = 0\n",
                        "cannot be turned off")]:
        settings(home, text)
        cp = lnk.run("--", "/bin/true")
        assert cp.returncode == 125, (cp.returncode, cp.stderr)
        assert what in cp.stderr and "settings.toml:" in cp.stderr, \
            cp.stderr


def test_a_changed_limit_asks_again(lnk, work):
    """The trust digest covers [limits] and [tripwires]: a spec accepted
    with one limit asks again when it is raised or left out (the run is
    wider), not when it is written another way or lowered (narrower)."""
    f = spec(work, '[limits]\nmemory = "1G"\n[tripwires]\nrefused_calls = 5\n')
    assert lnk.run("--spec", f, "--yes", "--", "/usr/bin/python3", "-c",
                   "pass").returncode == 0
    for old, new in (('"1G"', '"1024M"'), ('"1024M"', '"512M"'),
                     ("refused_calls = 5", "refused_calls = 4")):
        f.write_text(f.read_text().replace(old, new))
        cp = lnk.run("--spec", f, "--", "/usr/bin/python3", "-c", "pass",
                     stdin=subprocess.DEVNULL, start_new_session=True)
        assert cp.returncode == 0, (new, cp.stderr)
    for old, new in (('"512M"', '"2G"'), ("refused_calls = 4",
                                          "refused_calls = 40"),
                     ('memory = "2G"\n', "")):
        f.write_text(f.read_text().replace(old, new))
        cp = lnk.run("--spec", f, "--", "/usr/bin/python3", "-c", "pass",
                     stdin=subprocess.DEVNULL, start_new_session=True)
        assert cp.returncode == 125, (new, cp.stderr)
        assert "opens something different since you accepted it" \
            in cp.stderr, cp.stderr
        assert lnk.run("--spec", f, "--yes", "--", "/usr/bin/python3",
                       "-c", "pass").returncode == 0


def test_the_question_says_which_limits_do_not_apply(lnk, work):
    """The question shows a spec's memory limit, and says when this
    machine cannot enforce it (no cgroup lnk may use), as `ready` does."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    f = spec(work, '[limits]\nmemory = "1G"\ntasks = 100\n')
    where = limits_line(lnk)["detail"]
    pid, fd = spawn_on_pty(lnk, ["--spec", f, "--", "/usr/bin/python3",
                                 "-c", "pass"])
    try:
        out = read_until(fd, b"[y/N]").decode()
        os.write(fd, b"n\n")
    finally:
        wait_status(pid)
        os.close(fd)
    assert "uses at most 1G of memory" in out, out
    no_memory = "memory not limited" in where
    assert ("the memory limit does not apply here" in out) == no_memory, \
        (where, out)
    no_tasks = "tasks" not in where
    assert ("the process limit does not apply here" in out) == no_tasks, \
        (where, out)
