/*
** classify.c: kernel types from the kernel_type_rule table (spec 1.16), HTA's
** memory kind and shorten_name (spec 1.7).
**
**   hta_classifier *c; hta_classifier_open(db, "main", &c);
**   hta_classify(c, "ncclKernel_AllReduce...")  -> HTA_KT_COMMUNICATION
**   hta_memory_kind("Memcpy HtoD (Pageable -> Device)", kind)  -> "Memcpy HtoD"
**
** Requirements (tests cite them as KT-n):
**  1. The first rule by priority whose GLOB pattern matches the whole name wins;
**     no match means OTHER. Rules are read when the classifier is opened, so a
**     user's INSERT INTO kernel_type_rule shows in every later analysis.
**  2. A database without a kernel_type_rule table uses HTA's rules (the seed
**     rows of schema.sql), so hta_kernel_type() works on any connection.
**  3. shorten_name leaves a memory-kernel name alone: HTA's pattern
**     (hip)?Memcpy / (hip)?Memset / dma at the start, or a name the rules call
**     MEMORY.
*/
#include <string.h>

#include "core/hta_common.h"
#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

typedef struct kt_rule {
  char *pattern; /* GLOB */
  int kt;        /* HTA_KT_* */
} kt_rule;

struct hta_classifier {
  kt_rule *a;
  int n;
};

/* HTA's rules, as seeded by schema.sql (KT-2). */
static const struct {
  const char *pattern, *type;
} ktDefault[] = {
    {"nccl*", "COMMUNICATION"},
    {"*ncclKernel*", "COMMUNICATION"},
    {"rccl*", "COMMUNICATION"},
    {"hccl*", "COMMUNICATION"},
    {"hip*", "COMMUNICATION"},
    {"Memcpy*", "MEMORY"},
    {"Memset*", "MEMORY"},
    {"dma*", "MEMORY"},
    {"*Memcpy*", "OTHER"},
    {"*Memset*", "OTHER"},
    {"*dma*", "OTHER"},
    {"*Sync*", "OTHER"},
    {"Stream Wait Event*", "OTHER"},
    {"cuda*LaunchKernel*", "OTHER"},
    {"runFunction*", "OTHER"},
    {"job_exe*", "OTHER"},
    {"packet*", "OTHER"},
    {"pe_exe*", "OTHER"},
    {"cpum_exe_subgraph*", "OTHER"},
    {"collective_subgraph_execution*", "OTHER"},
    {"*", "COMPUTATION"},
};

static int ktFromText(const char *s) {
  if (!s) return HTA_KT_OTHER;
  if (strcmp(s, "COMPUTATION") == 0) return HTA_KT_COMPUTATION;
  if (strcmp(s, "COMMUNICATION") == 0) return HTA_KT_COMMUNICATION;
  if (strcmp(s, "MEMORY") == 0) return HTA_KT_MEMORY;
  return HTA_KT_OTHER;
}

const char *hta_kernel_type_name(int kt) {
  switch (kt) {
  case HTA_KT_COMPUTATION: return "COMPUTATION";
  case HTA_KT_COMMUNICATION: return "COMMUNICATION";
  case HTA_KT_MEMORY: return "MEMORY";
  default: return "OTHER";
  }
}

static int ktAdd(hta_classifier *c, int *cap, const char *pattern, int kt) {
  if (c->n == *cap) {
    int ncap = *cap ? 2 * *cap : 32;
    kt_rule *a = sqlite3_realloc64(c->a, (sqlite3_uint64)ncap * sizeof *a);
    if (!a) return SQLITE_NOMEM;
    c->a = a;
    *cap = ncap;
  }
  c->a[c->n].pattern = sqlite3_mprintf("%s", pattern ? pattern : "");
  if (!c->a[c->n].pattern) return SQLITE_NOMEM;
  c->a[c->n++].kt = kt;
  return SQLITE_OK;
}

int hta_classifier_open(sqlite3 *db, const char *schema, hta_classifier **pp) {
  hta_classifier *c = sqlite3_malloc64(sizeof *c);
  sqlite3_stmt *st = 0;
  int64_t one;
  int cap = 0, no_table, rc;
  *pp = 0;
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);

  rc = hta_query_int64(db, schema,
                       "SELECT 1 FROM $S.sqlite_schema WHERE type = 'table'"
                       " AND name = 'kernel_type_rule'",
                       0, 0, &one, &no_table);
  if (rc != SQLITE_OK) goto classifier_error;
  if (no_table) { /* KT-2 */
    for (size_t i = 0; i < sizeof ktDefault / sizeof ktDefault[0]; i++) {
      rc = ktAdd(c, &cap, ktDefault[i].pattern, ktFromText(ktDefault[i].type));
      if (rc != SQLITE_OK) goto classifier_error;
    }
    *pp = c;
    return SQLITE_OK;
  }
  rc = hta_prepare(db, schema,
                   "SELECT pattern, kernel_type FROM $S.kernel_type_rule ORDER BY priority", &st);
  if (rc != SQLITE_OK) goto classifier_error;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *pat = (const char *)sqlite3_column_text(st, 0);
    if (!pat) continue; /* NOT NULL in the schema; skip rather than match nothing */
    rc = ktAdd(c, &cap, pat, ktFromText((const char *)sqlite3_column_text(st, 1)));
    if (rc != SQLITE_OK) goto classifier_error;
  }
  if (rc != SQLITE_DONE) goto classifier_error;
  sqlite3_finalize(st);
  *pp = c;
  return SQLITE_OK;

classifier_error:
  sqlite3_finalize(st);
  hta_classifier_free(c);
  return rc;
}

int hta_classify(const hta_classifier *c, const char *name) {
  if (!name) return HTA_KT_OTHER;
  for (int i = 0; i < c->n; i++) {
    if (sqlite3_strglob(c->a[i].pattern, name) == 0) return c->a[i].kt;
  }
  return HTA_KT_OTHER;
}

void hta_classifier_free(hta_classifier *c) {
  if (!c) return;
  for (int i = 0; i < c->n; i++) sqlite3_free(c->a[i].pattern);
  sqlite3_free(c->a);
  sqlite3_free(c);
}

void hta_memory_kind(const char *name, char out[16]) {
  size_t n = 0, chars = 0;
  if (!name) name = "";
  if (strncmp(name, "Memset", 6) == 0) {
    strcpy(out, "Memset");
    return;
  }
  if (strncmp(name, "Memcpy", 6) != 0) {
    strcpy(out, "Memcpy Unknown");
    return;
  }
  /* The first 11 characters (code points, as Python slices), within 15 bytes. */
  while (name[n] && chars < 11) {
    size_t len = 1;
    while ((name[n + len] & 0xC0) == 0x80) len++;
    if (n + len > 15) break;
    n += len;
    chars++;
  }
  memcpy(out, name, n);
  out[n] = 0;
}

/* HTA's MemoryKernelGroupingPattern: (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma). */
static int ktHtaMemoryName(const char *s) {
  if (strncmp(s, "hip", 3) == 0) s += 3;
  else if (strncmp(s, "dma", 3) == 0) return 1;
  return strncmp(s, "Memcpy", 6) == 0 || strncmp(s, "Memset", 6) == 0;
}

char *hta_shorten_name(const char *name, const hta_classifier *c) {
  size_t n, top = 0;
  char *stack;
  const char *last;
  if (!name) name = "";
  if (!strchr(name, '<') && !strchr(name, '(')) return sqlite3_mprintf("%s", name);
  if (ktHtaMemoryName(name) || (c && hta_classify(c, name) == HTA_KT_MEMORY)) {
    return sqlite3_mprintf("%s", name); /* KT-3 */
  }
  n = strlen(name);
  stack = sqlite3_malloc64(n + 1);
  if (!stack) return 0;
  for (size_t i = 0; i < n; i++) {
    char ch = name[i];
    if (ch == '-' && name[i + 1] == '>') { /* every "->" is deleted first */
      i++;
      continue;
    }
    if (ch == '>' || ch == ')') {
      char open = ch == '>' ? '<' : '(';
      while (top > 0 && stack[top - 1] != open) top--;
      if (top > 0) top--; /* the opener; an unmatched closer emptied the stack */
    } else {
      stack[top++] = ch;
    }
  }
  stack[top] = 0;
  last = strrchr(stack, ' ');
  if (last) memmove(stack, last + 1, strlen(last + 1) + 1);
  return stack;
}
