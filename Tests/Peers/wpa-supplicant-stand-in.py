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

Scene changes, as the real service publishes them (for following the laptop, decision 0066):
the test interface org.locd.test.Supplicant at / has SetScene(s BSSJSON, i DELAY): the
radio now sees the BSSs of BSSJSON (the same form as BSSFILE). With DELAY >= 0 the stand-in
publishes the change DELAY seconds later as wpa_supplicant does after a scan of its own (it
scans by itself when it loses its access point, and at its bgscan interval): BSSRemoved for
each BSS gone, BSSAdded (with its properties) for each new one, PropertiesChanged of the
interface's BSSs and CurrentBSS (the strongest BSS, as if it roamed there), then ScanDone(true).
With DELAY -1 nothing is published until the next Scan call, anyone's, which applies and
publishes it the same way. Each publication is appended to CALLLOG as "Published N".
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
        if pending_scene is not None:
            apply_scene()
            return
        if jitter:
            for bss, base in zip(bss_objects, bss_signals):
                signal = dbus.Int16(base + (jitter if scans % 2 else -jitter), variant_level=1)
                bss.values["Signal"] = signal
                bss.PropertiesChanged(BSS, {"Signal": signal}, dbus.Array([], signature="s"))
        self.ScanDone(True)

    @dbus.service.signal(IFACE, signature="b")
    def ScanDone(self, success):
        pass

    @dbus.service.signal(IFACE, signature="oa{sv}")
    def BSSAdded(self, path, properties):
        pass

    @dbus.service.signal(IFACE, signature="o")
    def BSSRemoved(self, path):
        pass


def bss_values(b):
    raw = bytes(int(x, 16) for x in b["bssid"].split(":"))
    return {
        "BSSID": dbus.ByteArray(raw, variant_level=1),
        "SSID": dbus.ByteArray(b["ssid"].encode(), variant_level=1),
        "Signal": dbus.Int16(b["signal"], variant_level=1),
        "Frequency": dbus.UInt16(b["frequency"], variant_level=1),
        "Age": dbus.UInt32(b["age"], variant_level=1),
    }


pending_scene = None
next_bss = [0]


def apply_scene():
    """Publishes `pending_scene` as wpa_supplicant does at the end of a scan."""
    global pending_scene
    scene, pending_scene = pending_scene, None
    wanted = {b["bssid"]: b for b in scene}
    iface = keep_by_path[interface_path]
    for bssid, obj in list(bss_by_id.items()):
        if bssid not in wanted:
            del bss_by_id[bssid]
            obj.remove_from_connection()
            iface.BSSRemoved(dbus.ObjectPath(obj.path))
    for bssid, b in wanted.items():
        if bssid in bss_by_id:
            bss_by_id[bssid].values.update(bss_values(b))
            continue
        path = "%s/Interfaces/0/BSSs/%d" % (ROOT, next_bss[0])
        next_bss[0] += 1
        obj = Props(path, BSS, bss_values(b))
        obj.path = path
        bss_by_id[bssid] = obj
        iface.BSSAdded(dbus.ObjectPath(path), obj.values)
    paths = dbus.Array([dbus.ObjectPath(o.path) for o in bss_by_id.values()], signature="o", variant_level=1)
    strongest = max(scene, key=lambda b: b["signal"], default=None)
    current = dbus.ObjectPath(bss_by_id[strongest["bssid"]].path if strongest else "/", variant_level=1)
    iface.values["BSSs"] = paths
    iface.values["CurrentBSS"] = current
    iface.PropertiesChanged(IFACE, {"BSSs": paths, "CurrentBSS": current}, dbus.Array([], signature="s"))
    iface.ScanDone(True)
    with open(call_log, "a") as log:
        log.write("Published %d\n" % len(scene))


class Control(dbus.service.Object):
    """The test interface: scene changes (not part of wpa_supplicant's API)."""

    @dbus.service.method("org.locd.test.Supplicant", in_signature="si", out_signature="")
    def SetScene(self, text, delay):
        global pending_scene
        pending_scene = json.loads(text)
        if delay >= 0:
            GLib.timeout_add(int(delay * 1000), lambda: (pending_scene is not None and apply_scene()) and False)


bss_paths = []
keep = []
bss_objects, bss_signals = [], []
bss_by_id = {}
initial = json.load(open(bss_file))
for i, b in enumerate(initial):
    path = "%s/Interfaces/0/BSSs/%d" % (ROOT, i)
    keep.append(Props(path, BSS, bss_values(b)))
    keep[-1].path = path
    bss_by_id[b["bssid"]] = keep[-1]
    bss_objects.append(keep[-1])
    bss_signals.append(b["signal"])
    bss_paths.append(dbus.ObjectPath(path))
next_bss[0] = len(initial)
interface_path = ROOT + "/Interfaces/0"
strongest = max(range(len(initial)), key=lambda i: initial[i]["signal"], default=None)
keep.append(Interface(interface_path, IFACE, {
    "BSSs": dbus.Array(bss_paths, signature="o", variant_level=1),
    "Ifname": dbus.String("wlan0", variant_level=1),
    "CurrentBSS": dbus.ObjectPath(bss_paths[strongest] if strongest is not None else "/", variant_level=1),
}))
keep_by_path = {interface_path: keep[-1]}
keep.append(Control(bus, "/"))
keep.append(Props(ROOT, SERVICE, {
    "Interfaces": dbus.Array([dbus.ObjectPath(interface_path)], signature="o", variant_level=1),
}))
print("ready", flush=True)
GLib.MainLoop().run()
