/* Linux only: macOS has no <linux/filter.h>. tests/portable/check says why. */
#error "<linux/filter.h> is Linux-only; this file must build on macOS"
