#!/usr/bin/python3
"""An app using the Location portal (org.freedesktop.portal.Location, as xdg-desktop-portal
1.16's interface XML defines it), for locd's tests: the real xdg-desktop-portal on a private
session bus forwards it to GeoClue on $DBUS_SYSTEM_BUS_ADDRESS (locd's face). Prints JSON
lines: {"session": P} after CreateSession, {"response": N} when Start's Request answers, then
{"location": {...}} for each LocationUpdated; exits after the first location or SECONDS.

Usage: portal-location-client.py SECONDS [ACCURACY]   (on $DBUS_SESSION_BUS_ADDRESS)
ACCURACY is the portal's accuracy (0 none ... 5 exact; default 5).
"""
import json, sys
import dbus, dbus.mainloop.glib
from gi.repository import GLib

PORTAL = "org.freedesktop.portal.Desktop"
LOCATION = "org.freedesktop.portal.Location"
seconds = float(sys.argv[1])
accuracy = int(sys.argv[2]) if len(sys.argv) > 2 else 5


def out(**kw):
    print(json.dumps(kw), flush=True)


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
loop = GLib.MainLoop()
portal = dbus.Interface(bus.get_object(PORTAL, "/org/freedesktop/portal/desktop"), LOCATION)
sender = bus.get_unique_name()[1:].replace(".", "_")
request = "/org/freedesktop/portal/desktop/request/%s/locdtest" % sender


def located(session, location):
    out(location={str(k): (float(v) if isinstance(v, (dbus.Double, float)) else
                           [int(x) for x in v] if isinstance(v, dbus.Struct) else str(v))
                  for k, v in location.items()})
    loop.quit()


def responded(response, results):
    out(response=int(response))
    if response != 0:
        loop.quit()


bus.add_signal_receiver(located, signal_name="LocationUpdated", dbus_interface=LOCATION)
bus.add_signal_receiver(responded, signal_name="Response", dbus_interface="org.freedesktop.portal.Request",
                        path=request)
try:
    session = portal.CreateSession({"session_handle_token": "locdtest", "accuracy": dbus.UInt32(accuracy)})
    out(session=str(session))
    portal.Start(session, "", {"handle_token": "locdtest"})
except dbus.exceptions.DBusException as e:
    out(error=e.get_dbus_name(), message=e.get_dbus_message())
    sys.exit(0)
GLib.timeout_add(int(seconds * 1000), loop.quit)
loop.run()
