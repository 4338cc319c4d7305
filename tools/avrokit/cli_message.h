/* CLI pieces shared by jsontofrag, fragtojson, frame and unframe: stream formats of messages, byte outputs, the two engines (values to messages, messages to values) and their option helpers. */
#ifndef AVKCLI_MESSAGE_H
#define AVKCLI_MESSAGE_H

#include <stdint.h>

#include "avrokit/avrokit.h"
#include "avrokit/message.h"
#include "avrokit/push.h"

/* How messages follow one another in a stream (docs/cli.md, "Message
 * formats"). */
typedef enum avkcli_delimit {
    AVKCLI_DELIMIT_LENGTH = 0, /* 4-byte big-endian length, then the message */
    AVKCLI_DELIMIT_HEX = 1,    /* one message per line, lowercase hex digits */
    AVKCLI_DELIMIT_BASE64 = 2, /* one message per line, RFC 4648 base64 with padding */
    AVKCLI_DELIMIT_NONE = 3    /* back to back: each delimits itself once decoded */
} avkcli_delimit;

/* --delimit NAME (text NULL leaves *out alone); a usage error otherwise. */
int avkcli_parse_delimit(const char *prefix, const char *text, avkcli_delimit *out);
/* --format NAME (text NULL leaves *out alone); a usage error otherwise. */
int avkcli_parse_framing(const char *prefix, const char *text, avk_framing *out);

/* Values into messages: frame (and jsontofrag: raw framing, no
 * delimiting). */
typedef struct avkcli_frame_job {
    char *input;        /* a file or "-" */
    const char *output; /* a file or "-" */
    const avk_schema *schema;
    avk_framing framing;
    int64_t id;         /* confluent: the schema id */
    avkcli_delimit delimit;
    int from_binary;    /* 1: raw datums back to back; 0: Avro JSON values */
    avk_limits limits;
    uint64_t max_message; /* --from binary: bytes of one datum; 0: 64 MiB */
} avkcli_frame_job;

/* Runs a frame job; prints its errors under prefix or the file's name.
 * An output file is replaced only on success. Returns an exit status. */
int avkcli_frame_run(const char *prefix, const avkcli_frame_job *job);

/* Messages into values: unframe (and fragtojson: raw framing, no
 * delimiting). */
typedef struct avkcli_unframe_job {
    char *input;
    const char *output;
    avk_framing framing;
    avk_schema_store *store;  /* single-object, confluent: writer schemas */
    const avk_schema *schema; /* raw: the writer schema */
    const avk_schema *reader; /* NULL: values in their writer's schema */
    avkcli_delimit delimit;
    int to_binary;            /* 1: raw datums back to back; 0: JSON lines */
    unsigned json_flags;      /* AVK_JSON_PRETTY, AVK_JSON_REPLACE_INVALID_UTF8 */
    avk_limits limits;        /* raw: the plan's limits (the store has its own) */
    uint64_t max_message;     /* 0: 64 MiB */
} avkcli_unframe_job;

int avkcli_unframe_run(const char *prefix, const avkcli_unframe_job *job);

/* A size option (--max-message): a whole number, optionally ending in K,
 * M, G or T (powers of 1024, as the limit options take them). text NULL
 * leaves *out alone; a usage error naming option otherwise. */
int avkcli_parse_size(const char *prefix, const char *option, const char *text, uint64_t *out);

/* The limit options of the command line (AVKCLI_LIMIT_OPTIONS) for the
 * values of messages; zeros are the library's defaults. */
void avkcli_message_limits(avk_limits *out);

#define AVKCLI_MESSAGE_LIMITS_HELP                                                             \
    "Limits on what the input may claim (0: the default; N may end in K, M, G or T):\n"        \
    "  --max-depth N         nesting of one value (default 1000000)\n"                         \
    "  --max-bytes N         one string or bytes value (default 256M)\n"                       \
    "  --max-items N         items of one array or map (default 64M)\n"                        \
    "  --max-empty-items N   zero-byte items (nulls, empty records) in one value (1M)\n"        \
    "  --max-memory N        memory one decoded value may take (default 1G)\n"                 \
    "  --max-message N       bytes of one message or datum (default 64M)\n"

/* Takes every occurrence of the option name ("--schema VALUE" or
 * "--schema=VALUE", before any "--") out of argv: their values go to
 * vals (room for argc entries) in order, *nvals their number; argv keeps
 * the rest, *argc their number. A missing value is a usage error. */
int avkcli_take_repeated(const char *prefix, const char *name, int *argc, char **argv,
                         const char **vals, size_t *nvals);

/* The writer schema of jsontofrag and fragtojson, given as avro-tools takes
 * it: by exactly one of --schema (a file or JSON), --schema-file and
 * --schema-json, or, with none of them and two arguments, the first
 * argument (avro-tools' "SCHEMA INPUT"): then *text becomes it and it is
 * taken out of pos. A usage error when none or more than one is given. */
int avkcli_frag_schema_given(const char *prefix, const char **text, const char *file,
                             const char *json, char **pos, size_t *npos);
/* Loads the one given (checked by avkcli_frag_schema_given): prints the
 * error ("<schema text>: ..." for --schema-json) and returns AVKCLI_FAIL
 * when it does not load. */
int avkcli_frag_schema_load(const char *text, const char *file, const char *json,
                            avk_schema **out);

#endif
