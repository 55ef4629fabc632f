/*
** test_graph_align.c: the graph match rules (ext/graph/graph_align.c, GA-n) and the
** execution roots' batch sizes (graph_roots.c, GR-n), on sequences written by hand.
** Kernels are letters (their name key), dispatches too; '?' is a dispatch without a
** kernel name, 'c' / 's' a memcpy / memset call (dispatch) or GPU event (kernel).
*/
#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

#include "graph/graph.h"
#include "testutil.h"

/* Items from a string: one per letter; streams from STREAMS (digits) when given. */
static size_t items(const char *s, const char *streams, int dispatch, hg_item *out) {
  size_t n = strlen(s);
  for (size_t i = 0; i < n; i++) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].node = -1;
    out[i].stream = streams ? streams[i] - '0' : 7;
    if (s[i] == 'c' || s[i] == 's') {
      out[i].mem = s[i] == 'c' ? HG_MEMCPY : HG_MEMSET;
      out[i].key = dispatch ? HG_ANY_KERNEL : 1000 + s[i]; /* a call's key is no kernel's */
    } else {
      out[i].key = s[i] == '?' ? HG_ANY_KERNEL : s[i];
    }
  }
  return n;
}

/* The pairing as text: for each kernel the index of its dispatch, '-' for none. */
static int run(const char *disp, const char *kern, const char *streams, char *pairs) {
  hg_item d[64], k[64];
  int32_t p[64];
  size_t m = items(disp, 0, 1, d), n = items(kern, streams, 0, k), got;
  int rule = hg_align(d, m, k, n, p, &got);
  for (size_t i = 0; i < n; i++) pairs[i] = p[i] < 0 ? '-' : (char)('0' + p[i]);
  pairs[n] = 0;
  return rule;
}

static void testRules(void) {
  char pr[65];
  /* GA-2 positional */
  CHECK_INT(run("ABC", "ABC", 0, pr), HG_POSITIONAL);
  CHECK_STR(pr, "012");
  /* a dispatch without a kernel name takes any kernel position by position (GA-1) */
  CHECK_INT(run("A?C", "ABC", 0, pr), HG_POSITIONAL);
  CHECK_STR(pr, "012");
  /* GA-2 group by name: swapped kernels keep their operator */
  CHECK_INT(run("ABCA", "BAAC", 0, pr), HG_GROUP_BY_NAME);
  CHECK_STR(pr, "1032");
  /* memcpy and memset pair with their own kind only, and group as one name each */
  CHECK_INT(run("AcBs", "AcBs", 0, pr), HG_POSITIONAL);
  CHECK_STR(pr, "0123");
  CHECK_INT(run("AcBs", "cAsB", 0, pr), HG_GROUP_BY_NAME);
  CHECK_STR(pr, "1032");
  /* GA-3: a kernel missing from the replay: the greedy scan passes its dispatch over */
  CHECK_INT(run("ABCD", "ACD", 0, pr), HG_GREEDY);
  CHECK_STR(pr, "023");
  /* GA-5: an extra kernel (X): TraceLens fails the launch; we leave X alone */
  CHECK_INT(run("ABCD", "ABXCD", 0, pr), HG_ALIGNED);
  CHECK_STR(pr, "01-23");
  /* GA-5: an extra kernel whose name occurs later must not drag the others along */
  CHECK_INT(run("ABCDEB", "BABCDEB", 0, pr), HG_ALIGNED);
  CHECK_STR(pr, "-012345");
  /* GA-5: the same count, one name replaced: the rest stay matched */
  CHECK_INT(run("ABCD", "ABYD", 0, pr), HG_ALIGNED);
  CHECK_STR(pr, "01-3");
  /* nothing in common */
  CHECK_INT(run("AB", "XY", 0, pr), HG_ALIGNED);
  CHECK_STR(pr, "--");
}

static void testStreams(void) {
  char pr[65];
  /* GA-4: two streams; the GPU runs B (stream 8) before A (stream 7) */
  CHECK_INT(run("ABCD", "BADC", "8787", pr), HG_STREAM_FIFO);
  CHECK_STR(pr, "1032");
  /* ties: A heads both streams; the longer run of following dispatches decides (stream
  ** 7's A B over stream 8's A C), where the first stream (8) would have taken it */
  CHECK_INT(run("ABAC", "AABC", "8778", pr), HG_STREAM_FIFO);
  CHECK_STR(pr, "2013");
  /* a stream whose order contradicts the dispatches: the kernel left over stays alone */
  CHECK_INT(run("ABAC", "AACB", "7877", pr), HG_STREAM_FIFO);
  CHECK_STR(pr, "023-");
  /* a kernel no dispatch matches stays alone; the others keep theirs (TraceLens: none) */
  CHECK_INT(run("AB", "ABX", "787", pr), HG_STREAM_FIFO);
  CHECK_STR(pr, "01-");
}

static void testNodeIds(void) {
  hg_item d[4], k[4];
  int32_t p[4];
  size_t got;
  items("ABCD", 0, 1, d);
  items("CADB", "7878", 0, k); /* start order on two streams */
  k[0].node = 12, k[1].node = 10, k[2].node = 13, k[3].node = 11;
  CHECK_INT(hg_align(d, 4, k, 4, p, &got), HG_GRAPH_NODE_ID);
  CHECK_INT(got, 4);
  CHECK_INT(p[0], 2);
  CHECK_INT(p[1], 0);
  CHECK_INT(p[2], 3);
  CHECK_INT(p[3], 1);
  /* node ids on some kernels only: the streams rule */
  k[3].node = -1;
  CHECK_INT(hg_align(d, 4, k, 4, p, &got), HG_STREAM_FIFO);
  /* node ids, a kernel missing: the greedy scan on node order */
  items("ABCD", 0, 1, d);
  items("DAC", "787", 0, k);
  k[0].node = 23, k[1].node = 20, k[2].node = 22;
  CHECK_INT(hg_align(d, 4, k, 3, p, &got), HG_GREEDY);
  CHECK_INT(p[0], 3);
  CHECK_INT(p[1], 0);
  CHECK_INT(p[2], 2);
}

static void testNames(void) {
  CHECK_INT(hg_gpu_mem("Memcpy DtoD (Device -> Device)"), HG_MEMCPY);
  CHECK_INT(hg_gpu_mem("Memset (Device)"), HG_MEMSET);
  CHECK_INT(hg_gpu_mem("__amd_rocclr_fillBufferAligned"), HG_MEMSET);
  CHECK_INT(hg_gpu_mem("void gemm<float>"), HG_MEM_NONE);
  CHECK_INT(hg_dispatch_mem("hipMemcpyAsync"), HG_MEMCPY);
  CHECK_INT(hg_dispatch_mem("cudaMemsetAsync"), HG_MEMSET);
  CHECK_INT(hg_dispatch_mem("cudaLaunchKernel"), HG_MEM_NONE);
  CHECK_STR(hg_rule_name(HG_GREEDY), "greedy_forward");
  CHECK_STR(hg_reason_name(HG_R_NO_CAPTURE_BS), "no_capture_batch_size");
  CHECK_STR(hg_match_name(HG_UNLINKED), "unlinked");
  CHECK(hg_rule_name(HG_RULE_NONE) == 0);
}

/* GR-1, GR-2 */
static void testRoots(void) {
  int tier;
  int64_t b;
  CHECK_INT(hg_root_parse("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk32785sqsq32"
                          "sqsk32785)",
                          &tier, &b),
            1);
  CHECK_INT(tier, 1);
  CHECK_INT(b, 32);
  CHECK_INT(hg_root_parse("execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_"
                          "37(sq37sk34489sqsq37sqsk34489)",
                          &tier, &b),
            1);
  CHECK_INT(b, 8192);
  CHECK_INT(hg_root_parse("execute_context_2(6144)_generation_3(3)", &tier, &b), 1);
  CHECK_INT(tier, 2);
  CHECK_INT(b, 6147);
  CHECK_INT(hg_root_parse("step[DECODE bs=64]", &tier, &b), 1);
  CHECK_INT(tier, 2);
  CHECK_INT(b, 64);
  CHECK_INT(hg_root_parse("step[EXTEND bs=2 toks=14721]", &tier, &b), 1);
  CHECK_INT(b, 14721);
  CHECK_INT(hg_root_parse("step[MIXED bs=2]", &tier, &b), 1);
  CHECK_INT(b, 2);
  /* native with anything else inside: a root without a batch size */
  CHECK_INT(hg_root_parse("step[DECODE bs=64 spec=2]", &tier, &b), 1);
  CHECK_INT(b, -1);
  CHECK_INT(
      hg_root_parse("step[DECODE bs=64 g_sq=128 g_sqsq=256 g_sqsk=262144 g_sk=131072]", &tier, &b),
      1);
  CHECK_INT(tier, 1);
  CHECK_INT(b, 128);
  CHECK_INT(hg_root_parse("step[EXTEND bs=2 toks=14721 c_sqsq=108745533 c_sk=14721]", &tier, &b),
            1);
  CHECK_INT(b, 14721);
  /* not roots */
  CHECK_INT(hg_root_parse("execute_32", &tier, &b), 0);
  CHECK_INT(hg_root_parse("stepping[DECODE bs=1]", &tier, &b), 0);
  CHECK_INT(hg_root_parse("step[DECODED bs=1]", &tier, &b), 0);
  CHECK_INT(hg_root_parse("ProfilerStep#3", &tier, &b), 0);
}

int main(void) {
  testRules();
  testStreams();
  testNodeIds();
  testNames();
  testRoots();
  return tu_summary("test_graph_align");
}
