/* Small helpers shared by every part: cleanup attributes (as bubblewrap's
 * utils.h does), allocation that never returns NULL, string vectors, and the
 * die/warn family used only by top-level command code. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define LNK_EXIT_LEAKED 1
#define LNK_EXIT_USAGE 2
#define LNK_EXIT_FAIL 125
#define LNK_EXIT_CANNOT_EXEC 126
#define LNK_EXIT_NOT_FOUND 127

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline void cleanup_freep(void *p)
{
	free(*(void **)p);
}
static inline void cleanup_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
static inline void cleanup_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
#define _cleanup_free_ __attribute__((cleanup(cleanup_freep)))
#define _cleanup_close_ __attribute__((cleanup(cleanup_closep)))
#define _cleanup_fclose_ __attribute__((cleanup(cleanup_fclosep)))

/* Takes ownership out of a cleanup variable. */
static inline void *steal_ptr(void *pp)
{
	void **p = pp, *v = *p;
	*p = NULL;
	return v;
}
#define steal_pointer(pp) ((__typeof__(*(pp)))steal_ptr(pp))
static inline int steal_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}

/* Allocation failure is not recoverable in a CLI; these abort with a message
 * instead of letting a NULL reach security code. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A NULL-terminated, growable vector of owned strings. */
struct strv {
	char **v; /* v[n] == NULL when n > 0 or v != NULL */
	size_t n, cap;
};
void strv_push(struct strv *sv, const char *s); /* copies s */
void strv_push_take(struct strv *sv, char *s);	/* takes s */
void strv_pushf(struct strv *sv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool strv_contains(const struct strv *sv, const char *s);
void strv_copy(struct strv *dst, const struct strv *src); /* appends */
void strv_free(struct strv *sv);
/* Sorts the strings (strcmp order). */
void strv_sort(struct strv *sv);

/* Levenshtein distance, for "did you mean" hints. */
size_t edit_distance(const char *a, const char *b);
/* The candidate closest to word, or NULL if none is close enough. */
const char *closest_word(const char *word, const char *const *cands, size_t n);

/* Top-level only: print "lnk: <msg>" to stderr. */
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
__attribute__((noreturn)) void diex(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* p is dir or a path inside it, by its components ("/a/bc" is not inside
 * "/a/b"); every path is inside "/". Both absolute and normalized. */
bool path_within(const char *p, const char *dir);

/* The next line of a text read whole: the line at *cur, cut at its '\n'
 * in place; *cur moves to the line after (NULL after the last). NULL at the
 * end of the text, or with no text (*cur NULL). */
char *line_next(char **cur);

/* s (len bytes) holds a byte outside ASCII. */
bool has_non_ascii(const char *s, size_t len);
/* FNV-1a of s: only to keep over-long keys distinct in fixed-size room
 * (the tripwires' targets); never a defence by itself. */
uint64_t fnv1a(const char *s);

/* The value of the hex digit c (0-9, a-f, A-F), or -1 for any other. */
int hex_value(int c);

/* Reads a whole file (at most max bytes). 0 or -errno. */
int read_file(const char *path, size_t max, char **out, size_t *len);
/* Reads all of fd (at most max bytes). 0 or -errno. */
int read_fd_all(int fd, size_t max, char **out, size_t *len);
/* Best effort: path written whole with len bytes of data, mode 0600
 * (a temp file beside it, then rename), so a reader sees the old file or
 * the new one; a missing parent folder is made (0700). For lnk's small
 * caches: a failure only means the work is done again next time. */
void file_replace(const char *path, const void *data, size_t len);
/* Reads exactly n bytes of fd at offset off, retrying on EINTR and short
 * reads. 0, or -errno (-EINVAL: the file ends first, or off is too big). */
int pread_all(int fd, void *buf, size_t n, uint64_t off);

/* The monotonic clock in milliseconds: deadlines and ages, never dates. */
int64_t mono_ms(void);
/* Writes all of buf to fd, retrying on EINTR and short writes. */
int write_all(int fd, const void *buf, size_t len);

/* Writes a message of lnk's own (one or more lines) to fd. While `run`
 * relays a pty, the user's terminal is in raw mode (no output processing),
 * so a bare "\n" would only move down a line: there every "\n" goes out as
 * "\r\n". Other threads and processes of lnk (the dot-file guard, the
 * wire) print through this. */
void term_write(int fd, const char *msg);
