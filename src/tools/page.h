/* Pages a program may open in the user's browser ([browser] open,
 * --browser-open): the URL a client sends is the program's, checked with
 * the grammar of the grants themselves (policy/keys.c) and matched
 * against them. Pure. */
#pragma once

#include <stdbool.h>

#include "common/err.h"
#include "common/util.h"

/* The names the page clients have inside: xdg-open, sensible-browser,
 * www-browser ($BROWSER names the last). */
bool page_client_name(const char *name);
/* Checks url (http:// or https:// only, no '@' before the host, no
 * wildcard, ASCII, no space, no '.' or '..' segment or backslash in its
 * path) into its normal form and its origin
 * ("https://host[:port]", for the log). 0 or -EINVAL with a message. */
int page_check(const char *url, char **norm, char **origin,
	       struct lnk_err *err);
/* What the log keeps of page_check's refusal err: its reason when that
 * quotes nothing of the URL (the log never holds a page's path), else
 * one that says what a page must be. Static text. */
const char *page_logged_why(const struct lnk_err *err);
/* Whether a normal URL lies under one of the granted patterns: the same
 * scheme, the same host and port (or a name under a '*.' one), and its
 * path the grant's or below it by whole segments: https://h/me grants
 * /me and /me/..., never /meevil; https://h/me/ only below /me/; https://h
 * every path. Any query or fragment may follow such a grant; a grant
 * with its own query or fragment grants that one URL exactly. */
bool page_allowed(const struct strv *patterns, const char *norm);
