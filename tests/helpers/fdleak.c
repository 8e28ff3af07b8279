/* Prints every open descriptor above 2, one a line ("fd N -> target"),
 * then "count N". Run inside the sandbox: invariant 4 says the count is 0. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	int count = 0;
	for (int fd = 3; fd < 4096; fd++) {
		if (fcntl(fd, F_GETFD) < 0)
			continue;
		char path[64], target[512];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		printf("fd %d -> %s\n", fd, target);
		count++;
	}
	printf("count %d\n", count);
	return 0;
}
