// locd-session's object tables (sd-bus vtables): darkman's nl.whynothugo.darkman interface
// (its dbus-api.xml, with Mode writable as darkman's `set` command writes it) and
// xdg-desktop-portal's org.freedesktop.impl.portal.Settings backend interface (1.16's
// data/org.freedesktop.impl.portal.Settings.xml). sd-bus's vtable macros cannot be used from
// Swift, so the tables are C; every entry calls one of three trampolines that forward to the
// handlers Swift registers once. See session.c.
#ifndef LOCSHIM_SESSION_H
#define LOCSHIM_SESSION_H

#include <systemd/sd-bus.h>

/// Which member a method call is for.
typedef enum {
    LOCSHIM_SESSION_READ = 1,
    LOCSHIM_SESSION_READ_ALL,
} locshim_session_method;

/// A method call on an object whose userdata is `userdata`; returns what an sd-bus method
/// handler returns (negative errno, or >= 0 when handled).
typedef int (*locshim_session_method_fn)(locshim_session_method method, sd_bus_message *call, void *userdata,
                                         sd_bus_error *error);
/// A property read: append the value of `property` to `reply`.
typedef int (*locshim_session_get_fn)(const char *property, sd_bus_message *reply, void *userdata,
                                      sd_bus_error *error);
/// A property write: read the new value of `property` from `value`.
typedef int (*locshim_session_set_fn)(const char *property, sd_bus_message *value, void *userdata,
                                      sd_bus_error *error);

/// Registers the handlers every table entry forwards to (once, before any object is added).
void locshim_session_set_handlers(locshim_session_method_fn method, locshim_session_get_fn get,
                                  locshim_session_set_fn set);

/// nl.whynothugo.darkman.
const sd_bus_vtable *locshim_session_darkman_vtable(void);
/// org.freedesktop.impl.portal.Settings.
const sd_bus_vtable *locshim_session_settings_vtable(void);

#endif
