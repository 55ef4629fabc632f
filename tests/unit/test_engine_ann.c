/*
** test_engine_ann.c: the inference engines' iteration annotations (ext/core/engine_ann.c,
** EA-n), each form with its fields worked out by hand from the text.
*/
#include <stdint.h>
#include <string.h>

#include "core/hta_common.h"
#include "testutil.h"

/* Parses S and checks format, detailed, phase, batch, tokens, context and generation
** requests and tokens (-1: unknown). */
static void expect(const char *s, int format, int detailed, int phase, int64_t batch,
                   int64_t tokens, int64_t creq, int64_t greq, int64_t ctok, int64_t gtok) {
  hta_engine_ann a;
  int ok = hta_engine_parse(s, &a);
  CHECK_INT(ok, 1);
  if (!ok) fprintf(stderr, "  not parsed: %s\n", s);
  CHECK_INT(a.format, format);
  CHECK_INT(a.detailed, detailed);
  CHECK_INT(a.phase, phase);
  CHECK_INT(a.batch_size, batch);
  CHECK_INT(a.tokens, tokens);
  CHECK_INT(a.ctx_requests, creq);
  CHECK_INT(a.gen_requests, greq);
  CHECK_INT(a.ctx_tokens, ctok);
  CHECK_INT(a.gen_tokens, gtok);
}

static void testVllm(void) {
  hta_engine_ann a;
  /* EA-2: decode only; 0 + 64 requests, 0 + 64 tokens; the sums as written */
  expect("execute_64_context_0(sq0sk0sqsq0sqsk0)_generation_64(sq64sk131072sqsq64sqsk131072)",
         HTA_ANN_VLLM, 1, HTA_PHASE_DECODE, 64, 64, 0, 64, 0, 64);
  /* chunked prefill riding with decode: 2 + 3 requests, 6144 + 3 tokens, mixed */
  const char *mixed =
      "execute_6147_context_2(sq6144sk7144sqsq20971520sqsk23019520)"
      "_generation_3(sq3sk6144sqsq3sqsk6144)";
  expect(mixed, HTA_ANN_VLLM, 1, HTA_PHASE_MIXED, 5, 6147, 2, 3, 6144, 3);
  hta_engine_parse(mixed, &a);
  CHECK_INT(a.c_sq, 6144);
  CHECK_INT(a.c_sk, 7144);
  CHECK_INT(a.c_sqsq, 20971520);
  CHECK_INT(a.c_sqsk, 23019520);
  CHECK_INT(a.g_sq, 3);
  CHECK_INT(a.g_sk, 6144);
  CHECK_INT(a.g_sqsq, 3);
  CHECK_INT(a.g_sqsk, 6144);
  /* native: requests and token sums in the brackets; no aggregates */
  expect("execute_context_2(14721)_generation_0(0)", HTA_ANN_VLLM, 0, HTA_PHASE_PREFILL, 2, 14721,
         2, 0, 14721, 0);
  hta_engine_parse("execute_context_2(14721)_generation_0(0)", &a);
  CHECK_INT(a.c_sqsk, 0);
  /* EA-5: an idle step has no phase */
  expect("execute_context_0(0)_generation_0(0)", HTA_ANN_VLLM, 0, HTA_PHASE_NONE, 0, 0, 0, 0, 0, 0);
}

static void testSglang(void) {
  hta_engine_ann a;
  /* EA-3: EXTEND = prefill; toks are the tokens; detailed by its sqsq */
  expect("step[EXTEND bs=2 toks=14721 c_sq=14721 c_sqsq=108745533 c_sqsk=108745533 c_sk=14721]",
         HTA_ANN_SGLANG, 1, HTA_PHASE_PREFILL, 2, 14721, 2, 0, 14721, 0);
  hta_engine_parse(
      "step[EXTEND bs=2 toks=14721 c_sq=14721 c_sqsq=108745533 c_sqsk=108745533"
      " c_sk=14721]",
      &a);
  CHECK_INT(a.c_sqsq, 108745533);
  CHECK_INT(a.c_sk, 14721);
  /* multi-token prediction: 64 requests decode 128 tokens (g_sq) */
  expect("step[DECODE bs=64 g_sq=128 g_sqsq=256 g_sqsk=262144 g_sk=131072]", HTA_ANN_SGLANG, 1,
         HTA_PHASE_DECODE, 64, 128, 0, 64, 0, 128);
  expect(
      "step[MIXED bs=2 c=1 g=1 c_sq=5 c_sk=8 c_sqsq=25 c_sqsk=40 g_sq=1 g_sk=12 g_sqsq=1"
      " g_sqsk=12]",
      HTA_ANN_SGLANG, 1, HTA_PHASE_MIXED, 2, 6, 1, 1, 5, 1);
  /* native forms: a decode request is one token; MIXED keeps its phase, split unknown */
  expect("step[EXTEND bs=15 toks=15360]", HTA_ANN_SGLANG, 0, HTA_PHASE_PREFILL, 15, 15360, 15, 0,
         15360, 0);
  expect("step[DECODE bs=32]", HTA_ANN_SGLANG, 0, HTA_PHASE_DECODE, 32, 32, 0, 32, 0, 32);
  expect("step[MIXED bs=2]", HTA_ANN_SGLANG, 0, HTA_PHASE_MIXED, 2, -1, -1, -1, -1, -1);
  expect("step[EXTEND bs=4]", HTA_ANN_SGLANG, 0, HTA_PHASE_PREFILL, 4, -1, 4, 0, -1, 0);
}

static void testAtom(void) {
  hta_engine_ann a;
  /* EA-4: the context lengths list is skipped, truncated or not */
  expect("prefill[bs=2 tok=14721 ctx=[7803, 6918]]", HTA_ANN_ATOM, 0, HTA_PHASE_PREFILL, 2, 14721,
         2, 0, 14721, 0);
  expect("prefill[bs=6 tok=17408 ctx=[4096, 4096, 4096]...+3]", HTA_ANN_ATOM, 0, HTA_PHASE_PREFILL,
         6, 17408, 6, 0, 17408, 0);
  /* 117 real requests in a graph padded to 128 */
  expect("decode[bs=117/128 tok=117 d=117]", HTA_ANN_ATOM, 0, HTA_PHASE_DECODE, 117, 117, 0, 117, 0,
         117);
  expect("decode[bs=32 tok=128 d=32 spec=3 sqsq=512 sqsk=262144 sk=65536]", HTA_ANN_ATOM, 1,
         HTA_PHASE_DECODE, 32, 128, 0, 32, 0, 128);
  hta_engine_parse("decode[bs=32 tok=128 d=32 spec=3 sqsq=512 sqsk=262144 sk=65536]", &a);
  CHECK_INT(a.g_sq, 128);
  CHECK_INT(a.g_sk, 65536);
  CHECK_INT(a.g_sqsq, 512);
  CHECK_INT(a.g_sqsk, 262144);
  /* 2 prefill requests in a decode step: mixed, tokens not split */
  expect("decode[bs=128 tok=384 p=2 d=126 sqsq=132612 sqsk=1114112 sk=258048 tbo=1]", HTA_ANN_ATOM,
         1, HTA_PHASE_MIXED, 128, 384, 2, 126, -1, -1);
}

static void testOthers(void) {
  hta_engine_ann a;
  expect("execute_diffusion_1_1024x1024", HTA_ANN_DIFFUSION, 0, HTA_PHASE_NONE, 1, -1, -1, -1, -1,
         -1);
  /* EA-6: not iteration annotations */
  static const char *const no[] = {"capture_32_DECODE",
                                   "ProfilerStep#3",
                                   "step[PREFILL bs=2]",
                                   "step[DECODEX bs=2]",
                                   "step[DECODE bs=32",
                                   "execute_32_context_0(sq0sk0)_generation_32(sq32sk1sqsq1sqsk1)",
                                   "execute_foo",
                                   "execute_context_1(5)",
                                   "decode[bs=1",
                                   "execute_diffusion_1_256",
                                   "",
                                   "prefill"};
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
    CHECK_INT(hta_engine_parse(no[i], &a), 0);
    CHECK_INT(a.format, HTA_ANN_NONE);
    CHECK_INT(a.batch_size, -1);
  }
  CHECK_INT(hta_engine_parse(NULL, &a), 0);
  /* a huge number saturates instead of overflowing */
  CHECK_INT(hta_engine_parse("step[DECODE bs=99999999999999999999999]", &a), 1);
  CHECK_INT(a.batch_size, INT64_MAX);
  CHECK_STR(hta_phase_name(HTA_PHASE_MIXED), "mixed");
  CHECK(hta_phase_name(HTA_PHASE_NONE) == NULL);
  CHECK_STR(hta_engine_name(HTA_ANN_ATOM), "atom");
}

int main(void) {
  testVllm();
  testSglang();
  testAtom();
  testOthers();
  return tu_summary("test_engine_ann");
}
