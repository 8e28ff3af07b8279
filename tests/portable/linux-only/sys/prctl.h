/* Linux only: macOS has no <sys/prctl.h>. tests/portable/check says why. */
#error "<sys/prctl.h> is Linux-only; this file must build on macOS"
