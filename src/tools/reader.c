/* The broker's reader (reader.h). One poll loop: the clients' listening
 * socket, each client, and the starter's socket. */
#include "tools/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/fdpass.h"
#include "common/util.h"
#include "confine/kit.h"
#include "proto/toolcall.h"
#include "proto/toolpass.h"
#include "tools/page.h"

enum slot_state { FREE, WAITING, PASSED };

struct slot {
	enum slot_state st;
	int sock;	  /* the client, or -1 once it went away */
	int64_t since_ms; /* when it connected (WAITING) */
};

struct reader {
	int listen_fd, pass_fd;
	uid_t uid; /* the sandbox's account: the only one that may call */
	/* Refusals the starter was not told of (it was behind): sent as a
	 * count ('N') as soon as it can take one, so that every refusal is
	 * a row or in a count, never lost unsaid. */
	uint64_t untold;
	struct slot s[TOOLS_MAX_CALLS];
	char *buf; /* one call, TOOLS_MAX_CALL + 1 */
};

static void say(int sock, char kind, const char *text)
{
	char m[PASS_TEXT_MAX + 1];
	size_t n = strnlen(text, PASS_TEXT_MAX - 1);

	m[0] = kind;
	memcpy(m + 1, text, n);
	(void)send(sock, m, n + 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* A refusal of the reader's own: the client is told, the starter logs it
 * (through the log's cap). A starter that is behind misses the row; it
 * is the starter's cap that bounds a flood, and a call refused here
 * carried nothing. */
static void refuse_why(struct reader *r, int sock, const char *text,
		       const char *why, bool page)
{
	/* the starter first: by the time the program sees the refusal (and
	 * may end the sandbox), its row is queued for the log; a page's is
	 * a page's row (toolpass.h) */
	if (r->untold || pass_send(r->pass_fd, 'D', page ? 1 : 0, why,
				   strnlen(why, 400), NULL, 0) < 0)
		r->untold++;
	say(sock, 'R', text);
}

static void tell_untold(struct reader *r)
{
	if (r->untold && pass_send(r->pass_fd, 'N', 0, &r->untold,
				   sizeof(r->untold), NULL, 0) == 0)
		r->untold = 0;
}

static void refuse(struct reader *r, int sock, const char *text)
{
	refuse_why(r, sock, text, text, false);
}

static void slot_free(struct slot *s)
{
	if (s->sock >= 0)
		close(s->sock);
	s->sock = -1;
	s->st = FREE;
}

/* Each descriptor must be an open file, pipe, socket or device: no
 * folder (a tool handed one would act in a folder the program chose)
 * and no O_PATH handle. */
static int fds_ok(const int fds[TOOLS_NFDS])
{
	for (int i = 0; i < TOOLS_NFDS; i++) {
		struct stat st;
		int fl = fcntl(fds[i], F_GETFL);
		if (fl < 0 || (fl & COMPAT_O_PATH) || fstat(fds[i], &st) < 0 ||
		    S_ISDIR(st.st_mode))
			return -1;
	}
	return 0;
}

/* The call checked and put in canonical form: decoded with bounds; a
 * page's URL checked and made normal here, so the starter is handed the
 * form it opens. 0, or -1 with why. */
static int canonical(const char *buf, size_t len, struct tools_call *tc,
		     char *why, size_t cap, const char **logged, bool *page)
{
	struct lnk_err e = {0};

	if (tools_call_decode(buf, len, tc, &e) < 0) {
		snprintf(why, cap, "%s", e.msg);
		return -1;
	}
	if (!page_client_name(tc->tool))
		return 0;
	*page = true;
	char *norm = NULL, *origin = NULL;
	if (tc->args.n != 1 || tc->args.v[0][0] == '-') {
		snprintf(why, cap,
			 "give one page to open: an http:// or https:// URL");
		tools_call_free(tc);
		return -1;
	}
	if (page_check(tc->args.v[0], &norm, &origin, &e) < 0) {
		snprintf(why, cap, "%s", e.msg);
		/* the log never holds a page's path: not a message that
		 * may quote it */
		*logged = page_logged_why(&e);
		tools_call_free(tc);
		return -1;
	}
	free(tc->args.v[0]);
	tc->args.v[0] = norm;
	free(origin);
	return 0;
}

/* A waiting client's first message: its call, with its descriptors. */
static void take_call(struct reader *r, unsigned i)
{
	struct slot *s = &r->s[i];
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * TOOLS_NFDS)];
	} ctl;
	struct iovec iov = {.iov_base = r->buf, .iov_len = TOOLS_MAX_CALL + 1};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b)};
	int fds[TOOLS_NFDS * 2], nfd = 0;
	char why[PASS_TEXT_MAX];

	ssize_t n = recvmsg_cloexec(s->sock, &mh, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n >= 0)
		nfd = (int)fd_take(&mh, fds, ARRAY_SIZE(fds));
	if (n <= 0) {
		slot_free(s);
	} else if ((mh.msg_flags & MSG_CTRUNC) || nfd > TOOLS_NFDS) {
		refuse(r, s->sock,
		       "a tool call with more than three descriptors: a tool "
		       "gets stdin, stdout and stderr, nothing else");
		slot_free(s);
	} else if (mh.msg_flags & MSG_TRUNC) {
		refuse(r, s->sock, "a tool call larger than 256 KiB");
		slot_free(s);
	} else if (nfd != TOOLS_NFDS) {
		refuse(r, s->sock,
		       "a tool call without its three descriptors (stdin, "
		       "stdout, stderr)");
		slot_free(s);
	} else if (fds_ok(fds) < 0) {
		refuse(r, s->sock,
		       "a tool call whose stdin, stdout or stderr is a folder "
		       "or no open file");
		slot_free(s);
	} else {
		struct tools_call tc;
		const char *logged = NULL;
		bool page = false;
		if (canonical(r->buf, (size_t)n, &tc, why, sizeof(why), &logged,
			      &page) < 0) {
			refuse_why(r, s->sock, why, logged ? logged : why,
				   page);
			slot_free(s);
		} else {
			size_t len;
			_cleanup_free_ char *m =
			    tools_call_encode(PASS_MAGIC, &tc, &len);
			tools_call_free(&tc);
			if (pass_send(r->pass_fd, 'C', i, m, len, fds,
				      TOOLS_NFDS) < 0) {
				/* the starter is behind: nothing was handed
				 * on, and the client is told to try again */
				refuse(r, s->sock,
				       "the tools broker is busy: try again");
				slot_free(s);
			} else {
				s->st = PASSED;
			}
		}
	}
	for (int k = 0; k < nfd; k++)
		close(fds[k]);
}

/* A passed call's client: a signal to pass on, or gone. */
static void client_says(struct reader *r, unsigned i)
{
	struct slot *s = &r->s[i];
	unsigned char m[16];
	ssize_t n = recv(s->sock, m, sizeof(m), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* the slot stays the starter's until it says how the call
		 * ended */
		close(s->sock);
		s->sock = -1;
		(void)pass_send(r->pass_fd, 'G', i, NULL, 0, NULL, 0);
		return;
	}
	if (n == 2 && m[0] == 'S' && tools_signal_ok(m[1]))
		(void)pass_send(r->pass_fd, 'S', i, &m[1], 1, NULL, 0);
}

/* The starter's word on a call: 'R' text or 'X' status, for its client. */
static int starter_says(struct reader *r)
{
	char m[PASS_TEXT_MAX + PASS_HEAD];
	ssize_t n = recv(r->pass_fd, m, sizeof(m), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n < PASS_HEAD + 1 || (unsigned char)m[1] >= TOOLS_MAX_CALLS)
		return -1; /* the starter is gone, or not itself */
	struct slot *s = &r->s[(unsigned char)m[1]];
	if (s->st != PASSED)
		return 0;
	if (s->sock >= 0 && (m[0] == 'R' || m[0] == 'X')) {
		m[1] = m[0];
		(void)send(s->sock, m + 1, (size_t)n - 1,
			   MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	slot_free(s);
	return 0;
}

static void accept_one(struct reader *r, int64_t now)
{
	int c = accept_cloexec(r->listen_fd, NULL, NULL, COMPAT_NONBLOCK);
	if (c < 0)
		return;
	/* Threat: root's tool (or anyone's who can reach the socket) made
	 * calls in another account's sandbox, with its grants and in its
	 * log. Only the sandbox's own account calls (its processes). */
	struct ucred cr;
	socklen_t crl = sizeof(cr);
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &crl) < 0 ||
	    cr.uid != r->uid) {
		refuse(r, c,
		       "a tool call from another account than the "
		       "sandbox's is refused");
		close(c);
		return;
	}
	for (unsigned i = 0; i < TOOLS_MAX_CALLS; i++)
		if (r->s[i].st == FREE) {
			r->s[i] = (struct slot){WAITING, c, now};
			return;
		}
	refuse(r, c, "too many tool calls at once: wait for one to end");
	close(c);
}

/* Waiting clients past the deadline are refused; the time to the next
 * deadline, or -1. */
static int deadlines(struct reader *r, int64_t now)
{
	int64_t next = -1;

	for (unsigned i = 0; i < TOOLS_MAX_CALLS; i++) {
		struct slot *s = &r->s[i];
		if (s->st != WAITING)
			continue;
		int64_t left = s->since_ms + PASS_DEADLINE_MS - now;
		if (left <= 0) {
			refuse(r, s->sock,
			       "no tool call within 5 s of connecting");
			slot_free(s);
		} else if (next < 0 || left < next) {
			next = left;
		}
	}
	return (int)next;
}

static void serve(struct reader *r)
{
	struct pollfd p[2 + TOOLS_MAX_CALLS];
	unsigned idx[TOOLS_MAX_CALLS];

	for (;;) {
		int64_t now = mono_ms();
		int wait = deadlines(r, now);
		tell_untold(r);
		if (r->untold && (wait < 0 || wait > 50))
			wait = 50;
		size_t n = 0;
		p[n++] = (struct pollfd){.fd = r->pass_fd, .events = POLLIN};
		p[n++] = (struct pollfd){.fd = r->listen_fd, .events = POLLIN};
		for (unsigned i = 0; i < TOOLS_MAX_CALLS; i++)
			if (r->s[i].st != FREE && r->s[i].sock >= 0) {
				idx[n - 2] = i;
				p[n++] = (struct pollfd){.fd = r->s[i].sock,
							 .events = POLLIN};
			}
		if (poll(p, n, wait) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (p[0].revents && starter_says(r) < 0)
			return;
		for (size_t k = 2; k < n; k++) {
			unsigned i = idx[k - 2];
			if (!p[k].revents || r->s[i].sock != p[k].fd)
				continue;
			if (r->s[i].st == WAITING)
				take_call(r, i);
			else if (r->s[i].st == PASSED)
				client_says(r, i);
		}
		if (p[1].revents)
			accept_one(r, mono_ms());
	}
}

/* What the reader may do once confined, beyond the kit's base: wait on
 * its sockets, accept, receive and send (descriptors too), look at what
 * it received (fcntl, fstat), say on stderr why it cannot go on. No
 * file, no process, no new socket. */
static const int reader_calls[] = {
    SCMP_SYS(poll),	  SCMP_SYS(ppoll),    SCMP_SYS(accept4),
    SCMP_SYS(recvmsg),	  SCMP_SYS(recvfrom), SCMP_SYS(sendmsg),
    SCMP_SYS(sendto),	  SCMP_SYS(fcntl),    SCMP_SYS(fstat),
    SCMP_SYS(newfstatat), SCMP_SYS(statx),    SCMP_SYS(write),
    SCMP_SYS(getsockopt),
};

static void reader_main(int listen_fd, int pass_fd)
{
	struct reader r = {.listen_fd = 3, .pass_fd = 4, .uid = geteuid()};
	struct lnk_err e = {0};

	/* Only its two sockets and stderr: nothing else of lnk's (the
	 * lifelines, the terminal's pipes) is the program's to reach. */
	int l = fcntl(listen_fd, F_DUPFD, 20), q = fcntl(pass_fd, F_DUPFD, 20);
	if (l < 0 || q < 0 || dup2(l, 3) < 0 || dup2(q, 4) < 0)
		_exit(125);
	close_from(5);
	(void)die_with_parent(SIGKILL);
	for (unsigned i = 0; i < TOOLS_MAX_CALLS; i++)
		r.s[i] = (struct slot){FREE, -1, 0};
	r.buf = xmalloc(TOOLS_MAX_CALL + 1);
	const struct kit_plan kp = {
	    .who = "the tools broker's reader",
	    .allow = reader_calls,
	    .nallow = ARRAY_SIZE(reader_calls),
	};
	if (kit_confine(&kp, &e) < 0) {
		_cleanup_free_ char *m = xasprintf("lnk: %s\n", e.msg);
		term_write(2, m);
		_exit(125);
	}
	serve(&r);
	_exit(0);
}

int tools_reader_start(int listen_fd, int pass_fd, pid_t *pid,
		       struct lnk_err *err)
{
	pid_t p = fork();

	if (p < 0)
		return err_set(err, -errno,
			       "cannot start the tools broker's reader: %s",
			       strerror(errno));
	if (p == 0)
		reader_main(listen_fd, pass_fd);
	*pid = p;
	return 0;
}
