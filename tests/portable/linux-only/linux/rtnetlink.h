/* Linux only: macOS has no <linux/rtnetlink.h>. tests/portable/check says why. */
#error "<linux/rtnetlink.h> is Linux-only; this file must build on macOS"
