/* docs/security-map.md, checked: every file or folder it names exists,
 * and every format that crosses a trust boundary is named in it, on one
 * line, with the file that parses it and its fuzz target; that target
 * exists with seeds (tests/fuzz/seeds.py), a dictionary and a kept
 * corpus; each magic is its own. Every format of lnk's own (one with a
 * magic) is parsed and its magic written in src/proto/, and every file of
 * src/proto/ is the parser of a row here. The program's and the
 * providers' protocols (DNS, HTTP, SOCKS5, a model call) have no magic of
 * lnk's and are in the list by name, each with its pure, fuzzed parser. A
 * model call's (the program's JSON; the provider's JSON and server-sent
 * events) is read in src/proto/ (usage.c) too: it is the one whose bytes
 * also come from beyond the machine, a server that may not be the one it
 * claims, and its reader needs nothing but common/. The proxy listeners'
 * heads (HTTP, SOCKS5) come from the program alone and are parsed in
 * src/wire/, beside the relay they start (conn.c); their rows keep them
 * mapped, fuzzed and seeded all the same. The calls that make a
 * confinement layer are made in src/confine/ alone. Run from the source
 * root (meson's workdir). A format added later is a row here first. */
#include <dirent.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

struct format {
	const char *what;     /* what crosses, from whom to whom */
	const char *parser;   /* the file that decodes it */
	const char *target;   /* tests/fuzz/fuzz_<target>.c */
	const char *magic;    /* its first four bytes, or NULL: the program's
			     * own protocol */
	const char *magic_in; /* the file that writes the magic */
	bool afar;	      /* its bytes come from beyond the machine too */
};

static const struct format formats[] = {
    {"the init config, lnk to lnk-init", "src/proto/initcfg.c", "initcfg",
     "LNKI", "src/proto/initcfg.h"},
    {"the listener handoff, lnk-init to the wire", "src/proto/handoff.c",
     "handoff", "LNKW", "src/proto/handoff.h"},
    {"a control request, a command to a wire", "src/proto/ctl.c", "ctl", "LNKc",
     "src/proto/ctl.c"},
    {"a control reply, a wire to a command", "src/proto/ctl.c", "ctl", "LNKr",
     "src/proto/ctl.c"},
    {"the transparent head, the program's socket to the wire",
     "src/proto/tproxy.c", "dnsd", "LNKT", "src/proto/tproxy.c"},
    {"a tool call, lnk-tool inside to the broker's reader",
     "src/proto/toolcall.c", "toolcall", "LNKC", "src/proto/toolcall.h"},
    {"the reader's hand-over to the broker's starter", "src/proto/toolpass.c",
     "toolcall", "LNKB", "src/proto/toolpass.h"},
    {"a message of the wire's to its keeper", "src/proto/keeper.c", "keeper",
     "LNKK", "src/proto/keeper.c"},
    {"an answer of the keeper's to the wire", "src/proto/keeper.c", "keeper",
     "LNKA", "src/proto/keeper.c"},
    {"a DNS query, the program to the sandbox's resolvers",
     "src/proto/dnsmsg.c", "dnsd", NULL},
    {"an HTTP head, the program to the wire", "src/wire/http.c", "http", NULL},
    {"a SOCKS5 request, the program to the wire", "src/wire/socks5.c", "socks5",
     NULL},
    {"a model call's request and the provider's answer", "src/proto/usage.c",
     "usage", NULL, NULL, true},
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *s = calloc(1, 1 << 20);
	size_t got = fread(s, 1, (1 << 20) - 1, f);
	fclose(f);
	s[got] = '\0';
	return s;
}

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Whether one line of text names both a and b, each in backquotes. */
static bool one_line_names(const char *text, const char *a, const char *b)
{
	char qa[256], qb[256];
	snprintf(qa, sizeof(qa), "`%s`", a);
	snprintf(qb, sizeof(qb), "`%s`", b);
	for (const char *l = text; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t n = end ? (size_t)(end - l) : strlen(l);
		char *line = strndup(l, n);
		bool both = strstr(line, qa) && strstr(line, qb);
		free(line);
		if (both)
			return true;
		l = end ? end + 1 : NULL;
	}
	return false;
}

static void every_named_path_exists(void **state)
{
	char *map = slurp("docs/security-map.md");
	int missing = 0;

	(void)state;
	assert_non_null(map);
	for (const char *p = strchr(map, '`'); p; p = strchr(p + 1, '`')) {
		const char *end = strchr(p + 1, '`');
		if (!end)
			break;
		size_t n = (size_t)(end - p - 1);
		char path[512];
		if (n > 0 && n < sizeof(path) &&
		    (strncmp(p + 1, "src/", 4) == 0 ||
		     strncmp(p + 1, "tests/", 6) == 0 ||
		     strncmp(p + 1, "docs/", 5) == 0 ||
		     strncmp(p + 1, "man/", 4) == 0)) {
			memcpy(path, p + 1, n);
			path[n] = '\0';
			if (!exists(path)) {
				print_error("docs/security-map.md names %s, "
					    "which does not exist\n",
					    path);
				missing++;
			}
		}
		p = end;
	}
	free(map);
	assert_int_equal(missing, 0);
}

static void every_format_is_mapped_and_fuzzed(void **state)
{
	char *map = slurp("docs/security-map.md");
	char *seeds = slurp("tests/fuzz/seeds.py");
	char *fuzz_meson = slurp("tests/fuzz/meson.build");
	int bad = 0;

	(void)state;
	assert_non_null(map);
	assert_non_null(seeds);
	assert_non_null(fuzz_meson);
	for (size_t i = 0; i < NFORMATS; i++) {
		const struct format *f = &formats[i];
		char target[128], dict[128], corpus[128], key[64], word[64];
		snprintf(target, sizeof(target), "tests/fuzz/fuzz_%s.c",
			 f->target);
		snprintf(dict, sizeof(dict), "tests/fuzz/dict/%s.dict",
			 f->target);
		snprintf(corpus, sizeof(corpus), "tests/fuzz/corpus/%s",
			 f->target);
		snprintf(key, sizeof(key), "\"%s\":", f->target);
		snprintf(word, sizeof(word), "'%s'", f->target);
		const char *why = NULL;
		if (!exists(f->parser))
			why = "its parser does not exist";
		else if (!exists(target))
			why = "its fuzz target does not exist";
		else if (!strstr(fuzz_meson, word))
			why =
			    "tests/fuzz/meson.build does not build its target";
		else if (!one_line_names(map, f->parser, target))
			why = "docs/security-map.md has no line naming its "
			      "parser and its fuzz target";
		else if (!strstr(seeds, key))
			why = "tests/fuzz/seeds.py makes no seeds for it";
		else if (!exists(dict))
			why = "its dictionary is missing";
		else {
			DIR *d = opendir(corpus);
			size_t files = 0;
			struct dirent *de;
			while (d && (de = readdir(d)))
				if (de->d_name[0] != '.')
					files++;
			if (d)
				closedir(d);
			if (!files)
				why = "its kept corpus is missing or empty";
		}
		if (why) {
			print_error("%s (%s, fuzz_%s): %s\n", f->what,
				    f->parser, f->target, why);
			bad++;
		}
	}
	free(map);
	free(seeds);
	free(fuzz_meson);
	assert_int_equal(bad, 0);
}

/* Every parser in src/proto/ is a format of the list: a format added
 * there without its row (map line, target, seeds) fails here. */
static void every_proto_file_is_a_format(void **state)
{
	DIR *d = opendir("src/proto");
	struct dirent *de;
	int bad = 0;

	(void)state;
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 3 || strcmp(de->d_name + n - 2, ".c") != 0)
			continue;
		char path[300];
		snprintf(path, sizeof(path), "src/proto/%s", de->d_name);
		bool found = false;
		for (size_t i = 0; i < NFORMATS; i++)
			found |= strcmp(formats[i].parser, path) == 0;
		if (!found) {
			print_error("%s is a format of src/proto/ with no row "
				    "in tests/unit/test_security_map.c\n",
				    path);
			bad++;
		}
	}
	closedir(d);
	assert_int_equal(bad, 0);
}

/* A format of lnk's own (one with a magic) is one audit unit: its parser
 * and the file that writes its magic are in src/proto/, never beside the
 * process that reads it. */
static void own_formats_live_in_proto(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < NFORMATS; i++) {
		const struct format *f = &formats[i];
		if (!f->magic)
			continue;
		if (strncmp(f->parser, "src/proto/", 10) != 0 ||
		    strncmp(f->magic_in, "src/proto/", 10) != 0) {
			print_error(
			    "%s (magic %s): parsed in %s, its magic in "
			    "%s; a format of lnk's lives in src/proto/\n",
			    f->what, f->magic, f->parser, f->magic_in);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* A format whose bytes come from beyond the machine (a provider's answer)
 * is read in src/proto/ too, with lnk's own: the one audit unit of what
 * crosses a trust boundary holds the parser of the least trusted bytes. */
static void far_formats_live_in_proto(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < NFORMATS; i++) {
		const struct format *f = &formats[i];
		if (f->afar && strncmp(f->parser, "src/proto/", 10) != 0) {
			print_error("%s: parsed in %s; bytes from beyond the "
				    "machine are read in src/proto/\n",
				    f->what, f->parser);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* No two formats start alike: a message sent to the wrong reader is
 * refused at its first four bytes, never read as another. */
static void magics_are_distinct(void **state)
{
	(void)state;
	for (size_t i = 0; i < NFORMATS; i++)
		for (size_t k = i + 1; formats[i].magic && k < NFORMATS; k++)
			if (formats[k].magic &&
			    strcmp(formats[i].magic, formats[k].magic) == 0)
				fail_msg("%s and %s share the magic %s",
					 formats[i].what, formats[k].what,
					 formats[i].magic);
}

/* Each magic is the one the code writes (a string, the four characters,
 * or, for a number, its spelling beside it), so the list cannot drift
 * from the code. */
static void magics_are_the_code_s(void **state)
{
	(void)state;
	for (size_t i = 0; i < NFORMATS; i++) {
		const struct format *f = &formats[i];
		if (!f->magic)
			continue;
		char quoted[16], chars[64];
		snprintf(quoted, sizeof(quoted), "\"%s\"", f->magic);
		snprintf(chars, sizeof(chars), "'%c', '%c', '%c', '%c'",
			 f->magic[0], f->magic[1], f->magic[2], f->magic[3]);
		char *c = slurp(f->magic_in);
		bool found = c && (strstr(c, quoted) || strstr(c, chars));
		free(c);
		if (!found)
			fail_msg("%s: %s does not write the magic %s", f->what,
				 f->magic_in, f->magic);
	}
}

/* The text of path without its comments, or NULL. */
static char *code_of(const char *path)
{
	char *s = slurp(path);
	if (!s)
		return NULL;
	char *w = s;
	for (const char *r = s; *r;) {
		if (r[0] == '/' && r[1] == '*') {
			const char *e = strstr(r + 2, "*/");
			r = e ? e + 2 : r + strlen(r);
		} else if (r[0] == '/' && r[1] == '/') {
			while (*r && *r != '\n')
				r++;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return s;
}

/* The calls that make a confinement layer: written in src/confine/
 * alone (layers.h), so an auditor reads one place and every confined
 * process states only its rules. */
static const char *const layer_calls[] = {
    "SYS_landlock_create_ruleset",
    "SYS_landlock_add_rule",
    "SYS_landlock_restrict_self",
    "PR_SET_NO_NEW_PRIVS",
    "SYS_capset",
    "PR_CAPBSET_DROP",
    "PR_CAP_AMBIENT_CLEAR_ALL",
};

static int scan_layers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int bad = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		struct stat st;
		if (stat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (strcmp(path, "src/confine") != 0)
				bad += scan_layers(path);
			continue;
		}
		size_t n = strlen(path);
		if (n < 3 || (strcmp(path + n - 2, ".c") != 0 &&
			      strcmp(path + n - 2, ".h") != 0))
			continue;
		char *c = code_of(path);
		for (size_t i = 0;
		     c && i < sizeof(layer_calls) / sizeof(layer_calls[0]); i++)
			if (strstr(c, layer_calls[i])) {
				print_error("%s makes %s itself: use "
					    "src/confine/layers.h\n",
					    path, layer_calls[i]);
				bad++;
			}
		free(c);
	}
	closedir(d);
	return bad;
}

static void layers_are_made_in_confine_alone(void **state)
{
	(void)state;
	assert_int_equal(scan_layers("src"), 0);
}

int main(void)
{
	const struct CMUnitTest t[] = {
	    cmocka_unit_test(every_named_path_exists),
	    cmocka_unit_test(every_format_is_mapped_and_fuzzed),
	    cmocka_unit_test(every_proto_file_is_a_format),
	    cmocka_unit_test(own_formats_live_in_proto),
	    cmocka_unit_test(far_formats_live_in_proto),
	    cmocka_unit_test(magics_are_distinct),
	    cmocka_unit_test(magics_are_the_code_s),
	    cmocka_unit_test(layers_are_made_in_confine_alone),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
