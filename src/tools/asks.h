/* The questions a sandbox asks, recorded in ~/.lnk/sandbox/asks/, which no
 * sandbox reaches and only its user can read (~/.lnk is theirs alone):
 * `lnk sandbox asks` lists them and `lnk sandbox answer ID yes|no`
 * answers one from any shell of the same user.
 *
 * One question is two files: ID.q (written by the broker: the sandbox,
 * when it expires, the question, one line each, escaped) and ID.a (written
 * once by answer, O_EXCL: the first answer counts). The broker removes
 * both once the question is answered, expired or withdrawn. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"

#define ASK_ID_LEN 6
#define ASK_WAIT_DEFAULT_S 120
#define ASK_WAIT_MAX_S 3600
/* The bytes of a question's call shown; what does not fit is said. */
#define ASK_QUESTION_MAX 5000 /* a page of 4096 bytes fits */

struct ask {
	char id[ASK_ID_LEN + 1];
	char *sandbox;
	char *question; /* escaped already */
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
/* The question id (its fields escaped for a terminal), answered or not,
 * expired or not; free its sandbox and question. 0 or -errno (-ENOENT:
 * no such question). */
int asks_get(const char *dir, const char *id, struct ask *a);
/* Answers id: -ENOENT when no such question waits (or it expired),
 * -EEXIST when it was answered already. */
int asks_answer(const char *dir, const char *id, bool yes, int64_t now_ms,
		struct lnk_err *err);
/* 1 with *yes when id is answered, 0 when not yet. */
int asks_answered(const char *dir, const char *id, bool *yes);
/* Removes the question and its answer. */
void asks_withdraw(const char *dir, const char *id);
/* ask_wait from settings.toml (seconds, 1 to ASK_WAIT_MAX_S), or the
 * default. 0 or -EINVAL naming the line. */
int asks_wait_setting(const char *settings, unsigned *seconds,
		      struct lnk_err *err);
int64_t asks_now_ms(void);
