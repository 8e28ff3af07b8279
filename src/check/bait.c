/* Bait for lnk sandbox check: planted outside the sandbox, recorded before
 * it exists, removed afterwards (check.h).
 *
 * Every name carries a random tag, so two checks never share bait and a
 * name can never be guessed by a program that wants check to delete
 * something else. Each is recorded in ~/.lnk/sandbox/check/<tag>.bait
 * (which no sandbox reaches) BEFORE it is made: a check killed with
 * SIGKILL leaves a record, and the next check removes what it lists once
 * the process that wrote it is gone. A listed file is removed only if it
 * starts with BAIT_MARK, a listed socket only if its name has the tag's
 * form: a record that someone edited can never make check delete a
 * person's file.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/compat.h"
#include "check/check.h"
#include "net/addr.h"
#include "net/grammar.h"
#include "policy/dotfiles.h"
#include "store/paths.h"

static char *record_dir(const char *home)
{
	_cleanup_free_ char *sb = paths_sandbox_dir(home);
	return xasprintf("%s/check", sb);
}

/* Appends one line to the record, before the thing it names exists. */
static void record(struct bait *b, char kind, const char *path)
{
	if (b->record_fd < 0)
		return;
	_cleanup_free_ char *line = xasprintf("%c %s\n", kind, path);
	write_all(b->record_fd, line, strlen(line));
	fdatasync(b->record_fd);
}

static bool is_ours(const char *path)
{
	char head[sizeof(BAIT_MARK) - 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		  read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
		  memcmp(head, BAIT_MARK, sizeof(head)) == 0;
	close(fd);
	return ok;
}

/* A socket check made: its name is lnk-check-<16 hex>.sock. */
static bool is_our_socket(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "lnk-check-", 10) && strncmp(base, ".lnk-check-", 11))
		return false;
	size_t n = strlen(base);
	struct stat st;
	return n > 5 && strcmp(base + n - 5, ".sock") == 0 &&
	       lstat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

static int plant_file(struct bait *b, const char *path, struct lnk_err *err)
{
	record(b, 'f', path);
	strv_push(&b->files, path);
	int fd = open(
	    path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return err_set(err, -errno, "cannot plant bait '%s': %s", path,
			       strerror(errno));
	_cleanup_free_ char *text = xasprintf(BAIT_MARK "%s\n", b->secret);
	int r = write_all(fd, text, strlen(text));
	close(fd);
	if (r < 0)
		return err_set(err, r, "cannot write bait '%s': %s", path,
			       strerror(-r));
	return 0;
}

/* A folder of check's: recorded first, removed only when empty. */
static int plant_dir(struct bait *b, const char *path, struct lnk_err *err)
{
	record(b, 'd', path);
	strv_push(&b->dirs, path);
	if (mkdir(path, 0700) < 0)
		return err_set(err, -errno, "cannot plant bait '%s': %s", path,
			       strerror(errno));
	return 0;
}

/* A link of check's: removed only while it is a link to a name of
 * check's. */
static int plant_link(struct bait *b, const char *path, const char *target,
		      struct lnk_err *err)
{
	record(b, 'l', path);
	strv_push(&b->links, path);
	if (symlink(target, path) < 0)
		return err_set(err, -errno, "cannot plant bait '%s': %s", path,
			       strerror(errno));
	return 0;
}

void bait_expect_dir(struct bait *b, const char *path)
{
	record(b, 'd', path);
	strv_push(&b->dirs, path);
}

char *bait_repo_below(struct bait *b, const char *w, size_t i)
{
	_cleanup_free_ char *dir =
	    xasprintf("%s/lnk-check-%s-r%zu", w, b->tag, i);
	char *git = xasprintf("%s/.git", dir);
	/* recorded first: a check that dies between the two still removes
	 * what it made */
	bait_expect_dir(b, dir);
	bait_expect_dir(b, git);
	if (mkdir(dir, 0700) < 0 || mkdir(git, 0700) < 0) {
		free(git);
		return NULL;
	}
	return git;
}

static void add_server(struct bait *b, int fd, const char *what,
		       const char *path)
{
	b->srv = xrealloc(b->srv, (b->nsrv + 1) * sizeof(*b->srv));
	b->srv[b->nsrv++] = (struct bait_server){
	    .fd = fd,
	    .what = xstrdup(what),
	    .is_unix = path != NULL,
	    .path = path ? xstrdup(path) : NULL,
	};
}

static int listen_inet(int fam, uint16_t port, uint16_t *bound)
{
	int fd = socket_cloexec(fam, SOCK_STREAM, 0, COMPAT_NONBLOCK);
	if (fd < 0)
		return -errno;
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_storage ss;
	socklen_t len = addr_loopback_sockaddr(fam, port, &ss);
	if (fam != AF_INET)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 16) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	if (bound) {
		len = sizeof(ss);
		getsockname(fd, (struct sockaddr *)&ss, &len);
		*bound = ntohs(fam == AF_INET
				   ? ((struct sockaddr_in *)&ss)->sin_port
				   : ((struct sockaddr_in6 *)&ss)->sin6_port);
	}
	return fd;
}

static int listen_unix(const char *path, bool abstract)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = strlen(path);
	if (n >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, n);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	if (abstract)
		sa.sun_path[0] = '\0';
	else
		len++;
	int fd = socket_cloexec(AF_UNIX, SOCK_STREAM, 0, COMPAT_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, len) < 0 || listen(fd, 16) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

/* Whether check may leave a bait file in the folder dir (st its stat):
 * one in the home folder, or another of the user's own that is not
 * root's. Threat: check runs a spec no one accepted (it asks nothing),
 * and as root its --hide, --read and --write folders named system folders
 * (/etc/cron.d, /etc/sudoers.d, apt's parts): a file planted there, even
 * for a moment, is read by the system (a sudoers.d file that does not
 * parse stops sudo), and a check killed before its cleanup leaves it. */
static bool bait_welcome(const char *dir, const struct stat *st,
			 const char *home)
{
	if (home && path_within(dir, home))
		return true;
	return st->st_uid == getuid() && st->st_uid != 0;
}

/* bait_welcome for a folder by its path: false when it cannot be
 * looked at. */
static bool welcome_path(const char *dir, const char *home)
{
	struct stat st;
	return stat(dir, &st) == 0 && bait_welcome(dir, &st, home);
}

/* Dot files at the top of each write folder: one planted (to try writing
 * and renaming an existing one) where a listed name is free. */
static int plant_dot_files(struct bait *b, const struct policy *p,
			   const char *home, struct lnk_err *err)
{
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	size_t n;
	const struct dot_file *df = dot_files(&n);
	for (size_t i = 0; i < wr->n; i++) {
		if (!welcome_path(wr->v[i], home))
			continue;
		for (size_t j = 0; j < n; j++) {
			if (strchr(df[j].name, '/'))
				continue;
			_cleanup_free_ char *path =
			    xasprintf("%s/%s", wr->v[i], df[j].name);
			struct stat st;
			if (lstat(path, &st) == 0 || errno != ENOENT)
				continue;
			int r = plant_file(b, path, err);
			if (r < 0)
				return r;
			strv_push(&b->dot_planted, wr->v[i]);
			strv_push(&b->dot_planted, path);
			break;
		}
	}
	return 0;
}

/* Names that run outside and are files (direnv, mise, asdf, vim): one
 * free in a write folder becomes a link into a folder of check's, so the
 * probe can try the way to its target. */
static const char *const chain_names[] = {".envrc", ".mise.toml",
					  ".tool-versions", ".exrc"};

static int plant_chains(struct bait *b, const struct policy *p,
			const char *home, struct lnk_err *err)
{
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	for (size_t i = 0; i < wr->n; i++) {
		const char *w = wr->v[i];
		if (!welcome_path(w, home))
			continue;
		_cleanup_free_ char *link = NULL;
		for (size_t j = 0; j < ARRAY_SIZE(chain_names) && !link; j++) {
			char *c = xasprintf("%s/%s", w, chain_names[j]);
			struct stat st;
			if (!strv_contains(&b->dot_planted, c) &&
			    lstat(c, &st) < 0 && errno == ENOENT)
				link = c;
			else
				free(c);
		}
		if (!link)
			continue;
		_cleanup_free_ char *name =
		    xasprintf("lnk-check-%s-c%zu", b->tag, i);
		_cleanup_free_ char *dir = xasprintf("%s/%s", w, name);
		_cleanup_free_ char *target = xasprintf("%s/envrc", dir);
		_cleanup_free_ char *rel = xasprintf("%s/envrc", name);
		/* A folder check cannot plant in: no try there (what was
		 * made is recorded and removed). */
		if (plant_dir(b, dir, err) < 0 ||
		    plant_file(b, target, err) < 0 ||
		    plant_link(b, link, rel, err) < 0)
			continue;
		strv_push(&b->chains, w);
		strv_push(&b->chains, link);
		strv_push(&b->chains, dir);
		strv_push(&b->chains, target);
	}
	return 0;
}

bool bait_holds_hidden(const struct policy *p, const char *home, const char *w)
{
	struct strv h = {0};
	bool r = false;
	strv_copy(&h, &p->always_hidden);
	paths_always_hidden(home, &h);
	strv_copy(&h, policy_list(p, K_FILES_HIDE));
	for (size_t i = 0; i < h.n && !r; i++) {
		struct stat st;
		r = strcmp(h.v[i], w) != 0 && path_within(h.v[i], w) &&
		    lstat(h.v[i], &st) == 0;
	}
	strv_free(&h);
	return r;
}

/* In each write folder that holds a hidden folder: a folder of check's
 * holding one that check hides (cmd_check adds it to the grants as
 * --hide would), so the probe can try to move a folder that holds a
 * hidden one without touching one of yours. */
static int plant_hide_holders(struct bait *b, const struct policy *p,
			      const char *home, struct lnk_err *err)
{
	const struct strv *wr = policy_list(p, K_FILES_WRITE);
	for (size_t i = 0; i < wr->n; i++) {
		const char *w = wr->v[i];
		if (!bait_holds_hidden(p, home, w) || !welcome_path(w, home))
			continue;
		_cleanup_free_ char *holder =
		    xasprintf("%s/lnk-check-%s-h%zu", w, b->tag, i);
		_cleanup_free_ char *hid = xasprintf("%s/lnk-check-in", holder);
		_cleanup_free_ char *file =
		    xasprintf("%s/.lnk-check-%s", hid, b->tag);
		if (plant_dir(b, holder, err) < 0 ||
		    plant_dir(b, hid, err) < 0 || plant_file(b, file, err) < 0)
			continue;
		strv_push(&b->hide_holders, w);
		strv_push(&b->hide_holders, holder);
		strv_push(&b->hide_holders, file);
		strv_push(&b->hide_added, hid);
		strv_push(&b->hidden_files, file);
	}
	return 0;
}

/* This machine's own addresses, not loopback nor link-local: a server on
 * each (at most a few), which the wire must never reach for the program
 * (they are this machine, whatever '*' allows). */
#define HOST_ADDRS_MAX 4
static void plant_host_servers(struct bait *b)
{
	struct ifaddrs *ifa = NULL;
	if (getifaddrs(&ifa) < 0)
		return;
	for (struct ifaddrs *i = ifa; i && b->host_addrs.n < 2 * HOST_ADDRS_MAX;
	     i = i->ifa_next) {
		if (!i->ifa_addr || (i->ifa_flags & IFF_LOOPBACK))
			continue;
		int fam = i->ifa_addr->sa_family;
		struct sockaddr_storage ss = {0};
		socklen_t len;
		char a[INET6_ADDRSTRLEN];
		if (fam == AF_INET) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
			*s4 = *(struct sockaddr_in *)i->ifa_addr;
			uint32_t v = ntohl(s4->sin_addr.s_addr);
			if ((v >> 24) == 127 || (v >> 16) == 0xa9fe)
				continue;
			s4->sin_port = 0;
			len = sizeof(*s4);
			inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		} else if (fam == AF_INET6) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
			*s6 = *(struct sockaddr_in6 *)i->ifa_addr;
			if (IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr) ||
			    IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ||
			    IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
				continue;
			s6->sin6_port = 0;
			len = sizeof(*s6);
			inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		} else {
			continue;
		}
		if (strv_contains(&b->host_addrs, a))
			continue;
		int fd = socket_cloexec(fam, SOCK_STREAM, 0, COMPAT_NONBLOCK);
		if (fd < 0)
			continue;
		int one = 1;
		if (fam == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
				   sizeof(one));
		if (bind(fd, (struct sockaddr *)&ss, len) < 0 ||
		    listen(fd, 16) < 0 ||
		    getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
			close(fd);
			continue; /* a tentative address: no try there */
		}
		uint16_t port = ntohs(
		    fam == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
				   : ((struct sockaddr_in6 *)&ss)->sin6_port);
		_cleanup_free_ char *what =
		    xasprintf(fam == AF_INET6 ? "[%s]:%u" : "%s:%u", a, port);
		add_server(b, fd, what, NULL);
		strv_push(&b->host_addrs, a);
		strv_pushf(&b->host_addrs, "%u", port);
	}
	freeifaddrs(ifa);
}

int bait_plant(struct bait *b, const struct policy *p, const char *home,
	       struct lnk_err *err)
{
	int r;
	*b = (struct bait){.record_fd = -1, .fd = -1, .home_dgram_fd = -1};

	uint64_t rnd = 0;
	if (getentropy(&rnd, sizeof(rnd)) != 0)
		return err_set(err, -EIO, "cannot read random bytes for bait");
	snprintf(b->tag, sizeof(b->tag), "%016llx", (unsigned long long)rnd);
	b->secret = xasprintf("lnk-check-secret-%s", b->tag);

	_cleanup_free_ char *dir = record_dir(home);
	if ((r = paths_ensure_dir(dir, err)) < 0)
		return r;
	b->record = xasprintf("%s/%s.bait", dir, b->tag);
	b->record_fd =
	    open(b->record, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_APPEND,
		 0600);
	if (b->record_fd < 0)
		return err_set(err, -errno, "cannot create '%s': %s", b->record,
			       strerror(errno));
	_cleanup_free_ char *pid = xasprintf("%d", (int)getpid());
	record(b, 'p', pid);

	b->home_file = xasprintf("%s/.lnk-check-%s", home, b->tag);
	_cleanup_free_ char *lnkdir = paths_lnk_dir(home);
	b->lnk_file = xasprintf("%s/lnk-check-%s", lnkdir, b->tag);
	b->tmp_file = xasprintf("/tmp/lnk-check-%s", b->tag);
	if ((r = plant_file(b, b->home_file, err)) < 0 ||
	    (r = plant_file(b, b->lnk_file, err)) < 0 ||
	    (r = plant_file(b, b->tmp_file, err)) < 0)
		goto fail;

	/* Hidden folders: --hide and the always-hidden that exist. */
	struct strv hide = {0};
	strv_copy(&hide, policy_list(p, K_FILES_HIDE));
	paths_always_hidden(home, &hide);
	for (size_t i = 0; i < hide.n; i++) {
		struct stat st;
		if (stat(hide.v[i], &st) < 0 || !S_ISDIR(st.st_mode) ||
		    strcmp(hide.v[i], lnkdir) == 0 ||
		    !bait_welcome(hide.v[i], &st, home))
			continue;
		char *f = xasprintf("%s/.lnk-check-%s", hide.v[i], b->tag);
		if (plant_file(b, f, err) == 0)
			strv_push_take(&b->hidden_files, f);
		else
			free(f); /* a folder we cannot write: no bait there */
	}
	strv_free(&hide);

	/* Granted folders: a file to read through each grant. */
	for (int k = 0; k < 2; k++) {
		const struct strv *g =
		    policy_list(p, k ? K_FILES_WRITE : K_FILES_READ);
		for (size_t i = 0; i < g->n; i++) {
			if (!welcome_path(g->v[i], home))
				continue;
			char *f = xasprintf("%s/.lnk-check-%s-g%d%zu", g->v[i],
					    b->tag, k, i);
			if (plant_file(b, f, err) == 0) {
				strv_push(&b->granted_files, g->v[i]);
				strv_push_take(&b->granted_files, f);
			} else {
				free(f);
			}
		}
	}
	if ((r = plant_dot_files(b, p, home, err)) < 0 ||
	    (r = plant_chains(b, p, home, err)) < 0 ||
	    (r = plant_hide_holders(b, p, home, err)) < 0)
		goto fail;
	/* The probe's stdin (cmd_check opens it read only): reopened
	 * through /dev/stdin it must stay read only. */
	b->stdin_file = xasprintf("/tmp/lnk-check-%s-in", b->tag);
	if ((r = plant_file(b, b->stdin_file, err)) < 0)
		goto fail;

	/* The inherited descriptor: lnk holds it without CLOEXEC; cmd_check
	 * keeps it open across the launch. */
	b->fd = open(b->tmp_file, O_RDONLY | O_CLOEXEC);
	if (b->fd < 0) {
		r = err_set(err, -errno, "cannot open '%s': %s", b->tmp_file,
			    strerror(errno));
		goto fail;
	}
	b->env_name = xasprintf("LNK_CHECK_SECRET_%s", b->tag);
	for (char *c = b->env_name; *c; c++)
		if (*c >= 'a' && *c <= 'z')
			*c = (char)(*c - 'a' + 'A');

	/* Servers: another loopback port (both families), a unix socket in
	 * /tmp, an abstract one, and one in the home folder. */
	int fd = listen_inet(AF_INET, 0, &b->port);
	if (fd < 0) {
		r = err_set(err, fd, "cannot listen on loopback: %s",
			    strerror(-fd));
		goto fail;
	}
	char *w4 = xasprintf("127.0.0.1:%u", b->port);
	add_server(b, fd, w4, NULL);
	free(w4);
	fd = listen_inet(AF_INET6, b->port, NULL);
	if (fd >= 0) {
		_cleanup_free_ char *w6 = xasprintf("[::1]:%u", b->port);
		add_server(b, fd, w6, NULL);
	}
	b->unix_path = xasprintf("/tmp/lnk-check-%s.sock", b->tag);
	b->home_socket = xasprintf("%s/.lnk-check-%s.sock", home, b->tag);
	b->abstract = xasprintf("@lnk-check-%s", b->tag);
	const char *socks[] = {b->unix_path, b->home_socket};
	for (size_t i = 0; i < ARRAY_SIZE(socks); i++) {
		record(b, 's', socks[i]);
		fd = listen_unix(socks[i], false);
		if (fd < 0) {
			r = err_set(err, fd, "cannot listen on '%s': %s",
				    socks[i], strerror(-fd));
			goto fail;
		}
		add_server(b, fd, socks[i], socks[i]);
	}
	fd = listen_unix(b->abstract, true);
	if (fd >= 0)
		add_server(b, fd, b->abstract, NULL);
	/* A datagram socket in the home folder: what the guard does not
	 * check (sendto and sendmsg straight to it). Nothing serves it. */
	{
		_cleanup_free_ char *dg =
		    xasprintf("%s/.lnk-check-%s-dg.sock", home, b->tag);
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		fd = socket_cloexec(AF_UNIX, SOCK_DGRAM, 0, COMPAT_NONBLOCK);
		if (fd >= 0 && strlen(dg) < sizeof(sa.sun_path)) {
			memcpy(sa.sun_path, dg, strlen(dg));
			record(b, 's', dg);
			if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
				b->home_dgram = xstrdup(dg);
				b->home_dgram_fd = fd;
				fd = -1;
			}
		}
		if (fd >= 0)
			close(fd);
	}

	/* A granted --port that nothing serves here: check serves it, so
	 * the try shows the grant works end to end. */
	const struct strv *ports = policy_list(p, K_LOCALHOST_PORTS);
	for (size_t i = 0; i < ports->n; i++) {
		uint16_t port;
		if (port_parse(ports->v[i], strlen(ports->v[i]), &port) < 0)
			continue; /* the keys table refused it already */
		fd = listen_inet(AF_INET, port, NULL);
		if (fd < 0)
			continue;
		_cleanup_free_ char *w = xasprintf("127.0.0.1:%s", ports->v[i]);
		add_server(b, fd, w, NULL);
		strv_push(&b->ports_served, ports->v[i]);
	}

	plant_host_servers(b);

	/* A host process with a name to look for from inside. */
	snprintf(b->comm, sizeof(b->comm), "lnkchk%.8s", b->tag);
	proc_set_name(b->comm);
	return 0;
fail:
	bait_remove(b);
	return r;
}

void bait_serve(struct bait *b, size_t i)
{
	if (i >= b->nsrv)
		return;
	for (int k = 0; k < 8; k++) {
		int c =
		    accept_cloexec(b->srv[i].fd, NULL, NULL, COMPAT_NONBLOCK);
		if (c < 0)
			return;
		_cleanup_free_ char *ans = xasprintf(
		    "HTTP/1.0 200 OK\r\nContent-Length: %zu\r\n\r\n%s\n",
		    strlen(b->secret) + 1, b->secret);
		if (send(c, ans, strlen(ans), MSG_NOSIGNAL | MSG_DONTWAIT) <
		    0) {
		}
		close(c);
	}
}

/* A link check made: it still is one, to a name of check's. */
static bool is_our_link(const char *path)
{
	char t[PATH_MAX];
	ssize_t n = readlink(path, t, sizeof(t) - 1);
	if (n < 0)
		return false;
	t[n] = '\0';
	return strncmp(t, "lnk-check-", 10) == 0 && !strstr(t, "..");
}

/* A folder check made: its name has the tag's form; rmdir removes it
 * only when empty, so nothing of anyone else's goes with it. */
static bool is_our_dir(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	/* the .git of a repository check made (bait_repo_below): only in a
	 * folder of check's */
	if (base > path && strcmp(base, ".git") == 0) {
		const char *up = base - 1;
		while (up > path && up[-1] != '/')
			up--;
		if (strncmp(up, "lnk-check-", 10) != 0)
			return false;
	} else if (strncmp(base, "lnk-check-", 10) != 0) {
		return false;
	}
	struct stat st;
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void remove_path(char kind, const char *path)
{
	if (kind == 'f' && is_ours(path))
		unlink(path);
	else if (kind == 's' && is_our_socket(path))
		unlink(path);
	else if (kind == 'l' && is_our_link(path))
		unlink(path);
	else if (kind == 'd' && is_our_dir(path))
		rmdir(path);
}

void bait_remove(struct bait *b)
{
	for (size_t i = 0; i < b->nsrv; i++) {
		if (b->srv[i].fd >= 0)
			close(b->srv[i].fd);
		if (b->srv[i].path)
			remove_path('s', b->srv[i].path);
		free(b->srv[i].what);
		free(b->srv[i].path);
	}
	free(b->srv);
	b->srv = NULL;
	b->nsrv = 0;
	if (b->unix_path)
		remove_path('s', b->unix_path);
	if (b->home_socket)
		remove_path('s', b->home_socket);
	if (b->home_dgram_fd >= 0)
		close(b->home_dgram_fd);
	b->home_dgram_fd = -1;
	if (b->home_dgram)
		remove_path('s', b->home_dgram);
	for (size_t i = 0; i < b->files.n; i++)
		remove_path('f', b->files.v[i]);
	for (size_t i = 0; i < b->links.n; i++)
		remove_path('l', b->links.v[i]);
	for (size_t i = b->dirs.n; i-- > 0;)
		remove_path('d', b->dirs.v[i]);
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
	if (b->record_fd >= 0)
		close(b->record_fd);
	b->record_fd = -1;
	if (b->record)
		unlink(b->record);
	strv_free(&b->files);
	strv_free(&b->hidden_files);
	strv_free(&b->granted_files);
	strv_free(&b->dot_planted);
	strv_free(&b->chains);
	strv_free(&b->hide_holders);
	strv_free(&b->hide_added);
	strv_free(&b->dirs);
	strv_free(&b->links);
	strv_free(&b->host_addrs);
	free(b->stdin_file);
	strv_free(&b->ports_served);
	free(b->secret);
	free(b->record);
	free(b->home_file);
	free(b->lnk_file);
	free(b->tmp_file);
	free(b->env_name);
	free(b->unix_path);
	free(b->abstract);
	free(b->home_socket);
	free(b->home_dgram);
	*b = (struct bait){.record_fd = -1, .fd = -1, .home_dgram_fd = -1};
}

void bait_expect(struct bait *b, const char *path)
{
	record(b, 'f', path);
	strv_push(&b->files, path);
}

void bait_clean_stale(const char *home, struct strv *removed)
{
	_cleanup_free_ char *dir = record_dir(home);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 6 || strcmp(de->d_name + n - 5, ".bait") != 0)
			continue;
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, de->d_name);
		_cleanup_free_ char *text = NULL;
		size_t len;
		if (read_file(path, 1 << 20, &text, &len) < 0)
			continue;
		/* First line: the pid of the check that wrote it. A live
		 * one is still running: leave its bait alone. */
		int pid = 0;
		if (sscanf(text, "p %d", &pid) == 1 && pid > 0 &&
		    (kill(pid, 0) == 0 || errno == EPERM))
			continue;
		/* Files, sockets and links first; then the folders,
		 * deepest (last recorded) first. */
		struct strv dirs = {0};
		for (char *line = strtok(text, "\n"); line;
		     line = strtok(NULL, "\n")) {
			if (!strchr("fsld", line[0]) || !line[0] ||
			    line[1] != ' ')
				continue;
			if (line[0] == 'd') {
				strv_push(&dirs, line + 2);
				continue;
			}
			struct stat st;
			if (lstat(line + 2, &st) < 0)
				continue;
			remove_path(line[0], line + 2);
			if (lstat(line + 2, &st) < 0 && removed)
				strv_push(removed, line + 2);
		}
		for (size_t i = dirs.n; i-- > 0;) {
			struct stat st;
			if (lstat(dirs.v[i], &st) < 0)
				continue;
			remove_path('d', dirs.v[i]);
			if (lstat(dirs.v[i], &st) < 0 && removed)
				strv_push(removed, dirs.v[i]);
		}
		strv_free(&dirs);
		unlink(path);
	}
	closedir(d);
}
