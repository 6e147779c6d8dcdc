// NETLINK_SOCK_DIAG (sock_diag(7)): one request, one answer, on a netlink socket of its own.
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/inet_diag.h>
#include "locshim_sockdiag.h"

int locshim_tcp_socket_owner(int family, const uint8_t *src, uint16_t sport, const uint8_t *dst, uint16_t dport,
                             uint32_t *uid, uint8_t *state) {
  size_t bytes = family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
  if (bytes == 0) {
    errno = EAFNOSUPPORT;
    return -1;
  }
  int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return -1;
  struct timeval wait = {.tv_sec = 0, .tv_usec = 200000};
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  struct {
    struct nlmsghdr header;
    struct inet_diag_req_v2 request;
  } message;
  memset(&message, 0, sizeof message);
  message.header.nlmsg_len = sizeof message;
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  // No NLM_F_DUMP: the kernel looks the one socket up by its address pair and cookie.
  message.header.nlmsg_flags = NLM_F_REQUEST;
  message.header.nlmsg_seq = 1;
  message.request.sdiag_family = (uint8_t)family;
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = ~0U;
  message.request.id.idiag_sport = htons(sport);
  message.request.id.idiag_dport = htons(dport);
  memcpy(message.request.id.idiag_src, src, bytes);
  memcpy(message.request.id.idiag_dst, dst, bytes);
  message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
  ssize_t sent;
  do {
    sent = sendto(fd, &message, sizeof message, 0, (struct sockaddr *)&kernel, sizeof kernel);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) goto fail;
  union {
    struct nlmsghdr header;
    char bytes[8192];
  } answer;
  ssize_t n;
  do {
    n = recv(fd, &answer, sizeof answer, 0);
  } while (n < 0 && errno == EINTR);
  if (n < 0) goto fail;
  for (struct nlmsghdr *h = &answer.header; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
    if (h->nlmsg_type == NLMSG_ERROR) {
      const struct nlmsgerr *error = NLMSG_DATA(h);
      errno = error->error < 0 ? -error->error : ENOENT;
      goto fail;
    }
    if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY && h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
      const struct inet_diag_msg *found = NLMSG_DATA(h);
      *uid = found->idiag_uid;
      *state = found->idiag_state;
      close(fd);
      return 0;
    }
  }
  errno = ENOENT;
fail:;
  int saved = errno;
  close(fd);
  errno = saved;
  return -1;
}
