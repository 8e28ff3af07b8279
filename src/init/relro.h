/* lnk-init's relocated data made read-only once its start-up is done. */
#pragma once

/* mprotects lnk-init's own PT_GNU_RELRO pages (the GOT, the relocated
 * tables of pointers) read-only; 0, or -errno. Harmless where the C
 * library's start-up did it already (glibc's). */
int relro_protect(void);
