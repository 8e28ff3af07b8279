/* Linux only: macOS has no <sys/eventfd.h>. tests/portable/check says why. */
#error "<sys/eventfd.h> is Linux-only; this file must build on macOS"
