// sd-bus (libsystemd) for hum's desktop adapter: the library's own header, plus what Swift cannot import from it.
// Object vtables are built with C macros (designated initialisers of a union), so they are made here, filled with
// the Swift handlers passed in; the variadic calls hum needs get fixed-signature wrappers.
#ifndef HUM_CSYSTEMD_SHIM_H
#define HUM_CSYSTEMD_SHIM_H
#include <systemd/sd-bus.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A heap copy of a vtable built on the stack (the handlers are known only at run time). Free it with free() once
   the slot that uses it is gone. NULL when out of memory. */
static inline sd_bus_vtable *hum_bus_vtable_copy(const sd_bus_vtable *table, size_t size) {
    sd_bus_vtable *copy = malloc(size);
    if (copy) memcpy(copy, table, size);
    return copy;
}

/* org.mpris.MediaPlayer2: Raise, Quit and the player's identity. Every method goes to `method`, every property to
   `get`; they tell them apart by sd_bus_message_get_member and the property name. */
static inline sd_bus_vtable *hum_mpris_root_vtable(sd_bus_message_handler_t method, sd_bus_property_get_t get) {
    const sd_bus_vtable table[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Raise", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Quit", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("CanQuit", "b", get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CanRaise", "b", get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("HasTrackList", "b", get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Identity", "s", get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SupportedUriSchemes", "as", get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("SupportedMimeTypes", "as", get, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
    };
    return hum_bus_vtable_copy(table, sizeof table);
}

/* org.mpris.MediaPlayer2.Player. Position changes all the time and is read on demand: it announces no change
   (flags 0 make sd-bus say EmitsChangedSignal=false). Volume is the one writable property hum honours. */
static inline sd_bus_vtable *hum_mpris_player_vtable(
    sd_bus_message_handler_t method, sd_bus_property_get_t get, sd_bus_property_set_t set) {
    const uint64_t change = SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE;
    const uint64_t fixed = SD_BUS_VTABLE_PROPERTY_CONST;
    const sd_bus_vtable table[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Next", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Previous", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Pause", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("PlayPause", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Stop", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Play", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("Seek", "x", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("SetPosition", "ox", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD("OpenUri", "s", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL("Seeked", "x", 0),
        SD_BUS_PROPERTY("PlaybackStatus", "s", get, 0, change),
        SD_BUS_PROPERTY("Rate", "d", get, 0, fixed),
        SD_BUS_PROPERTY("MinimumRate", "d", get, 0, fixed),
        SD_BUS_PROPERTY("MaximumRate", "d", get, 0, fixed),
        SD_BUS_PROPERTY("Metadata", "a{sv}", get, 0, change),
        SD_BUS_WRITABLE_PROPERTY("Volume", "d", get, set, 0, change | SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Position", "x", get, 0, 0),
        SD_BUS_PROPERTY("CanGoNext", "b", get, 0, change),
        SD_BUS_PROPERTY("CanGoPrevious", "b", get, 0, change),
        SD_BUS_PROPERTY("CanPlay", "b", get, 0, fixed),
        SD_BUS_PROPERTY("CanPause", "b", get, 0, fixed),
        SD_BUS_PROPERTY("CanSeek", "b", get, 0, fixed),
        SD_BUS_PROPERTY("CanControl", "b", get, 0, fixed),
        SD_BUS_VTABLE_END,
    };
    return hum_bus_vtable_copy(table, sizeof table);
}

/* The variadic calls, with fixed signatures. */

/* An empty method return. */
static inline int hum_bus_reply_empty(sd_bus_message *call) { return sd_bus_reply_method_return(call, NULL); }

/* MPRIS's Seeked(x) signal. */
static inline int hum_bus_emit_seeked(sd_bus *bus, const char *path, int64_t position) {
    return sd_bus_emit_signal(bus, path, "org.mpris.MediaPlayer2.Player", "Seeked", "x", position);
}

/* logind's Inhibit(what, who, why, mode) → h, asynchronously. */
static inline int hum_bus_call_inhibit(
    sd_bus *bus, sd_bus_slot **slot, const char *what, const char *who, const char *why, const char *mode,
    sd_bus_message_handler_t callback, void *userdata) {
    return sd_bus_call_method_async(
        bus, slot, "org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "Inhibit",
        callback, userdata, "ssss", what, who, why, mode);
}
#endif
