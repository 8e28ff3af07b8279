/* An ELF file's header and program headers, read from a descriptor for the
 * checks of what a program's loader will open (launch/commands.c: the
 * interpreter [commands] must let run; tools/reach.c: the paths a tool's
 * loader searches). The files are the user's, and may be the program's:
 * every offset and count is bounded and checked, and anything else (not
 * ELF, another byte order, cut short) is refused. Linux only: other
 * systems have no <elf.h>, and run Mach-O. */
#pragma once

#ifndef __APPLE__
#include <stdbool.h>
#include <stdint.h>

/* More program headers than any real executable has. */
#define ELF_PHDR_MAX 4096

struct elf_file {
	bool is64;
	uint64_t phoff;
	unsigned phnum, phentsize;
};

struct elf_phdr {
	uint32_t type;
	uint64_t off, vaddr, filesz;
};

/* An ELF file of this machine's byte order, 32 or 64 bits, with program
 * headers of a sane size and number: true, and *e filled. */
bool elf_open(int fd, struct elf_file *e);
/* Program header i. false when it cannot be read or its place overflows. */
bool elf_phdr(int fd, const struct elf_file *e, unsigned i, struct elf_phdr *p);
/* The file offset of the address vaddr, from the PT_LOAD that holds it. */
bool elf_offset(int fd, const struct elf_file *e, uint64_t vaddr,
		uint64_t *off);
#endif
