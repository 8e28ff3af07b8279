/* Linux only: macOS has no <linux/sched.h>. tests/portable/check says why. */
#error "<linux/sched.h> is Linux-only; this file must build on macOS"
