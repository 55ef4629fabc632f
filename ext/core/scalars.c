/*
** scalars.c: scalar SQL functions of hta.so.
**
**   SELECT hta_version();                                  -- 'v0.1.0'
**   SELECT hta_debug();                                    -- version, commit, SQLite, build
**   SELECT hta_kernel_type('ncclKernel_AllReduce_RING');   -- 'COMMUNICATION'
**   SELECT hta_shorten_name('void at::native::k<4>(int)'); -- 'at::native::k'
**   SELECT hta_memory_kind('Memcpy HtoD (Pageable -> Device)'); -- 'Memcpy HtoD'
**   SELECT hta_tensor_cores('sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n'); -- 'mma,half'
**   SELECT CASE WHEN :rank GLOB '[0-9]*' THEN :rank ELSE hta_error('rank must be an integer') END;
**
** Requirements (tests cite them as SC-n):
**  1. hta_kernel_type(name) applies kernel_type_rule as it is when the statement
**     runs (classify.c KT-1); a NULL name gives NULL.
**  2. hta_shorten_name(name) is HTA's shorten_name (spec 1.7; classify.c KT-3);
**     hta_memory_kind(name) is HTA's memory kind (spec 1.16). NULL gives NULL.
**  4. hta_tensor_cores(name): NULL when kernel NAME runs on no tensor / matrix core
**     by its name (core/tensor_cores.c TC-1..5), else "mma" and the precision bits its
**     name shows, comma separated in this order: tf32, half, fp8, fp4, int8. NULL
**     gives NULL.
**  3. hta_version() is "v" + the VERSION file; hta_debug() adds the commit, the
**     SQLite versions (compiled against, running) and build flags. The .so links
**     no zlib, so no zlib version is reported.
**  4. hta_error(message) fails the statement with MESSAGE (text) as its error, word for
**     word: a query's own argument check (Datasette's canned queries); NULL returns NULL.
**
** hta_version, hta_debug, hta_memory_kind and hta_tensor_cores are pure (DETERMINISTIC|INNOCUOUS).
** hta_kernel_type and hta_shorten_name read kernel_type_rule, so they are not
** DETERMINISTIC (an index on them would go stale after a rule change); they are
** INNOCUOUS: they only read a table of the same database. hta_error is INNOCUOUS, not
** DETERMINISTIC, so that it runs only where the query reaches it (never at prepare time).
*/
#include <string.h>

#include "core/hta_common.h"
#include "core/tensor_cores.h"
#include "version.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* Per-statement cache of the classifier (auxiliary data of the call site, which
** SQLite >= 3.45 keeps for the statement's run; older versions discard it and
** the rules are read on every call, which is correct, only slower). */
#define SC_AUX_CLASSIFIER (-0x48544131)

static void scClassifierFree(void *p) { hta_classifier_free(p); }

/* The classifier for this call; *own says the caller must hand it to scKeep. */
static hta_classifier *scClassifier(sqlite3_context *ctx, int *own) {
  hta_classifier *c = sqlite3_get_auxdata(ctx, SC_AUX_CLASSIFIER);
  *own = 0;
  if (c) return c;
  int rc = hta_classifier_open(sqlite3_context_db_handle(ctx), "main", &c);
  if (rc != SQLITE_OK) {
    if (rc == SQLITE_NOMEM) sqlite3_result_error_nomem(ctx);
    else sqlite3_result_error(ctx, sqlite3_errmsg(sqlite3_context_db_handle(ctx)), -1);
    return 0;
  }
  *own = 1;
  return c;
}

/* Offers C to SQLite for the next calls; C must not be used afterwards. */
static void scKeep(sqlite3_context *ctx, hta_classifier *c, int own) {
  if (own) sqlite3_set_auxdata(ctx, SC_AUX_CLASSIFIER, c, scClassifierFree);
}

static void scVersion(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_text(ctx, HTA_VERSION, -1, SQLITE_STATIC);
}

/* Build flags reported by hta_debug(). */
#ifdef SQLITE_CORE
#define SC_LINK "linked in (SQLITE_CORE)"
#else
#define SC_LINK "loadable extension"
#endif
#ifdef __VERSION__
#define SC_CC "cc " __VERSION__
#else
#define SC_CC "cc unknown"
#endif
#ifdef __OPTIMIZE__
#define SC_OPT ", optimized"
#else
#define SC_OPT ", not optimized"
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SC_SAN ", address sanitizer"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SC_SAN ", address sanitizer"
#endif
#endif
#ifndef SC_SAN
#define SC_SAN ""
#endif

static void scDebug(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  char *s = sqlite3_mprintf(
      "Version: %s\nCommit: %s\nSQLite: %s (compiled with %s)\n"
      "Build: %s",
      HTA_VERSION, HTA_COMMIT, sqlite3_libversion(), SQLITE_VERSION,
      SC_LINK ", " SC_CC SC_OPT SC_SAN);
  if (!s) sqlite3_result_error_nomem(ctx);
  else sqlite3_result_text(ctx, s, -1, sqlite3_free);
}

static void scKernelType(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  int own;
  hta_classifier *c;
  (void)argc;
  if (!name) {
    if (sqlite3_value_type(argv[0]) != SQLITE_NULL) sqlite3_result_error_nomem(ctx);
    return;
  }
  c = scClassifier(ctx, &own);
  if (!c) return;
  sqlite3_result_text(ctx, hta_kernel_type_name(hta_classify(c, name)), -1, SQLITE_STATIC);
  scKeep(ctx, c, own);
}

static void scShortenName(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  hta_classifier *c = 0;
  int own = 0;
  char *s;
  (void)argc;
  if (!name) {
    if (sqlite3_value_type(argv[0]) != SQLITE_NULL) sqlite3_result_error_nomem(ctx);
    return;
  }
  if (strchr(name, '<') || strchr(name, '(')) { /* only then does the type matter */
    c = scClassifier(ctx, &own);
    if (!c) return;
  }
  s = hta_shorten_name(name, c);
  if (!s) sqlite3_result_error_nomem(ctx);
  else sqlite3_result_text(ctx, s, -1, sqlite3_free);
  if (c) scKeep(ctx, c, own);
}

static void scMemoryKind(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  char kind[16];
  (void)argc;
  if (!name) {
    if (sqlite3_value_type(argv[0]) != SQLITE_NULL) sqlite3_result_error_nomem(ctx);
    return;
  }
  hta_memory_kind(name, kind);
  sqlite3_result_text(ctx, kind, -1, SQLITE_TRANSIENT);
}

/* SC-4 */
static void scTensorCores(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  static const struct {
    unsigned bit;
    const char *name;
  } bits[] = {{HTA_TC_MMA, "mma"}, {HTA_TC_TF32, "tf32"}, {HTA_TC_HALF, "half"},
              {HTA_TC_FP8, "fp8"}, {HTA_TC_FP4, "fp4"},   {HTA_TC_INT8, "int8"}};
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  char out[40] = "";
  (void)argc;
  if (!name) {
    if (sqlite3_value_type(argv[0]) != SQLITE_NULL) sqlite3_result_error_nomem(ctx);
    return;
  }
  unsigned f = hta_tc_kernel(name);
  if (!f) return; /* NULL */
  for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++) {
    if (!(f & bits[i].bit)) continue;
    if (out[0]) strcat(out, ",");
    strcat(out, bits[i].name);
  }
  sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

static void scError(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  const char *msg = (const char *)sqlite3_value_text(argv[0]);
  (void)argc;
  if (msg) sqlite3_result_error(ctx, msg, -1);
  else if (sqlite3_value_type(argv[0]) != SQLITE_NULL) sqlite3_result_error_nomem(ctx);
}

#define SC_PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)
#define SC_RULES (SQLITE_UTF8 | SQLITE_INNOCUOUS)

int hta_register_scalars(sqlite3 *db) {
  static const struct {
    const char *name;
    int nArg, flags;
    void (*fn)(sqlite3_context *, int, sqlite3_value **);
  } fns[] = {
      {"hta_version", 0, SC_PURE, scVersion},
      {"hta_debug", 0, SC_PURE, scDebug},
      {"hta_kernel_type", 1, SC_RULES, scKernelType},
      {"hta_shorten_name", 1, SC_RULES, scShortenName},
      {"hta_memory_kind", 1, SC_PURE, scMemoryKind},
      {"hta_tensor_cores", 1, SC_PURE, scTensorCores},
      {"hta_error", 1, SQLITE_UTF8 | SQLITE_INNOCUOUS, scError},
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    int rc = sqlite3_create_function_v2(db, fns[i].name, fns[i].nArg, fns[i].flags, 0, fns[i].fn, 0,
                                        0, 0);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}
