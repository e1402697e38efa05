#ifndef HUM_CSOXR_SHIM_H
#define HUM_CSOXR_SHIM_H
#include <soxr.h>
#endif
