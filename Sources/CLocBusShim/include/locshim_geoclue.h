// The GeoClue2 D-Bus face's object tables (sd-bus vtables): the members of
// org.freedesktop.GeoClue2.Manager, .Client and .Location as GeoClue 2.6 publishes them
// (/usr/share/dbus-1/interfaces/org.freedesktop.GeoClue2.*.xml). sd-bus's vtable macros
// cannot be used from Swift, so the tables are C; every entry calls one of three
// trampolines that forward to the handlers Swift registers once. See geoclue.c.
#ifndef LOCSHIM_GEOCLUE_H
#define LOCSHIM_GEOCLUE_H

#include <systemd/sd-bus.h>

/// Which member a method call is for.
typedef enum {
    LOCSHIM_GEOCLUE_GET_CLIENT = 1,
    LOCSHIM_GEOCLUE_CREATE_CLIENT,
    LOCSHIM_GEOCLUE_DELETE_CLIENT,
    LOCSHIM_GEOCLUE_ADD_AGENT,
    LOCSHIM_GEOCLUE_START,
    LOCSHIM_GEOCLUE_STOP,
} locshim_geoclue_method;

/// A method call on an object whose userdata is `userdata`; returns what an sd-bus method
/// handler returns (negative errno, or >= 0 when handled or answered later).
typedef int (*locshim_geoclue_method_fn)(locshim_geoclue_method method, sd_bus_message *call, void *userdata,
                                         sd_bus_error *error);
/// A property read: append the value of `property` to `reply`.
typedef int (*locshim_geoclue_get_fn)(const char *property, sd_bus_message *reply, void *userdata,
                                      sd_bus_error *error);
/// A property write: read the new value of `property` from `value`.
typedef int (*locshim_geoclue_set_fn)(const char *property, sd_bus_message *value, void *userdata,
                                      sd_bus_error *error);

/// Registers the handlers every table entry forwards to (once, before any object is added).
void locshim_geoclue_set_handlers(locshim_geoclue_method_fn method, locshim_geoclue_get_fn get,
                                  locshim_geoclue_set_fn set);

/// org.freedesktop.GeoClue2.Manager.
const sd_bus_vtable *locshim_geoclue_manager_vtable(void);
/// org.freedesktop.GeoClue2.Client.
const sd_bus_vtable *locshim_geoclue_client_vtable(void);
/// org.freedesktop.GeoClue2.Location.
const sd_bus_vtable *locshim_geoclue_location_vtable(void);

#endif
