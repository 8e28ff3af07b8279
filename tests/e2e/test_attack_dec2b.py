"""Attacks of the session dec2b: each test is one hole found by attacking
lnk from inside a sandbox, from a spec, or from the network, and fails on
the code before its fix."""
import os
import pathlib

import pytest

from attack_helpers import _tool_on_path, in_private_mounts, lnk_under_mounts
from conftest import on_lnk_path

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


# A system tree bound inside the write folder (a chroot's folder with the
# host's /srv, /etc or /var/lib in it): bubblewrap binds the write folder
# with its mounts.
SYSTREE_BELOW = """
    mount --bind /srv '{work}/chroot/srv' || exit 99
    {lnk} sandbox run --write '{work}' -- /bin/sh -c \\
        'touch chroot/srv/{mark}' 2>'{work}/err'
    echo "rc=$?"
    cat '{work}/err'
    rm -f '/srv/{mark}' 2>/dev/null
    exit 0
"""


def test_write_folder_holding_a_mount_of_a_system_tree_refused(lnk, work):
    """Invariant 2 (writes only where granted), promise: no write grant
    is, holds or shows through a bind mount a system tree, judged by what
    it is.

    Threat: the write folder holds a bind mount of a system tree (a build
    chroot with the host's folders in it): the grant was judged by its own
    path only, and bubblewrap binds it with its mounts, so the program
    wrote the host's /srv (or /etc, /var/lib/dpkg) through it, as root."""
    if not pathlib.Path("/srv").is_dir():
        pytest.skip("no /srv here")
    (work / "chroot" / "srv").mkdir(parents=True)
    mark = f"lnk-attack-{os.getpid()}"
    cp = in_private_mounts(lnk, SYSTREE_BELOW.format(
        work=work, mark=mark, lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert not pathlib.Path("/srv", mark).exists(), cp.stdout
    assert "rc=2" in cp.stdout and "/srv" in cp.stdout, cp.stdout


# The host's /proc in a folder the sandbox reads (a chroot's folder with
# /proc mounted in it), or bound at another path.
PROC_SHOWN = """
    mount --rbind /proc '{work}/chroot/proc' || exit 99
    mount --rbind /proc '{second}' || exit 99
    {lnk} sandbox run --read '{work}' -- /bin/sh -c \\
        'ls {work}/chroot/proc | grep -c "^[0-9]"'
    echo "rc=$?"
    {lnk} sandbox run --read '{second}' -- /bin/sh -c \\
        'ls {second} | grep -c "^[0-9]"'
    echo "rc=$?"
    exit 0
"""


def test_grant_showing_the_hosts_proc_refused(lnk, work, tmp_path):
    """Invariant 1 (reads only what is granted), promise: /proc, /sys,
    /dev and /run are never granted, judged by what they are.

    Threat: a granted folder holds the host's /proc (a chroot's folder,
    where /proc is mounted for a build), or is /proc bound at another
    path: refused by spelling only, it showed every process of the
    machine (their command lines, with what tokens they hold) to the
    program."""
    (work / "chroot" / "proc").mkdir(parents=True)
    second = tmp_path / "second"
    second.mkdir()
    cp = in_private_mounts(lnk, PROC_SHOWN.format(
        work=work, second=second, lnk=lnk_under_mounts(lnk)))
    if cp.returncode == 99:
        pytest.skip("cannot bind mount here: " + cp.stderr)
    assert cp.stdout.count("rc=2") == 2, (cp.stdout, cp.stderr)
    assert "/proc" in cp.stderr, cp.stderr


# A machine and its first router in namespaces of their own (198.19.200.0/22,
# inside the test range 198.18.0.0/15): the router's "public" address
# 198.19.201.1 forwards port 8000 back to the machine's 198.19.200.1:8001
# (hairpin NAT), 198.19.202.0/24 lies beyond the router, and the router
# limits its ICMP errors as Linux does by default (one a second to a host,
# after a short burst).
HOPNET_UP = """
set -e
ip netns add {m}; ip netns add {r}
ip link add {m}0 netns {m} type veth peer name {r}0 netns {r}
ip link add {r}w netns {r} type veth peer name {r}v netns {r}
ip -n {m} link set lo up; ip -n {r} link set lo up
ip -n {m} addr add 198.19.200.1/30 dev {m}0; ip -n {m} link set {m}0 up
ip -n {r} addr add 198.19.200.2/30 dev {r}0; ip -n {r} link set {r}0 up
ip -n {r} addr add 198.19.201.1/24 dev {r}w
ip -n {r} link set {r}w up; ip -n {r} link set {r}v up
ip -n {r} route add 198.19.202.0/24 via 198.19.201.2 dev {r}w
ip -n {m} route add default via 198.19.200.2
ip netns exec {r} sysctl -qw net.ipv4.ip_forward=1 \\
    net.ipv4.icmp_ratelimit=1000
ip netns exec {r} nft -f - <<'NFT'
table ip hop {{
	chain pre {{
		type nat hook prerouting priority dstnat;
		ip daddr 198.19.201.1 tcp dport 8000 dnat to 198.19.200.1:8001
	}}
	chain post {{
		type nat hook postrouting priority srcnat;
		oifname "{r}0" ip saddr 198.19.200.0/30 masquerade
	}}
}}
NFT
"""

# The first sandbox's program: a connect a tenth of a second, each to a
# new address beyond the router, whose first-hop probes spend the router's
# ICMP errors to this machine.
DRAIN = """
import os, socket, threading, time
host, port = os.environ["HTTP_PROXY"][7:].rstrip("/").rsplit(":", 1)
def one(x):
    try:
        s = socket.create_connection((host, int(port)), timeout=3)
        s.sendall(f"CONNECT 198.19.202.{x}:80 HTTP/1.1\\r\\n\\r\\n".encode())
        s.recv(100)
    except OSError:
        pass
end, x = time.time() + 12, 1
while time.time() < end:
    threading.Thread(target=one, args=(x,), daemon=True).start()
    x = x % 250 + 1
    time.sleep(0.05)
"""


@pytest.fixture
def hopnet(tmp_path):
    """The machine's namespace name in a private first-router network, and
    the path of a file its server serves; root only."""
    if os.geteuid() != 0:
        pytest.skip("building the router's namespaces needs root")
    import shutil
    import subprocess
    if not shutil.which("nft"):
        pytest.skip("nft is not installed")
    tag = f"ah{os.getpid() % 100000}"
    m, r = f"{tag}m", f"{tag}r"
    up = subprocess.run(["bash", "-c", HOPNET_UP.format(m=m, r=r)],
                        capture_output=True, text=True)
    srv = None
    try:
        if up.returncode != 0:
            pytest.skip("cannot build the router's namespaces: " + up.stderr)
        site = tmp_path / "site"
        site.mkdir()
        (site / "secret.txt").write_text("a server of this machine\n")
        srv = subprocess.Popen(
            ["ip", "netns", "exec", m, "python3", "-m", "http.server",
             "8001", "--bind", "198.19.200.1", "--directory", str(site)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import time
        time.sleep(0.5)
        yield m
    finally:
        if srv:
            srv.kill()
            srv.wait()
        subprocess.run(["ip", "netns", "del", m], capture_output=True)
        subprocess.run(["ip", "netns", "del", r], capture_output=True)


@pytest.mark.xfail(strict=True, reason="hole: a wire that has not heard "
                   "the first router yet takes its silence for the "
                   "internet, and another wire can spend the router's "
                   "ICMP errors (not fixed; see the report)")
def test_another_sandbox_cannot_silence_the_first_router(lnk, hopnet,
                                                         tmp_path):
    """Invariant 3 (reaches only the hosts allowed), promise: under
    --internet-host '*' the first router's own address (a port forward on
    its public address that leads back to this machine) is refused.

    Threat: a router sends a few ICMP errors a second to one host, and the
    first-hop probe of a wire that has not heard the router yet takes
    silence for a router that never answers (the internet). A program in
    one sandbox spends those errors with connects beyond the router; the
    first call of a second sandbox's program, to the router's forwarded
    port, meets silence and reaches this machine's server."""
    import subprocess
    import time
    drain = tmp_path / "drain.py"
    drain.write_text(DRAIN)
    tmp_path.chmod(0o755)
    env = ["env", "-i", f"HOME={lnk.home}", "PATH=/usr/bin:/bin",
           "LANG=C.UTF-8"]
    run = ["ip", "netns", "exec", hopnet, *env, lnk.bin, "sandbox", "run",
           "--read", str(tmp_path), "--internet-host", "*", "--"]
    a = subprocess.Popen([*run, "python3", str(drain)], cwd=str(tmp_path),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = ""
    try:
        time.sleep(2)
        # each a new sandbox, whose wire has not heard the router
        for _ in range(3):
            b = subprocess.run(
                [*run, "/bin/sh", "-c",
                 "curl -s -m 3 -x \"$HTTP_PROXY\" "
                 "http://198.19.201.1:8000/secret.txt"],
                cwd=str(tmp_path), capture_output=True, text=True,
                timeout=60)
            out += b.stdout + b.stderr
            if "a server of this machine" in b.stdout:
                break
    finally:
        a.kill()
        a.wait()
    assert "a server of this machine" not in out, out


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
    """Rule P's links one folder down are kept between runs with the
    folder's identity and times (~/.lnk/sandbox/home-links): a run that
    found no link in ~/.ssh must not make the next one skip the link
    stow made since. Also a link whose folder was replaced whole (another
    inode), and one replaced by a link elsewhere (the folder changes)."""
    dots = home / "dotfiles"
    (dots / "ssh").mkdir(parents=True)
    (dots / "ssh" / "config").write_text("Host x\n")
    (dots / "ssh" / "rc").write_text("# mine\n")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("key\n")
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
