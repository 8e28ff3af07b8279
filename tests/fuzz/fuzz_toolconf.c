/* libFuzzer target for rule O's reading of other tools' configuration
 * (src/guard/toolconf.c): ssh's config, AWS's and pip's INI, npm's and
 * cargo's key = value and TOML, kubeconfig's, gh's and the hook
 * managers' YAML, VS Code's JSON, the shell's startup files and .envrc.
 * Those files are the person's or a project's, written by anyone who
 * wrote a dotfile or a repository. The first byte picks the table's row;
 * the rest is the file's text. Never a crash or a read past the text;
 * what is handed on is a string, and a file to keep is a path of its own
 * (absolute), with a reason. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guard/toolconf.h"
#include "guard/toolconf_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void value(void *ctx, const char *v, const char *base, const char *why)
{
	(void)ctx;
	if (!v || !why || strlen(v) > (1 << 20) || (base && base[0] != '/'))
		abort();
}

static void file(void *ctx, const char *path, const char *why)
{
	(void)ctx;
	if (!path || path[0] != '/' || !why)
		abort();
}

static void over(void *ctx, const char *f)
{
	(void)ctx;
	if (!f)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	char *text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	struct toolconf_cb cb = {
	    .ctx = NULL, .value = value, .file = file, .over = over};
	toolconf_parse(data[0], text, "/nonexistent/proj/.cfg/file",
		       "/nonexistent/home", &cb);
	free(text);
	return 0;
}
