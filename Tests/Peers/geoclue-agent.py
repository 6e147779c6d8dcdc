#!/usr/bin/python3
"""A GeoClue2 agent for locd's tests (org.freedesktop.GeoClue2.Agent, as GeoClue 2.6's interface
XML defines it), for the cases the demo agent cannot show: a MaxAccuracyLevel of 0, a level that
changes while clients run, answers under a script's control, other uids.

Usage: geoclue-agent.py MAX ANSWER   (on $DBUS_SYSTEM_BUS_ADDRESS)
  MAX     MaxAccuracyLevel to start with (0 turns geolocation off for this user)
  ANSWER  "yes" authorizes at the requested level, "no" refuses, "hold" keeps each
          AuthorizeApp unanswered until a line "answer yes" or "answer no" on stdin
Registers with AddAgent("locd-test-agent"), prints "ready" once added, then one line per
AuthorizeApp: "authorize DESKTOPID LEVEL" (and "answered yes|no" when a held one is answered).
A line "max N" on stdin sets MaxAccuracyLevel to N (and emits PropertiesChanged, as a GDBus
skeleton would); EOF on stdin ends it.
"""
import sys
import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib

AGENT = "org.freedesktop.GeoClue2.Agent"
PROPS = "org.freedesktop.DBus.Properties"


class Agent(dbus.service.Object):
    def __init__(self, bus, level, answer):
        super().__init__(bus, "/org/freedesktop/GeoClue2/Agent")
        self.level, self.answer, self.held = level, answer, []

    @dbus.service.method(AGENT, in_signature="su", out_signature="bu", async_callbacks=("reply", "error"))
    def AuthorizeApp(self, desktop_id, level, reply, error):
        print("authorize %s %d" % (desktop_id, level), flush=True)
        if self.answer == "hold":
            self.held.append((reply, level))
        else:
            reply(self.answer == "yes", level)

    def answer_held(self, yes):
        for reply, level in self.held:
            reply(yes, level)
            print("answered %s" % ("yes" if yes else "no"), flush=True)
        self.held = []

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if interface == AGENT and name == "MaxAccuracyLevel":
            return dbus.UInt32(self.level)
        raise dbus.exceptions.DBusException("no such property", name="org.freedesktop.DBus.Error.InvalidArgs")

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"MaxAccuracyLevel": dbus.UInt32(self.level)} if interface == AGENT else {}

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def set_level(self, level):
        self.level = level
        self.PropertiesChanged(AGENT, {"MaxAccuracyLevel": dbus.UInt32(level)}, [])


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
agent = Agent(bus, int(sys.argv[1]), sys.argv[2])
loop = GLib.MainLoop()


def added(*_):
    print("ready", flush=True)


def failed(e):
    print("AddAgent failed: %s" % e, flush=True)
    loop.quit()


manager = bus.get_object("org.freedesktop.GeoClue2", "/org/freedesktop/GeoClue2/Manager")
manager.AddAgent("locd-test-agent", dbus_interface="org.freedesktop.GeoClue2.Manager",
                 reply_handler=added, error_handler=failed)


def on_stdin(source, condition):
    line = sys.stdin.readline()
    if not line:
        loop.quit()
        return False
    words = line.split()
    if len(words) == 2 and words[0] == "max":
        agent.set_level(int(words[1]))
        print("max %s" % words[1], flush=True)
    elif len(words) == 2 and words[0] == "answer":
        agent.answer_held(words[1] == "yes")
    return True


GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, on_stdin)
loop.run()
