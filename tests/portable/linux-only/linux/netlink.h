/* Linux only: macOS has no <linux/netlink.h>. tests/portable/check says why. */
#error "<linux/netlink.h> is Linux-only; this file must build on macOS"
