/* A moment named on the command line (common/when.h). Strict: a typo must
 * not quietly become another moment, so every character is accounted for. */
#include "common/when.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/esc.h"

#define WHEN_HELP                                                           \
	"write a time as 2024-05-01T12:00:00Z (RFC 3339, any offset) or a " \
	"span back from now such as 90s, 10m, 2h or 7d"

/* n digits at *p into *v; advances *p. */
static bool digits(const char **p, int n, int *v)
{
	int x = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		x = x * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*v = x;
	return true;
}

static bool lit(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* RFC 3339 date-time (section 5.6). */
static bool parse_rfc3339(const char *p, time_t *out)
{
	static const int mdays[] = {31, 28, 31, 30, 31, 30,
				    31, 31, 30, 31, 30, 31};
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	if (!digits(&p, 4, &y) || !lit(&p, '-') || !digits(&p, 2, &mo) ||
	    !lit(&p, '-') || !digits(&p, 2, &d))
		return false;
	if (*p != 'T' && *p != 't' && *p != ' ')
		return false;
	p++;
	if (!digits(&p, 2, &h) || !lit(&p, ':') || !digits(&p, 2, &mi) ||
	    !lit(&p, ':') || !digits(&p, 2, &sec))
		return false;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p == '-' ? -1 : 1;
		p++;
		if (!digits(&p, 2, &oh) || !lit(&p, ':') ||
		    !digits(&p, 2, &om) || oh > 23 || om > 59)
			return false;
	} else {
		return false;
	}
	if (*p)
		return false;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 ||
	    sec > 60)
		return false;
	int dim = mdays[mo - 1] + (mo == 2 && leap(y));
	if (d > dim)
		return false;
	if (sec == 60) /* a leap second: the second after it is as good */
		sec = 59;
	struct tm tm = {.tm_year = y - 1900,
			.tm_mon = mo - 1,
			.tm_mday = d,
			.tm_hour = h,
			.tm_min = mi,
			.tm_sec = sec};
	time_t t = timegm(&tm);
	if (t == (time_t)-1)
		return false;
	*out = t - (time_t)sign * (oh * 3600 + om * 60);
	return true;
}

/* About a century: more is a typo, and now - span stays positive. */
#define SPAN_MAX ((int64_t)3200000000)

/* digits then one unit: 90s, 10m, 2h, 7d. */
static bool parse_span(const char *p, time_t now, time_t *out)
{
	if (!isdigit((unsigned char)*p))
		return false;
	int64_t n = 0;
	while (isdigit((unsigned char)*p)) {
		n = n * 10 + (*p++ - '0');
		if (n > 10000000000) /* no overflow below */
			return false;
	}
	int64_t unit;
	switch (*p) {
	case 's':
		unit = 1;
		break;
	case 'm':
		unit = 60;
		break;
	case 'h':
		unit = 3600;
		break;
	case 'd':
		unit = 86400;
		break;
	default:
		return false;
	}
	if (p[1])
		return false;
	if (n > SPAN_MAX / unit)
		return false;
	*out = now - (time_t)(n * unit);
	return true;
}

int when_parse(const char *s, time_t now, time_t *out, struct lnk_err *err)
{
	if (parse_span(s, now, out) || parse_rfc3339(s, out))
		return 0;
	char shown[128];
	return err_set(err, -EINVAL, "'%s' is not a time: %s",
		       esc_to(shown, sizeof(shown), s), WHEN_HELP);
}
