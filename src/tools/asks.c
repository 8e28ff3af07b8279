/* Questions recorded for `asks` and `answer` (asks.h). */
#include "tools/asks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"
#include "store/paths.h"
#include "store/registry.h"
#include "toml/toml.h"

char *asks_dir(const char *home)
{
	_cleanup_free_ char *d = paths_sandbox_dir(home);
	return xasprintf("%s/asks", d);
}

int64_t asks_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void asks_new_id(char id[ASK_ID_LEN + 1])
{
	static const char set[] = "abcdefghijkmnpqrstuvwxyz23456789";
	unsigned char r[ASK_ID_LEN];

	if (getentropy(r, sizeof(r)) != 0)
		for (size_t i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)(rand() ^ (int)asks_now_ms());
	for (size_t i = 0; i < ASK_ID_LEN; i++)
		id[i] = set[r[i] % (sizeof(set) - 1)];
	id[ASK_ID_LEN] = '\0';
}

bool asks_id_ok(const char *id)
{
	if (strlen(id) != ASK_ID_LEN)
		return false;
	for (size_t i = 0; i < ASK_ID_LEN; i++)
		if (!((id[i] >= 'a' && id[i] <= 'z') ||
		      (id[i] >= '0' && id[i] <= '9')))
			return false;
	return true;
}

static char *file(const char *dir, const char *id, const char *ext)
{
	return xasprintf("%s/%s.%s", dir, id, ext);
}

/* One field of ID.q: its value escaped as one line, whatever it held. */
static void field(struct buf *b, const char *key, const char *val, size_t n)
{
	buf_puts(b, key);
	buf_putc(b, ' ');
	esc_append(b, val, n, ESC_LINE);
	buf_putc(b, '\n');
}

int asks_put(const char *dir, const struct ask *a, struct lnk_err *err)
{
	struct buf t = {0};
	int r;

	if (!registry_name_valid(a->sandbox))
		return err_set(err, -EINVAL,
			       "cannot record a question: the sandbox's name "
			       "is no sandbox name");
	if ((r = paths_ensure_dir(dir, err)) < 0)
		return r;
	_cleanup_free_ char *q = file(dir, a->id, "q");
	_cleanup_free_ char *tmp = file(dir, a->id, "new");
	buf_printf(&t, "lnk-ask 2\nsandbox %s\nexpires %lld\n", a->sandbox,
		   (long long)a->expires_ms);
	field(&t, "summary", a->summary, strlen(a->summary));
	if (a->folder)
		field(&t, "folder", a->folder, strlen(a->folder));
	/* Each line of the question a field of its own: a newline inside
	 * one (there is none in question.h's text) is escaped, never a new
	 * line of the file. */
	for (const char *l = a->question; *l;) {
		size_t n = strcspn(l, "\n");
		field(&t, "line", l, n);
		l += n;
		if (*l)
			l++;
	}
	buf_puts(&t, "end\n");
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		      0600);
	if (fd < 0) {
		r = -errno;
		buf_free(&t);
		return err_set(err, r, "cannot record a question in '%s': %s",
			       dir, strerror(-r));
	}
	r = write_all(fd, t.p, t.len);
	buf_free(&t);
	close(fd);
	if (r == 0 && rename(tmp, q) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return err_set(err, r, "cannot record a question in '%s': %s",
			       dir, strerror(-r));
	}
	return 0;
}

void ask_clear(struct ask *a)
{
	free(a->sandbox);
	free(a->summary);
	free(a->folder);
	free(a->question);
	a->sandbox = a->summary = a->question = a->folder = NULL;
}

/* The value of a line "KEY VALUE", or NULL. */
static const char *value_of(const char *line, const char *key)
{
	size_t k = strlen(key);
	return strncmp(line, key, k) == 0 && line[k] == ' ' ? line + k + 1
							    : NULL;
}

/* Reads ID.q. Written by the broker, but read as any file of the folder:
 * every value is escaped again as a line (ESC_LINE keeps the broker's
 * escapes as they are and shows any control character a file someone
 * else wrote holds), and a file that breaks the format is no question. */
static int read_q(const char *dir, const char *id, struct ask *a)
{
	_cleanup_free_ char *p = file(dir, id, "q");
	_cleanup_free_ char *text = NULL;
	struct buf q = {0};
	size_t len, lines = 0;
	bool ended = false;
	const char *v;
	int r = read_file(p, 1 << 16, &text, &len);

	if (r < 0)
		return r;
	if (memchr(text, '\0', len))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	snprintf(a->id, sizeof(a->id), "%s", id);
	char *cur = text, *l = line_next(&cur);
	if (!l || strcmp(l, "lnk-ask 2") != 0)
		return -EINVAL;
	for (r = 0; r == 0 && !ended && (l = line_next(&cur));) {
		struct buf one = {0};
		if ((v = value_of(l, "sandbox")) && !a->sandbox) {
			if (registry_name_valid(v))
				a->sandbox = xstrdup(v);
			else
				r = -EINVAL;
		} else if ((v = value_of(l, "expires"))) {
			char *e;
			a->expires_ms = strtoll(v, &e, 10);
			r = *e ? -EINVAL : 0;
		} else if ((v = value_of(l, "summary")) && !a->summary) {
			esc_append(&one, v, strlen(v), ESC_LINE);
			a->summary = buf_steal(&one);
		} else if ((v = value_of(l, "folder")) && !a->folder) {
			esc_append(&one, v, strlen(v), ESC_LINE);
			a->folder = buf_steal(&one);
		} else if ((v = value_of(l, "line")) &&
			   lines++ < ASK_LINES_MAX) {
			esc_append(&q, v, strlen(v), ESC_LINE);
			buf_putc(&q, '\n');
		} else if (strcmp(l, "end") == 0) {
			ended = true;
		} else {
			/* a field twice, one too many lines, or no field */
			r = -EINVAL;
		}
	}
	buf_putc(&q, '\0');
	a->question = buf_steal(&q);
	if (r == 0 && (!ended || !a->sandbox || !a->summary || !lines))
		r = -EINVAL;
	if (r < 0)
		ask_clear(a);
	return r;
}

int asks_get(const char *dir, const char *id, struct ask *a)
{
	if (!asks_id_ok(id))
		return -EINVAL;
	return read_q(dir, id, a);
}

static int by_expiry(const void *x, const void *y)
{
	const struct ask *a = x, *b = y;
	return (a->expires_ms > b->expires_ms) -
	       (a->expires_ms < b->expires_ms);
}

int asks_list(const char *dir, int64_t now_ms, struct ask **v, size_t *n,
	      struct lnk_err *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*v = NULL;
	*n = 0;
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return err_set(err, -errno, "cannot read '%s': %s", dir,
			       strerror(errno));
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char id[ASK_ID_LEN + 1];
		struct ask a;
		if (l != ASK_ID_LEN + 2 || strcmp(e->d_name + ASK_ID_LEN, ".q"))
			continue;
		memcpy(id, e->d_name, ASK_ID_LEN);
		id[ASK_ID_LEN] = '\0';
		if (!asks_id_ok(id) || read_q(dir, id, &a) < 0)
			continue;
		if (a.expires_ms <= now_ms) {
			ask_clear(&a);
			continue;
		}
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = a;
	}
	closedir(d);
	if (*n)
		qsort(*v, *n, sizeof(**v), by_expiry);
	return 0;
}

void asks_free(struct ask *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ask_clear(&v[i]);
	free(v);
}

void asks_withdraw(const char *dir, const char *id)
{
	_cleanup_free_ char *q = file(dir, id, "q");
	unlink(q);
}

int asks_wait_setting(const char *settings, unsigned *seconds,
		      struct lnk_err *err)
{
	struct toml_value *root = NULL;

	*seconds = ASK_WAIT_DEFAULT_S;
	int r = toml_load_optional(settings, 1 << 20, &root, err);
	if (r < 0 || !root)
		return r;
	const struct toml_kv *kv = toml_find(root, "ask_wait");
	if (kv && (kv->val->type != TOML_INTEGER || kv->val->u.i < 1 ||
		   kv->val->u.i > ASK_WAIT_MAX_S))
		r = err_set(err, -EINVAL,
			    "%s:%u: ask_wait is the seconds a question waits "
			    "for an answer, 1 to %d",
			    settings, kv->pos.line, ASK_WAIT_MAX_S);
	else if (kv)
		*seconds = (unsigned)kv->val->u.i;
	toml_free(root);
	return r;
}
