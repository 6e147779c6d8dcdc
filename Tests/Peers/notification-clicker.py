#!/usr/bin/python3
"""A stand-in for the person at the screen: a notification server (org.freedesktop.Notifications
on the session bus, the Desktop Notifications Specification 1.2) that clicks one action of every
notification that offers it, as a person would click "Yes" in GeoClue's demo agent's prompt.

Usage: notification-clicker.py ACTION LOG
  ACTION  the action key to invoke ("yes" in geoclue's demo agent; anything absent closes the
          notification without an action, which the demo agent takes as "no")
  LOG     a file that gets one line per notification: "summary|body|actions"
Runs on $DBUS_SESSION_BUS_ADDRESS until killed. Test peer for locd's GeoClue tests only.
"""
import sys
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib

IFACE = "org.freedesktop.Notifications"


class Clicker(dbus.service.Object):
    def __init__(self, bus, action, log):
        super().__init__(bus, "/org/freedesktop/Notifications")
        self.action, self.log, self.next = action, log, 1

    @dbus.service.method(IFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["actions", "body"]

    @dbus.service.method(IFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("notification-clicker", "locd tests", "1", "1.2")

    @dbus.service.method(IFACE, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
        nid = self.next
        self.next += 1
        keys = [actions[i] for i in range(0, len(actions), 2)]
        with open(self.log, "a") as f:
            f.write("%s|%s|%s\n" % (summary, body.replace("\n", " "), ",".join(keys)))
        if self.action in keys:
            GLib.timeout_add(50, lambda: (self.ActionInvoked(nid, self.action), False)[1])
        else:
            GLib.timeout_add(50, lambda: (self.NotificationClosed(nid, 2), False)[1])
        return nid

    @dbus.service.method(IFACE, in_signature="u", out_signature="")
    def CloseNotification(self, nid):
        self.NotificationClosed(nid, 3)

    @dbus.service.signal(IFACE, signature="us")
    def ActionInvoked(self, nid, key):
        pass

    @dbus.service.signal(IFACE, signature="uu")
    def NotificationClosed(self, nid, reason):
        pass


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
name = dbus.service.BusName(IFACE, bus)
Clicker(bus, sys.argv[1], sys.argv[2])
GLib.MainLoop().run()
