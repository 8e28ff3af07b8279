/* The kit's layers, one call each (layers.h). */
#include "confine/layers.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/landlock_defs.h"

/* The ruleset attribute with the fields of ABI 4 (network) and 6
 * (scopes); only as many bytes as the ABI knows are passed. */
struct ll_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

int confine_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
			   LANDLOCK_CREATE_RULESET_VERSION);
	if (abi > 0)
		return (int)abi;
	return abi == 0 ? -ENOSYS : -errno;
}

int confine_landlock_ruleset(int abi, uint64_t handled, bool scoped)
{
	struct ll_attr attr = {.handled_access_fs =
				   handled & landlock_fs_rights(abi)};
	size_t size = sizeof(uint64_t);

	if (abi >= 4)
		size = 2 * sizeof(uint64_t);
	if (abi >= 6) {
		size = sizeof(attr);
		if (scoped)
			attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
				      LANDLOCK_SCOPE_SIGNAL;
	}
	int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	return fd < 0 ? -errno : fd;
}

int confine_landlock_rule(int ruleset, int parent_fd, uint64_t rights)
{
	struct landlock_path_beneath_attr pb = {
	    .allowed_access = rights,
	    .parent_fd = parent_fd,
	};
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH,
		    &pb, 0) < 0)
		return -errno;
	return 0;
}

int confine_landlock_enter(int ruleset)
{
	return syscall(SYS_landlock_restrict_self, ruleset, 0) < 0 ? -errno : 0;
}

int confine_no_new_privs(void)
{
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -errno : 0;
}

int confine_drop_caps(bool bounding)
{
	if (bounding) {
		/* Dropping from the bounding set needs CAP_SETPCAP, which
		 * an unprivileged process never had (EPERM: nothing to
		 * drop). */
		for (int c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
			if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 &&
			    errno != EPERM)
				return -errno;
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) <
			0 &&
		    errno != EINVAL)
			return -errno;
	}
	struct __user_cap_header_struct hdr = {.version =
						   _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof(data));
	return syscall(SYS_capset, &hdr, data) < 0 ? -errno : 0;
}
