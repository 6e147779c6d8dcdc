#define _GNU_SOURCE
#include <link.h>
#include <sys/mman.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/types.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <errno.h>
#include <time.h>
#include <stdio.h>
#include <sys/timex.h>
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

int locshim_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
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

int locshim_clock_step_fd(void) {
    int fd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
    if (fd < 0) return -1;
    if (locshim_clock_step_arm(fd) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int locshim_clock_step_arm(int fd) {
    // An absolute deadline far in the future: it never expires, but any change of
    // CLOCK_REALTIME relative to CLOCK_MONOTONIC (settimeofday, clock_settime, NTP steps,
    // resume from suspend) cancels it, and read(2) then fails with ECANCELED
    // (timerfd_create(2), TFD_TIMER_CANCEL_ON_SET).
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    spec.it_value.tv_sec = (time_t)INT32_MAX * 8;  // the year 2514: beyond any real clock
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL);
}

pid_t locshim_spawn(const char *path, char *const argv[], char *const envp[], int change_ids, uid_t uid,
                    gid_t gid) {
    pid_t pid = fork();
    if (pid != 0) return pid;  // the parent (or -1 with errno)
    // The child: only async-signal-safe calls from here on (fork(2) in a process that may
    // have threads).
    sigset_t none;
    sigemptyset(&none);
    for (int s = 1; s < NSIG; s++) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(s, &dfl, NULL);  // fails harmlessly for SIGKILL, SIGSTOP and RT internals
    }
    sigprocmask(SIG_SETMASK, &none, NULL);
    setsid();
    if (change_ids) {
        if (setgroups(1, &gid) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) _exit(126);
        // Dropping must be irreversible.
        if (uid != 0 && setuid(0) == 0) _exit(126);
    }
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) {
        dup2(null, 0);
        if (null > 2) close(null);
    }
    if (chdir("/") != 0) _exit(126);
    close_range(3, ~0U, 0);
    execve(path, argv, envp);
    _exit(127);
}

FILE *locshim_stdout(void) {
    return stdout;
}

int locshim_openat(int dirfd, const char *name, int flags, mode_t mode) {
    return openat(dirfd, name, flags | O_CLOEXEC, mode);
}

int locshim_open_path(int dirfd, const char *name, int directory) {
    return openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
}

long locshim_clock_max_error(void) {
    struct timex t;
    memset(&t, 0, sizeof t);
    if (adjtimex(&t) < 0) return -1;
    return t.maxerror;
}

int locshim_open_tmpfile(int dirfd, mode_t mode) {
    return openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
}

int locshim_link_tmpfile(int fd, int dirfd, const char *name) {
    // An O_TMPFILE file gets its name through /proc/self/fd (linkat(2): works without
    // CAP_DAC_READ_SEARCH); AT_EMPTY_PATH, which needs it, when /proc is not there.
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, path, dirfd, name, AT_SYMLINK_FOLLOW) == 0) return 0;
    if (errno != ENOENT) return -1;
    return linkat(fd, "", dirfd, name, AT_EMPTY_PATH);
}

// The main program is the first object dl_iterate_phdr(3) reports; its executable PT_LOAD
// segments are read-only file pages (no DT_TEXTREL in locd), so paging them out loses nothing.
static int page_out_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    long page = sysconf(_SC_PAGESIZE);
    size_t *released = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || (ph->p_flags & PF_W)) continue;
        uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(page - 1);
        uintptr_t end = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + page - 1) & ~(uintptr_t)(page - 1);
#ifdef MADV_PAGEOUT
        if (madvise((void *)start, end - start, MADV_PAGEOUT) == 0) *released += end - start;
#else
        (void)start;
        (void)end;
#endif
    }
    return 1;  // the main program only
}

size_t locshim_page_out_program_code(void) {
    size_t released = 0;
    dl_iterate_phdr(page_out_segments, &released);
    return released;
}
