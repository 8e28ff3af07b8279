/* The first routers this user's wires have heard answer, kept between
 * wires in lnk's own settings (~/.lnk/sandbox/routers, which no sandbox
 * can see or write).
 *
 * The threat (hop.h): a router sends only a few ICMP errors a second to
 * one host, and a program in one sandbox can spend them with connects
 * beyond the router. A wire that has not heard its first router yet then
 * meets silence, takes the router for one that never answers (a cloud's)
 * and lets its program reach a port forward on the router's own address,
 * which leads back to this machine. Silence means "a router that never
 * answers" only for a router no wire of this user has heard: once one
 * has, a later wire's silence is refused as it is within one wire. The
 * wire that spends the errors heard the router first (its first probe is
 * answered), so its record is there before the budget is gone.
 *
 * A router is named by what it is on the link: its address and the
 * link-layer address the neighbour table holds for it (another network
 * whose router has the same address is another router), or, through a
 * point-to-point device, the device. A record is kept HEARD_KEEP_DAYS
 * after it was last heard: a router that stopped answering for good is
 * taken as silent by nature again after that.
 *
 * Full disk: the file has a fixed size, reserved when it is made, and the
 * keeper opens (and makes) it before it starts the wire, so before any
 * program runs; a record is written into room already reserved, so a
 * program that fills the disk cannot keep its wire's record out. A keeper
 * that cannot open the file refuses silence (keeper.c).
 *
 * The file: lines "SECONDS KEY\n", newest first, then NUL bytes to
 * HEARD_FILE_SIZE. Writers hold an exclusive lock, readers a shared one;
 * a line that does not read as a record is dropped.
 *
 * Another user: the router's budget of ICMP errors is the machine's, not
 * a user's, so a program of another user (in a sandbox or not) can spend
 * it before a user's first wire has heard the router. So the records are
 * also kept in the machine's folder (HEARD_DIR, made by the package, by
 * install.sh, or by lnk run as root: owned by root, sticky, open to
 * all), one file a user, named by the user's number, that only that user
 * writes and every keeper reads: silence from a router any user's wire
 * heard is refused. A record another user wrote (true or not) can only
 * make silence refused, never let a connect through; a file that is not
 * a regular file of the user its name says is not read, and one whose
 * lock is held past the wait counts as knowing the router (refused). A
 * folder that is missing, or not root's and sticky, is not used: the
 * user's own file alone decides, as before. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "wire/route.h"

#define HEARD_FILE_SIZE 8192
/* The machine's folder; every user's keeper reads the files in it. */
#ifndef HEARD_DIR
#define HEARD_DIR "/var/lib/lnk/routers"
#endif
/* The most entries of it looked at for one silence (users of one
 * machine); past them, silence is refused. */
#define HEARD_DIR_FILES_MAX 4096
#define HEARD_KEY_MAX 160
#define HEARD_KEEP_DAYS 30

/* The key of router r: 0, or -ENOENT when it cannot be told apart from
 * another network's (a gateway whose link-layer address is not known, or
 * no gateway and no device). */
int heard_key(const struct route_router *r, char *out, size_t cap);

/* Opens the file at path, making it with HEARD_FILE_SIZE reserved: a
 * descriptor (CLOEXEC), or -errno. A link, or anything but a regular file
 * of the user's own, is refused. */
int heard_open(const char *path);
/* Whether key was heard at most HEARD_KEEP_DAYS before now; true too
 * when the file cannot be read (silence is then refused). */
bool heard_knows(int fd, const char *key, time_t now);
/* Keeps key as heard at now. 0 or -errno. */
int heard_note(int fd, const char *key, time_t now);

/* The machine's folder at path (HEARD_DIR), open: a descriptor, or
 * -errno; -EPERM when it is not a folder of root's with the sticky bit.
 * As root, it is made (with its parent) when missing. */
int heard_dir_open(const char *path);
/* This user's file in the folder dir, made with HEARD_FILE_SIZE reserved
 * and readable by all: a descriptor, or -errno (-EPERM when the name is
 * taken by another user's file, or by anything but a regular file). */
int heard_dir_mine(int dir);
/* Whether any user's file in dir holds key heard within the keep; true
 * too when the folder cannot be read, holds more than
 * HEARD_DIR_FILES_MAX entries, or a file's lock stays taken. */
bool heard_dir_knows(int dir, const char *key, time_t now);

/* The file's text, pure (unit-tested): whether it holds key heard within
 * the keep; and the text rewritten in place (cap bytes, NUL-padded) with
 * key at now first, its older record and records past the keep dropped,
 * and the oldest dropped while the rest does not fit. */
bool heard_find(const char *text, size_t len, const char *key, time_t now);
void heard_put(char *text, size_t cap, const char *key, time_t now);
