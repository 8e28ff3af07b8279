/* Linux only: macOS has no <linux/sock_diag.h>. tests/portable/check says why. */
#error "<linux/sock_diag.h> is Linux-only; this file must build on macOS"
