// Small C helpers for libc calls that Swift cannot import directly (declared only under
// _GNU_SOURCE or _XOPEN_SOURCE, or macros). Each wraps one call or one fixed sequence; see shim.c.
#ifndef LOCSHIM_H
#define LOCSHIM_H

#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

/// accept4(2) with no address, returning the new descriptor or -1 (errno set).
int locshim_accept4(int fd, int flags);

/// accept4(2) that also reports the peer's address in `addr` / `len`.
int locshim_accept4_from(int fd, struct sockaddr *addr, socklen_t *len, int flags);

/// pipe2(2): a pipe whose ends get `flags` (O_CLOEXEC, O_NONBLOCK) atomically.
int locshim_pipe2(int fds[2], int flags);

/// A pseudo-terminal pair (posix_openpt(3), grantpt, unlockpt, ptsname_r): returns the
/// master descriptor (O_RDWR | O_NOCTTY | O_CLOEXEC) and writes the slave's path to `name`;
/// -1 with errno set on failure. Tests use it to pose as a serial GPS receiver.
int locshim_openpty(char *name, size_t size);

#endif
