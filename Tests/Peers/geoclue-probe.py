#!/usr/bin/python3
"""A GeoClue2 client for locd's tests, written against GeoClue's documented D-Bus interface
(not against locd): it prints what it sees as JSON lines on stdout, one object per line.

Usage: geoclue-probe.py MODE [ARGS]   (on $DBUS_SYSTEM_BUS_ADDRESS)
  watch DESKTOPID SECONDS [DIST TIME LEVEL]
        GetClient, set DesktopId (and DistanceThreshold, TimeThreshold, RequestedAccuracyLevel),
        Start, and for SECONDS print every message from the service in arrival order:
          {"signal": "LocationUpdated", "old": P, "new": P, "newReadable": bool, "oldReadable": bool,
           "latitude": x, "longitude": y, "heading": h}   (new/old read with Get inside the signal handler)
          {"signal": "PropertiesChanged", "path": P, "interface": I, "changed": {...}}
        then {"end": true, "alive": [paths of the Location objects seen that still answer]}
  hold DESKTOPID [LEVEL]
        GetClient, set DesktopId (and RequestedAccuracyLevel), Start, print {"client": P} and {"location": P} after the first
        LocationUpdated, then wait until stdin closes.
  poke CLIENT LOCATION
        From this (other) connection try the other connection's objects; prints
        {"call": what, "error": D-Bus error name or null, "message": text}.
  clients N
        GetClient twice, CreateClient once, DeleteClient of the created one; prints the paths
        and whether the deleted one is gone: {"get1", "get2", "create", "deletedGone"}.
  start DESKTOPID [LEVEL]
        GetClient, set DesktopId, Start; prints {"started": true} or {"error", "message"}.
"""
import json, sys
import dbus, dbus.mainloop.glib
from gi.repository import GLib

SERVICE = "org.freedesktop.GeoClue2"
MANAGER = "/org/freedesktop/GeoClue2/Manager"
CLIENT_IFACE = "org.freedesktop.GeoClue2.Client"
LOCATION_IFACE = "org.freedesktop.GeoClue2.Location"
PROPS = "org.freedesktop.DBus.Properties"


def out(**kw):
    print(json.dumps(kw), flush=True)


def error_of(e):
    return {"error": e.get_dbus_name(), "message": e.get_dbus_message()}


dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
manager = dbus.Interface(bus.get_object(SERVICE, MANAGER), "org.freedesktop.GeoClue2.Manager")
mode, args = sys.argv[1], sys.argv[2:]


def client_for(desktop_id, dist=0, time=0, level=None):
    path = manager.GetClient()
    props = dbus.Interface(bus.get_object(SERVICE, path), PROPS)
    props.Set(CLIENT_IFACE, "DesktopId", desktop_id)
    if dist:
        props.Set(CLIENT_IFACE, "DistanceThreshold", dbus.UInt32(dist))
    if time:
        props.Set(CLIENT_IFACE, "TimeThreshold", dbus.UInt32(time))
    if level is not None:
        props.Set(CLIENT_IFACE, "RequestedAccuracyLevel", dbus.UInt32(level))
    return path


def readable(path, name="Latitude"):
    if path == "/":
        return None
    try:
        return float(bus.get_object(SERVICE, path).Get(LOCATION_IFACE, name, dbus_interface=PROPS))
    except dbus.DBusException:
        return None


if mode == "watch":
    desktop_id, seconds = args[0], float(args[1])
    dist, time, level = (int(args[2]), int(args[3]), int(args[4])) if len(args) > 2 else (0, 0, None)
    path = client_for(desktop_id, dist, time, level)
    seen = []

    def on_message(*values, **kw):
        member, p = kw["member"], kw["path"]
        if member == "LocationUpdated":
            old, new = str(values[0]), str(values[1])
            seen.append(new)
            lat = readable(new)
            out(signal=member, old=old, new=new, newReadable=lat is not None,
                oldReadable=(readable(old) is not None) if old != "/" else None, latitude=lat,
                longitude=readable(new, "Longitude"), heading=readable(new, "Heading"))
        elif member == "PropertiesChanged":
            changed = {str(k): (float(v) if isinstance(v, dbus.Double) else str(v) if not isinstance(v, dbus.Boolean) else bool(v))
                       for k, v in values[1].items() if not isinstance(v, dbus.Struct)}
            out(signal=member, path=p, interface=str(values[0]), changed=changed)

    bus.add_signal_receiver(on_message, sender_keyword="sender", member_keyword="member", path_keyword="path",
                            bus_name=SERVICE)
    dbus.Interface(bus.get_object(SERVICE, path), CLIENT_IFACE).Start()
    loop = GLib.MainLoop()
    GLib.timeout_add(int(seconds * 1000), loop.quit)
    loop.run()
    out(end=True, client=path, alive=[p for p in seen if readable(p) is not None])

elif mode == "hold":
    path = client_for(args[0], level=int(args[1]) if len(args) > 1 else None)
    loop = GLib.MainLoop()
    first = []

    def on_update(old, new):
        if not first:
            first.append(str(new))
            out(client=path)
            out(location=str(new))

    bus.add_signal_receiver(on_update, signal_name="LocationUpdated", dbus_interface=CLIENT_IFACE, path=path)
    dbus.Interface(bus.get_object(SERVICE, path), CLIENT_IFACE).Start()
    GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, lambda *a: (loop.quit(), False)[1])
    loop.run()

elif mode == "poke":
    client, location = args[0], args[1]
    attempts = [
        ("Get Client.Active", lambda: bus.get_object(SERVICE, client).Get(CLIENT_IFACE, "Active", dbus_interface=PROPS)),
        ("GetAll Client", lambda: bus.get_object(SERVICE, client).GetAll(CLIENT_IFACE, dbus_interface=PROPS)),
        ("Set Client.DesktopId", lambda: bus.get_object(SERVICE, client).Set(CLIENT_IFACE, "DesktopId", "intruder", dbus_interface=PROPS)),
        ("Client.Start", lambda: bus.get_object(SERVICE, client).Start(dbus_interface=CLIENT_IFACE)),
        ("Client.Stop", lambda: bus.get_object(SERVICE, client).Stop(dbus_interface=CLIENT_IFACE)),
        ("Get Location.Latitude", lambda: bus.get_object(SERVICE, location).Get(LOCATION_IFACE, "Latitude", dbus_interface=PROPS)),
        ("GetAll Location", lambda: bus.get_object(SERVICE, location).GetAll(LOCATION_IFACE, dbus_interface=PROPS)),
        ("Manager.DeleteClient", lambda: manager.DeleteClient(client)),
    ]
    for what, attempt in attempts:
        try:
            attempt()
            out(call=what, error=None, message=None)
        except dbus.DBusException as e:
            out(call=what, **error_of(e))

elif mode == "clients":
    get1, get2, create = str(manager.GetClient()), str(manager.GetClient()), str(manager.CreateClient())
    manager.DeleteClient(create)
    try:
        bus.get_object(SERVICE, create).Get(CLIENT_IFACE, "Active", dbus_interface=PROPS)
        gone = False
    except dbus.DBusException as e:
        gone = e.get_dbus_name() in ("org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod")
    out(get1=get1, get2=get2, create=create, deletedGone=gone)

elif mode == "start":
    path = client_for(args[0], level=int(args[1]) if len(args) > 1 else None)
    try:
        dbus.Interface(bus.get_object(SERVICE, path), CLIENT_IFACE).Start(timeout=60)
        out(started=True, client=path)
    except dbus.DBusException as e:
        out(started=False, client=path, **error_of(e))
else:
    sys.exit("unknown mode " + mode)
