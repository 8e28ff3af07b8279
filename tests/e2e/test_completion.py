"""The shell completions (lnk-sandbox(1), SHELL COMPLETION): made from the
command table and the keys table by `lnk sandbox completion SHELL`, as the
build installs them. bash's is driven for real: COMP_WORDS and COMP_CWORD
set, its function called, COMPREPLY read."""
import json
import os
import re
import shutil
import subprocess
import time

import pytest

SHELLS = ("bash", "zsh", "fish")


def script(lnk, shell):
    cp = lnk("sandbox", "completion", shell)
    assert cp.returncode == 0, cp.stderr
    return cp.stdout


def commands(lnk):
    out = lnk("sandbox", "--help", check=True).stdout
    return re.findall(r"^  ([a-z]+) ", out, re.M)


def flags_of(lnk, cmd):
    """Every option a command's --help names at the start of a line."""
    out = lnk("sandbox", cmd, "--help", check=True).stdout
    flags = set()
    for m in re.finditer(r"^\s{2,}((?:-\w, )?--[a-z][a-z-]*)", out, re.M):
        for f in m.group(1).split(", "):
            flags.add(f)
    # and those of the usage line: "usage: lnk sandbox log [--lines N] ..."
    usage = out.split("\n\n")[0]
    flags.update(re.findall(r"\[(-{1,2}[a-z][a-z-]*)", usage))
    flags.discard("-")
    return flags


def test_commands_listed(lnk):
    cmds = commands(lnk)
    assert "run" in cmds and "log" in cmds and len(cmds) >= 10
    # the shell's helpers are not for a person
    assert "completion" not in cmds and "complete" not in cmds
    for shell in SHELLS:
        text = script(lnk, shell)
        for c in cmds:
            assert re.search(rf"\b{c}\b", text), (shell, c)


def arm(shell, text, cmd):
    """The part of a script that holds cmd's options."""
    if shell == "fish":
        return "\n".join(l for l in text.splitlines()
                         if f"'__lnk_using {cmd}'" in l)
    m = re.search(rf"^\t{cmd}\)\n(.*?)fi ;;$", text, re.M | re.S)
    assert m, (shell, cmd)
    return m.group(1)


def test_every_flag_of_every_help_completes(lnk):
    """A flag a command takes (its --help) that a script misses fails
    here: the command table's options must follow the command."""
    for shell in SHELLS:
        text = script(lnk, shell)
        for cmd in commands(lnk):
            want = flags_of(lnk, cmd)
            part = arm(shell, text, cmd)
            for f in want:
                if shell == "fish":
                    spelled = (f"-l {f[2:]}" if f.startswith("--")
                               else f"-s {f[1:]}")
                else:
                    spelled = f
                assert re.search(rf"(^|[\s']){re.escape(spelled)}([\s']|$)",
                                 part), (shell, cmd, f)


def test_every_key_flag_completes_for_run(lnk):
    out = lnk("sandbox", "permissions", check=True).stdout
    keys = set(re.findall(r"(--[a-z][a-z-]+)", out))
    assert "--write" in keys and "--internet-host" in keys
    text = script(lnk, "bash")
    for f in keys:
        assert f in arm("bash", text, "run"), f


def test_scripts_parse(lnk, tmp_path):
    for shell, check in (("bash", ["bash", "-n"]), ("zsh", ["zsh", "-n"]),
                         ("fish", ["fish", "--no-execute"])):
        if not shutil.which(check[0]):
            continue  # the shell is not installed here; bash always is
        f = tmp_path / shell
        f.write_text(script(lnk, shell))
        cp = subprocess.run([*check, str(f)], capture_output=True,
                            text=True)
        assert cp.returncode == 0, (shell, cp.stderr)


def test_unknown_shell_is_usage(lnk):
    cp = lnk("sandbox", "completion", "tcsh")
    assert cp.returncode == 2 and "bash, zsh and fish" in cp.stderr
    cp = lnk("sandbox", "complete", "nothing-such")
    assert cp.returncode == 2


class Bash:
    def __init__(self, lnk, tmp_path):
        self.lnk = lnk
        self.file = tmp_path / "lnk.bash"
        self.file.write_text(script(lnk, "bash"))
        self.env = lnk.env({"PATH": os.path.dirname(lnk.bin) + ":" +
                            lnk.env()["PATH"]})

    def __call__(self, *words, cwd=None):
        """COMPREPLY for the command line `words`, the last being the word
        the cursor is in."""
        cp = subprocess.run(
            ["bash", "-c",
             'source "$1"; shift; COMP_WORDS=("$@"); '
             'COMP_CWORD=$(($# - 1)); _lnk; '
             'printf "%s\\n" "${COMPREPLY[@]}"; complete -p lnk >&2',
             "_", str(self.file), *words],
            capture_output=True, text=True, env=self.env,
            cwd=str(cwd or self.lnk.cwd), timeout=60)
        assert cp.returncode == 0, cp.stderr
        assert "complete -F _lnk lnk" in cp.stderr
        return sorted(set(l for l in cp.stdout.splitlines() if l))


def test_bash_commands_and_flags(lnk, tmp_path):
    b = Bash(lnk, tmp_path)
    assert b("lnk", "sa") == ["sandbox"]
    assert b("lnk", "sandbox", "pa") == ["pause", "paused"]
    assert b("lnk", "sandbox", "log", "--s") == ["--sandbox", "--since"]
    assert "--follow" in b("lnk", "sandbox", "log", "-")
    assert b("lnk", "sandbox", "run", "--internet-h") == ["--internet-host"]
    assert b("lnk", "sandbox", "stop", "--") == ["--help", "--off"]


def test_bash_folder_flags_complete_folders(lnk, tmp_path, work):
    b = Bash(lnk, tmp_path)
    (work / "subdir").mkdir()
    (work / "subfile").write_text("x")
    for flag in ("--write", "--read", "--hide", "--write-dot-files"):
        assert b("lnk", "sandbox", "run", flag, "sub") == ["subdir"], flag
    # --flag=VALUE: bash makes '=' a word of its own
    assert b("lnk", "sandbox", "run", "--write", "=", "sub") == ["subdir"]
    assert b("lnk", "sandbox", "enter", "--folder", "sub") == ["subdir"]
    # --spec takes a file
    assert b("lnk", "sandbox", "run", "--spec", "sub") == ["subdir",
                                                           "subfile"]
    # a value that is a word completes nothing
    assert b("lnk", "sandbox", "run", "--port", "") == []
    # after --: a program, then whatever it takes
    assert "bash" in b("lnk", "sandbox", "run", "--write", ".", "--", "bas")


def test_bash_running_sandbox_names(lnk, tmp_path):
    b = Bash(lnk, tmp_path)
    assert b("lnk", "sandbox", "pause", "") == []
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", "comp-test",
         "--internet-host", "allowed.lnk-test", "--", "/bin/sh", "-c",
         "read x"], cwd=str(lnk.cwd), env=lnk.env(), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while lnk("sandbox", "complete", "sandboxes").stdout != \
                "comp-test\n":
            assert p.poll() is None, p.communicate()
            assert time.monotonic() < deadline, "never registered"
            time.sleep(0.1)
        assert b("lnk", "sandbox", "pause", "comp") == ["comp-test"]
        assert b("lnk", "sandbox", "resume", "") == ["comp-test"]
        assert b("lnk", "sandbox", "log", "--sandbox", "c") == ["comp-test"]
        assert b("lnk", "sandbox", "log", "--sandbox", "x") == []
    finally:
        p.communicate(b"\n", timeout=60)
    assert lnk("sandbox", "complete", "sandboxes").stdout == ""


def test_complete_makes_nothing_without_settings(lnk, home):
    """Completing in a shell must not create ~/.lnk."""
    cp = lnk("sandbox", "complete", "sandboxes")
    assert cp.stdout == ""
    assert not (home / ".lnk" / "sandbox" / "lnk.db").exists()


@pytest.mark.skipif(not shutil.which("fish"), reason="fish not installed")
def test_fish_completes(lnk, tmp_path):
    f = tmp_path / "lnk.fish"
    f.write_text(script(lnk, "fish"))
    cp = subprocess.run(
        ["fish", "--no-config", "-c",
         f"source {f}; complete -C 'lnk sandbox log --'"],
        capture_output=True, text=True, env=lnk.env())
    got = {l.split("\t")[0] for l in cp.stdout.splitlines()}
    assert {"--follow", "--since", "--sandbox", "--json"} <= got, cp


def test_bash_tool_verbs_and_stored_tools(lnk, tmp_path):
    """`tool` completes its verbs, and `tool remove` the tools stored; the
    names come from ~/.lnk only when it exists (nothing is made)."""
    b = Bash(lnk, tmp_path)
    assert b("lnk", "sandbox", "tool", "") == ["add", "list", "remove"]
    assert b("lnk", "sandbox", "tool", "re") == ["remove"]
    assert b("lnk", "sandbox", "tool", "remove", "") == []
    assert not (lnk.home / ".lnk" / "sandbox" / "tools.toml").exists()
    lnk("sandbox", "tool", "add", "gh", "--allow", "pr list", check=True)
    lnk("sandbox", "tool", "add", "kubectl", "--allow", "get pods",
        check=True)
    assert b("lnk", "sandbox", "tool", "remove", "") == ["gh", "kubectl"]
    assert b("lnk", "sandbox", "tool", "remove", "k") == ["kubectl"]
    # a verb or option already typed is not offered again as a tool
    assert b("lnk", "sandbox", "tool", "remove", "gh", "") == []
    assert b("lnk", "sandbox", "tool", "add", "") == []
    assert "--allow" in b("lnk", "sandbox", "tool", "add", "gh", "--")


def test_bash_answer_completes_waiting_ids_then_yes_no(lnk, tmp_path):
    from test_terminal import read_until, spawn_on_pty, wait_status
    b = Bash(lnk, tmp_path)
    assert b("lnk", "sandbox", "answer", "") == []
    bindir = tmp_path / "toolbin"
    bindir.mkdir()
    (bindir / "mytool").write_text("#!/bin/sh\necho ran\n")
    (bindir / "mytool").chmod(0o755)
    bindir.chmod(0o755)
    base = lnk.env

    def env(extra=None):
        e = base(extra)
        e["PATH"] = f"{bindir}:{e['PATH']}"
        return e
    lnk.env = env
    pid, fd = spawn_on_pty(lnk, ["--name", "asker", "--tool", "mytool",
                                 "--", "/bin/sh", "-c", "mytool x"])
    try:
        read_until(fd, b"(or no)")
        asks = json.loads(lnk("sandbox", "asks", "--json",
                              check=True).stdout)
        ids = [a["id"] for a in asks]
        assert len(ids) == 1
        assert b("lnk", "sandbox", "answer", "") == ids
        assert b("lnk", "sandbox", "answer", ids[0], "") == ["no", "yes"]
        assert b("lnk", "sandbox", "answer", ids[0], "y") == ["yes"]
        assert b("lnk", "sandbox", "answer", ids[0], "no", "") == []
        lnk("sandbox", "answer", ids[0], "no", check=True)
    finally:
        wait_status(pid)
        os.close(fd)


@pytest.mark.skipif(not shutil.which("zsh"), reason="zsh not installed")
def test_zsh_tool_verbs_complete(lnk, tmp_path):
    """The zsh script passes the words typed to lnk as data: `tool`
    completes its verbs, then the stored tools after `remove`."""
    lnk("sandbox", "tool", "add", "gh", "--allow", "pr list", check=True)
    f = tmp_path / "_lnk"
    f.write_text(script(lnk, "zsh"))
    # _lnk_values is the script's own helper: call it as the arms do
    prog = ('source "$1"; compadd() { [[ $1 == -a ]] && print -l -- ${(P)2}; }; '
            'words=(lnk sandbox tool remove ""); CURRENT=5; '
            '_lnk_values tool "${(@)words[4,CURRENT-1]}"')
    cp = subprocess.run(["zsh", "-f", "-c", prog, "_", str(f)],
                        capture_output=True, text=True,
                        env=Bash(lnk, tmp_path).env, timeout=60)
    assert cp.stdout.split() == ["gh"], cp


@pytest.mark.skipif(not shutil.which("fish"), reason="fish not installed")
def test_fish_completes_tool_verbs_and_stored_tools(lnk, tmp_path):
    lnk("sandbox", "tool", "add", "gh", "--allow", "pr list", check=True)
    f = tmp_path / "lnk.fish"
    f.write_text(script(lnk, "fish"))
    env = Bash(lnk, tmp_path).env

    def fish(line):
        cp = subprocess.run(
            ["fish", "--no-config", "-c", f"source {f}; complete -C '{line}'"],
            capture_output=True, text=True, env=env, timeout=60)
        return {l.split("\t")[0] for l in cp.stdout.splitlines()}
    assert {"add", "list", "remove"} <= fish("lnk sandbox tool ")
    assert "gh" in fish("lnk sandbox tool remove ")
    assert "gh" not in fish("lnk sandbox tool ")
