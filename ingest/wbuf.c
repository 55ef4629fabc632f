/*
** wbuf.c: a write-behind SQLite VFS for the new database (see wbuf.h).
**
** Why: building a new database, the writer thread spends about a third of its time
** in pwrite(2) copying pages into the page cache, while a parser core waits on
** it. Here xWrite copies the page into a ring slot and returns; an I/O thread does
** the pwrite. Everything else first waits until the ring is empty (drain), so a
** read never misses a queued write and the real file is only ever used by one
** thread at a time. The first failed write is kept: every later drained call
** returns it, and wb_error() reports it. With synchronous=OFF SQLite never calls
** xSync, so what fails a COMMIT is the drain in xFileControl (SQLITE_FCNTL_SYNC,
** sent at every commit) and what fails a PRAGMA is SQLITE_FCNTL_PRAGMA: keep it.
*/
#include "wbuf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WB_SLOTS 32         /* queued writes */
#define WB_SLOT (64 * 1024) /* the largest write queued: SQLite's largest page */

typedef struct wb_slot {
  sqlite3_int64 off;
  int n;
  char data[WB_SLOT];
} wb_slot;

typedef struct wb_file {
  sqlite3_file base;
  struct wb_vfs *vfs;
  sqlite3_file *real; /* the default VFS's file, right after this struct */
  int async;          /* the main database: writes go through the ring */
  pthread_t io;
  pthread_mutex_t mu;
  pthread_cond_t cv; /* any change of head, tail, busy or stop */
  wb_slot *ring;
  int head, tail, queued; /* ring[tail..head) holds `queued` writes */
  int busy;               /* the I/O thread is writing ring[tail] */
  int stop;
  int err; /* first failed write: an SQLITE_IOERR code, else 0 */
} wb_file;

struct wb_vfs {
  sqlite3_vfs base;
  sqlite3_vfs *real;
  int err; /* the first failed write of any of its files (close included) */
  char name[64];
};

static void *wbIoMain(void *arg) {
  wb_file *f = arg;
  pthread_mutex_lock(&f->mu);
  for (;;) {
    while (!f->queued && !f->stop) pthread_cond_wait(&f->cv, &f->mu);
    if (!f->queued) break;
    wb_slot *s = &f->ring[f->tail];
    f->busy = 1;
    pthread_mutex_unlock(&f->mu);
    int rc = f->real->pMethods->xWrite(f->real, s->data, s->n, s->off);
    pthread_mutex_lock(&f->mu);
    if (rc != SQLITE_OK && !f->err) f->err = rc;
    f->busy = 0;
    f->tail = (f->tail + 1) % WB_SLOTS;
    f->queued--;
    pthread_cond_broadcast(&f->cv);
  }
  pthread_mutex_unlock(&f->mu);
  return NULL;
}

/* Waits until every queued write is done; returns the first write error, or OK. */
static int wbDrain(wb_file *f) {
  if (!f->async) return SQLITE_OK;
  pthread_mutex_lock(&f->mu);
  while (f->queued || f->busy) pthread_cond_wait(&f->cv, &f->mu);
  int rc = f->err;
  pthread_mutex_unlock(&f->mu);
  return rc;
}

static int wbClose(sqlite3_file *p) {
  wb_file *f = (wb_file *)p;
  int rc = wbDrain(f);
  if (rc && !f->vfs->err) f->vfs->err = rc; /* SQLite ignores xClose's result */
  if (f->async) {
    pthread_mutex_lock(&f->mu);
    f->stop = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->mu);
    pthread_join(f->io, NULL);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
    free(f->ring);
  }
  int rc2 = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
  return rc ? rc : rc2;
}

static int wbRead(sqlite3_file *p, void *buf, int n, sqlite3_int64 off) {
  wb_file *f = (wb_file *)p;
  int rc = wbDrain(f);
  return rc ? rc : f->real->pMethods->xRead(f->real, buf, n, off);
}

static int wbWrite(sqlite3_file *p, const void *buf, int n, sqlite3_int64 off) {
  wb_file *f = (wb_file *)p;
  if (!f->async || n > WB_SLOT) {
    int rc = wbDrain(f);
    return rc ? rc : f->real->pMethods->xWrite(f->real, buf, n, off);
  }
  pthread_mutex_lock(&f->mu);
  while (f->queued == WB_SLOTS && !f->err) pthread_cond_wait(&f->cv, &f->mu);
  int rc = f->err;
  if (!rc) {
    wb_slot *s = &f->ring[f->head];
    s->off = off;
    s->n = n;
    memcpy(s->data, buf, (size_t)n); /* the slot is free: the I/O thread is past it */
    f->head = (f->head + 1) % WB_SLOTS;
    f->queued++;
    pthread_cond_broadcast(&f->cv);
  }
  pthread_mutex_unlock(&f->mu);
  return rc;
}

static int wbTruncate(sqlite3_file *p, sqlite3_int64 size) {
  wb_file *f = (wb_file *)p;
  int rc = wbDrain(f);
  return rc ? rc : f->real->pMethods->xTruncate(f->real, size);
}

static int wbSync(sqlite3_file *p, int flags) {
  wb_file *f = (wb_file *)p;
  int rc = wbDrain(f);
  return rc ? rc : f->real->pMethods->xSync(f->real, flags);
}

static int wbFileSize(sqlite3_file *p, sqlite3_int64 *size) {
  wb_file *f = (wb_file *)p;
  int rc = wbDrain(f);
  return rc ? rc : f->real->pMethods->xFileSize(f->real, size);
}

static int wbLock(sqlite3_file *p, int lock) {
  wb_file *f = (wb_file *)p;
  int rc = wbDrain(f);
  return rc ? rc : f->real->pMethods->xLock(f->real, lock);
}

static int wbUnlock(sqlite3_file *p, int lock) {
  wb_file *f = (wb_file *)p;
  int rc = wbDrain(f);
  int rc2 = f->real->pMethods->xUnlock(f->real, lock);
  return rc ? rc : rc2;
}

static int wbCheckReserved(sqlite3_file *p, int *out) {
  wb_file *f = (wb_file *)p;
  int rc = wbDrain(f);
  return rc ? rc : f->real->pMethods->xCheckReservedLock(f->real, out);
}

/* The drain here is what fails a COMMIT or a PRAGMA after a failed write (see top). */
static int wbFileControl(sqlite3_file *p, int op, void *arg) {
  wb_file *f = (wb_file *)p;
  int rc = wbDrain(f);
  return rc ? rc : f->real->pMethods->xFileControl(f->real, op, arg);
}

static int wbSectorSize(sqlite3_file *p) {
  wb_file *f = (wb_file *)p;
  wbDrain(f); /* only so that the real file has one user at a time */
  return f->real->pMethods->xSectorSize(f->real);
}

static int wbDeviceCharacteristics(sqlite3_file *p) {
  wb_file *f = (wb_file *)p;
  wbDrain(f);
  return f->real->pMethods->xDeviceCharacteristics(f->real);
}

/* Version 1: no shared memory (never WAL) and no memory-mapped pages (every read
** goes through xRead, which drains first). */
static const sqlite3_io_methods wb_methods = {1,
                                              wbClose,
                                              wbRead,
                                              wbWrite,
                                              wbTruncate,
                                              wbSync,
                                              wbFileSize,
                                              wbLock,
                                              wbUnlock,
                                              wbCheckReserved,
                                              wbFileControl,
                                              wbSectorSize,
                                              wbDeviceCharacteristics,
                                              NULL,
                                              NULL,
                                              NULL,
                                              NULL,
                                              NULL,
                                              NULL};

static int wbOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *p, int flags, int *out_flags) {
  wb_vfs *v = (wb_vfs *)vfs;
  wb_file *f = (wb_file *)p;
  memset(f, 0, sizeof *f + (size_t)v->real->szOsFile);
  f->vfs = v;
  f->real = (sqlite3_file *)(f + 1);
  int rc = v->real->xOpen(v->real, name, f->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    /* SQLite calls no method when xOpen fails, but the real file may need closing */
    if (f->real->pMethods) f->real->pMethods->xClose(f->real);
    return rc;
  }
  if (flags & SQLITE_OPEN_MAIN_DB) {
    f->ring = malloc(sizeof *f->ring * WB_SLOTS);
    if (f->ring && pthread_mutex_init(&f->mu, NULL) == 0) {
      if (pthread_cond_init(&f->cv, NULL) == 0) {
        pthread_attr_t at; /* a small stack: the thread only calls xWrite */
        int attr = pthread_attr_init(&at) == 0;
        if (attr) pthread_attr_setstacksize(&at, 256 * 1024);
        if (pthread_create(&f->io, attr ? &at : NULL, wbIoMain, f) == 0) f->async = 1;
        else pthread_cond_destroy(&f->cv);
        if (attr) pthread_attr_destroy(&at);
      }
      if (!f->async) pthread_mutex_destroy(&f->mu);
    }
    if (!f->async) free(f->ring), f->ring = NULL; /* no thread: plain writes, still correct */
  }
  f->base.pMethods = &wb_methods;
  return SQLITE_OK;
}

static int wbDelete(sqlite3_vfs *vfs, const char *name, int sync) {
  wb_vfs *v = (wb_vfs *)vfs;
  return v->real->xDelete(v->real, name, sync);
}

static int wbAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
  wb_vfs *v = (wb_vfs *)vfs;
  return v->real->xAccess(v->real, name, flags, out);
}

static int wbFullPathname(sqlite3_vfs *vfs, const char *name, int n, char *out) {
  wb_vfs *v = (wb_vfs *)vfs;
  return v->real->xFullPathname(v->real, name, n, out);
}

static int wbRandomness(sqlite3_vfs *vfs, int n, char *out) {
  wb_vfs *v = (wb_vfs *)vfs;
  return v->real->xRandomness(v->real, n, out);
}

static int wbSleep(sqlite3_vfs *vfs, int us) {
  wb_vfs *v = (wb_vfs *)vfs;
  return v->real->xSleep(v->real, us);
}

static int wbCurrentTime(sqlite3_vfs *vfs, double *out) {
  wb_vfs *v = (wb_vfs *)vfs;
  return v->real->xCurrentTime(v->real, out);
}

static int wbGetLastError(sqlite3_vfs *vfs, int n, char *out) {
  wb_vfs *v = (wb_vfs *)vfs;
  return v->real->xGetLastError ? v->real->xGetLastError(v->real, n, out) : 0;
}

static void *wbDlOpen(sqlite3_vfs *vfs, const char *name) {
  wb_vfs *v = (wb_vfs *)vfs;
  return v->real->xDlOpen(v->real, name);
}

static void wbDlError(sqlite3_vfs *vfs, int n, char *out) {
  wb_vfs *v = (wb_vfs *)vfs;
  v->real->xDlError(v->real, n, out);
}

static void (*wbDlSym(sqlite3_vfs *vfs, void *h, const char *sym))(void) {
  wb_vfs *v = (wb_vfs *)vfs;
  return v->real->xDlSym(v->real, h, sym);
}

static void wbDlClose(sqlite3_vfs *vfs, void *h) {
  wb_vfs *v = (wb_vfs *)vfs;
  v->real->xDlClose(v->real, h);
}

int wb_register(wb_vfs **out) {
  *out = NULL;
  sqlite3_vfs *real = sqlite3_vfs_find(NULL);
  if (!real) return SQLITE_ERROR;
  wb_vfs *v = calloc(1, sizeof *v);
  if (!v) return SQLITE_NOMEM;
  snprintf(v->name, sizeof v->name, "hta-write-behind-%p", (void *)v); /* one per writer */
  v->real = real;
  v->base.iVersion = 1;
  v->base.szOsFile = (int)sizeof(wb_file) + real->szOsFile;
  v->base.mxPathname = real->mxPathname;
  v->base.zName = v->name;
  v->base.xOpen = wbOpen;
  v->base.xDelete = wbDelete;
  v->base.xDlOpen = wbDlOpen;
  v->base.xDlError = wbDlError;
  v->base.xDlSym = wbDlSym;
  v->base.xDlClose = wbDlClose;
  v->base.xAccess = wbAccess;
  v->base.xFullPathname = wbFullPathname;
  v->base.xRandomness = wbRandomness;
  v->base.xSleep = wbSleep;
  v->base.xCurrentTime = wbCurrentTime;
  v->base.xGetLastError = wbGetLastError;
  int rc = sqlite3_vfs_register(&v->base, 0);
  if (rc != SQLITE_OK) {
    free(v);
    return rc;
  }
  *out = v;
  return SQLITE_OK;
}

const char *wb_name(const wb_vfs *v) { return v->name; }

int wb_error(const wb_vfs *v) { return v->err; }

void wb_unregister(wb_vfs *v) {
  if (!v) return;
  sqlite3_vfs_unregister(&v->base);
  free(v);
}
