/* Landlock in lnk-init.
 *
 * Why a second layer: the mounts bubblewrap makes are the boundary, and
 * Landlock re-states the same grants in the kernel's own terms, so a mistake
 * in one (a bind made too wide, a path forgotten in a hide list) is still
 * refused by the other. It also carries the one thing mounts cannot say:
 * which files may be executed ([commands] allow). That list is a guard
 * against launching the wrong program, not containment: `ld.so FILE`, a
 * memfd and any allowed interpreter get past it (docs/design.md, invariant 2;
 * docs/kernel-facts.md, landlock-exec-bypasses).
 *
 * Creations done by the dot-file supervisor happen outside this domain and
 * bypass it: write confinement stays mount-based (docs/kernel-facts.md,
 * notify-bypasses-landlock).
 *
 * ABI: every filesystem right the kernel knows is handled (so nothing the
 * kernel can refuse is left open by omission), falling through from the
 * newest ABI to the oldest as the kernel's samples/landlock/sandboxer.c
 * does. Network rights (ABI 4) are not handled: the sandbox has its own
 * network namespace with loopback only, and its own loopback servers must
 * keep working.
 */
#include "init/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/landlock_defs.h"
#include "common/util.h"
#include "confine/layers.h"

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
/* Device nodes are never made: MAKE_CHAR and MAKE_BLOCK stay refused. */
#define FS_WRITE                                                         \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |  \
	 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |    \
	 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM |    \
	 LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE)
/* The rights a rule on a file (not a folder) may carry. */
#define FS_FILE                                                       \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* Read-only system folders every program needs. Only what bwrap mounted
 * exists inside; missing ones are skipped. */
static const char *const system_read[] = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
};

int landlock_abi(struct lnk_err *err)
{
	int abi = confine_landlock_abi();

	if (abi > 0)
		return abi;
	/* The two hints of samples/landlock/sandboxer.c: "not in this
	 * kernel" and "in it but switched off" need different fixes. */
	if (abi == -ENOSYS)
		return err_set(err, -ENOSYS,
			       "landlock is not in this kernel (it needs Linux "
			       "5.13 or newer built with "
			       "CONFIG_SECURITY_LANDLOCK=y)");
	if (abi == -EOPNOTSUPP)
		return err_set(
		    err, -EOPNOTSUPP,
		    "landlock is in this kernel but not enabled: add "
		    "landlock to the lsm= kernel boot parameter");
	return err_set(err, abi, "landlock: cannot query the abi: %s",
		       strerror(-abi));
}

/* The rules added so far: a path beneath one of them that asks for no
 * more rights needs no rule of its own (Landlock rules hold for the whole
 * tree beneath them). The /etc entries of ll_read are all beneath the
 * system's /etc rule: skipping them saves an open and two system calls
 * each (about 0.2 ms for the /etc list, measured). Skipping can only make
 * the rules stricter: a path whose own rule would have followed a link
 * elsewhere loses that rule. */
struct added {
	const char *path;
	uint64_t rights;
};

struct added_list {
	struct added *v;
	size_t n, cap;
};

static bool covered(const struct added_list *a, const char *path,
		    uint64_t rights)
{
	for (size_t i = 0; i < a->n; i++)
		if ((a->v[i].rights & rights) == rights &&
		    path_within(path, a->v[i].path))
			return true;
	return false;
}

static void remember(struct added_list *a, const char *path, uint64_t rights)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 32;
		a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
	}
	a->v[a->n++] = (struct added){.path = path, .rights = rights};
}

/* Adds a rule for path with the given rights, masked to what the ruleset
 * handles and, for a file, to the rights a file can carry. A path that is
 * not there (not mounted in this sandbox) gets no rule: that is stricter,
 * never looser. 1 when a rule was added, 0 when none, or -errno. */
static int add_path(int ruleset, const char *path, uint64_t rights,
		    uint64_t handled, struct lnk_err *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	/* openat, not open: musl's open follows an O_CLOEXEC with an fcntl
	 * setting it again (for kernels older than 2.6.23), a system call
	 * more for each of the rules, before the program starts */
	fd = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES ||
		    errno == ELOOP)
			return 0;
		return err_set(err, -errno, "landlock: cannot open '%s': %s",
			       path, strerror(errno));
	}
	if (fstat(fd, &st) < 0)
		return err_set(err, -errno, "landlock: cannot stat '%s': %s",
			       path, strerror(errno));
	rights &= handled;
	if (!S_ISDIR(st.st_mode))
		rights &= FS_FILE;
	if (!rights)
		return 0;
	int r = confine_landlock_rule(ruleset, fd, rights);
	if (r < 0)
		return err_set(err, r,
			       "landlock: cannot add the rule for '%s': %s",
			       path, strerror(-r));
	return 1;
}

static int add_list(int ruleset, const char *const *paths, size_t n,
		    uint64_t rights, uint64_t handled, struct added_list *done,
		    struct lnk_err *err)
{
	int r;

	for (size_t i = 0; i < n; i++) {
		if (covered(done, paths[i], rights))
			continue;
		if ((r = add_path(ruleset, paths[i], rights, handled, err)) < 0)
			return r;
		/* Only a path that got a rule covers others. */
		if (r == 1)
			remember(done, paths[i], rights);
	}
	return 0;
}

static int add_rules_in(int ruleset, const struct init_config *c,
			uint64_t handled, struct added_list *done,
			struct lnk_err *err)
{
	/* With exec_any, anything readable may run; otherwise only the
	 * exact files of ll_exec (each program, its ELF interpreter and its
	 * shebang chain, resolved outside by commands_resolve). */
	uint64_t x = c->exec_any ? LANDLOCK_ACCESS_FS_EXECUTE : 0;
	const char *const dev_rw[] = {"/dev"};
	const char *const tmp_rw[] = {"/tmp", "/dev/shm"};
	const char *const proc[] = {"/proc"};
	int r;

	if ((r = add_list(ruleset, system_read, ARRAY_SIZE(system_read),
			  FS_READ | x, handled, done, err)) < 0)
		return r;
	/* /proc: bwrap's own proc mount for the sandbox's pid namespace, read
	 * only (launch/bwrap.c says why). A reopen through /proc/self/fd/N
	 * writes on the file's own mount, under the file's own rule. */
	if ((r = add_list(ruleset, proc, 1,
			  FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE, handled,
			  done, err)) < 0)
		return r;
	/* /dev: bwrap's minimal /dev. Its devices (null, tty, ptmx, pts/N)
	 * are read and written and take terminal ioctls; nothing is created
	 * or removed there, except in /dev/shm below. */
	if ((r = add_list(ruleset, dev_rw, 1,
			  FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE |
			      LANDLOCK_ACCESS_FS_TRUNCATE |
			      LANDLOCK_ACCESS_FS_IOCTL_DEV,
			  handled, done, err)) < 0)
		return r;
	/* /tmp and /dev/shm: private tmpfs of this sandbox. */
	if ((r = add_list(ruleset, tmp_rw, ARRAY_SIZE(tmp_rw),
			  FS_READ | FS_WRITE | x, handled, done, err)) < 0)
		return r;

	if ((r = add_list(ruleset, (const char *const *)c->ll_read.v,
			  c->ll_read.n, FS_READ | x, handled, done, err)) < 0)
		return r;
	if ((r = add_list(ruleset, (const char *const *)c->ll_write.v,
			  c->ll_write.n, FS_READ | FS_WRITE | x, handled, done,
			  err)) < 0)
		return r;
	if (!c->exec_any &&
	    (r = add_list(
		 ruleset, (const char *const *)c->ll_exec.v, c->ll_exec.n,
		 LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE,
		 handled, done, err)) < 0)
		return r;
	return 0;
}

static int add_rules(int ruleset, const struct init_config *c, uint64_t handled,
		     struct lnk_err *err)
{
	struct added_list done = {0};
	int r = add_rules_in(ruleset, c, handled, &done, err);
	free(done.v);
	return r;
}

int landlock_apply(const struct init_config *c, struct lnk_err *err)
{
	_cleanup_close_ int ruleset = -1;
	int abi, r;

	if ((abi = landlock_abi(err)) < 0)
		return abi;
	/* Every file-system right of the ABI handled. From ABI 6, scoped:
	 * the program cannot signal, or connect to an abstract unix socket
	 * of, anything outside its own domain (bwrap's pid 1, or a host
	 * daemon should a namespace ever be shared). */
	uint64_t handled = landlock_fs_rights(abi);
	ruleset = confine_landlock_ruleset(abi, handled, true);
	if (ruleset < 0)
		return err_set(err, ruleset,
			       "landlock: cannot create a ruleset (abi %d): %s",
			       abi, strerror(-ruleset));
	if ((r = add_rules(ruleset, c, handled, err)) < 0)
		return r;
	if ((r = confine_landlock_enter(ruleset)) < 0)
		return err_set(err, r,
			       "landlock: cannot restrict the sandbox: %s",
			       strerror(-r));
	return abi;
}
