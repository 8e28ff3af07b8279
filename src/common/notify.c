/* A desktop notification (notify.h). */
#include "common/notify.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/util.h"

static const char *env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (char *const *e = env; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* notify-send on env's PATH, absolute entries only: an empty or relative
 * entry would run whatever sits in the working folder. */
static bool find_notify(char *const *env, char *out, size_t cap)
{
	const char *path = env_get(env, "PATH");
	for (const char *p = path; p && *p;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n && p[0] == '/') {
			int w =
			    snprintf(out, cap, "%.*s/notify-send", (int)n, p);
			if (w > 0 && (size_t)w < cap && access(out, X_OK) == 0)
				return true;
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return false;
}

bool desktop_notify(char *const *env, const char *title, const char *body,
		    bool urgent)
{
	static const char *const keep[] = {"DBUS_SESSION_BUS_ADDRESS",
					   "DISPLAY", "WAYLAND_DISPLAY",
					   "XDG_RUNTIME_DIR", "HOME"};
	const char *bus = env_get(env, "DBUS_SESSION_BUS_ADDRESS");
	char exe[PATH_MAX];

	if (!bus || !*bus || !find_notify(env, exe, sizeof(exe)))
		return false;
	char *argv[] = {exe,
			"--app-name=lnk",
			urgent ? "--urgency=critical" : "--urgency=normal",
			(char *)title,
			(char *)body,
			NULL};
	char envbuf[ARRAY_SIZE(keep)][1024];
	char *envp[ARRAY_SIZE(keep) + 3];
	size_t ne = 0;
	envp[ne++] = "PATH=/usr/local/bin:/usr/bin:/bin";
	envp[ne++] = "LANG=C.UTF-8";
	for (size_t i = 0; i < ARRAY_SIZE(keep); i++) {
		const char *val = env_get(env, keep[i]);
		int n = val ? snprintf(envbuf[i], sizeof(envbuf[i]), "%s=%s",
				       keep[i], val)
			    : -1;
		if (n > 0 && (size_t)n < sizeof(envbuf[i]))
			envp[ne++] = envbuf[i];
	}
	envp[ne] = NULL;
	pid_t pid = fork();
	if (pid == 0) {
		if (fork() == 0) {
			setsid();
			int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
			if (nul >= 0) {
				dup2(nul, 0);
				dup2(nul, 1);
				dup2(nul, 2);
			}
			execve(exe, argv, envp);
			_exit(127);
		}
		_exit(0);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	return pid > 0;
}
