// sd-bus vtables for the GeoClue2 face (see locshim_geoclue.h). Member names, signatures,
// argument names and access follow GeoClue 2.6's interface XML. Every method and writable
// property is SD_BUS_VTABLE_UNPRIVILEGED: on the system bus sd-bus otherwise demands
// CAP_SYS_ADMIN of the caller (sd_bus_add_object_vtable(3)); who may do what is decided by
// the Swift handlers. Properties that change are EMITS_CHANGE, which is also what keeps
// sd-bus from annotating them in the introspection data.
#include <errno.h>
#include <stddef.h>
#include "locshim_geoclue.h"

static locshim_geoclue_method_fn method_handler;
static locshim_geoclue_get_fn get_handler;
static locshim_geoclue_set_fn set_handler;

void locshim_geoclue_set_handlers(locshim_geoclue_method_fn method, locshim_geoclue_get_fn get,
                                  locshim_geoclue_set_fn set) {
    method_handler = method;
    get_handler = get;
    set_handler = set;
}

#define TRAMPOLINE(name, which)                                                   \
    static int name(sd_bus_message *m, void *userdata, sd_bus_error *error) {     \
        return method_handler ? method_handler(which, m, userdata, error) : -ENOSYS; \
    }

TRAMPOLINE(get_client, LOCSHIM_GEOCLUE_GET_CLIENT)
TRAMPOLINE(create_client, LOCSHIM_GEOCLUE_CREATE_CLIENT)
TRAMPOLINE(delete_client, LOCSHIM_GEOCLUE_DELETE_CLIENT)
TRAMPOLINE(add_agent, LOCSHIM_GEOCLUE_ADD_AGENT)
TRAMPOLINE(start, LOCSHIM_GEOCLUE_START)
TRAMPOLINE(stop, LOCSHIM_GEOCLUE_STOP)

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

#define CHANGES SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE
#define ANYONE SD_BUS_VTABLE_UNPRIVILEGED

static const sd_bus_vtable manager_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("InUse", "b", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("AvailableAccuracyLevel", "u", get_property, 0, CHANGES),
    SD_BUS_METHOD_WITH_ARGS("GetClient", SD_BUS_NO_ARGS, SD_BUS_RESULT("o", client), get_client, ANYONE),
    SD_BUS_METHOD_WITH_ARGS("CreateClient", SD_BUS_NO_ARGS, SD_BUS_RESULT("o", client), create_client, ANYONE),
    SD_BUS_METHOD_WITH_ARGS("DeleteClient", SD_BUS_ARGS("o", client), SD_BUS_NO_RESULT, delete_client, ANYONE),
    SD_BUS_METHOD_WITH_ARGS("AddAgent", SD_BUS_ARGS("s", id), SD_BUS_NO_RESULT, add_agent, ANYONE),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable client_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Location", "o", get_property, 0, CHANGES),
    SD_BUS_WRITABLE_PROPERTY("DistanceThreshold", "u", get_property, set_property, 0, CHANGES | ANYONE),
    SD_BUS_WRITABLE_PROPERTY("TimeThreshold", "u", get_property, set_property, 0, CHANGES | ANYONE),
    SD_BUS_WRITABLE_PROPERTY("DesktopId", "s", get_property, set_property, 0, CHANGES | ANYONE),
    SD_BUS_WRITABLE_PROPERTY("RequestedAccuracyLevel", "u", get_property, set_property, 0, CHANGES | ANYONE),
    SD_BUS_PROPERTY("Active", "b", get_property, 0, CHANGES),
    SD_BUS_METHOD_WITH_ARGS("Start", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, start, ANYONE),
    SD_BUS_METHOD_WITH_ARGS("Stop", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, stop, ANYONE),
    SD_BUS_SIGNAL_WITH_ARGS("LocationUpdated", SD_BUS_ARGS("o", old, "o", new), 0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable location_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("Latitude", "d", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("Longitude", "d", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("Accuracy", "d", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("Altitude", "d", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("Speed", "d", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("Heading", "d", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("Description", "s", get_property, 0, CHANGES),
    SD_BUS_PROPERTY("Timestamp", "(tt)", get_property, 0, CHANGES),
    SD_BUS_VTABLE_END,
};

const sd_bus_vtable *locshim_geoclue_manager_vtable(void) { return manager_vtable; }
const sd_bus_vtable *locshim_geoclue_client_vtable(void) { return client_vtable; }
const sd_bus_vtable *locshim_geoclue_location_vtable(void) { return location_vtable; }
