/* The policy: flags into it, merge rules, copies, and what it opens in
 * words. Paths are resolved in resolve.c; specs are read in spec/spec.c. */
#include "policy/policy.h"

#include <errno.h>
#include <string.h>

#include "common/buf.h"
#include "common/esc.h"
#include "policy/models.h"

void policy_init(struct policy *p)
{
	memset(p, 0, sizeof(*p));
}

void policy_clear_key(struct key_value *kv)
{
	strv_free(&kv->list);
	free(kv->str);
	free(kv->item_pos);
	memset(kv, 0, sizeof(*kv));
}

void policy_free(struct policy *p)
{
	for (size_t i = 0; i < K__COUNT; i++)
		policy_clear_key(&p->k[i]);
	free(p->spec_path);
	free(p->spec_name);
	free(p->spec_dir);
	strv_free(&p->always_hidden);
	facts_free(p->facts);
	memset(p, 0, sizeof(*p));
}

void policy_push(struct key_value *kv, const char *s, struct toml_pos pos)
{
	kv->set = true;
	/* One grant written twice is one grant: keeps the canonical text and
	 * the trust digest independent of repetition. Before resolve, "." from
	 * the spec and "." from a flag are different folders (the spec's and
	 * the working one), so only entries of the same origin are merged. */
	for (size_t i = 0; i < kv->list.n; i++)
		if (strcmp(kv->list.v[i], s) == 0 &&
		    (kv->item_pos[i].line > 0) == (pos.line > 0))
			return;
	strv_push(&kv->list, s);
	kv->item_pos =
	    xrealloc(kv->item_pos, kv->list.n * sizeof(*kv->item_pos));
	kv->item_pos[kv->list.n - 1] = pos;
}

int policy_add_flag(struct policy *p, enum key_id id, const char *arg,
		    struct lnk_err *err)
{
	const struct key_def *d = key_def(id);
	if (!d || !d->flag)
		return err_set(err, -EINVAL, "this key has no flag");
	_cleanup_free_ char *norm = NULL;
	int r = key_normalize(d, arg, strlen(arg), &norm, err);
	if (r < 0)
		return err_prefix(err, "%s: ", d->flag);
	struct key_value *kv = &p->k[id];
	kv->from_flag = true;
	kv->pos = (struct toml_pos){0, 0};
	if (key_is_list(d->type)) {
		policy_push(kv, norm, (struct toml_pos){0, 0});
	} else {
		/* --name given twice: the last wins, as with most programs. */
		free(kv->str);
		kv->str = steal_pointer(&norm);
		kv->set = true;
	}
	return 0;
}

static void copy_key(struct key_value *dst, const struct key_value *src)
{
	policy_clear_key(dst);
	dst->set = src->set;
	dst->from_flag = src->from_flag;
	dst->num = src->num;
	dst->pos = src->pos;
	dst->str = src->str ? xstrdup(src->str) : NULL;
	for (size_t i = 0; i < src->list.n; i++)
		policy_push(dst, src->list.v[i], src->item_pos[i]);
	dst->set = src->set;
}

void policy_merge_flags(struct policy *p, const struct policy *flags)
{
	for (size_t i = 0; i < K__COUNT; i++) {
		const struct key_value *f = &flags->k[i];
		if (!f->set)
			continue;
		const struct key_def *d = key_def((enum key_id)i);
		switch (d->merge) {
		case MERGE_REPLACE:
			copy_key(&p->k[i], f);
			break;
		case MERGE_ADD:
			/* --hide only closes more: adding to the file's list
			 * can never open what the spec kept closed. The key
			 * stays the file's if the file set it. */
			if (!p->k[i].set)
				p->k[i].from_flag = true;
			for (size_t j = 0; j < f->list.n; j++)
				policy_push(&p->k[i], f->list.v[j],
					    f->item_pos[j]);
			p->k[i].set = true;
			break;
		}
	}
}

void policy_copy(struct policy *dst, const struct policy *src)
{
	policy_init(dst);
	for (size_t i = 0; i < K__COUNT; i++)
		copy_key(&dst->k[i], &src->k[i]);
	dst->spec_path = src->spec_path ? xstrdup(src->spec_path) : NULL;
	dst->spec_name = src->spec_name ? xstrdup(src->spec_name) : NULL;
	dst->spec_dir = src->spec_dir ? xstrdup(src->spec_dir) : NULL;
	dst->resolved = src->resolved;
	strv_copy(&dst->always_hidden, &src->always_hidden);
	dst->facts = src->facts ? facts_new() : NULL;
}

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

bool policy_equal(const struct policy *a, const struct policy *b)
{
	for (size_t i = 0; i < K__COUNT; i++) {
		const struct key_value *x = &a->k[i], *y = &b->k[i];
		if (x->set != y->set)
			return false;
		if (!x->set)
			continue;
		if (!str_eq(x->str, y->str) || x->num != y->num ||
		    x->list.n != y->list.n)
			return false;
		for (size_t j = 0; j < x->list.n; j++)
			if (strcmp(x->list.v[j], y->list.v[j]) != 0)
				return false;
	}
	return true;
}

bool policy_wants_tools(const struct policy *p)
{
	return p->k[K_TOOLS_ALLOW].list.n > 0 ||
	       p->k[K_BROWSER_OPEN].list.n > 0;
}

bool policy_any_command(const struct policy *p)
{
	return strv_contains(&p->k[K_COMMANDS_ALLOW].list, "*");
}

char *policy_origin(const struct policy *p, enum key_id id, size_t i)
{
	const struct key_def *d = key_def(id);
	const struct key_value *kv = &p->k[id];
	struct toml_pos pos = kv->pos;
	if (key_is_list(d->type) && i < kv->list.n && kv->item_pos)
		pos = kv->item_pos[i];
	if (pos.line == 0)
		return xstrdup(d->flag ? d->flag : d->key);
	const char *name = p->spec_name ? p->spec_name : "spec";
	if (d->section)
		return xasprintf("%s:%u:%u: [%s] %s", name, pos.line, pos.col,
				 d->section, d->key);
	return xasprintf("%s:%u:%u: %s", name, pos.line, pos.col, d->key);
}

/* One line for one entry, v already escaped (common/esc.h): a spec's
 * value would otherwise redraw the asked-first question. */
static void describe_entry(enum key_id id, const char *v, struct strv *out)
{
	switch (id) {
	case K_NAME:
	case K_VERSION:
	case K__COUNT:
		return;
	case K_FILES_CHANGES:
		/* opens nothing, but "off" hides what a run left that runs
		 * later: shown, and asked about (spec/cover.c) */
		if (strcmp(v, "off") == 0)
			strv_pushf(out, "says nothing of what it leaves in the "
					"write folders");
		else if (strcmp(v, "full") == 0)
			strv_pushf(out,
				   "says everything it leaves in the write "
				   "folders (changes = full)");
		return;
	case K_FILES_WRITE:
		strv_pushf(out, "writes %s", v);
		return;
	case K_FILES_READ:
		strv_pushf(out, "reads %s", v);
		return;
	case K_FILES_HIDE:
		strv_pushf(out, "hides %s", v);
		return;
	case K_FILES_WRITE_DOT_FILES:
		strv_pushf(out,
			   "writes the dot files (.git, .envrc, ...) at "
			   "the top of %s",
			   v);
		return;
	case K_INTERNET_HOSTS:
		if (strcmp(v, "*") == 0)
			strv_pushf(out, "reaches any host on the internet");
		else
			strv_pushf(out, "reaches internet host %s", v);
		return;
	case K_INTERNET_MODELS: {
		/* Whose key goes where: a spec's own route
		 * (NAME=https://host) receives the user's NAME_API_KEY, so
		 * the question names the key and the host it goes to, not
		 * only the route's name. */
		struct model_def d;
		struct lnk_err ignored = {0};
		char var[MODEL_NAME_MAX + 16];
		if (model_parse(v, strlen(v), &d, &ignored) < 0) {
			strv_pushf(out, "calls the hosted model %s", v);
			return;
		}
		model_key_var(&d, var, sizeof(var));
		strv_pushf(out,
			   "sends your %s (or ~/.lnk/sandbox/%s.key) to %s%s, "
			   "for the model route %s; the key stays outside",
			   var, d.name, d.host,
			   d.builtin ? "" : " (a route the spec names)",
			   d.name);
		return;
	}
	case K_LAN_HOSTS:
		strv_pushf(out, "reaches %s on this network", v);
		return;
	case K_LOCALHOST_PORTS:
		strv_pushf(out, "connects to port %s on this machine", v);
		return;
	case K_TOOLS_ALLOW:
		strv_pushf(out, "calls the tool '%s' outside the sandbox", v);
		return;
	case K_BROWSER_OPEN:
		strv_pushf(out, "opens pages %s in your browser", v);
		return;
	case K_COMMANDS_ALLOW:
		if (strcmp(v, "*") == 0)
			strv_pushf(out, "runs every system program");
		else
			strv_pushf(out, "runs %s", v);
		return;
	case K_COMMANDS_ENV:
		strv_pushf(out, "gets the variable %s from your environment",
			   v);
		return;
	case K_LIMITS_MEMORY:
		strv_pushf(out, "uses at most %s of memory", v);
		return;
	case K_LIMITS_TASKS:
		strv_pushf(out, "has at most %s processes and threads", v);
		return;
	case K_LIMITS_TMP_SIZE:
		strv_pushf(out,
			   "has at most %s in each of /tmp, /var/tmp, "
			   "/dev/shm and its home",
			   v);
		return;
	case K_TRIP_CALLS:
		strv_pushf(out,
			   "pauses its wire at %s calls refused within a "
			   "minute",
			   v);
		return;
	case K_TRIP_TARGETS:
		strv_pushf(out,
			   "pauses its wire at %s different targets "
			   "refused within 10 minutes",
			   v);
		return;
	case K_TOOLS_ASK_WAIT:
		strv_pushf(out, "a question waits %s seconds for an answer", v);
		return;
	}
}

void policy_describe_key(const struct policy *p, enum key_id id,
			 struct strv *out)
{
	const struct key_value *kv = &p->k[id];
	for (size_t j = 0; j < kv->list.n; j++) {
		_cleanup_free_ char *v = esc_dup(kv->list.v[j]);
		describe_entry(id, v, out);
	}
	if (!kv->list.n && kv->set && kv->str && id != K_NAME) {
		_cleanup_free_ char *v = esc_dup(kv->str);
		describe_entry(id, v, out);
	}
}

void policy_describe(const struct policy *p, struct strv *out)
{
	/* The name is shown, though it opens nothing: the sandbox's calls,
	 * traffic, pause and resume go by it, and a spec could take an
	 * agent's (main-link) for its own. */
	const struct key_value *name = &p->k[K_NAME];
	if (name->set && name->str && name->str[0]) {
		_cleanup_free_ char *v = esc_dup(name->str);
		strv_pushf(out,
			   "is named %s (its calls are logged, counted and "
			   "paused under that name)",
			   v);
	}
	size_t before = out->n;
	for (size_t i = 0; i < K__COUNT; i++) {
		const struct key_value *kv = &p->k[i];
		for (size_t j = 0; j < kv->list.n; j++) {
			_cleanup_free_ char *v = esc_dup(kv->list.v[j]);
			describe_entry((enum key_id)i, v, out);
		}
	}
	if (out->n == before)
		strv_push(out, "opens nothing: no files, no network, and runs "
			       "no program");
	else if (!p->k[K_COMMANDS_ALLOW].list.n)
		strv_push(out, "runs no program ([commands] allow is empty)");
	/* Limits open nothing, but a changed one is asked about again, so
	 * the question shows them (a 0 threshold keeps the settings'). */
	for (size_t i = 0; i < K__COUNT; i++) {
		const struct key_value *kv = &p->k[i];
		enum key_type t = key_def((enum key_id)i)->type;
		if ((t == KT_SIZE || t == KT_COUNT) && kv->set && kv->str &&
		    strcmp(kv->str, "0") != 0)
			describe_entry((enum key_id)i, kv->str, out);
	}
	const struct key_value *ch = &p->k[K_FILES_CHANGES];
	if (ch->set && ch->str)
		describe_entry(K_FILES_CHANGES, ch->str, out);
}
