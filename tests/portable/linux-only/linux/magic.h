/* Linux only: macOS has no <linux/magic.h>. tests/portable/check says why. */
#error "<linux/magic.h> is Linux-only; this file must build on macOS"
