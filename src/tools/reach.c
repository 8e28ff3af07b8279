/* Whether a tool's file is the program's to change (reach.h).
 *
 * The files read here are hostile input: every offset and length read
 * from an ELF file is bounded and checked. */
#include "tools/reach.h"

#include <dirent.h>
#ifndef __APPLE__
#include <elf.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/elf.h"
#include "common/fsplace.h"
#include "tools/allow.h"

#define SHEBANG_MAX 256	       /* the kernel reads no more (BINPRM_BUF_SIZE) */
#define INTERP_DEPTH 4	       /* the kernel's nesting of script interpreters */
#define LINK_SEARCH_MAX 200000 /* entries of a write folder looked through */
#define LINK_SEARCH_DEPTH 128
#define DYN_MAX 4096

/* The write folder of w that shows d (an existing path) at a path of its
 * own, by a bind mount inside it of d or of a folder that holds it: the
 * folders above d are not the write folder's, yet the program writes d
 * there. NULL when none does (or the mounts cannot be read). */
static const char *shown_in(const struct strv *w, const char *d)
{
	struct mount_table t;
	const char *hit = NULL;
	_cleanup_free_ char *real = realpath(d, NULL);

	if (!real || !w->n || mounts_read(&t) < 0)
		return NULL;
	for (size_t i = 0; i < w->n && !hit; i++) {
		struct strv alts = {0};
		mounts_seen_at(&t, w->v[i], real, &alts);
		if (alts.n)
			hit = w->v[i];
		strv_free(&alts);
	}
	mounts_free(&t);
	return hit;
}

const char *tools_write_folder_of(const struct strv *w, const char *path)
{
	char d[PATH_MAX];
	struct stat ws, ds;
	bool first = true;

	if (snprintf(d, sizeof(d), "%s", path) >= (int)sizeof(d))
		return NULL;
	for (;;) {
		if (stat(d, &ds) == 0) {
			for (size_t i = 0; i < w->n; i++)
				if (stat(w->v[i], &ws) == 0 &&
				    ws.st_dev == ds.st_dev &&
				    ws.st_ino == ds.st_ino)
					return w->v[i];
			/* the nearest existing path: where a bind mount
			 * inside a write folder would show it */
			if (first) {
				first = false;
				const char *f = shown_in(w, d);
				if (f)
					return f;
			}
		}
		char *sl = strrchr(d, '/');
		if (!sl || strcmp(d, "/") == 0)
			return NULL;
		sl[sl == d ? 1 : 0] = '\0';
	}
}

/* Whether the program, with lnk's user (root: uid 0 without
 * capabilities), may write the file st: by its mode, as the kernel
 * decides without CAP_DAC_OVERRIDE. A user's access() adds ACLs; a
 * read-only mount here may be writable at the write folder's path. */
static bool may_write(const char *path, const struct stat *st)
{
	uid_t uid = geteuid();

	if (uid != 0)
		return access(path, W_OK) == 0 || errno == EROFS;
	if (st->st_uid == 0)
		return st->st_mode & S_IWUSR;
	if (st->st_gid == getegid())
		return st->st_mode & S_IWGRP;
	gid_t g[256];
	int n = getgroups(256, g);
	for (int i = 0; i < n; i++)
		if (g[i] == st->st_gid)
			return st->st_mode & S_IWGRP;
	return st->st_mode & S_IWOTH;
}

/* How many names of the file st the folder dir holds. */
static nlink_t names_in(const char *dir, const struct stat *st)
{
	DIR *d = opendir(dir);
	nlink_t n = 0;
	struct dirent *e;
	struct stat es;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_ino == st->st_ino &&
		    fstatat(dirfd(d), e->d_name, &es, AT_SYMLINK_NOFOLLOW) ==
			0 &&
		    es.st_dev == st->st_dev && es.st_ino == st->st_ino)
			n++;
	closedir(d);
	return n;
}

struct search {
	const struct stat *st;
	size_t left; /* entries still to look at */
	bool unsure; /* a folder not looked through */
	char *found; /* the path found, PATH_MAX */
};

/* A name of s->st under the folder fd (at path p, of length len): by the
 * entries' inode numbers, confirmed by fstatat; into every subfolder,
 * never through a link. fd is closed. */
static bool search_in(struct search *s, int fd, char *p, size_t len,
		      unsigned depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *e;
	bool hit = false;

	if (!d) {
		close(fd);
		s->unsure = true;
		return false;
	}
	while (!hit && !s->unsure && (e = readdir(d))) {
		struct stat es;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!s->left) {
			s->unsure = true;
			break;
		}
		s->left--;
		size_t nl = strlen(e->d_name);
		if (len + 1 + nl >= PATH_MAX) {
			s->unsure = true;
			continue;
		}
		bool dir = e->d_type == DT_DIR;
		if (e->d_ino == s->st->st_ino || e->d_type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), e->d_name, &es,
				    AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			dir = S_ISDIR(es.st_mode);
			if (es.st_dev == s->st->st_dev &&
			    es.st_ino == s->st->st_ino) {
				snprintf(p + len, PATH_MAX - len, "/%s",
					 e->d_name);
				hit = true;
				break;
			}
		}
		if (!dir)
			continue;
		if (depth >= LINK_SEARCH_DEPTH) {
			s->unsure = true;
			continue;
		}
		int sub =
		    openat(dirfd(d), e->d_name,
			   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			/* A folder lnk's user cannot read but owns, the
			 * program (the same user) can open to itself. */
			if (errno != ENOENT &&
			    fstatat(dirfd(d), e->d_name, &es,
				    AT_SYMLINK_NOFOLLOW) == 0 &&
			    es.st_uid == geteuid())
				s->unsure = true;
			continue;
		}
		snprintf(p + len, PATH_MAX - len, "/%s", e->d_name);
		hit = search_in(s, sub, p, len + 1 + nl, depth + 1);
		if (!hit)
			p[len] = '\0';
	}
	closedir(d);
	return hit;
}

/* real, a file the tool runs: in a write folder, or with another name in
 * one that the program may write it through. A file has other names only
 * on its own file system, where the walk looks for them: first the file's
 * own folder (perl and perl5.36.0 in /usr/bin), then each write folder on
 * that file system, up to LINK_SEARCH_MAX entries; past that, unsure. */
static bool check_file(const struct strv *w, const char *real,
		       struct tool_reach *r)
{
	struct stat st, ws;
	char dir[PATH_MAX];

	snprintf(r->what, sizeof(r->what), "%s", real);
	if ((r->folder = tools_write_folder_of(w, real))) {
		r->kind = REACH_IN;
		return true;
	}
	if (stat(real, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2 ||
	    !may_write(real, &st))
		return false;
	snprintf(dir, sizeof(dir), "%s", real);
	char *sl = strrchr(dir, '/');
	if (sl)
		sl[sl == dir ? 1 : 0] = '\0';
	if (names_in(dir, &st) >= st.st_nlink)
		return false;
	struct search s = {
	    .st = &st, .left = LINK_SEARCH_MAX, .found = r->name};
	for (size_t i = 0; i < w->n; i++) {
		if (stat(w->v[i], &ws) < 0 || ws.st_dev != st.st_dev)
			continue;
		int fd = open(w->v[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			s.unsure = true;
		} else {
			size_t len = strlen(w->v[i]);
			snprintf(r->name, sizeof(r->name), "%s", w->v[i]);
			while (len > 1 && r->name[len - 1] == '/')
				r->name[--len] = '\0';
			if (search_in(&s, fd, r->name, len == 1 ? 0 : len, 0)) {
				r->kind = REACH_LINK;
				r->folder = w->v[i];
				return true;
			}
		}
		if (s.unsure) {
			r->kind = REACH_LINK_UNSURE;
			r->folder = w->v[i];
			r->name[0] = '\0';
			return true;
		}
	}
	return false;
}

/* A path the loader or the kernel opens for the tool: relative (or
 * empty), it is found from the folder the tool runs in, the program's;
 * absolute, it must be in no write folder. $ORIGIN is the file's
 * folder. */
static bool check_search(const struct strv *w, const char *file,
			 const char *entry, struct tool_reach *r)
{
	char dir[PATH_MAX], path[PATH_MAX];
	size_t n = 0;

	snprintf(r->what, sizeof(r->what), "%s", file);
	snprintf(r->name, sizeof(r->name), "%s", entry);
	if (entry[0] != '/' && strncmp(entry, "$ORIGIN", 7) != 0 &&
	    strncmp(entry, "${ORIGIN}", 9) != 0) {
		r->kind = REACH_HERE;
		return true;
	}
	snprintf(dir, sizeof(dir), "%s", file);
	char *sl = strrchr(dir, '/');
	if (sl)
		sl[sl == dir ? 1 : 0] = '\0';
	for (const char *s = entry; *s && n < sizeof(path) - 1;) {
		size_t k = !strncmp(s, "$ORIGIN", 7)	 ? 7
			   : !strncmp(s, "${ORIGIN}", 9) ? 9
							 : 0;
		if (k) {
			n += (size_t)snprintf(path + n, sizeof(path) - n, "%s",
					      dir);
			s += k;
		} else {
			path[n++] = *s++;
		}
	}
	path[n < sizeof(path) ? n : sizeof(path) - 1] = '\0';
	if ((r->folder = tools_write_folder_of(w, path))) {
		r->kind = REACH_LIBPATH;
		return true;
	}
	return false;
}

#ifndef __APPLE__
/* A NUL-ended string of at most PATH_MAX - 1 bytes at off, or false. */
static bool elf_string(int fd, uint64_t off, uint64_t left, char *out)
{
	size_t n = left < PATH_MAX ? (size_t)left : PATH_MAX;

	if (!n || off > INT64_MAX)
		return false;
	/* As much as the file has, then its end. */
	ssize_t got = pread(fd, out, n, (off_t)off);
	if (got <= 0)
		return false;
	char *end = memchr(out, '\0', (size_t)got);
	return end != NULL;
}

/* The ELF file's loader and the paths its loader searches first:
 * PT_INTERP, then each entry of DT_RPATH and DT_RUNPATH and each
 * DT_NEEDED that is a path. true at the first the program may change. */
static bool check_elf(const struct strv *w, int fd, const char *real,
		      struct tool_reach *r)
{
	struct elf_file e;
	struct elf_phdr p, dyn = {0};
	char s[PATH_MAX], interp[PATH_MAX];

	if (!elf_open(fd, &e))
		return false;
	for (unsigned i = 0; i < e.phnum; i++) {
		if (!elf_phdr(fd, &e, i, &p))
			return false;
		if (p.type == PT_DYNAMIC)
			dyn = p;
		if (p.type != PT_INTERP || !elf_string(fd, p.off, p.filesz, s))
			continue;
		if (s[0] != '/')
			return check_search(w, real, s, r);
		if (realpath(s, interp) && check_file(w, interp, r))
			return true;
	}
	if (dyn.type != PT_DYNAMIC)
		return false;
	/* The dynamic section: the string table's address first, then the
	 * entries that name a path, as offsets into it. */
	size_t esz = e.is64 ? sizeof(Elf64_Dyn) : sizeof(Elf32_Dyn);
	uint64_t strtab = 0, strsz = 0, want[DYN_MAX];
	size_t nwant = 0;
	int64_t tags[DYN_MAX];
	for (uint64_t i = 0; i < DYN_MAX && (i + 1) * esz <= dyn.filesz; i++) {
		int64_t tag;
		uint64_t val;
		if (e.is64) {
			Elf64_Dyn d;
			if (pread_all(fd, &d, sizeof(d), dyn.off + i * esz) < 0)
				return false;
			tag = d.d_tag;
			val = d.d_un.d_val;
		} else {
			Elf32_Dyn d;
			if (pread_all(fd, &d, sizeof(d), dyn.off + i * esz) < 0)
				return false;
			tag = d.d_tag;
			val = d.d_un.d_val;
		}
		if (tag == DT_NULL)
			break;
		if (tag == DT_STRTAB)
			strtab = val;
		else if (tag == DT_STRSZ)
			strsz = val;
		else if (tag == DT_RPATH || tag == DT_RUNPATH ||
			 tag == DT_NEEDED) {
			tags[nwant] = tag;
			want[nwant++] = val;
		}
	}
	uint64_t stroff;
	if (!nwant || !elf_offset(fd, &e, strtab, &stroff))
		return false;
	for (size_t i = 0; i < nwant; i++) {
		if (want[i] >= strsz ||
		    !elf_string(fd, stroff + want[i], strsz - want[i], s))
			continue;
		if (tags[i] == DT_NEEDED) {
			/* a name without '/' is searched for, not a path */
			if (strchr(s, '/') && check_search(w, real, s, r))
				return true;
			continue;
		}
		for (char *t = s, *c;; t = c + 1) {
			c = strchr(t, ':');
			if (c)
				*c = '\0';
			if (check_search(w, real, t, r))
				return true;
			if (!c)
				break;
		}
	}
	return false;
}
#else
static bool check_elf(const struct strv *w, int fd, const char *real,
		      struct tool_reach *r)
{
	/* Mach-O: dyld's paths are not read here (GAPS AND LIMITS). */
	(void)w, (void)fd, (void)real, (void)r;
	return false;
}
#endif

static bool check_exec(const struct strv *w, const char *path, const char *real,
		       unsigned depth, struct tool_reach *r);

/* The program "#!/usr/bin/env [-S] [VAR=value] NAME" runs: NAME as env
 * finds it, on the tools' PATH (lnk's absolute entries); a NAME with a
 * '/' is a path, a relative one found from the tool's folder. args is the
 * rest of the "#!" line after env. */
static bool check_env(const struct strv *w, const char *path, const char *real,
		      char *args, unsigned depth, struct tool_reach *r)
{
	char *save = NULL, *found = NULL;

	for (char *t = strtok_r(args, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		if (t[0] == '-' || strchr(t, '='))
			continue;
		if (strchr(t, '/')) {
			char ip[PATH_MAX];
			if (t[0] != '/')
				return check_search(w, real, t, r);
			return realpath(t, ip) &&
			       check_exec(w, path, ip, depth + 1, r);
		}
		if (tools_lookup(t, path, &found) < 0)
			return false;
		bool hit = check_exec(w, path, found, depth + 1, r);
		free(found);
		return hit;
	}
	return false;
}

/* The file real, and what the kernel runs to run it: a script's
 * interpreter (itself perhaps a script, or env and the program it finds
 * on path), an ELF file's loader and the paths it searches. */
static bool check_exec(const struct strv *w, const char *path, const char *real,
		       unsigned depth, struct tool_reach *r)
{
	char line[SHEBANG_MAX + 1], interp[PATH_MAX];

	if (check_file(w, real, r))
		return true;
	int fd = open(real, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = pread(fd, line, SHEBANG_MAX, 0);
	if (n > 2 && line[0] == '#' && line[1] == '!') {
		close(fd);
		line[n] = '\0';
		line[strcspn(line, "\n")] = '\0';
		char *s = line + 2;
		s += strspn(s, " \t");
		char *rest = s + strcspn(s, " \t");
		if (*rest)
			*rest++ = '\0';
		if (!*s)
			return false;
		if (s[0] != '/')
			return check_search(w, real, s, r);
		if (depth >= INTERP_DEPTH || !realpath(s, interp))
			return false;
		if (check_exec(w, path, interp, depth + 1, r))
			return true;
		const char *base = strrchr(interp, '/') + 1;
		return strcmp(base, "env") == 0 &&
		       check_env(w, path, real, rest, depth, r);
	}
	bool hit = check_elf(w, fd, real, r);
	close(fd);
	return hit;
}

bool tool_reach(const struct strv *write, const char *path, const char *real,
		struct tool_reach *r)
{
	memset(r, 0, sizeof(*r));
	return check_exec(write, path, real, 0, r);
}
