"""What the bench scripts with a private system bus share (modem_idle, modem_ttff, compass_cpu,
bluez_signals): a dbus-daemon configured like the system bus (method calls denied unless a
policy allows them) on a socket in the run's directory, with the stand-in's names ownable and
callable and, optionally, a directory of policy files; a wait; a process's CPU time and
wakeups from /proc."""
import os, shutil, subprocess, time

CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path=%s</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><deny own="*"/><deny send_type="method_call"/>
<allow send_type="signal"/><allow send_requested_reply="true" send_type="method_return"/>
<allow send_requested_reply="true" send_type="error"/>
<allow receive_type="method_call"/><allow receive_type="method_return"/>
<allow receive_type="error"/><allow receive_type="signal"/>
<allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
%s</policy>%s</busconfig>"""
TICKS = os.sysconf("SC_CLK_TCK")


def wait_for(predicate, timeout=60):
    """Polls `predicate` every 50 ms for `timeout` seconds; whether it became true."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def start(work, names=(), policies=()):
    """Starts dbus-daemon for `work` (a directory): `names` may be owned and called, the
    files `policies` are read as the system bus reads system.d. Returns the process and the
    environment that points clients at it (DBUS_SYSTEM_BUS_ADDRESS)."""
    sock = work + "/bus"
    rules = "".join('<allow own="%s"/><allow send_destination="%s"/>' % (n, n) for n in names)
    include = ""
    if policies:
        os.mkdir(work + "/system.d")
        for p in policies:
            shutil.copy(p, work + "/system.d/")
        include = "<includedir>%s</includedir>" % (work + "/system.d")
    open(work + "/bus.conf", "w").write(CONFIG % (sock, rules, include))
    bus = subprocess.Popen(["dbus-daemon", "--config-file=" + work + "/bus.conf", "--nofork"],
                           stderr=subprocess.DEVNULL)
    assert wait_for(lambda: os.path.exists(sock)), "dbus-daemon did not start"
    return bus, dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + sock)


def cpu_seconds(pid):
    """utime + stime of `pid` (/proc/PID/stat), seconds."""
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def switches(pid):
    """Voluntary plus involuntary context switches of `pid`: each wakeup of a sleeping process
    is one."""
    n = 0
    for line in open("/proc/%d/status" % pid):
        if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
            n += int(line.split()[1])
    return n
