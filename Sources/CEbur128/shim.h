#ifndef HUM_CEBUR128_SHIM_H
#define HUM_CEBUR128_SHIM_H
#include <ebur128.h>
#endif
