/*
** compare_print.c: hta-ingest --compare DB JOB_A JOB_B (compare_print.h).
**
**   Compare run_a (control, rank 0) with run_b (test, rank 0)
**
**   Mean step: 77.50 ms -> 124.09 ms (6 steps -> 6 steps): +46.58 ms (+60.1%)
**
**   Where it comes from (the parts add up to the step difference exactly):
**     part                         control        test         delta   share
**     Kernel: COMPUTATION         46.89 ms    91.32 ms     +44.44 ms   95.4%
**     ...
**
** Requirements (tests cite them as CMP-n):
**  1. Both jobs must be in DB (hta_job_diff_summary's error otherwise); each side is the
**     functions' default rank of its job, named in the first line.
**  2. The mean step of each side and their difference, with the numbers of steps
**     (hta_job_diff_summary's first row); a side without steps says so.
**  3. One table per split of hta_job_diff_summary other than 'operator' and 'finding',
**     in its order ('role', then 'idle': busy and the idle causes of the findings'
**     accounting), its parts then the step itself (the 'role' split's step row): both
**     sides, delta and share of the step difference (blank when that is 0).
**  7. The findings that appeared, disappeared or changed cost (the 'finding' split), both
**     sides' cost per step ("-": no such finding, or one without a time), delta and what
**     happened; "none" when there is none.
**  4. The 10 operators whose GPU time per step changed most (the 'operator' split's
**     first rows), with their GPU events on each side.
**  5. The matched call trees (hta_job_diff): how many nodes matched, were renamed, are
**     one-sided, how many are comparison points, and the 5 points whose GPU time
**     changed most (|point_delta_us|, then node_id).
**  6. Times in ms when the larger mean step is at least 10 ms, else in us; signed
**     deltas. Names longer than the room the width leaves are cut with "...".
*/
#include "compare_print.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Columns of the first N bytes of S (UTF-8: continuation bytes take none). */
static int cmpCols(const char *s, size_t n) {
  int c = 0;
  for (size_t i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
  return c;
}

/* NAME padded or cut to W columns (CMP-6) into BUF. */
static const char *cmpFit(char *buf, size_t n, const char *name, int w) {
  size_t len = strlen(name), k = 0;
  int cols = cmpCols(name, len);
  if (cols <= w) {
    snprintf(buf, n, "%s%*s", name, w - cols, "");
    return buf;
  }
  for (int c = 0; k < len && c < w - 3; k++) c += ((unsigned char)name[k] & 0xC0) != 0x80;
  while (k < len && ((unsigned char)name[k] & 0xC0) == 0x80) k++; /* whole characters */
  snprintf(buf, n, "%.*s...", (int)k, name);
  return buf;
}

typedef struct cmp_unit {
  double div; /* us per unit */
  const char *name;
} cmp_unit;

/* A time right-aligned in W columns; SIGNED adds '+' to a positive value. */
static void cmpTime(FILE *out, const cmp_unit *u, double us, int w, int sign) {
  char b[48];
  snprintf(b, sizeof b, sign ? "%+.2f %s" : "%.2f %s", us / u->div, u->name);
  fprintf(out, "%*s", w + (int)strlen(b) - cmpCols(b, strlen(b)), b);
}

static int cmpFail(sqlite3 *db, const char *what, char *err, size_t errlen) {
  snprintf(err, errlen, "%s: %s", what, sqlite3_errmsg(db));
  return -1;
}

/* The name column's width: WIDTH less the USED columns, from 16 to MAX (CMP-6). */
static int cmpNameWidth(int width, int used, int max) {
  int w = width - used;
  return w < 16 ? 16 : w > max ? max : w;
}

/* SQL over the temp tables prepared, or NULL with the error in ERR. */
static sqlite3_stmt *cmpQuery(sqlite3 *db, const char *sql, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) return st;
  cmpFail(db, "hta_job_diff_summary", err, errlen);
  return NULL;
}

/* CMP-3: one split's table. */
static int cmpSplit(sqlite3 *db, FILE *out, const char *split, const cmp_unit *u, int width,
                    char *err, size_t errlen) {
  int namew = cmpNameWidth(width, 2 + 4 * 13 + 8, 40), rc;
  char nb[512];
  sqlite3_stmt *st = cmpQuery(db,
                              "SELECT part, control_us, test_us, delta_us, share FROM"
                              " temp.cmp_s WHERE split = ?1 OR (split = 'role' AND part = 'step')"
                              " ORDER BY split = 'role' AND part = 'step', rowid",
                              err, errlen);
  if (!st) return -1;
  sqlite3_bind_text(st, 1, split, -1, SQLITE_STATIC);
  fprintf(out, "\nThe step difference by %s, parts adding up to it exactly:\n",
          !strcmp(split, "role")   ? "role (the TensorBoard plugin's roles)"
          : !strcmp(split, "idle") ? "GPU busy time and idle cause (hta_findings)"
                                   : split);
  fprintf(out, "  %s %13s %13s %13s %7s\n", cmpFit(nb, sizeof nb, "part", namew), "control", "test",
          "delta", "share");
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    fprintf(out, "  %s ", cmpFit(nb, sizeof nb, (const char *)sqlite3_column_text(st, 0), namew));
    cmpTime(out, u, sqlite3_column_double(st, 1), 13, 0);
    cmpTime(out, u, sqlite3_column_double(st, 2), 14, 0);
    cmpTime(out, u, sqlite3_column_double(st, 3), 14, 1);
    if (sqlite3_column_type(st, 4) != SQLITE_NULL)
      fprintf(out, " %6.1f%%", 100.0 * sqlite3_column_double(st, 4));
    fputc('\n', out);
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : cmpFail(db, "hta_job_diff_summary", err, errlen);
}

/* CMP-7. */
static int cmpFindings(sqlite3 *db, FILE *out, const cmp_unit *u, int width, char *err,
                       size_t errlen) {
  int namew = cmpNameWidth(width, 2 + 3 * 13 + 14, 40), rc, n = 0;
  char nb[512];
  sqlite3_stmt *st = cmpQuery(db,
                              "SELECT part, control_us, test_us, delta_us, change FROM temp.cmp_s"
                              " WHERE split = 'finding' ORDER BY rowid",
                              err, errlen);
  if (!st) return -1;
  fprintf(out, "\nFindings that appeared, disappeared or changed cost (hta_findings, per step):\n");
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (!n++)
      fprintf(out, "  %s %13s %13s %13s  %s\n", cmpFit(nb, sizeof nb, "finding", namew), "control",
              "test", "delta", "change");
    fprintf(out, "  %s ", cmpFit(nb, sizeof nb, (const char *)sqlite3_column_text(st, 0), namew));
    for (int k = 1; k <= 3; k++) {
      if (sqlite3_column_type(st, k) == SQLITE_NULL) fprintf(out, "%*s", k == 1 ? 13 : 14, "-");
      else cmpTime(out, u, sqlite3_column_double(st, k), k == 1 ? 13 : 14, k == 3);
    }
    fprintf(out, "  %s\n", (const char *)sqlite3_column_text(st, 4));
  }
  if (!n) fprintf(out, "  none\n");
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : cmpFail(db, "hta_job_diff_summary", err, errlen);
}

/* CMP-4. */
static int cmpOperators(sqlite3 *db, FILE *out, const cmp_unit *u, int width, char *err,
                        size_t errlen) {
  int namew = cmpNameWidth(width, 2 + 3 * 13 + 22, 48), rc;
  char nb[512];
  sqlite3_stmt *st =
      cmpQuery(db,
               "SELECT part, control_us, test_us, delta_us, control_count, test_count"
               " FROM temp.cmp_s WHERE split = 'operator' ORDER BY rowid LIMIT 10",
               err, errlen);
  if (!st) return -1;
  fprintf(out, "\nThe 10 operators whose GPU time per step changed most:\n");
  fprintf(out, "  %s %13s %13s %13s  %s\n", cmpFit(nb, sizeof nb, "operator", namew), "control",
          "test", "delta", "GPU events");
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    fprintf(out, "  %s ", cmpFit(nb, sizeof nb, (const char *)sqlite3_column_text(st, 0), namew));
    cmpTime(out, u, sqlite3_column_double(st, 1), 13, 0);
    cmpTime(out, u, sqlite3_column_double(st, 2), 14, 0);
    cmpTime(out, u, sqlite3_column_double(st, 3), 14, 1);
    fprintf(out, "  %lld -> %lld\n", (long long)sqlite3_column_int64(st, 4),
            (long long)sqlite3_column_int64(st, 5));
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : cmpFail(db, "hta_job_diff_summary", err, errlen);
}

/* CMP-5. */
static int cmpTree(sqlite3 *db, FILE *out, int width, char *err, size_t errlen) {
  sqlite3_stmt *st = NULL;
  int rc, namew = width - 53; /* node, name, three times */
  char nb[512];
  cmp_unit us = {1.0, "\xC2\xB5s"};
  if (namew < 16) namew = 16;
  if (sqlite3_prepare_v2(
          db,
          "SELECT count(*), sum(match = 'matched'), sum(match = 'renamed'),"
          " sum(match = 'control_only'), sum(match = 'test_only'), sum(is_comparison_point)"
          " FROM temp.cmp_d",
          -1, &st, NULL) != SQLITE_OK)
    return cmpFail(db, "hta_job_diff", err, errlen);
  if ((rc = sqlite3_step(st)) == SQLITE_ROW)
    fprintf(out,
            "\nThe call trees matched node by node (hta_job_diff): %lld nodes, %lld matched, %lld"
            " renamed,\n%lld control only, %lld test only; %lld comparison points. Largest changes"
            " there:\n",
            (long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1),
            (long long)sqlite3_column_int64(st, 2), (long long)sqlite3_column_int64(st, 3),
            (long long)sqlite3_column_int64(st, 4), (long long)sqlite3_column_int64(st, 5));
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return cmpFail(db, "hta_job_diff", err, errlen);
  if (sqlite3_prepare_v2(db,
                         "SELECT node_id, name, point_control_us, point_test_us, point_delta_us"
                         " FROM temp.cmp_d WHERE is_comparison_point"
                         " ORDER BY abs(point_delta_us) DESC, node_id LIMIT 5",
                         -1, &st, NULL) != SQLITE_OK)
    return cmpFail(db, "hta_job_diff", err, errlen);
  fprintf(out, "  %7s  %s %13s %13s %13s\n", "node", cmpFit(nb, sizeof nb, "name", namew),
          "control", "test", "delta");
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    fprintf(out, "  %7lld  %s ", (long long)sqlite3_column_int64(st, 0),
            cmpFit(nb, sizeof nb, (const char *)sqlite3_column_text(st, 1), namew));
    cmpTime(out, &us, sqlite3_column_double(st, 2), 13, 0);
    cmpTime(out, &us, sqlite3_column_double(st, 3), 14, 0);
    cmpTime(out, &us, sqlite3_column_double(st, 4), 14, 1);
    fputc('\n', out);
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : cmpFail(db, "hta_job_diff", err, errlen);
}

static int cmpPrint(sqlite3 *db, FILE *out, const char *a, const char *b, int width, char *err,
                    size_t errlen);

/* Each function once: their rows into temp tables the sections read. */
static int cmpCompute(sqlite3 *db, const char *a, const char *b, char *err, size_t errlen) {
  static const char *const sql[2] = {
      "CREATE TEMP TABLE cmp_s AS SELECT *, control_rank, test_rank"
      " FROM hta_job_diff_summary(?1, ?2)",
      "CREATE TEMP TABLE cmp_d AS SELECT node_id, name, match, is_comparison_point,"
      " point_control_us, point_test_us, point_delta_us FROM hta_job_diff(?1, ?2)"};
  for (int k = 0; k < 2; k++) {
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql[k], -1, &st, NULL);
    if (rc == SQLITE_OK) {
      sqlite3_bind_text(st, 1, a, -1, SQLITE_STATIC);
      sqlite3_bind_text(st, 2, b, -1, SQLITE_STATIC);
      rc = sqlite3_step(st);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
      return cmpFail(db, k ? "hta_job_diff" : "hta_job_diff_summary", err, errlen);
  }
  return 0;
}

int cmp_print(sqlite3 *db, FILE *out, const char *a, const char *b, int width, char *err,
              size_t errlen) {
  int r;
  if (hr_use_extension(db, err, errlen)) return -1;
  sqlite3_exec(db, "DROP TABLE IF EXISTS temp.cmp_s; DROP TABLE IF EXISTS temp.cmp_d", 0, 0, 0);
  r = cmpCompute(db, a, b, err, errlen);
  if (!r) r = cmpPrint(db, out, a, b, width, err, errlen);
  sqlite3_exec(db, "DROP TABLE IF EXISTS temp.cmp_s; DROP TABLE IF EXISTS temp.cmp_d", 0, 0, 0);
  return r;
}

static int cmpPrint(sqlite3 *db, FILE *out, const char *a, const char *b, int width, char *err,
                    size_t errlen) {
  sqlite3_stmt *st = NULL;
  double c = 0, t = 0, d = 0;
  int64_t nc = 0, nt = 0, rc_rank = 0, rt_rank = 0;
  int rc;
  cmp_unit unit = {1000.0, "ms"};
  if (width < 60) width = 60;
  /* CMP-1, CMP-2: the step row names the ranks used */
  if (sqlite3_prepare_v2(db,
                         "SELECT control_us, test_us, delta_us, control_count, test_count,"
                         " control_rank, test_rank FROM temp.cmp_s"
                         " WHERE split = 'role' AND part = 'step'",
                         -1, &st, NULL) != SQLITE_OK)
    return cmpFail(db, "hta_job_diff_summary", err, errlen);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    c = sqlite3_column_double(st, 0), t = sqlite3_column_double(st, 1);
    d = sqlite3_column_double(st, 2);
    nc = sqlite3_column_int64(st, 3), nt = sqlite3_column_int64(st, 4);
    rc_rank = sqlite3_column_int64(st, 5), rt_rank = sqlite3_column_int64(st, 6);
  }
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    rc = cmpFail(db, "hta_job_diff_summary", err, errlen);
    sqlite3_finalize(st);
    return rc;
  }
  sqlite3_finalize(st);
  if (rc == SQLITE_DONE) {
    snprintf(err, errlen, "%s and %s: no trace to compare", a, b);
    return -1;
  }
  if (fmax(c, t) < 10000.0) unit = (cmp_unit){1.0, "\xC2\xB5s"}; /* CMP-6 */
  fprintf(out, "Compare %s (control, rank %lld) with %s (test, rank %lld)\n\n", a,
          (long long)rc_rank, b, (long long)rt_rank);
  fprintf(out, "Mean step: ");
  if (!nc || !nt) {
    fprintf(out, "%s has no step (the TensorBoard plugin's steps): no step time to split\n",
            !nc ? a : b);
  } else {
    fprintf(out, "%.2f %s -> %.2f %s (%lld step%s -> %lld step%s): %+.2f %s", c / unit.div,
            unit.name, t / unit.div, unit.name, (long long)nc, nc == 1 ? "" : "s", (long long)nt,
            nt == 1 ? "" : "s", d / unit.div, unit.name);
    if (c > 0) fprintf(out, " (%+.1f%%)", 100.0 * d / c);
    fputc('\n', out);
  }
  /* CMP-3: every split but the operators and findings, in the function's order */
  if (sqlite3_prepare_v2(db,
                         "SELECT split FROM temp.cmp_s WHERE split NOT IN ('operator', 'finding')"
                         " GROUP BY split ORDER BY min(rowid)",
                         -1, &st, NULL) != SQLITE_OK)
    return cmpFail(db, "hta_job_diff_summary", err, errlen);
  char splits[8][32];
  int ns = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW && ns < 8)
    snprintf(splits[ns++], sizeof splits[0], "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW)
    return cmpFail(db, "hta_job_diff_summary", err, errlen);
  if (nc && nt) {
    for (int k = 0; k < ns; k++)
      if (cmpSplit(db, out, splits[k], &unit, width, err, errlen)) return -1;
  }
  if (cmpFindings(db, out, &unit, width, err, errlen)) return -1;
  if (cmpOperators(db, out, &unit, width, err, errlen)) return -1;
  return cmpTree(db, out, width, err, errlen);
}
