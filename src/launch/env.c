/* The program's environment (see env.h). */
#include <string.h>

#include "launch/env.h"

const char *env_lookup(char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

static bool valid_name(const char *s)
{
	return s && *s && !strchr(s, '=');
}

static size_t key_len(const char *kv)
{
	const char *eq = strchr(kv, '=');
	return eq ? (size_t)(eq - kv) : strlen(kv);
}

/* Sets name=value, replacing an earlier entry of the same name. */
static void set(struct strv *out, const char *name, size_t nlen,
		const char *value)
{
	for (size_t i = 0; i < out->n; i++)
		if (key_len(out->v[i]) == nlen &&
		    strncmp(out->v[i], name, nlen) == 0) {
			free(out->v[i]);
			out->v[i] =
			    xasprintf("%.*s=%s", (int)nlen, name, value);
			return;
		}
	strv_pushf(out, "%.*s=%s", (int)nlen, name, value);
}

static void set_s(struct strv *out, const char *name, const char *value)
{
	set(out, name, strlen(name), value);
}

static void pass_through(struct strv *out, char *const *host, const char *name)
{
	const char *v = env_lookup(host, name);
	if (v)
		set_s(out, name, v);
}

void env_build(const struct env_in *in, struct strv *out)
{
	set_s(out, "PATH", ENV_SANDBOX_PATH);
	if (in->home)
		set_s(out, "HOME", in->home);
	if (in->user && *in->user) {
		set_s(out, "USER", in->user);
		set_s(out, "LOGNAME", in->user);
	}
	if (in->shell && in->shell[0] == '/')
		set_s(out, "SHELL", in->shell);
	pass_through(out, in->host_env, "TERM");
	const char *lang = env_lookup(in->host_env, "LANG");
	const char *lc_all = env_lookup(in->host_env, "LC_ALL");
	if (lang)
		set_s(out, "LANG", lang);
	if (lc_all)
		set_s(out, "LC_ALL", lc_all);
	if (!lang && !lc_all)
		set_s(out, "LANG", "C.UTF-8");

	for (size_t i = 0; in->pass && i < in->pass->n; i++)
		if (valid_name(in->pass->v[i]))
			pass_through(out, in->host_env, in->pass->v[i]);

	for (size_t i = 0; in->extra && i < in->extra->n; i++) {
		const char *kv = in->extra->v[i];
		const char *eq = strchr(kv, '=');
		if (!eq || eq == kv)
			continue;
		set(out, kv, (size_t)(eq - kv), eq + 1);
	}
}
