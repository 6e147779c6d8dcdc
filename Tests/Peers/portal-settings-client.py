#!/usr/bin/python3
"""An app that follows the desktop's color scheme through the Settings portal
(org.freedesktop.portal.Settings, as xdg-desktop-portal 1.16's interface XML defines it),
for locd's tests: the real xdg-desktop-portal on a private session bus asks its Settings
backends (locd-session's among them). Prints JSON lines: {"read": N} once at start, then
{"changed": N, "read": M} for each SettingChanged of org.freedesktop.appearance color-scheme,
with a Read made right after it. Exits after SECONDS. With --times, each change also says
when it arrived ("at": seconds since the epoch, for bench/lightdark.py).

Usage: portal-settings-client.py SECONDS [--times]   (on $DBUS_SESSION_BUS_ADDRESS)
"""
import json, sys, time
import dbus, dbus.mainloop.glib
from gi.repository import GLib

NAMESPACE, KEY = "org.freedesktop.appearance", "color-scheme"


def out(**kw):
    print(json.dumps(kw), flush=True)


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
settings = dbus.Interface(bus.get_object("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop"),
                          "org.freedesktop.portal.Settings")


def read():
    # 1.16's Read returns the backend's variant inside another (ReadOne, which does not, came
    # in 1.17); dbus-python unwraps both levels into the number.
    return int(settings.Read(NAMESPACE, KEY))


def changed(namespace, key, value):
    if namespace == NAMESPACE and key == KEY:
        if "--times" in sys.argv:
            at = time.time()
            out(changed=int(value), read=read(), at=at)
        else:
            out(changed=int(value), read=read())


bus.add_signal_receiver(changed, signal_name="SettingChanged", dbus_interface="org.freedesktop.portal.Settings")
try:
    out(read=read())
except dbus.exceptions.DBusException as e:
    out(error=e.get_dbus_name(), message=e.get_dbus_message())
    sys.exit(0)
loop = GLib.MainLoop()
GLib.timeout_add(int(float(sys.argv[1]) * 1000), loop.quit)
loop.run()
