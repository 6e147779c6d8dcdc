// The parts of libsystemd (Debian: libsystemd-dev) that locd uses.
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <systemd/sd-journal.h>
#include <systemd/sd-bus.h>
