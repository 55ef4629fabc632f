/*
** fd_health.c: fd_health_caveats (fd.h), what limits the trust in each trace's findings
** (DESIGN 11 "Caveats"): the checks of hta_trace_health that change what a finding
** means, read through the health family's C API (health/health.h), which alone judges
** a trace's health.
**
** Requirements (tests cite them as FC-n):
**  1. A trace's caveats are hta_health_caveats' list (health.c HL-4): the job's
**     ranks_profiled and the trace's profiler_stopped_early, kernels_without_launch,
**     launches_without_kernel, steps (no ProfilerStep: the engine's iterations, or the
**     window, stand for the steps; fd_steps.c FS-2 reads the same), collapsed_steps
**     and clock_offset, each {"check", "value", "text"}, when not 'ok'.
**  2. One run of the checks per findings run, over the traces it reports (WHERE
**     rank = N: rank N's, and the job's check).
**  3. fd_emit appends them to each finding of the trace after the finding's own.
*/
#include "findings/fd.h"
#include "health/health.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

int fd_health_caveats(fd_ctx *x) {
  hta_health h = {0};
  char *err = 0;
  int rc = hta_health_run(x->db, &x->tr.scope, x->has_rank, x->rank, &h, &err); /* FC-2 */
  sqlite3_free(err); /* health sets none today; the code says what failed */
  for (int i = 0; rc == SQLITE_OK && i < x->nu; i++) {
    fd_unit *u = &x->u[i];
    if (fd_unit_wanted(x, u)) rc = hta_health_caveats(&h, u->trace_id, &u->caveats); /* FC-1 */
  }
  hta_health_free(&h);
  return rc;
}
