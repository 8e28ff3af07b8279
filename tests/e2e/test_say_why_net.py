"""What lnk says on the terminal when the network is refused.

A program that tries the network without a grant, or is refused by the
wire, gets one `lnk:` line on lnk's stderr per refused host, naming the
flag that allows it, at once and bounded; a lookup without a grant fails
at once; `pause` of a sandbox without network and a `stop` that stays in
force say so; the sandbox's own name and localhost resolve inside, so no
lookup of them reaches the wire's log. Nothing here reaches a real host:
every refused name is refused before it is looked up."""
import json
import os
import socket
import subprocess
import time

import pytest

GAI = """
import socket, sys
for h in sys.argv[1:]:
    try:
        socket.getaddrinfo(h, 443)
        print("resolved", h)
    except OSError as e:
        print("failed", h, e)
"""


def lnk_lines(stderr):
    return [l for l in stderr.splitlines() if l.startswith("lnk:")]


def log_rows(lnk, *args):
    cp = lnk("sandbox", "log", "--json", "--lines", "1000", *args,
             check=True)
    return [json.loads(line) for line in cp.stdout.splitlines()]


# ---- no network grant ----

def test_lookup_without_grant_fails_at_once_and_lnk_says_why(lnk, work):
    """The 71-second hang: the lookup fails at once (a bound far below
    any resolver timeout), and lnk names the flag on its own stderr."""
    cp = lnk.run("--write", str(work), "--", "python3", "-c", GAI,
                 "registry.npmjs.org", timeout=10,
                 stdin=subprocess.DEVNULL)
    assert cp.returncode == 0, cp.stderr
    assert "failed registry.npmjs.org" in cp.stdout, cp.stdout
    said = [l for l in lnk_lines(cp.stderr) if "--internet-host" in l]
    assert len(said) == 1, cp.stderr
    assert "no network" in said[0], said


def test_the_resolver_is_started_at_the_first_lookup(lnk, work):
    """A run that looks no name up has no resolver (it costs the start
    nothing); the first lookup starts it, and that lookup is answered."""
    prog = ("import glob, socket\n"
            "def resolvers():\n"
            "    n = 0\n"
            "    for c in glob.glob('/proc/[0-9]*/comm'):\n"
            "        try:\n"
            "            n += open(c).read().strip() == 'lnk-nonet-dns'\n"
            "        except OSError:\n"
            "            pass\n"
            "    return n\n"
            "print('before', resolvers())\n"
            "try:\n"
            "    socket.getaddrinfo('first.example.test', 80)\n"
            "except OSError as e:\n"
            "    print('failed', e.errno)\n"
            "print('after', resolvers())\n")
    cp = lnk.run("--write", str(work), "--", "python3", "-c", prog,
                 timeout=10, stdin=subprocess.DEVNULL)
    assert cp.returncode == 0, cp.stderr
    assert "before 0" in cp.stdout, cp.stdout
    assert f"failed {socket.EAI_NONAME}" in cp.stdout, cp.stdout
    assert "after 1" in cp.stdout, cp.stdout
    said = [l for l in lnk_lines(cp.stderr) if "first.example.test" in l]
    assert len(said) == 1, cp.stderr


def test_curl_without_grant_names_the_flag(lnk, work):
    cp = lnk.run("--write", str(work), "--", "sh", "-c",
                 "curl -sS --max-time 5 https://example.com/; "
                 "curl -sS --max-time 5 https://example.org/; echo rc=$?",
                 timeout=10, stdin=subprocess.DEVNULL)
    assert "rc=6" in cp.stdout, cp.stdout + cp.stderr
    said = [l for l in lnk_lines(cp.stderr) if "--internet-host" in l]
    # one line a host, however many lookups curl made of it
    assert len(said) == 2, cp.stderr
    assert "--internet-host example.com " in said[0], said
    assert "--internet-host example.org " in said[1], said


def test_many_names_without_grant_give_bounded_lines(lnk, work):
    names = [f"n{i}.nope.example" for i in range(12)]
    cp = lnk.run("--write", str(work), "--", "python3", "-c", GAI,
                 *(names + names), timeout=20, stdin=subprocess.DEVNULL)
    assert cp.stdout.count("failed") == 24, cp.stdout
    lines = lnk_lines(cp.stderr)
    named = [l for l in lines if ".nope.example" in l]
    assert 1 <= len(named) <= 8 and len(set(named)) == len(named), \
        cp.stderr
    more = [l for l in lines if "more hosts" in l]
    # without a wire no log holds them: the line does not send one there
    assert len(more) == 1 and "log" not in more[0], cp.stderr


CONNECT = """
import socket, sys
for a in sys.argv[1:]:
    try:
        socket.create_connection((a, 443), timeout=5)
        print("connected", a)
    except OSError as e:
        print("failed", a, e.errno)
"""


def test_connect_to_an_address_without_grant_names_the_flag(lnk, work):
    """No lookup to name: the guard, which makes the program's connects,
    names the address (TEST-NET, never reached: there is no route)."""
    cp = lnk.run("--write", str(work), "--", "python3", "-c", CONNECT,
                 "192.0.2.7", "192.0.2.7", "10.1.2.3", timeout=20,
                 stdin=subprocess.DEVNULL)
    assert cp.stdout.count("failed") == 3, cp.stdout + cp.stderr
    said = [l for l in lnk_lines(cp.stderr) if "no network grant" in l]
    assert len(said) == 2, cp.stderr
    assert "--internet-host 192.0.2.7 allows" in said[0], said
    assert "--lan-host 10.1.2.3 allows" in said[1], said


# ---- refused by the wire ----

def test_refused_host_names_the_flag_at_once(lnk, work, tmp_path):
    """Said while the program runs, not at its exit: the program waits
    for lnk's line to reach the file lnk's stderr writes."""
    err = tmp_path / "stderr"
    script = (f"curl -s -o /dev/null -w '%{{http_code}}\\n' "
              f"http://nope.example/; "
              f"i=0; while [ $i -lt 100 ] && ! grep -q nope.example "
              f"{err}; do sleep 0.1; i=$((i+1)); done; echo waited=$i")
    with open(err, "w") as f:
        cp = subprocess.run(
            [lnk.bin, "sandbox", "run", "--read", str(tmp_path),
             "--internet-host", "allowed.example", "--", "sh", "-c",
             script], stdout=subprocess.PIPE, stderr=f, text=True,
            env=lnk.env(), cwd=str(work), timeout=30,
            stdin=subprocess.DEVNULL)
    out, stderr = cp.stdout, err.read_text()
    assert "403" in out, out + stderr
    assert "waited=100" not in out, out + stderr
    said = [l for l in lnk_lines(stderr) if "nope.example" in l]
    assert len(said) == 1, stderr
    assert "--internet-host nope.example" in said[0], said


def test_refused_lookup_names_the_flag(lnk, work):
    cp = lnk.run("--internet-host", "allowed.example", "--", "python3",
                 "-c", GAI, "nope.example", "nope.example", timeout=20,
                 stdin=subprocess.DEVNULL)
    assert "failed nope.example" in cp.stdout, cp.stdout + cp.stderr
    said = [l for l in lnk_lines(cp.stderr) if "nope.example" in l]
    assert len(said) == 1, cp.stderr
    assert "--internet-host nope.example" in said[0], said


def test_refused_port_names_port_flag(lnk, work):
    cp = lnk.run("--internet-host", "allowed.example", "--", "sh", "-c",
                 "curl -s -o /dev/null -w '%{http_code}\\n' "
                 "--noproxy '' --proxy \"$HTTP_PROXY\" "
                 "http://127.0.0.1:9/", timeout=20,
                 stdin=subprocess.DEVNULL)
    said = [l for l in lnk_lines(cp.stderr) if "127.0.0.1" in l]
    assert len(said) == 1, cp.stdout + cp.stderr
    assert "--port 9" in said[0], said


def test_many_refused_hosts_give_bounded_lines(lnk, work):
    hosts = [f"h{i}.nope.example" for i in range(12)]
    script = "; ".join(
        f"curl -s -o /dev/null http://{h}/" for h in hosts + hosts)
    cp = lnk.run("--internet-host", "allowed.example", "--", "sh", "-c",
                 script, timeout=60, stdin=subprocess.DEVNULL)
    lines = lnk_lines(cp.stderr)
    named = [l for l in lines if ".nope.example" in l]
    assert 1 <= len(named) <= 8, cp.stderr
    assert len(set(named)) == len(named), cp.stderr
    more = [l for l in lines if "lnk sandbox log --refused" in l
            and ".nope.example" not in l]
    assert len(more) == 1, cp.stderr


def test_refused_host_name_is_escaped(lnk, work):
    """A host is the program's choice: what reaches the terminal is
    escaped (a name the wire refuses for its form is not a host)."""
    cp = lnk.run("--internet-host", "allowed.example", "--", "python3",
                 "-c", GAI, "evil\x1b]0;x\x07.example", timeout=20,
                 stdin=subprocess.DEVNULL)
    assert "\x1b" not in cp.stderr and "\x07" not in cp.stderr, \
        repr(cp.stderr)


# ---- pause and stop ----

def _run_bg(lnk, work, name, *grants):
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--name", name, *grants, "--", "sh",
         "-c", "echo ready; exec sleep 60"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=lnk.env(), cwd=str(work), stdin=subprocess.DEVNULL)
    assert p.stdout.readline().strip() == "ready", p.stderr.read()
    return p


def test_pause_without_network_says_so(lnk, work):
    p = _run_bg(lnk, work, "nonet", "--write", str(work))
    try:
        for verb in ("pause", "resume"):
            cp = lnk("sandbox", verb, "nonet")
            assert cp.returncode == 0, cp.stdout + cp.stderr
            assert "no network" in cp.stdout + cp.stderr, cp
            assert "socket" not in (cp.stdout + cp.stderr).lower(), cp
            if verb == "pause":
                # its tools and pages are what pause closes then
                assert "tools and pages are closed" in cp.stdout, cp.stdout
                assert "lnk sandbox resume nonet" in cp.stdout, cp.stdout
    finally:
        p.kill()
        p.wait()


def test_stop_says_it_stays_and_new_sandbox_says_so(lnk, work):
    cp = lnk("sandbox", "stop", "--help", check=True)
    assert "stop --off" in cp.stdout, cp.stdout
    try:
        cp = lnk("sandbox", "stop", check=True, timeout=30)
        assert "stays in force" in cp.stdout, cp.stdout
        assert "lnk sandbox stop --off" in cp.stdout, cp.stdout
        cp = lnk.run("--internet-host", "allowed.example", "--", "true",
                     timeout=20, stdin=subprocess.DEVNULL)
        said = [l for l in lnk_lines(cp.stderr) if "sandbox stop" in l]
        assert len(said) == 1, cp.stderr
        assert "lnk sandbox stop --off" in said[0], said
        # a call of a job started later: refused, and said why
        cp = lnk.run("--internet-host", "allowed.example", "--", "sh",
                     "-c", "curl -s -o /dev/null -w '%{http_code}\\n' "
                     "http://allowed.example/", timeout=20,
                     stdin=subprocess.DEVNULL)
        assert "403" in cp.stdout, cp.stdout + cp.stderr
        said = [l for l in lnk_lines(cp.stderr)
                if l.startswith("lnk: refused allowed.example")]
        assert len(said) == 1 and "stop --off' lifts it" in said[0], \
            cp.stderr
    finally:
        lnk("sandbox", "stop", "--off")
    cp = lnk.run("--internet-host", "allowed.example", "--", "true",
                 timeout=20, stdin=subprocess.DEVNULL)
    assert "sandbox stop" not in cp.stderr, cp.stderr


# ---- the sandbox's own name ----

def test_own_name_resolves_inside_without_a_lookup(lnk, work):
    cp = lnk.run("--name", "ownname", "--internet-host", "allowed.example",
                 "--", "sh", "-c",
                 "python3 -c 'import socket;print(socket.getfqdn())'; "
                 "getent hosts ownname; getent hosts localhost; "
                 "git var GIT_COMMITTER_IDENT >/dev/null 2>&1; true",
                 timeout=30, stdin=subprocess.DEVNULL)
    assert cp.returncode == 0, cp.stderr
    assert "ownname" in cp.stdout, cp.stdout
    lines = cp.stdout.splitlines()
    assert any(l.split()[-1:] == ["ownname"] and
               (l.startswith("127.") or l.startswith("::1"))
               for l in lines), cp.stdout
    assert any("localhost" in l and (l.startswith("127.") or
                                     l.startswith("::1")) for l in lines)
    rows = [r for r in log_rows(lnk, "--sandbox", "ownname")
            if r.get("verb") == "dns"]
    assert rows == [], rows


# ---- on a terminal ----

@pytest.mark.parametrize("grants", [["--internet-host", "allowed.example"],
                                    []], ids=["wire", "no-grant"])
def test_lines_on_a_raw_terminal_start_at_the_left(lnk, work, grants):
    """While lnk relays the program's pty its terminal is raw: a line
    that ends in a bare newline would stair-step across the screen."""
    from test_terminal import read_until, spawn_on_pty, wait_status
    pid, fd = spawn_on_pty(lnk, ["--write", str(work), *grants, "--",
                                 "/bin/bash", "--norc", "--noprofile",
                                 "-i"], cols=200)
    try:
        os.write(fd, b"curl -s -o /dev/null http://nope1.example/; "
                     b"echo d''one\n")
        out = read_until(fd, b"done\r\n")
        os.write(fd, b"exit\n")
        out += read_until(fd, b"never", timeout=3)
    finally:
        status = wait_status(pid)
        os.close(fd)
    assert status == 0, out
    assert b"lnk: refused nope1.example" in out, out
    line_end = b"hosts)\r\n"
    assert line_end in out and b"hosts)\n" not in out.replace(line_end,
                                                             b""), out
