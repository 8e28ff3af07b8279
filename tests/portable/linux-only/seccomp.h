/* Linux only: macOS has no <seccomp.h>. tests/portable/check says why. */
#error "<seccomp.h> is Linux-only; this file must build on macOS"
