/* The routers heard, kept between wires (src/wire/heard.c): a router
 * heard by one wire is known to the next, a record past the keep is not,
 * a full file drops its oldest records, hostile or cut lines are no
 * records, the file is made with its room reserved (a full disk later
 * cannot keep a record out), and a link or another's file is refused. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "wire/heard.h"

#define DAY (24 * 60 * 60)

static void test_key(void **state)
{
	(void)state;
	struct route_router r;
	memset(&r, 0, sizeof(r));
	char k[HEARD_KEY_MAX];
	/* a gateway whose link-layer address is not known: no name */
	r.gateway.family = AF_INET;
	assert_int_equal(inet_pton(AF_INET, "198.19.200.2", r.gateway.a), 1);
	r.oif = 1;
	assert_int_equal(heard_key(&r, k, sizeof(k)), -ENOENT);
	unsigned char mac[6] = {0x0a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f};
	memcpy(r.ll, mac, 6);
	r.ll_len = 6;
	assert_int_equal(heard_key(&r, k, sizeof(k)), 0);
	assert_string_equal(k, "gw=198.19.200.2,ll=0a1b2c3d4e5f");
	/* another router at the same address is another key */
	char k2[HEARD_KEY_MAX];
	r.ll[5] = 0x60;
	assert_int_equal(heard_key(&r, k2, sizeof(k2)), 0);
	assert_string_not_equal(k, k2);
	/* too small a buffer is an error, never a cut key */
	assert_int_equal(heard_key(&r, k2, 20), -ENAMETOOLONG);
	/* on-link through a device: the device (loopback is index 1) */
	memset(&r, 0, sizeof(r));
	r.oif = 1;
	assert_int_equal(heard_key(&r, k, sizeof(k)), 0);
	assert_string_equal(k, "dev=lo");
	r.oif = 0;
	assert_int_equal(heard_key(&r, k, sizeof(k)), -ENOENT);
}

static void test_put_find(void **state)
{
	(void)state;
	char text[HEARD_FILE_SIZE];
	memset(text, 0, sizeof(text));
	time_t now = 1800000000;
	assert_false(heard_find(text, sizeof(text), "gw=a", now));
	heard_put(text, sizeof(text), "gw=a", now);
	heard_put(text, sizeof(text), "gw=b", now + 5);
	assert_true(heard_find(text, sizeof(text), "gw=a", now + 10));
	assert_true(heard_find(text, sizeof(text), "gw=b", now + 10));
	assert_false(heard_find(text, sizeof(text), "gw=", now + 10));
	assert_false(heard_find(text, sizeof(text), "gw=ab", now + 10));
	/* newest first, one record a key */
	heard_put(text, sizeof(text), "gw=a", now + 20);
	assert_string_equal(text, "1800000020 gw=a\n1800000005 gw=b\n");
	/* past the keep: not known, and dropped at the next write */
	time_t late = now + 20 + (time_t)HEARD_KEEP_DAYS * DAY + 1;
	assert_false(heard_find(text, sizeof(text), "gw=a", late));
	heard_put(text, sizeof(text), "gw=c", late);
	char want[64];
	snprintf(want, sizeof(want), "%lld gw=c\n", (long long)late);
	assert_string_equal(text, want);
	assert_null(strstr(text, "gw=a"));
	assert_null(strstr(text, "gw=b"));
	/* a record from the future (a clock set back) is kept */
	memset(text, 0, sizeof(text));
	heard_put(text, sizeof(text), "gw=f", now + 100 * DAY);
	assert_true(heard_find(text, sizeof(text), "gw=f", now));
}

static void test_hostile_lines(void **state)
{
	(void)state;
	char text[HEARD_FILE_SIZE];
	memset(text, 0, sizeof(text));
	time_t now = 1800000000;
	snprintf(text, sizeof(text),
		 "x gw=a\n"		       /* no number */
		 "1800000000gw=b\n"	       /* no space */
		 "1800000000 gw c\n"	       /* a space in the key */
		 "99999999999999999999 gw=d\n" /* a number too long */
		 "1800000000 \n"	       /* no key */
		 "1800000000 gw=\x01\n"	       /* a control byte */
		 "1800000000 gw=ok\n"
		 "1800000000 gw=cut"); /* no end of line */
	assert_false(heard_find(text, sizeof(text), "gw=a", now));
	assert_false(heard_find(text, sizeof(text), "gw=b", now));
	assert_false(heard_find(text, sizeof(text), "gw", now));
	assert_false(heard_find(text, sizeof(text), "gw=d", now));
	assert_false(heard_find(text, sizeof(text), "gw=cut", now));
	assert_true(heard_find(text, sizeof(text), "gw=ok", now));
	/* a rewrite keeps only the records */
	heard_put(text, sizeof(text), "gw=n", now);
	assert_string_equal(text, "1800000000 gw=n\n1800000000 gw=ok\n");
}

static void test_full_drops_oldest(void **state)
{
	(void)state;
	char text[HEARD_FILE_SIZE];
	memset(text, 0, sizeof(text));
	time_t now = 1800000000;
	char key[HEARD_KEY_MAX];
	/* far more than fit: the newest stay, the file stays NUL-ended */
	for (int i = 0; i < 2000; i++) {
		snprintf(key, sizeof(key), "gw=router-%04d", i);
		heard_put(text, sizeof(text), key, now + i);
	}
	assert_true(heard_find(text, sizeof(text), "gw=router-1999", now));
	assert_false(heard_find(text, sizeof(text), "gw=router-0000", now));
	assert_int_equal(text[sizeof(text) - 1], 0);
	/* a key longer than any heard_key makes is no record */
	char big[HEARD_KEY_MAX + 1];
	memset(big, 'k', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	memcpy(big, "gw=", 3);
	heard_put(text, sizeof(text), big, now + 3000);
	assert_false(heard_find(text, sizeof(text), big, now));
	assert_true(heard_find(text, sizeof(text), "gw=router-1999", now));
	/* the longest is kept whole */
	big[HEARD_KEY_MAX - 1] = 0;
	heard_put(text, sizeof(text), big, now + 3001);
	assert_true(heard_find(text, sizeof(text), big, now));
}

static void test_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/lnk-heard-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256], link_path[256];
	snprintf(path, sizeof(path), "%s/routers", dir);
	snprintf(link_path, sizeof(link_path), "%s/link", dir);
	int fd = heard_open(path);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	/* its room reserved when made */
	assert_int_equal(st.st_size, HEARD_FILE_SIZE);
	assert_true(st.st_blocks * 512 >= HEARD_FILE_SIZE);
	assert_int_equal(st.st_mode & 07777, 0600);
	time_t now = time(NULL);
	assert_false(heard_knows(fd, "gw=x", now));
	assert_int_equal(heard_note(fd, "gw=x", now), 0);
	/* a second opening (the next wire's keeper) knows it */
	int fd2 = heard_open(path);
	assert_true(fd2 >= 0);
	assert_true(heard_knows(fd2, "gw=x", now));
	assert_false(heard_knows(fd2, "gw=y", now));
	assert_int_equal(fstat(fd2, &st), 0);
	assert_int_equal(st.st_size, HEARD_FILE_SIZE);
	/* a lock another keeper never lets go of: no hang; not knowing
	 * refuses silence, and nothing is written */
	assert_int_equal(flock(fd2, LOCK_EX), 0);
	assert_true(heard_knows(fd, "gw=y", now));
	assert_int_equal(heard_note(fd, "gw=y", now), -EWOULDBLOCK);
	assert_int_equal(flock(fd2, LOCK_UN), 0);
	assert_false(heard_knows(fd, "gw=y", now));
	close(fd);
	close(fd2);
	/* a link is refused, whatever it leads to */
	assert_int_equal(symlink(path, link_path), 0);
	assert_int_equal(heard_open(link_path), -ELOOP);
	unlink(link_path);
	/* so is a folder */
	assert_int_equal(mkdir(link_path, 0700), 0);
	assert_true(heard_open(link_path) < 0);
	rmdir(link_path);
	unlink(path);
	rmdir(dir);
}

/* The machine's folder (another user's program can spend the router's
 * errors): used only when it is root's and sticky; a user's file in it is
 * made readable by all, with its room reserved; a router noted in any
 * user's file is known to every keeper; a file is read only when it is a
 * regular file of the user its name says, and a name taken by a link or
 * a FIFO is refused as the user's own. */
static void test_machine_folder(void **state)
{
	(void)state;
	char dir[] = "/tmp/lnk-heard-dir-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char sub[256], name[64], path[320];
	snprintf(sub, sizeof(sub), "%s/routers", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	time_t now = time(NULL);
	if (geteuid() != 0) {
		/* a folder of the user's own is never the machine's: anyone
		 * could have made it */
		assert_int_equal(chmod(sub, 01777), 0);
		assert_int_equal(heard_dir_open(sub), -EPERM);
		rmdir(sub);
		rmdir(dir);
		skip(); /* the rest needs a folder of root's: as root */
		return;
	}
	/* root's, not sticky: refused */
	assert_int_equal(heard_dir_open(sub), -EPERM);
	/* a link to a good folder: refused */
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(chmod(sub, 01777), 0);
	assert_int_equal(symlink(sub, path), 0);
	assert_true(heard_dir_open(path) < 0);
	unlink(path);
	/* missing, as root: made, root's and sticky, its parent open to
	 * every user whatever the umask */
	snprintf(path, sizeof(path), "%s/made/routers", dir);
	mode_t was = umask(077);
	int made = heard_dir_open(path);
	umask(was);
	assert_true(made >= 0);
	struct stat st;
	assert_int_equal(fstat(made, &st), 0);
	assert_int_equal(st.st_mode & 07777, 01777);
	close(made);
	snprintf(path, sizeof(path), "%s/made", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);

	int d = heard_dir_open(sub);
	assert_true(d >= 0);
	assert_false(heard_dir_knows(d, "gw=x", now));
	int mine = heard_dir_mine(d);
	assert_true(mine >= 0);
	assert_int_equal(fstat(mine, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(st.st_size, HEARD_FILE_SIZE);
	assert_int_equal(heard_note(mine, "gw=x", now), 0);
	assert_true(heard_dir_knows(d, "gw=x", now));
	assert_false(heard_dir_knows(d, "gw=y", now));

	/* another user's file, with a record: known */
	snprintf(path, sizeof(path), "%s/4242", sub);
	int o = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	assert_true(o >= 0);
	assert_int_equal(fchown(o, 4242, 4242), 0);
	assert_int_equal(heard_note(o, "gw=y", now), 0);
	close(o);
	assert_true(heard_dir_knows(d, "gw=y", now));
	/* the same record in a file whose name is not its owner's, in one
	 * whose name is no user's number, in a FIFO: not read */
	assert_int_equal(chown(path, 4243, 4243), 0);
	assert_false(heard_dir_knows(d, "gw=y", now));
	char other[320];
	snprintf(other, sizeof(other), "%s/04242", sub);
	assert_int_equal(rename(path, other), 0);
	assert_int_equal(chown(other, 4242, 4242), 0);
	assert_false(heard_dir_knows(d, "gw=y", now));
	unlink(other);
	snprintf(other, sizeof(other), "%s/4244", sub);
	assert_int_equal(mkfifo(other, 0644), 0);
	assert_int_equal(chown(other, 4244, 4244), 0);
	assert_false(heard_dir_knows(d, "gw=y", now));
	unlink(other);
	close(mine);

	/* a folder filled past the bound with names of no one: refused
	 * (a record past them might have been the router's) */
	for (int i = 0; i <= HEARD_DIR_FILES_MAX; i++) {
		char junk[320];
		snprintf(junk, sizeof(junk), "%s/x%d", sub, i);
		int j = open(junk, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		assert_true(j >= 0);
		close(j);
	}
	assert_true(heard_dir_knows(d, "gw=nothing", now));
	for (int i = 0; i <= HEARD_DIR_FILES_MAX; i++) {
		char junk[320];
		snprintf(junk, sizeof(junk), "%s/x%d", sub, i);
		unlink(junk);
	}
	assert_false(heard_dir_knows(d, "gw=nothing", now));

	/* this user's name taken by a link, then by a FIFO: refused */
	snprintf(name, sizeof(name), "%s/%u", sub, (unsigned)geteuid());
	unlink(name);
	assert_int_equal(symlink("/etc/passwd", name), 0);
	assert_true(heard_dir_mine(d) < 0);
	unlink(name);
	assert_int_equal(mkfifo(name, 0644), 0);
	assert_int_equal(heard_dir_mine(d), -EPERM);
	unlink(name);
	close(d);
	rmdir(sub);
	snprintf(path, sizeof(path), "%s/made/routers", dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/made", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_key),
	    cmocka_unit_test(test_put_find),
	    cmocka_unit_test(test_hostile_lines),
	    cmocka_unit_test(test_full_drops_oldest),
	    cmocka_unit_test(test_file),
	    cmocka_unit_test(test_machine_folder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
