"""lnk sandbox check: bait, the probe in run's sandbox, the report.

lnk-sandbox(1), COMMANDS, check. The weakened build
(a test-hooks build, meson -Dtest_hooks=true) is found through
LNK_BIN_HOOKS; without it that test skips and says so.
"""
import ipaddress
import json
import os
import pathlib
import signal
import socket
import subprocess
import time

import pytest

from conftest import IS_ROOT, LNK, free_port, helper

HOOKS = os.environ.get("LNK_BIN_HOOKS")


def bait_left(*folders):
    """Every lnk-check-* name under the folders (bait is never deeper
    than two levels)."""
    found = []
    for f in folders:
        f = pathlib.Path(f)
        for p in list(f.glob("*lnk-check-*")) + list(f.glob("*/*lnk-check-*")):
            found.append(str(p))
    return found


def tmp_bait():
    """This user's lnk-check-* names in /tmp (another user's check running
    at the same time is not this test's to count)."""
    mine = set()
    for p in pathlib.Path("/tmp").glob("lnk-check-*"):
        try:
            if p.lstat().st_uid == os.getuid():
                mine.add(str(p))
        except FileNotFoundError:
            pass
    return mine


def rows(out):
    """(result, area, text) of each table row."""
    r = []
    for line in out.splitlines()[1:]:
        if not line.strip() or line.startswith(("nothing", "LEAKED",
                                                "limits: ")) \
                or " tries: " in line:
            continue
        parts = line.split(None, 2)
        if len(parts) == 3:
            r.append(tuple(parts))
    return r


def test_bare_sandbox_no_leak_and_no_bait_left(lnk, home):
    before = tmp_bait()
    cp = lnk("sandbox", "check")
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert "nothing leaked" in cp.stdout
    res = rows(cp.stdout)
    assert res and all(r[0] == "blocked" for r in res), cp.stdout
    areas = {r[1] for r in res}
    for a in ("files", "settings", "writes", "environment", "descriptors",
              "processes", "terminal", "system", "network", "proxy"):
        assert a in areas, (a, areas)
    assert bait_left(home) == []
    assert tmp_bait() - before == set()
    assert not list((home / ".lnk" / "sandbox" / "check").glob("*.bait"))


def test_check_plants_no_bait_in_a_system_folder_a_spec_names(lnk, home,
                                                              tmp_path):
    """Invariant 8 (what runs outside later), promise: lnk itself leaves
    nothing that a host program reads.

    Threat: check runs a spec no one accepted, and plants a bait file in
    each folder it hides or reads; as root, a spec naming /etc/cron.d,
    /etc/sudoers.d or apt's parts had lnk write there (a sudoers.d file
    that does not parse stops sudo; a check killed before its cleanup
    leaves it). Bait goes only in the home folder, or in a folder of the
    user's own that is not root's."""
    if not IS_ROOT:
        pytest.skip("a folder of root's outside the home is only writable "
                    "as root: the unprivileged pass cannot plant there")
    system = tmp_path / "cron.d"
    system.mkdir()
    system.chmod(0o755)
    other = tmp_path / "apt.conf.d"
    other.mkdir()
    other.chmod(0o755)
    writes = tmp_path / "sudoers.d"
    writes.mkdir()
    writes.chmod(0o755)
    cp = lnk("sandbox", "check", "--hide", str(system), "--read",
             str(other), "--write", str(writes))
    # no bait planted there to read (the probe's own tries to create a
    # file in the read folder stay: they happen inside)
    assert str(system) + "/" not in cp.stdout, cp.stdout
    planted = [ln for ln in cp.stdout.splitlines()
               if (f"{other}/.lnk-check-" in ln and "-g0" in ln) or
               (f"{writes}/.lnk-check-" in ln and "-g1" in ln)]
    assert planted == [], cp.stdout
    assert list(system.iterdir()) == [] and list(other.iterdir()) == []
    assert list(writes.iterdir()) == []


def silent_server():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    return s


def test_grants_no_leak(lnk, home, work):
    hidden = home / "private"
    hidden.mkdir()
    (work / ".git").mkdir()
    port = free_port()
    before = tmp_bait()
    cp = lnk("sandbox", "check", "--read", "~", "--write", work,
             "--hide", hidden, "--port", port,
             "--internet-host", "example.test", "--json")
    assert cp.returncode == 0, cp.stdout + cp.stderr
    doc = json.loads(cp.stdout)
    assert doc["leaked"] is False
    by = {}
    for t in doc["tries"]:
        by.setdefault(t["area"], []).append(t)
        assert t["result"] in ("blocked", "allowed", "failed", "missed",
                               "open", "leaked")
        assert t["result"] != "leaked", t
    # What the grants open works...
    allowed = [t["try"] for t in doc["tries"] if t["result"] == "allowed"]
    assert any("a secret in the home folder" in a for a in allowed)
    assert any(f"127.0.0.1:{port}" in a for a in allowed)
    assert any("a --write folder" in a for a in allowed)
    # ...what they do not stays shut.
    hid = [t for t in doc["tries"] if t["area"] == "hidden"]
    assert hid and all(t["result"] == "blocked" for t in hid)
    st = [t for t in doc["tries"] if t["area"] == "settings"]
    assert st and all(t["result"] == "blocked" for t in st)
    dots = by["runs outside"]
    assert any(t["result"] == "blocked" and "create" in t["try"]
               for t in dots)
    assert any(t["result"] == "blocked" and "rename" in t["try"]
               for t in dots)
    # A host's unix socket in the granted home folder: the mount lets
    # connect() through, the guard does not.
    hs = [t for t in doc["tries"] if "unix socket in a granted" in t["try"]]
    assert hs and all(t["result"] == "blocked" for t in hs), hs
    assert all(t.get("gap") for t in doc["tries"] if t["result"] == "open")
    # Loopback through the proxy, in every spelling, refused.
    px = [t for t in doc["tries"] if t["area"] == "proxy"
          and "loopback" in t["try"]]
    assert len(px) >= 15 and all(t["result"] == "blocked" for t in px)
    meta = [t for t in doc["tries"] if "metadata" in t["try"]]
    assert meta and all(t["result"] == "blocked" for t in meta)
    assert bait_left(home, work, hidden) == []
    assert tmp_bait() - before == set()


def test_spec_unlisted_program_refused(lnk, home, work):
    spec = work / "app.toml"
    spec.write_text('name = "app"\nversion = 1\n[files]\nwrite = ["."]\n'
                    '[commands]\nallow = ["sh"]\n')
    cp = lnk("sandbox", "check", "--spec", spec, cwd=work)
    assert cp.returncode == 0, cp.stdout + cp.stderr
    cmds = [r for r in rows(cp.stdout) if r[1] == "commands"]
    assert any(r[0] == "blocked" and "does not list" in r[2] for r in cmds), \
        cp.stdout
    assert any(r[0] == "allowed" and "which [commands] lists" in r[2]
               for r in cmds), cp.stdout
    assert bait_left(home, work) == []


def test_sigint_removes_bait(lnk, home, work):
    # Servers that accept and say nothing keep the probe waiting on each
    # --port, long enough to interrupt check in the middle of its run.
    servers = [silent_server() for _ in range(6)]
    args = []
    for s in servers:
        args += ["--port", str(s.getsockname()[1])]
    before = tmp_bait()
    p = subprocess.Popen([LNK, "sandbox", "check", *args],
                         cwd=work, env=lnk.env(), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    # Wait until the bait is planted (its record is written first, then the
    # bait itself), then interrupt.
    rec = home / ".lnk" / "sandbox" / "check"
    deadline = time.time() + 20
    while time.time() < deadline and not (list(rec.glob("*.bait"))
                                          and bait_left(home)):
        time.sleep(0.02)
    assert list(rec.glob("*.bait")), "check never planted its bait"
    assert bait_left(home) != []
    time.sleep(0.8)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    for s in servers:
        s.close()
    assert p.returncode == 128 + signal.SIGINT, (out, err)
    assert "interrupted" in err
    assert bait_left(home, work) == []
    assert tmp_bait() - before == set()
    assert not list(rec.glob("*.bait"))


def test_stale_bait_of_a_dead_check_is_removed(lnk, home):
    rec = home / ".lnk" / "sandbox" / "check"
    rec.mkdir(parents=True)
    ours = home / ".lnk-check-00000000deadbeef"
    ours.write_text("lnk-check-bait lnk-check-secret-00000000deadbeef\n")
    theirs = home / "notes.txt"
    theirs.write_text("a person's file\n")
    # A pid that does not exist: the check that wrote this is gone.
    (rec / "00000000deadbeef.bait").write_text(
        f"p 999999999\nf {ours}\nf {theirs}\n")
    cp = lnk("sandbox", "check")
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert not ours.exists()
    assert theirs.read_text() == "a person's file\n"
    assert str(ours) in cp.stderr


def test_usage_errors(lnk):
    cp = lnk("sandbox", "check", "--wirte", ".")
    assert cp.returncode == 2
    assert "--write" in cp.stderr
    cp = lnk("sandbox", "check", "--", "bash")
    assert cp.returncode == 2
    cp = lnk("sandbox", "check", "--help")
    assert cp.returncode == 0 and "leaked" in cp.stdout


@pytest.mark.parametrize("weaken", ["env", "home"])
def test_weakened_build_reports_leaked(lnk, home, weaken):
    if not HOOKS:
        pytest.skip("LNK_BIN_HOOKS is not set: it names an lnk built with "
                    "meson -Dtest_hooks=true, which this test needs")
    cp = subprocess.run([HOOKS, "sandbox", "check", "--json"],
                        cwd=lnk.cwd, env=lnk.env({"LNK_TEST_WEAKEN": weaken}),
                        capture_output=True, text=True, timeout=120)
    assert cp.returncode == 1, cp.stdout + cp.stderr
    doc = json.loads(cp.stdout)
    assert doc["leaked"] is True
    leaked = [t["area"] for t in doc["tries"] if t["result"] == "leaked"]
    assert ("environment" if weaken == "env" else "settings") in leaked
    assert bait_left(home) == []


def test_release_build_ignores_the_hook(lnk, home):
    """The release build has no such code path: the variable changes
    nothing."""
    cp = lnk("sandbox", "check", env={"LNK_TEST_WEAKEN": "env"})
    if "LEAKED" in cp.stdout and not HOOKS:
        pytest.fail("LNK_BIN is a test-hooks build: " + cp.stdout)
    assert cp.returncode == 0, cp.stdout + cp.stderr


@pytest.mark.parametrize("lifted", [False, True])
def test_home_write_runs_outside_tries(lnk, home, lifted):
    """With --write '~' every dot name at the home's top is kept, its mode
    cannot change and no git HEAD appears there; --write-dot-files lifts
    it. Nothing is missed either way."""
    extra = ["--write-dot-files", home] if lifted else []
    cp = lnk("sandbox", "check", "--write", home, *extra, "--json")
    assert cp.returncode == 0, cp.stdout + cp.stderr
    doc = json.loads(cp.stdout)
    assert doc["leaked"] is False
    bad = [t for t in doc["tries"] if t["result"] in ("missed", "leaked")]
    assert bad == [], bad
    ro = [t for t in doc["tries"] if t["area"] == "runs outside"]
    assert any("change the mode" in t["try"] for t in ro), ro
    assert any("HEAD" in t["try"] for t in ro), ro
    want = "allowed" if lifted else "blocked"
    assert all(t["result"] == want for t in ro if "HEAD" in t["try"]), ro
    # ~/.lnk is hidden: the folder holding it keeps its mode regardless.
    assert all(t["result"] == "blocked" for t in ro
               if "change the mode" in t["try"]), ro
    assert bait_left(home) == []
    assert not (home / "HEAD").exists()


def tries(doc, area):
    return [t for t in doc["tries"] if t["area"] == area]


def check_json(lnk, *args, **kw):
    cp = lnk("sandbox", "check", *args, "--json", timeout=180, **kw)
    assert cp.returncode == 0, cp.stdout + cp.stderr
    doc = json.loads(cp.stdout)
    assert doc["leaked"] is False, [t for t in doc["tries"]
                                    if t["result"] == "leaked"]
    return doc


def test_kernel_device_and_stdin_tries(lnk, home):
    """What uid 0 would own of the host's kernel (tried as any user), and
    the host file given as the probe's stdin, reopened for writing."""
    doc = check_json(lnk)
    kern = tries(doc, "kernel")
    assert any("/proc/sys/kernel/core_pattern" in t["try"] for t in kern), \
        kern
    if os.path.exists("/proc/sysrq-trigger"):
        assert any("/proc/sysrq-trigger" in t["try"] for t in kern), kern
    assert kern and all(t["result"] == "blocked" for t in kern), kern
    # Opened for writing: EROFS (read-only /proc) as root, EACCES as user.
    assert all(("EROFS" if IS_ROOT else "EACCES") in t["detail"]
               or "EROFS" in t["detail"] for t in kern), kern
    dev = tries(doc, "devices")
    assert len(dev) == 1 and "/dev/null" in dev[0]["try"], dev
    assert dev[0]["result"] == "blocked", dev
    assert "changed on this machine" not in dev[0]["detail"], dev
    fds = [t for t in tries(doc, "descriptors") if "stdin" in t["try"]]
    assert {"/dev/stdin", "/proc/self/fd/0"} == {
        t["try"].split(" opened as ")[1].split()[0] for t in fds}, fds
    assert all(t["result"] == "blocked" for t in fds), fds
    assert not [p for p in pathlib.Path("/tmp").glob("lnk-check-*-in")
                if p.stat().st_uid == os.geteuid()]
    assert bait_left(home) == []


def test_limits_tries_follow_the_settings(lnk, home):
    """Each file system in memory refuses a write one page past the bound
    settings.toml gives it; the task limit is read inside (a user's; the
    kernel exempts root) and the limits are reported as a line."""
    settings = home / ".lnk" / "sandbox" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text('[limits]\ntmp_size = "8M"\ntasks = 1500\n')
    doc = check_json(lnk)
    lim = tries(doc, "limits")
    fills = [t for t in lim if "write past" in t["try"]]
    where = {t["try"].split(" MiB ")[1].rsplit(" holds", 1)[0]
             for t in fills}
    assert where == {"/tmp", "/var/tmp", "/dev/shm",
                     "the empty home folder"}, fills
    assert all("8 MiB" in t["try"] and t["result"] == "blocked"
               and "ENOSPC" in t["detail"] for t in fills), fills
    tasks = [t for t in lim if "tasks" in t["try"]]
    if IS_ROOT:
        assert tasks == [], tasks
    else:
        assert len(tasks) == 1 and "1500" in tasks[0]["try"], tasks
        assert tasks[0]["result"] == "blocked", tasks
        assert "1500" in tasks[0]["detail"], tasks
    assert "tasks 1500" in doc["limits"] and "8 MiB" in doc["limits"], doc
    cp = lnk("sandbox", "check")
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert any(line.startswith("limits: ") and "tasks 1500" in line
               for line in cp.stdout.splitlines()), cp.stdout
    # A home folder the grants show is not in memory: no try there.
    doc = check_json(lnk, "--read", home)
    fills = [t for t in tries(doc, "limits") if "write past" in t["try"]]
    assert len(fills) == 3 and all(t["result"] == "blocked"
                                   for t in fills), fills


def this_machine():
    """This machine's addresses check tries: not loopback, not
    link-local."""
    out = subprocess.run(["ip", "-j", "addr"], capture_output=True,
                         text=True, check=True).stdout
    addrs = []
    for link in json.loads(out):
        for a in link.get("addr_info", []):
            ip = ipaddress.ip_address(a["local"])
            if not (ip.is_loopback or ip.is_link_local):
                addrs.append(str(ip))
    return addrs


def test_wire_this_machine_and_its_network(lnk, home):
    """Under '*', this machine's own addresses (check serves the secret on
    each) and its network (gateways, a machine on each link) are refused
    by the wire; directly, the sandbox has no route to them."""
    doc = check_json(lnk, "--internet-host", "*")
    mine = this_machine()
    assert mine, "this machine has no address but loopback"
    direct = [t for t in tries(doc, "network")
              if "this machine's address" in t["try"]]
    proxied = [t for t in tries(doc, "proxy")
               if "(this machine's address)" in t["try"]]
    for a in mine[:4]:
        assert any(f"address {a}," in t["try"] for t in direct), (a, direct)
        assert any(a in t["try"] for t in proxied), (a, proxied)
    assert all(t["result"] == "blocked" for t in direct + proxied), \
        direct + proxied
    assert all("403" in t["detail"] for t in proxied), proxied
    routes = subprocess.run(["ip", "route", "show", "default"],
                            capture_output=True, text=True).stdout
    nb = [t for t in tries(doc, "proxy") if "this machine's network" in
          t["try"]]
    if "via" in routes:
        gw = routes.split("via")[1].split()[0]
        assert any(f"CONNECT {gw}:80" in t["try"] for t in nb), (gw, nb)
    # The wire refuses each by its route: a refusal, not a timeout.
    assert all(t["result"] == "blocked" and "403" in t["detail"]
               for t in nb), nb
    assert bait_left(home) == []


@pytest.mark.parametrize("lifted", [False, True])
def test_link_chain_and_hide_holder_tries(lnk, home, work, lifted):
    """check plants, in the write folder, a protected link into a folder
    of its own and a folder of its own that holds one it hides: the way
    to the link's target cannot move or change (unless --write-dot-files
    names the folder), and the folder holding a hidden one never moves.
    Nothing of check's is left."""
    (work / "secret").mkdir()
    extra = ["--write-dot-files", work] if lifted else []
    doc = check_json(lnk, "--write", work, "--hide", work / "secret",
                     *extra)
    ro = tries(doc, "runs outside")
    chain = [t for t in ro if "the target of" in t["try"]]
    assert len(chain) == 2, ro
    assert any(t["try"].startswith("write ") for t in chain), chain
    assert any(t["try"].startswith("rename ") for t in chain), chain
    want = "allowed" if lifted else "blocked"
    assert all(t["result"] == want for t in chain), chain
    holder = [t for t in tries(doc, "hidden")
              if "holds a hidden folder" in t["try"]]
    assert len(holder) == 1 and holder[0]["result"] == "blocked", holder
    # What it hides is hidden: its file is read as such.
    hid = [t for t in tries(doc, "hidden") if t["try"].startswith("read ")]
    assert len(hid) >= 2 and all(t["result"] == "blocked" for t in hid), hid
    assert bait_left(home, work) == []
    assert not (work / ".envrc").exists() and not (work / ".envrc").is_symlink()
    assert sorted(p.name for p in work.iterdir()) == ["secret"]


def test_no_hidden_folder_no_holder_try(lnk, home, work):
    """A write folder that holds no hidden folder: check hides nothing of
    its own there."""
    doc = check_json(lnk, "--write", work)
    assert not [t for t in doc["tries"]
                if "holds a hidden folder" in t["try"]]
    assert [t for t in tries(doc, "runs outside")
            if "the target of" in t["try"]]
    assert sorted(p.name for p in work.iterdir()) == []


def test_stale_folders_and_links_removed_only_when_ours(lnk, home):
    rec = home / ".lnk" / "sandbox" / "check"
    rec.mkdir(parents=True)
    tag = "00000000feedbeef"
    d = home / f"lnk-check-{tag}-c0"
    d.mkdir()
    f = d / "envrc"
    f.write_text(f"lnk-check-bait lnk-check-secret-{tag}\n")
    link = home / ".envrc"
    link.symlink_to(f"lnk-check-{tag}-c0/envrc")
    # A person's: a folder with their file in it, and their own link.
    theirs = home / f"lnk-check-{tag}-h0"
    theirs.mkdir()
    (theirs / "notes").write_text("kept\n")
    their_link = home / ".mise.toml"
    their_link.symlink_to("conf/mise.toml")
    (rec / f"{tag}.bait").write_text(
        f"p 999999999\nd {d}\nf {f}\nl {link}\nd {theirs}\n"
        f"l {their_link}\n")
    cp = lnk("sandbox", "check")
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert not d.exists() and not link.is_symlink()
    assert (theirs / "notes").read_text() == "kept\n"
    assert their_link.is_symlink()


@pytest.mark.parametrize("grant", [False, True])
def test_low_port_bind_in_every_address_form(lnk, home, work, grant):
    """A port below 1024 in each form the kernel takes (IPv6 in 24 and 28
    bytes), with the guard performing binds (a folder granted) and
    without."""
    doc = check_json(lnk, *(["--write", work] if grant else []))
    binds = [t for t in tries(doc, "network") if t["try"].startswith("bind ")]
    assert any("24-byte" in t["try"] for t in binds), binds
    assert any("28-byte" in t["try"] for t in binds), binds
    assert any("IPv4" in t["try"] for t in binds), binds
    assert all(t["result"] == "blocked" for t in binds), binds


@pytest.mark.parametrize("lifted", [False, True])
def test_submodule_tries(lnk, home, work, lifted):
    """Each submodule .gitmodules names is protected like the top .git:
    its gitfile cannot be opened for writing, nothing can be created in
    its git directory; --write-dot-files lifts both."""
    (work / ".git").mkdir()
    (work / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (work / ".git" / "modules" / "a").mkdir(parents=True)
    (work / "a").mkdir()
    (work / "a" / ".git").write_text("gitdir: ../.git/modules/a\n")
    (work / "b" / ".git").mkdir(parents=True)
    (work / ".gitmodules").write_text(
        '[submodule "a"]\n\tpath = a\n[submodule "b"]\n\tpath = b\n'
        '[submodule "c"]\n\tpath = ../outside\n')
    extra = ["--write-dot-files", work] if lifted else []
    doc = check_json(lnk, "--write", work, *extra)
    sub = [t for t in tries(doc, "runs outside") if "submodule" in t["try"]]
    assert any("a/.git, a submodule's gitfile" in t["try"] for t in sub), sub
    assert any("b/.git/lnk-check-" in t["try"] for t in sub), sub
    assert len(sub) == 2, sub
    want = "allowed" if lifted else "blocked"
    assert all(t["result"] == want for t in sub), sub
    assert (work / "a" / ".git").read_text() == "gitdir: ../.git/modules/a\n"
    assert list((work / "b" / ".git").iterdir()) == []
    assert bait_left(home, work) == []


def test_every_refusal_of_the_policy_tried(lnk, home):
    """check tries every refusal the seccomp policy lists (its own table,
    src/init/seccomp_policy.c, as try_syscall --list prints it), and each
    is blocked."""
    listed = subprocess.run([helper("try_syscall"), "--list"],
                            capture_output=True, text=True, timeout=30,
                            check=True).stdout.splitlines()
    names = [line.split("\t")[0] for line in listed]
    assert len(names) > 60 and "bpf" in names, names
    doc = check_json(lnk)
    sys_tries = {t["try"]: t for t in tries(doc, "system calls")}
    for name in names:
        t = sys_tries.get(f"call {name}")
        assert t is not None, (name, sorted(sys_tries))
        assert t["result"] == "blocked", t
