/*
** tb_rules.c: the name rules of the TensorBoard plugin's views (tb_tree.h): which
** names are steps, operators, data loading, collectives; which kernels use tensor
** cores; which operators are tensor-core eligible; and Python's text of a recorded
** shape.
**
** Requirements (tests cite them as TBR-n):
**  1. Kinds of host names: a step starts "ProfilerStep#"; data loading is
**     "enumerate(DataLoader)#" ... ".__next__" or starts "enumerate(DataPipe)#"; an
**     optimizer step starts "Optimizer.step"; a collective is one of nccl: or gloo:
**     broadcast, reduce, all_reduce, all_gather, reduce_scatter (exact).
**  2. A tensor-core kernel's name contains one of the plugin's 18 substrings (h884,
**     s884, h1688, s1688, hmma, i8816, 16816, dgrad_1x1_stride_2x2,
**     first_layer_wgrad_kernel, conv1x1, conv2d_c1_k1, direct_group,
**     xmma_implicit_gemm, xmma_sparse_conv, xmma_warp_specialized_implicit_gemm,
**     xmma_gemm, xmma_sparse_gemm, c1688), case-sensitive (TB_N_TC_PLUGIN, the
**     quirk); ours (TB_N_TC) is hta_tc_kernel's: the MMA instruction families of
**     core/tensor_cores.c (docs/deviations.md, "tensor-core kernels").
**  3. A tensor-core eligible operator is one of the plugin's 46 names (exact).
**  4. An operator's name is none of: a step, Optimizer.*, data loading,
**     DataParallel.forward, DistributedDataParallel.forward (and not empty).
**  5. tb_pyrepr writes what Python's str() prints for the JSON value: lists and
**     objects with ", " and ": ", strings quoted as repr(), true/false/null as
**     True/False/None, integers as written, other numbers as repr(float).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tensor_cores.h"
#include "tb/tb_tree.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

/* TBR-2: the plugin's list (its tensor_core.py), then ours. */
static const char *const tbTcPlugin[] = {
    "h884",
    "s884",
    "h1688",
    "s1688",
    "hmma",
    "i8816",
    "16816",
    "dgrad_1x1_stride_2x2",
    "first_layer_wgrad_kernel",
    "conv1x1",
    "conv2d_c1_k1",
    "direct_group",
    "xmma_implicit_gemm",
    "xmma_sparse_conv",
    "xmma_warp_specialized_implicit_gemm",
    "xmma_gemm",
    "xmma_sparse_gemm",
    "c1688",
};

/* TBR-3 */
static const char *const tbEligible[] = {
    "aten::_convolution",
    "aten::conv1d",
    "aten::conv2d",
    "aten::conv3d",
    "aten::conv_tbc",
    "aten::conv_transpose1d",
    "aten::conv_transpose2d",
    "aten::conv_transpose3d",
    "aten::convolution",
    "aten::cudnn_convolution",
    "aten::cudnn_convolution_transpose",
    "aten::prelu",
    "aten::addmm",
    "aten::addmv",
    "aten::addr",
    "aten::matmul",
    "aten::mm",
    "aten::mv",
    "aten::linear",
    "aten::addbmm",
    "aten::baddbmm",
    "aten::bmm",
    "aten::chain_matmul",
    "aten::linalg_multi_dot",
    "aten::_thnn_fused_lstm_cell",
    "aten::_thnn_fused_gru_cell",
    "aten::lstm_cell",
    "aten::gru_cell",
    "aten::rnn_tanh_cell",
    "aten::rnn_relu_cell",
    "CudnnConvolutionBackward",
    "BmmBackward0",
    "aten::cudnn_convolution_transpose_backward",
    "CudnnConvolutionTransposeBackward",
    "MmBackward",
    "aten::cudnn_convolution_backward_weight",
    "aten::addmm_",
    "AddmvBackward",
    "MvBackward",
    "aten::cudnn_convolution_transpose_backward_weight",
    "aten::cudnn_convolution_transpose_backward_input",
    "AddmmBackward",
    "aten::cudnn_convolution_backward_input",
    "AddbmmBackward",
    "aten::cudnn_convolution_backward",
};

/* TBR-1 */
static const char *const tbComm[] = {
    "nccl:broadcast", "nccl:reduce", "nccl:all_reduce", "nccl:all_gather", "nccl:reduce_scatter",
    "gloo:broadcast", "gloo:reduce", "gloo:all_reduce", "gloo:all_gather", "gloo:reduce_scatter",
};

#define TB_COUNT(a) (sizeof(a) / sizeof((a)[0]))

int tb_category_class(const char *name) {
  static const struct {
    const char *name;
    int cls;
  } map[] = {
      {"cpu_op", TB_C_OP},           {"operator", TB_C_OP},
      {"user_annotation", TB_C_ANN}, {"gpu_user_annotation", TB_C_ANN},
      {"python", TB_C_PY},           {"python_function", TB_C_PYFN},
      {"runtime", TB_C_RT},          {"cuda_runtime", TB_C_RT},
      {"mtia_runtime", TB_C_RT},     {"glow_runtime", TB_C_RT},
      {"xpu_runtime", TB_C_RT},      {"privateuse1_runtime", TB_C_RT},
      {"kernel", TB_C_KERNEL},       {"memcpy", TB_C_MEMCPY},
      {"gpu_memcpy", TB_C_MEMCPY},   {"memset", TB_C_MEMSET},
      {"gpu_memset", TB_C_MEMSET},
  };
  for (size_t i = 0; name && i < TB_COUNT(map); i++)
    if (!sqlite3_stricmp(name, map[i].name)) return map[i].cls;
  return TB_C_NONE;
}

static int anyOf(const char *s, const char *const *list, size_t n, int exact) {
  for (size_t i = 0; i < n; i++) {
    if (exact ? !strcmp(s, list[i]) : strstr(s, list[i]) != 0) return 1;
  }
  return 0;
}

static int startsWith(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

int tb_name_flags(const char *s) {
  int f = 0;
  size_t n;
  if (!s) return 0;
  n = strlen(s);
  if (startsWith(s, "ProfilerStep#")) f |= TB_N_STEP;
  if ((startsWith(s, "enumerate(DataLoader)#") && n >= 31 && !strcmp(s + n - 9, ".__next__")) ||
      startsWith(s, "enumerate(DataPipe)#"))
    f |= TB_N_DATALOADER;
  if (startsWith(s, "Optimizer.step")) f |= TB_N_OPTIMIZER;
  if (anyOf(s, tbComm, TB_COUNT(tbComm), 1)) f |= TB_N_COMM;
  if (*s && !(f & (TB_N_STEP | TB_N_DATALOADER)) && !startsWith(s, "Optimizer.") &&
      strcmp(s, "DataParallel.forward") && strcmp(s, "DistributedDataParallel.forward"))
    f |= TB_N_OPERATOR; /* TBR-4 */
  if (anyOf(s, tbEligible, TB_COUNT(tbEligible), 1)) f |= TB_N_ELIGIBLE;
  if (anyOf(s, tbTcPlugin, TB_COUNT(tbTcPlugin), 0)) f |= TB_N_TC_PLUGIN;
  if (hta_tc_kernel(s) & HTA_TC_MMA) f |= TB_N_TC; /* TBR-2: core/tensor_cores.c */
  return f;
}

/* ---------------------------------------------------------------- Python's str() (TBR-5) */

static const char *pyWs(const char *p, const char *e) {
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

static int hexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static int hex4(const char *p, const char *e) {
  int v = 0;
  if (e - p < 4) return -1;
  for (int i = 0; i < 4; i++) {
    int h = hexVal(p[i]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

static void putUtf8(sqlite3_str *s, unsigned cp) {
  char b[4];
  int n;
  if (cp < 0x80) b[0] = (char)cp, n = 1;
  else if (cp < 0x800) b[0] = (char)(0xC0 | cp >> 6), b[1] = (char)(0x80 | (cp & 63)), n = 2;
  else if (cp < 0x10000)
    b[0] = (char)(0xE0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 63)),
    b[2] = (char)(0x80 | (cp & 63)), n = 3;
  else
    b[0] = (char)(0xF0 | cp >> 18), b[1] = (char)(0x80 | ((cp >> 12) & 63)),
    b[2] = (char)(0x80 | ((cp >> 6) & 63)), b[3] = (char)(0x80 | (cp & 63)), n = 4;
  sqlite3_str_append(s, b, n);
}

/* The JSON string at P (a '"') decoded into D; returns the byte after it. */
static const char *pyDecode(const char *p, const char *e, sqlite3_str *d) {
  for (p++; p < e && *p != '"'; p++) {
    if (*p != '\\') {
      sqlite3_str_append(d, p, 1);
      continue;
    }
    if (++p >= e) break;
    switch (*p) {
    case 'n': sqlite3_str_appendchar(d, 1, '\n'); break;
    case 't': sqlite3_str_appendchar(d, 1, '\t'); break;
    case 'r': sqlite3_str_appendchar(d, 1, '\r'); break;
    case 'b': sqlite3_str_appendchar(d, 1, '\b'); break;
    case 'f': sqlite3_str_appendchar(d, 1, '\f'); break;
    case 'u': {
      int cp = hex4(p + 1, e);
      if (cp < 0) break;
      p += 4;
      if (cp >= 0xD800 && cp < 0xDC00 && e - p > 6 && p[1] == '\\' && p[2] == 'u') {
        int lo = hex4(p + 3, e);
        if (lo >= 0xDC00 && lo < 0xE000) {
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          p += 6;
        }
      }
      putUtf8(d, (unsigned)cp);
      break;
    }
    default: sqlite3_str_append(d, p, 1); /* \" \\ \/ */
    }
  }
  return p < e ? p + 1 : e;
}

/* repr() of a str: single quotes unless it holds ' and no ". */
static void pyStr(sqlite3_str *s, const char *z, int n) {
  char q = memchr(z, '\'', (size_t)n) && !memchr(z, '"', (size_t)n) ? '"' : '\'';
  sqlite3_str_appendchar(s, 1, q);
  for (int i = 0; i < n; i++) {
    unsigned char c = (unsigned char)z[i];
    if (c == '\\' || c == (unsigned char)q) sqlite3_str_appendf(s, "\\%c", c);
    else if (c == '\n') sqlite3_str_appendall(s, "\\n");
    else if (c == '\r') sqlite3_str_appendall(s, "\\r");
    else if (c == '\t') sqlite3_str_appendall(s, "\\t");
    else if (c < 0x20 || c == 0x7f) sqlite3_str_appendf(s, "\\x%02x", c);
    else sqlite3_str_append(s, (const char *)&z[i], 1);
  }
  sqlite3_str_appendchar(s, 1, q);
}

/* repr() of a float: the shortest digits that read back, Python's layout. */
static void pyFloat(sqlite3_str *s, double d) {
  char buf[40], dig[24];
  int prec, nd = 0, decpt;
  for (prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
    if (strtod(buf, 0) == d) break;
  }
  const char *p = buf, *ep = strchr(buf, 'e');
  if (*p == '-') sqlite3_str_appendchar(s, 1, '-'), p++;
  for (; p < ep; p++) {
    if (*p != '.') dig[nd++] = *p;
  }
  while (nd > 1 && dig[nd - 1] == '0') nd--;
  decpt = atoi(ep + 1) + 1;
  if (decpt <= -4 || decpt > 16) {
    sqlite3_str_appendchar(s, 1, dig[0]);
    if (nd > 1) sqlite3_str_appendf(s, ".%.*s", nd - 1, dig + 1);
    sqlite3_str_appendf(s, "e%c%02d", decpt - 1 < 0 ? '-' : '+', abs(decpt - 1));
  } else if (decpt <= 0) {
    sqlite3_str_appendall(s, "0.");
    sqlite3_str_appendchar(s, -decpt, '0');
    sqlite3_str_append(s, dig, nd);
  } else if (decpt >= nd) {
    sqlite3_str_append(s, dig, nd);
    sqlite3_str_appendchar(s, decpt - nd, '0');
    sqlite3_str_appendall(s, ".0");
  } else {
    sqlite3_str_appendf(s, "%.*s.%.*s", decpt, dig, nd - decpt, dig + decpt);
  }
}

#define TB_PY_MAX_DEPTH 64 /* deeper values are written as they stand */

static const char *pyValue(sqlite3_str *s, const char *p, const char *e, int depth) {
  p = pyWs(p, e);
  if (p >= e) return e;
  if ((*p == '[' || *p == '{') && depth < TB_PY_MAX_DEPTH) {
    char close = *p == '[' ? ']' : '}';
    int first = 1;
    sqlite3_str_appendchar(s, 1, *p);
    p = pyWs(p + 1, e);
    while (p < e && *p != close) {
      if (!first) sqlite3_str_appendall(s, ", ");
      first = 0;
      if (close == '}') {
        p = pyValue(s, p, e, depth + 1); /* the key */
        p = pyWs(p, e);
        if (p < e && *p == ':') p++;
        sqlite3_str_appendall(s, ": ");
      }
      p = pyWs(pyValue(s, p, e, depth + 1), e);
      if (p < e && *p == ',') p = pyWs(p + 1, e);
      else if (p < e && *p != close) return e; /* malformed: stop */
    }
    sqlite3_str_appendchar(s, 1, close);
    return p < e ? p + 1 : e;
  }
  if (*p == '"') {
    sqlite3_str *d = sqlite3_str_new(0);
    p = pyDecode(p, e, d);
    int n = sqlite3_str_length(d);
    char *z = sqlite3_str_finish(d);
    if (z) pyStr(s, z, n);
    sqlite3_free(z);
    return p;
  }
  const char *q = p;
  while (q < e && *q != ',' && *q != ']' && *q != '}' && *q != ' ' && *q != '\n' && *q != '\t' &&
         *q != '\r')
    q++;
  int n = (int)(q - p);
  if (n == 4 && !memcmp(p, "true", 4)) sqlite3_str_appendall(s, "True");
  else if (n == 5 && !memcmp(p, "false", 5)) sqlite3_str_appendall(s, "False");
  else if (n == 4 && !memcmp(p, "null", 4)) sqlite3_str_appendall(s, "None");
  else if (n > 0 && n < 40 && !memchr(p, '.', (size_t)n) && !memchr(p, 'e', (size_t)n) &&
           !memchr(p, 'E', (size_t)n))
    sqlite3_str_append(s, p, n); /* an integer, as written */
  else if (n > 0 && n < 40) {
    char buf[40], *end;
    memcpy(buf, p, (size_t)n);
    buf[n] = 0;
    double d = strtod(buf, &end);
    if (*end) sqlite3_str_append(s, p, n);
    else pyFloat(s, d);
  } else {
    sqlite3_str_append(s, p, n);
  }
  return q;
}

void tb_pyrepr(sqlite3_str *s, const char *p, int n) {
  if (p && n > 0) pyValue(s, p, p + n, 0);
}
