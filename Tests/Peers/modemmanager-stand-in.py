#!/usr/bin/python3
"""A stand-in for ModemManager 1.20's D-Bus API (org.freedesktop.ModemManager1), for locd's
tests on a private bus configured like the system bus. It is NOT ModemManager: no modem is
probed. The interfaces it serves are read from the introspection XML Debian's
modemmanager-dev ships (/usr/share/dbus-1/interfaces): the object manager and
org.freedesktop.ModemManager1 on /org/freedesktop/ModemManager1, and on each modem object
org.freedesktop.ModemManager1.Modem and org.freedesktop.ModemManager1.Modem.Location with
every method, signal and property of the XML. What locd uses behaves as ModemManager's does:
Setup stores the enabled sources and SignalsLocation and signals them, GetLocation and the
Location property give the NMEA trace (source 4, sentences joined by CR LF), one receiver
epoch of the NMEA log a second while GPS NMEA is enabled, published at most once per
GpsRefreshRate seconds (30 until SetGpsRefreshRate changes it, as ModemManager's default). The other methods answer
org.freedesktop.ModemManager1.Error.Core.Unsupported, as ModemManager does for a modem
without the feature.

Usage: modemmanager-stand-in.py NMEALOG CALLLOG
Each Setup, SetGpsRefreshRate and GetLocation call is appended to CALLLOG ("Setup MODEM
SOURCES SIGNAL", "SetGpsRefreshRate MODEM RATE").
While 3GPP LAC/CI is enabled the Location property also holds the serving cell as
ModemManager writes it ("MCC,MNC,LAC,CI,TAC"; a made-up LTE cell, AccessTechnologies LTE),
signalled at Setup and whenever the test changes it (SetCell; "" is unregistered: no entry).
Assistance: a modem added after SetNewModemAssistance has SupportedAssistanceData and
AssistanceDataServers as given, and simulates a receiver's start: after each Setup that turns
GPS NMEA on, its traces carry no fix (RMC status V, GGA quality 0) for COLD ms, or for WARM ms
once InjectAssistanceData or SetSuplServer was called (or a fix was had since the modem
appeared: the receiver keeps its orbits). InjectAssistanceData is logged as
"InjectAssistanceData MODEM SIZE SHA256", SetSuplServer as "SetSuplServer MODEM SERVER",
each Setup that starts the receiver as "GPSStart MODEM COLD|WARM".
Driven by the test through org.locd.test.ModemStandIn on /org/locd/test (AddModem,
AddModemWithPorts, RemoveModem, SetSetupError, SetGarbage, SetSignals, SetCell,
SetNewModemAssistance). Prints "ready" once it owns the name.
"""
import hashlib
import sys
import time
import xml.etree.ElementTree as ET

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

SERVICE = "org.freedesktop.ModemManager1"
ROOT = "/org/freedesktop/ModemManager1"
XML_DIR = "/usr/share/dbus-1/interfaces/"
MANAGER = "org.freedesktop.ModemManager1"
MODEM = "org.freedesktop.ModemManager1.Modem"
LOCATION = "org.freedesktop.ModemManager1.Modem.Location"
PROPS = "org.freedesktop.DBus.Properties"
OBJECT_MANAGER = "org.freedesktop.DBus.ObjectManager"
CONTROL = "org.locd.test.ModemStandIn"
CELL_ID = 1  # MM_MODEM_LOCATION_SOURCE_3GPP_LAC_CI
GPS_RAW = 2  # MM_MODEM_LOCATION_SOURCE_GPS_RAW
NMEA = 4  # MM_MODEM_LOCATION_SOURCE_GPS_NMEA
GPS_BITS = 2 | 4 | 16 | 32 | 64

nmea_log, call_log = sys.argv[1], sys.argv[2]
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()


def record(line):
    with open(call_log, "a") as log:
        log.write(line + "\n")


def shipped(interface):
    """The <interface> element of the shipped XML."""
    tree = ET.parse(XML_DIR + interface + ".xml")
    return tree.getroot().find("interface[@name='%s']" % interface)


def epochs(path):
    """The log's sentences grouped by receiver cycle: a new group at each time-bearing
    sentence whose time differs from the group's."""
    groups, current, current_time = [], [], None
    with open(path, "rb") as f:
        for raw in f.read().decode("ascii", "replace").splitlines():
            line = raw.strip()
            if not line.startswith("$"):
                continue
            fields = line.split(",")
            kind = fields[0][3:]
            time = fields[1] if kind in ("GGA", "RMC", "GLL", "GNS", "ZDA") and len(fields) > 1 else None
            if kind == "GLL" and len(fields) > 5:
                time = fields[5]
            if time and current_time is not None and time != current_time and current:
                groups.append(current)
                current = []
            if time:
                current_time = time
            current.append(line)
    if current:
        groups.append(current)
    return groups


EPOCHS = epochs(nmea_log)
# What modems added from now on get (SetNewModemAssistance): assistance types, servers, and
# the cold and warm start delays in ms.
NEW_MODEM = {"types": 0, "servers": [], "cold": 0, "warm": 0}


def sentence(body):
    """$BODY*hh with the NMEA checksum."""
    sum = 0
    for c in body.encode():
        sum ^= c
    return "$%s*%02X" % (body, sum)


def no_fix():
    """One receiver cycle without a fix, at the current UTC time (a receiver still searching)."""
    now = time.gmtime()
    hms, dmy = time.strftime("%H%M%S.00", now), time.strftime("%d%m%y", now)
    return [sentence("GPRMC,%s,V,,,,,,,%s,,,N" % (hms, dmy)), sentence("GPGGA,%s,,,,,0,00,99.99,,,,,," % hms)]
GARBAGE = ["$GPGGA,not,a,sentence*00", "\x01\x02junk without dollar", "$GPRMC,123519,A,48xx*7F"]


def zero(sig):
    """A value of D-Bus type `sig` as an unset ModemManager property holds it."""
    if sig == "s":
        return dbus.String("")
    if sig == "o":
        return dbus.ObjectPath("/")
    if sig == "b":
        return dbus.Boolean(False)
    if sig == "u":
        return dbus.UInt32(0)
    if sig == "i":
        return dbus.Int32(0)
    if sig.startswith("a{"):
        return dbus.Dictionary({}, signature=sig[2:-1])
    if sig.startswith("a"):
        return dbus.Array([], signature=sig[1:])
    if sig.startswith("("):
        return dbus.Struct([zero(c) for c in sig[1:-1]], signature=sig[1:-1])
    raise ValueError(sig)


def methods_of(element):
    out = {}
    for m in element.findall("method"):
        ins = "".join(a.get("type") for a in m.findall("arg") if a.get("direction", "in") == "in")
        outs = "".join(a.get("type") for a in m.findall("arg") if a.get("direction") == "out")
        out[m.get("name")] = (ins, outs)
    return out


def refuse(name):
    record("%s (unsupported)" % name)
    raise dbus.exceptions.DBusException(
        "%s is not supported by the stand-in" % name, name="org.freedesktop.ModemManager1.Error.Core.Unsupported")


def unsupported(interface, name, ins, outs):
    # dbus-python matches the signature against the function's parameters: one per
    # complete type.
    params = ["a%d" % i for i in range(len(list(dbus.Signature(ins))))]
    scope = {"refuse": refuse}
    exec("def %s(self%s):\n    refuse(%r)\n" % (name, "".join(", " + p for p in params), name), scope)
    return dbus.service.method(interface, in_signature=ins, out_signature=outs)(scope[name])


class Served(dbus.service.Object):
    """An object with properties (Get, GetAll, Set refused; PropertiesChanged), listed in its
    introspection data as the XML lists them."""

    def __init__(self, path, interfaces):
        super().__init__(bus, path)
        self.elements = {name: shipped(name) for name in interfaces}
        self.props = {
            name: {p.get("name"): zero(p.get("type")) for p in e.findall("property")}
            for name, e in self.elements.items()
        }

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface, prop):
        if prop not in self.props.get(interface, {}):
            raise dbus.exceptions.DBusException("no such property", name="org.freedesktop.DBus.Error.InvalidArgs")
        return self.props[interface][prop]

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return dbus.Dictionary(self.props.get(interface, {}), signature="sv")

    @dbus.service.method(PROPS, in_signature="ssv", out_signature="")
    def Set(self, interface, prop, value):
        raise dbus.exceptions.DBusException("read-only", name="org.freedesktop.DBus.Error.PropertyReadOnly")

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def change(self, interface, values):
        self.props[interface].update(values)
        self.PropertiesChanged(interface, dbus.Dictionary(values, signature="sv"), dbus.Array([], signature="s"))

    @dbus.service.method(dbus.INTROSPECTABLE_IFACE, in_signature="", out_signature="s",
                         path_keyword="object_path", connection_keyword="connection")
    def Introspect(self, object_path, connection):
        # dbus-python lists the methods and signals it serves; the properties are this
        # object's own table, added to each interface.
        root = ET.fromstring(super().Introspect(object_path, connection))
        for element in root.findall("interface"):
            for name, value in self.props.get(element.get("name"), {}).items():
                ET.SubElement(element, "property", name=name, type=signature_of(element.get("name"), name), access="read")
        return '<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"\n' \
            ' "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">\n' + ET.tostring(root, encoding="unicode")


def signature_of(interface, prop):
    e = shipped(interface).find("property[@name='%s']" % prop)
    return e.get("type")


def signal(interface, element):
    sig = "".join(a.get("type") for a in element.findall("arg"))
    params = ["a%d" % i for i in range(len(list(dbus.Signature(sig))))]
    scope = {}
    exec("def %s(self%s):\n    pass\n" % (element.get("name"), "".join(", " + p for p in params)), scope)
    return dbus.service.signal(interface, signature=sig)(scope[element.get("name")])


def with_unsupported(name, base, interfaces, implemented):
    """A class `base` with every XML method of `interfaces` it does not implement added as
    Unsupported, and every XML signal (declared; the stand-in never changes a modem's state)."""
    body = {}
    for interface in interfaces:
        for method, (ins, outs) in methods_of(shipped(interface)).items():
            if method not in implemented:
                body[method] = unsupported(interface, method, ins, outs)
        for element in shipped(interface).findall("signal"):
            body[element.get("name")] = signal(interface, element)
    return type(name, (base,), body)


class ModemBase(Served):
    def __init__(self, number, equipment, capabilities):
        super().__init__("%s/Modem/%d" % (ROOT, number), [MODEM, LOCATION])
        self.number = number
        self.setup_error = ""
        self.garbage = False
        self.honours_signals = True
        self.next_epoch = 0
        self.timer = None
        m = self.props[MODEM]
        m["EquipmentIdentifier"] = dbus.String(equipment)
        m["Manufacturer"] = dbus.String("QUALCOMM INCORPORATED")
        m["Model"] = dbus.String("QUECTEL Mobile Broadband Module")
        m["State"] = dbus.Int32(6)  # MM_MODEM_STATE_ENABLED: no SIM, no data connection
        m["Plugin"] = dbus.String("quectel")
        m["AccessTechnologies"] = dbus.UInt32(1 << 14)  # MM_MODEM_ACCESS_TECHNOLOGY_LTE
        # MCC,MNC,LAC,CI,TAC as ModemManager writes the 3GPP value (a made-up LTE cell with
        # no CS registration: LAC FFFE).
        self.cell = "242,01,FFFE,1A2B3C4,A1"
        self.trace = None
        loc = self.props[LOCATION]
        loc["SupportedAssistanceData"] = dbus.UInt32(NEW_MODEM["types"])
        loc["AssistanceDataServers"] = dbus.Array([dbus.String(s) for s in NEW_MODEM["servers"]], signature="s")
        self.cold, self.warm = NEW_MODEM["cold"], NEW_MODEM["warm"]
        self.assisted = False
        self.first_fix_at = None
        self.props[LOCATION]["Capabilities"] = dbus.UInt32(capabilities)
        # ModemManager's default (MM_LOCATION_GPS_REFRESH_TIME_SECS): the GPS values are
        # published at most once per 30 s until a client sets another rate; 0 publishes each.
        self.props[LOCATION]["GpsRefreshRate"] = dbus.UInt32(30)
        self.last_published = None

    @dbus.service.method(LOCATION, in_signature="ub", out_signature="")
    def Setup(self, sources, signal_location):
        record("Setup %d %d %s" % (self.number, sources, "true" if signal_location else "false"))
        if self.setup_error:
            raise dbus.exceptions.DBusException(self.setup_error, name="org.freedesktop.ModemManager1.Error.Core.Failed")
        capabilities = int(self.props[LOCATION]["Capabilities"])
        if sources & ~capabilities:
            raise dbus.exceptions.DBusException(
                "Cannot enable unsupported location sources", name="org.freedesktop.ModemManager1.Error.Core.Unsupported")
        signals = bool(signal_location) and self.honours_signals
        self.change(LOCATION, {"Enabled": dbus.UInt32(sources), "SignalsLocation": dbus.Boolean(signals)})
        if not sources & NMEA:
            self.trace = None
        self.publish()
        if sources & NMEA and self.timer is None:
            delay = self.warm if self.assisted else self.cold
            record("GPSStart %d %s" % (self.number, "WARM" if self.assisted else "COLD"))
            self.first_fix_at = GLib.get_monotonic_time() / 1e6 + delay / 1000.0
            self.timer = GLib.timeout_add(1000, self.play)
        elif not sources & NMEA and self.timer is not None:
            GLib.source_remove(self.timer)
            self.timer = None

    @dbus.service.method(LOCATION, in_signature="u", out_signature="")
    def SetGpsRefreshRate(self, rate):
        record("SetGpsRefreshRate %d %d" % (self.number, rate))
        self.change(LOCATION, {"GpsRefreshRate": dbus.UInt32(rate)})

    @dbus.service.method(LOCATION, in_signature="ay", out_signature="")
    def InjectAssistanceData(self, data):
        raw = bytes(bytearray(data))
        record("InjectAssistanceData %d %d %s" % (self.number, len(raw), hashlib.sha256(raw).hexdigest()))
        if not int(self.props[LOCATION]["SupportedAssistanceData"]):
            raise dbus.exceptions.DBusException(
                "Assistance data not supported", name="org.freedesktop.ModemManager1.Error.Core.Unsupported")
        self.assisted = True

    @dbus.service.method(LOCATION, in_signature="s", out_signature="")
    def SetSuplServer(self, supl):
        record("SetSuplServer %d %s" % (self.number, supl))
        self.change(LOCATION, {"SuplServer": dbus.String(supl)})
        self.assisted = True

    @dbus.service.method(LOCATION, in_signature="", out_signature="a{uv}")
    def GetLocation(self):
        record("GetLocation %d" % self.number)
        return self.props[LOCATION]["Location"]

    def play(self):
        rate = int(self.props[LOCATION]["GpsRefreshRate"])
        now = GLib.get_monotonic_time() / 1e6
        if rate and self.last_published is not None and now - self.last_published < rate - 0.05:
            self.next_epoch += 1  # the receiver goes on; ModemManager holds its values back
            return True
        self.last_published = now
        if self.garbage:
            # Each one different, as a real modem's output would be.
            lines = GARBAGE + ["$GPGGA,%d,junk*00" % self.next_epoch]
            self.next_epoch += 1
        elif self.first_fix_at is not None and now < self.first_fix_at:
            lines = no_fix()  # still searching: no orbits yet (cold) or being given them
        else:
            lines = EPOCHS[self.next_epoch % len(EPOCHS)]
            self.next_epoch += 1
            self.assisted = True  # a fix: the receiver keeps what it learnt
        self.trace = "\r\n".join(lines)
        self.publish()
        return True

    def publish(self):
        """The Location property as the enabled sources give it, signalled if SignalsLocation."""
        entries = {}
        enabled = int(self.props[LOCATION]["Enabled"])
        if enabled & NMEA and self.trace is not None:
            entries[dbus.UInt32(NMEA)] = dbus.String(self.trace, variant_level=1)
        if enabled & CELL_ID and self.cell:
            entries[dbus.UInt32(CELL_ID)] = dbus.String(self.cell, variant_level=1)
        if enabled & GPS_RAW and self.trace is not None:
            raw = dbus.Dictionary({"latitude": dbus.Double(47.662), "longitude": dbus.Double(-122.326)}, signature="sv")
            entries[dbus.UInt32(GPS_RAW)] = dbus.Dictionary(raw, signature="sv", variant_level=1)
        value = dbus.Dictionary(entries, signature="uv")
        self.props[LOCATION]["Location"] = value
        if self.props[LOCATION]["SignalsLocation"]:
            self.change(LOCATION, {"Location": value})

    def interfaces(self):
        return dbus.Dictionary({i: dbus.Dictionary(p, signature="sv") for i, p in self.props.items()}, signature="sa{sv}")

    def gone(self):
        if self.timer is not None:
            GLib.source_remove(self.timer)
        self.remove_from_connection()


Modem = with_unsupported(
    "Modem", ModemBase, [MODEM, LOCATION],
    {"Setup", "GetLocation", "SetGpsRefreshRate", "InjectAssistanceData", "SetSuplServer"})


class ManagerBase(Served):
    def __init__(self):
        super().__init__(ROOT, [MANAGER])
        self.props[MANAGER]["Version"] = dbus.String("1.20.4")
        self.modems = {}

    @dbus.service.method(MANAGER, in_signature="", out_signature="")
    def ScanDevices(self):
        record("ScanDevices")

    @dbus.service.method(OBJECT_MANAGER, in_signature="", out_signature="a{oa{sa{sv}}}")
    def GetManagedObjects(self):
        return dbus.Dictionary({m.__dbus_object_path__: m.interfaces() for m in self.modems.values()}, signature="oa{sa{sv}}")

    @dbus.service.signal(OBJECT_MANAGER, signature="oa{sa{sv}}")
    def InterfacesAdded(self, path, interfaces):
        pass

    @dbus.service.signal(OBJECT_MANAGER, signature="oas")
    def InterfacesRemoved(self, path, interfaces):
        pass


Manager = with_unsupported("Manager", ManagerBase, [MANAGER], {"ScanDevices"})
manager = Manager()


class Control(dbus.service.Object):
    """The test's handle on the stand-in (not part of ModemManager's API)."""

    def modem(self, number):
        return manager.modems[int(number)]

    @dbus.service.method(CONTROL, in_signature="usuu", out_signature="")
    def AddModem(self, number, equipment, capabilities, enabled):
        modem = Modem(int(number), str(equipment), int(capabilities))
        modem.props[LOCATION]["Enabled"] = dbus.UInt32(enabled)
        manager.modems[int(number)] = modem
        manager.InterfacesAdded(modem.__dbus_object_path__, modem.interfaces())

    @dbus.service.method(CONTROL, in_signature="usuua(su)", out_signature="")
    def AddModemWithPorts(self, number, equipment, capabilities, enabled, ports):
        """AddModem, with the Ports property (name under /dev, MMModemPortType) it has from
        the start, as ModemManager fills it in when it probes the modem."""
        modem = Modem(int(number), str(equipment), int(capabilities))
        modem.props[LOCATION]["Enabled"] = dbus.UInt32(enabled)
        modem.props[MODEM]["Ports"] = dbus.Array(
            [dbus.Struct((dbus.String(n), dbus.UInt32(t)), signature="su") for n, t in ports], signature="(su)")
        manager.modems[int(number)] = modem
        manager.InterfacesAdded(modem.__dbus_object_path__, modem.interfaces())

    @dbus.service.method(CONTROL, in_signature="u", out_signature="")
    def RemoveModem(self, number):
        modem = manager.modems.pop(int(number))
        path = modem.__dbus_object_path__
        modem.gone()
        manager.InterfacesRemoved(path, dbus.Array([MODEM, LOCATION], signature="s"))

    @dbus.service.method(CONTROL, in_signature="us", out_signature="")
    def SetSetupError(self, number, text):
        self.modem(number).setup_error = str(text)

    @dbus.service.method(CONTROL, in_signature="ub", out_signature="")
    def SetGarbage(self, number, on):
        self.modem(number).garbage = bool(on)

    @dbus.service.method(CONTROL, in_signature="ub", out_signature="")
    def SetSignals(self, number, on):
        self.modem(number).honours_signals = bool(on)

    @dbus.service.method(CONTROL, in_signature="uasuu", out_signature="")
    def SetNewModemAssistance(self, types, servers, cold, warm):
        NEW_MODEM.update(types=int(types), servers=[str(s) for s in servers], cold=int(cold), warm=int(warm))

    @dbus.service.method(CONTROL, in_signature="us", out_signature="")
    def SetCell(self, number, text):
        modem = self.modem(number)
        modem.cell = str(text)
        modem.publish()


control = Control(bus, "/org/locd/test")
name = dbus.service.BusName(SERVICE, bus)
print("ready", flush=True)
GLib.MainLoop().run()
