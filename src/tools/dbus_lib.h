/* libdbus for the desktop's questions, loaded only by the desktop
 * process, only when there is a desktop session.
 *
 * lnk starts once for every sandbox and almost none asks on a desktop;
 * linked in, libdbus-1 and what it needs (libsystemd, libgcrypt, liblzma,
 * libzstd, liblz4, libcap, libgpg-error) were mapped and relocated at every
 * start, about a millisecond for nothing. So lnk does not link it: the
 * desktop process opens libdbus-1.so.3 by its soname and calls it through
 * this table. Each member has the type the headers declare for the
 * function of the same name.
 */
#pragma once

#include <dbus/dbus.h>

#include "common/err.h"

#define DBUS_FN(name) __typeof__(name) *name

struct dbus_lib {
	void *handle;
	DBUS_FN(dbus_bus_add_match);
	DBUS_FN(dbus_bus_register);
	DBUS_FN(dbus_connection_close);
	DBUS_FN(dbus_connection_flush);
	DBUS_FN(dbus_connection_get_is_connected);
	DBUS_FN(dbus_connection_get_unix_fd);
	DBUS_FN(dbus_connection_open_private);
	DBUS_FN(dbus_connection_pop_message);
	DBUS_FN(dbus_connection_read_write);
	DBUS_FN(dbus_connection_send);
	DBUS_FN(dbus_connection_send_with_reply_and_block);
	DBUS_FN(dbus_connection_set_exit_on_disconnect);
	DBUS_FN(dbus_connection_unref);
	DBUS_FN(dbus_error_free);
	DBUS_FN(dbus_error_init);
	DBUS_FN(dbus_error_is_set);
	DBUS_FN(dbus_message_append_args);
	DBUS_FN(dbus_message_get_args);
	DBUS_FN(dbus_message_get_sender);
	DBUS_FN(dbus_message_get_type);
	DBUS_FN(dbus_message_is_signal);
	DBUS_FN(dbus_message_iter_append_basic);
	DBUS_FN(dbus_message_iter_close_container);
	DBUS_FN(dbus_message_iter_get_arg_type);
	DBUS_FN(dbus_message_iter_get_basic);
	DBUS_FN(dbus_message_iter_get_element_type);
	DBUS_FN(dbus_message_iter_init);
	DBUS_FN(dbus_message_iter_init_append);
	DBUS_FN(dbus_message_iter_next);
	DBUS_FN(dbus_message_iter_open_container);
	DBUS_FN(dbus_message_iter_recurse);
	DBUS_FN(dbus_message_new_method_call);
	DBUS_FN(dbus_message_set_no_reply);
	DBUS_FN(dbus_message_unref);
};

#undef DBUS_FN

/* Opens the system's libdbus-1.so.3 (the ABI the headers describe) and
 * finds every function above. 0, or -ENOENT with a message naming the
 * library or the function missing. */
int dbus_lib_load(struct dbus_lib **out, struct lnk_err *err);
void dbus_lib_free(struct dbus_lib *l);
