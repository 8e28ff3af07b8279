/* One call on the model route (model.h): read the program's request,
 * resolve and check the provider's address, connect, TLS, send the
 * request with the key, relay the answer while the usage reader counts.
 *
 * Threats, and what answers each:
 *  - the program wants the key: it never has it; the credentials it sends
 *    (any header naming auth, key, token or cookie) are dropped, the key
 *    is written only into the TLS stream to the route's own host, and an
 *    answer that shows it back has it masked (scrub.h);
 *  - the program aims the key elsewhere: the host, port and base path are
 *    the route's, from the plan; the path the program adds may not climb
 *    out of the base (no dot segments, no backslash);
 *  - a huge, slow or malformed request: bounded (MODEL_REQ_MAX, a
 *    deadline), answered with a clear status, and only this call ends;
 *  - a hostile or broken provider: its answer goes to the program as it
 *    came (after a head rewritten to close), counted by a bounded reader
 *    that never guesses; a provider whose certificate does not verify
 *    gets nothing.
 *
 * Over 1000 lines: one model call from request to answer (TLS, the key, the
 * relay, usage); its readers are already apart (src/proto/usage.c, scrub.c).
 */
#include "wire/model.h"

#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/compat.h"
#include "common/buf.h"
#include "net/said.h"
#include "proto/usage.h"
#include "wire/http.h"
#include "wire/tls_lib.h"
#include "wire/scrub.h"
#include "wire/wire_int.h"

/* The request, head and body, must arrive within this; the answer may
 * be silent this long between two reads (a model thinks, but a provider
 * that stops is not waited for forever). */
#define MODEL_REQ_TIMEOUT_MS 60000
#define MODEL_IDLE_TIMEOUT_MS 300000
/* Answer bytes read from TLS but not yet taken by the program: reading
 * stops there (the provider waits, the wire does not grow). */
#define MODEL_PEND_MAX (256u * 1024)
/* The request bytes all calls may hold at once. */
#define MODEL_HELD_MAX (256u << 20)

enum mstate {
	MS_REQ,	    /* reading the program's request */
	MS_RESOLVE, /* the provider's name */
	MS_CONNECT,
	MS_TLS,	  /* handshake */
	MS_RELAY, /* request out, answer back */
	MS_LINGER,
};

struct mconn {
	struct loop_handler ch, uh;
	struct wire *w;
	const struct model_route *r;
	enum mstate st;
	int64_t deadline;
	int64_t seq;
	bool logged;
	char target[DB_TARGET_MAX];
	char model[USAGE_MODEL_MAX]; /* the model the request names, or "" */
	struct buf in;		     /* the request so far */
	size_t held;		     /* counted in the wire's model_held */
	size_t head_len;
	size_t body_len;
	bool sent_continue;
	struct buf out; /* the request to the provider */
	size_t out_off;
	struct lnk_addr addrs[DNS_MAX_ADDRS];
	size_t naddrs, ai;
	int last_err;
	int ask_slot; /* its connect asked of the keeper (w->asks), or -1 */
	struct dns_query *q;
	SSL *ssl;
	/* the answer: its head until complete (rewritten once), then bytes
	 * waiting for the program */
	struct buf ahead;
	bool head_passed;
	struct buf pend;
	size_t pend_off;
	bool up_eof;
	struct usage_reader ur;
	struct scrub sc; /* the key masked in the answer (scrub.h) */
	bool sc_ended;
	uint64_t up, down;
	struct mconn *prev, *next;
};

#define MC_OF(h, member) \
	((struct mconn *)((char *)(h)-offsetof(struct mconn, member)))

static void on_client(struct loop_handler *h, uint32_t ev);
static void on_upstream(struct loop_handler *h, uint32_t ev);

/* ---- TLS setup (before confinement) ---- */

/* Every certificate of a PEM file into the store now: the confined wire
 * can open no file later, so nothing may be looked up lazily. */
static int load_file(const struct tls_lib *T, X509_STORE *st, const char *path)
{
	return T->X509_STORE_load_file(st, path) == 1 ? 0 : -1;
}

int model_tls_setup(struct wire *w, struct lnk_err *err)
{
	if (!w->wp->nmodels)
		return 0;
	int r = tls_lib_load(&w->tl, err);
	if (r < 0)
		return r;
	const struct tls_lib *T = w->tl;
	if (T->OPENSSL_init_ssl(OPENSSL_INIT_LOAD_SSL_STRINGS |
				    OPENSSL_INIT_LOAD_CRYPTO_STRINGS |
				    OPENSSL_INIT_NO_LOAD_CONFIG,
				NULL) != 1)
		return err_set(err, -EIO, "cannot start OpenSSL");
	SSL_CTX *ctx = T->SSL_CTX_new(T->TLS_client_method());
	if (!ctx)
		return err_set(err, -ENOMEM, "cannot make a TLS context");
	/* SSL_CTX_set_min_proto_version and SSL_CTX_set_mode, which are
	 * macros over SSL_CTX_ctrl */
	T->SSL_CTX_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION,
			NULL);
	T->SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	T->SSL_CTX_ctrl(ctx, SSL_CTRL_MODE,
			SSL_MODE_ENABLE_PARTIAL_WRITE |
			    SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER,
			NULL);
	/* an end without close_notify is an end: the answer's own framing
	 * (a length, the last chunk) says whether it was whole */
	T->SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION |
					SSL_OP_IGNORE_UNEXPECTED_EOF);
	X509_STORE *st = T->SSL_CTX_get_cert_store(ctx);
	/* As OpenSSL programs do: SSL_CERT_FILE replaces the default file,
	 * SSL_CERT_DIR the default folder. The default folder holds the same
	 * certificates as the default file on Debian (ca-certificates makes
	 * both), so it is read only when SSL_CERT_DIR names one. */
	const char *file = getenv(T->X509_get_default_cert_file_env());
	if (!file || !*file)
		file = T->X509_get_default_cert_file();
	int loaded = load_file(T, st, file) == 0;
	const char *dirs = getenv(T->X509_get_default_cert_dir_env());
	if (dirs && *dirs) {
		_cleanup_free_ char *copy = xstrdup(dirs);
		char *save = NULL;
		for (char *d = strtok_r(copy, ":", &save); d;
		     d = strtok_r(NULL, ":", &save)) {
			DIR *dh = opendir(d);
			if (!dh)
				continue;
			struct dirent *de;
			while ((de = readdir(dh))) {
				if (de->d_name[0] == '.')
					continue;
				_cleanup_free_ char *p =
				    xasprintf("%s/%s", d, de->d_name);
				loaded |= load_file(T, st, p) == 0;
			}
			closedir(dh);
		}
	}
	T->ERR_clear_error();
	if (!loaded) {
		T->SSL_CTX_free(ctx);
		return err_set(err, -ENOENT,
			       "--model: no CA certificates to check the "
			       "provider with (read '%s'%s%s): install "
			       "ca-certificates or set SSL_CERT_FILE",
			       file, dirs ? " and " : "", dirs ? dirs : "");
	}
	/* One handshake object now: whatever OpenSSL sets up on first use
	 * (its random generator, its methods) is set up before the wire
	 * is confined. */
	SSL *warm = T->SSL_new(ctx);
	unsigned char rnd[16];
	if (!warm || T->RAND_bytes(rnd, sizeof(rnd)) != 1) {
		T->SSL_free(warm);
		T->SSL_CTX_free(ctx);
		return err_set(err, -EIO, "cannot set up TLS");
	}
	T->SSL_free(warm);
	w->tls = ctx;
	return 0;
}

void model_tls_free(struct wire *w)
{
	if (w->tls)
		w->tl->SSL_CTX_free(w->tls);
	w->tls = NULL;
	tls_lib_free(w->tl);
	w->tl = NULL;
}

/* ---- the request ---- */

bool model_wants(const char *in, size_t len)
{
	const char *sp = memchr(in, ' ', len < 32 ? len : 32);
	size_t pl = strlen(MODEL_PATH);
	return sp && (size_t)(in + len - sp - 1) >= pl &&
	       memcmp(sp + 1, MODEL_PATH, pl) == 0;
}

static void mc_log(struct mconn *m, enum db_outcome o, const char *reason)
{
	struct wire *w = m->w;
	if (o == DB_ENDED) {
		db_batch_update(&w->batch, m->seq, o, reason, m->up, m->down);
	} else if ((o != DB_REFUSED || wire_refusal_logged(w)) &&
		   (o != DB_FAILED || wire_failure_logged(w))) {
		/* refusals through the sandbox's one cap, as the wire's
		 * others, failures through theirs: a program cannot fill
		 * the disk with them */
		db_batch_call(&w->batch, m->seq, time(NULL), "model", m->target,
			      o, reason, 0, 0);
		if (o == DB_ALLOWED)
			m->logged = true;
	}
}

/* The request bytes this call holds (its request, then the rewritten one
 * until it is sent) count against MODEL_HELD_MAX for all calls together:
 * many connections with large bodies cannot take the wire's memory. */
static void hold(struct mconn *m, size_t n)
{
	m->w->model_held += n;
	m->w->model_held -= m->held;
	m->held = n;
}

static void mc_unlink(struct mconn *m)
{
	struct wire *w = m->w;
	if (m->prev)
		m->prev->next = m->next;
	else
		w->models = m->next;
	if (m->next)
		m->next->prev = m->prev;
	w->nmodel_conns--;
	m->next = w->model_graveyard;
	m->prev = NULL;
	w->model_graveyard = m;
}

/* The call no longer waits for the keeper: an answer that comes later
 * finds no call (its socket is closed, conn.c). */
static void ask_detach(struct mconn *m)
{
	if (m->ask_slot >= 0)
		m->w->asks[m->ask_slot].m = NULL;
	m->ask_slot = -1;
}

static void mc_close(struct mconn *m)
{
	struct wire *w = m->w;
	ask_detach(m);
	if (m->logged) {
		const char *why = "";
		if (usage_cut(&m->ur))
			why = m->up_eof ? "the provider's answer was cut short"
					: "the answer did not end";
		usage_finish(&m->ur);
		if (usage_bad(&m->ur))
			why = "the provider's answer is malformed";
		else if (!m->ur.status)
			why = "the provider's answer ended before its head";
		/* The model that answered, when the answer names another
		 * than the request did (a gateway's fallback, an alias's
		 * dated name): the log says what was served, not only what
		 * was asked for. A name of printable ASCII (usage.h). */
		char served[DB_REASON_MAX];
		if (m->ur.model[0] && strcmp(m->ur.model, m->model) != 0) {
			snprintf(served, sizeof(served),
				 "%s%sthe provider served %s", why,
				 *why ? "; " : "", m->ur.model);
			why = served;
		}
		mc_log(m, DB_ENDED, why);
		db_batch_usage(&w->batch, m->seq, m->r->d.name, m->ur.status,
			       m->ur.in, m->ur.out);
		m->logged = false;
	} else if (m->st == MS_CONNECT || m->st == MS_TLS) {
		/* the provider was reached (a handshake) though the program
		 * left before anything was carried: a call of the log */
		mc_log(m, DB_FAILED,
		       "the program closed the call before its connect ended");
	}
	dns_cancel(m->q);
	m->q = NULL;
	loop_del(w->loop, &m->ch);
	loop_del(w->loop, &m->uh);
	if (m->ssl) {
		m->w->tl->SSL_free(m->ssl);
		m->ssl = NULL;
	}
	if (m->ch.fd >= 0)
		close(m->ch.fd);
	if (m->uh.fd >= 0)
		close(m->uh.fd);
	m->ch.fd = m->uh.fd = -1;
	buf_free(&m->in);
	if (m->out.p)
		explicit_bzero(m->out.p, m->out.len); /* it holds the key */
	buf_free(&m->out);
	hold(m, 0);
	buf_free(&m->ahead);
	buf_free(&m->pend);
	usage_free(&m->ur);
	mc_unlink(m);
}

static void set_interest(struct mconn *m)
{
	struct loop *l = m->w->loop;
	uint32_t ce = 0, ue = 0;
	switch (m->st) {
	case MS_REQ:
	case MS_LINGER:
		ce = LOOP_IN;
		break;
	case MS_RESOLVE:
		ce = LOOP_IN; /* only to see the program leave */
		break;
	case MS_CONNECT:
		ce = LOOP_IN;
		ue = LOOP_OUT;
		break;
	case MS_TLS:
	case MS_RELAY: {
		size_t pend = m->pend.len - m->pend_off;
		/* the program: its turn to take what waits, else only to
		 * see it leave */
		ce = pend ? LOOP_OUT : LOOP_IN;
		if (m->up_eof || !m->ssl)
			break;
		/* the provider: the way OpenSSL waits, and reading only
		 * while the program keeps up */
		int want = m->w->tl->SSL_want(m->ssl);
		if (want == SSL_WRITING ||
		    (m->out_off < m->out.len && want != SSL_READING))
			ue |= LOOP_OUT;
		if (pend < MODEL_PEND_MAX || m->st == MS_TLS)
			ue |= LOOP_IN;
		break;
	}
	}
	if (m->ch.fd >= 0 && loop_set(l, &m->ch, ce) < 0)
		mc_close(m);
	else if (m->uh.fd >= 0 && loop_set(l, &m->uh, ue) < 0)
		mc_close(m);
}

/* An answer the wire gives itself, then linger until the program closes. */
static void answer(struct mconn *m, int status, const char *why)
{
	struct buf b = {0};
	http_error_response(&b, status, m->target, why);
	if (send(m->ch.fd, b.p, b.len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* the program is gone or stuck: nothing to tell */
	}
	buf_free(&b);
	dns_cancel(m->q);
	m->q = NULL;
	ask_detach(m);
	if (m->ssl) {
		m->w->tl->SSL_free(m->ssl);
		m->ssl = NULL;
	}
	if (m->uh.fd >= 0) {
		loop_del(m->w->loop, &m->uh);
		close(m->uh.fd);
		m->uh.fd = -1;
	}
	buf_free(&m->in);
	hold(m, m->out.len);
	shutdown(m->ch.fd, SHUT_WR);
	m->st = MS_LINGER;
	m->deadline = wire_deadline(m->w, WIRE_LINGER_MS);
	set_interest(m);
}

static void refuse(struct mconn *m, int status, const char *why, bool trip)
{
	mc_log(m, DB_REFUSED, why);
	answer(m, status, why);
	if (trip)
		wire_trip_note(m->w, TRIP_EV_REFUSED, m->target);
}

static void fail(struct mconn *m, int status, const char *why)
{
	if (m->logged) {
		/* connected, then broke before an answer */
		mc_log(m, DB_ENDED, why);
		db_batch_usage(&m->w->batch, m->seq, m->r->d.name, 0, -1, -1);
		m->logged = false;
	} else {
		mc_log(m, DB_FAILED, why);
	}
	answer(m, status, why);
}

static bool tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("!#$%&'*+-.^_`|~", c);
}

/* A request header the provider must not get from the program: hop by
 * hop, framing the wire sets itself, and every credential (by class: a
 * name holding auth, key, token, secret or cookie), so no key the program
 * holds, and no header naming one, reaches the provider beside the
 * route's. The body's type and coding are the wire's to say (it read the
 * body as JSON, so the provider reads it so: a gateway that reads a form
 * body when the program says "form" served another model than the one
 * logged). A name with '_' goes too: a server that maps headers to CGI
 * variables (HTTP_X_HTTP_METHOD_OVERRIDE) reads X_HTTP_Method_Override
 * as the header the list below drops. */
static bool drop_header(const char *h, size_t n)
{
	if (memchr(h, '_', n))
		return true;
	/* and every header a server or a gateway in front of it may take
	 * for another method or path than the request line's (the call
	 * checked is the request line's) */
	static const char *const exact[] = {
	    "host",
	    "connection",
	    "proxy-connection",
	    "keep-alive",
	    "upgrade",
	    "te",
	    "trailer",
	    "transfer-encoding",
	    "content-length",
	    "expect",
	    "accept-encoding",
	    "content-type",
	    "content-encoding",
	    "x-http-method",
	    "x-original-url",
	    "x-original-uri",
	    "x-rewrite-url",
	    "x-forwarded-path",
	    "x-forwarded-prefix",
	    "x-forwarded-uri",
	    "x-host",
	};
	/* and what would choose the account or project the route's key
	 * acts for (OpenAI-Organization, OpenAI-Project, Google's
	 * X-Goog-User-Project): the person granted the key's own; and what
	 * a gateway takes to choose the model or deployment it serves
	 * (azureml-model-deployment, X-Model), so the log's model is the one
	 * served, and the client's address it would believe */
	static const char *const part[] = {
	    "auth",	    "key",	"token",	   "secret",
	    "cookie",	    "proxy-",	"method-override", "forwarded",
	    "original-",    "x-envoy-", "organization",	   "project",
	    "x-goog-user-", "model",	"deployment",	   "engine",
	    "real-ip",	    "client-ip"};
	for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
		if (strlen(exact[i]) == n && strncasecmp(h, exact[i], n) == 0)
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(part); i++) {
		size_t pl = strlen(part[i]);
		for (size_t j = 0; j + pl <= n; j++)
			if (strncasecmp(h + j, part[i], pl) == 0)
				return true;
	}
	return false;
}

/* Finds a header's value in the head (the first). */
static const char *hval(const char *h, size_t hl, const char *name, size_t *vl)
{
	size_t nl = strlen(name);
	const char *p = memchr(h, '\n', hl);
	while (p && (size_t)(p + 1 - h) < hl) {
		const char *line = p + 1;
		const char *e = memchr(line, '\r', hl - (size_t)(line - h));
		if (!e || e == line)
			break;
		if ((size_t)(e - line) > nl && line[nl] == ':' &&
		    strncasecmp(line, name, nl) == 0) {
			const char *v = line + nl + 1;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			const char *ve = e;
			while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
				ve--;
			*vl = (size_t)(ve - v);
			return v;
		}
		p = e + 1 < h + hl ? e + 1 : NULL;
	}
	return NULL;
}

static void start_resolve(struct mconn *m);

/* The call's path: the model API's path under the route's base, never
 * the query, which can hold the program's data; bytes the head allowed
 * but a log should not hold are shown as '?'. Into out (cap bytes); its
 * whole length, which may be more. */
static size_t call_path(const struct mconn *m, const char *rest, size_t restl,
			char *out, size_t cap)
{
	size_t pl = 0, len = 0;
	const char *base = m->r ? m->r->d.base : "";
	for (const char *b = base; *b; b++, len++)
		if (pl + 1 < cap)
			out[pl++] = *b;
	for (size_t i = 0; i < restl && rest[i] != '?'; i++, len++) {
		unsigned char c = (unsigned char)rest[i];
		if (pl + 1 < cap)
			out[pl++] = c > 0x20 && c < 0x7f ? (char)c : '?';
	}
	out[pl] = '\0';
	return len;
}

/* The log's target: "route/model METHOD /path", the route, the model
 * the request names, the method and the call's path. Threat: the program chooses the model's
 * name and a route's `*` segments; a long one pushed the part that tells
 * two calls apart (the deployment, /chat/completions) out of a row cut
 * at its bound, and two calls logged as one. A target too long for the
 * row keeps the model's start, the path's start and end, and a hash of
 * the whole path between them ("...#h..."), so that calls with other
 * paths never log the same target. */
static void set_target(struct mconn *m, const char *route, size_t rl,
		       const char *model, const char *method, size_t ml,
		       const char *rest, size_t restl)
{
	char r[MODEL_NAME_MAX + 1];
	size_t k = 0;
	for (; k < rl && k < MODEL_NAME_MAX; k++) {
		char c = route[k];
		r[k] = ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			c == '-' || c == '_')
			   ? c
			   : '?';
	}
	r[k] = '\0';
	/* the head's bound: the whole path fits */
	char path[HTTP_HEAD_MAX + 512];
	size_t plen = call_path(m, rest, restl, path, sizeof(path));
	const char *mo = model ? model : "";
	int n =
	    snprintf(m->target, sizeof(m->target), "%s%s%s %.*s %s", r,
		     *mo ? "/" : "", mo, (int)ml, method, plen ? path : "/");
	if (n >= 0 && (size_t)n < sizeof(m->target) && plen < sizeof(path))
		goto done;
	/* too long: the model's first 40 bytes, the path's first 60 and
	 * last 100, and the whole path's hash */
	char head[61], tail[101];
	size_t pl = strlen(path);
	snprintf(head, sizeof(head), "%s", path);
	snprintf(tail, sizeof(tail), "%s", path + (pl > 100 ? pl - 100 : 0));
	uint64_t h = fnv1a(path) ^ (uint64_t)plen;
	if (pl <= 160)
		snprintf(m->target, sizeof(m->target),
			 "%s%s%.40s%s %.*s %s...#%08x", r, *mo ? "/" : "", mo,
			 strlen(mo) > 40 ? "..." : "", (int)ml, method, path,
			 (unsigned)h);
	else
		snprintf(m->target, sizeof(m->target),
			 "%s%s%.40s%s %.*s %s...#%08x...%s", r, *mo ? "/" : "",
			 mo, strlen(mo) > 40 ? "..." : "", (int)ml, method,
			 head, (unsigned)h, tail);
done:
	snprintf(m->model, sizeof(m->model), "%s", model ? model : "");
}

/* The whole request is here: check it, rewrite it, and go. */
static void request_ready(struct mconn *m, const char *tgt, size_t tl,
			  const char *method, size_t ml)
{
	struct wire *w = m->w;
	const char *body = m->in.p + m->head_len;
	const char *route = tgt + strlen(MODEL_PATH);
	size_t rl = 0;
	while (rl < tl - strlen(MODEL_PATH) && route[rl] != '/' &&
	       route[rl] != '?')
		rl++;
	const char *rest = route + rl;
	size_t restl = tl - strlen(MODEL_PATH) - rl;
	m->r = NULL;
	for (size_t i = 0; i < w->wp->nmodels; i++)
		if (strlen(w->wp->models[i].d.name) == rl &&
		    memcmp(w->wp->models[i].d.name, route, rl) == 0)
			m->r = &w->wp->models[i];
	set_target(m, route, rl, NULL, method, ml, rest, restl);
	if (w->closed) {
		const char *why = wire_closed_reason(w);
		mc_log(m, DB_REFUSED, why);
		answer(m, 403, why);
		return;
	}
	if (m->r && m->r->key)
		scrub_init(&m->sc, m->r->key, strlen(m->r->key));
	if (!m->r) {
		refuse(m, 403, "no such model route in the sandbox's grants",
		       true);
		return;
	}
	/* the method and path: a model call of this route, or refused
	 * before a byte goes out with the key (policy/models.h) */
	const char *why = NULL;
	int status = model_call_check(&m->r->d, method, ml, rest, restl, &why);
	if (status) {
		refuse(m, status, why, true);
		return;
	}
	/* the body as the provider reads it: what it names and whether it
	 * streams, or refused (proto/usage.h) */
	struct model_req_info ri;
	memset(&ri, 0, sizeof(ri));
	bool json = m->body_len > 0;
	if (json && usage_scan_request(body, m->body_len, &ri) < 0) {
		refuse(m, 400, ri.why, false);
		return;
	}
	set_target(m, route, rl, ri.model, method, ml, rest, restl);
	if (w->log_down) {
		mc_log(m, DB_REFUSED, WIRE_LOG_DOWN_REASON);
		answer(m, 503,
		       WIRE_LOG_DOWN_REASON
		       " (is the disk full?): no call goes out until it can");
		return;
	}
	const struct model_def *d = &m->r->d;
	struct buf *o = &m->out;
	buf_append(o, method, ml);
	buf_printf(o, " %s", d->base);
	if (!restl || rest[0] == '?')
		buf_putc(o, '/');
	buf_append(o, rest, restl);
	buf_puts(o, " HTTP/1.1\r\n");
	http_put_host(o, d->host, d->port, 443);
	/* the program's headers, but the dropped ones */
	const char *h = m->in.p;
	const char *p = memchr(h, '\n', m->head_len) + 1;
	while ((size_t)(p - h) < m->head_len - 2) {
		const char *e = memchr(p, '\r', m->head_len - (size_t)(p - h));
		const char *colon = memchr(p, ':', (size_t)(e - p));
		if (!drop_header(p, (size_t)(colon - p)))
			buf_append(o, p, (size_t)(e - p) + 2);
		p = e + 2;
	}
	if (d->api == MODEL_API_ANTHROPIC)
		buf_printf(o, "x-api-key: %s\r\n", m->r->key);
	else
		buf_printf(o, "Authorization: Bearer %s\r\n", m->r->key);
	/* The body as the wire read it: JSON, not coded. */
	if (json)
		buf_puts(o, "Content-Type: application/json\r\n");
	/* The answer is read on its way: it must come as sent, not
	 * compressed. */
	buf_puts(o, "Accept-Encoding: identity\r\nConnection: close\r\n");
	/* An OpenAI stream gives its usage only when asked: ask, when the
	 * request did not say either way. */
	static const char ask[] = "\"stream_options\":{\"include_usage\":true}";
	static const char ask_in[] = "\"include_usage\":true";
	size_t at = 0;
	const char *add = NULL;
	/* only the completions endpoints take stream_options: another
	 * (the Responses API, a gateway's own) might refuse it */
	size_t pathl = 0;
	while (pathl < restl && rest[pathl] != '?')
		pathl++;
	static const char comp[] = "/completions";
	bool completions =
	    pathl >= sizeof(comp) - 1 &&
	    !memcmp(rest + pathl - (sizeof(comp) - 1), comp, sizeof(comp) - 1);
	if (json && d->api == MODEL_API_OPENAI && ri.stream && completions) {
		if (!ri.has_stream_options) {
			at = ri.obj_open;
			add = ask;
		} else if (ri.so_open && !ri.has_include_usage) {
			at = ri.so_open;
			add = ask_in;
		}
	}
	if (add) {
		/* inserted after the '{': a comma unless the object is
		 * empty */
		size_t k = at;
		while (k < m->body_len && (body[k] == ' ' || body[k] == '\n' ||
					   body[k] == '\r' || body[k] == '\t'))
			k++;
		bool empty = k < m->body_len && body[k] == '}';
		size_t addl = strlen(add) + (empty ? 0 : 1);
		buf_printf(o, "Content-Length: %zu\r\n\r\n",
			   m->body_len + addl);
		buf_append(o, body, at);
		buf_puts(o, add);
		if (!empty)
			buf_putc(o, ',');
		buf_append(o, body + at, m->body_len - at);
	} else {
		buf_printf(o, "Content-Length: %zu\r\n\r\n", m->body_len);
		buf_append(o, body, m->body_len);
	}
	m->up = m->in.len;
	w->up += m->in.len;
	buf_free(&m->in);
	hold(m, m->out.len);
	start_resolve(m);
}

/* Reads and checks the request head, then its body. */
static void request_input(struct mconn *m)
{
	char tmp[65536];
	for (;;) {
		ssize_t n = recv(m->ch.fd, tmp, sizeof(tmp), 0);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			mc_close(m);
			return;
		}
		if (n == 0) {
			mc_close(m); /* gone before asking all */
			return;
		}
		if (m->in.len + (size_t)n > MODEL_REQ_MAX + HTTP_HEAD_MAX) {
			refuse(m, 413, "the request is too large", false);
			return;
		}
		if (m->w->model_held + (size_t)n > MODEL_HELD_MAX) {
			refuse(m, 503,
			       "too many large model requests at once; try "
			       "again",
			       false);
			return;
		}
		buf_append(&m->in, tmp, (size_t)n);
		hold(m, m->in.len);
	}
	if (!m->head_len) {
		const char *end = NULL;
		for (size_t i = 3; i < m->in.len && i < HTTP_HEAD_MAX; i++)
			if (!memcmp(m->in.p + i - 3, "\r\n\r\n", 4)) {
				end = m->in.p + i + 1;
				break;
			}
		if (!end) {
			if (m->in.len >= HTTP_HEAD_MAX)
				refuse(m, 431, "request head too large", false);
			return;
		}
		m->head_len = (size_t)(end - m->in.p);
	}
	const char *h = m->in.p;
	size_t hl = m->head_len;
	/* the request line: METHOD SP /model/... SP HTTP/1.x */
	const char *le = memchr(h, '\r', hl);
	const char *sp1 = memchr(h, ' ', (size_t)(le - h));
	const char *sp2 =
	    sp1 ? memchr(sp1 + 1, ' ', (size_t)(le - sp1 - 1)) : NULL;
	bool ok = sp1 && sp2 && sp1 > h && sp1 - h < 24 && le - sp2 - 1 == 8 &&
		  (!memcmp(sp2 + 1, "HTTP/1.1", 8) ||
		   !memcmp(sp2 + 1, "HTTP/1.0", 8)) &&
		  le[1] == '\n';
	for (const char *p = h; ok && p < sp1; p++)
		ok = tchar(*p);
	for (const char *p = h; ok && p < h + hl; p++) {
		unsigned char c = (unsigned char)*p;
		ok = !(c < 0x20 && c != '\r' && c != '\n' && c != '\t') &&
		     c != 0x7f;
		if (ok && c == '\r')
			ok = p + 1 < h + hl && p[1] == '\n';
		if (ok && c == '\n' && p > h)
			ok = p[-1] == '\r';
	}
	/* header lines: name ':' value, no folding */
	const char *p = ok ? le + 2 : NULL;
	while (ok && (size_t)(p - h) < hl - 2) {
		const char *e = memchr(p, '\r', hl - (size_t)(p - h));
		const char *colon = memchr(p, ':', (size_t)(e - p));
		ok = colon && colon > p;
		for (const char *q = p; ok && q < colon; q++)
			ok = tchar(*q);
		p = e + 2;
	}
	if (!ok) {
		refuse(m, 400, "malformed request head", false);
		return;
	}
	size_t vl;
	const char *v;
	if (hval(h, hl, "transfer-encoding", &vl)) {
		refuse(m, 411,
		       "send the request with a Content-Length, not chunked",
		       false);
		return;
	}
	size_t blen = 0;
	if ((v = hval(h, hl, "content-length", &vl))) {
		bool num = vl > 0 && vl < 12;
		for (size_t i = 0; num && i < vl; i++) {
			num = v[i] >= '0' && v[i] <= '9';
			blen = blen * 10 + (size_t)(v[i] - '0');
		}
		if (!num) {
			refuse(m, 400, "malformed Content-Length", false);
			return;
		}
		if (blen > MODEL_REQ_MAX) {
			refuse(m, 413, "the request is too large", false);
			return;
		}
	}
	m->body_len = blen;
	if (!m->sent_continue && blen && (v = hval(h, hl, "expect", &vl)) &&
	    vl == 12 && !strncasecmp(v, "100-continue", 12) &&
	    m->in.len < m->head_len + blen) {
		static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
		if (send(m->ch.fd, cont, sizeof(cont) - 1,
			 MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		}
		m->sent_continue = true;
	}
	if (m->in.len < m->head_len + blen)
		return;
	/* bytes after the body: a second request on this connection,
	 * which the route does not take (one call per connection) */
	m->in.len = m->head_len + blen;
	request_ready(m, sp1 + 1, (size_t)(sp2 - sp1 - 1), h,
		      (size_t)(sp1 - h));
}

void model_take(struct wire *w, int fd, int64_t seq, const char *in, size_t len)
{
	struct mconn *m = xcalloc(1, sizeof(*m));
	m->w = w;
	m->seq = seq;
	m->ch = (struct loop_handler){.fn = on_client, .fd = fd};
	m->uh = (struct loop_handler){.fn = on_upstream, .fd = -1};
	m->ask_slot = -1;
	snprintf(m->target, sizeof(m->target), "-");
	usage_init(&m->ur);
	m->next = w->models;
	if (w->models)
		w->models->prev = m;
	w->models = m;
	w->nmodel_conns++;
	buf_append(&m->in, in, len);
	hold(m, m->in.len);
	m->st = MS_REQ;
	m->deadline = wire_deadline(m->w, MODEL_REQ_TIMEOUT_MS);
	set_interest(m);
	request_input(m);
}

/* ---- the provider ---- */

static void try_connect(struct mconn *m);

/* The route is an internet grant for its own host; a provider on this
 * network needs a [lan] grant as well, and this machine is never reached
 * this way. */
static unsigned route_grants(struct mconn *m)
{
	const struct model_def *d = &m->r->d;
	struct lnk_addr lit;
	bool is_lit = addr_parse_literal(d->host, &lit) == LIT_ADDR;
	return GRANT_INTERNET |
	       (filter_match_host(&m->w->filter, d->host, is_lit ? &lit : NULL,
				  d->port) &
		GRANT_LAN);
}

static const char *check_addr(struct mconn *m, const struct lnk_addr *a)
{
	struct wire *w = m->w;
	const struct model_def *d = &m->r->d;
	enum route_where where = route_where_for(&w->route, a);
	return filter_check_addr(&w->filter, route_grants(m), d->host, a,
				 d->port, where);
}

static void dns_done(void *ud, int status, const struct lnk_addr *addrs,
		     size_t n)
{
	struct mconn *m = ud;
	m->q = NULL;
	if (status < 0) {
		fail(m, 502,
		     status == -ENOENT	    ? "the provider's name not found"
		     : status == -ETIMEDOUT ? "name lookup timed out"
					    : "name lookup failed");
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (addr_classify(&addrs[i]) == AC_METADATA)
			wire_trip_note(m->w, TRIP_EV_METADATA, m->target);
	for (size_t i = 0; i < n; i++) {
		const char *why = check_addr(m, &addrs[i]);
		if (why) {
			refuse(m, 403, why, true);
			return;
		}
	}
	if (m->w->closed) {
		const char *why = wire_closed_reason(m->w);
		mc_log(m, DB_REFUSED, why);
		answer(m, 403, why);
		return;
	}
	memcpy(m->addrs, addrs, n * sizeof(*addrs));
	m->naddrs = n;
	m->ai = 0;
	m->deadline = loop_now_ms() + WIRE_CONNECT_TIMEOUT_MS;
	try_connect(m);
}

static void start_resolve(struct mconn *m)
{
	struct lnk_addr lit;
	const char *host = m->r->d.host;
	if (addr_parse_literal(host, &lit) == LIT_ADDR) {
		dns_done(m, 0, &lit, 1);
		return;
	}
	/* the provider's name leaves for the resolver: a lookup counted in
	 * traffic as every other the wire sends (record.c) */
	const char *why = wire_lookup_send(m->w, host);
	if (why) {
		mc_log(m, DB_REFUSED, why);
		answer(m, 403, why);
		return;
	}
	m->st = MS_RESOLVE;
	m->deadline = loop_now_ms() + WIRE_DNS_TIMEOUT_MS;
	set_interest(m);
	m->q = dns_resolve(m->w->dns, host, dns_done, m);
}

static void tls_start(struct mconn *m);

/* The provider's next checked address, connected by the keeper as every
 * call's is (conn.c): an address the route reaches as the internet only
 * is first asked whether it is the first router's own (hop.h). Threat: a
 * provider's name that resolves to the router's public address would
 * otherwise reach a port forward on it, back to this machine. */
static void try_connect(struct mconn *m)
{
	if (m->uh.fd >= 0) {
		loop_del(m->w->loop, &m->uh);
		close(m->uh.fd);
		m->uh.fd = -1;
	}
	if (m->w->closed) {
		/* closed meanwhile: no further address is asked for */
		const char *why = wire_closed_reason(m->w);
		char reason[DB_REASON_MAX];
		snprintf(reason, sizeof(reason),
			 "%s (an earlier address's connect was made)", why);
		if (m->ai > 0) {
			fail(m, 403, reason);
		} else {
			mc_log(m, DB_REFUSED, why);
			answer(m, 403, why);
		}
		return;
	}
	if (m->ai < m->naddrs) {
		const struct lnk_addr *a = &m->addrs[m->ai++];
		if (m->ai > 1) {
			const char *why = check_addr(m, a);
			if (why) {
				refuse(m, 403, why, true);
				return;
			}
		}
		const struct model_def *d = &m->r->d;
		bool lan = !filter_check_addr(&m->w->filter, route_grants(m),
					      d->host, a, d->port, ROUTE_LAN);
		int slot = conn_ask_model(m->w, m, m->seq, a, d->port,
					  lan ? 0 : KEEPER_ASK_FIRST_HOP);
		if (slot < 0) {
			fail(m, slot == -EAGAIN ? 503 : 502,
			     slot == -EAGAIN
				 ? "too many new addresses at once; try again"
				 : "the wire's keeper is gone");
			return;
		}
		m->ask_slot = slot;
		m->st = MS_CONNECT;
		set_interest(m);
		return;
	}
	if (m->uh.fd >= 0) {
		loop_del(m->w->loop, &m->uh);
		close(m->uh.fd);
		m->uh.fd = -1;
	}
	fail(m, 502,
	     m->last_err == ECONNREFUSED ? "the provider refused the "
					   "connection"
					 : "cannot connect to the provider");
}

static void tls_start(struct mconn *m)
{
	int one = 1;
	setsockopt(m->uh.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	const struct tls_lib *T = m->w->tl;
	m->ssl = T->SSL_new(m->w->tls);
	const char *host = m->r->d.host;
	struct lnk_addr lit;
	bool is_lit = addr_parse_literal(host, &lit) == LIT_ADDR;
	/* SSL_set_tlsext_host_name is a macro over SSL_ctrl */
	if (!m->ssl || T->SSL_set_fd(m->ssl, m->uh.fd) != 1 ||
	    (!is_lit &&
	     T->SSL_ctrl(m->ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME,
			 TLSEXT_NAMETYPE_host_name, (void *)host) != 1) ||
	    (!is_lit && T->SSL_set1_host(m->ssl, host) != 1) ||
	    (is_lit && T->X509_VERIFY_PARAM_set1_ip_asc(
			   T->SSL_get0_param(m->ssl), host) != 1)) {
		T->ERR_clear_error();
		fail(m, 502, "cannot set up TLS");
		return;
	}
	T->SSL_set_connect_state(m->ssl);
	m->st = MS_TLS;
	m->deadline = loop_now_ms() + WIRE_CONNECT_TIMEOUT_MS;
	on_upstream(&m->uh, LOOP_OUT);
}

/* Why the answer's head (h up to end, the blank line's end) could be read
 * two ways, or NULL. The wire reads the body's framing from it to mask
 * the key in the data (scrub_chunked) and to count tokens; a client that
 * reads another framing (the second of two Transfer-Encoding lines, a
 * folded line, "Transfer-Encoding : chunked") de-chunks what the wire
 * masked as bytes, and the provider's chunk framing inside the key no
 * longer hides it from the client. So a head the two could read
 * differently never reaches the program. */
static const char *head_two_ways(const char *h, const char *end)
{
	int te = 0, cl = 0;
	const char *p = memchr(h, '\n', (size_t)(end - h)) + 1;

	while (p < end - 2) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (e == p || e[-1] != '\r')
			return "a line of its head ends without CR LF";
		if (*p == ' ' || *p == '\t')
			return "its head folds a line";
		const char *colon = memchr(p, ':', (size_t)(e - p));
		if (!colon || colon == p)
			return "a line of its head is not a header";
		for (const char *c = p; c < colon; c++)
			if (!tchar(*c))
				return "a header name of its head is not a "
				       "token";
		const char *v = colon + 1, *ve = e - 1;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		size_t nl = (size_t)(colon - p), vl = (size_t)(ve - v);
		if (nl == 17 && !strncasecmp(p, "transfer-encoding", 17) &&
		    (++te > 1 || vl != 7 || strncasecmp(v, "chunked", 7)))
			return "its Transfer-Encoding is not one 'chunked'";
		if (nl == 14 && !strncasecmp(p, "content-length", 14) &&
		    ++cl > 1)
			return "its head gives Content-Length twice";
		p = e + 1;
	}
	return NULL;
}

/* The answer's head: kept until whole, then passed on with its
 * Connection header replaced (one call per connection, both sides). An
 * interim 1xx head passes as it is and the real one follows. */
static void head_rewrite(struct mconn *m)
{
	while (!m->head_passed && m->ahead.len && m->st == MS_RELAY) {
		const char *h = m->ahead.p;
		const char *end = NULL;
		for (size_t i = 3; i < m->ahead.len; i++)
			if (!memcmp(h + i - 3, "\r\n\r\n", 4)) {
				end = h + i + 1;
				break;
			}
		/* what is not HTTP never reaches the program: it gets
		 * a clear 502 instead */
		size_t pl = m->ahead.len < 7 ? m->ahead.len : 7;
		if (memcmp(h, "HTTP/1.", pl) != 0) {
			fail(m, 502, "the provider's answer is not HTTP");
			return;
		}
		if (!end && m->ahead.len > USAGE_HEAD_MAX) {
			fail(m, 502, "the provider's answer head is too large");
			return;
		}
		if (!end && m->up_eof) {
			fail(m, 502,
			     "the provider closed before its answer's head "
			     "ended");
			return;
		}
		if (!end)
			return;
		if (end - h < 13 || h[8] != ' ') {
			fail(m, 502, "the provider's answer is not HTTP");
			return;
		}
		const char *two = head_two_ways(h, end);
		if (two) {
			char why[128];
			snprintf(
			    why, sizeof(why),
			    "the provider's answer could be read two ways: "
			    "%s",
			    two);
			fail(m, 502, why);
			return;
		}
		bool interim = h[9] == '1';
		struct buf o = {0};
		const char *p = h;
		while (p < end - 2) {
			const char *e = memchr(p, '\n', (size_t)(end - p));
			size_t ll = (size_t)(e - p) + 1;
			bool drop = !interim && p != h && ll > 11 &&
				    (!strncasecmp(p, "connection:", 11) ||
				     !strncasecmp(p, "keep-alive:", 11));
			if (!drop)
				buf_append(&o, p, ll);
			p = e + 1;
		}
		if (!interim)
			buf_puts(&o, "Connection: close\r\n");
		buf_puts(&o, "\r\n");
		usage_feed(&m->ur, o.p, o.len);
		scrub_feed(&m->sc, o.p, o.len, &m->pend);
		buf_free(&o);
		size_t rest = m->ahead.len - (size_t)(end - h);
		memmove(m->ahead.p, end, rest);
		m->ahead.len = rest;
		if (!interim) {
			m->head_passed = true;
			/* a chunked body is masked in its data, not in its
			 * bytes: framing can lie inside the key (scrub.h) */
			if (m->ur.chunked)
				scrub_chunked(&m->sc, &m->pend);
			if (rest)
				usage_feed(&m->ur, m->ahead.p, rest);
			scrub_feed(&m->sc, m->ahead.p, rest, &m->pend);
			buf_free(&m->ahead);
		}
	}
}

static void answer_bytes(struct mconn *m, const char *p, size_t n)
{
	if (m->head_passed) {
		usage_feed(&m->ur, p, n);
		scrub_feed(&m->sc, p, n, &m->pend);
		return;
	}
	buf_append(&m->ahead, p, n);
	head_rewrite(m);
}

/* Gives the program what is waiting. -1: it is gone. */
static int flush_client(struct mconn *m)
{
	while (m->pend.len > m->pend_off) {
		ssize_t n = send(m->ch.fd, m->pend.p + m->pend_off,
				 m->pend.len - m->pend_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				return -1;
			/* a slow program: keep only what waits */
			if (m->pend_off >= MODEL_PEND_MAX) {
				memmove(m->pend.p, m->pend.p + m->pend_off,
					m->pend.len - m->pend_off + 1);
				m->pend.len -= m->pend_off;
				m->pend_off = 0;
			}
			return 0;
		}
		m->pend_off += (size_t)n;
		m->down += (uint64_t)n;
		m->w->down += (uint64_t)n;
	}
	m->pend.len = m->pend_off = 0;
	return 0;
}

static bool answer_done(struct mconn *m)
{
	/* the reader saw the body's end (a length, the last chunk) */
	return usage_done(&m->ur);
}

static void relay(struct mconn *m)
{
	struct wire *w = m->w;
	const struct tls_lib *T = w->tl;
	if (flush_client(m) < 0) {
		mc_close(m);
		return;
	}
	/* the request out */
	while (m->out_off < m->out.len) {
		T->ERR_clear_error();
		int n = T->SSL_write(m->ssl, m->out.p + m->out_off,
				     (int)(m->out.len - m->out_off));
		if (n > 0) {
			m->out_off += (size_t)n;
			continue;
		}
		int e = T->SSL_get_error(m->ssl, n);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
			break;
		fail(m, 502, "the provider closed before taking the request");
		return;
	}
	if (m->out_off == m->out.len && m->out.p) {
		explicit_bzero(m->out.p, m->out.len);
		buf_free(&m->out);
		hold(m, 0);
		m->out_off = 0;
	}
	/* the answer back, while the program keeps up */
	/* a bounded turn, but what OpenSSL holds decrypted is always
	 * taken: the event loop cannot see it */
	for (int round = 0;
	     !m->up_eof && (round < 64 || T->SSL_pending(m->ssl) > 0);
	     round++) {
		if (m->pend.len - m->pend_off >= MODEL_PEND_MAX)
			break;
		T->ERR_clear_error();
		int n = T->SSL_read(m->ssl, w->scratch, WIRE_SCRATCH);
		if (n > 0) {
			m->deadline = loop_now_ms() + MODEL_IDLE_TIMEOUT_MS;
			answer_bytes(m, w->scratch, (size_t)n);
			if (m->st != MS_RELAY)
				return; /* refused the answer (head_rewrite) */
			if (flush_client(m) < 0) {
				mc_close(m);
				return;
			}
			if (answer_done(m))
				m->up_eof = true;
			continue;
		}
		int e = T->SSL_get_error(m->ssl, n);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
			break;
		/* the end: a clean close_notify, or a cut; the reader
		 * decides what the answer held */
		m->up_eof = true;
		if (!m->head_passed && m->ahead.len) {
			head_rewrite(m);
			if (m->st != MS_RELAY)
				return;
		}
		if (!m->head_passed) {
			fail(m, 502,
			     e == SSL_ERROR_ZERO_RETURN ||
				     e == SSL_ERROR_SYSCALL
				 ? "the provider closed without an answer"
				 : "the provider's TLS broke");
			return;
		}
	}
	/* The answer has ended: what the scrubber held is no key. */
	if (m->up_eof && !m->sc_ended) {
		scrub_end(&m->sc, &m->pend);
		m->sc_ended = true;
	}
	if (flush_client(m) < 0) {
		mc_close(m);
		return;
	}
	if (m->up_eof && m->pend.len == m->pend_off) {
		mc_close(m); /* all given: the call ends */
		return;
	}
	set_interest(m);
}

static void tls_step(struct mconn *m)
{
	const struct tls_lib *T = m->w->tl;
	T->ERR_clear_error();
	int r = T->SSL_do_handshake(m->ssl);
	if (r == 1) {
		m->st = MS_RELAY;
		m->deadline = loop_now_ms() + MODEL_IDLE_TIMEOUT_MS;
		mc_log(m, DB_ALLOWED, "");
		relay(m);
		return;
	}
	int e = T->SSL_get_error(m->ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		set_interest(m);
		return;
	}
	long v = T->SSL_get_verify_result(m->ssl);
	char why[DB_REASON_MAX];
	if (v != X509_V_OK)
		snprintf(why, sizeof(why),
			 "the provider's certificate does not verify: %s",
			 T->X509_verify_cert_error_string(v));
	else
		snprintf(why, sizeof(why), "the TLS handshake failed");
	T->ERR_clear_error();
	fail(m, 502, why);
}

void model_answered(struct mconn *m, const struct keeper_answer *ans)
{
	m->ask_slot = -1;
	switch (ans->kind) {
	case KEEPER_CONNECTING:
		/* on_upstream takes it when the connect ends */
		m->uh.fd = ans->fd;
		set_interest(m);
		return;
	case KEEPER_FIRST_HOP:
		refuse(m, 403, WIRE_FIRST_HOP_WHY, true);
		return;
	case KEEPER_HOP_UNKNOWN:
		refuse(m, 403, WIRE_HOP_UNKNOWN_WHY, true);
		return;
	case KEEPER_BUSY:
		fail(m, 503, "too many new addresses at once; try again");
		return;
	case KEEPER_FAILED:
		m->last_err = ans->error;
		try_connect(m);
		return;
	}
}

static void on_upstream(struct loop_handler *h, uint32_t ev)
{
	struct mconn *m = MC_OF(h, uh);
	(void)ev;
	switch (m->st) {
	case MS_CONNECT: {
		int e = 0;
		socklen_t l = sizeof(e);
		if (getsockopt(m->uh.fd, SOL_SOCKET, SO_ERROR, &e, &l) < 0)
			e = errno;
		if (e == 0) {
			tls_start(m);
			return;
		}
		m->last_err = e;
		try_connect(m);
		return;
	}
	case MS_TLS:
		tls_step(m);
		return;
	case MS_RELAY:
		relay(m);
		return;
	case MS_REQ:
	case MS_RESOLVE:
	case MS_LINGER:
		return;
	}
}

/* The program sent something while its call goes on: it left (the call
 * ends), or it sent more than one request (not this route's way). */
static void client_idle(struct mconn *m)
{
	char sink[4096];
	ssize_t n = recv(m->ch.fd, sink, sizeof(sink), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	mc_close(m);
}

static void on_client(struct loop_handler *h, uint32_t ev)
{
	struct mconn *m = MC_OF(h, ch);
	switch (m->st) {
	case MS_REQ:
		request_input(m);
		return;
	case MS_LINGER: {
		char sink[4096];
		for (int i = 0; i < 16; i++) {
			ssize_t n = recv(m->ch.fd, sink, sizeof(sink), 0);
			if (n > 0)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				return;
			break;
		}
		mc_close(m);
		return;
	}
	case MS_RELAY:
		if (ev & LOOP_OUT) {
			relay(m);
			return;
		}
		client_idle(m);
		return;
	case MS_RESOLVE:
	case MS_CONNECT:
	case MS_TLS:
		client_idle(m);
		return;
	}
}

void model_tick(struct wire *w, int64_t now)
{
	struct mconn *m = w->models, *next;
	for (; m; m = next) {
		next = m->next;
		if (!m->deadline || now < m->deadline)
			continue;
		switch (m->st) {
		case MS_REQ:
		case MS_LINGER:
			mc_close(m);
			break;
		case MS_RESOLVE:
			fail(m, 504, "name lookup timed out");
			break;
		case MS_CONNECT:
		case MS_TLS:
			fail(m, 504, "connect to the provider timed out");
			break;
		case MS_RELAY:
			/* silent too long: the program gets what came */
			mc_close(m);
			break;
		}
	}
}

void model_reap(struct wire *w)
{
	while (w->model_graveyard) {
		struct mconn *m = w->model_graveyard;
		w->model_graveyard = m->next;
		scrub_free(&m->sc);
		free(m);
	}
}

void model_close_all(struct wire *w)
{
	while (w->models)
		mc_close(w->models);
}

void model_end_open_calls(struct wire *w)
{
	struct mconn *next;
	for (struct mconn *m = w->models; m; m = next) {
		next = m->next;
		/* a request still coming is judged, and refused, when its
		 * head or its body is read; an answered one is read out */
		if (m->st == MS_RESOLVE || m->st == MS_CONNECT ||
		    m->st == MS_TLS) {
			/* on its way to the provider: failed, saying what
			 * had begun (as conn.c's calls) */
			char reason[DB_REASON_MAX];
			snprintf(reason, sizeof(reason), "%s (%s)",
				 wire_closed_reason(w),
				 m->st == MS_RESOLVE
				     ? "the provider's name was being looked up"
				     : "its connect was under way");
			fail(m, 403, reason);
		} else if (m->st != MS_REQ && m->st != MS_LINGER)
			mc_close(m);
		else
			m->deadline = wire_grace_cap(w, m->deadline);
	}
}
