/* How an answer reaches the broker: only from the person.
 *
 * Threat: the program answering its own question. Whatever a program, a
 * tool it called or another sandbox can write (a file in the asks folder,
 * a line on a socket it can reach) must never count as an answer. So an
 * answer arrives on three channels only, each delivering (id, yes or no)
 * to the broker:
 *   - lnk's terminal prompt (launch/askterm.h) writes "y ID\n" or "n ID\n"
 *     on a pipe whose only writer is lnk, outside;
 *   - the desktop process (desktop.h), a child of the broker's, sends the
 *     same line on its own socket pair when Allow or Deny was pressed;
 *   - `lnk sandbox answer ID yes|no`, from a shell of the user, connects to
 *     the sandbox's answer socket (answer_path: in the asks folder, which
 *     no sandbox reaches, mode 0600) and sends the line. The broker takes
 *     it only from a process of its own user that is in no sandbox: its
 *     user, mount, pid and network namespaces are the broker's own (read
 *     through a pidfd of the peer, so a pid reused meanwhile is not taken
 *     for it). A process in a sandbox, in a tool's own namespaces, or under
 *     `unshare -m` / `unshare -U` is refused, with the reason.
 * No file is ever taken as an answer. The first answer counts.
 *
 * On the answer socket (SOCK_SEQPACKET), one message each way:
 *   client -> broker: "y ID" or "n ID" (answer_line_parse)
 *   broker -> client: one letter (enum answer_code) and a text. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "tools/asks.h"

enum answer_code {
	ANSWER_TAKEN = 'T',   /* the answer counts */
	ANSWER_UNKNOWN = 'U', /* no such question waits (ended, expired) */
	ANSWER_ALREADY = 'A', /* answered already: the first answer counts */
	ANSWER_REFUSED = 'R', /* not from the person (the text says why) */
};

/* The answer socket of sandbox: <asks_dir>/<sandbox>.answer, or NULL for
 * a name that is no sandbox name. */
char *answer_path(const char *asks_dir, const char *sandbox);

/* Listens on the answer socket of sandbox (made anew, mode 0600; one left
 * by a sandbox of that name that was killed is replaced). *path is for
 * answer_unlisten. 0 or -errno. */
int answer_listen(const char *asks_dir, const char *sandbox, int *fd,
		  char **path, struct lnk_err *err);
/* Closes fd, removes the socket at path and frees path. */
void answer_unlisten(int fd, char *path);

/* Whether the peer of conn is the person: a process of the broker's own
 * user, in the broker's own user, mount, pid and network namespaces. 0, or
 * -EPERM with why (what is wrong, in words for the person). */
int answer_peer_check(int conn, char *why, size_t cap);

/* Accepts one connection on listen_fd (non-blocking), checks its peer and
 * reads one message (waiting a moment for it). 1 with id and *yes set and
 * *conn open for answer_reply; 0 when nothing was taken (no connection
 * waiting, or one refused, told why and closed: a wrong peer, a bad
 * message); -errno on an error of the listening socket. */
int answer_take(int listen_fd, char id[ASK_ID_LEN + 1], bool *yes, int *conn,
		struct lnk_err *err);
/* Replies code (enum answer_code) and text to an answer taken, then
 * closes conn. */
void answer_reply(int conn, int code, const char *text);

/* `lnk sandbox answer`: sends the answer to the broker of sandbox and
 * waits for its reply. 0 when it counts; -ENOENT when no such question
 * waits (ended, expired, or its sandbox is gone), -EEXIST when answered
 * already, -EPERM when the broker refused the answer (err says why),
 * other -errno when it could not be sent. */
int answer_send(const char *asks_dir, const char *sandbox, const char *id,
		bool yes, struct lnk_err *err);

/* A line "y ID" or "n ID" (n bytes, one '\n' at the end or none): 0 with
 * id and *yes, or -EINVAL. */
int answer_line_parse(const char *line, size_t n, char id[ASK_ID_LEN + 1],
		      bool *yes);

/* ---- the broker's side: the three channels together ---- */

/* Answers the broker received and not yet taken, at most one a question
 * (the first counts). */
#define ANSWER_BOX_MAX 64

struct answer_box {
	int listen_fd; /* the answer socket, or -1 */
	char *path;    /* its path */
	int pipe_fd;   /* lnk's terminal prompt, or -1 */
	char line[32]; /* a line of the pipe, not yet whole */
	size_t linelen;
	struct {
		char id[ASK_ID_LEN + 1];
		bool yes;
	} got[ANSWER_BOX_MAX];
	size_t n;
};

/* Whether id is a question of the broker's that still waits. */
typedef bool (*answer_waiting_fn)(void *ctx, const char *id);

/* Opens the answer socket of sandbox and takes pipe_fd (the terminal's, or
 * -1). Without the socket (err says why) the box still takes the other
 * channels. 0 or -errno. */
int answer_box_open(struct answer_box *box, const char *asks_dir,
		    const char *sandbox, int pipe_fd, struct lnk_err *err);
/* Takes, without waiting, what the terminal's pipe and the answer socket
 * hold: each answer to a question waiting(ctx, id) is kept (the first one
 * a question gets), and the socket's answerer is told whether it counts.
 * -EPIPE when the terminal's pipe hung up (it is closed; the other
 * channels go on), else 0. */
int answer_box_pump(struct answer_box *box, answer_waiting_fn waiting,
		    void *ctx);
/* The desktop process's socket is readable: its answer is kept as above.
 * -EPIPE when the process is gone, else 0. */
int answer_box_desktop(struct answer_box *box, int desktop_fd,
		       answer_waiting_fn waiting, void *ctx);
/* 1 with *yes when id was answered (the answer is taken out), else 0. */
int answer_box_get(struct answer_box *box, const char *id, bool *yes);
void answer_box_close(struct answer_box *box);
