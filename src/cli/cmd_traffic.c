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
#include "store/state.h"

/* A wire refreshes its row every quarter second; one silent this long is
 * stuck or gone. */
#define TRAFFIC_STALE_SECS 30

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox traffic [--json]\n"
	    "\n"
	    "Prints each running sandbox's wire: SANDBOX, UP (bytes from the\n"
	    "sandbox), DOWN (bytes to it) and SINCE (UTC), since it started. A\n"
	    "sandbox without a network grant shows as \"no wire\". Bytes are\n"
	    "counted as they pass to and from the targets: the proxies' own\n"
	    "handshakes (CONNECT, SOCKS5) are not, and a plain http:// request\n"
	    "counts as sent on (its head without the proxy's form); the log's\n"
	    "up and down count the same way.\n"
	    "\n"
	    "  --json   one JSON object per line\n",
	    f);
}

struct out {
	bool json;
	size_t n;
	struct buf b;
};

static void on_wire(const struct db_wire_row *r, void *ud)
{
	struct out *o = ud;
	o->n++;
	if (o->json) {
		buf_puts(&o->b, "{\"sandbox\":");
		buf_json_str(&o->b, r->sandbox, strlen(r->sandbox));
		buf_printf(&o->b, ",\"pid\":%ld,\"since\":", r->pid);
		buf_json_str(&o->b, r->started, strlen(r->started));
		buf_printf(&o->b, ",\"up\":%lld,\"down\":%lld}\n",
			   (long long)r->up, (long long)r->down);
		return;
	}
	char nm[256], st[64]; /* escaped (common/esc.h) for the terminal */
	buf_printf(&o->b, "%-24s  %14lld  %14lld  %s\n",
		   esc_to(nm, sizeof(nm), r->sandbox), (long long)r->up,
		   (long long)r->down, esc_to(st, sizeof(st), r->started));
}

/* The running sandboxes without a network grant: no wire, nothing
 * carried, but running (the registry, store/state.h). */
static int wireless(const char *home, struct out *o, struct lnk_err *err)
{
	struct state *st;
	int r = state_open(home, &st, err);
	if (r < 0)
		return r;
	struct state_entry *v = NULL;
	size_t n = 0;
	r = state_list(st, &v, &n, err);
	state_close(st);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (state_entry_has_wire(&v[i]))
			continue;
		char since[32];
		db_format_time((time_t)(v[i].started_ms / 1000), since);
		o->n++;
		if (o->json) {
			buf_puts(&o->b, "{\"sandbox\":");
			buf_json_str(&o->b, v[i].name, strlen(v[i].name));
			buf_printf(&o->b,
				   ",\"pid\":%ld,\"since\":\"%s\",\"up\":null,"
				   "\"down\":null,\"wire\":false}\n",
				   (long)v[i].supervisor.pid, since);
			continue;
		}
		buf_printf(&o->b, "%-24s  %14s  %14s  %s\n", v[i].name,
			   "no wire", "-", since);
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
		printf("%-24s  %14s  %14s  %s\n", "SANDBOX", "UP", "DOWN",
		       "SINCE");
	}
	if (o.b.len)
		fwrite(o.b.p, 1, o.b.len, stdout);
	buf_free(&o.b);
	return 0;
}
