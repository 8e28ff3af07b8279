/* lnk sandbox asks [--json] and lnk sandbox answer ID yes|no: the
 * questions sandboxes ask, answered from any shell of the same user
 * (tools/asks.h; lnk-sandbox(1), TOOLS AND ASKING). Another user's
 * ~/.lnk is theirs alone, so another user neither sees nor answers. The
 * answer goes to the sandbox's broker on its answer socket, which takes
 * it only from a process outside every sandbox (tools/answer.h).
 *
 * Exit status: 0; 1 no such question waits (or answered, expired), or the
 * broker refused the answer; 2 usage; 125 lnk could not read the folder
 * or reach the broker. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"
#include "tools/answer.h"
#include "tools/asks.h"

static void usage_asks(FILE *f)
{
	fputs(
	    "usage: lnk sandbox asks [--json]\n"
	    "\n"
	    "Lists the questions sandboxes ask and wait on: ID, SANDBOX, the\n"
	    "seconds LEFT, after which a question counts as no, and the\n"
	    "QUESTION in one line (the tool, its first argument, how many\n"
	    "arguments, the folder), then each argument on a numbered line.\n"
	    "Answer one with 'lnk sandbox answer ID yes|no'.\n"
	    "\n"
	    "  --json   [{\"id\", \"sandbox\", \"question\", \"lines\", \"left\"},\n"
	    "           ...]: question is the one line, lines the whole\n"
	    "           question, each argument on a numbered line\n",
	    f);
}

static void usage_answer(FILE *f)
{
	fputs(
	    "usage: lnk sandbox answer ID yes|no\n"
	    "\n"
	    "Answers the question ID (see 'lnk sandbox asks'): yes allows that\n"
	    "one call, once; no refuses it. The first answer counts. Answer\n"
	    "from a shell of your own: an answer from inside a sandbox, or\n"
	    "from a process in namespaces of its own (unshare), is refused.\n"
	    "It says what it answered: the answer, the id, the sandbox and\n"
	    "the question, each argument on a numbered line.\n",
	    f);
}

/* The question's lines after its first, one per argument (escaped and
 * bounded when the question was written, question.h), each indented:
 * what the person answers for is the whole call, here where the program
 * cannot write, not a summary a question it drew on the terminal could
 * share (the same tool, first word and count). */
static void put_args(struct buf *b, const char *question)
{
	const char *l = question ? strchr(question, '\n') : NULL;
	while (l && *++l) {
		size_t k = strcspn(l, "\n");
		buf_printf(b, "        %.*s\n", (int)k, l);
		l += k;
		if (!*l)
			break;
	}
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
			buf_json_str(&b, v[i].summary, strlen(v[i].summary));
			buf_puts(&b, ",\"lines\":[");
			for (const char *l = v[i].question; *l;) {
				size_t k = strcspn(l, "\n");
				if (l != v[i].question)
					buf_putc(&b, ',');
				buf_json_str(&b, l, k);
				l += k;
				if (*l)
					l++;
			}
			buf_putc(&b, ']');
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
				   (int)ws, v[i].sandbox, left, v[i].summary);
			put_args(&b, v[i].question);
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
	struct ask qa;
	if (asks_get(dir, id, &qa) < 0) {
		warnx_("no question '%s' is waiting (see 'lnk sandbox asks')",
		       id);
		return 1;
	}
	bool late = qa.expires_ms <= asks_now_ms();
	_cleanup_free_ char *sandbox = steal_ptr(&qa.sandbox);
	/* lnk's own line, escaped when the question was written (question.h),
	 * as `asks` shows it */
	_cleanup_free_ char *summary = steal_ptr(&qa.summary);
	_cleanup_free_ char *question = steal_ptr(&qa.question);
	ask_clear(&qa);
	if (late) {
		warnx_("question '%s' expired, which counts as no", id);
		return 1;
	}
	int r = answer_send(dir, sandbox, id, strcmp(a, "yes") == 0, &err);
	if (r == -ENOENT || r == -EEXIST || r == -EPERM) {
		warnx_("%s", err.msg);
		return 1;
	}
	if (r < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	/* Said, so that a typed id is seen to be the question meant. */
	struct buf args = {0};
	put_args(&args, question);
	printf("answered %s to %s (sandbox %s): %s\n%.*s", a, id, sandbox,
	       summary ? summary : "", (int)args.len, args.p ? args.p : "");
	buf_free(&args);
	return 0;
}
