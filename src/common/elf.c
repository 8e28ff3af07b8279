/* Reading an ELF file's headers (see elf.h). */
#include "common/elf.h"

#ifndef __APPLE__
#include <elf.h>
#include <string.h>

#include "common/util.h"

bool elf_open(int fd, struct elf_file *e)
{
	unsigned char ident[EI_NIDENT];

	if (pread_all(fd, ident, sizeof(ident), 0) < 0 ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		return false;
		/* Only our own byte order: a foreign ELF cannot run here. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (ident[EI_DATA] != ELFDATA2LSB)
		return false;
#else
	if (ident[EI_DATA] != ELFDATA2MSB)
		return false;
#endif
	if (ident[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr eh;
		if (pread_all(fd, &eh, sizeof(eh), 0) < 0)
			return false;
		*e = (struct elf_file){true, eh.e_phoff, eh.e_phnum,
				       eh.e_phentsize};
		return e->phentsize >= sizeof(Elf64_Phdr) &&
		       e->phnum <= ELF_PHDR_MAX;
	}
	if (ident[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr eh;
		if (pread_all(fd, &eh, sizeof(eh), 0) < 0)
			return false;
		*e = (struct elf_file){false, eh.e_phoff, eh.e_phnum,
				       eh.e_phentsize};
		return e->phentsize >= sizeof(Elf32_Phdr) &&
		       e->phnum <= ELF_PHDR_MAX;
	}
	return false;
}

bool elf_phdr(int fd, const struct elf_file *e, unsigned i, struct elf_phdr *p)
{
	uint64_t at = e->phoff + (uint64_t)i * e->phentsize;

	if (at < e->phoff)
		return false;
	if (e->is64) {
		Elf64_Phdr ph;
		if (pread_all(fd, &ph, sizeof(ph), at) < 0)
			return false;
		*p = (struct elf_phdr){ph.p_type, ph.p_offset, ph.p_vaddr,
				       ph.p_filesz};
	} else {
		Elf32_Phdr ph;
		if (pread_all(fd, &ph, sizeof(ph), at) < 0)
			return false;
		*p = (struct elf_phdr){ph.p_type, ph.p_offset, ph.p_vaddr,
				       ph.p_filesz};
	}
	return true;
}

bool elf_offset(int fd, const struct elf_file *e, uint64_t vaddr, uint64_t *off)
{
	struct elf_phdr p;

	for (unsigned i = 0; i < e->phnum; i++)
		if (elf_phdr(fd, e, i, &p) && p.type == PT_LOAD &&
		    vaddr >= p.vaddr && vaddr - p.vaddr < p.filesz &&
		    p.off + (vaddr - p.vaddr) >= p.off) {
			*off = p.off + (vaddr - p.vaddr);
			return true;
		}
	return false;
}
#endif
