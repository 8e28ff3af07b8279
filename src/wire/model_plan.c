/* The model routes' plan: each route's API key, read once in lnk before
 * anything forks, and the variables that point the program's SDKs at the
 * wire (wire.h, wire_plan_models and wire_plan_env).
 *
 * The threat: the key is the user's money and identity at the provider.
 * It is held only by the wire, outside; the program gets a placeholder
 * and the route's address on loopback. A key file another user could
 * write (or read) is refused, as a symlink is: its key could be anyone's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "store/paths.h"
#include "wire/model.h"
#include "wire/tls_lib.h"
#include "wire/plan.h"
#include "wire/scrub.h"

/* the longest key the answer's masking takes whole (scrub.h) */
#define KEY_MAX SCRUB_KEY_MAX

/* A key goes into a header line: printable ASCII without spaces. */
static bool key_ok(const char *k, size_t n)
{
	if (n == 0 || n > KEY_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)k[i] <= 0x20 || (unsigned char)k[i] >= 0x7f)
			return false;
	return true;
}

static int key_from_file(const char *path, char **out, struct lnk_err *err)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno == ENOENT ? 0
				       : err_set(err, -errno,
						 "cannot read the key file "
						 "'%s': %s",
						 path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(err, -EINVAL,
			       "the key file '%s' is not a regular file", path);
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return err_set(err, -EPERM,
			       "the key file '%s' must be yours and private: "
			       "chmod 600 '%s'",
			       path, path);
	}
	char b[KEY_MAX + 2];
	ssize_t n = read(fd, b, sizeof(b));
	close(fd);
	if (n < 0)
		return err_set(err, -errno, "cannot read the key file '%s': %s",
			       path, strerror(errno));
	size_t l = (size_t)n;
	while (l && (b[l - 1] == '\n' || b[l - 1] == '\r' || b[l - 1] == ' '))
		l--;
	if (!key_ok(b, l)) {
		explicit_bzero(b, sizeof(b));
		return err_set(err, -EINVAL,
			       "the key file '%s' does not hold one key (1 to "
			       "%d printable characters without spaces)",
			       path, KEY_MAX);
	}
	*out = xstrndup(b, l);
	explicit_bzero(b, sizeof(b));
	return 0;
}

#ifdef LNK_TEST_HOOKS
/* TEST BUILDS ONLY (meson -Dtest_hooks=true): LNK_TEST_MODEL_ORIGIN=
 * "NAME=https://host:port/base" sends the built-in route NAME to a fake
 * provider in the test network (tests/e2e/fake_provider.py), keeping its
 * API, variables and key: the built-ins' real hosts are never called by
 * a test. */
static void test_origin(struct model_def *d)
{
	const char *v = getenv("LNK_TEST_MODEL_ORIGIN");
	size_t nl = strlen(d->name);
	if (!v || strncmp(v, d->name, nl) != 0 || v[nl] != '=')
		return;
	_cleanup_free_ char *e = xasprintf("test-%s", v);
	struct model_def t;
	struct lnk_err err = {0};
	if (model_parse(e, strlen(e), &t, &err) < 0)
		return;
	memcpy(d->host, t.host, sizeof(d->host));
	d->port = t.port;
	memcpy(d->base, t.base, sizeof(d->base));
}
#endif

/* The wire reads the CA store when it starts; one that is not there is
 * said now, before the sandbox starts without a working route. */
static int check_ca(struct lnk_err *err)
{
	struct tls_lib *T;
	int r = tls_lib_load(&T, err);
	if (r < 0)
		return r;
	const char *file = getenv(T->X509_get_default_cert_file_env());
	const char *dir = getenv(T->X509_get_default_cert_dir_env());
	_cleanup_free_ char *deflt = xstrdup(T->X509_get_default_cert_file());
	tls_lib_free(T);
	if (!file || !*file)
		file = deflt;
	if (access(file, R_OK) == 0 || (dir && *dir))
		return 0;
	return err_set(err, -ENOENT,
		       "--model: no CA certificates to check providers with "
		       "at '%s': install ca-certificates, or set "
		       "SSL_CERT_FILE",
		       file);
}

int wire_plan_models(struct wire_plan *wp, const struct strv *models,
		     const char *home, struct lnk_err *err)
{
	if (!models || !models->n)
		return 0;
	int rc0 = check_ca(err);
	if (rc0 < 0)
		return rc0;
	wp->models = xcalloc(models->n, sizeof(*wp->models));
	for (size_t i = 0; i < models->n; i++) {
		struct model_route *r = &wp->models[wp->nmodels];
		int rc =
		    model_parse(models->v[i], strlen(models->v[i]), &r->d, err);
		if (rc < 0)
			return rc;
		bool dup = false;
		for (size_t j = 0; j < wp->nmodels; j++)
			dup |= strcmp(wp->models[j].d.name, r->d.name) == 0;
		if (dup)
			return err_set(err, -EINVAL,
				       "the model route '%s' is given twice",
				       r->d.name);
		wp->nmodels++;
#ifdef LNK_TEST_HOOKS
		test_origin(&r->d);
#endif
		char var[MODEL_NAME_MAX + 16];
		model_key_var(&r->d, var, sizeof(var));
		const char *v = getenv(var);
		if (v && *v) {
			if (!key_ok(v, strlen(v)))
				return err_set(err, -EINVAL,
					       "%s does not hold one key (1 to "
					       "%d printable characters "
					       "without spaces)",
					       var, KEY_MAX);
			r->key = xstrdup(v);
			continue;
		}
		_cleanup_free_ char *dir =
		    home ? paths_sandbox_dir(home) : NULL;
		_cleanup_free_ char *path =
		    dir ? xasprintf("%s/%s.key", dir, r->d.name) : NULL;
		if (path && (rc = key_from_file(path, &r->key, err)) < 0)
			return rc;
		if (!r->key)
			return err_set(
			    err, -ENOKEY,
			    "--model %s: no API key: set %s in lnk's "
			    "environment, or write it to %s (mode "
			    "0600)",
			    r->d.name, var,
			    path ? path : "~/.lnk/sandbox/NAME.key");
	}
	return 0;
}

int wire_plan_models_env(const struct wire_plan *wp, const struct strv *pass,
			 struct lnk_err *err)
{
	for (size_t i = 0; i < wp->nmodels; i++) {
		char var[MODEL_NAME_MAX + 16];
		model_key_var(&wp->models[i].d, var, sizeof(var));
		if (pass && strv_contains(pass, var))
			return err_set(err, -EINVAL,
				       "--env %s would put the key of the "
				       "model route '%s' inside the sandbox; "
				       "the route adds it from outside: leave "
				       "--env %s out",
				       var, wp->models[i].d.name, var);
	}
	return 0;
}

void model_plan_free(struct wire_plan *wp)
{
	for (size_t i = 0; i < wp->nmodels; i++) {
		if (wp->models[i].key) {
			explicit_bzero(wp->models[i].key,
				       strlen(wp->models[i].key));
			free(wp->models[i].key);
		}
	}
	free(wp->models);
	wp->models = NULL;
	wp->nmodels = 0;
}

void model_plan_env(const struct wire_plan *wp, struct strv *env)
{
	for (size_t i = 0; i < wp->nmodels; i++) {
		const struct model_def *d = &wp->models[i].d;
		char var[MODEL_NAME_MAX + 16];
		size_t k = 0;
		for (; d->name[k]; k++)
			var[k] =
			    d->name[k] == '-'
				? '_'
				: (char)(d->name[k] >= 'a' && d->name[k] <= 'z'
					     ? d->name[k] - 32
					     : d->name[k]);
		var[k] = '\0';
		strv_pushf(
		    env, "LNK_MODEL_%s_URL=http://127.0.0.1:%u" MODEL_PATH "%s",
		    var, wp->http_port, d->name);
		if (!d->builtin)
			continue;
		/* the SDKs' own variables; the key is a placeholder the
		 * wire drops (the SDKs refuse to start without one) */
		const char *pre =
		    d->api == MODEL_API_ANTHROPIC ? "ANTHROPIC" : "OPENAI";
		strv_pushf(env,
			   "%s_BASE_URL=http://127.0.0.1:%u" MODEL_PATH "%s",
			   pre, wp->http_port, d->name);
		strv_pushf(env, "%s_API_KEY=" MODEL_KEY_PLACEHOLDER, pre);
	}
}
