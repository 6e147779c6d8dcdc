#!/usr/bin/python3
"""A stand-in for wpa_supplicant's D-Bus API (fi.w1.wpa_supplicant1), for locd's tests on a
private bus configured like the system bus. It is NOT wpa_supplicant: one interface, the BSS
objects a JSON file lists, Interface.Scan recorded and answered, Properties.Get/GetAll.

Usage: wpa-supplicant-stand-in.py BSSFILE CALLLOG [JITTER]
JITTER (dBm, default 0): each Scan moves every BSS's Signal JITTER above, then below, the
file's value in turn (PropertiesChanged on the BSS), as a real radio's readings wander.
BSSFILE: [{"bssid": "00:11:22:33:44:01", "ssid": "home", "signal": -52, "frequency": 2437,
"age": 3}, ...]. Each Scan call is appended to CALLLOG as a line "Scan TYPE". Prints
"ready" once it owns the name.
"""
import json
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

SERVICE = "fi.w1.wpa_supplicant1"
ROOT = "/fi/w1/wpa_supplicant1"
IFACE = "fi.w1.wpa_supplicant1.Interface"
BSS = "fi.w1.wpa_supplicant1.BSS"
PROPS = "org.freedesktop.DBus.Properties"

bss_file, call_log = sys.argv[1], sys.argv[2]
jitter = int(sys.argv[3]) if len(sys.argv) > 3 else 0
scans = 0
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
name = dbus.service.BusName(SERVICE, bus)


class Props(dbus.service.Object):
    def __init__(self, path, interface, values):
        super().__init__(bus, path)
        self.interface = interface
        self.values = values

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface, prop):
        if interface != self.interface or prop not in self.values:
            raise dbus.exceptions.DBusException("no such property", name="org.freedesktop.DBus.Error.InvalidArgs")
        return self.values[prop]

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return self.values if interface == self.interface else {}

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


class Interface(Props):
    @dbus.service.method(IFACE, in_signature="a{sv}", out_signature="")
    def Scan(self, args):
        global scans
        with open(call_log, "a") as log:
            log.write("Scan %s\n" % args.get("Type", "?"))
        scans += 1
        if jitter:
            for bss, base in zip(bss_objects, bss_signals):
                signal = dbus.Int16(base + (jitter if scans % 2 else -jitter), variant_level=1)
                bss.values["Signal"] = signal
                bss.PropertiesChanged(BSS, {"Signal": signal}, dbus.Array([], signature="s"))
        self.ScanDone(True)

    @dbus.service.signal(IFACE, signature="b")
    def ScanDone(self, success):
        pass


bss_paths = []
keep = []
bss_objects, bss_signals = [], []
for i, b in enumerate(json.load(open(bss_file))):
    path = "%s/Interfaces/0/BSSs/%d" % (ROOT, i)
    raw = bytes(int(x, 16) for x in b["bssid"].split(":"))
    keep.append(Props(path, BSS, {
        "BSSID": dbus.ByteArray(raw, variant_level=1),
        "SSID": dbus.ByteArray(b["ssid"].encode(), variant_level=1),
        "Signal": dbus.Int16(b["signal"], variant_level=1),
        "Frequency": dbus.UInt16(b["frequency"], variant_level=1),
        "Age": dbus.UInt32(b["age"], variant_level=1),
    }))
    bss_objects.append(keep[-1])
    bss_signals.append(b["signal"])
    bss_paths.append(dbus.ObjectPath(path))
interface_path = ROOT + "/Interfaces/0"
keep.append(Interface(interface_path, IFACE, {
    "BSSs": dbus.Array(bss_paths, signature="o", variant_level=1),
    "Ifname": dbus.String("wlan0", variant_level=1),
}))
keep.append(Props(ROOT, SERVICE, {
    "Interfaces": dbus.Array([dbus.ObjectPath(interface_path)], signature="o", variant_level=1),
}))
print("ready", flush=True)
GLib.MainLoop().run()
