/* Linux only: macOS has no <linux/landlock.h>. tests/portable/check says why. */
#error "<linux/landlock.h> is Linux-only; this file must build on macOS"
