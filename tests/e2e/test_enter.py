"""lnk sandbox enter behind a real sshd (lnk-sandbox(1), COMMANDS,
enter).

The test starts its own sshd on a loopback port with its own host key and
config, and a test user whose authorized_keys forces `lnk sandbox enter`.
Starting sshd needs root: as another user the sshd tests skip and say so;
--check and the refusals run for everyone.
"""
import os
import pathlib
import pwd
import shutil
import socket
import subprocess
import tempfile
import time

import pytest

from conftest import LNK, free_port

IS_ROOT = os.geteuid() == 0
SSH_USER = "lnk-enter-e2e"
SFTP_SERVER = "/usr/lib/openssh/sftp-server"


def spec_text(extra=""):
    return ('version = 1\n[commands]\nallow = ["bash", "cat", "ls", "echo", '
            f'"tty", "scp", "sleep", "{SFTP_SERVER}"]\n' + extra)


def test_check_says_what_it_opens_and_runs_nothing(lnk, home, tmp_path):
    spec = tmp_path / "alice.toml"
    # a spec's own name is not a session's: it is not shown as one
    spec.write_text('name = "main-link"\n' + spec_text())
    folder = tmp_path / "alice"
    folder.mkdir()
    cp = lnk("sandbox", "enter", "--spec", spec, "--folder", folder,
             "--check", "--", "touch", folder / "ran")
    assert cp.returncode == 0, cp.stderr
    lines = cp.stdout.splitlines()
    assert lines[0].startswith("sandbox alice-PID ("), lines
    assert "main-link" not in cp.stdout, cp.stdout
    assert f"writes {folder}" in lines
    assert "runs bash" in lines
    assert not (folder / "ran").exists()


def test_command_after_dashdash_runs_in_the_folder(lnk, home, tmp_path):
    spec = tmp_path / "bob.toml"
    spec.write_text(spec_text('[files]\nwrite = ["/nonexistent-ignored"]\n'))
    folder = tmp_path / "bob"
    folder.mkdir()
    secret = home / "secret.txt"
    secret.write_text("s3cret\n")
    cp = lnk("sandbox", "enter", "--spec", spec, "--folder", folder, "--",
             "bash", "-c", f"echo hi > f; ls; cat {secret}",
             env={"SSH_ORIGINAL_COMMAND": "echo not-this"})
    assert (folder / "f").read_text() == "hi\n"
    assert "not-this" not in cp.stdout
    assert "s3cret" not in cp.stdout
    assert cp.returncode != 0


def test_spec_without_bash_is_refused(lnk, tmp_path):
    spec = tmp_path / "nobash.toml"
    spec.write_text('version = 1\n[commands]\nallow = ["ls"]\n')
    (tmp_path / "w").mkdir()
    cp = lnk("sandbox", "enter", "--spec", spec, "--folder", tmp_path / "w")
    assert cp.returncode == 126
    assert "/bin/bash" in cp.stderr and "[commands]" in cp.stderr


@pytest.mark.parametrize("where", ["in-folder", "below", "bind-alias",
                                   "bound-inside", "file-link",
                                   "folder-link"])
def test_a_session_never_writes_its_own_spec(lnk, home, tmp_path, where):
    """Invariant 6 (policy), promise: a spec that widens asks again; enter
    asks no one, so its spec must lie beyond the session's reach.

    Threat: the spec lay in the folder the session writes
    (/home/alice/alice.toml with --folder /home/alice): the first session
    appended [internet] hosts = ["*"] and a tool, and the next session
    started with them, asking nothing. Such a spec is refused, by
    identity (a bind mount of the folder at another path is the same
    folder, and so is the spec's own folder bound inside the session's:
    /etc/lnk/users/alice bound at /home/alice/specs; and a link in the
    folder on the spec's path, which the session could point at a wider
    spec)."""
    folder = tmp_path / "alice"
    folder.mkdir()
    if where == "in-folder":
        spec = folder / "alice.toml"
    elif where == "below":
        (folder / "specs").mkdir()
        spec = folder / "specs" / "alice.toml"
    else:
        if not IS_ROOT:
            pytest.skip("a bind mount needs root")
        alias = tmp_path / "alias"
        alias.mkdir()
        subprocess.run(["mount", "--bind", str(folder), str(alias)],
                       check=True)
        spec = alias / "alice.toml"
    if where in ("file-link", "folder-link"):
        # the spec lies outside, reached through a link in the folder:
        # the session replaces the link with one to a wider spec
        specs = tmp_path / "specs"
        specs.mkdir()
        (specs / "alice.toml").write_text(spec_text())
        if where == "file-link":
            (folder / "alice.toml").symlink_to(specs / "alice.toml")
            spec = folder / "alice.toml"
        else:
            (folder / "spec").symlink_to(specs)
            spec = folder / "spec" / "alice.toml"
    if where == "bound-inside":
        if not IS_ROOT:
            pytest.skip("a bind mount needs root")
        specs = tmp_path / "specs"
        specs.mkdir()
        (folder / "specs").mkdir()
        subprocess.run(["mount", "--bind", str(specs),
                        str(folder / "specs")], check=True)
        spec = specs / "alice.toml"
    try:
        if not where.endswith("-link"):
            spec.write_text(spec_text())
        cp = lnk("sandbox", "enter", "--spec", spec, "--folder", folder,
                 "--", "bash", "-c", "echo ran > ran")
        assert cp.returncode == 2, (cp.stdout, cp.stderr)
        assert "lies in a folder the session writes" in cp.stderr
        assert not (folder / "ran").exists()
    finally:
        if where == "bind-alias":
            subprocess.run(["umount", str(tmp_path / "alias")])
        if where == "bound-inside":
            subprocess.run(["umount", str(folder / "specs")])


def test_usage(lnk, tmp_path):
    cp = lnk("sandbox", "enter", "--folder", tmp_path)
    assert cp.returncode == 2 and "--spec" in cp.stderr
    cp = lnk("sandbox", "enter", "--spek", "x")
    assert cp.returncode == 2 and "--spec" in cp.stderr


# ---- a real sshd ----------------------------------------------------------


@pytest.fixture(scope="module")
def sshd():
    if not IS_ROOT:
        pytest.skip("starting sshd needs root; run as root (tests/run-all "
                    "does)")
    if not shutil.which("sshd", path="/usr/sbin:/usr/bin"):
        pytest.skip("openssh-server is not installed")
    try:
        pw = pwd.getpwnam(SSH_USER)
    except KeyError:
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash",
                        SSH_USER], check=True)
        pw = pwd.getpwnam(SSH_USER)
    # sshd refuses a locked account ("!" in shadow) without PAM.
    subprocess.run(["usermod", "-p", "*", SSH_USER], check=True)
    d = pathlib.Path(tempfile.mkdtemp(prefix="lnk-sshd."))
    d.chmod(0o755)
    # lnk where the test user can run it.
    (d / "bin").mkdir()
    src = pathlib.Path(LNK).resolve().parent
    for name in ("lnk", "lnk-init", "lnk-probe"):
        if (src / name).exists():
            shutil.copy2(src / name, d / "bin" / name)
    home = pathlib.Path(pw.pw_dir)
    folder = home / "work"
    folder.mkdir(exist_ok=True)
    os.chown(folder, pw.pw_uid, pw.pw_gid)
    secret = home / "outside.txt"
    secret.write_text("outside-secret\n")
    os.chown(secret, pw.pw_uid, pw.pw_gid)
    spec = d / "alice.toml"
    # A loopback port: the session has a wire, and with it a name in the
    # registry that a second session must not collide with.
    spec.write_text(spec_text("[localhost]\nports = [47999]\n"))
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                    str(d / "hostkey")], check=True)
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                    str(d / "clientkey")], check=True)
    pub = (d / "clientkey.pub").read_text().strip()
    forced = (f'{d}/bin/lnk sandbox enter --spec {spec} '
              f'--folder {folder}')
    (d / "authorized_keys").write_text(
        f'restrict,pty,command="{forced}" {pub}\n')
    port = free_port()
    (d / "sshd_config").write_text(f"""\
Port {port}
ListenAddress 127.0.0.1
HostKey {d}/hostkey
AuthorizedKeysFile {d}/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AllowUsers {SSH_USER}
PidFile {d}/sshd.pid
Subsystem sftp internal-sftp
LogLevel ERROR
# The config lives under /tmp (world-writable): StrictModes would refuse
# the key file for its parent folder.
StrictModes no
""")
    for f in d.iterdir():
        if f.name not in ("bin", "clientkey"):
            f.chmod(0o755 if f.is_dir() else 0o644)
    (d / "hostkey").chmod(0o600)
    os.makedirs("/run/sshd", exist_ok=True)
    proc = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f",
                             str(d / "sshd_config")],
                            stderr=open(d / "sshd.log", "w"))
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    info = dict(dir=d, port=port, folder=folder, home=home, secret=secret,
                user=SSH_USER)
    yield info
    proc.terminate()
    proc.wait(timeout=10)
    shutil.rmtree(d, ignore_errors=True)
    for p in folder.iterdir():
        if p.is_file():
            p.unlink()


def ssh_opts(s):
    return ["-i", str(s["dir"] / "clientkey"), "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=no", "-o",
            "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"]


def ssh(s, *args, input=None, tty=False):
    cmd = ["ssh", *ssh_opts(s), "-p", str(s["port"])]
    if tty:
        cmd.append("-tt")
    cmd += [f"{s['user']}@127.0.0.1", *args]
    return subprocess.run(cmd, input=input, capture_output=True, text=True,
                          timeout=60)


def test_ssh_command_runs_in_the_sandbox(sshd):
    cp = ssh(sshd, "echo hello-$((40+2)); pwd; echo x > made.txt")
    assert cp.returncode == 0, cp.stderr
    assert "hello-42" in cp.stdout
    assert str(sshd["folder"]) in cp.stdout
    assert (sshd["folder"] / "made.txt").read_text() == "x\n"


def test_ssh_cannot_read_or_write_outside_the_folder(sshd):
    cp = ssh(sshd, f"cat {sshd['secret']}")
    assert cp.returncode != 0
    assert "outside-secret" not in cp.stdout
    # The home outside the folder is the sandbox's own empty one: a write
    # there may succeed inside, and never reaches this machine.
    ssh(sshd, f"echo y > {sshd['home']}/planted.txt")
    assert not (sshd["home"] / "planted.txt").exists()


def test_interactive_shell_through_a_pty(sshd):
    cp = ssh(sshd, input="tty; echo done-$((2+3)); exit\n", tty=True)
    assert "done-5" in cp.stdout, (cp.stdout, cp.stderr)
    # bwrap shows the session's pty as /dev/console; "not a tty" would
    # mean the pty never reached the shell.
    assert "not a tty" not in cp.stdout
    assert "\n/dev/" in cp.stdout


def test_scp_into_the_folder(sshd, tmp_path):
    f = tmp_path / "up.txt"
    f.write_text("uploaded\n")
    # -O: the scp protocol (scp -t in SSH_ORIGINAL_COMMAND); without it
    # scp goes through the sftp subsystem, tested below.
    for legacy in (True, False):
        target = "up-legacy.txt" if legacy else "up-sftp.txt"
        cmd = ["scp", *ssh_opts(sshd), "-P", str(sshd["port"])]
        if legacy:
            cmd.append("-O")
        cmd += [str(f), f"{sshd['user']}@127.0.0.1:{sshd['folder']}/{target}"]
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert cp.returncode == 0, cp.stderr
        assert (sshd["folder"] / target).read_text() == "uploaded\n"


def test_sftp_lists_the_folder(sshd, tmp_path):
    (sshd["folder"] / "listed.txt").write_text("z\n")
    batch = tmp_path / "batch"
    batch.write_text(f"ls {sshd['folder']}\nget {sshd['secret']} "
                     f"{tmp_path}/got.txt\n")
    cp = subprocess.run(["sftp", *ssh_opts(sshd), "-P", str(sshd["port"]),
                         "-b", str(batch), f"{sshd['user']}@127.0.0.1"],
                        capture_output=True, text=True, timeout=60)
    assert "listed.txt" in cp.stdout, (cp.stdout, cp.stderr)
    # The file outside the folder is not there to fetch.
    assert not (tmp_path / "got.txt").exists()


def session(s, command, tty):
    """An ssh session left running: returns the client, once the session
    printed "up"."""
    cmd = ["ssh", *ssh_opts(s), "-p", str(s["port"])]
    if tty:
        cmd.append("-tt")
    cmd += [f"{s['user']}@127.0.0.1", command]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    line = p.stdout.readline()
    if b"up" not in line:
        p.kill()
        raise AssertionError((line, p.stderr.read()))
    return p


def running(user, pattern):
    cp = subprocess.run(["pgrep", "-u", user, "-f", pattern],
                        capture_output=True, text=True)
    return cp.stdout.split()


def wait_running(user, pattern, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline and not running(user, pattern):
        time.sleep(0.1)
    return running(user, pattern)


def wait_gone(user, pattern, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline and running(user, pattern):
        time.sleep(0.1)
    return running(user, pattern)


@pytest.mark.parametrize("tty", [True, False], ids=["pty", "no-pty"])
def test_session_that_ignores_hangup_ends_with_its_connection(sshd, tty):
    """A program that ignores SIGHUP (and SIGPIPE) must not outlive its SSH
    connection: lnk, the sandbox and its wire end with it, and the key's
    next session runs."""
    marker = "7777.25" if tty else "7777.5"
    p = session(sshd, f"trap '' HUP PIPE; echo up; exec sleep {marker}", tty)
    try:
        assert wait_running(sshd["user"], f"sleep {marker}")
        p.kill()  # the connection ends as a dropped network would end it
        p.wait(timeout=10)
        assert not wait_gone(sshd["user"], f"sleep {marker}")
        assert not wait_gone(sshd["user"], f"{sshd['dir']}/bin/lnk")
    finally:
        if p.poll() is None:
            p.kill()
    cp = ssh(sshd, "echo again-$((1+1))")
    assert cp.returncode == 0 and "again-2" in cp.stdout, cp.stderr


def test_concurrent_sessions_of_one_key_each_run(sshd):
    p = session(sshd, "echo up; exec sleep 7777.75", False)
    try:
        assert wait_running(sshd["user"], "sleep 7777.75")
        cp = ssh(sshd, "echo second-$((1+1))")
        assert cp.returncode == 0, cp.stderr
        assert "second-2" in cp.stdout
    finally:
        p.kill()
        p.wait(timeout=10)
    assert not wait_gone(sshd["user"], "sleep 7777.75")
