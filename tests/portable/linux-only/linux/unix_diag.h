/* Linux only: macOS has no <linux/unix_diag.h>. tests/portable/check says why. */
#error "<linux/unix_diag.h> is Linux-only; this file must build on macOS"
