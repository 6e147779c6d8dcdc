#define _GNU_SOURCE
#include <sys/socket.h>
#include <stddef.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdlib.h>
#include <errno.h>
#include "locshim.h"

int locshim_accept4(int fd, int flags) {
    return accept4(fd, NULL, NULL, flags);
}

int locshim_accept4_from(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}

int locshim_pipe2(int fds[2], int flags) {
    return pipe2(fds, flags);
}

int locshim_openpty(char *name, size_t size) {
    int fd = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return -1;
    if (grantpt(fd) != 0 || unlockpt(fd) != 0 || ptsname_r(fd, name, size) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}
