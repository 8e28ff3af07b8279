/* Included first in every file tests/portable/check compiles: the system
 * headers the sources use are read here, whole, and then the calls and
 * flags that exist on Linux only are poisoned, so a later use of one in a
 * platform-free file fails to compile, as it would on macOS. (Poisoning
 * before the headers would trip on their own declarations.) */
/* Its own warnings (poisoning a macro) are not findings. */
#pragma GCC system_header
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Calls macOS lacks: each has a portable form (src/common/compat.h:
 * pipe + fcntl, accept + fcntl, a loop of close, getpeereid, a kqueue for
 * signals and processes; getentropy) or belongs to a file that is Linux
 * by nature (LINUX_ONLY in tests/portable/check). */
#pragma GCC poison pipe2 accept4 dup3 getrandom memfd_create close_range
#pragma GCC poison pidfd_open pidfd_send_signal signalfd eventfd epoll_create1
#pragma GCC poison epoll_ctl epoll_wait prctl unshare setns clone3 statfs
#pragma GCC poison fstatfs gettid execveat openat2 renameat2 copy_file_range
#pragma GCC poison O_PATH O_TMPFILE SOCK_CLOEXEC SOCK_NONBLOCK MSG_CMSG_CLOEXEC
#pragma GCC poison F_ADD_SEALS F_SEAL_SEAL AT_EMPTY_PATH
#pragma GCC poison splice vmsplice F_SETPIPE_SZ F_GETPIPE_SZ SO_PEERCRED ucred
#pragma GCC poison statx process_vm_readv pidfd_getfd signalfd4 SFD_CLOEXEC
