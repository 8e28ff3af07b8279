/* Questions asked on the terminal the sandbox started from (askterm.h).
 *
 * The channel from the broker is a pipe, not inotify on the asks folder:
 * only the broker (forked by lnk, outside) holds its write end, so nothing
 * inside the sandbox can put a question or an ending in it; it carries the
 * questions of this sandbox only (the asks folder holds every sandbox's of
 * this user); it says how a question ended elsewhere (answered, expired,
 * its call gone) where a vanished file would not; and it hangs up when the
 * broker dies. What it carries is an id and one letter; the question's
 * text is read from the asks folder, which no sandbox reaches.
 *
 * Lines on the pipe: "a ID" a question, "e ID X" its end, X one of y
 * (allowed), n (refused), t (no answer in time), g (its call went away).
 * The answer typed goes back on a second pipe, whose only writer is this
 * process: "y ID" or "n ID" (tools/answer.h). No file is an answer.
 *
 * The question is laid out to fit lnk's terminal (its size from the
 * terminal, 80x24 when unknown): the sandbox's line, the question's first
 * line (the tool and its first argument), the arguments, each after its
 * number (folded again when the rows are too few), then the call restated
 * (tool, argument count, folder) beside the code, all on the screen
 * together. No row is longer than the terminal is wide: a longer one is
 * cut with "...", never wrapped, so no text of the program's starts a
 * row of its own where lnk's lines stand. */
#include "launch/askterm.h"

#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/util.h"
#include "tools/asks.h"
#include "tools/question.h"

/* Letters that cannot be taken for a digit or for one another (no b g i
 * l o q s u v z): sixteen, so a random byte picks one without bias. */
static const char code_letters[] = "acdefhjkmnprtwxy";
#define CODE_LEN 4
#define TYPED_MAX 16
#define QUEUE_MAX 64
/* The broker looks for answers five times a second: its own ending of an
 * expired question comes first, and this is the fallback. */
#define LATE_GRACE_MS 2000
/* Before a question: CAN ends an escape sequence or string left open (an
 * OSC would swallow the question); SGR 0 undoes a colour or invisible
 * text; SI and ESC ( B put back ASCII (line drawing garbles the code);
 * the scroll region is the whole screen again, the cursor kept where it
 * was (a region of three lines would scroll the question away under a
 * fake one drawn above); autowrap on (off, the arguments past the margin
 * are unseen); the cursor shown, replace mode; then a new line and the
 * rest of the screen cleared, so no text the program drew further along
 * those lines reads as part of the question. The default colours, the
 * palette and the cursor's colour are reset first (OSC 110, 111, 104,
 * 112): SGR 0 goes back to the default colours, which the program may
 * have set to black on black (OSC 10, 11). */
#define TERM_SANE                                                              \
	"\030\033]110\007\033]111\007\033]104\007\033]112\007\033[0m\017\033(" \
	"B\0337\033[r\0338\033[?7h\033[?25h\033[4l\r\n\033[J"

struct askterm {
	int fd, out;
	int answer_fd; /* the answers typed, to the broker, or -1 */
	char *dir;
	char line[128]; /* a line from the pipe, not yet whole */
	size_t linelen;
	/* The question up, or id[0] == 0. */
	char id[ASK_ID_LEN + 1];
	int64_t expires_ms;
	char code[CODE_LEN + 1];
	/* the call, as the row the code is typed on names it (show_typed):
	 * the whole call when its words fit, else its summary */
	char call[1024], summary[512];
	char typed[TYPED_MAX];
	size_t ntyped;
	/* The questions waiting their turn, oldest first. */
	char queue[QUEUE_MAX][ASK_ID_LEN + 1];
	size_t nqueue;
	struct buf held;
	/* The pipe was seen readable once and left unread (askterm_readable
	 * says why). */
	bool waited;
	bool ending; /* askterm_finish: no new question is put up */
};

static void say(struct askterm *a, const char *s)
{
	write_all(a->out, s, strlen(s));
}

struct askterm *askterm_new(int fd, const char *asks_dir, int out,
			    int answer_fd)
{
	struct askterm *a = xcalloc(1, sizeof(*a));
	a->fd = fd;
	a->out = out;
	a->answer_fd = answer_fd;
	a->dir = xstrdup(asks_dir);
	return a;
}

int askterm_fd(const struct askterm *a)
{
	return a ? a->fd : -1;
}

bool askterm_asking(const struct askterm *a)
{
	return a && a->id[0];
}

size_t askterm_hold_room(const struct askterm *a)
{
	if (!askterm_asking(a) || a->held.len >= ASKTERM_HOLD_MAX)
		return 0;
	return ASKTERM_HOLD_MAX - a->held.len;
}

void askterm_hold(struct askterm *a, const char *p, size_t n)
{
	if (a)
		buf_append(&a->held, p, n);
}

static void new_code(char code[CODE_LEN + 1])
{
	unsigned char r[CODE_LEN] = {0};
	/* getentropy (Linux's getrandom, also on macOS) waits only for the
	 * pool at boot; should it fail, the code is empty, which nothing
	 * typed matches: refused. */
	bool ok = getentropy(r, sizeof(r)) == 0;

	for (size_t i = 0; i < CODE_LEN; i++)
		code[i] = code_letters[r[i] % (sizeof(code_letters) - 1)];
	code[ok ? CODE_LEN : 0] = '\0';
	explicit_bzero(r, sizeof(r));
}

static void term_size(int fd, size_t *rows, size_t *cols);
static const char *length_said(const char *s, size_t n);

/* The row the code is typed on, drawn again at each key: it names the
 * call itself. Threat: lnk's own lines that come while the question is
 * up are not held (the guard's refusals, the wire's: their number and
 * timing the program chooses) and can scroll the question away; with
 * rows drawn to read as another call's just above, the person would type
 * the code under a call that is not the one it allows. Whatever was
 * printed since, the row the code goes on says which call it allows:
 * the whole call when it fits the terminal, else its tool, first
 * argument and count. */
static void show_typed(struct askterm *a)
{
	size_t rows, cols;
	term_size(a->out, &rows, &cols);
	size_t fixed = strlen("lnk: code for : ") + TYPED_MAX;
	const char *call = a->call;
	if (question_cols(call, strlen(call)) + fixed > cols)
		call = a->summary;
	size_t n = strlen(call);
	size_t room = cols > fixed ? cols - fixed : 0;
	struct buf b = {0};
	buf_puts(&b, "\r\x1b[2Klnk: code for ");
	if (question_cols(call, n) <= room || room < 12) {
		buf_append(&b, call, question_fit(call, n, room));
	} else {
		/* its end says how many arguments: cut in its middle */
		size_t head = question_fit(call, n, (room - 5) / 2);
		size_t tail =
		    question_fit_tail(call, n, room - 5 - (room - 5) / 2);
		buf_append(&b, call, head);
		buf_puts(&b, "[...]");
		buf_append(&b, call + tail, n - tail);
	}
	buf_puts(&b, ": ");
	buf_append(&b, a->typed, a->ntyped);
	write_all(a->out, b.p, b.len);
	buf_free(&b);
}

/* The call's words from the question (escaped by asks_get): the tool,
 * then each argument's row ("  2  word"); "" when a row is folded or
 * cut, so that only a whole call is named whole. */
static void call_words(const char *question, const char *summary, char *out,
		       size_t cap)
{
	struct buf b = {0};
	bool whole = true;
	size_t tl = strcspn(summary, " ");
	buf_append(&b, summary, tl);
	const char *p = strchr(question, '\n');
	while (p && *++p) {
		size_t k = strcspn(p, "\n");
		const char *w = p;
		while (w < p + k && *w == ' ')
			w++;
		const char *d = w;
		while (w < p + k && *w >= '0' && *w <= '9')
			w++;
		if (w == d || w + 2 > p + k || w[0] != ' ' || w[1] != ' ' ||
		    length_said(p, k))
			whole = false;
		else {
			buf_putc(&b, ' ');
			buf_append(&b, w + 2, (size_t)(p + k - w - 2));
		}
		p += k;
		if (!*p)
			break;
	}
	buf_putc(&b, '\0');
	snprintf(out, cap, "%s", whole && b.len < cap ? b.p : "");
	buf_free(&b);
}

/* Where the length an argument cut by question.c says ("... (N bytes in
 * all)") starts in the row s, or NULL: a row cut to the terminal keeps
 * it, so that two arguments cut alike never look the same. */
static const char *length_said(const char *s, size_t n)
{
	static const char end[] = " bytes in all)";
	size_t el = sizeof(end) - 1;

	if (n < el + 5 || memcmp(s + n - el, end, el) != 0)
		return NULL;
	for (size_t i = n - el; i >= 5; i--)
		if (memcmp(s + i - 5, "... (", 5) == 0)
			return s + i - 5;
	return NULL;
}

/* Whether s is an argument's row of the question ("  2  'a b'"). */
static bool argument_row(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] == ' ')
		i++;
	size_t d = i;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i > d && i + 2 < n && s[i] == ' ' && s[i + 1] == ' ';
}

/* One row of the screen: s (printable, from asks_get or lnk's own words)
 * cut to cols columns when longer, never wrapped: with "...", and with
 * what says how much is cut (length_said, argument_row) kept or added. */
static void row(struct buf *b, const char *s, size_t n, size_t cols)
{
	const char *len = length_said(s, n);
	size_t ll = len ? (size_t)(s + n - len) : 0;

	if (question_cols(s, n) <= cols) {
		buf_append(b, s, n);
	} else if (len && question_cols(len, ll) + 8 < cols) {
		buf_append(b, s,
			   question_fit(s, (size_t)(len - s),
					cols - question_cols(len, ll)));
		buf_append(b, len, ll);
	} else if (argument_row(s, n) && cols > 40) {
		/* cut here first: says how much is not shown */
		size_t keep = question_fit(s, n, cols - 28);
		buf_append(b, s, keep);
		buf_printf(b, "... (%zu more bytes)", n - keep);
	} else {
		buf_append(b, s, question_fit(s, n, cols > 3 ? cols - 3 : 0));
		buf_puts(b, "...");
	}
	buf_puts(b, "\r\n");
}

/* A row whose end matters as much as its start (a folder): cut in its
 * middle, marked "[...]". */
static void row_mid(struct buf *b, const char *s, size_t n, size_t cols)
{
	if (question_cols(s, n) <= cols || cols < 12) {
		row(b, s, n, cols);
		return;
	}
	size_t head = question_fit(s, n, (cols - 5) / 2);
	size_t tail = question_fit_tail(s, n, cols - 5 - (cols - 5) / 2);
	buf_append(b, s, head);
	buf_puts(b, "[...]");
	buf_append(b, s + tail, n - tail);
	buf_puts(b, "\r\n");
}

/* The terminal's size, 80x24 when unknown; one column is left free, so
 * that a full row never leaves the cursor waiting to wrap. */
static void term_size(int fd, size_t *rows, size_t *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
	*cols = *cols > 20 ? *cols - 1 : 19;
}

/* lnk's rows around the question: the sandbox's line before it, the
 * call restated (two rows: the call, its folder), the code, another
 * shell's way and the code typed after it, and the blank row TERM_SANE
 * leaves. */
#define ROWS_OF_LNK 7

/* The question's lines on the screen: the first always, then as many of
 * the others as fit in the rows left, the ones that do not said in one
 * row in their middle. */
static void body(struct buf *b, const char *q, size_t rows, size_t cols)
{
	const char *line[ASK_LINES_MAX + 1];
	size_t len[ASK_LINES_MAX + 1], n = 0;

	for (const char *p = q; *p && n < ASK_LINES_MAX + 1;) {
		size_t k = strcspn(p, "\n");
		line[n] = p;
		len[n++] = k;
		p += k;
		if (*p)
			p++;
	}
	if (!n)
		return;
	row(b, line[0], len[0], cols);
	size_t room = rows > ROWS_OF_LNK + 1 ? rows - ROWS_OF_LNK - 1 : 1;
	if (n - 1 <= room) {
		for (size_t i = 1; i < n; i++)
			row(b, line[i], len[i], cols);
		return;
	}
	/* room - 1 lines shown around the fold: the first ones (the first
	 * argument is the call's verb) and the last ones */
	size_t head = room > 1 ? room / 2 : 0;
	size_t tail = room > 1 ? room - 1 - head : 0;
	for (size_t i = 1; i <= head; i++)
		row(b, line[i], len[i], cols);
	_cleanup_free_ char *fold = xasprintf(
	    "  ... %zu more lines of the question not shown here (the "
	    "terminal is too small) ...",
	    n - 1 - head - tail);
	row(b, fold, strlen(fold), cols);
	for (size_t i = n - tail; i < n; i++)
		row(b, line[i], len[i], cols);
}

/* Puts the oldest waiting question up, if none is. */
static void next(struct askterm *a)
{
	while (!a->id[0] && a->nqueue) {
		char id[ASK_ID_LEN + 1];
		struct ask q;
		size_t rows, cols;
		memcpy(id, a->queue[0], sizeof(id));
		memmove(a->queue[0], a->queue[1],
			--a->nqueue * sizeof(a->queue[0]));
		if (asks_get(a->dir, id, &q) < 0)
			continue; /* ended before its turn */
		int64_t left = q.expires_ms - asks_now_ms();
		if (left <= 0) {
			ask_clear(&q);
			continue;
		}
		memcpy(a->id, id, sizeof(id));
		a->expires_ms = q.expires_ms;
		a->ntyped = 0;
		/* The call and its folder: the summary ends with ", in "
		 * and the folder, lnk's own, split there by its length;
		 * never at a "), in " an argument before it holds. */
		size_t call_len = strlen(q.summary);
		const char *dir = NULL;
		if (q.folder) {
			size_t fl = strlen(q.folder) + strlen(", in ");
			if (call_len > fl &&
			    strncmp(q.summary + call_len - fl, ", in ", 5) ==
				0 &&
			    strcmp(q.summary + call_len - fl + 5, q.folder) ==
				0) {
				call_len -= fl;
				dir = q.folder;
			}
		}
		{
			snprintf(a->summary, sizeof(a->summary), "%.*s",
				 (int)call_len, q.summary);
			call_words(q.question, a->summary, a->call,
				   sizeof(a->call));
			if (!a->call[0])
				snprintf(a->call, sizeof(a->call), "%s",
					 a->summary);
		}
		new_code(a->code);
		term_size(a->out, &rows, &cols);
		/* The question and the sandbox's name are escaped
		 * (asks_get); what comes first undoes the state the
		 * program's output left, which could show the code and hide
		 * the question. */
		struct buf b = {0};
		buf_puts(&b, TERM_SANE);
		_cleanup_free_ char *l1 = xasprintf(
		    "lnk: sandbox %s asks to run, outside, as you:", q.sandbox);
		row(&b, l1, strlen(l1), cols);
		body(&b, q.question, rows, cols);
		/* The summary's folder on a row of its own, so that a narrow
		 * terminal cuts neither the call nor the folder away. */
		_cleanup_free_ char *l2 =
		    xasprintf("lnk: run %.*s", (int)call_len, q.summary);
		row(&b, l2, strlen(l2), cols);
		if (dir) {
			_cleanup_free_ char *drow =
			    xasprintf("lnk:   in %s", dir);
			row_mid(&b, drow, strlen(drow), cols);
		}
		_cleanup_free_ char *l3 = xasprintf(
		    "lnk: to allow it once, type the code %s and Enter within "
		    "%lld s (Esc: no)",
		    a->code, (long long)((left + 999) / 1000));
		row(&b, l3, strlen(l3), cols);
		_cleanup_free_ char *l4 = xasprintf(
		    "lnk: or from another shell: lnk sandbox answer %s yes "
		    "(or no)",
		    id);
		row(&b, l4, strlen(l4), cols);
		write_all(a->out, b.p, b.len);
		buf_free(&b);
		ask_clear(&q);
		show_typed(a);
	}
}

/* Takes the question down with how it ended, shows what the program wrote
 * meanwhile, and puts up the next one. */
static void end(struct askterm *a, const char *how)
{
	_cleanup_free_ char *m =
	    xasprintf("\r\x1b[2Klnk: %s (question %s)\r\n", how, a->id);
	say(a, m);
	explicit_bzero(a->code, sizeof(a->code));
	explicit_bzero(a->typed, sizeof(a->typed));
	a->ntyped = 0;
	a->id[0] = '\0';
	if (a->held.len)
		write_all(a->out, a->held.p, a->held.len);
	buf_free(&a->held);
	next(a);
}

static bool code_typed(const struct askterm *a)
{
	if (a->ntyped != CODE_LEN || !a->code[0])
		return false;
	for (size_t i = 0; i < CODE_LEN; i++) {
		char c = a->typed[i];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != a->code[i])
			return false;
	}
	return true;
}

/* Enter, or Esc (yes = false, at once): the answer goes to the broker
 * on lnk's own pipe; the first answer counts, so one from elsewhere may
 * have come first (the broker then keeps that one). */
static void answer(struct askterm *a, bool yes, const char *how)
{
	char m[16];
	int n = snprintf(m, sizeof(m), "%c %s\n", yes ? 'y' : 'n', a->id);

	/* a line is shorter than PIPE_BUF: written whole or not at all */
	if (a->answer_fd < 0 || write(a->answer_fd, m, (size_t)n) != n)
		end(a, "the answer did not reach the sandbox's tools; answer "
		       "from another shell");
	else
		end(a, how);
}

void askterm_keys(struct askterm *a, const char *p, size_t n)
{
	for (size_t i = 0; askterm_asking(a) && i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c == '\r' || c == '\n') {
			if (code_typed(a))
				answer(a, true, "allowed once");
			else
				answer(a, false,
				       "refused: that is not the code");
			return; /* the rest was typed for this question */
		}
		if (c == 0x1b || c == 0x03 || c == 0x04) {
			answer(a, false, "refused");
			return;
		}
		if ((c == 0x7f || c == 0x08) && a->ntyped) {
			a->ntyped--;
		} else if (((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9')) &&
			   a->ntyped < TYPED_MAX) {
			a->typed[a->ntyped++] = (char)c;
		} else {
			continue;
		}
		show_typed(a);
	}
}

static bool take_line(struct askterm *a, const char *l)
{
	char id[ASK_ID_LEN + 1];

	if (strlen(l) < 2 + ASK_ID_LEN || l[1] != ' ')
		return false;
	memcpy(id, l + 2, ASK_ID_LEN);
	id[ASK_ID_LEN] = '\0';
	if (!asks_id_ok(id))
		return false;
	if (l[0] == 'a' && l[2 + ASK_ID_LEN] == '\0') {
		if (a->ending)
			return true; /* the sandbox ended: nothing more is asked */
		if (a->nqueue < QUEUE_MAX)
			memcpy(a->queue[a->nqueue++], id, sizeof(id));
		next(a);
		return true;
	}
	if (l[0] != 'e' || l[2 + ASK_ID_LEN] != ' ')
		return false;
	for (size_t i = 0; i < a->nqueue; i++)
		if (strcmp(a->queue[i], id) == 0) {
			memmove(a->queue[i], a->queue[i + 1],
				(a->nqueue - i - 1) * sizeof(a->queue[0]));
			a->nqueue--;
			break;
		}
	if (strcmp(a->id, id) != 0)
		return true; /* not up: answered here, or not shown yet */
	switch (l[3 + ASK_ID_LEN]) {
	case 'y':
		end(a, "answered elsewhere: allowed once");
		break;
	case 'n':
		end(a, "answered elsewhere: refused");
		break;
	case 't':
		end(a, "no answer in time, which counts as no");
		break;
	default:
		end(a, "withdrawn: its call went away");
		break;
	}
	return true;
}

static bool read_pipe(struct askterm *a);

void askterm_readable(struct askterm *a)
{
	if (!a || a->fd < 0)
		return;
	/* lnk's loop reads this pipe before the program's pty: what the
	 * program wrote before its call, already in the pty when the
	 * question comes, would be held and shown after it. So the pipe is
	 * read one turn later (it stays readable, so that turn comes at
	 * once), after the pty has been read. */
	if (!a->waited) {
		a->waited = true;
		return;
	}
	a->waited = false;
	read_pipe(a);
}

/* One read of the broker's pipe, its whole lines taken. false when
 * nothing more is there now. */
static bool read_pipe(struct askterm *a)
{
	char b[512];
	ssize_t n = read(a->fd, b, sizeof(b));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	if (n <= 0) {
		/* The broker is gone: so is every question it asked. */
		close(a->fd);
		a->fd = -1;
		a->nqueue = 0;
		if (askterm_asking(a))
			end(a, "withdrawn: the sandbox's tools ended");
		return false;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (b[i] != '\n') {
			if (a->linelen < sizeof(a->line) - 1)
				a->line[a->linelen++] = b[i];
			continue;
		}
		a->line[a->linelen] = '\0';
		take_line(a, a->line);
		a->linelen = 0;
	}
	return true;
}

int askterm_timeout_ms(const struct askterm *a)
{
	if (!askterm_asking(a))
		return -1;
	int64_t left = a->expires_ms + LATE_GRACE_MS - asks_now_ms();
	return left <= 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

void askterm_tick(struct askterm *a)
{
	if (askterm_asking(a) && askterm_timeout_ms(a) == 0)
		end(a, "no answer in time, which counts as no");
}

void askterm_finish(struct askterm *a)
{
	if (!a)
		return;
	/* what the broker said before the program ended (it tells the
	 * terminal how a question ended before it answers the call) is
	 * said first: a question that expired or was answered is not
	 * called withdrawn */
	a->ending = true;
	a->nqueue = 0;
	for (int i = 0; a->fd >= 0 && i < 64 && read_pipe(a); i++) {
	}
	if (askterm_asking(a))
		end(a, "withdrawn: the sandbox ended");
}

void askterm_free(struct askterm *a)
{
	if (!a)
		return;
	askterm_finish(a);
	if (a->fd >= 0)
		close(a->fd);
	if (a->answer_fd >= 0)
		close(a->answer_fd);
	buf_free(&a->held);
	free(a->dir);
	free(a);
}
