/* CLI helpers for commands that print records: the Avro JSON line writer, its error message, and skipping records through a file's block index. */
#ifndef AVKCLI_RECORDS_H
#define AVKCLI_RECORDS_H

#include <stdint.h>

#include "avrokit/avrokit.h"

/* Writes v and a newline to w through rec (a memory writer, reset here),
 * so that a value that cannot be written (a string that is not UTF-8)
 * leaves nothing of it in the output. flags are avk_value_write_json's
 * (AVK_JSON_*). *value_error tells the value's errors (1) from the
 * output's (0). */
avk_status avkcli_json_line(const avk_value *v, unsigned flags, avk_writer *rec, avk_writer *w,
                            int *value_error, avk_error *err);

/* Prints "FILE: block B, record R: <message>" for a record that could not
 * be written as JSON, with the --invalid-utf8 hint when it is a string's
 * UTF-8 (st AVK_ERR_MALFORMED). */
void avkcli_report_value(const char *path, uint64_t block, uint64_t record, avk_status st,
                         const avk_error *err);

/* The block index of path for a reading command: its sidecar when that is
 * up to date, else built in memory from the block headers (never saved:
 * only `avrokit index` writes beside a file). The command line's limit
 * options apply. Returns AVK_OK or the library's status (err filled);
 * prints nothing, so a caller may fall back to reading in order. */
avk_status avkcli_index_open(const char *path, const avk_file_reader_options *opts,
                             avk_file_index **out, avk_error *err);

/* Where a reader stands after avkcli_skip_records, for messages naming a
 * record's block and place in it. */
typedef struct avkcli_skipped {
    uint64_t block_base; /* file index of the block the reader was moved to
                            (0 when the records were skipped in order) */
    uint64_t in_block;   /* records of the reader's current block skipped */
} avkcli_skipped;

/* Skips up to *offset records of the file fr has just opened (path; opts
 * those fr was opened with): through the block index (avkcli_index_open,
 * then avk_file_reader_seek_record: one block decoded) when path is a
 * regular file whose index can be had; otherwise (standard input, a
 * damaged file) by skipping records in order, so that the records and
 * errors are those reading in order gives. *offset goes down by the
 * records skipped: above 0 only when the file had fewer. Returns
 * AVKCLI_OK, or AVKCLI_FAIL with the error printed. */
int avkcli_skip_records(const char *path, avk_file_reader *fr, const avk_file_reader_options *opts,
                        uint64_t *offset, avkcli_skipped *where);

#endif
