/* A library opened by its soname, never from lnk's folder (dlsoname.h). */
#include "common/dlsoname.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include "common/compat.h"

void *dl_open_soname(const char *soname, int flags, const char **why)
{
	int here = open(".", COMPAT_O_DIRHANDLE | O_DIRECTORY | O_CLOEXEC);

	*why = NULL;
	if (here < 0 || chdir("/") < 0) {
		if (here >= 0)
			close(here);
		*why = "lnk cannot leave its working folder to load it";
		return NULL;
	}
	void *h = dlopen(soname, flags);
	if (!h)
		*why = dlerror();
	if (fchdir(here) < 0) {
		if (h)
			dlclose(h);
		h = NULL;
		*why = "lnk cannot return to its working folder";
	}
	close(here);
	if (!h && !*why)
		*why = "not found";
	return h;
}
