/* The tools broker (broker.h): two processes. Its reader (reader.h),
 * confined, is the one that reads the clients' bytes; it hands each call
 * on, checked and canonical, with its descriptors (proto/toolpass.h). This one, the
 * starter, decides (the plan, the person's answer), writes the call log,
 * and runs the tools: one poll loop over the reader's socket, the
 * lifeline, SIGCHLD, the desktop process and lnk's terminal. */
#include "tools/broker.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/compat.h"
#include "common/fdpass.h"
#include "common/notify.h"
#include "common/util.h"
#include "common/esc.h"
#include "proto/toolcall.h"
#include "proto/toolpass.h"
#include "store/db.h"
#include "store/refusals.h"
#include "store/registry.h"
#include "store/shut.h"
#include "store/tripbox.h"
#include "tools/answer.h"
#include "tools/asks.h"
#include "tools/broker_int.h"
#include "tools/desktop.h"
#include "tools/env.h"
#include "tools/folder.h"
#include "tools/input.h"
#include "tools/page.h"
#include "tools/question.h"
#include "tools/reach.h"
#include "tools/reader.h"
#include "tools/view.h"
#include "wire/trip.h"

/* The desktop process is gone (its bus went away): without a terminal,
 * the calls from now on have no one to ask. */
static void desktop_gone(struct broker *b)
{
	close(b->desktop);
	b->desktop = -1;
	b->can_ask = b->in->can_ask;
}

/* Takes a question back from every channel: `asks`, and the desktop. */
static void withdraw(struct broker *b, const char *id)
{
	asks_withdraw(b->in->asks_dir, id);
	if (desktop_withdraw(b->desktop, id) < 0)
		desktop_gone(b);
}

/* The reader tells the call's client: 'R' text, or 'X' status. */
static void answer_client(struct broker *b, struct call *c, char kind,
			  const void *data, size_t n)
{
	(void)pass_send(b->pass, kind, (unsigned)(c - b->calls), data, n, NULL,
			0);
}

static void call_end(struct call *c)
{
	if (c->asking)
		for (int i = 0; i < TOOLS_NFDS; i++)
			close(c->fds[i]);
	if (c->has_dir)
		close(c->dirfd);
	free(c->note);
	tools_call_free(&c->tc);
	free(c->target);
	memset(c, 0, sizeof(*c));
}

/* Refuses a call: msg to the client, why (NULL: msg) to the log. */
static void refuse_why(struct broker *b, struct call *c, const char *target,
		       const char *msg, const char *why)
{
	size_t n = strlen(msg);
	answer_client(b, c, 'R', msg,
		      n < PASS_TEXT_MAX ? n : PASS_TEXT_MAX - 1);
	broker_log_refused(b, c->verb ? c->verb : "tool", target,
			   why ? why : msg);
	call_end(c);
}

static void refuse(struct broker *b, struct call *c, const char *target,
		   const char *msg)
{
	refuse_why(b, c, target, msg, NULL);
}

static void refuse_counted(struct broker *b, struct call *c, const char *target,
			   const char *key, const char *msg);
/* A refused call's key for the tripwires: the whole call, however long
 * (the box and the tripwires keep a long one as its start and a hash of
 * the whole, so calls that differ anywhere stay apart). */
#define TRIP_KEY_MAX (1u << 20)

static char *trip_key(const struct tool_grant *g, const struct strv *args)
{
	return g ? tools_call_target(g->name, args, TRIP_KEY_MAX) : NULL;
}

/* The folder a call's tool runs in, open, with its path in where and the
 * note for the tool's stderr (empty, or why it is the fallback); -1 when
 * it cannot be opened. */
static int tool_dir(const struct broker *b, const struct call *c,
		    const struct tool_grant *g, const char *cwd,
		    char where[PATH_MAX], char *note, size_t cap, char *why,
		    size_t wcap)
{
	bool page = c->verb && strcmp(c->verb, "page") == 0;
	const char *dir = page ? "/" : b->in->fallback;

	note[0] = '\0';
	snprintf(why, wcap, "the tool's folder cannot be opened");
	/* an opener needs no folder of the program's */
	int dirfd =
	    page ? -1
		 : tools_folder_pick(b->in->grants, b->in->hidden, cwd, where);
	if (dirfd < 0) {
		if (!page) {
			char q[PATH_MAX + 16];
			snprintf(note, cap,
				 "lnk: %s runs in '%s' (its folder is no "
				 "granted folder outside)\n",
				 g->name, esc_to(q, sizeof(q), dir));
		}
		snprintf(where, PATH_MAX, "%s", dir);
		dirfd = open(dir, COMPAT_O_DIRHANDLE | O_DIRECTORY | O_CLOEXEC);
	}
	/* A tool finds its configuration upward from its folder (a
	 * repository's core.fsmonitor, an .npmrc): never where the program
	 * could have made one (folder.h). */
	if (dirfd >= 0 && !page &&
	    tools_folder_check(dirfd, &b->tops,
			       tools_judged_name(g->name, g->path), why,
			       wcap) < 0) {
		close(dirfd);
		return -1;
	}
	return dirfd;
}

/* The child: the tool, in a session of its own (no controlling terminal:
 * it never reads lnk's terminal), with the three descriptors and nothing
 * else, default signals, lnk's environment. Async-signal-safe only. */
static void exec_tool(const struct broker *b, const char *path,
		      char *const *argv, const int fds[TOOLS_NFDS], int dirfd,
		      const char *note, bool page, bool no_input)
{
	sigset_t none;
	int hi[TOOLS_NFDS];

	setsid();
	/* A broker killed outright takes its tool with it. */
	(void)die_with_parent(SIGKILL);
	for (int i = 0; i < TOOLS_NFDS; i++)
		if ((hi[i] = fcntl(fds[i], F_DUPFD, 10)) < 0)
			_exit(125);
	for (int i = 0; i < TOOLS_NFDS; i++)
		if (dup2(hi[i], i) < 0)
			_exit(125);
	/* A tool that reads commands there gets none of the program's
	 * (input.h). */
	if (no_input) {
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (nul < 0 || dup2(nul, 0) < 0)
			_exit(125);
	}
	if (fchdir(dirfd) < 0)
		_exit(125);
	/* Said by the tool's process, not the broker: the program's stderr
	 * may be a pipe nobody reads (a write would block the broker for
	 * good) or one whose reader is gone. */
	for (size_t n = note ? strlen(note) : 0; n;) {
		ssize_t w = write(2, note, n);
		if (w <= 0)
			break;
		note += w;
		n -= (size_t)w;
	}
	close_from(3);
	/* A view of its own where lnk's settings and the hidden folders do
	 * not exist (view.h), whatever its arguments name. A page's opener
	 * gets a checked http(s) URL only, and the browser it starts must
	 * outlive the call. */
	struct lnk_err ve = {0};
	if (!page &&
	    tools_view_enter_pinned(b->in->hidden, &b->pins, &b->pins_now,
				    b->in->nofollow, &ve) < 0) {
		term_write(2, "lnk: ");
		term_write(2, ve.msg);
		term_write(2, "\n");
		_exit(125);
	}
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(path, argv, b->env.v);
	_exit(127);
}

/* Tells lnk's terminal prompt (launch/askterm.h) of a question ('a') or
 * of how one ended ('e', how: y n t g). A line is shorter than PIPE_BUF,
 * so it is written whole or not at all; a full pipe loses it, and the
 * question stays answerable from another shell. */
static void tell_terminal(const struct broker *b, char kind, const char *id,
			  char how)
{
	char m[16];
	int n = kind == 'a' ? snprintf(m, sizeof(m), "a %s\n", id)
			    : snprintf(m, sizeof(m), "e %s %c\n", id, how);
	if (b->in->ask_fd >= 0 && write(b->in->ask_fd, m, (size_t)n) < 0) {
	}
}

static void run_tool(struct broker *b, struct call *c,
		     const struct tool_grant *g, struct tools_call *tc,
		     const int fds[TOOLS_NFDS]);

/* A call outside the allow lists, with someone to ask: the question is
 * recorded for `lnk sandbox asks` and said on lnk's terminal (never the
 * program's: it cannot see the id), and the call waits, holding its
 * descriptors, until an answer, its expiry or its client's end. */
static void ask(struct broker *b, struct call *c, const struct tool_grant *g,
		struct tools_call *tc, const int fds[TOOLS_NFDS])
{
	struct lnk_err e = {0};
	char where[PATH_MAX], note[PATH_MAX + 240];
	bool page = c->verb && strcmp(c->verb, "page") == 0;

	/* The folder is chosen now and named in the question: a tool such
	 * as gh or git acts on the repository of its folder, and the
	 * program picks which (any granted one). The tool runs there. */
	char why[PATH_MAX * 3];
	int dirfd = tool_dir(b, c, g, tc->cwd, where, note, sizeof(note), why,
			     sizeof(why));
	if (dirfd < 0) {
		_cleanup_free_ char *t = steal_ptr(&c->target);
		refuse(b, c, t, why);
		return;
	}
	c->has_dir = true;
	c->dirfd = dirfd;
	c->note = xstrdup(note);
	/* The user answers for the call shown, so it shows the call itself,
	 * bounded and unambiguous (question.h). */
	const char *tool = page ? "open page" : g->name;
	_cleanup_free_ char *text =
	    question_text(tool, &tc->args, page ? NULL : where);
	_cleanup_free_ char *summary =
	    question_summary(tool, &tc->args, page ? NULL : where);
	_cleanup_free_ char *folder = page ? NULL : question_folder(where);
	struct ask a = {.sandbox = (char *)b->in->sandbox,
			.summary = summary,
			.folder = folder,
			.question = text};
	asks_new_id(a.id);
	a.expires_ms = asks_now_ms() + (int64_t)b->in->ask_wait_s * 1000;
	if (asks_put(b->in->asks_dir, &a, &e) < 0) {
		_cleanup_free_ char *t = steal_ptr(&c->target);
		refuse(b, c, t, e.msg);
		return;
	}
	for (int i = 0; i < TOOLS_NFDS; i++)
		c->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
	c->asking = true;
	c->tc = *tc;
	memset(tc, 0, sizeof(*tc));
	c->g = g;
	c->expires_ms = a.expires_ms;
	snprintf(c->id, sizeof(c->id), "%s", a.id);
	if (desktop_ask(b->desktop, a.id, text) < 0)
		desktop_gone(b);
	if (b->in->ask_fd >= 0) {
		/* lnk asks on its terminal, with a code (askterm.h). */
		tell_terminal(b, 'a', a.id, 0);
		return;
	}
	/* No pty: the program writes to this terminal too, and could draw
	 * another call over these lines around the id. So the id is not
	 * said here: the person reads the call and its id where the program
	 * cannot write, `lnk sandbox asks` in another shell. */
	_cleanup_free_ char *say_it = xasprintf(
	    "lnk: sandbox %s asks to run, outside: %s\n%s"
	    "lnk: the program writes to this terminal too: read the call and "
	    "its id with 'lnk sandbox asks' in another shell, then 'lnk "
	    "sandbox answer ID yes' (or no) within %u s (else no)\n",
	    b->in->sandbox, summary, strchr(text, '\n') + 1, b->in->ask_wait_s);
	term_write(2, say_it);
}

/* Whether id is a question of this broker's still waiting. */
static bool asks_waiting(void *ctx, const char *id)
{
	const struct broker *b = ctx;
	for (size_t i = 0; i < TOOLS_MAX_CALLS; i++)
		if (b->calls[i].asking && strcmp(b->calls[i].id, id) == 0)
			return true;
	return false;
}

/* A question ended: yes runs its call, no (or no answer in time)
 * refuses it. */
static void asked(struct broker *b, struct call *c, bool got, bool yes)
{
	char m[200];

	withdraw(b, c->id);
	tell_terminal(b, 'e', c->id, !got ? 't' : yes ? 'y' : 'n');
	if (got && yes) {
		int fds[TOOLS_NFDS];
		memcpy(fds, c->fds, sizeof(fds));
		c->asking = false;
		/* the question's ID through a copy: GCC cannot tell two
		 * members of one struct apart (-Wrestrict) */
		char id[sizeof(c->id)];
		memcpy(id, c->id, sizeof(id));
		snprintf(c->how, sizeof(c->how), "asked %s: answered yes", id);
		struct tools_call tc = c->tc;
		memset(&c->tc, 0, sizeof(c->tc));
		run_tool(b, c, c->g, &tc, fds);
		tools_call_free(&tc);
		for (int k = 0; k < TOOLS_NFDS; k++)
			close(fds[k]);
		return;
	}
	if (got)
		snprintf(m, sizeof(m), "asked %s: answered no", c->id);
	else
		snprintf(m, sizeof(m),
			 "asked %s: no answer within %u s, which counts as no",
			 c->id, b->in->ask_wait_s);
	_cleanup_free_ char *t = steal_ptr(&c->target);
	_cleanup_free_ char *k = trip_key(c->g, &c->tc.args);
	refuse_counted(b, c, t, k, m);
}

/* The questions waiting: answered, expired, or still waiting. */
static void check_asks(struct broker *b)
{
	int64_t now = asks_now_ms();

	(void)answer_box_pump(&b->answers, asks_waiting, b);

	for (size_t i = 0; i < TOOLS_MAX_CALLS; i++) {
		struct call *c = &b->calls[i];
		bool yes = false;
		if (!c->asking)
			continue;
		int got = answer_box_get(&b->answers, c->id, &yes);
		if (!got && c->expires_ms > now)
			continue;
		asked(b, c, got, yes);
	}
}

/* Pages a sandbox shows on lnk's stderr when nothing here can open them,
 * at most: each is a line on the person's terminal. */
#define PAGES_SAID_MAX 8

/* A page nothing here can open, shown so that the person can open it
 * elsewhere (a login's page, say): on lnk's terminal, never the
 * program's, escaped (the program chose it), at most PAGES_SAID_MAX. */
static void say_page(struct broker *b, const char *why, const char *url)
{
	if (b->pages_said >= PAGES_SAID_MAX)
		return;
	_cleanup_free_ char *u = esc_dup(url);
	_cleanup_free_ char *say = xasprintf(
	    "lnk: sandbox %s: the program asked to open a page, and %s; "
	    "open it yourself if you want it: %s\n",
	    b->in->sandbox, why, u);
	term_write(2, say);
	if (++b->pages_said == PAGES_SAID_MAX)
		term_write(2, "lnk: more pages nothing here can open are not "
			      "shown\n");
}

/* A page to open (its URL checked and made normal by the reader, and
 * checked again here): a granted one opens at once with the desktop's
 * opener, any other asks. Only the scheme and host reach the log. */
static void page_call(struct broker *b, struct call *c,
		      const struct tool_grant *g, struct tools_call *tc,
		      const int fds[TOOLS_NFDS])
{
	struct lnk_err e = {0};
	char *norm = NULL, *origin = NULL;

	c->verb = "page";
	if (tc->args.n != 1 ||
	    page_check(tc->args.v[0], &norm, &origin, &e) < 0 ||
	    strcmp(norm, tc->args.v[0]) != 0) {
		refuse_counted(b, c, "?", "page ?",
			       "a page to open that the broker's reader "
			       "did not check");
	} else if (!b->in->plan->desktop || !g->path) {
		/* Nothing here opens a page: said with its address. One no
		 * grant names counts toward the tripwires all the same (the
		 * program asks for what it was not given). A display but no
		 * opener: "no desktop" would be false. */
		bool none = !b->in->plan->desktop;
		say_page(b,
			 none ? "there is no desktop here to open it in"
			      : "xdg-open, which opens pages on this desktop, "
				"is not installed (apt install xdg-utils)",
			 norm);
		const char *m = none
				    ? "there is no desktop here to open a page "
				      "in"
				    : "xdg-open, which opens pages on this "
				      "desktop, is not installed here (apt "
				      "install xdg-utils)";
		if (page_allowed(&b->in->plan->pages, norm))
			refuse(b, c, origin, m);
		else
			refuse_counted(b, c, origin, NULL, m);
	} else if (page_allowed(&b->in->plan->pages, norm)) {
		c->target = xstrdup(origin);
		snprintf(c->how, sizeof(c->how), "allowed");
		run_tool(b, c, g, tc, fds);
	} else if (b->can_ask) {
		c->target = xstrdup(origin);
		ask(b, c, g, tc, fds);
	} else {
		refuse_counted(
		    b, c, origin, NULL,
		    "this page is not one [browser] open grants, and "
		    "there is no one to ask; grant it with "
		    "--browser-open");
	}
	free(norm);
	free(origin);
}

static bool any_asking(const struct broker *b)
{
	for (size_t i = 0; i < TOOLS_MAX_CALLS; i++)
		if (b->calls[i].asking)
			return true;
	return false;
}

/* Refuses a call the person did not allow, and counts it. */
static void refuse_counted(struct broker *b, struct call *c, const char *target,
			   const char *key, const char *msg)
{
	broker_trip_told(b, key ? key : target);
	refuse(b, c, target, msg);
}

/* A call refused because the wire is closed: the client is told why and
 * what opens it; the log's reason is the wire's. */
static void refuse_closed(struct broker *b, struct call *c, const char *why)
{
	char nm[REGISTRY_NAME_MAX + 1];
	ctl_printable(nm, sizeof(nm), b->in->sandbox);
	bool stop = strcmp(why, "stopped") == 0;
	_cleanup_free_ char *m = xasprintf(
	    "the sandbox's wire is closed (%s), and no call goes through it "
	    "or its tools until '%s%s' opens it",
	    why, stop ? "lnk sandbox stop --off" : "lnk sandbox resume ",
	    stop ? "" : nm);
	_cleanup_free_ char *t = steal_ptr(&c->target);
	refuse_why(b, c, t ? t : "?", m, why);
}

/* The wire closed: a question still waiting is taken back and refused,
 * a tool still running is ended (its row says why), as the wire ends its
 * own open calls within a second. */
static void sweep_closed(struct broker *b)
{
	const char *why = broker_closed(b);
	if (!why)
		return;
	for (size_t i = 0; i < TOOLS_MAX_CALLS; i++) {
		struct call *c = &b->calls[i];
		if (c->asking) {
			withdraw(b, c->id);
			tell_terminal(b, 'e', c->id, 'g');
			refuse_closed(b, c, why);
		} else if (c->busy && c->pid > 0 && !c->why) {
			kill(-c->pid, SIGKILL);
			snprintf(c->ended, sizeof(c->ended),
				 "ended as the wire closed (%s), ", why);
			c->why = c->ended;
		}
	}
}

static bool any_running(const struct broker *b)
{
	for (size_t i = 0; i < TOOLS_MAX_CALLS; i++)
		if (b->calls[i].busy && b->calls[i].pid > 0)
			return true;
	return false;
}

static void start_call(struct broker *b, struct call *c, struct tools_call *tc,
		       const int fds[TOOLS_NFDS])
{
	const struct tool_grant *g = tools_plan_find(b->in->plan, tc->tool);
	const char *closed = broker_closed(b);
	if (closed) {
		c->verb = g && g->page ? "page" : "tool";
		if (g && !g->page)
			c->target = tools_call_target(g->name, &tc->args,
						      DB_TARGET_MAX - 1);
		refuse_closed(b, c, closed);
		return;
	}
	if (g && g->page) {
		page_call(b, c, g, tc, fds);
		return;
	}
	if (!g) {
		char q[96];
		_cleanup_free_ char *m =
		    xasprintf("%s is no tool of this sandbox (--tool grants "
			      "one)",
			      esc_to(q, sizeof(q), tc->tool));
		refuse_counted(b, c, "?", q, m);
		return;
	}
	c->target = tools_call_target(g->name, &tc->args, DB_TARGET_MAX - 1);
	if (b->drivers_over) {
		_cleanup_free_ char *t = steal_ptr(&c->target);
		refuse(b, c, t,
		       "the git configuration in reach (yours, the system's, "
		       "the granted folders' repositories) defines more "
		       "filter, diff and merge driver commands than lnk "
		       "stands in for, so a tool could run one on the "
		       "program's files; no tool runs in this sandbox");
		return;
	}
	if (!tools_allowed(g, &tc->args) && b->can_ask &&
	    !question_whole(&tc->args)) {
		/* a yes would allow what no screen showed */
		_cleanup_free_ char *how = tools_refusal_text(g, &tc->args);
		_cleanup_free_ char *m = xasprintf(
		    "this call is too long to show whole in a question (more "
		    "than %d arguments, or one longer than a line), and lnk "
		    "asks only about what it shows: %s",
		    QUESTION_ARGS_MAX, how);
		_cleanup_free_ char *t = steal_ptr(&c->target);
		_cleanup_free_ char *k = trip_key(g, &tc->args);
		refuse_counted(b, c, t, k, m);
		return;
	}
	if (!tools_allowed(g, &tc->args) && b->can_ask) {
		ask(b, c, g, tc, fds);
		return;
	}
	if (!tools_allowed(g, &tc->args)) {
		_cleanup_free_ char *m = tools_refusal_text(g, &tc->args);
		_cleanup_free_ char *t = steal_ptr(&c->target);
		_cleanup_free_ char *k = trip_key(g, &tc->args);
		refuse_counted(b, c, t, k, m);
		return;
	}
	snprintf(c->how, sizeof(c->how), "allowed");
	run_tool(b, c, g, tc, fds);
}

/* Runs an allowed call's tool, in the folder chosen when it was asked, if
 * it was; tc is freed by the caller. Its row is written first: a call
 * whose row cannot be written is refused, never run. */
static void run_tool(struct broker *b, struct call *c,
		     const struct tool_grant *g, struct tools_call *tc,
		     const int fds[TOOLS_NFDS])
{
	char note[PATH_MAX + 640] = "", where[PATH_MAX], msg[PASS_TEXT_MAX];
	char why[PATH_MAX * 3];
	int dirfd;
	bool page = c->verb && strcmp(c->verb, "page") == 0;
	const char *closed = broker_closed(b);
	if (closed) {
		refuse_closed(b, c, closed);
		return;
	}
	if (c->has_dir) {
		dirfd = c->dirfd;
		c->has_dir = false;
		snprintf(note, sizeof(note), "%s", c->note ? c->note : "");
	} else {
		dirfd = tool_dir(b, c, g, tc->cwd, where, note, sizeof(note),
				 why, sizeof(why));
	}
	if (dirfd < 0) {
		_cleanup_free_ char *t = steal_ptr(&c->target);
		refuse(b, c, t, why);
		return;
	}
	/* By the name granted and by the program that runs: Debian's
	 * editor, rview or a link of the user's lead to vim. */
	bool no_input =
	    !page && (tools_reads_commands(g->name, &tc->args) ||
		      (g->path && tools_reads_commands(g->path, &tc->args)));
	/* Such a tool reads commands from its output too when that is a
	 * socket the program holds (vi takes its keys from stderr when its
	 * input is no terminal): refused. A pipe's write end or a terminal
	 * reads nothing of the program's. */
	for (int k = 1; no_input && k < TOOLS_NFDS; k++) {
		struct stat fst;
		if (fstat(fds[k], &fst) == 0 && S_ISSOCK(fst.st_mode)) {
			char m[320], t[160];
			snprintf(m, sizeof(m),
				 "%s reads commands, and its %s is a socket "
				 "the program holds, from which it could read "
				 "them: run it with its output on a pipe or a "
				 "file",
				 esc_to(t, sizeof(t), g->name),
				 k == 1 ? "output" : "error output");
			close(dirfd);
			_cleanup_free_ char *tg = steal_ptr(&c->target);
			refuse(b, c, tg, m);
			return;
		}
	}
	if (broker_log_start(b, c, msg, sizeof(msg)) < 0) {
		close(dirfd);
		answer_client(b, c, 'R', msg, strlen(msg));
		call_end(c);
		return;
	}
	struct strv argv = {0};
	strv_push(&argv, g->name);
	for (size_t i = 0; i < tc->args.n; i++)
		strv_push(&argv, tc->args.v[i]);
	if (no_input) {
		size_t at = strlen(note);
		char t[160];
		snprintf(note + at, sizeof(note) - at,
			 "lnk: %s reads commands on its input, and one there "
			 "can run any program outside, as you (sqlite3's "
			 ".shell, psql's \\!, a shell's): it gets no input "
			 "from the program; name what it should do in the "
			 "call's arguments\n",
			 esc_to(t, sizeof(t), g->name));
	}
	strv_free(&b->pins_now);
	tools_pins_now(&b->pins, &b->pins_now);
	pid_t pid = fork();
	if (pid == 0)
		exec_tool(b, g->path, argv.v, fds, dirfd, note, page, no_input);
	int fe = errno;
	strv_free(&argv);
	close(dirfd);
	if (pid < 0) {
		char m[160];
		snprintf(m, sizeof(m), "cannot start the tool: %s",
			 strerror(fe));
		broker_log_end(b, c, DB_FAILED, m);
		answer_client(b, c, 'R', m, strlen(m));
		call_end(c);
		return;
	}
	c->pid = pid;
}

static void reap(struct broker *b)
{
	int ws;
	pid_t p;

	while ((p = waitpid(-1, &ws, WNOHANG)) > 0) {
		for (size_t i = 0; i < TOOLS_MAX_CALLS; i++) {
			struct call *c = &b->calls[i];
			if (!c->busy || c->pid != p)
				continue;
			int st = WIFEXITED(ws)	   ? WEXITSTATUS(ws)
				 : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws)
						   : 125;
			char why[128];
			snprintf(why, sizeof(why), "%s, %sexit status %d",
				 c->how, c->why ? c->why : "", st);
			unsigned char x = (unsigned char)st;
			answer_client(b, c, 'X', &x, 1);
			broker_log_end(b, c, c->why ? DB_FAILED : DB_ENDED,
				       why);
			call_end(c);
		}
	}
}

/* A signal that ends a process, sent to a call: its program wants it over. */
static bool ends_call(int sig)
{
	return sig == SIGTERM || sig == SIGINT || sig == SIGHUP ||
	       sig == SIGQUIT;
}

/* A question taken back: its client went away, or the call was ended
 * by a signal while it waited (how says which). A taken-back question is
 * a refused call. */
static void take_back(struct broker *b, struct call *c, const char *how)
{
	withdraw(b, c->id);
	tell_terminal(b, 'e', c->id, 'g');
	char why[96];
	snprintf(why, sizeof(why), "asked %s: withdrawn, %s", c->id, how);
	_cleanup_free_ char *t = steal_ptr(&c->target);
	/* a question asked and taken back is a refused call too: a program
	 * could otherwise ask the person without end */
	_cleanup_free_ char *k = trip_key(c->g, &c->tc.args);
	broker_trip_told(b, k ? k : t ? t : "?");
	refuse_why(b, c, t ? t : "?", why, why);
}

/* The client of a call went away: a question is taken back, a tool is
 * ended with it. */
static void client_gone(struct broker *b, struct call *c)
{
	if (c->asking) {
		take_back(b, c, "its client went away");
		return;
	}
	if (c->pid > 0) {
		kill(-c->pid, SIGKILL);
		c->why = "ended as its client went away, ";
	}
	c->gone = true;
}

/* One message of the reader's (toolpass.h). The reader is confined but
 * may be the program's by now: the message is decoded with bounds
 * (toolpass_decode) and the call checked as a client's would be.
 * 1 when one was taken, 0 when none waits, -1 when the reader is gone. */
static int from_reader(struct broker *b)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * TOOLS_NFDS)];
	} ctl;
	struct iovec iov = {.iov_base = b->buf,
			    .iov_len = PASS_HEAD + PASS_CALL_MAX};
	struct msghdr mh = {.msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.b,
			    .msg_controllen = sizeof(ctl.b)};
	int fds[TOOLS_NFDS * 2], nfd = 0;
	struct toolpass_msg pm;

	ssize_t n = recvmsg_cloexec(b->pass, &mh, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -1;
	nfd = (int)fd_take(&mh, fds, ARRAY_SIZE(fds));
	if (toolpass_decode(b->buf, (size_t)n, &pm) < 0) {
		/* not a message of the reader's form: nothing to act on */
	} else if (pm.kind == PASS_DENIED) {
		/* a refusal of the reader's own: its text, escaped and cut */
		char t[DB_REASON_MAX], q[DB_REASON_MAX * 4];
		snprintf(t, sizeof(t), "%.*s", (int)pm.len, pm.data);
		broker_log_refused(b, pm.slot == 1 ? "page" : "tool", "?",
				   esc_to(q, sizeof(q), t));
	} else if (pm.kind == PASS_UNTOLD) {
		refusals_shared_count(b->cap, pm.count);
	} else {
		struct call *c = &b->calls[pm.slot];
		if (pm.kind == PASS_CALL && !b->ending && !c->busy &&
		    nfd == TOOLS_NFDS &&
		    !(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
			struct tools_call tc;
			struct lnk_err e = {0};
			c->busy = true;
			if (tools_call_decode_as(PASS_MAGIC, pm.data, pm.len,
						 &tc, &e) < 0) {
				refuse(b, c, "?", e.msg);
			} else {
				start_call(b, c, &tc, fds);
				tools_call_free(&tc);
			}
		} else if (pm.kind == PASS_SIGNAL && c->busy) {
			if (c->pid > 0)
				kill(-c->pid, pm.sig);
			else if (c->asking && ends_call(pm.sig))
				/* Threat: a question left up for a call its
				 * program ended (a timeout's TERM, Ctrl-C):
				 * the person's yes would run what no one
				 * waits for. */
				take_back(b, c,
					  "its call was ended by a signal");
		} else if (pm.kind == PASS_GONE && c->busy) {
			client_gone(b, c);
		}
	}
	for (int k = 0; k < nfd; k++)
		close(fds[k]);
	return 1;
}

static void serve(struct broker *b, int sfd)
{
	/* lifeline, signals, the reader, desktop, and the person's answers:
	 * the answer socket and lnk's terminal prompt (answer.h) */
	enum { N = 6 };
	struct pollfd p[N];

	for (;;) {
		p[0] =
		    (struct pollfd){.fd = b->in->lifeline_fd, .events = POLLIN};
		p[1] = (struct pollfd){.fd = sfd, .events = POLLIN};
		p[2] = (struct pollfd){.fd = b->pass, .events = POLLIN};
		/* The desktop process's answers; a hang-up is its end. */
		p[3] = (struct pollfd){.fd = b->desktop, .events = POLLIN};
		p[4] = (struct pollfd){.fd = b->answers.listen_fd,
				       .events = POLLIN};
		p[5] =
		    (struct pollfd){.fd = b->answers.pipe_fd, .events = POLLIN};
		/* A closed wire is seen within half a second while a call
		 * is open (sweep_closed). */
		int wait = any_asking(b)    ? 200
			   : any_running(b) ? 500
					    : REFUSAL_EVERY_MS;
		if (poll(p, N, wait) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (p[0].revents) {
			/* The sandbox is over. The reader hands a refusal on
			 * before it tells the client, so one the program saw is
			 * queued here: logged now, never a call started. */
			b->ending = true;
			for (int k = 0; k < 4096 && from_reader(b) > 0; k++)
				;
			return;
		}
		if (p[1].revents) {
			while (sigfd_next(sfd) > 0)
				;
			reap(b);
		}
		if (p[3].revents && b->desktop >= 0 &&
		    answer_box_desktop(&b->answers, b->desktop, asks_waiting,
				       b) < 0)
			desktop_gone(b);
		if (p[2].revents && from_reader(b) < 0)
			return; /* the reader is gone: no call can come */
		sweep_closed(b);
		check_asks(b);
		broker_log_summary(b, false);
	}
}

static void broker_main(const struct tools_broker_in *in)
{
	struct broker b = {.in = in, .desktop = -1, .pass = -1};
	struct lnk_err e = {0};
	sigset_t chld;
	pid_t desktop_pid;
	int pair[2];

	/* No PR_SET_PDEATHSIG here: a SIGKILLed lnk closes the lifeline
	 * too, and the broker must live to end its tools' process groups
	 * (a death signal would kill it before it could). */
	for (const int *f = in->close_fds; f && *f != -1; f++)
		close(*f);
	/* The reader first, while this process holds nothing it need not
	 * give it: it keeps the clients' socket and its end of the pair. A
	 * call (256 KiB at most) must fit the pair whole. */
	int sz = 4 * (TOOLS_MAX_CALL + 64);
	if (socketpair_cloexec(AF_UNIX, SOCK_SEQPACKET, 0, pair) < 0 ||
	    setsockopt(pair[0], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz)) < 0 ||
	    setsockopt(pair[1], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)) < 0 ||
	    tools_reader_start(in->listen_fd, pair[1], &b.reader, &e) < 0) {
		_cleanup_free_ char *m =
		    xasprintf("lnk: the tools broker cannot start: %s\n",
			      e.msg[0] ? e.msg : strerror(errno));
		term_write(2, m);
		_exit(125);
	}
	close(pair[1]);
	close(in->listen_fd);
	b.pass = pair[0];
	/* The log's connection now, before the program can call: its setup
	 * is not on a call's way (it is tried again at a call if it fails). */
	(void)broker_log_db(&b, &e);
	b.buf = xmalloc(PASS_HEAD + PASS_CALL_MAX);
	if (!(b.cap = in->cap) && !(b.cap = refusals_shared_new(mono_ms())))
		_exit(125);
	if (!in->shut) {
		b.trip = xmalloc(sizeof(*b.trip));
		trip_init_at(b.trip, in->trip_calls, in->trip_targets);
	}
	if (tools_tops_make(in->writes, in->write_dot_files, &b.tops, &e) < 0 ||
	    ((tools_tops_add_reads(in->grants, &b.tops) < 0 ||
	      tools_pins_make(in->hidden, &b.pins) < 0) &&
	     err_set(&e, -ENOMEM, "out of memory") < 0)) {
		_cleanup_free_ char *m = xasprintf(
		    "lnk: the tools broker cannot start: %s\n", e.msg);
		term_write(2, m);
		_exit(125);
	}
	b.drivers_over = !tools_env(in->env, in->writes, in->grants, &b.env);
	/* The desktop process, whose dialog tool gets the tools'
	 * environment: no search path of the program's folder. */
	struct desktop_in din = {.bus = in->bus,
				 .dialog = in->dialog,
				 .env = b.env.v,
				 .sandbox = in->sandbox,
				 .wait_s = in->ask_wait_s};
	b.can_ask = in->can_ask;
	if (in->bus &&
	    desktop_start(&din, &b.desktop, &desktop_pid) != DESKTOP_NONE)
		b.can_ask = true;
	/* Without its socket, the terminal and the desktop still answer. */
	if (answer_box_open(&b.answers, in->asks_dir, in->sandbox,
			    in->answer_fd, &e) < 0) {
		_cleanup_free_ char *m = xasprintf("lnk: %s\n", e.msg);
		term_write(2, m);
	}
	e = (struct lnk_err){0};
	/* A call's descriptor whose reader is gone must not end the
	 * broker: its tools would outlive the sandbox. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	int sfd = sigfd_open(&chld, COMPAT_NONBLOCK);
	if (sfd < 0)
		_exit(125);
	serve(&b, sfd);
	/* The sandbox is over: every tool still running ends with it, and
	 * every question still waiting is taken back. */
	for (size_t i = 0; i < TOOLS_MAX_CALLS; i++)
		if (b.calls[i].asking) {
			withdraw(&b, b.calls[i].id);
			tell_terminal(&b, 'e', b.calls[i].id, 'g');
			call_end(&b.calls[i]);
		}
	for (size_t i = 0; i < TOOLS_MAX_CALLS; i++)
		if (b.calls[i].pid > 0)
			kill(-b.calls[i].pid, SIGKILL);
	for (size_t i = 0; i < TOOLS_MAX_CALLS; i++)
		if (b.calls[i].pid > 0) {
			int ws;
			while (waitpid(b.calls[i].pid, &ws, 0) < 0 &&
			       errno == EINTR)
				;
			broker_log_end(&b, &b.calls[i], DB_FAILED,
				       "allowed, ended with the sandbox");
			call_end(&b.calls[i]);
		}
	close(b.pass);
	broker_log_summary(&b, true);
	if (b.nolog) {
		char q[DB_WHY_MAX + 16];
		_cleanup_free_ char *m = xasprintf(
		    "lnk: sandbox %s: %llu tool call%s refused: the call log "
		    "could not be written (%s)\n",
		    in->sandbox, (unsigned long long)b.nolog,
		    b.nolog == 1 ? " was" : "s were",
		    esc_to(q, sizeof(q), b.nolog_why));
		term_write(2, m);
	}
	db_close(b.db);
	registry_close(b.reg);
	free(b.trip);
	answer_box_close(&b.answers);
	/* Its end takes back what is still on the screen. */
	if (b.desktop >= 0)
		close(b.desktop);
	if (in->sock_dir)
		tools_unlisten(xstrdup(in->sock_dir));
	_exit(0);
}

int tools_broker_start(const struct tools_broker_in *in, pid_t *pid,
		       struct lnk_err *err)
{
	pid_t p = fork();

	if (p < 0)
		return err_set(err, -errno, "cannot start the tools broker: %s",
			       strerror(errno));
	if (p == 0)
		broker_main(in);
	*pid = p;
	return 0;
}
