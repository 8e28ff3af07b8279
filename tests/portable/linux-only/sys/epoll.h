/* Linux only: macOS has no <sys/epoll.h>. tests/portable/check says why. */
#error "<sys/epoll.h> is Linux-only; this file must build on macOS"
