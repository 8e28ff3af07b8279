/* lnk sandbox ready: whether the sandbox can run here, and what it needs.
 *
 * lnk-sandbox(1), COMMANDS, ready. One line per check,
 * each from a real probe (host.c): a sysctl that says "allowed" proves
 * nothing, so user namespaces, bubblewrap, Landlock and seccomp user
 * notification are each tried. Exits 0 only when run will work.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/compat.h"
#include "cli/commands.h"
#ifdef __APPLE__
#include "launch/macos.h"
#endif
#include "common/buf.h"
#include "common/esc.h"
#include "common/pathenv.h"
#include "common/util.h"
#include "launch/host.h"
#include "launch/limits.h"
#include "store/paths.h"
#include "wire/heard.h"

enum verdict { V_OK, V_WARN, V_FAIL };

struct check {
	const char *name;
	enum verdict v;
	char *detail;
};

struct report {
	struct check c[16];
	size_t n;
};

__attribute__((format(printf, 4, 5))) static void
add(struct report *rep, const char *name, enum verdict v, const char *fmt, ...)
{
	if (rep->n == ARRAY_SIZE(rep->c))
		return;
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	rep->c[rep->n++] = (struct check){name, v, s ? s : xstrdup(name)};
}

static void usage(FILE *f)
{
	fputs("usage: lnk sandbox ready [--json]\n"
	      "\n"
	      "Checks, for real, what the sandbox needs on this machine, one\n"
	      "line each: bubblewrap and its version, user namespaces (and an\n"
	      "AppArmor restriction of them, which it offers to lift for\n"
	      "bubblewrap alone), Landlock, seccomp filters, and seccomp user\n"
	      "notification with descriptor injection. Exits 0 only when\n"
	      "'lnk sandbox run' will work.\n"
	      "\n"
	      "  --json       one JSON object: each check and the verdict\n"
	      "  -h, --help   this help\n",
	      f);
}

/* Runs argv with data on its stdin; returns its exit status or -1. */
static int run_with_input(char *const *argv, const char *data)
{
	int p[2];
	if (pipe_cloexec(p, 0) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (dup2(p[0], 0) < 0 || null < 0 || dup2(null, 1) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[0]);
	if (data)
		write_all(p[1], data, strlen(data));
	close(p[1]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void print_profile_commands(FILE *f, const char *profile)
{
	fprintf(f,
		"\nTo let bubblewrap (and only it) create user namespaces, "
		"run:\n\n"
		"  sudo tee %s > /dev/null <<'EOF'\n%sEOF\n"
		"  sudo apparmor_parser -r %s\n\n",
		HOST_APPARMOR_PROFILE_PATH, profile,
		HOST_APPARMOR_PROFILE_PATH);
}

/* Why bubblewrap cannot make a sandbox here, and the profile (when not
 * NULL), before anything is asked or printed to run. */
static void explain_apparmor(FILE *f, const char *profile)
{
	struct host_os os;
	struct buf name = {0};
	bool ubuntu = host_os_release(&os) == 0 && os.pretty[0];
	if (ubuntu) /* the file's words: escaped (common/esc.h) */
		esc_append(&name, os.pretty, strlen(os.pretty), ESC_LINE);
	fprintf(f,
		"\n%s%s restricts unprivileged user namespaces with AppArmor "
		"(kernel.apparmor_restrict_unprivileged_userns=1), and "
		"bubblewrap needs one to make a sandbox.%s A profile that "
		"allows them to bubblewrap alone lifts it for bubblewrap, as "
		"Ubuntu's own profiles do for other programs that need them; "
		"everything else stays restricted.\n%s%s%s%s",
		ubuntu ? "" : "This system", ubuntu ? name.p : "",
		ubuntu && host_os_ubuntu_since(&os, 23, 10)
		    ? " (Ubuntu does so from 23.10 on.)"
		    : "",
		profile ? "\nThe profile, for " : "",
		profile ? HOST_APPARMOR_PROFILE_PATH : "",
		profile ? ":\n\n" : "", profile ? profile : "");
	buf_free(&name);
}

/* Asks on the terminal, never on a pipe: a script piping "y" into lnk
 * must not install a profile behind the person's back. */
static bool can_ask(void)
{
	return isatty(STDIN_FILENO) && access("/dev/tty", R_OK | W_OK) == 0;
}

static bool ask_yes(const char *question)
{
	_cleanup_fclose_ FILE *tty = fopen("/dev/tty", "r+e");
	if (!tty || !isatty(STDIN_FILENO))
		return false;
	fprintf(tty, "%s [y/N] ", question);
	fflush(tty);
	char line[16];
	if (!fgets(line, sizeof(line), tty))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

enum offer { OFFER_PRINTED, OFFER_FAILED, OFFER_ADDED_BWRAP_FAILS, OFFER_OK };

/* On Ubuntu 23.10 and newer: explain, show the profile, offer to add it
 * with sudo on a terminal, else print the two commands. */
static enum offer offer_apparmor(const char *bwrap, bool json,
				 struct lnk_err *err)
{
	_cleanup_free_ char *profile = host_apparmor_profile(bwrap);
	FILE *f = json ? stderr : stdout;
	bool terminal = !json && can_ask();
	/* On a terminal the profile is shown before the question; else it
	 * is in the commands printed. */
	explain_apparmor(f, terminal ? profile : NULL);
	fflush(f);
	if (!terminal || !ask_yes("\nAdd this profile now, with sudo?")) {
		print_profile_commands(f, profile);
		return OFFER_PRINTED;
	}
	char *const tee[] = {"sudo", "tee", HOST_APPARMOR_PROFILE_PATH, NULL};
	char *const parse[] = {"sudo", "apparmor_parser", "-r",
			       HOST_APPARMOR_PROFILE_PATH, NULL};
	if (run_with_input(tee, profile) != 0 ||
	    run_with_input(parse, NULL) != 0) {
		printf("lnk: adding the profile failed\n");
		print_profile_commands(stdout, profile);
		return OFFER_FAILED;
	}
	return host_probe_bwrap(bwrap, err) == 0 ? OFFER_OK
						 : OFFER_ADDED_BWRAP_FAILS;
}

static void check_bwrap(struct report *rep, const char *bwrap, bool json)
{
	struct lnk_err err = {0};
	if (!bwrap) {
		add(rep, "bubblewrap", V_FAIL,
		    "bubblewrap is not installed: sudo apt install bubblewrap "
		    "(or your system's package of it)");
		return;
	}
	int ver[3];
	if (host_bwrap_version(bwrap, ver, &err) < 0) {
		add(rep, "bubblewrap", V_FAIL, "%s", err.msg);
		return;
	}
	/* Before 0.8.0 (Debian 12's) bwrap cannot forbid user namespaces
	 * inside the sandbox: it runs, with that door open. */
	if (!host_version_at_least(ver, 0, 8, 0))
		add(rep, "bubblewrap", V_WARN,
		    "bubblewrap %d.%d.%d (%s) is older than 0.8.0: programs "
		    "in the sandbox can make user namespaces; install 0.8.0 "
		    "or newer",
		    ver[0], ver[1], ver[2], bwrap);
	else
		add(rep, "bubblewrap", V_OK, "bubblewrap %d.%d.%d (%s)", ver[0],
		    ver[1], ver[2], bwrap);

	bool plain = host_probe_userns(&err) == 0;
	bool restricted = host_apparmor_restricts_userns() == 1;
	if (host_probe_bwrap(bwrap, &err) == 0) {
		add(rep, "user namespaces", V_OK,
		    "user namespaces work (bubblewrap made a sandbox)%s",
		    !restricted	    ? ""
		    : getuid() == 0 ? "; AppArmor restricts them for users "
				      "other than root"
				    : "; AppArmor restricts them, but not for "
				      "bubblewrap");
		return;
	}
	if (restricted && getuid() != 0) {
		switch (offer_apparmor(bwrap, json, &err)) {
		case OFFER_OK:
			add(rep, "user namespaces", V_OK,
			    "user namespaces work: the AppArmor profile for "
			    "bubblewrap is in place");
			return;
		case OFFER_ADDED_BWRAP_FAILS:
			add(rep, "user namespaces", V_FAIL,
			    "the AppArmor profile for bubblewrap was added, "
			    "but %s",
			    err.msg);
			return;
		case OFFER_PRINTED:
		case OFFER_FAILED:
			break;
		}
		add(rep, "user namespaces", V_FAIL,
		    "AppArmor restricts unprivileged user namespaces "
		    "(kernel.apparmor_restrict_unprivileged_userns=1): add the "
		    "profile for bubblewrap (the two commands above)");
		return;
	}
	_cleanup_free_ char *hint = host_userns_hint();
	add(rep, "user namespaces", V_FAIL, "%s%s%s", err.msg,
	    hint ? "; " : (plain ? "" : "; a plain unshare fails too"),
	    hint ? hint : "");
}

static void check_landlock(struct report *rep)
{
	int abi = host_landlock_abi();
	if (abi >= 1)
		add(rep, "landlock", V_OK, "Landlock ABI %d", abi);
	else if (abi == -ENOSYS)
		add(rep, "landlock", V_FAIL,
		    "Landlock is not in this kernel (it needs Linux 5.13 or "
		    "newer, built with CONFIG_SECURITY_LANDLOCK)");
	else if (abi == -EOPNOTSUPP)
		add(rep, "landlock", V_FAIL,
		    "Landlock is in this kernel but disabled at boot: add "
		    "landlock to the lsm= kernel parameter (see "
		    "/sys/kernel/security/lsm) and reboot");
	else
		add(rep, "landlock", V_FAIL, "Landlock failed: %s",
		    strerror(-abi));
}

static void check_seccomp(struct report *rep)
{
	struct lnk_err err = {0};
	if (host_probe_seccomp_filter(&err) < 0) {
		add(rep, "seccomp", V_FAIL, "%s", err.msg);
		return;
	}
	add(rep, "seccomp", V_OK, "seccomp filters work");
	if (host_probe_seccomp_notify(&err) < 0)
		add(rep, "seccomp notify", V_FAIL,
		    "%s; the dot files of --write folders cannot be guarded",
		    err.msg);
	else
		add(rep, "seccomp notify", V_OK,
		    "seccomp user notification with descriptor injection "
		    "works");
}

static void check_init(struct report *rep)
{
	_cleanup_free_ char *init = host_find_init();
	if (init)
		add(rep, "lnk-init", V_OK, "lnk-init (%s)", init);
	else
		add(rep, "lnk-init", V_FAIL,
		    "lnk-init is missing: it is neither next to lnk nor in "
		    "lnk's install folder; reinstall lnk");
}

/* What bounds one sandbox's memory and tasks here (launch/limits.h): a
 * cgroup of its own where lnk may make one, else less, which is said. */
static void check_limits(struct report *rep)
{
	struct lnk_err err = {0};
	struct limits l;
	struct limits_where w;
	char *home = NULL;

	limits_defaults(&l);
	if (paths_home(&home, &err) == 0) {
		_cleanup_free_ char *settings = paths_settings(home);
		free(home);
		if (limits_load_settings(settings, &l, &err) < 0) {
			add(rep, "limits", V_FAIL, "%s", err.msg);
			return;
		}
	}
	limits_find(&w);
	_cleanup_free_ char *d = limits_describe(&w, &l);
	add(rep, "limits",
	    w.kind == LIMITS_CGROUP2 || w.kind == LIMITS_CGROUP1 ? V_OK
								 : V_WARN,
	    "%s", d);
	limits_where_free(&w);
}

/* A relative PATH entry (".", "bin", an empty one) names the folder the
 * user is in when they type a command: any folder a sandbox writes can
 * become it, and no rule of lnk's can protect it (common/pathenv.h). */
static void check_path(struct report *rep)
{
	struct strv notes = {0};

	path_relative_notes(getenv("PATH"), getenv("HOME"), &notes);
	if (!notes.n)
		add(rep, "path", V_OK,
		    "every PATH entry is absolute (~ read as your shell "
		    "reads it)");
	for (size_t i = 0; i < notes.n; i++)
		add(rep, "path", V_WARN, "%s", notes.v[i]);
	strv_free(&notes);
}

/* The machine's folder of the routers every user's wires heard
 * (wire/heard.h): without it, a program of another user can spend a
 * router's errors before this user's wires have heard it. As root, it is
 * made here when missing. */
static void check_routers(struct report *rep)
{
	int d = heard_dir_open(HEARD_DIR);
	if (d >= 0) {
		close(d);
		add(rep, "routers", V_OK,
		    "the routers every user's wires heard are kept in %s",
		    HEARD_DIR);
		return;
	}
	add(rep, "routers", V_WARN,
	    "%s is %s: each user's wires know only the routers they heard, "
	    "and another user's program can pass a router off as one that "
	    "never answers; as root: install -d -m 1777 %s",
	    HEARD_DIR,
	    d == -ENOENT ? "missing"
			 : "not a folder of root's with the sticky bit",
	    HEARD_DIR);
}

static const char *word(enum verdict v)
{
	switch (v) {
	case V_OK:
		return "ok";
	case V_WARN:
		return "warn";
	case V_FAIL:
		return "FAIL";
	}
	return "?";
}

int cmd_ready(int argc, char **argv, const struct cli_ctx *cx)
{
	(void)cx; /* no first steps (main.c) */
	bool json = false;
	int rc = cli_json_only("ready", argc, argv, usage, &json);
	if (rc >= 0)
		return rc;

#ifdef __APPLE__
	/* macOS: Seatbelt is built in; launch/macos.h says what is checked. */
	struct strv lines = {0};
	int mr = macos_ready(&lines);
	for (size_t i = 0; i < lines.n; i++)
		printf("%s\n", lines.v[i]);
	strv_free(&lines);
	(void)json;
	return mr < 0 ? 1 : 0;
#endif
	struct report rep = {0};
	_cleanup_free_ char *bwrap = host_find_bwrap();
	check_bwrap(&rep, bwrap, json);
	check_init(&rep);
	check_landlock(&rep);
	check_seccomp(&rep);
	check_limits(&rep);
	check_path(&rep);
	check_routers(&rep);

	bool ok = true;
	for (size_t i = 0; i < rep.n; i++)
		ok &= rep.c[i].v != V_FAIL;

	if (json) {
		struct buf b = {0};
		buf_puts(&b, "{\"ready\":");
		buf_puts(&b, ok ? "true" : "false");
		buf_puts(&b, ",\"checks\":[");
		for (size_t i = 0; i < rep.n; i++) {
			buf_puts(&b, i ? ",{\"check\":" : "{\"check\":");
			buf_json_str(&b, rep.c[i].name, strlen(rep.c[i].name));
			buf_printf(&b, ",\"verdict\":\"%s\",\"detail\":",
				   rep.c[i].v == V_OK	  ? "ok"
				   : rep.c[i].v == V_WARN ? "warn"
							  : "fail");
			buf_json_str(&b, rep.c[i].detail,
				     strlen(rep.c[i].detail));
			buf_putc(&b, '}');
		}
		buf_puts(&b, "]}\n");
		fputs(b.p, stdout);
		buf_free(&b);
	} else {
		/* A detail can quote what a host file or program said:
		 * escaped (common/esc.h) as one line. */
		for (size_t i = 0; i < rep.n; i++) {
			struct buf d = {0};
			const char *s = rep.c[i].detail;
			esc_append(&d, s, strlen(s), ESC_LINE);
			printf("%-5s %s\n", word(rep.c[i].v), d.p ? d.p : "");
			buf_free(&d);
		}
		printf("%s\n", ok ? "the sandbox can run here"
				  : "the sandbox cannot run here: fix each "
				    "FAIL above, then run 'lnk sandbox ready' "
				    "again");
	}
	for (size_t i = 0; i < rep.n; i++)
		free(rep.c[i].detail);
	if (fflush(stdout) != 0)
		return LNK_EXIT_FAIL;
	return ok ? 0 : 1;
}
