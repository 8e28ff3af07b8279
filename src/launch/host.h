/* Facts about this machine, and the probes `lnk sandbox ready` runs.
 *
 * run gathers the facts the bwrap argv depends on (host_gather) without
 * forking; ready runs every probe for real (a child that unshares a user
 * namespace, bubblewrap itself, Landlock, seccomp user notification with
 * fd injection), because a sysctl that says "allowed" proves nothing.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "common/err.h"
#include "common/util.h"

struct host_facts {
	char *bwrap;		/* bubblewrap's path, NULL when not installed */
	int bwrap_ver[3];	/* its version, {0,0,0} when unknown */
	char *init;		/* lnk-init's path, NULL when not found */
	struct strv root_dirs;	/* see struct bwrap_in */
	struct strv root_links; /* pairs: path, target */
	struct strv etc;	/* /etc entries to bind (folders, and files
				 * lnk cannot read) */
	struct strv etc_files;	/* /etc files to copy (struct bwrap_in) */
	int *etc_fds;		/* etc_files' contents, open (CLOEXEC) */
	unsigned *etc_modes;	/* etc_files' modes inside: 0444 or 0555 */
	struct strv etc_trees;	/* /etc folders made again (struct
				 * bwrap_in); their links are in root_links */
	struct strv proc_masks; /* see struct bwrap_in */
	uid_t uid;
	gid_t gid;
	char *user;  /* login name, NULL when uid has no passwd entry */
	char *shell; /* login shell, NULL when none */
	char *group; /* the name of gid, NULL when it has none */
};

/* Fills h from the file system, passwd and `bwrap --version` (through
 * version_cache when not NULL: see host_bwrap_version_cached; and the
 * names of /etc a glob of the list stands for through names_cache, when
 * not NULL: paths_etc_names_cache). Missing bubblewrap or lnk-init are not
 * errors here (NULL): the caller says what to do. 0 or -errno. */
int host_gather(struct host_facts *h, const char *version_cache,
		const char *names_cache, struct lnk_err *err);
/* Closes the copied /etc files' descriptors (etc_fds, then -1): once
 * bwrap has them, lnk needs them no more, and closing them while bwrap
 * makes the sandbox keeps that off the end of the run. */
void host_close_etc(struct host_facts *h);
void host_facts_free(struct host_facts *h);
/* A generated /etc file: text, copied into the sandbox read only at path
 * (replacing the host's copy when the view already holds one). 0 or
 * -errno. */
int host_add_etc_text(struct host_facts *h, const char *path, const char *text,
		      struct lnk_err *err);

/* bubblewrap's path: the first of a fixed list of system folders (never
 * the user's PATH, which a sandboxed program may have written to). */
char *host_find_bwrap(void);

/* A helper program of lnk (lnk-init, lnk-probe): next to the realpath of
 * /proc/self/exe (a build tree), else in ../lib/lnk from there when that
 * and lnk's folder are root's alone (an install unpacked under another
 * root), else in LNK_LIBEXECDIR. NULL when none exists. */
char *host_find_helper(const char *name);
char *host_find_init(void);

/* Runs `bwrap --version`. 0 and ver filled, or -errno. */
int host_bwrap_version(const char *bwrap, int ver[3], struct lnk_err *err);

/* host_bwrap_version, remembered in the file cache (paths_bwrap_cache)
 * under the binary's device, inode, size, mtime and ctime: forking bwrap
 * costs more than a millisecond on every run, and the answer changes only
 * when the binary does. The cache lives in ~/.lnk, which no sandbox can
 * read or write (invariant 1), so a program cannot make lnk believe its
 * bwrap lacks --disable-userns. cache NULL: always run bwrap. */
int host_bwrap_version_cached(const char *bwrap, const char *cache, int ver[3],
			      struct lnk_err *err);

/* True when ver >= a.b.c. */
bool host_version_at_least(const int ver[3], int a, int b, int c);

/* Probes. Each returns 0 when the feature works here, or -errno with err
 * saying what failed and what to do. */
int host_probe_userns(struct lnk_err *err);
int host_probe_bwrap(const char *bwrap, struct lnk_err *err);
/* 1 when kernel.apparmor_restrict_unprivileged_userns is 1, 0 when it is
 * 0 or absent. */
int host_apparmor_restricts_userns(void);
/* The Landlock ABI version (>= 1), or -ENOSYS (not in this kernel),
 * -EOPNOTSUPP (built but disabled at boot), another -errno. */
int host_landlock_abi(void);
int host_probe_seccomp_filter(struct lnk_err *err);
/* seccomp user notification with fd injection (SECCOMP_IOCTL_NOTIF_ADDFD)
 * and WAIT_KILLABLE_RECV, for real: a child installs a filter, the parent
 * answers one of its system calls with a descriptor. */
int host_probe_seccomp_notify(struct lnk_err *err);

/* What /etc/os-release (else /usr/lib/os-release) says of this system:
 * its ID, VERSION_ID and PRETTY_NAME (the file's words: escape before
 * printing), each cut to fit. 0 or -errno. */
struct host_os {
	char id[32], version_id[32], pretty[128];
};
int host_os_release(struct host_os *os);
/* True on Ubuntu major.minor or newer. */
bool host_os_ubuntu_since(const struct host_os *os, int major, int minor);

/* The AppArmor profile that lets bwrap create user namespaces on systems
 * that restrict them (Ubuntu 23.10 and newer). */
#define HOST_APPARMOR_PROFILE_PATH "/etc/apparmor.d/bwrap"
char *host_apparmor_profile(const char *bwrap);

/* A short reason why user namespaces cannot work, read from sysctls
 * (no fork), or NULL when nothing says so. For run's error messages after
 * bubblewrap failed to start. */
char *host_userns_hint(void);
