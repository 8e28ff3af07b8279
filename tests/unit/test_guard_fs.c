/* What the dot-file supervisor may touch for the program (the confused
 * deputy of src/guard/open.c, attacked by test_pid1_memory_* in
 * tests/e2e/test_inv5_processes.py): the file systems it may create on or open
 * from, the character devices an O_CREAT open may reach, and how it finds
 * the program's controlling terminal in /proc/PID/stat, and how much a
 * reopened descriptor may give. Row tables. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <cmocka.h>

#include "common/util.h"
#include "guard/internal.h"

struct fs_row {
	unsigned long type;
	const char *name;
	bool parent, object;
};

static const struct fs_row fs_rows[] = {
    /* ordinary file systems: create in them, open from them */
    {0xEF53, "ext4", true, true},
    {0x58465342, "xfs", true, true},
    {0x9123683E, "btrfs", true, true},
    {0x01021994, "tmpfs (and devtmpfs, memfd)", true, true},
    {0x794C7630, "overlayfs", true, true},
    {0x6969, "nfs", true, true},
    {0x65735546, "fuse", true, true},
    {0x01021997, "9p", true, true},
    {0x786F4256, "vboxsf", true, true},
    /* objects only: /dev/stdout into a pipe, the program's pty */
    {0x50495045, "pipefs", false, true},
    {0x1CD1, "devpts", false, true},
    /* kernel objects: never (/proc/1/mem, /sys/...) */
    {0x9FA0, "proc", false, false},
    {0x62656572, "sysfs", false, false},
    {0x63677270, "cgroup2", false, false},
    {0x27E0EB, "cgroup", false, false},
    {0x64626720, "debugfs", false, false},
    {0x74726163, "tracefs", false, false},
    {0x73636673, "securityfs", false, false},
    {0xCAFE4A11, "bpffs", false, false},
    {0x6E736673, "nsfs", false, false},
    {0x534F434B, "sockfs", false, false},
    {0x09041934, "anon_inode", false, false},
    {0x42494E4D, "binfmt_misc", false, false},
    {0x19800202, "mqueue", false, false},
    {0x62656570, "configfs", false, false},
    {0x6165676C, "pstore", false, false},
    {0xDE5E81E4, "efivarfs", false, false},
    {0x958458F6, "hugetlbfs", false, false},
    {0, "zero", false, false},
    {0xFFFFFFFF, "all ones", false, false},
};

static void fs_types(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fs_rows); i++) {
		const struct fs_row *r = &fs_rows[i];
		if (guard_fs_ok(r->type, false) != r->parent ||
		    guard_fs_ok(r->type, true) != r->object)
			fail_msg("%s (0x%lx): parent %d object %d", r->name,
				 r->type, guard_fs_ok(r->type, false),
				 guard_fs_ok(r->type, true));
	}
}

struct dev_row {
	unsigned ma, mi;
	enum guard_dev want;
};

static const struct dev_row dev_rows[] = {
    {1, 3, GUARD_DEV_OPEN},   /* null */
    {1, 5, GUARD_DEV_OPEN},   /* zero */
    {1, 7, GUARD_DEV_OPEN},   /* full */
    {1, 8, GUARD_DEV_OPEN},   /* random */
    {1, 9, GUARD_DEV_OPEN},   /* urandom */
    {5, 2, GUARD_DEV_OPEN},   /* ptmx */
    {136, 0, GUARD_DEV_OPEN}, /* /dev/pts/0 */
    {143, 1048575, GUARD_DEV_OPEN},
    {5, 0, GUARD_DEV_CTTY},    /* /dev/tty: the caller's */
    {5, 1, GUARD_DEV_REFUSE},  /* /dev/console */
    {1, 1, GUARD_DEV_REFUSE},  /* /dev/mem */
    {1, 2, GUARD_DEV_REFUSE},  /* /dev/kmem */
    {1, 4, GUARD_DEV_REFUSE},  /* /dev/port */
    {1, 11, GUARD_DEV_REFUSE}, /* /dev/kmsg */
    {4, 0, GUARD_DEV_REFUSE},  /* /dev/tty0: a virtual console */
    {4, 1, GUARD_DEV_REFUSE},
    {0, 0, GUARD_DEV_REFUSE},	 /* a whiteout */
    {10, 229, GUARD_DEV_REFUSE}, /* /dev/fuse */
    {10, 200, GUARD_DEV_REFUSE}, /* /dev/net/tun */
    {135, 0, GUARD_DEV_REFUSE},
    {144, 0, GUARD_DEV_REFUSE},
};

static void char_devices(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(dev_rows); i++) {
		const struct dev_row *r = &dev_rows[i];
		if (guard_chardev(makedev(r->ma, r->mi)) != r->want)
			fail_msg("%u:%u: got %d, want %d", r->ma, r->mi,
				 guard_chardev(makedev(r->ma, r->mi)), r->want);
	}
}

struct stat_row {
	const char *stat;
	int ret;
	unsigned long tty_nr;
};

static const struct stat_row stat_rows[] = {
    {"42 (sh) S 1 42 42 34816 42 4194560 1 0", 0, 34816},
    {"42 (sh) S 1 42 42 0 -1 4194560", 0, 0},
    /* a command name with spaces and parentheses: counted from the last
     * ')' */
    {"7 (a) b (c) R 1 7 7 34817 7 0", 0, 34817},
    {"7 (x) 1 2 3) S 1 7 7 1025 7 0", 0, 1025},
    {"7 (sh) S 1 7 7", -EINVAL, 0},
    {"7 (sh) S 1 7 7 ", -EINVAL, 0},
    {"7 (sh) S 1 7 7 -5 0", -EINVAL, 0},
    {"7 (sh) S 1 7 7 12x 0", -EINVAL, 0},
    {"7 (sh) S  1 7 7 5 0", -EINVAL, 0},
    {"no parenthesis at all", -EINVAL, 0},
    {"", -EINVAL, 0},
};

static void stat_tty_nr(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(stat_rows); i++) {
		unsigned long v = 12345;
		int r = guard_stat_tty_nr(stat_rows[i].stat, &v);
		if (r != stat_rows[i].ret ||
		    (r == 0 && v != stat_rows[i].tty_nr))
			fail_msg("'%s': %d %lu", stat_rows[i].stat, r, v);
	}
}

static void tty_dev(void **state)
{
	(void)state;
	/* /dev/pts/0 is 136:0, tty_nr 34816; a minor above 255 keeps its
	 * high bits in tty_nr's bits 20-31 */
	assert_true(guard_tty_dev(34816) == makedev(136, 0));
	assert_true(guard_tty_dev(34817) == makedev(136, 1));
	assert_true(guard_tty_dev((136u << 8) | 0x34 | (0x12u << 20)) ==
		    makedev(136, 0x1234));
	assert_true(guard_tty_dev(1024) == makedev(4, 0));
}

/* Reopening a descriptor (/dev/stdin, /dev/fd/N) never gives more than
 * the descriptor has: rows of (flags asked, access held, allowed). */
struct acc_row {
	int flags, have;
	bool ok;
};

static const struct acc_row acc_rows[] = {
    /* a read-only stdin (`< deploy.sh`) */
    {O_RDONLY | O_CREAT, O_RDONLY, true},
    {O_WRONLY | O_CREAT, O_RDONLY, false},
    {O_RDWR | O_CREAT, O_RDONLY, false},
    {O_RDONLY | O_CREAT | O_TRUNC, O_RDONLY, false}, /* truncates */
    {O_WRONLY | O_CREAT | O_APPEND, O_RDONLY, false},
    {O_ACCMODE | O_CREAT, O_RDONLY, false}, /* 3: needs read and write */
    {O_PATH | O_CREAT, O_RDONLY, true},
    /* a write-only stdout (`>> app.log`) */
    {O_WRONLY | O_CREAT | O_TRUNC, O_WRONLY, true},
    {O_WRONLY | O_CREAT | O_APPEND, O_WRONLY, true},
    {O_RDONLY | O_CREAT, O_WRONLY, false},
    {O_RDWR | O_CREAT, O_WRONLY, false},
    /* read and write: anything */
    {O_RDWR | O_CREAT | O_TRUNC, O_RDWR, true},
    {O_RDONLY | O_CREAT, O_RDWR, true},
    {O_ACCMODE | O_CREAT, O_RDWR, true},
    /* an O_PATH descriptor (or a cwd): nothing but another O_PATH */
    {O_RDONLY | O_CREAT, O_PATH, false},
    {O_WRONLY | O_CREAT, O_PATH, false},
    {O_PATH, O_PATH, true},
};

static void access_within(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(acc_rows); i++) {
		if (guard_access_within(acc_rows[i].flags, acc_rows[i].have) !=
		    acc_rows[i].ok)
			fail_msg("row %zu: flags %#o have %#o: want %d", i,
				 acc_rows[i].flags, acc_rows[i].have,
				 acc_rows[i].ok);
	}
}

/* File systems whose names fold: a write folder on one is not guarded
 * (the grant is refused), since ".ENVRC" or ".envrc." is the same file. */
static void folding_fs(void **state)
{
	(void)state;
	assert_string_equal(guard_fs_folding(0x4D44), "vfat");
	assert_string_equal(guard_fs_folding(0x2011BAB0), "exfat");
	assert_string_equal(guard_fs_folding(0x7366746E), "ntfs3");
	assert_string_equal(guard_fs_folding(0xFF534D42), "cifs");
	assert_string_equal(guard_fs_folding(0x482B), "hfsplus");
	assert_null(guard_fs_folding(0xEF53)); /* ext4: casefold per folder */
	assert_null(guard_fs_folding(0x01021994)); /* tmpfs: likewise */
	assert_null(guard_fs_folding(0x9123683E)); /* btrfs */
	assert_null(guard_fs_folding(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(fs_types),	     cmocka_unit_test(char_devices),
	    cmocka_unit_test(stat_tty_nr),   cmocka_unit_test(tty_dev),
	    cmocka_unit_test(access_within), cmocka_unit_test(folding_fs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
