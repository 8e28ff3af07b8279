/* lnk sandbox stop [--off]: close every wire here and stop every sandboxed
 * program, however it behaves; the stop persists for sandboxes started
 * later until --off (lnk-sandbox(1), COMMANDS, stop).
 *
 * Order, and why:
 *   1. record the stop first, so a sandbox starting meanwhile either is in
 *      the registry we read next or sees the stop when its wire starts;
 *   2. close every wire (STOP on its control socket): the network goes
 *      before anything else; a wire that does not answer is killed, and
 *      its sandbox then has no network at all (fail closed);
 *   3. SIGTERM each sandbox's `lnk sandbox run`, which forwards it to the
 *      program (a program may want to save its work); after the grace,
 *      SIGKILL it and bwrap (when its pid is registered): lnk-init, pid 1
 *      of the sandbox, watches a lifeline pipe only `lnk sandbox run`
 *      holds open and kills everything in the sandbox when it closes, so
 *      the whole sandbox dies with the supervisor, however the program
 *      behaves. Signals go through pidfds, sent only once the process is
 *      proven one of this user's lnk processes (start time, uid, lnk's
 *      executable; bwrap as the supervisor's child): a recycled pid or a
 *      registry row naming another process is never signalled.
 *
 * Exit status: 0 done; 2 usage; 125 something could not be stopped (said
 * on stderr). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "common/compat.h"
#include "common/util.h"
#include "store/paths.h"
#include "store/registry.h"
#include "wire/ctl.h"

#define GRACE_MS 2000

static void usage(FILE *f)
{
	fputs(
	    "usage: lnk sandbox stop [--off]\n"
	    "\n"
	    "Closes every wire here (new calls refused, open ones ended within a\n"
	    "second) and stops every sandboxed program: SIGTERM, then SIGKILL after\n"
	    "2 seconds. The stop stays in force for every sandbox started here\n"
	    "afterwards, which starts with its wire closed (and says so), until\n"
	    "'lnk sandbox stop --off'.\n"
	    "\n"
	    "  --off   end the stop: wires closed by it open again; programs it\n"
	    "          stopped stay stopped\n"
	    "\n"
	    "Exit status: 0 done; 2 usage; 125 something could not be stopped.\n",
	    f);
}

static int send_signal(int pidfd, const struct registry_proc *p, int sig)
{
	return proc_signal(pidfd, p->pid, sig);
}

/* Waits until every pidfd in fds (-1 entries skipped) has exited, or
 * timeout_ms passed. Exited ones are closed and set to -1. */
static void wait_exit(int *fds, size_t n, int timeout_ms)
{
	int64_t end = mono_ms() + timeout_ms;
	struct pollfd *p = xcalloc(n ? n : 1, sizeof(*p));
	size_t *idx = xcalloc(n ? n : 1, sizeof(*idx));
	for (;;) {
		size_t np = 0;
		for (size_t i = 0; i < n; i++)
			if (fds[i] >= 0) {
				p[np] = (struct pollfd){.fd = fds[i],
							.events = POLLIN};
				idx[np++] = i;
			}
		int64_t left = end - mono_ms();
		if (np == 0 || left <= 0)
			break;
		int r = poll(p, np, (int)left);
		if (r < 0 && errno != EINTR)
			break;
		for (size_t k = 0; r > 0 && k < np; k++)
			if (p[k].revents) {
				close(fds[idx[k]]);
				fds[idx[k]] = -1;
			}
	}
	free(p);
	free(idx);
}

static int stop_off(const char *home, struct registry *st)
{
	struct lnk_err err = {0};
	if (registry_stop_set(st, false, 0, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	struct registry_entry *v = NULL;
	size_t n = 0;
	if (registry_list(st, &v, &n, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	int status = 0;
	for (size_t i = 0; i < n; i++) {
		struct ctl_reply rep;
		struct lnk_err e2 = {0};
		if (!registry_entry_has_wire(&v[i]))
			continue;
		if (ctl_control_entry(home, &v[i], CTL_STOP_OFF, 2000, &rep,
				      &e2) < 0) {
			warnx_("%s", e2.msg);
			status = LNK_EXIT_FAIL;
			continue;
		}
		if (rep.st.closed)
			printf("%s stays closed (%s): 'lnk sandbox resume %s' "
			       "opens it\n",
			       v[i].name, ctl_cause_text(rep.st.cause),
			       v[i].name);
		else
			printf("%s: its wire is open\n", v[i].name);
	}
	free(v);
	printf("the stop is off: new sandboxes start with their wire open; "
	       "programs it stopped stay stopped\n");
	return status;
}

int cmd_stop(int argc, char **argv, const struct cli_ctx *cx)
{
	bool off = false;
	for (int i = 1; i < argc; i++) {
		if (is_help(argv[i])) {
			usage(stdout);
			return 0;
		}
		if (strcmp(argv[i], "--off") == 0) {
			off = true;
			continue;
		}
		if (argv[i][0] == '-') {
			static const char *const opts[] = {"--off", "--help",
							   NULL};
			return usage_unknown_option("stop", argv[i], opts);
		}
		warnx_(
		    "'lnk sandbox stop' stops every sandbox here and takes no NAME ('%s'); 'lnk sandbox pause %s' closes one wire",
		    argv[i], argv[i]);
		return LNK_EXIT_USAGE;
	}

	struct lnk_err err = {0};
	const char *home = cx->home;
	struct registry *st;
	if (registry_open(home, &st, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	if (off) {
		int r = stop_off(home, st);
		registry_close(st);
		return r;
	}

	if (registry_stop_set(st, true, registry_now_ms(), &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	struct registry_entry *v = NULL;
	size_t n = 0;
	if (registry_list(st, &v, &n, &err) < 0)
		diex(LNK_EXIT_FAIL, "%s", err.msg);
	registry_close(st);

	int status = 0;
	/* 2. Every wire closed, first (a sandbox without a network grant
	 * has none: nothing to close). */
	for (size_t i = 0; i < n; i++) {
		struct ctl_reply rep;
		struct lnk_err e2 = {0};
		if (!registry_entry_has_wire(&v[i]))
			continue;
		if (ctl_control_entry(home, &v[i], CTL_STOP, 1000, &rep, &e2) ==
		    0)
			continue;
		struct lnk_err e3 = {0};
		int fd = registry_proc_open(&v[i].wire, NULL, &e3);
		if (fd == -EPERM) {
			fprintf(stderr, "lnk: %s: %s\n", v[i].name, e3.msg);
			status = LNK_EXIT_FAIL;
		}
		if (fd >= 0) {
			warnx_(
			    "%s; ending that wire, so its sandbox has no network",
			    e2.msg);
			send_signal(fd, &v[i].wire, SIGKILL);
			close(fd);
		}
	}

	/* 3. TERM, grace, KILL. */
	int *fds = xcalloc(n ? n : 1, sizeof(int));
	bool *skip = xcalloc(n ? n : 1, sizeof(bool));
	for (size_t i = 0; i < n; i++) {
		const struct registry_proc *p = &v[i].supervisor;
		struct lnk_err e3 = {0};
		fds[i] = registry_proc_open(p, NULL, &e3);
		if (fds[i] == -EPERM) {
			fprintf(stderr, "lnk: %s: %s\n", v[i].name, e3.msg);
			status = LNK_EXIT_FAIL;
			skip[i] = true;
		}
		if (fds[i] < 0) {
			fds[i] = -1; /* already gone, or not lnk's */
			continue;
		}
		int r = send_signal(fds[i], p, SIGTERM);
		if (r < 0) {
			warnx_("cannot stop %s (pid %d): %s", v[i].name,
			       (int)p->pid, strerror(-r));
			close(fds[i]);
			fds[i] = -1;
			status = LNK_EXIT_FAIL;
		}
	}
	wait_exit(fds, n, GRACE_MS);
	bool *killed = xcalloc(n ? n : 1, sizeof(bool));
	for (size_t i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		struct lnk_err e3 = {0};
		int box =
		    registry_proc_open(&v[i].sandbox, &v[i].supervisor, &e3);
		if (box >= 0) {
			send_signal(box, &v[i].sandbox, SIGKILL);
			close(box);
		}
		send_signal(fds[i], &v[i].supervisor, SIGKILL);
		killed[i] = true;
	}
	wait_exit(fds, n, GRACE_MS);
	for (size_t i = 0; i < n; i++) {
		if (skip[i])
			continue;
		if (fds[i] >= 0) {
			warnx_("%s did not end even after SIGKILL", v[i].name);
			close(fds[i]);
			status = LNK_EXIT_FAIL;
			continue;
		}
		printf("stopped %s: %s, programs %s\n", v[i].name,
		       registry_entry_has_wire(&v[i]) ? "wire closed"
						      : "no wire",
		       killed[i] ? "killed after 2 s" : "ended");
	}
	if (n == 0)
		printf("no sandbox runs here\n");
	printf("the stop stays in force: new sandboxes start with their wire "
	       "closed until 'lnk sandbox stop --off'\n");
	free(killed);
	free(skip);
	free(fds);
	free(v);
	return status;
}
