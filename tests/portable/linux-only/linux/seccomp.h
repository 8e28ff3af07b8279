/* Linux only: macOS has no <linux/seccomp.h>. tests/portable/check says why. */
#error "<linux/seccomp.h> is Linux-only; this file must build on macOS"
