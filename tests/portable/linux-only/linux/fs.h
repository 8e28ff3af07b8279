/* Linux only: macOS has no <linux/fs.h>. tests/portable/check says why. */
#error "<linux/fs.h> is Linux-only; this file must build on macOS"
