// Small C helpers for libc calls that Swift cannot import directly (declared only under
// _GNU_SOURCE, or macros). Each wraps exactly one call; see shim.c.
#ifndef LOCSHIM_H
#define LOCSHIM_H

#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

/// accept4(2) with no address, returning the new descriptor or -1 (errno set).
int locshim_accept4(int fd, int flags);

/// pipe2(2): a pipe whose ends get `flags` (O_CLOEXEC, O_NONBLOCK) atomically.
int locshim_pipe2(int fds[2], int flags);

#endif
