/* The user's account as the sandbox's passwd and group show it: the user
 * name and shell, and the group name (launch/plan.c). */
#pragma once

#include <sys/types.h>

struct account {
	char *user;  /* NULL when unknown */
	char *shell; /* an absolute path, or NULL */
	char *group; /* NULL when unknown */
};

/* What NSS (getpwuid, getgrgid) answers for uid and gid, read from the
 * files under etc ("/etc") when nsswitch.conf consults them first, and
 * from NSS otherwise. */
void account_lookup(const char *etc, uid_t uid, gid_t gid, struct account *a);

/* The part of account_lookup that reads the files: 0 when nsswitch.conf
 * lets the file db ("passwd" or "group") answer and it has a line for id
 * (*line, its ':'-separated fields, to free), -ENOENT when NSS must
 * answer. */
int account_from_files(const char *etc, const char *db, unsigned id,
		       char **line);

void account_free(struct account *a);
