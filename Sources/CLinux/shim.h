// Linux interfaces that Swift's Glibc module leaves out (it is built without _GNU_SOURCE): the descriptors one
// poll(2) loop waits on, the calls of a private Unix socket, and what process supervision needs (signalfd, prctl,
// the GNU parts of posix_spawn, pipe2, pidfd_open), inotify (a client waits for the player's socket to appear), and
// open file description locks (the claim to be the player).
#ifndef HUM_CLINUX_SHIM_H
#define HUM_CLINUX_SHIM_H
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
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


// accept4 and struct ucred are declared only under _GNU_SOURCE, which the Glibc module is built without.
int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

struct hum_peer { pid_t pid; uid_t uid; gid_t gid; };

/// Accepts a connection, non-blocking and close-on-exec; -1 with errno as accept4.
static inline int hum_accept(int fd) { return accept4(fd, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC); }

/// The uid of the process at the other end of a connected Unix socket (SO_PEERCRED); -1 with errno on failure.
static inline int hum_peer_uid(int fd, uid_t *uid) {
    struct hum_peer peer;
    socklen_t length = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) return -1;
    *uid = peer.uid;
    return 0;
}

/* An inotify descriptor, non-blocking and close-on-exec (IN_NONBLOCK and IN_CLOEXEC are enum-based macros that Swift
   does not import). */
static inline int hum_inotify_init(void) { return inotify_init1(IN_NONBLOCK | IN_CLOEXEC); }

/* Open file description locks (Linux 3.15), whose commands glibc declares only with _GNU_SOURCE. Like flock(2) a lock
   belongs to the open file (two opens in one process conflict, it goes with the last descriptor closed); unlike it,
   another process can look at it without taking it (F_OFD_GETLK), so looking never makes a taker fail. */
#ifndef F_OFD_GETLK
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#endif

/* Takes an exclusive lock on the whole file without waiting: 0, or -1 with errno (EAGAIN or EACCES: held). */
static inline int hum_ofd_trylock(int fd) {
    struct flock lock = {0};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    return fcntl(fd, F_OFD_SETLK, &lock);
}

/* Whether another open file holds a lock on the file: 1 held, 0 free, -1 with errno. */
static inline int hum_ofd_held(int fd) {
    struct flock lock = {0};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_GETLK, &lock) != 0) return -1;
    return lock.l_type != F_UNLCK;
}
#endif
