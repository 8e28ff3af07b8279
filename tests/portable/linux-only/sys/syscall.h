/* Linux only: macOS has no <sys/syscall.h>. tests/portable/check says why. */
#error "<sys/syscall.h> is Linux-only; this file must build on macOS"
