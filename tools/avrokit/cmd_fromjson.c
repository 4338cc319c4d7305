/* avrokit fromjson: a stream of Avro JSON values (any layout) into a container file, in about one value's memory. */
/* POSIX: read, open (the build is strict C11). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_progress.h"

#define PREFIX AVKCLI_PROG " fromjson"

/* The read buffer's first size; it doubles while one value's text needs
 * more (up to --max-memory: a value's parsed text takes at least its size
 * from the arena, which max_memory bounds anyway). */
#define FIRST_BUFFER (64 * 1024)

static const char *const help =
    "Usage: " PREFIX " --schema S.avsc [options] JSON [OUT.avro]\n"
    "       " PREFIX " --append [options] JSON OUT.avro\n"
    "\n"
    "Reads JSON ('-': standard input): values of the schema in the Avro JSON\n"
    "encoding (as tojson prints them: unions as null or {\"branch\": value}, bytes\n"
    "as strings of code points 0-255; record fields left out take their defaults),\n"
    "one after the other in any layout: one per line, several on a line, pretty-\n"
    "printed over many lines, blank lines between. Writes them to the container\n"
    "file OUT.avro ('-' or left out: standard output). Memory stays that of one\n"
    "value and a read buffer, whatever the input's size. A value that does not\n"
    "parse or fit the schema stops the run with its line, column and value path,\n"
    "and no output file is left behind.\n"
    "\n"
    "With --append the values go at the end of the existing container file\n"
    "OUT.avro, in its own schema (--schema, if given, must be the same) and codec;\n"
    "the file's blocks are checked first. A file that ends with a torn tail (the\n"
    "start of a block a killed writer did not finish) is refused, or with\n"
    "--truncate-torn-tail cut back to its last complete block first. On success\n"
    "the new records are on disk (fsync) before the exit status says so; on\n"
    "failure they are taken off again.\n"
    "\n"
    "Options:\n"
    "  --schema S       the schema of the values (required)\n"
    "  --schema-file S  the same as --schema\n"
    "  --codec C        null (default), deflate, snappy, zstandard, bzip2 or xz\n"
    "  --level L        the codec's compression level (0: its default)\n"
    "  --append         add the values to the end of OUT.avro (see above)\n"
    "  --truncate-torn-tail  with --append: cut a torn tail instead of refusing\n"
    "  --max-depth N    nesting of one value (records, arrays, maps, unions)\n"
    "  --max-bytes N    length of one string or bytes value\n"
    "  --max-items N    items of one array or map\n"
    "  --max-memory N   memory one value may take (its parsed text and itself)\n"
    "                   (limits: 0 or left out is the library's default)\n"
    "  --quiet          no progress line on standard error\n"
    "  -h, --help       show this help and exit\n"
    "\n"
    "Example:\n"
    "  " PREFIX " --schema user.avsc --codec zstandard users.json users.avro\n"
    "  " AVKCLI_PROG " tojson --pretty users.avro | " PREFIX " --schema user.avsc - copy.avro\n";

/* The input, read piece by piece: buf[start, end) is not used up yet, and
 * buf[start] lies at offset, line and column of the whole input. */
typedef struct input {
    const char *name;
    int fd;
    int eof;
    char *buf;
    size_t cap, start, end;
    uint64_t offset, line, column;
    uint64_t max_text; /* the most one value's text may take (max_memory) */
} input;

/* Uses up n bytes: positions move past them. */
static void consume(input *in, size_t n)
{
    const char *p = in->buf + in->start, *end = p + n, *nl;
    while ((nl = (const char *)memchr(p, '\n', (size_t)(end - p))) != NULL) {
        in->line++;
        in->column = 1;
        p = nl + 1;
    }
    in->column += (uint64_t)(end - p);
    in->offset += n;
    in->start += n;
}

/* Reads more: at least twice what is pending (so a value that takes many
 * reads is parsed again only a logarithmic number of times), or to the
 * end of the input. */
static int fill(input *in)
{
    size_t pending = in->end - in->start, need = pending ? 2 * pending : 1;
    if (in->start) {
        memmove(in->buf, in->buf + in->start, pending);
        in->start = 0;
        in->end = pending;
    }
    if (pending > in->max_text) {
        fprintf(stderr,
                "%s: line %llu, column %llu: a value of more than %llu bytes of text (see "
                "--max-memory)\n",
                avkcli_display_name(in->name), (unsigned long long)in->line,
                (unsigned long long)in->column, (unsigned long long)in->max_text);
        return AVKCLI_FAIL;
    }
    if (need > in->cap) {
        size_t cap = in->cap ? in->cap : FIRST_BUFFER;
        char *nb;
        while (cap < need)
            cap *= 2;
        nb = (char *)realloc(in->buf, cap);
        if (!nb) {
            fprintf(stderr, "%s: out of memory for a value of %zu bytes of text\n",
                    avkcli_display_name(in->name), pending);
            return AVKCLI_FAIL;
        }
        in->buf = nb;
        in->cap = cap;
    }
    while (in->end < need && !in->eof) {
        ssize_t n = read(in->fd, in->buf + in->end, in->cap - in->end);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "%s: read error: %s\n", avkcli_display_name(in->name),
                    strerror(errno));
            return AVKCLI_FAIL;
        }
        if (n == 0)
            in->eof = 1;
        in->end += (size_t)n;
    }
    return AVKCLI_OK;
}

/* A reading error as "<input>: line L, column C: <path>: <reason>" (the
 * library's message has the path first, then the place). */
static void print_read_error(const input *in, const avk_error *err)
{
    const char *msg = err->message;
    const char *at = err->path[0] ? strstr(msg, ": line ") : NULL;
    const char *rest = at ? strstr(at + 2, ": ") : NULL;
    if (rest)
        fprintf(stderr, "%s: %.*s: %.*s: %s\n", avkcli_display_name(in->name),
                (int)(rest - (at + 2)), at + 2, (int)(at - msg), msg, rest + 2);
    else
        fprintf(stderr, "%s: %s\n", avkcli_display_name(in->name), msg);
}

static int convert(input *in, avk_file_writer *fw, const char *out_path, const avk_type *type,
                   const avk_limits *lim, avk_arena *arena, avkcli_progress *prog)
{
    avk_json_read_options o;
    avk_value v;
    avk_error err;
    uint64_t records = 0;
    int rc;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.limits = *lim;
    if ((rc = fill(in)) != AVKCLI_OK)
        return rc;
    for (;;) {
        size_t used;
        avk_status st;
        o.flags = AVK_JSON_FIRST_VALUE | (in->eof ? AVK_JSON_LAST_TEXT : 0);
        o.offset = in->offset;
        o.line = in->line;
        o.column = in->column;
        st = avk_value_read_json_opts(type, in->buf + in->start, in->end - in->start, &o, arena,
                                      &v, &used, &err);
        if (st == AVK_ERR_TRUNCATED) {
            consume(in, used); /* white space */
            if (in->eof)
                return AVKCLI_OK; /* nothing but white space was left */
            if ((rc = fill(in)) != AVKCLI_OK)
                return rc;
            avk_arena_reset(arena);
            continue;
        }
        if (st != AVK_OK) {
            avkcli_progress_end(prog);
            print_read_error(in, &err);
            return AVKCLI_FAIL;
        }
        consume(in, used);
        if (avk_file_writer_append(fw, &v, &err) != AVK_OK) {
            avkcli_progress_end(prog);
            /* Writing a full block failed: the output's fault, not the value's. */
            if (err.status == AVK_ERR_IO)
                fprintf(stderr, "%s: %s\n",
                        strcmp(out_path, "-") == 0 ? "<stdout>" : out_path, err.message);
            else
                fprintf(stderr, "%s: the value ending at line %llu: %s\n",
                        avkcli_display_name(in->name), (unsigned long long)in->line,
                        err.message);
            return AVKCLI_FAIL;
        }
        avk_arena_reset(arena);
        if (avkcli_progress_due(prog, ++records))
            avkcli_progress_update(prog, records, in->offset);
    }
}

int avkcli_cmd_fromjson(int argc, char **argv)
{
    const char *schema_path = NULL, *schema_file = NULL, *codec = NULL, *level = NULL;
    const char *max_depth = NULL, *max_bytes = NULL, *max_items = NULL, *max_memory = NULL;
    const char *out_path;
    uint64_t depth = 0;
    int quiet = 0, help_wanted, rc, append = 0, cut_torn = 0;
    size_t npos;
    char **pos;
    avk_schema *schema = NULL;
    avk_arena *arena = NULL;
    avk_file_writer *fw = NULL;
    avk_file_writer_options wo;
    avk_limits lim;
    avk_error err;
    avkcli_progress prog;
    input in;
    const avkcli_option opts[] = {
        {"--schema", 's', &schema_path, NULL, "a schema"},
        {"--schema-file", 0, &schema_file, NULL, "a schema file"},
        {"--codec", 0, &codec, NULL, "null, deflate, snappy, zstandard, bzip2 or xz"},
        {"--level", 0, &level, NULL, "a compression level"},
        {"--max-depth", 0, &max_depth, NULL, "a number of levels"},
        {"--max-bytes", 0, &max_bytes, NULL, "a number of bytes"},
        {"--max-items", 0, &max_items, NULL, "a number of items"},
        {"--max-memory", 0, &max_memory, NULL, "a number of bytes"},
        {"--quiet", 'q', NULL, &quiet, NULL},
        {"--append", 0, NULL, &append, NULL},
        {"--truncate-torn-tail", 0, NULL, &cut_torn, NULL},
    };
    memset(&in, 0, sizeof in);
    in.fd = -1;
    memset(&lim, 0, sizeof lim);
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    if (!pos) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    avkcli_writer_options(&wo, NULL, NULL);
    rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        free(pos);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_codec(PREFIX, codec, &wo.codec);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_int(PREFIX, "--level", level, &wo.level);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--max-depth", max_depth, &depth);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--max-bytes", max_bytes, &lim.max_bytes);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--max-items", max_items, &lim.max_items);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--max-memory", max_memory, &lim.max_memory);
    lim.max_depth = depth > SIZE_MAX ? SIZE_MAX : (size_t)depth;
    if (rc == AVKCLI_OK && schema_path && schema_file)
        rc = avkcli_usage_error(PREFIX, "--schema and --schema-file both given: one schema only");
    if (!schema_path)
        schema_path = schema_file;
    if (rc == AVKCLI_OK && !schema_path && !append)
        rc = avkcli_usage_error(PREFIX, "missing --schema S.avsc");
    if (rc == AVKCLI_OK && append && npos != 2)
        rc = avkcli_usage_error(PREFIX, "--append needs JSON and OUT.avro, the file to add to");
    if (rc == AVKCLI_OK && append && codec)
        rc = avkcli_usage_error(PREFIX, "--codec with --append: appended blocks take the "
                                        "file's own codec");
    if (rc == AVKCLI_OK && cut_torn && !append)
        rc = avkcli_usage_error(PREFIX, "--truncate-torn-tail goes with --append");
    if (rc == AVKCLI_OK && (npos < 1 || npos > 2))
        rc = avkcli_usage_error(PREFIX, "want JSON and optionally OUT.avro ('-' for standard "
                                        "input/output)");
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    out_path = npos == 2 ? pos[1] : "-";
    in.name = pos[0];
    in.line = in.column = 1;
    in.max_text = lim.max_memory ? lim.max_memory : (uint64_t)1 << 30;
    rc = avkcli_check_output(out_path, pos, 1);
    if (rc == AVKCLI_OK && schema_path)
        rc = avkcli_load_schema(schema_path, &schema);
    if (rc == AVKCLI_OK && avk_arena_new(NULL, &arena, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        rc = AVKCLI_FAIL;
    }
    if (rc == AVKCLI_OK) {
        in.fd = strcmp(pos[0], "-") == 0 ? STDIN_FILENO : open(pos[0], O_RDONLY);
        if (in.fd < 0) {
            fprintf(stderr, "%s: cannot open: %s\n", pos[0], strerror(errno));
            rc = AVKCLI_FAIL;
        }
    }
    if (rc == AVKCLI_OK)
        rc = append ? avkcli_append_open(out_path, schema, &wo, cut_torn, &fw)
                    : avkcli_writer_open(out_path, schema, &wo, &fw);
    if (rc == AVKCLI_OK) {
        avkcli_progress_start(&prog, "fromjson", avkcli_file_size(pos[0]), 0, quiet);
        rc = convert(&in, fw, out_path, avk_schema_root(avk_file_writer_schema(fw)), &lim, arena,
                     &prog);
        avkcli_progress_end(&prog);
        rc = append ? avkcli_append_finish(fw, out_path, rc)
                    : avkcli_writer_finish(fw, out_path, rc);
    }
    if (in.fd > STDIN_FILENO)
        close(in.fd);
    free(in.buf);
    avk_arena_free(arena);
    avk_schema_free(schema);
    free(pos);
    return rc;
}
