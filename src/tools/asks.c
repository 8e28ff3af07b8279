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

int asks_put(const char *dir, const struct ask *a, struct lnk_err *err)
{
	int r;

	if ((r = paths_ensure_dir(dir, err)) < 0)
		return r;
	_cleanup_free_ char *q = file(dir, a->id, "q");
	_cleanup_free_ char *tmp = file(dir, a->id, "new");
	_cleanup_free_ char *text =
	    xasprintf("%s\n%lld\n%s\n", a->sandbox, (long long)a->expires_ms,
		      a->question);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		      0600);
	if (fd < 0)
		return err_set(err, -errno,
			       "cannot record a question in '%s': %s", dir,
			       strerror(errno));
	r = write_all(fd, text, strlen(text));
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

static int read_q(const char *dir, const char *id, struct ask *a)
{
	_cleanup_free_ char *p = file(dir, id, "q");
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r = read_file(p, 1 << 16, &text, &len);

	if (r < 0)
		return r;
	char *l1 = text, *l2 = strchr(l1, '\n');
	char *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
	char *end = l3 ? strchr(l3 + 1, '\n') : NULL;
	if (!end)
		return -EINVAL;
	*l2 = *l3 = *end = '\0';
	memset(a, 0, sizeof(*a));
	snprintf(a->id, sizeof(a->id), "%s", id);
	a->sandbox = esc_dup(l1);
	a->expires_ms = strtoll(l2 + 1, NULL, 10);
	/* Escaped by the broker already: escaped again as a line, so that a
	 * backslash of its escapes is not doubled, while a file someone else
	 * wrote still shows no control character. */
	struct buf q = {0};
	esc_append(&q, l3 + 1, strlen(l3 + 1), ESC_LINE);
	a->question = buf_steal(&q);
	return 0;
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
		_cleanup_free_ char *ans = file(dir, id, "a");
		if (!asks_id_ok(id) || access(ans, F_OK) == 0 ||
		    read_q(dir, id, &a) < 0)
			continue;
		if (a.expires_ms <= now_ms) {
			free(a.sandbox);
			free(a.question);
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
	for (size_t i = 0; i < n; i++) {
		free(v[i].sandbox);
		free(v[i].question);
	}
	free(v);
}

int asks_answer(const char *dir, const char *id, bool yes, int64_t now_ms,
		struct lnk_err *err)
{
	struct ask a;

	if (!asks_id_ok(id) || read_q(dir, id, &a) < 0)
		return err_set(err, -ENOENT,
			       "no question '%s' is waiting (see 'lnk sandbox "
			       "asks')",
			       asks_id_ok(id) ? id : "?");
	bool late = a.expires_ms <= now_ms;
	free(a.sandbox);
	free(a.question);
	if (late)
		return err_set(err, -ENOENT,
			       "question '%s' expired, which counts as no", id);
	_cleanup_free_ char *p = file(dir, id, "a");
	int fd =
	    open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0 && errno == EEXIST)
		return err_set(err, -EEXIST,
			       "question '%s' was answered already", id);
	if (fd < 0)
		return err_set(err, -errno, "cannot answer in '%s': %s", dir,
			       strerror(errno));
	int r = write_all(fd, yes ? "yes\n" : "no\n", yes ? 4 : 3);
	close(fd);
	return r < 0 ? err_set(err, r, "cannot answer: %s", strerror(-r)) : 0;
}

int asks_answered(const char *dir, const char *id, bool *yes)
{
	_cleanup_free_ char *p = file(dir, id, "a");
	_cleanup_free_ char *text = NULL;
	size_t len;

	if (read_file(p, 16, &text, &len) < 0)
		return 0;
	*yes = len >= 3 && memcmp(text, "yes", 3) == 0;
	return 1;
}

void asks_withdraw(const char *dir, const char *id)
{
	_cleanup_free_ char *q = file(dir, id, "q");
	_cleanup_free_ char *a = file(dir, id, "a");
	unlink(q);
	unlink(a);
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
