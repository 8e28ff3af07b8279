/* lnk-init's relocated data made read-only (relro.h).
 *
 * ld.so, and glibc's static start-up, make a program's PT_GNU_RELRO
 * pages read-only once relocated (-z relro -z now); musl's static-PIE
 * start (rcrt1.o), with which lnk-init is built where musl-gcc is found
 * (meson.build, init_musl), applies the relocations and leaves them
 * writable. The threat: a write through a stray pointer while lnk-init
 * reads its config or serves the sandbox's lookups (resolver.c, a
 * hostile program's queries) that lands in the GOT or a table of
 * function pointers redirects a call of pid 1. Done first in main,
 * before any input is read.
 */
#include "init/relro.h"

#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static int protect(struct dl_phdr_info *info, size_t size, void *data)
{
	int *rc = data;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_GNU_RELRO)
			continue;
		/* as ld.so does: the last page, when the segment ends inside
		 * it, holds writable data too and stays writable */
		uintptr_t lo = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		uintptr_t hi =
		    (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & ~(page - 1);
		if (hi > lo && mprotect((void *)lo, hi - lo, PROT_READ) < 0)
			*rc = -errno;
	}
	return 1; /* the first object is the program itself: no other */
}

int relro_protect(void)
{
	int rc = 0;
	dl_iterate_phdr(protect, &rc);
	return rc;
}
