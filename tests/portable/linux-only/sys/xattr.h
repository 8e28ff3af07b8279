/* Linux only: macOS has no <sys/xattr.h>. tests/portable/check says why. */
#error "<sys/xattr.h> is Linux-only; this file must build on macOS"
