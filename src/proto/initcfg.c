/* The init config on the wire: encoded by lnk at plan time, decoded by
 * lnk-init inside the sandbox.
 *
 * The memfd is sealed before bwrap starts, but the decoder still treats the
 * bytes as hostile (it is fuzzed: tests/fuzz/fuzz_initcfg.c): a bug in the
 * encoder, a wrong fd number or a future format must give a clear refusal,
 * never an out-of-bounds read or a half-filled config that execs anyway.
 * Every length is checked against what is left and against a fixed bound
 * before anything is allocated.
 */
#include "proto/initcfg.h"

#include <errno.h>
#include <string.h>

#define FLAG_EXEC_ANY (1u << 0)
#define FLAG_DOT_GUARD (1u << 1)
#define FLAG_LANDLOCK_OPTIONAL (1u << 2)
#define FLAG_CONNECT_GUARD (1u << 3)
#define FLAG_EXEC_GUARD (1u << 4)
#define FLAG_CGROUP_ON_GUARD (1u << 5)
#define FLAG_RESOLVER (1u << 6)
#define FLAGS_KNOWN                                                    \
	(FLAG_EXEC_ANY | FLAG_DOT_GUARD | FLAG_LANDLOCK_OPTIONAL |     \
	 FLAG_CONNECT_GUARD | FLAG_EXEC_GUARD | FLAG_CGROUP_ON_GUARD | \
	 FLAG_RESOLVER)

void initcfg_free(struct init_config *c)
{
	if (!c)
		return;
	strv_free(&c->ll_read);
	strv_free(&c->ll_write);
	strv_free(&c->ll_exec);
	free(c->listeners);
	for (size_t i = 0; i < c->npins; i++)
		free(c->pins[i].path);
	free(c->pins);
	free(c->cwd);
	free(c->temp_home);
	strv_free(&c->argv);
	strv_free(&c->env);
	memset(c, 0, sizeof(*c));
	c->guard_fd = -1;
	c->wire_fd = -1;
	c->lifeline_fd = -1;
}

/* ---- encoding ---------------------------------------------------------- */

static void put_u32(struct buf *b, uint32_t v)
{
	unsigned char x[4] = {v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff,
			      (v >> 24) & 0xff};
	buf_append(b, x, sizeof(x));
}

static int put_str(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > INITCFG_MAX_STR)
		return -E2BIG;
	put_u32(b, (uint32_t)n);
	buf_append(b, s ? s : "", n);
	return 0;
}

static int put_strv(struct buf *b, const struct strv *sv)
{
	int r;

	if (sv->n > INITCFG_MAX_STRV)
		return -E2BIG;
	put_u32(b, (uint32_t)sv->n);
	for (size_t i = 0; i < sv->n; i++)
		if ((r = put_str(b, sv->v[i])) < 0)
			return r;
	return 0;
}

int initcfg_encode(const struct init_config *c, struct buf *out)
{
	uint32_t flags = 0;
	int r;

	if (c->nlisteners > INITCFG_MAX_LISTENERS)
		return -E2BIG;
	if (c->exec_any)
		flags |= FLAG_EXEC_ANY;
	if (c->dot_guard)
		flags |= FLAG_DOT_GUARD;
	if (c->connect_guard)
		flags |= FLAG_CONNECT_GUARD;
	if (c->exec_guard)
		flags |= FLAG_EXEC_GUARD;
	if (c->landlock_optional)
		flags |= FLAG_LANDLOCK_OPTIONAL;
	if (c->cgroup_on_guard)
		flags |= FLAG_CGROUP_ON_GUARD;
	if (c->resolver)
		flags |= FLAG_RESOLVER;

	buf_append(out, INITCFG_MAGIC, 4);
	put_u32(out, INITCFG_VERSION);
	put_u32(out, flags);
	put_u32(out, (uint32_t)c->guard_fd);
	put_u32(out, (uint32_t)c->wire_fd);
	put_u32(out, (uint32_t)c->lifeline_fd);
	put_u32(out, c->nproc);
	if ((r = put_strv(out, &c->ll_read)) < 0 ||
	    (r = put_strv(out, &c->ll_write)) < 0 ||
	    (r = put_strv(out, &c->ll_exec)) < 0)
		return r;
	struct strv pins = {0};
	for (size_t i = 0; i < c->npins; i++)
		strv_pushf(&pins, "%llu %llu %s",
			   (unsigned long long)c->pins[i].dev,
			   (unsigned long long)c->pins[i].ino, c->pins[i].path);
	r = put_strv(out, &pins);
	strv_free(&pins);
	if (r < 0)
		return r;
	put_u32(out, (uint32_t)c->nlisteners);
	for (size_t i = 0; i < c->nlisteners; i++) {
		unsigned char l[3] = {(unsigned char)c->listeners[i].kind,
				      c->listeners[i].port & 0xff,
				      c->listeners[i].port >> 8};
		buf_append(out, l, sizeof(l));
	}
	if ((r = put_str(out, c->temp_home)) < 0 ||
	    (r = put_str(out, c->cwd)) < 0 ||
	    (r = put_strv(out, &c->argv)) < 0 ||
	    (r = put_strv(out, &c->env)) < 0)
		return r;
	if (out->len > INITCFG_MAX_BYTES)
		return -E2BIG;
	return 0;
}

/* ---- decoding ---------------------------------------------------------- */

struct rd {
	const unsigned char *p;
	size_t left;
	size_t off; /* for messages: where the bad field starts */
	struct lnk_err *err;
};

static int truncated(struct rd *r, const char *what)
{
	return err_set(r->err, -EINVAL,
		       "init config: truncated at byte %zu (reading %s)",
		       r->off, what);
}

static int get_bytes(struct rd *r, void *dst, size_t n, const char *what)
{
	if (r->left < n)
		return truncated(r, what);
	memcpy(dst, r->p, n);
	r->p += n;
	r->left -= n;
	r->off += n;
	return 0;
}

static int get_u32(struct rd *r, uint32_t *v, const char *what)
{
	unsigned char x[4] = {0};
	int e = get_bytes(r, x, 4, what);

	if (e < 0)
		return e;
	*v = (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 |
	     (uint32_t)x[3] << 24;
	return 0;
}

/* A string: bounded, no NUL inside (a NUL would silently cut a path or an
 * argument short, so what is checked would differ from what is used). */
static int get_str(struct rd *r, char **out, const char *what)
{
	uint32_t n;
	int e;

	if ((e = get_u32(r, &n, what)) < 0)
		return e;
	if (n > INITCFG_MAX_STR)
		return err_set(r->err, -EINVAL,
			       "init config: %s at byte %zu is %u bytes long, "
			       "more than the limit of %u",
			       what, r->off, n, INITCFG_MAX_STR);
	if (r->left < n)
		return truncated(r, what);
	if (memchr(r->p, '\0', n))
		return err_set(r->err, -EINVAL,
			       "init config: %s at byte %zu holds a NUL byte",
			       what, r->off);
	*out = xstrndup((const char *)r->p, n);
	r->p += n;
	r->left -= n;
	r->off += n;
	return 0;
}

static int get_strv(struct rd *r, struct strv *sv, const char *what)
{
	uint32_t n;
	int e;

	if ((e = get_u32(r, &n, what)) < 0)
		return e;
	/* Each entry takes at least its 4-byte length: a count that cannot
	 * fit in what is left is refused before any allocation. */
	if (n > INITCFG_MAX_STRV || n > r->left / 4)
		return err_set(r->err, -EINVAL,
			       "init config: %s at byte %zu claims %u entries",
			       what, r->off, n);
	for (uint32_t i = 0; i < n; i++) {
		char *s = NULL;
		if ((e = get_str(r, &s, what)) < 0)
			return e;
		strv_push_take(sv, s);
	}
	return 0;
}

static int check_fd(struct rd *r, uint32_t v, int *fd, const char *what)
{
	int32_t s = (int32_t)v;

	/* 0..2 are the program's own stdio: handing them to the wire or the
	 * supervisor (and then closing them) would be a bug, not a config. */
	if (s != -1 && (s < 3 || s > INITCFG_MAX_FD))
		return err_set(r->err, -EINVAL,
			       "init config: %s %d is not a valid descriptor",
			       what, (int)s);
	*fd = s;
	return 0;
}

static int check_abs_paths(struct rd *r, const struct strv *sv,
			   const char *what)
{
	for (size_t i = 0; i < sv->n; i++)
		if (sv->v[i][0] != '/')
			return err_set(r->err, -EINVAL,
				       "init config: %s path '%s' is not "
				       "absolute",
				       what, sv->v[i]);
	return 0;
}

/* One decimal number of a pin, then one space: its end, or NULL. */
static const char *pin_number(const char *s, uint64_t *v)
{
	uint64_t n = 0;
	const char *p = s;
	if (*p < '0' || *p > '9')
		return NULL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return NULL;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (*p != ' ')
		return NULL;
	*v = n;
	return p + 1;
}

static int get_pins(struct rd *r, struct init_config *c)
{
	struct strv v = {0};
	int e = get_strv(r, &v, "pins");
	if (e < 0) {
		strv_free(&v); /* what was read before the bad entry */
		return e;
	}
	c->pins = xcalloc(v.n ? v.n : 1, sizeof(*c->pins));
	for (size_t i = 0; i < v.n; i++) {
		struct init_pin *p = &c->pins[i];
		const char *s = pin_number(v.v[i], &p->dev);
		if (s)
			s = pin_number(s, &p->ino);
		if (!s || s[0] != '/') {
			e = err_set(r->err, -EINVAL,
				    "init config: pin %zu is not 'DEV INO "
				    "/path'",
				    i);
			strv_free(&v);
			return e;
		}
		p->path = xstrdup(s);
		c->npins = i + 1;
	}
	strv_free(&v);
	return 0;
}

static int decode(struct rd *r, struct init_config *c)
{
	char magic[4];
	uint32_t version, flags, nfd, wfd, lfd, nl;
	int e;

	if ((e = get_bytes(r, magic, 4, "magic")) < 0)
		return e;
	if (memcmp(magic, INITCFG_MAGIC, 4) != 0)
		return err_set(
		    r->err, -EINVAL,
		    "init config: not an lnk init config (bad magic)");
	if ((e = get_u32(r, &version, "version")) < 0)
		return e;
	if (version != INITCFG_VERSION)
		return err_set(
		    r->err, -EINVAL,
		    "init config: version %u, this lnk-init reads "
		    "version %d: lnk and lnk-init are from different "
		    "builds",
		    version, INITCFG_VERSION);
	if ((e = get_u32(r, &flags, "flags")) < 0)
		return e;
	if (flags & ~FLAGS_KNOWN)
		return err_set(r->err, -EINVAL,
			       "init config: unknown flags 0x%x", flags);
	c->exec_any = flags & FLAG_EXEC_ANY;
	c->dot_guard = flags & FLAG_DOT_GUARD;
	c->connect_guard = flags & FLAG_CONNECT_GUARD;
	c->exec_guard = flags & FLAG_EXEC_GUARD;
	c->landlock_optional = flags & FLAG_LANDLOCK_OPTIONAL;
	c->cgroup_on_guard = flags & FLAG_CGROUP_ON_GUARD;
	c->resolver = flags & FLAG_RESOLVER;

	if ((e = get_u32(r, &nfd, "guard_fd")) < 0 ||
	    (e = check_fd(r, nfd, &c->guard_fd, "guard_fd")) < 0 ||
	    (e = get_u32(r, &wfd, "wire_fd")) < 0 ||
	    (e = check_fd(r, wfd, &c->wire_fd, "wire_fd")) < 0 ||
	    (e = get_u32(r, &lfd, "lifeline_fd")) < 0 ||
	    (e = check_fd(r, lfd, &c->lifeline_fd, "lifeline_fd")) < 0 ||
	    (e = get_u32(r, &c->nproc, "nproc")) < 0)
		return e;
	if (c->dot_guard && c->guard_fd < 0)
		return err_set(r->err, -EINVAL,
			       "init config: dot_guard is set but there is no "
			       "guard_fd");
	if (c->exec_guard && c->guard_fd < 0)
		return err_set(r->err, -EINVAL,
			       "init config: exec_guard is set but there is "
			       "no guard_fd");
	if (c->connect_guard && c->guard_fd < 0)
		return err_set(r->err, -EINVAL,
			       "init config: connect_guard is set but there is "
			       "no guard_fd");
	if (c->cgroup_on_guard && c->guard_fd < 0)
		return err_set(r->err, -EINVAL,
			       "init config: cgroup_on_guard is set but there "
			       "is no guard_fd");
	if (c->guard_fd >= 0 && c->guard_fd == c->wire_fd)
		return err_set(r->err, -EINVAL,
			       "init config: guard_fd and wire_fd are both %d",
			       c->guard_fd);
	/* init closes the wire's socket once used but keeps the lifeline
	 * and the guard's socket to the end: one descriptor cannot be two
	 * of them. */
	if (c->lifeline_fd >= 0 &&
	    (c->lifeline_fd == c->guard_fd || c->lifeline_fd == c->wire_fd))
		return err_set(r->err, -EINVAL,
			       "init config: lifeline_fd %d is also the wire "
			       "or guard socket",
			       c->lifeline_fd);

	if ((e = get_strv(r, &c->ll_read, "ll_read")) < 0 ||
	    (e = check_abs_paths(r, &c->ll_read, "ll_read")) < 0 ||
	    (e = get_strv(r, &c->ll_write, "ll_write")) < 0 ||
	    (e = check_abs_paths(r, &c->ll_write, "ll_write")) < 0 ||
	    (e = get_strv(r, &c->ll_exec, "ll_exec")) < 0 ||
	    (e = check_abs_paths(r, &c->ll_exec, "ll_exec")) < 0 ||
	    (e = get_pins(r, c)) < 0)
		return e;

	if ((e = get_u32(r, &nl, "listener count")) < 0)
		return e;
	if (nl > INITCFG_MAX_LISTENERS || nl > r->left / 3)
		return err_set(r->err, -EINVAL,
			       "init config: %u listeners claimed", nl);
	if (nl) {
		c->listeners = xcalloc(nl, sizeof(*c->listeners));
		for (uint32_t i = 0; i < nl; i++) {
			unsigned char l[3] = {0};
			if ((e = get_bytes(r, l, 3, "listener")) < 0)
				return e;
			switch (l[0]) {
			case INIT_L_HTTP:
			case INIT_L_SOCKS:
			case INIT_L_PORT:
			case INIT_L_TCP:
			case INIT_L_DNS:
				break;
			default:
				return err_set(r->err, -EINVAL,
					       "init config: listener %u has "
					       "unknown kind %u",
					       i, l[0]);
			}
			c->listeners[i].kind = (enum init_listener_kind)l[0];
			c->listeners[i].port = (uint16_t)(l[1] | l[2] << 8);
			if (c->listeners[i].port == 0)
				return err_set(r->err, -EINVAL,
					       "init config: listener %u has "
					       "port 0",
					       i);
			c->nlisteners = i + 1;
		}
	}
	if (c->nlisteners && c->wire_fd < 0)
		return err_set(r->err, -EINVAL,
			       "init config: listeners but no wire_fd");
	/* the resolver's sockets come from the handoff: one listener, DNS */
	if (c->resolver &&
	    (c->nlisteners != 1 || c->listeners[0].kind != INIT_L_DNS))
		return err_set(r->err, -EINVAL,
			       "init config: a resolver, but not one DNS "
			       "listener alone");

	if ((e = get_str(r, &c->temp_home, "temp_home")) < 0)
		return e;
	if (c->temp_home[0] == '\0') {
		free(c->temp_home);
		c->temp_home = NULL;
	} else if (c->temp_home[0] != '/') {
		return err_set(r->err, -EINVAL,
			       "init config: temp_home '%s' is not absolute",
			       c->temp_home);
	}
	if ((e = get_str(r, &c->cwd, "cwd")) < 0)
		return e;
	if (c->cwd[0] != '/')
		return err_set(r->err, -EINVAL,
			       "init config: cwd '%s' is not absolute", c->cwd);
	if ((e = get_strv(r, &c->argv, "argv")) < 0)
		return e;
	if (c->argv.n == 0)
		return err_set(r->err, -EINVAL,
			       "init config: no program to run (empty argv)");
	if (c->argv.v[0][0] != '/')
		return err_set(r->err, -EINVAL,
			       "init config: program '%s' is not an absolute "
			       "path",
			       c->argv.v[0]);
	if ((e = get_strv(r, &c->env, "env")) < 0)
		return e;
	for (size_t i = 0; i < c->env.n; i++)
		if (!strchr(c->env.v[i], '=') || c->env.v[i][0] == '=')
			return err_set(r->err, -EINVAL,
				       "init config: environment entry '%s' is "
				       "not KEY=VALUE",
				       c->env.v[i]);
	if (r->left)
		return err_set(
		    r->err, -EINVAL,
		    "init config: %zu unexpected bytes after the end", r->left);
	return 0;
}

int initcfg_decode(const char *data, size_t len, struct init_config *c,
		   struct lnk_err *err)
{
	struct rd r = {
	    .p = (const unsigned char *)data, .left = len, .err = err};
	int e;

	memset(c, 0, sizeof(*c));
	c->guard_fd = -1;
	c->wire_fd = -1;
	c->lifeline_fd = -1;
	if (len > INITCFG_MAX_BYTES)
		return err_set(err, -E2BIG,
			       "init config: %zu bytes, more than the limit of "
			       "%u",
			       len, INITCFG_MAX_BYTES);
	e = decode(&r, c);
	if (e < 0)
		initcfg_free(c); /* never hand back half a config */
	return e;
}
