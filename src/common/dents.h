/* A folder's entries read straight from the kernel (getdents64), one at a
 * time, into the caller's buffer, with each entry's type as the listing
 * gives it: for the few places that read a folder on every start, where
 * opendir's own stat and a lookup of each entry cost more than the
 * listing (the guard's plan, the /etc snapshot, /proc's masks). Linux
 * only. */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/types.h>

struct dents {
	int fd;	      /* the folder, open for reading */
	char *buf;    /* the caller's, aligned for struct dirent64 */
	size_t cap;   /* its size: the kernel fills it whole */
	size_t total; /* bytes the kernel has returned so far */
	int err;      /* errno of a failed read, else 0 */
	ssize_t got;  /* bytes in buf */
	size_t off;   /* the next entry in buf */
};

/* A buffer for dents, aligned for struct dirent64: name.b. */
#define DENTS_BUF(name, bytes)         \
	union {                        \
		struct dirent64 align; \
		char b[bytes];         \
	} name

#define DENTS_INIT(dirfd, b)                                \
	{                                                   \
		.fd = (dirfd), .buf = (b), .cap = sizeof(b) \
	}

/* The next entry, or NULL at the end (err says whether the read failed). */
static inline const struct dirent64 *dents_next(struct dents *d)
{
	while (d->off >= (size_t)d->got) {
		ssize_t n = getdents64(d->fd, d->buf, d->cap);
		d->off = 0;
		d->got = n > 0 ? n : 0;
		if (n <= 0) {
			d->err = n < 0 ? errno : 0;
			return NULL;
		}
		d->total += (size_t)n;
	}
	const struct dirent64 *de = (const void *)(d->buf + d->off);
	d->off += de->d_reclen;
	return de;
}

/* d_type as st_mode's type bits; 0 when the listing does not say. */
static inline mode_t dents_mode(unsigned char t)
{
	switch (t) {
	case DT_REG:
		return S_IFREG;
	case DT_DIR:
		return S_IFDIR;
	case DT_LNK:
		return S_IFLNK;
	case DT_FIFO:
		return S_IFIFO;
	case DT_SOCK:
		return S_IFSOCK;
	case DT_CHR:
		return S_IFCHR;
	case DT_BLK:
		return S_IFBLK;
	default:
		return 0;
	}
}
