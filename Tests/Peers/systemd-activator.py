#!/usr/bin/python3
"""A stand-in for systemd's side of D-Bus activation, for locd's tests on a private bus run with
dbus-daemon --systemd-activation: it owns org.freedesktop.systemd1 and prints one line
"activate UNIT" per org.freedesktop.systemd1.Activator.ActivationRequest the bus sends it
(the bus asks systemd to start the unit named by SystemdService= in an activation file).
Starting the unit is left to the test. Prints "ready" once it owns the name.
"""
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()


def requested(unit):
    print("activate %s" % unit, flush=True)


bus.add_signal_receiver(requested, signal_name="ActivationRequest",
                        dbus_interface="org.freedesktop.systemd1.Activator")
name = dbus.service.BusName("org.freedesktop.systemd1", bus)
print("ready", flush=True)
GLib.MainLoop().run()
