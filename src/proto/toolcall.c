/* Decoding a tool call (toolcall.h). The client is the sandboxed
 * program's own code, or anything it wrote: the message is read as
 * hostile. */
#include "proto/toolcall.h"

#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

int tools_call_decode(const char *buf, size_t len, struct tools_call *c,
		      struct lnk_err *err)
{
	return tools_call_decode_as(TOOLS_MAGIC, buf, len, c, err);
}

int tools_call_decode_as(const char *magic, const char *buf, size_t len,
			 struct tools_call *c, struct lnk_err *err)
{
	uint32_t version, n;
	size_t at = 12;

	memset(c, 0, sizeof(*c));
	if (len < 12 || memcmp(buf, magic, 4) != 0)
		return err_set(err, -EINVAL,
			       "this is not a tool call (run the tool by its "
			       "name, as the sandbox's PATH has it)");
	memcpy(&version, buf + 4, 4);
	memcpy(&n, buf + 8, 4);
	version = le32toh(version);
	n = le32toh(n);
	if (version != TOOLS_VERSION)
		return err_set(err, -EINVAL,
			       "a tool call of version %u, and this lnk reads "
			       "%u",
			       version, TOOLS_VERSION);
	if (n < 2)
		return err_set(err, -EINVAL,
			       "a tool call names no tool or folder");
	if (n > TOOLS_MAX_ARGS)
		return err_set(err, -E2BIG,
			       "a tool call of more than %u arguments",
			       TOOLS_MAX_ARGS);
	for (uint32_t i = 0; i < n; i++) {
		const char *s = buf + at;
		const char *nul = at < len ? memchr(s, '\0', len - at) : NULL;
		if (!nul) {
			tools_call_free(c);
			return err_set(err, -EINVAL,
				       "a tool call cut short (string %u of "
				       "%u has no end)",
				       i + 1, n);
		}
		if (i == 0)
			c->tool = xstrdup(s);
		else if (i == 1)
			c->cwd = xstrdup(s);
		else
			strv_push(&c->args, s);
		at += (size_t)(nul - s) + 1;
	}
	if (at != len) {
		tools_call_free(c);
		return err_set(err, -EINVAL,
			       "a tool call with bytes after its arguments");
	}
	return 0;
}

char *tools_call_encode(const char *magic, const struct tools_call *c,
			size_t *len)
{
	uint32_t version = htole32(TOOLS_VERSION);
	uint32_t n = htole32((uint32_t)(c->args.n + 2));
	struct buf b = {0};

	buf_append(&b, magic, 4);
	buf_append(&b, &version, 4);
	buf_append(&b, &n, 4);
	buf_append(&b, c->tool, strlen(c->tool) + 1);
	buf_append(&b, c->cwd, strlen(c->cwd) + 1);
	for (size_t i = 0; i < c->args.n; i++)
		buf_append(&b, c->args.v[i], strlen(c->args.v[i]) + 1);
	*len = b.len;
	return buf_steal(&b);
}

void tools_call_free(struct tools_call *c)
{
	free(c->tool);
	free(c->cwd);
	strv_free(&c->args);
	memset(c, 0, sizeof(*c));
}

int tools_signal_ok(int sig)
{
	switch (sig) {
	case SIGINT:
	case SIGTERM:
	case SIGHUP:
	case SIGQUIT:
	case SIGUSR1:
	case SIGUSR2:
	case SIGWINCH:
	case SIGCONT:
		return 1;
	default:
		return 0;
	}
}
