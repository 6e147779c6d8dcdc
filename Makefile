# locd — the front door. See README.md.
PREFIX ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= /etc
# One prefix rule: everything under PREFIX except the configuration. systemd reads units
# and sysusers.d entries under both /usr/lib and /usr/local/lib (`systemd-analyze
# unit-paths`, `systemd-sysusers --cat-config`); for any other PREFIX set SYSTEMDDIR=
# /etc/systemd/system and SYSUSERSDIR=/etc/sysusers.d.
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
# locd-session's user unit: the user manager reads /usr/lib/systemd/user and
# /usr/local/lib/systemd/user (`systemd-analyze --user unit-paths`).
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
SWIFT ?= swift
CONFIG ?= debug
BIN := .build/$(CONFIG)
RUN_DIR ?= .run
# The embedded default for `make run` (demo/README.md): a synthetic drive from Badajoz into
# Elvas across the Spain-Portugal border at sunset, in simulated time (--clock replay) at
# the pace it was driven (RUN_SPEED), looped; each round plays one day later. The sunset
# timer of demo/timers.d fires in the first half minute and the zone changes a few seconds
# later. The drive starts when the first client subscribes (`locctl watch`).
RUN_SPEED ?= 1
RUN_SOURCE ?= replay:$(CURDIR)/demo/badajoz-elvas.nmea?speed=$(RUN_SPEED)&loop=1
RUN_ARGS = --config /dev/null --socket $(RUN_DIR)/locd.sock --state-dir $(RUN_DIR)/state \
  --timers-dir $(RUN_DIR)/timers.d --clock replay --source '$(RUN_SOURCE)' --log-level info

.PHONY: all deps deps-test build release test test-release test-system run run-build run-files run-args bench soak lint format fuzz install install-files uninstall docs tzdata clean

all: build

deps:
	@scripts/deps.sh build

deps-test:
	@scripts/deps.sh test

build: deps
	$(SWIFT) build -c $(CONFIG)

# Release binaries carry the Swift runtime (static standard library; locd uses no
# Foundation), so they run without the toolchain: only libsystemd0, libgcc-s1 and libc6
# (libstdc++ is linked in too: static-libstdc++ below).
# make bench builds the same way: it measures what ships, and switching flags would
# recompile every module.
RELEASE_FLAGS := -c release --static-swift-stdlib
release: static-libstdc++
	@scripts/deps.sh build
	$(SWIFT) build $(RELEASE_FLAGS)

# locd links the Swift runtime's libstdc++ statically in release builds (Package.swift looks
# for it here; decision 0031): the parts it uses instead of 1 MB of shared library resident.
static-libstdc++:
	@mkdir -p .build/static-libstdc++
	@a=$$(ls /usr/lib/gcc/$$(uname -m)-linux-gnu/*/libstdc++.a 2>/dev/null | sort -V | tail -n 1); \
	  if [ -f "$$a" ]; then ln -sf "$$a" .build/static-libstdc++/libstdc++.a; \
	  else echo "release: no libstdc++.a (libstdc++-12-dev): locd links libstdc++ shared"; fi

# The run ends with a summary that names every skipped test and why (scripts/test-summary.sh).
test: deps-test lint
	$(SWIFT) build --build-tests
	@rm -f .build/test-results.xml .build/test-results-swift-testing.xml
	@status=0; $(SWIFT) test --skip-build --parallel --skip SystemTier --xunit-output .build/test-results.xml || status=$$?; \
	  scripts/test-summary.sh .build/test-results-swift-testing.xml || true; exit $$status

# The suites that once passed on the debug build while the release build was wrong (issue
# 28, finding 8: Swift's optimizer dropped bits of the region index's cell keys), run
# against the release programs: what ships. After `make test` (it uses its test bundle).
RELEASE_SUITES ?= RegionDaemonTests|AppSurfaceHardeningTests|LocationManagerRegionTests
test-release: release
	LOCD_BUILD_DIR=$(CURDIR)/.build/release $(SWIFT) test --skip-build --filter '$(RELEASE_SUITES)'

# The system tier (docs/SYSTEM-TIER.md): this machine's own root booted with systemd as PID 1
# in systemd-nspawn, the package that `make deb` built installed inside, and every user
# journey run against it (install, socket activation, restart, watchdog, the automatic time
# zone through timedated and polkitd, timers starting units, the GeoClue and gpsd faces, NMEA
# out, chrony, removal). Needs root. After `make test` (its test bundle) and `make deb`.
SYSTEM_DEB ?= dist/locd_$(shell dpkg-parsechangelog -S Version 2>/dev/null)_$(shell dpkg --print-architecture).deb
test-system:
	@scripts/deps.sh system
	@[ -f "$(SYSTEM_DEB)" ] || { echo "test-system: no $(SYSTEM_DEB): run make deb first"; exit 1; }
	$(SWIFT) build --build-tests
	@rm -f .build/test-results-system.xml .build/test-results-system-swift-testing.xml
	@status=0; LOCD_SYSTEM_DEB=$(CURDIR)/$(SYSTEM_DEB) $(SWIFT) test --skip-build --filter SystemTier \
	  --xunit-output .build/test-results-system.xml || status=$$?; \
	  scripts/test-summary.sh .build/test-results-system-swift-testing.xml || true; exit $$status

# Only the two programs the demo runs: no tests, benchmarks or examples (issue 43, item 9).
run: deps run-build run-files
	@echo "locd: socket $(RUN_DIR)/locd.sock, state $(RUN_DIR)/state. The drive starts when you watch;"
	@echo "in another terminal:"
	@echo "  $(BIN)/locctl --socket $(RUN_DIR)/locd.sock watch"
	@echo "  $(BIN)/locctl --socket $(RUN_DIR)/locd.sock status"
	$(BIN)/locd $(RUN_ARGS)

run-build:
	$(SWIFT) build -c $(CONFIG) --product locd
	$(SWIFT) build -c $(CONFIG) --product locctl

# A fresh state for every run (the simulation replays the same evening, and a timer fires
# once per day), and the demo timer copied with mode 0644 whatever the umask (locd refuses
# timer files others can write).
run-files:
	@rm -rf $(RUN_DIR)/state $(RUN_DIR)/timers.d
	@mkdir -p $(RUN_DIR)
	@install -d -m 0700 $(RUN_DIR)/state
	@install -d -m 0755 $(RUN_DIR)/timers.d
	@install -m 0644 demo/timers.d/*.timer $(RUN_DIR)/timers.d/

# locd's arguments for `make run`, one a line, after preparing its files (the tests start
# the demo with exactly these).
run-args: run-files
	@printf '%s\n' $(RUN_ARGS)

bench: static-libstdc++
	@scripts/deps.sh bench
	$(SWIFT) build $(RELEASE_FLAGS)
	@bench/run.sh

# The real daemon for MINUTES minutes under load (10 Hz gpsd source restarted every minute,
# 200 clients coming and going, 20 slow readers, SIGHUP every 10 s): prints the RSS and
# descriptor curve and the status latencies, fails on growth or a status of 50 ms or more.
# The figures that count come from a release build: make soak CONFIG=release MINUTES=30.
# Then the second run (soak/commute.py): 30 simulated days of a daily commute under
# --clock replay with 100 timers, every firing checked against a schedule computed apart
# from locd (no missed, no doubled). Both run even if the first fails; either failing fails.
MINUTES ?= 30
soak: build
	@status=0; soak/soak.py $(MINUTES) $(BIN) || status=1; soak/commute.py $(BIN) || status=1; exit $$status

# swift-format, then the syscall layer's rule: no C library outside the Syscalls/ folders of
# LocClient and LocSystem and LocCore's maths file (scripts/lint-syscalls.sh, decisions 0034
# and 0038).
lint:
	swift-format lint --strict -r Sources Tests Examples Package.swift
	scripts/lint-syscalls.sh

format:
	swift-format format -i -r Sources Tests Examples Package.swift

fuzz:
	@scripts/deps.sh build
	fuzz/run.sh

MAN_PAGES := docs/man/locctl.1 docs/man/locd-session.1 docs/man/locd.8 docs/man/locd.conf.5

# Every page must render without a single warning: groff -ww on its default device (which
# reports stray control bytes such as a form feed written for "\f"), again on a terminal
# 80 columns wide (lines that cannot break), and lexgrog must find the NAME line whatis uses.
docs:
	@scripts/deps.sh docs
	@fail=0; for m in $(MAN_PAGES); do \
	  if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$$m"; then \
	    printf '%s\n' "$$m: control characters (a literal form feed where \\f was meant?):"; \
	    LC_ALL=C grep -nP '[\x00-\x08\x0b-\x1f\x7f]' "$$m" | cat -v; fail=1; fi; \
	  w=$$( { groff -k -t -man -ww -z "$$m"; groff -k -t -man -ww -z -Tutf8 -rLL=78n "$$m"; } 2>&1); \
	  if [ -n "$$w" ]; then echo "$$w"; fail=1; fi; \
	  lexgrog "$$m" >/dev/null || { echo "$$m: lexgrog finds no NAME line"; fail=1; }; \
	done; \
	if [ $$fail -ne 0 ]; then echo "docs: man pages have problems (above)"; exit 1; fi; \
	echo "docs: $(words $(MAN_PAGES)) man pages render without warnings"

tzdata:
	scripts/tzdata/generate.sh

# INSTALL_FROM: where the binaries come from; the tests install a debug build with
# `make install-files INSTALL_FROM=.build/debug DESTDIR=...` without rebuilding.
INSTALL_FROM ?= .build/release
# `install -s` drops the debug information (the unstripped binaries stay in INSTALL_FROM);
# debian/rules sets it empty so dh_strip can move it into the locd-dbgsym package.
INSTALL_STRIP ?= -s
BINDIR := $(PREFIX)/bin
DATADIR := $(PREFIX)/share/locd
MANDIR := $(PREFIX)/share/man
DOCDIR := $(PREFIX)/share/doc/locd
# The bus policies (the GeoClue2 face's, docs/GEOCLUE.md; the compass's) and the polkit rule
# for locd's user (the automatic time zone, a modem's location: polkit/50-locd.rules) go where
# dbus-daemon and polkitd read them, which no PREFIX moves: /usr/share/dbus-1/system.d and
# /usr/share/polkit-1/rules.d (the package's), or /etc/dbus-1/system.d and
# /etc/polkit-1/rules.d (the administrator's) for any other PREFIX. Neither reads
# /usr/local/share (issue 41: the face was refused by the bus after `make install`).
ifeq ($(PREFIX),/usr)
DBUSPOLICYDIR ?= /usr/share/dbus-1/system.d
POLKITRULESDIR ?= /usr/share/polkit-1/rules.d
else
DBUSPOLICYDIR ?= $(SYSCONFDIR)/dbus-1/system.d
POLKITRULESDIR ?= $(SYSCONFDIR)/polkit-1/rules.d
endif
# Shell completions, where bash-completion, zsh and fish look under PREFIX; written by the
# installed locctl's `completion` command from its command table.
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR := $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR := $(PREFIX)/share/fish/vendor_completions.d
DATA_FILES := $(filter-out data/geodesy,$(wildcard data/*))
# The licence, the notices (the ODbL one for the boundary data), the changes, and the
# guides the man pages point to.
DOC_FILES := LICENSE NOTICE NEWS $(wildcard docs/*.md)
UNIT_PATHS := /etc/systemd/system /usr/local/lib/systemd/system /usr/lib/systemd/system /lib/systemd/system
# locd-session's Settings backend for the desktop portal: xdg-desktop-portal 1.16 reads its
# .portal files from its own data directory only (/usr/share/xdg-desktop-portal/portals) or
# $XDG_DESKTOP_PORTAL_DIR; for another PREFIX the file is installed under PREFIX and make says
# so.
PORTALDIR ?= $(PREFIX)/share/xdg-desktop-portal/portals

install: release install-files

install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(SYSCONFDIR)/locd
	install -m 0755 $(INSTALL_STRIP) $(INSTALL_FROM)/locd $(INSTALL_FROM)/locctl $(INSTALL_FROM)/locd-session \
	  $(DESTDIR)$(BINDIR)/
	install -m 0644 $(DATA_FILES) $(DESTDIR)$(DATADIR)/
	install -m 0644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	@if [ ! -e $(DESTDIR)$(SYSCONFDIR)/locd/locd.conf ]; then \
	  echo "install -m 0644 conf/locd.conf $(DESTDIR)$(SYSCONFDIR)/locd/locd.conf"; \
	  install -m 0644 conf/locd.conf $(DESTDIR)$(SYSCONFDIR)/locd/locd.conf; \
	else echo "install: kept $(DESTDIR)$(SYSCONFDIR)/locd/locd.conf"; fi
	install -d $(DESTDIR)$(SYSTEMDDIR) $(DESTDIR)$(SYSUSERSDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/locd.service.in > $(DESTDIR)$(SYSTEMDDIR)/locd.service
	chmod 0644 $(DESTDIR)$(SYSTEMDDIR)/locd.service
	install -m 0644 systemd/locd.socket $(DESTDIR)$(SYSTEMDDIR)/locd.socket
	install -m 0644 systemd/locd.sysusers $(DESTDIR)$(SYSUSERSDIR)/locd.conf
	install -d $(DESTDIR)$(USERUNITDIR) $(DESTDIR)$(PORTALDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/locd-session.service.in > $(DESTDIR)$(USERUNITDIR)/locd-session.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/locd-session.service
	install -m 0644 dbus/locd.portal $(DESTDIR)$(PORTALDIR)/locd.portal
	install -d $(DESTDIR)$(DBUSPOLICYDIR) $(DESTDIR)$(DATADIR)/geoclue
	install -m 0644 dbus/org.freedesktop.GeoClue2.locd.conf $(DESTDIR)$(DBUSPOLICYDIR)/
	install -m 0644 dbus/net.hadess.SensorProxy.locd.conf $(DESTDIR)$(DBUSPOLICYDIR)/
	install -d $(DESTDIR)$(POLKITRULESDIR)
	install -m 0644 polkit/50-locd.rules $(DESTDIR)$(POLKITRULESDIR)/50-locd.rules
	install -m 0644 dbus/org.freedesktop.GeoClue2.service systemd/locd-geoclue.conf $(DESTDIR)$(DATADIR)/geoclue/
	install -d $(DESTDIR)$(DATADIR)/chrony
	install -m 0644 chrony/locd-refclock.conf $(DESTDIR)$(DATADIR)/chrony/
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 0644 docs/man/locctl.1 $(DESTDIR)$(MANDIR)/man1/locctl.1
	install -m 0644 docs/man/locd-session.1 $(DESTDIR)$(MANDIR)/man1/locd-session.1
	install -m 0644 docs/man/locd.conf.5 $(DESTDIR)$(MANDIR)/man5/locd.conf.5
	install -m 0644 docs/man/locd.8 $(DESTDIR)$(MANDIR)/man8/locd.8
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	$(INSTALL_FROM)/locctl completion bash > $(DESTDIR)$(BASHCOMPDIR)/locctl
	$(INSTALL_FROM)/locctl completion zsh > $(DESTDIR)$(ZSHCOMPDIR)/_locctl
	$(INSTALL_FROM)/locctl completion fish > $(DESTDIR)$(FISHCOMPDIR)/locctl.fish
	chmod 0644 $(DESTDIR)$(BASHCOMPDIR)/locctl $(DESTDIR)$(ZSHCOMPDIR)/_locctl $(DESTDIR)$(FISHCOMPDIR)/locctl.fish
	@case " $(UNIT_PATHS) " in *" $(SYSTEMDDIR) "*) ;; *) \
	  echo "install: note: systemd does not look for units in $(SYSTEMDDIR); set SYSTEMDDIR=/etc/systemd/system";; esac
	@case "$(PORTALDIR)" in /usr/share/xdg-desktop-portal/portals) ;; *) \
	  echo "install: note: xdg-desktop-portal 1.16 reads .portal files from /usr/share/xdg-desktop-portal/portals only; copy $(PORTALDIR)/locd.portal there for locd-session's Settings backend";; esac
	@if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then systemd-sysusers $(SYSUSERSDIR)/locd.conf; fi
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
	@# The bus reads its policies again (what Debian's dbus trigger does for a package);
	@# polkitd follows its rules folders by itself.
	@if [ -z "$(DESTDIR)" ] && [ -S /run/dbus/system_bus_socket ]; then \
	  dbus-send --system --type=method_call --dest=org.freedesktop.DBus / org.freedesktop.DBus.ReloadConfig \
	  || echo "install: could not ask dbus-daemon to read its policies again: run 'systemctl reload dbus'"; fi

# Removes every file install-files puts, and the directories only locd uses; keeps the
# configuration, the state (/var/lib/locd) and the locd user.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/locd $(DESTDIR)$(BINDIR)/locctl $(DESTDIR)$(BINDIR)/locd-session
	rm -f $(DESTDIR)$(USERUNITDIR)/locd-session.service $(DESTDIR)$(PORTALDIR)/locd.portal
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/,$(notdir $(DATA_FILES)))
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOC_FILES)))
	rm -f $(DESTDIR)$(SYSTEMDDIR)/locd.service $(DESTDIR)$(SYSTEMDDIR)/locd.socket
	rm -f $(DESTDIR)$(SYSUSERSDIR)/locd.conf
	rm -f $(DESTDIR)$(MANDIR)/man1/locctl.1 $(DESTDIR)$(MANDIR)/man1/locd-session.1 $(DESTDIR)$(MANDIR)/man5/locd.conf.5 \
	  $(DESTDIR)$(MANDIR)/man8/locd.8
	rm -f $(DESTDIR)$(DBUSPOLICYDIR)/org.freedesktop.GeoClue2.locd.conf
	rm -f $(DESTDIR)$(DBUSPOLICYDIR)/net.hadess.SensorProxy.locd.conf
	rm -f $(DESTDIR)$(POLKITRULESDIR)/50-locd.rules
	rm -f $(DESTDIR)$(DATADIR)/geoclue/org.freedesktop.GeoClue2.service $(DESTDIR)$(DATADIR)/geoclue/locd-geoclue.conf
	rm -f $(DESTDIR)$(DATADIR)/chrony/locd-refclock.conf
	rm -f $(DESTDIR)$(BASHCOMPDIR)/locctl $(DESTDIR)$(ZSHCOMPDIR)/_locctl $(DESTDIR)$(FISHCOMPDIR)/locctl.fish
	-rmdir $(DESTDIR)$(DATADIR)/geoclue $(DESTDIR)$(DATADIR)/chrony $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR) 2>/dev/null
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi
	@echo "uninstall: kept $(SYSCONFDIR)/locd (your configuration), /var/lib/locd (state) and the locd user"

# A Debian package of this tree (debian/), moved to dist/ from the parent directory where
# dpkg-buildpackage writes it: the programs, units, man pages, documentation and data.
.PHONY: deb static-libstdc++
deb:
	@scripts/deps.sh deb
	dpkg-buildpackage -us -uc -b
	@v=$$(dpkg-parsechangelog -S Version); mkdir -p dist; \
	  mv ../locd_$${v}_*.deb ../locd-dbgsym_$${v}_*.*deb ../locd_$${v}_*.buildinfo ../locd_$${v}_*.changes dist/; \
	  ls -l dist/locd*_$${v}_*

clean:
	rm -rf .build $(RUN_DIR)
