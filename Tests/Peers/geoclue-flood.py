#!/usr/bin/python3
"""A user who takes what the GeoClue face has, for locd's hardening tests (issue 28, findings 6
and 7), written against GeoClue's documented D-Bus interface. It opens CONNS connections of
its own to $DBUS_SYSTEM_BUS_ADDRESS and on each makes PER clients with CreateClient.

Usage: geoclue-flood.py clients CONNS PER
         Prints one JSON line: {"created": N, "refused": {error name: count}, "message": first
         refusal's text}, then keeps the connections (and so the clients) until stdin closes.
       geoclue-flood.py starts CONNS PER PREFIX
         Gives each client the DesktopId PREFIX.N (N from 0) and calls Start on all of them
         without waiting; prints "sent N", then one line per answer: "reply ok" or
         "reply ERROR-NAME MESSAGE"; ends when stdin closes.
       geoclue-flood.py agents 1 N
         Makes no client: exports an agent object that never answers anything (not even the
         Get of its MaxAccuracyLevel) and calls AddAgent N times without waiting; prints
         "sent N", then one line per answer as above; ends when stdin closes.
       geoclue-flood.py loop 1 N DESKTOPID
         One client with that DesktopId calls Start and Stop N times, each waiting for its
         answer; prints {"started": K, "refused": {error name: count}} and ends.
"""
import json, os, sys
import dbus, dbus.bus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib

SERVICE = "org.freedesktop.GeoClue2"
MANAGER = "/org/freedesktop/GeoClue2/Manager"
CLIENT = "org.freedesktop.GeoClue2.Client"
PROPS = "org.freedesktop.DBus.Properties"

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
mode, conns, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
address = os.environ["DBUS_SYSTEM_BUS_ADDRESS"]
buses = [dbus.bus.BusConnection(address) for _ in range(conns)]
created, refused, first = [], {}, None
for bus in buses:
    manager = dbus.Interface(bus.get_object(SERVICE, MANAGER), "org.freedesktop.GeoClue2.Manager")
    for _ in range(0 if mode == "agents" else 1 if mode == "loop" else per):
        try:
            created.append((bus, manager.CreateClient()))
        except dbus.DBusException as e:
            refused[e.get_dbus_name()] = refused.get(e.get_dbus_name(), 0) + 1
            first = first or e.get_dbus_message()

if mode == "loop":
    bus, path = created[0]
    obj = bus.get_object(SERVICE, path)
    obj.Set(CLIENT, "DesktopId", sys.argv[4], dbus_interface=PROPS)
    started = 0
    for _ in range(per):
        try:
            obj.Start(dbus_interface=CLIENT)
            started += 1
        except dbus.DBusException as e:
            refused[e.get_dbus_name()] = refused.get(e.get_dbus_name(), 0) + 1
        obj.Stop(dbus_interface=CLIENT)
    print(json.dumps({"started": started, "refused": refused}), flush=True)
    sys.exit(0)

loop = GLib.MainLoop()


def on_stdin(source, condition):
    if not sys.stdin.readline():
        loop.quit()
        return False
    return True


GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, on_stdin)
if mode == "clients":
    print(json.dumps({"created": len(created), "refused": refused, "message": first}), flush=True)


def ok(*_):
    print("reply ok", flush=True)


def failed(e):
    print("reply %s %s" % (e.get_dbus_name(), e.get_dbus_message()), flush=True)


class Silent(dbus.service.Object):
    """An agent that keeps every call unanswered (the replies are dropped, never sent)."""

    @dbus.service.method("org.freedesktop.GeoClue2.Agent", in_signature="su", out_signature="bu",
                         async_callbacks=("reply", "error"))
    def AuthorizeApp(self, desktop_id, level, reply, error):
        pass

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v", async_callbacks=("reply", "error"))
    def Get(self, interface, name, reply, error):
        pass


if mode == "agents":
    silent = Silent(buses[0], "/org/freedesktop/GeoClue2/Agent")
    manager = dbus.Interface(buses[0].get_object(SERVICE, MANAGER), "org.freedesktop.GeoClue2.Manager")
    for _ in range(per):
        manager.AddAgent("flood-agent", reply_handler=ok, error_handler=failed, timeout=3600)
    print("sent %d" % per, flush=True)
elif mode == "starts":
    prefix = sys.argv[4]
    for n, (bus, path) in enumerate(created):
        obj = bus.get_object(SERVICE, path)
        obj.Set(CLIENT, "DesktopId", "%s.%d" % (prefix, n), dbus_interface=PROPS)
    for bus, path in created:
        bus.get_object(SERVICE, path).Start(
            dbus_interface=CLIENT, reply_handler=ok, error_handler=failed, timeout=3600)
    print("sent %d" % len(created), flush=True)
loop.run()
