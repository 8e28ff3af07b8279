/* Golden tests of the policy -> bwrap argv function (src/launch/bwrap.c):
 * a policy and host facts in, the exact options out. Each golden was read
 * line by line: a change here is a change of the sandbox's walls. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"
#include "launch/bwrap.h"
#include "launch/folders.h"

struct fixture {
	struct policy p;
	struct strv dirs, links, etc, ro_over, hidden;
	struct bwrap_in in;
	struct bwrap_out out;
};

static void setup_fixture(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	policy_init(&f->p);
	f->p.resolved = true;
	strv_push(&f->dirs, "/usr");
	const char *links[] = {"/bin",	 "usr/bin",   "/lib",  "usr/lib",
			       "/lib64", "usr/lib64", "/sbin", "usr/sbin"};
	for (size_t i = 0; i < ARRAY_SIZE(links); i++)
		strv_push(&f->links, links[i]);
	strv_push(&f->etc, "/etc/hosts");
	strv_push(&f->etc, "/etc/ld.so.cache");
	strv_push(&f->hidden, "/home/u/.lnk");
	strv_push(&f->hidden, "/home/u/Link/Agents");
	strv_push(&f->hidden, "/home/u/Link/History");
	f->in = (struct bwrap_in){
	    .pol = &f->p,
	    .home = "/home/u",
	    .cwd = "/home/u/proj",
	    .init_path = "/opt/lnk/lnk-init",
	    .root_dirs = &f->dirs,
	    .root_links = &f->links,
	    .etc = &f->etc,
	    .hidden = &f->hidden,
	    .passwd_fd = 5,
	    .group_fd = 6,
	    .info_fd = 7,
	    .pty = false,
	    .disable_userns = true,
	};
}

static void grant(struct fixture *f, enum key_id id, const char *path)
{
	f->p.k[id].set = true;
	strv_push(&f->p.k[id].list, path);
}

static void teardown_fixture(struct fixture *f)
{
	bwrap_out_free(&f->out);
	policy_free(&f->p);
	strv_free(&f->dirs);
	strv_free(&f->links);
	strv_free(&f->etc);
	strv_free(&f->ro_over);
	strv_free(&f->hidden);
}

/* The options, one option and its arguments per line. */
static char *render(const struct strv *o)
{
	struct buf b = {0};
	for (size_t i = 0; i < o->n; i++) {
		if (i && strncmp(o->v[i], "--", 2) == 0)
			buf_putc(&b, '\n');
		else if (i)
			buf_putc(&b, ' ');
		buf_puts(&b, o->v[i]);
	}
	buf_putc(&b, '\n');
	return buf_steal(&b);
}

static char *join(const struct strv *o)
{
	struct buf b = {0};
	for (size_t i = 0; i < o->n; i++) {
		buf_puts(&b, o->v[i]);
		buf_putc(&b, '\n');
	}
	if (!b.p)
		buf_puts(&b, "");
	return buf_steal(&b);
}

static void golden(struct fixture *f, const char *want)
{
	struct lnk_err err = {0};
	int r = bwrap_build(&f->in, &f->out, &err);
	if (r < 0)
		fail_msg("bwrap_build: %s", err.msg);
	char *got = render(&f->out.opts);
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "--- want\n%s--- got\n%s", want, got);
		fail();
	}
	free(got);
}

#define HEAD                                                                \
	"--unshare-all\n--unshare-user\n--disable-userns\n--cap-drop ALL\n" \
	"--as-pid-1\n"
#define SYSTEM                                              \
	"--symlink usr/bin /bin\n"                          \
	"--dev /dev\n"                                      \
	"--tmpfs /dev/shm\n"                                \
	"--perms 0444\n--file 6 /etc/group\n"               \
	"--ro-bind-try /etc/hosts /etc/hosts\n"             \
	"--ro-bind-try /etc/ld.so.cache /etc/ld.so.cache\n" \
	"--perms 0444\n--file 5 /etc/passwd\n"
#define SYSTEM_TAIL                                   \
	"--symlink usr/lib /lib\n"                    \
	"--symlink usr/lib64 /lib64\n"                \
	"--proc /proc\n"                              \
	"--ro-bind /opt/lnk/lnk-init /run/lnk/init\n" \
	"--symlink usr/sbin /sbin\n"                  \
	"--tmpfs /tmp\n"                              \
	"--ro-bind /usr /usr\n"                       \
	"--tmpfs /var/tmp\n"

/* No grant: the system read only, an empty home, fresh /tmp; it starts in
 * the empty home since the current folder is not granted. */
static void bare(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f);
	golden(&f, HEAD "--new-session\n--clearenv\n--info-fd 7\n" SYSTEM
			"--tmpfs /home/u\n" SYSTEM_TAIL "--remount-ro /proc\n"
			"--remount-ro /\n--chdir /home/u\n");
	/* Landlock mirrors the mounts: nothing of the home is readable but
	 * its empty tmpfs, which is writable; /dev is under lnk-init's own
	 * rule (its nodes written, nothing made). */
	char *rd = join(&f.out.ll_read);
	char *wr = join(&f.out.ll_write);
	assert_string_equal(rd, "/etc/group\n/etc/hosts\n/etc/ld.so.cache\n"
				"/etc/passwd\n/proc\n/usr\n");
	assert_string_equal(wr, "/dev/shm\n/home/u\n/tmp\n/var/tmp\n");
	free(rd);
	free(wr);
	teardown_fixture(&f);
}

/* --write on the current folder: bound read-write inside the empty home,
 * and the program starts there. */
static void write_cwd(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f);
	grant(&f, K_FILES_WRITE, "/home/u/proj");
	golden(&f, HEAD "--new-session\n--clearenv\n--info-fd 7\n" SYSTEM
			"--tmpfs /home/u\n"
			"--bind /home/u/proj /home/u/proj\n" SYSTEM_TAIL
			"--remount-ro /proc\n"
			"--remount-ro /\n--chdir /home/u/proj\n");
	char *wr = join(&f.out.ll_write);
	assert_non_null(strstr(wr, "/home/u/proj\n"));
	free(wr);
	teardown_fixture(&f);
}

/* --read '~': the real home read only instead of the tmpfs, and ~/.lnk,
 * ~/Link/Agents and ~/Link/History hidden (empty, read only) inside it. */
static void read_home(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f);
	grant(&f, K_FILES_READ, "/home/u");
	f.in.cwd = "/srv/elsewhere";
	golden(&f, HEAD "--new-session\n--clearenv\n--info-fd 7\n" SYSTEM
			"--ro-bind /home/u /home/u\n"
			"--tmpfs /home/u/.lnk\n"
			"--tmpfs /home/u/Link/Agents\n"
			"--tmpfs /home/u/Link/History\n" SYSTEM_TAIL
			"--remount-ro /home/u/.lnk\n"
			"--remount-ro /home/u/Link/Agents\n"
			"--remount-ro /home/u/Link/History\n"
			"--remount-ro /proc\n"
			"--remount-ro /\n--chdir /home/u\n");
	teardown_fixture(&f);
}

/* --write on the whole home still hides ~/.lnk. */
static void write_home_hides_lnk(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f);
	grant(&f, K_FILES_WRITE, "/home/u");
	struct lnk_err err = {0};
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
	char *got = render(&f.out.opts);
	assert_non_null(strstr(got, "--bind /home/u /home/u\n"
				    "--tmpfs /home/u/.lnk\n"));
	assert_non_null(strstr(got, "--remount-ro /home/u/.lnk\n"));
	assert_null(strstr(got, "--tmpfs /home/u\n"));
	free(got);
	teardown_fixture(&f);
}

/* --hide with grants nested inside: the hide's tmpfs first, then the
 * grants inside it re-bound, then (at the end) the tmpfs made read only.
 * A hide over something no grant shows is left out. */
static void hide_nested(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f);
	grant(&f, K_FILES_READ, "/home/u");
	grant(&f, K_FILES_HIDE, "/home/u/work");
	grant(&f, K_FILES_HIDE, "/srv/nothing-shows-this");
	grant(&f, K_FILES_WRITE, "/home/u/work/site");
	grant(&f, K_FILES_READ, "/home/u/work/site/docs");
	f.in.cwd = "/home/u/work/notes";
	golden(&f, HEAD "--new-session\n--clearenv\n--info-fd 7\n" SYSTEM
			"--ro-bind /home/u /home/u\n"
			"--tmpfs /home/u/.lnk\n"
			"--tmpfs /home/u/Link/Agents\n"
			"--tmpfs /home/u/Link/History\n"
			"--tmpfs /home/u/work\n"
			"--bind /home/u/work/site /home/u/work/site\n"
			"--ro-bind /home/u/work/site/docs "
			"/home/u/work/site/docs\n" SYSTEM_TAIL
			"--remount-ro /home/u/.lnk\n"
			"--remount-ro /home/u/Link/Agents\n"
			"--remount-ro /home/u/Link/History\n"
			"--remount-ro /home/u/work\n"
			"--remount-ro /proc\n"
			"--remount-ro /\n--chdir /home/u/work/site\n");
	teardown_fixture(&f);
}

/* /proc files to cover: /dev/null bound read only over each, after the
 * fresh /proc; /proc made read only at the end. Anything outside /proc is
 * a bug, refused. */
static void proc_masks(void **state)
{
	(void)state;
	struct fixture f;
	struct strv masks = {0};
	setup_fixture(&f);
	strv_push(&masks, "/proc/keys");
	strv_push(&masks, "/proc/timer_list");
	f.in.proc_masks = &masks;
	struct lnk_err err = {0};
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
	char *got = render(&f.out.opts);
	assert_non_null(strstr(got, "--proc /proc\n"
				    "--ro-bind /dev/null /proc/keys\n"
				    "--ro-bind /dev/null /proc/timer_list\n"));
	assert_non_null(strstr(got, "--remount-ro /proc\n--remount-ro /\n"));
	free(got);
	bwrap_out_free(&f.out);

	strv_push(&masks, "/etc/shadow");
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), -EINVAL);
	strv_free(&masks);
	masks = (struct strv){0};
	strv_push(&masks, "/proc");
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), -EINVAL);
	strv_free(&masks);
	teardown_fixture(&f);
}

/* As root: the copies of the device nodes bound over bwrap's binds of the
 * host's, right after --dev. */
static void dev_nodes(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f);
	f.in.dev_nodes_dir = "/dev/.lnk-abc";
	struct lnk_err err = {0};
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
	char *got = render(&f.out.opts);
	assert_non_null(strstr(got,
			       "--dev /dev\n"
			       "--dev-bind /dev/.lnk-abc/full /dev/full\n"
			       "--dev-bind /dev/.lnk-abc/null /dev/null\n"
			       "--dev-bind /dev/.lnk-abc/random /dev/random\n"
			       "--tmpfs /dev/shm\n"
			       "--dev-bind /dev/.lnk-abc/tty /dev/tty\n"
			       "--dev-bind /dev/.lnk-abc/urandom /dev/urandom\n"
			       "--dev-bind /dev/.lnk-abc/zero /dev/zero\n"));
	free(got);
	teardown_fixture(&f);
}

/* Whether bwrap must see the host's /sys (launch/hostview.h): not for the
 * sandbox's own mounts, but for a bind of a folder in it, or above it. */
static void shows_sys(void **state)
{
	(void)state;
	const struct {
		const char *grant;
		bool shows;
	} cases[] = {{NULL, false},
		     {"/sysroot", false},
		     {"/sys/class/net", true},
		     {"/sys", true},
		     {"/", true}};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fixture f;
		setup_fixture(&f);
		if (cases[i].grant)
			grant(&f, K_FILES_READ, cases[i].grant);
		struct lnk_err err = {0};
		assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
		assert_int_equal(f.out.shows_sys, cases[i].shows);
		teardown_fixture(&f);
	}
}

/* A host /tmp folder granted with --write is bound after the private /tmp
 * tmpfs, so it shows inside it; the current folder inside it is kept. */
static void write_under_tmp(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f);
	grant(&f, K_FILES_WRITE, "/tmp/build");
	f.in.cwd = "/tmp/build/out";
	struct lnk_err err = {0};
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
	char *got = render(&f.out.opts);
	assert_non_null(
	    strstr(got, "--tmpfs /tmp\n--bind /tmp/build /tmp/build\n"));
	assert_non_null(strstr(got, "--chdir /tmp/build/out\n"));
	free(got);
	teardown_fixture(&f);
}

/* With a pty the program keeps lnk's session (its controlling terminal is
 * lnk's pty); without, --new-session. Nothing else changes: lnk-init is
 * pid 1 either way (--as-pid-1, which bwrap accepts only with a new pid
 * namespace: --unshare-all makes one). */
static void pty_vs_no_pty(void **state)
{
	(void)state;
	struct fixture a, b;
	setup_fixture(&a);
	setup_fixture(&b);
	b.in.pty = true;
	struct lnk_err err = {0};
	assert_int_equal(bwrap_build(&a.in, &a.out, &err), 0);
	assert_int_equal(bwrap_build(&b.in, &b.out, &err), 0);
	assert_true(strv_contains(&a.out.opts, "--new-session"));
	assert_false(strv_contains(&b.out.opts, "--new-session"));
	assert_true(strv_contains(&a.out.opts, "--as-pid-1"));
	assert_true(strv_contains(&b.out.opts, "--as-pid-1"));
	assert_true(strv_contains(&b.out.opts, "--unshare-all"));
	assert_int_equal(a.out.opts.n, b.out.opts.n + 1);
	teardown_fixture(&a);
	teardown_fixture(&b);
}

/* At one path the strongest wins: --write over --read, --hide over both;
 * dot files are ro-bound over themselves after their --write folder. */
static void same_path_and_dot_files(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f);
	grant(&f, K_FILES_READ, "/home/u/proj");
	grant(&f, K_FILES_WRITE, "/home/u/proj");
	grant(&f, K_FILES_READ, "/home/u/both");
	grant(&f, K_FILES_HIDE, "/home/u/both");
	strv_push(&f.ro_over, "/home/u/proj/.git");
	f.in.ro_over = &f.ro_over;
	struct lnk_err err = {0};
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
	char *got = render(&f.out.opts);
	assert_non_null(
	    strstr(got, "--bind /home/u/proj /home/u/proj\n"
			"--ro-bind /home/u/proj/.git /home/u/proj/.git\n"));
	assert_null(strstr(got, "--ro-bind /home/u/proj /home/u/proj"));
	assert_null(strstr(got, "/home/u/both"));
	free(got);
	teardown_fixture(&f);
}

/* Without --disable-userns support (bwrap < 0.8), the option is absent. */
static void old_bwrap(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f);
	f.in.disable_userns = false;
	struct lnk_err err = {0};
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
	assert_false(strv_contains(&f.out.opts, "--disable-userns"));
	assert_true(strv_contains(&f.out.opts, "--unshare-user"));
	teardown_fixture(&f);
}

/* /etc files lnk can read are copied into the root (--file), each from
 * the next descriptor slot, and Landlock lists them like the binds. */
static void etc_copies(void **state)
{
	(void)state;
	struct fixture f;
	struct strv files = {0};
	setup_fixture(&f);
	strv_push(&files, "/etc/nsswitch.conf");
	strv_push(&files, "/etc/gai.conf");
	f.in.etc_files = &files;
	f.in.files_fd = 10;
	struct lnk_err err = {0};
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
	char *got = render(&f.out.opts);
	assert_non_null(strstr(got, "--perms 0444\n--file 10 /etc/gai.conf\n"
				    "--perms 0444\n--file 6 /etc/group\n"
				    "--ro-bind-try /etc/hosts /etc/hosts\n"));
	assert_non_null(strstr(got,
			       "--perms 0444\n--file 11 /etc/nsswitch.conf\n"
			       "--perms 0444\n--file 5 /etc/passwd\n"));
	/* slot order: files[i] comes from files_fd + i */
	char *fl = join(&f.out.files);
	assert_string_equal(fl, "/etc/gai.conf\n/etc/nsswitch.conf\n");
	char *rd = join(&f.out.ll_read);
	assert_non_null(strstr(rd, "/etc/gai.conf\n/etc/group\n"));
	assert_non_null(strstr(rd, "/etc/nsswitch.conf\n/etc/passwd\n"));
	free(fl);
	free(rd);
	free(got);
	teardown_fixture(&f);
	strv_free(&files);
}

/* Where a grant shows the host's /etc, a copy would be written into the
 * host's file: there the file is bound and passwd/group are mounted from
 * their data (--ro-bind-data). */
static void etc_copies_under_a_grant(void **state)
{
	(void)state;
	struct fixture f;
	struct strv files = {0};
	setup_fixture(&f);
	strv_push(&files, "/etc/gai.conf");
	f.in.etc_files = &files;
	f.in.files_fd = 10;
	grant(&f, K_FILES_WRITE, "/etc");
	struct lnk_err err = {0};
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
	char *got = render(&f.out.opts);
	assert_null(strstr(got, "--file"));
	assert_non_null(strstr(got,
			       "--bind /etc /etc\n"
			       "--ro-bind-try /etc/gai.conf /etc/gai.conf\n"
			       "--perms 0444\n--ro-bind-data 6 /etc/group\n"));
	assert_non_null(
	    strstr(got, "--perms 0444\n--ro-bind-data 5 /etc/passwd\n"));
	assert_int_equal(f.out.files.n, 0);
	free(got);
	teardown_fixture(&f);
	strv_free(&files);
}

/* --read /etc shows the host's /etc/localtime link already: it is not
 * made again (bwrap would fail: "Can't make symlink ... File exists"). */
static void read_etc_keeps_host_links(void **state)
{
	(void)state;
	struct fixture f;
	setup_fixture(&f);
	strv_push(&f.links, "/etc/localtime");
	strv_push(&f.links, "/usr/share/zoneinfo/Etc/UTC");
	grant(&f, K_FILES_READ, "/etc");
	struct lnk_err err = {0};
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
	char *got = render(&f.out.opts);
	assert_null(strstr(got, "/etc/localtime"));
	assert_non_null(strstr(got, "--ro-bind /etc /etc\n"));
	assert_non_null(strstr(got, "--symlink usr/bin /bin\n"));
	free(got);
	teardown_fixture(&f);

	setup_fixture(&f);
	strv_push(&f.links, "/etc/localtime");
	strv_push(&f.links, "/usr/share/zoneinfo/Etc/UTC");
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
	got = render(&f.out.opts);
	assert_non_null(strstr(
	    got, "--symlink /usr/share/zoneinfo/Etc/UTC /etc/localtime\n"));
	free(got);
	teardown_fixture(&f);
}

/* A small /etc folder is made again: the folder (--dir), its files copied
 * with their modes, its links; Landlock reads the folder and the files. */
static void etc_trees(void **state)
{
	(void)state;
	struct fixture f;
	struct strv files = {0}, trees = {0};
	static const unsigned modes[] = {0444, 0555};
	setup_fixture(&f);
	strv_push(&trees, "/etc/py");
	strv_push(&files, "/etc/py/conf");
	strv_push(&files, "/etc/py/hook");
	strv_push(&f.links, "/etc/py/site.py");
	strv_push(&f.links, "../py3/site.py");
	f.in.etc_files = &files;
	f.in.etc_modes = modes;
	f.in.etc_trees = &trees;
	f.in.files_fd = 10;
	struct lnk_err err = {0};
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
	char *got = render(&f.out.opts);
	assert_non_null(strstr(got,
			       "--perms 0755\n--dir /etc/py\n"
			       "--perms 0444\n--file 10 /etc/py/conf\n"
			       "--perms 0555\n--file 11 /etc/py/hook\n"
			       "--symlink ../py3/site.py /etc/py/site.py\n"));
	char *rd = join(&f.out.ll_read);
	assert_non_null(strstr(rd, "/etc/py\n/etc/py/conf\n/etc/py/hook\n"));
	free(rd);
	free(got);
	teardown_fixture(&f);

	/* A grant of the folder, or of /etc, shows the host's instead: none
	 * of the copies is made (the folder is bound under /etc);
	 * a --hide of it hides all of it. */
	const char *cases[][3] = {
	    {"write", "/etc/py", "--bind /etc/py /etc/py\n"},
	    {"read", "/etc", "--ro-bind-try /etc/py /etc/py\n"},
	    {"hide", "/etc/py", NULL},
	};
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		setup_fixture(&f);
		strv_push(&f.links, "/etc/py/site.py");
		strv_push(&f.links, "../py3/site.py");
		f.in.etc_files = &files;
		f.in.etc_modes = modes;
		f.in.etc_trees = &trees;
		f.in.files_fd = 10;
		enum key_id id = cases[c][0][0] == 'w'	 ? K_FILES_WRITE
				 : cases[c][0][0] == 'r' ? K_FILES_READ
							 : K_FILES_HIDE;
		grant(&f, id, cases[c][1]);
		assert_int_equal(bwrap_build(&f.in, &f.out, &err), 0);
		got = render(&f.out.opts);
		assert_null(strstr(got, "/etc/py/"));
		assert_null(strstr(got, "--dir /etc/py"));
		if (cases[c][2])
			assert_non_null(strstr(got, cases[c][2]));
		else
			assert_null(strstr(got, "/etc/py"));
		assert_int_equal(f.out.files.n, 0);
		free(got);
		teardown_fixture(&f);
	}
	strv_free(&files);
	strv_free(&trees);
}

/* Bad input is refused, never mounted: relative or unnormalized paths, an
 * unresolved policy, a home of '/'. */
static void refusals(void **state)
{
	(void)state;
	struct lnk_err err = {0};
	struct fixture f;

	setup_fixture(&f);
	grant(&f, K_FILES_WRITE, "relative/dir");
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), -EINVAL);
	teardown_fixture(&f);

	setup_fixture(&f);
	grant(&f, K_FILES_READ, "/home/u/../../etc");
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), -EINVAL);
	teardown_fixture(&f);

	setup_fixture(&f);
	f.p.resolved = false;
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), -EINVAL);
	teardown_fixture(&f);

	setup_fixture(&f);
	f.in.home = "/";
	assert_int_equal(bwrap_build(&f.in, &f.out, &err), -EINVAL);
	teardown_fixture(&f);
}

/* A bind added after the plan is built (check's probe, the tools' socket
 * and clients) lands right after lnk-init's, before the remount of /. */
static void bind_after_init(void **state)
{
	(void)state;
	struct strv o = {0};
	const char *before[] = {"--tmpfs", "/tmp",	    "--ro-bind",
				"/h/init", BWRAP_INIT_PATH, "--remount-ro",
				"/"};
	for (size_t i = 0; i < ARRAY_SIZE(before); i++)
		strv_push(&o, before[i]);
	bwrap_bind_after_init(&o, "/h/probe", "/run/lnk/probe");
	bwrap_bind_after_init(&o, "/h/sock", "/run/lnk/tools.sock");
	const char *want[] = {"--tmpfs",
			      "/tmp",
			      "--ro-bind",
			      "/h/init",
			      BWRAP_INIT_PATH,
			      "--ro-bind",
			      "/h/sock",
			      "/run/lnk/tools.sock",
			      "--ro-bind",
			      "/h/probe",
			      "/run/lnk/probe",
			      "--remount-ro",
			      "/"};
	assert_int_equal(o.n, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_string_equal(o.v[i], want[i]);
	assert_null(o.v[o.n]);
	strv_free(&o);

	/* no bind of lnk-init: at the end */
	bwrap_bind_after_init(&o, "/a", "/b");
	assert_int_equal(o.n, 3);
	assert_string_equal(o.v[0], "--ro-bind");
	assert_string_equal(o.v[2], "/b");
	strv_free(&o);
}

/* The two path checks: bwrap takes a host fact with a trailing '/' (the
 * same folder to it), the grants and Seatbelt's rules only the exact form. */
static void folder_checks(void **state)
{
	(void)state;
	struct lnk_err err = {0};
	assert_int_equal(folder_check("home", "/home/u/", &err), 0);
	assert_int_equal(folder_check("home", "/", &err), 0);
	assert_int_equal(folder_check_exact("home", "/", &err), 0);
	assert_int_equal(folder_check_exact("home", "/home/u", &err), 0);
	const char *bad_both[] = {"home/u", "/home//u", "/home/./u",
				  "/home/../u"};
	for (size_t i = 0; i < ARRAY_SIZE(bad_both); i++) {
		assert_int_equal(folder_check("home", bad_both[i], &err),
				 -EINVAL);
		assert_int_equal(folder_check_exact("home", bad_both[i], &err),
				 -EINVAL);
	}
	const char *bad_exact[] = {"/home/u/", "/home/u/.", "/home/u/.."};
	for (size_t i = 0; i < ARRAY_SIZE(bad_exact); i++) {
		assert_int_equal(folder_check("home", bad_exact[i], &err), 0);
		assert_int_equal(folder_check_exact("home", bad_exact[i], &err),
				 -EINVAL);
		assert_non_null(strstr(err.msg, "not a normalized path"));
	}
	/* a parent before its children, at one path the weaker rank first */
	assert_true(folder_order("/a", 3, "/a/b", 0) < 0);
	assert_true(folder_order("/a", 3, "/a", 2) > 0);
	assert_int_equal(folder_order("/a", 2, "/a", 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(bare),
	    cmocka_unit_test(write_cwd),
	    cmocka_unit_test(read_home),
	    cmocka_unit_test(write_home_hides_lnk),
	    cmocka_unit_test(hide_nested),
	    cmocka_unit_test(proc_masks),
	    cmocka_unit_test(dev_nodes),
	    cmocka_unit_test(write_under_tmp),
	    cmocka_unit_test(pty_vs_no_pty),
	    cmocka_unit_test(same_path_and_dot_files),
	    cmocka_unit_test(old_bwrap),
	    cmocka_unit_test(etc_copies),
	    cmocka_unit_test(etc_copies_under_a_grant),
	    cmocka_unit_test(read_etc_keeps_host_links),
	    cmocka_unit_test(etc_trees),
	    cmocka_unit_test(refusals),
	    cmocka_unit_test(bind_after_init),
	    cmocka_unit_test(folder_checks),
	    cmocka_unit_test(shows_sys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
