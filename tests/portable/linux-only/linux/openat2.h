/* Linux only: macOS has no <linux/openat2.h>. tests/portable/check says why. */
#error "<linux/openat2.h> is Linux-only; this file must build on macOS"
