/* Flags, merge rules, path resolution and its refusals, defaults, and the
 * grant-flag parser of the commands (src/cli/grants.c, compiled in here:
 * the unit tests link the core library, which holds no cli code). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli/grants.c"
#include "policy/policy.h"
#include "spec/spec.h"

static char root[256], home[300], cwd[300], specdir[300];

static void mk(const char *rel)
{
	char p[600];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	char *s = p + strlen(root) + 1;
	for (;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			mkdir(p, 0700);
			*s = c;
			if (!c)
				break;
		}
	}
}

static int setup(void **state)
{
	(void)state;
	char t[] = "/tmp/lnk-policy-XXXXXX";
	assert_non_null(mkdtemp(t));
	char *r = realpath(t, NULL);
	snprintf(root, sizeof(root), "%s", r);
	free(r);
	snprintf(home, sizeof(home), "%s/home", root);
	snprintf(cwd, sizeof(cwd), "%s/work", root);
	snprintf(specdir, sizeof(specdir), "%s/specs", root);
	mk("home/code/app");
	mk("home/.lnk/specs");
	mk("home/Link/Agents/bob");
	mk("home/Link/History/old");
	mk("work/sub");
	mk("specs/sub");
	mk("xdg/inner");
	char p[600];
	snprintf(p, sizeof(p), "%s/link-run", root);
	assert_int_equal(symlink("/run", p), 0);
	snprintf(p, sizeof(p), "%s/link-app", root);
	char target[600];
	snprintf(target, sizeof(target), "%s/code/app", home);
	assert_int_equal(symlink(target, p), 0);
	snprintf(p, sizeof(p), "%s/link-lnk", root);
	snprintf(target, sizeof(target), "%s/.lnk", home);
	assert_int_equal(symlink(target, p), 0);
	snprintf(p, sizeof(p), "%s/fifo", root);
	assert_int_equal(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/file.txt", root);
	FILE *f = fopen(p, "w");
	fputs("x", f);
	fclose(f);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/sock", root);
	assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof(a)), 0);
	close(s);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* Flags through grants_parse, then the policy; 0 or the error. */
static int from_args(const char *const *args, struct policy *p,
		     struct lnk_err *err)
{
	char *argv[32];
	int argc = 0;
	argv[argc++] = (char *)"run";
	for (size_t i = 0; args[i]; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	struct grants g;
	int r =
	    grants_parse("run", argc, argv,
			 GRANTS_SPEC | GRANTS_YES | GRANTS_PROGRAM, &g, err);
	if (r == 0)
		r = grants_build_policy(&g, cwd, home, p, err);
	else
		policy_init(p);
	grants_free(&g);
	return r;
}

static int from_spec(const char *text, const struct policy *flags,
		     struct policy *p, struct lnk_err *err)
{
	policy_init(p);
	int r = policy_load_spec_text(p, text, strlen(text), "app.toml",
				      specdir, err);
	if (r)
		return r;
	if (flags)
		policy_merge_flags(p, flags);
	return policy_resolve(p, cwd, home, err);
}

static void expect_list(const struct policy *p, enum key_id id,
			const char *const *want)
{
	const struct strv *l = policy_list(p, id);
	size_t n = 0;
	while (want[n])
		n++;
	if (l->n != n)
		fail_msg("key %d has %zu entries, want %zu", id, l->n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(l->v[i], want[i]);
}

static void flags_resolve(void **state)
{
	(void)state;
	struct policy p;
	struct lnk_err err = {0};
	const char *args[] = {"--write",     "sub",    "--read=~",
			      "--read",	     "~/code", "--internet-host",
			      "Example.com", "--port", "5432",
			      "--port=5432", NULL};
	assert_int_equal(from_args(args, &p, &err), 0);
	char w[400], r1[400];
	snprintf(w, sizeof(w), "%s/sub", cwd);
	snprintf(r1, sizeof(r1), "%s/code", home);
	expect_list(&p, K_FILES_WRITE, (const char *[]){w, NULL});
	expect_list(&p, K_FILES_READ, (const char *[]){home, r1, NULL});
	expect_list(&p, K_INTERNET_HOSTS,
		    (const char *[]){"example.com", NULL});
	expect_list(&p, K_LOCALHOST_PORTS, (const char *[]){"5432", NULL});
	/* Flags alone: every system program may run. */
	expect_list(&p, K_COMMANDS_ALLOW, (const char *[]){"*", NULL});
	assert_true(policy_any_command(&p));
	assert_true(p.resolved);
	/* Always hidden, from the home folder. */
	char lnkdir[400];
	snprintf(lnkdir, sizeof(lnkdir), "%s/.lnk", home);
	assert_true(strv_contains(&p.always_hidden, lnkdir));
	assert_int_equal(p.always_hidden.n, 3);
	/* Sections not given stay unset. */
	assert_false(policy_has(&p, K_LAN_HOSTS));
	assert_false(policy_has(&p, K_FILES_HIDE));
	policy_free(&p);
}

static void flag_command_no_default(void **state)
{
	(void)state;
	struct policy p;
	struct lnk_err err = {0};
	const char *args[] = {"--command", "node", NULL};
	assert_int_equal(from_args(args, &p, &err), 0);
	expect_list(&p, K_COMMANDS_ALLOW, (const char *[]){"node", NULL});
	assert_false(policy_any_command(&p));
	policy_free(&p);
}

/* A grant through a link that is not the system's is refused, naming the
 * real path to grant instead; the real path itself is fine. */
static void symlinks_refused_with_real_path(void **state)
{
	(void)state;
	struct policy p;
	struct lnk_err err = {0};
	char link[400], real[400], via[400];
	snprintf(link, sizeof(link), "%s/link-app", root);
	snprintf(real, sizeof(real), "%s/code/app", home);
	const char *args[] = {"--write", link, NULL};
	assert_int_equal(from_args(args, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "symbolic link"));
	assert_non_null(strstr(err.msg, real));
	policy_free(&p);
	/* A link in the middle of the path, and --read too. */
	snprintf(via, sizeof(via), "%s/link-app/../app", root);
	const char *mid[] = {"--read", via, NULL};
	assert_int_equal(from_args(mid, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, link));
	policy_free(&p);
	/* The system's links are followed: /proc/self is root's, in root's
	 * /proc; and the real path is granted. */
	const char *ok[] = {"--write", real, NULL};
	assert_int_equal(from_args(ok, &p, &err), 0);
	expect_list(&p, K_FILES_WRITE, (const char *[]){real, NULL});
	policy_free(&p);
}

/* /etc and the other system trees are never write grants (a sandbox run
 * as root could change what root's programs run); reading is fine. */
static void system_trees_refused_for_write(void **state)
{
	(void)state;
	const char *const dirs[] = {
	    "/etc", "/etc/ssh", "/usr",	      "/usr/bin", "/boot",
	    "/var", "/var/lib", "/var/spool", "/opt",	  "/srv"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		struct stat st;
		if (stat(dirs[i], &st) < 0)
			continue;
		struct policy p;
		struct lnk_err err = {0};
		const char *args[] = {"--write", dirs[i], NULL};
		if (from_args(args, &p, &err) != -EINVAL ||
		    !strstr(err.msg, "system folder"))
			fail_msg("--write %s: '%s'", dirs[i], err.msg);
		policy_free(&p);
		const char *rd[] = {"--read", dirs[i], NULL};
		if (from_args(rd, &p, &err) != 0)
			fail_msg("--read %s: '%s'", dirs[i], err.msg);
		policy_free(&p);
	}
}

struct refusal {
	const char *flag;
	const char *path; /* "@" prefix: relative to root */
	const char *msg;
};

static void refused_grants(void **state)
{
	(void)state;
	char xdg[400];
	snprintf(xdg, sizeof(xdg), "%s/xdg", root);
	setenv("XDG_RUNTIME_DIR", xdg, 1);
	const struct refusal rows[] = {
	    {"--read", "/", "every file on this machine"},
	    {"--write", "/", "every file on this machine"},
	    {"--read", "/proc", "other processes"},
	    {"--read", "/proc/self", "other processes"},
	    {"--read", "/sys", "kernel"},
	    {"--read", "/dev", "devices"},
	    {"--read", "/dev/shm", "devices"},
	    {"--read", "/run", "host daemons through their sockets"},
	    {"--write", "@link-run", "host daemons through their sockets"},
	    {"--read", "@xdg", "session's daemons"},
	    {"--read", "@xdg/inner", "session's daemons"},
	    {"--read", "~/.lnk", "lnk's settings"},
	    {"--write", "~/.lnk/specs", "lnk's settings"},
	    {"--read", "@link-lnk", "lnk's settings"},
	    {"--read", "~/Link/Agents/bob", "agents' folders"},
	    {"--write", "~/Link/History", "agents' folders"},
	    {"--read", "@sock", "is a socket"},
	    {"--read", "@fifo", "is a pipe"},
	    {"--read", "/dev/null", "is a device"},
	    {"--write", "@nope", "no such file or folder"},
	    {"--hide", "@nope", "no such file or folder"},
	    {"--read", "~/missing", "no such file or folder"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char path[400];
		if (rows[i].path[0] == '@')
			snprintf(path, sizeof(path), "%s/%s", root,
				 rows[i].path + 1);
		else
			snprintf(path, sizeof(path), "%s", rows[i].path);
		const char *args[] = {rows[i].flag, path, NULL};
		struct policy p;
		struct lnk_err err = {0};
		int r = from_args(args, &p, &err);
		if (r != -EINVAL)
			fail_msg("row %zu (%s %s) not refused: %d", i,
				 rows[i].flag, path, r);
		if (!strstr(err.msg, rows[i].msg) ||
		    strncmp(err.msg, rows[i].flag, strlen(rows[i].flag)) != 0)
			fail_msg("row %zu: '%s' lacks '%s'", i, err.msg,
				 rows[i].msg);
		policy_free(&p);
	}
	unsetenv("XDG_RUNTIME_DIR");
}

/* Hiding closes: a hidden folder may be anything that exists, even one a
 * grant could not open. --read ~ is fine: ~/.lnk stays hidden. */
static void allowed_around_refusals(void **state)
{
	(void)state;
	struct policy p;
	struct lnk_err err = {0};
	char f[400];
	snprintf(f, sizeof(f), "%s/file.txt", root);
	const char *args[] = {"--hide", "/run", "--read", "~",
			      "--read", f,	NULL};
	assert_int_equal(from_args(args, &p, &err), 0);
	expect_list(&p, K_FILES_HIDE, (const char *[]){"/run", NULL});
	policy_free(&p);
}

static void dot_files_need_write(void **state)
{
	(void)state;
	struct policy p;
	struct lnk_err err = {0};
	const char *ok[] = {"--write", "sub", "--write-dot-files", "sub", NULL};
	assert_int_equal(from_args(ok, &p, &err), 0);
	policy_free(&p);
	const char *bad[] = {"--write", "sub", "--write-dot-files", ".", NULL};
	assert_int_equal(from_args(bad, &p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not one of the write folders"));
	policy_free(&p);
}

static void spec_paths_relative_to_spec(void **state)
{
	(void)state;
	struct policy p;
	struct lnk_err err = {0};
	assert_int_equal(from_spec("[files]\nwrite = [\"sub\", \".\"]\n"
				   "read = [\"~/code\"]\n",
				   NULL, &p, &err),
			 0);
	char a[400], b[400];
	snprintf(a, sizeof(a), "%s/sub", specdir);
	snprintf(b, sizeof(b), "%s/code", home);
	expect_list(&p, K_FILES_WRITE, (const char *[]){a, specdir, NULL});
	expect_list(&p, K_FILES_READ, (const char *[]){b, NULL});
	/* A spec without [commands] runs nothing: no default. */
	assert_false(policy_has(&p, K_COMMANDS_ALLOW));
	assert_int_equal(policy_list(&p, K_COMMANDS_ALLOW)->n, 0);
	policy_free(&p);
}

static void spec_missing_path_says_where(void **state)
{
	(void)state;
	struct policy p;
	struct lnk_err err = {0};
	assert_int_equal(from_spec("\n[files]\nread = [\"sub\", \"gone\"]\n",
				   NULL, &p, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "app.toml:3:16: [files] read"));
	assert_non_null(strstr(err.msg, "gone"));
	policy_free(&p);
	assert_int_equal(
	    from_spec("[files]\nwrite = [\"/proc\"]\n", NULL, &p, &err),
	    -EINVAL);
	assert_non_null(strstr(err.msg, "app.toml:2:10: [files] write"));
	assert_non_null(strstr(err.msg, "other processes"));
	policy_free(&p);
}

static void merge_replaces_and_hide_adds(void **state)
{
	(void)state;
	struct policy flags;
	policy_init(&flags);
	struct lnk_err err = {0};
	assert_int_equal(policy_add_flag(&flags, K_FILES_WRITE, "sub", &err),
			 0);
	assert_int_equal(policy_add_flag(&flags, K_FILES_HIDE, "sub", &err), 0);
	assert_int_equal(
	    policy_add_flag(&flags, K_INTERNET_HOSTS, "b.example", &err), 0);
	assert_int_equal(policy_add_flag(&flags, K_NAME, "fromflag", &err), 0);
	struct policy p;
	assert_int_equal(
	    from_spec("name = \"app\"\nversion = 1\n[files]\n"
		      "write = [\"sub\"]\nhide = [\".\"]\n"
		      "[internet]\nhosts = [\"a.example\", \"c.example\"]\n"
		      "[commands]\nallow = [\"node\"]\n",
		      &flags, &p, &err),
	    0);
	char ws[400], wf[400];
	snprintf(ws, sizeof(ws), "%s/sub", specdir);
	snprintf(wf, sizeof(wf), "%s/sub", cwd);
	/* Replaced: the flag's folder, relative to the working folder. */
	expect_list(&p, K_FILES_WRITE, (const char *[]){wf, NULL});
	assert_true(p.k[K_FILES_WRITE].from_flag);
	/* Added: the file's (relative to the spec) and the flag's. */
	expect_list(&p, K_FILES_HIDE, (const char *[]){specdir, wf, NULL});
	expect_list(&p, K_INTERNET_HOSTS, (const char *[]){"b.example", NULL});
	assert_string_equal(p.k[K_NAME].str, "fromflag");
	policy_free(&p);

	/* The same folder from the spec and from a flag is one entry; "."
	 * from each is two folders. */
	struct policy f2;
	policy_init(&f2);
	assert_int_equal(policy_add_flag(&f2, K_FILES_HIDE, specdir, &err), 0);
	assert_int_equal(policy_add_flag(&f2, K_FILES_HIDE, ".", &err), 0);
	assert_int_equal(from_spec("[files]\nhide = [\".\"]\n", &f2, &p, &err),
			 0);
	expect_list(&p, K_FILES_HIDE, (const char *[]){specdir, cwd, NULL});
	policy_free(&f2);
	policy_free(&p);
	assert_int_equal(
	    from_spec("version = 1\n[commands]\nallow = [\"node\"]\n[files]\n"
		      "write = [\"sub\"]\n",
		      &flags, &p, &err),
	    0);
	/* Keys no flag set stay the file's. */
	expect_list(&p, K_COMMANDS_ALLOW, (const char *[]){"node", NULL});
	assert_false(p.k[K_COMMANDS_ALLOW].from_flag);
	(void)ws;
	policy_free(&p);
	policy_free(&flags);
}

static void grants_flag_forms(void **state)
{
	(void)state;
	struct grants g;
	struct lnk_err err = {0};
	char *argv[] = {"run",	  "--write=a", "--yes", "--spec",
			"x.toml", "--port",    "80",	"--",
			"prog",	  "--write",   "b",	NULL};
	assert_int_equal(grants_parse("run", 11, argv,
				      GRANTS_SPEC | GRANTS_YES | GRANTS_PROGRAM,
				      &g, &err),
			 0);
	assert_true(g.yes);
	assert_string_equal(g.spec, "x.toml");
	assert_int_equal(g.rest, 8);
	assert_true(g.dashdash);
	/* What follows -- is the program's, even our flags. */
	assert_int_equal(g.flags.k[K_FILES_WRITE].list.n, 1);
	assert_string_equal(g.flags.k[K_FILES_WRITE].list.v[0], "a");
	grants_free(&g);

	/* The first argument that is not an option starts the program. */
	char *argv2[] = {"run", "--read", "r", "ls", "--write", "w", NULL};
	assert_int_equal(
	    grants_parse("run", 6, argv2, GRANTS_PROGRAM, &g, &err), 0);
	assert_int_equal(g.rest, 3);
	assert_false(g.dashdash);
	assert_int_equal(g.flags.k[K_FILES_WRITE].list.n, 0);
	grants_free(&g);

	/* No program: rest is argc. */
	char *argv3[] = {"check", "--hide", "h", NULL};
	assert_int_equal(
	    grants_parse("check", 3, argv3, GRANTS_PROGRAM, &g, &err), 0);
	assert_int_equal(g.rest, 3);
	grants_free(&g);

	char *argv4[] = {"run", "--help", "--wirte", NULL};
	assert_int_equal(grants_parse("run", 3, argv4, 0, &g, &err), 0);
	assert_true(g.help);
	grants_free(&g);
}

struct usage_row {
	unsigned allow;
	const char *args[4];
	const char *msg;
};

static void grants_usage_errors(void **state)
{
	(void)state;
	const struct usage_row rows[] = {
	    {GRANTS_PROGRAM,
	     {"--wirte", "x"},
	     "unknown option '--wirte' for 'lnk sandbox run'; did you mean "
	     "'--write'?"},
	    {GRANTS_PROGRAM,
	     {"--wirte=x"},
	     "unknown option '--wirte' for 'lnk sandbox run'; did you mean "
	     "'--write'?"},
	    {GRANTS_PROGRAM,
	     {"--internet-hots", "x"},
	     "did you mean '--internet-host'?"},
	    {GRANTS_SPEC, {"--sepc", "x"}, "did you mean '--spec'?"},
	    {GRANTS_PROGRAM, {"--zzzzzzzzzz"}, "see 'lnk sandbox run --help'"},
	    {0, {"--yes"}, "unknown option '--yes'"},
	    {0, {"--spec", "a"}, "unknown option '--spec'"},
	    {GRANTS_YES, {"--yes=no"}, "takes no value"},
	    {0, {"--write"}, "option '--write' needs a DIR"},
	    {GRANTS_SPEC, {"--spec"}, "option '--spec' needs a FILE"},
	    {GRANTS_SPEC, {"--spec", "a", "--spec", "b"}, "given twice"},
	    {0, {"--port", "0"}, "--port: '0' is not a port"},
	    {0, {"--port=http"}, "--port: 'http' is not a port"},
	    {0, {"prog"}, "unexpected argument 'prog'"},
	    {0, {"--", "prog"}, "runs no program"},
	    {GRANTS_PROGRAM, {"-x"}, "unknown option '-x'"},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *argv[8] = {"run"};
		int argc = 1;
		for (size_t j = 0; j < 4 && rows[i].args[j]; j++)
			argv[argc++] = (char *)rows[i].args[j];
		struct grants g;
		struct lnk_err err = {0};
		int r =
		    grants_parse("run", argc, argv, rows[i].allow, &g, &err);
		if (r != -EINVAL || !strstr(err.msg, rows[i].msg))
			fail_msg("row %zu: r=%d msg '%s', want '%s'", i, r,
				 err.msg, rows[i].msg);
		assert_int_equal(grants_fail(r, &err), 2);
		grants_free(&g);
	}
}

/* changes = "off" opens nothing but hides what a run left: shown */
static void describe_changes_off(void **state)
{
	(void)state;
	struct policy p;
	policy_init(&p);
	struct lnk_err err = {0};
	assert_int_equal(policy_add_flag(&p, K_FILES_CHANGES, "off", &err), 0);
	struct strv out = {0};
	policy_describe(&p, &out);
	assert_true(strv_contains(
	    &out, "says nothing of what it leaves in the write folders"));
	strv_free(&out);
	policy_free(&p);
}

static void describe_lines(void **state)
{
	(void)state;
	struct policy p;
	policy_init(&p);
	struct strv out = {0};
	policy_describe(&p, &out);
	assert_int_equal(out.n, 1);
	assert_non_null(strstr(out.v[0], "opens nothing"));
	strv_free(&out);
	struct lnk_err err = {0};
	assert_int_equal(policy_add_flag(&p, K_INTERNET_HOSTS, "*", &err), 0);
	assert_int_equal(policy_add_flag(&p, K_COMMANDS_ALLOW, "*", &err), 0);
	assert_int_equal(policy_add_flag(&p, K_LOCALHOST_PORTS, "80", &err), 0);
	policy_describe(&p, &out);
	assert_int_equal(out.n, 3);
	assert_string_equal(out.v[0], "reaches any host on the internet");
	assert_string_equal(out.v[1], "connects to port 80 on this machine");
	assert_string_equal(out.v[2], "runs every system program");
	strv_free(&out);
	/* a model route names the key it is given and the host it goes to */
	assert_int_equal(policy_add_flag(&p, K_INTERNET_MODELS,
					 "gemini=https://models.example/v1",
					 &err),
			 0);
	policy_describe(&p, &out);
	assert_true(strv_contains(
	    &out, "sends your GEMINI_API_KEY (or ~/.lnk/sandbox/gemini.key) "
		  "to models.example (a route the spec names), for the model "
		  "route gemini; the key stays outside"));
	strv_free(&out);
	policy_free(&p);
}

static void copy_and_equal(void **state)
{
	(void)state;
	struct policy a, b;
	struct lnk_err err = {0};
	policy_init(&a);
	assert_int_equal(policy_add_flag(&a, K_FILES_WRITE, "x", &err), 0);
	assert_int_equal(policy_add_flag(&a, K_NAME, "n", &err), 0);
	policy_copy(&b, &a);
	assert_true(policy_equal(&a, &b));
	assert_int_equal(policy_add_flag(&b, K_FILES_WRITE, "y", &err), 0);
	assert_false(policy_equal(&a, &b));
	policy_free(&b);
	policy_copy(&b, &a);
	b.k[K_LAN_HOSTS].set = true; /* set but empty differs from unset */
	assert_false(policy_equal(&a, &b));
	policy_free(&a);
	policy_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(flags_resolve),
	    cmocka_unit_test(flag_command_no_default),
	    cmocka_unit_test(symlinks_refused_with_real_path),
	    cmocka_unit_test(system_trees_refused_for_write),
	    cmocka_unit_test(refused_grants),
	    cmocka_unit_test(allowed_around_refusals),
	    cmocka_unit_test(dot_files_need_write),
	    cmocka_unit_test(spec_paths_relative_to_spec),
	    cmocka_unit_test(spec_missing_path_says_where),
	    cmocka_unit_test(merge_replaces_and_hide_adds),
	    cmocka_unit_test(grants_flag_forms),
	    cmocka_unit_test(grants_usage_errors),
	    cmocka_unit_test(describe_lines),
	    cmocka_unit_test(describe_changes_off),
	    cmocka_unit_test(copy_and_equal),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
