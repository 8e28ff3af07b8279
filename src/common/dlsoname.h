/* A library opened by its soname, as lnk's processes outside do (OpenSSL
 * for a model route, libdbus for the desktop's questions), never from the
 * folder lnk was started in. */
#pragma once

/* dlopen(soname, flags) with the working folder "/" for the while: the
 * loader takes an empty or relative entry of LD_LIBRARY_PATH (what
 * `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/lib` leaves) as the
 * working folder, often a write folder, where a sandbox could have left a
 * library of that name; it read the variable when lnk started, so changing
 * it now changes nothing. From "/", such an entry names a folder only root
 * makes. The folder is changed back before it returns. The handle, or NULL
 * with *why saying why (dlerror's words, or the folder's). Not for a
 * process with threads that use relative paths. */
void *dl_open_soname(const char *soname, int flags, const char **why);
