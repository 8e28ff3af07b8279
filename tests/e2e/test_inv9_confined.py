"""Invariant 9, processes outside that parse the program's bytes run
confined: the wire (Landlock, no capabilities, no_new_privs, a seccomp
allow-list that kills), its keeper that makes its connects, the guard
that drops every capability, the resolver of a sandbox without network,
and the tools broker whose reader parses the program's calls.

Attacks on it from inside a sandbox, one block a promise: each test
PASSES when the sandbox holds and FAILS when the attack works (more in
attack_helpers.py; a new attack: docs/HACKING.md, "Add an attack test").
"""
# Blocks, one a promise of the invariant:
#   A. The wire's confinement
#   B. The tools broker's socket
#   C. The guard's own power

import os
import socket
import subprocess

import pytest

from attack_helpers import _tool_on_path, py, raw_py, tool_calls


# =============================================================================
# A. The wire's confinement
#    Promise: the wire confines itself: taken over, it reaches nothing.
# =============================================================================


# The wire parses what the program sends, outside the sandbox. A test-hooks
# build (meson -Dtest_hooks=true, LNK_BIN_HOOKS) plays a wire taken over by
# the program: after confining itself it opens ~/.ssh, connects and sends
# to a loopback port of this machine, and runs /bin/sh. Each must fail.
def test_a_taken_over_wire_reaches_nothing(lnk, home):
    """Invariant 9 (processes outside run confined), promise: the wire confines
    itself: taken over, it reaches nothing.

    Threat: the program takes over the wire through a parser bug; the
    wire then reads ~/.ssh, connects or sends to this machine, or runs a
    program (played by a test-hooks build, above)."""
    hooks = os.environ.get("LNK_BIN_HOOKS")
    if not hooks:
        pytest.skip("LNK_BIN_HOOKS is not set: it names an lnk built with "
                    "meson -Dtest_hooks=true, which this test needs")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("secret key\n")
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    srv.settimeout(0.2)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", srv.getsockname()[1]))
    udp.settimeout(0.2)
    port = srv.getsockname()[1]
    try:
        cp = subprocess.run(
            [hooks, "sandbox", "run", "--internet-host", "*", "--", "true"],
            cwd=lnk.cwd, env=lnk.env({"LNK_TEST_WIRE_ATTACK": str(port)}),
            capture_output=True, text=True, timeout=60)
        err = cp.stderr
        acts = dict(line[len("lnk-test-attack: "):].split(": ", 1)
                    for line in err.splitlines()
                    if line.startswith("lnk-test-attack: "))
        # every act was tried, and each was refused
        assert acts.get("open ssh") == "Permission denied", err
        assert acts.get("connect loopback") == "Permission denied", err
        assert acts.get("sendto loopback") == "Permission denied", err
        assert acts.get("exec") == "trying", err  # never "ran"
        assert "refused its connect to 127.0.0.1 (this machine)" in err, err
        # running a program is no call the wire may make: it was killed,
        # and the sandbox has no network (fail closed)
        assert "the wire was killed (signal 31)" in err, err
        with pytest.raises(socket.timeout):
            srv.accept()
        with pytest.raises(socket.timeout):
            udp.recvfrom(16)
    finally:
        srv.close()
        udp.close()


@pytest.mark.parametrize("where", ["lan", "router"])
def test_a_taken_over_wire_reaches_not_this_machines_network(lnk, where):
    """Invariant 9 (processes outside run confined), promise: the wire confines
    itself: taken over, it reaches nothing a sandbox without a [lan] grant
    may not.

    Threat: the program takes over the wire of a sandbox under
    --internet-host '*' (no [lan] grant), which then connects itself, or
    asks its keeper on the channel without the first-hop flag, to this
    machine's network: the router's address on the LAN, or the router's
    public address whose port forward leads back to this machine (played
    by a test-hooks build: LNK_TEST_WIRE_ATTACK_NET)."""
    hooks = os.environ.get("LNK_BIN_HOOKS")
    if not hooks:
        pytest.skip("LNK_BIN_HOOKS is not set: it names an lnk built with "
                    "meson -Dtest_hooks=true, which this test needs")
    from attack_helpers import nethosts
    f = nethosts()
    if where == "router" and "ROUTER_FWD_PORT" not in f:
        pytest.skip("no port forward on the test router (nft missing)")
    target = (f"{f['ROUTER_IP']}:80" if where == "lan" else
              f"{f['ROUTER_WAN_IP']}:{f['ROUTER_FWD_PORT']}")
    cp = subprocess.run(
        [hooks, "sandbox", "run", "--internet-host", "*", "--", "true"],
        cwd=lnk.cwd, env=lnk.env({"LNK_TEST_WIRE_ATTACK_NET": target}),
        capture_output=True, text=True, timeout=60)
    err = cp.stderr
    acts = dict(line[len("lnk-test-attack: "):].split(": ", 1)
                for line in err.splitlines()
                if line.startswith("lnk-test-attack: "))
    assert acts.get("connect net") == "Permission denied", err
    assert acts.get("ask net") in ("failed", "first hop"), err


def _parent(pid):
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def _descendants(pid):
    """pid's descendants, each (pid, comm), read from /proc."""
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                kids.setdefault(_parent(int(d)), []).append(int(d))
            except (OSError, ValueError):
                pass
    out, todo = [], [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            try:
                with open(f"/proc/{c}/comm") as f:
                    out.append((c, f.read().strip()))
            except OSError:
                continue
            todo.append(c)
    return out


def _status(pid):
    with open(f"/proc/{pid}/status") as f:
        return dict(l.rstrip("\n").split(":\t", 1) for l in f
                    if ":\t" in l)


def test_a_resolver_without_network_reads_lookups_inside(lnk, work):
    """Invariant 9 (processes outside run confined), promise: the resolver
    of a sandbox without a network grant, which parses the program's
    lookups, reads them inside the sandbox, with the sandbox's layers.

    Threat: a lookup built to break its parser (one UDP, one TCP) runs
    code; it must then be where the program already is: no process of
    lnk's outside reads it, and the resolver holds no capability, no way
    to gain one, a seccomp filter, and the sandbox's pid namespace."""
    prog = ("import socket, time\n"
            "for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):\n"
            "    try:\n"
            "        socket.getaddrinfo('x.example.test', 80, type=kind)\n"
            "    except OSError:\n"
            "        pass\n"
            "s = socket.create_connection(('127.0.0.1', 53), timeout=5)\n"
            "s.sendall(b'\\0\\x0c' + bytes(12))\n"
            "print('looked', flush=True)\n"
            "time.sleep(30)\n")
    p = subprocess.Popen(
        [lnk.bin, "sandbox", "run", "--write", str(work), "--", "python3",
         "-c", prog],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=lnk.env(), cwd=str(work), stdin=subprocess.DEVNULL)
    try:
        assert p.stdout.readline().strip() == "looked", p.stderr.read()
        tree = _descendants(p.pid)
        res = [c for c, comm in tree if comm == "lnk-nonet-dns"]
        assert len(res) == 1, tree
        # inside: lnk-init's child, in the sandbox's pid namespace
        par = _parent(res[0])
        assert open(f"/proc/{par}/comm").read().strip() == "init", tree
        assert os.readlink(f"/proc/{res[0]}/ns/pid") != \
            os.readlink(f"/proc/{p.pid}/ns/pid")
        # no child of lnk's outside but bwrap
        outside = [comm for c, comm in tree if _parent(c) == p.pid]
        assert outside == ["bwrap"], tree
        st = _status(res[0])
        assert st["NoNewPrivs"] == "1", st
        assert st["Seccomp"] == "2", st
        for k in ("CapEff", "CapPrm", "CapAmb"):
            assert int(st[k], 16) == 0, (k, st)
        # it answered both: the names were said, once
        p.kill()
        p.wait()
        err = p.stderr.read()
        assert err.count("refused x.example.test") == 1, err
    finally:
        p.kill()
        p.wait()


# =============================================================================
# B. The tools broker's socket
#    Promise: the tools broker reads hostile calls without harm: it runs only a
#    granted tool, with three plain descriptors, and keeps serving.
# =============================================================================

# A granted tool runs outside, as the user; the program talks to its broker
# over /run/lnk/tools.sock. These attacks speak that socket by hand, as a
# hostile program would, and check outside that no tool ran unless allowed.


def test_tool_call_with_extra_descriptors_is_refused(lnk, outside_tool):
    """Invariant 9 (processes outside run confined), promise: the tools broker
    reads hostile calls without harm: it runs only a granted tool, with three
    plain descriptors, and keeps serving.

    Threat: a call hands the tool a fourth descriptor (a socket or file
    of the program's) for the tool to use outside."""
    cp = raw_py(lnk, """
        r = call("mytool", "/", ["x"], fds=(0, 1, 2, 0))
        print(r[:1].decode(), r[1:].decode())
    """, "--tool", "mytool *")
    assert cp.stdout.startswith("R "), (cp.stdout, cp.stderr)
    assert "more than three descriptors" in cp.stdout
    assert tool_calls(outside_tool) == []


@pytest.mark.parametrize("raw,why", [
    ("b'hello'", "not a tool call"),
    ("b'LNKC' + struct.pack('<II', 9, 3) + b'mytool\\0/\\0x\\0'", "version"),
    ("b'LNKC' + struct.pack('<II', 1, 3) + b'mytool\\0/\\0x'", "cut short"),
    ("b'LNKC' + struct.pack('<II', 1, 99999) + b'mytool\\0/\\0' * 3",
     "more than 4096"),
    ("b'LNKC' + struct.pack('<II', 1, 2) + b'mytool\\0/\\0junk'", "after"),
])
def test_tool_call_garbage_is_refused_and_the_broker_lives(
        lnk, outside_tool, raw, why):
    """Invariant 9 (processes outside run confined), promise: the tools broker
    reads hostile calls without harm: it runs only a granted tool, with three
    plain descriptors, and keeps serving.

    Threat: hostile bytes on the broker's socket crash it or run
    something; the next honest call must still work."""
    cp = raw_py(lnk, f"""
        r = call("", "", [], raw={raw})
        print(r[:1].decode(), r[1:].decode())
        print(call("mytool", "/", ["honest"])[:1].decode())
    """, "--tool", "mytool *")
    lines = cp.stdout.splitlines()
    assert lines[0].startswith("R ") and why in lines[0], (cp.stdout,
                                                          cp.stderr)
    assert lines[-1] == "X", cp.stdout
    assert tool_calls(outside_tool) == ["args:honest"]


@pytest.mark.parametrize("name", ["../../../bin/sh", "/bin/sh", "sh",
                                  "mytool/../sh", ""])
def test_tool_call_cannot_name_another_program(lnk, outside_tool, name):
    """Invariant 9 (processes outside run confined), promise: the tools broker
    reads hostile calls without harm: it runs only a granted tool, with three
    plain descriptors, and keeps serving.

    Threat: the call names a program by path, or a tool not granted,
    for the broker to run outside."""
    cp = raw_py(lnk, f"""
        r = call({name!r}, "/", ["-c", "echo pwned > {outside_tool}/pwned"])
        print(r[:1].decode(), r[1:].decode())
    """, "--tool", "mytool *")
    assert cp.stdout.startswith("R "), (cp.stdout, cp.stderr)
    assert not (outside_tool / "pwned").exists()
    assert tool_calls(outside_tool) == []


def test_tool_call_with_a_folder_as_stdin_is_refused(lnk, work,
                                                     outside_tool):
    """Invariant 9 (processes outside run confined), promise: the tools broker
    reads hostile calls without harm: it runs only a granted tool, with three
    plain descriptors, and keeps serving.

    Threat: a descriptor of a folder handed to a tool that acts on its
    stdin outside."""
    cp = raw_py(lnk, f"""
        d = os.open({str(work)!r}, os.O_RDONLY | os.O_DIRECTORY)
        r = call("mytool", "/", ["x"], fds=(d, 1, 2))
        print(r[:1].decode(), r[1:].decode())
    """, "--write", work, "--tool", "mytool *")
    assert cp.stdout.startswith("R ") and "folder" in cp.stdout, cp.stdout
    assert tool_calls(outside_tool) == []


def test_tool_call_with_an_o_path_descriptor_is_refused(lnk, work,
                                                        tmp_path):
    """Invariant 9 (processes outside run confined), promise: the tools broker
    reads hostile calls without harm: it runs only a granted tool, with three
    plain descriptors, and keeps serving.

    Threat: an O_PATH handle (to a file the program may not open, or
    to a folder) handed to a tool as stdin, for the tool to open anew
    outside through /proc/self/fd with the user's rights."""
    marker = tmp_path / "ran"
    _tool_on_path(lnk, tmp_path, f"#!/bin/sh\ntouch {marker}\n")
    cp = raw_py(lnk, f"""
        for p in ("/etc/passwd", {str(work)!r}):
            fd = os.open(p, os.O_PATH)
            r = call("mytool", "/", [], fds=(fd, 1, 2))
            print(r[:1].decode(), r[1:].decode())
    """, "--write", work, "--tool", "mytool *")
    lines = cp.stdout.splitlines()
    assert len(lines) == 2 and all(x.startswith("R ") for x in lines), \
        (cp.stdout, cp.stderr)
    assert not marker.exists()


def test_many_tool_calls_at_once_are_refused_and_end_cleanly(
        lnk, outside_tool):
    """Invariant 9 (processes outside run confined), promise: the tools broker
    reads hostile calls without harm: it runs only a granted tool, with three
    plain descriptors, and keeps serving.

    Threat: connections held open without a call starve the broker or
    exhaust it; the surplus is refused, and once they go, calls work."""
    cp = raw_py(lnk, """
        held, refused = [], 0
        for _ in range(40):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.connect("/run/lnk/tools.sock")
            held.append(s)
        for s in held[32:]:
            r = s.recv(4096)
            refused += r.startswith(b"R") and b"too many" in r
        for s in held:
            s.close()
        import time
        for _ in range(100):
            r = call("mytool", "/", ["after"])
            if r[:1] == b"X":
                break
            time.sleep(0.05)
        print(refused, r[:1].decode())
    """, "--tool", "mytool *")
    assert cp.stdout.splitlines()[-1] == "8 X", (cp.stdout, cp.stderr)
    assert tool_calls(outside_tool) == ["args:after"]


@pytest.mark.parametrize("pipe", ["closed", "full"])
def test_tool_stderr_pipe_cannot_stop_the_broker(lnk, work, tmp_path,
                                                 pipe):
    """Invariant 9 (processes outside run confined), promise: the tools broker
    reads hostile calls without harm: it runs only a granted tool, with three
    plain descriptors, and keeps serving.

    Threat: the broker writes a note ("runs in ...") to the call's
    stderr itself. Given a pipe whose reader is gone, the write's SIGPIPE
    killed the broker: tools then outlived the sandbox and no call was
    served. Given a full pipe nobody reads, the write blocked the broker
    for good: no call served, no tool ended, and lnk waits on it."""
    _tool_on_path(lnk, tmp_path, "#!/bin/sh\necho \"ran $*\"\n")
    cp = raw_py(lnk, f"""
        r, w = os.pipe()
        if {pipe!r} == "closed":
            os.close(r)
        else:
            os.set_blocking(w, False)
            try:
                while True:
                    os.write(w, b"x" * 4096)
            except BlockingIOError:
                pass
            os.set_blocking(w, True)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.connect("/run/lnk/tools.sock")
        msg = (b"LNKC" + struct.pack("<II", 1, 3) + b"mytool\\0/\\0first\\0")
        s.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                           array.array("i", [0, 1, w]))])
        import signal
        signal.alarm(20)
        print("second", call("mytool", os.getcwd(), ["second"])[:1])
        print("done")
        os._exit(0)
    """, "--write", work, "--tool", "mytool *")
    assert "second b'X'" in cp.stdout, (cp.stdout, cp.stderr)
    assert "ran second" in cp.stdout, (cp.stdout, cp.stderr)


# =============================================================================
# C. The guard's own power
#    Promise: the guard, which performs calls for the program, lends it none of
#    its power.
# =============================================================================


BIND_LOW = {
    # sockaddr_in6 without sin6_scope_id: the kernel takes 24 bytes
    "in6-24": "fam, size = socket.AF_INET6, 24",
    "in6-28": "fam, size = socket.AF_INET6, 28",
    # inet_bind takes AF_UNSPEC as AF_INET when the address is 0.0.0.0
    "in4-unspec": "fam, size = socket.AF_INET, 16; fld = 0",
    "in4-16": "fam, size = socket.AF_INET, 16",
    # a family field that says AF_UNIX on an inet socket
    "in6-unix-field": "fam, size = socket.AF_INET6, 28; fld = 1",
}


@pytest.mark.parametrize("form", sorted(BIND_LOW))
def test_bind_low_port_refused_in_every_address_form(lnk, work, form):
    """Invariant 9 (processes outside run confined), promise: the guard, which
    performs calls for the program, lends it none of its power.

    Threat: the guard binds with CAP_NET_BIND_SERVICE in the sandbox's
    network namespace; an address form its port check does not read (24
    bytes of AF_INET6, AF_UNSPEC) binds port 80 through it."""
    cp = py(lnk, f"""
        import ctypes, socket, struct
        libc = ctypes.CDLL(None, use_errno=True)
        fld = None
        {BIND_LOW[form]}
        s = socket.socket(fam, socket.SOCK_STREAM)
        fld = fam if fld is None else fld
        b = struct.pack("=H", fld) + struct.pack("!H", 80)
        if fam == socket.AF_INET6:
            b += b"\\0" * 4 + socket.inet_pton(socket.AF_INET6, "::1")
        else:
            b += socket.inet_aton("0.0.0.0")
        b = (b + b"\\0" * 32)[:size]
        r = libc.bind(s.fileno(), ctypes.c_char_p(b), size)
        e = ctypes.get_errno()
        print("BOUND" if r == 0 else "refused %d" % e, s.getsockname())
    """, "--write", work)
    assert "refused" in cp.stdout, cp.stdout + cp.stderr
    assert "BOUND" not in cp.stdout, cp.stdout


def test_bind_unix_address_longer_than_sockaddr_un(lnk, work):
    """Invariant 9 (processes outside run confined), promise: the guard, which
    performs calls for the program, lends it none of its power.

    Threat: an AF_UNIX address of 111 to 128 bytes (sockaddr_storage)
    copied into the guard's 109-byte path buffer: a write past it in the
    supervisor. The kernel refuses such a length (EINVAL); so must the
    guard, and the sandbox keeps working."""
    cp = py(lnk, """
        import ctypes, os, socket
        libc = ctypes.CDLL(None, use_errno=True)
        for size in (110, 111, 120, 128):
            s = socket.socket(socket.AF_UNIX)
            b = (b"\\x01\\x00" + b"A" * 200)[:size]
            r = libc.bind(s.fileno(), ctypes.c_char_p(b), size)
            print(size, "bound" if r == 0 else ctypes.get_errno())
        open("after", "w").close(); print("after", os.path.exists("after"))
    """, "--write", work)
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert "111 22" in cp.stdout and "128 22" in cp.stdout, cp.stdout
    assert "after True" in cp.stdout, cp.stdout


def test_bind_other_socket_families_not_performed(lnk, work):
    """Invariant 9 (processes outside run confined), promise: the guard, which
    performs calls for the program, lends it none of its power.

    Threat: the guard binds a netlink socket to multicast groups that
    need CAP_NET_ADMIN, which it holds over the sandbox's namespaces."""
    cp = py(lnk, """
        import socket
        for proto, groups in ((0, 1 << 29), (16, 1), (6, 1)):
            try:
                s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
            except OSError as e:
                print("nosock", proto, e.errno); continue
            try:
                s.bind((0, groups)); print("BOUND", proto)
            except OSError as e:
                print("refused", proto, e.errno)
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
        s.bind((0, 1)); print("route link group", s.getsockname())
    """, "--write", work)
    assert "BOUND" not in cp.stdout, cp.stdout + cp.stderr
    assert "route link group" in cp.stdout, cp.stdout + cp.stderr
