/* The declarations of macOS' <net/route.h> that src/wire/route_macos.c
 * uses, as the SDK has them, so tests/portable/check can compile it on
 * Linux (whose <net/route.h> is another thing: the ioctl's rtentry). */
#pragma once

#include <stdint.h>
#include <sys/types.h>

struct rt_metrics {
	uint32_t rmx_locks;
	uint32_t rmx_mtu;
	uint32_t rmx_hopcount;
	int32_t rmx_expire;
	uint32_t rmx_recvpipe;
	uint32_t rmx_sendpipe;
	uint32_t rmx_ssthresh;
	uint32_t rmx_rtt;
	uint32_t rmx_rttvar;
	uint32_t rmx_pksent;
	uint32_t rmx_state;
	uint32_t rmx_filler[3];
};

struct rt_msghdr {
	unsigned short rtm_msglen;
	unsigned char rtm_version;
	unsigned char rtm_type;
	unsigned short rtm_index;
	int rtm_flags;
	int rtm_addrs;
	pid_t rtm_pid;
	int rtm_seq;
	int rtm_errno;
	int rtm_use;
	uint32_t rtm_inits;
	struct rt_metrics rtm_rmx;
};

#define RTM_VERSION 5
#define RTM_GET 0x4

#define RTF_UP 0x1
#define RTF_GATEWAY 0x2
#define RTF_HOST 0x4
#define RTF_REJECT 0x8
#define RTF_BLACKHOLE 0x1000
#define RTF_LOCAL 0x200000
#define RTF_BROADCAST 0x400000
#define RTF_MULTICAST 0x800000

#define RTA_DST 0x1
#define RTA_GATEWAY 0x2
#define RTA_NETMASK 0x4
#define RTA_GENMASK 0x8
#define RTA_IFP 0x10
#define RTA_IFA 0x20
#define RTA_AUTHOR 0x40
#define RTA_BRD 0x80

#define RTAX_DST 0
#define RTAX_GATEWAY 1
#define RTAX_NETMASK 2
#define RTAX_MAX 8
