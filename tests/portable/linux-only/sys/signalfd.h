/* Linux only: macOS has no <sys/signalfd.h>. tests/portable/check says why. */
#error "<sys/signalfd.h> is Linux-only; this file must build on macOS"
