// Small C helpers for libc calls that Swift cannot import directly (declared only under
// _GNU_SOURCE or _XOPEN_SOURCE, or macros), and the child side of spawning a timer command.
// Each wraps one call or one fixed sequence; see shim.c.
#ifndef LOCSHIM_H
#define LOCSHIM_H

#include <spawn.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <stdio.h>
#include "locshim_sockdiag.h"

/// accept4(2) with no address, returning the new descriptor or -1 (errno set).
int locshim_accept4(int fd, int flags);

/// accept4(2) that also reports the peer's address in `addr` / `len`.
int locshim_accept4_from(int fd, struct sockaddr *addr, socklen_t *len, int flags);

/// pipe2(2): a pipe whose ends get `flags` (O_CLOEXEC, O_NONBLOCK) atomically.
int locshim_pipe2(int fds[2], int flags);

/// posix_spawn_file_actions_addclosefrom_np(3) (glibc 2.34): the child closes every
/// descriptor from `from` up before exec (Swift's Glibc module does not show it).
int locshim_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

/// madvise(2) MADV_PAGEOUT over the running program's own code (its executable, read-only
/// segments; not the shared libraries): the pages go out of memory and come back from the
/// file when they run again. Returns the bytes advised (0 where the kernel lacks it).
size_t locshim_page_out_program_code(void);

/// A pseudo-terminal pair (posix_openpt(3), grantpt, unlockpt, ptsname_r): returns the
/// master descriptor (O_RDWR | O_NOCTTY | O_CLOEXEC) and writes the slave's path to `name`;
/// -1 with errno set on failure. Tests use it to pose as a serial GPS receiver.
int locshim_openpty(char *name, size_t size);

/// A non-blocking CLOCK_REALTIME timerfd armed with TFD_TIMER_CANCEL_ON_SET: it becomes
/// readable when the wall clock is stepped (or jumps on resume). -1 with errno on failure.
int locshim_clock_step_fd(void);

/// Re-arms a clock-step timerfd after a step was read; 0 or -1 with errno.
int locshim_clock_step_arm(int fd);

/// fork(2) + execve(2) of `path` without a shell: the child gets default signal handling, an
/// empty signal mask, a new session, stdin from /dev/null, "/" as its directory, no other
/// descriptors than 0-2, and (when `change_ids`) only group `gid` and user `uid`, dropped for
/// good. Returns the child's pid, or -1 with errno. The child exits 126 if it cannot drop
/// privileges, 127 if execve fails.
pid_t locshim_spawn(const char *path, char *const argv[], char *const envp[], int change_ids, uid_t uid,
                    gid_t gid);

/// The C library's standard output stream (stdio(3)). C declares `stdout` as a mutable
/// global, which Swift 6 will not read; its value never changes in locd's programs.
FILE *locshim_stdout(void);

/// openat(2) with `flags` | O_CLOEXEC and `mode` (openat is variadic in C).
int locshim_openat(int dirfd, const char *name, int flags, mode_t mode);

/// An unnamed file in directory `dirfd` (openat(2) O_TMPFILE | O_WRONLY | O_CLOEXEC) with
/// `mode`: it vanishes if never linked. -1 with errno (EOPNOTSUPP, EISDIR: not supported by
/// the file system).
int locshim_open_tmpfile(int dirfd, mode_t mode);

/// Gives the O_TMPFILE file `fd` the name `name` in `dirfd` (linkat(2)); fails with EEXIST
/// if the name exists. 0 or -1 with errno.
int locshim_link_tmpfile(int fd, int dirfd, const char *name);

/// A descriptor for `name` in `dirfd` that only names it (openat(2) O_PATH | O_NOFOLLOW |
/// O_CLOEXEC, with O_DIRECTORY when `directory`): a symbolic link is not followed (the
/// descriptor is the link's own; with `directory`, ENOTDIR). Swift does not see O_PATH.
int locshim_open_path(int dirfd, const char *name, int directory);

/// The kernel's bound on the system clock's error in microseconds (adjtimex(2) with modes 0,
/// which reads and needs no privilege: struct timex's maxerror), or -1 with errno. Swift's
/// Glibc module does not show adjtimex.
long locshim_clock_max_error(void);

#endif
