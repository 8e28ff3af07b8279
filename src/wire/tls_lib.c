/* The model routes' OpenSSL, opened when a wire has a route (tls_lib.h
 * says why it is not linked). dlopen runs before the wire is confined:
 * the confined wire may open no file, so the library and everything it
 * loads (RTLD_NOW: every symbol bound now) is in place before. */
#include "wire/tls_lib.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/dlsoname.h"
#include "common/util.h"

#define STR_(x) #x
#define STR(x) STR_(x)
/* libssl.so.3 for OpenSSL 3: the ABI the headers describe. */
#define TLS_SONAME "libssl.so." STR(OPENSSL_SHLIB_VERSION)

#define TLS_SYM(name)                                                  \
	do {                                                           \
		if (!(t->name = (__typeof__(t->name))dlsym(h, #name))) \
			missing = #name;                               \
	} while (0)

int tls_lib_load(struct tls_lib **out, struct lnk_err *err)
{
	*out = NULL;
	const char *why;
	void *h = dl_open_soname(TLS_SONAME, RTLD_NOW | RTLD_LOCAL, &why);
	if (!h) {
		return err_set(err, -ENOENT,
			       "--model needs OpenSSL's %s, which cannot be "
			       "loaded (%s): install libssl3",
			       TLS_SONAME, why);
	}
	struct tls_lib *t = xcalloc(1, sizeof(*t));
	const char *missing = NULL;
	t->handle = h;
	TLS_SYM(OPENSSL_init_ssl);
	TLS_SYM(TLS_client_method);
	TLS_SYM(SSL_CTX_new);
	TLS_SYM(SSL_CTX_free);
	TLS_SYM(SSL_CTX_ctrl);
	TLS_SYM(SSL_CTX_set_verify);
	TLS_SYM(SSL_CTX_set_options);
	TLS_SYM(SSL_CTX_get_cert_store);
	TLS_SYM(X509_STORE_load_file);
	TLS_SYM(X509_get_default_cert_file_env);
	TLS_SYM(X509_get_default_cert_file);
	TLS_SYM(X509_get_default_cert_dir_env);
	TLS_SYM(X509_VERIFY_PARAM_set1_ip_asc);
	TLS_SYM(X509_verify_cert_error_string);
	TLS_SYM(ERR_clear_error);
	TLS_SYM(RAND_bytes);
	TLS_SYM(SSL_new);
	TLS_SYM(SSL_free);
	TLS_SYM(SSL_ctrl);
	TLS_SYM(SSL_set_fd);
	TLS_SYM(SSL_set1_host);
	TLS_SYM(SSL_get0_param);
	TLS_SYM(SSL_set_connect_state);
	TLS_SYM(SSL_do_handshake);
	TLS_SYM(SSL_read);
	TLS_SYM(SSL_write);
	TLS_SYM(SSL_pending);
	TLS_SYM(SSL_want);
	TLS_SYM(SSL_get_error);
	TLS_SYM(SSL_get_verify_result);
	if (missing) {
		tls_lib_free(t);
		return err_set(err, -ENOENT,
			       "--model: OpenSSL's %s has no %s: install the "
			       "libssl3 lnk was built for",
			       TLS_SONAME, missing);
	}
	*out = t;
	return 0;
}

void tls_lib_free(struct tls_lib *t)
{
	if (!t)
		return;
	dlclose(t->handle);
	free(t);
}
