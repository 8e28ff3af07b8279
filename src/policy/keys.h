/* THE table of keys (docs/design.md, "One model").
 *
 * Every grant is a key of a spec and every flag is a key. Flag parsing, spec
 * parsing, `lnk sandbox permissions`, `lnk sandbox spec` and --help all read
 * this one table. Adding a grant means adding a row here and handling its
 * key_id and key_type in each consumer: the consumers `switch` on them and
 * -Werror=switch-enum makes the compiler point at every one.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

enum key_id {
	K_NAME,			 /* name = "app"            --name */
	K_VERSION,		 /* version = 1             (spec only) */
	K_FILES_WRITE,		 /* [files] write           --write */
	K_FILES_READ,		 /* [files] read            --read */
	K_FILES_HIDE,		 /* [files] hide            --hide (adds) */
	K_FILES_WRITE_DOT_FILES, /* [files] write_dot_files --write-dot-files */
	K_FILES_CHANGES,	 /* [files] changes         --changes */
	K_INTERNET_HOSTS,	 /* [internet] hosts        --internet-host */
	K_INTERNET_MODELS,	 /* [internet] models       --model */
	K_LAN_HOSTS,		 /* [lan] hosts             --lan-host */
	K_LOCALHOST_PORTS,	 /* [localhost] ports       --port */
	K_TOOLS_ALLOW,		 /* [tools] allow           --tool */
	K_TOOLS_ASK_WAIT,	 /* [tools] ask_wait        --ask-wait */
	K_BROWSER_OPEN,		 /* [browser] open          --browser-open */
	K_COMMANDS_ALLOW,	 /* [commands] allow        --command */
	K_COMMANDS_ENV,		 /* [commands] env          --env */
	K_LIMITS_MEMORY,	 /* [limits] memory         --memory */
	K_LIMITS_TASKS,		 /* [limits] tasks          --tasks */
	K_LIMITS_TMP_SIZE,	 /* [limits] tmp_size       --tmp-size */
	K_TRIP_CALLS,	/* [tripwires] refused_calls --trip-refused-calls */
	K_TRIP_TARGETS, /* [tripwires] refused_targets --trip-refused-targets */
	K__COUNT
};

enum key_type {
	KT_NAME,    /* a sandbox name: [A-Za-z0-9._-], 1..64 */
	KT_VERSION, /* an integer; only 1 exists */
	KT_PATHS,   /* folders: ~ expanded, made absolute, symlinks resolved */
	KT_HOSTS,   /* internet host patterns: '*', name, '*.suffix' */
	KT_LAN,	    /* LAN machines: name, address or CIDR, optional :port */
	KT_PORTS,   /* loopback ports 1..65535 */
	KT_TOOLS, /* "tool" or "tool pattern": tools outside and calls allowed */
	KT_URLS,  /* pages the program may open: an http(s) page and below */
	KT_COMMANDS, /* programs it may run: a name on PATH, a path, or '*' */
	KT_ENV,	     /* environment variable names passed from lnk's */
	KT_SIZE,     /* one size in bytes: "512M", "2G" (K, M, G, T: 1024s) */
	KT_COUNT,    /* one whole number */
	KT_MODELS,   /* model routes: "anthropic", "NAME=https://host/base" */
	KT_CHANGES,  /* what a run's end says: "off", "summary", "full" */
};

enum merge_rule {
	MERGE_REPLACE, /* a flag beside --spec replaces the file's value */
	MERGE_ADD,     /* a flag beside --spec adds to the file's value */
};

struct key_def {
	enum key_id id;
	const char *section; /* NULL for a top-level key */
	const char *key;
	const char *flag;    /* "--write", or NULL for spec-only keys */
	const char *metavar; /* "DIR" */
	enum key_type type;
	enum merge_rule merge;
	const char *help; /* one line, lowercase, no final period */
};

/* The table, indexed by enum key_id. */
const struct key_def *keys_table(void);
const struct key_def *key_def(enum key_id id);
/* The row whose flag is name ("--write"), or NULL. */
const struct key_def *key_by_flag(const char *name);
/* The row for section.key (section NULL for top level), or NULL. */
const struct key_def *key_by_name(const char *section, const char *key);
/* The sections in the order specs print them: files, internet, lan,
 * localhost, tools, browser, commands, limits, tripwires. NULL-terminated. */
const char *const *keys_sections(void);

/* Checks one entry given for key d (a flag's argument, or one string of a
 * spec's array; len bytes, which may hold a NUL a TOML string smuggled in)
 * and returns its normal form in *out: hosts lowercased without a trailing
 * dot, addresses canonical, ports without leading zeros, tool calls with
 * single spaces. Paths and commands are checked for form only here;
 * policy_resolve resolves them. 0 or -EINVAL with a message that names the
 * entry; the caller prefixes where it came from. KT_VERSION is not a string
 * key and always fails here. */
int key_normalize(const struct key_def *d, const char *s, size_t len,
		  char **out, struct lnk_err *err);

/* A tool's call pattern (KT_TOOLS after the tool's name; tools.toml's
 * calls): words, each matched whole against one argument, '*' alone for
 * any one (or, last, any further ones). At most KEY_TOOL_WORDS words and
 * KEY_TOOL_CALL bytes with the tool's name, so that a pattern, a hint to
 * paste and a line of tools.toml stay readable. */
#define KEY_TOOL_WORDS 64
#define KEY_TOOL_CALL 1024
/* Why the len bytes at s cannot be one word of a pattern, as a phrase
 * ("holds a space"), or NULL when they can ('*' alone can: the
 * wildcard). */
const char *key_tool_word_why(const char *s, size_t len);
/* Checks a pattern (words separated by spaces, at least one) into its
 * normal form, words joined by one space. 0 or -EINVAL with a message
 * naming the pattern and the word; the caller prefixes where it came
 * from. */
int key_tool_pattern(const char *s, size_t len, char **out,
		     struct lnk_err *err);

/* What a key takes, for `lnk sandbox permissions`: "list of folders". */
const char *key_type_desc(enum key_type t);
/* The TOML type a spec gives it: "array of strings", "string", ... */
const char *key_toml_type(enum key_type t);
/* True for keys that hold a list (everything but name, version, sizes and
 * counts). */
bool key_is_list(enum key_type t);
/* The key names of section (NULL: top level, with the section names too),
 * into out (at most max), for "did you mean" hints. Returns the count. */
size_t keys_names_in(const char *section, const char **out, size_t max);

/* The one grammar of sizes, for specs, flags and settings.toml: digits,
 * then an optional K, M, G or T (powers of 1024, either case), nothing
 * else: "512M", "4g", "1048576". 0 or -EINVAL (also on overflow). */
int key_parse_size(const char *s, size_t len, uint64_t *out);

/* The value of a KT_SIZE or KT_COUNT entry in its normal form (as
 * key_normalize made it); 0 for NULL. */
uint64_t key_scalar_value(const char *norm);
