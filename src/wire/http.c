#include "wire/http.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "net/grammar.h"

static enum http_result bad(struct http_req *r, int status, const char *why)
{
	r->status = status;
	r->why = why;
	return HTTP_BAD;
}

static bool is_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* host[:port] or [v6][:port]; a port is required when defport is 0. */
static int parse_authority(const char *s, size_t n, uint16_t defport,
			   struct http_req *r)
{
	const char *host, *port = NULL;
	size_t hl, pl = 0;
	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n);
		if (!close)
			return -1;
		host = s + 1;
		hl = (size_t)(close - host);
		size_t rest = n - (size_t)(close + 1 - s);
		if (rest) {
			if (close[1] != ':')
				return -1;
			port = close + 2;
			pl = rest - 1;
		}
		if (!memchr(host, ':', hl))
			return -1; /* brackets are for IPv6 only */
	} else {
		const char *colon = memchr(s, ':', n);
		host = s;
		hl = colon ? (size_t)(colon - s) : n;
		if (colon) {
			port = colon + 1;
			pl = n - hl - 1;
		}
	}
	if (hl == 0 || hl >= sizeof(r->host))
		return -1;
	for (size_t i = 0; i < hl; i++) {
		unsigned char c = (unsigned char)host[i];
		/* what a name or literal may hold; the filter checks more */
		if (c <= ' ' || c == '@' || c == '/' || c == '\\' || c == '%' ||
		    c == 0x7f || c == '[' || c == ']')
			return -1;
	}
	memcpy(r->host, host, hl);
	r->host[hl] = '\0';
	if (port)
		return port_parse(port, pl, &r->port);
	if (!defport)
		return -1;
	r->port = defport;
	return 0;
}

static bool header_is(const char *h, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(h, name, n) == 0;
}

/* A Content-Length value: optional blanks, 1 to 18 digits, optional
 * blanks. Anything else (a sign, a list, hex) is two parsers' chance to
 * disagree on where the request ends. */
static int content_length(const char *p, const char *end, uint64_t *out)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (p == end || end - p > 18)
		return -1;
	uint64_t v = 0;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

enum http_result http_parse_head(const char *buf, size_t len,
				 struct http_req *r)
{
	memset(r, 0, sizeof(*r));
	/* Find the end of the head, checking every byte on the way: bare CR
	 * or LF, NUL and other controls are where request smuggling hides. */
	size_t lines = 0, end = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (i >= HTTP_HEAD_MAX)
			return bad(r, 431, "request head too large");
		if (c == '\r') {
			if (i + 1 < len && buf[i + 1] != '\n')
				return bad(r, 400, "bare carriage return");
			continue;
		}
		if (c == '\n') {
			if (i == 0 || buf[i - 1] != '\r')
				return bad(r, 400, "bare line feed");
			if (++lines > HTTP_HEADERS_MAX + 1)
				return bad(r, 431, "too many header lines");
			if (i >= 3 && buf[i - 2] == '\n') {
				end = i + 1;
				break;
			}
			continue;
		}
		if ((c < ' ' && c != '\t') || c == 0x7f)
			return bad(r, 400, "control character in request head");
	}
	if (!end)
		return HTTP_MORE;
	r->head_len = end;

	/* Request line: METHOD SP TARGET SP HTTP/1.x CRLF */
	const char *line_end = memchr(buf, '\r', end);
	const char *sp1 = memchr(buf, ' ', (size_t)(line_end - buf));
	if (!sp1 || sp1 == buf || (size_t)(sp1 - buf) >= sizeof(r->method))
		return bad(r, 400, "malformed request line");
	for (const char *p = buf; p < sp1; p++)
		if (!is_tchar(*p))
			return bad(r, 400, "malformed method");
	memcpy(r->method, buf, (size_t)(sp1 - buf));
	r->method[sp1 - buf] = '\0';
	const char *tgt = sp1 + 1;
	const char *sp2 = memchr(tgt, ' ', (size_t)(line_end - tgt));
	if (!sp2 || sp2 == tgt)
		return bad(r, 400, "malformed request line");
	const char *ver = sp2 + 1;
	size_t vl = (size_t)(line_end - ver);
	if (vl != 8 ||
	    (memcmp(ver, "HTTP/1.1", 8) && memcmp(ver, "HTTP/1.0", 8)))
		return bad(r, 505, "only HTTP/1.0 and HTTP/1.1 are proxied");
	r->version_off = (size_t)(ver - buf);
	size_t tl = (size_t)(sp2 - tgt);
	for (size_t i = 0; i < tl; i++)
		if (tgt[i] == ' ' || tgt[i] == '\t')
			return bad(r, 400, "malformed request target");

	/* Header lines: "name: value"; no obsolete folding, no space before
	 * the colon (both let two parsers disagree on a request). */
	size_t nl = (size_t)(line_end - buf) + 2;
	r->headers_off = nl;
	bool has_te = false, has_cl = false;
	while (nl < end - 2) {
		const char *h = buf + nl;
		const char *he = memchr(h, '\r', end - nl);
		const char *colon = memchr(h, ':', (size_t)(he - h));
		if (!colon || colon == h)
			return bad(r, 400, "malformed header line");
		for (const char *p = h; p < colon; p++)
			if (!is_tchar(*p))
				return bad(r, 400, "malformed header name");
		size_t hn = (size_t)(colon - h);
		if (header_is(h, hn, "transfer-encoding"))
			has_te = true;
		if (header_is(h, hn, "content-length")) {
			uint64_t v;
			if (content_length(colon + 1, he, &v) < 0)
				return bad(r, 400, "malformed Content-Length");
			if (has_cl && v != r->body_len)
				return bad(
				    r, 400,
				    "conflicting Content-Length headers");
			has_cl = true;
			r->body_len = v;
		}
		nl = (size_t)(he - buf) + 2;
	}

	if (strcmp(r->method, "CONNECT") == 0) {
		r->connect = 1;
		if (parse_authority(tgt, tl, 0, r) < 0)
			return bad(r, 400, "CONNECT needs host:port");
		return HTTP_DONE;
	}
	if (tl >= 8 && strncasecmp(tgt, "https://", 8) == 0)
		return bad(r, 400, "use CONNECT for https");
	if (tl < 7 || strncasecmp(tgt, "http://", 7) != 0)
		return bad(r, 400,
			   "this is a proxy: send an absolute http:// URL or "
			   "CONNECT");
	if (has_te)
		return bad(
		    r, 411,
		    "a plain http:// request body needs a Content-Length "
		    "(Transfer-Encoding is not relayed)");
	const char *auth = tgt + 7, *te = tgt + tl;
	const char *ae = auth;
	while (ae < te && *ae != '/' && *ae != '?' && *ae != '#')
		ae++;
	if (memchr(auth, '@', (size_t)(ae - auth)))
		return bad(r, 400, "credentials in a proxied URL are refused");
	if (parse_authority(auth, (size_t)(ae - auth), 80, r) < 0)
		return bad(r, 400, "malformed host in URL");
	/* the fragment never goes on the wire */
	const char *pe = memchr(ae, '#', (size_t)(te - ae));
	r->target_off = (size_t)(ae - buf);
	r->target_len = (size_t)((pe ? pe : te) - ae);
	return HTTP_DONE;
}

static bool header_dropped(const char *h, size_t n)
{
	static const char *const drop[] = {
	    "connection",
	    "proxy-connection",
	    "keep-alive",
	    "proxy-authorization",
	    "proxy-authenticate",
	    "upgrade",
	    "host",
	};
	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		if (strlen(drop[i]) == n && strncasecmp(h, drop[i], n) == 0)
			return true;
	return false;
}

void http_put_host(struct buf *out, const char *host, unsigned port,
		   unsigned default_port)
{
	bool v6 = strchr(host, ':') != NULL;
	buf_printf(out, "Host: %s%s%s", v6 ? "[" : "", host, v6 ? "]" : "");
	if (port != default_port)
		buf_printf(out, ":%u", port);
	buf_puts(out, "\r\n");
}

void http_rewrite_head(const char *buf, const struct http_req *r,
		       struct buf *out)
{
	buf_puts(out, r->method);
	buf_putc(out, ' ');
	if (r->target_len == 0 || buf[r->target_off] != '/')
		buf_putc(out, '/');
	buf_append(out, buf + r->target_off, r->target_len);
	buf_putc(out, ' ');
	buf_append(out, buf + r->version_off, 8);
	buf_puts(out, "\r\n");
	/* The Host the upstream sees is the host the grants checked: on a
	 * shared address (virtual hosts, a CDN) the client's own Host would
	 * reach another site than the one allowed and logged. */
	http_put_host(out, r->host, r->port, 80);
	size_t nl = r->headers_off;
	while (nl < r->head_len - 2) {
		const char *h = buf + nl;
		const char *he = memchr(h, '\r', r->head_len - nl);
		const char *colon = memchr(h, ':', (size_t)(he - h));
		if (!header_dropped(h, (size_t)(colon - h)))
			buf_append(out, h, (size_t)(he - h) + 2);
		nl = (size_t)(he - buf) + 2;
	}
	buf_puts(out, "Connection: close\r\n\r\n");
}

static const char *status_text(int status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 411:
		return "Length Required";
	case 431:
		return "Request Header Fields Too Large";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	case 505:
		return "HTTP Version Not Supported";
	default:
		return "Error";
	}
}

void http_error_response(struct buf *out, int status, const char *target,
			 const char *why)
{
	char body[512];
	int n = snprintf(body, sizeof(body), "lnk sandbox: %s%s%s\n",
			 target ? target : "", target ? ": " : "", why);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(body))
		n = sizeof(body) - 1;
	buf_printf(out,
		   "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
		   "Content-Length: %d\r\nConnection: close\r\n"
		   "X-Lnk-Reason: %s\r\n\r\n",
		   status, status_text(status), n, why);
	buf_append(out, body, (size_t)n);
}
