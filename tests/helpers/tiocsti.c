/* Tries to push a command into the input of the terminal on fd 0 with
 * TIOCSTI (and the same request with high bits set, which a filter that
 * compares only 32 bits would miss). Prints "TIOCSTI refused: <errno>" or
 * "TIOCSTI allowed"; exits 0 when every try was refused, 1 otherwise. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	const char c = '#';
	int allowed = 0;
	const unsigned long reqs[] = {TIOCSTI, TIOCSTI | (1UL << 32)};
	for (size_t i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		long r = syscall(SYS_ioctl, 0, reqs[i], &c);
		if (r == 0) {
			printf("TIOCSTI allowed (request %#lx)\n", reqs[i]);
			allowed = 1;
		} else {
			printf("TIOCSTI refused: %s (request %#lx)\n",
			       strerror(errno), reqs[i]);
		}
	}
	fflush(stdout);
	return allowed;
}
