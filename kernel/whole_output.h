/* Whole or nothing: every file the kernel writes goes through here
 * (docs/robustness.md). A reader never finds half an experiment or half a
 * provenance record, whatever stops the kernel: a full disk, a quota, a kill.
 *
 * A table (results, findings, seeds, lists) is created exclusively with its
 * header, then grows by groups of rows (one experiment's). Appends go to the
 * end of the file; table_commit makes the group part of the table, and
 * table_rollback cuts the file back to the end of the last committed group,
 * so a short write (ENOSPC, EDQUOT, EFBIG) never leaves part of a group.
 *
 * A document (prov.json, cvars.csv) is written whole under PATH.tmp,
 * flushed to the disk (fsync), then linked to PATH (exclusive: fails if
 * PATH exists, so no output is ever overwritten) or, for a later version of
 * the kernel's own document, renamed over it; then the directory is
 * flushed, so that a power loss never leaves PATH naming a cut file.
 *
 * Every error is one message "PATH: cannot write: REASON" naming the final
 * file; output_error_is_no_space tells a full disk from other failures. */
#ifndef NBH_WHOLE_OUTPUT_H
#define NBH_WHOLE_OUTPUT_H

#include <stddef.h>
#include <sys/types.h>

struct table {
    char path[4200];
    int fd;            /* -1: no such table */
    off_t committed;   /* end of the last whole group */
    off_t end;         /* end of what was appended since */
    int error;         /* errno of the first failed append since the commit; 0 if none */
};

/* Creates PATH (never an existing file) with HEADER. 0, or -1 and a message;
 * a file it created is removed again on failure. */
int table_create(struct table *t, const char *path, const char *header, char *error, size_t size);
/* Appends DATA to the current group; a failure is remembered for commit. */
void table_append(struct table *t, const char *data, size_t size);
/* 1 if an append of the current group failed. */
int table_failed(const struct table *t);
/* The current group becomes part of the table. */
void table_commit(struct table *t);
/* Cuts the table back to its last committed group. If an append had failed,
 * writes the message naming the table and returns that errno; else 0. */
int table_rollback(struct table *t, char *error, size_t size);
/* fsync: the committed groups reach the disk (on a shared file system,
 * the servers). 0, or the errno with the message. EINVAL (a file that
 * cannot be synced, a pipe) is no error. */
int table_sync(struct table *t, char *error, size_t size);
void table_close(struct table *t);
/* Removes a table the kernel created (nothing measured yet). */
void table_discard(struct table *t);

/* Writes PATH whole; exclusive: never over an existing PATH. 0, or -1 with
 * the message and errno set. */
int document_write(const char *path, const char *data, size_t size, int exclusive, char *error,
                   size_t esize);

/* Whether errno value ERR means the file system (or quota) is full. */
int output_error_is_no_space(int err);

#endif
