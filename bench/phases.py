#!/usr/bin/env python3
"""Where the start time of `lnk sandbox run` goes, phase by phase.

    bench/phases.py [--runs N] [--user NAME] [-- GRANTS...]

Copies the working tree to a temporary folder, puts a mark at each phase
of lnk, lnk-init and the program (a clock_gettime and the process's minor
page faults, written to stderr; the copy only, never the tree), builds it,
and runs `lnk sandbox run --write . GRANTS -- ./prog` N times (default 40),
where prog is a static program that marks its own start. Prints the
median time of each mark from the fork of lnk, in ms, with the page faults
of the process that made it. Figures, never pass/fail; a mark whose place
is no longer found in the source is named and left out.

As root by default; --user NAME runs the starts as that user (the build
stays root's, in a folder everyone may read). The marks cost about 10 us
each; compare runs of this script with each other, not with start.sh.
"""
import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

MARK_H = r"""#pragma once
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
static inline void tmark(const char *l)
{
	struct timespec ts;
	struct rusage ru;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	getrusage(RUSAGE_SELF, &ru);
	char b[128];
	int n = snprintf(b, sizeof b, "TM %s %lld %ld\n", l,
			 (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec,
			 ru.ru_minflt);
	(void)!write(2, b, (size_t)n);
}
"""

# (file, text the mark goes before, name); in the order of a start
MARKS = [
    ("src/cli/main.c", "\tif (argc < 2) {", "main"),
    ("src/cli/main.c", "\t\tif (paths_home(&home, &err) < 0 ||",
     "~/.lnk checks"),
    ("src/cli/main.c", "\treturn c->fn(argc, argv, &cx);", "command"),
    ("src/cli/cmd_run.c", "\tr = grants_build_policy(", "policy"),
    ("src/cli/cmd_run.c", "\tr = trust_check(", "trust check"),
    ("src/launch/run.c", "\tif (grantcheck_inside_sandbox())",
     "sandbox_run"),
    ("src/launch/run.c", "\tif ((rc = hidden_check(", "hidden check"),
    ("src/launch/run.c", "\tlimits_find(&r->lw);", "cgroup"),
    ("src/launch/part_registry.c", "\tj->deferred = !j->may_move",
     "registry plan"),
    ("src/launch/run.c", "\t_cleanup_free_ char *vcache", "host"),
    ("src/launch/host.c", "\tgather_proc_masks(h);", "host: /proc"),
    ("src/launch/host.c", "\tfor (const char *const *e = bwrap_etc_list",
     "host: /etc"),
    ("src/launch/host.c", "\tstruct account a;", "host: account"),
    ("src/launch/run.c", "\tlimits_defaults(&r->lim);", "limits"),
    ("src/launch/part_guard.c", "\tint rc = guard_protect(&pro",
     "guard plan"),
    ("src/launch/part_devnodes.c", "\tint rc = devnodes_make(",
     "device nodes"),
    ("src/launch/part_bwrap.c", "\tint rc = plan_build(&pin", "bwrap plan"),
    ("src/launch/run.c", "\tint rc = initcfg_encode(", "init config"),
    ("src/launch/part_wire.c", "\treturn give_ends(r, wire_start(", "wire fork"),
    ("src/launch/run.c", "\tstruct spawn_req sreq", "spawn"),
    ("src/launch/spawn.c", "\tfflush(NULL);\n\tstruct child_args",
     "bwrap fork"),
    ("src/launch/part_registry.c", "\tj->r = registry_enter(",
     "registration"),
    ("src/launch/run.c", "\tif (r->elsewhere)", "registered"),
    ("src/launch/spawn.c", "\tres->held = go == 'n';", "go-ahead sent"),
    ("src/init/main.c", "\t/* First: no signal from lnk may",
     "lnk-init main"),
    ("src/init/main.c", "\thand_off_listeners(&cfg, dns);", "init: config read"),
    ("src/init/main.c", "\tabi = apply_landlock(&cfg);", "init: landlock"),
    ("src/init/main.c", "\tint guard = apply_seccomp(&cfg);",
     "init: seccomp"),
    ("src/init/main.c", "\tif (reaper_close_fds(keep,",
     "init: fds"),
    ("src/init/main.c", "\tif ((r = reaper_lifeline_wait",
     "init: go-ahead wait"),
    ("src/init/main.c", "\tif (pid == 0)\n\t\trun_program",
     "init: forked"),
    ("src/init/exec.c", "\texecve(c->argv", "program exec"),
    ("src/launch/run.c", "\tparts_end(arg, false);", "sandbox ended"),
    ("src/launch/part_registry.c", "\tif (r->home) {\n\t\tstruct registry",
     "registry leave"),
    ("src/launch/part_guard.c", "\tr->logq = NULL;\n}", "threads joined"),
    ("src/launch/sandbox.c", "\tparts_end(&r, true);", "run loop ended"),
    ("src/launch/run.c", "\t*status = res->status;\n\trun_free(r);",
     "bwrap exited"),
]

PROG = r"""#include "common/tmark.h"
int main(void) { tmark("program main"); return 0; }
"""

LAUNCH = r"""#include "common/tmark.h"
#include <sys/wait.h>
int main(int c, char **v)
{
	(void)c;
	tmark("fork of lnk");
	pid_t p = fork();
	if (p == 0) {
		execv(v[1], v + 1);
		_exit(127);
	}
	int st;
	waitpid(p, &st, 0);
	tmark("lnk exited");
	return 0;
}
"""


def instrument(src):
    (src / "src/common/tmark.h").write_text(MARK_H)
    inc = '#include "common/tmark.h"\n'
    texts = {}
    for f, anchor, name in MARKS:
        p = src / f
        s = texts.get(f) or p.read_text()
        i = s.find(anchor)
        if i < 0:
            print(f"(mark '{name}' not placed: its place in {f} is gone)",
                  file=sys.stderr)
            continue
        texts[f] = s[:i] + f'tmark("{name}");\n' + s[i:]
    for f, s in texts.items():
        if inc not in s:
            s = s.replace("#include", inc + "#include", 1)
        (src / f).write_text(s)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--user")
    ap.add_argument("grants", nargs="*")
    a = ap.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="lnk-phases-"))
    os.chmod(tmp, 0o755)
    try:
        src = tmp / "src"
        files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT,
                               capture_output=True, check=True).stdout
        for f in files.decode().split("\0"):
            if f and (ROOT / f).is_file():
                (src / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / f, src / f)
        instrument(src)
        b = tmp / "build"
        q = dict(capture_output=True, text=True)
        for cmd in (["meson", "setup", "-Dtests=false", "--buildtype=release",
                     str(b), str(src)],
                    ["ninja", "-C", str(b), "lnk", "lnk-init"]):
            cp = subprocess.run(cmd, **q)
            if cp.returncode:
                sys.exit(f"{' '.join(cmd)} failed:\n{cp.stdout}{cp.stderr}")
        for name, text, extra in (("prog", PROG, ["-static"]),
                                  ("launch", LAUNCH, [])):
            (tmp / f"{name}.c").write_text(text)
            subprocess.run(["cc", "-O2", "-I", str(src / "src"), *extra,
                            "-o", str(tmp / name), str(tmp / f"{name}.c")],
                           check=True)
        home = tmp / "home"
        work = home / "work"
        work.mkdir(parents=True)
        shutil.copy2(tmp / "prog", work / "prog")
        if a.user:
            shutil.chown(home, a.user)
            shutil.chown(work, a.user)
            shutil.chown(work / "prog", a.user)
        cmd = [str(tmp / "launch"), str(b / "lnk"), "sandbox", "run",
               "--write", ".", *a.grants, "--", "./prog"]
        runs = []
        for _ in range(a.runs + 3):
            env = {"PATH": "/usr/bin:/bin", "HOME": str(home),
                   "LANG": "C.UTF-8"}
            pre = ["setpriv", f"--reuid={a.user}", f"--regid={a.user}",
                   "--init-groups"] if a.user else []
            cp = subprocess.run(pre + cmd, cwd=work, env=env,
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
            marks, t0 = {}, None
            for line in cp.stderr.splitlines():
                w = line.split()
                if len(w) < 4 or w[0] != "TM":
                    continue
                name = " ".join(w[1:-2])
                t = int(w[-2])
                if t0 is None:
                    t0 = t
                marks.setdefault(name, ((t - t0) / 1e6, int(w[-1])))
            runs.append(marks)
        runs = runs[3:]  # the first starts fill the caches
        names = []
        for r in runs:
            names += [n for n in r if n not in names]
        rows = []
        for n in names:
            ts = [r[n][0] for r in runs if n in r]
            fs = [r[n][1] for r in runs if n in r]
            rows.append((statistics.median(ts), n, statistics.median(fs),
                         len(ts)))
        rows.sort()
        who = a.user or "root"
        print(f"lnk sandbox run --write . {' '.join(a.grants)} -- ./prog, "
              f"as {who}, {a.runs} runs: median ms from the fork of lnk")
        print(f"  {'mark':<22} {'ms':>7} {'+ms':>6} {'faults':>7}")
        last = 0.0
        for t, n, f, k in rows:
            print(f"  {n:<22} {t:7.2f} {t - last:6.2f} {f:7.0f}"
                  + ("" if k == len(runs) else f"  (in {k} runs)"))
            last = t
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
