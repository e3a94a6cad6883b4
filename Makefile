# vfs — make demo [KEEP=1] | make test | make bench | make install
SHELL := /bin/bash
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
DESTDIR ?=
SWIFT ?= swift
CONFIG ?= release

# The tool names, from the entries of Package.swift's tools list that open a line with ("vfs-NAME", (\x28 is "(": make would count a bare one).
TOOLS := $(shell sed -n 's/^ *\x28"\(vfs-[a-z0-9-]*\)",.*/\1/p' Package.swift)
APT_PACKAGES := libssl-dev libarchive-dev zlib1g-dev pkg-config age libarchive-tools zstd e2fsprogs mount util-linux openssl curl \
  sqlite3 nginx-light python3-pip chromium chromium-driver postgresql
# What make bench times us against, and the timers.
BENCH_PACKAGES := hyperfine time age libarchive-tools zstd coreutils secure-delete jq pass wrk nginx-light curl \
  magic-wormhole magic-wormhole-transit-relay python3-pip postgresql
# PyPI tools the tests run (pinned): schemathesis checks the relay against its OpenAPI document;
# selenium drives chromium (chromium-driver) through the relay's admin web page.
PIP_PACKAGES := schemathesis==4.32.5 selenium==4.38.0
PYTHON ?= python3
# Expanded once (:=), not on every use. DEBUG_BIN: the build make test makes, which
# make demo, make man and make completions reuse (no second, release build).
BIN := $(shell $(SWIFT) build -c $(CONFIG) --show-bin-path 2>/dev/null)
DEBUG_BIN := $(shell $(SWIFT) build --show-bin-path 2>/dev/null)
# The date the man pages carry; set it for a release (make man MAN_DATE=YYYY-MM-DD).
MAN_DATE ?= 2026-11-22

# make deps PACKAGES=… installs another list the same way (make bench does).
PACKAGES ?= $(APT_PACKAGES)

.PHONY: all deps bench-deps build test demo bench install uninstall man completions clean

all: build

# Installs what is missing, only if it is missing.
deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@if [ "$(PACKAGES)" = "$(APT_PACKAGES)" ]; then for p in $(PIP_PACKAGES); do \
	  name=$${p%%==*}; want=$${p#*==}; \
	  have=$$($(PYTHON) -m pip show "$$name" 2>/dev/null | sed -n 's/^Version: //p'); \
	  if [ "$$have" != "$$want" ]; then echo "installing: $$p (pip)"; \
	    $(PYTHON) -m pip install -q "$$p" 2>/dev/null || $(PYTHON) -m pip install -q --break-system-packages "$$p"; fi; \
	done; fi

# deps stays explicit (it may run sudo apt-get): test, demo and bench ask for it.
build:
	$(SWIFT) build -c $(CONFIG)

test: deps
	$(SWIFT) build --build-tests
	VFS_BIN_DIR=$$($(SWIFT) build --show-bin-path) $(SWIFT) test --skip-build

# The demo runs the debug build make test uses: it shows behaviour, not speed (make bench
# does that with the release build), and a fresh machine builds once instead of twice.
demo: deps
	$(SWIFT) build
	@VFS_BIN="$(DEBUG_BIN)" KEEP="$(KEEP)" bash scripts/demo.sh

bench-deps:
	@$(MAKE) --no-print-directory deps PACKAGES="$(BENCH_PACKAGES)"

bench: deps build bench-deps
	@BIN="$(BIN)" bash bench/run.sh

# Generated from the debug build (the text does not depend on the configuration).
man:
	$(SWIFT) build
	@mkdir -p man/tmp
	$(SWIFT) package --allow-writing-to-package-directory generate-manual --configuration debug --date $(MAN_DATE) --output-directory man/tmp
	@for t in $(TOOLS); do mv man/tmp/$$t.1 man/$$t.1; done; rm -rf man/tmp
	@python3 scripts/fix-man.py $(addprefix man/,$(addsuffix .1,$(TOOLS)))

completions:
	$(SWIFT) build
	@mkdir -p completions/bash completions/zsh completions/fish
	@for t in $(TOOLS); do \
	  "$(DEBUG_BIN)/$$t" --generate-completion-script bash > completions/bash/$$t; \
	  "$(DEBUG_BIN)/$$t" --generate-completion-script zsh > completions/zsh/_$$t; \
	  "$(DEBUG_BIN)/$$t" --generate-completion-script fish > completions/fish/$$t.fish; \
	done

install: build
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(BASHCOMPDIR)" "$(DESTDIR)$(ZSHCOMPDIR)" "$(DESTDIR)$(FISHCOMPDIR)"
	@for t in $(TOOLS); do \
	  install -m 0755 "$(BIN)/$$t" "$(DESTDIR)$(BINDIR)/$$t"; \
	  install -m 0644 man/$$t.1 "$(DESTDIR)$(MANDIR)/man1/$$t.1"; \
	  install -m 0644 completions/bash/$$t "$(DESTDIR)$(BASHCOMPDIR)/$$t"; \
	  install -m 0644 completions/zsh/_$$t "$(DESTDIR)$(ZSHCOMPDIR)/_$$t"; \
	  install -m 0644 completions/fish/$$t.fish "$(DESTDIR)$(FISHCOMPDIR)/$$t.fish"; \
	done
	@echo "installed $(TOOLS) under $(DESTDIR)$(PREFIX)"

uninstall:
	@for t in $(TOOLS); do \
	  rm -f "$(DESTDIR)$(BINDIR)/$$t" "$(DESTDIR)$(MANDIR)/man1/$$t.1" "$(DESTDIR)$(BASHCOMPDIR)/$$t" \
	        "$(DESTDIR)$(ZSHCOMPDIR)/_$$t" "$(DESTDIR)$(FISHCOMPDIR)/$$t.fish"; \
	done
	@echo "removed $(TOOLS) from $(DESTDIR)$(PREFIX)"

clean:
	rm -rf .build
