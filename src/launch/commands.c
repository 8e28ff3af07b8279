/* [commands] allow → the exact files Landlock lets the sandbox execute.
 *
 * Landlock binds a rule to an inode, so each allowed name is resolved to
 * its real file (python3 → python3.11 is fine: exec follows the symlink to
 * the same inode). The kernel also opens, with execute rights, the ELF
 * interpreter of a dynamic program and the interpreter of a script, so
 * those are added too; without the loader, every dynamic program would be
 * refused (docs/kernel-facts.md, landlock-exec-needs-interpreter).
 *
 * Files read here are hostile input (a script or a binary in a project
 * folder): every offset and length read from them is bounded and checked.
 */
#include "launch/commands.h"

#ifndef __APPLE__
#include <elf.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/elf.h"
#include "common/esc.h"

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#define SHEBANG_MAX 256 /* the kernel reads no more (BINPRM_BUF_SIZE) */

static bool is_exec_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_mode & 0111);
}

/* A name on PATH, or a path. Relative PATH entries are skipped: they
 * would be resolved against lnk's folder, not the sandbox's. */
static char *resolve_name(const char *name, const char *path_env)
{
	if (!*name)
		return NULL;
	if (strchr(name, '/')) {
		char cwd[PATH_MAX];
		if (name[0] == '/')
			return is_exec_file(name) ? xstrdup(name) : NULL;
		if (!getcwd(cwd, sizeof(cwd)))
			return NULL;
		char *p = xasprintf("%s/%s", cwd, name);
		if (is_exec_file(p))
			return p;
		free(p);
		return NULL;
	}
	const char *s = path_env ? path_env : DEFAULT_PATH;
	while (*s) {
		/* strcspn, not strchrnul: macOS has none */
		const char *e = s + strcspn(s, ":");
		if (e > s && s[0] == '/') {
			char *p = xasprintf("%.*s/%s", (int)(e - s), s, name);
			if (is_exec_file(p))
				return p;
			free(p);
		}
		s = *e ? e + 1 : e;
	}
	return NULL;
}

/* The PT_INTERP of an ELF file, or NULL (static, not ELF, malformed). */
static char *elf_interp(int fd)
{
#ifdef __APPLE__
	/* Mach-O: the kernel maps dyld itself, and Seatbelt's process-exec
	 * is asked of the program alone (launch/seatbelt.c). */
	(void)fd;
	return NULL;
#else
	struct elf_file e;
	struct elf_phdr p;

	if (!elf_open(fd, &e))
		return NULL;
	for (unsigned i = 0; i < e.phnum; i++) {
		if (!elf_phdr(fd, &e, i, &p))
			return NULL;
		if (p.type != PT_INTERP)
			continue;
		if (p.filesz < 2 || p.filesz > PATH_MAX)
			return NULL;
		char *s = xmalloc(p.filesz + 1);
		if (pread_all(fd, s, p.filesz, p.off) < 0 ||
		    s[p.filesz - 1] != '\0' || strlen(s) != p.filesz - 1) {
			free(s);
			return NULL;
		}
		return s;
	}
	return NULL;
#endif
}

/* The shebang line, split as the kernel does: the interpreter, then the
 * rest of the line (trimmed) as one optional argument. */
static bool shebang(int fd, char **interp, char **arg)
{
	char buf[SHEBANG_MAX + 1];
	ssize_t n;
	char *p, *end, *q;

	*interp = *arg = NULL;
	do
		n = pread(fd, buf, SHEBANG_MAX, 0);
	while (n < 0 && errno == EINTR);
	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return false;
	buf[n] = '\0';
	end = memchr(buf, '\n', (size_t)n);
	if (!end)
		end = buf + n;
	*end = '\0';
	p = buf + 2;
	while (*p == ' ' || *p == '\t')
		p++;
	q = p;
	while (*q && *q != ' ' && *q != '\t')
		q++;
	if (q == p)
		return false;
	*interp = xstrndup(p, (size_t)(q - p));
	while (*q == ' ' || *q == '\t')
		q++;
	p = q + strlen(q);
	while (p > q && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\r'))
		p--;
	if (p > q)
		*arg = xstrndup(q, (size_t)(p - q));
	return true;
}

/* `#!/usr/bin/env X` or `#!/usr/bin/env -S X args`: the program env runs. */
static char *env_target(const char *arg)
{
	const char *p = arg, *q;

	if (!arg)
		return NULL;
	if (!strncmp(p, "-S", 2) && (p[2] == ' ' || p[2] == '\t')) {
		p += 2;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	if (*p == '-' || !*p)
		return NULL; /* other env options: cannot tell the program */
	q = p;
	while (*q && *q != ' ' && *q != '\t')
		q++;
	return xstrndup(p, (size_t)(q - p));
}

static bool is_env(const char *real)
{
	const char *b = strrchr(real, '/');
	return b && !strcmp(b + 1, "env");
}

static void add_unique(struct strv *sv, const char *s)
{
	if (!strv_contains(sv, s))
		strv_push(sv, s);
}

/* The files exec'ing path needs EXECUTE on: itself, its loader, and its
 * interpreters. Appended to out as realpaths. The first link of the chain
 * that cannot be resolved is named in *missing (caller frees). */
static void chain(const char *path, const char *path_env, int depth,
		  struct strv *out, char **missing)
{
	_cleanup_free_ char *real = realpath(path, NULL);
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *interp = NULL, *arg = NULL, *ld = NULL;

	if (!real) {
		if (missing && !*missing)
			*missing = xstrdup(path);
		return;
	}
	add_unique(out, real);
	fd = open(real, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return;
	if ((ld = elf_interp(fd))) {
		_cleanup_free_ char *ldreal = realpath(ld, NULL);
		if (ldreal)
			add_unique(out, ldreal);
		else if (missing && !*missing)
			*missing = xstrdup(ld);
		return;
	}
	if (depth >= COMMANDS_MAX_DEPTH || !shebang(fd, &interp, &arg))
		return;
	if (interp[0] != '/') {
		if (missing && !*missing)
			*missing = xstrdup(interp);
		return;
	}
	chain(interp, path_env, depth + 1, out, missing);
	_cleanup_free_ char *ireal = realpath(interp, NULL);
	if (ireal && is_env(ireal)) {
		_cleanup_free_ char *x = env_target(arg);
		_cleanup_free_ char *xp = x ? resolve_name(x, path_env) : NULL;
		if (xp)
			chain(xp, path_env, depth + 1, out, missing);
		else if (x && missing && !*missing)
			*missing = xstrdup(x);
	}
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

/* Whether every file the interpreter `name` needs is in allowed; if not,
 * an error naming it as the script does. */
static int interp_allowed(const char *program, const char *name,
			  const char *path, const char *path_env,
			  const struct strv *allowed, struct lnk_err *err)
{
	struct strv need = {0};
	char *missing = NULL;
	int r = 0;
	/* The script, and the interpreter its first line names, are the
	 * program's words: escaped (common/esc.h) before they are shown. */
	char prog_s[256], name_s[256];
	esc_to(prog_s, sizeof(prog_s), program);

	if (path)
		chain(path, path_env, 1, &need, &missing);
	if (!path || missing) {
		r = err_set(
		    err, -EACCES,
		    "'%s' is a script run by '%s', which is not found", prog_s,
		    esc_to(name_s, sizeof(name_s), missing ? missing : name));
		goto out;
	}
	for (size_t i = 0; i < need.n; i++) {
		if (strv_contains(allowed, need.v[i]))
			continue;
		/* A file chose the interpreter's name, and the flag's
		 * value is pasted into a shell: one word. */
		_cleanup_free_ char *word = esc_word_dup(base_name(name));
		r = err_set(err, -EACCES,
			    "'%s' is a script run by '%s', which is not "
			    "allowed: add --command %s or [commands] allow",
			    prog_s, esc_to(name_s, sizeof(name_s), name), word);
		goto out;
	}
out:
	free(missing);
	strv_free(&need);
	return r;
}

static int script_allowed(const char *prog, const char *program,
			  const char *path_env, const struct strv *allowed,
			  struct lnk_err *err)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *interp = NULL, *arg = NULL, *ireal = NULL;
	_cleanup_free_ char *x = NULL, *xp = NULL;
	char prog_s[256], interp_s[256], arg_s[256];
	int r;

	fd = open(prog, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || !shebang(fd, &interp, &arg)) {
		/* The flag's value is pasted into a shell: one word. */
		_cleanup_free_ char *word = esc_word_dup(base_name(program));
		return err_set(err, -EACCES,
			       "'%s' is not allowed: add --command %s or "
			       "[commands] allow",
			       esc_to(prog_s, sizeof(prog_s), program), word);
	}
	r = interp_allowed(program, interp, interp[0] == '/' ? interp : NULL,
			   path_env, allowed, err);
	if (r < 0)
		return r;
	ireal = realpath(interp, NULL);
	if (!ireal || !is_env(ireal))
		return 0;
	x = env_target(arg);
	if (!x)
		return err_set(err, -EACCES,
			       "'%s' is a script run by '%s %s', whose program "
			       "cannot be told: list the script itself in "
			       "[commands] allow",
			       esc_to(prog_s, sizeof(prog_s), program),
			       esc_to(interp_s, sizeof(interp_s), interp),
			       esc_to(arg_s, sizeof(arg_s), arg));
	xp = resolve_name(x, path_env);
	return interp_allowed(program, x, xp, path_env, allowed, err);
}

/* An entry written with a trailing slash is a folder: the programs under
 * it may run. Landlock grants EXECUTE beneath a folder with one rule, so
 * the folder itself goes to exec_files. An entry without the slash that
 * names a folder is refused: it would allow nothing, silently. */
static bool is_folder_entry(const char *a)
{
	size_t n = strlen(a);

	return n > 1 && a[n - 1] == '/';
}

static int add_folder(const char *a, struct strv *folders, struct lnk_err *err)
{
	_cleanup_free_ char *real = realpath(a, NULL);
	struct stat st;

	if (!real || stat(real, &st) < 0)
		return err_set(err, -ENOTDIR,
			       "--command '%s': no such folder; give a folder "
			       "that exists",
			       a);
	if (!S_ISDIR(st.st_mode))
		return err_set(err, -ENOTDIR,
			       "--command '%s': not a folder; drop the "
			       "trailing slash to allow this one program",
			       a);
	add_unique(folders, real);
	return 0;
}

static int refuse_bare_folder(const char *a, struct lnk_err *err)
{
	struct stat st;

	if (strchr(a, '/') && stat(a, &st) == 0 && S_ISDIR(st.st_mode))
		return err_set(err, -EISDIR,
			       "--command '%s' is a folder: write '%s/' (with "
			       "the trailing slash) to allow the programs "
			       "under it",
			       a, a);
	return 0;
}

static bool under_folder(const struct strv *folders, const char *real)
{
	for (size_t i = 0; i < folders->n; i++) {
		size_t n = strlen(folders->v[i]);
		if (strncmp(real, folders->v[i], n) == 0 &&
		    (real[n] == '/' || (n == 1 && real[0] == '/')))
			return true;
	}
	return false;
}

int commands_resolve(const struct strv *allow, bool any, const char *path_env,
		     const char *program, struct strv *exec_files,
		     char **program_path, struct lnk_err *err)
{
	_cleanup_free_ char *prog = NULL, *preal = NULL;
	struct strv allowed = {0};
	char prog_s[256];
	int r = 0;

	esc_to(prog_s, sizeof(prog_s), program);
	*program_path = NULL;
	prog = resolve_name(program, path_env);
	if (!prog) {
		if (strchr(program, '/'))
			return err_set(err, -ENOENT,
				       "'%s' not found or not executable",
				       prog_s);
		return err_set(err, -ENOENT, "'%s' not found on PATH", prog_s);
	}
	if (any) {
		*program_path = steal_pointer(&prog);
		return 0;
	}

	struct strv folders = {0};
	for (size_t i = 0; allow && i < allow->n; i++) {
		if (is_folder_entry(allow->v[i])) {
			if ((r = add_folder(allow->v[i], &folders, err)) < 0)
				goto out;
			continue;
		}
		if ((r = refuse_bare_folder(allow->v[i], err)) < 0)
			goto out;
		_cleanup_free_ char *p = resolve_name(allow->v[i], path_env);
		if (p)
			chain(p, path_env, 0, &allowed, NULL);
	}

	preal = realpath(prog, NULL);
	if (!preal) {
		r = err_set(err, -ENOENT, "'%s' not found", prog_s);
		goto out;
	}
	/* A program under an allowed folder is allowed as if listed: its
	 * loader and interpreters with it. */
	if (under_folder(&folders, preal))
		chain(prog, path_env, 0, &allowed, NULL);
	if (!strv_contains(&allowed, preal)) {
		/* A script not in the list runs when its interpreters do:
		 * running it is running them (`python3 x.py` is allowed
		 * anyway), so this opens nothing new. A binary not in the
		 * list never runs, whatever loader it shares with one. */
		r = script_allowed(prog, program, path_env, &allowed, err);
		if (r < 0)
			goto out;
		add_unique(&allowed, preal);
	}
	for (size_t i = 0; i < folders.n; i++)
		add_unique(exec_files, folders.v[i]);
	for (size_t i = 0; i < allowed.n; i++)
		add_unique(exec_files, allowed.v[i]);
	*program_path = steal_pointer(&prog);
out:
	strv_free(&folders);
	strv_free(&allowed);
	return r;
}

int commands_allowed(const struct strv *allow, const char *path_env,
		     struct strv *exec_files, struct strv *exec_folders,
		     struct lnk_err *err)
{
	for (size_t i = 0; allow && i < allow->n; i++) {
		int r;
		if (is_folder_entry(allow->v[i])) {
			if ((r = add_folder(allow->v[i], exec_folders, err)) <
			    0)
				return r;
			continue;
		}
		if ((r = refuse_bare_folder(allow->v[i], err)) < 0)
			return r;
		_cleanup_free_ char *p = resolve_name(allow->v[i], path_env);
		if (p)
			chain(p, path_env, 0, exec_files, NULL);
	}
	return 0;
}
