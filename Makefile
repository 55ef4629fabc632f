# hta-sqlite. `make` builds ./hta-ingest and ./hta.so; `make test` runs every test.
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
DEFS    := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
LIBS    := -lsqlite3 -lz -lpthread -lm
BUILD   := build
BIN     := .
SAN     :=

VERSION := $(shell cat VERSION)
COMMIT  := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

INGEST_SRC := $(filter-out ingest/main.c,$(wildcard ingest/*.c))
EXT_SRC    := $(wildcard ext/*.c)
INGEST_OBJ := $(INGEST_SRC:%.c=$(BUILD)/%.o)
EXT_PIC    := $(EXT_SRC:%.c=$(BUILD)/pic/%.o)
# The extension linked statically (SQLITE_CORE) into the CLI and the C tests.
EXT_CORE   := $(EXT_SRC:%.c=$(BUILD)/core/%.o)

ALL_CFLAGS = $(WARN) $(DEFS) $(CFLAGS) $(SAN) -I$(BUILD) -Iingest -Iext

.SECONDARY:
.PHONY: all clean test test-asan test-valgrind bench demo format lint
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

$(BUILD)/pic/ext/%.o: ext/%.c $(wildcard ext/*.h) $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

$(BUILD)/core/ext/%.o: ext/%.c $(wildcard ext/*.h) $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DSQLITE_CORE -c $< -o $@

$(INGEST): ingest/main.c $(INGEST_OBJ) $(EXT_CORE) $(GEN_HDR)
	$(CC) $(ALL_CFLAGS) -DSQLITE_CORE ingest/main.c $(INGEST_OBJ) $(EXT_CORE) -o $@ $(LIBS)

$(EXT): $(EXT_PIC)
	$(CC) $(ALL_CFLAGS) -shared $(EXT_PIC) -o $@ -lm

# ---------------------------------------------------------------- tests
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

$(BUILD)/tests/%: tests/unit/%.c $(INGEST_OBJ) $(EXT_CORE) $(GEN_HDR)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DSQLITE_CORE -Itests/unit $< $(INGEST_OBJ) $(EXT_CORE) -o $@ $(LIBS)

test: all $(UNIT_BIN)
	@sh tests/run.sh

test-asan:
	$(MAKE) BUILD=build-asan BIN=build-asan SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" CFLAGS="-O1 -g" test

test-valgrind: all $(UNIT_BIN)
	@HTA_VALGRIND=1 sh tests/run.sh

bench: all
	@sh tests/bench.sh

demo: all
	@sh examples/demo.sh

format:
	clang-format -i ingest/*.[ch] ext/*.[ch] tests/unit/*.[ch]

lint:
	clang-format --dry-run --Werror ingest/*.[ch] ext/*.[ch] tests/unit/*.[ch]

clean:
	rm -rf build build-asan hta-ingest hta.so
