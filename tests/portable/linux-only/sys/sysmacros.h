/* Linux only: macOS has no <sys/sysmacros.h>. tests/portable/check says why. */
#error "<sys/sysmacros.h> is Linux-only; this file must build on macOS"
