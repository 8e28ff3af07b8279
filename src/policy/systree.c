#include "policy/systree.h"

#include <string.h>

#include "common/fsplace.h"
#include "policy/facts.h"
#include "common/util.h"

struct systree {
	const char *path;
	bool whole; /* every folder below it too, else the folder itself */
};

/* / and /var themselves: a write grant of either holds the rest. Below
 * /var only what the system runs from or trusts; /var/tmp, /var/log and
 * the like stay grantable. /efi is the EFI system partition where systemd
 * mounts it (its loader and kernels run as root at the next boot); /nix,
 * /snap and /gnu hold the stores and profiles every user's PATH runs. */
static const struct systree trees[] = {
    {"/", false},	  {"/var", false},	  {"/etc", true},
    {"/usr", true},	  {"/bin", true},	  {"/sbin", true},
    {"/lib", true},	  {"/lib32", true},	  {"/lib64", true},
    {"/libx32", true},	  {"/boot", true},	  {"/opt", true},
    {"/srv", true},	  {"/var/lib", true},	  {"/var/spool", true},
    {"/var/cache", true}, {"/var/backups", true}, {"/var/opt", true},
    {"/var/local", true}, {"/efi", true},	  {"/nix", true},
    {"/snap", true},	  {"/gnu", true},
};

static bool spelled_in(const char *real, const struct systree *t)
{
	return t->whole ? path_within(real, t->path)
			: strcmp(real, t->path) == 0;
}

const char *systree_spelled(const char *real)
{
	for (size_t i = 0; i < ARRAY_SIZE(trees); i++)
		if (spelled_in(real, &trees[i]))
			return trees[i].path;
	return NULL;
}

const char *systree_holding(const char *real, struct fs_facts *f, bool *other)
{
	const char *hit = systree_spelled(real);
	const struct mount_table *mt;
	struct fs_place g;

	*other = false;
	if (hit || !f || !(mt = facts_mounts(f)) ||
	    mounts_place(mt, real, &g) < 0)
		return hit;
	for (size_t i = 0; !hit && i < ARRAY_SIZE(trees); i++) {
		/* /bin is usr/bin on a merged system: its place is the real
		 * folder's. Each tree's place is asked once a run, whatever
		 * the number of write grants. */
		const struct fs_place *tp = facts_place(f, trees[i].path);
		if (!tp)
			continue;
		if (trees[i].whole
			? fs_place_within(&g, tp)
			: tp->major == g.major && tp->minor == g.minor &&
			      strcmp(tp->path, g.path) == 0)
			hit = trees[i].path;
	}
	fs_place_free(&g);
	*other = hit != NULL;
	return hit;
}

const char *systree_below(const char *real, struct fs_facts *f,
			  const char **point)
{
	const struct mount_table *mt;
	const char *hit = NULL;
	struct fs_place shown;
	unsigned i = 0;

	*point = NULL;
	if (!f || !(mt = facts_mounts(f)))
		return NULL;
	while (!hit && mounts_below(mt, real, &i, &shown, point) == 1) {
		for (size_t t = 0; !hit && t < ARRAY_SIZE(trees); t++) {
			const struct fs_place *tp;
			if (!trees[t].whole ||
			    !(tp = facts_place(f, trees[t].path)))
				continue;
			if (fs_place_within(&shown, tp) ||
			    fs_place_within(tp, &shown))
				hit = trees[t].path;
		}
		fs_place_free(&shown);
	}
	if (!hit)
		*point = NULL;
	return hit;
}

bool systree_shows(const char *real, struct fs_facts *f, const char *tree,
		   const char **point)
{
	const struct mount_table *mt;
	const struct fs_place *tp;
	struct fs_place g;
	bool hit = false;
	unsigned i = 0;

	*point = NULL;
	if (!f || !(mt = facts_mounts(f)) || !(tp = facts_place(f, tree)))
		return false;
	if (mounts_place(mt, real, &g) == 0) {
		hit = fs_place_within(&g, tp);
		fs_place_free(&g);
	}
	while (!hit && mounts_below(mt, real, &i, &g, point) == 1) {
		hit = fs_place_within(&g, tp) || fs_place_within(tp, &g);
		fs_place_free(&g);
	}
	if (!hit || !*point)
		*point = NULL;
	return hit;
}
