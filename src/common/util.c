#include "common/util.h"
#include "common/buf.h"
#include "common/esc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <termios.h>

static __attribute__((noreturn)) void oom(void)
{
	static const char m[] = "lnk: out of memory\n";
	(void)!write(2, m, sizeof(m) - 1);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom();
	return p;
}

static char *xvasprintf(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));
static char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void strv_push_take(struct strv *sv, char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = xrealloc(sv->v, sv->cap * sizeof(char *));
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void strv_push(struct strv *sv, const char *s)
{
	strv_push_take(sv, xstrdup(s));
}

void strv_pushf(struct strv *sv, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	strv_push_take(sv, s);
}

bool strv_contains(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

void strv_copy(struct strv *dst, const struct strv *src)
{
	for (size_t i = 0; i < src->n; i++)
		strv_push(dst, src->v[i]);
}

static int strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort(struct strv *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(char *), strp_cmp);
}

void strv_free(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return (size_t)-1;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t sub = prev + (a[i - 1] != b[j - 1]);
			size_t del = row[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins)
					   : (del < ins ? del : ins);
			prev = cur;
		}
	}
	return row[lb];
}

const char *closest_word(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t bestd = (size_t)-1;
	for (size_t i = 0; i < n; i++) {
		if (!cands[i])
			continue;
		size_t d = edit_distance(word, cands[i]);
		if (d < bestd) {
			bestd = d;
			best = cands[i];
		}
	}
	/* Too far to be a typo: no hint is better than a silly one. */
	size_t len = strlen(word);
	if (!best || bestd > (len < 6 ? 2 : len / 3 + 1))
		return NULL;
	return best;
}

/* "lnk: " and the message, escaped (common/esc.h) as one line of lnk's:
 * a value a format quoted raw cannot reach the terminal as a control. */
__attribute__((format(printf, 1, 0))) static void vwarn(const char *fmt,
							va_list ap)
{
	_cleanup_free_ char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return;
	struct buf b = {0};
	buf_puts(&b, "lnk: ");
	esc_append(&b, s, strlen(s), ESC_LINE);
	buf_putc(&b, '\n');
	fputs(b.p, stderr);
	buf_free(&b);
}

void warnx_(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void diex(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(status);
}

int read_fd_all(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				free(buf);
				return -EFBIG;
			}
			cap = cap * 2 > max ? max : cap * 2;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = -errno;
			free(buf);
			return e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

bool path_within(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

char *line_next(char **cur)
{
	char *line = *cur;
	if (!line || !*line)
		return NULL;
	char *nl = strchr(line, '\n');
	if (nl)
		*nl++ = '\0';
	*cur = nl;
	return line;
}

bool has_non_ascii(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return true;
	return false;
}

int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int read_file(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = read_fd_all(fd, max, out, len);
	close(fd);
	return r;
}

int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	if (off > INT64_MAX)
		return -EINVAL;
	while (got < n) {
		ssize_t k =
		    pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EINVAL;
		got += (size_t)k;
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

void term_write(int fd, const char *msg)
{
	struct termios t;
	struct buf safe = {0};
	/* The message may quote a name the program chose: escaped as lnk's
	 * own lines (common/esc.h). */
	esc_append(&safe, msg, strlen(msg), ESC_LINES);
	if (tcgetattr(fd, &t) < 0 || (t.c_oflag & OPOST)) {
		(void)write_all(fd, safe.p, safe.len);
		buf_free(&safe);
		return;
	}
	/* Raw terminal: one write, so lines of other writers do not mix in. */
	char *out = xmalloc(2 * safe.len + 1), *o = out;
	for (const char *c = safe.p; *c; c++) {
		if (*c == '\n' && (c == safe.p || c[-1] != '\r'))
			*o++ = '\r';
		*o++ = *c;
	}
	(void)write_all(fd, out, (size_t)(o - out));
	free(out);
	buf_free(&safe);
}

int64_t mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void file_replace(const char *path, const void *data, size_t len)
{
	_cleanup_free_ char *tmp = xasprintf("%s.%d.tmp", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      0600);
	if (fd < 0 && errno == ENOENT) {
		_cleanup_free_ char *dir = xstrdup(path);
		char *slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = '\0';
			mkdir(dir, 0700);
		}
		fd = open(tmp,
			  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0600);
	}
	if (fd < 0)
		return;
	int r = write_all(fd, data, len);
	if (close(fd) < 0)
		r = -1;
	if (r < 0 || rename(tmp, path) < 0)
		unlink(tmp);
}

uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}
