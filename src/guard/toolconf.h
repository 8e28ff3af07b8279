/* Other tools' configuration that names a program or a file: the one
 * table rule O of docs/runs-outside.md is made from (ssh, AWS, kubectl,
 * npm, cargo, gh, pip).
 *
 * Threat: the user's ~/.ssh/config says `ProxyCommand ~/proj/bin/jump`,
 * `Include ~/dotfiles/ssh/x.conf` or `PKCS11Provider ~/w/p11.so`; a
 * kubeconfig's user runs `command: /w/get-token`; ~/.aws/config has
 * `credential_process = /w/creds`, ~/.npmrc `script-shell=/w/sh`, cargo
 * `rustc-wrapper = "/w/wrap"`. A program that may write /w rewrites that
 * file, and the user's next ssh (a granted `git fetch` too), kubectl,
 * aws, npm or cargo runs it outside, as the user, or trusts the key, the
 * known hosts or the CA it put there. Rule C does this for git's config.
 *
 * Every value of these files is handed on as a command line, whatever
 * its key: the caller protects each word that is a path (a key this
 * table does not know may name a file too: a CA bundle, a token file, a
 * library). Includes (ssh's Include, with its wildcards) are followed
 * where the tool takes them from and the files kept too; a wildcard's
 * folder is kept whole, so no new file can match it. Read as data,
 * bounded: 1 MiB a file, 8 includes deep, 256 files a tool (a file is read
 * once: an include loop ends). */
#pragma once

#include <stddef.h>

struct toolconf_cb {
	void *ctx;
	/* A value: each word of it that is a path is kept for why. base:
	 * the folder a relative path with a '/' is taken from, or NULL
	 * (the tool takes it from wherever it runs: nothing to keep). */
	void (*value)(void *ctx, const char *value, const char *base,
		      const char *why);
	/* A file or folder the tool reads as its configuration (an
	 * include, a wildcard's folder): kept whole. */
	void (*file)(void *ctx, const char *path, const char *why);
	/* One tool's configuration is more files than are read (its
	 * includes): what is left unread could name anything, so the
	 * caller refuses to run. */
	void (*over)(void *ctx, const char *file);
};

/* Reads each tool's configuration files, the home's defaults and what
 * env names for them both (the environment the tool runs with later is
 * not known). home: the home folder, absolute. */
void toolconf_scan(const char *home, char *const *env,
		   const struct toolconf_cb *cb);

/* The same for the project's kept files at the top of write folder top
 * (.yarnrc.yml, .npmrc, .cargo/config.toml, .envrc, the hook managers'):
 * list L keeps each file, but what its keys name (yarnPath, script-shell,
 * rustc-wrapper, source_env, a local hook's entry) is the project's own
 * script, which the program could rewrite. Only those keys are read; a
 * relative path is from the top (cargo's too). home: for "~/x". */
void toolconf_scan_project(const char *top, const char *home,
			   const struct toolconf_cb *cb);

/* The table's files and variables as it spells them ("~/.npmrc",
 * "$KUBECONFIG:"), at most cap into out; how many there are. */
size_t toolconf_files(const char **out, size_t cap);
