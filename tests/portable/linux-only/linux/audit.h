/* Linux only: macOS has no <linux/audit.h>. tests/portable/check says why. */
#error "<linux/audit.h> is Linux-only; this file must build on macOS"
