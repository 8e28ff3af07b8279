/* "Asked first": the record of accepted specs and the question on the
 * terminal. See trust.h for the threat. */
#include "spec/trust.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/esc.h"
#include "spec/cover.h"
#include "spec/spec.h"
#include "toml/toml.h"
#include "store/paths.h"

#define RECORD_MAX (4u << 20)

/* What an acceptance holds: the grants, and the sandbox's name, which
 * opens nothing but is what its calls, traffic and pause go by (a spec
 * taking an agent's name asks). A spec without one reads as before. */
static char *accepted_text(const struct policy *p)
{
	return spec_emit_flags(p, SPEC_EMIT_GRANTS_ONLY | SPEC_EMIT_NAME);
}

void trust_digest(const struct policy *p, char out[7 + 2 * SHA256_LEN + 1])
{
	_cleanup_free_ char *text = accepted_text(p);
	memcpy(out, "sha256:", 7);
	sha256_hex(text, strlen(text), out + 7);
}

/* Acceptances kept per spec file: one per set of flags beside it that
 * was accepted, so that switching back to one does not ask again. */
#define TRUST_KEEP 8

struct record {
	char *path;
	char *digest;
	char *text; /* the canonical text accepted, or NULL (older records) */
	/* the flags beside the spec when it was accepted ("--read"): the
	 * acceptance stands for a run whose flags beside set each of those
	 * keys again. A grant a flag gave once is not the file's, even once
	 * the program writes it into the file. */
	struct strv flags;
};

static void records_free(struct record *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].path);
		free(r[i].digest);
		free(r[i].text);
		strv_free(&r[i].flags);
	}
	free(r);
}

static const char *str_of(const struct toml_value *t, const char *key)
{
	const struct toml_kv *kv = toml_find(t, key);
	if (!kv || kv->val->type != TOML_STRING ||
	    strlen(kv->val->u.str.s) != kv->val->u.str.len)
		return NULL;
	return kv->val->u.str.s;
}

/* Reads the record. Anything unreadable counts as no record: the worst it
 * can do is ask again, never let a spec through unasked. */
static void records_read(const char *file, struct record **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	if (read_file(file, RECORD_MAX, &text, &len) < 0)
		return;
	struct toml_value *root = NULL;
	struct lnk_err e = {0};
	if (toml_parse(text, len, file, &root, &e) < 0)
		return;
	const struct toml_kv *specs = toml_find(root, "spec");
	if (specs && specs->val->type == TOML_ARRAY) {
		const struct toml_value *a = specs->val;
		*out = xcalloc(a->u.arr.n, sizeof(**out));
		for (size_t i = 0; i < a->u.arr.n; i++) {
			const struct toml_value *t = a->u.arr.items[i];
			if (t->type != TOML_TABLE)
				continue;
			const char *path = str_of(t, "path");
			const char *digest = str_of(t, "digest");
			if (!path || !digest)
				continue;
			const char *canon = str_of(t, "text");
			const struct toml_kv *fl = toml_find(t, "flags");
			if (fl && fl->val->type == TOML_ARRAY)
				for (size_t k = 0; k < fl->val->u.arr.n; k++) {
					const struct toml_value *f =
					    fl->val->u.arr.items[k];
					if (f->type == TOML_STRING)
						strv_push(&(*out)[*n].flags,
							  f->u.str.s);
				}
			(*out)[*n].path = xstrdup(path);
			(*out)[*n].digest = xstrdup(digest);
			(*out)[*n].text = canon ? xstrdup(canon) : NULL;
			(*n)++;
		}
	}
	toml_free(root);
}

/* A canonical text accepted before, as a policy (its paths are already
 * absolute and real). false when it no longer reads: it then covers
 * nothing, and the run asks. */
static bool load_text(const struct policy *p, const char *text,
		      struct policy *q)
{
	struct lnk_err ignored = {0};
	policy_init(q);
	if (policy_load_spec_text(q, text, strlen(text), "accepted",
				  p->spec_dir ? p->spec_dir : "/",
				  &ignored) == 0)
		return true;
	policy_free(q);
	return false;
}

static void flags_of(const struct policy *p, struct strv *out);

/* Every flag of a's in b: an acceptance made with flags a beside the
 * spec stands for a run with flags b. */
static bool flags_within(const struct strv *a, const struct strv *b)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strv_contains(b, a->v[i]))
			return false;
	return true;
}

/* spec_covers, then q freed. */
static bool covered_free(const struct policy *p, struct policy *q,
			 const struct cover_kept *kept)
{
	bool c = spec_covers(q, p, kept);
	policy_free(q);
	return c;
}

/* The state, and the text last accepted for spec_path (*last, or NULL;
 * caller frees) to show what changed. With p given, an acceptance that
 * opens at least what p opens (key_within) counts as the same: a run
 * that only narrows an accepted one is not asked about. */
static void lookup(const char *home, const char *spec_path, const char *digest,
		   const struct policy *p, const struct cover_kept *kept,
		   enum trust_state *st, char **last, struct strv *last_flags)
{
	_cleanup_free_ char *file = paths_specs_file(home);
	struct record *r;
	size_t n;
	records_read(file, &r, &n);
	*st = TRUST_NEW;
	if (last)
		*last = NULL;
	/* Threat: the person ran the spec once with `--read X` beside it;
	 * the program wrote X into its own spec during that run, and the
	 * next run (plain, or with an unrelated flag such as --hide) took
	 * the file for that acceptance. An acceptance stands only for a run
	 * whose flags set again every key its flags set. */
	struct strv mine = {0};
	if (p)
		flags_of(p, &mine);
	for (size_t i = 0; i < n && *st != TRUST_SAME; i++) {
		if (strcmp(r[i].path, spec_path) != 0)
			continue;
		struct policy q;
		if (flags_within(&r[i].flags, &mine) &&
		    (strcmp(r[i].digest, digest) == 0 ||
		     (p && r[i].text && load_text(p, r[i].text, &q) &&
		      covered_free(p, &q, kept)))) {
			*st = TRUST_SAME;
			break;
		}
		*st = TRUST_CHANGED;
		if (last) {
			free(*last);
			*last = r[i].text ? xstrdup(r[i].text) : NULL;
		}
		if (last_flags) {
			strv_free(last_flags);
			strv_copy(last_flags, &r[i].flags);
		}
	}
	if (*st == TRUST_SAME && last) {
		free(*last);
		*last = NULL;
	}
	strv_free(&mine);
	records_free(r, n);
}

int trust_lookup(const char *home, const char *spec_path, const char *digest,
		 enum trust_state *st, struct lnk_err *err)
{
	(void)err;
	lookup(home, spec_path, digest, NULL, NULL, st, NULL, NULL);
	return 0;
}

/* TOML strings must be UTF-8; a path that is not cannot be recorded. */
static bool valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		if (*p < 0x80) {
			p++;
			continue;
		}
		int n = (*p & 0xe0) == 0xc0   ? 1
			: (*p & 0xf0) == 0xe0 ? 2
			: (*p & 0xf8) == 0xf0 ? 3
					      : -1;
		if (n < 0 || *p == 0xc0 || *p == 0xc1 || *p > 0xf4)
			return false;
		for (int i = 1; i <= n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return false;
		p += n + 1;
	}
	return true;
}

static int write_atomic(const char *dir, const char *file, const char *text,
			struct lnk_err *err)
{
	_cleanup_free_ char *tmp = xasprintf("%s/.sandbox.toml.XXXXXX", dir);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return err_set(err, -errno, "cannot write in '%s': %s", dir,
			       strerror(errno));
	int r = 0;
	/* mkostemp makes it 0600 already; say so anyway, whatever the
	 * umask: the record decides what runs unasked. */
	if (fchmod(fd, 0600) < 0 || write_all(fd, text, strlen(text)) < 0 ||
	    fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && rename(tmp, file) < 0)
		r = -errno;
	if (r) {
		unlink(tmp);
		return err_set(err, r, "cannot write '%s': %s", file,
			       strerror(-r));
	}
	/* The rename itself is durable once the folder is synced. */
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		fsync(dfd);
	return 0;
}

static void put_record(struct buf *b, const char *path, const char *digest,
		       const char *text, const struct strv *flags)
{
	buf_puts(b, "\n[[spec]]\npath = ");
	buf_toml_str(b, path, strlen(path));
	buf_puts(b, "\ndigest = ");
	buf_toml_str(b, digest, strlen(digest));
	if (text && valid_utf8(text)) {
		buf_puts(b, "\ntext = ");
		buf_toml_str(b, text, strlen(text));
	}
	if (flags && flags->n) {
		buf_puts(b, "\nflags = [");
		for (size_t i = 0; i < flags->n; i++) {
			if (i)
				buf_puts(b, ", ");
			buf_toml_str(b, flags->v[i], strlen(flags->v[i]));
		}
		buf_putc(b, ']');
	}
	buf_putc(b, '\n');
}

static int record_text(const char *home, const char *spec_path,
		       const char *digest, const char *text,
		       const struct strv *flags, struct lnk_err *err);

int trust_record(const char *home, const char *spec_path, const char *digest,
		 struct lnk_err *err)
{
	return record_text(home, spec_path, digest, NULL, NULL, err);
}

static int record_text(const char *home, const char *spec_path,
		       const char *digest, const char *text,
		       const struct strv *flags, struct lnk_err *err)
{
	if (!valid_utf8(spec_path))
		return 0; /* asks again next time; nothing is opened by it */
	_cleanup_free_ char *dir = paths_specs_dir(home);
	_cleanup_free_ char *file = paths_specs_file(home);
	int r = paths_ensure_dir(dir, err);
	if (r < 0)
		return r;
	_cleanup_free_ char *lockp = xasprintf("%s/.sandbox.toml.lock", dir);
	_cleanup_close_ int lock =
	    open(lockp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lock < 0)
		return err_set(err, -errno, "cannot open '%s': %s", lockp,
			       strerror(errno));
	if (flock(lock, LOCK_EX) < 0)
		return err_set(err, -errno, "cannot lock '%s': %s", lockp,
			       strerror(errno));

	struct record *rec;
	size_t n;
	records_read(file, &rec, &n);
	struct strv keep = {0};
	if (flags)
		strv_copy(&keep, flags);
	struct buf b = {0};
	buf_puts(&b, "# The specs run here, the SHA-256 of what each opened "
		     "when it was accepted,\n"
		     "# and its canonical text (to show what changed). One "
		     "entry per set of flags\n"
		     "# beside it. Written by lnk: a spec missing here, or "
		     "opening something\n"
		     "# different now, asks first.\n");
	/* This spec's other acceptances: the newest TRUST_KEEP - 1 that
	 * differ from this one, which goes last (the newest). */
	size_t same = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(rec[i].path, spec_path) == 0 &&
		    strcmp(rec[i].digest, digest) != 0)
			same++;
	size_t skip = same >= TRUST_KEEP ? same - (TRUST_KEEP - 1) : 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(rec[i].path, spec_path) == 0) {
			if (strcmp(rec[i].digest, digest) == 0) {
				/* accepted before with fewer flags beside:
				 * it stands for more runs, still */
				if (flags_within(&rec[i].flags, &keep)) {
					strv_free(&keep);
					strv_copy(&keep, &rec[i].flags);
				}
				continue;
			}
			if (skip) {
				skip--;
				continue;
			}
		}
		put_record(&b, rec[i].path, rec[i].digest, rec[i].text,
			   &rec[i].flags);
	}
	records_free(rec, n);
	put_record(&b, spec_path, digest, text, &keep);
	strv_free(&keep);
	r = write_atomic(dir, file, b.p, err);
	buf_free(&b);
	return r;
}

static bool read_answer(int fd)
{
	char line[64];
	size_t n = 0;
	for (;;) {
		char c;
		ssize_t r = read(fd, &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || c == '\n' || c == '\r')
			break;
		if (n < sizeof(line) - 1)
			line[n++] = c;
	}
	line[n] = '\0';
	return strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0;
}

/* What a canonical text opens, one line a grant (policy_describe). An
 * unreadable text describes nothing, so everything shows as added. */
static void describe_text(const struct policy *p, const char *text,
			  struct strv *out)
{
	struct policy q;
	struct lnk_err ignored = {0};

	policy_init(&q);
	if (policy_load_spec_text(&q, text, strlen(text), "accepted",
				  p->spec_dir ? p->spec_dir : "/",
				  &ignored) == 0)
		policy_describe(&q, out);
	policy_free(&q);
}

/* "+ line" for what now opens and did not, "- line" for the reverse;
 * the added lines also go to added. */
/* The "+" and "-" lines, into q; the added ones into added. Returns how
 * many lines it wrote (the removed ones take room on a terminal too). */
static size_t show_changes(struct buf *q, const struct policy *p,
			   const char *old, const char *now, struct strv *added)
{
	size_t lines = 0;
	struct strv a = {0}, b = {0};

	describe_text(p, old, &a);
	describe_text(p, now, &b);
	struct policy was;
	if (load_text(p, old, &was)) {
		struct strv re = {0};
		spec_reopened(&was, p, &re);
		for (size_t i = 0; i < re.n; i++) {
			buf_printf(q, "  + %s\n", re.v[i]);
			strv_push(added, re.v[i]);
			lines++;
		}
		strv_free(&re);
		policy_free(&was);
	}
	for (size_t i = 0; i < b.n; i++)
		if (!strv_contains(&a, b.v[i])) {
			buf_puts(q, "  + ");
			buf_puts(q, b.v[i]); /* escaped by policy_describe */
			buf_putc(q, '\n');
			strv_push(added, b.v[i]);
			lines++;
		}
	for (size_t i = 0; i < a.n; i++)
		if (!strv_contains(&b, a.v[i])) {
			buf_puts(q, "  - ");
			buf_puts(q, a.v[i]); /* escaped by policy_describe */
			buf_putc(q, '\n');
			lines++;
		}
	strv_free(&a);
	strv_free(&b);
	return lines;
}

/* Past this many lines the question's top may have scrolled away on a
 * small terminal: what opens most is said again beside the prompt. */
#define RECAP_AFTER 12
#define RECAP_EACH 4

/* Threat: a spec whose list is long (hundreds of hosts or programs)
 * pushes the lines that matter ("writes ~", "reads ~", "reaches any host",
 * a tool) off the screen before the person answers. Repeated last, next
 * to the prompt: of the grants the spec opens now (all of them, also
 * when the question showed only what changed), each kind's first lines
 * and how many more; every program it runs counted in one line, but
 * "every system program" said. shown: how many lines the question had. */
static void recap(struct buf *q, size_t shown, const struct policy *p)
{
	if (shown <= RECAP_AFTER)
		return;
	static const char *const kinds[] = {"writes ", "reads ",    "reaches ",
					    "calls ",  "connects ", "hides ",
					    "says "};
	struct strv all = {0};
	policy_describe(p, &all);
	buf_printf(q, "In short (%zu lines above), it opens:\n", shown);
	bool writes = false;
	size_t runs = 0;
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		size_t n = 0, pl = strlen(kinds[k]);
		for (size_t i = 0; i < all.n; i++) {
			if (strncmp(all.v[i], kinds[k], pl) != 0)
				continue;
			if (n++ < RECAP_EACH)
				buf_printf(q, "  %s\n", all.v[i]);
		}
		if (n > RECAP_EACH)
			buf_printf(q, "  and %zu more that %s\n",
				   n - RECAP_EACH, kinds[k]);
		writes = writes || (k == 0 && n);
	}
	for (size_t i = 0; i < all.n; i++)
		if (strcmp(all.v[i], "runs every system program") == 0)
			buf_printf(q, "  %s\n", all.v[i]);
		else if (strncmp(all.v[i], "runs ", 5) == 0 &&
			 strncmp(all.v[i], "runs no ", 8) != 0)
			runs++;
	if (runs)
		buf_printf(q, "  runs %zu programs\n", runs);
	if (!writes)
		buf_puts(q, "  (it writes no folder)\n");
	strv_free(&all);
}

/* The flags given beside the spec ("--write"), one each, in key order. */
static void flags_of(const struct policy *p, struct strv *out)
{
	for (size_t id = 0; id < K__COUNT; id++) {
		const struct key_value *kv = &p->k[id];
		const struct key_def *d = key_def((enum key_id)id);
		bool flag = kv->from_flag;
		for (size_t i = 0; !flag && kv->item_pos && i < kv->list.n; i++)
			flag = kv->item_pos[i].line == 0;
		if (flag && d->flag)
			strv_push(out, d->flag);
	}
}

/* The flags given beside the spec (flags_of), "--write, --hide", or NULL: a
 * changed acceptance may be theirs, not the file's. */
static char *flags_beside(const struct strv *f)
{
	struct buf b = {0};
	for (size_t i = 0; i < f->n; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", f->v[i]);
	return f->n ? buf_steal(&b) : NULL;
}

/* The grants an acceptance's flags gave (accepted, a flag of theirs
 * not beside the spec now) that the file gives now, each a "+" line:
 * the same grants as accepted, but no longer the person's flag. */
static void from_flags_now(struct buf *q, const struct policy *p,
			   const struct strv *accepted, struct strv *added)
{
	struct strv mine = {0};
	flags_of(p, &mine);
	for (size_t id = 0; id < K__COUNT; id++) {
		const struct key_def *d = key_def((enum key_id)id);
		if (!d->flag || !strv_contains(accepted, d->flag) ||
		    strv_contains(&mine, d->flag))
			continue;
		struct strv lines = {0};
		policy_describe_key(p, (enum key_id)id, &lines);
		for (size_t i = 0; i < lines.n; i++) {
			/* escaped by policy_describe_key */
			buf_printf(q,
				   "  + %s (by %s beside it when you "
				   "accepted it; by the file now)\n",
				   lines.v[i], d->flag);
			strv_push(added, lines.v[i]);
		}
		strv_free(&lines);
	}
	strv_free(&mine);
}

int trust_check_fds(const struct policy *p, const char *home, bool yes,
		    const struct strv *notes, const struct cover_kept *kept,
		    int in_fd, int out_fd, struct lnk_err *err)
{
	if (!p->spec_path)
		return 0; /* typed by the person for this run: nothing to ask */
	char digest[7 + 2 * SHA256_LEN + 1];
	trust_digest(p, digest);
	_cleanup_free_ char *now = accepted_text(p);
	_cleanup_free_ char *last = NULL;
	enum trust_state st;
	int r;
	struct strv last_flags = {0}, mine = {0};
	lookup(home, p->spec_path, digest, p, kept, &st, &last, &last_flags);
	if (st == TRUST_SAME)
		return 0;
	flags_of(p, &mine);
	_cleanup_free_ char *flags = flags_beside(&mine);
	if (yes) {
		r = record_text(home, p->spec_path, digest, now, &mine, err);
		strv_free(&last_flags);
		strv_free(&mine);
		return r;
	}

	/* The spec's path, escaped (common/esc.h): a folder a cloned
	 * repository named must not redraw the question. */
	struct buf shown = {0};
	esc_append(&shown, p->spec_path, strlen(p->spec_path), ESC_TEXT);
	_cleanup_free_ char *what =
	    st == TRUST_NEW ? xstrdup("is new here")
	    : flags	    ? xasprintf("opens something different with %s "
						"beside it than when you accepted it",
					flags)
			    : xstrdup("opens something different since you "
					      "accepted it");
	if (in_fd < 0) {
		r = err_set(err, -EPERM,
			    "spec '%s' %s, and there is no terminal to ask on: "
			    "see what it opens with 'lnk sandbox spec --spec "
			    "%s', then pass --yes to accept it",
			    shown.p, what, shown.p);
		buf_free(&shown);
		goto out;
	}

	struct buf q = {0};
	struct strv shown_lines = {0};
	size_t nshown = 0;
	if (st == TRUST_CHANGED && last) {
		/* What changed, not every grant again. */
		buf_printf(&q, "lnk: spec '%s' %s. What changed:\n", shown.p,
			   what);
		nshown = show_changes(&q, p, last, now, &shown_lines);
		size_t before = shown_lines.n;
		from_flags_now(&q, p, &last_flags, &shown_lines);
		nshown += shown_lines.n - before;
		/* Threat: many "-" lines (hosts left out) push the one "+"
		 * line off a small terminal: what it adds is said again,
		 * last, before the recap. */
		if (nshown > RECAP_AFTER && shown_lines.n) {
			buf_puts(&q, "It adds:\n");
			for (size_t i = 0; i < shown_lines.n && i < 8; i++)
				buf_printf(&q, "  + %s\n", shown_lines.v[i]);
			if (shown_lines.n > 8)
				buf_printf(&q, "  and %zu more\n",
					   shown_lines.n - 8);
		}
	} else {
		buf_printf(&q, "lnk: spec '%s' %s. It %s:\n", shown.p, what,
			   st == TRUST_NEW ? "opens" : "now opens");
		policy_describe(p, &shown_lines);
		for (size_t i = 0; i < shown_lines.n; i++) {
			buf_puts(&q, "  ");
			/* escaped by policy_describe */
			buf_puts(&q, shown_lines.v[i]);
			buf_putc(&q, '\n');
		}
	}
	recap(&q, nshown > shown_lines.n ? nshown : shown_lines.n, p);
	strv_free(&shown_lines);
	for (size_t i = 0; notes && i < notes->n; i++)
		buf_printf(&q, "  (%s)\n", notes->v[i]);
	buf_puts(&q, "Run it with these grants? [y/N] ");
	/* Keys typed before the question (or pasted, or pushed by a program
	 * into the terminal's input) must not answer it. */
	if (isatty(in_fd))
		tcflush(in_fd, TCIFLUSH);
	(void)write_all(out_fd, q.p, q.len);
	buf_free(&q);

	if (!read_answer(in_fd)) {
		r = err_set(err, -EPERM,
			    "spec '%s' was not accepted, so nothing ran; pass "
			    "--yes to accept it without asking",
			    shown.p);
		buf_free(&shown);
		goto out;
	}
	buf_free(&shown);
	r = record_text(home, p->spec_path, digest, now, &mine, err);
out:
	strv_free(&last_flags);
	strv_free(&mine);
	return r;
}

int trust_check(const struct policy *p, const char *home, bool yes,
		const struct strv *notes, const struct cover_kept *kept,
		struct lnk_err *err)
{
	/* /dev/tty, not stdin: the program's input may be a pipe, and the
	 * question is for the person at the terminal. */
	_cleanup_close_ int tty =
	    p->spec_path && !yes
		? open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
		: -1;
	return trust_check_fds(p, home, yes, notes, kept, tty, tty, err);
}
