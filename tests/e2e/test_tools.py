"""Tools that run outside the sandbox (--tool, [tools] allow) and the calls
stored with `lnk sandbox tool` (lnk-sandbox(1), TOOLS AND ASKING).

A tool here is a script in a folder on lnk's PATH only (never granted to
the sandbox): what it writes outside every grant proves it ran outside.
"""
import json
import os
import pathlib
import pty
import select
import shutil
import subprocess
import textwrap
import time

import pytest

from conftest import on_lnk_path

PY = "/usr/bin/python3"

TOOL = r"""#!/bin/sh
# a tool outside: says where and how it runs, and leaves a mark. The
# sleeper holds a lock on a file outside while it lives: each call runs
# in a PID namespace of its own, so no pid can name it from another.
out="@OUT@"
echo "$$" > "$out/pid"
echo "args:$*" >> "$out/calls"
case "$1" in
  status) echo "cwd:$(pwd)"; echo "token:${TOOL_TOKEN:-none}"
          echo "pager:${PAGER-unset} git-pager:${GIT_PAGER-unset}" \
               "editor:${EDITOR-unset} lessopen:${LESSOPEN-unset}" \
               "lesssecure:${LESSSECURE-unset}"; exit 7 ;;
  wait) trap 'echo INT > "$out/signal"; exit 42' INT
        echo started; while :; do sleep 0.1; done ;;
  sleep) : > "$out/sleeper"; exec flock "$out/sleeper" sh -c 'echo started; exec sleep 300' ;;
  alive) if flock -n "$out/sleeper" true; then echo gone; else echo alive; fi ;;
  *) echo "ran:$*" ;;
esac
"""


@pytest.fixture
def tool(tmp_path, lnk):
    """A tool 'mytool' on lnk's PATH, and the folder it marks (outside every
    grant). lnk runs with TOOL_TOKEN set, as a credential would be."""
    bindir = tmp_path / "toolbin"
    out = tmp_path / "toolout"
    bindir.mkdir()
    out.mkdir()
    t = bindir / "mytool"
    t.write_text(TOOL.replace("@OUT@", str(out)))
    t.chmod(0o755)
    bindir.chmod(0o755)
    out.chmod(0o777)
    base = lnk.env

    def env(extra=None):
        e = base(extra)
        e["PATH"] = f"{bindir}:{e['PATH']}"
        e["TOOL_TOKEN"] = "s3cret"
        # a user's own pager and editor, which a tool outside must not
        # start on the program's descriptors
        e["PAGER"] = "less"
        e["EDITOR"] = "vi"
        e["LESSOPEN"] = "|/tmp/lesspipe %s"
        return e
    lnk.env = env
    return out


def calls(out):
    f = out / "calls"
    return f.read_text().splitlines() if f.exists() else []


def test_tool_runs_outside_with_its_status_and_lnks_environment(lnk, work,
                                                                  tool):
    cp = lnk.run("--write", work, "--tool", "mytool status", "--", "/bin/sh",
                 "-c", f"cd {work} && mytool status; echo st=$?; "
                 f"echo inside-token=${{TOOL_TOKEN:-none}}; "
                 f"cat {tool}/calls || echo no-mark-inside")
    assert cp.returncode == 0, cp.stderr
    assert f"cwd:{work}" in cp.stdout
    assert "token:s3cret" in cp.stdout  # lnk's environment, outside
    # but no pager or editor the program could drive
    assert ("pager:cat git-pager:cat editor:false lessopen:unset "
            "lesssecure:1") in cp.stdout, cp.stdout
    assert "st=7" in cp.stdout
    assert "inside-token=none" in cp.stdout  # never the sandbox's
    assert "no-mark-inside" in cp.stdout  # its mark is outside every grant
    assert calls(tool) == ["args:status"]


def test_program_that_is_a_tool_runs_outside(lnk, tool):
    cp = lnk.run("--tool", "mytool status", "--", "mytool", "status")
    assert cp.returncode == 7, cp.stderr
    assert calls(tool) == ["args:status"]


def test_a_tool_under_commands_is_not_named_refused(lnk, work, tool):
    """With [commands], each program Landlock refuses is named; a granted
    tool's client runs (its host file is what the kernel runs), and was
    named refused all the same before each call went through."""
    cp = lnk.run("--write", work, "--tool", "mytool status", "--command",
                 "sh", "--", "/bin/sh", "-c", "mytool status; echo st=$?")
    assert "st=7" in cp.stdout, cp.stderr
    assert "refused to run" not in cp.stderr, cp.stderr
    assert calls(tool) == ["args:status"]


def test_tool_hard_linked_outside_every_write_folder_runs(lnk, work,
                                                          tmp_path):
    """The rule is precise: a tool whose other names are all outside the
    write folders (perl and perl5.36.0 in /usr/bin) runs."""
    prog = on_lnk_path(lnk, tmp_path / "toolbin2", "mytool",
                       "#!/bin/sh\necho honest\n")
    os.link(prog, prog.parent / "mytool-1.0")
    (tmp_path / "elsewhere").mkdir()
    os.link(prog, tmp_path / "elsewhere" / "mytool")
    cp = lnk.run("--write", work, "--tool", "mytool *", "--", "mytool")
    assert cp.returncode == 0, (cp.stdout, cp.stderr)
    assert cp.stdout.strip() == "honest", cp.stdout


def test_tool_not_granted_does_not_exist_inside(lnk, tool):
    cp = lnk.run("--", "/bin/sh", "-c",
                 "command -v mytool || echo none; ls /run/lnk/bin 2>&1")
    assert "none" in cp.stdout
    assert "mytool" not in cp.stdout.replace("none", "")
    assert calls(tool) == []


def test_missing_tool_stops_the_start(lnk):
    cp = lnk.run("--tool", "no-such-tool-here", "--", "/bin/true")
    assert cp.returncode == 2
    assert "--tool: no program 'no-such-tool-here' on lnk's PATH" \
        in cp.stderr, cp.stderr


def test_grant_is_the_whole_call_and_refusal_names_exactly_it(lnk, tool):
    """A grant allows its call and nothing after it; the refusal offers
    exactly the call refused, never the shorter grant it starts with."""
    script = ("mytool pr list; echo st=$?; mytool pr list --x; echo st=$?; "
              "mytool issue list -a; echo st=$?")
    cp = lnk.run("--tool", "mytool pr list", "--", "/bin/sh", "-c", script)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.count("st=0") == 1 and cp.stdout.count("st=126") == 2
    assert ("no one to ask; to let exactly this call through, run outside "
            "the sandbox: lnk sandbox tool add mytool --allow "
            "'pr list --x'") in cp.stderr, cp.stderr
    assert "--allow 'issue list -a'" in cp.stderr
    assert "--allow 'pr list'" not in cp.stderr
    assert "--allow 'issue list'" not in cp.stderr
    assert calls(tool) == ["args:pr list"]
    # the hint's own command lets that call through, and only it
    lnk("sandbox", "tool", "add", "mytool", "--allow", "issue list -a",
        check=True)
    cp = lnk.run("--tool", "mytool pr list", "--", "/bin/sh", "-c",
                 script + "; mytool issue list -a -b; echo st=$?")
    assert cp.stdout.count("st=0") == 2, cp.stderr
    assert cp.stdout.count("st=126") == 2, cp.stdout
    assert calls(tool)[-2:] == ["args:pr list", "args:issue list -a"]


def test_refusal_of_a_call_that_cannot_be_stored_says_why(lnk, tool):
    """A call with an argument a grant cannot hold (a space, a quote, '*')
    gets no line to paste, never '*' or a shorter call: it is told why,
    and what to do instead. A call that starts with an option is a call
    like any other."""
    cp = lnk.run("--tool", "mytool pr", "--", "/bin/sh", "-c",
                 "mytool issue 'close 1'; echo st=$?; "
                 "mytool pr \\*; echo st=$?; "
                 "mytool --repo x/y issue close 1; echo st=$?")
    assert cp.stdout.count("st=126") == 3, (cp.stdout, cp.stderr)
    lines = cp.stderr.splitlines()
    spaced = [x for x in lines if "'close 1'" in x]
    assert len(spaced) == 1 and "tool add" not in spaced[0], lines
    assert "its argument 2 holds a space" in spaced[0]
    assert "Answer it when asked" in spaced[0]
    assert "write a pattern" in spaced[0]
    assert any("its argument 2 is '*'" in x and "tool add" not in x
               for x in lines), lines
    assert ("lnk sandbox tool add mytool --allow '--repo x/y issue close 1'"
            in cp.stderr), cp.stderr
    assert "--allow '*'" not in cp.stderr
    assert calls(tool) == []


def test_a_call_too_big_for_the_broker_names_which_bound(lnk, tool):
    """A call of more arguments than the broker takes (4096) is refused
    inside, before anything leaves, naming that bound; one of more bytes
    than it takes (256 KiB) names that one."""
    cp = lnk.run("--tool", "mytool", "--", "/bin/sh", "-c",
                 "mytool $(seq 1 5000); echo st=$?; "
                 "a=$(head -c 100000 /dev/zero | tr '\\0' x); "
                 "mytool $a $a $a; "
                 "echo st=$?")
    lines = [x for x in cp.stderr.splitlines() if "mytool" in x]
    assert any("more than 4096 arguments" in x for x in lines), cp.stderr
    assert any("larger than 256 KiB" in x for x in lines), cp.stderr
    assert not any("4096" in x and "KiB" in x for x in lines), cp.stderr
    assert cp.stdout.count("st=") == 2, cp.stdout
    assert "st=0" not in cp.stdout, cp.stdout
    assert calls(tool) == []


@pytest.fixture
def repo(lnk, work):
    """A git repository with one commit in the write folder, made before
    the sandbox starts (the user's own)."""
    if not shutil.which("git"):
        pytest.skip("git is not installed on this machine")
    env = {"HOME": str(lnk.home), "PATH": "/usr/bin:/bin",
           "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"],
                 ["-c", "user.name=t", "-c", "user.email=t@t.test", "commit",
                  "-q", "--allow-empty", "-m", "first"]):
        subprocess.run(["git", *args], cwd=work, env=env, check=True)
    return work


def user_git(lnk, repo, *args):
    """git as the user, outside every sandbox, in repo (a test identity)."""
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t.test",
                    *args], cwd=repo, check=True,
                   env={"HOME": str(lnk.home), "PATH": "/usr/bin:/bin",
                        "GIT_CONFIG_NOSYSTEM": "1"})


def marks(tmp_path):
    """A folder outside every grant, where a command run outside leaves a
    mark."""
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o777)
    return out


def test_git_log_grant_cannot_write_a_file_with_output(lnk, repo):
    """Threat: with --tool 'git log' (the grant a refusal used to
    suggest), the program runs git log --output=~/.bashrc outside, as the
    user: a file of its choosing, written with content it picks."""
    target = lnk.home / ".bashrc"
    cp = lnk.run("--write", repo, "--tool", "git log", "--", "/bin/sh", "-c",
                 f"cd {repo} && git log; echo st=$?; git log -1 "
                 f"--format=tformat:pwned --output={target}; echo st=$?")
    assert not target.exists(), target.read_text()
    assert "first" in cp.stdout and "st=0" in cp.stdout, cp.stderr
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    # the refusal names exactly that call, nothing shorter
    assert ("lnk sandbox tool add git --allow 'log -1 --format=tformat:pwned "
            f"--output={target}'") in cp.stderr, cp.stderr
    assert "--allow 'log'" not in cp.stderr
    assert "lnk: tool git" not in cp.stderr  # an exact grant: no warning


ESCAPE = r"""
import os, socket, subprocess, sys, time
out, res = sys.argv[1], open(sys.argv[2], "w")
# git log with the terminal lnk gave the program as its stdout (git
# pages onto a terminal) and a socket of the program's as its stderr
# (where less, with no terminal of its own to open, reads its keys)
tty = next(fd for fd in (1, 0, 2) if os.isatty(fd))
a, b = socket.socketpair()
p = subprocess.Popen(["git", "log"], stdin=subprocess.DEVNULL,
                     stdout=tty, stderr=b.fileno())
time.sleep(1.5)
a.send(f"!touch {out}/pager-ran\n".encode())
time.sleep(1)
a.send(b"\nq")
try:
    p.wait(timeout=5)
except subprocess.TimeoutExpired:
    p.kill()
print("log", p.returncode, file=res, flush=True)
# git commit --amend: its editor reads the program's stdin as keys
p = subprocess.Popen(["git", "commit", "--amend"], stdin=subprocess.PIPE,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    p.communicate(f"\x1b:!touch {out}/editor-ran\r:q!\r".encode(),
                  timeout=8)
except subprocess.TimeoutExpired:
    p.kill()
print("amend", p.returncode, file=res, flush=True)
"""


def test_an_exact_git_grant_starts_no_pager_or_editor_the_program_drives(
        lnk, repo, tmp_path):
    """Threat: with --tool 'git log' or 'git commit --amend' (exact grants,
    no '*'), git outside starts its pager (less) or editor (vi) on the
    descriptors the program passed, and those read their commands from
    the program: less's '!CMD' and vi's ':!CMD' run any command outside,
    as the user, while the log shows an allowed git log."""
    for i in range(40):  # more than a screen: less stays
        user_git(lnk, repo, "commit", "-q", "--allow-empty", "-m", f"c{i}")
    out = marks(tmp_path)
    script = tmp_path / "escape.py"
    script.write_text(ESCAPE)
    script.chmod(0o644)
    tmp_path.chmod(0o755)
    res = repo / "result.txt"
    # on a terminal: lnk holds it, and the program gets one of its own
    m, sl = pty.openpty()
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--write", repo, "--read", script,
         "--tool", "git log", "--tool", "git commit --amend", "--",
         "/bin/sh", "-c", f"cd {repo} && /usr/bin/python3 {script} {out} "
         f"{res}"], stdin=sl, stdout=sl, stderr=sl, cwd=repo,
        env=lnk.env(), start_new_session=True)
    os.close(sl)
    seen = b""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        r, _, _ = select.select([m], [], [], 0.5)
        if r:
            try:
                d = os.read(m, 65536)
            except OSError:
                break
            if not d:
                break
            seen += d
        elif p.poll() is not None:
            break
    p.wait(timeout=30)
    os.close(m)
    got = res.read_text() if res.exists() else ""
    assert "log 0" in got, (got, seen[-2000:])
    assert "amend " in got, (got, seen[-2000:])
    assert not (out / "pager-ran").exists(), "the pager ran the command"
    assert not (out / "editor-ran").exists(), "the editor ran the command"


def test_an_exact_git_grant_runs_no_difftool_or_hook_of_the_programs(
        lnk, repo, tmp_path):
    """Threat: with --tool 'git difftool' (exact), git falls back to
    vimdiff, which reads ':!CMD' from the program's stdin; with --tool
    'git commit -a -m wip', the user's own pre-commit hook runs make,
    which obeys the Makefile the program wrote at the write folder's top.
    Either runs the program's command outside, as the user."""
    out = marks(tmp_path)
    (repo / "README").write_text("hello\n")
    (repo / "Makefile").write_text("check:\n\t@true\n")
    user_git(lnk, repo, "add", "README", "Makefile")
    user_git(lnk, repo, "commit", "-qm", "two")
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexec make -s check\n")
    hook.chmod(0o755)
    script = (
        f"cd {repo} && echo more >> README && "
        f"printf 'y\\n:!touch {out}/difftool-ran\\n:qa!\\n' | "
        "git difftool >/dev/null 2>&1; echo difftool=$?; "
        f"printf 'check:\\n\\t@touch {out}/hook-ran\\n' > Makefile; "
        "git -c user.name=t commit -a -m wip >/dev/null 2>&1; "
        "echo commit=$?")
    cp = lnk.run("--write", repo, "--tool", "git difftool", "--tool",
                 "git commit -a -m wip", "--", "/bin/sh", "-c", script,
                 stdin=subprocess.DEVNULL, timeout=60)
    assert "difftool=" in cp.stdout and "commit=" in cp.stdout, (
        cp.stdout, cp.stderr)
    assert not (out / "difftool-ran").exists(), "vimdiff ran the command"
    assert not (out / "hook-ran").exists(), "the hook ran the Makefile"


def test_git_never_enters_a_repository_the_program_made(lnk, repo, tmp_path):
    """Threat: the program makes sub/.git below the top (its config's
    core.fsmonitor any command), an exact 'git add -A' stages it as a
    submodule, and an exact 'git status' at the top runs git in sub to
    see whether it is dirty: that git runs the fsmonitor, outside, as
    the user."""
    out = marks(tmp_path)
    script = (
        f"cd {repo} && G=/usr/lib/git-core/git && "
        "mkdir sub && cd sub && $G init -q && echo x > f && $G add f && "
        "$G -c user.email=a@b -c user.name=a commit -qm s >/dev/null && "
        f"$G config core.fsmonitor 'touch {out}/fsmonitor-ran; echo' && "
        "cd .. && git add -A; echo add=$?; git status >/dev/null; "
        "echo status=$?")
    cp = lnk.run("--write", repo, "--tool", "git add -A", "--tool",
                 "git status", "--", "/bin/sh", "-c", script,
                 stdin=subprocess.DEVNULL, timeout=60)
    assert "add=0" in cp.stdout and "status=0" in cp.stdout, (
        cp.stdout, cp.stderr)
    assert not (out / "fsmonitor-ran").exists(), \
        "git ran the fsmonitor of the program's repository"


def test_a_subfolders_attributes_select_no_driver_of_the_users(
        lnk, repo, tmp_path):
    """Threat: the user's ~/.gitconfig defines a filter and a diff driver
    (nbstripout's 'python3 -m nbstripout', a gpg textconv); the program
    writes sub/.gitattributes selecting them for its files, and an exact
    'git status' or 'git diff' at the top feeds the program's bytes to
    them, or runs the program's module (python -m finds nbstripout.py in
    the working folder), outside, as the user."""
    out = marks(tmp_path)
    (lnk.home / ".gitconfig").write_text(
        '[filter "nb"]\n'
        f'\tclean = touch {out}/filter-ran && cat\n'
        '\tsmudge = cat\n'
        '[diff "dec"]\n'
        f'\ttextconv = touch {out}/textconv-ran && cat\n'
        # the older form, whose subsection git reads in lower case
        '[diff.DOTTED]\n'
        f'\ttextconv = touch {out}/dotted-ran && cat\n')
    (repo / "sub").mkdir()
    (repo / "sub" / "a.txt").write_text("hello\n")
    user_git(lnk, repo, "add", "sub/a.txt")
    user_git(lnk, repo, "commit", "-qm", "sub")
    # a driver of the repository's own config (nbstripout --install,
    # git lfs install --local put theirs there)
    user_git(lnk, repo, "config", "filter.local.clean",
             f"touch {out}/local-ran && cat")
    script = (
        f"cd {repo} && printf '* filter=nb diff=dec\\n' > "
        "sub/.gitattributes && sleep 1 && echo hellp > sub/a.txt && "
        "git status >/dev/null 2>&1; echo status=$?; "
        "git diff >/dev/null 2>&1; echo diff=$?; "
        "printf '* filter=local diff=dotted\\n' > sub/.gitattributes && "
        "sleep 1 && echo hellq > sub/a.txt && "
        "git status >/dev/null 2>&1; git diff >/dev/null 2>&1; echo again")
    cp = lnk.run("--write", repo, "--tool", "git status", "--tool",
                 "git diff", "--", "/bin/sh", "-c", script,
                 stdin=subprocess.DEVNULL, timeout=60)
    assert "status=" in cp.stdout and "diff=" in cp.stdout, (
        cp.stdout, cp.stderr)
    assert "again" in cp.stdout, (cp.stdout, cp.stderr)
    assert not (out / "filter-ran").exists(), "the user's filter ran"
    assert not (out / "textconv-ran").exists(), "the user's textconv ran"
    assert not (out / "dotted-ran").exists(), "a [diff.X] textconv ran"
    assert not (out / "local-ran").exists(), "the repository's filter ran"


def test_a_repository_above_the_write_folder_runs_no_driver_of_its_own(
        lnk, work, tmp_path):
    """Threat: the write folder is a subfolder of the user's repository
    (--write ~/project/src), whose .git/config defines a gpg textconv and
    a filter; the program writes src/sub/.gitattributes selecting them for
    its files, and an exact 'git diff' or 'git status' at the write
    folder's top (git finds the repository above it) decrypts what the
    program picks, or feeds its bytes to the filter, outside, as the
    user."""
    if not shutil.which("git"):
        pytest.skip("git is not installed on this machine")
    out = marks(tmp_path)
    src = work / "src"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "a.txt").write_text("hello\n")
    env = {"HOME": str(lnk.home), "PATH": "/usr/bin:/bin",
           "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q"], cwd=work, env=env, check=True)
    user_git(lnk, work, "add", "src/sub/a.txt")
    user_git(lnk, work, "commit", "-qm", "src")
    user_git(lnk, work, "config", "diff.gpg.textconv",
             f"touch {out}/textconv-ran && cat")
    user_git(lnk, work, "config", "filter.crypt.clean",
             f"touch {out}/filter-ran && cat")
    script = (
        f"cd {src} && printf '* filter=crypt diff=gpg\\n' > "
        "sub/.gitattributes && sleep 1 && echo hellp > sub/a.txt && "
        "git status >/dev/null 2>&1; echo status=$?; "
        "git diff >/dev/null 2>&1; echo diff=$?")
    cp = lnk.run("--write", src, "--tool", "git status", "--tool",
                 "git diff", "--", "/bin/sh", "-c", script,
                 stdin=subprocess.DEVNULL, timeout=60)
    assert "status=" in cp.stdout and "diff=" in cp.stdout, (
        cp.stdout, cp.stderr)
    assert not (out / "textconv-ran").exists(), "the repository's textconv ran"
    assert not (out / "filter-ran").exists(), "the repository's filter ran"


def test_no_tool_where_the_program_writes_the_homes_dot_files(lnk, work):
    """Threat: --write-dot-files of a folder that holds the home (the
    home's parent) lets the program write ~/.gitconfig (diff.external =
    its script) or make ~/.x a link to a secret; every granted tool reads
    the home's dot files wherever it runs, so git diff ran the program's
    script outside, as the user. lnk refuses to start such a sandbox with
    tools, saying why."""
    parent = lnk.home.parent
    cp = lnk.run("--write", parent, "--write-dot-files", parent, "--tool",
                 "git diff", "--", "/bin/true", stdin=subprocess.DEVNULL,
                 timeout=60)
    assert cp.returncode != 0, (cp.stdout, cp.stderr)
    assert "--write-dot-files" in cp.stderr and "dot files" in cp.stderr, (
        cp.stderr)
    cp = lnk.run("--write", parent, "--write", work, "--write-dot-files",
                 work, "--tool", "git diff", "--", "/bin/true",
                 stdin=subprocess.DEVNULL, timeout=60)
    assert cp.returncode == 0, (cp.stdout, cp.stderr)


def test_many_drivers_in_a_read_folder_push_none_of_the_users_out(
        lnk, work, tmp_path):
    """Threat: a folder granted for reading holds a repository whose
    config (an earlier sandbox's) defines hundreds of filters; read before
    the user's own repository above the write folder, they filled the
    bound of stand-ins, and the user's textconv then ran on a file the
    program chose. The user's are read first now, and past the bound no
    tool runs at all."""
    if not shutil.which("git"):
        pytest.skip("git is not installed on this machine")
    out = marks(tmp_path)
    env = {"HOME": str(lnk.home), "PATH": "/usr/bin:/bin",
           "GIT_CONFIG_NOSYSTEM": "1"}
    prev = tmp_path / "prev"
    prev.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=prev, env=env, check=True)
    with open(prev / ".git" / "config", "a") as f:
        for i in range(300):
            f.write(f'[filter "f{i}"]\n\tclean = x\n')
    src = work / "src"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "a.txt").write_text("hello\n")
    subprocess.run(["git", "init", "-q"], cwd=work, env=env, check=True)
    user_git(lnk, work, "add", "src/sub/a.txt")
    user_git(lnk, work, "commit", "-qm", "src")
    user_git(lnk, work, "config", "diff.gpg.textconv",
             f"touch {out}/textconv-ran && cat")
    script = (f"cd {src} && printf '* diff=gpg\\n' > sub/.gitattributes "
              "&& echo changed >> sub/a.txt && git diff; echo diff=$?")
    for grants in (["--read", prev, "--write", src],
                   ["--write", src, "--read", prev]):
        cp = lnk.run(*grants, "--tool", "git diff", "--", "/bin/sh", "-c",
                     script, stdin=subprocess.DEVNULL, timeout=60)
        assert "diff=126" in cp.stdout, (cp.stdout, cp.stderr)
        assert "driver commands" in cp.stderr, cp.stderr
        assert not (out / "textconv-ran").exists(), "the user's textconv ran"


def diff_through_attributes(lnk, repo, out, env=None):
    """The program selects driver x for sub/f with a .gitattributes of its
    own and calls the exact 'git diff'; whether the user's textconv ran."""
    (repo / "sub").mkdir(exist_ok=True)
    (repo / "sub" / "f").write_text("a\n")
    user_git(lnk, repo, "add", "sub/f")
    user_git(lnk, repo, "commit", "-qm", "f")
    cp = lnk.run("--write", repo, "--tool", "git diff", "--", "/bin/sh",
                 "-c", f"cd {repo} && printf 'f diff=x\\n' > "
                 "sub/.gitattributes && echo b >> sub/f && git diff; "
                 "echo diff=$?", stdin=subprocess.DEVNULL, timeout=60,
                 env=env)
    assert "diff=" in cp.stdout, (cp.stdout, cp.stderr)
    return cp, (out / "textconv-ran").exists()


@pytest.mark.parametrize("var", ["GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME"])
def test_stand_ins_for_the_config_git_reads_when_a_variable_is_left_out(
        lnk, repo, tmp_path, var):
    """Threat: lnk's environment names a config in the write folder
    (direnv's GIT_CONFIG_GLOBAL, an XDG_CONFIG_HOME there); the tool's
    environment leaves it out, so git reads ~/.gitconfig (or
    ~/.config/git/config), but the stand-ins were read from the file the
    variable named: the user's gpg textconv ran on the program's file."""
    out = marks(tmp_path)
    conf = (lnk.home / ".gitconfig" if var == "GIT_CONFIG_GLOBAL"
            else lnk.home / ".config" / "git" / "config")
    conf.parent.mkdir(parents=True, exist_ok=True)
    conf.write_text(f'[diff "x"]\n\ttextconv = touch {out}/textconv-ran '
                    '&& cat\n')
    value = (repo / "local.gitconfig" if var == "GIT_CONFIG_GLOBAL"
             else repo / "xdg")
    cp, ran_ = diff_through_attributes(lnk, repo, out, env={var: str(value)})
    assert not ran_, ("the user's textconv ran", cp.stdout, cp.stderr)


def test_stand_ins_deep_in_includes_or_none_runs(lnk, repo, tmp_path):
    """Threat: git follows includes ten deep and reads a config of any
    length; stand-ins came from three includes deep and the first 256 KiB
    only, so a driver defined deeper, or at the end of a long config, ran
    on the program's file."""
    out = marks(tmp_path)
    h = lnk.home
    chain = [h / ".gitconfig"] + [h / f".gc{i}" for i in range(1, 6)]
    for a, b in zip(chain, chain[1:]):
        a.write_text(f"[include]\n\tpath = {b}\n")
    chain[-1].write_text(f'[diff "x"]\n\ttextconv = touch '
                         f'{out}/textconv-ran && cat\n')
    cp, ran_ = diff_through_attributes(lnk, repo, out)
    assert not ran_, ("a driver five includes deep ran", cp.stderr)
    # a config longer than lnk reads: no tool runs, and says why
    chain[-1].write_text("# pad\n" * ((5 << 20) // 6 + 1) +
                         f'[diff "x"]\n\ttextconv = touch '
                         f'{out}/textconv-ran && cat\n')
    cp = lnk.run("--write", repo, "--tool", "git diff", "--", "/bin/sh",
                 "-c", f"cd {repo} && git diff; echo diff=$?",
                 stdin=subprocess.DEVNULL, timeout=60)
    assert "diff=126" in cp.stdout, (cp.stdout, cp.stderr)
    assert "driver commands" in cp.stderr, cp.stderr
    assert not (out / "textconv-ran").exists()


def test_git_blame_reads_no_file_through_the_ignore_revs_link(lnk, repo,
                                                               tmp_path):
    """Threat: the repository's config names blame.ignoreRevsFile (GitHub's
    documented setup); the program replaces that file at the top with a
    link to a secret outside, and an exact 'git blame README' dies
    printing the secret's first line as an invalid object name."""
    secret = tmp_path / "netrc"
    secret.write_text("machine x login alice password BLAMESECRET\n")
    secret.chmod(0o644)
    tmp_path.chmod(0o755)
    (repo / "README").write_text("hello\n")
    (repo / ".git-blame-ignore-revs").write_text("")
    user_git(lnk, repo, "add", "README", ".git-blame-ignore-revs")
    user_git(lnk, repo, "commit", "-qm", "r")
    user_git(lnk, repo, "config", "blame.ignoreRevsFile",
             ".git-blame-ignore-revs")
    cp = lnk.run("--write", repo, "--tool", "git blame README", "--",
                 "/bin/sh", "-c",
                 f"cd {repo} && rm .git-blame-ignore-revs && "
                 f"ln -s {secret} .git-blame-ignore-revs && git blame README;"
                 " echo blame=$?", stdin=subprocess.DEVNULL, timeout=60)
    assert "blame=" in cp.stdout, (cp.stdout, cp.stderr)
    assert "BLAMESECRET" not in cp.stdout + cp.stderr


def test_git_grep_and_blame_read_no_folder_through_the_programs_link(
        lnk, repo, tmp_path):
    """Threat: the program replaces a tracked file's folder with a link to
    a folder of the user's outside every grant; an exact 'git grep WORD'
    or 'git blame d/notes.txt' runs outside, as the user, follows the link
    and prints the file there to the program."""
    secret = tmp_path / "private"
    secret.mkdir()
    (secret / "notes.txt").write_text("WORD GREPSECRET\n")
    (secret / "notes.txt").chmod(0o644)
    secret.chmod(0o755)
    tmp_path.chmod(0o755)
    (repo / "d").mkdir()
    (repo / "d" / "notes.txt").write_text("WORD hello\n")
    user_git(lnk, repo, "add", "d/notes.txt")
    user_git(lnk, repo, "commit", "-qm", "d")
    cp = lnk.run("--write", repo, "--tool", "git grep WORD", "--tool",
                 "git blame d/notes.txt", "--", "/bin/sh", "-c",
                 f"cd {repo} && git grep WORD; echo grep=$?; "
                 f"rm -r d && ln -s {secret} d && git grep WORD; "
                 "echo grep2=$?; git blame d/notes.txt; echo blame=$?",
                 stdin=subprocess.DEVNULL, timeout=60)
    assert "grep=0" in cp.stdout and "d/notes.txt:WORD hello" in cp.stdout, (
        cp.stdout, cp.stderr)
    assert "blame=" in cp.stdout, (cp.stdout, cp.stderr)
    assert "GREPSECRET" not in cp.stdout + cp.stderr, cp.stdout


# The write folder's parent also shown at a second path (a bind), granted
# for reading there: the tool's folder is the write folder by that path.
CAT_BY_SECOND = """
    mount --bind '{outer}' '{second}' || exit 99
    {lnk} sandbox run --write '{outer}/proj' --read '{second}' \
        --tool 'cat README' -- /bin/sh -c \
        'cd {outer}/proj && ln -s {secret} README && cat README;
         echo first=$?; cd {second}/proj && cat README; echo second=$?' \
        </dev/null
"""


def test_a_tool_follows_no_link_at_a_second_path_of_the_write_folder(
        lnk, tmp_path):
    """Threat: the folder above the write folder is also mounted at a
    second path, granted for reading; the program makes README a link to
    a file of the user's and calls the exact 'cat README' from the write
    folder by its second path, where the tool's view followed links."""
    from attack_helpers import in_private_mounts, lnk_under_mounts
    secret = tmp_path / "secret.txt"
    secret.write_text("SECONDSECRET\n")
    secret.chmod(0o644)
    tmp_path.chmod(0o755)
    outer = tmp_path / "outer"
    (outer / "proj").mkdir(parents=True)
    second = tmp_path / "second"
    second.mkdir()
    for d in (outer, outer / "proj", second):
        d.chmod(0o777)
    cp = in_private_mounts(lnk, CAT_BY_SECOND.format(
        outer=outer, second=second, secret=secret,
        lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert "first=" in cp.stdout and "second=" in cp.stdout, (
        cp.stdout, cp.stderr)
    assert "SECONDSECRET" not in cp.stdout + cp.stderr, cp.stdout


def test_a_tool_writes_no_file_of_the_users_through_the_programs_link(
        lnk, repo, tmp_path):
    """Threat: the program makes a link in its write folder to a file of
    the user's (a shell's startup file); a granted tool that writes a file
    the program names writes through the link, outside, as the user."""
    target = tmp_path / "bashrc"
    target.write_text("# the user's\n")
    target.chmod(0o666)
    tmp_path.chmod(0o755)
    cp = lnk.run("--write", repo, "--tool", "git log *", "--", "/bin/sh",
                 "-c", f"cd {repo} && ln -s {target} out.txt && "
                 "git log -1 --format=format:PWNED --output=out.txt; "
                 "echo st=$?", stdin=subprocess.DEVNULL, timeout=60)
    assert "st=" in cp.stdout, (cp.stdout, cp.stderr)
    assert target.read_text() == "# the user's\n", (cp.stdout, cp.stderr)


def test_a_tool_still_works_beside_the_repositorys_own_links(lnk, repo):
    """A repository with a committed link (a folder named twice): git's
    own commands read it as a link, as they always do, in the tool's
    view."""
    (repo / "real").mkdir()
    (repo / "real" / "a.txt").write_text("x\n")
    os.symlink("real", repo / "alias")
    user_git(lnk, repo, "add", "real/a.txt", "alias")
    user_git(lnk, repo, "commit", "-qm", "links")
    cp = lnk.run("--write", repo, "--tool", "git status *", "--",
                 "/bin/sh", "-c",
                 f"cd {repo} && git status --porcelain; echo st=$?",
                 stdin=subprocess.DEVNULL, timeout=60)
    assert "st=0" in cp.stdout, (cp.stdout, cp.stderr)
    assert "alias" not in cp.stdout, cp.stdout


def test_a_tool_follows_the_users_own_dot_file_links_under_write_home(
        lnk, tmp_path):
    """A dotfile manager makes ~/.gitconfig a link into ~/dotfiles: with
    the whole home granted for writing, a granted git still reads it (the
    home's top dot files are the user's; the program cannot make them)."""
    if not shutil.which("git"):
        pytest.skip("git is not installed on this machine")
    dots = lnk.home / "dotfiles"
    dots.mkdir()
    (dots / "gitconfig").write_text("[user]\n\tname = Stowed Name\n")
    cfg = lnk.home / ".gitconfig"
    if cfg.exists() or cfg.is_symlink():
        cfg.unlink()
    os.symlink("dotfiles/gitconfig", cfg)
    cp = lnk.run("--write", lnk.home, "--tool", "git config user.name",
                 "--", "/bin/sh", "-c",
                 f"cd {lnk.home} && git config user.name; echo st=$?",
                 stdin=subprocess.DEVNULL, timeout=60)
    assert "Stowed Name" in cp.stdout and "st=0" in cp.stdout, (
        cp.stdout, cp.stderr)


def test_a_tool_follows_no_link_the_program_made_under_write_home(
        lnk, tmp_path):
    """Threat: with the whole home granted for writing, the program makes
    README in the home a link to a file of the user's outside every grant
    (a key in /tmp, /etc/shadow for root), and an exact 'cat README' runs
    outside, at the home's top, and prints it. The user's own links among
    the home's dot entries (inside a dot folder too) are still followed."""
    secret = tmp_path / "secret.txt"
    secret.write_text("HOMELINKSECRET\n")
    secret.chmod(0o644)
    tmp_path.chmod(0o755)
    dots = lnk.home / "dotfiles"
    dots.mkdir()
    (dots / "tool.conf").write_text("USERCONF\n")
    (lnk.home / ".config" / "t").mkdir(parents=True)
    os.symlink(dots / "tool.conf", lnk.home / ".config" / "t" / "tool.conf")
    os.symlink("dotfiles/tool.conf", lnk.home / ".toolrc")
    (lnk.home / ".cache").mkdir(exist_ok=True)
    key = lnk.home / ".lnk" / "sandbox" / "k.key"
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text("sk-HOMEKEY\n")
    cp = lnk.run("--write", lnk.home, "--write", lnk.home / ".cache",
                 "--tool", "cat README", "--tool", "cat .toolrc", "--tool",
                 "cat .config/t/tool.conf", "--tool", "cat .cache/c",
                 "--tool", "cat .lnk/sandbox/k.key", "--",
                 "/bin/sh", "-c",
                 f"cd {lnk.home} && ln -s {secret} README && cat README; "
                 "echo readme=$?; cat .toolrc; cat .config/t/tool.conf; "
                 f"ln -s {secret} .cache/c && cat .cache/c; echo cache=$?; "
                 "cat .lnk/sandbox/k.key; echo key=$?",
                 stdin=subprocess.DEVNULL, timeout=60)
    assert "readme=" in cp.stdout and "key=" in cp.stdout, (
        cp.stdout, cp.stderr)
    assert "HOMELINKSECRET" not in cp.stdout + cp.stderr, cp.stdout
    assert "HOMEKEY" not in cp.stdout + cp.stderr, cp.stdout
    assert cp.stdout.count("USERCONF") == 2, (cp.stdout, cp.stderr)


def test_git_diff_grant_cannot_read_a_file_with_no_index(lnk, home, repo):
    """Threat: with --tool 'git diff', git diff --no-index reads a file the
    sandbox hides (a model key in ~/.lnk) and prints it to the program."""
    key = home / ".lnk" / "sandbox" / "x.key"
    key.parent.mkdir(parents=True)
    key.write_text("sk-SECRETKEY\n")
    cp = lnk.run("--write", repo, "--tool", "git diff", "--", "/bin/sh", "-c",
                 f"cd {repo} && git diff --no-index {key} /dev/null; "
                 "echo st=$?")
    assert "SECRETKEY" not in cp.stdout + cp.stderr, cp.stdout
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)


def test_free_pattern_allows_options_and_says_so_at_start(lnk, repo):
    """'git log *' is what a person grants knowing it: every option of git
    log runs, and the start says so once, plainly, before the program."""
    target = lnk.home / "out.txt"
    cp = lnk.run("--write", repo, "--tool", "git log *", "--", "/bin/sh",
                 "-c", f"cd {repo} && git log -1 --format=%s "
                 f"--output={target}; echo st=$?")
    assert "st=0" in cp.stdout, (cp.stdout, cp.stderr)
    assert target.read_text() == "first\n"
    warn = [x for x in cp.stderr.splitlines() if x.startswith("lnk: tool git")]
    assert warn == [
        "lnk: tool git, 'log *': the program may run git log with any "
        "further arguments it likes, outside the sandbox, as you: every "
        "option of that command; for git that includes --output (writes "
        "any file you can write), --no-index (reads any file you can "
        "read), and -c, -C and --exec-path (run any program, in any "
        "repository)"], cp.stderr


def test_bare_grant_allows_only_the_stored_calls(lnk, tool):
    """--tool mytool alone is the tool with the calls stored for it, none
    at first: every call is refused with no one to ask, and a stored
    call runs, exactly."""
    script = "mytool status; echo st=$?; mytool status -x; echo st=$?"
    cp = lnk.run("--tool", "mytool", "--", "/bin/sh", "-c", script)
    assert cp.stdout.count("st=126") == 2, (cp.stdout, cp.stderr)
    assert "lnk sandbox tool add mytool --allow 'status'" in cp.stderr
    assert "lnk: tool mytool" not in cp.stderr  # nothing free: no warning
    assert calls(tool) == []
    lnk("sandbox", "tool", "add", "mytool", "--allow", "status", check=True)
    cp = lnk.run("--tool", "mytool", "--", "/bin/sh", "-c", script)
    assert "st=7" in cp.stdout and "st=126" in cp.stdout, cp.stdout
    assert calls(tool) == ["args:status"]
    # tools.toml's '*' is every call, said at start
    lnk("sandbox", "tool", "add", "mytool", "--allow", "*", check=True)
    cp = lnk.run("--tool", "mytool", "--", "/bin/sh", "-c", script)
    assert "st=126" not in cp.stdout, (cp.stdout, cp.stderr)
    assert ("lnk: tool mytool, '*': the program may run every call of "
            "mytool it likes") in cp.stderr, cp.stderr


def test_bare_grant_asks_for_every_call(lnk, tool):
    out, asks = _asked(lnk, tool, "mytool status; echo st=$?", "yes",
                       grant="mytool")
    assert [a["question"] for a in asks] == [
        "mytool status (1 argument), in /"], out
    assert "st=7" in out
    assert calls(tool) == ["args:status"]


def test_tool_folder_outside_grants_is_the_first_write_folder(lnk, work,
                                                               tool):
    cp = lnk.run("--write", work, "--tool", "mytool status", "--", "/bin/sh",
                 "-c", "cd /tmp && mytool status")
    assert f"cwd:{work}" in cp.stdout
    assert f"mytool runs in '{work}'" in cp.stderr


def test_tool_calls_are_logged_whole(lnk, tool):
    """The log names what ran outside: the tool and every argument, each
    one shell word, escaped once where it is shown (a quote as '"'"', so
    that no backslash of the quoting is shown doubled); a long call folded
    with its count."""
    lnk.run("--name", "tl", "--tool", "mytool pr view *", "--", "/bin/sh",
            "-c", "mytool pr view 5 'two words' \"$(printf 'a\\033b')\" "
            "\"it's\"; mytool auth token SECRET2; "
            "mytool pr view $(seq 1 500)")
    cp = lnk("sandbox", "log", "--json", "--sandbox", "tl", check=True)
    rows = [json.loads(x) for x in cp.stdout.splitlines()]
    tools = [r for r in rows if r["verb"] == "tool"]
    assert [(r["target"], r["outcome"]) for r in tools[:2]] == [
        ("mytool pr view 5 'two words' 'a\x1bb' 'it'\"'\"'s'", "ended"),
        ("mytool auth token SECRET2", "refused")], rows
    # as the terminal shows it: the escape once, the quote as typed
    text = lnk("sandbox", "log", "--sandbox", "tl", check=True).stdout
    assert "mytool pr view 5 'two words' 'a\\x1bb' 'it'\"'\"'s'" in text, \
        text
    assert "\x1b" not in text and "\\\\" not in text, text
    assert "exit status 0" in tools[0]["reason"]
    folded = tools[2]["target"]
    assert folded.startswith("mytool pr view 1 2 3 "), folded
    assert folded.endswith(" 498 499 500"), folded  # the last ones too
    assert len(folded) <= 269, folded
    head, note, tail = folded.split(" ... ")[0], folded.split(" ... ")[1], \
        folded.split(" ... ")[2]
    shown = head.split()[1:] + tail.split()
    more = 502 - len(shown)
    size = sum(len(str(i)) for i in range(1, 501)) + 6 - sum(
        len(w) for w in shown)
    assert note.startswith(f"(+{more} more arguments, {size} bytes, #"), \
        (folded, more, size)


def test_ctrl_c_reaches_the_tool(lnk, tool):
    code = """
        import signal, subprocess
        p = subprocess.Popen(["mytool", "wait"], stdout=subprocess.PIPE)
        assert p.stdout.readline() == b"started\\n"
        p.send_signal(signal.SIGINT)
        print("status", p.wait())
    """
    cp = lnk.run("--tool", "mytool wait", "--", PY, "-c",
                 textwrap.dedent(code))
    assert "status 42" in cp.stdout, cp.stderr
    assert (tool / "signal").read_text() == "INT\n"


def test_client_killed_mid_call_ends_the_tool(lnk, tool):
    code = """
        import subprocess, time
        p = subprocess.Popen(["mytool", "sleep"], stdout=subprocess.PIPE)
        assert p.stdout.readline() == b"started\\n"
        p.kill()
        p.wait()
        for _ in range(400):
            r = subprocess.run(["mytool", "alive"], capture_output=True)
            if r.stdout == b"gone\\n":
                break
            time.sleep(0.05)
        print(r.stdout.decode().strip())
    """
    cp = lnk.run("--tool", "mytool sleep", "--tool", "mytool alive", "--",
                 PY, "-c", textwrap.dedent(code))
    assert cp.stdout.strip() == "gone", (cp.stdout, cp.stderr)
    logged = lnk("sandbox", "log", "--json").stdout
    assert "ended as its client went away" in logged


def test_tool_cli_add_list_remove(lnk, home):
    assert lnk("sandbox", "tool", "list", "--json").stdout == "[]\n"
    cp = lnk("sandbox", "tool", "add", "gh", "--allow", "pr   list",
             check=True)
    assert cp.stdout == ("gh: the call 'pr list' runs at once in a sandbox "
                         "that grants gh (--tool gh)\n"), cp.stdout
    assert cp.stderr == ""  # an exact call: nothing to warn of
    cp = lnk("sandbox", "tool", "add", "gh", "--allow", "*", check=True)
    # a free pattern says once what it gives the program
    assert cp.stderr.startswith("lnk: tool gh, '*': the program may run "
                                "every call of gh it likes, outside the "
                                "sandbox, as you"), cp.stderr
    assert "every API call" in cp.stderr
    lnk("sandbox", "tool", "add", "kubectl", "--allow", "get pods",
        check=True)
    got = json.loads(lnk("sandbox", "tool", "list", "--json").stdout)
    assert got == [{"tool": "gh", "allow": ["pr list", "*"]},
                   {"tool": "kubectl", "allow": ["get pods"]}]
    f = home / ".lnk" / "sandbox" / "tools.toml"
    assert (f.stat().st_mode & 0o777) == 0o600
    assert '["gh"]\nallow = ["pr list", "*"]' in f.read_text()
    cp = lnk("sandbox", "tool", "list")
    assert "gh       pr list" in cp.stdout
    lnk("sandbox", "tool", "remove", "gh", "--allow", "pr list", check=True)
    cp = lnk("sandbox", "tool", "remove", "gh", "--allow", "pr list")
    assert cp.returncode == 1 and "no stored call 'pr list'" in cp.stderr
    lnk("sandbox", "tool", "remove", "kubectl", check=True)
    got = json.loads(lnk("sandbox", "tool", "list", "--json").stdout)
    assert got == [{"tool": "gh", "allow": ["*"]}]


@pytest.mark.parametrize("args,msg", [
    (["add", "../gh", "--allow", "x"], "is not a tool's name"),
    (["add", "gh"], "--allow"),
    (["add", "gh", "--allow", "log --format='%h'"], "quote"),
    (["add", "gh", "--allow", "pr*"], "stands alone"),
    (["add", "gh", "--allow", "pr  "], None),
    (["add", "gh", "--allow", "pr\nlist"], "control character"),
    (["frob"], "unknown"),
])
def test_tool_cli_refuses_bad_input(lnk, args, msg):
    cp = lnk("sandbox", "tool", *args)
    if msg is None:  # a pattern normalized: "pr  " is "pr"
        assert cp.returncode == 0 and "'pr' runs" in cp.stdout, cp.stderr
        return
    assert cp.returncode == 2 and msg in cp.stderr, cp.stderr


def test_tool_store_edited_badly_is_refused_with_its_line(lnk, home, tool):
    d = home / ".lnk" / "sandbox"
    d.mkdir(parents=True, exist_ok=True)
    (d / "tools.toml").write_text('["mytool"]\nallow = ["a", 3]\n')
    cp = lnk.run("--tool", "mytool x", "--", "/bin/true")
    assert cp.returncode == 125 and "tools.toml:2" in cp.stderr, cp.stderr


# --- asking: a call outside the allow lists, with lnk on a terminal ---

def _asked(lnk, tool, script, answer=None, settings=None, extra=(),
           grant="mytool pr", seen=None):
    """Runs script in a sandbox granting grant, lnk on a pty; answers
    the question it asks from another process (this one) with answer, or
    leaves it. Returns (terminal output, the question listed)."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    if settings:
        d = lnk.home / ".lnk" / "sandbox"
        d.mkdir(parents=True, exist_ok=True)
        (d / "settings.toml").write_text(settings)
    pid, fd = spawn_on_pty(lnk, [*extra, "--name", "asker", "--tool", grant,
                                 "--", "/bin/sh", "-c", script])
    try:
        out = read_until(fd, b"(or no)")
        asks = json.loads(lnk("sandbox", "asks", "--json",
                              check=True).stdout)
        if seen is not None:
            seen["asks"] = lnk("sandbox", "asks", check=True).stdout
        if answer:
            cp = lnk("sandbox", "answer", asks[0]["id"], answer, check=True)
            if seen is not None:
                seen["answer"] = cp.stdout
        out += read_until(fd, b"never", timeout=30)
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert status == 0, out
    return out.decode(), asks


def test_answer_yes_allows_the_call_once(lnk, tool):
    seen = {}
    out, asks = _asked(lnk, tool, "mytool issue view 5; echo st=$?", "yes",
                       seen=seen)
    assert [(a["sandbox"], a["question"]) for a in asks] == [
        ("asker", "mytool issue ... (3 arguments), in /")]
    assert asks[0]["lines"][1:] == ["  1  issue", "  2  view", "  3  5"]
    # where the program cannot write, asks and answer show every argument:
    # a question the program drew over lnk's on the terminal with the same
    # first word and count (git log --oneline -5 for git log --output=F
    # -1) is told apart before the answer, and after it
    for what in ("asks", "answer"):
        lines = seen[what].splitlines()
        at = next(i for i, x in enumerate(lines) if "(3 arguments)" in x)
        assert [x.strip() for x in lines[at + 1:at + 4]] == [
            "1  issue", "2  view", "3  5"], seen[what]
    assert 0 < asks[0]["left"] <= 120
    assert "st=0" in out
    assert calls(tool) == ["args:issue view 5"]
    # answered questions leave asks, and the answer is in the log
    assert json.loads(lnk("sandbox", "asks", "--json").stdout) == []
    log = lnk("sandbox", "log", "--json", "--sandbox", "asker").stdout
    assert f"asked {asks[0]['id']}: answered yes, exit status 0" in log
    # the first answer counts
    cp = lnk("sandbox", "answer", asks[0]["id"], "no")
    assert cp.returncode == 1 and "no question" in cp.stderr


def test_answer_no_refuses_the_call(lnk, tool):
    out, asks = _asked(lnk, tool, "mytool issue close 1; echo st=$?", "no")
    assert "st=126" in out and "answered no" in out
    assert calls(tool) == []
    log = lnk("sandbox", "log", "--json", "--sandbox", "asker").stdout
    assert f"asked {asks[0]['id']}: answered no" in log


def test_unanswered_question_expires_as_no(lnk, tool):
    out, asks = _asked(lnk, tool, "mytool issue close 1; echo st=$?",
                       settings="ask_wait = 1\n")
    assert "within 1 s" in out
    assert "st=126" in out and "which counts as no" in out
    assert calls(tool) == []
    assert json.loads(lnk("sandbox", "asks", "--json").stdout) == []


def test_asks_and_answer_refuse_bad_input(lnk):
    assert lnk("sandbox", "asks").stdout == "no question is waiting\n"
    cp = lnk("sandbox", "answer", "../../x", "yes")
    assert cp.returncode == 2 and "not a question's id" in cp.stderr
    cp = lnk("sandbox", "answer", "abcdef", "maybe")
    assert cp.returncode == 2 and "answer yes or no" in cp.stderr
    cp = lnk("sandbox", "answer", "abcdef", "yes")
    assert cp.returncode == 1 and "no question 'abcdef'" in cp.stderr


def test_ask_wait_setting_is_checked(lnk, tool):
    d = lnk.home / ".lnk" / "sandbox"
    d.mkdir(parents=True, exist_ok=True)
    (d / "settings.toml").write_text("ask_wait = 0\n")
    cp = lnk.run("--tool", "mytool", "--", "/bin/true")
    assert cp.returncode == 125 and "ask_wait" in cp.stderr, cp.stderr


def test_check_tries_the_tools(lnk, tool):
    cp = lnk("sandbox", "check", "--tool", "mytool pr", timeout=180)
    assert cp.returncode == 0, cp.stdout + cp.stderr
    lines = [x for x in cp.stdout.splitlines() if " tools " in x]
    assert len(lines) == 3, cp.stdout
    assert all(x.startswith("blocked") for x in lines), lines
    assert "open a file: URL" in lines[1]
    assert "lnk sandbox tool add mytool --allow 'lnk-check-call'" in lines[2]
    # a pattern that allows the probe's call is not tried: the try would
    # run the tool outside
    cp = lnk("sandbox", "check", "--tool", "mytool *", timeout=180)
    lines = [x for x in cp.stdout.splitlines() if " tools " in x]
    assert len(lines) == 2 and all(x.startswith("blocked") for x in lines), \
        cp.stdout
    assert calls(tool) == []
    cp = lnk("sandbox", "check", "--browser-open", "https://example.org/",
             timeout=180, env={"DISPLAY": ":99"})
    assert any(x.startswith("blocked") and "file: URL" in x and
               "is not a page" in x for x in cp.stdout.splitlines()), \
        cp.stdout
    assert calls(tool) == []
    cp = lnk("sandbox", "check", timeout=180)
    assert any(x.startswith("blocked") and "lnk-check-tool" in x
               for x in cp.stdout.splitlines()), cp.stdout


# --- pages: --browser-open, opened outside by a recording opener ---

@pytest.fixture
def opener(tool, tmp_path):
    """A recording xdg-open on lnk's PATH (beside mytool); returns the file
    it records each page in."""
    o = tmp_path / "toolbin" / "xdg-open"
    rec = tool / "opened"
    o.write_text(f"#!/bin/sh\necho \"$*\" >> {rec}\n")
    o.chmod(0o755)
    return rec


def opened(rec):
    return rec.read_text().splitlines() if rec.exists() else []


def test_granted_page_opens_outside_and_logs_only_its_host(lnk, opener):
    cp = lnk.run("--name", "pg", "--browser-open", "https://*.example.org/docs",
                 "--", "/bin/sh", "-c",
                 "xdg-open 'https://a.example.org/docs/x?tok=SECRET'; "
                 "echo st=$?; $BROWSER https://evil.test/; echo st=$?; "
                 "echo browser=$BROWSER",
                 env={"DISPLAY": ":99"})
    assert "st=0" in cp.stdout and "st=126" in cp.stdout, cp.stderr
    assert "browser=/run/lnk/bin/www-browser" in cp.stdout
    assert opened(opener) == ["https://a.example.org/docs/x?tok=SECRET"]
    assert "not one [browser] open grants, and there is no one to ask" \
        in cp.stderr
    log = lnk("sandbox", "log", "--json", "--sandbox", "pg").stdout
    rows = [json.loads(x) for x in log.splitlines()]
    assert [(r["verb"], r["target"], r["outcome"]) for r in rows] == [
        ("page", "https://a.example.org", "ended"),
        ("page", "https://evil.test", "refused")], rows
    assert "SECRET" not in log and "/docs" not in log


def test_a_page_refused_before_it_is_asked_is_logged_as_a_page(lnk, opener):
    """A page the broker's reader refuses itself (a '..' folder, encoded
    twice) is a refused page in the log, as the man page says: verb page,
    never its path."""
    cp = lnk.run("--name", "pgr", "--browser-open", "https://example.org/me",
                 "--", "/bin/sh", "-c",
                 "xdg-open 'https://example.org/me/%25%32%65%25%32%65/x'; "
                 "echo st=$?", env={"DISPLAY": ":99"})
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    log = lnk("sandbox", "log", "--json", "--sandbox", "pgr").stdout
    rows = [json.loads(x) for x in log.splitlines()]
    assert [(r["verb"], r["outcome"]) for r in rows] == [
        ("page", "refused")], rows
    assert "/me" not in log and "%25" not in log, rows
    assert opened(opener) == []


def test_page_grant_is_whole_path_segments(lnk, opener):
    """Threat: a page grant read as a string prefix: --browser-open
    https://example.org/me opened https://example.org/meevil/login, another
    account's page, without asking."""
    cp = lnk.run("--browser-open", "https://example.org/me", "--", "/bin/sh",
                 "-c", "xdg-open https://example.org/meevil/login; echo "
                 "st=$?; xdg-open 'https://example.org/meevil?/me'; echo "
                 "st=$?; xdg-open https://example.org/me/repo; echo st=$?; "
                 "xdg-open 'https://example.org/me?tab=1'; echo st=$?",
                 env={"DISPLAY": ":99"})
    assert cp.stdout.split() == ["st=126", "st=126", "st=0", "st=0"], \
        (cp.stdout, cp.stderr)
    assert opened(opener) == ["https://example.org/me/repo",
                              "https://example.org/me?tab=1"]


def test_page_without_a_desktop_is_refused_at_once(lnk, opener):
    cp = lnk.run("--browser-open", "https://example.org", "--", "xdg-open",
                 "https://example.org/")
    assert cp.returncode == 126
    assert "no desktop here to open a page in" in cp.stderr
    assert opened(opener) == []


def test_page_clients_exist_only_with_a_browser_grant(lnk, opener):
    cp = lnk.run("--", "/bin/sh", "-c", "command -v xdg-open || echo none",
                 env={"DISPLAY": ":99"})
    assert cp.stdout.strip() in ("none", "/usr/bin/xdg-open"), cp.stdout
    assert opened(opener) == []


def test_other_page_asks_and_opens_on_yes(lnk, opener):
    from test_terminal import read_until, spawn_on_pty, wait_status
    base = lnk.env
    lnk.env = lambda extra=None: {**base(extra), "DISPLAY": ":99"}
    pid, fd = spawn_on_pty(lnk, ["--browser-open", "https://example.org/",
                                 "--", "/bin/sh", "-c",
                                 "xdg-open https://other.test/p; echo st=$?"])
    try:
        out = read_until(fd, b"(or no)")
        asks = json.loads(lnk("sandbox", "asks", "--json").stdout)
        assert [a["question"] for a in asks] == [
            "open page https://other.test/p (1 argument)"], out
        lnk("sandbox", "answer", asks[0]["id"], "yes", check=True)
        out += read_until(fd, b"never", timeout=30)
    finally:
        wait_status(pid)
        os.close(fd)
    assert b"st=0" in out, out
    assert opened(opener) == ["https://other.test/p"]


def test_ask_wait_of_a_spec_or_flag_replaces_the_setting(lnk, tool):
    out, asks = _asked(lnk, tool, "mytool issue close 1; echo st=$?",
                       settings="ask_wait = 600\n", extra=("--ask-wait", 1))
    assert "within 1 s" in out and "st=126" in out
    assert calls(tool) == []
    cp = lnk("sandbox", "spec", "--tool", "mytool", "--ask-wait", "30")
    assert "[tools]\nallow = [\"mytool\"]\nask_wait = 30\n" in cp.stdout
    cp = lnk.run("--ask-wait", "0", "--", "/bin/true")
    assert cp.returncode == 2 and "1 to 3600" in cp.stderr


def test_another_user_can_neither_see_nor_answer(lnk, tmp_path):
    """Questions live in ~/.lnk, the user's alone: lnk refuses another
    user's settings folder before it reads a question or writes an answer
    (as root too: `sudo -E` with a user's HOME is refused)."""
    if os.geteuid() == 0:
        other = tmp_path / "other"
        asks = other / ".lnk" / "sandbox" / "asks"
        asks.mkdir(parents=True)
        (asks / "abcdef.q").write_text("theirs\n99999999999999\ngh x\n")
        for p in [other, *other.rglob("*")]:
            os.chown(p, 65534, 65534)
        for p in [other / ".lnk", other / ".lnk" / "sandbox", asks]:
            p.chmod(0o700)
    else:
        other = pathlib.Path("/root")
    for args in (["asks", "--json"], ["answer", "abcdef", "yes"]):
        cp = lnk("sandbox", *args, env={"HOME": str(other)})
        assert cp.returncode == 125, (args, cp.stdout, cp.stderr)
        assert "gh x" not in cp.stdout
    if os.geteuid() == 0:
        assert not (asks / "abcdef.a").exists()


def test_lnk_killed_mid_call_ends_the_tool(lnk, tool):
    import signal
    import subprocess
    import time
    p = subprocess.Popen([lnk.bin, "sandbox", "run", "--tool", "mytool sleep",
                          "--", "mytool", "sleep"], env=lnk.env(), cwd=lnk.cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert p.stdout.readline() == b"started\n"
    assert not lock_free(tool / "sleeper")  # the tool runs
    p.send_signal(signal.SIGKILL)
    p.wait()
    for _ in range(200):
        if lock_free(tool / "sleeper"):
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the tool outlived lnk")


def lock_free(path):
    """Whether no process holds the lock on path (the sleeper's)."""
    import fcntl
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


# What a tool sees and where it acts (src/tools/view.h, src/tools/folder.h).

GIT = "/usr/bin/git"


@pytest.fixture
def new_repo(work):
    """The user's own repository at the top of the write folder, made
    before the sandbox starts."""
    subprocess_run = __import__("subprocess").run
    subprocess_run([GIT, "init", "-q", str(work)], check=True)
    return work


def test_tool_refused_in_a_repository_the_program_made(lnk, work, tmp_path):
    """Threat: with only `git status` granted, the program makes a
    repository in its write folder whose core.fsmonitor is a command,
    changes into it and calls the tool: git, outside, runs the command."""
    mark = tmp_path / "OUTSIDE_MARK"  # outside every grant
    script = (f"cd {work} && {GIT} init -q sub && "
              f"{GIT} -C sub config core.fsmonitor 'touch {mark}' && "
              f"cd sub && git status; echo st=$?")
    cp = lnk.run("--write", work, "--tool", "git status", "--", "/bin/sh",
                 "-c", script)
    assert not mark.exists(), (cp.stdout, cp.stderr)
    assert "st=0" not in cp.stdout, cp.stdout
    assert f"'{work}/sub' lies inside the write folder '{work}'" \
        in cp.stderr, cp.stderr
    assert (f"run the tool from the top of the write folder '{work}', or "
            "grant the project folder itself with --write") in cp.stderr


def test_tool_at_the_top_of_the_write_folder_still_works(lnk, new_repo):
    """The user's own repository at the top (its .git kept read only by
    the guard) stays usable by a granted tool."""
    cp = lnk.run("--write", new_repo, "--tool", "git status", "--", "/bin/sh",
                 "-c", f"cd {new_repo} && git status; echo st=$?")
    assert "st=0" in cp.stdout, (cp.stdout, cp.stderr)
    assert "No commits yet" in cp.stdout or "On branch" in cp.stdout


def test_tool_refused_at_a_top_whose_dot_files_the_program_may_write(
        lnk, new_repo, tmp_path):
    """Threat: --write-dot-files lets the program rewrite .git/config at the
    top: a tool there would run its fsmonitor."""
    mark = tmp_path / "OUTSIDE_MARK"
    script = (f"cd {new_repo} && {GIT} config core.fsmonitor 'touch {mark}'; "
              f"git status; echo st=$?")
    cp = lnk.run("--write", new_repo, "--write-dot-files", new_repo, "--tool",
                 "git status", "--", "/bin/sh", "-c", script)
    assert not mark.exists(), (cp.stdout, cp.stderr)
    assert "st=0" not in cp.stdout
    assert "--write-dot-files" in cp.stderr, cp.stderr


def test_tool_never_reads_lnks_settings(lnk, home, new_repo):
    """Threat: `git diff --no-index FILE /dev/null` prints any file the
    user can read: a granted diff would read the model keys, the call log
    and the questions in ~/.lnk."""
    key = home / ".lnk" / "sandbox" / "probe.key"
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text("LNKSECRET\n")
    cp = lnk.run("--write", new_repo, "--tool", "git diff *", "--", "/bin/sh",
                 "-c", f"cd {new_repo} && git diff --no-index {key} /dev/null; "
                 f"echo st=$?")
    assert "LNKSECRET" not in cp.stdout + cp.stderr
    # git ran, and found nothing there
    assert f"Could not access '{key}'" in cp.stderr, cp.stderr
    assert key.read_text() == "LNKSECRET\n"  # the host's view is as it was


def test_tool_never_reads_a_hidden_folder(lnk, new_repo):
    """The same for a --hide folder of that sandbox."""
    private = new_repo / "private"
    private.mkdir()
    (private / "s").write_text("HIDDENSECRET\n")
    cp = lnk.run("--write", new_repo, "--hide", private, "--tool", "git diff *",
                 "--", "/bin/sh", "-c",
                 f"cd {new_repo} && git diff --no-index {private}/s /dev/null; "
                 f"echo st=$?")
    assert "HIDDENSECRET" not in cp.stdout + cp.stderr
    assert f"Could not access '{private}/s'" in cp.stderr, cp.stderr


def test_tool_sees_only_its_own_processes(lnk, tmp_path):
    """Threat: the host's /proc shows the user's other processes, whose
    /proc/PID/root is the host's view, ~/.lnk and all. A tool's /proc is
    its own PID namespace's: pid 1 (which waits for it) and the tool."""
    on_lnk_path(lnk, tmp_path / "bin", "lsproc",
                "#!/bin/sh\n"
                "for p in /proc/[0-9]*; do echo \"pid ${p#/proc/}\"; done\n"
                "echo \"self $$\"\n")
    cp = lnk.run("--tool", "lsproc *", "--", "lsproc")
    assert cp.returncode == 0, cp.stderr
    pids = sorted(int(x.split()[1]) for x in cp.stdout.splitlines()
                  if x.startswith("pid "))
    assert pids == [1, 2], cp.stdout
    assert "self 2" in cp.stdout


def test_pages_no_grant_names_trip_without_a_desktop(lnk, opener):
    """Invariant 7, the tripwires: with no desktop, a page no grant names
    was refused for the desktop's absence before its grant was looked at,
    and never counted: 41 such pages tripped nothing. Refused pages no
    grant names count, desktop or not; a granted one refused only for
    want of a desktop does not."""
    cp = lnk.run("--name", "pgt", "--browser-open", "https://example.org/ok",
                 "--internet-host", "granted.lnk-test", "--", "/bin/sh",
                 "-c", "i=0; while [ $i -lt 25 ]; do "
                 "xdg-open https://evil$i.test/ 2>/dev/null; i=$((i+1)); "
                 "done; sleep 1.5; xdg-open https://example.org/ok; "
                 "echo st=$?", stdin=subprocess.DEVNULL)
    assert "wire paused" in cp.stderr, cp.stderr[-1500:]
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr[-1500:])
