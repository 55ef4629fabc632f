# hta-sqlite. `make` builds ./hta-ingest and ./hta.so; `make test` runs every test.
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
DEFS    := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
LIBS    := -lsqlite3 -lz -lpthread -lm
BUILD   := build
BIN     := .
SAN     :=
# Parallel by default, one job per core: ext/ is compiled twice (linked into hta-ingest and
# as hta.so), which a serial build takes over a minute for. An explicit -jN wins.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

VERSION := $(shell cat VERSION)
COMMIT  := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

INGEST_SRC := $(filter-out ingest/main.c,$(wildcard ingest/*.c))
EXT_SRC    := $(wildcard ext/*.c ext/*/*.c)
INGEST_OBJ := $(INGEST_SRC:%.c=$(BUILD)/%.o)
# The io entry point (ext/io/*.c) re-reads traces with the ingest reader and tokenizer.
EXT_INGEST := ingest/reader.c ingest/json.c
EXT_PIC    := $(EXT_SRC:%.c=$(BUILD)/pic/%.o) $(EXT_INGEST:%.c=$(BUILD)/pic/%.o)
# The extension linked statically (SQLITE_CORE) into the CLI and the C tests.
EXT_CORE   := $(EXT_SRC:%.c=$(BUILD)/core/%.o)

ALL_CFLAGS = $(WARN) $(DEFS) $(CFLAGS) $(SAN) -I$(BUILD) -Iingest -Iext

.SECONDARY:
.PHONY: all clean test test-build test-asan test-valgrind bench demo format lint
INGEST := $(BIN)/hta-ingest
EXT    := $(BIN)/hta.so
export HTA_INGEST := $(abspath $(INGEST))
export HTA_EXT    := $(abspath $(EXT))
export HTA_BUILD  := $(abspath $(BUILD))

all: $(INGEST) $(EXT)

$(BUILD)/version.h: VERSION
	@mkdir -p $(@D)
	printf '#define HTA_VERSION "v%s"\n#define HTA_COMMIT "%s"\n' "$(VERSION)" "$(COMMIT)" > $@

# schema/*.sql become C string literals (no xxd needed).
$(BUILD)/schema_sql.h: schema/schema.sql schema/indexes.sql
	@mkdir -p $(@D)
	{ printf 'static const char HTA_SCHEMA_SQL[] =\n'; sed 's/\\/\\\\/g; s/"/\\"/g; s/^/  "/; s/$$/\\n"/' schema/schema.sql; printf ';\n'; \
	  printf 'static const char HTA_INDEXES_SQL[] =\n'; sed 's/\\/\\\\/g; s/"/\\"/g; s/^/  "/; s/$$/\\n"/' schema/indexes.sql; printf ';\n'; } > $@

GEN_HDR := $(BUILD)/version.h $(BUILD)/schema_sql.h

$(BUILD)/ingest/%.o: ingest/%.c $(wildcard ingest/*.h) $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/pic/ext/%.o: ext/%.c $(wildcard ext/*.h ext/*/*.h) $(wildcard ingest/*.h) $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

$(BUILD)/core/ext/%.o: ext/%.c $(wildcard ext/*.h ext/*/*.h) $(wildcard ingest/*.h) $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DSQLITE_CORE -c $< -o $@

$(INGEST): ingest/main.c $(INGEST_OBJ) $(EXT_CORE) $(GEN_HDR)
	$(CC) $(ALL_CFLAGS) -DSQLITE_CORE ingest/main.c $(INGEST_OBJ) $(EXT_CORE) -o $@ $(LIBS)

$(BUILD)/pic/ingest/%.o: ingest/%.c $(wildcard ingest/*.h) $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

$(EXT): $(EXT_PIC)
	$(CC) $(ALL_CFLAGS) -shared $(EXT_PIC) -o $@ -lz -lpthread -lm

# ---------------------------------------------------------------- tests
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

$(BUILD)/tests/%: tests/unit/%.c $(INGEST_OBJ) $(EXT_CORE) $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DSQLITE_CORE -Itests/unit $< $(INGEST_OBJ) $(EXT_CORE) -o $@ $(LIBS)

test: all $(UNIT_BIN)
	@sh tests/run.sh

# What make test and make test-valgrind run, built without running it (CI's first step).
test-build: all $(UNIT_BIN)

test-asan:
	$(MAKE) BUILD=build-asan BIN=build-asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" CFLAGS="-O1 -g" test

test-valgrind: all $(UNIT_BIN)
	@HTA_VALGRIND=1 sh tests/run.sh

# ---------------------------------------------------------------- fuzzing (clang + libFuzzer)
# fuzz_kineto: the decoder; fuzz_json: the reader and tokenizer; fuzz_sql: every hta_*
# function and table of the default entry point. tests/fuzz/run.sh runs each for
# FUZZ_SECONDS (fuzz-quick: 60, fuzz: 900) and appends execs and findings to
# $(FUZZ_DIR)/fuzz-log.txt; findings are kept in $(FUZZ_DIR)/findings/.
.PHONY: fuzz fuzz-quick
FUZZ_CC     ?= clang
FUZZ_DIR    := $(BUILD)/fuzz
FUZZ_FLAGS  := $(WARN) $(DEFS) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
               -I$(BUILD) -Iingest -Iext
FUZZ_PARSER := ingest/reader.c ingest/json.c ingest/kineto.c
FUZZ_BIN    := $(FUZZ_DIR)/fuzz_kineto $(FUZZ_DIR)/fuzz_json $(FUZZ_DIR)/fuzz_sql

$(FUZZ_DIR)/fuzz_kineto $(FUZZ_DIR)/fuzz_json: $(FUZZ_DIR)/%: tests/fuzz/%.c $(FUZZ_PARSER) $(wildcard ingest/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $< $(FUZZ_PARSER) -o $@ -lz -lm

$(FUZZ_DIR)/fuzz_sql: tests/fuzz/fuzz_sql.c tests/fuzz/fuzz_sql_rows.h $(INGEST_SRC) $(EXT_SRC) $(wildcard ingest/*.h ext/*.h ext/*/*.h) $(GEN_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DSQLITE_CORE $< $(INGEST_SRC) $(EXT_SRC) -o $@ $(LIBS)

fuzz-quick: $(FUZZ_BIN)
	@sh tests/fuzz/run.sh $(or $(FUZZ_SECONDS),60) $(FUZZ_DIR) $(notdir $(FUZZ_BIN))

fuzz: $(FUZZ_BIN)
	@sh tests/fuzz/run.sh $(or $(FUZZ_SECONDS),900) $(FUZZ_DIR) $(notdir $(FUZZ_BIN))

bench: all
	@sh tests/bench.sh

demo: all
	@sh examples/demo.sh

# The HTML report of the demo job (examples/report.html) and, when Chromium is installed, its
# screenshot examples/report.png. Datasette on the demo database (needs datasette).
.PHONY: report-demo datasette datasette-check
report-demo: demo
	$(INGEST) --report examples/report.html examples/demo.db
	@if command -v chromium >/dev/null 2>&1; then d=$$(mktemp -d); \
	  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-sync \
	    --disable-background-networking --disable-component-update --hide-scrollbars --user-data-dir=$$d \
	    --window-size=1400,3000 --screenshot=$(CURDIR)/examples/report.png \
	    file://$(CURDIR)/examples/report.html >/dev/null 2>&1; rm -rf $$d; echo "wrote examples/report.png"; \
	else echo "report-demo: chromium is not installed: no screenshot"; fi

datasette: demo
	@sh examples/datasette/datasette.sh serve examples/demo.db

# datasette-check: the canned queries through the datasette command (datasette.sh check), then
# the plugin's tests (tests/cli/datasette_plugin.sh: every page of the demo, a renamed copy and a
# 64-rank job); each skips without Datasette (HTA_DATASETTE_PATH: where /usr/bin/python3 finds it).
datasette-check: demo
	@sh examples/datasette/datasette.sh check examples/demo.db
	@sh tests/cli/datasette_plugin.sh; rc=$$?; [ $$rc = 0 ] || [ $$rc = 77 ]

# The Python package (python/): hta_sqlite with the built binaries, and the Datasette plugin.
.PHONY: wheel
wheel: all
	@sh python/build_wheel.sh dist $(INGEST) $(EXT)

format:
	clang-format -i ingest/*.[ch] ext/*.[ch] ext/*/*.[ch] tests/unit/*.[ch]

lint:
	clang-format --dry-run --Werror ingest/*.[ch] ext/*.[ch] ext/*/*.[ch] tests/unit/*.[ch]

clean:
	rm -rf build build-asan hta-ingest hta.so dist
