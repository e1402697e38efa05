// Linux interfaces that Swift's Glibc module leaves out: the descriptors one poll(2) loop waits on.
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
