/* libdbus opened by the desktop process (dbus_lib.h says why it is not
 * linked). */
#include "tools/dbus_lib.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include "common/dlsoname.h"
#include "common/util.h"

#define DBUS_SONAME "libdbus-1.so.3"

#define DBUS_SYM(name)                                                 \
	do {                                                           \
		if (!(l->name = (__typeof__(l->name))dlsym(h, #name))) \
			missing = #name;                               \
	} while (0)

int dbus_lib_load(struct dbus_lib **out, struct lnk_err *err)
{
	*out = NULL;
	const char *why;
	void *h = dl_open_soname(DBUS_SONAME, RTLD_NOW | RTLD_LOCAL, &why);
	if (!h) {
		return err_set(err, -ENOENT,
			       "questions on the desktop need %s, which cannot "
			       "be loaded (%s): install libdbus-1-3",
			       DBUS_SONAME, why);
	}
	struct dbus_lib *l = xcalloc(1, sizeof(*l));
	const char *missing = NULL;
	l->handle = h;
	DBUS_SYM(dbus_bus_add_match);
	DBUS_SYM(dbus_bus_register);
	DBUS_SYM(dbus_connection_close);
	DBUS_SYM(dbus_connection_flush);
	DBUS_SYM(dbus_connection_get_is_connected);
	DBUS_SYM(dbus_connection_get_unix_fd);
	DBUS_SYM(dbus_connection_open_private);
	DBUS_SYM(dbus_connection_pop_message);
	DBUS_SYM(dbus_connection_read_write);
	DBUS_SYM(dbus_connection_send);
	DBUS_SYM(dbus_connection_send_with_reply_and_block);
	DBUS_SYM(dbus_connection_set_exit_on_disconnect);
	DBUS_SYM(dbus_connection_unref);
	DBUS_SYM(dbus_error_free);
	DBUS_SYM(dbus_error_init);
	DBUS_SYM(dbus_error_is_set);
	DBUS_SYM(dbus_message_append_args);
	DBUS_SYM(dbus_message_get_args);
	DBUS_SYM(dbus_message_get_sender);
	DBUS_SYM(dbus_message_get_type);
	DBUS_SYM(dbus_message_is_signal);
	DBUS_SYM(dbus_message_iter_append_basic);
	DBUS_SYM(dbus_message_iter_close_container);
	DBUS_SYM(dbus_message_iter_get_arg_type);
	DBUS_SYM(dbus_message_iter_get_basic);
	DBUS_SYM(dbus_message_iter_get_element_type);
	DBUS_SYM(dbus_message_iter_init);
	DBUS_SYM(dbus_message_iter_init_append);
	DBUS_SYM(dbus_message_iter_next);
	DBUS_SYM(dbus_message_iter_open_container);
	DBUS_SYM(dbus_message_iter_recurse);
	DBUS_SYM(dbus_message_new_method_call);
	DBUS_SYM(dbus_message_set_no_reply);
	DBUS_SYM(dbus_message_unref);
	if (missing) {
		dbus_lib_free(l);
		return err_set(err, -ENOENT,
			       "%s has no %s: install libdbus-1-3", DBUS_SONAME,
			       missing);
	}
	*out = l;
	return 0;
}

void dbus_lib_free(struct dbus_lib *l)
{
	if (!l)
		return;
	dlclose(l->handle);
	free(l);
}
