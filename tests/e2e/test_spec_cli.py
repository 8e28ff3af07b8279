"""lnk sandbox spec and lnk sandbox permissions: the one keys table seen from
the command line (lnk-sandbox(1), GRANTS and
SPECS)."""
import json
import re
import subprocess

import pytest


def test_spec_from_flags_reads_back_identically(lnk, home, work):
    (home / "code" / "app").mkdir(parents=True)
    made = lnk("sandbox", "spec", "--write", "~/code/app",
               "--internet-host", "*", "--command", "node", check=True)
    app = home / "code" / "app"
    assert made.stdout == (
        "version = 1\n\n"
        "[files]\n"
        'write = ["~/code/app"]\n\n'
        "[internet]\n"
        'hosts = ["*"]\n\n'
        "[commands]\n"
        'allow = ["node"]\n')
    (work / "app.toml").write_text(made.stdout)
    # the paths as written from flags; --spec prints them absolute
    again = lnk("sandbox", "spec", "--spec", "app.toml", check=True)
    assert again.stdout == made.stdout.replace("~/code/app", str(app))
    # And once more from the text it printed: a fixed point.
    (work / "app2.toml").write_text(again.stdout)
    third = lnk("sandbox", "spec", "--spec", work / "app2.toml", check=True)
    assert third.stdout == again.stdout


def test_flags_alone_run_every_system_program(lnk, work):
    out = lnk("sandbox", "spec", "--write", ".", check=True).stdout
    assert 'write = ["."]' in out
    assert '[commands]\nallow = ["*"]' in out


def test_spec_paths_absolute_relative_to_its_folder(lnk, home, work):
    sub = home / "elsewhere"
    (sub / "data").mkdir(parents=True)
    (sub / "s.toml").write_text(
        'name = "app"\n[files]\nread = ["data"]\nhide = ["."]\n')
    out = lnk("sandbox", "spec", "--spec", sub / "s.toml",
              "--hide", ".", "--write", ".", check=True).stdout
    # read relative to the spec's folder; the flag's --hide relative to
    # the working folder and added; --write replaces (the file had none).
    assert f'read = ["{sub / "data"}"]' in out
    hide = re.search(r"^hide = \[(.*?)\]$", out, re.M | re.S).group(1)
    assert re.findall(r'"([^"]*)"', hide) == [str(sub), str(work)]
    assert f'write = ["{work}"]' in out
    assert out.startswith('name = "app"\nversion = 1\n')
    # A spec without [commands] runs nothing: no default is added.
    assert "[commands]" not in out


def test_flag_replaces_the_files_key(lnk, work):
    (work / "s.toml").write_text(
        '[internet]\nhosts = ["a.example", "b.example"]\n'
        '[commands]\nallow = ["sh"]\n')
    out = lnk("sandbox", "spec", "--spec", "s.toml", "--internet-host",
              "c.example", "--name=mine", check=True).stdout
    assert 'hosts = ["c.example"]' in out
    assert 'allow = ["sh"]' in out
    assert out.startswith('name = "mine"\n')


def test_spec_errors_exit_2_with_position(lnk, work):
    cases = [
        ('[files]\nwirte = ["x"]\n',
         "app.toml:2:1: unknown key 'wirte' in [files]; did you mean 'write'?"),
        ('\n\n\n[files]\nwrite = 3\n',
         "app.toml:5:9: [files] write must be an array of strings, "
         "not an integer"),
        ('[fles]\n', "app.toml:1:1: unknown section [fles]; did you mean "
         "[files]?"),
        ('[internet]\nhosts = ["b\u00fccher.de"]\n',
         "app.toml:2:10: [internet] hosts: "),
        ('[files]\nread = ["nope"]\n', "app.toml:2:9: [files] read"),
        ('[files]\nread = ["/proc"]\n', "other processes"),
        ('[files\n', "app.toml:1:"),
    ]
    for text, msg in cases:
        (work / "app.toml").write_text(text)
        cp = lnk("sandbox", "spec", "--spec", "app.toml")
        assert cp.returncode == 2, (text, cp.stderr)
        assert cp.stdout == ""
        assert cp.stderr.startswith("lnk: "), cp.stderr
        assert msg in cp.stderr, (text, cp.stderr)
    # An international name: asked for in its xn-- form.
    (work / "app.toml").write_text('[internet]\nhosts = ["b\u00fccher.de"]\n')
    assert "xn--" in lnk("sandbox", "spec", "--spec", "app.toml").stderr


def test_flag_errors_exit_2(lnk):
    cp = lnk("sandbox", "spec", "--wirte", ".")
    assert cp.returncode == 2
    assert cp.stderr == ("lnk: unknown option '--wirte' for 'lnk sandbox "
                         "spec'; did you mean '--write'?\n")
    for args, msg in [
        (["--port", "0"], "--port: '0' is not a port"),
        (["--internet-host", "127.1"], "is not a host name"),
        (["--internet-host", "b\u00fccher.de"], "xn--"),
        (["--read", "/run"], "host daemons through their sockets"),
        (["--read", "/"], "every file on this machine"),
        (["--read", "~/.lnk"], "lnk's settings"),
        (["--write"], "option '--write' needs a DIR"),
        (["--yes"], "unknown option '--yes'"),
        (["--", "ls"], "runs no program"),
        (["ls"], "unexpected argument 'ls'"),
        (["--spec", "missing.toml"], "cannot read spec 'missing.toml'"),
    ]:
        if args == ["--read", "~/.lnk"]:
            (lnk.home / ".lnk").mkdir(exist_ok=True)
        cp = lnk("sandbox", "spec", *args)
        assert cp.returncode == 2, (args, cp.stderr)
        assert msg in cp.stderr, (args, cp.stderr)


def test_spec_help_lists_every_flag(lnk):
    cp = lnk("sandbox", "spec", "--help", check=True)
    perms = json.loads(lnk("sandbox", "permissions", "--json",
                           check=True).stdout)
    for k in perms["keys"]:
        if k["flag"]:
            assert k["flag"] in cp.stdout


def test_permissions_lists_every_section(lnk):
    out = lnk("sandbox", "permissions", check=True).stdout
    for sec in ["files", "internet", "lan", "localhost", "tools", "browser",
                "commands"]:
        assert re.search(rf"^\[{sec}\]$", out, re.M), sec
    for flag in ["--write", "--read", "--hide", "--write-dot-files",
                 "--internet-host", "--lan-host", "--port", "--tool",
                 "--browser-open", "--command", "--env", "--name",
                 "--memory", "--tasks", "--tmp-size", "--trip-refused-calls",
                 "--trip-refused-targets"]:
        assert flag in out, flag
    # The dot files under write_dot_files: the full list of lnk-sandbox(1),
    # FILES THAT RUN OUTSIDE.
    for dot in [".git", ".envrc", ".vscode", ".idea", ".github", ".husky"]:
        assert re.search(rf"^\s+{re.escape(dot)}\s", out, re.M), dot
    assert "xn--" in out


def test_permissions_json(lnk):
    data = json.loads(lnk("sandbox", "permissions", "--json",
                          check=True).stdout)
    assert data["sections"] == ["files", "internet", "lan", "localhost",
                                "tools", "browser", "commands", "limits",
                                "tripwires"]
    by = {(k["section"], k["key"]): k for k in data["keys"]}
    assert by[("files", "write")]["flag"] == "--write"
    assert by[("files", "hide")]["merge"] == "add"
    assert by[("files", "write")]["merge"] == "replace"
    assert by[("localhost", "ports")]["type"] == "array of integers"
    assert by[(None, "version")]["flag"] is None
    assert by[("limits", "memory")]["flag"] == "--memory"
    assert by[("limits", "tasks")]["type"] == "integer"
    assert by[("tripwires", "refused_calls")]["flag"] == \
        "--trip-refused-calls"
    assert not any(k["key"] == "metadata" for k in data["keys"])
    assert any(d["name"] == ".git" for d in data["dot_files"])


def test_permissions_usage(lnk):
    assert lnk("sandbox", "permissions", "--help").returncode == 0
    cp = lnk("sandbox", "permissions", "--jsn")
    assert cp.returncode == 2
    assert "did you mean '--json'?" in cp.stderr


# What the wire says when it refuses a call (src/net/addr.h): the spec
# refuses a grant the wire would refuse, in the same words.
AMBIGUOUS = "ambiguous address literal (write a plain dotted quad)"
METADATA = "cloud metadata address"


def test_spec_refuses_what_the_wire_refuses_in_its_words(lnk, work):
    for section, flag, value, msg in [
        ("internet", "--internet-host", "1.0x7f", AMBIGUOUS),
        ("internet", "--internet-host", "127.1", AMBIGUOUS),
        ("internet", "--internet-host", "100.100.100.200", METADATA),
        ("lan", "--lan-host", "100.100.100.200", METADATA),
        ("lan", "--lan-host", "169.254.169.254:80", METADATA),
        ("lan", "--lan-host", "::ffff:169.254.169.254", METADATA),
        ("lan", "--lan-host", "10.0x1", AMBIGUOUS),
    ]:
        cp = lnk("sandbox", "spec", flag, value)
        assert cp.returncode == 2, (value, cp.stdout, cp.stderr)
        assert msg in cp.stderr, (value, cp.stderr)
        (work / "s.toml").write_text(f'[{section}]\nhosts = ["{value}"]\n')
        cp = lnk("sandbox", "spec", "--spec", "s.toml")
        assert cp.returncode == 2, (value, cp.stdout, cp.stderr)
        assert msg in cp.stderr, (value, cp.stderr)


def test_the_wire_refuses_an_ambiguous_literal_in_the_spec_words(lnk, work):
    """The other half: the words the spec says for 1.0x7f are the reason
    the wire logs when a program asks for it under --internet-host '*'."""
    probe = (
        "import socket\n"
        "s = socket.create_connection(('127.0.0.1', 3128), timeout=15)\n"
        "s.sendall(b'GET http://1.0x7f/ HTTP/1.1\\r\\nHost: 1.0x7f\\r\\n"
        "\\r\\n')\n"
        "print(s.recv(4096).split(b'\\r\\n', 1)[0].decode())\n")
    (work / "probe.py").write_text(probe)
    cp = lnk.run("--read", str(work), "--internet-host", "*", "--",
                 "python3", str(work / "probe.py"), timeout=60,
                 stdin=subprocess.DEVNULL)
    if cp.returncode == 125 and "wire" in cp.stderr:
        pytest.skip(f"no wire here: {cp.stderr.strip()}")
    assert " 403 " in cp.stdout, cp.stdout + cp.stderr
    log = lnk("sandbox", "log", "--json", "--refused", check=True)
    reasons = [json.loads(line)["reason"] for line in log.stdout.splitlines()
               if json.loads(line)["target"].startswith("1.0x7f")]
    assert reasons == [AMBIGUOUS], log.stdout


def test_spec_seatbelt_prints_the_profile(lnk, home, work):
    """--seatbelt prints the macOS profile of the same grants: deny by
    default, the write folder and its kept dot files (one case-folding
    rule), the port; no ioctl on a terminal as printed."""
    r = lnk("sandbox", "spec", "--seatbelt", "--write", str(work),
            "--port", "5432", cwd=work)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "(deny default)" in out
    assert f'(subpath "{work}")' in out
    kept = out.index("(require-any")
    assert f'(subpath "{work}")' in out[kept:]
    assert "[.][gG][iI][tT]|" in out[kept:]
    assert '(remote tcp "localhost:5432")' in out
    assert f'(subpath "{home}/.lnk")' in out
    assert "file-ioctl" not in out


def test_spec_seatbelt_refuses_a_network_grant(lnk, work):
    """No wire runs on macOS: a network grant is refused, not printed as a
    fixed loopback port that something else may own."""
    r = lnk("sandbox", "spec", "--seatbelt", "--internet-host",
            "example.com", cwd=work)
    assert r.returncode == 2, r.stderr
    assert "cannot be enforced on macOS" in r.stderr
    assert "the wire" in r.stderr
    assert r.stdout == ""


def test_spec_seatbelt_refuses_what_macos_cannot_enforce(lnk, work):
    r = lnk("sandbox", "spec", "--seatbelt", "--memory", "1G", cwd=work)
    assert r.returncode == 2
    assert "[limits] memory (--memory) cannot be enforced on macOS" in r.stderr
    assert r.stdout == ""
