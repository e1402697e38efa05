# hum: the two commands are `make run` and `make test`; both install what they need first.
SWIFT   ?= swift
PREFIX  ?= /usr/local
DESTDIR ?=
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RUN_DEPS  := libasound2-dev libpulse-dev libsndfile1-dev libsoxr-dev libebur128-dev libsqlite3-dev libncurses-dev libsystemd-dev
TEST_DEPS := pulseaudio pulseaudio-utils libasound2-plugins alsa-utils sox ffmpeg tmux zsh fish strace \
             dbus-daemon dbus-bin playerctl systemd python3-icalendar python3-dbusmock $(DIST_DEPS) lintian appstream \
             man-db bash-completion chromium chromium-driver python3-selenium nftables firefox-esr python3-websocket syncthing
# What make dist and make deb use: strip and readelf (binutils), dpkg-shlibdeps (dpkg-dev).
DIST_DEPS := binutils dpkg-dev

.PHONY: run test build release release-check deps test-deps dist-deps stamp dist deb sounds bench clean format format-check \
	install uninstall install-shield uninstall-shield

# Installs the Debian packages that are missing (apt-get, through sudo when not root). Not as root, it lists them
# and asks first (YES=1 answers for it, for scripts); without an answer it stops and says what to install.
define install_missing
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "missing Debian packages:" $$missing; \
		if [ -n "$(SUDO)" ] && [ "$(YES)" != 1 ]; then \
			printf 'install them with sudo apt-get? [y/N] '; \
			read answer || { echo; answer=; }; \
			case "$$answer" in [yY]*) ;; *) echo "stopped: install them ('sudo apt-get install" $$missing"') or run with YES=1" >&2; exit 1 ;; esac; \
		fi; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call install_missing,$(RUN_DEPS))

test-deps: deps
	$(call install_missing,$(TEST_DEPS))

dist-deps:
	$(call install_missing,$(DIST_DEPS))

# The commit `hum --version` names: written into a gitignored Swift file before every build (scripts/stamp-commit.sh).
stamp:
	scripts/stamp-commit.sh

# The Swift runtime and Foundation linked in: loading their shared libraries (ICU above all) costs about 6 ms of
# CPU at every start, half of what a `hum status` for a status bar may take (docs/PERFORMANCE.md).
release: deps stamp
	$(SWIFT) build -c release --product hum --static-swift-stdlib

run: release
	.build/release/hum

build: deps stamp
	$(SWIFT) build

# The release tarball (dist/hum-VERSION-linux-ARCH.tar.gz, with install.sh) and the Debian package
# (dist/hum_VERSION-1_ARCH.deb), from the release binary (the scripts alone, with HUM_BIN=…, package another).
dist: release dist-deps
	scripts/dist.sh

deb: release dist-deps
	scripts/deb.sh

test: test-deps
	scripts/test.sh

# The packaging tests on the release binary (make test packages the debug one: a release build takes 5–12 minutes
# here, more than CI's budget spares): the tarball, install.sh, the shells' completions and the .deb with lintian.
release-check: release test-deps
	$(SWIFT) build --build-tests
	HUM_BIN=$(CURDIR)/.build/debug/hum HUM_RELEASE_BIN=$(CURDIR)/.build/release/hum \
		$(SWIFT) test --skip-build --filter 'ReleasePackagingTests|BinaryCopiedAloneTests'

sounds: deps
	$(SWIFT) build -c release --product hum-soundgen
	.build/release/hum-soundgen --out Sounds

bench: release test-deps
	bench/render.sh
	bench/playback.sh
	bench/playback.sh --screens
	bench/status.sh
	bench/mpris.sh
	bench/startup.sh

# swift format ships with the toolchain; .swift-format is the house style (make test checks it).
format:
	$(SWIFT) format format --in-place --recursive --configuration .swift-format Sources Tests bench

format-check:
	$(SWIFT) format lint --strict --recursive --configuration .swift-format Sources Tests bench

# Installs the binary (stripped), the built-in sounds where it finds them (PREFIX/share/hum/sounds), the manual
# page, the completions and the systemd user unit. PREFIX and DESTDIR are honoured (DESTDIR for packaging). Not for
# PREFIX=~/.local: there PREFIX/share/hum/sounds is the folder of your own sounds; the release's install.sh
# handles that prefix.
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/hum/sounds $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d $(DESTDIR)$(PREFIX)/lib/systemd/user
	install -s -m 0755 .build/release/hum $(DESTDIR)$(PREFIX)/bin/hum
	install -m 0644 Sounds/sounds.json Sounds/*.ogg $(DESTDIR)$(PREFIX)/share/hum/sounds/
	for d in Sounds/events/*/; do [ -d "$$d" ] || continue; \
		install -d $(DESTDIR)$(PREFIX)/share/hum/sounds/events/$$(basename "$$d") && \
		install -m 0644 "$$d"*.ogg $(DESTDIR)$(PREFIX)/share/hum/sounds/events/$$(basename "$$d")/ || exit 1; done
	.build/release/hum manpage > $(DESTDIR)$(PREFIX)/share/man/man1/hum.1
	.build/release/hum completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/hum
	.build/release/hum completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_hum
	.build/release/hum completions fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/hum.fish
	sed 's|@PREFIX@|$(PREFIX)|' contrib/hum.service > $(DESTDIR)$(PREFIX)/lib/systemd/user/hum.service
	# The shields' browser extension (load it unpacked from here) and its native messaging host for every user:
	# manifests in /usr/lib/mozilla, /etc/chromium and /etc/opt/chrome, the script they start in PREFIX/lib/hum.
	install -d $(DESTDIR)$(PREFIX)/share/hum/browser
	install -m 0644 contrib/browser/*.json contrib/browser/*.js contrib/browser/*.html $(DESTDIR)$(PREFIX)/share/hum/browser/
	.build/release/hum shield install-browser --system --hum $(PREFIX)/bin/hum $(if $(DESTDIR),--root $(DESTDIR))

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/hum $(DESTDIR)$(PREFIX)/share/man/man1/hum.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/hum $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_hum \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/hum.fish $(DESTDIR)$(PREFIX)/lib/systemd/user/hum.service
	rm -rf $(DESTDIR)$(PREFIX)/share/hum $(DESTDIR)$(PREFIX)/lib/hum/hum-shield-host
	rm -f $(DESTDIR)/usr/lib/mozilla/native-messaging-hosts/hum.shield.json \
		$(DESTDIR)/etc/chromium/native-messaging-hosts/hum.shield.json \
		$(DESTDIR)/etc/opt/chrome/native-messaging-hosts/hum.shield.json

# Strong mode's root helper (docs/shields.md, "Strong mode"): hum-shieldd in PREFIX/bin and its system unit in
# PREFIX/lib/systemd/system, through sudo when not root. Needs nftables. Enable it with
# 'sudo systemctl daemon-reload && sudo systemctl enable --now hum-shieldd'.
install-shield: deps stamp
	$(SWIFT) build -c release --product hum-shieldd --static-swift-stdlib
	$(SUDO) install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/systemd/system
	$(SUDO) install -s -m 0755 .build/release/hum-shieldd $(DESTDIR)$(PREFIX)/bin/hum-shieldd
	sed 's|@PREFIX@|$(PREFIX)|' contrib/hum-shieldd.service | \
		$(SUDO) install -m 0644 /dev/stdin $(DESTDIR)$(PREFIX)/lib/systemd/system/hum-shieldd.service

# Stops nothing: run 'sudo systemctl disable --now hum-shieldd' and 'sudo hum-shieldd --remove' first.
uninstall-shield:
	$(SUDO) rm -f $(DESTDIR)$(PREFIX)/bin/hum-shieldd $(DESTDIR)$(PREFIX)/lib/systemd/system/hum-shieldd.service

clean:
	rm -rf .build dist
