"""lnk sandbox ready: one line per check, each from a real probe, and exit
0 only when run works (lnk-sandbox(1), COMMANDS,
ready)."""
import json

CHECKS = ("bubblewrap", "user namespaces", "lnk-init", "landlock",
          "seccomp", "seccomp notify", "limits")


def test_ready_agrees_with_run(lnk):
    cp = lnk("sandbox", "ready")
    lines = cp.stdout.strip().splitlines()
    assert len(lines) == len(CHECKS) + 1, cp.stdout
    for line in lines[:-1]:
        assert line.split()[0] in ("ok", "warn", "FAIL"), line
    run = lnk.run("--", "/bin/true")
    # ready says yes exactly when a bare run works here.
    assert (cp.returncode == 0) == (run.returncode == 0), (cp.stdout,
                                                           run.stderr)
    if cp.returncode == 0:
        assert lines[-1] == "the sandbox can run here"
        assert lines[0].startswith("ok    bubblewrap ")


def test_ready_json(lnk):
    cp = lnk("sandbox", "ready", "--json")
    doc = json.loads(cp.stdout)
    assert [c["check"] for c in doc["checks"]] == list(CHECKS)
    assert doc["ready"] == (cp.returncode == 0)
    for c in doc["checks"]:
        assert c["verdict"] in ("ok", "warn", "fail") and c["detail"]


def test_ready_help_and_usage(lnk):
    cp = lnk("sandbox", "ready", "--help")
    assert cp.returncode == 0 and "usage: lnk sandbox ready" in cp.stdout
    cp = lnk("sandbox", "ready", "--jsno")
    assert cp.returncode == 2 and "--json" in cp.stderr


def test_run_help_lists_grants_and_run_flags(lnk):
    cp = lnk.run("--help")
    assert cp.returncode == 0
    for flag in ("--write", "--read", "--hide", "--spec", "--yes", "--env",
                 "--name"):
        assert flag in cp.stdout, flag


def test_run_without_program_is_usage(lnk):
    cp = lnk.run("--write", ".")
    assert cp.returncode == 2
    assert "program" in cp.stderr
