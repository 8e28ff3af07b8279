/* A tool call as the broker reads it from the client (proto.h): hostile
 * bytes, decoded with every length bounded. Fuzzable: pure. */
#pragma once

#include <stddef.h>

#include "common/err.h"
#include "common/util.h"

struct tools_call {
	char *tool;	  /* the name the client says it is */
	char *cwd;	  /* its working folder inside */
	struct strv args; /* argv[1..] */
};

/* 0, or -EINVAL/-E2BIG with a message for the client. */
int tools_call_decode(const char *buf, size_t len, struct tools_call *c,
		      struct lnk_err *err);
/* The same with another format's magic (the broker's reader hands the
 * call on to its starter in this form, pass.h). */
int tools_call_decode_as(const char *magic, const char *buf, size_t len,
			 struct tools_call *c, struct lnk_err *err);
/* The call in the form tools_call_decode_as(magic) reads, *len bytes. */
char *tools_call_encode(const char *magic, const struct tools_call *c,
			size_t *len);
void tools_call_free(struct tools_call *c);
/* Whether sig is one a client may pass on to its tool: the ones a
 * terminal or a parent sends to end or tell a program (INT, TERM, HUP,
 * QUIT, USR1, USR2, WINCH, CONT), never a stop or a core dump of lnk's
 * choosing. */
int tools_signal_ok(int sig);
