/* Linux only: macOS has no <linux/capability.h>. tests/portable/check says why. */
#error "<linux/capability.h> is Linux-only; this file must build on macOS"
