/* Linux only: macOS has no <sys/statfs.h>. tests/portable/check says why. */
#error "<sys/statfs.h> is Linux-only; this file must build on macOS"
