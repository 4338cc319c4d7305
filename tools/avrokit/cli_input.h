/* CLI input read piece by piece, with line and column kept, shared by fromjson and the message engines (cli_message.c). */
#ifndef AVKCLI_INPUT_H
#define AVKCLI_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/avrokit.h"

/* The words fill says when what is pending outgrows its bound or memory;
 * each command keeps its own, which its tests and users know. */
typedef enum avkcli_input_words {
    /* frame, unframe: "line L: WHAT of more than N bytes (see --max-message)" */
    AVKCLI_INPUT_WORDS_MESSAGE = 0,
    /* fromjson: "line L, column C: a value of more than N bytes of text (see
     * --max-memory)"; WHAT is not used */
    AVKCLI_INPUT_WORDS_FROMJSON = 1
} avkcli_input_words;

/* An input read piece by piece: buf[start, end) is not used up yet and
 * buf[start] lies at offset (and line, column) of the whole input. */
typedef struct avkcli_input {
    const char *name; /* as given ("-": standard input) */
    int fd;
    int eof;
    char *buf;
    size_t cap, start, end;
    uint64_t offset, line, column;
    /* What the first fill waits for: 1 hands a pipe's first bytes on at
     * once (fromjson), a whole read buffer saves looking at a value again. */
    size_t first_need;
    avkcli_input_words words;
} avkcli_input;

/* Opens path ("-": standard input) at line 1, column 1, with the message
 * engines' settings (first_need a whole buffer, their words); a command
 * may change those before the first fill. Prints "PATH: cannot open: ..."
 * and returns AVKCLI_FAIL when it cannot. */
int avkcli_input_open(avkcli_input *in, const char *path);

/* Closes the file (never standard input) and frees the buffer; safe on an
 * input zeroed with fd -1 that was never opened. */
void avkcli_input_close(avkcli_input *in);

/* Uses up n bytes: positions move past them. */
void avkcli_input_consume(avkcli_input *in, size_t n);

/* Reads more: until at least twice what is pending is there, or to the
 * end of the input. max bounds what may be pending; what names it in the
 * message when it does not fit (see avkcli_input_words). Returns AVKCLI_OK,
 * or AVKCLI_FAIL with the error printed. */
int avkcli_input_fill(avkcli_input *in, uint64_t max, const char *what);

/* 1 when a read of in would not wait (bytes or the end are there now),
 * else 0. */
int avkcli_input_ready(const avkcli_input *in);

/* Reads the next piece of a binary input, at most size bytes, into
 * buf[0, *n) (*n 0: the end). Returns AVKCLI_OK, or AVKCLI_FAIL with the
 * read error printed. */
int avkcli_input_read_piece(avkcli_input *in, char *buf, size_t size, size_t *n);

/* Reads the next Avro JSON value of type from the input, any layout, with
 * o's limits and flags AVK_JSON_FIRST_VALUE (this sets the rest of o).
 * Returns AVKCLI_OK with *got 1 (the value in *v, its text used up; the
 * caller resets arena after it) or *got 0 (nothing but white space was
 * left), or AVKCLI_FAIL: *bad_value 1 when the text is not a value of type
 * (err says why: print it with avkcli_input_print_json_error), 0 when a
 * read error or the text's bound has been printed. A value's text may take
 * o->limits.max_memory bytes (0: 1 GiB), as its parse would anyway. */
int avkcli_input_next_json(avkcli_input *in, const avk_type *type, avk_json_read_options *o,
                           avk_arena *arena, avk_value *v, int *got, int *bad_value,
                           avk_error *err);

/* A JSON reading error as "<input>: line L, column C: <path>: <reason>"
 * (the library's message has the path first, then the place). */
void avkcli_input_print_json_error(const avkcli_input *in, const avk_error *err);

#endif
