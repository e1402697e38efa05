// Linux interfaces that Swift's Glibc module leaves out: the descriptors one poll(2) loop waits on, and the
// calls of a private Unix socket.
#ifndef HUM_CLINUX_SHIM_H
#define HUM_CLINUX_SHIM_H
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

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
#endif
