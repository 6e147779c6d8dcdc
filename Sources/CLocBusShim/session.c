// sd-bus vtables for locd-session (see locshim_session.h). Member names, signatures and
// argument names follow darkman's dbus-api.xml (Tests/Fixtures/darkman, with Mode writable)
// and xdg-desktop-portal 1.16's org.freedesktop.impl.portal.Settings.xml. Methods and the
// writable property are SD_BUS_VTABLE_UNPRIVILEGED, as in geoclue.c: every client of the
// user's session bus may read the mode and set it, as with darkman. Mode EMITS_CHANGE (as
// darkman's does, which is also what keeps sd-bus from annotating it in the introspection
// data); the portal's version never changes.
#include <errno.h>
#include <stddef.h>
#include "locshim_session.h"

static locshim_session_method_fn method_handler;
static locshim_session_get_fn get_handler;
static locshim_session_set_fn set_handler;

void locshim_session_set_handlers(locshim_session_method_fn method, locshim_session_get_fn get,
                                  locshim_session_set_fn set) {
    method_handler = method;
    get_handler = get;
    set_handler = set;
}

static int read_one(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    return method_handler ? method_handler(LOCSHIM_SESSION_READ, m, userdata, error) : -ENOSYS;
}

static int read_all(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    return method_handler ? method_handler(LOCSHIM_SESSION_READ_ALL, m, userdata, error) : -ENOSYS;
}

static int get_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus, (void)path, (void)interface;
    return get_handler ? get_handler(property, reply, userdata, error) : -ENOSYS;
}

static int set_property(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *value, void *userdata, sd_bus_error *error) {
    (void)bus, (void)path, (void)interface;
    return set_handler ? set_handler(property, value, userdata, error) : -ENOSYS;
}

#define ANYONE SD_BUS_VTABLE_UNPRIVILEGED

static const sd_bus_vtable darkman_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_WRITABLE_PROPERTY("Mode", "s", get_property, set_property, 0,
                             SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE | ANYONE),
    SD_BUS_SIGNAL_WITH_ARGS("ModeChanged", SD_BUS_ARGS("s", NewMode), 0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable settings_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD_WITH_ARGS("ReadAll", SD_BUS_ARGS("as", namespaces), SD_BUS_RESULT("a{sa{sv}}", value), read_all,
                            ANYONE),
    SD_BUS_METHOD_WITH_ARGS("Read", SD_BUS_ARGS("s", namespace, "s", key), SD_BUS_RESULT("v", value), read_one,
                            ANYONE),
    SD_BUS_SIGNAL_WITH_ARGS("SettingChanged", SD_BUS_ARGS("s", namespace, "s", key, "v", value), 0),
    SD_BUS_PROPERTY("version", "u", get_property, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_VTABLE_END,
};

const sd_bus_vtable *locshim_session_darkman_vtable(void) { return darkman_vtable; }
const sd_bus_vtable *locshim_session_settings_vtable(void) { return settings_vtable; }
