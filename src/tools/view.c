#include "tools/view.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/esc.h"
#include "confine/layers.h"

/* The signals a caller passes to the tool's process group (Ctrl-C, a
 * window's size, a stop's end): the waiter and pid 1 must not die of them
 * before the tool has decided what to do with its own. */
static const int passable[] = {SIGINT,	SIGTERM, SIGHUP,   SIGQUIT,
			       SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};

static void ignore_passable(void)
{
	for (size_t i = 0; i < sizeof(passable) / sizeof(passable[0]); i++)
		signal(passable[i], SIG_IGN);
}

/* The tool starts as any exec'd program expects: default dispositions,
 * nothing blocked. */
static void default_signals(void)
{
	sigset_t none;

	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* A process that only waits must not hold the tool's stdin, stdout and
 * stderr: the program reading the tool's output sees its end when the
 * tool's copies close, not the waiters'. */
static void let_go_of_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	for (int i = 0; i < 3; i++) {
		if (fd >= 0)
			(void)dup2(fd, i);
		else
			close(i);
	}
	if (fd > 2)
		close(fd);
}

/* Sends a failure to the waiter, which returns it to the caller. One
 * record is shorter than PIPE_BUF: written whole or not at all. */
static void tell(int fd, const struct lnk_err *e)
{
	if (write(fd, e, sizeof(*e)) < 0) {
	}
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	size_t n = strlen(s);
	ssize_t w = write(fd, s, n);
	int e = w < 0 ? -errno : (size_t)w == n ? 0 : -EIO;
	close(fd);
	return e;
}

/* Unprivileged: the new user namespace maps the caller's uid and gid to
 * themselves, so files keep their owners and the tool its access. The
 * kernel lets a process map only itself, after giving up setgroups. */
static int map_self(uid_t uid, gid_t gid, struct lnk_err *err)
{
	char m[64];
	int e;

	if ((e = write_file("/proc/self/setgroups", "deny")) < 0)
		return err_set(err, e,
			       "cannot deny setgroups in the tool's "
			       "user namespace: %s",
			       strerror(-e));
	snprintf(m, sizeof(m), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if ((e = write_file("/proc/self/uid_map", m)) < 0)
		return err_set(err, e,
			       "cannot map uid %u in the tool's user "
			       "namespace: %s",
			       (unsigned)uid, strerror(-e));
	snprintf(m, sizeof(m), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if ((e = write_file("/proc/self/gid_map", m)) < 0)
		return err_set(err, e,
			       "cannot map gid %u in the tool's user "
			       "namespace: %s",
			       (unsigned)gid, strerror(-e));
	return 0;
}

/* Root: every id maps to itself, so root's tool keeps its access to every
 * file (its capabilities hold over every mapped owner), yet holds none in
 * the host's namespace. Only a process of the parent namespace with
 * CAP_SETUID may write such a map: pid 1 writes the tool's. */
static int map_all(pid_t pid, struct lnk_err *err)
{
	static const char all[] = "0 0 4294967295\n";
	char p[64];
	int e;

	snprintf(p, sizeof(p), "/proc/%d/uid_map", (int)pid);
	if ((e = write_file(p, all)) < 0)
		return err_set(err, e,
			       "cannot map the uids of the tool's user "
			       "namespace: %s",
			       strerror(-e));
	snprintf(p, sizeof(p), "/proc/%d/gid_map", (int)pid);
	if ((e = write_file(p, all)) < 0)
		return err_set(err, e,
			       "cannot map the gids of the tool's user "
			       "namespace: %s",
			       strerror(-e));
	return 0;
}

/* path opened as the kernel resolves it, links followed (a home under a
 * linked /home, a hidden folder that is a link: the folder it names is
 * what to hide), but no /proc magic link. lnk's guard keeps every folder
 * on the way to a hidden one from being renamed or made a link inside the
 * sandbox (guard/protect.c), so what the path names now is the hidden
 * folder. */
static int open_named(const char *path)
{
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC,
	    .resolve = RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
}

/* Covers one hidden path in the current mount namespace: a folder with an
 * empty tmpfs, read only, mode 0; anything else with /dev/null bound read
 * only on a mount without devices, so opening it fails. The mount goes on
 * the descriptor opened, not on the path again. */
static int hide_one(const char *path, const struct tools_pin *want,
		    struct lnk_err *err)
{
	char q[PATH_MAX + 16], at[64];
	struct stat st, now;
	int fd, e = 0;

	if (path[0] != '/')
		return err_set(err, -EINVAL,
			       "a hidden path must be absolute: '%s'",
			       esc_to(q, sizeof(q), path));
	fd = open_named(path);
	/* A pinned folder must be where it was read to be a moment ago: a
	 * tool running beside this one may have moved it again. */
	if (want && fd < 0)
		return err_set(err, -ESTALE,
			       "the hidden folder '%s' moved while the tool "
			       "started; the call is refused",
			       esc_to(q, sizeof(q), path));
	/* Nothing there, or nothing the user can reach: nothing a tool, as
	 * the user, could read there either. */
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -EACCES)
		return 0;
	if (fd < 0)
		return err_set(err, fd, "cannot hide '%s' from the tool: %s",
			       esc_to(q, sizeof(q), path), strerror(-fd));
	snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
	if (fstat(fd, &st) < 0)
		e = -errno;
	else if (want && (st.st_dev != want->dev || st.st_ino != want->ino))
		e = -ESTALE;
	else if (S_ISDIR(st.st_mode)) {
		if (mount("tmpfs", at, "tmpfs",
			  MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  "mode=000") < 0)
			e = -errno;
	} else if (mount("/dev/null", at, NULL, MS_BIND, NULL) < 0) {
		e = -errno;
	} else {
		/* a bind takes its flags only in a remount of the new mount,
		 * reached by opening the path again */
		int top = open_named(path);
		snprintf(at, sizeof(at), "/proc/self/fd/%d", top);
		if (top < 0 || mount(NULL, at, NULL,
				     MS_REMOUNT | MS_BIND | MS_RDONLY |
					 MS_NOSUID | MS_NODEV | MS_NOEXEC,
				     NULL) < 0)
			e = top < 0 ? top : -errno;
		if (top >= 0)
			close(top);
	}
	close(fd);
	if (e < 0)
		return err_set(err, e, "cannot hide '%s' from the tool: %s",
			       esc_to(q, sizeof(q), path), strerror(-e));
	/* What the tool will reach by that path must be the cover. */
	fd = open_named(path);
	if (fd < 0 || fstat(fd, &now) < 0 ||
	    (now.st_dev == st.st_dev && now.st_ino == st.st_ino)) {
		if (fd >= 0)
			close(fd);
		return err_set(err, -EIO,
			       "'%s' is still in sight after hiding it from "
			       "the tool",
			       esc_to(q, sizeof(q), path));
	}
	close(fd);
	return 0;
}

/* statfs's flag for a nosymfollow mount (the kernel's; glibc 2.36 does
 * not name it) */
#define LNK_ST_NOSYMFOLLOW 0x2000

/* A write folder in the tool's view, bound onto itself with what is
 * mounted below it, and that copy made nosymfollow: the kernel follows no
 * link on it. Threat: the program replaces a tracked file's folder with a
 * link to a folder of the user's (or makes out.txt a link to ~/.bashrc);
 * a granted `git grep WORD`, `git blame d/f` or `git log --output=out.txt`
 * runs outside, as the user, and would read or write through it. A link
 * is still a link there: readlink, lstat and making one work, so git
 * reads a repository's own links as it always does. A folder that is not
 * there, or that the user cannot reach, is left: nothing to follow. */
static int nofollow_one(const char *path, struct lnk_err *err)
{
	char q[PATH_MAX + 16], at[64];
	struct stat st;
	struct statfs vs;
	int e = 0;

	int fd = open_named(path);
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -EACCES)
		return 0;
	if (fd < 0)
		return err_set(err, fd,
			       "cannot keep the tool from following links in "
			       "'%s': %s",
			       esc_to(q, sizeof(q), path), strerror(-fd));
	snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
	if (fstat(fd, &st) < 0)
		e = -errno;
	else if (!S_ISDIR(st.st_mode))
		e = 1;
	else if (mount(at, at, NULL, MS_BIND | MS_REC, NULL) < 0)
		e = -errno;
	close(fd);
	if (e == 1)
		return 0;
	if (e == 0) {
		/* the new copy, on top now */
		struct mount_attr a = {.attr_set = MOUNT_ATTR_NOSYMFOLLOW};
		int top = open_named(path);
		if (top < 0)
			e = top;
		else if (mount_setattr(top, "", AT_EMPTY_PATH | AT_RECURSIVE,
				       &a, sizeof(a)) < 0 ||
			 fstatfs(top, &vs) < 0)
			e = -errno;
		else if (!(vs.f_flags & LNK_ST_NOSYMFOLLOW))
			e = -EIO;
		if (top >= 0)
			close(top);
	}
	if (e < 0)
		return err_set(err, e,
			       "cannot keep the tool from following links in "
			       "'%s': %s",
			       esc_to(q, sizeof(q), path), strerror(-e));
	return 0;
}

/* One of the home's own dot entries, name, made what the tool follows
 * again over the nosymfollow copy of a write folder that holds the home:
 * a folder is bound back from the home as it was (home_fd, opened before
 * the copy), links inside it followed; a link to a file has that file
 * bound over it (the link's own text, resolved with no further link: a
 * target reached through one is left, as the program may have made that
 * one). A link to a folder cannot have a folder bound over it, so it
 * stays a link the tool does not follow. Threat it keeps: the program
 * cannot make or change these (the guard keeps the home's top dot
 * entries), so they are the user's own, a dotfile manager's links. */
static void home_dot_back(int home_fd, const char *home, const char *name)
{
	char at[PATH_MAX], text[PATH_MAX];
	struct stat st;
	int src = -1;

	if (snprintf(at, sizeof(at), "%s/%s", home, name) >= (int)sizeof(at) ||
	    fstatat(home_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		src = (int)open_tree(home_fd, name,
				     OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
					 AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
	} else if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlinkat(home_fd, name, text, sizeof(text) - 1);
		if (n <= 0)
			return;
		text[n] = '\0';
		struct open_how how = {
		    .flags = O_PATH | O_CLOEXEC,
		    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		int t = (int)syscall(SYS_openat2,
				     text[0] == '/' ? AT_FDCWD : home_fd, text,
				     &how, sizeof(how));
		struct stat ts;
		if (t < 0)
			return;
		if (fstat(t, &ts) == 0 && S_ISREG(ts.st_mode))
			src =
			    (int)open_tree(t, "",
					   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
					       AT_EMPTY_PATH);
		close(t);
	}
	if (src < 0)
		return;
	/* onto the entry itself, never what a link there names */
	(void)move_mount(src, "", AT_FDCWD, at, MOVE_MOUNT_F_EMPTY_PATH);
	close(src);
}

/* A write folder that holds the home (--write ~): nosymfollow as any
 * other, then the home's own dot entries followed again (home_dot_back),
 * unless the program may write them too (--write-dot-files of the
 * home). */
static int nofollow_around_home(const char *path, const char *home,
				bool home_dots_too, struct lnk_err *err)
{
	int home_fd = -1, r;

	if (!home_dots_too) {
		struct open_how how = {
		    .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
		    .resolve = RESOLVE_NO_MAGICLINKS,
		};
		home_fd = (int)syscall(SYS_openat2, AT_FDCWD, home, &how,
				       sizeof(how));
	}
	if ((r = nofollow_one(path, err)) < 0 || home_fd < 0) {
		if (home_fd >= 0)
			close(home_fd);
		return r;
	}
	int dup_fd = dup(home_fd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d && dup_fd >= 0)
		close(dup_fd);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] != '.' || !strcmp(e->d_name, ".") ||
		    !strcmp(e->d_name, ".."))
			continue;
		home_dot_back(home_fd, home, e->d_name);
	}
	if (d)
		closedir(d);
	close(home_fd);
	return 0;
}

/* The tool's folder, entered again by its path after the write folders
 * were bound anew: the caller's descriptor is of the copy below them, on
 * which links are still followed. It must be the same folder. */
static int cwd_again(struct lnk_err *err)
{
	char path[PATH_MAX], q[PATH_MAX + 16];
	struct stat was, now;

	if (!getcwd(path, sizeof(path)) || path[0] != '/' ||
	    stat(".", &was) < 0)
		return err_set(err, -EXDEV,
			       "the tool's folder is out of reach of its view "
			       "of the system");
	if (chdir(path) < 0 || stat(".", &now) < 0 ||
	    now.st_dev != was.st_dev || now.st_ino != was.st_ino)
		return err_set(err, -EXDEV,
			       "the tool's folder '%s' moved while the tool "
			       "started; the call is refused",
			       esc_to(q, sizeof(q), path));
	return 0;
}

/* The working folder must be what its path names in this view, mount and
 * inode: a folder held from another mount namespace (where nothing is
 * hidden) or one beneath a hidden folder would let `..` and relative
 * paths walk the unhidden tree. getcwd fails for a folder out of reach of
 * this root. */
static int cwd_check(struct lnk_err *err)
{
	char path[PATH_MAX], q[PATH_MAX + 16];
	struct statx here, named;

	if (!getcwd(path, sizeof(path)) || path[0] != '/')
		return err_set(err, -EXDEV,
			       "the tool's folder is out of reach of its view "
			       "of the system");
	if (statx(AT_FDCWD, ".", 0, STATX_INO | STATX_MNT_ID, &here) < 0 ||
	    statx(AT_FDCWD, path, 0, STATX_INO | STATX_MNT_ID, &named) < 0 ||
	    !(here.stx_mask & named.stx_mask & STATX_MNT_ID) ||
	    here.stx_mnt_id != named.stx_mnt_id ||
	    here.stx_ino != named.stx_ino ||
	    here.stx_dev_major != named.stx_dev_major ||
	    here.stx_dev_minor != named.stx_dev_minor)
		return err_set(err, -EXDEV,
			       "the tool's folder '%s' is not the folder of "
			       "that path in its view (hidden, or of another "
			       "mount namespace)",
			       esc_to(q, sizeof(q), path));
	return 0;
}

/* 128+N for a tool ended by signal N, as a shell says it. */
static int status_of(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 125;
}

/* Waits for pid, reaping whatever else ends meanwhile (pid 1 inherits
 * the tool's orphans), and exits with its status. */
__attribute__((noreturn)) static void wait_and_exit(pid_t pid)
{
	for (;;) {
		int ws;
		pid_t w = waitpid(-1, &ws, 0);
		if (w == pid)
			_exit(status_of(ws));
		if (w < 0 && errno != EINTR)
			_exit(125);
	}
}

/* The parent is gone when the write end of a pipe it reads reports an
 * error: pid 1 cannot ask getppid (its parent is outside its
 * namespace). */
static bool reader_gone(int fd)
{
	struct pollfd p = {.fd = fd, .events = 0};
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

static int read_byte(int fd)
{
	char c;
	ssize_t n;

	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR) {
	}
	return n == 1 ? (unsigned char)c : -1;
}

/* The tool's own process, forked by pid 1. As root it enters a user
 * namespace of its own (pid 1 maps every id), with a copy of the mount
 * namespace: the kernel locks a copy's mounts together when it goes to a
 * less privileged user namespace, so the tool, root there, cannot unmount
 * what hides or the fresh /proc. Returns only on success. */
static void become_tool(bool root, int errw, const int up[2], const int down[2])
{
	struct lnk_err e = {0};

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != 1)
		_exit(125);
	if (root) {
		close(up[0]);
		close(down[1]);
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
			err_set(&e, -errno,
				"cannot make the tool's user namespace: %s",
				strerror(errno));
			tell(errw, &e);
			_exit(125);
		}
		if (write(up[1], "u", 1) != 1 || read_byte(down[0]) != 'g')
			_exit(125);
		close(up[1]);
		close(down[0]);
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != 1)
			_exit(125);
	}
	if (cwd_check(&e) < 0) {
		tell(errw, &e);
		_exit(125);
	}
	/* A user's tool is not root in the user namespace, so its exec drops
	 * the namespace's capabilities anyway; dropped here already, so that
	 * not even the caller's code before the exec could unmount what
	 * hides. */
	if (!root && confine_drop_caps(false) < 0) {
		err_set(&e, -errno, "cannot drop the tool's capabilities: %s",
			strerror(errno));
		tell(errw, &e);
		_exit(125);
	}
	close(errw);
	default_signals();
}

/* pid 1 of the tool's PID namespace: a /proc of that namespace only (the
 * host's would show the user's other processes, whose /proc/PID/root is
 * the host's view, hidden folders and all), then the tool. Returns only
 * in the tool. */
static void be_pid_one(bool root, int errw)
{
	struct lnk_err e = {0};
	int up[2] = {-1, -1}, down[2] = {-1, -1};

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (reader_gone(errw))
		_exit(125);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) < 0) {
		err_set(&e, -errno, "cannot mount the tool's /proc: %s",
			strerror(errno));
		tell(errw, &e);
		_exit(125);
	}
	if (root && (pipe2(up, O_CLOEXEC) < 0 || pipe2(down, O_CLOEXEC) < 0)) {
		err_set(&e, -errno, "cannot start the tool: %s",
			strerror(errno));
		tell(errw, &e);
		_exit(125);
	}
	pid_t tool = fork();
	if (tool < 0) {
		err_set(&e, -errno, "cannot start the tool: %s",
			strerror(errno));
		tell(errw, &e);
		_exit(125);
	}
	if (tool == 0) {
		become_tool(root, errw, up, down);
		return;
	}
	if (root) {
		close(up[1]);
		close(down[0]);
		/* no byte: the tool failed, and said why */
		if (read_byte(up[0]) == 'u') {
			if (map_all(tool, &e) < 0) {
				tell(errw, &e);
				kill(tool, SIGKILL);
				_exit(125);
			}
			if (write(down[1], "g", 1) != 1) {
			}
		}
		close(up[0]);
		close(down[1]);
	}
	close(errw);
	/* Neither the tool nor anything else may read or trace pid 1 (it
	 * holds the namespaces' capabilities). */
	(void)prctl(PR_SET_DUMPABLE, 0);
	let_go_of_stdio();
	wait_and_exit(tool);
}

int tools_pins_make(const struct strv *hidden, struct tools_pins *out)
{
	out->v = NULL;
	out->n = 0;
	for (size_t i = 0; hidden && i < hidden->n; i++) {
		struct stat st;
		int fd = open(hidden->v[i], O_PATH | O_CLOEXEC);
		if (fd < 0)
			continue; /* missing now: hidden by its spelling */
		if (fstat(fd, &st) < 0) {
			close(fd);
			continue;
		}
		bool seen = false;
		for (size_t k = 0; k < out->n && !seen; k++)
			seen = out->v[k].dev == st.st_dev &&
			       out->v[k].ino == st.st_ino;
		if (seen) {
			close(fd); /* one folder, given twice */
			continue;
		}
		struct tools_pin *v =
		    realloc(out->v, (out->n + 1) * sizeof(*out->v));
		if (!v) {
			close(fd);
			return -ENOMEM;
		}
		out->v = v;
		out->v[out->n++] = (struct tools_pin){
		    .fd = fd, .dev = st.st_dev, .ino = st.st_ino};
	}
	return 0;
}

void tools_pins_free(struct tools_pins *p)
{
	for (size_t i = 0; i < p->n; i++)
		close(p->v[i].fd);
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

void tools_pins_now(const struct tools_pins *p, struct strv *paths)
{
	for (size_t i = 0; i < p->n; i++) {
		char link[64], now[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", p->v[i].fd);
		ssize_t n = readlink(link, now, sizeof(now) - 1);
		/* gone (or not on a path any more): nothing is left to read
		 * there; an empty entry keeps the rest in line */
		static const char deleted[] = " (deleted)";
		size_t dl = sizeof(deleted) - 1;
		if (n <= 0 || now[0] != '/' ||
		    ((size_t)n >= dl && !memcmp(now + n - dl, deleted, dl)))
			n = 0;
		now[n] = '\0';
		strv_push(paths, now);
	}
}

int tools_view_enter(const struct strv *hidden, struct lnk_err *err)
{
	return tools_view_enter_pinned(hidden, NULL, NULL, NULL, err);
}

int tools_view_enter_pinned(const struct strv *hidden,
			    const struct tools_pins *pins,
			    const struct strv *now,
			    const struct tools_nofollow *nf,
			    struct lnk_err *err)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	pid_t parent = getppid();
	bool root = uid == 0;
	int ep[2], rc;

	if (pipe2(ep, O_CLOEXEC) < 0)
		return err_set(err, -errno, "cannot start the tool: %s",
			       strerror(errno));
	/* Root makes the mount and PID namespaces in the host's user
	 * namespace, so that the tool's (a child user namespace) sees their
	 * mounts locked; a user needs a user namespace first, and its tool,
	 * not root there, holds no capability in it. */
	int flags = CLONE_NEWNS | CLONE_NEWPID | (root ? 0 : CLONE_NEWUSER);
	if (unshare(flags) < 0) {
		rc = err_set(err, -errno,
			     "cannot make the tool's namespaces: %s (a tool "
			     "runs in namespaces of its own, where lnk's "
			     "settings and the hidden folders are out of "
			     "sight; check that user namespaces are enabled: "
			     "lnk ready)",
			     strerror(errno));
		goto fail;
	}
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(125);
	if (!root && (rc = map_self(uid, gid, err)) < 0)
		goto fail;
	/* nothing mounted here reaches the host's namespace */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) {
		rc = err_set(err, -errno,
			     "cannot make the tool's mounts private: %s",
			     strerror(errno));
		goto fail;
	}
	/* The pinned folders where they are now (a tool outside the sandbox
	 * may have renamed a folder above one), checked to be the same
	 * folders; then every hidden path as it is spelled, for what was
	 * missing at the start and is there now. */
	/* deepest first: a hidden folder inside another is covered before
	 * the outer cover takes it out of reach */
	size_t np = pins && now ? (now->n < pins->n ? now->n : pins->n) : 0;
	bool *done = np ? calloc(np, sizeof(*done)) : NULL;
	for (size_t round = 0; round < np; round++) {
		size_t best = np;
		for (size_t i = 0; i < np; i++)
			if (!done[i] &&
			    (best == np ||
			     strlen(now->v[i]) > strlen(now->v[best])))
				best = i;
		done[best] = true;
		if (now->v[best][0] &&
		    (rc = hide_one(now->v[best], &pins->v[best], err)) < 0) {
			free(done);
			goto fail;
		}
	}
	free(done);
	for (size_t i = 0; hidden && i < hidden->n; i++)
		if ((rc = hide_one(hidden->v[i], NULL, err)) < 0)
			goto fail;
	/* After the covers, which the binds take along (a dot folder bound
	 * back brings its covers too): a hidden path is opened following its
	 * links (open_named). A folder that holds the home first: a write
	 * folder among the home's dot entries (--write ~/.config) is then
	 * bound nosymfollow over the dot folder made followable again. */
	for (size_t i = 0; nf && nf->around && i < nf->around->n; i++)
		if ((rc = nofollow_around_home(nf->around->v[i], nf->home,
					       nf->home_dots_too, err)) < 0)
			goto fail;
	for (size_t i = 0; nf && nf->folders && i < nf->folders->n; i++)
		if ((rc = nofollow_one(nf->folders->v[i], err)) < 0)
			goto fail;
	if (nf &&
	    ((nf->folders && nf->folders->n) ||
	     (nf->around && nf->around->n)) &&
	    (rc = cwd_again(err)) < 0)
		goto fail;
	ignore_passable();
	pid_t one = fork();
	if (one < 0) {
		rc = err_set(err, -errno, "cannot start the tool: %s",
			     strerror(errno));
		goto fail;
	}
	if (one == 0) {
		close(ep[0]);
		be_pid_one(root, ep[1]);
		return 0; /* the tool */
	}
	close(ep[1]);
	(void)prctl(PR_SET_DUMPABLE, 0);
	struct lnk_err got;
	size_t have = 0;
	while (have < sizeof(got)) {
		ssize_t n =
		    read(ep[0], (char *)&got + have, sizeof(got) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
	}
	close(ep[0]);
	/* a record, or part of one: a failure before the tool */
	if (have > 0) {
		if (have < sizeof(got))
			err_set(&got, -EIO, "the tool's start failed");
		int ws;
		kill(one, SIGKILL);
		while (waitpid(one, &ws, 0) < 0 && errno == EINTR) {
		}
		got.msg[sizeof(got.msg) - 1] = '\0';
		return err_set(err, got.code < 0 ? got.code : -EIO, "%s",
			       got.msg);
	}
	let_go_of_stdio();
	wait_and_exit(one);

fail:
	close(ep[0]);
	close(ep[1]);
	return rc;
}
