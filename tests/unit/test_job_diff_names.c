/*
** test_job_diff_names.c: the names the structural diff compares (ext/diff/job_diff_names.c,
** job_diff.c JD-3) and the intern table both runs share, on names written by hand (each
** expected name is what TraceDiff's Python regular expressions give).
*/
#include <string.h>

#include "diff/job_diff.h"
#include "testutil.h"

/* The comparison name of NAME (STRIP as TraceDiff's strip_details), into BUF. */
static const char *norm(const char *name, int strip, char *buf, size_t n) {
  char *z = 0;
  CHECK_INT(jd_normalize(name, strip, &z), SQLITE_OK);
  snprintf(buf, n, "%s", z ? z : "(null)");
  sqlite3_free(z);
  return buf;
}

int main(void) {
  char b[256];
  /* 0x<hex> -> 0xXXXX, every occurrence, greedy; "0x" without a hex digit stays */
  CHECK_STR(norm("void k<(float*)0x7f3a2b>(0xDEADbeef, 0x1)", 0, b, sizeof b),
            "void k<(float*)0xXXXX>(0xXXXX, 0xXXXX)");
  CHECK_STR(norm("0xg 00x1f", 0, b, sizeof b), "0xg 00xXXXX");
  /* .py(<digits>): -> .py: ; not without the colon, nor with no digit */
  CHECK_STR(norm("models/net.py(123): forward", 0, b, sizeof b), "models/net.py: forward");
  CHECK_STR(norm("a.py(12) x.py(): y.py(7):", 0, b, sizeof b), "a.py(12) x.py(): y.py:");
  /* the two driver launches become one name; nothing else does */
  CHECK_STR(norm("cuLaunchKernel", 0, b, sizeof b), "__kernel_launch__");
  CHECK_STR(norm("hipModuleLaunchKernel", 0, b, sizeof b), "__kernel_launch__");
  CHECK_STR(norm("hipLaunchKernel", 0, b, sizeof b), "hipLaunchKernel");
  CHECK_STR(norm("cuLaunchKernelEx", 0, b, sizeof b), "cuLaunchKernelEx");
  /* strip_details: a final ': <word>' goes (the last ':' before the spaces of the last word) */
  CHECK_STR(norm("nn.Module: Linear_0", 1, b, sizeof b), "nn.Module");
  CHECK_STR(norm("a: b: c", 1, b, sizeof b), "a: b");
  CHECK_STR(norm("x: y:z", 1, b, sizeof b), "x");
  CHECK_STR(norm("trailing: ", 1, b, sizeof b), "trailing: ");
  CHECK_STR(norm("nn.Module: Linear_0", 0, b, sizeof b), "nn.Module: Linear_0");
  /* strip_details: a path ending in .py is cut to its file name */
  CHECK_STR(norm("/usr/lib/python3/torch/nn/linear.py", 1, b, sizeof b), "linear.py");
  CHECK_STR(norm("/x/.py", 1, b, sizeof b), "/x/.py"); /* no name before .py */
  /* the rules in order: .py(N): first, then the word after ':', then the path */
  CHECK_STR(norm("torch/nn/modules/module.py(1501): _call_impl", 1, b, sizeof b), "module.py");
  CHECK_STR(norm("", 1, b, sizeof b), "");

  /* the intern table: equal texts one id, ids dense in first-seen order, growth keeps them */
  jd_intern t;
  memset(&t, 0, sizeof t);
  CHECK_INT(jd_intern_id(&t, "aten::mm", 8), 0);
  CHECK_INT(jd_intern_id(&t, "aten::addmm", 11), 1);
  CHECK_INT(jd_intern_id(&t, "aten::mm", 8), 0);
  CHECK_INT(jd_intern_id(&t, "aten::m", 7), 2);
  CHECK_INT(jd_intern_id(&t, "", 0), 3);
  for (int i = 0; i < 5000; i++) {
    char k[32];
    snprintf(k, sizeof k, "op%d", i);
    CHECK_INT(jd_intern_id(&t, k, strlen(k)), 4 + i);
  }
  CHECK_INT(jd_intern_id(&t, "aten::addmm", 11), 1);
  CHECK_INT(jd_intern_id(&t, "op4999", 6), 5003);
  CHECK_STR(t.s[5003], "op4999");
  jd_intern_free(&t);
  return tu_summary("test_job_diff_names");
}
