/* The model route inside the wire (lnk-sandbox(1), GRANTS, --model).
 *
 * The program sends plain HTTP to the wire's proxy port on loopback, at
 * /model/NAME/..., as its SDK does with ANTHROPIC_BASE_URL or
 * OPENAI_BASE_URL pointed there. The wire reads the whole request (bounded),
 * drops every credential the program sent, adds the route's API key, and
 * sends it to the provider over TLS (OpenSSL, the certificate verified
 * against the CA store loaded before the wire was confined). The answer
 * goes back to the program as it comes, and the usage reader (proto/usage.h)
 * counts its tokens on the way. One call per connection.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/util.h"

#define MODEL_PATH "/model/"
#define MODEL_KEY_PLACEHOLDER "lnk-wire-adds-the-key"
/* The request a program may send, head and body. */
#define MODEL_REQ_MAX (32u << 20)

struct wire;
struct wire_plan;
struct mconn;
struct keeper_answer;

/* Is this request head (complete, as the proxy's parser refused it) one
 * for the model route: origin-form, its target under MODEL_PATH? */
bool model_wants(const char *in, size_t len);

/* Loads the CA store and makes the TLS context, before the wire is
 * confined (it may read no file after). Only with routes. 0 or -errno. */
int model_tls_setup(struct wire *w, struct lnk_err *err);
void model_tls_free(struct wire *w);

/* Takes over the client fd (the call numbered seq) with the bytes it
 * sent so far. */
void model_take(struct wire *w, int fd, int64_t seq, const char *in,
		size_t len);
/* The keeper's answer to the connect m asked (conn_ask_model). */
void model_answered(struct mconn *m, const struct keeper_answer *ans);
void model_tick(struct wire *w, int64_t now);
void model_reap(struct wire *w);
void model_close_all(struct wire *w);
/* conn_end_open_calls for the model route's calls. */
void model_end_open_calls(struct wire *w);
