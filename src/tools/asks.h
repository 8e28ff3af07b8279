/* The questions a sandbox asks, recorded in ~/.lnk/sandbox/asks/, which no
 * sandbox reaches and only its user can read (~/.lnk is theirs alone):
 * `lnk sandbox asks` lists them, and lnk's terminal prompt reads the one
 * it shows from there.
 *
 * A question is one file, ID.q, written by the broker and removed once the
 * question is answered, expired or withdrawn. It says what was asked; it is
 * never an answer: answers reach the broker only from the person
 * (tools/answer.h), never through a file, which a tool, a program or
 * another sandbox could write.
 *
 * ID.q holds one field a line, "KEY VALUE", each value escaped (ESC_LINE:
 * no newline, no control), so nothing in a tool's argument can start a
 * line, a field or a question of its own:
 *   lnk-ask 2
 *   sandbox NAME          (a sandbox name: the answer socket's, answer.h)
 *   expires UNIX_MS
 *   summary ONE_LINE      (question.h's summary)
 *   line TEXT             (one per line of the question, in order)
 *   end */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"

#define ASK_ID_LEN 6
#define ASK_WAIT_DEFAULT_S 120
#define ASK_WAIT_MAX_S 3600
/* The lines of a question read back from its file, at most. */
#define ASK_LINES_MAX 64

struct ask {
	char id[ASK_ID_LEN + 1];
	char *sandbox; /* a sandbox name (sandbox_name_check) */
	char *summary; /* one line, escaped (question.h) */
	/* the folder as the summary ends with it (", in FOLDER"), or NULL
	 * (a page): what ends the summary is lnk's, whatever an argument
	 * before it holds */
	char *folder;
	char *question; /* lines, each escaped and ended by '\n' */
	int64_t expires_ms;
};

char *asks_dir(const char *home); /* ~/.lnk/sandbox/asks */
/* A new random id: six of [a-z0-9]. */
void asks_new_id(char id[ASK_ID_LEN + 1]);
bool asks_id_ok(const char *id);
/* Records a question (the folder made when missing). 0 or -errno. */
int asks_put(const char *dir, const struct ask *a, struct lnk_err *err);
/* The questions waiting and not expired (now_ms), oldest first. */
int asks_list(const char *dir, int64_t now_ms, struct ask **v, size_t *n,
	      struct lnk_err *err);
void asks_free(struct ask *v, size_t n);
/* The question id (its fields escaped for a terminal), expired or not;
 * ask_clear frees it. 0 or -errno (-ENOENT: no such question; -EINVAL: a
 * file that is no question). */
int asks_get(const char *dir, const char *id, struct ask *a);
/* Frees what asks_get filled. */
void ask_clear(struct ask *a);
/* Removes the question. */
void asks_withdraw(const char *dir, const char *id);
/* ask_wait from settings.toml (seconds, 1 to ASK_WAIT_MAX_S), or the
 * default. 0 or -EINVAL naming the line. */
int asks_wait_setting(const char *settings, unsigned *seconds,
		      struct lnk_err *err);
int64_t asks_now_ms(void);
