/*
** wbuf.h: a write-behind SQLite VFS (prefix wb_) for building a new database.
**
**   wb_vfs *v;
**   wb_register(&v);
**   sqlite3_open_v2(tmp_path, &db, flags, wb_name(v));
**   ... inserts: the main database file's page writes go to an I/O thread ...
**   sqlite3_close(db);      // waits for every write
**   if (wb_error(v)) ...    // a write failed: do not use the file
**   wb_unregister(v);
**
** It forwards to the default VFS; only the main database file's writes are queued
** (32 slots of 64 KiB). A failed write fails every later call on the file that
** drains the queue (COMMIT, PRAGMA, reads). Version 1 io methods: no shared memory,
** no mmap. For a database that other connections may read (appending uses WAL)
** use the default VFS.
*/
#ifndef HTA_WBUF_H
#define HTA_WBUF_H

#include <sqlite3.h>

typedef struct wb_vfs wb_vfs;

/* Registers a new write-behind VFS (not the default). SQLITE_OK or an error code. */
int wb_register(wb_vfs **out);
const char *wb_name(const wb_vfs *v);
/* The first failed write on any file of V (0 if none), including one seen only at close. */
int wb_error(const wb_vfs *v);
/* Unregisters and frees V (after every connection using it is closed); NULL is fine. */
void wb_unregister(wb_vfs *v);

#endif
