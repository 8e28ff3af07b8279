/* [commands] allow resolution (launch/commands.h): PATH search, symlinks,
 * the ELF interpreter, shebangs and the env chain, refusals and their
 * messages, and hostile files (malformed ELF, endless shebang chains). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/util.h"
#include "launch/commands.h"

struct fx {
	char dir[64];
	char bin[96];
	char path[256];
};

static void write_file(const char *path, const void *data, size_t n,
		       mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
	chmod(path, mode);
}

static void script(struct fx *f, const char *name, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", f->bin, name);
	write_file(p, text, strlen(text), 0755);
}

/* A minimal ELF64 with one PT_INTERP program header. */
static void fake_elf(const char *path, const char *interp, uint16_t phnum,
		     uint64_t phoff, uint64_t interp_size)
{
	unsigned char img[512] = {0};
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr ph = {0};

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_phoff = phoff;
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = phnum;
	ph.p_type = PT_INTERP;
	ph.p_offset = 256;
	ph.p_filesz = interp_size ? interp_size : strlen(interp) + 1;
	if (phoff <= sizeof(img) - sizeof(ph))
		memcpy(img + phoff, &ph, sizeof(ph));
	memcpy(img + 256, interp, strlen(interp) + 1);
	write_file(path, img, sizeof(img), 0755);
}

static int setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	char p[PATH_MAX];

	strcpy(f->dir, "/tmp/lnk-test-commands-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->bin, sizeof(f->bin), "%s/bin", f->dir);
	assert_int_equal(mkdir(f->bin, 0755), 0);
	snprintf(f->path, sizeof(f->path), "%s:/usr/bin:/bin", f->bin);

	snprintf(p, sizeof(p), "%s/mytrue", f->bin);
	assert_int_equal(symlink("/usr/bin/true", p), 0);
	snprintf(p, sizeof(p), "%s/mytool", f->bin);
	assert_int_equal(symlink("/usr/bin/true", p), 0);
	script(f, "scr", "#!/bin/sh\necho hi\n");
	script(f, "scr2", "#! /bin/sh -e  \r\n");
	script(f, "envscr", "#!/usr/bin/env mytool\n");
	script(f, "envs", "#!/usr/bin/env -S mytool --flag\n");
	script(f, "envopt", "#!/usr/bin/env -i mytool\n");
	script(f, "envmissing", "#!/usr/bin/env nosuchtool\n");
	script(f, "noexec-data", "just text\n");
	snprintf(p, sizeof(p), "%s/notx", f->bin);
	write_file(p, "#!/bin/sh\n", 10, 0644);
	/* a loop of scripts, each run by the next: bounded depth */
	for (int i = 0; i < 8; i++) {
		char name[16], text[PATH_MAX];
		snprintf(name, sizeof(name), "loop%d", i);
		snprintf(text, sizeof(text), "#!%s/loop%d\n", f->bin,
			 (i + 1) % 8);
		script(f, name, text);
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static char *real(const char *p)
{
	char *r = realpath(p, NULL);
	assert_non_null(r);
	return r;
}

static bool has_loader(const struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strstr(sv->v[i], "/ld-linux") || strstr(sv->v[i], "/ld-"))
			return true;
	return false;
}

static int resolve(struct fx *f, const char *const *allow, bool any,
		   const char *program, struct strv *exec, char **pp,
		   struct lnk_err *err)
{
	struct strv a = {0};
	int r;
	for (size_t i = 0; allow && allow[i]; i++)
		strv_push(&a, allow[i]);
	r = commands_resolve(&a, any, f->path, program, exec, pp, err);
	strv_free(&a);
	return r;
}

static void path_search_keeps_symlink(void **state)
{
	struct fx *f = *state;
	struct strv exec = {0};
	char *pp = NULL, want[PATH_MAX];
	struct lnk_err err = {0};

	assert_int_equal(resolve(f, NULL, true, "mytrue", &exec, &pp, &err), 0);
	snprintf(want, sizeof(want), "%s/mytrue", f->bin);
	assert_string_equal(pp, want);
	assert_int_equal(exec.n, 0); /* any: no allow-list */
	free(pp);
	/* the first PATH entry wins; an absolute path is taken as is */
	assert_int_equal(
	    resolve(f, NULL, true, "/usr/bin/true", &exec, &pp, &err), 0);
	assert_string_equal(pp, "/usr/bin/true");
	free(pp);
}

static void not_found(void **state)
{
	struct fx *f = *state;
	struct strv exec = {0};
	char *pp = NULL;
	struct lnk_err err = {0};

	assert_int_equal(resolve(f, NULL, true, "nosuchprog", &exec, &pp, &err),
			 -ENOENT);
	assert_string_equal(err.msg, "'nosuchprog' not found on PATH");
	assert_null(pp);
	/* a plain file without +x is not a program */
	assert_int_equal(resolve(f, NULL, true, "notx", &exec, &pp, &err),
			 -ENOENT);
	assert_int_equal(resolve(f, NULL, true, "", &exec, &pp, &err), -ENOENT);
	assert_int_equal(
	    resolve(f, NULL, false, "/no/such/file", &exec, &pp, &err),
	    -ENOENT);
}

static void allowed_elf_gets_loader(void **state)
{
	struct fx *f = *state;
	const char *allow[] = {"mytrue", "nosuch-skipped", NULL};
	struct strv exec = {0};
	char *pp = NULL, *t = real("/usr/bin/true");
	struct lnk_err err = {0};

	assert_int_equal(resolve(f, allow, false, "mytrue", &exec, &pp, &err),
			 0);
	assert_true(strv_contains(&exec, t));
	assert_true(has_loader(&exec)); /* PT_INTERP, as a realpath */
	for (size_t i = 0; i < exec.n; i++) {
		char *r = real(exec.v[i]);
		assert_string_equal(r, exec.v[i]); /* all realpaths */
		free(r);
	}
	free(t);
	free(pp);
	strv_free(&exec);
}

static void not_allowed(void **state)
{
	struct fx *f = *state;
	const char *allow[] = {"mytrue", NULL};
	struct strv exec = {0};
	char *pp = NULL;
	struct lnk_err err = {0};

	/* false shares true's loader: still refused */
	assert_int_equal(resolve(f, allow, false, "false", &exec, &pp, &err),
			 -EACCES);
	assert_string_equal(err.msg, "'false' is not allowed: add --command "
				     "false or [commands] allow");
	assert_null(pp);
	assert_int_equal(exec.n, 0); /* nothing half-added on refusal */
	assert_int_equal(
	    resolve(f, allow, false, "/usr/bin/false", &exec, &pp, &err),
	    -EACCES);
	assert_non_null(strstr(err.msg, "add --command false or"));
}

static void shebang_chain(void **state)
{
	struct fx *f = *state;
	const char *allow[] = {"scr", NULL};
	struct strv exec = {0};
	char *pp = NULL, p[PATH_MAX], *sh = real("/bin/sh"), *s;
	struct lnk_err err = {0};

	assert_int_equal(resolve(f, allow, false, "scr", &exec, &pp, &err), 0);
	snprintf(p, sizeof(p), "%s/scr", f->bin);
	s = real(p);
	assert_true(strv_contains(&exec, s));
	assert_true(strv_contains(&exec, sh)); /* dash */
	assert_true(has_loader(&exec));	       /* dash's loader */
	free(s);
	free(sh);
	free(pp);
	strv_free(&exec);
}

static void env_chain(void **state)
{
	struct fx *f = *state;
	const char *allow[] = {"envscr", "envs", NULL};
	struct strv exec = {0};
	char *pp = NULL, *env = real("/usr/bin/env"),
	     *t = real("/usr/bin/true");
	struct lnk_err err = {0};

	assert_int_equal(resolve(f, allow, false, "envs", &exec, &pp, &err), 0);
	assert_true(strv_contains(&exec, env));
	assert_true(strv_contains(&exec, t)); /* mytool on PATH → true */
	free(env);
	free(t);
	free(pp);
	strv_free(&exec);
}

static void script_runs_when_interpreter_allowed(void **state)
{
	struct fx *f = *state;
	const char *allow[] = {"sh", NULL};
	struct strv exec = {0};
	char *pp = NULL, p[PATH_MAX], *s;
	struct lnk_err err = {0};

	snprintf(p, sizeof(p), "%s/scr2", f->bin);
	assert_int_equal(resolve(f, allow, false, p, &exec, &pp, &err), 0);
	s = real(p);
	assert_true(strv_contains(&exec, s)); /* the script needs EXECUTE */
	free(s);
	free(pp);
	strv_free(&exec);
}

static void script_interpreter_not_allowed(void **state)
{
	struct fx *f = *state;
	const char *allow[] = {"mytrue", NULL};
	const char *allow_env[] = {"env", NULL};
	struct strv exec = {0};
	char *pp = NULL;
	struct lnk_err err = {0};

	assert_int_equal(resolve(f, allow, false, "scr", &exec, &pp, &err),
			 -EACCES);
	assert_string_equal(err.msg,
			    "'scr' is a script run by '/bin/sh', which is not "
			    "allowed: add --command sh or [commands] allow");
	/* env allowed, but not what it runs */
	assert_int_equal(
	    resolve(f, allow_env, false, "envscr", &exec, &pp, &err), -EACCES);
	assert_string_equal(err.msg,
			    "'envscr' is a script run by 'mytool', which is "
			    "not allowed: add --command mytool or [commands] "
			    "allow");
	assert_int_equal(
	    resolve(f, allow_env, false, "envmissing", &exec, &pp, &err),
	    -EACCES);
	assert_non_null(strstr(err.msg, "'nosuchtool', which is not found"));
	assert_int_equal(
	    resolve(f, allow_env, false, "envopt", &exec, &pp, &err), -EACCES);
	assert_non_null(strstr(err.msg, "cannot be told"));
	/* not a script, not allowed */
	assert_int_equal(
	    resolve(f, allow, false, "noexec-data", &exec, &pp, &err), -EACCES);
	assert_non_null(strstr(err.msg, "'noexec-data' is not allowed"));
	assert_int_equal(exec.n, 0);
}

static void endless_chain_bounded(void **state)
{
	struct fx *f = *state;
	const char *allow[] = {"loop0", NULL};
	struct strv exec = {0};
	char *pp = NULL;
	struct lnk_err err = {0};

	assert_int_equal(resolve(f, allow, false, "loop0", &exec, &pp, &err),
			 0);
	/* loop0 and at most COMMANDS_MAX_DEPTH interpreters */
	assert_true(exec.n >= 2 && exec.n <= COMMANDS_MAX_DEPTH + 1);
	free(pp);
	strv_free(&exec);
}

static void hostile_elf(void **state)
{
	struct fx *f = *state;
	char p[PATH_MAX], want[PATH_MAX], *w;
	struct {
		uint16_t phnum;
		uint64_t phoff, size;
		bool interp;
	} rows[] = {
	    {1, 64, 0, true},		   /* well formed */
	    {0xffff, 64, 0, false},	   /* too many headers */
	    {1, 1u << 30, 0, false},	   /* headers past the end */
	    {1, UINT64_MAX - 8, 0, false}, /* offset overflow */
	    {1, 64, 5000, false},	   /* interp longer than PATH_MAX */
	    {1, 64, 3, false},		   /* interp not NUL-terminated */
	};

	snprintf(want, sizeof(want), "%s/fake-ld", f->bin);
	write_file(want, "x", 1, 0755);
	w = real(want);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		const char *allow[] = {"fake", NULL};
		struct strv exec = {0};
		char *pp = NULL;
		struct lnk_err err = {0};
		snprintf(p, sizeof(p), "%s/fake", f->bin);
		fake_elf(p, want, rows[i].phnum, rows[i].phoff, rows[i].size);
		assert_int_equal(
		    resolve(f, allow, false, "fake", &exec, &pp, &err), 0);
		if (strv_contains(&exec, w) != rows[i].interp)
			fail_msg("row %zu: interp %s", i,
				 rows[i].interp ? "missing" : "taken");
		free(pp);
		strv_free(&exec);
	}
	free(w);
}

/* A folder with a trailing slash allows the programs under it, and goes to
 * the exec list whole (Landlock grants beneath it); without the slash it is
 * refused, saying to add it. */
static void folder_entries(void **state)
{
	struct fx *f = *state;
	struct strv exec = {0};
	char *pp = NULL, folder[PATH_MAX], bare[PATH_MAX], prog[PATH_MAX];
	struct lnk_err err = {0};

	snprintf(folder, sizeof(folder), "%s/", f->bin);
	snprintf(bare, sizeof(bare), "%s", f->bin);
	snprintf(prog, sizeof(prog), "%s/scr", f->bin);
	const char *const with_slash[] = {folder, NULL};
	assert_int_equal(resolve(f, with_slash, false, prog, &exec, &pp, &err),
			 0);
	char *rb = real(f->bin);
	assert_true(strv_contains(&exec, rb));
	/* its interpreter with it, as for a listed script */
	char *sh = real("/bin/sh");
	assert_true(strv_contains(&exec, sh));
	free(sh);
	free(pp);
	pp = NULL;
	strv_free(&exec);
	/* a program outside the folder stays refused */
	assert_int_equal(
	    resolve(f, with_slash, false, "/usr/bin/id", &exec, &pp, &err),
	    -EACCES);
	strv_free(&exec);
	const char *const no_slash[] = {bare, NULL};
	assert_int_equal(resolve(f, no_slash, false, prog, &exec, &pp, &err),
			 -EISDIR);
	assert_non_null(strstr(err.msg, "trailing slash"));
	assert_null(pp);
	strv_free(&exec);
	/* a folder entry that is no folder */
	char notdir[PATH_MAX];
	snprintf(notdir, sizeof(notdir), "%s/scr/", f->bin);
	const char *const nd[] = {notdir, NULL};
	assert_int_equal(resolve(f, nd, false, prog, &exec, &pp, &err),
			 -ENOTDIR);
	strv_free(&exec);
	free(rb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(path_search_keeps_symlink),
	    cmocka_unit_test(not_found),
	    cmocka_unit_test(allowed_elf_gets_loader),
	    cmocka_unit_test(not_allowed),
	    cmocka_unit_test(shebang_chain),
	    cmocka_unit_test(env_chain),
	    cmocka_unit_test(script_runs_when_interpreter_allowed),
	    cmocka_unit_test(script_interpreter_not_allowed),
	    cmocka_unit_test(endless_chain_bounded),
	    cmocka_unit_test(hostile_elf),
	    cmocka_unit_test(folder_entries),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
