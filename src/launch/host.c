/* Facts about this machine, and the probes of `lnk sandbox ready`.
 *
 * Over 1000 lines: the facts of this machine and the probes of `ready`
 * share their readers (user namespaces, Landlock, seccomp, AppArmor); split
 * along those lines when the next probe is added.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "common/buf.h"
#include "common/dents.h"
#include "common/fdpass.h"
#include "launch/account.h"
#include "launch/bwrap.h"
#include "launch/host.h"
#include "confine/layers.h"

/* Only system folders: a bwrap earlier on the user's PATH could be one a
 * sandboxed program wrote into ~/bin or ~/.local/bin. */
static const char *const bwrap_dirs[] = {"/usr/bin", "/bin", "/usr/local/bin",
					 NULL};

static bool is_exec_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

char *host_find_bwrap(void)
{
	for (size_t i = 0; bwrap_dirs[i]; i++) {
		char *p = xasprintf("%s/bwrap", bwrap_dirs[i]);
		if (is_exec_file(p))
			return p;
		free(p);
	}
	return NULL;
}

/* Whether the helper at p, in PREFIX/lib/lnk beside lnk's own folder
 * dir, is as much root's as an install is: lnk's folder, the helper's
 * folder and the helper owned by root and writable by no one else. An
 * unpacked package (dpkg -x as root) is; a copy of lnk in a folder of the
 * user's is not. Threat: a sandbox that may write the folder above a
 * user's own lnk (a --write of the home folder, with ~/bin/lnk) plants
 * ~/lib/lnk/lnk-init, the program that confines the next sandbox. */
static bool root_only(const char *dir, const char *p)
{
	_cleanup_free_ char *pdir = xstrdup(p);
	char *slash = strrchr(pdir, '/');
	if (slash)
		*slash = '\0';
	const char *paths[] = {dir, pdir, p};
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		struct stat st;
		if (stat(paths[i], &st) < 0 || st.st_uid != 0 ||
		    (st.st_mode & (S_IWGRP | S_IWOTH)))
			return false;
	}
	return is_exec_file(p);
}

char *host_find_helper(const char *name)
{
	char self[PATH_MAX];
	if (realpath("/proc/self/exe", self)) {
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			/* a build tree: the helpers beside lnk; an install
			 * unpacked anywhere (dpkg -x): PREFIX/bin/lnk beside
			 * PREFIX/lib/lnk/ */
			char *p = xasprintf("%s/%s", self, name);
			if (is_exec_file(p))
				return p;
			free(p);
			p = xasprintf("%s/../lib/lnk/%s", self, name);
			if (root_only(self, p)) {
				char real[PATH_MAX];
				char *r = realpath(p, real) ? xstrdup(real) : p;
				if (r != p)
					free(p);
				return r;
			}
			free(p);
		}
	}
	char *p = xasprintf("%s/%s", LNK_LIBEXECDIR, name);
	if (is_exec_file(p))
		return p;
	free(p);
	return NULL;
}

char *host_find_init(void)
{
	return host_find_helper("lnk-init");
}

/* Bigger /etc files are bound: a copy of each costs memory per sandbox. */
#define ETC_COPY_MAX (1 << 20)

/* A small folder of /etc (ld.so.conf.d, profile.d, python3: a handful of
 * entries) is made again inside like a file is copied, rather than bound:
 * at most this many entries, this deep. Bigger ones (ssl, alternatives)
 * are bound. */
#define ETC_TREE_MAX 16
#define ETC_TREE_DEPTH 2
#define ETC_TREE_BYTES 8192

static void strv_truncate(struct strv *sv, size_t n)
{
	while (sv->n > n) {
		free(sv->v[--sv->n]);
		sv->v[sv->n] = NULL;
	}
}

/* What of /etc enters: only what every user may read. Threat: /etc/ssl
 * is taken in for its certificates, and with it /etc/ssl/private: root's
 * sandbox (uid 0 over the host's files, no capability needed) read the
 * machine's TLS private keys. A file not readable by others, a folder not
 * searchable by them, stays out, for root as for a user. */
static bool everyone_reads(const struct stat *st)
{
	return S_ISDIR(st->st_mode) ? (st->st_mode & S_IXOTH) != 0
				    : (st->st_mode & S_IROTH) != 0;
}

/* A regular file lnk can read, small enough, is copied (bwrap.h,
 * etc_files): the descriptor opened now is what the sandbox gets, whatever
 * happens to the path later. name is opened from the folder dfd (flags:
 * O_NOFOLLOW or 0); path is what the sandbox calls it. O_NONBLOCK: a FIFO
 * put in /etc must not hang lnk. 1: copied; 0: left out (not everyone's
 * to read, everyone_reads); -1: bind it. */
static int copy_file(struct host_facts *h, int dfd, const char *name,
		     const char *path, int flags)
{
	struct stat st;
	int fd = openat(dfd, name,
			O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | flags);
	if (fd < 0)
		return errno == EACCES ? 0 : -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > ETC_COPY_MAX) {
		close(fd);
		return -1;
	}
	if (!everyone_reads(&st)) {
		close(fd);
		return 0;
	}
	size_t n = h->etc_files.n;
	h->etc_fds = xrealloc(h->etc_fds, (n + 1) * sizeof(int));
	h->etc_modes = xrealloc(h->etc_modes, (n + 1) * sizeof(unsigned));
	h->etc_fds[n] = fd;
	/* Read only either way; a script keeps its execute bits. */
	h->etc_modes[n] = st.st_mode & 0111 ? 0555 : 0444;
	strv_push(&h->etc_files, path);
	return 1;
}

int host_add_etc_text(struct host_facts *h, const char *path, const char *text,
		      struct lnk_err *err)
{
	size_t len = strlen(text);
	int fd = memfd_create("lnk-etc", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return err_set(err, -errno, "cannot make %s: %s", path,
			       strerror(errno));
	errno = 0;
	if (write(fd, text, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) ||
	    fcntl(fd, F_ADD_SEALS,
		  F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) <
		0) {
		int e = errno ? errno : EIO;
		close(fd);
		return err_set(err, -e, "cannot make %s: %s", path,
			       strerror(e));
	}
	size_t n = h->etc_files.n;
	for (size_t i = 0; i < h->etc_files.n; i++)
		if (strcmp(h->etc_files.v[i], path) == 0)
			n = i;
	if (n == h->etc_files.n) {
		h->etc_fds = xrealloc(h->etc_fds, (n + 1) * sizeof(int));
		h->etc_modes =
		    xrealloc(h->etc_modes, (n + 1) * sizeof(unsigned));
		strv_push(&h->etc_files, path);
	} else if (h->etc_fds[n] >= 0) {
		close(h->etc_fds[n]); /* the host's copy, replaced */
	}
	h->etc_fds[n] = fd;
	h->etc_modes[n] = 0444;
	return 0;
}

struct tree_entry {
	char *name;
	mode_t type; /* from the listing; 0: it does not say */
};

static int tree_entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tree_entry *)a)->name,
		      ((const struct tree_entry *)b)->name);
}

static bool copy_tree(struct host_facts *h, int dfd, const char *name,
		      const char *path, int depth, int *budget)
{
	_cleanup_close_ int fd =
	    openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	/* A folder whose own size says "many entries" is not read at all:
	 * reading a big hashed folder (alternatives, ssl/certs: hundreds of
	 * entries) costs more than its bind (measured). Folders of a few
	 * entries take one block (4096 bytes on ext4) or less elsewhere. */
	struct stat dst;
	if (fd < 0 || fstat(fd, &dst) < 0 || dst.st_size > ETC_TREE_BYTES)
		return false;
	strv_push(&h->etc_trees, path);
	struct tree_entry *ents = NULL;
	size_t n = 0;
	bool ok = true;
	/* A folder of at most ETC_TREE_BYTES holds a few entries: a small
	 * buffer reads them in one or two calls, and keeps the calls below
	 * (copied files, a nested folder) on stack pages already touched. */
	DENTS_BUF(buf, 4096);
	struct dents ls = DENTS_INIT(fd, buf.b);
	const struct dirent64 *de;
	while (ok && (de = dents_next(&ls))) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (!(ok = --*budget >= 0))
			break;
		ents = xrealloc(ents, (n + 1) * sizeof(*ents));
		ents[n].name = xstrdup(de->d_name);
		ents[n++].type = dents_mode(de->d_type);
	}
	if (ls.err)
		ok = false;
	if (ok && n)
		qsort(ents, n, sizeof(*ents), tree_entry_cmp);
	for (size_t i = 0; ok && i < n; i++) {
		const char *e = ents[i].name;
		_cleanup_free_ char *p = xasprintf("%s/%s", path, e);
		mode_t t = ents[i].type;
		struct stat st;
		if (!t)
			t = fstatat(fd, e, &st, AT_SYMLINK_NOFOLLOW) < 0
				? 0 /* fails below */
				: st.st_mode & S_IFMT;
		if (t == S_IFLNK) {
			/* As bound, the link is followed inside. */
			char target[PATH_MAX];
			ssize_t len =
			    readlinkat(fd, e, target, sizeof(target) - 1);
			ok = len > 0;
			if (ok) {
				target[len] = '\0';
				strv_push(&h->root_links, p);
				strv_push(&h->root_links, target);
			}
		} else if (t == S_IFREG) {
			ok = copy_file(h, fd, e, p, O_NOFOLLOW) >= 0;
		} else if (t == S_IFDIR) {
			/* not everyone's: left out (ssl/private); many
			 * entries (ssl/certs): bound, the rest copied */
			if (fstatat(fd, e, &st, AT_SYMLINK_NOFOLLOW) < 0)
				ok = false;
			else if (!everyone_reads(&st))
				continue;
			else if (st.st_size > ETC_TREE_BYTES)
				strv_push(&h->etc, p);
			else
				ok = depth < ETC_TREE_DEPTH &&
				     copy_tree(h, fd, e, p, depth + 1, budget);
		} else {
			ok = false;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(ents[i].name);
	free(ents);
	return ok;
}

/* An /etc entry that is a link into /usr (os-release, localtime) stays a
 * link inside, so programs that read the link (to name the time zone) see
 * what they see outside; a small file or folder is copied (copy_file,
 * copy_tree); any other entry is bound, following links. */
static void gather_etc_entry(struct host_facts *h, int etc, const char *path)
{
	/* etc: /etc's descriptor, or AT_FDCWD when it could not be opened */
	const char *name = etc == AT_FDCWD ? path : path + strlen("/etc/");
	struct stat st;
	int follow = O_NOFOLLOW;
	if (fstatat(etc, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX], real[PATH_MAX];
		ssize_t n = readlinkat(etc, name, target, sizeof(target) - 1);
		if (n > 0 && realpath(path, real) &&
		    strncmp(real, "/usr/", 5) == 0) {
			target[n] = '\0';
			strv_push(&h->root_links, path);
			strv_push(&h->root_links, target);
			return;
		}
		if (fstatat(etc, name, &st, 0) < 0)
			return; /* dangling: nothing to bind */
		follow = 0;
	}
	if (!everyone_reads(&st))
		return; /* not everyone's: never inside */
	if (S_ISREG(st.st_mode) && copy_file(h, etc, name, path, follow) >= 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		/* Undone whole if any part cannot be copied. */
		size_t nf = h->etc_files.n, nt = h->etc_trees.n,
		       nl = h->root_links.n, nb = h->etc.n;
		int budget = ETC_TREE_MAX;
		if (copy_tree(h, etc, name, path, 1, &budget))
			return;
		while (h->etc_files.n > nf) {
			close(h->etc_fds[--h->etc_files.n]);
			free(h->etc_files.v[h->etc_files.n]);
			h->etc_files.v[h->etc_files.n] = NULL;
		}
		strv_truncate(&h->etc_trees, nt);
		strv_truncate(&h->root_links, nl);
		strv_truncate(&h->etc, nb);
	}
	strv_push(&h->etc, path);
}

/* The identity of the bwrap binary the cache speaks for: a new package
 * (a new inode), an edit in place (size, mtime) or a touch back to the old
 * mtime (ctime, which no one can set) all miss the cache. */
static char *bwrap_key(const char *bwrap)
{
	struct stat st;
	if (stat(bwrap, &st) < 0 || !S_ISREG(st.st_mode))
		return NULL;
	return xasprintf("%llu %llu %lld %lld.%09ld %lld.%09ld %s",
			 (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino, (long long)st.st_size,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec,
			 bwrap);
}

/* The small caches in ~/.lnk/sandbox (no sandbox can write there): read
 * whole, only when a regular file of this user's. -ENOENT on any doubt:
 * the caller then works the answer out again. */
static int cache_get(const char *cache, char **text, size_t *len)
{
	_cleanup_close_ int fd =
	    open(cache, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid())
		return -ENOENT;
	if (read_fd_all(fd, 65536, text, len) < 0)
		return -ENOENT;
	if (strlen(*text) != *len) {
		free(*text);
		*text = NULL;
		return -ENOENT;
	}
	return 0;
}

#define CACHE_MAGIC "lnk bwrap-version 1\n"

/* The cached version for key, or -ENOENT. Strict: any other content is a
 * miss, and the probe runs again. */
static int cache_read(const char *cache, const char *key, int ver[3])
{
	_cleanup_free_ char *s = NULL;
	size_t len;
	if (cache_get(cache, &s, &len) < 0)
		return -ENOENT;
	size_t ml = strlen(CACHE_MAGIC), kl = strlen(key);
	if (len < ml + kl + 1 || memcmp(s, CACHE_MAGIC, ml) != 0 ||
	    memcmp(s + ml, key, kl) != 0 || s[ml + kl] != '\n')
		return -ENOENT;
	int a, b, c, n = -1;
	if (sscanf(s + ml + kl + 1, "%d.%d.%d\n%n", &a, &b, &c, &n) != 3 ||
	    n < 0 || ml + kl + 1 + (size_t)n != len || a < 0 || b < 0 ||
	    c < 0 || a > 999 || b > 999 || c > 999)
		return -ENOENT;
	ver[0] = a;
	ver[1] = b;
	ver[2] = c;
	return 0;
}

static void cache_write(const char *cache, const char *key, const int ver[3])
{
	_cleanup_free_ char *text = xasprintf("%s%s\n%d.%d.%d\n", CACHE_MAGIC,
					      key, ver[0], ver[1], ver[2]);
	file_replace(cache, text, strlen(text));
}

int host_bwrap_version_cached(const char *bwrap, const char *cache, int ver[3],
			      struct lnk_err *err)
{
	_cleanup_free_ char *key = cache ? bwrap_key(bwrap) : NULL;
	if (key && cache_read(cache, key, ver) == 0)
		return 0;
	int r = host_bwrap_version(bwrap, ver, err);
	if (r == 0 && key)
		cache_write(cache, key, ver);
	return r;
}

/* The /proc files the sandbox must not read, though the kernel would let
 * it: they show the host's state, not the sandbox's namespaces.
 *
 * - /proc/keys and /proc/key-users list the keys of the whole machine that
 *   the reader may view: the user's own (and, as root, root's) session and
 *   user keyrings outside, with each key's description. The keyring calls
 *   themselves are refused by the seccomp policy.
 * - As root, every file at the top of /proc that only root may read
 *   (slabinfo, timer_list, vmallocinfo, kpageflags, kmsg, kcore...): the
 *   sandbox's uid 0 is the host's root to them, and they map the kernel's
 *   memory for an exploit. Found by their mode, not by name, so a kernel
 *   that adds one is covered too. As another user the kernel refuses them
 *   already. */
static void gather_proc_masks(struct host_facts *h)
{
	static const char *const always[] = {"/proc/keys", "/proc/key-users"};
	struct stat st;

	for (size_t i = 0; i < ARRAY_SIZE(always); i++)
		if (lstat(always[i], &st) == 0 && S_ISREG(st.st_mode))
			strv_push(&h->proc_masks, always[i]);
	if (h->uid != 0)
		return;
	/* /proc lists its own entries first, then "self", "thread-self" and
	 * one entry per process of the machine (the kernel's
	 * proc_root_readdir). The listing stops at the first name that is a
	 * number: reading on would make the kernel list every process (0.3
	 * to 0.4 ms of each start as root, measured) for names never masked.
	 * A small buffer, as the kernel fills it whole. tests/unit/
	 * test_kernel_facts.c checks that order on the kernel it runs on. */
	_cleanup_close_ int dfd =
	    open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	struct strv names = {0};
	DENTS_BUF(buf, 2048);
	struct dents ls = DENTS_INIT(dfd, buf.b);
	const struct dirent64 *de;
	while ((de = dents_next(&ls))) {
		const char *n = de->d_name;
		if (n[0] >= '0' && n[0] <= '9')
			break;
		/* Only regular files are masked: the listing says which are,
		 * without a lookup of each folder and link (sys, net,
		 * self...). */
		mode_t t = dents_mode(de->d_type);
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 ||
		    strcmp(n, "keys") == 0 || strcmp(n, "key-users") == 0 ||
		    (t && t != S_IFREG))
			continue;
		if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || (st.st_mode & S_IROTH) ||
		    !(st.st_mode & (S_IRUSR | S_IRGRP)))
			continue;
		strv_pushf(&names, "/proc/%s", n);
	}
	/* readdir's order is the kernel's: sort for a stable argv. */
	strv_sort(&names);
	for (size_t i = 0; i < names.n; i++)
		strv_push(&h->proc_masks, names.v[i]);
	strv_free(&names);
}

#define NAMES_MAGIC "lnk etc-names 1\n"

/* The identity and times of /etc: any entry made, removed or renamed in it
 * changes its mtime and ctime (and no one can set a ctime back). */
static char *etc_key(const char *prefix)
{
	struct stat st;
	if (stat("/etc", &st) < 0)
		return NULL;
	return xasprintf("%s%s\n%llu %llu %lld.%09ld %lld.%09ld\n", NAMES_MAGIC,
			 prefix, (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino,
			 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			 (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

/* A name of /etc that the glob prefix* stands for. */
static bool glob_name(const char *name, const char *prefix)
{
	return strncmp(name, prefix, strlen(prefix)) == 0 &&
	       !strchr(name, '/') && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0;
}

/* "/etc/NAME" for each entry of /etc whose name begins with prefix,
 * sorted. Reading /etc whole costs 0.15 to 0.3 ms on every start (ext4
 * builds the hash tree of its 150 entries on each read; measured), so the
 * names are kept in cache (when not NULL) with /etc's key: exact, as any
 * change of /etc's entries changes the key. Only names that begin with
 * prefix are taken from the cache, so even a cache someone wrote by hand
 * names nothing else of /etc. */
static void etc_names(const char *cache, const char *prefix, struct strv *out)
{
	_cleanup_free_ char *key = cache ? etc_key(prefix) : NULL;
	_cleanup_free_ char *text = NULL;
	size_t len;
	if (key && cache_get(cache, &text, &len) == 0 &&
	    strncmp(text, key, strlen(key)) == 0) {
		char *cur = text + strlen(key), *line;
		bool ok = true;
		while (ok && (line = line_next(&cur)))
			if ((ok = glob_name(line, prefix)))
				strv_pushf(out, "/etc/%s", line);
		if (ok)
			return;
		strv_free(out);
	}
	DIR *d = opendir("/etc");
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)))
		if (glob_name(de->d_name, prefix))
			strv_pushf(out, "/etc/%s", de->d_name);
	closedir(d);
	/* readdir's order is the file system's: sort for a stable argv. */
	strv_sort(out);
	if (!key)
		return;
	struct buf b = {0};
	buf_puts(&b, key);
	for (size_t i = 0; i < out->n; i++)
		buf_printf(&b, "%s\n", out->v[i] + strlen("/etc/"));
	file_replace(cache, b.p ? b.p : "", b.p ? strlen(b.p) : 0);
	buf_free(&b);
}

int host_gather(struct host_facts *h, const char *version_cache,
		const char *names_cache, struct lnk_err *err)
{
	(void)err;
	*h = (struct host_facts){0};
	h->bwrap = host_find_bwrap();
	if (h->bwrap) {
		struct lnk_err e2;
		if (host_bwrap_version_cached(h->bwrap, version_cache,
					      h->bwrap_ver, &e2) < 0)
			memset(h->bwrap_ver, 0, sizeof(h->bwrap_ver));
	}
	h->init = host_find_init();
	h->uid = getuid();
	h->gid = getgid();
	gather_proc_masks(h);

	for (const char *const *r = bwrap_root_list(); *r; r++) {
		struct stat st;
		if (lstat(*r, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			ssize_t n = readlink(*r, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			strv_push(&h->root_links, *r);
			strv_push(&h->root_links, target);
		} else if (S_ISDIR(st.st_mode)) {
			strv_push(&h->root_dirs, *r);
		}
	}

	/* Every entry is looked up from /etc's descriptor, and each file
	 * opened from its folder's: the path from the root is walked once. */
	_cleanup_close_ int etc =
	    open("/etc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (etc < 0)
		etc = AT_FDCWD;
	for (const char *const *e = bwrap_etc_list(); *e; e++) {
		size_t n = strlen(*e);
		if (n == 0 || (*e)[n - 1] != '*') {
			gather_etc_entry(h, etc, *e);
			continue;
		}
		/* "/etc/python3*": the entries of /etc with that prefix. */
		_cleanup_free_ char *prefix =
		    xstrndup(*e + strlen("/etc/"), n - 1 - strlen("/etc/"));
		struct strv names = {0};
		etc_names(names_cache, prefix, &names);
		for (size_t i = 0; i < names.n; i++)
			gather_etc_entry(h, etc, names.v[i]);
		strv_free(&names);
	}

	struct account a;
	account_lookup("/etc", h->uid, h->gid, &a);
	h->user = a.user;
	h->shell = a.shell;
	h->group = a.group;
	return 0;
}

void host_close_etc(struct host_facts *h)
{
	for (size_t i = 0; i < h->etc_files.n; i++)
		if (h->etc_fds[i] >= 0) {
			close(h->etc_fds[i]);
			h->etc_fds[i] = -1;
		}
}

void host_facts_free(struct host_facts *h)
{
	free(h->bwrap);
	free(h->init);
	strv_free(&h->root_dirs);
	strv_free(&h->root_links);
	strv_free(&h->etc);
	host_close_etc(h);
	free(h->etc_fds);
	free(h->etc_modes);
	strv_free(&h->etc_trees);
	strv_free(&h->etc_files);
	strv_free(&h->proc_masks);
	free(h->user);
	free(h->shell);
	free(h->group);
	*h = (struct host_facts){0};
}

/* Runs argv (absolute argv[0]) with an empty environment and stdin from
 * /dev/null; collects stdout and stderr together (at most 64 KiB). Returns
 * the wait status, or -errno. */
static int run_capture(char *const *argv, char **out)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		close(p[0]);
		close(p[1]);
		return e;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (null < 0 || dup2(null, 0) < 0 || dup2(p[1], 1) < 0 ||
		    dup2(p[1], 2) < 0)
			_exit(127);
		char *const envp[] = {NULL};
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(p[1]);
	size_t len;
	char *data = NULL;
	if (read_fd_all(p[0], 64 * 1024, &data, &len) < 0)
		data = xstrdup("");
	close(p[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			free(data);
			return -errno;
		}
	/* Trim the final newline for messages. */
	size_t n = strlen(data);
	while (n && (data[n - 1] == '\n' || data[n - 1] == '\r'))
		data[--n] = '\0';
	if (out)
		*out = data;
	else
		free(data);
	return st;
}

int host_bwrap_version(const char *bwrap, int ver[3], struct lnk_err *err)
{
	char *const argv[] = {(char *)bwrap, "--version", NULL};
	_cleanup_free_ char *out = NULL;
	int st = run_capture(argv, &out);
	if (st < 0)
		return err_set(err, st, "cannot run '%s': %s", bwrap,
			       strerror(-st));
	ver[0] = ver[1] = ver[2] = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 ||
	    sscanf(out, "bubblewrap %d.%d.%d", &ver[0], &ver[1], &ver[2]) < 2)
		return err_set(err, -EPROTO,
			       "'%s --version' did not say its version (it "
			       "said '%.80s'); reinstall bubblewrap",
			       bwrap, out ? out : "");
	return 0;
}

bool host_version_at_least(const int ver[3], int a, int b, int c)
{
	if (ver[0] != a)
		return ver[0] > a;
	if (ver[1] != b)
		return ver[1] > b;
	return ver[2] >= c;
}

static int wait_child(pid_t pid, int timeout_ms)
{
	int st;
	for (int waited = 0;; waited += 10) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (waited >= timeout_ms) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return -ETIMEDOUT;
		}
		usleep(10 * 1000);
	}
}

int host_probe_userns(struct lnk_err *err)
{
	pid_t pid = fork();
	if (pid < 0)
		return err_set(err, -errno, "cannot fork: %s", strerror(errno));
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : (errno & 0x7f));
	int st = wait_child(pid, 5000);
	if (st < 0)
		return err_set(err, st, "the probe did not finish: %s",
			       strerror(-st));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	int e = WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
	return err_set(err, -e,
		       "a process cannot create a user namespace here (%s)",
		       strerror(e));
}

/* Where the files that describe this host are read: "" (the real /), or
 * in a test build the folder LNK_TEST_HOST_ROOT names. */
static const char *host_root(void)
{
#ifdef LNK_TEST_HOOKS
	/* TEST BUILDS ONLY (meson -Dtest_hooks=true): the sysctls and
	 * os-release that ready reads come from under this folder, so the
	 * tests can show ready an Ubuntu that restricts user namespaces. A
	 * release build has no such code at all. */
	const char *r = getenv("LNK_TEST_HOST_ROOT");
	if (r && r[0] == '/')
		return r;
#endif
	return "";
}

int host_probe_bwrap(const char *bwrap, struct lnk_err *err)
{
#ifdef LNK_TEST_HOOKS
	/* TEST BUILDS ONLY: under LNK_TEST_HOST_ROOT, a restriction there
	 * stops bwrap as AppArmor would, for everyone but root. */
	if (host_root()[0] && getuid() != 0 && host_apparmor_restricts_userns())
		return err_set(err, -EPERM,
			       "bubblewrap cannot make a sandbox: bwrap: "
			       "setting up uid map: Permission denied");
#endif
	char *const argv[] = {(char *)bwrap,
			      "--unshare-all",
			      "--unshare-user",
			      "--cap-drop",
			      "ALL",
			      "--die-with-parent",
			      "--ro-bind",
			      "/",
			      "/",
			      "--proc",
			      "/proc",
			      "--dev",
			      "/dev",
			      "--",
			      "/bin/true",
			      NULL};
	_cleanup_free_ char *out = NULL;
	int st = run_capture(argv, &out);
	if (st < 0)
		return err_set(err, st, "cannot run '%s': %s", bwrap,
			       strerror(-st));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	return err_set(err, -EPERM, "bubblewrap cannot make a sandbox: %s",
		       out && *out ? out : "it failed without saying why");
}

static int read_sysctl_int(const char *path)
{
	_cleanup_free_ char *full = xasprintf("%s%s", host_root(), path);
	_cleanup_free_ char *s = NULL;
	size_t len;
	if (read_file(full, 64, &s, &len) < 0)
		return -1;
	return atoi(s);
}

int host_apparmor_restricts_userns(void)
{
	return read_sysctl_int(
		   "/proc/sys/kernel/apparmor_restrict_unprivileged_userns") ==
	       1;
}

/* One value of os-release (os-release(5)): KEY=value, the value maybe in
 * double quotes with backslash escapes. Into out (cap bytes), cut. */
static void os_value(const char *v, char *out, size_t cap)
{
	size_t n = 0;
	bool quoted = *v == '"' || *v == '\'';
	char q = quoted ? *v++ : 0;
	for (; *v && *v != '\n' && n + 1 < cap; v++) {
		if (quoted && *v == q)
			break;
		if (quoted && *v == '\\' && v[1])
			v++;
		out[n++] = *v;
	}
	out[n] = '\0';
}

int host_os_release(struct host_os *os)
{
	memset(os, 0, sizeof(*os));
	const char *paths[] = {"/etc/os-release", "/usr/lib/os-release"};
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r = -ENOENT;
	for (size_t i = 0; i < ARRAY_SIZE(paths) && r < 0; i++) {
		_cleanup_free_ char *full =
		    xasprintf("%s%s", host_root(), paths[i]);
		r = read_file(full, 65536, &text, &len);
	}
	if (r < 0)
		return r;
	for (char *cur = text, *line; (line = line_next(&cur));) {
		if (strncmp(line, "ID=", 3) == 0)
			os_value(line + 3, os->id, sizeof(os->id));
		else if (strncmp(line, "VERSION_ID=", 11) == 0)
			os_value(line + 11, os->version_id,
				 sizeof(os->version_id));
		else if (strncmp(line, "PRETTY_NAME=", 12) == 0)
			os_value(line + 12, os->pretty, sizeof(os->pretty));
	}
	return 0;
}

bool host_os_ubuntu_since(const struct host_os *os, int major, int minor)
{
	if (strcmp(os->id, "ubuntu") != 0)
		return false;
	int a = 0, b = 0;
	if (sscanf(os->version_id, "%d.%d", &a, &b) < 1)
		return false;
	return a > major || (a == major && b >= minor);
}

char *host_userns_hint(void)
{
	if (getuid() != 0 && host_apparmor_restricts_userns())
		return xstrdup("AppArmor restricts unprivileged user "
			       "namespaces (kernel."
			       "apparmor_restrict_unprivileged_userns=1)");
	if (read_sysctl_int("/proc/sys/user/max_user_namespaces") == 0)
		return xstrdup("user namespaces are turned off "
			       "(user.max_user_namespaces=0)");
	if (getuid() != 0 &&
	    read_sysctl_int("/proc/sys/kernel/unprivileged_userns_clone") == 0)
		return xstrdup("unprivileged user namespaces are turned off "
			       "(kernel.unprivileged_userns_clone=0)");
	return NULL;
}

char *host_apparmor_profile(const char *bwrap)
{
	/* Gives bwrap, and only bwrap, the right to create user namespaces;
	 * everything else stays restricted. The shape of the profiles Ubuntu
	 * ships for other programs that need them (unconfined, userns). */
	return xasprintf(
	    "# lnk: lets bubblewrap, and only it, create user namespaces where\n"
	    "# AppArmor restricts them "
	    "(kernel.apparmor_restrict_unprivileged_userns=1)\n"
	    "abi <abi/4.0>,\n"
	    "include <tunables/global>\n"
	    "\n"
	    "profile bwrap %s flags=(unconfined) {\n"
	    "  userns,\n"
	    "\n"
	    "  # Site-specific additions and overrides. See local/README for "
	    "details.\n"
	    "  include if exists <local/bwrap>\n"
	    "}\n",
	    bwrap);
}

int host_landlock_abi(void)
{
	return confine_landlock_abi();
}

static int install_filter(const struct sock_filter *f, unsigned short n,
			  unsigned long flags)
{
	struct sock_fprog prog = {.len = n, .filter = (struct sock_filter *)f};
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

int host_probe_seccomp_filter(struct lnk_err *err)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		return err_set(err, -errno,
			       "this kernel has no seccomp (%s); it was built "
			       "without CONFIG_SECCOMP",
			       strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		return err_set(err, -errno, "cannot fork: %s", strerror(errno));
	if (pid == 0) {
		static const struct sock_filter allow[] = {
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
		if (confine_no_new_privs() < 0 ||
		    install_filter(allow, 1, 0) < 0)
			_exit(errno & 0x7f);
		_exit(0);
	}
	int st = wait_child(pid, 5000);
	if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	int e = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
	return err_set(err, -e, "a seccomp filter cannot be installed (%s)",
		       strerror(e));
}

/* Child exit codes of the notification probe. */
enum {
	NP_OK = 0,
	NP_NO_NEW_PRIVS = 10,
	NP_NO_LISTENER,
	NP_NO_KILLABLE,
	NP_SEND,
	NP_NO_FD,
};

static void listener_probe_child(int sock)
{
	/* getppid() is answered by the parent with a descriptor. */
	static const struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	if (confine_no_new_privs() < 0)
		_exit(NP_NO_NEW_PRIVS);
	int lfd = install_filter(f, ARRAY_SIZE(f),
				 SECCOMP_FILTER_FLAG_NEW_LISTENER |
				     SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
	if (lfd < 0) {
		/* Which part is missing: the listener, or killable waits? */
		int l2 = install_filter(f, ARRAY_SIZE(f),
					SECCOMP_FILTER_FLAG_NEW_LISTENER);
		_exit(l2 < 0 ? NP_NO_LISTENER : NP_NO_KILLABLE);
	}
	if (fd_send(sock, &lfd, 1, "L", 1) < 0)
		_exit(NP_SEND);
	close(lfd);
	long fd = syscall(SYS_getppid);
	struct stat st;
	if (fd < 0 || fstat((int)fd, &st) < 0 || !S_ISCHR(st.st_mode))
		_exit(NP_NO_FD);
	_exit(NP_OK);
}

static int listener_answer(int lfd, struct lnk_err *err)
{
	struct seccomp_notif_sizes sizes;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		return err_set(
		    err, -errno,
		    "SECCOMP_GET_NOTIF_SIZES failed (%s); the kernel "
		    "is older than 5.0",
		    strerror(errno));
	size_t sz = sizes.seccomp_notif > sizeof(struct seccomp_notif)
			? sizes.seccomp_notif
			: sizeof(struct seccomp_notif);
	_cleanup_free_ struct seccomp_notif *req = xcalloc(1, sz);
	struct pollfd pfd = {.fd = lfd, .events = POLLIN};
	if (poll(&pfd, 1, 5000) != 1)
		return err_set(err, -ETIMEDOUT,
			       "no seccomp notification arrived");
	if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, req) < 0)
		return err_set(err, -errno,
			       "SECCOMP_IOCTL_NOTIF_RECV failed: %s",
			       strerror(errno));
	_cleanup_close_ int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct seccomp_notif_addfd add = {
	    .id = req->id,
	    .flags = SECCOMP_ADDFD_FLAG_SEND,
	    .srcfd = (unsigned)null,
	    .newfd_flags = O_CLOEXEC,
	};
	if (null < 0 || ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0) {
		int e = errno;
		/* Always answer, or the child waits forever. */
		struct seccomp_notif_resp resp = {.id = req->id,
						  .error = -EPERM};
		ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
		return err_set(err, -e,
			       "SECCOMP_IOCTL_NOTIF_ADDFD failed (%s); the "
			       "kernel is older than 5.14",
			       strerror(e));
	}
	return 0;
}

int host_probe_seccomp_notify(struct lnk_err *err)
{
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		return err_set(err, -errno, "socketpair: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		close(sp[0]);
		close(sp[1]);
		return err_set(err, e, "cannot fork: %s", strerror(-e));
	}
	if (pid == 0) {
		close(sp[0]);
		listener_probe_child(sp[1]);
	}
	close(sp[1]);
	int r = 0;
	int fds[1] = {-1};
	size_t nfds = 1;
	char c;
	struct pollfd pfd = {.fd = sp[0], .events = POLLIN};
	if (poll(&pfd, 1, 5000) == 1) {
		ssize_t n = fd_recv(sp[0], fds, &nfds, &c, 1);
		if (n == 1 && nfds == 1)
			r = listener_answer(fds[0], err);
	}
	if (fds[0] >= 0)
		close(fds[0]);
	close(sp[0]);
	int st = wait_child(pid, 5000);
	if (r < 0)
		return r;
	if (st < 0)
		return err_set(err, st, "the probe did not finish");
	int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	switch (code) {
	case NP_OK:
		return 0;
	case NP_NO_LISTENER:
		return err_set(err, -ENOSYS,
			       "seccomp user notification is missing (the "
			       "kernel is older than 5.0)");
	case NP_NO_KILLABLE:
		return err_set(err, -ENOSYS,
			       "seccomp WAIT_KILLABLE_RECV is missing (the "
			       "kernel is older than 5.19)");
	default:
		return err_set(err, -EIO,
			       "seccomp user notification with fd injection "
			       "failed (probe status %d)",
			       code);
	}
}
