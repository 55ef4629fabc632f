/*
** findings_host.c: the causes of idle time in a host call of the launching thread
** (DESIGN 11; the accounting, fd_account.c FA-5, FA-6): dataloader, host_sync,
** blocking_copy, allocator_churn. Kind 'cause'.
**
** Requirements (tests cite them as FH-n):
**  1. One finding per trace whose part (fd_account.h) has time in the typical steps:
**     time_us = the part's idle time per typical step (fd_cause_row), the GPU idle time
**     the calls alone explain, not the calls' host time (a sync that waits while the GPU
**     computes costs nothing).
**  2. evidence: fd_cause_row's members, then fd_calls_json's (calls, bytes, by_call,
**     operators, frames, regions, top: fd_calls.c FCL-n).
**  3. blocking_copy counts a copy of any size (a 60-byte copy that blocks the host
**     493 ms is the finding); its title gives the costliest call's bytes and name.
**  4. Advice in the vendor's spelling (trace.device_type 'AMD GPU': hip names,
**     PYTORCH_HIP_ALLOC_CONF).
*/
#include <math.h>
#include <string.h>

#include "findings/fd_account.h"
#include "findings/findings_rules.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

typedef struct fh_spec {
  int part;
  const char *what, *what1; /* "synchronizations leave", "synchronization leaves" */
  const char *advice, *advice_amd;
} fh_spec;

/* "60 B", "4.0 KiB", "1.5 MiB" into BUF. */
static const char *fhBytes(int64_t b, char buf[32]) {
  if (b < 1024) sqlite3_snprintf(32, buf, "%lld B", (long long)b);
  else if (b < 1048576) sqlite3_snprintf(32, buf, "%.1f KiB", (double)b / 1024.0);
  else if (b < 1073741824) sqlite3_snprintf(32, buf, "%.1f MiB", (double)b / 1048576.0);
  else sqlite3_snprintf(32, buf, "%.2f GiB", (double)b / 1073741824.0);
  return buf;
}

static int fhCause(fd_ctx *x, const fd_rule *r, const fh_spec *spec) {
  fd_acct *acct;
  int rc = fd_account(x, &acct);
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    const fd_unit *u = &x->u[i];
    const fd_acct *a = &acct[i];
    if (!a->has_gpu || !(a->part_us[spec->part] > 0) || !fd_unit_wanted(x, u)) continue;
    fd_row row = fd_row_init(u);
    fd_calls c;
    char t[32], b[32];
    fd_cause_row(u, a, spec->part, NAN, &row);                 /* FH-1 */
    rc = fd_calls_json(x, u, a, spec->part, row.evidence, &c); /* FH-2 */
    sqlite3_str_appendchar(row.evidence, 1, '}');
    hta_fmt_us(row.time_us, t);
    if (spec->part == FD_P_DATALOADER) {
      row.title = sqlite3_mprintf(
          "The GPU idles %s per step while the host waits for the "
          "DataLoader%s%s",
          t, c.top_name ? " in " : "", c.top_name ? c.top_name : "");
    } else if (spec->part == FD_P_BLOCKING_COPY && c.calls == 1) { /* FH-3 */
      row.title = sqlite3_mprintf(
          "A blocking copy%s%s (%s%s%s) leaves the GPU idle %s per step",
          c.has_top_bytes ? " of " : "", c.has_top_bytes ? fhBytes(c.top_bytes, b) : "",
          c.top_name ? c.top_name : "?", c.top_op ? " in " : "", c.top_op ? c.top_op : "", t);
    } else {
      row.title = sqlite3_mprintf("%lld %s the GPU idle %s per step%s%s%s%s", (long long)c.calls,
                                  c.calls == 1 ? spec->what1 : spec->what, t,
                                  c.top_name ? (c.calls == 1 ? ", " : ", most ") : "",
                                  c.top_name ? c.top_name : "", c.top_op ? " in " : "",
                                  c.top_op ? c.top_op : "");
    }
    row.advice = u->amd && spec->advice_amd ? spec->advice_amd : spec->advice; /* FH-4 */
    fd_calls_free(&c);
    if (rc == SQLITE_OK) rc = fd_emit(x, r, &row);
    else fd_row_discard(&row);
  }
  return rc;
}

int fd_dataloader_wait(fd_ctx *x, const fd_rule *r) {
  static const fh_spec spec = {
      FD_P_DATALOADER, "DataLoader waits leave", "DataLoader wait leaves",
      "The GPU waits for input: give the DataLoader worker processes (num_workers), "
      "pin_memory=True, persistent_workers=True and a prefetch_factor, and move decoding and "
      "augmentation off the training process.",
      0};
  return fhCause(x, r, &spec);
}

int fd_host_sync(fd_ctx *x, const fd_rule *r) {
  static const fh_spec spec = {
      FD_P_HOST_SYNC, "synchronizations leave", "synchronization leaves",
      "A synchronization stops the host until the GPU is done, so the GPU then idles until "
      "the host queues work again: keep values on the GPU instead of calling .item(), "
      ".cpu(), .tolist() or print() on tensors in the step, avoid operators whose output "
      "size depends on the data (nonzero, masked_select, boolean indexing) there, log every "
      "N steps, and drop explicit torch.cuda.synchronize() calls.",
      0};
  return fhCause(x, r, &spec);
}

int fd_blocking_copy(fd_ctx *x, const fd_rule *r) {
  static const fh_spec spec = {
      FD_P_BLOCKING_COPY, "blocking copies leave", "blocking copy leaves",
      "A copy from or to pageable host memory, or through a synchronous call (cudaMemcpy: "
      "what torch.tensor(data, device='cuda') and .to('cuda') of an unpinned CPU tensor do), "
      "blocks the host until the GPU's queue drains and the copy ends, whatever its size: "
      "create small tensors on the GPU directly, pin host buffers (pin_memory=True) and copy "
      "with non_blocking=True, and move such copies out of the step.",
      "A copy from or to pageable host memory, or through a synchronous call (hipMemcpy, "
      "hipMemcpyWithStream: what torch.tensor(data, device='cuda') and .to('cuda') of an "
      "unpinned CPU tensor do on ROCm), blocks the host until the GPU's queue drains and the "
      "copy ends, whatever its size: create small tensors on the GPU directly, pin host "
      "buffers (pin_memory=True) and copy with non_blocking=True, and move such copies out of "
      "the step."};
  return fhCause(x, r, &spec);
}

int fd_allocator_churn(fd_ctx *x, const fd_rule *r) {
  static const fh_spec spec = {
      FD_P_ALLOCATOR, "device memory allocations and frees leave",
      "device memory allocation or free leaves",
      "cudaMalloc and cudaFree are slow and synchronize the device: let PyTorch's caching "
      "allocator keep its blocks (no torch.cuda.empty_cache() in the loop), keep tensor shapes "
      "steady from step to step (pad or bucket variable lengths), try "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, and allocate pinned host buffers once.",
      "hipMalloc and hipFree are slow and synchronize the device: let PyTorch's caching "
      "allocator keep its blocks (no torch.cuda.empty_cache() in the loop), keep tensor shapes "
      "steady from step to step (pad or bucket variable lengths), try "
      "PYTORCH_HIP_ALLOC_CONF=expandable_segments:True, and allocate pinned host buffers once."};
  return fhCause(x, r, &spec);
}
