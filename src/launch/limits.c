/* The host's memory and processes (see limits.h). */
#include "launch/limits.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "common/statmount.h"
#endif

#include "common/util.h"
#include "toml/toml.h"
#include "wire/trip.h"

#define MIB (1024ULL * 1024)

void limits_defaults(struct limits *l)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long psize = sysconf(_SC_PAGESIZE);
	uint64_t mem =
	    pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 0;

	/* Rounded down to MiB so that ready prints round numbers. */
	l->memory = mem / 2 / MIB * MIB;
	l->tasks = 4096;
	l->tmp_size = mem / 8 / MIB * MIB;
}

int limits_parse_size(const char *s, uint64_t *out)
{
	if (!s)
		return -EINVAL;
	return key_parse_size(s, strlen(s), out);
}

static int size_value(const char *file, const struct toml_kv *kv, uint64_t *out,
		      struct lnk_err *err)
{
	const struct toml_value *v = kv->val;

	if (v->type == TOML_INTEGER && v->u.i >= 0) {
		*out = (uint64_t)v->u.i;
		return 0;
	}
	if (v->type == TOML_STRING && strlen(v->u.str.s) == v->u.str.len &&
	    limits_parse_size(v->u.str.s, out) == 0)
		return 0;
	return err_set(err, -EINVAL,
		       "%s:%u: [limits] %s must be a size such as \"512M\" or "
		       "\"4G\" (0 for no limit)",
		       file, kv->pos.line, kv->key);
}

/* [tripwires]: the two thresholds, whole numbers from 0 (the default)
 * to the most the wire holds. There is no key for the metadata rule: it
 * cannot be turned off. */
static int load_tripwires(const char *path, const struct toml_value *root,
			  struct limits *l, struct lnk_err *err)
{
	const struct toml_kv *t = toml_find(root, "tripwires");
	if (!t)
		return 0;
	if (t->val->type != TOML_TABLE)
		return err_set(err, -EINVAL, "%s:%u: tripwires must be a table",
			       path, t->pos.line);
	for (size_t i = 0; i < t->val->u.tab.n; i++) {
		const struct toml_kv *kv = &t->val->u.tab.items[i];
		const struct toml_value *v = kv->val;
		unsigned *dst, max;
		if (strcmp(kv->key, "refused_calls") == 0) {
			dst = &l->trip_calls;
			max = TRIP_RATE_MAX;
		} else if (strcmp(kv->key, "refused_targets") == 0) {
			dst = &l->trip_targets;
			max = TRIP_TARGETS_MAX;
		} else {
			return err_set(
			    err, -EINVAL,
			    "%s:%u: [tripwires] has no key '%s'; it "
			    "takes refused_calls and refused_targets "
			    "(the metadata tripwire cannot be "
			    "turned off)",
			    path, kv->pos.line, kv->key);
		}
		if (v->type != TOML_INTEGER || v->u.i < 0 || v->u.i > max)
			return err_set(
			    err, -EINVAL,
			    "%s:%u: [tripwires] %s must be a whole "
			    "number from 1 to %u (0 for the default)",
			    path, kv->pos.line, kv->key, max);
		*dst = (unsigned)v->u.i;
	}
	return 0;
}

int limits_load_settings(const char *path, struct limits *l,
			 struct lnk_err *err)
{
	struct toml_value *root = NULL;
	int r = toml_load_optional(path, 1 << 20, &root, err);
	if (r < 0 || !root)
		return r;
	const struct toml_kv *t = toml_find(root, "limits");
	if (!t)
		goto trip;
	if (t->val->type != TOML_TABLE) {
		r = err_set(err, -EINVAL, "%s:%u: limits must be a table", path,
			    t->pos.line);
		goto out;
	}
	for (size_t i = 0; i < t->val->u.tab.n; i++) {
		const struct toml_kv *kv = &t->val->u.tab.items[i];
		if (strcmp(kv->key, "memory") == 0) {
			r = size_value(path, kv, &l->memory, err);
		} else if (strcmp(kv->key, "tmp_size") == 0) {
			r = size_value(path, kv, &l->tmp_size, err);
		} else if (strcmp(kv->key, "tasks") == 0) {
			if (kv->val->type == TOML_INTEGER && kv->val->u.i >= 0)
				l->tasks = (uint64_t)kv->val->u.i;
			else
				r = err_set(err, -EINVAL,
					    "%s:%u: [limits] tasks must be a "
					    "whole number (0 for no limit)",
					    path, kv->pos.line);
		} else {
			r = err_set(err, -EINVAL,
				    "%s:%u: [limits] has no key '%s'; it "
				    "takes memory, tasks and tmp_size",
				    path, kv->pos.line, kv->key);
		}
		if (r < 0)
			goto out;
	}
trip:
	r = load_tripwires(path, root, l, err);
out:
	toml_free(root);
	return r;
}

static char *human(uint64_t v);

/* A value above 0 lowers; 0 or the same keeps. */
static void lower_one(uint64_t *have, uint64_t asked, bool zero_is_none,
		      const struct policy *p, enum key_id id, const char *what,
		      struct strv *notes)
{
	if (!asked || asked == *have)
		return;
	if (asked < *have || (zero_is_none && *have == 0)) {
		*have = asked;
		return;
	}
	const struct key_def *d = key_def(id);
	_cleanup_free_ char *o = policy_origin(p, id, 0);
	_cleanup_free_ char *h =
	    d->type == KT_SIZE ? human(*have) : xasprintf("%" PRIu64, *have);
	strv_pushf(notes,
		   "%s: %s is above the %s%s your settings give, and a spec "
		   "or flag can only lower it: the sandbox keeps %s (raise "
		   "it in ~/.lnk/sandbox/settings.toml)",
		   o, p->k[id].str, h, what, h);
}

void limits_lower(struct limits *l, const struct policy *p, struct strv *notes)
{
	static const struct {
		enum key_id id;
		int slot;
	} keys[] = {
	    {K_LIMITS_MEMORY, 0}, {K_LIMITS_TASKS, 1}, {K_LIMITS_TMP_SIZE, 2}};
	uint64_t *slot[] = {&l->memory, &l->tasks, &l->tmp_size};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct key_value *kv = &p->k[keys[i].id];
		if (kv->set)
			lower_one(slot[keys[i].slot], key_scalar_value(kv->str),
				  true, p, keys[i].id, "", notes);
	}
	uint64_t calls = l->trip_calls ? l->trip_calls : TRIP_RATE_COUNT;
	uint64_t targets = l->trip_targets ? l->trip_targets : TRIP_TARGETS;
	if (p->k[K_TRIP_CALLS].set)
		lower_one(&calls, key_scalar_value(p->k[K_TRIP_CALLS].str),
			  false, p, K_TRIP_CALLS, " calls", notes);
	if (p->k[K_TRIP_TARGETS].set)
		lower_one(&targets, key_scalar_value(p->k[K_TRIP_TARGETS].str),
			  false, p, K_TRIP_TARGETS, " targets", notes);
	l->trip_calls = (unsigned)calls;
	l->trip_targets = (unsigned)targets;
}

/* ---- where: found from /proc/self/mountinfo and /proc/self/cgroup ---- */

static bool has_word(const char *list, const char *word, char sep)
{
	size_t n = strlen(word);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, sep);
		size_t k = e ? (size_t)(e - p) : strlen(p);
		if (k == n && strncmp(p, word, n) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* The mount point of the first cgroup2 mount (ctrl NULL), or of the cgroup
 * v1 hierarchy with controller ctrl, in mountinfo_text (the text of
 * /proc/self/mountinfo, read once for every question). Mount points with
 * escapes (spaces) are skipped. */
static char *cgroup_mount(const char *mountinfo_text, const char *ctrl)
{
	if (!mountinfo_text)
		return NULL;
	_cleanup_free_ char *mi = xstrdup(mountinfo_text);
	char *found = NULL;

	for (char *cur = mi, *line; !found && (line = line_next(&cur));) {
		char *sep = strstr(line, " - ");
		if (!sep)
			continue;
		char *f[6] = {0};
		char *save = NULL, *p = line;
		for (int i = 0; i < 6 && (f[i] = strtok_r(p, " ", &save)); i++)
			p = NULL;
		char *fstype = strtok_r(sep + 3, " ", &save);
		char *source = fstype ? strtok_r(NULL, " ", &save) : NULL;
		char *opts = source ? strtok_r(NULL, " ", &save) : NULL;
		if (!f[4] || !fstype || strchr(f[4], '\\'))
			continue;
		if (!ctrl && strcmp(fstype, "cgroup2") == 0)
			found = xstrdup(f[4]);
		else if (ctrl && strcmp(fstype, "cgroup") == 0 && opts &&
			 has_word(opts, ctrl, ','))
			found = xstrdup(f[4]);
	}
	return found;
}

/* lnk's own cgroup in the hierarchy of ctrl (NULL: v2), from cgroup_text
 * (the text of /proc/self/cgroup), or NULL. */
static char *own_cgroup(const char *cgroup_text, const char *ctrl)
{
	if (!cgroup_text)
		return NULL;
	_cleanup_free_ char *cg = xstrdup(cgroup_text);
	char *found = NULL;

	for (char *cur = cg, *line; !found && (line = line_next(&cur));) {
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || c2[1] != '/')
			continue;
		*c2 = '\0';
		if (!ctrl ? strcmp(line, "0") == 0 && c1[1] == '\0'
			  : has_word(c1 + 1, ctrl, ','))
			found = xstrdup(c2 + 1);
	}
	return found;
}

static bool writable(const char *dir, const char *file)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, file);
	return access(dir, W_OK) == 0 && access(p, W_OK) == 0;
}

static bool v2_delegates(const char *dir)
{
	_cleanup_free_ char *p = xasprintf("%s/cgroup.subtree_control", dir);
	_cleanup_free_ char *s = NULL;
	size_t len;

	if (read_file(p, 4096, &s, &len) < 0)
		return false;
	s[strcspn(s, "\n")] = '\0';
	return has_word(s, "memory", ' ') && has_word(s, "pids", ' ');
}

/* The nearest folder, from lnk's own cgroup up to the hierarchy's root,
 * in which lnk may make a cgroup and move its child into it: it may write
 * the folder and its cgroup.procs (the kernel asks for the common
 * ancestor's), and for v2 the folder hands memory and pids down. */
static char *nearest(const char *mnt, const char *own, bool v2)
{
	if (!mnt || !own)
		return NULL;
	char *dir =
	    strcmp(own, "/") == 0 ? xstrdup(mnt) : xasprintf("%s%s", mnt, own);
	size_t root = strlen(mnt);
	for (;;) {
		if (writable(dir, "cgroup.procs") && (!v2 || v2_delegates(dir)))
			return dir;
		char *slash = strrchr(dir, '/');
		if (!slash || strlen(dir) <= root)
			break;
		*slash = '\0';
		if (strlen(dir) < root)
			break;
	}
	free(dir);
	return NULL;
}

#ifdef __linux__
/* The cgroup file system mounted at path, asked of the kernel (statfs,
 * statmount): ctrl NULL for cgroup2, else the cgroup v1 hierarchy with
 * controller ctrl. 1 yes, 0 no, -1 cannot tell (an older kernel). */
static int mounted_at(const char *path, const char *ctrl)
{
	struct statfs sf;
	if (statfs(path, &sf) < 0)
		return 0;
	if (!ctrl)
		return sf.f_type == CGROUP2_SUPER_MAGIC;
	if (sf.f_type != CGROUP_SUPER_MAGIC)
		return 0;
	struct statx sx;
	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID_UNIQUE, &sx) < 0 ||
	    !(sx.stx_mask & STATX_MNT_ID_UNIQUE))
		return -1;
	struct mnt_id_req req = {
	    .size = sizeof(req),
	    .mnt_id = sx.stx_mnt_id,
	    .param = LNK_STATMOUNT_MNT_POINT | LNK_STATMOUNT_MNT_OPTS,
	};
	union {
		struct lnk_statmount sm;
		char b[4096];
	} u;
	if (syscall(NR_STATMOUNT, &req, u.b, sizeof(u.b), 0) < 0 ||
	    (u.sm.mask & (LNK_STATMOUNT_MNT_POINT | LNK_STATMOUNT_MNT_OPTS)) !=
		(LNK_STATMOUNT_MNT_POINT | LNK_STATMOUNT_MNT_OPTS) ||
	    u.sm.size > sizeof(u.b) || u.sm.size <= sizeof(u.sm) ||
	    u.sm.mnt_point >= u.sm.size - sizeof(u.sm) ||
	    u.sm.mnt_opts >= u.sm.size - sizeof(u.sm))
		return -1;
	u.b[sizeof(u.b) - 1] = '\0';
	/* path itself is the mount point (not a folder below one), and the
	 * hierarchy has ctrl */
	return strcmp(u.sm.str + u.sm.mnt_point, path) == 0 &&
	       has_word(u.sm.str + u.sm.mnt_opts, ctrl, ',');
}

/* The cgroup mounts where systemd puts them, without reading
 * /proc/self/mountinfo (0.15 to 0.2 ms on every start: the kernel writes
 * the root path of each cgroup mount into it). cgroup2 at /sys/fs/cgroup:
 * *m2, and v1 stays unknown (*v1_known false). Else the v1 pids and
 * memory hierarchies at /sys/fs/cgroup/pids and /memory: *mp and *mm, and
 * no cgroup2 can delegate memory and pids then (a controller is in one
 * hierarchy only), so *m2 stays NULL. false: ask mountinfo. */
static bool cgroup_mounts_known(char **m2, char **mp, char **mm, bool *v1_known)
{
	*v1_known = false;
	if (mounted_at("/sys/fs/cgroup", NULL) == 1) {
		*m2 = xstrdup("/sys/fs/cgroup");
		return true;
	}
	if (mounted_at("/sys/fs/cgroup/pids", "pids") == 1 &&
	    mounted_at("/sys/fs/cgroup/memory", "memory") == 1) {
		*mp = xstrdup("/sys/fs/cgroup/pids");
		*mm = xstrdup("/sys/fs/cgroup/memory");
		*v1_known = true;
		return true;
	}
	return false;
}
#else
static bool cgroup_mounts_known(char **m2, char **mp, char **mm, bool *v1_known)
{
	(void)m2;
	(void)mp;
	(void)mm;
	*v1_known = false;
	return false;
}
#endif

void limits_find(struct limits_where *w)
{
	*w = (struct limits_where){.kind = LIMITS_NONE};

	_cleanup_free_ char *mi = NULL, *cg = NULL;
	_cleanup_free_ char *m2 = NULL, *mp = NULL, *mm = NULL;
	size_t len;
	bool v1_known;
	bool known = cgroup_mounts_known(&m2, &mp, &mm, &v1_known);
	if (!known && read_file("/proc/self/mountinfo", 1 << 22, &mi, &len) < 0)
		mi = NULL;
	if (read_file("/proc/self/cgroup", 1 << 16, &cg, &len) < 0)
		cg = NULL;
	if (!known)
		m2 = cgroup_mount(mi, NULL);
	_cleanup_free_ char *o2 = own_cgroup(cg, NULL);
	if ((w->parent[0] = nearest(m2, o2, true))) {
		w->kind = LIMITS_CGROUP2;
		return;
	}
	if (known && !v1_known &&
	    read_file("/proc/self/mountinfo", 1 << 22, &mi, &len) < 0)
		mi = NULL;
	if (!v1_known) {
		mp = cgroup_mount(mi, "pids");
		mm = cgroup_mount(mi, "memory");
	}
	_cleanup_free_ char *op = own_cgroup(cg, "pids");
	_cleanup_free_ char *om = own_cgroup(cg, "memory");
	w->parent[0] = nearest(mp, op, false);
	w->parent[1] = nearest(mm, om, false);
	if (w->parent[0] && w->parent[1]) {
		w->kind = LIMITS_CGROUP1;
		return;
	}
	limits_where_free(w);
	/* The kernel never applies RLIMIT_NPROC to uid 0. */
	w->kind = getuid() != 0 ? LIMITS_RLIMIT : LIMITS_NONE;
}

void limits_where_free(struct limits_where *w)
{
	free(w->parent[0]);
	free(w->parent[1]);
	w->parent[0] = w->parent[1] = NULL;
}

static char *human(uint64_t v)
{
	if (v == 0)
		return xstrdup("no limit");
	if (v % (1024 * MIB) == 0)
		return xasprintf("%" PRIu64 " GiB",
				 (uint64_t)(v / (1024 * MIB)));
	if (v % MIB == 0)
		return xasprintf("%" PRIu64 " MiB", (uint64_t)(v / MIB));
	return xasprintf("%" PRIu64 " bytes", v);
}

char *limits_describe(const struct limits_where *w, const struct limits *l)
{
	_cleanup_free_ char *mem = human(l->memory);
	_cleanup_free_ char *tmp = human(l->tmp_size);
	_cleanup_free_ char *tasks =
	    l->tasks ? xasprintf("%" PRIu64, l->tasks) : xstrdup("no limit");

	switch (w->kind) {
	case LIMITS_CGROUP2:
		return xasprintf("a cgroup of its own under %s: memory %s, "
				 "tasks %s; each tmpfs %s",
				 w->parent[0], mem, tasks, tmp);
	case LIMITS_CGROUP1:
		return xasprintf("a cgroup of its own under %s and %s: memory "
				 "%s, tasks %s; each tmpfs %s",
				 w->parent[0], w->parent[1], mem, tasks, tmp);
	case LIMITS_RLIMIT:
		return xasprintf("no cgroup lnk may write: tasks %s "
				 "(RLIMIT_NPROC), memory not limited; each "
				 "tmpfs %s",
				 tasks, tmp);
	case LIMITS_NONE:
		break;
	}
	return xasprintf("no cgroup lnk may write: tasks and memory not "
			 "limited (root is exempt from RLIMIT_NPROC); each "
			 "tmpfs %s",
			 tmp);
}

/* ---- one sandbox's cgroup ------------------------------------------- */

static int write_value(const char *dir, const char *file, uint64_t v,
		       struct lnk_err *err)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, file);
	_cleanup_free_ char *s =
	    v ? xasprintf("%" PRIu64 "\n", v) : xstrdup("max\n");
	_cleanup_close_ int fd = open(p, O_WRONLY | O_CLOEXEC);

	/* v1's memory.limit_in_bytes takes -1 for none, not "max". */
	if (!v && strcmp(file, "memory.limit_in_bytes") == 0) {
		free(s);
		s = xstrdup("-1\n");
	}
	if (fd < 0 || write_all(fd, s, strlen(s)) < 0)
		return err_set(err, -errno, "cannot set '%s': %s", p,
			       strerror(errno));
	return 0;
}

/* The cgroups a lnk killed with SIGKILL left in parent (it could not
 * remove them): "lnk-<name>-<pid>" whose pid no longer runs. One whose pid
 * runs may be starting its sandbox right now, and is left alone. */
static void remove_stale(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *dash = strrchr(de->d_name, '-');
		char *end;
		if (strncmp(de->d_name, "lnk-", 4) != 0 || !dash)
			continue;
		long pid = strtol(dash + 1, &end, 10);
		if (*end || pid <= 0 || pid > INT32_MAX)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

/* The file the child that becomes bwrap writes "0" to (spawn.c). v1 has
 * two: cgroup.procs moves the writer's whole thread group, and to keep it
 * whole the kernel takes a global lock for writing that waits for an RCU
 * grace period (6 to 22 ms here, as long as bare bwrap's whole start);
 * tasks moves the writer's thread alone, without that lock
 * (docs/kernel-facts.md, cgroup1-tasks-skips-threadgroup-lock). The child is
 * a fresh fork, one thread, so its thread is all of it, and everything
 * bwrap starts later is born inside. v2 has no such file for a process
 * that is not threaded: cgroup.procs. */
static int open_procs(const char *dir, bool v1, struct lnk_err *err)
{
	_cleanup_free_ char *procs = xasprintf("%s/cgroup.procs", dir);
	if (v1) {
		_cleanup_free_ char *tasks = xasprintf("%s/tasks", dir);
		int fd = open(tasks, O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
	}
	int fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, -errno, "cannot open '%s': %s", procs,
			       strerror(errno));
	return fd;
}

static int make_one(const char *parent, const char *tag, int slot, bool v1,
		    struct limits_cgroup *cg, struct lnk_err *err)
{
	char *dir = xasprintf("%s/lnk-%s", parent, tag);

	/* A folder left by a lnk that was killed: nothing runs in it, as
	 * its pid (in tag) is ours now. */
	if (mkdir(dir, 0755) < 0 &&
	    (errno != EEXIST || rmdir(dir) < 0 || mkdir(dir, 0755) < 0)) {
		int e = errno;
		err_set(err, -e, "cannot make the cgroup '%s': %s", dir,
			strerror(e));
		free(dir);
		return -e;
	}
	cg->dir[slot] = dir;
	int fd = open_procs(dir, v1, err);
	if (fd < 0)
		return fd;
	cg->procs[slot] = fd;
	return 0;
}

int limits_cgroup_make(const struct limits_where *w, const struct limits *l,
		       const char *tag, struct limits_cgroup *cg,
		       struct lnk_err *err)
{
	int r = 0;

	*cg = (struct limits_cgroup)LIMITS_CGROUP_INIT;
	switch (w->kind) {
	case LIMITS_CGROUP2:
		if ((r = make_one(w->parent[0], tag, 0, false, cg, err)) < 0 ||
		    (r = write_value(cg->dir[0], "memory.max", l->memory,
				     err)) < 0 ||
		    (r = write_value(cg->dir[0], "pids.max", l->tasks, err)) <
			0)
			break;
		return 0;
	case LIMITS_CGROUP1:
		if ((r = make_one(w->parent[0], tag, 0, true, cg, err)) < 0 ||
		    (r = write_value(cg->dir[0], "pids.max", l->tasks, err)) <
			0 ||
		    (r = make_one(w->parent[1], tag, 1, true, cg, err)) < 0 ||
		    (r = write_value(cg->dir[1], "memory.limit_in_bytes",
				     l->memory, err)) < 0)
			break;
		return 0;
	case LIMITS_RLIMIT:
	case LIMITS_NONE:
		return 0;
	}
	limits_cgroup_end(cg);
	return r;
}

void limits_cgroup_sweep(const struct limits_where *w)
{
	if (w->kind != LIMITS_CGROUP1 && w->kind != LIMITS_CGROUP2)
		return;
	for (int i = 0; i < 2; i++)
		if (w->parent[i])
			remove_stale(w->parent[i]);
}

int limits_cgroup_try_end(struct limits_cgroup *cg)
{
	for (int i = 0; i < 2; i++) {
		if (cg->procs[i] >= 0)
			close(cg->procs[i]);
		cg->procs[i] = -1;
		if (cg->dir[i] && rmdir(cg->dir[i]) == 0) {
			free(cg->dir[i]);
			cg->dir[i] = NULL;
		}
	}
	return cg->dir[0] || cg->dir[1] ? -EBUSY : 0;
}

void limits_cgroup_end(struct limits_cgroup *cg)
{
	for (int i = 0; i < 2; i++) {
		if (cg->procs[i] >= 0)
			close(cg->procs[i]);
		cg->procs[i] = -1;
		if (!cg->dir[i])
			continue;
		/* The last processes of the sandbox may still be leaving: a
		 * pid namespace's tasks exit after its pid 1 is reaped. */
		for (int tries = 0; tries < 100; tries++) {
			if (rmdir(cg->dir[i]) == 0 || errno != EBUSY)
				break;
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		free(cg->dir[i]);
		cg->dir[i] = NULL;
	}
}
