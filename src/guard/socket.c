/* bind and connect for the task, on its own socket. */
#include "guard/supervisor.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#define CAP_BIT(c) (1ULL << (c))

/* Socket families the guard binds for: those whose bind checks no
 * capability the guard would hold in the sandbox's namespaces (it owns
 * their user namespace, so any ns_capable() there passes for it) that
 * it does not check by hand below. Any other family is refused: a
 * sandbox has no device for them, and their binds were not audited. */
static bool bind_family_ok(int domain)
{
	return domain == AF_UNIX || domain == AF_INET || domain == AF_INET6 ||
	       domain == AF_NETLINK || domain == AF_ALG || domain == AF_VSOCK;
}

/* t->sfd is the task's socket (pidfd_getfd, by the worker), sa its
 * address as the kernel reads it for that socket (guard_sockaddr_parse);
 * base where a path address starts. */
int guard_do_bind(struct guard *n, struct task *t, int base,
		  const struct guard_sockaddr *sa,
		  const struct sockaddr_storage *ss, size_t alen)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)ss;
	int r, sfd = t->sfd;

	if (sfd < 0)
		return -EBADF;
	if (!bind_family_ok(t->sdomain))
		return -EPERM;
	/* Checks by hand what our bind would pass with the privilege we
	 * hold in the sandbox's network namespace: a port below 1024
	 * (CAP_NET_BIND_SERVICE), netlink multicast groups that need
	 * CAP_NET_ADMIN there. */
	if (sa->kind == GUARD_SA_PORT && sa->port && sa->port < 1024 &&
	    !(t->capeff & CAP_BIT(CAP_NET_BIND_SERVICE)))
		return -EACCES;
	if (sa->kind == GUARD_SA_GROUPS &&
	    !(t->capeff & CAP_BIT(CAP_NET_ADMIN)) &&
	    !guard_netlink_groups_ok(t->sproto, sa->groups))
		return -EPERM;

	if (sa->kind != GUARD_SA_PATH) {
		/* No path: a port, abstract or autobind, netlink. */
		return bind(sfd, (const struct sockaddr *)ss, (socklen_t)alen) <
			       0
			   ? -errno
			   : 0;
	}
	struct where w;
	r = guard_locate(t, base, sa->path, &w);
	if (r < 0)
		return r;
	if (w.magic >= 0 || guard_is_dots(w.last))
		r = -EADDRINUSE;
	else if ((r = guard_check(n, w.parent, w.last)) == -EEXIST)
		r = -EADDRINUSE;
	else if (r == 0) {
		if (w.slash) {
			r = guard_slash_err(&w) == -EEXIST ? -EADDRINUSE
							   : -ENOENT;
		} else if (strlen(w.last) >= sizeof(un->sun_path)) {
			r = -ENAMETOOLONG;
		} else if (fchdir(w.parent) < 0) {
			r = -EPERM; /* this executor's cwd is its own */
		} else {
			struct sockaddr_un a = {.sun_family = AF_UNIX};
			snprintf(a.sun_path, sizeof(a.sun_path), "%s", w.last);
			umask(t->umask);
			r = bind(sfd, (struct sockaddr *)&a,
				 (socklen_t)(offsetof(struct sockaddr_un,
						      sun_path) +
					     strlen(w.last) + 1)) < 0
				? -errno
				: 0;
			(void)!chdir("/");
		}
	}
	guard_where_close(&w);
	return r;
}

/* The kernel's dev_t (MAJOR << 20 | MINOR), as sock_diag reports it. */
static uint32_t kernel_dev(dev_t d)
{
	return (uint32_t)((major(d) << 20) | (minor(d) & 0xfffff));
}

/* 1 when a unix socket of the sandbox's network namespace is bound to the
 * socket file st describes, 0 when none is (a host daemon's socket, or
 * one whose socket is gone), -EPERM when it cannot be told. Asks the
 * kernel (UNIX_DIAG, on lnk-init's netlink socket in that namespace)
 * rather than a list of our own binds: a name we bound can be replaced
 * by rename before we could read its inode, a socket's own binding
 * cannot. The inode number is 32 bits wide there. */
static int sandbox_socket(struct guard *n, const struct stat *st)
{
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {
	    .nlh = {.nlmsg_len = sizeof(req),
		    .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		    .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP},
	    .r = {.sdiag_family = AF_UNIX,
		  .udiag_states = ~0u,
		  .udiag_show = UDIAG_SHOW_VFS},
	};
	union {
		struct nlmsghdr h;
		char b[16384];
	} buf;
	uint32_t want_dev = kernel_dev(st->st_dev);
	uint32_t want_ino = (uint32_t)st->st_ino;
	int found = 0, r = -EPERM;
	bool done = false;

	if (n->diag < 0)
		return -EPERM;
	pthread_mutex_lock(&n->diag_mu);
	req.nlh.nlmsg_seq = ++n->diag_seq;
	if (send(n->diag, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		goto out;
	while (!done) {
		ssize_t len = recv(n->diag, buf.b, sizeof(buf.b), 0);
		if (len <= 0)
			goto out;
		for (struct nlmsghdr *h = &buf.h; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != req.nlh.nlmsg_seq)
				continue; /* an old answer */
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR)
				goto out;
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
			    h->nlmsg_len <
				NLMSG_LENGTH(sizeof(struct unix_diag_msg)))
				continue;
			struct unix_diag_msg *m = NLMSG_DATA(h);
			int alen =
			    (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			for (struct rtattr *a = (struct rtattr *)(m + 1);
			     RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				struct unix_diag_vfs v;
				if (a->rta_type != UNIX_DIAG_VFS ||
				    RTA_PAYLOAD(a) < sizeof(v))
					continue;
				memcpy(&v, RTA_DATA(a), sizeof(v));
				if (v.udiag_vfs_ino == want_ino &&
				    v.udiag_vfs_dev == want_dev)
					found = 1;
			}
		}
	}
	r = found;
out:
	pthread_mutex_unlock(&n->diag_mu);
	return r;
}

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

/* 1 when socket sfd lives in the sandbox's network namespace (that of
 * lnk-init's sock_diag socket), 0 when not (one the program inherited
 * from the host), -EPERM when it cannot be told. */
static int in_sandbox_netns(struct guard *n, int sfd)
{
	uint64_t a, b;
	socklen_t la = sizeof(a), lb = sizeof(b);

	if (n->diag < 0 ||
	    getsockopt(n->diag, SOL_SOCKET, SO_NETNS_COOKIE, &a, &la) < 0 ||
	    getsockopt(sfd, SOL_SOCKET, SO_NETNS_COOKIE, &b, &lb) < 0)
		return -EPERM;
	return a == b;
}

/* A datagram refused for leaving the sandbox: logged once per verb and
 * target (a program retrying must not flood the log), up to a bound. */
static void dgram_refused(struct guard *n, const struct guard_refused_dgram *d)
{
	char key[80];
	bool first = false;

	if (!n->plan.on_net_refusal)
		return;
	snprintf(key, sizeof(key), "%s %s", d->verb, d->target);
	pthread_mutex_lock(&n->mu);
	if (!strv_contains(&n->dgram_refused, key)) {
		/* past the targets remembered, each refusal goes to the
		 * log's cap (counted past its burst), never unseen */
		if (n->dgram_refused.n < 1024)
			strv_push(&n->dgram_refused, key);
		first = true;
	}
	pthread_mutex_unlock(&n->mu);
	if (first)
		n->plan.on_net_refusal(n->plan.on_refusal_ctx, d->verb,
				       d->target,
				       "no datagram leaves the sandbox");
}

/* connect(2) for the task. A read-only mount does not stop connect() on
 * a unix socket in it, so a host daemon's socket under a granted folder
 * (a gpg-agent under --read '~') would answer: a path is resolved here
 * like any other (in the task's root, inside its grants, symlinks
 * followed by hand), and connected only when the socket file is bound by
 * a socket of the sandbox's own network namespace; then by our
 * descriptor on that very file (/proc/thread-self/fd/N), never by the
 * name again. Every other address (abstract ones are in the sandbox's
 * network namespace, a port) is connected as given, read as bind reads
 * it. */
int guard_do_connect(struct guard *n, struct task *t, int base,
		     const struct guard_sockaddr *sa,
		     const struct sockaddr_storage *ss, size_t alen)
{
	int r, o = -1, sfd = t->sfd;
	struct where w = {.parent = -1};

	if (sfd < 0)
		return -EBADF;
	if (!bind_family_ok(t->sdomain))
		return -EPERM;
	if (sa->kind == GUARD_SA_GROUPS &&
	    !(t->capeff & CAP_BIT(CAP_NET_ADMIN)) &&
	    !guard_netlink_groups_ok(t->sproto, sa->groups))
		return -EPERM;
	/* An abstract name is looked up in the socket's network namespace:
	 * the sandbox's own holds only the program's, but a unix socket it
	 * inherited from the host reaches the host's (a D-Bus or X11
	 * abstract socket), which the program's Landlock domain refuses
	 * natively (its abstract-socket scope) and ours would not. */
	if (sa->kind == GUARD_SA_ABSTRACT &&
	    (r = in_sandbox_netns(n, sfd)) <= 0)
		return r == 0 ? -EPERM : r;
	/* TCP to anywhere but the sandbox's loopback: through the wire;
	 * without one, named on stderr (nonet.c) */
	if (sa->kind == GUARD_SA_PORT) {
		struct guard_refused_dgram d;
		guard_nonet_connect(n, sfd, t->sdomain, ss, alen);
		r = guard_tproxy_connect(sfd, t->sdomain, n->plan.tcp_port, ss,
					 alen, &d);
		if (d.verb[0])
			dgram_refused(n, &d);
		if (r <= 0)
			return r;
	}
	if (sa->kind != GUARD_SA_PATH)
		return connect(sfd, (const struct sockaddr *)ss,
			       (socklen_t)alen) < 0
			   ? -errno
			   : 0;

	r = guard_locate(t, base, sa->path, &w);
	if (r < 0)
		return r;
	if (w.magic >= 0) {
		/* /proc/self/fd/N of an O_PATH socket file it holds */
		if ((r = guard_reach_ok(t, w.magic)) < 0)
			goto out;
		o = fcntl(w.magic, F_DUPFD_CLOEXEC, 0);
		if (o < 0) {
			r = -EPERM;
			goto out;
		}
	} else if (w.slash) {
		r = guard_slash_err(&w) == -EEXIST ? -ECONNREFUSED : -ENOENT;
		goto out;
	} else if ((o = guard_open_old_followed(t, &w)) < 0) {
		r = o == -EPERM ? -ECONNREFUSED : o;
		goto out;
	}
	struct stat st;
	if (fstat(o, &st) < 0) {
		r = -EPERM;
		goto out;
	}
	if (!S_ISSOCK(st.st_mode)) {
		r = -ECONNREFUSED; /* as the kernel answers a non-socket */
		goto out;
	}
	r = sandbox_socket(n, &st);
	if (r == 0 && n->plan.tool_sock_ino &&
	    st.st_ino == n->plan.tool_sock_ino &&
	    st.st_dev == n->plan.tool_sock_dev)
		r = 1; /* the tools broker's, bound in by lnk */
	if (r <= 0) {
		r = r == 0 ? -EACCES : r;
		goto out;
	}
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof(a.sun_path), "/proc/thread-self/fd/%d", o);
	r = connect(sfd, (struct sockaddr *)&a, sizeof(a)) < 0 ? -errno : 0;
out:
	if (o >= 0)
		close(o);
	guard_where_close(&w);
	return r;
}
