/* The terminal the sandbox started from as an answerer of its questions.
 *
 * With a pty, lnk holds the real terminal and the program has only its own
 * pty (spawn.h). When the broker asks a question (a tool's call outside
 * its allow list, a page), it tells lnk the question's id over a pipe of
 * their own; lnk prints the question there with a random four-letter code
 * and reads the keystrokes itself: the code and Enter allow the call once
 * (the answer goes to the broker on a pipe only lnk writes, never through
 * a file), anything else or Esc refuses. While a question is up, the program's
 * output is held (bounded: the relay stops reading the pty when it is
 * full) and its keystrokes go to lnk; then the output is shown and the
 * keystrokes go back to the program.
 *
 * Threat: the program answering its own question. The code exists only in
 * lnk's memory and on lnk's terminal: never in the program's pty, the
 * question's file or anything the sandbox can read; and nothing the
 * program writes is read as a keystroke (its pty's output is held, and
 * TIOCSTI is refused inside). The question's text is the program's
 * choice, so it is shown escaped, after a reset of the terminal's parser.
 *
 * The relay calls these from its loop; each accepts NULL (no terminal to
 * ask on) and then does nothing. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct askterm;

/* The program's output held while a question is up, at most. */
#define ASKTERM_HOLD_MAX (1u << 20)

/* Takes fd (the pipe's read end from the broker) and answer_fd (the write
 * end of the pipe to the broker that carries the answers typed, "y ID" or
 * "n ID"; -1: none); asks_dir the questions' folder, out the terminal
 * (lnk's stdout, whose size the question is laid out to). */
struct askterm *askterm_new(int fd, const char *asks_dir, int out,
			    int answer_fd);
/* Ends a question still up on the terminal (the sandbox is over), shows
 * what was held, and frees. */
void askterm_free(struct askterm *a);
/* The pipe to poll for POLLIN, or -1. */
int askterm_fd(const struct askterm *a);
/* The pipe is readable: new questions, and the end of questions answered
 * elsewhere (`lnk sandbox answer`, expiry, the call gone). */
void askterm_readable(struct askterm *a);
/* Whether a question is up: keystrokes go to askterm_keys and the
 * program's output to askterm_hold. */
bool askterm_asking(const struct askterm *a);
/* Room left to hold the program's output (0: stop reading the pty). */
size_t askterm_hold_room(const struct askterm *a);
/* Holds n (at most askterm_hold_room) bytes of the program's output. */
void askterm_hold(struct askterm *a, const char *p, size_t n);
/* Keystrokes typed while a question is up: never the program's. */
void askterm_keys(struct askterm *a, const char *p, size_t n);
/* Milliseconds until askterm_tick has something to do, or -1. */
int askterm_timeout_ms(const struct askterm *a);
/* A question past its expiry (and not ended by the broker) is withdrawn. */
void askterm_tick(struct askterm *a);
/* The sandbox is over: a question still up is withdrawn on the terminal,
 * the held output shown, the queue emptied. */
void askterm_finish(struct askterm *a);
