"""Dot files at the top of write folders: read only, never created, no
placeholders (docs/design.md, invariant 2).

The guard runs through `lnk sandbox run`: when run fails, these tests fail.
LNK_DOTFILES_VIA=harness runs them through guard-harness
(src/guard/harness.c) instead, to work on the supervisor alone: it ro-binds
the existing dot files, installs an equivalent notify filter inside bwrap
and runs our supervisor.
"""
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import LNK

BUILD = pathlib.Path(LNK).resolve().parent
HARNESS = pathlib.Path(os.environ.get("LNK_NOTIFY_HARNESS") or
                       BUILD / "src" / "guard" / "guard-harness")
RACE = pathlib.Path(os.environ.get("LNK_RACE_CREATE") or
                    BUILD / "tests" / "helpers" / "race_create")
PY = "/usr/bin/python3"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _lnk_run_fails(tmp):
    """Why `lnk sandbox run --write TMP -- true` fails, or None."""
    try:
        cp = subprocess.run([LNK, "sandbox", "run", "--write", str(tmp), "--",
                             "true"], capture_output=True, text=True,
                            timeout=30, cwd=str(tmp))
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    if cp.returncode != 0:
        return f"exit {cp.returncode}: {cp.stderr.strip()}"
    return None


@pytest.fixture(scope="module")
def via(tmp_path_factory):
    forced = os.environ.get("LNK_DOTFILES_VIA", "lnk")
    if forced == "harness":
        if not HARNESS.exists():
            pytest.fail(f"LNK_DOTFILES_VIA=harness but {HARNESS} is not "
                        "built")
        return "harness"
    if forced != "lnk":
        pytest.fail(f"LNK_DOTFILES_VIA={forced!r}: 'lnk' or 'harness'")
    why = _lnk_run_fails(tmp_path_factory.mktemp("probe"))
    if why:
        pytest.fail(f"`lnk sandbox run` fails, so the guard cannot be "
                    f"tested: {why}")
    return "lnk"


class Box:
    """Runs a program with --write folders, guarded or not, either way."""

    def __init__(self, via, home):
        self.via = via
        self.home = home

    def argv(self, write, cwd, prog, dot=(), alias=None, read=()):
        if self.via == "lnk":
            a = [LNK, "sandbox", "run"]
            for k in GIT_ENV:  # the environment is cleared: pass these
                a += ["--env", k]
            for r in read:
                a += ["--read", str(r)]
            for w in write:
                a += ["--write", str(w)]
            for d in dot:
                a += ["--write", str(d), "--write-dot-files", str(d)]
            return a + ["--", *prog]
        a = [str(HARNESS), "-C", str(cwd)]
        for w in write:
            a += ["-w", str(w)]
        for d in dot:
            a += ["-g", str(d)]
        if alias:
            a += ["-a", f"{alias[0]}:{alias[1]}"]
        return a + ["--", *prog]

    def env(self):
        e = {"HOME": str(self.home), "LANG": "C.UTF-8",
             "PATH": "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}
        e.update(GIT_ENV)
        return e

    def run(self, write, prog, cwd=None, dot=(), alias=None, timeout=120,
            read=()):
        cwd = cwd or (write[0] if write else dot[0])
        return subprocess.run(self.argv(write, cwd, prog, dot, alias, read),
                              cwd=str(cwd), capture_output=True, text=True,
                              timeout=timeout, env=self.env())

    def popen(self, write, prog, cwd=None):
        cwd = cwd or write[0]
        return subprocess.Popen(self.argv(write, cwd, prog), cwd=str(cwd),
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                env=self.env())


@pytest.fixture
def box(via, home):
    return Box(via, home)


def git(*args, cwd):
    env = dict(os.environ)
    env.update(GIT_ENV)
    env["HOME"] = str(cwd)
    return subprocess.run(["git", *args], cwd=str(cwd), env=env, check=True,
                          capture_output=True, text=True)


def snapshot(root):
    """Every entry under root with its type, mode, size and content hash."""
    out = {}
    for dp, dns, fns in os.walk(root):
        for n in dns + fns:
            p = os.path.join(dp, n)
            st = os.lstat(p)
            data = None
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as f:
                    data = f.read()
            elif os.path.islink(p):
                data = os.readlink(p)
            out[os.path.relpath(p, root)] = (st.st_mode, data)
    return out


DOT_NAMES = [".git", ".envrc", ".direnv", ".vscode", ".idea", ".github",
             ".husky", ".gitmodules", ".gitattributes", ".mcp.json",
             ".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile",
             ".npmrc", ".pre-commit-config.yaml", ".lnk"]

# Each attempt runs inside; it prints "CREATED <what>" if the call worked.
ATTEMPTS = r'''
import ctypes, os, socket, stat, sys
W = sys.argv[1]
ALIAS = sys.argv[2] if len(sys.argv) > 2 else None
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, AT_EMPTY_PATH = -100, 0x1000

def attempt(what, fn):
    try:
        fn()
    except OSError as e:
        print("refused", what, e.errno, flush=True)
        return
    print("CREATED", what, flush=True)

def opencreat(p, **kw):
    os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o644, **kw))

def tmpfile_link(dst):
    # linkat(AT_SYMLINK_FOLLOW) through the magic link (os.link would
    # call link(), which links the proc symlink itself: EXDEV)
    fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)
    if libc.linkat(AT_FDCWD, f"/proc/self/fd/{fd}".encode(), AT_FDCWD,
                   dst.encode(), 0x400) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))

def tmpfile_empty_path(dst):
    fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)
    if libc.linkat(fd, b"", AT_FDCWD, dst.encode(), AT_EMPTY_PATH) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))

def bind_unix(p):
    s = socket.socket(socket.AF_UNIX)
    s.bind(p)

os.chdir(W)
with open("file", "w") as f:
    f.write("x")
os.makedirs("sub", exist_ok=True)
with open("sub/x", "w") as f:
    f.write("x")
wfd = os.open(W, os.O_PATH | os.O_DIRECTORY)
subfd = os.open("sub", os.O_RDONLY | os.O_DIRECTORY)

attempt("open O_CREAT .envrc", lambda: opencreat(".envrc"))
attempt("python open .envrc", lambda: open(".envrc", "w").close())
attempt("creat .vscode", lambda: os.close(libc.creat(b".vscode", 0o644))
        if libc.creat(b".vscode", 0o644) >= 0 else
        (_ for _ in ()).throw(OSError(ctypes.get_errno(), "creat")))
attempt("O_EXCL .npmrc", lambda: os.close(os.open(".npmrc",
        os.O_CREAT | os.O_EXCL | os.O_WRONLY)))
attempt("mkdir .git", lambda: os.mkdir(".git"))
attempt("mkdir .idea", lambda: os.mkdir(".idea"))
attempt("mkdir .github/", lambda: os.mkdir(".github/"))
attempt("mknod .husky", lambda: os.mknod(".husky", stat.S_IFREG | 0o644))
attempt("mkfifo .profile", lambda: os.mkfifo(".profile"))
attempt("symlink .bashrc", lambda: os.symlink("file", ".bashrc"))
attempt("link .zshrc", lambda: os.link("file", ".zshrc"))
attempt("rename onto .mcp.json", lambda: os.rename("file", ".mcp.json"))
attempt("rename dir onto .direnv",
        lambda: (os.makedirs("d", exist_ok=True), os.rename("d", ".direnv")))
attempt("rename sub/x onto .gitmodules",
        lambda: os.rename("sub/x", ".gitmodules"))
attempt("os.replace onto .gitattributes",
        lambda: os.replace("file", ".gitattributes"))
attempt("through dangling relative symlink", lambda: opencreat("dangling"))
attempt("through dangling absolute symlink", lambda: opencreat("dangabs"))
attempt("through sub/up symlink", lambda: opencreat("sub/up/.envrc"))
attempt("sub/../.envrc", lambda: opencreat("sub/../.envrc"))
attempt("../.envrc from sub", lambda: opencreat("../.envrc", dir_fd=subfd))
attempt("openat(O_PATH W) .envrc", lambda: opencreat(".envrc", dir_fd=wfd))
attempt("/proc/self/cwd/.envrc", lambda: opencreat("/proc/self/cwd/.envrc"))
attempt("/proc/thread-self/cwd/.git",
        lambda: os.mkdir("/proc/thread-self/cwd/.git"))
attempt("/dev/fd/N/.envrc", lambda: opencreat(f"/dev/fd/{wfd}/.envrc"))
attempt("/proc/self/fd/N/.lnk", lambda: os.mkdir(f"/proc/self/fd/{wfd}/.lnk"))
attempt("absolute path", lambda: opencreat(W + "/.envrc"))
attempt("absolute //./ path", lambda: opencreat("/" + W + "/./.envrc"))
attempt("O_TMPFILE + linkat FOLLOW", lambda: tmpfile_link(".envrc"))
attempt("O_TMPFILE + linkat AT_EMPTY_PATH",
        lambda: tmpfile_empty_path(".envrc"))
attempt("unix bind", lambda: bind_unix(".envrc"))
attempt("unix bind abs", lambda: bind_unix(W + "/.zprofile"))
attempt("case .ENVRC", lambda: opencreat(".ENVRC") if
        os.path.exists(".envrc") else (_ for _ in ()).throw(
            OSError(1, "case-sensitive: not a dot file here")))
if ALIAS:
    attempt("alias bind mount", lambda: opencreat(ALIAS + "/.envrc"))
    attempt("alias mkdir", lambda: os.mkdir(ALIAS + "/.vscode"))
'''


def make_project(w):
    (w / "sub").mkdir()
    os.symlink(".envrc", w / "dangling")
    os.symlink(str(w / ".envrc"), w / "dangabs")
    os.symlink("..", w / "sub" / "up")


def test_every_way_refused(box, work, via, tmp_path):
    make_project(work)
    alias = None
    if via == "harness":
        alias = (str(work), str(tmp_path / "alias"))
        (tmp_path / "alias").mkdir()
    before = snapshot(work)
    prog = [PY, "-c", ATTEMPTS, str(work)]
    if alias:
        prog.append(alias[1])
    cp = box.run([work], prog, alias=alias)
    assert "Traceback" not in cp.stderr, cp.stderr
    lines = cp.stdout.splitlines()
    created = [l for l in lines if l.startswith("CREATED")]
    assert not created, cp.stdout + cp.stderr
    assert len([l for l in lines if l.startswith("refused")]) >= 30, cp.stdout
    # every refusal of a dot name is EPERM (1)
    for l in lines:
        if l.startswith("refused") and "case" not in l:
            assert l.endswith(" 1"), l
    for n in DOT_NAMES:
        assert not os.path.lexists(work / n), n
    # only the files the script made itself, nothing of ours
    after = snapshot(work)
    new = set(after) - set(before)
    assert new <= {"file", "sub/x", "d"}, new
    # the message, once per name
    assert cp.stderr.count("refused to create .envrc at the top of "
                           f"{work}") == 1, cp.stderr
    assert f"--write-dot-files {work} allows it" in cp.stderr


def test_git_init_at_top_refused(box, work):
    cp = box.run([work], ["git", "init", "-q", "."])
    assert cp.returncode != 0
    assert not (work / ".git").exists()
    assert os.listdir(work) == []


EXISTING = r'''
import os, subprocess, sys
def attempt(what, fn):
    try:
        fn()
    except (OSError, subprocess.CalledProcessError) as e:
        print("refused", what, flush=True)
        return
    print("CHANGED", what, flush=True)
def write(p, mode="a"):
    with open(p, mode) as f:
        f.write("evil\n")
print("read", open(".envrc").read().strip(), flush=True)
subprocess.run(["git", "status", "--porcelain"], check=True)
subprocess.run(["git", "log", "--oneline"], check=True)
attempt("append .envrc", lambda: write(".envrc"))
attempt("truncate .envrc", lambda: os.truncate(".envrc", 0))
attempt("unlink .envrc", lambda: os.unlink(".envrc"))
attempt("rename .envrc away", lambda: os.rename(".envrc", "x"))
attempt("rename over .envrc", lambda: (write("y", "w"),
        os.rename("y", ".envrc")))
attempt("chmod .envrc", lambda: os.chmod(".envrc", 0o777))
attempt("chmod .git", lambda: os.chmod(".git", 0o777))
attempt("write .git/config", lambda: write(".git/config"))
attempt("new hook", lambda: write(".git/hooks/pre-commit", "w"))
attempt("rmdir .git", lambda: os.rmdir(".git"))
attempt("rename .git", lambda: os.rename(".git", "g"))
attempt("rm -rf .git", lambda: subprocess.run(["rm", "-rf", ".git"],
        check=True, stderr=subprocess.DEVNULL))
attempt("git commit at top", lambda: subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", "x"], check=True,
        stderr=subprocess.DEVNULL))
attempt("git config", lambda: subprocess.run(
        ["git", "config", "core.hooksPath", "/tmp"], check=True,
        stderr=subprocess.DEVNULL))
attempt("write .vscode/settings.json",
        lambda: write(".vscode/settings.json"))
attempt("new file in .vscode", lambda: write(".vscode/tasks.json", "w"))
'''


def test_existing_dot_files_read_only(box, work, tmp_path):
    git("init", "-q", ".", cwd=work)
    (work / ".envrc").write_text("export SAFE=1\n")
    (work / ".vscode").mkdir()
    (work / ".vscode" / "settings.json").write_text("{}\n")
    (work / "README").write_text("hi\n")
    git("add", "-A", cwd=work)
    git("commit", "-qm", "init", cwd=work)
    before = snapshot(work)
    cp = box.run([work], [PY, "-c", EXISTING])
    assert "Traceback" not in cp.stderr, cp.stderr
    assert "read export SAFE=1" in cp.stdout
    changed = [l for l in cp.stdout.splitlines() if l.startswith("CHANGED")]
    assert not changed, cp.stdout + cp.stderr
    after = snapshot(work)
    for k in before:
        if k.startswith((".git", ".envrc", ".vscode")) and \
                not k.startswith(".git/index"):
            assert after.get(k) == before[k], k
    assert not (work / ".git" / "hooks" / "pre-commit").exists()
    assert git("status", "--porcelain", cwd=work).stdout.strip() in \
        ("", "?? y", "?? x")


BELOW = r'''
set -e
git init -q sub
echo hi > sub/a
git -C sub add a
git -C sub commit -qm one
git clone -q sub clone
test -f clone/a
mkdir -p deep/.git deep/.vscode
echo x > deep/.envrc
# an editor's save: a temp file, then rename over the original
echo v1 > notes.txt
printf 'v2\n' > .notes.txt.swp
mv -f .notes.txt.swp notes.txt
python3 -c 'import os; open("t.tmp","w").write("v3"); os.replace("t.tmp","notes.txt")'
sed -i s/v3/v4/ notes.txt
cp notes.txt copy.txt
ln -s notes.txt link.txt
ln notes.txt hard.txt
echo through > link.txt
mkfifo pipe
(cat pipe > fromfifo) &
echo fifo > pipe
wait
(umask 077; touch private; mkdir privdir)
python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("sock")'
# magic links the supervisor maps to the program's own fds and cwd
echo null > /dev/null
echo to-stdout > /dev/stdout
echo viacwd > /proc/self/cwd/viacwd
mkdir /proc/self/cwd/sub/viacwd-dir
# O_TMPFILE, then a name below or beside the top
python3 - <<'PY'
import ctypes, os
fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)
os.write(fd, b"tmpfile\n")
libc = ctypes.CDLL(None, use_errno=True)
assert libc.linkat(-100, f"/proc/self/fd/{fd}".encode(), -100,
                   b"from-tmpfile", 0x400) == 0, ctypes.get_errno()
fd2 = os.open("sub", os.O_TMPFILE | os.O_WRONLY, 0o600)
assert libc.linkat(fd2, b"", -100, b"sub/.envrc", 0x1000) == 0, ctypes.get_errno()
PY
echo done
'''


def test_below_top_everything_works(box, work):
    cp = box.run([work], ["sh", "-c", BELOW], timeout=120)
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert "done" in cp.stdout
    assert (work / "sub" / ".git").is_dir()
    assert git("-C", "sub", "log", "--oneline", cwd=work).stdout.count(
        "\n") == 1
    assert (work / "clone" / "a").read_text() == "hi\n"
    assert (work / "deep" / ".envrc").read_text() == "x\n"
    assert (work / "notes.txt").read_text() == "through\n"
    assert (work / "fromfifo").read_text() == "fifo\n"
    assert "to-stdout" in cp.stdout
    assert (work / "viacwd").read_text() == "viacwd\n"
    assert (work / "sub" / "viacwd-dir").is_dir()
    assert (work / "from-tmpfile").read_text() == "tmpfile\n"
    assert (work / "sub" / ".envrc").exists()
    assert oct((work / "private").stat().st_mode & 0o777) == "0o600"
    assert oct((work / "privdir").stat().st_mode & 0o777) == "0o700"
    st = (work / "notes.txt").stat()
    assert st.st_uid == os.geteuid()
    assert "refused" not in cp.stderr


@pytest.mark.parametrize("mode", ["open", "mkdir", "symlink", "rename",
                                  "link", "mknod"])
def test_race_never_creates(box, work, mode):
    if not RACE.exists():
        pytest.skip(f"{RACE} is not built")
    cp = box.run([work], [str(RACE), mode, "2"], timeout=120,
                 read=[RACE.parent])
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert "created=0" in cp.stdout, cp.stdout
    assert not os.path.lexists(work / ".envrc")


def test_no_placeholder_during_run_or_after_kill(box, work):
    git("init", "-q", ".", cwd=work)
    (work / "a").write_text("a\n")
    git("add", "-A", cwd=work)
    git("commit", "-qm", "a", cwd=work)
    before = snapshot(work)
    p = box.popen([work], ["sh", "-c", "echo ready; exec sleep 60"])
    try:
        assert p.stdout.readline().strip() == "ready"
        assert snapshot(work) == before
        assert git("status", "--porcelain", "--ignored",
                   cwd=work).stdout == ""
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
    time.sleep(0.2)
    assert snapshot(work) == before
    assert git("status", "--porcelain", "--ignored", cwd=work).stdout == ""


def test_write_dot_files_lifts_it(box, work, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    cp = box.run([other], ["sh", "-c",
                           f"cd {work} && touch .envrc && git init -q . && "
                           "git add .envrc && git commit -qm dots && "
                           f"touch {other}/.envrc"],
                 dot=[work], cwd=work)
    assert (work / ".envrc").exists()
    assert (work / ".git").is_dir()
    assert cp.returncode != 0  # the other folder is still guarded
    assert not (other / ".envrc").exists()
    assert f"top of {other}" in cp.stderr


def test_refusal_reported_once_per_name(box, work):
    cp = box.run([work], ["sh", "-c",
                          "for i in 1 2 3; do touch .envrc .idea; done; "
                          "mkdir .git .git; true"])
    assert cp.returncode == 0
    for n in (".envrc", ".idea", ".git"):
        assert cp.stderr.count(f"refused to create {n} at the top") == 1, \
            cp.stderr


def test_dot_symlink_inside_is_read_only(box, work):
    (work / "real-vscode").mkdir()
    (work / "real-vscode" / "settings.json").write_text("{}\n")
    os.symlink("real-vscode", work / ".vscode")
    cp = box.run([work], ["sh", "-c",
                          "cat .vscode/settings.json; "
                          "echo evil > .vscode/settings.json; echo w=$?; "
                          "echo evil > real-vscode/settings.json; echo r=$?; "
                          "touch real-vscode/new; echo n=$?"])
    assert "{}" in cp.stdout
    assert "w=0" not in cp.stdout and "r=0" not in cp.stdout, cp.stdout
    assert "n=0" not in cp.stdout, cp.stdout
    assert (work / "real-vscode" / "settings.json").read_text() == "{}\n"
    assert not (work / "real-vscode" / "new").exists()


RENAMES = r'''
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def renameat2(a, b, flags):
    if libc.renameat2(-100, a.encode(), -100, b.encode(), flags) != 0:
        return ctypes.get_errno()
    return 0
open("f", "w").close()
print("exchange-existing", renameat2("f", ".envrc", 2))
print("exchange-missing", renameat2("f", ".idea", 2))
print("noreplace-missing", renameat2("f", ".idea", 1))
print("noreplace-existing", renameat2("f", ".envrc", 1))
print("exchange-from-top", renameat2(".envrc", "f", 2))
'''


def test_renameat2_flags(box, work):
    import errno
    (work / ".envrc").write_text("safe\n")
    cp = box.run([work], [PY, "-c", RENAMES])
    got = dict(l.split() for l in cp.stdout.splitlines())
    assert int(got["exchange-existing"]) == errno.EBUSY, cp.stdout
    assert int(got["exchange-missing"]) in (errno.EPERM, errno.ENOENT)
    assert int(got["noreplace-missing"]) == errno.EPERM
    assert int(got["noreplace-existing"]) in (errno.EBUSY, errno.EEXIST)
    assert int(got["exchange-from-top"]) == errno.EBUSY
    assert (work / ".envrc").read_text() == "safe\n"
    assert not (work / ".idea").exists()
    assert (work / "f").exists()


def test_metadata_of_own_files_still_changes(lnk, work):
    """The guard refuses loosening what it protects, not chmod itself."""
    cp = lnk.run("--write", work, "--", "/bin/sh", "-c",
                 "touch f && chmod 0600 f && mkdir d && chmod 0700 d && "
                 "ln -s f l && chmod 0640 l && chown -h $(id -u) l && "
                 "python3 -c 'import os; os.setxattr(\"f\", \"user.a\", b\"1\")'"
                 " && echo ok", timeout=60)
    assert cp.stdout.strip() == "ok", cp.stderr
    assert (work / "f").stat().st_mode & 0o7777 == 0o640
    assert (work / "d").stat().st_mode & 0o7777 == 0o700
    assert os.getxattr(work / "f", "user.a") == b"1"


def test_dot_symlink_to_outside_not_exposed(box, work, home):
    secret = home / "secret"
    secret.write_text("top secret\n")
    os.symlink(str(secret), work / ".envrc")
    os.symlink("envrc.local", work / ".idea")  # dangling, target guarded
    cp = box.run([work], ["sh", "-c",
                          f"cat {secret} 2>/dev/null; "
                          "touch envrc.local; echo rc=$?"])
    if box.via == "lnk":
        assert "top secret" not in cp.stdout
    assert "rc=1" in cp.stdout, cp.stdout + cp.stderr
    assert not (work / "envrc.local").exists()
    assert os.readlink(work / ".envrc") == str(secret)


def _log_rows(lnk, *args):
    import json
    cp = lnk("sandbox", "log", "--json", *args, check=True)
    return [json.loads(line) for line in cp.stdout.splitlines() if line]


@pytest.mark.parametrize("wire", [False, True], ids=["no-wire", "wire"])
def test_refusal_recorded_in_call_log(via, lnk, work, wire):
    """A refused dot file is recorded for `lnk sandbox log`, once
    per name, with or without a wire (the wire starts only with a network
    grant): verb file, target the --write folder and the name at its top,
    never a deeper path."""
    if via != "lnk":
        pytest.skip("the call log is written by `lnk sandbox run`")
    (work / "sub").mkdir()
    grants = ["--internet-host", "example.test"] if wire else []
    cp = lnk.run("--name", "dotlog", "--write", work, *grants, "--", "sh",
                 "-c", "touch .envrc; touch .envrc .ENVRC; mkdir .git; "
                 "touch sub/.envrc ok; true")
    assert cp.returncode == 0, cp.stderr
    assert not (work / ".envrc").exists() and not (work / ".git").exists()
    assert (work / "sub" / ".envrc").exists() and (work / "ok").exists()
    top = os.path.realpath(work)
    rows = _log_rows(lnk)
    files = [r for r in rows if r["verb"] == "file"]
    assert sorted(r["target"] for r in files) == \
        sorted([f"{top}/.envrc", f"{top}/.git"]), rows
    for r in files:
        assert r["sandbox"] == "dotlog"
        assert r["outcome"] == "refused"
        assert "runs outside, at the top" in r["reason"]
        assert r["time"].endswith("Z")
    # --refused and --sandbox find them; the table shows them too
    assert len([r for r in _log_rows(lnk, "--refused", "--sandbox",
                                         "dotlog")
                if r["verb"] == "file"]) == 2
    table = lnk("sandbox", "log", "--refused", check=True).stdout
    assert f"{top}/.envrc" in table and "file" in table
    # nothing below the top, nothing allowed, was logged
    assert not any("sub" in r["target"] or r["target"].endswith("/ok")
                   for r in rows)


def test_refusal_log_survives_a_second_sandbox(via, lnk, work):
    """Two sandboxes' refusals both land (the wire-less calls are numbered
    apart from any wire's), each under its own name."""
    if via != "lnk":
        pytest.skip("the call log is written by `lnk sandbox run`")
    for name in ("one", "two"):
        cp = lnk.run("--name", name, "--write", work, "--", "sh", "-c",
                     "touch .npmrc; true")
        assert cp.returncode == 0, cp.stderr
    files = [r for r in _log_rows(lnk) if r["verb"] == "file"]
    assert [r["sandbox"] for r in files] == ["one", "two"], files
    top = os.path.realpath(work)
    assert all(r["target"] == f"{top}/.npmrc" for r in files)
