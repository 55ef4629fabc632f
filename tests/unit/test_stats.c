/*
** test_stats.c: unit tests of the shared analysis helpers of ext/ against
** hand-computed values: interval merge and sweep (interval.c IV-n), quantiles,
** mean/std and describe() (stats.c ST-n), the top-k + others aggregation, the
** classifier and name helpers (classify.c KT-n), and SQLITE_INTERRUPT passing
** through an analysis.
*/
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/hta_common.h"
#include "schema_sql.h"
#include "testutil.h"

int sqlite3_hta_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi);

#define CHECK_NEAR(got, expected)                                                                \
  do {                                                                                           \
    double g_ = (got), e_ = (expected);                                                          \
    tu_checks++;                                                                                 \
    if (!(fabs(g_ - e_) <= 1e-12 * (fabs(e_) > 1 ? fabs(e_) : 1))) {                             \
      tu_failures++;                                                                             \
      fprintf(stderr, "%s:%d: %s is %.17g, expected %.17g\n", __FILE__, __LINE__, #got, g_, e_); \
    }                                                                                            \
  } while (0)

static void testMerge(void) {
  /* IV-1 touching merges; IV-2 a negative interval stays a group of its own. */
  hta_iv iv[] = {{5, 8}, {0, 5}, {10, 20}, {12, 15}, {30, 29}};
  size_t m = hta_iv_merge(iv, 5);
  CHECK_INT(m, 3);
  CHECK_INT(iv[0].start, 0);
  CHECK_INT(iv[0].end, 8);
  CHECK_INT(iv[1].start, 10);
  CHECK_INT(iv[1].end, 20);
  CHECK_INT(iv[2].start, 30);
  CHECK_INT(iv[2].end, 29);
  CHECK_INT(hta_iv_length(iv, m), 8 + 10 - 1);

  /* A group runs to the largest end seen so far, not the last interval's end. */
  hta_iv nest[] = {{0, 10}, {2, 3}, {5, 6}, {11, 12}};
  m = hta_iv_merge(nest, 4);
  CHECK_INT(m, 2);
  CHECK_INT(nest[0].end, 10);
  CHECK_INT(hta_iv_length(nest, m), 11);

  /* One gap of a single ns keeps two groups. */
  hta_iv gap[] = {{0, 10}, {11, 20}};
  CHECK_INT(hta_iv_merge(gap, 2), 2);
  CHECK_INT(hta_iv_merge(gap, 0), 0);
}

static void testSweep(void) {
  /* A [0,10) [20,25); B [5,15); C [10,12): at 10 A ends where C starts (IV-3). */
  hta_iv a[] = {{0, 10}, {20, 25}}, b[] = {{5, 15}}, c[] = {{10, 12}};
  hta_iv *lists[] = {a, b, c};
  size_t counts[] = {2, 1, 1};
  int64_t out[8] = {0};
  CHECK_INT(hta_iv_sweep(lists, counts, 3, out), SQLITE_OK);
  CHECK_INT(out[0], 5);     /* [15,20): nothing runs */
  CHECK_INT(out[1], 5 + 5); /* A alone: [0,5) and [20,25) */
  CHECK_INT(out[3], 5);     /* A and B: [5,10) */
  CHECK_INT(out[5], 0);     /* A and C: only at the instant 10 */
  CHECK_INT(out[6], 2);     /* B and C: [10,12) */
  CHECK_INT(out[2], 3);     /* B alone: [12,15) */
  CHECK_INT(out[4] + out[7], 0);

  int64_t none[2] = {0, 0};
  size_t zero[] = {0};
  CHECK_INT(hta_iv_sweep(lists, zero, 1, none), SQLITE_OK);
  CHECK_INT(none[0] + none[1], 0);
}

static void testSetOps(void) {
  /* IV-4. A = [0,10) [20,30) [40,50); B = [5,25) [45,45) [48,60). */
  const hta_iv a[] = {{0, 10}, {20, 30}, {40, 50}}, b[] = {{5, 25}, {45, 45}, {48, 60}};
  hta_iv out[6];
  size_t n = hta_iv_intersect(a, 3, b, 3, out);
  CHECK_INT(n, 3); /* [5,10) [20,25) [48,50); the zero-length [45,45) adds nothing */
  CHECK_INT(out[0].start, 5);
  CHECK_INT(out[0].end, 10);
  CHECK_INT(out[1].start, 20);
  CHECK_INT(out[1].end, 25);
  CHECK_INT(out[2].start, 48);
  CHECK_INT(out[2].end, 50);
  n = hta_iv_subtract(a, 3, b, 3, out);
  CHECK_INT(n, 3); /* [0,5) [25,30) [40,48): [45,45) cuts nothing */
  CHECK_INT(out[0].start, 0);
  CHECK_INT(out[0].end, 5);
  CHECK_INT(out[1].start, 25);
  CHECK_INT(out[1].end, 30);
  CHECK_INT(out[2].start, 40);
  CHECK_INT(out[2].end, 48);
  CHECK_INT(hta_iv_subtract(a, 3, b, 0, out), 3);
  CHECK_INT(hta_iv_intersect(a, 3, b, 0, out), 0);
  /* one piece of B spanning two of A: [0,100) minus it */
  const hta_iv big[] = {{-5, 100}};
  CHECK_INT(hta_iv_subtract(a, 3, big, 1, out), 0);
  CHECK_INT(hta_iv_subtract(big, 1, a, 3, out), 4); /* [-5,0) [10,20) [30,40) [50,100) */
  CHECK_INT(out[3].start, 50);
  /* clip: A within [5,45) = 5 + 10 + 5; outside everything = 0 */
  CHECK_INT(hta_iv_clip_length(a, 3, 5, 45), 20);
  CHECK_INT(hta_iv_clip_length(a, 3, 10, 20), 0);
  CHECK_INT(hta_iv_clip_length(a, 3, -10, 100), 30);
  CHECK_INT(hta_iv_clip_length(a, 0, -10, 100), 0);
}

static void testQuantile(void) {
  const double v[] = {1, 2, 3, 4};
  CHECK_NEAR(hta_quantile_sorted(v, 4, 0.25), 1.75);
  CHECK_NEAR(hta_quantile_sorted(v, 4, 0.5), 2.5);
  CHECK_NEAR(hta_quantile_sorted(v, 4, 0.75), 3.25);
  CHECK_NEAR(hta_quantile_sorted(v, 4, 0.0), 1.0);
  CHECK_NEAR(hta_quantile_sorted(v, 4, 1.0), 4.0);
  CHECK_NEAR(hta_quantile_sorted(v, 4, 0.9), 3.7); /* t >= 0.5: b - (b-a)(1-t) */
  CHECK_NEAR(hta_quantile_sorted(v, 1, 0.3), 1.0);
  CHECK(isnan(hta_quantile_sorted(v, 0, 0.5)));
  /* The cumsum quantile of the kernel breakdown: 40 70 90 100 at 0.8 = 90 + 10*0.4. */
  const double cum[] = {40, 70, 90, 100};
  CHECK_NEAR(hta_quantile_sorted(cum, 4, 0.8), 94.0);
}

static void testMeanStd(void) {
  const double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
  double mean, std;
  hta_mean_std(v, 8, &mean, &std);
  CHECK_NEAR(mean, 5.0);
  CHECK_NEAR(std, sqrt(32.0 / 7.0));
  hta_mean_std(v, 1, &mean, &std);
  CHECK_NEAR(mean, 2.0);
  CHECK_NEAR(std, 0.0); /* ST-3 */
  hta_mean_std(v, 0, &mean, &std);
  CHECK(isnan(mean) && isnan(std));
  /* Large values with a small spread: the two-pass formula keeps the digits. */
  const double big[] = {1e15 + 1, 1e15 + 2, 1e15 + 3};
  hta_mean_std(big, 3, &mean, &std);
  CHECK_NEAR(mean, 1e15 + 2);
  CHECK_NEAR(std, 1.0);
}

static void testDescribe(void) {
  double v[] = {3, 1, 2};
  hta_describe d;
  hta_describe_doubles(v, 3, &d);
  CHECK_INT(d.count, 3);
  CHECK_NEAR(d.mean, 2.0);
  CHECK_NEAR(d.std, 1.0);
  CHECK_NEAR(d.min, 1.0);
  CHECK_NEAR(d.p25, 1.5);
  CHECK_NEAR(d.p50, 2.0);
  CHECK_NEAR(d.p75, 2.5);
  CHECK_NEAR(d.max, 3.0);
  CHECK_NEAR(v[0], 1.0); /* sorted in place */
  double one[] = {7};
  hta_describe_doubles(one, 1, &d);
  CHECK(d.count == 1 && isnan(d.std) && d.mean == 7 && d.p25 == 7 && d.max == 7);
  hta_describe_doubles(one, 0, &d);
  CHECK(d.count == 0 && isnan(d.mean) && isnan(d.min) && isnan(d.p50));
}

static void testTopk(void) {
  /* Per-name sums 40, 30, 20, 10 (us; ns below). */
  const int64_t a[] = {40000}, b[] = {10000, 20000}, c[] = {5000, 15000}, d[] = {10000};
  hta_topk_group g[] = {{"k_d", d, 1}, {"k_b", b, 2}, {"k_a", a, 1}, {"k_c", c, 2}};
  hta_topk_row *r;
  size_t n;

  /* 4 names <= 10: no folding; rows by name; true per-instance statistics. */
  CHECK_INT(hta_topk_aggregate(g, 4, 10, 0.8, &r, &n), SQLITE_OK);
  CHECK_INT(n, 4);
  CHECK_STR(r[0].name, "k_a");
  CHECK_STR(r[1].name, "k_b");
  CHECK_INT(r[1].count, 2);
  CHECK_NEAR(r[1].sum_us, 30.0);
  CHECK_NEAR(r[1].mean_us, 15.0);
  CHECK_NEAR(r[1].max_us, 20.0);
  CHECK_NEAR(r[1].min_us, 10.0);
  CHECK_NEAR(r[1].std_us, sqrt(50.0));
  CHECK_NEAR(r[0].std_us, 0.0);
  hta_topk_free(r, n);

  /* num 3, ratio 0.5: cumsums 40 70 90 100, q = 80: k_c and k_d fold (quantile rule). */
  CHECK_INT(hta_topk_aggregate(g, 4, 3, 0.5, &r, &n), SQLITE_OK);
  CHECK_INT(n, 3);
  CHECK_STR(r[0].name, "k_a");
  CHECK_STR(r[1].name, "k_b");
  CHECK_STR(r[2].name, "others");
  CHECK_INT(r[2].count, 3);
  CHECK_NEAR(r[2].sum_us, 30.0);
  CHECK_NEAR(r[2].max_us, 15.0);
  CHECK_NEAR(r[2].min_us, 5.0);
  CHECK_NEAR(r[2].mean_us, 10.0);
  CHECK_NEAR(r[2].std_us, 5.0);
  hta_topk_free(r, n);

  /* num 3, ratio 1: q = 100; only the position rule folds k_d. */
  CHECK_INT(hta_topk_aggregate(g, 4, 3, 1.0, &r, &n), SQLITE_OK);
  CHECK_INT(n, 4);
  CHECK_STR(r[3].name, "others");
  CHECK_INT(r[3].count, 1);
  CHECK_NEAR(r[3].sum_us, 10.0);
  hta_topk_free(r, n);

  /* Equal sums: the order among them is by name, so "c" folds first. */
  const int64_t t10[] = {10};
  hta_topk_group tie[] = {{"c", t10, 1}, {"a", t10, 1}, {"b", t10, 1}};
  CHECK_INT(hta_topk_aggregate(tie, 3, 2, 1.0, &r, &n), SQLITE_OK);
  CHECK_INT(n, 3);
  CHECK_STR(r[0].name, "a");
  CHECK_STR(r[1].name, "b");
  CHECK_STR(r[2].name, "others");
  hta_topk_free(r, n);

  CHECK_INT(hta_topk_aggregate(g, 0, 10, 0.8, &r, &n), SQLITE_OK);
  CHECK_INT(n, 0);
  hta_topk_free(r, n);
}

static void testNames(void) {
  char kind[16];
  hta_memory_kind("Memcpy HtoD (Pageable -> Device)", kind);
  CHECK_STR(kind, "Memcpy HtoD");
  hta_memory_kind("Memset (Device)", kind);
  CHECK_STR(kind, "Memset");
  hta_memory_kind("dma_request", kind);
  CHECK_STR(kind, "Memcpy Unknown");
  hta_memory_kind("Memcpy", kind);
  CHECK_STR(kind, "Memcpy");

  static const struct {
    const char *in, *out;
  } cases[] = {
      {"void at::native::kernel<4, float>(int, float)", "at::native::kernel"},
      {"autograd::engine::evaluate_function: torch::autograd::CppNode<X>",
       "torch::autograd::CppNode"},
      {"foo(a > b)", ""},
      {"x->y(int)", "xy"},
      {"a-->b(c)", "a-b"},
      {"Memcpy DtoH (Device -> Pageable)", "Memcpy DtoH (Device -> Pageable)"},
      {"hipMemsetAsync(x)", "hipMemsetAsync(x)"},
      {"plain name", "plain name"},
      {"f(g(h))", "f"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *s = hta_shorten_name(cases[i].in, 0);
    CHECK_STR(s, cases[i].out);
    sqlite3_free(s);
  }
}

/* ST-5: hta_np_argsort is numpy 1.24's aquicksort, including its unstable order of
** equal values. The 37 values below are a median-of-3 killer (built by a McIlroy
** adversary against this quicksort): every partition splits off one or two values,
** the depth budget 2 * floor(log2 37) = 10 runs out, and the last 15 positions are
** heapsorted, with ties (100, 101, 102) whose order only the heap decides. The
** expected order is what the 1-based heapsort (numpy's code as written) gave. */
static void testArgsort(void) {
  static const int64_t v[37] = {0,   100, 2,   20,  4,   100, 6,   101, 8,   100, 10, 101, 12,
                                100, 14,  102, 16,  101, 1,   3,   5,   7,   9,   11, 13,  15,
                                17,  19,  21,  101, 100, 101, 101, 101, 100, 18,  102};
  static const size_t want[37] = {0,  18, 2,  19, 4,  20, 6,  21, 8,  22, 10, 23, 12,
                                  24, 14, 25, 16, 26, 35, 27, 3,  28, 34, 13, 5,  1,
                                  9,  30, 11, 33, 17, 32, 31, 29, 7,  36, 15};
  size_t perm[37];
  hta_np_argsort(v, 37, perm);
  for (size_t i = 0; i < 37; i++) CHECK_INT(perm[i], want[i]);

  /* Insertion sort (16 values or fewer), stable: the smallest value moves to the
  ** front, ties keep their positions. */
  static const int64_t small[6] = {3, 1, 2, 1, 0, 3};
  static const size_t small_want[6] = {4, 1, 3, 2, 0, 5};
  hta_np_argsort(small, 6, perm);
  for (size_t i = 0; i < 6; i++) CHECK_INT(perm[i], small_want[i]);
  hta_np_argsort(small, 1, perm);
  CHECK_INT(perm[0], 0);
}

static void testClassifier(sqlite3 *db) {
  hta_classifier *c = 0;
  CHECK_INT(hta_classifier_open(db, "main", &c), SQLITE_OK);
  if (!c) return;
  CHECK_INT(hta_classify(c, "ncclKernel_AllReduce"), HTA_KT_COMMUNICATION);
  CHECK_INT(hta_classify(c, "Memcpy DtoD"), HTA_KT_MEMORY);
  CHECK_INT(hta_classify(c, "cudaMemcpyAsync"), HTA_KT_OTHER);
  CHECK_INT(hta_classify(c, "gemm"), HTA_KT_COMPUTATION);
  CHECK_INT(hta_classify(c, 0), HTA_KT_OTHER);
  CHECK_STR(hta_kernel_type_name(HTA_KT_COMMUNICATION), "COMMUNICATION");
  CHECK_STR(hta_kernel_type_name(HTA_KT_OTHER), "OTHER");
  /* shorten_name with the rules: a MEMORY rule keeps the name whole (KT-3). */
  hta_classifier_free(c);
  CHECK_INT(sqlite3_exec(db, "INSERT INTO kernel_type_rule VALUES (1, 'cp*', 'MEMORY')", 0, 0, 0),
            SQLITE_OK);
  CHECK_INT(hta_classifier_open(db, "main", &c), SQLITE_OK);
  char *s = hta_shorten_name("cp<int>(x)", c);
  CHECK_STR(s, "cp<int>(x)");
  sqlite3_free(s);
  hta_classifier_free(c);
}

static int stopNow(void *p) {
  (void)p;
  return 1;
}

/* t_interrupted(): interrupts its own statement, then reports hta_interrupted(). */
static int gInterrupted = -1;
static void tInterrupted(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_interrupt(sqlite3_context_db_handle(ctx));
  gInterrupted = hta_interrupted(sqlite3_context_db_handle(ctx));
  sqlite3_result_int(ctx, gInterrupted);
}

static void testInterrupt(sqlite3 *db) {
  sqlite3_stmt *st = 0;
  static const char data[] =
      "INSERT INTO trace(trace_id, rank, rank_source, file_name, file_size, content_hash,"
      " event_count, min_ts, max_end) VALUES (1, 0, 'default', 'r0', 0, 'h', 1, 0, 10);"
      "INSERT INTO category VALUES (1, 'kernel'); INSERT INTO string VALUES (1, 'k');"
      "INSERT INTO event(event_id, trace_id, rank, seq, ph, category_id, name_id, ts, dur, stream)"
      " VALUES (4294967296, 1, 0, 0, 'X', 1, 1, 0, 10, 7);";
  CHECK_INT(sqlite3_exec(db, data, 0, 0, 0), SQLITE_OK);
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT kernel_time_us FROM hta_temporal_breakdown", -1, &st, 0),
            SQLITE_OK);
  CHECK_INT(sqlite3_step(st), SQLITE_ROW);
  CHECK_NEAR(sqlite3_column_double(st, 0), 0.01);
  CHECK_INT(sqlite3_reset(st), SQLITE_OK);
  /* The analysis's own queries see the interrupt and pass it on. */
  sqlite3_progress_handler(db, 1, stopNow, 0);
  CHECK_INT(sqlite3_step(st), SQLITE_INTERRUPT);
  sqlite3_progress_handler(db, 0, 0, 0);
  sqlite3_finalize(st);
  CHECK_INT(hta_interrupted(db), 0);
  /* hta_interrupted() sees a pending interrupt from inside a running statement. */
  CHECK_INT(sqlite3_create_function(db, "t_interrupted", 0, SQLITE_UTF8, 0, tInterrupted, 0, 0),
            SQLITE_OK);
  CHECK_INT(sqlite3_exec(db, "SELECT t_interrupted()", 0, 0, 0), SQLITE_INTERRUPT);
  CHECK_INT(gInterrupted, 1);
  CHECK_INT(hta_interrupted(db), 0); /* cleared once nothing runs */
}

int main(void) {
  sqlite3 *db = 0;
  char *err = 0;
  testMerge();
  testSweep();
  testSetOps();
  testQuantile();
  testMeanStd();
  testDescribe();
  testTopk();
  testNames();
  testArgsort();

  CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
  CHECK_INT(sqlite3_exec(db, HTA_SCHEMA_SQL, 0, 0, 0), SQLITE_OK);
  CHECK_INT(sqlite3_hta_init(db, &err, 0), SQLITE_OK);
  sqlite3_free(err);
  testClassifier(db);
  testInterrupt(db);
  CHECK_INT(sqlite3_close(db), SQLITE_OK);
  return tu_summary("test_stats");
}
