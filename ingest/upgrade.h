/*
** upgrade.h: brings a database of an older hta-sqlite schema to the current one
** (prefix up_). Used by hta-ingest when it opens a database to append to, by
** --upgrade, and by --merge to read an old input without changing it.
**
**   schema 1: no job table, trace has no job_id.
**   schema 2: job(job_id, name, source, created_at) and trace.job_id.
**   schema 3: device_peak (the roofline's peaks, seeded); nothing else changes, so
**             schema 2 becomes 3 by creating it (schema.sql does, IF NOT EXISTS).
**   schema 4: capture (graph capture traces, captures.h); schema 2 or 3 becomes 4 the
**             same way.
**
** Never prints: errors go to the caller's buffer.
*/
#ifndef HTA_UPGRADE_H
#define HTA_UPGRADE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define UP_SCHEMA 4 /* the schema this build writes (meta.schema_version) */

/* The schema version of database SCHEMA ("main", or an attached name): the
** meta value when it is a number above UP_SCHEMA, else 1 when trace has no job_id,
** else 2 without device_peak, else 3 without capture, else 4. -1 on a read error. */
int up_version(sqlite3 *db, const char *schema);

/*
** The job a schema-1 trace belongs to: its file's parent directory (file_path, else
** file_name) into dir, and that directory's base name into name; both "" when the
** path has no directory (the job is then called "default").
*/
void up_parent(const char *path, char *dir, size_t dn, char *name, size_t nn);

/*
** Upgrades main from schema 1 to 2 in one transaction: creates job, one job per
** distinct parent directory of trace.file_path (named after its base name; a name
** already taken gets "-2", "-3"...), and rebuilds trace with job_id (the column
** order of a new database, so `SELECT *` reads the same). SCHEMA_SQL is the current
** schema (HTA_SCHEMA_SQL): the job and trace definitions are taken from it.
** Returns 0 with the counts set, or -1 with err set (nothing changed).
*/
int up_run(sqlite3 *db, const char *schema_sql, int64_t *traces, int64_t *jobs, char *err,
           size_t errlen);

#endif
