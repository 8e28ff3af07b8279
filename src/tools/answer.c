/* Answers from the person only (answer.h). */
#include "tools/answer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

#include "common/compat.h"
#include "common/esc.h"
#include "common/unaddr.h"
#include "common/util.h"
#include "store/paths.h"
#include "store/registry.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77 /* Linux 6.5 */
#endif

/* How long the broker waits for the message of a connection it accepted,
 * and the client for the broker's reply (the broker looks for answers a
 * few times a second while a question waits). */
#define TAKE_WAIT_MS 1000
#define REPLY_WAIT_MS 10000
#define MSG_MAX 512

char *answer_path(const char *asks_dir, const char *sandbox)
{
	if (!registry_name_valid(sandbox))
		return NULL;
	return xasprintf("%s/%s.answer", asks_dir, sandbox);
}

int answer_listen(const char *asks_dir, const char *sandbox, int *fd,
		  char **path, struct lnk_err *err)
{
	struct sockaddr_un sa;
	socklen_t len;
	int dirfd, r;

	*fd = -1;
	*path = NULL;
	_cleanup_free_ char *p = answer_path(asks_dir, sandbox);
	if (!p)
		return err_set(err, -EINVAL,
			       "cannot listen for answers: '%s' is no sandbox "
			       "name",
			       sandbox);
	if ((r = paths_ensure_dir(asks_dir, err)) < 0)
		return r;
	/* Bound under a name of its own, made 0600, then renamed over the
	 * final one: there is never a moment when the socket is there and
	 * open to others, and one a killed sandbox of this name left is
	 * replaced whole. */
	char nonce[ASK_ID_LEN + 1];
	asks_new_id(nonce);
	_cleanup_free_ char *tmp = xasprintf("%s.%s", p, nonce);
	if ((r = unaddr_make(tmp, &sa, &len, &dirfd)) < 0)
		return err_set(err, r, "cannot listen for answers at '%s': %s",
			       p, strerror(-r));
	int s = socket_cloexec(AF_UNIX, SOCK_SEQPACKET, 0, COMPAT_NONBLOCK);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, len) < 0 ||
	    chmod(tmp, 0600) < 0 || listen(s, 16) < 0 || rename(tmp, p) < 0) {
		r = -errno;
		if (s >= 0)
			close(s);
		unlink(tmp);
		if (dirfd >= 0)
			close(dirfd);
		return err_set(err, r, "cannot listen for answers at '%s': %s",
			       p, strerror(-r));
	}
	if (dirfd >= 0)
		close(dirfd);
	*fd = s;
	*path = steal_ptr(&p);
	return 0;
}

void answer_unlisten(int fd, char *path)
{
	if (path)
		unlink(path);
	if (fd >= 0)
		close(fd);
	free(path);
}

int answer_line_parse(const char *line, size_t n, char id[ASK_ID_LEN + 1],
		      bool *yes)
{
	if (n && line[n - 1] == '\n')
		n--;
	if (n != 2 + ASK_ID_LEN || (line[0] != 'y' && line[0] != 'n') ||
	    line[1] != ' ')
		return -EINVAL;
	memcpy(id, line + 2, ASK_ID_LEN);
	id[ASK_ID_LEN] = '\0';
	if (memchr(id, '\0', ASK_ID_LEN) || !asks_id_ok(id))
		return -EINVAL;
	*yes = line[0] == 'y';
	return 0;
}

#ifdef __linux__
/* Whether process pid (seen in this pid namespace) is in the namespace
 * kind ("mnt") of this process: the same device and inode. */
static int same_ns(pid_t pid, const char *kind)
{
	char p[64];
	struct stat self, peer;

	snprintf(p, sizeof(p), "/proc/self/ns/%s", kind);
	if (stat(p, &self) < 0)
		return -errno;
	snprintf(p, sizeof(p), "/proc/%d/ns/%s", (int)pid, kind);
	if (stat(p, &peer) < 0)
		return -errno;
	return self.st_dev == peer.st_dev && self.st_ino == peer.st_ino;
}

int answer_peer_check(int conn, char *why, size_t cap)
{
	static const char *const kinds[][2] = {{"user", "user"},
					       {"mnt", "mount"},
					       {"pid", "pid"},
					       {"net", "network"}};
	struct ucred uc;
	socklen_t l = sizeof(uc);
	int pidfd = -1;

	if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &uc, &l) < 0 ||
	    l != sizeof(uc) || uc.pid <= 0) {
		snprintf(why, cap,
			 "lnk cannot tell which process sent the answer");
		return -EPERM;
	}
	if (uc.uid != geteuid()) {
		snprintf(why, cap,
			 "the answer came from another user's process (uid "
			 "%u): only the user who runs the sandbox answers",
			 (unsigned)uc.uid);
		return -EPERM;
	}
	/* The peer's process itself, held: SO_PEERPIDFD names the process
	 * that connected; where the kernel lacks it, a pidfd of the pid
	 * SO_PEERCRED gave, which the process still alive after the reads
	 * below keeps from being another's. */
	l = sizeof(pidfd);
	if (getsockopt(conn, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &l) < 0 ||
	    pidfd < 0)
		pidfd = (int)syscall(SYS_pidfd_open, uc.pid, 0);
	if (pidfd < 0) {
		snprintf(why, cap,
			 "lnk cannot hold the process that sent the answer "
			 "(%s)",
			 strerror(errno));
		return -EPERM;
	}
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		int r = same_ns(uc.pid, kinds[i][0]);
		if (r == 1)
			continue;
		if (r == 0)
			snprintf(why, cap,
				 "the answer came from a process in a sandbox "
				 "or another %s namespace (unshare, a "
				 "container, a tool's own view): answer from "
				 "a shell of your own, outside every sandbox",
				 kinds[i][1]);
		else
			snprintf(why, cap,
				 "lnk cannot read the %s namespace of the "
				 "process that sent the answer (%s)",
				 kinds[i][1], strerror(-r));
		close(pidfd);
		return -EPERM;
	}
	/* Still running: the /proc entries read were its own. */
	struct pollfd pf = {.fd = pidfd, .events = POLLIN};
	int ended = poll(&pf, 1, 0);
	close(pidfd);
	if (ended != 0) {
		snprintf(why, cap,
			 "the process that sent the answer ended before lnk "
			 "could check it");
		return -EPERM;
	}
	return 0;
}
#else
int answer_peer_check(int conn, char *why, size_t cap)
{
	(void)conn;
	/* No namespaces to compare here: lnk cannot tell a shell of the
	 * user's from a process in a sandbox, so only the terminal and the
	 * desktop answer. */
	snprintf(why, cap,
		 "on this system lnk cannot check where an answer comes "
		 "from: answer on the terminal the sandbox runs on, or on "
		 "the desktop");
	return -EPERM;
}
#endif

void answer_reply(int conn, int code, const char *text)
{
	_cleanup_free_ char *m = xasprintf("%c%s", code, text ? text : "");

	(void)send(conn, m, strlen(m), MSG_NOSIGNAL | MSG_DONTWAIT);
	close(conn);
}

int answer_take(int listen_fd, char id[ASK_ID_LEN + 1], bool *yes, int *conn,
		struct lnk_err *err)
{
	char why[320], m[MSG_MAX];

	*conn = -1;
	int s = accept_cloexec(listen_fd, NULL, NULL, COMPAT_NONBLOCK);
	if (s < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
		    errno == ECONNABORTED)
			return 0;
		return err_set(err, -errno, "cannot take an answer: %s",
			       strerror(errno));
	}
	/* Its message is taken off the socket first (a socket closed with a
	 * message unread would reset the connection, and the answerer would
	 * never read why it was refused), but nothing of it is looked at
	 * before its sender is checked. */
	struct pollfd pf = {.fd = s, .events = POLLIN};
	int r;
	while ((r = poll(&pf, 1, TAKE_WAIT_MS)) < 0 && errno == EINTR)
		;
	ssize_t n = r == 1 ? recv(s, m, sizeof(m), MSG_DONTWAIT) : -1;
	if (answer_peer_check(s, why, sizeof(why)) < 0) {
		answer_reply(s, ANSWER_REFUSED, why);
		return 0;
	}
	if (n <= 0 || answer_line_parse(m, (size_t)n, id, yes) < 0) {
		answer_reply(s, ANSWER_REFUSED,
			     "that is no answer: send \"y ID\" or \"n ID\"");
		return 0;
	}
	*conn = s;
	return 1;
}

int answer_send(const char *asks_dir, const char *sandbox, const char *id,
		bool yes, struct lnk_err *err)
{
	struct sockaddr_un sa;
	socklen_t len;
	int dirfd, r;
	char m[MSG_MAX + 1];

	_cleanup_free_ char *p = answer_path(asks_dir, sandbox);
	if (!p || !asks_id_ok(id))
		return err_set(err, -ENOENT, "no question '%s' is waiting",
			       asks_id_ok(id) ? id : "?");
	if ((r = unaddr_make(p, &sa, &len, &dirfd)) < 0)
		return err_set(err, r, "cannot reach sandbox %s at '%s': %s",
			       sandbox, p, strerror(-r));
	int s = socket_cloexec(AF_UNIX, SOCK_SEQPACKET, 0, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&sa, len) < 0) {
		r = -errno;
		if (s >= 0)
			close(s);
		if (dirfd >= 0)
			close(dirfd);
		if (r == -ENOENT || r == -ECONNREFUSED)
			return err_set(err, -ENOENT,
				       "question '%s' no longer waits: sandbox "
				       "%s is not running",
				       id, sandbox);
		return err_set(err, r, "cannot reach sandbox %s at '%s': %s",
			       sandbox, p, strerror(-r));
	}
	if (dirfd >= 0)
		close(dirfd);
	char line[8 + ASK_ID_LEN];
	int ln = snprintf(line, sizeof(line), "%c %s", yes ? 'y' : 'n', id);
	if (send(s, line, (size_t)ln, MSG_NOSIGNAL) != ln) {
		r = -errno;
		close(s);
		return err_set(err, r,
			       "cannot send the answer to sandbox %s: %s",
			       sandbox, strerror(-r));
	}
	struct pollfd pf = {.fd = s, .events = POLLIN};
	while ((r = poll(&pf, 1, REPLY_WAIT_MS)) < 0 && errno == EINTR)
		;
	ssize_t n = r == 1 ? recv(s, m, MSG_MAX, 0) : -1;
	close(s);
	if (n <= 0)
		return err_set(err, -ETIMEDOUT,
			       "sandbox %s did not say whether the answer "
			       "counts: see 'lnk sandbox log --sandbox %s'",
			       sandbox, sandbox);
	m[n] = '\0';
	/* The broker's words, escaped all the same: one line. */
	char text[MSG_MAX * 4];
	esc_into(text, sizeof(text), m + 1, (size_t)n - 1, ESC_LINE);
	switch (m[0]) {
	case ANSWER_TAKEN:
		return 0;
	case ANSWER_UNKNOWN:
		return err_set(err, -ENOENT,
			       "question '%s' no longer waits (answered, "
			       "expired or withdrawn)",
			       id);
	case ANSWER_ALREADY:
		return err_set(err, -EEXIST,
			       "question '%s' was answered already: the first "
			       "answer counts",
			       id);
	default:
		return err_set(err, -EPERM, "sandbox %s refused the answer: %s",
			       sandbox, text);
	}
}

/* ---- the broker's side ---- */

int answer_box_open(struct answer_box *box, const char *asks_dir,
		    const char *sandbox, int pipe_fd, struct lnk_err *err)
{
	memset(box, 0, sizeof(*box));
	box->pipe_fd = pipe_fd;
	return answer_listen(asks_dir, sandbox, &box->listen_fd, &box->path,
			     err);
}

/* An answer for id: kept when id waits and has none yet. */
static int keep(struct answer_box *box, const char *id, bool yes,
		answer_waiting_fn waiting, void *ctx)
{
	for (size_t i = 0; i < box->n; i++)
		if (strcmp(box->got[i].id, id) == 0)
			return ANSWER_ALREADY;
	if (!waiting(ctx, id) || box->n >= ANSWER_BOX_MAX)
		return ANSWER_UNKNOWN;
	snprintf(box->got[box->n].id, sizeof(box->got[0].id), "%s", id);
	box->got[box->n++].yes = yes;
	return ANSWER_TAKEN;
}

int answer_box_pump(struct answer_box *box, answer_waiting_fn waiting,
		    void *ctx)
{
	char id[ASK_ID_LEN + 1], b[256];
	bool yes;
	int conn, r = 0;
	struct lnk_err e = {0};

	while (box->listen_fd >= 0 &&
	       answer_take(box->listen_fd, id, &yes, &conn, &e) == 1) {
		switch (keep(box, id, yes, waiting, ctx)) {
		case ANSWER_TAKEN:
			answer_reply(conn, ANSWER_TAKEN, "");
			break;
		case ANSWER_ALREADY:
			answer_reply(conn, ANSWER_ALREADY, "");
			break;
		default:
			answer_reply(conn, ANSWER_UNKNOWN, "");
		}
	}
	while (box->pipe_fd >= 0) {
		ssize_t n = read(box->pipe_fd, b, sizeof(b));
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n <= 0) {
			close(box->pipe_fd);
			box->pipe_fd = -1;
			r = -EPIPE;
			break;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (b[i] != '\n') {
				if (box->linelen < sizeof(box->line))
					box->line[box->linelen++] = b[i];
				continue;
			}
			if (answer_line_parse(box->line, box->linelen, id,
					      &yes) == 0)
				(void)keep(box, id, yes, waiting, ctx);
			box->linelen = 0;
		}
	}
	return r;
}

int answer_box_desktop(struct answer_box *box, int desktop_fd,
		       answer_waiting_fn waiting, void *ctx)
{
	char m[64], id[ASK_ID_LEN + 1];
	bool yes;
	ssize_t n = recv(desktop_fd, m, sizeof(m), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -EPIPE;
	if (answer_line_parse(m, (size_t)n, id, &yes) == 0)
		(void)keep(box, id, yes, waiting, ctx);
	return 0;
}

int answer_box_get(struct answer_box *box, const char *id, bool *yes)
{
	for (size_t i = 0; i < box->n; i++)
		if (strcmp(box->got[i].id, id) == 0) {
			*yes = box->got[i].yes;
			box->got[i] = box->got[--box->n];
			return 1;
		}
	return 0;
}

void answer_box_close(struct answer_box *box)
{
	answer_unlisten(box->listen_fd, box->path);
	box->listen_fd = -1;
	box->path = NULL;
	if (box->pipe_fd >= 0)
		close(box->pipe_fd);
	box->pipe_fd = -1;
}
