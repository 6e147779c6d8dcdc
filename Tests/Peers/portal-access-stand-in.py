#!/usr/bin/python3
"""A stand-in for a desktop's xdg-desktop-portal backend, for locd's tests on a private
session bus: it is NOT a real backend (no dialog, no desktop); it implements only
org.freedesktop.impl.portal.Access (AccessDialog, what the real xdg-desktop-portal asks
before an app may locate) and answers every dialog as the test says, as xdg-desktop-portal's
own tests do with their test backend.

Usage: portal-access-stand-in.py NAME ANSWER   (on $DBUS_SESSION_BUS_ADDRESS)
  NAME    the bus name to own (the .portal file's DBusName)
  ANSWER  "grant" answers 0 (allowed), "deny" answers 2
Prints "ready" once it owns NAME, then one line per dialog: "dialog APPID TITLE".
"""
import sys
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib

ACCESS = "org.freedesktop.impl.portal.Access"


class Access(dbus.service.Object):
    def __init__(self, bus, answer):
        super().__init__(bus, "/org/freedesktop/portal/desktop")
        self.answer = answer

    @dbus.service.method(ACCESS, in_signature="osssssa{sv}", out_signature="ua{sv}")
    def AccessDialog(self, handle, app_id, parent_window, title, subtitle, body, options):
        print("dialog %s %s" % (app_id or "-", title), flush=True)
        return dbus.UInt32(0 if self.answer == "grant" else 2), dbus.Dictionary({}, signature="sv")


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName(sys.argv[1], bus)
keep = Access(bus, sys.argv[2])
print("ready", flush=True)
GLib.MainLoop().run()
