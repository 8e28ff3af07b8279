/* lnk sandbox traffic: what each running sandbox's wire has carried since
 * it started, up from the sandbox and down to it (lnk-sandbox(1),
 * COMMANDS, traffic). Each wire refreshes its counters in lnk.db every
 * tick; a wire that ended, or whose process is gone, is not running.
 *
 * Exit status: 0; 2 usage; 125 the database cannot be read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "common/buf.h"
#include "common/esc.h"
#include "common/util.h"
#include "store/db.h"
#include "store/paths.h"
#include "store/registry.h"

/* A wire refreshes its row every quarter second; one silent this long is
 * stuck or gone. */
#define TRAFFIC_STALE_SECS 30

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox traffic [--json]\n"
	    "\n"
	    "Prints each running sandbox's wire: SANDBOX, UP (bytes from the\n"
	    "sandbox), DOWN (bytes to it), LOOKUPS (names it sent upstream to\n"
	    "be looked up) and SINCE (UTC), since it started. A\n"
	    "sandbox without a network grant shows as \"no wire\". Bytes are\n"
	    "counted as they pass to and from the targets: the proxies' own\n"
	    "handshakes (CONNECT, SOCKS5) are not, and a plain http:// request\n"
	    "counts as sent on (its head without the proxy's form); the log's\n"
	    "up and down count the same way. Under a wire with --model routes,\n"
	    "a line per route: its calls and the tokens in and out its\n"
	    "answers gave (calls whose answers gave none are counted apart,\n"
	    "never guessed).\n"
	    "\n"
	    "  --json   one JSON object per line\n",
	    f);
}

struct out {
	bool json;
	size_t n;
	struct buf b;
	struct db *db;
	bool first;
};

/* A wire's model calls by route: tokens in and out of the answers that
 * said, and the calls whose answers did not (never guessed). */
static void on_model(const struct db_model_row *r, void *ud)
{
	struct out *o = ud;
	if (o->json) {
		buf_puts(&o->b, o->first ? "" : ",");
		o->first = false;
		buf_puts(&o->b, "{\"provider\":");
		buf_json_str(&o->b, r->provider, strlen(r->provider));
		buf_printf(&o->b,
			   ",\"calls\":%lld,\"tokens_in\":%lld,"
			   "\"tokens_out\":%lld,\"unknown\":%lld}",
			   (long long)r->calls, (long long)r->tokens_in,
			   (long long)r->tokens_out, (long long)r->unknown);
		return;
	}
	char pv[64];
	buf_printf(&o->b, "  model %s: %lld calls, tokens %lld in, %lld out",
		   esc_to(pv, sizeof(pv), r->provider), (long long)r->calls,
		   (long long)r->tokens_in, (long long)r->tokens_out);
	if (r->unknown)
		buf_printf(&o->b, " (%lld without usage)",
			   (long long)r->unknown);
	buf_putc(&o->b, '\n');
}

static void on_wire(const struct db_wire_row *r, void *ud)
{
	struct out *o = ud;
	o->n++;
	if (o->json) {
		buf_puts(&o->b, "{\"sandbox\":");
		buf_json_str(&o->b, r->sandbox, strlen(r->sandbox));
		buf_printf(&o->b, ",\"pid\":%ld,\"since\":", r->pid);
		buf_json_str(&o->b, r->started, strlen(r->started));
		buf_printf(&o->b,
			   ",\"up\":%lld,\"down\":%lld,\"lookups\":%lld,"
			   "\"models\":[",
			   (long long)r->up, (long long)r->down,
			   (long long)r->lookups);
		o->first = true;
		struct lnk_err err = {0};
		(void)db_model_read(o->db, r->id, on_model, o, &err);
		buf_puts(&o->b, "]}\n");
		return;
	}
	char nm[256], st[64]; /* escaped (common/esc.h) for the terminal */
	buf_printf(&o->b, "%-24s  %14lld  %14lld  %8lld  %s\n",
		   esc_to(nm, sizeof(nm), r->sandbox), (long long)r->up,
		   (long long)r->down, (long long)r->lookups,
		   esc_to(st, sizeof(st), r->started));
	struct lnk_err err = {0};
	(void)db_model_read(o->db, r->id, on_model, o, &err);
}

/* The running sandboxes without a network grant: no wire, nothing
 * carried, but running (the registry, store/registry.h). */
static int wireless(const char *home, struct out *o, struct lnk_err *err)
{
	struct registry *st;
	int r = registry_open(home, &st, err);
	if (r < 0)
		return r;
	struct registry_entry *v = NULL;
	size_t n = 0;
	r = registry_list(st, &v, &n, err);
	registry_close(st);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (registry_entry_has_wire(&v[i]))
			continue;
		char since[32];
		db_format_time((time_t)(v[i].started_ms / 1000), since);
		o->n++;
		if (o->json) {
			buf_puts(&o->b, "{\"sandbox\":");
			buf_json_str(&o->b, v[i].name, strlen(v[i].name));
			buf_printf(&o->b,
				   ",\"pid\":%ld,\"since\":\"%s\",\"up\":null,"
				   "\"down\":null,\"lookups\":null,"
				   "\"wire\":false}\n",
				   (long)v[i].supervisor.pid, since);
			continue;
		}
		buf_printf(&o->b, "%-24s  %14s  %14s  %8s  %s\n", v[i].name,
			   "no wire", "-", "-", since);
	}
	free(v);
	return 0;
}

int cmd_traffic(int argc, char **argv, const struct cli_ctx *cx)
{
	struct out o = {0};
	int rc = cli_json_only("traffic", argc, argv, usage, &o.json);
	if (rc >= 0)
		return rc;
	struct lnk_err err = {0};
	const char *home = cx->home;
	_cleanup_free_ char *path = paths_db(home);
	struct db *db;
	int r = db_open(path, true, &db, &err);
	if (r == 0) {
		o.db = db;
		r = db_traffic_read(db, TRAFFIC_STALE_SECS, on_wire, &o, &err);
		db_close(db);
		if (r < 0 && strstr(err.msg, "no such table"))
			r = 0;
	} else if (r == -ENOENT) {
		r = 0;
	}
	if (r < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	if ((r = wireless(home, &o, &err)) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	if (!o.json) {
		if (!o.n) {
			puts("no sandbox is running");
			return 0;
		}
		printf("%-24s  %14s  %14s  %8s  %s\n", "SANDBOX", "UP", "DOWN",
		       "LOOKUPS", "SINCE");
	}
	if (o.b.len)
		fwrite(o.b.p, 1, o.b.len, stdout);
	buf_free(&o.b);
	return 0;
}
