/* The desktop process (desktop.h): one poll loop over the broker's socket,
 * the session bus and, with a dialog tool, SIGCHLD. */
#include "tools/desktop.h"

#include <dbus/dbus.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/compat.h"
#include "common/esc.h"
#include "common/util.h"
#include "proto/toolcall.h"
#include "tools/asks.h"
#include "tools/dbus_lib.h"

#define NOTE_NAME "org.freedesktop.Notifications"
#define NOTE_PATH "/org/freedesktop/Notifications"
#define NOTE_IFACE "org.freedesktop.Notifications"
/* How long a call to the notification server may take: a server that
 * hangs must not hold the questions up. */
#define CALL_MS 3000
/* How long the broker waits for the channel, at the sandbox's start. */
#define HELLO_MS 5000
#define MSG_MAX 8192

static const char *env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

/* A D-Bus address for the socket at path: "unix:path=" and the path with
 * every byte but [-0-9A-Za-z_/.\\*] as %XX, as the address syntax
 * escapes values (a ',' or ';' or '=' in the path must not start another
 * key). */
static char *bus_address(const char *path)
{
	static const char hex[] = "0123456789abcdef";
	struct buf b = {0};

	buf_puts(&b, "unix:path=");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if ((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') ||
		    (*c >= 'A' && *c <= 'Z') || strchr("-_/.\\*", *c)) {
			buf_putc(&b, (char)*c);
			continue;
		}
		buf_putc(&b, '%');
		buf_putc(&b, hex[*c >> 4]);
		buf_putc(&b, hex[*c & 15]);
	}
	return buf_steal(&b);
}

char *desktop_session_bus(char *const *env)
{
	const char *d = env_get(env, "DISPLAY");
	const char *w = env_get(env, "WAYLAND_DISPLAY");
	const char *a = env_get(env, "DBUS_SESSION_BUS_ADDRESS");
	const char *run = env_get(env, "XDG_RUNTIME_DIR");
	struct stat st;

	if (!(d && *d) && !(w && *w))
		return NULL;
	if (a && *a)
		return xstrdup(a);
	if (!run || run[0] != '/')
		return NULL;
	/* The bus systemd and dbus-user-session put there: only a socket
	 * of this user's, so that a file someone else left is never our
	 * bus. */
	_cleanup_free_ char *p = xasprintf("%s/bus", run);
	if (lstat(p, &st) < 0 || !S_ISSOCK(st.st_mode) ||
	    st.st_uid != geteuid())
		return NULL;
	return bus_address(p);
}

/* ---- the desktop process ---- */

struct shown {
	char id[ASK_ID_LEN + 1]; /* empty: a free slot */
	uint32_t nid;		 /* the notification, 0 when none */
	char *server;		 /* the unique name that showed it */
	pid_t pid;		 /* the dialog, 0 when none */
};

struct desk {
	const struct desktop_in *in;
	int sock;	    /* the broker's socket */
	struct dbus_lib *L; /* libdbus, opened by this process (dbus_lib.h) */
	DBusConnection *bus;
	enum desktop_channel ch;
	struct shown s[TOOLS_MAX_CALLS];
};

/* The question as the notification's body: < > & as the markup's
 * entities, so a tag or an entity in a tool's arguments shows as it was
 * typed and changes nothing on the screen. The text is ESC_TEXT already
 * (no controls, valid UTF-8); a string that is not valid UTF-8 would make
 * libdbus abort, so that is checked once more. */
static char *markup(const char *s)
{
	struct buf b = {0};

	if (!esc_utf8_valid(s, strlen(s)))
		return xstrdup("(a question lnk cannot show)");
	for (; *s; s++)
		switch (*s) {
		case '<':
			buf_puts(&b, "&lt;");
			break;
		case '>':
			buf_puts(&b, "&gt;");
			break;
		case '&':
			buf_puts(&b, "&amp;");
			break;
		default:
			buf_putc(&b, *s);
		}
	buf_putc(&b, '\0');
	return buf_steal(&b);
}

/* The question id's slot; a free one for "". */
static struct shown *find(struct desk *d, const char *id)
{
	for (size_t i = 0; i < TOOLS_MAX_CALLS; i++)
		if (strcmp(d->s[i].id, id) == 0)
			return &d->s[i];
	return NULL;
}

static void bus_drop(struct desk *d)
{
	if (!d->bus)
		return;
	d->L->dbus_connection_close(d->bus);
	d->L->dbus_connection_unref(d->bus);
	d->bus = NULL;
}

static DBusMessage *call(struct desk *d, DBusMessage *m)
{
	DBusError e;

	if (!m)
		return NULL;
	d->L->dbus_error_init(&e);
	DBusMessage *r = d->L->dbus_connection_send_with_reply_and_block(
	    d->bus, m, CALL_MS, &e);
	d->L->dbus_message_unref(m);
	d->L->dbus_error_free(&e);
	return r;
}

static DBusMessage *note_call(struct desk *d, const char *member)
{
	return d->L->dbus_message_new_method_call(NOTE_NAME, NOTE_PATH,
						  NOTE_IFACE, member);
}

/* The server's capabilities hold "actions": it can show Allow and Deny. */
static bool has_actions(struct desk *d)
{
	DBusMessage *r = call(d, note_call(d, "GetCapabilities"));
	DBusMessageIter it, arr;
	bool yes = false;

	if (!r)
		return false;
	if (d->L->dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_METHOD_RETURN &&
	    d->L->dbus_message_iter_init(r, &it) &&
	    d->L->dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_ARRAY &&
	    d->L->dbus_message_iter_get_element_type(&it) == DBUS_TYPE_STRING) {
		d->L->dbus_message_iter_recurse(&it, &arr);
		while (d->L->dbus_message_iter_get_arg_type(&arr) ==
		       DBUS_TYPE_STRING) {
			const char *cap;
			d->L->dbus_message_iter_get_basic(&arr, &cap);
			if (strcmp(cap, "actions") == 0)
				yes = true;
			d->L->dbus_message_iter_next(&arr);
		}
	}
	d->L->dbus_message_unref(r);
	return yes;
}

static bool bus_open(struct desk *d)
{
	DBusError e;
	struct lnk_err ignored = {0};

	/* Without libdbus there is no bus to show questions on: the dialog
	 * tool, or no desktop channel. */
	if (!d->L && dbus_lib_load(&d->L, &ignored) < 0)
		return false;
	d->L->dbus_error_init(&e);
	d->bus = d->L->dbus_connection_open_private(d->in->bus, &e);
	if (!d->bus) {
		d->L->dbus_error_free(&e);
		return false;
	}
	d->L->dbus_connection_set_exit_on_disconnect(d->bus, FALSE);
	if (!d->L->dbus_bus_register(d->bus, &e) || !has_actions(d)) {
		d->L->dbus_error_free(&e);
		bus_drop(d);
		return false;
	}
	/* The signals of every sender: each is checked against the server
	 * that showed the notification (on_signal). */
	d->L->dbus_bus_add_match(d->bus,
				 "type='signal',interface='" NOTE_IFACE
				 "',path='" NOTE_PATH "'",
				 &e);
	if (d->L->dbus_error_is_set(&e)) {
		d->L->dbus_error_free(&e);
		bus_drop(d);
		return false;
	}
	return true;
}

static void dict_entry(struct desk *d, DBusMessageIter *dict, const char *key,
		       int type, const char *sig, const void *val)
{
	DBusMessageIter ent, var;

	d->L->dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL,
					       &ent);
	d->L->dbus_message_iter_append_basic(&ent, DBUS_TYPE_STRING, &key);
	d->L->dbus_message_iter_open_container(&ent, DBUS_TYPE_VARIANT, sig,
					       &var);
	d->L->dbus_message_iter_append_basic(&var, type, val);
	d->L->dbus_message_iter_close_container(&ent, &var);
	d->L->dbus_message_iter_close_container(dict, &ent);
}

/* Notify: the question, Allow and Deny, critical (it stays until
 * answered) and resident (an action does not remove it before lnk
 * does), for as long as the question waits. */
static void notify(struct desk *d, struct shown *s, const char *title,
		   const char *body)
{
	static const char *const actions[] = {"allow", "Allow", "deny", "Deny"};
	DBusMessage *m = note_call(d, "Notify");
	DBusMessageIter it, arr;
	const char *app = "lnk", *icon = "dialog-question";
	dbus_uint32_t replaces = 0;
	unsigned char urgency = 2;
	dbus_bool_t resident = TRUE;
	dbus_int32_t expire = (dbus_int32_t)d->in->wait_s * 1000;

	if (!m)
		return;
	d->L->dbus_message_iter_init_append(m, &it);
	d->L->dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &app);
	d->L->dbus_message_iter_append_basic(&it, DBUS_TYPE_UINT32, &replaces);
	d->L->dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &icon);
	d->L->dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &title);
	d->L->dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &body);
	d->L->dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "s", &arr);
	for (size_t i = 0; i < ARRAY_SIZE(actions); i++)
		d->L->dbus_message_iter_append_basic(&arr, DBUS_TYPE_STRING,
						     &actions[i]);
	d->L->dbus_message_iter_close_container(&it, &arr);
	d->L->dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}",
					       &arr);
	dict_entry(d, &arr, "urgency", DBUS_TYPE_BYTE, "y", &urgency);
	dict_entry(d, &arr, "resident", DBUS_TYPE_BOOLEAN, "b", &resident);
	d->L->dbus_message_iter_close_container(&it, &arr);
	d->L->dbus_message_iter_append_basic(&it, DBUS_TYPE_INT32, &expire);

	DBusMessage *r = call(d, m);
	dbus_uint32_t nid = 0;
	DBusError e;
	d->L->dbus_error_init(&e);
	if (r &&
	    d->L->dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_METHOD_RETURN &&
	    d->L->dbus_message_get_args(r, &e, DBUS_TYPE_UINT32, &nid,
					DBUS_TYPE_INVALID) &&
	    nid && d->L->dbus_message_get_sender(r)) {
		s->nid = nid;
		s->server = xstrdup(d->L->dbus_message_get_sender(r));
	}
	d->L->dbus_error_free(&e);
	if (r)
		d->L->dbus_message_unref(r);
}

static void close_note(struct desk *d, struct shown *s)
{
	if (!s->nid || !d->bus)
		return;
	DBusMessage *m = note_call(d, "CloseNotification");
	dbus_uint32_t nid = s->nid;
	if (m && d->L->dbus_message_append_args(m, DBUS_TYPE_UINT32, &nid,
						DBUS_TYPE_INVALID)) {
		d->L->dbus_message_set_no_reply(m, TRUE);
		d->L->dbus_connection_send(d->bus, m, NULL);
		d->L->dbus_connection_flush(d->bus);
	}
	if (m)
		d->L->dbus_message_unref(m);
	s->nid = 0;
}

/* The dialog tool, as the user, with the tools' environment (lnk's, its
 * search paths' relative entries dropped), in "/": its buttons are
 * Allow and Deny, and it gives up when the question expires. Everything
 * is built before the fork. */
static void dialog(struct desk *d, struct shown *s, const char *title,
		   const char *body, const char *question, const char *tail)
{
	const char *tool = d->in->dialog;
	const char *base = strrchr(tool, '/') ? strrchr(tool, '/') + 1 : tool;
	struct strv argv = {0};

	strv_push(&argv, tool);
	if (strcmp(base, "kdialog") == 0) {
		/* Qt shows the entities of rich text as the characters they
		 * stand for; <qt> makes the text rich text, where lines and
		 * spaces would run together: the question is <pre>, its
		 * lines and indentation kept. */
		strv_push(&argv, "--title");
		strv_push(&argv, title);
		strv_push(&argv, "--yes-label");
		strv_push(&argv, "Allow");
		strv_push(&argv, "--no-label");
		strv_push(&argv, "Deny");
		strv_push(&argv, "--yesno");
		strv_pushf(&argv, "<qt><pre>%s</pre><p>%s</p></qt>", question,
			   tail);
	} else {
		strv_push(&argv, "--question");
		strv_pushf(&argv, "--title=%s", title);
		strv_pushf(&argv, "--text=%s", body);
		strv_push(&argv, "--ok-label=Allow");
		strv_push(&argv, "--cancel-label=Deny");
		strv_pushf(&argv, "--timeout=%u", d->in->wait_s);
	}
	pid_t p = fork();
	if (p == 0) {
		sigset_t none;
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 ||
		    dup2(nul, 2) < 0)
			_exit(125);
		close_from(3);
		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execve(tool, argv.v,
		       d->in->env ? d->in->env : (char *[]){NULL});
		_exit(127);
	}
	strv_free(&argv);
	if (p > 0)
		s->pid = p;
}

static void forget(struct shown *s)
{
	free(s->server);
	memset(s, 0, sizeof(*s));
}

static void show(struct desk *d, const char *id, const char *question)
{
	struct shown *s = find(d, "");

	if (!s || !id[0] || find(d, id))
		return;
	snprintf(s->id, sizeof(s->id), "%s", id);
	_cleanup_free_ char *name = esc_dup(d->in->sandbox);
	_cleanup_free_ char *title =
	    xasprintf("lnk: sandbox %s asks to run, outside", name);
	/* The question's lines as they are (question.h: bounded, each
	 * argument on a numbered line), then what the buttons do. */
	_cleanup_free_ char *q = markup(question);
	size_t ql = strlen(q);
	while (ql && q[ql - 1] == '\n')
		q[--ql] = '\0';
	_cleanup_free_ char *tail =
	    xasprintf("Allow runs it once. Deny, or no answer within %u s, "
		      "refuses it.",
		      d->in->wait_s);
	_cleanup_free_ char *body = xasprintf("%s\n\n%s", q, tail);
	if (d->ch == DESKTOP_NOTIFY && d->bus)
		notify(d, s, title, body);
	else if (d->ch == DESKTOP_DIALOG)
		dialog(d, s, title, body, q, tail);
}

static void take_back(struct desk *d, struct shown *s)
{
	close_note(d, s);
	if (s->pid > 0)
		kill(s->pid, SIGTERM);
	forget(s);
}

/* The answer given on the screen, to the broker: the line is shorter
 * than a message, so it goes whole or not at all. */
static void answer(struct desk *d, struct shown *s, bool yes)
{
	char m[16];
	int n = snprintf(m, sizeof(m), "%c %s\n", yes ? 'y' : 'n', s->id);

	(void)send(d->sock, m, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* A signal of the notification server's: an action answers its question,
 * a notification closed without one leaves the question waiting. Only
 * the server that showed a notification speaks for it. */
static void on_signal(struct desk *d, DBusMessage *m)
{
	DBusError e;
	dbus_uint32_t nid = 0, reason = 0;
	const char *key = NULL, *from = d->L->dbus_message_get_sender(m);
	struct shown *s = NULL;
	bool action =
	    d->L->dbus_message_is_signal(m, NOTE_IFACE, "ActionInvoked");
	bool closed =
	    d->L->dbus_message_is_signal(m, NOTE_IFACE, "NotificationClosed");

	if (!action && !closed)
		return;
	d->L->dbus_error_init(&e);
	if (action ? !d->L->dbus_message_get_args(m, &e, DBUS_TYPE_UINT32, &nid,
						  DBUS_TYPE_STRING, &key,
						  DBUS_TYPE_INVALID)
		   : !d->L->dbus_message_get_args(m, &e, DBUS_TYPE_UINT32, &nid,
						  DBUS_TYPE_UINT32, &reason,
						  DBUS_TYPE_INVALID)) {
		d->L->dbus_error_free(&e);
		return;
	}
	for (size_t i = 0; i < TOOLS_MAX_CALLS && nid; i++)
		if (d->s[i].id[0] && d->s[i].nid == nid && from &&
		    d->s[i].server && strcmp(d->s[i].server, from) == 0)
			s = &d->s[i];
	if (!s)
		return;
	if (closed) {
		s->nid = 0; /* gone from the screen: nothing to close */
		return;
	}
	if (strcmp(key, "allow") == 0)
		answer(d, s, true);
	else if (strcmp(key, "deny") == 0)
		answer(d, s, false);
}

/* The signals libdbus holds: read from the socket now, or while a call
 * waited for its reply (then the socket shows nothing new). */
static void bus_drain(struct desk *d)
{
	DBusMessage *m;

	while (d->bus && (m = d->L->dbus_connection_pop_message(d->bus))) {
		if (d->L->dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_SIGNAL)
			on_signal(d, m);
		d->L->dbus_message_unref(m);
	}
}

static void bus_read(struct desk *d)
{
	if (!d->bus)
		return;
	if (!d->L->dbus_connection_read_write(d->bus, 0) ||
	    !d->L->dbus_connection_get_is_connected(d->bus)) {
		/* The bus is gone: the questions keep waiting on the
		 * other channels. */
		bus_drop(d);
		return;
	}
	bus_drain(d);
}

/* A dialog's end: Allow (0) is yes, Deny (1) is no; its timeout or any
 * failure answers nothing. */
static void reap(struct desk *d)
{
	int ws;
	pid_t p;

	while ((p = waitpid(-1, &ws, WNOHANG)) > 0)
		for (size_t i = 0; i < TOOLS_MAX_CALLS; i++) {
			struct shown *s = &d->s[i];
			if (!s->id[0] || s->pid != p)
				continue;
			s->pid = 0;
			if (WIFEXITED(ws) && WEXITSTATUS(ws) <= 1)
				answer(d, s, WEXITSTATUS(ws) == 0);
		}
}

/* One message of the broker's; false when it is gone. */
static bool broker_says(struct desk *d, int sock, char *m)
{
	ssize_t n = recv(sock, m, MSG_MAX, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (n <= 0)
		return false;
	m[n] = '\0';
	if (n < 1 + ASK_ID_LEN)
		return true;
	char id[ASK_ID_LEN + 1];
	memcpy(id, m + 1, ASK_ID_LEN);
	id[ASK_ID_LEN] = '\0';
	if (!asks_id_ok(id))
		return true;
	if (m[0] == 'A') {
		show(d, id, m + 1 + ASK_ID_LEN);
	} else if (m[0] == 'W') {
		struct shown *s = find(d, id);
		if (s)
			take_back(d, s);
	}
	return true;
}

static void serve(struct desk *d, int sock, int sfd)
{
	char *m = xmalloc(MSG_MAX + 1);

	for (;;) {
		struct pollfd p[3] = {{.fd = sock, .events = POLLIN},
				      {.fd = sfd, .events = POLLIN},
				      {.fd = -1, .events = POLLIN}};
		int bfd = -1;
		bus_drain(d);
		if (d->bus && d->L->dbus_connection_get_unix_fd(d->bus, &bfd))
			p[2].fd = bfd;
		if (poll(p, 3, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents) {
			while (sigfd_next(sfd) > 0)
				;
			reap(d);
		}
		if (p[2].revents)
			bus_read(d);
		/* Notifications without a bus: no channel left. */
		if (d->ch == DESKTOP_NOTIFY && !d->bus)
			break;
		if (p[0].revents && !broker_says(d, sock, m))
			break;
	}
	free(m);
	/* The sandbox is over: nothing of it stays on the screen. */
	for (size_t i = 0; i < TOOLS_MAX_CALLS; i++)
		if (d->s[i].id[0])
			take_back(d, &d->s[i]);
	bus_drop(d);
}

static void desktop_main(const struct desktop_in *in, int sock)
{
	struct desk d = {.in = in};
	sigset_t chld;

	/* Nothing of the broker's but this socket: no client's descriptor,
	 * no listening socket. */
	if (sock != 3) {
		if (dup_cloexec_to(sock, 3) < 0)
			_exit(0);
		sock = 3;
	}
	close_from(4);
	d.sock = sock;
	/* Nothing of the program's folder: the dialog tool runs in "/",
	 * where a relative search path (GTK's modules, the loader's) finds
	 * nothing a sandbox wrote. */
	if (chdir("/") < 0)
		_exit(0);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	int sfd = sigfd_open(&chld, COMPAT_NONBLOCK);

	if (bus_open(&d))
		d.ch = DESKTOP_NOTIFY;
	else if (in->dialog && sfd >= 0)
		d.ch = DESKTOP_DIALOG;
	char hello[2] = {'H', d.ch == DESKTOP_NOTIFY   ? 'n'
			      : d.ch == DESKTOP_DIALOG ? 'd'
						       : '-'};
	if (send(sock, hello, sizeof(hello), MSG_NOSIGNAL) < 0 ||
	    d.ch == DESKTOP_NONE)
		_exit(0);
	serve(&d, sock, sfd);
	_exit(0);
}

enum desktop_channel desktop_start(const struct desktop_in *in, int *fd,
				   pid_t *pid)
{
	int sv[2];

	*fd = -1;
	*pid = 0;
	if (!in->bus || socketpair_cloexec(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0)
		return DESKTOP_NONE;
	pid_t p = fork();
	if (p == 0) {
		close(sv[0]);
		desktop_main(in, sv[1]);
	}
	close(sv[1]);
	if (p < 0) {
		close(sv[0]);
		return DESKTOP_NONE;
	}
	struct pollfd pf = {.fd = sv[0], .events = POLLIN};
	char hello[2] = {0};
	int r;
	while ((r = poll(&pf, 1, HELLO_MS)) < 0 && errno == EINTR)
		;
	if (r == 1 && recv(sv[0], hello, sizeof(hello), MSG_DONTWAIT) == 2 &&
	    hello[0] == 'H' && (hello[1] == 'n' || hello[1] == 'd')) {
		*fd = sv[0];
		*pid = p;
		return hello[1] == 'n' ? DESKTOP_NOTIFY : DESKTOP_DIALOG;
	}
	/* No channel, or no word in time: nothing is left running. */
	close(sv[0]);
	kill(p, SIGKILL);
	while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
		;
	return DESKTOP_NONE;
}

static int say(int fd, char kind, const char *id, const char *text)
{
	size_t n = text ? strlen(text) : 0;

	if (fd < 0 || !asks_id_ok(id))
		return 0;
	if (n > MSG_MAX - 1 - ASK_ID_LEN)
		n = MSG_MAX - 1 - ASK_ID_LEN;
	char *m = xmalloc(1 + ASK_ID_LEN + n);
	m[0] = kind;
	memcpy(m + 1, id, ASK_ID_LEN);
	if (n)
		memcpy(m + 1 + ASK_ID_LEN, text, n);
	ssize_t w =
	    send(fd, m, 1 + ASK_ID_LEN + n, MSG_NOSIGNAL | MSG_DONTWAIT);
	int r = w < 0 && (errno == EPIPE || errno == ECONNRESET) ? -EPIPE : 0;
	free(m);
	return r;
}

int desktop_ask(int fd, const char *id, const char *question)
{
	return say(fd, 'A', id, question);
}

int desktop_withdraw(int fd, const char *id)
{
	return say(fd, 'W', id, NULL);
}
