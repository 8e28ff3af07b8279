/* The resolved policy's folders in one order (see folders.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "launch/folders.h"

static int not_normalized(const char *what, const char *p, struct lnk_err *err)
{
	return err_set(
	    err, -EINVAL,
	    "%s '%s' is not a normalized path; this is a bug in lnk, "
	    "please report it",
	    what, p);
}

int folder_check(const char *what, const char *p, struct lnk_err *err)
{
	if (!p || p[0] != '/')
		return err_set(err, -EINVAL,
			       "%s '%s' is not an absolute path; this is a bug "
			       "in lnk, please report it",
			       what, p ? p : "(null)");
	if (strstr(p, "/../") || strstr(p, "/./") || strstr(p, "//"))
		return not_normalized(what, p, err);
	return 0;
}

int folder_check_exact(const char *what, const char *p, struct lnk_err *err)
{
	int r = folder_check(what, p, err);
	if (r < 0)
		return r;
	size_t n = strlen(p);
	if ((n > 1 && p[n - 1] == '/') ||
	    (n >= 3 && strcmp(p + n - 3, "/..") == 0) ||
	    (n >= 2 && strcmp(p + n - 2, "/.") == 0))
		return not_normalized(what, p, err);
	return 0;
}

int folder_order(const char *pa, int ra, const char *pb, int rb)
{
	int c = strcmp(pa, pb);
	if (c)
		return c;
	return ra - rb;
}

int folder_grants(const struct policy *p, struct folder **out, size_t *n,
		  struct lnk_err *err)
{
	static const struct {
		enum key_id key;
		enum folder_kind kind;
		const char *flag;
	} lists[] = {
	    {K_FILES_READ, FOLDER_READ, "--read"},
	    {K_FILES_WRITE, FOLDER_WRITE, "--write"},
	    {K_FILES_HIDE, FOLDER_HIDE, "--hide"},
	};
	size_t total = 0;

	*out = NULL;
	*n = 0;
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
		total += policy_list(p, lists[l].key)->n;
	struct folder *f = xcalloc(total ? total : 1, sizeof(*f));
	size_t k = 0;
	for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
		const struct strv *v = policy_list(p, lists[l].key);
		for (size_t i = 0; i < v->n; i++) {
			int r = folder_check_exact(lists[l].flag, v->v[i], err);
			if (r < 0) {
				free(f);
				return r;
			}
			f[k++] = (struct folder){lists[l].kind, v->v[i]};
		}
	}
	*out = f;
	*n = k;
	return 0;
}
