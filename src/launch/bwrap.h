/* The policy as bubblewrap's arguments: a pure function, golden-tested.
 *
 * From a resolved policy and a few host facts (gathered by host.c, or written
 * by hand in tests) this builds the whole mount table of the sandbox, then
 * the bwrap options that make it and the Landlock lists that mirror it. It
 * touches nothing: no stat, no open, no environment. bubblewrap makes the
 * sandbox; we build its arguments and mount nothing of it ourselves. The one
 * mount namespace lnk makes is the view of the host bwrap starts from when
 * run as root (launch/hostview.h; docs/design.md, "The processes of one
 * run").
 */
#pragma once

#include <stdbool.h>

#include "common/err.h"
#include "common/util.h"
#include "policy/policy.h"

/* Where lnk-init is bind-mounted (read only) inside every sandbox. */
#define BWRAP_INIT_PATH "/run/lnk/init"

struct bwrap_in {
	const struct policy *pol; /* resolved (policy_resolve) */
	const char *home;	  /* the user's home, absolute */
	const char *cwd;	  /* where lnk was started, absolute */
	const char *init_path;	  /* lnk-init on the host, absolute */

	/* Host facts. root_dirs: top-level system folders that exist and are
	 * real folders ("/usr", "/bin" on a split-/usr system). root_links:
	 * pairs path, target for top-level system entries that are symlinks
	 * on the host ("/bin", "usr/bin" on a merged-/usr system). etc: the
	 * entries of the chosen /etc list that exist (see bwrap.c). */
	const struct strv *root_dirs;
	const struct strv *root_links;
	const struct strv *etc;
	/* etc_files: entries of the /etc list that are regular files lnk can
	 * read (host.c opened each). Each is copied into the sandbox's root
	 * (--file) rather than bound: a bind costs bwrap a mount and a parse
	 * of the whole mount table (about 0.3 ms each, measured), a copy
	 * neither, and the root is remounted read only at the end, so the
	 * copy is as read only as the bind was. The copied ones are listed in
	 * bwrap_out.files, in slot order from files_fd. NULL for none. */
	const struct strv *etc_files;
	const unsigned *etc_modes; /* etc_files' modes; NULL: all 0444 */
	int files_fd;
	/* etc_trees: small /etc folders made again inside (--dir), for the
	 * same reason: their files are in etc_files, their links in
	 * root_links. An entry inside one is made only where its folder is
	 * (a grant or a --hide at the folder replaces all of it). NULL for
	 * none. */
	const struct strv *etc_trees;

	/* Paths ro-bound over themselves after the grants: the existing dot
	 * files at the top of each --write folder (guard/guard.h,
	 * guard_mounts_in). NULL for none. */
	const struct strv *ro_over;

	/* Folders always hidden (~/.lnk, ~/Link/Agents, ~/Link/History, and
	 * the real paths they link to) that exist on the host: an empty,
	 * read-only tmpfs goes over each that a grant shows. */
	const struct strv *hidden;

	/* Files of the sandbox's /proc covered by the host's /dev/null,
	 * bound read only on a mount without devices, so that opening one
	 * fails: kernel-wide files that show the host's state rather than
	 * the sandbox's (see host.c, host_proc_masks). NULL for none. */
	const struct strv *proc_masks;

	/* A folder of copies of the device nodes --dev binds from the host
	 * (launch/devnodes.h), bound over them; NULL: none (not root, or
	 * bwrap's view of the host has them in place: launch/hostview.h). */
	const char *dev_nodes_dir;

	/* Descriptors inside bwrap (fixed slots, see plan.h): generated
	 * /etc/passwd and /etc/group (-1 to leave them out; copied like
	 * etc_files), the info fd (-1 for none). */
	int passwd_fd, group_fd, info_fd;

	/* Bytes each writable tmpfs (/tmp, /var/tmp, /dev/shm, the empty
	 * home) may hold (bwrap >= 0.7.0 knows --size); 0: the kernel's
	 * default, half the machine's memory each (launch/limits.h). */
	unsigned long long tmp_size;

	bool pty;	     /* the program gets lnk's pseudo-terminal */
	bool disable_userns; /* bwrap >= 0.8.0 knows --disable-userns */
};

/* One mount of the sandbox, in the order bwrap makes them. */
enum bwrap_mount_kind {
	BM_RO,	    /* --ro-bind SRC SRC: system folders and --read */
	BM_RO_TRY,  /* --ro-bind-try: /etc entries */
	BM_RW,	    /* --bind SRC SRC: --write */
	BM_TMPFS,   /* --tmpfs: /tmp, the empty home (writable, private) */
	BM_HIDE,    /* --tmpfs then --remount-ro at the end: --hide, always
		     * hidden folders */
	BM_PROC,    /* --proc */
	BM_DEV,	    /* --dev */
	BM_SYMLINK, /* --symlink TARGET PATH */
	BM_DATA,    /* --perms 0444 --file FD PATH: generated passwd, group
		     * (--ro-bind-data where a grant shows the host there) */
	BM_FILE,    /* --perms MODE --file FD PATH: a copy of the host's
		     * PATH (--ro-bind-try where a grant shows the host) */
	BM_DIR,	    /* --perms 0755 --dir PATH: an /etc folder made again
		     * (--ro-bind-try where a grant shows the host) */
	BM_INIT,    /* --ro-bind INIT /run/lnk/init */
	BM_MASK,    /* --ro-bind /dev/null PATH: a /proc file made
		     * unreadable */
	BM_DEVNODE, /* --dev-bind SRC PATH: a copy of a host device node
		     * over bwrap's bind of the node itself */
};

struct bwrap_mount {
	enum bwrap_mount_kind kind;
	char *path;    /* inside (== on the host for binds) */
	char *src;     /* symlink target, init path; NULL otherwise */
	int fd;	       /* BM_DATA, BM_FILE */
	bool bind;     /* BM_DATA: as --ro-bind-data (see BM_DATA) */
	bool pin;      /* a grant or an entry kept read only over itself:
			* lnk-init finds the object lnk opened there (see
			* bwrap_out.pins) */
	unsigned mode; /* BM_FILE */
};

struct bwrap_out {
	struct strv opts; /* bwrap options, for its --args memfd */
	struct bwrap_mount *mounts;
	size_t nmounts;
	char *chdir;	      /* where the program starts */
	bool home_temporary;  /* the home inside is an empty tmpfs, thrown
			       * away at the end */
	struct strv ll_read;  /* Landlock: what the mounts let it read */
	struct strv ll_write; /* Landlock: what the mounts let it write */
	struct strv files;    /* the etc_files copied: files[i] is read from
			       * descriptor files_fd + i */
	struct strv pins;     /* the binds of a folder or entry a program may
			       * have replaced (a grant, a kept dot entry):
			       * bound by path, so the launch records what
			       * each is and lnk-init checks it (plan.c) */
	bool shows_sys;	      /* a bind's host path is /sys, in it, or
			       * holds it (launch/hostview.h) */
};

int bwrap_build(const struct bwrap_in *in, struct bwrap_out *out,
		struct lnk_err *err);
void bwrap_out_free(struct bwrap_out *out);

/* The /etc entries programs need, NULL-terminated. An entry ending in '*' is
 * a prefix (host.c expands it against the host's /etc). */
const char *const *bwrap_etc_list(void);

/* The top-level system folders a sandbox reads, NULL-terminated. */
const char *const *bwrap_root_list(void);

/* Adds "--ro-bind src dst" to bwrap_build's options right after the bind
 * of lnk-init: the root is still writable there (bwrap makes dst's mount
 * point) and the final --remount-ro of / comes after. At the end when
 * there is no such bind. */
void bwrap_bind_after_init(struct strv *opts, const char *src, const char *dst);
