/* avrokit tail: the last records of a container file as Avro JSON lines, read through the block index so only the last blocks are decoded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_records.h"

#define PREFIX AVKCLI_PROG " tail"

static const char *const help =
    "Usage: " PREFIX " [options] FILE\n"
    "\n"
    "Prints the last records of a container file in the Avro JSON encoding, one\n"
    "record per line, as tojson prints them. The file's block index (its sidecar\n"
    "FILE" AVK_FILE_INDEX_SUFFIX
    " when up to date, see 'avrokit index'; else built in memory from the\n"
    "block headers, nothing written) gives where the last records are, so only\n"
    "the blocks holding them are decompressed and decoded. Standard input ('-'),\n"
    "and a file whose index cannot be built (a damaged one), are read in order,\n"
    "keeping the last N records: the records printed are the same, and a damaged\n"
    "file's last good records come out before its error.\n"
    "\n"
    "Options:\n"
    "  -n, --lines N         print the last N records (default 10)\n"
    "  --pretty              indent each record over several lines\n"
    "  --invalid-utf8 fail|replace\n"
    "                        a string that is not UTF-8: an error naming the record\n"
    "                        (fail, the default), or U+FFFD (replace)\n"
    "  -h, --help            show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " -n 3 events.avro\n";

/* What both ways of reading share. */
typedef struct tail_ctx {
    const char *path;
    unsigned flags; /* AVK_JSON_* */
    avk_arena *arena;
    avk_writer rec; /* one record's JSON */
    avk_writer *out;
    /* For messages: the block a record is in and its place there. */
    uint64_t block_base, blocks, block_first;
} tail_ctx;

/* The block and record numbers of the record just read. */
static void place(tail_ctx *t, avk_file_reader *fr, uint64_t *block, uint64_t *record)
{
    avk_file_reader_stats stats;
    avk_file_reader_get_stats(fr, &stats);
    if (stats.blocks != t->blocks) {
        t->blocks = stats.blocks;
        t->block_first = stats.records - 1;
    }
    *block = t->block_base + t->blocks - 1;
    *record = stats.records - 1 - t->block_first;
}

/* Reports a record that failed (value_error) or output that failed. */
static int write_failed(tail_ctx *t, avk_file_reader *fr, int value_error, avk_status st,
                        const avk_error *err)
{
    uint64_t block, record;
    avk_error ferr;
    if (!value_error) {
        fprintf(stderr, "%s: writing standard output: %s\n", AVKCLI_PROG, err->message);
        return AVKCLI_FAIL;
    }
    avk_writer_flush(t->out, &ferr); /* the records before it */
    place(t, fr, &block, &record);
    avkcli_report_value(t->path, block, record, st, err);
    return AVKCLI_FAIL;
}

/* Through the index: seek to the first of the last n records, print to the end. */
static int tail_indexed(tail_ctx *t, const avk_file_index *idx, uint64_t n)
{
    avk_file_reader *fr;
    avk_error err;
    avk_value v;
    avk_status st;
    uint64_t total = avk_file_index_records(idx), start = total > n ? total - n : 0;
    size_t b;
    int more, value_error, rc = avkcli_reader_open(t->path, NULL, &fr);
    if (rc != AVKCLI_OK)
        return rc;
    if (avk_file_reader_seek_record(fr, idx, start, &err) != AVK_OK) {
        avkcli_report(t->path, &err);
        avk_file_reader_free(fr);
        return AVKCLI_FAIL;
    }
    b = avk_file_index_find(idx, start);
    if (b < avk_file_index_block_count(idx)) {
        avk_file_reader_stats stats;
        avk_file_reader_get_stats(fr, &stats);
        t->block_base = b;
        t->blocks = stats.blocks;
        t->block_first = stats.records - (start - avk_file_index_block(idx, b)->first);
    }
    for (;;) {
        st = avk_file_reader_next(fr, t->arena, &v, &more, &err);
        if (st != AVK_OK || !more)
            break;
        st = avkcli_json_line(&v, t->flags, &t->rec, t->out, &value_error, &err);
        avk_arena_reset(t->arena);
        if (st != AVK_OK) {
            rc = write_failed(t, fr, value_error, st, &err);
            avk_file_reader_free(fr);
            return rc;
        }
    }
    if (st != AVK_OK) {
        avk_error ferr;
        avk_writer_flush(t->out, &ferr);
        avkcli_report(t->path, &err);
        rc = AVKCLI_FAIL;
    }
    avk_file_reader_free(fr);
    return rc;
}

/* The last n lines, in a ring that grows up to n slots as records come. */
typedef struct ring {
    char **line;
    size_t *len, *cap;
    size_t slots, used, head; /* head: the oldest line once full */
    uint64_t n;
} ring;

static int ring_put(ring *r, const uint8_t *data, size_t len)
{
    size_t at;
    if (r->n == 0)
        return AVKCLI_OK;
    /* Grown by doubling, so -n with a large N costs only the records seen. */
    if (r->used < r->n && r->used == r->slots) {
        size_t ns = r->slots ? r->slots * 2 : 16, i;
        char **nl;
        size_t *nlen, *ncap;
        if ((uint64_t)ns > r->n)
            ns = (size_t)r->n;
        if ((nl = (char **)realloc(r->line, ns * sizeof *nl)) != NULL)
            r->line = nl;
        if ((nlen = (size_t *)realloc(r->len, ns * sizeof *nlen)) != NULL)
            r->len = nlen;
        if ((ncap = (size_t *)realloc(r->cap, ns * sizeof *ncap)) != NULL)
            r->cap = ncap;
        if (!nl || !nlen || !ncap) {
            fprintf(stderr, "%s: out of memory for the last %llu records\n", AVKCLI_PROG,
                    (unsigned long long)r->n);
            return AVKCLI_FAIL;
        }
        for (i = r->slots; i < ns; i++) {
            r->line[i] = NULL;
            r->len[i] = r->cap[i] = 0;
        }
        r->slots = ns;
    }
    if (r->used < r->slots) {
        at = r->used++;
    } else {
        at = r->head;
        r->head = (r->head + 1) % r->slots;
    }
    if (r->cap[at] < len) {
        char *nb = (char *)realloc(r->line[at], len);
        if (!nb) {
            fprintf(stderr, "%s: out of memory for a record of %zu bytes\n", AVKCLI_PROG, len);
            return AVKCLI_FAIL;
        }
        r->line[at] = nb;
        r->cap[at] = len;
    }
    memcpy(r->line[at], data, len);
    r->len[at] = len;
    return AVKCLI_OK;
}

static int ring_write(const ring *r, avk_writer *w)
{
    size_t i;
    avk_error err;
    for (i = 0; i < r->used; i++) {
        size_t at = (r->head + i) % r->slots;
        if (avk_writer_write_raw(w, r->line[at], r->len[at], &err) != AVK_OK) {
            fprintf(stderr, "%s: writing standard output: %s\n", AVKCLI_PROG, err.message);
            return AVKCLI_FAIL;
        }
    }
    return AVKCLI_OK;
}

static void ring_free(ring *r)
{
    size_t i;
    for (i = 0; i < r->slots; i++)
        free(r->line[i]);
    free(r->line);
    free(r->len);
    free(r->cap);
}

/* In order, keeping the last n records' lines. */
static int tail_in_order(tail_ctx *t, uint64_t n)
{
    avk_file_reader *fr;
    avk_error err, verr;
    avk_value v;
    avk_status st, vst = AVK_OK;
    ring r;
    int more, rc = avkcli_reader_open(t->path, NULL, &fr);
    if (rc != AVKCLI_OK)
        return rc;
    memset(&r, 0, sizeof r);
    r.n = n;
    for (;;) {
        const uint8_t *data;
        size_t len;
        st = avk_file_reader_next(fr, t->arena, &v, &more, &err);
        if (st != AVK_OK || !more)
            break;
        /* Only the last n are printed, but every record must be one tojson
         * could print: a value that cannot be written stops here too. */
        avk_writer_reset(&t->rec);
        vst = avk_value_write_json(&v, t->flags, &t->rec, &verr);
        if (vst == AVK_OK)
            vst = avk_writer_write_raw(&t->rec, "\n", 1, &verr);
        avk_arena_reset(t->arena);
        if (vst != AVK_OK)
            break;
        {
            uint64_t block, record;
            place(t, fr, &block, &record); /* keeps the numbering for a later error */
        }
        data = avk_writer_data(&t->rec, &len);
        rc = ring_put(&r, data, len);
        if (rc != AVKCLI_OK)
            break;
    }
    if (rc == AVKCLI_OK)
        rc = ring_write(&r, t->out);
    if (rc == AVKCLI_OK && vst != AVK_OK) {
        avk_error ferr;
        uint64_t block, record;
        avk_writer_flush(t->out, &ferr);
        place(t, fr, &block, &record);
        avkcli_report_value(t->path, block, record, vst, &verr);
        rc = AVKCLI_FAIL;
    } else if (rc == AVKCLI_OK && st != AVK_OK) {
        avk_error ferr;
        avk_writer_flush(t->out, &ferr);
        avkcli_report(t->path, &err);
        rc = AVKCLI_FAIL;
    }
    ring_free(&r);
    avk_file_reader_free(fr);
    return rc;
}

int avkcli_cmd_tail(int argc, char **argv)
{
    const char *lines = NULL, *invalid_utf8 = NULL;
    int pretty = 0, help_wanted, rc;
    uint64_t n = 10;
    size_t npos;
    char **pos;
    unsigned utf8_flag = 0;
    avk_file_index *idx = NULL;
    avk_writer w;
    avk_error err;
    tail_ctx t;
    const avkcli_option opts[] = {
        {"--lines", 'n', &lines, NULL, "a number of records"},
        {"--pretty", 0, NULL, &pretty, NULL},
        {"--invalid-utf8", 0, &invalid_utf8, NULL, "fail or replace"},
        AVKCLI_LIMIT_OPTIONS,
    };
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    if (!pos)
        return AVKCLI_FAIL;
    rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        free(pos);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--lines", lines, &n);
    if (rc == AVKCLI_OK && invalid_utf8) {
        if (strcmp(invalid_utf8, "replace") == 0)
            utf8_flag = AVK_JSON_REPLACE_INVALID_UTF8;
        else if (strcmp(invalid_utf8, "fail") != 0)
            rc = avkcli_usage_error(PREFIX, "--invalid-utf8 wants fail or replace, not '%s'",
                                    invalid_utf8);
    }
    if (rc == AVKCLI_OK && npos != 1)
        rc = avkcli_usage_error(PREFIX, npos ? "one FILE at a time"
                                             : "missing FILE (use '-' for standard input)");
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    memset(&t, 0, sizeof t);
    t.path = pos[0];
    t.flags = (pretty ? AVK_JSON_PRETTY : 0) | utf8_flag;
    t.out = &w;
    if (avk_arena_new(NULL, &t.arena, &err) != AVK_OK ||
        avk_writer_init_memory(&t.rec, NULL, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        avk_arena_free(t.arena);
        free(pos);
        return AVKCLI_FAIL;
    }
    rc = avkcli_stdout_open(&w);
    if (rc == AVKCLI_OK) {
        /* No index (standard input, a damaged file): the last records come
         * from reading in order, with the reader's own errors. */
        if (strcmp(t.path, "-") != 0 && avkcli_index_open(t.path, NULL, &idx, &err) == AVK_OK)
            rc = tail_indexed(&t, idx, n);
        else
            rc = tail_in_order(&t, n);
        if (rc == AVKCLI_OK)
            rc = avkcli_stdout_close(&w, AVK_OK, NULL);
        else
            avk_writer_destroy(&w);
    }
    avk_file_index_free(idx);
    avk_writer_destroy(&t.rec);
    avk_arena_free(t.arena);
    free(pos);
    return rc;
}
