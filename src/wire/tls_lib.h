/* OpenSSL for the model routes, loaded only by a wire that has one.
 *
 * lnk starts once for every sandbox, and almost none has a model route:
 * linked in, libssl and libcrypto were mapped and relocated by ld.so at
 * every start (about 1.5 ms of CPU, most of lnk's own loading), for
 * nothing. So lnk does not link them: the wire opens libssl (and with it
 * libcrypto) by its soname before it is confined, and calls it through
 * this table. The system's shared OpenSSL stays the one in use, so its
 * security updates reach the wire as before. Each member has the type
 * the headers declare for the function of the same name.
 */
#pragma once

#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "common/err.h"

#define TLS_FN(name) __typeof__(name) *name

struct tls_lib {
	void *handle;
	TLS_FN(OPENSSL_init_ssl);
	TLS_FN(TLS_client_method);
	TLS_FN(SSL_CTX_new);
	TLS_FN(SSL_CTX_free);
	TLS_FN(SSL_CTX_ctrl);
	TLS_FN(SSL_CTX_set_verify);
	TLS_FN(SSL_CTX_set_options);
	TLS_FN(SSL_CTX_get_cert_store);
	TLS_FN(X509_STORE_load_file);
	TLS_FN(X509_get_default_cert_file_env);
	TLS_FN(X509_get_default_cert_file);
	TLS_FN(X509_get_default_cert_dir_env);
	TLS_FN(X509_VERIFY_PARAM_set1_ip_asc);
	TLS_FN(X509_verify_cert_error_string);
	TLS_FN(ERR_clear_error);
	TLS_FN(RAND_bytes);
	TLS_FN(SSL_new);
	TLS_FN(SSL_free);
	TLS_FN(SSL_ctrl);
	TLS_FN(SSL_set_fd);
	TLS_FN(SSL_set1_host);
	TLS_FN(SSL_get0_param);
	TLS_FN(SSL_set_connect_state);
	TLS_FN(SSL_do_handshake);
	TLS_FN(SSL_read);
	TLS_FN(SSL_write);
	TLS_FN(SSL_pending);
	TLS_FN(SSL_want);
	TLS_FN(SSL_get_error);
	TLS_FN(SSL_get_verify_result);
};

#undef TLS_FN

/* Opens the system's libssl (the soname of the OpenSSL major version lnk
 * was built against) and fills a new table. 0 or -errno (-ENOENT: no such
 * library or a function missing from it). */
int tls_lib_load(struct tls_lib **out, struct lnk_err *err);
/* Closes it; NULL is nothing. */
void tls_lib_free(struct tls_lib *t);
