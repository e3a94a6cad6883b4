# vfs — make demo [KEEP=1] | make test | make bench | make install | make deb | make fuzz | make sanitize
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
# The build's flags, the same for make build, make test, make demo and make bench, so
# that make test compiles every object once and its tests start the very files make
# install copies:
# - no debug information: SwiftPM compiles a release with -g, which make install strips
#   anyway (install -s), and it costs build time on every clean clone. Crash reports
#   still name functions (the symbol table stays until install strips it).
# - -enable-testing: the test modules' `@testable import`s need it, and a release build of
#   the tests compiled without it would compile the libraries a second time. It keeps
#   internal declarations visible to other modules (so the optimiser keeps them and
#   cannot change their signatures); within each module, whole-module optimisation, inlining
#   and the early releases that once let OpenSSL read freed numbers (issue 42) are as
#   without it. Its cost in bench/ has not been measured (it needs a second whole build).
# Swift's standard library and Foundation are linked into every tool by Package.swift (its
# staticSwift link settings, release only), not by --static-swift-stdlib: that flag changes
# every compile command and cannot build the tests (Swift Testing has no static library).
# BUILD_FLAGS= builds as a plain `swift build -c release` does.
BUILD_FLAGS ?= -Xswiftc -gnone -Xswiftc -enable-testing
STRIP ?= strip
READELF ?= readelf

# The tool names, from the entries of Package.swift's tools list that open a line with ("vfs-NAME", (\x28 is "(": make would count a bare one).
TOOLS := $(shell sed -n 's/^ *\x28"\(vfs-[a-z0-9-]*\)",.*/\1/p' Package.swift)
APT_PACKAGES := libssl-dev libarchive-dev zlib1g-dev pkg-config age libarchive-tools zstd e2fsprogs mount util-linux openssl curl \
  sqlite3 nginx-light python3-pip chromium chromium-driver dpkg-dev systemd postgresql \
  radosgw ceph-mon ceph-osd ceph-common
# What make bench times us against, and the timers.
BENCH_PACKAGES := hyperfine time age libarchive-tools zstd coreutils secure-delete jq pass wrk nginx-light curl \
  magic-wormhole magic-wormhole-transit-relay python3-pip postgresql
# PyPI tools the tests run (pinned): schemathesis checks the relay against its OpenAPI document;
# selenium drives chromium (chromium-driver) through the relay's admin web page; tuspy is
# the tus client the relay's uploads are tried with, sseclient-py the event-stream client
# its /v1/events is read with (Tests/tools/sse-conformance.py); prometheus_client's parser reads the
# relay's /metrics (Tests/tools/check-metrics.py); openapi-spec-validator checks the
# OpenAPI document (Tests/tools/check-openapi.py).
PIP_PACKAGES := schemathesis==4.32.5 selenium==4.38.0 tuspy==1.1.0 sseclient-py==1.8.0 prometheus_client==0.26.0 openapi-spec-validator==0.9.0
PYTHON ?= python3
# BIN: the release build make build makes, make install and make deb copy, make demo runs,
# make test runs (the test runner and every tool it starts), and make man and make
# completions read.
# Plain paths, not `swift build --show-bin-path`: that may resolve packages and write under
# .build, and `sudo make install` must write nothing in the tree.
BIN := $(CURDIR)/.build/$(CONFIG)
# The flags of make sanitize-thread's debug build: no debug information, which cuts a
# clean build by about an eighth (861 to 748 s on 2 cores).
DEBUG_FLAGS ?= -Xswiftc -gnone
# Where make deb writes vfs_VERSION_ARCH.deb, and the folder it stages the package in.
DEB_OUT ?= $(CURDIR)
DEB_STAGE ?= $(CURDIR)/.build/deb
DEB_COMPRESSION ?= xz
# The date the man pages carry; set it for a release (make man MAN_DATE=YYYY-MM-DD).
MAN_DATE ?= 2026-11-22

# make deps PACKAGES=… installs another list the same way (make bench does).
PACKAGES ?= $(APT_PACKAGES)

.PHONY: all deps check-build-deps bench-deps build test demo bench install uninstall deb man completions clean fuzz fuzz-build fuzz-release

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

# What the compile links, checked before it starts: pkg-config module:Debian package.
# A missing one is named with its package and `make deps` (not left to the compiler's
# "'archive.h' file not found").
BUILD_DEPS := libcrypto:libssl-dev libarchive:libarchive-dev zlib:zlib1g-dev

check-build-deps:
	@if ! command -v pkg-config >/dev/null 2>&1; then \
	  echo "make: error: pkg-config is missing (the build finds its libraries with it)" >&2; \
	  echo "make: hint: run \`make deps\`, or: sudo apt-get install pkg-config $(foreach d,$(BUILD_DEPS),$(lastword $(subst :, ,$(d))))" >&2; \
	  exit 1; fi; \
	missing=""; for d in $(BUILD_DEPS); do pkg-config --exists "$${d%%:*}" || missing="$$missing $${d#*:}"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make: error: missing what the build links:$$missing (Debian packages)" >&2; \
	  echo "make: hint: run \`make deps\` (it installs them with apt-get), or: sudo apt-get install$$missing" >&2; \
	  exit 1; fi

# deps stays explicit (it may run sudo apt-get): test, demo and bench ask for it.
build: check-build-deps
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS)

# The suites run as four processes at once (scripts/test-shards.sh says why); SHARDS=1
# runs them in one, as `swift test -c release --skip-build` does. One build: the tests are
# compiled beside the tools with make build's own flags, so every object make build would
# make is compiled once, and every test that starts a tool starts make build's file (through
# VFS_BIN_DIR), the one make install copies. CONFIG=debug runs the suites on a debug build
# (tools linked to the toolchain's libraries; the packaging tests relink them as make
# build links: packaging/relink-static.sh).
test: deps check-build-deps
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS) --build-tests
	VFS_BIN_DIR="$(BIN)" bash scripts/test-shards.sh "$(BIN)/vfsPackageTests.xctest"

# The demo runs the release build (make build's), the binaries make install copies.
demo: deps check-build-deps
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS)
	@VFS_BIN="$(BIN)" KEEP="$(KEEP)" bash scripts/demo.sh

# Memory and thread safety checked by tools, not by luck (docs/memory-safety.md): every
# suite against a build with AddressSanitizer, optimised as make build compiles (the
# optimiser's early releases are what once let OpenSSL read freed numbers), and the
# concurrent parts against a build with ThreadSanitizer; the tests' tools are those builds'
# too. Each build has its own folder. Not part of make test (two more whole builds, about
# 25 and 15 minutes on 2 cores): run it before a release and after a change to code that
# hands pointers to C. Any sanitizer report fails it (scripts/sanitize.sh).
ASAN_BUILD := .build-asan
TSAN_BUILD := .build-tsan
.PHONY: sanitize sanitize-address sanitize-thread
sanitize: sanitize-address sanitize-thread

# VFS_SHARED_SWIFT=1: the sanitized tools link Swift's libraries as shared ones. The release
# link's -static-stdlib passes --exclude-libs ALL, which hides the static ASan runtime's
# malloc and free from the dynamic symbol table: glibc then allocates with its own malloc
# (getline's buffer, CoreFoundation's locale names) and our free goes to ASan's, so every
# such pair reports a bad-free that the plain release build does not have (valgrind: no
# error). docs/memory-safety.md has the whole finding.
sanitize-address: deps check-build-deps
	VFS_SHARED_SWIFT=1 $(SWIFT) build -c release --build-tests -Xswiftc -enable-testing --sanitize=address --scratch-path $(ASAN_BUILD)
	bash scripts/sanitize.sh address "$(CURDIR)/$(ASAN_BUILD)/release"

sanitize-thread: deps check-build-deps
	$(SWIFT) build $(DEBUG_FLAGS) --build-tests --sanitize=thread --scratch-path $(TSAN_BUILD)
	bash scripts/sanitize.sh thread "$(CURDIR)/$(TSAN_BUILD)/debug"

bench-deps:
	@$(MAKE) --no-print-directory deps PACKAGES="$(BENCH_PACKAGES)"

bench: deps build bench-deps
	@BIN="$(BIN)" bash bench/run.sh

# Generated from make build's tools: each
# tool's own description (--experimental-dump-help) laid out as a man page by
# scripts/make-man.py, with docs/man/TOOL.txt for sections --help leaves out, into
# man/man1/ (so MANPATH=man man vfs-encrypt finds it). man/man7/vfs.7, the overview,
# is written by hand.
man:
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS)
	@for t in $(TOOLS); do \
	  python3 scripts/make-man.py --date $(MAN_DATE) --tools "$(TOOLS)" $$t "$(BIN)/$$t" > man/man1/$$t.1.tmp && mv man/man1/$$t.1.tmp man/man1/$$t.1 || exit 1; \
	done

completions:
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS)
	@mkdir -p completions/bash completions/zsh completions/fish
	@for t in $(TOOLS); do \
	  "$(BIN)/$$t" --generate-completion-script bash > completions/bash/$$t; \
	  "$(BIN)/$$t" --generate-completion-script zsh > completions/zsh/_$$t; \
	  "$(BIN)/$$t" --generate-completion-script fish > completions/fish/$$t.fish; \
	done

# Fuzzing (libFuzzer, with the address sanitizer): the harness (fuzz-harness) exists only with
# VFS_FUZZ=1 and is built in its own folder, so normal builds are unaffected. Optimised
# (release) because fuzzing lives on executions per second. Each target runs FUZZ_TIME
# seconds, one after another, under nice; see scripts/fuzz.sh and docs/fuzzing.md.
# swiftc 6.3 drops the coverage instrumentation of Swift code in two cases, which left
# every Swift parser unguided (only swift-crypto's C was counted): -sanitize=fuzzer together
# with -sanitize=address instruments nothing unless -sanitize-coverage is given, and
# multi-threaded whole-module optimisation (SwiftPM's release default) instruments only the
# first file of a module. Hence the explicit coverage kinds and no whole-module mode;
# scripts/fuzz.sh fails a target whose run finds no coverage at all.
FUZZ_TIME ?= 60
FUZZ_BUILD := .build-fuzz
FUZZ_SWIFTC := -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp -Xswiftc -no-whole-module-optimization
FUZZ_FLAGS := -c release --product fuzz-harness --sanitize=fuzzer --sanitize=address $(FUZZ_SWIFTC) --build-path $(FUZZ_BUILD)
CCTV ?= ../shared/testdata/cctv-age

fuzz-build:
	VFS_FUZZ=1 nice -n 10 $(SWIFT) build $(FUZZ_FLAGS)

fuzz: fuzz-build
	FUZZ_BIN="$$(VFS_FUZZ=1 $(SWIFT) build $(FUZZ_FLAGS) --show-bin-path)/fuzz-harness" FUZZ_TIME=$(FUZZ_TIME) \
	  FUZZ_DIR=$(FUZZ_BUILD) CCTV=$(CCTV) bash scripts/fuzz.sh

# The same targets on the release build's optimiser (whole-module -O, which the coverage
# build above gives up): the harness built that way with the address sanitizer replays
# every input make fuzz kept, every seed and crasher, then mutates from them for
# FUZZ_TIME seconds a target (docs/fuzzing.md).
FUZZ_RELEASE_BUILD := .build-fuzz-release
FUZZ_RELEASE_FLAGS := -c release --product fuzz-harness --sanitize=fuzzer --sanitize=address --build-path $(FUZZ_RELEASE_BUILD)

fuzz-release:
	VFS_FUZZ=1 nice -n 10 $(SWIFT) build $(FUZZ_RELEASE_FLAGS)
	FUZZ_BIN="$(CURDIR)/$(FUZZ_RELEASE_BUILD)/release/fuzz-harness" FUZZ_TIME=$(FUZZ_TIME) FUZZ_REPLAY=1 \
	  FUZZ_DIR=$(FUZZ_BUILD) CCTV=$(CCTV) bash scripts/fuzz.sh

# Copies an existing build (BIN, the release build by default) and never builds: run
# `make build` first as yourself; `sudo make install` then writes nothing in the tree.
# Refuses a missing build, and binaries that load the toolchain's Swift libraries.
# Binaries are stripped on the way (the build keeps its symbols).
install:
	@missing=""; for t in $(TOOLS); do [ -x "$(BIN)/$$t" ] || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make install: error: nothing built to install: no$$missing in \"$(BIN)\"" >&2; \
	  echo "make install: hint: run \`make build\` first, as yourself (make install never builds)" >&2; \
	  exit 1; fi; \
	for t in $(TOOLS); do \
	  if $(READELF) -d "$(BIN)/$$t" | grep -q 'NEEDED.*libswiftCore'; then \
	    echo "make install: error: \"$(BIN)/$$t\" loads the Swift toolchain's libraries (not built by make build)" >&2; \
	    echo "make install: hint: run \`make build\` (a release build links them statically)" >&2; \
	    exit 1; fi; \
	done
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man7" "$(DESTDIR)$(BASHCOMPDIR)" "$(DESTDIR)$(ZSHCOMPDIR)" "$(DESTDIR)$(FISHCOMPDIR)"
	@for t in $(TOOLS); do \
	  install -m 0755 -s --strip-program="$(STRIP)" "$(BIN)/$$t" "$(DESTDIR)$(BINDIR)/$$t" || exit 1; \
	  install -m 0644 man/man1/$$t.1 "$(DESTDIR)$(MANDIR)/man1/$$t.1" || exit 1; \
	  install -m 0644 completions/bash/$$t "$(DESTDIR)$(BASHCOMPDIR)/$$t" || exit 1; \
	  install -m 0644 completions/zsh/_$$t "$(DESTDIR)$(ZSHCOMPDIR)/_$$t" || exit 1; \
	  install -m 0644 completions/fish/$$t.fish "$(DESTDIR)$(FISHCOMPDIR)/$$t.fish" || exit 1; \
	done
	install -m 0644 man/man7/vfs.7 "$(DESTDIR)$(MANDIR)/man7/vfs.7"
	@echo "installed $(TOOLS) under $(DESTDIR)$(PREFIX)"

uninstall:
	@for t in $(TOOLS); do \
	  rm -f "$(DESTDIR)$(BINDIR)/$$t" "$(DESTDIR)$(MANDIR)/man1/$$t.1" "$(DESTDIR)$(BASHCOMPDIR)/$$t" \
	        "$(DESTDIR)$(ZSHCOMPDIR)/_$$t" "$(DESTDIR)$(FISHCOMPDIR)/$$t.fish"; \
	done
	@rm -f "$(DESTDIR)$(MANDIR)/man7/vfs.7"
	@echo "removed $(TOOLS) from $(DESTDIR)$(PREFIX)"

# A Debian package of the same build (never builds either): make install into a staging
# folder, plus the systemd units and maintainer scripts of packaging/; Depends computed
# by dpkg-shlibdeps from what the binaries load. Then: apt install ./vfs_*.deb
deb:
	@rm -rf "$(DEB_STAGE)"
	@$(MAKE) --no-print-directory install DESTDIR="$(DEB_STAGE)/root" PREFIX=/usr \
	  ZSHCOMPDIR=/usr/share/zsh/vendor-completions BIN="$(BIN)" >/dev/null
	@DEB_COMPRESSION=$(DEB_COMPRESSION) bash packaging/deb.sh "$(DEB_STAGE)" "$(DEB_OUT)" $(TOOLS)

clean:
	rm -rf .build $(FUZZ_BUILD) $(FUZZ_RELEASE_BUILD) $(ASAN_BUILD) $(TSAN_BUILD)
