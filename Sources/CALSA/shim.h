#ifndef HUM_CALSA_SHIM_H
#define HUM_CALSA_SHIM_H
#include <alsa/asoundlib.h>

/* ALSA reports through a variadic error handler that Swift cannot write; this no-op keeps the screen clean. */
static void hum_alsa_quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void hum_alsa_silence_errors(void) {
    snd_lib_error_set_handler(hum_alsa_quiet_handler);
}
#endif
