/* CLI: Avro JSON lines of whole blocks, written by a file reader's work threads into per-slot text, handed out in order (tojson -j). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_json_blocks.h"
#include "cli_records.h"

typedef struct json_slot {
    avk_writer text;    /* the block's lines */
    avk_writer rec;     /* one record's line, so a failed one leaves nothing */
    avk_arena *arena;
    size_t *ends;       /* where each line ends in text */
    size_t nends, cap;
    int value_error;    /* the block stopped at a record JSON cannot hold */
    avk_status value_st;
    avk_error value_err;
    uint64_t block, record;
    int ready;
} json_slot;

struct avkcli_json_blocks {
    unsigned flags;
    unsigned nslots;
    json_slot *slots;
};

int avkcli_json_blocks_new(unsigned flags, avkcli_json_blocks **out)
{
    avkcli_json_blocks *jb = (avkcli_json_blocks *)calloc(1, sizeof *jb);
    *out = jb;
    if (!jb) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    jb->flags = flags;
    return AVKCLI_OK;
}

int avkcli_json_blocks_ready(avkcli_json_blocks *jb, unsigned slots)
{
    unsigned i;
    avk_error err;
    jb->slots = (json_slot *)calloc(slots, sizeof *jb->slots);
    if (!jb->slots) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    jb->nslots = slots;
    for (i = 0; i < slots; i++) {
        json_slot *s = &jb->slots[i];
        if (avk_writer_init_memory(&s->text, NULL, &err) != AVK_OK ||
            avk_writer_init_memory(&s->rec, NULL, &err) != AVK_OK ||
            avk_arena_new(NULL, &s->arena, &err) != AVK_OK) {
            s->ready = 1; /* what was made is freed */
            fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
            return AVKCLI_FAIL;
        }
        s->ready = 1;
    }
    return AVKCLI_OK;
}

void avkcli_json_blocks_free(avkcli_json_blocks *jb)
{
    unsigned i;
    if (!jb)
        return;
    for (i = 0; i < jb->nslots; i++) {
        json_slot *s = &jb->slots[i];
        if (!s->ready)
            continue;
        avk_writer_destroy(&s->text);
        avk_writer_destroy(&s->rec);
        avk_arena_free(s->arena);
        free(s->ends);
    }
    free(jb->slots);
    free(jb);
}

static int room_for_line(json_slot *s)
{
    size_t *e;
    size_t cap;
    if (s->nends < s->cap)
        return 1;
    cap = s->cap ? s->cap * 2 : 256;
    e = (size_t *)realloc(s->ends, sizeof *e * cap);
    if (!e)
        return 0;
    s->ends = e;
    s->cap = cap;
    return 1;
}

avk_status avkcli_json_blocks_work(void *ctx, unsigned slot, avk_file_records *records,
                                   avk_error *err)
{
    avkcli_json_blocks *jb = (avkcli_json_blocks *)ctx;
    json_slot *s = &jb->slots[slot];
    avk_value v;
    avk_status st;
    int more, value_error;
    avk_writer_reset(&s->text);
    s->nends = 0;
    s->value_error = 0;
    for (;;) {
        size_t len;
        avk_arena_reset(s->arena);
        st = avk_file_records_next(records, s->arena, &v, &more, err);
        if (st != AVK_OK || !more)
            return st;
        if (!room_for_line(s))
            return avk_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                 "out of memory for the lines of a block");
        st = avkcli_json_line(&v, jb->flags, &s->rec, &s->text, &value_error, err);
        if (st != AVK_OK) {
            if (value_error) {
                s->value_error = 1;
                s->value_st = st;
                s->value_err = *err;
                s->block = avk_file_records_block(records)->index;
                s->record = (uint64_t)avk_file_records_done(records) - 1;
            }
            return st;
        }
        avk_writer_data(&s->text, &len);
        s->ends[s->nends++] = len;
    }
}

avk_status avkcli_json_blocks_write(avkcli_json_blocks *jb, unsigned slot, uint64_t *left,
                                    avk_writer *w, uint64_t *lines, avk_error *err)
{
    json_slot *s = &jb->slots[slot];
    size_t n = s->nends, len;
    const uint8_t *text = avk_writer_data(&s->text, &len);
    if (n > *left)
        n = (size_t)*left;
    *lines = n;
    *left -= n;
    if (n == 0)
        return AVK_OK;
    return avk_writer_write_raw(w, text, s->ends[n - 1], err);
}

int avkcli_json_blocks_value_error(const avkcli_json_blocks *jb, unsigned slot, uint64_t *block,
                                   uint64_t *record, avk_status *st, const avk_error **err)
{
    const json_slot *s;
    if (slot >= jb->nslots || !jb->slots[slot].value_error)
        return 0;
    s = &jb->slots[slot];
    *block = s->block;
    *record = s->record;
    *st = s->value_st;
    *err = &s->value_err;
    return 1;
}
