# ppsim: a hand-written Makefile.
#   make            build build/ppsim, build/libppsim.a and build/libppsim.so (the shared
#                   library: -fPIC objects in build/pic/, only the pp_ names exported)
#   make run        build and run the demo: a 1F1B timeline
#   make test       build and run every test (unit, CLI, examples, the browser tests)
#   make asan       the whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make valgrind   the CLI tests, a fixed sample of their ppsim runs under valgrind memcheck
#   make bench      benchmarks, reported as numbers
#   make fuzz       the libFuzzer harnesses, FUZZ_SECONDS each
#   make slurm-check  a sweep and noise samples as Slurm job arrays here, merged (ppsim merge)
#   make install PREFIX=...   /   make uninstall   /   make clean   /   make format
# cJSON, CUnit and zlib come from the system through pkg-config; build-aux/ensure-deps installs
# them with apt-get when they are missing. Each target that needs more installs it the same way
# when it is missing, as root or through sudo (build-aux/apt-install.sh): make test the tools
# of TEST_TOOLS and, unless PPSIM_NO_BROWSER=1, Chromium, Node.js and npm
# (build-aux/ensure-browser); make valgrind valgrind; make fuzz clang; make format clang-format.

.DEFAULT_GOAL := all

# Settings -------------------------------------------------------------------------------------
PREFIX   ?= /usr/local
BUILD    ?= build
CC       ?= cc
OPT      ?= -O2 -g
SANITIZE ?=
WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wundef -Wwrite-strings -Wvla -Wcast-align -Wno-format-nonliteral -Werror
CFLAGS   ?=
# CLI test files run this many at a time: the CPUs this process may use, at most 2
CLI_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -gt 2 ] && n=2; echo $$n)
# make test, asan, valgrind and fuzz compile this many files at a time (the CPUs this process
# may use) before their tests run; a -jN on the command line (-j1 too) takes over
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
# the -j of such a build: none when make was given its own -j; and, but with V=1, without
# make's "is up to date" for each program already built
par = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(BUILD_JOBS)) $(if $(filter 1,$(V)),,-s)
CFLAGS   += -std=c11 -pthread $(OPT) $(WARN) $(SANITIZE)
CPPFLAGS += -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L -MMD -MP
LDFLAGS  += -pthread $(SANITIZE)
LDLIBS   += -lm
OBJCOPY  ?= objcopy
# V=1 shows every command; by default each compile prints one short line.
ifeq ($(V),1)
Q :=
else
Q = @echo "  BUILD  $@";
endif

# Sources, by layer, lowest first -------------------------------------------------------------
# A layer's files may include the headers of the layers before it, never of those after it
# (tests/cli/t_layers.sh checks; docs/architecture.md says what each layer owns). Every .c file
# in a layer's folder is built.
LAYERS      := base sched config cost engine metrics sim search serve report api
layer_src    = $(sort $(wildcard src/$(1)/*.c))
LIB_SRC     := $(foreach l,$(LAYERS),$(call layer_src,$(l)))
APP_SRC     := $(call layer_src,cli) src/main.c
UNIT_SRC    := $(sort $(wildcard tests/unit/*.c))
BENCH_SRC   := $(sort $(wildcard bench/*.c))
HEADERS     := $(sort $(wildcard include/ppsim/*.h))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
# text assets compiled into the library: the HTML report's viewer and style (build-aux/embed)
# the HTML viewer's script, one function over three files, in this order
HTML_JS   := src/report/html_data.js src/report/html_draw.js src/report/html_input.js
ASSETS    := $(HTML_JS) src/report/html.css
ASSET_OBJ := $(BUILD)/obj/gen/assets.o
LIB_OBJ   := $(call obj,$(LIB_SRC)) $(ASSET_OBJ)
APP_OBJ   := $(call obj,$(APP_SRC))
UNIT_OBJ  := $(call obj,$(UNIT_SRC))
LIB       := $(BUILD)/libppsim.a
# the shared library: the same sources built position-independent in $(BUILD)/pic/, linked with
# the version script that exports only the calls of include/ppsim/ppsim.h; SONAME
# libppsim.so.ABI (PP_ABI_VERSION in ppsim.h), the real file libppsim.so.ABI.MAJOR.MINOR.PATCH
# (include/ppsim/version.h), two symlinks
pic          = $(patsubst %.c,$(BUILD)/pic/%.o,$(1))
PIC_OBJ     := $(call pic,$(LIB_SRC)) $(BUILD)/pic/gen/assets.o
version_num  = $(shell sed -n 's/^\#define PP_VERSION_$(1)  *//p' include/ppsim/version.h)
VERSION     := $(call version_num,MAJOR).$(call version_num,MINOR).$(call version_num,PATCH)
ABI         := $(shell sed -n 's/^\#define PP_ABI_VERSION  *//p' include/ppsim/ppsim.h)
SO_NAME     := libppsim.so.$(ABI)
SO_MAP      := build-aux/libppsim.map
SO_REAL     := $(BUILD)/libppsim.so.$(ABI).$(VERSION)
SO          := $(BUILD)/libppsim.so
# a sanitizer's runtime leaves names undefined in a shared object: checked only without one
SO_DEFS     := $(if $(SANITIZE),,-Wl,-z,defs)
BIN       := $(BUILD)/ppsim
UNIT_BIN  := $(BUILD)/test_unit
JGET      := $(BUILD)/jget
# programs of the facade's calls: for the out-of-memory tests (tests/tools/api_nomem.c) and
# under a locale with a decimal comma (tests/tools/api_locale.c)
API_TOOLS := $(BUILD)/api_nomem $(BUILD)/api_locale
# the out-of-memory tests' allocation-failing shim; not with a sanitizer, which owns malloc
FAILALLOC := $(if $(SANITIZE),,$(BUILD)/failalloc.so)
BENCH_BIN := $(patsubst bench/%.c,$(BUILD)/%,$(BENCH_SRC))

# System libraries (installed on demand) ---------------------------------------------------------
NODEPS_GOALS := clean format uninstall
ifneq ($(filter-out $(NODEPS_GOALS),$(or $(MAKECMDGOALS),all)),)
include $(BUILD)/deps.mk
endif

$(BUILD)/deps.mk: build-aux/ensure-deps
	@mkdir -p $(BUILD)
	@sh build-aux/ensure-deps
	@{ echo "CJSON_CFLAGS := $$(pkg-config --cflags libcjson)"; \
	   echo "CJSON_LIBS := $$(pkg-config --libs libcjson)"; \
	   echo "CUNIT_CFLAGS := $$(pkg-config --cflags cunit)"; \
	   echo "CUNIT_LIBS := $$(pkg-config --libs cunit)"; \
	   echo "ZLIB_CFLAGS := $$(pkg-config --cflags zlib)"; \
	   echo "ZLIB_LIBS := $$(pkg-config --libs zlib)"; } > $@.tmp && mv $@.tmp $@

# zlib: the library's output files compress to gzip (a trace named *.gz)
CPPFLAGS += $(CJSON_CFLAGS) $(ZLIB_CFLAGS)
LDLIBS   += $(ZLIB_LIBS)

# Build ----------------------------------------------------------------------------------------
# the objects built through pattern chains (bench, fuzz harnesses) are kept between runs
.SECONDARY: $(call obj,$(BENCH_SRC) $(wildcard tests/fuzz/*.c))
.PHONY: all run test check unit cli test-tools asan valgrind bench fuzz fuzz-bins install uninstall \
        clean format docs gallery slurm-check FORCE
all: $(BIN) $(SO)

$(BUILD)/obj/%.o: %.c $(BUILD)/deps.mk
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/gen/assets.c: build-aux/embed $(ASSETS)
	@mkdir -p $(dir $@)
	$(Q){ sh build-aux/embed report_html_js $(HTML_JS) && \
	      sh build-aux/embed report_html_css src/report/html.css; } >$@.tmp && mv $@.tmp $@

$(ASSET_OBJ): $(BUILD)/gen/assets.c $(BUILD)/deps.mk
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/pic/%.o: %.c $(BUILD)/deps.mk
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/pic/gen/assets.o: $(BUILD)/gen/assets.c $(BUILD)/deps.mk
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

# The library is remade when a source file comes or goes, not only when one changes.
$(BUILD)/objects.list: FORCE
	@mkdir -p $(BUILD)
	@echo '$(LIB_SRC)' | cmp -s - $@ || echo '$(LIB_SRC)' >$@
FORCE:

$(LIB): $(LIB_OBJ) $(BUILD)/objects.list
	@rm -f $@
	$(Q)$(AR) rcs $@ $(LIB_OBJ)

# the static library make install puts in PREFIX/lib: the library's objects linked into one
# whose only global symbols are the calls of ppsim.h (the version script's list), as the
# shared library exports; the tree's programs and tests link $(LIB), which keeps every symbol
LIB_API := $(BUILD)/install/libppsim.a
$(LIB_API): $(LIB_OBJ) $(SO_MAP) $(BUILD)/objects.list
	@mkdir -p $(dir $@)
	@rm -f $@
	$(Q)sed -n 's/^[[:space:]]*\(pp_[a-z_]*\);$$/\1/p' $(SO_MAP) >$(BUILD)/install/api.syms && \
		$(LD) -r -o $(BUILD)/install/libppsim.o $(LIB_OBJ) && \
		$(OBJCOPY) --keep-global-symbols=$(BUILD)/install/api.syms \
			$(BUILD)/install/libppsim.o && \
		$(AR) rcs $@ $(BUILD)/install/libppsim.o

$(SO_REAL): $(PIC_OBJ) $(SO_MAP) $(BUILD)/objects.list
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(SO_NAME) -Wl,--version-script=$(SO_MAP) \
		$(SO_DEFS) -o $@ $(PIC_OBJ) $(CJSON_LIBS) $(LDLIBS)

$(SO): $(SO_REAL)
	@ln -sf $(notdir $(SO_REAL)) $(BUILD)/$(SO_NAME)
	@ln -sf $(SO_NAME) $@

$(BIN): $(APP_OBJ) $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(APP_OBJ) $(LIB) $(CJSON_LIBS) $(LDLIBS)

$(UNIT_OBJ): CPPFLAGS += $(CUNIT_CFLAGS)
$(UNIT_BIN): $(UNIT_OBJ) $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(UNIT_OBJ) $(LIB) $(CUNIT_LIBS) $(CJSON_LIBS) $(LDLIBS)

$(JGET): $(call obj,tests/tools/jget.c)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(CJSON_LIBS) $(LDLIBS)

$(API_TOOLS): $(BUILD)/api_%: $(BUILD)/obj/tests/tools/api_%.o $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(CJSON_LIBS) $(LDLIBS)

$(BUILD)/failalloc.so: tests/tools/failalloc.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -fPIC -shared -o $@ $< -ldl

$(BUILD)/bench_%: $(BUILD)/obj/bench/bench_%.o $(LIB)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(CJSON_LIBS) $(LDLIBS)

# libFuzzer harnesses (clang): built by `make fuzz` in $(BUILD)/fuzz with the library instrumented.
FUZZ_TARGETS := config schedfile requests cli shard
FUZZ_BIN     := $(patsubst %,$(BUILD)/fuzz_%,$(FUZZ_TARGETS))
FUZZ_COMMON  := $(call obj,tests/fuzz/fuzz_common.c)
$(call obj,$(wildcard tests/fuzz/*.c)): CPPFLAGS += -Itests/fuzz
$(BUILD)/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_COMMON) $(LIB) \
		$(filter-out $(call obj,src/main.c),$(APP_OBJ))
	$(Q)$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(LIB) $(CJSON_LIBS) $(LDLIBS)
fuzz-bins: $(FUZZ_BIN)

# Run and test ---------------------------------------------------------------------------------
run: $(BIN)
	./$(BIN) --schedule=1f1b -p 4 -m 8 --timeline

# the programs first, built in parallel, then the unit tests and the CLI tests (one after the
# other, or side by side under make -jN, as make runs two prerequisites)
test:
	@$(MAKE) --no-print-directory $(par) $(UNIT_BIN) $(CLI_PROGRAMS)
	@$(MAKE) --no-print-directory unit cli
check: test

unit: $(UNIT_BIN)
	./$(UNIT_BIN)

# What the CLI tests run besides ppsim, as COMMAND:PACKAGE (or /PATH:PACKAGE), installed when
# missing: xmllint checks SVG output; g++ links a C++ program against libppsim.so; Debian's
# python3, with pandas, runs the Python package's tests; zsh and fish try the completion
# scripts; strace counts a sweep's threads and taskset pins it to one CPU; man reads the man
# page; locales holds the locale sources of the locale tests; script gives a pseudo-terminal;
# readelf reads the shared library; Debian's pip installs the package in a venv (t_pip.sh) and
# mypy checks its type hints.
TEST_TOOLS := xmllint:libxml2-utils g++ /usr/bin/python3:python3 \
              /usr/lib/python3/dist-packages/pandas:python3-pandas \
              /usr/lib/python3/dist-packages/pip:python3-pip mypy zsh fish strace \
              taskset:util-linux man:man-db /usr/share/i18n/SUPPORTED:locales script:bsdutils \
              readelf:binutils
# The programs the CLI tests run: the benchmark too, for t_build's check that it refuses
# options it does not know.
CLI_PROGRAMS := $(BIN) $(SO) $(JGET) $(FAILALLOC) $(API_TOOLS) $(BENCH_BIN)

# Installs what the CLI tests run: TEST_TOOLS, and for the browser tests Chromium, Node.js and
# npm unless PPSIM_NO_BROWSER=1; when they cannot be installed, those tests say they are
# skipped (a failure under PPSIM_STRICT, as in CI).
test-tools:
	@sh build-aux/ensure-tools "ppsim test" "for the CLI tests" $(TEST_TOOLS)
	@sh build-aux/ensure-browser || echo "ppsim: no Chromium, Node.js or npm: the browser tests are skipped"

# PPSIM_SANITIZE: flags a test needs to link a program against this build's libppsim.a
cli: $(CLI_PROGRAMS) test-tools
	PPSIM_SANITIZE="$(SANITIZE)" PPSIM_FAILALLOC="$(abspath $(FAILALLOC))" CLI_JOBS=$(CLI_JOBS) \
		sh tests/cli/run.sh $(BIN) $(JGET)

asan:
	$(MAKE) BUILD=$(BUILD)/asan OPT="-O1 -g" \
		SANITIZE="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		test

# Every CLI test runs, and a fixed sample of the ppsim runs goes under valgrind: one in
# VALGRIND_SAMPLE, chosen by its arguments (always the same ones), and the first run of each
# test file and of each exit status a file expects (tests/tools/wrap-sample); VALGRIND_SAMPLE=1
# wraps them all (710 s on a loaded 2-core machine, against 154 s).
VALGRIND_SAMPLE ?= 10
valgrind:
	@$(MAKE) --no-print-directory $(par) $(CLI_PROGRAMS)
	@$(MAKE) --no-print-directory test-tools
	@sh build-aux/ensure-tools "ppsim valgrind" "for make valgrind" valgrind
	PPSIM_WRAP="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all" \
		PPSIM_WRAP_SAMPLE=$(VALGRIND_SAMPLE) CLI_JOBS=$(CLI_JOBS) \
		sh tests/cli/run.sh $(BIN) $(JGET)

# Runs a sweep as a Slurm job array on this machine, one shard a task, and checks that ppsim
# merge of the shards gives the whole sweep's bytes in each format (build-aux/slurm-check):
# installs Debian's slurm-wlm and munge when missing, starts munged, slurmctld and slurmd from a
# one-node configuration in a temporary directory and stops them after; skipped, with the
# reason in a line, when Slurm cannot be installed or started here.
slurm-check: $(BIN)
	@sh build-aux/slurm-check $(BIN)

# Prints the benchmark table and writes its figures to $(BUILD)/bench.json; then the Python
# package against the command (bench/bench_python.py, with Debian's python3 for NumPy).
bench: $(BENCH_BIN) $(BIN) $(SO)
	@for b in $(BENCH_BIN); do PPSIM_BIN=$(BIN) ./$$b $(BUILD)/bench.json || exit 1; done
	@PPSIM_BIN=$(BIN) PPSIM_LIB=$(abspath $(BUILD)/$(SO_NAME)) \
		$$([ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3) bench/bench_python.py

# Fuzzes each parser for FUZZ_SECONDS (default 60) with clang's libFuzzer, ASan and UBSan,
# starting from the seed corpora in tests/fuzz/corpus/ (installs clang and its libFuzzer
# runtime when missing: build-aux/ensure-fuzz).
# FUZZ_JOBS harnesses run at a time, each on a core.
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= $(CLI_JOBS)
fuzz:
	@sh build-aux/ensure-fuzz
	$(MAKE) BUILD=$(BUILD)/fuzz CC=clang OPT="-O1 -g" \
		SANITIZE="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
		$(par) fuzz-bins
	FUZZ_JOBS=$(FUZZ_JOBS) sh build-aux/run-fuzz $(BUILD)/fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Install --------------------------------------------------------------------------------------
# The binary, its man page and bash completion, the libraries (libppsim.so with its two
# symlinks, which -lppsim picks, and libppsim.a, both exporting ppsim.h's calls alone) with
# their interface, ppsim.h and the
# version.h it includes (the program's module headers stay in the tree), a pkg-config file
# (ppsim.pc: -lppsim; with --static, cJSON, zlib and libm too), and the Python package in
# $(PYTHON_DIR)/ppsim (docs/python.md: PYTHONPATH=$(PYTHON_DIR); `pip install .` is the other
# way, pyproject.toml).
PYTHON_DIR ?= $(PREFIX)/lib/python3/dist-packages
PY_SRC     := $(sort $(wildcard python/ppsim/*.py)) python/ppsim/py.typed
API_HEADERS := include/ppsim/ppsim.h include/ppsim/version.h
$(BUILD)/ppsim.pc: Makefile include/ppsim/version.h
	$(Q){ echo "prefix=$(PREFIX)"; echo 'libdir=$${prefix}/lib'; \
	  echo 'includedir=$${prefix}/include'; echo; echo "Name: ppsim"; \
	  echo "Description: pipeline-parallel schedule simulator (libppsim, ABI $(ABI))"; \
	  echo "Version: $(VERSION)"; echo 'Libs: -L$${libdir} -lppsim'; \
	  echo 'Libs.private: $(strip $(CJSON_LIBS) $(ZLIB_LIBS)) -lm -pthread'; \
	  echo 'Cflags: -I$${includedir}'; } >$@.tmp && mv $@.tmp $@
# the prefix is in the file: made anew by every install
.PHONY: $(BUILD)/ppsim.pc
# the completion scripts of bash, zsh and fish, where each shell looks for them
COMPLETION := $(BUILD)/ppsim.bash $(BUILD)/ppsim.zsh $(BUILD)/ppsim.fish
$(BUILD)/ppsim.%: $(BIN)
	$(Q)$(BIN) completion $* >$@.tmp && mv $@.tmp $@

install: $(BIN) $(LIB_API) $(SO) $(COMPLETION) $(BUILD)/ppsim.pc
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PYTHON_DIR)/ppsim \
		$(DESTDIR)$(PREFIX)/include/ppsim $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ppsim
	install -m 644 $(LIB_API) $(DESTDIR)$(PREFIX)/lib/libppsim.a
	install -m 755 $(SO_REAL) $(DESTDIR)$(PREFIX)/lib/$(notdir $(SO_REAL))
	ln -sf $(notdir $(SO_REAL)) $(DESTDIR)$(PREFIX)/lib/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(PREFIX)/lib/libppsim.so
	install -m 644 $(PY_SRC) $(DESTDIR)$(PYTHON_DIR)/ppsim/
	install -m 644 $(API_HEADERS) $(DESTDIR)$(PREFIX)/include/ppsim/
	install -m 644 docs/ppsim.1 $(DESTDIR)$(PREFIX)/share/man/man1/ppsim.1
	install -m 644 $(BUILD)/ppsim.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ppsim
	install -m 644 $(BUILD)/ppsim.zsh $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_ppsim
	install -m 644 $(BUILD)/ppsim.fish \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/ppsim.fish
	install -m 644 $(BUILD)/ppsim.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/ppsim.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ppsim $(DESTDIR)$(PREFIX)/lib/libppsim.a \
		$(DESTDIR)$(PREFIX)/lib/libppsim.so $(DESTDIR)$(PREFIX)/lib/$(SO_NAME) \
		$(DESTDIR)$(PREFIX)/lib/$(notdir $(SO_REAL)) \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig/ppsim.pc $(DESTDIR)$(PREFIX)/share/man/man1/ppsim.1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/ppsim \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_ppsim \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/ppsim.fish
	rm -rf $(DESTDIR)$(PREFIX)/include/ppsim $(DESTDIR)$(PYTHON_DIR)/ppsim

clean:
	rm -rf $(BUILD)

format:
	@sh build-aux/ensure-tools "ppsim format" "for make format" clang-format
	clang-format -i $(LIB_SRC) $(APP_SRC) $(UNIT_SRC) $(BENCH_SRC) $(HEADERS) \
		$(wildcard src/*/*.h tests/tools/*.c tests/fuzz/*.[ch])

-include $(shell find $(BUILD)/obj $(BUILD)/pic -name '*.d' 2>/dev/null)

# Regenerates README.md and docs/*.md from docs/src/*.in with real output (needs python3).
docs: $(BIN) $(JGET)
	python3 build-aux/gen-docs.py docs/src/*.in

# Renders docs/gallery/*.svg and *.png (headless Chromium, installed when missing).
gallery: $(BIN)
	sh build-aux/gallery $(BIN)
