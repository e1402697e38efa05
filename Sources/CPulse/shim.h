#ifndef HUM_CPULSE_SHIM_H
#define HUM_CPULSE_SHIM_H
/* PulseAudio's client library (which PipeWire's pipewire-pulse serves too), loaded at run time with dlopen, so hum
 * starts on a machine without it and plays through ALSA there. Only the headers are used at build time (Debian's
 * libpulse-dev); nothing links libpulse. The callbacks are C so they only record what happened in the struct: the
 * audio thread reads it after each iteration of the main loop, with no Swift closure (and no reference counting)
 * in between. */
#include <dlfcn.h>
#include <poll.h>
#include <pulse/pulseaudio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct hum_pulse {
    void *library;
    __typeof__(pa_mainloop_new) *mainloop_new;
    __typeof__(pa_mainloop_free) *mainloop_free;
    __typeof__(pa_mainloop_get_api) *mainloop_get_api;
    __typeof__(pa_mainloop_prepare) *mainloop_prepare;
    __typeof__(pa_mainloop_poll) *mainloop_poll;
    __typeof__(pa_mainloop_dispatch) *mainloop_dispatch;
    __typeof__(pa_context_new) *context_new;
    __typeof__(pa_context_connect) *context_connect;
    __typeof__(pa_context_disconnect) *context_disconnect;
    __typeof__(pa_context_unref) *context_unref;
    __typeof__(pa_context_get_state) *context_get_state;
    __typeof__(pa_context_set_state_callback) *context_set_state_callback;
    __typeof__(pa_context_errno) *context_errno;
    __typeof__(pa_stream_new) *stream_new;
    __typeof__(pa_stream_connect_playback) *stream_connect_playback;
    __typeof__(pa_stream_disconnect) *stream_disconnect;
    __typeof__(pa_stream_unref) *stream_unref;
    __typeof__(pa_stream_get_state) *stream_get_state;
    __typeof__(pa_stream_set_state_callback) *stream_set_state_callback;
    __typeof__(pa_stream_set_started_callback) *stream_set_started_callback;
    __typeof__(pa_stream_set_underflow_callback) *stream_set_underflow_callback;
    __typeof__(pa_stream_writable_size) *stream_writable_size;
    __typeof__(pa_stream_begin_write) *stream_begin_write;
    __typeof__(pa_stream_cancel_write) *stream_cancel_write;
    __typeof__(pa_stream_write) *stream_write;
    __typeof__(pa_stream_drain) *stream_drain;
    __typeof__(pa_stream_get_buffer_attr) *stream_get_buffer_attr;
    __typeof__(pa_stream_get_sample_spec) *stream_get_sample_spec;
    __typeof__(pa_operation_unref) *operation_unref;
    __typeof__(pa_strerror) *strerror;

    /* What the callbacks saw (all on the thread that iterates the main loop). */
    pa_mainloop *loop;
    pa_context *context;
    pa_stream *stream;
    pa_io_event *wake_event;
    int wake_fd;
    int context_state;
    int stream_state;
    int woken;
    int started;
    int underflows;
    int drained;
} hum_pulse;

/* Loads libpulse.so.0 and fills the table; 0 when it is there, -1 when it (or a function) is missing. */
static inline int hum_pulse_load(hum_pulse *p) {
    memset(p, 0, sizeof *p);
    p->wake_fd = -1;
    p->library = dlopen("libpulse.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!p->library) return -1;
#define HUM_PULSE_SYMBOL(field, name) \
    if (!(*(void **)&p->field = dlsym(p->library, #name))) goto missing;
    HUM_PULSE_SYMBOL(mainloop_new, pa_mainloop_new)
    HUM_PULSE_SYMBOL(mainloop_free, pa_mainloop_free)
    HUM_PULSE_SYMBOL(mainloop_get_api, pa_mainloop_get_api)
    HUM_PULSE_SYMBOL(mainloop_prepare, pa_mainloop_prepare)
    HUM_PULSE_SYMBOL(mainloop_poll, pa_mainloop_poll)
    HUM_PULSE_SYMBOL(mainloop_dispatch, pa_mainloop_dispatch)
    HUM_PULSE_SYMBOL(context_new, pa_context_new)
    HUM_PULSE_SYMBOL(context_connect, pa_context_connect)
    HUM_PULSE_SYMBOL(context_disconnect, pa_context_disconnect)
    HUM_PULSE_SYMBOL(context_unref, pa_context_unref)
    HUM_PULSE_SYMBOL(context_get_state, pa_context_get_state)
    HUM_PULSE_SYMBOL(context_set_state_callback, pa_context_set_state_callback)
    HUM_PULSE_SYMBOL(context_errno, pa_context_errno)
    HUM_PULSE_SYMBOL(stream_new, pa_stream_new)
    HUM_PULSE_SYMBOL(stream_connect_playback, pa_stream_connect_playback)
    HUM_PULSE_SYMBOL(stream_disconnect, pa_stream_disconnect)
    HUM_PULSE_SYMBOL(stream_unref, pa_stream_unref)
    HUM_PULSE_SYMBOL(stream_get_state, pa_stream_get_state)
    HUM_PULSE_SYMBOL(stream_set_state_callback, pa_stream_set_state_callback)
    HUM_PULSE_SYMBOL(stream_set_started_callback, pa_stream_set_started_callback)
    HUM_PULSE_SYMBOL(stream_set_underflow_callback, pa_stream_set_underflow_callback)
    HUM_PULSE_SYMBOL(stream_writable_size, pa_stream_writable_size)
    HUM_PULSE_SYMBOL(stream_begin_write, pa_stream_begin_write)
    HUM_PULSE_SYMBOL(stream_cancel_write, pa_stream_cancel_write)
    HUM_PULSE_SYMBOL(stream_write, pa_stream_write)
    HUM_PULSE_SYMBOL(stream_drain, pa_stream_drain)
    HUM_PULSE_SYMBOL(stream_get_buffer_attr, pa_stream_get_buffer_attr)
    HUM_PULSE_SYMBOL(stream_get_sample_spec, pa_stream_get_sample_spec)
    HUM_PULSE_SYMBOL(operation_unref, pa_operation_unref)
    HUM_PULSE_SYMBOL(strerror, pa_strerror)
#undef HUM_PULSE_SYMBOL
    return 0;
missing:
    dlclose(p->library);
    p->library = NULL;
    return -1;
}

/* A memory file (memfd, close-on-exec) holding `text`, for the process's life: a client configuration of hum's
 * own, read as /proc/self/fd/N. The descriptor, or -1. */
static inline int hum_pulse_memory_file(const char *text) {
    int fd = (int)syscall(SYS_memfd_create, "hum-pulse-client.conf", 1u /* MFD_CLOEXEC */);
    if (fd < 0) return -1;
    size_t left = strlen(text);
    while (left > 0) {
        ssize_t n = write(fd, text, left);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        text += n;
        left -= (size_t)n;
    }
    return fd;
}

static void hum_pulse_context_changed(pa_context *c, void *userdata) {
    hum_pulse *p = userdata;
    p->context_state = (int)p->context_get_state(c);
}

static void hum_pulse_stream_changed(pa_stream *s, void *userdata) {
    hum_pulse *p = userdata;
    p->stream_state = (int)p->stream_get_state(s);
}

static void hum_pulse_started(pa_stream *s, void *userdata) {
    (void)s;
    ((hum_pulse *)userdata)->started = 1;
}

/* The server ran out of the stream's data and plays silence. Counted only once the stream has started: waiting
 * for the first prebuf is not running dry (PulseAudio does not report it; this holds whatever the server does). */
static void hum_pulse_underflow(pa_stream *s, void *userdata) {
    (void)s;
    hum_pulse *p = userdata;
    if (p->started) p->underflows += 1;
}

static void hum_pulse_drained(pa_stream *s, int success, void *userdata) {
    (void)s;
    ((hum_pulse *)userdata)->drained = success ? 1 : -1;
}

/* The wake-up pipe became readable (interrupt() wrote to it): empty it and say so. */
static void hum_pulse_wake(pa_mainloop_api *api, pa_io_event *e, int fd, pa_io_event_flags_t events, void *userdata) {
    (void)api; (void)e; (void)events;
    char bytes[16];
    while (read(fd, bytes, sizeof bytes) > 0) {}
    ((hum_pulse *)userdata)->woken = 1;
}

/* A main loop and a context connecting to the server (PULSE_SERVER, else the user's; never autospawned), with
 * the wake-up pipe's read end watched by the loop. `config` (NULL: none) is a client configuration file the
 * context reads in place of the user's, named through PULSE_CLIENTCONFIG only while pa_context_new reads it (and
 * only when the user did not set that variable). 0 on a started connection; negative: a PA_ERR_ code, negated. */
static inline int hum_pulse_connect(hum_pulse *p, const char *name, int wake_fd, const char *config) {
    p->context_state = PA_CONTEXT_UNCONNECTED;
    p->stream_state = PA_STREAM_UNCONNECTED;
    p->woken = p->started = p->underflows = p->drained = 0;
    p->loop = p->mainloop_new();
    if (!p->loop) return -PA_ERR_INTERNAL;
    pa_mainloop_api *api = p->mainloop_get_api(p->loop);
    if (wake_fd >= 0) p->wake_event = api->io_new(api, wake_fd, PA_IO_EVENT_INPUT, hum_pulse_wake, p);
    int named = config && !getenv("PULSE_CLIENTCONFIG") && setenv("PULSE_CLIENTCONFIG", config, 1) == 0;
    p->context = p->context_new(api, name);
    if (named) unsetenv("PULSE_CLIENTCONFIG");
    if (!p->context) return -PA_ERR_INTERNAL;
    p->context_set_state_callback(p->context, hum_pulse_context_changed, p);
    if (p->context_connect(p->context, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0) return -p->context_errno(p->context);
    return 0;
}

/* A float32 stereo playback stream on the default sink (PULSE_SINK, else the server's), with no timing updates
 * of its own: nothing wakes the loop but the server's requests for data. */
static inline int hum_pulse_stream(hum_pulse *p, const char *name, uint32_t rate, const pa_buffer_attr *attr) {
    pa_sample_spec spec = {.format = PA_SAMPLE_FLOAT32LE, .rate = rate, .channels = 2};
    p->stream = p->stream_new(p->context, name, &spec, NULL);
    if (!p->stream) return -p->context_errno(p->context);
    p->stream_set_state_callback(p->stream, hum_pulse_stream_changed, p);
    p->stream_set_started_callback(p->stream, hum_pulse_started, p);
    p->stream_set_underflow_callback(p->stream, hum_pulse_underflow, p);
    if (p->stream_connect_playback(p->stream, NULL, attr, PA_STREAM_NOFLAGS, NULL, NULL) < 0)
        return -p->context_errno(p->context);
    return 0;
}

/* One iteration of the loop: waits up to timeout_us (-1: for ever) for an event, then dispatches. Negative on
 * error. */
static inline int hum_pulse_iterate(hum_pulse *p, int timeout_us) {
    if (p->mainloop_prepare(p->loop, timeout_us) < 0) return -1;
    if (p->mainloop_poll(p->loop) < 0) return -1;
    return p->mainloop_dispatch(p->loop);
}

/* Copies bytes into a buffer of the library's own (pa_stream_begin_write) and queues it. Negative on error. */
static inline int hum_pulse_write(hum_pulse *p, const void *data, size_t bytes) {
    void *buffer = NULL;
    size_t room = bytes;
    if (p->stream_begin_write(p->stream, &buffer, &room) < 0 || !buffer) return -1;
    if (room < bytes) {
        p->stream_cancel_write(p->stream);
        return p->stream_write(p->stream, data, bytes, NULL, 0, PA_SEEK_RELATIVE);
    }
    memcpy(buffer, data, bytes);
    return p->stream_write(p->stream, buffer, bytes, NULL, 0, PA_SEEK_RELATIVE);
}

static inline int hum_pulse_drain(hum_pulse *p) {
    p->drained = 0;
    pa_operation *o = p->stream_drain(p->stream, hum_pulse_drained, p);
    if (!o) return -1;
    p->operation_unref(o);
    return 0;
}

/* Lets go of the stream, the connection and the loop (none of it waits for the server). */
static inline void hum_pulse_close(hum_pulse *p) {
    if (p->stream) {
        p->stream_set_state_callback(p->stream, NULL, NULL);
        p->stream_set_started_callback(p->stream, NULL, NULL);
        p->stream_set_underflow_callback(p->stream, NULL, NULL);
        p->stream_disconnect(p->stream);
        p->stream_unref(p->stream);
        p->stream = NULL;
    }
    if (p->context) {
        p->context_set_state_callback(p->context, NULL, NULL);
        p->context_disconnect(p->context);
        p->context_unref(p->context);
        p->context = NULL;
    }
    if (p->loop) {
        if (p->wake_event) {
            pa_mainloop_api *api = p->mainloop_get_api(p->loop);
            api->io_free(p->wake_event);
            p->wake_event = NULL;
        }
        p->mainloop_free(p->loop);
        p->loop = NULL;
    }
}
#endif
