/* "Asked first": a new spec asks, the same spec does not, a changed one
 * asks again; --yes answers; no terminal refuses naming --yes; the record
 * is 0600, written atomically, and keeps every other spec's entry. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/buf.h"
#include "spec/trust.h"
#include "spec/spec.h"
#include "store/paths.h"

static char root[256], home[300], proj[300];

static int setup(void **state)
{
	(void)state;
	char t[] = "/tmp/lnk-trust-XXXXXX";
	assert_non_null(mkdtemp(t));
	char *r = realpath(t, NULL);
	snprintf(root, sizeof(root), "%s", r);
	free(r);
	snprintf(home, sizeof(home), "%s/home", root);
	snprintf(proj, sizeof(proj), "%s/proj", root);
	assert_int_equal(mkdir(home, 0700), 0);
	assert_int_equal(mkdir(proj, 0700), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_spec(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void load(const char *path, struct policy *p)
{
	struct lnk_err err = {0};
	policy_init(p);
	if (policy_load_spec(p, path, &err) != 0 ||
	    policy_resolve(p, root, home, &err) != 0)
		fail_msg("%s", err.msg);
}

/* Runs trust_check_fds with answer typed on a pipe (NULL: no terminal);
 * returns its result and what it wrote in shown. */
static int ask(const struct policy *p, bool yes, const char *answer,
	       char *shown, size_t shownlen, struct lnk_err *err)
{
	int in[2] = {-1, -1}, out[2];
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	if (answer) {
		assert_int_equal(pipe2(in, O_CLOEXEC), 0);
		assert_int_equal(write(in[1], answer, strlen(answer)),
				 (ssize_t)strlen(answer));
		close(in[1]);
	}
	int r = trust_check_fds(p, home, yes, NULL, NULL, in[0], out[1], err);
	close(out[1]);
	ssize_t n = read(out[0], shown, shownlen - 1);
	shown[n > 0 ? n : 0] = '\0';
	close(out[0]);
	if (in[0] >= 0)
		close(in[0]);
	return r;
}

static void no_temp_files_left(void)
{
	char dir[400];
	snprintf(dir, sizeof(dir), "%s/.lnk/specs", home);
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, "sandbox.toml") ||
		    !strcmp(e->d_name, ".sandbox.toml.lock"))
			continue;
		fail_msg("left behind: %s", e->d_name);
	}
	closedir(d);
}

static void modes(void)
{
	struct stat st;
	char *f = paths_specs_file(home);
	assert_int_equal(stat(f, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	free(f);
	char *d = paths_specs_dir(home);
	assert_int_equal(stat(d, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	free(d);
	char *l = paths_lnk_dir(home);
	assert_int_equal(stat(l, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	free(l);
}

static void new_same_changed(void **state)
{
	(void)state;
	char spec[400];
	snprintf(spec, sizeof(spec), "%s/app.toml", proj);
	write_spec(spec, "[files]\nwrite = [\".\"]\n[commands]\n"
			 "allow = [\"sh\"]\n");
	struct policy p;
	load(spec, &p);
	char shown[8192];
	struct lnk_err err = {0};

	/* New, no terminal: refused, naming --yes. */
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err),
			 -EPERM);
	assert_non_null(strstr(err.msg, "is new here"));
	assert_non_null(strstr(err.msg, "--yes"));
	assert_string_equal(shown, "");

	/* New, declined. */
	assert_int_equal(ask(&p, false, "n\n", shown, sizeof(shown), &err),
			 -EPERM);
	assert_non_null(strstr(err.msg, "not accepted"));
	assert_non_null(strstr(err.msg, "--yes"));
	assert_non_null(strstr(shown, "is new here"));
	/* An empty answer is no. */
	assert_int_equal(ask(&p, false, "\n", shown, sizeof(shown), &err),
			 -EPERM);
	assert_int_equal(ask(&p, false, "", shown, sizeof(shown), &err),
			 -EPERM);

	/* New, accepted: shows what it opens. */
	assert_int_equal(ask(&p, false, "y\n", shown, sizeof(shown), &err), 0);
	char line[500];
	snprintf(line, sizeof(line), "  writes %s\n", proj);
	assert_non_null(strstr(shown, line));
	assert_non_null(strstr(shown, "  runs sh\n"));
	assert_non_null(strstr(shown, "[y/N]"));
	modes();
	no_temp_files_left();

	/* The same spec: not asked, even without a terminal. */
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err), 0);
	assert_string_equal(shown, "");
	/* Reformatted but opening the same: not asked either. */
	write_spec(spec, "# a comment\ncommands.allow = ['sh', 'sh']\n"
			 "files = { write = ['./'] }\n");
	policy_free(&p);
	load(spec, &p);
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err), 0);
	/* Named: the name opens nothing, but the sandbox's calls, traffic
	 * and pause go by it (an agent's name taken): asked again. */
	write_spec(spec, "commands.allow = ['sh']\n"
			 "files = { write = ['./'] }\nname = \"main-link\"\n");
	policy_free(&p);
	load(spec, &p);
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err),
			 -EPERM);
	write_spec(spec, "# a comment\ncommands.allow = ['sh', 'sh']\n"
			 "files = { write = ['./'] }\n");
	policy_free(&p);
	load(spec, &p);

	/* Changed: asks again. */
	write_spec(spec, "[files]\nwrite = [\".\"]\n[commands]\n"
			 "allow = [\"sh\"]\n[internet]\nhosts = [\"*\"]\n");
	policy_free(&p);
	load(spec, &p);
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err),
			 -EPERM);
	assert_non_null(strstr(err.msg, "opens something different"));
	assert_int_equal(ask(&p, false, "yes\n", shown, sizeof(shown), &err),
			 0);
	assert_non_null(strstr(shown, "opens something different"));
	assert_non_null(strstr(shown, "reaches any host on the internet"));
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err), 0);

	/* Changed again, --yes: accepted without a question, and recorded. */
	write_spec(spec, "[files]\nread = [\".\"]\n");
	policy_free(&p);
	load(spec, &p);
	assert_int_equal(ask(&p, true, NULL, shown, sizeof(shown), &err), 0);
	assert_string_equal(shown, "");
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err), 0);
	modes();
	no_temp_files_left();
	policy_free(&p);
}

/* What a symlinked folder points at is part of what a spec opens. */
/* A grant through a link that is not the system's never reaches the
 * question: resolving refuses it, naming where it leads, so a link changed
 * between two runs cannot send an accepted spec's grant elsewhere. */
static void symlink_grant_refused_before_asking(void **state)
{
	(void)state;
	char a[400], link[400], spec[400];
	snprintf(a, sizeof(a), "%s/a", root);
	snprintf(link, sizeof(link), "%s/ln", proj);
	snprintf(spec, sizeof(spec), "%s/link.toml", proj);
	mkdir(a, 0700);
	assert_int_equal(symlink(a, link), 0);
	write_spec(spec, "[files]\nwrite = [\"ln\"]\n");
	struct policy p;
	struct lnk_err err = {0};
	policy_init(&p);
	assert_int_equal(policy_load_spec(&p, spec, &err), 0);
	assert_int_equal(policy_resolve(&p, root, home, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "symbolic link"));
	char *real = realpath(a, NULL);
	assert_non_null(strstr(err.msg, real));
	free(real);
	policy_free(&p);
	unlink(link);
}

static void flags_alone_never_asked(void **state)
{
	(void)state;
	struct policy p;
	policy_init(&p);
	struct lnk_err err = {0};
	assert_int_equal(policy_add_flag(&p, K_INTERNET_HOSTS, "*", &err), 0);
	assert_int_equal(policy_resolve(&p, root, home, &err), 0);
	char shown[64];
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err), 0);
	assert_int_equal(trust_check(&p, home, false, NULL, NULL, &err), 0);
	policy_free(&p);
}

/* Asked by what a run opens: narrowing an accepted spec (a folder below,
 * a grant left out, a lower limit, one more hidden folder, reading what
 * was written) never asks; any widening does, the flag's or the file's. */
/* Threat: hundreds of hosts push "writes ..." off a small terminal
 * before the person answers: what it opens is said again last, beside
 * the prompt. */
static void a_long_question_says_what_it_writes_last(void **state)
{
	(void)state;
	char spec[400], shown[16384];
	struct lnk_err err = {0};
	snprintf(spec, sizeof(spec), "%s/long.toml", proj);
	struct buf t = {0};
	buf_puts(&t, "[files]\nwrite = [\".\"]\n[internet]\nhosts = [");
	for (int i = 0; i < 40; i++)
		buf_printf(&t, "%s\"h%d.test\"", i ? ", " : "", i);
	buf_puts(&t, "]\n");
	write_spec(spec, t.p);
	buf_free(&t);
	struct policy p;
	load(spec, &p);
	assert_int_equal(ask(&p, false, "n\n", shown, sizeof(shown), &err),
			 -EPERM);
	const char *in_short = strstr(shown, "In short (");
	assert_non_null(in_short);
	char line[500];
	snprintf(line, sizeof(line), "  writes %s\n", proj);
	assert_non_null(strstr(in_short, line));
	assert_null(strstr(in_short, "h39.test"));
	assert_non_null(strstr(in_short, "and 36 more that reaches"));
	assert_non_null(strstr(in_short, "[y/N]"));
	policy_free(&p);
	/* Threat: a changed spec's question shows only what was added (120
	 * programs): its recap said "it writes no folder" of a spec that
	 * writes, and nothing of the internet it added at the top. The
	 * recap is of every grant the spec opens now. */
	write_spec(spec, "[files]\nwrite = [\".\"]\n[commands]\n"
			 "allow = [\"sh\"]\n");
	load(spec, &p);
	assert_int_equal(ask(&p, true, NULL, shown, sizeof(shown), &err), 0);
	policy_free(&p);
	buf_puts(&t, "[files]\nwrite = [\".\"]\n[internet]\nhosts = "
		     "[\"*\"]\n[commands]\nallow = [\"sh\"");
	for (int i = 0; i < 40; i++)
		buf_printf(&t, ", \"/usr/bin/p%d\"", i);
	buf_puts(&t, "]\n");
	write_spec(spec, t.p);
	buf_free(&t);
	load(spec, &p);
	assert_int_equal(ask(&p, false, "n\n", shown, sizeof(shown), &err),
			 -EPERM);
	assert_non_null(strstr(shown, "What changed"));
	in_short = strstr(shown, "In short (");
	assert_non_null(in_short);
	assert_non_null(strstr(in_short, line));
	assert_non_null(strstr(in_short, "  reaches any host on the internet"));
	assert_null(strstr(in_short, "writes no folder"));
	policy_free(&p);
	/* Threat: the spec rewritten to drop 40 hosts and write one more
	 * folder: the "-" lines pushed the one "+ writes" line off a small
	 * terminal, and the recap counted the added lines alone. Every line
	 * shown counts, and what it adds comes last again. */
	buf_puts(&t, "[files]\nwrite = [\".\"]\n[internet]\nhosts = [");
	for (int i = 0; i < 40; i++)
		buf_printf(&t, "%s\"g%d.test\"", i ? ", " : "", i);
	buf_puts(&t, "]\n");
	write_spec(spec, t.p);
	buf_free(&t);
	load(spec, &p);
	assert_int_equal(ask(&p, true, NULL, shown, sizeof(shown), &err), 0);
	policy_free(&p);
	write_spec(spec, "[files]\nwrite = [\".\", \"/tmp\"]\n");
	load(spec, &p);
	assert_int_equal(ask(&p, false, "n\n", shown, sizeof(shown), &err),
			 -EPERM);
	in_short = strstr(shown, "In short (");
	assert_non_null(in_short);
	assert_non_null(strstr(in_short, "  writes /tmp\n"));
	const char *adds = strstr(shown, "It adds:\n  + writes /tmp\n");
	assert_non_null(adds);
	assert_true(adds > strstr(shown, "- reaches"));
	policy_free(&p);
	/* a short one is not repeated */
	snprintf(spec, sizeof(spec), "%s/short.toml", proj);
	write_spec(spec, "[files]\nwrite = [\".\"]\n");
	load(spec, &p);
	assert_int_equal(ask(&p, false, "n\n", shown, sizeof(shown), &err),
			 -EPERM);
	assert_null(strstr(shown, "In short"));
	policy_free(&p);
}

/* A widening the grants' lines did not show (changes = "full" left out:
 * the end says less) asked with an empty "What changed:". */
static void every_change_is_shown(void **state)
{
	(void)state;
	char spec[400], shown[8192];
	struct lnk_err err = {0};
	snprintf(spec, sizeof(spec), "%s/changes.toml", proj);
	write_spec(spec, "[files]\nwrite = [\".\"]\nchanges = \"full\"\n");
	struct policy p;
	load(spec, &p);
	assert_int_equal(ask(&p, true, NULL, shown, sizeof(shown), &err), 0);
	policy_free(&p);
	write_spec(spec, "[files]\nwrite = [\".\"]\n");
	load(spec, &p);
	assert_int_equal(ask(&p, false, "n\n", shown, sizeof(shown), &err),
			 -EPERM);
	assert_non_null(strstr(shown, "What changed:\n  - "));
	policy_free(&p);
}

static void narrowing_never_asks_widening_does(void **state)
{
	(void)state;
	char spec[400], sub[400], secret[400], shown[8192];
	struct lnk_err err = {0};
	snprintf(spec, sizeof(spec), "%s/narrow.toml", proj);
	snprintf(sub, sizeof(sub), "%s/sub", proj);
	snprintf(secret, sizeof(secret), "%s/secret", proj);
	mkdir(sub, 0700);
	mkdir(secret, 0700);
	const char *base = "[files]\nwrite = [\".\"]\nhide = [\"secret\"]\n"
			   "[internet]\nhosts = [\"a.test\", \"b.test\"]\n"
			   "[limits]\nmemory = \"1G\"\n";
	write_spec(spec, base);
	struct policy p;
	load(spec, &p);
	assert_int_equal(ask(&p, true, NULL, shown, sizeof(shown), &err), 0);
	policy_free(&p);
	static const struct {
		const char *text;
		bool asks;
	} c[] = {
	    {"[files]\nwrite = [\"sub\"]\nhide = [\"secret\"]\n"
	     "[limits]\nmemory = \"1G\"\n",
	     false},
	    {"[files]\nread = [\".\"]\nhide = [\"secret\"]\n"
	     "[limits]\nmemory = \"1G\"\n",
	     false},
	    /* a limit left out is no limit: wider */
	    {"[files]\nwrite = [\"sub\"]\nhide = [\"secret\"]\n", true},
	    {"[files]\nwrite = [\".\"]\nhide = [\"secret\", \"sub\"]\n"
	     "[internet]\nhosts = [\"b.test\"]\n[limits]\nmemory = \"512M\"\n",
	     false},
	    {"[files]\nwrite = [\"..\"]\nhide = [\"secret\"]\n"
	     "[limits]\nmemory = \"1G\"\n",
	     true},
	    /* the hidden folder shown */
	    {"[files]\nwrite = [\".\"]\n[limits]\nmemory = \"1G\"\n", true},
	    {"[files]\nwrite = [\"sub\"]\nhide = [\"secret\"]\n"
	     "[internet]\nhosts = [\"c.test\"]\n[limits]\nmemory = \"1G\"\n",
	     true},
	    {"[files]\nwrite = [\"sub\"]\nhide = [\"secret\"]\n"
	     "[limits]\nmemory = \"2G\"\n",
	     true},
	    {"[files]\nwrite = [\"sub\"]\nhide = [\"secret\"]\n"
	     "[localhost]\nports = [8080]\n[limits]\nmemory = \"1G\"\n",
	     true},
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		write_spec(spec, c[i].text);
		load(spec, &p);
		int r = ask(&p, false, NULL, shown, sizeof(shown), &err);
		if (r != (c[i].asks ? -EPERM : 0))
			fail_msg("case %zu: %d (%s)", i, r, err.msg);
		policy_free(&p);
	}
	/* A widening by a flag beside the spec asks too, naming it. */
	write_spec(spec, base);
	load(spec, &p);
	policy_free(&p);
	policy_init(&p);
	assert_int_equal(policy_load_spec(&p, spec, &err), 0);
	assert_int_equal(policy_add_flag(&p, K_LOCALHOST_PORTS, "9", &err), 0);
	assert_int_equal(policy_resolve(&p, root, home, &err), 0);
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err),
			 -EPERM);
	assert_non_null(strstr(err.msg, "--port"));
	/* ... and once accepted, that set runs unasked. */
	assert_int_equal(ask(&p, true, NULL, shown, sizeof(shown), &err), 0);
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err), 0);
	policy_free(&p);
}

/* Other specs' records survive an update; a broken record asks again
 * rather than letting anything through. */
static void record_keeps_others_and_fails_closed(void **state)
{
	(void)state;
	char s1[400], s2[400];
	snprintf(s1, sizeof(s1), "%s/one.toml", proj);
	snprintf(s2, sizeof(s2), "%s/two.toml", proj);
	write_spec(s1, "[localhost]\nports = [1]\n");
	write_spec(s2, "[localhost]\nports = [2]\n");
	struct policy p1, p2;
	load(s1, &p1);
	load(s2, &p2);
	char shown[4096];
	struct lnk_err err = {0};
	assert_int_equal(ask(&p1, true, NULL, shown, sizeof(shown), &err), 0);
	assert_int_equal(ask(&p2, true, NULL, shown, sizeof(shown), &err), 0);
	assert_int_equal(ask(&p1, true, NULL, shown, sizeof(shown), &err), 0);
	assert_int_equal(ask(&p1, false, NULL, shown, sizeof(shown), &err), 0);
	assert_int_equal(ask(&p2, false, NULL, shown, sizeof(shown), &err), 0);

	char *f = paths_specs_file(home);
	char *text = NULL;
	size_t len;
	assert_int_equal(read_file(f, 1 << 20, &text, &len), 0);
	/* One entry a spec and digest, the earlier tests' specs kept (a
	 * spec accepted as it widened keeps each acceptance; one that only
	 * narrowed was never asked about, so never recorded). */
	size_t n = 0, n1 = 0, n2 = 0;
	for (char *s = text; (s = strstr(s, "[[spec]]")); s++)
		n++;
	for (char *s = text; (s = strstr(s, "/one.toml\"")); s++)
		n1++;
	for (char *s = text; (s = strstr(s, "/two.toml\"")); s++)
		n2++;
	assert_true(n >= 4);
	assert_int_equal(n1, 1);
	assert_int_equal(n2, 1);
	assert_non_null(strstr(text, "text = \""));
	assert_non_null(strstr(text, "digest = \"sha256:"));
	free(text);

	write_spec(f, "this is [ not toml");
	assert_int_equal(ask(&p1, false, NULL, shown, sizeof(shown), &err),
			 -EPERM);
	/* A record of the same path with another digest is not enough. */
	FILE *w = fopen(f, "w");
	fprintf(w, "[[spec]]\npath = \"%s\"\ndigest = \"sha256:00\"\n", s1);
	fclose(w);
	assert_int_equal(ask(&p1, false, NULL, shown, sizeof(shown), &err),
			 -EPERM);
	free(f);
	policy_free(&p1);
	policy_free(&p2);
}

/* Acceptances are kept per set of grants: switching back to one accepted
 * before does not ask, a change shows only what changed, and at most a
 * few are kept per spec. */
static void switching_back_is_not_asked(void **state)
{
	(void)state;
	char spec[400];
	snprintf(spec, sizeof(spec), "%s/back.toml", proj);
	const char *a = "[localhost]\nports = [10]\n";
	const char *b = "[localhost]\nports = [10, 11]\n";
	struct policy p;
	char shown[4096];
	struct lnk_err err = {0};

	write_spec(spec, a);
	load(spec, &p);
	assert_int_equal(ask(&p, true, NULL, shown, sizeof(shown), &err), 0);
	policy_free(&p);
	write_spec(spec, b);
	load(spec, &p);
	assert_int_equal(ask(&p, false, "y\n", shown, sizeof(shown), &err), 0);
	assert_non_null(strstr(shown, "What changed:\n  + "));
	assert_non_null(strstr(shown, "11"));
	assert_null(strstr(shown, "  - "));
	policy_free(&p);
	/* back to a: accepted before, not asked */
	write_spec(spec, a);
	load(spec, &p);
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err), 0);
	policy_free(&p);
	/* many more: the oldest go, the newest stay */
	for (int i = 0; i < 12; i++) {
		char t[64];
		snprintf(t, sizeof(t), "[localhost]\nports = [%d]\n", 100 + i);
		write_spec(spec, t);
		load(spec, &p);
		assert_int_equal(
		    ask(&p, true, NULL, shown, sizeof(shown), &err), 0);
		policy_free(&p);
	}
	char *f = paths_specs_file(home);
	char *text = NULL;
	size_t len;
	assert_int_equal(read_file(f, 1 << 20, &text, &len), 0);
	size_t n = 0;
	for (char *s = text; (s = strstr(s, "/back.toml\"")); s++)
		n++;
	assert_int_equal(n, 8);
	free(text);
	free(f);
	write_spec(spec, "[localhost]\nports = [111]\n");
	load(spec, &p);
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err), 0);
	policy_free(&p);
	write_spec(spec, a);
	load(spec, &p);
	assert_int_equal(ask(&p, false, NULL, shown, sizeof(shown), &err),
			 -EPERM);
	policy_free(&p);
}

/* A folder named with escape sequences cannot redraw the question. */
static void question_escapes_controls(void **state)
{
	(void)state;
	char dir[400], spec[500];
	snprintf(dir, sizeof(dir), "%s/e\x1b[2Jx", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(spec, sizeof(spec), "%s/s.toml", dir);
	write_spec(spec, "[files]\nread = [\".\"]\n");
	struct policy p;
	load(spec, &p);
	char shown[4096];
	struct lnk_err err = {0};
	assert_int_equal(ask(&p, false, "n\n", shown, sizeof(shown), &err),
			 -EPERM);
	assert_null(strchr(shown, 0x1b));
	assert_non_null(strstr(shown, "\\x1b[2Jx"));
	assert_null(strchr(err.msg, 0x1b));
	policy_free(&p);
}

static void digest_is_of_what_it_opens(void **state)
{
	(void)state;
	struct policy a, b;
	policy_init(&a);
	policy_init(&b);
	struct lnk_err err = {0};
	const char *t1 = "name = \"x\"\n[localhost]\nports = [80]\n";
	const char *t2 =
	    "version = 1\nname = \"x\"\n[localhost]\nports = [80, 80]\n";
	assert_int_equal(
	    policy_load_spec_text(&a, t1, strlen(t1), "a", "/", &err), 0);
	assert_int_equal(
	    policy_load_spec_text(&b, t2, strlen(t2), "b", "/", &err), 0);
	char da[80], db[80];
	trust_digest(&a, da);
	trust_digest(&b, db);
	assert_string_equal(da, db);
	assert_int_equal(strlen(da), 7 + 64);
	assert_memory_equal(da, "sha256:", 7);
	policy_free(&b);
	policy_init(&b);
	const char *t3 = "[localhost]\nports = [81]\n";
	assert_int_equal(
	    policy_load_spec_text(&b, t3, strlen(t3), "b", "/", &err), 0);
	trust_digest(&b, db);
	assert_string_not_equal(da, db);
	/* a model route is a grant: another route, another digest; one
	 * written another way, the same */
	const char *m1 = "[internet]\nmodels = [\"gw=https://a.example/v1\"]\n";
	const char *m2 =
	    "[internet]\nmodels = [\"GW=HTTPS://A.example/v1/\"]\n";
	const char *m3 = "[internet]\nmodels = [\"gw=https://b.example/v1\"]\n";
	char d1[80], d2[80], d3[80];
	struct policy c;
	const char *const mt[] = {m1, m2, m3};
	char *const md[] = {d1, d2, d3};
	for (int i = 0; i < 3; i++) {
		policy_init(&c);
		assert_int_equal(policy_load_spec_text(&c, mt[i], strlen(mt[i]),
						       "m", "/", &err),
				 0);
		trust_digest(&c, md[i]);
		policy_free(&c);
	}
	assert_string_equal(d1, d2);
	assert_string_not_equal(d1, d3);
	assert_string_not_equal(d1, da);
	policy_free(&a);
	policy_free(&b);
}

static struct policy spec_of(const char *text)
{
	struct policy p;
	struct lnk_err err = {0};
	policy_init(&p);
	assert_int_equal(
	    policy_load_spec_text(&p, text, strlen(text), "t", "/", &err), 0);
	return p;
}

static bool fake_holds(void *ctx, const struct policy *was, const char *dir)
{
	(void)was;
	return strcmp(dir, ctx) == 0;
}

/* A folder below an accepted write folder is narrower only where the
 * accepted run kept nothing read only (cover_kept), and a read folder the
 * accepted run had inside its write folder stays closed to writing. */
static void narrower_by_what_was_kept(void **state)
{
	(void)state;
	struct policy was = spec_of("[files]\nwrite = [\"/usr\"]\n"
				    "read = [\"/usr/share\"]\n");
	struct cover_kept kept = {fake_holds, (void *)"/usr/bin"};
	struct {
		const char *now;
		bool covered;
	} rows[] = {
	    {"[files]\nwrite = [\"/usr/lib\"]\n", true},
	    {"[files]\nwrite = [\"/usr/bin\"]\n", false},
	    {"[files]\nwrite = [\"/usr\"]\nread = [\"/usr/share\"]\n", true},
	    /* the carve-out left out: /usr/share written */
	    {"[files]\nwrite = [\"/usr\"]\n", false},
	    {"[files]\nwrite = [\"/usr\"]\nhide = [\"/usr/share\"]\n", true},
	    {"[files]\nread = [\"/usr/bin\"]\n", true},
	};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct policy now = spec_of(rows[i].now);
		if (spec_covers(&was, &now, &kept) != rows[i].covered)
			fail_msg("row %zu: %s", i, rows[i].now);
		policy_free(&now);
	}
	/* without what was kept, by names alone (macOS) */
	struct policy bin = spec_of("[files]\nwrite = [\"/usr/bin\"]\n");
	assert_true(spec_covers(&was, &bin, NULL));
	policy_free(&bin);
	policy_free(&was);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(new_same_changed),
	    cmocka_unit_test(symlink_grant_refused_before_asking),
	    cmocka_unit_test(flags_alone_never_asked),
	    cmocka_unit_test(record_keeps_others_and_fails_closed),
	    cmocka_unit_test(switching_back_is_not_asked),
	    cmocka_unit_test(question_escapes_controls),
	    cmocka_unit_test(digest_is_of_what_it_opens),
	    cmocka_unit_test(narrowing_never_asks_widening_does),
	    cmocka_unit_test(narrower_by_what_was_kept),
	    cmocka_unit_test(every_change_is_shown),
	    cmocka_unit_test(a_long_question_says_what_it_writes_last),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
