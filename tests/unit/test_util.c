/* common/util.h's shared helpers (path_within, line_next, hex_value) and
 * toml_load_optional: each replaced copies in several files, so each is
 * pinned here by the cases the copies handled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/err.h"
#include "common/buf.h"
#include "common/fsplace.h"
#include "common/gitconfig.h"
#include "common/pathenv.h"
#include "common/util.h"
#include "toml/toml.h"

static void path_within_by_components(void **state)
{
	(void)state;
	assert_true(path_within("/a/b", "/a/b"));
	assert_true(path_within("/a/b/c", "/a/b"));
	assert_true(path_within("/a/b/c/d", "/a"));
	/* a longer name is not inside the shorter one */
	assert_false(path_within("/a/bc", "/a/b"));
	assert_false(path_within("/a", "/a/b"));
	assert_false(path_within("/b", "/a"));
	/* every path is inside the root */
	assert_true(path_within("/", "/"));
	assert_true(path_within("/etc/passwd", "/"));
}

static void line_next_cuts_in_place(void **state)
{
	(void)state;
	char text[] = "one\n\n  three\nfour";
	char *cur = text, *l;
	const char *want[] = {"one", "", "  three", "four"};
	size_t n = 0;
	while ((l = line_next(&cur))) {
		assert_true(n < 4);
		assert_string_equal(l, want[n]);
		n++;
	}
	assert_int_equal(n, 4);
	/* a last '\n' ends the text without an empty line after it */
	char t2[] = "a\nb\n";
	cur = t2;
	assert_string_equal(line_next(&cur), "a");
	assert_string_equal(line_next(&cur), "b");
	assert_null(line_next(&cur));
	/* no text (a file that could not be read) */
	cur = NULL;
	assert_null(line_next(&cur));
}

static void hex_value_digits_only(void **state)
{
	(void)state;
	assert_int_equal(hex_value('0'), 0);
	assert_int_equal(hex_value('9'), 9);
	assert_int_equal(hex_value('a'), 10);
	assert_int_equal(hex_value('F'), 15);
	assert_int_equal(hex_value('g'), -1);
	assert_int_equal(hex_value('G'), -1);
	assert_int_equal(hex_value('/'), -1);
	assert_int_equal(hex_value(':'), -1);
	assert_int_equal(hex_value('\0'), -1);
	assert_int_equal(hex_value((char)0xe6), -1);
}

static void toml_load_optional_cases(void **state)
{
	(void)state;
	char dir[] = "/tmp/lnk-test-util-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *missing = xasprintf("%s/none.toml", dir);
	char *good = xasprintf("%s/good.toml", dir);
	char *bad = xasprintf("%s/bad.toml", dir);
	struct lnk_err err = {0};
	struct toml_value *root = (struct toml_value *)1;

	/* missing: no error, no table, the caller keeps its defaults */
	assert_int_equal(toml_load_optional(missing, 1 << 20, &root, &err), 0);
	assert_null(root);

	FILE *f = fopen(good, "we");
	assert_non_null(f);
	fputs("ask_wait = 30\n", f);
	fclose(f);
	assert_int_equal(toml_load_optional(good, 1 << 20, &root, &err), 0);
	assert_non_null(root);
	const struct toml_kv *kv = toml_find(root, "ask_wait");
	assert_non_null(kv);
	assert_int_equal(kv->val->u.i, 30);
	toml_free(root);

	/* a syntax error names the file */
	f = fopen(bad, "we");
	assert_non_null(f);
	fputs("ask_wait = \n", f);
	fclose(f);
	assert_true(toml_load_optional(bad, 1 << 20, &root, &err) < 0);
	assert_null(root);
	assert_non_null(strstr(err.msg, "bad.toml"));

	/* a folder where the file should be: refused with its path, not
	 * taken for defaults */
	assert_true(toml_load_optional(dir, 1 << 20, &root, &err) < 0);
	assert_non_null(strstr(err.msg, "cannot read"));

	unlink(good);
	unlink(bad);
	rmdir(dir);
	free(missing);
	free(good);
	free(bad);
}

/* PATH as bash reads it: ~ and ~user expanded, relative and empty entries
 * apart, each once. */
static void path_entries_as_the_shell_reads_them(void **state)
{
	(void)state;
	struct strv abs = {0}, rel = {0};
	path_entries("~/go/bin::/usr/bin:~root/x:bin:~nosuchuserhere/y:"
		     "/usr/bin:.:~",
		     "/home/u", &abs, &rel);
	assert_int_equal(abs.n, 4);
	assert_string_equal(abs.v[0], "/home/u/go/bin");
	assert_string_equal(abs.v[1], "/usr/bin");
	assert_string_equal(abs.v[2], "/root/x");
	assert_string_equal(abs.v[3], "/home/u");
	assert_int_equal(rel.n, 3);
	assert_string_equal(rel.v[0], "");
	assert_string_equal(rel.v[1], "bin");
	assert_string_equal(rel.v[2], ".");
	strv_free(&abs);
	strv_free(&rel);
	path_entries(NULL, "/home/u", &abs, &rel);
	assert_int_equal(abs.n + rel.n, 0);
}

/* A path's place in its file system: the mount that shows it last and
 * deepest, its root joined with the rest; a bind of a folder gives the
 * same place at its second path; mountinfo's octal escapes undone;
 * malformed rows skipped. */
static void mount_places_by_identity(void **state)
{
	(void)state;
	struct mount_table t;
	struct fs_place a, b, c;
	mounts_parse(&t, xstrdup("1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
				 "2 1 8:1 /home /data/ho\\040me rw - ext4 x\n"
				 "garbage line\n"
				 "3 1 8:2 / /home rw - ext4 /dev/sda2 rw\n"
				 "4 1 8:x / /bad rw - ext4 y rw\n"
				 "5 3 8:2 /u/sub /mnt/sub rw - ext4 z rw\n"));
	assert_int_equal(t.n, 4);
	assert_int_equal(mounts_place(&t, "/home/u/.lnk", &a), 0);
	assert_int_equal(a.major, 8);
	assert_int_equal(a.minor, 2);
	assert_string_equal(a.path, "/u/.lnk");
	/* the root file system's /home, bound at "/data/ho me" */
	assert_int_equal(mounts_place(&t, "/data/ho me/x", &b), 0);
	assert_int_equal(b.minor, 1);
	assert_string_equal(b.path, "/home/x");
	assert_false(fs_place_within(&b, &a));
	fs_place_free(&b);
	assert_int_equal(mounts_place(&t, "/mnt/sub/.lnk", &b), 0);
	assert_string_equal(b.path, "/u/sub/.lnk");
	assert_int_equal(mounts_place(&t, "/home/u", &c), 0);
	assert_true(fs_place_within(&b, &c));
	assert_false(fs_place_within(&c, &b));
	fs_place_free(&a);
	fs_place_free(&b);
	fs_place_free(&c);
	assert_int_equal(mounts_place(&t, "/", &a), 0);
	assert_string_equal(a.path, "/");
	fs_place_free(&a);
	mounts_free(&t);
}

/* git's config read by hand, as git reads it: sections and keys in lower
 * case, a quoted subsection as written, the older dotted one in lower
 * case, a variable on a header's line, a value unquoted, and what git
 * would not read skipped. */
static void got_key(void *ctx, const char *section, const char *sub,
		    const char *key, char *value)
{
	struct buf *b = ctx;
	buf_printf(b, "%s|%s|%s|%s\n", section, sub, key,
		   gitconfig_value(value));
}

static void gitconfig_as_git_reads_it(void **state)
{
	(void)state;
	char text[] = "\xef\xbb\xbf[Core]\r\n\tPager = less # c\n"
		      "[filter \"Nb\\\"x\"] clean = \"a b\" ; c\n"
		      "[diff.GPG]\ntextconv = gpg \\\n  -d\n"
		      "[[[\n= x\nnokey\n[include]\npath=~/inc\n";
	struct buf b = {0};
	gitconfig_text_fix(text, sizeof(text) - 1);
	gitconfig_each(text, got_key, &b);
	buf_putc(&b, '\0');
	assert_string_equal(b.p, "core||pager|less\n"
				 "filter|Nb\"x|clean|a b\n"
				 "diff|gpg|textconv|gpg   -d\n"
				 "include||path|~/inc\n");
	buf_free(&b);
}

/* Only a value continues on the next line, and only at a backslash no
 * other escapes: a reader that joined every backslash-newline read the
 * header after "a = foo\\\\" or after a comment ending in a backslash as
 * part of that line, and missed the fsmonitor below it; a NUL (in a
 * comment, which git reads past) ended the text for a C string. */
static void gitconfig_continues_values_only(void **state)
{
	(void)state;
	char text[] = "[x]\n\ta = foo\\\\\n[core]\n\tfsmonitor = A\n"
		      "[x]\n# note \\\n[core]\n\tfsmonitor = B\n"
		      "[x]\n\tk = v ; c \\\n[core]\n\tfsmonitor = C\n"
		      "[x \"s\\\\\"]\n[core]\n\tfsmonitor = D\n"
		      "[x]\n\tq = \"one \\\ntwo\"\n"
		      "[x]\n# \0 nul\n[core]\n\tfsmonitor = E\n"
		      "[core]\n\rfsmonitor = F\n"
		      "[x]\r[core]\n\tfsmonitor = G\n";
	struct buf b = {0};
	gitconfig_text_fix(text, sizeof(text) - 1);
	gitconfig_each(text, got_key, &b);
	buf_putc(&b, '\0');
	assert_string_equal(b.p, "x||a|foo\\\n"
				 "core||fsmonitor|A\n"
				 "core||fsmonitor|B\n"
				 "x||k|v\n"
				 "core||fsmonitor|C\n"
				 "core||fsmonitor|D\n"
				 "x||q|one two\n"
				 "core||fsmonitor|E\n"
				 "core||fsmonitor|F\n"
				 "core||fsmonitor|G\n");
	buf_free(&b);
}

/* git reads a header and goes on reading the same line: another '[' is
 * another header, so the keys after "[x][core]" are core's (a reader
 * that stops at the first ']' reads them under x, and misses a
 * fsmonitor). */
static void gitconfig_headers_on_one_line(void **state)
{
	(void)state;
	char text[] = "[x][core]\n\tfsmonitor = a\n"
		      "[x] [core]\n\tfsmonitor = b\n"
		      "[a \"b\"][core]\n\tfsmonitor = c\n"
		      "[x][core] fsmonitor = d\n"
		      "[x]\t[Filter \"S\"] [diff.Pdf]textconv = e\n";
	struct buf b = {0};
	gitconfig_text_fix(text, sizeof(text) - 1);
	gitconfig_each(text, got_key, &b);
	buf_putc(&b, '\0');
	assert_string_equal(b.p, "core||fsmonitor|a\n"
				 "core||fsmonitor|b\n"
				 "core||fsmonitor|c\n"
				 "core||fsmonitor|d\n"
				 "diff|pdf|textconv|e\n");
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(path_within_by_components),
	    cmocka_unit_test(line_next_cuts_in_place),
	    cmocka_unit_test(hex_value_digits_only),
	    cmocka_unit_test(toml_load_optional_cases),
	    cmocka_unit_test(path_entries_as_the_shell_reads_them),
	    cmocka_unit_test(mount_places_by_identity),
	    cmocka_unit_test(gitconfig_as_git_reads_it),
	    cmocka_unit_test(gitconfig_headers_on_one_line),
	    cmocka_unit_test(gitconfig_continues_values_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
