/* lnk sandbox asks [--json] and lnk sandbox answer ID yes|no: the
 * questions sandboxes ask, answered from any shell of the same user
 * (tools/asks.h; lnk-sandbox(1), TOOLS AND ASKING). Another user's
 * ~/.lnk is theirs alone, so another user neither sees nor answers.
 *
 * Exit status: 0; 1 no such question waits (or answered, expired);
 * 2 usage; 125 lnk could not read or write the folder. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"
#include "tools/asks.h"

static void usage_asks(FILE *f)
{
	fputs(
	    "usage: lnk sandbox asks [--json]\n"
	    "\n"
	    "Lists the questions sandboxes ask and wait on: ID, SANDBOX,\n"
	    "QUESTION and the seconds LEFT, after which a question counts as\n"
	    "no. Answer one with 'lnk sandbox answer ID yes|no'.\n"
	    "\n"
	    "  --json   [{\"id\", \"sandbox\", \"question\", \"left\"}, ...]\n",
	    f);
}

static void usage_answer(FILE *f)
{
	fputs(
	    "usage: lnk sandbox answer ID yes|no\n"
	    "\n"
	    "Answers the question ID (see 'lnk sandbox asks'): yes allows that\n"
	    "one call, once; no refuses it. The first answer counts.\n",
	    f);
}

int cmd_asks(int argc, char **argv, const struct cli_ctx *cx)
{
	bool json = false;
	int rc = cli_json_only("asks", argc, argv, usage_asks, &json);
	struct lnk_err err = {0};
	struct ask *v;
	size_t n;

	if (rc >= 0)
		return rc;
	_cleanup_free_ char *dir = asks_dir(cx->home);
	int64_t now = asks_now_ms();
	if (asks_list(dir, now, &v, &n, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	struct buf b = {0};
	if (json) {
		buf_putc(&b, '[');
		for (size_t i = 0; i < n; i++) {
			buf_puts(&b, i ? ",{\"id\":" : "{\"id\":");
			buf_json_str(&b, v[i].id, strlen(v[i].id));
			buf_puts(&b, ",\"sandbox\":");
			buf_json_str(&b, v[i].sandbox, strlen(v[i].sandbox));
			buf_puts(&b, ",\"question\":");
			buf_json_str(&b, v[i].question, strlen(v[i].question));
			buf_printf(&b, ",\"left\":%lld}",
				   (long long)((v[i].expires_ms - now) / 1000));
		}
		buf_puts(&b, "]\n");
	} else if (n) {
		size_t ws = 7;
		for (size_t i = 0; i < n; i++)
			if (strlen(v[i].sandbox) > ws)
				ws = strlen(v[i].sandbox);
		buf_printf(&b, "%-6s  %-*s  %-5s  QUESTION\n", "ID", (int)ws,
			   "SANDBOX", "LEFT");
		for (size_t i = 0; i < n; i++) {
			char left[16];
			snprintf(left, sizeof(left), "%llds",
				 (long long)((v[i].expires_ms - now) / 1000));
			buf_printf(&b, "%-6s  %-*s  %-5s  %s\n", v[i].id,
				   (int)ws, v[i].sandbox, left, v[i].question);
		}
	} else {
		buf_puts(&b, "no question is waiting\n");
	}
	fwrite(b.p, 1, b.len, stdout);
	buf_free(&b);
	asks_free(v, n);
	return 0;
}

int cmd_answer(int argc, char **argv, const struct cli_ctx *cx)
{
	struct lnk_err err = {0};
	char q[64];

	for (int i = 1; i < argc; i++)
		if (is_help(argv[i])) {
			usage_answer(stdout);
			return 0;
		}
	if (argc != 3) {
		usage_answer(stderr);
		return LNK_EXIT_USAGE;
	}
	const char *id = argv[1], *a = argv[2];
	if (!asks_id_ok(id)) {
		warnx_("%s is not a question's id: six letters and digits, as "
		       "'lnk sandbox asks' shows them",
		       esc_to(q, sizeof(q), id));
		return LNK_EXIT_USAGE;
	}
	if (strcmp(a, "yes") != 0 && strcmp(a, "no") != 0) {
		warnx_("%s: answer yes or no", esc_to(q, sizeof(q), a));
		return LNK_EXIT_USAGE;
	}
	_cleanup_free_ char *dir = asks_dir(cx->home);
	int r =
	    asks_answer(dir, id, strcmp(a, "yes") == 0, asks_now_ms(), &err);
	if (r == -ENOENT || r == -EEXIST) {
		warnx_("%s", err.msg);
		return 1;
	}
	if (r < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	return 0;
}
