// NETLINK_SOCK_DIAG for locd: who owns the other end of a loopback TCP connection.
#ifndef LOCSHIM_SOCKDIAG_H
#define LOCSHIM_SOCKDIAG_H

#include <stdint.h>

/// The uid owning the TCP socket on this machine whose source is `src`:`sport` and whose
/// destination is `dst`:`dport` (an exact inet_diag lookup over NETLINK_SOCK_DIAG,
/// sock_diag(7); what `ss -e` prints as uid), in `*uid`, with its TCP state (linux/tcp.h
/// numbering, 1 = ESTABLISHED) in `*state`. `family` is AF_INET (4-byte addresses) or
/// AF_INET6 (16 bytes), addresses in network order, ports in host order. Returns 0, or -1
/// with errno set (ENOENT: no such socket here; the kernel's error otherwise). Waits at
/// most 200 ms for the kernel's answer.
int locshim_tcp_socket_owner(int family, const uint8_t *src, uint16_t sport, const uint8_t *dst, uint16_t dport,
                             uint32_t *uid, uint8_t *state);

#endif
