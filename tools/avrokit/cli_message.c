/* CLI engines of jsontofrag, fragtojson, frame and unframe: values to delimited messages and back, over byte outputs replaced only on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_input.h"
#include "cli_message.h"
#include "cli_records.h"

/* Bytes of a binary input read at a time. */
#define CHUNK (64 * 1024)
/* The push decoder's default bound on one message, which lines of hex or
 * base64 text also keep to. */
#define DEFAULT_MAX_MESSAGE ((uint64_t)64 << 20)

/* ---- options ------------------------------------------------------------- */

int avkcli_parse_delimit(const char *prefix, const char *text, avkcli_delimit *out)
{
    static const char *const names[] = {"length", "hex", "base64", "none"};
    size_t i;
    if (!text)
        return AVKCLI_OK;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = (avkcli_delimit)i;
            return AVKCLI_OK;
        }
    return avkcli_usage_error(prefix, "--delimit wants length, hex, base64 or none, not '%s'",
                              text);
}

int avkcli_parse_framing(const char *prefix, const char *text, avk_framing *out)
{
    if (!text)
        return AVKCLI_OK;
    if (avk_framing_parse(text, out) == 0)
        return AVKCLI_OK;
    return avkcli_usage_error(prefix,
                              "--format wants single-object, confluent or raw, not '%s'", text);
}

int avkcli_parse_size(const char *prefix, const char *option, const char *text, uint64_t *out)
{
    static const char units[] = "KMGT";
    const char *u;
    uint64_t v;
    size_t digits;
    int shift = 0;
    char num[24];
    if (!text)
        return AVKCLI_OK;
    digits = strspn(text, "0123456789");
    if (digits > 0 && digits < sizeof num && text[digits] &&
        (u = strchr(units, text[digits] & ~0x20)) != NULL && *u &&
        (!text[digits + 1] || strcmp(text + digits + 1, "iB") == 0))
        shift = 10 * (int)(u - units + 1);
    else
        return avkcli_parse_u64(prefix, option, text, out);
    memcpy(num, text, digits);
    num[digits] = '\0';
    if (avkcli_parse_u64(prefix, option, num, &v) != AVKCLI_OK)
        return AVKCLI_USAGE;
    if (v > (UINT64_MAX >> shift))
        return avkcli_usage_error(prefix, "%s %s: too large", option, text);
    *out = v << shift;
    return AVKCLI_OK;
}

void avkcli_message_limits(avk_limits *out)
{
    avk_file_reader_options o;
    avk_file_reader_options_init(&o);
    avkcli_limits_apply(&o);
    *out = o.limits;
}

int avkcli_take_repeated(const char *prefix, const char *name, int *argc, char **argv,
                         const char **vals, size_t *nvals)
{
    size_t n = strlen(name);
    int i, kept = 1, options = 1;
    *nvals = 0;
    for (i = 1; i < *argc; i++) {
        char *arg = argv[i];
        if (options && strcmp(arg, "--") == 0)
            options = 0;
        if (options && strcmp(arg, name) == 0) {
            if (i + 1 >= *argc)
                return avkcli_usage_error(prefix, "%s needs a value", name);
            vals[(*nvals)++] = argv[++i];
            continue;
        }
        if (options && strncmp(arg, name, n) == 0 && arg[n] == '=') {
            vals[(*nvals)++] = arg + n + 1;
            continue;
        }
        argv[kept++] = arg;
    }
    *argc = kept;
    return AVKCLI_OK;
}

int avkcli_frag_schema_given(const char *prefix, const char **text, const char *file,
                             const char *json, char **pos, size_t *npos)
{
    int given = (*text != NULL) + (file != NULL) + (json != NULL);
    /* avro-tools' form: the schema first, then the input. */
    if (given == 0 && *npos == 2) {
        *text = pos[0];
        pos[0] = pos[1];
        *npos = 1;
        return AVKCLI_OK;
    }
    if (given == 0)
        return avkcli_usage_error(prefix, "missing --schema S.avsc");
    if (given > 1)
        return avkcli_usage_error(prefix, "give one of --schema, --schema-file, --schema-json");
    return AVKCLI_OK;
}

int avkcli_frag_schema_load(const char *text, const char *file, const char *json,
                            avk_schema **out)
{
    avk_error err;
    if (!json)
        return file ? avkcli_load_schema_file(file, out) : avkcli_load_schema(text, out);
    if (avk_schema_parse(json, strlen(json), NULL, out, &err) != AVK_OK) {
        fprintf(stderr, "<schema text>: %s\n", err.message);
        return AVKCLI_FAIL;
    }
    return AVKCLI_OK;
}

/* ---- byte outputs ---------------------------------------------------------
 * Kept from harm by cli_output.c (a temporary file renamed over a regular
 * file on success; devices, FIFOs and standard output written straight),
 * written through a buffered writer. */

typedef struct output {
    avk_writer w;
    const char *path; /* as given */
    int handle;       /* avkcli_output_open's */
} output;

static const char *out_name(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdout>" : path;
}

static int output_finish(output *o, int rc);

/* The command's output, flushed before an error is printed so that on a
 * terminal (or with 2>&1) the values come before the error they precede,
 * and before the input is waited for, so a live stream's values show as
 * they come. One output per command. */
static output *live_output;

static void flush_live(void)
{
    avk_error err;
    if (live_output)
        (void)avk_writer_flush(&live_output->w, &err);
}

static int output_open(output *o, const char *path)
{
    avk_writer_options wo;
    avk_error err;
    int fd;
    memset(o, 0, sizeof *o);
    o->path = path;
    if (avkcli_output_open(path, &fd, &o->handle) != AVKCLI_OK)
        return AVKCLI_FAIL;
    avk_writer_options_init(&wo);
    wo.name = out_name(path);
    if (avk_writer_init_fd(&o->w, fd, &wo, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", out_name(path), err.message);
        return output_finish(o, AVKCLI_FAIL);
    }
    live_output = o;
    return AVKCLI_OK;
}

/* Flushes (rc AVKCLI_OK) and puts a temporary file in place, or removes
 * it (rc not AVKCLI_OK, or a failure here). Returns the final status. */
static int output_finish(output *o, int rc)
{
    avk_error err;
    if (rc == AVKCLI_OK && avk_writer_flush(&o->w, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", out_name(o->path), err.message);
        rc = AVKCLI_FAIL;
    } else if (rc != AVKCLI_OK) {
        /* On standard output or a device the values before the damage are
         * worth having, as tojson gives them (a temporary file goes anyway). */
        (void)avk_writer_flush(&o->w, &err);
    }
    avk_writer_destroy(&o->w);
    if (live_output == o)
        live_output = NULL;
    return avkcli_output_finish(o->handle, o->path, rc);
}

/* ---- message text ------------------------------------------------------------ */

static const char hex_digits[] = "0123456789abcdef";
static const char b64_digits[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Writes one message delimited as d. */
static avk_status emit(avk_writer *w, avkcli_delimit d, const uint8_t *msg, size_t len,
                       avk_error *err)
{
    avk_status st = AVK_OK;
    uint64_t len64 = len; /* (a size_t compare is always false on 32-bit: -Wtype-limits) */
    size_t i;
    uint8_t quad[4];
    switch (d) {
    case AVKCLI_DELIMIT_LENGTH:
        if (len64 > UINT32_MAX)
            return avk_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                                 "a message of %zu bytes does not fit a 4-byte length", len);
        quad[0] = (uint8_t)(len >> 24);
        quad[1] = (uint8_t)(len >> 16);
        quad[2] = (uint8_t)(len >> 8);
        quad[3] = (uint8_t)len;
        st = avk_writer_write_raw(w, quad, 4, err);
        /* fall through */
    case AVKCLI_DELIMIT_NONE:
        return st == AVK_OK ? avk_writer_write_raw(w, msg, len, err) : st;
    case AVKCLI_DELIMIT_HEX:
        for (i = 0; i < len && st == AVK_OK; i++) {
            char two[2] = {hex_digits[msg[i] >> 4], hex_digits[msg[i] & 15]};
            st = avk_writer_write_raw(w, two, 2, err);
        }
        break;
    default: /* base64, RFC 4648 section 4, with padding */
        for (i = 0; i < len && st == AVK_OK; i += 3) {
            uint32_t v = (uint32_t)msg[i] << 16;
            char four[4];
            if (i + 1 < len)
                v |= (uint32_t)msg[i + 1] << 8;
            if (i + 2 < len)
                v |= msg[i + 2];
            four[0] = b64_digits[v >> 18];
            four[1] = b64_digits[(v >> 12) & 63];
            four[2] = i + 1 < len ? b64_digits[(v >> 6) & 63] : '=';
            four[3] = i + 2 < len ? b64_digits[v & 63] : '=';
            st = avk_writer_write_raw(w, four, 4, err);
        }
        break;
    }
    return st == AVK_OK ? avk_writer_write_raw(w, "\n", 1, err) : st;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int b64_value(char c)
{
    const char *p = c ? strchr(b64_digits, c) : NULL;
    return p ? (int)(p - b64_digits) : -1;
}

/* Decodes one line of text (without its newline) into out (room for len
 * bytes); *n gets the bytes. Returns NULL, or what is wrong. */
static const char *decode_line(avkcli_delimit d, const char *text, size_t len, uint8_t *out,
                               size_t *n, size_t *col)
{
    static char why[96];
    size_t i;
    *n = 0;
    if (d == AVKCLI_DELIMIT_HEX) {
        if (len % 2) {
            snprintf(why, sizeof why, "an odd number of hex digits (%zu)", len);
            *col = len;
            return why;
        }
        for (i = 0; i < len; i += 2) {
            int hi = hex_value(text[i]), lo = hex_value(text[i + 1]);
            if (hi < 0 || lo < 0) {
                *col = hi < 0 ? i : i + 1;
                snprintf(why, sizeof why, "'%c' is not a hex digit", text[*col]);
                return why;
            }
            out[(*n)++] = (uint8_t)(hi << 4 | lo);
        }
        return NULL;
    }
    if (len % 4) {
        snprintf(why, sizeof why,
                 "%zu base64 characters, not a multiple of 4 (padding with '=' is required)", len);
        *col = len;
        return why;
    }
    for (i = 0; i < len; i += 4) {
        int v[4], k, pad = 0;
        for (k = 0; k < 4; k++) {
            char c = text[i + (size_t)k];
            /* '=' only as the last one or two characters of the line. */
            if (c == '=' && i + 4 == len && (k == 3 || (k == 2 && text[i + 3] == '='))) {
                v[k] = 0;
                pad++;
                continue;
            }
            v[k] = b64_value(c);
            if (v[k] < 0) {
                *col = i + (size_t)k;
                snprintf(why, sizeof why, "'%c' is not a base64 character here", c);
                return why;
            }
        }
        out[(*n)++] = (uint8_t)(v[0] << 2 | v[1] >> 4);
        if (pad < 2)
            out[(*n)++] = (uint8_t)((v[1] & 15) << 4 | v[2] >> 2);
        if (pad < 1)
            out[(*n)++] = (uint8_t)((v[2] & 3) << 6 | v[3]);
    }
    return NULL;
}

/* ---- frame ------------------------------------------------------------------- */

typedef struct framer {
    const avk_message_encoder *enc;
    avk_writer msg; /* memory: the message being made */
    output *out;
    avkcli_delimit delimit;
    const char *in_name;
    uint64_t count;
} framer;

/* Encodes v as the next message and writes it out. */
static int frame_value(framer *f, const avk_value *v, const char *in_name)
{
    const uint8_t *data;
    size_t len;
    avk_error err;
    avk_writer_reset(&f->msg);
    if (avk_message_encode(f->enc, v, &f->msg, &err) != AVK_OK) {
        fprintf(stderr, "%s: value %llu: %s\n", avkcli_display_name(in_name),
                (unsigned long long)f->count + 1, err.message);
        return AVKCLI_FAIL;
    }
    data = avk_writer_data(&f->msg, &len);
    if (emit(&f->out->w, f->delimit, data, len, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", out_name(f->out->path), err.message);
        return AVKCLI_FAIL;
    }
    f->count++;
    return AVKCLI_OK;
}

static int frame_json(framer *f, avkcli_input *in, const avk_type *type, const avk_limits *lim,
                      avk_arena *arena)
{
    avk_json_read_options o;
    avk_value v;
    avk_error err;
    avk_json_read_options_init(&o);
    o.limits = *lim;
    for (;;) {
        int got, bad_value, rc;
        rc = avkcli_input_next_json(in, type, &o, arena, &v, &got, &bad_value, &err);
        if (rc != AVKCLI_OK && bad_value)
            avkcli_input_print_json_error(in, &err);
        if (rc != AVKCLI_OK || !got)
            return rc;
        if ((rc = frame_value(f, &v, in->name)) != AVKCLI_OK)
            return rc;
        avk_arena_reset(arena);
    }
}

/* "FILE: datum|message N at byte B: <why>", adding where the error is
 * when the library's message does not say. */
static void report_at(const char *name, const char *what, uint64_t n, uint64_t start,
                      const avk_error *err)
{
    char num[24], at[48] = "", hint[64] = "";
    const char *flag = NULL;
    snprintf(num, sizeof num, "%llu", (unsigned long long)err->offset);
    if (err->offset != AVK_OFFSET_UNKNOWN && err->offset != start && !strstr(err->message, num))
        snprintf(at, sizeof at, " (at byte offset %llu)", (unsigned long long)err->offset);
    /* A limit, not damage: say which option reads the input anyway. */
    if (err->status == AVK_ERR_LIMIT)
        flag = strstr(err->message, "max_message") ? "--max-message"
                                                   : avkcli_limit_flag(err->message);
    if (flag)
        snprintf(hint, sizeof hint, " (a limit, not damage: %s raises it)", flag);
    flush_live();
    fprintf(stderr, "%s: %s %llu at byte %llu: %s%s%s\n", avkcli_display_name(name), what,
            (unsigned long long)n, (unsigned long long)start, err->message, at, hint);
}

/* Called by push_all for the n-th value (from 1), whose bytes start at
 * byte start of the input. */
typedef int (*value_fn)(void *ctx, const avk_value *v, avk_push_decoder *pd, uint64_t n,
                        uint64_t start);

/* Feeds the whole input to a push decoder made with po and calls each for
 * every value; what names a value in messages ("datum", "message"). */
static int push_all(avkcli_input *in, const avk_push_options *po, const char *what, avk_arena *arena,
                    value_fn each, void *ctx)
{
    avk_push_decoder *pd = NULL;
    avk_error err;
    char *piece = (char *)malloc(CHUNK);
    uint64_t n = 0, fed = 0, since = 0;
    int rc = AVKCLI_OK, more = 1;
    if (!piece) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    if (avk_push_decoder_new(po, &pd, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        free(piece);
        return AVKCLI_FAIL;
    }
    while (rc == AVKCLI_OK && more) {
        size_t len;
        if (!avkcli_input_ready(in))
            flush_live(); /* about to wait for input: show what is done */
        if ((rc = avkcli_input_read_piece(in, piece, CHUNK, &len)) != AVKCLI_OK)
            break;
        more = len > 0;
        if (more && avk_push_decoder_feed(pd, piece, len, &err) != AVK_OK) {
            report_at(in->name, what, n + 1, avk_push_decoder_offset(pd), &err);
            rc = AVKCLI_FAIL;
            break;
        }
        fed += len;
        since += len;
        /* Datums back to back say nothing of their length: each try skips
         * the pending one from its start. While more input is ready, try
         * again only once it has grown by a quarter, so a datum of n bytes
         * costs O(n), not one try per piece (O(n^2 / CHUNK)); before
         * waiting for input, always try. */
        if (more && since < (fed - avk_push_decoder_offset(pd)) / 4 && avkcli_input_ready(in))
            continue;
        since = 0;
        for (;;) {
            uint64_t start = avk_push_decoder_offset(pd);
            avk_value v;
            int got;
            avk_arena_reset(arena);
            if (avk_push_decoder_next(pd, arena, &v, &got, &err) != AVK_OK) {
                report_at(in->name, what, n + 1, start, &err);
                rc = AVKCLI_FAIL;
                break;
            }
            if (!got)
                break;
            n++;
            if ((rc = each(ctx, &v, pd, n, start)) != AVKCLI_OK)
                break;
        }
    }
    if (rc == AVKCLI_OK && avk_push_decoder_end(pd, &err) != AVK_OK) {
        report_at(in->name, what, n + 1, avk_push_decoder_offset(pd), &err);
        rc = AVKCLI_FAIL;
    }
    avk_push_decoder_free(pd);
    free(piece);
    return rc;
}

static int frame_each(void *ctx, const avk_value *v, avk_push_decoder *pd, uint64_t n,
                      uint64_t start)
{
    framer *f = (framer *)ctx;
    (void)pd;
    (void)n;
    (void)start;
    return frame_value(f, v, f->in_name);
}

int avkcli_frame_run(const char *prefix, const avkcli_frame_job *job)
{
    avk_plan *plan = NULL;
    avk_plan_options po;
    avk_message_encoder enc;
    avk_arena *arena = NULL;
    avk_error err;
    framer f;
    avkcli_input in;
    output out;
    char *inputs[1];
    int rc;
    memset(&f, 0, sizeof f);
    inputs[0] = job->input;
    if ((rc = avkcli_check_output(job->output, inputs, 1)) != AVKCLI_OK)
        return rc;
    avk_plan_options_init(&po);
    po.limits = job->limits;
    if (avk_plan_new(avk_schema_root(job->schema), &po, &plan, &err) != AVK_OK ||
        avk_message_encoder_init(&enc, job->framing, plan, job->id, &err) != AVK_OK ||
        avk_arena_new(NULL, &arena, &err) != AVK_OK ||
        avk_writer_init_memory(&f.msg, NULL, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", prefix, err.message);
        avk_writer_destroy(&f.msg);
        avk_arena_free(arena);
        avk_plan_free(plan);
        return AVKCLI_FAIL;
    }
    f.enc = &enc;
    f.out = &out;
    f.delimit = job->delimit;
    f.in_name = job->input;
    rc = avkcli_input_open(&in, job->input);
    if (rc == AVKCLI_OK) {
        rc = output_open(&out, job->output);
        if (rc == AVKCLI_OK) {
            if (job->from_binary) {
                avk_push_options o;
                memset(&o, 0, sizeof o);
                o.struct_size = sizeof o;
                o.input = AVK_PUSH_MESSAGES;
                o.message.struct_size = sizeof o.message;
                o.message.framing = AVK_FRAMING_RAW;
                o.message.plan = plan;
                o.max_message = job->max_message;
                rc = push_all(&in, &o, "datum", arena, frame_each, &f);
            } else {
                rc = frame_json(&f, &in, avk_schema_root(job->schema), &job->limits, arena);
            }
            rc = output_finish(&out, rc);
        }
        avkcli_input_close(&in);
    }
    avk_writer_destroy(&f.msg);
    avk_arena_free(arena);
    avk_plan_free(plan);
    return rc;
}

/* ---- unframe ------------------------------------------------------------------ */

typedef struct unframer {
    const avkcli_unframe_job *job;
    output *out;
    avk_writer rec;          /* memory: one JSON line */
    const avk_plan *encode;  /* --to binary with a reader schema or raw: its plain plan */
    const char *what;        /* "message" or "datum" */
} unframer;

/* Writes one decoded value; writer is the schema it was written with
 * (NULL for raw). start is where its message began in the input. */
static int unframe_value(unframer *u, const avk_value *v, const avk_schema *writer, uint64_t n,
                         uint64_t start)
{
    avk_error err;
    avk_status st;
    if (u->job->to_binary) {
        const avk_plan *plan = u->encode;
        if (!plan &&
            avk_schema_store_plan(u->job->store, writer, NULL, &plan, &err) != AVK_OK) {
            report_at(u->job->input, u->what, n, start, &err);
            return AVKCLI_FAIL;
        }
        st = avk_plan_encode(plan, v, &u->out->w, &err);
        if (st != AVK_OK) {
            fprintf(stderr, "%s: %s\n", out_name(u->out->path), err.message);
            return AVKCLI_FAIL;
        }
        return AVKCLI_OK;
    } else {
        int value_error;
        st = avkcli_json_line(v, u->job->json_flags, &u->rec, &u->out->w, &value_error, &err);
        if (st == AVK_OK)
            return AVKCLI_OK;
        if (value_error)
            fprintf(stderr, "%s: %s %llu at byte %llu: %s%s\n",
                    avkcli_display_name(u->job->input), u->what, (unsigned long long)n,
                    (unsigned long long)start, err.message,
                    st == AVK_ERR_MALFORMED ? " (--invalid-utf8=replace writes U+FFFD instead)"
                                            : "");
        else
            fprintf(stderr, "%s: %s\n", out_name(u->out->path), err.message);
        return AVKCLI_FAIL;
    }
}

static int unframe_each(void *ctx, const avk_value *v, avk_push_decoder *pd, uint64_t n,
                        uint64_t start)
{
    return unframe_value((unframer *)ctx, v, avk_push_decoder_schema(pd), n, start);
}

/* Hex or base64 lines, one message each, through a message decoder. */
static int unframe_lines(unframer *u, avkcli_input *in, const avk_message_decoder_options *mo,
                         avk_arena *arena)
{
    const avkcli_unframe_job *job = u->job;
    avk_message_decoder *dec = NULL;
    avk_error err;
    uint64_t max_msg = job->max_message ? job->max_message : DEFAULT_MAX_MESSAGE;
    /* Two digits per byte, and the line end (saturated: --max-message may
     * say up to 2^64 - 1). */
    uint64_t max_line = max_msg > (UINT64_MAX - 2) / 2 ? UINT64_MAX : max_msg * 2 + 2, n = 0;
    uint8_t *msg = NULL;
    size_t msg_cap = 0;
    int rc = AVKCLI_OK;
    const char *what = job->delimit == AVKCLI_DELIMIT_HEX ? "a line of hex" : "a line of base64";
    if (avk_message_decoder_new(mo, &dec, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        return AVKCLI_FAIL;
    }
    if ((rc = avkcli_input_fill(in, max_line, what)) != AVKCLI_OK) {
        avk_message_decoder_free(dec);
        return rc;
    }
    for (;;) {
        char *line = in->buf + in->start, *nl;
        size_t len = in->end - in->start, text_len, got, col = 0;
        const char *why;
        nl = len ? (char *)memchr(line, '\n', len) : NULL;
        if (!nl && !in->eof) {
            if ((rc = avkcli_input_fill(in, max_line, what)) != AVKCLI_OK)
                break;
            continue;
        }
        if (!nl && len == 0)
            break; /* the end, after a newline or nothing */
        text_len = nl ? (size_t)(nl - line) : len;
        n++;
        if (text_len > 0 && line[text_len - 1] == '\r') /* CRLF line ends */
            text_len--;
        if (text_len > msg_cap) {
            uint8_t *nm = (uint8_t *)realloc(msg, text_len);
            if (!nm) {
                fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
                rc = AVKCLI_FAIL;
                break;
            }
            msg = nm;
            msg_cap = text_len;
        }
        why = decode_line(job->delimit, line, text_len, msg, &got, &col);
        if (why) {
            fprintf(stderr, "%s: message %llu (line %llu) at byte %llu: %s\n",
                    avkcli_display_name(in->name), (unsigned long long)n,
                    (unsigned long long)in->line, (unsigned long long)(in->offset + col), why);
            rc = AVKCLI_FAIL;
            break;
        }
        if ((uint64_t)got > max_msg) {
            fprintf(stderr,
                    "%s: message %llu (line %llu) at byte %llu: %zu bytes, more than "
                    "max_message (%llu) (a limit, not damage: --max-message raises it)\n",
                    avkcli_display_name(in->name), (unsigned long long)n,
                    (unsigned long long)in->line, (unsigned long long)in->offset, got,
                    (unsigned long long)max_msg);
            rc = AVKCLI_FAIL;
            break;
        }
        avk_arena_reset(arena);
        {
            avk_value v;
            if (avk_message_decode(dec, msg, got, arena, &v, &err) != AVK_OK) {
                fprintf(stderr, "%s: message %llu (line %llu) at byte %llu: %s\n",
                        avkcli_display_name(in->name), (unsigned long long)n,
                        (unsigned long long)in->line, (unsigned long long)in->offset,
                        err.message);
                rc = AVKCLI_FAIL;
                break;
            }
            rc = unframe_value(u, &v, avk_message_decoder_writer(dec), n, in->offset);
            if (rc != AVKCLI_OK)
                break;
        }
        avkcli_input_consume(in, nl ? (size_t)(nl - line) + 1 : len);
    }
    free(msg);
    avk_message_decoder_free(dec);
    return rc;
}

int avkcli_unframe_run(const char *prefix, const avkcli_unframe_job *job)
{
    avk_plan *plan = NULL, *encode = NULL;
    avk_plan_options po;
    avk_message_decoder_options mo;
    avk_arena *arena = NULL;
    avk_error err;
    avk_status st = AVK_OK;
    unframer u;
    avkcli_input in;
    output out;
    char *inputs[1];
    int rc;
    memset(&u, 0, sizeof u);
    u.job = job;
    u.out = &out;
    u.what = job->framing == AVK_FRAMING_RAW && job->delimit == AVKCLI_DELIMIT_NONE ? "datum"
                                                                                  : "message";
    inputs[0] = job->input;
    if ((rc = avkcli_check_output(job->output, inputs, 1)) != AVKCLI_OK)
        return rc;
    avk_plan_options_init(&po);
    po.limits = job->limits;
    memset(&mo, 0, sizeof mo);
    mo.struct_size = sizeof mo;
    mo.framing = job->framing;
    if (job->framing == AVK_FRAMING_RAW) {
        const avk_type *w = avk_schema_root(job->schema);
        st = job->reader ? avk_plan_new_resolving(w, avk_schema_root(job->reader), &po, &plan,
                                                  &err)
                         : avk_plan_new(w, &po, &plan, &err);
        mo.plan = plan;
        if (st == AVK_OK && !job->reader)
            u.encode = plan;
    } else {
        mo.store = job->store;
        mo.reader = job->reader ? avk_schema_root(job->reader) : NULL;
    }
    /* Values of a reader schema go out in it, whatever wrote them. */
    if (st == AVK_OK && job->reader && job->to_binary) {
        st = avk_plan_new(avk_schema_root(job->reader), &po, &encode, &err);
        u.encode = encode;
    }
    if (st == AVK_OK)
        st = avk_arena_new(NULL, &arena, &err);
    if (st == AVK_OK)
        st = avk_writer_init_memory(&u.rec, NULL, &err);
    if (st == AVK_ERR_RESOLUTION) {
        fprintf(stderr, "%s: the schema cannot be read as the reader schema: %s\n", prefix,
                err.message);
        rc = AVKCLI_FAIL;
    } else if (st != AVK_OK) {
        fprintf(stderr, "%s: %s\n", prefix, err.message);
        rc = AVKCLI_FAIL;
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_input_open(&in, job->input);
    if (rc == AVKCLI_OK) {
        rc = output_open(&out, job->output);
        if (rc == AVKCLI_OK) {
            if (job->delimit == AVKCLI_DELIMIT_HEX || job->delimit == AVKCLI_DELIMIT_BASE64) {
                rc = unframe_lines(&u, &in, &mo, arena);
            } else {
                avk_push_options o;
                memset(&o, 0, sizeof o);
                o.struct_size = sizeof o;
                o.input = job->delimit == AVKCLI_DELIMIT_LENGTH ? AVK_PUSH_LENGTH_PREFIXED
                                                                : AVK_PUSH_MESSAGES;
                o.message = mo;
                o.max_message = job->max_message;
                rc = push_all(&in, &o, u.what, arena, unframe_each, &u);
            }
            rc = output_finish(&out, rc);
        }
        avkcli_input_close(&in);
    }
    avk_writer_destroy(&u.rec);
    avk_arena_free(arena);
    avk_plan_free(encode);
    avk_plan_free(plan);
    return rc;
}
