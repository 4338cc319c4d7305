/* CLI: Avro JSON lines of whole blocks, written by a file reader's work threads (tojson -j). */
#ifndef AVKCLI_JSON_BLOCKS_H
#define AVKCLI_JSON_BLOCKS_H

#include <stdint.h>

#include "avrokit/avrokit.h"

/* The text of blocks in flight, one per reader slot. */
typedef struct avkcli_json_blocks avkcli_json_blocks;

/* flags: avk_value_write_json's (AVK_JSON_*). Prints and returns
 * AVKCLI_FAIL when out of memory. */
int avkcli_json_blocks_new(unsigned flags, avkcli_json_blocks **out);
/* Makes room for the slots of the reader opened with avkcli_json_blocks_work
 * (avk_file_reader_slots); before the first next_work. */
int avkcli_json_blocks_ready(avkcli_json_blocks *jb, unsigned slots);
void avkcli_json_blocks_free(avkcli_json_blocks *jb);

/* The work function (ctx: the avkcli_json_blocks): each record of the
 * block as a JSON line into the slot's text. A record JSON cannot hold (a
 * string that is not UTF-8) stops the block: its status is returned and
 * the slot remembers it (avkcli_json_blocks_value_error). */
avk_status avkcli_json_blocks_work(void *ctx, unsigned slot, avk_file_records *records,
                                   avk_error *err);

/* Writes the lines of the slot's block to w, at most *left of them (which
 * it counts down); *lines gets how many. */
avk_status avkcli_json_blocks_write(avkcli_json_blocks *jb, unsigned slot, uint64_t *left,
                                    avk_writer *w, uint64_t *lines, avk_error *err);

/* 1 when the slot's block stopped at a record JSON cannot hold: its
 * block index (as the reader counts them), its index in the block, the
 * status and error. */
int avkcli_json_blocks_value_error(const avkcli_json_blocks *jb, unsigned slot, uint64_t *block,
                                   uint64_t *record, avk_status *st, const avk_error **err);

#endif
