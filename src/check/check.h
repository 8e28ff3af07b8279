/* lnk sandbox check (lnk-sandbox(1), COMMANDS, check).
 *
 * Three jobs, one file each:
 *   bait.c    plants bait outside the sandbox (secrets in files, an
 *             environment variable, an inherited descriptor, servers on
 *             loopback and unix sockets), records every name it plants so a
 *             crashed check is cleaned by the next one, and removes it all;
 *   tries.c   from the policy and the bait, the list of tries the probe
 *             makes inside, each with what the grants say should happen;
 *   report.c  the probe's answers and what the host shows afterwards →
 *             blocked, allowed, failed, missed, open or leaked; the table
 *             and the JSON.
 * cmd_check.c runs the probe (lnk-probe) in the sandbox run builds
 * (launch/sandbox.h) between planting and removing.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/buf.h"
#include "common/err.h"
#include "common/util.h"
#include "policy/policy.h"

/* The first bytes of every file check plants or has the probe write: the
 * removal of a stale record deletes a file only if it starts so. */
#define BAIT_MARK "lnk-check-bait "

/* ---- bait.c ------------------------------------------------------------ */

struct bait_server {
	int fd;	      /* listening, CLOEXEC, non-blocking */
	char *what;   /* "127.0.0.1:40123", for messages */
	bool is_unix; /* unlink path at removal */
	char *path;   /* unix socket path (not abstract) */
};

struct bait {
	char tag[17]; /* 16 hex digits, random: in every name */
	char *secret; /* "lnk-check-secret-<tag>" */
	char *record; /* ~/.lnk/sandbox/check/<tag>.bait */
	int record_fd;
	struct strv files; /* every planted (or expected) file: removed */
	char *home_file;   /* ~/.lnk-check-<tag> */
	char *lnk_file;	   /* ~/.lnk/lnk-check-<tag> */
	char *tmp_file;	   /* /tmp/lnk-check-<tag> */
	struct strv hidden_files;  /* one in each --hide and always-hidden
				   * folder that exists */
	struct strv granted_files; /* one in each --read and --write folder
				    * (pairs: folder, file) */
	struct strv dot_planted;   /* pairs: write folder, planted dot file */
	/* A protected name that is a link into a folder of check's, in each
	 * write folder where one is free: quads of write folder, link,
	 * folder on its way, the target file. */
	struct strv chains;
	/* A folder of check's that holds a folder hidden as --hide, in each
	 * write folder that holds a hidden folder: triples of write folder,
	 * holder, the file in the hidden folder. */
	struct strv hide_holders;
	struct strv hide_added; /* the hidden folders: cmd_check hides them */
	struct strv dirs;	/* folders check made: removed when empty */
	struct strv links;	/* links check made */
	char *stdin_file;	/* /tmp/lnk-check-<tag>-in: the probe's stdin */
	struct strv host_addrs; /* pairs: an address of this machine (not
				 * loopback), the port check serves there */
	char *env_name;		/* LNK_CHECK_SECRET_<TAG> */
	int fd;			/* the descriptor lnk inherits: tmp_file */
	uint16_t port;		/* the bait server's loopback port */
	char *unix_path;	/* a socket in /tmp, outside */
	char *abstract;		/* "@lnk-check-<tag>" */
	char *home_socket;	/* a socket in the home folder */
	char *home_dgram;	/* a datagram socket there, or NULL */
	int home_dgram_fd;
	struct bait_server *srv;
	size_t nsrv;
	struct strv ports_served; /* --port ports check serves itself */
	char comm[16];		  /* check's process name while it runs */
};

/* Plants every bait the policy's tries need. On error what was planted is
 * removed. b is initialized here; free it with bait_remove. */
int bait_plant(struct bait *b, const struct policy *p, const char *home,
	       struct lnk_err *err);
/* Accepts on server i and answers with the secret (an HTTP/1.0 answer,
 * so a raw read and a proxied GET both see it). Never blocks. */
void bait_serve(struct bait *b, size_t i);
/* Records a path the probe may write, so the removal covers it too. */
void bait_expect(struct bait *b, const char *path);
/* The same for a folder the probe may make (by a rename): removed when
 * empty, after the files. */
void bait_expect_dir(struct bait *b, const char *path);
/* A repository check makes below the top of write folder w (index i):
 * w/lnk-check-<tag>-r<i>/.git, both folders recorded for removal. The
 * probe then writes its config, as a program would leave a repository.
 * Returns the .git folder's path (allocated), or NULL when w takes no
 * folder of check's. */
char *bait_repo_below(struct bait *b, const char *w, size_t i);
/* Removes everything planted or expected (only files that carry
 * BAIT_MARK, and sockets check made), closes the servers and the record,
 * and frees b. Safe to call twice. */
void bait_remove(struct bait *b);

/* Whether a hidden folder that exists (always hidden or --hide) lies below
 * w: bait plants a holder of one there, and the probe's mode try on w is
 * refused even under --write-dot-files. */
bool bait_holds_hidden(const struct policy *p, const char *home, const char *w);
/* Removes the bait of earlier checks that died before removing their own
 * (their process is gone). The paths removed are appended to removed. */
void bait_clean_stale(const char *home, struct strv *removed);

/* ---- tries.c ----------------------------------------------------------- */

enum check_expect {
	CHECK_DENY,   /* nothing grants it */
	CHECK_ALLOW,  /* a grant lets it through */
	CHECK_GAP,    /* a known gap: it may get through (check_gaps) */
	CHECK_REFUSE, /* nothing grants it, and only a refusal shows it: a
		       * call that timed out may have gone out (a neighbour
		       * that did not answer proves nothing) */
};

enum check_outcome {
	CO_NONE,    /* the probe said nothing about it */
	CO_REACHED, /* the call went through */
	CO_REFUSED, /* refused */
	CO_ERROR,   /* failed another way */
};

enum check_verdict {
	CV_BLOCKED,
	CV_ALLOWED,
	CV_FAILED,
	CV_MISSED,
	CV_OPEN,
	CV_LEAKED,
};

/* After the run, what the host must show for a try that writes. */
enum check_host {
	CH_NONE,
	CH_ABSENT,    /* host_path must not exist */
	CH_UNCHANGED, /* host_path must still hold host_content */
	CH_CTIME,     /* host_path's inode must not change (its ctime is
		       * host_ctime): a chmod to the mode it has */
	CH_FLAGGED,   /* the table of what runs later (src/changes/flags.c)
		       * must name host_path when host_root, a write folder,
		       * is walked as a run's end walks it, from host_ctime */
};

struct check_try {
	char id[8];
	const char *area; /* "files", "settings", ... (static) */
	char *what;	  /* for people: "read ~/.lnk-check-…" */
	char *probe;	  /* "KIND\tARG…" for lnk-probe */
	enum check_expect expect;
	int batch; /* the sandbox it runs in: a wire pauses itself after 30
		    * refusals a minute, 20 refused targets, or any call to a
		    * cloud's metadata, and a try refused by a paused wire
		    * proves nothing; so refused calls are spread over fresh
		    * sandboxes, each metadata call in one of its own */
	const char *gap; /* the gap's reason (CHECK_GAP) */
	enum check_host host;
	char *host_path;
	char *host_root; /* CH_FLAGGED: the write folder walked */
	char *host_content;
	struct timespec host_ctime;
	/* Filled from the probe's answer and the host. */
	enum check_outcome out;
	char *detail;
	enum check_verdict v;
};

struct check_list {
	struct check_try *t;
	size_t n, cap;
	int batches; /* how many sandboxes the tries need */
	int refused_in_batch;
	char *limits_line; /* what limits the sandbox's memory and tasks */
};

/* The bounds lnk sets on a sandbox (launch/limits.h), as check sees them
 * outside. */
struct check_limits {
	uint64_t tmp_bound; /* bytes each file system in memory holds at
			     * most (the kernel's half of memory for 0) */
	uint64_t tasks;	    /* RLIMIT_NPROC inside; 0: none */
	bool root;	    /* the kernel exempts uid 0 from RLIMIT_NPROC */
	const char *line;   /* for people: limits_describe */
};

/* Refused proxy calls per sandbox: under both tripwires' counts. */
#define CHECK_REFUSED_PER_BATCH 12

/* The tries for policy p (resolved) with bait b, in the order the probe
 * makes them: allowed network calls before refused ones (a wire pauses
 * itself after 30 refusals), a cloud's metadata address last (any call to
 * it pauses the wire at once). home is absolute. Paths the probe may
 * write are recorded in b (bait_expect) so they are removed afterwards. */
void check_plan(const struct policy *p, struct bait *b, const char *home,
		const struct check_limits *lim, struct check_list *out);
void check_list_free(struct check_list *l);

/* The known gaps (man page, "GAPS AND LIMITS"): name, reason. */
struct check_gap {
	const char *name;
	const char *why;
};
const struct check_gap *check_gaps(size_t *n);

/* ---- report.c ---------------------------------------------------------- */

/* Reads the probe's output (lines "ID\tRESULT\tDETAIL"), looks at the host
 * for the tries that write, and gives every try its verdict. Lines that do
 * not match a try are ignored: the probe's output is treated as hostile
 * (the program under test shares its sandbox). */
void check_judge(struct check_list *l, const char *probe_out, size_t len);
/* One try's verdict from its expectation, outcome and host state (pure). */
enum check_verdict check_verdict_of(enum check_expect e, enum check_outcome o,
				    enum check_host h, bool host_ok);
const char *check_verdict_name(enum check_verdict v);
size_t check_count(const struct check_list *l, enum check_verdict v);

/* The table for people, and one JSON object for machines. */
void check_table(const struct check_list *l, const char *home, struct buf *out);
void check_json(const struct check_list *l, const struct strv *warnings,
		struct buf *out);
