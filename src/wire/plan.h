/* The wire's plan (plan.c): decided by lnk before anything forks, from
 * the resolved policy, and the wire's whole brief once it runs (wire.h). */
#pragma once

struct refusals_shared;
struct shut;
struct tripbox;

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "common/util.h"
#include "proto/initcfg.h"
#include "policy/models.h"
#include "policy/policy.h"

#define WIRE_HTTP_PORT 3128
#define WIRE_SOCKS_PORT 1080
/* The transparent listener: the guard brings every TCP connect of the
 * program to another address here (proto/tproxy.h). */
#define WIRE_TCP_PORT 1081

/* A model route (--model) and the API key the wire adds to its calls,
 * read from lnk's environment or a key file before anything forks; the
 * key never enters the sandbox. */
struct model_route {
	struct model_def d;
	char *key;
};

struct wire_plan {
	char *name;	  /* the sandbox's name */
	char *home;	  /* whose ~/.lnk holds the registry and the control
			   * socket; NULL: neither (the test harness) */
	char *db_path;	  /* ~/.lnk/sandbox/lnk.db */
	char *dns_server; /* "IP:PORT" from LNK_DNS_SERVER, or NULL */
	uint16_t http_port, socks_port; /* listeners inside the sandbox */
	uint16_t tcp_port;		/* the transparent listener inside */
	struct strv internet_hosts;	/* [internet] hosts */
	struct strv lan_hosts;		/* [lan] hosts */
	uint16_t *ports;		/* [localhost] ports */
	size_t nports;
	/* The tripwires' thresholds (wire/trip.h), settings and spec
	 * combined (launch/limits.h); 0: the default. */
	unsigned trip_calls, trip_targets;
	struct model_route *models; /* [internet] models */
	size_t nmodels;
	/* The sandbox's one cap on logged refusals, shared with its tools
	 * broker (store/refusals.h); NULL: a cap of the wire's own. Not
	 * owned. */
	struct refusals_shared *cap;
	/* Where the wire says it is closed, for the tools broker
	 * (store/shut.h); NULL: nobody else reads it. Not owned. */
	struct shut *shut;
	/* The refusals the tools broker tells the tripwires
	 * (store/tripbox.h); NULL: none. Not owned. */
	struct tripbox *trips;
	/* lnk's stderr is its terminal, raw while lnk relays the program's
	 * pty: the wire's lines end in CR LF (it may not ask the terminal). */
	bool stderr_raw;
};

/* From a resolved policy. 0 or -errno (a bad LNK_DNS_SERVER, a bad port). */
int wire_plan(const struct policy *p, const char *name, const char *home,
	      struct wire_plan *wp, struct lnk_err *err);
/* The same from its parts (tests, and callers without a policy). */
int wire_plan_make(const char *name, const char *db_path,
		   const struct strv *internet_hosts,
		   const struct strv *lan_hosts, const uint16_t *ports,
		   size_t nports, struct wire_plan *wp, struct lnk_err *err);
void wire_plan_free(struct wire_plan *wp);

/* The model routes of models (normalized entries) with their keys: from
 * lnk's environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, NAME_API_KEY) or
 * home's ~/.lnk/sandbox/NAME.key (a regular file of the user's, mode 0600
 * or stricter). A route without a key is refused: 0 or -errno
 * (model_plan.c). */
int wire_plan_models(struct wire_plan *wp, const struct strv *models,
		     const char *home, struct lnk_err *err);
/* Refuses --env NAME for a route's key variable: the key would enter the
 * sandbox that the route exists to keep it out of. 0 or -EINVAL. */
int wire_plan_models_env(const struct wire_plan *wp, const struct strv *pass,
			 struct lnk_err *err);

/* The program's proxy settings: HTTP_PROXY, HTTPS_PROXY, ALL_PROXY
 * (socks5h://), their lowercase forms, and NO_PROXY=localhost,127.0.0.1,::1
 * (so --port is reached directly). Appended as KEY=VALUE. */
void wire_plan_env(const struct wire_plan *wp, struct strv *env);
/* The listeners lnk-init creates for the wire (struct init_config).
 * *l is malloc'd; the caller frees it. */
void wire_plan_listeners(const struct wire_plan *wp, struct init_listener **l,
			 size_t *n);

/* The model routes' share of the plan (model_plan.c): freed, and the
 * program's variables that point its SDKs at the wire. */
void model_plan_free(struct wire_plan *wp);
void model_plan_env(const struct wire_plan *wp, struct strv *env);
/* Whether p is one of the plan's --port doors. */
bool wire_plan_has_port(const struct wire_plan *wp, uint16_t p);
