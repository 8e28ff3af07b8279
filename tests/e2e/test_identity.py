"""Attacks that reach what lnk protects under another spelling: a path
written another way, a configuration the rules look for under one name only,
a system tree granted by a link (docs/runs-outside.md; docs/design.md,
invariants 1, 2 and 8).

Each test PASSES when the sandbox holds and FAILS when the attack works. They
run as an unprivileged user and as root.
"""
import os
import pathlib
import subprocess

import pytest

from conftest import IS_ROOT


def sh(lnk, script, *grants, timeout=60, **kw):
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


# --- names still missing from the list -------------------------------------

# Read from the folder an interpreter or debugger starts in (their startup
# code): the OCaml toplevel and utop (.ocamlinit), irb (irb.rc, _irbrc),
# perl -d (.perldb), R (.Renviron names the profile it runs), lldb.
STARTUP_NAMES = [".ocamlinit", "irb.rc", "_irbrc", ".perldb", ".Renviron",
                 ".lldbinit"]


@pytest.mark.parametrize("name", STARTUP_NAMES)
def test_interpreter_startup_names_not_planted(lnk, work, name):
    """Threat: the program leaves `.ocamlinit` (or another startup file an
    interpreter reads from the current folder) in the project; the user's
    next `ocaml` or `utop` there runs it, outside."""
    cp = sh(lnk, f"echo 'Sys.command \"touch pwned\";;' > {name}; true",
            "--write", work)
    assert not (work / name).exists(), cp.stderr
    (work / name).write_text("(* mine *)\n")
    cp = sh(lnk, f"echo 'Sys.command \"touch pwned\";;' >> {name}; "
                 f"mv {name} old; true", "--write", work)
    assert (work / name).read_text() == "(* mine *)\n", cp.stderr
    assert not (work / "old").exists()


# --- the system's trees are never write grants -----------------------------

SYSTEM_TREES = ["/var", "/var/lib", "/var/lib/dpkg", "/var/spool",
                "/var/cache", "/var/backups", "/opt", "/srv", "/etc", "/usr",
                "/bin", "/boot"]


@pytest.mark.parametrize("tree", SYSTEM_TREES)
def test_system_tree_never_a_write_grant(lnk, home, tree):
    """Threat: as root, `--write /var/lib` (or /var) is accepted and the
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


def in_private_mounts(lnk, script):
    """Runs sh SCRIPT in a mount namespace of its own (a user namespace too
    when not root), with lnk's environment; returns the CompletedProcess."""
    pre = ["unshare", "-m", "--propagation", "private"]
    if not IS_ROOT:
        pre = ["unshare", "-r", "-m", "--propagation", "private"]
    return subprocess.run([*pre, "/bin/sh", "-c", script], env=lnk.env(),
                          cwd=str(lnk.cwd), capture_output=True, text=True,
                          timeout=60)


def test_system_tree_through_a_bind_mount_refused(lnk, home):
    """Threat: /var/lib shown at another path by a bind mount (a container's
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


# --- PATH read as the shell reads it ---------------------------------------

def test_path_entry_with_a_tilde_not_planted(lnk, home, work):
    """Threat: a profile sets PATH=~/project/tools:$PATH with the ~ kept
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
    """Threat: PATH holds "." or an empty entry (the current folder) or a
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


# --- git's configuration: every key that names a program or a path ---------

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


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("section,key,value,target", GIT_KEYS,
                         ids=[f"{s.split()[0]}.{k}" for s, k, _, _ in
                              GIT_KEYS])
def test_git_config_programs_in_a_write_folder_protected(
        lnk, home, work, section, key, value, target, existing):
    """Threat: the user's ~/.gitconfig names a program or a folder inside the
    project (init.templateDir, core.pager, core.sshCommand,
    credential.helper, a filter or merge driver, ...): the program writes
    it, and the user's next git runs it outside, as the user."""
    (home / ".gitconfig").write_text(
        f"[{section}]\n\t{key} = {value.format(work=work)}\n")
    t = work / target
    if existing:
        t.parent.mkdir(parents=True, exist_ok=True)
        t.write_text("#!/bin/sh\n")
    cp = sh(lnk, f"mkdir -p {os.path.dirname(target) or '.'}; "
                 f"echo 'touch ~/pwned' >> {target}; "
                 f"mv {target.split('/')[0]} moved; true", "--write", work)
    assert not (work / "moved").exists(), cp.stderr
    if existing:
        assert t.read_text() == "#!/bin/sh\n", cp.stderr
    else:
        assert not t.exists(), cp.stderr


# --- configuration the user's environment names ----------------------------

# variable, its value (under the project), the file the program plants
ENV_CONFIGS = [
    ("XDG_CONFIG_HOME", "conf", "conf/git/config"),
    ("XDG_CONFIG_HOME", "conf", "conf/autostart/x.desktop"),
    ("XDG_CONFIG_HOME", "conf", "conf/systemd/user/x.service"),
    ("XDG_DATA_HOME", "share", "share/applications/x.desktop"),
    ("XDG_DATA_HOME", "share", "share/autostart/x.desktop"),
    ("XDG_DATA_HOME", "share", "share/systemd/user/x.service"),
    ("GIT_CONFIG_GLOBAL", "gitconfig", "gitconfig"),
    ("ZDOTDIR", "zsh", "zsh/.zshrc"),
    ("BASH_ENV", "env.sh", "env.sh"),
    ("ENV", "env.sh", "env.sh"),
    ("INPUTRC", "inputrc", "inputrc"),
    ("PYTHONSTARTUP", "startup.py", "startup.py"),
    ("PYTHONUSERBASE", "pyuser", "pyuser/lib/x.pth"),
    ("NODE_PATH", "nm", "nm/fs.js"),
    ("npm_config_userconfig", "npmrc", "npmrc"),
    ("CARGO_HOME", "cargo", "cargo/bin/ls"),
]


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("var,value,target", ENV_CONFIGS,
                         ids=[f"{v}-{t}" for v, _, t in ENV_CONFIGS])
def test_configuration_the_environment_names_protected(
        lnk, work, var, value, target, existing):
    """Threat: the user's XDG_CONFIG_HOME (ZDOTDIR, BASH_ENV,
    GIT_CONFIG_GLOBAL, ...) lies in the project: the program creates git's
    global config, an autostart entry or a systemd user unit there, or
    changes the file bash sources, and the user's next login, shell or git
    runs it."""
    t = work / target
    if existing:
        t.parent.mkdir(parents=True, exist_ok=True)
        t.write_text("# mine\n")
    val = str(work / value)
    if var == "NODE_PATH":
        val = f"/nonexistent:{val}"
    cp = sh(lnk, f"mkdir -p {os.path.dirname(target) or '.'}; "
                 f"echo 'touch ~/pwned' >> {target}; "
                 f"mv {value} moved; true", "--write", work,
            env={var: val})
    assert not (work / "moved").exists(), cp.stderr
    if existing:
        assert t.read_text() == "# mine\n", cp.stderr
    else:
        assert not t.exists(), cp.stderr


def test_git_config_the_environment_names_is_read_for_programs(lnk, work):
    """Threat: GIT_CONFIG_GLOBAL (outside the project) names a pager in the
    project: rule C reads the config the environment names, not only
    ~/.gitconfig."""
    cfg = work.parent / "my.gitconfig"
    cfg.write_text(f"[core]\n\tpager = {work}/tools/pager\n")
    cp = sh(lnk, "mkdir -p tools; echo evil > tools/pager; true",
            "--write", work, env={"GIT_CONFIG_GLOBAL": str(cfg)})
    assert not (work / "tools" / "pager").exists(), cp.stderr


# --- module folders of the home that are not dot names ---------------------

HOME_MODULE_FOLDERS = ["node_modules", "perl5", "R"]


@pytest.mark.parametrize("holds", [False, True])
@pytest.mark.parametrize("name", HOME_MODULE_FOLDERS)
def test_home_module_folders_not_planted(lnk, home, name, holds):
    """Threat: with --write ~ (or a folder holding it), the program makes
    ~/node_modules/fs/index.js: node loads it for any script under the home
    that does not supply its own module; likewise local::lib's ~/perl5 and
    R's user library ~/R."""
    grant = home.parent if holds else home
    cp = sh(lnk, f"mkdir -p ~/{name}/fs && echo evil > ~/{name}/fs/index.js;"
                 " true", "--write", grant)
    assert not (home / name).exists(), cp.stderr
    (home / name).mkdir()
    cp = sh(lnk, f"mkdir -p ~/{name}/fs; mv ~/{name} ~/moved; true",
            "--write", grant)
    assert not (home / name / "fs").exists(), cp.stderr
    assert not (home / "moved").exists(), cp.stderr


def test_node_modules_above_the_home_not_planted(lnk, home):
    """Threat: --write of a folder that holds the home (/home): node looks
    for node_modules in every folder above a script, so a node_modules
    made beside the home is loaded by scripts under it."""
    cp = sh(lnk, f"mkdir -p '{home.parent}/node_modules/fs'; true",
            "--write", home.parent)
    assert not (home.parent / "node_modules").exists(), cp.stderr


# --- home dot files that are links into a write folder ---------------------

def test_stow_style_home_links_protected(lnk, home):
    """Threat: GNU stow or a dotfiles repository: ~/.bashrc ->
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
    cp = sh(lnk, f"""cd '{dots}'
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
    cp = sh(lnk, f"echo ok > '{dots}/README'", "--write", dots)
    assert (dots / "README").read_text() == "ok\n", cp.stderr


# --- the home and the hidden folders at a second path ----------------------

SECOND_PATH = """
    mount --bind '{home}' '{second}' || exit 99
    {lnk} sandbox run --write '{second}' -- /bin/sh -c '
        ls -A "{second}/.lnk" > "{second}/seen-lnk" 2>&1
        echo evil >> "{second}/.bashrc"; mkdir "{second}/.config"
        mv "{second}/.profile" "{second}/p2"
        echo ran > "{second}/ran.marker"' || exit 3
    {lnk} sandbox run --read '{second}' --write '{work}' -- /bin/sh -c '
        ls -A "{second}/.lnk" > "{work}/seen-lnk-read" 2>&1' || exit 4
    {lnk} sandbox run --write '{second}/.lnk' -- /bin/true &&
        echo write >> '{tmp}/accepted'
    {lnk} sandbox run --read '{second}/.lnk' -- /bin/true &&
        echo read >> '{tmp}/accepted'
    exit 0
"""


def test_home_at_a_second_path_known_by_identity(lnk, home, work, tmp_path):
    """Threat: the home is also reachable at a second path (a bind mount:
    /home bound from /data/home, a container's bind); --write or --read of
    that path showed ~/.lnk (keys, answers, the log), and the home-top
    rule did not apply there: .bashrc appended, new dot folders made. The
    home and its hidden folders are recognised by identity."""
    cp = lnk.run("--write", work, "--", "/bin/true")
    assert cp.returncode == 0, cp.stderr
    assert any((home / ".lnk").iterdir())
    (home / ".bashrc").write_text("# mine\n")
    (home / ".profile").write_text("# mine\n")
    second = tmp_path / "second"
    second.mkdir()
    # As a user, lnk runs in a user namespace of its own below the one
    # that mounted, as a user that is not root there either.
    run = f"'{lnk.bin}'" if IS_ROOT else (
        f"unshare --user --map-user={os.getuid()} "
        f"--map-group={os.getgid()} '{lnk.bin}'")
    cp = in_private_mounts(lnk, SECOND_PATH.format(
        home=home, second=second, work=work, lnk=run, tmp=tmp_path))
    assert cp.returncode != 99, cp.stderr
    assert cp.returncode == 0, (cp.returncode, cp.stderr)
    assert (home / "ran.marker").exists(), cp.stderr
    assert (home / "seen-lnk").read_text() == "", cp.stderr
    assert (work / "seen-lnk-read").read_text() == "", cp.stderr
    assert (home / ".bashrc").read_text() == "# mine\n", cp.stderr
    assert not (home / ".config").exists(), cp.stderr
    assert (home / ".profile").exists() and not (home / "p2").exists()
    assert not (tmp_path / "accepted").exists(), cp.stderr


def test_git_command_naming_thousands_of_paths_refused(lnk, home, work):
    """Threat: a config the user did not write (an include they took from
    a project) gives a command of thousands of path words, each walked at
    every start: past a bound, the run is refused with a clear message,
    never a crawl."""
    words = " ".join(f"{work}/w{i}" for i in range(5000))
    (home / ".gitconfig").write_text(f"[core]\n\tpager = less {words}\n")
    cp = lnk.run("--write", work, "--", "/bin/true")
    assert cp.returncode != 0, cp.stderr
    assert "more than 64 paths" in cp.stderr, cp.stderr
