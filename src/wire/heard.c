/* The first routers heard, kept between wires (heard.h). */
#include "wire/heard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/compat.h"

#define KEEP_SECONDS ((time_t)HEARD_KEEP_DAYS * 24 * 60 * 60)
/* The fewest bytes a record takes: "0 k\n". */
#define RECORDS_MAX (HEARD_FILE_SIZE / 4)

int heard_key(const struct route_router *r, char *out, size_t cap)
{
	if (r->gateway.family && r->ll_len) {
		char a[64];
		addr_format(&r->gateway, a, sizeof(a));
		int w = snprintf(out, cap, "gw=%s,ll=", a);
		if (w < 0 || (size_t)w + 2 * r->ll_len >= cap)
			return -ENAMETOOLONG;
		size_t n = (size_t)w;
		for (size_t i = 0; i < r->ll_len; i++)
			n += (size_t)snprintf(out + n, cap - n, "%02x",
					      r->ll[i]);
		return 0;
	}
	char dev[IF_NAMESIZE];
	if (!r->gateway.family && r->oif > 0 &&
	    if_indextoname((unsigned)r->oif, dev)) {
		/* a device's name is the user's choice, not a program's;
		 * only names that print as one word are keys */
		for (const char *c = dev; *c; c++)
			if (*c <= ' ' || *c > '~')
				return -ENOENT;
		int n = snprintf(out, cap, "dev=%s", dev);
		return n > 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
	}
	return -ENOENT;
}

struct record {
	time_t t;
	const char *key;
	size_t klen;
};

/* The well-formed records of text, in the file's order. */
static size_t parse(const char *text, size_t len, struct record *out,
		    size_t max)
{
	size_t n = 0;
	const char *p = text, *end = text + len;
	while (p < end && *p && n < max) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break; /* a cut last line is no record */
		const char *q = p;
		long long t = 0;
		bool ok = q < nl && *q >= '0' && *q <= '9';
		for (; ok && q < nl && *q >= '0' && *q <= '9'; q++) {
			if (t > (long long)1e15)
				ok = false;
			t = t * 10 + (*q - '0');
		}
		ok = ok && q < nl && *q == ' ';
		const char *k = q + 1;
		size_t klen = ok ? (size_t)(nl - k) : 0;
		ok = ok && klen > 0 && klen < HEARD_KEY_MAX;
		for (size_t i = 0; ok && i < klen; i++)
			if (k[i] <= ' ' || k[i] > '~')
				ok = false;
		if (ok)
			out[n++] = (struct record){
			    .t = (time_t)t, .key = k, .klen = klen};
		p = nl + 1;
	}
	return n;
}

static bool same_key(const struct record *r, const char *key)
{
	return strlen(key) == r->klen && memcmp(r->key, key, r->klen) == 0;
}

/* A record past the keep. One from the future (a clock set back) is
 * kept: forgetting a router makes silence pass, remembering one only
 * refuses. */
static bool expired(const struct record *r, time_t now)
{
	return r->t < now && now - r->t > KEEP_SECONDS;
}

bool heard_find(const char *text, size_t len, const char *key, time_t now)
{
	struct record rec[RECORDS_MAX];
	size_t n = parse(text, len, rec, RECORDS_MAX);
	for (size_t i = 0; i < n; i++)
		if (same_key(&rec[i], key) && !expired(&rec[i], now))
			return true;
	return false;
}

void heard_put(char *text, size_t cap, const char *key, time_t now)
{
	char old[HEARD_FILE_SIZE];
	size_t olen = cap < sizeof(old) ? cap : sizeof(old);
	memcpy(old, text, olen);
	struct record rec[RECORDS_MAX];
	size_t n = parse(old, olen, rec, RECORDS_MAX);
	memset(text, 0, cap);
	size_t used = 0;
	int w = snprintf(text, cap, "%lld %s\n", (long long)now, key);
	if (w < 0 || (size_t)w >= cap) {
		memset(text, 0, cap);
		return;
	}
	used = (size_t)w;
	/* The file is kept newest first, so the records that no longer fit
	 * are the oldest. */
	for (size_t i = 0; i < n; i++) {
		if (same_key(&rec[i], key) || expired(&rec[i], now))
			continue;
		w = snprintf(text + used, cap - used, "%lld %.*s\n",
			     (long long)rec[i].t, (int)rec[i].klen, rec[i].key);
		if (w < 0 || (size_t)w >= cap - used) {
			memset(text + used, 0, cap - used);
			break;
		}
		used += (size_t)w;
	}
}

/* A record file of this user's at name (below dir), made with its room
 * reserved; shared: readable by every user's keeper, whatever the umask.
 * A link, or anything but a regular file of this user's, is refused; a
 * FIFO put in its place opens without waiting and is refused too. */
static int open_own(int dir, const char *name, bool shared)
{
	mode_t mode = shared ? 0644 : 0600;
	int fd = openat(dir, name,
			O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			mode);
	if (fd < 0)
		return -errno;
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
		r = -EPERM;
	else if (shared && (st.st_mode & 07777) != mode && fchmod(fd, mode) < 0)
		r = -errno;
	else if (st.st_size < HEARD_FILE_SIZE)
		r = file_reserve(fd, HEARD_FILE_SIZE);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

int heard_open(const char *path)
{
	return open_own(AT_FDCWD, path, false);
}

/* The file's text, read under lock (held by the caller). */
static ssize_t read_all(int fd, char *buf)
{
	size_t got = 0;
	while (got < HEARD_FILE_SIZE) {
		ssize_t r =
		    pread(fd, buf + got, HEARD_FILE_SIZE - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	memset(buf + got, 0, HEARD_FILE_SIZE - got);
	return (ssize_t)got;
}

/* The lock, waited for at most about 100 ms: another keeper holds it
 * only while it reads or writes 8 KiB, and a keeper must never hang its
 * wire's connects on a lock. -EWOULDBLOCK when it stayed taken. */
static int lock(int fd, int how)
{
	for (int i = 0; i < 100; i++) {
		if (flock(fd, how | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		struct timespec ms = {.tv_sec = 0, .tv_nsec = 1000000};
		nanosleep(&ms, NULL);
	}
	return -EWOULDBLOCK;
}

bool heard_knows(int fd, const char *key, time_t now)
{
	char buf[HEARD_FILE_SIZE];
	/* not knowing is the stricter answer: silence is refused */
	if (lock(fd, LOCK_SH) < 0)
		return true;
	ssize_t n = read_all(fd, buf);
	(void)flock(fd, LOCK_UN);
	return n < 0 || heard_find(buf, (size_t)n, key, now);
}

int heard_note(int fd, const char *key, time_t now)
{
	char buf[HEARD_FILE_SIZE];
	int r = lock(fd, LOCK_EX);
	if (r < 0)
		return r;
	ssize_t n = read_all(fd, buf);
	if (n >= 0) {
		heard_put(buf, sizeof(buf), key, now);
		/* over the room reserved when the file was made: no new
		 * block is asked of a full disk */
		size_t done = 0;
		while (done < sizeof(buf)) {
			ssize_t w = pwrite(fd, buf + done, sizeof(buf) - done,
					   (off_t)done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				n = w < 0 ? -errno : -EIO;
				break;
			}
			done += (size_t)w;
		}
	}
	(void)flock(fd, LOCK_UN);
	return n < 0 ? (int)n : 0;
}

int heard_dir_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && geteuid() == 0) {
		/* root makes it as the package does: its parent root's and
		 * closed to others, the folder open to all and sticky */
		char parent[256];
		const char *slash = strrchr(path, '/');
		if (slash && slash != path &&
		    (size_t)(slash - path) < sizeof(parent)) {
			memcpy(parent, path, (size_t)(slash - path));
			parent[slash - path] = '\0';
			/* whatever root's umask: every user must reach the
			 * folder through it */
			if (mkdir(parent, 0700) == 0)
				(void)chmod(parent, 0755);
		}
		if (mkdir(path, 0700) == 0)
			(void)chmod(path, 01777);
		fd =
		    open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    !(st.st_mode & S_ISVTX)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int heard_dir_mine(int dir)
{
	char name[24];
	snprintf(name, sizeof(name), "%u", (unsigned)geteuid());
	return open_own(dir, name, true);
}

/* A user's number as a file of the folder names it: digits only, no
 * leading zero, below 2^32 - 1 (the kernel's invalid uid). */
static bool uid_name(const char *s, uid_t *out)
{
	size_t n = strlen(s);
	if (n == 0 || n > 10 || (n > 1 && s[0] == '0'))
		return false;
	unsigned long long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v >= 0xffffffffULL)
		return false;
	*out = (uid_t)v;
	return true;
}

bool heard_dir_knows(int dir, const char *key, time_t now)
{
	int d = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		return true;
	DIR *ds = fdopendir(d);
	if (!ds) {
		close(d);
		return true;
	}
	bool knows = false;
	size_t seen = 0;
	struct dirent *de;
	while (!knows && (de = readdir(ds))) {
		/* A folder any user can fill: past the bound the records not
		 * read may hold the router, so silence is refused, and a
		 * folder of a million names costs a keeper no more. */
		if (++seen > HEARD_DIR_FILES_MAX) {
			knows = true;
			break;
		}
		uid_t uid;
		if (!uid_name(de->d_name, &uid))
			continue;
		/* not blocking: a FIFO in the folder opens at once, and is
		 * then no regular file */
		int fd = openat(dir, de->d_name,
				O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
				    O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat st;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_uid == uid)
			knows = heard_knows(fd, key, now);
		close(fd);
	}
	closedir(ds);
	return knows;
}
