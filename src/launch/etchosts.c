/* The sandbox's /etc/hosts names the sandbox itself (etchosts.h). */
#include "launch/etchosts.h"

#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/util.h"

/* The host's file is copied whole up to this (host.c copies no bigger
 * one); beyond, only lnk's lines. */
#define HOSTS_MAX (1 << 20)

/* A host name as /etc/hosts takes it: one word of letters, digits, '-'
 * and '.' (the registry's names are narrower still). */
static bool is_host_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 63 || s[0] == '-' || s[0] == '.')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '.'))
			return false;
	return true;
}

int etchosts_name(struct host_facts *h, const char *name, struct lnk_err *err)
{
	size_t at = h->etc_files.n;
	for (size_t i = 0; i < h->etc_files.n; i++)
		if (strcmp(h->etc_files.v[i], "/etc/hosts") == 0)
			at = i;
	struct buf b = {0};
	if (at < h->etc_files.n && h->etc_fds[at] >= 0) {
		struct stat st;
		if (fstat(h->etc_fds[at], &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_size > 0 && st.st_size <= HOSTS_MAX) {
			char *text = xmalloc((size_t)st.st_size);
			ssize_t n =
			    pread(h->etc_fds[at], text, (size_t)st.st_size, 0);
			if (n > 0) {
				buf_append(&b, text, (size_t)n);
				if (text[n - 1] != '\n')
					buf_putc(&b, '\n');
			}
			free(text);
		}
	}
	buf_printf(&b, "# lnk: the sandbox's own names, on its own loopback\n"
		       "127.0.0.1\tlocalhost\n"
		       "::1\tlocalhost ip6-localhost ip6-loopback\n");
	if (is_host_name(name))
		buf_printf(&b, "127.0.1.1\t%s\n::1\t%s\n", name, name);
	int r = host_add_etc_text(h, "/etc/hosts", b.p, err);
	buf_free(&b);
	return r;
}
