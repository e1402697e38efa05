#ifndef HUM_CSNDFILE_SHIM_H
#define HUM_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
