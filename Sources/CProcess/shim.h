#ifndef HUM_CPROCESS_SHIM_H
#define HUM_CPROCESS_SHIM_H
/* What process supervision needs of glibc beyond Swift's Glibc module: signalfd, prctl, and the GNU parts of
   posix_spawn (the Glibc module is built without _GNU_SOURCE, which hides them). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

/* POSIX_SPAWN_SETSID (glibc 2.26): the child starts a new session, with no controlling terminal. */
#define HUM_POSIX_SPAWN_SETSID 0x80

/* glibc 2.35: the child makes its process group the foreground group of the terminal TCFD before exec, with every
   signal blocked (so no SIGTTOU), which leaves no moment where it runs in the background of its own terminal.
   Declared weak: on an older glibc the wrapper says ENOSYS and the caller hands the terminal over itself. */
extern int posix_spawn_file_actions_addtcsetpgrp_np(posix_spawn_file_actions_t *, int) __attribute__((weak));

static inline int hum_spawn_add_tcsetpgrp(posix_spawn_file_actions_t *actions, int terminal) {
    if (!posix_spawn_file_actions_addtcsetpgrp_np) return ENOSYS;
    return posix_spawn_file_actions_addtcsetpgrp_np(actions, terminal);
}

/* PR_SET_CHILD_SUBREAPER: orphaned descendants are re-parented to this process instead of init, so a command
   cannot leave the supervised tree by double-forking or by setsid while hum lives. */
static inline int hum_become_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

/* pipe2 (GNU): both ends close-on-exec from the start, so no command started meanwhile inherits them. */
extern int pipe2(int fds[2], int flags);
static inline int hum_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

/* pidfd_open (Linux 5.3): a descriptor that becomes readable when the process exits, to wait for it in poll. */
static inline int hum_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

#endif
