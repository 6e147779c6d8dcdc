# locd — the front door. See README.md.
PREFIX ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= /etc
SYSTEMDDIR ?= /usr/lib/systemd/system
SYSUSERSDIR ?= /usr/lib/sysusers.d
TMPFILESDIR ?= /usr/lib/tmpfiles.d
SWIFT ?= swift
CONFIG ?= debug
BIN := .build/$(CONFIG)
RUN_DIR := .run
# The embedded default for `make run`: a car drive recorded by a real u-blox receiver
# (GPSD regression corpus, BSD-2-Clause; see Tests/Fixtures/nmea/PROVENANCE.md).
RUN_SOURCE ?= replay:Tests/Fixtures/nmea/bt451.log?speed=1&loop=1

.PHONY: all deps deps-test build release test run bench lint format fuzz install install-files uninstall docs tzdata clean

all: build

deps:
	@scripts/deps.sh build

deps-test:
	@scripts/deps.sh test

build: deps
	$(SWIFT) build -c $(CONFIG)

release:
	@scripts/deps.sh build
	$(SWIFT) build -c release

# The run ends with a summary that names every skipped test and why (scripts/test-summary.sh).
test: deps-test lint
	$(SWIFT) build --build-tests
	@rm -f .build/test-results.xml .build/test-results-swift-testing.xml
	@status=0; $(SWIFT) test --skip-build --parallel --xunit-output .build/test-results.xml || status=$$?; \
	  scripts/test-summary.sh .build/test-results-swift-testing.xml || true; exit $$status

run: build
	@mkdir -p $(RUN_DIR)/state
	@echo "locd: socket $(RUN_DIR)/locd.sock, state $(RUN_DIR)/state; in another terminal:"
	@echo "  $(BIN)/locctl --socket $(RUN_DIR)/locd.sock status"
	$(BIN)/locd --config /dev/null --socket $(RUN_DIR)/locd.sock --state-dir $(RUN_DIR)/state \
	  --source '$(RUN_SOURCE)' --log-level info

bench:
	@scripts/deps.sh bench
	$(SWIFT) build -c release
	@bench/run.sh

lint:
	swift-format lint --strict -r Sources Tests Package.swift

format:
	swift-format format -i -r Sources Tests Package.swift

fuzz:
	@scripts/deps.sh build
	fuzz/run.sh

MAN_PAGES := docs/man/locctl.1 docs/man/locd.8 docs/man/locd.conf.5

# Every page must render without a single warning: groff -ww on its default device (which
# reports stray control bytes such as a form feed written for "\f"), again on a terminal
# 80 columns wide (lines that cannot break), and lexgrog must find the NAME line whatis uses.
docs:
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

install: release install-files

install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/locd
	install -m 0755 $(INSTALL_FROM)/locd $(DESTDIR)$(PREFIX)/bin/locd
	install -m 0755 $(INSTALL_FROM)/locctl $(DESTDIR)$(PREFIX)/bin/locctl
	@if ls data/* >/dev/null 2>&1; then install -m 0644 data/* $(DESTDIR)$(PREFIX)/share/locd/; fi
	install -d $(DESTDIR)$(SYSCONFDIR)/locd/timers.d
	@if [ ! -e $(DESTDIR)$(SYSCONFDIR)/locd/locd.conf ]; then \
	  install -m 0644 conf/locd.conf $(DESTDIR)$(SYSCONFDIR)/locd/locd.conf; fi
	install -d $(DESTDIR)$(SYSTEMDDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR)
	sed 's|@BINDIR@|$(PREFIX)/bin|g' systemd/locd.service.in > $(DESTDIR)$(SYSTEMDDIR)/locd.service
	install -m 0644 systemd/locd.socket $(DESTDIR)$(SYSTEMDDIR)/locd.socket
	install -m 0644 systemd/locd.sysusers $(DESTDIR)$(SYSUSERSDIR)/locd.conf
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0644 docs/man/locctl.1 $(DESTDIR)$(PREFIX)/share/man/man1/locctl.1
	install -m 0644 docs/man/locd.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/locd.conf.5
	install -m 0644 docs/man/locd.8 $(DESTDIR)$(PREFIX)/share/man/man8/locd.8
	@if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then systemd-sysusers $(SYSUSERSDIR)/locd.conf; fi
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/locd $(DESTDIR)$(PREFIX)/bin/locctl
	rm -rf $(DESTDIR)$(PREFIX)/share/locd
	rm -f $(DESTDIR)$(SYSTEMDDIR)/locd.service $(DESTDIR)$(SYSTEMDDIR)/locd.socket
	rm -f $(DESTDIR)$(SYSUSERSDIR)/locd.conf
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/locctl.1 $(DESTDIR)$(PREFIX)/share/man/man5/locd.conf.5 \
	  $(DESTDIR)$(PREFIX)/share/man/man8/locd.8
	@echo "uninstall: kept $(SYSCONFDIR)/locd (your configuration) and /var/lib/locd (state)"

clean:
	rm -rf .build $(RUN_DIR)
