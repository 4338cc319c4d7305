/* avrokit cat: records of several container files (with offset, limit and sampling) into one file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_progress.h"
#include "random_value.h"

#define PREFIX AVKCLI_PROG " cat"

static const char *const help =
    "Usage: " PREFIX " [options] FILE... -o OUT.avro\n"
    "       " PREFIX " [options] FILE... OUT.avro\n"
    "\n"
    "Copies the records of the container files FILE... ('-': standard input), in\n"
    "order, into one container file OUT.avro ('-': standard output), given with -o\n"
    "or, as avro-tools takes it, as the last of two or more file arguments. The\n"
    "files must share one schema (the same Parsing Canonical Form); the output has\n"
    "the first file's schema, user metadata and, unless --codec says otherwise,\n"
    "codec. With --reader-schema the files may have any schemas that resolve to it:\n"
    "each record is read through it and the output has that schema.\n"
    "Records are decoded and encoded again; see concat to copy whole blocks.\n"
    "OUT.avro is written beside itself and replaces an existing file only when\n"
    "the command succeeds. With --append the records go at the end of the\n"
    "existing OUT.avro instead (same schema; its codec): see fromjson --help.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT  the output file\n"
    "  --codec C         null, deflate, snappy, zstandard, bzip2 or xz\n"
    "  --level L         the codec's compression level (0: its default)\n"
    "  --append          add the records to the end of OUT.avro\n"
    "  --truncate-torn-tail  with --append: cut a torn tail instead of refusing\n"
    "  --offset N        skip the first N records (over all files)\n"
    "  --limit N         write at most N records\n"
    "  --samplerate R    keep each record with probability R (0 to 1)\n"
    "  --seed S          seed of the sampling, for the same choice on every run\n"
    "  --reader-schema S read every file through schema S: a file, or the schema's\n"
    "                    JSON itself (text starting with {, [ or \")\n"
    "  --reader-schema-file F  the same, from file F only\n"
    AVKCLI_JOBS_HELP
    "                        Writing compresses on as many threads.\n"
    "  --quiet           no progress line on standard error\n"
    "  -h, --help        show this help and exit\n"
    "\n" AVKCLI_LIMITS_HELP
    "\n"
    "Example:\n"
    "  " PREFIX " --samplerate 0.01 --seed 7 day1.avro day2.avro -o sample.avro\n";

typedef struct cat_state {
    uint64_t offset;  /* records still to skip */
    uint64_t left;    /* records still to write */
    double rate;      /* 1: keep all */
    avkcli_rng rng;
    uint64_t records; /* records read (kept or not), for progress */
    uint64_t bytes;   /* input bytes of the files done */
    avkcli_progress prog;
    avk_arena *arena;
    avk_file_writer *fw;
    const char *out;  /* the output's name, for its write errors */
    unsigned jobs;    /* reading threads */
} cat_state;

static int copy_records(cat_state *s, const char *path, avk_file_reader *fr)
{
    avk_value v;
    avk_error err;
    avk_status st = AVK_OK;
    int more = 1;
    while (s->left && st == AVK_OK) {
        /* Records not kept are skipped, not built. */
        int keep = s->offset == 0 && (s->rate >= 1.0 || avkcli_rng_unit(&s->rng) < s->rate);
        if (!keep) {
            st = avk_file_reader_skip(fr, &more, &err);
            if (st != AVK_OK || !more)
                break;
            if (s->offset)
                s->offset--;
        } else {
            st = avk_file_reader_next(fr, s->arena, &v, &more, &err);
            if (st != AVK_OK || !more)
                break;
            st = avk_file_writer_append(s->fw, &v, &err);
            avk_arena_reset(s->arena);
            if (st != AVK_OK) {
                /* Writing a full block failed: the output's error. */
                avkcli_progress_end(&s->prog);
                avkcli_report(s->out, &err);
                return AVKCLI_FAIL;
            }
            s->left--;
        }
        if (avkcli_progress_due(&s->prog, ++s->records))
            avkcli_progress_update(&s->prog, s->records,
                                   s->bytes + avk_file_reader_block_offset(fr));
    }
    if (st != AVK_OK) {
        avkcli_progress_end(&s->prog);
        avkcli_report(path, &err);
        return AVKCLI_FAIL;
    }
    s->bytes += avkcli_file_size(path);
    return AVKCLI_OK;
}

/* Opens an input through the reader schema, when there is one. */
static int open_input(const char *path, const avk_schema *reader_schema, unsigned jobs,
                      avk_file_reader **out)
{
    avk_file_reader_options ro;
    avk_file_reader_options_init(&ro);
    ro.reader_schema = reader_schema;
    avkcli_jobs_apply(&ro, jobs);
    return avkcli_reader_open(path, &ro, out);
}

/* Opens input i (the first is already open) and checks its schema (any
 * schema resolving to reader_schema when there is one). */
static int open_same(const char *path, const char *first, const char *canon,
                     const avk_schema *reader_schema, unsigned jobs, avk_file_reader **out)
{
    char *c;
    int rc = open_input(path, reader_schema, jobs, out);
    if (rc != AVKCLI_OK || reader_schema)
        return rc;
    c = avkcli_canonical(avk_schema_root(avk_file_reader_schema(*out)));
    if (!c || strcmp(c, canon) != 0) {
        if (c)
            fprintf(stderr,
                    "%s: its schema differs from that of %s (their canonical forms differ); "
                    "cat needs one schema\n",
                    avkcli_display_name(path), avkcli_display_name(first));
        rc = AVKCLI_FAIL;
        avk_file_reader_free(*out);
        *out = NULL;
    }
    free(c);
    return rc;
}

int avkcli_cmd_cat(int argc, char **argv)
{
    const char *output = NULL, *codec = NULL, *level = NULL, *offset = NULL, *limit = NULL,
               *rate = NULL, *seed = NULL, *reader_text = NULL, *reader_file = NULL,
               *jobs = NULL;
    avk_schema *reader_schema = NULL;
    int quiet = 0, help_wanted, rc, level_value = 0, append = 0, cut_torn = 0;
    size_t npos, i;
    char **pos, *canon = NULL;
    uint64_t seed_value = 0, total = 0;
    avk_file_reader *first = NULL, *fr;
    avk_file_meta *meta = NULL;
    avk_file_writer_options wo;
    avk_codec codec_value = AVK_CODEC_NULL;
    avk_error err;
    cat_state s;
    const avkcli_option opts[] = {
        {"--output", 'o', &output, NULL, "the output file ('-': standard output)"},
        {"--codec", 0, &codec, NULL, "null, deflate, snappy, zstandard, bzip2 or xz"},
        {"--level", 0, &level, NULL, "a compression level"},
        {"--offset", 0, &offset, NULL, "a number of records"},
        {"--limit", 0, &limit, NULL, "a number of records"},
        {"--samplerate", 0, &rate, NULL, "a probability from 0 to 1"},
        {"--seed", 0, &seed, NULL, "a whole number"},
        {"--reader-schema", 0, &reader_text, NULL, "a schema file or JSON"},
        {"--reader-schema-file", 0, &reader_file, NULL, "a schema file"},
        {"--quiet", 'q', NULL, &quiet, NULL},
        {"--append", 0, NULL, &append, NULL},
        {"--truncate-torn-tail", 0, NULL, &cut_torn, NULL},
        AVKCLI_JOBS_OPTION(jobs),
        AVKCLI_LIMIT_OPTIONS,
    };
    memset(&s, 0, sizeof s);
    s.left = UINT64_MAX;
    s.rate = 1.0;
    pos = (char **)malloc(sizeof *pos * (size_t)argc);
    if (!pos) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        free(pos);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--offset", offset, &s.offset);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--limit", limit, &s.left);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_double(PREFIX, "--samplerate", rate, 0.0, 1.0, &s.rate);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_u64(PREFIX, "--seed", seed, &seed_value);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_int(PREFIX, "--level", level, &level_value);
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_codec(PREFIX, codec, &codec_value);
    /* With a codec named, its level is checked now; otherwise once the
     * first file says its codec. */
    if (rc == AVKCLI_OK && codec)
        rc = avkcli_check_level(PREFIX, codec_value, level_value);
    /* avro-tools' form: the last of two or more files is the output. */
    if (rc == AVKCLI_OK && !output && npos >= 2)
        output = pos[--npos];
    if (rc == AVKCLI_OK && !output)
        rc = avkcli_usage_error(PREFIX, "missing -o OUT.avro (or OUT.avro after the inputs; '-' "
                                        "for standard output)");
    if (rc == AVKCLI_OK && npos == 0)
        rc = avkcli_usage_error(PREFIX, "missing FILE (use '-' for standard input)");
    if (rc == AVKCLI_OK && append && codec)
        rc = avkcli_usage_error(PREFIX, "--codec with --append: appended blocks take the "
                                        "file's own codec");
    if (rc == AVKCLI_OK && cut_torn && !append)
        rc = avkcli_usage_error(PREFIX, "--truncate-torn-tail goes with --append");
    if (rc == AVKCLI_OK)
        rc = avkcli_parse_jobs(PREFIX, jobs, pos, npos, &s.jobs);
    if (rc == AVKCLI_OK)
        rc = avkcli_load_schema_option(PREFIX, "--reader-schema", reader_text, reader_file,
                                       &reader_schema);
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    avkcli_rng_seed(&s.rng, seed ? seed_value : avkcli_random_seed());

    rc = avkcli_check_output(output, pos, npos);
    if (rc == AVKCLI_OK)
        rc = open_input(pos[0], reader_schema, s.jobs, &first);
    /* Without a reader schema every file must share the first one's. */
    if (rc == AVKCLI_OK && !reader_schema &&
        !(canon = avkcli_canonical(avk_schema_root(avk_file_reader_schema(first)))))
        rc = AVKCLI_FAIL;
    if (rc == AVKCLI_OK && !(meta = avkcli_meta_alloc(first)))
        rc = AVKCLI_FAIL;
    if (rc == AVKCLI_OK && avk_arena_new(NULL, &s.arena, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        rc = AVKCLI_FAIL;
    }
    if (rc == AVKCLI_OK) {
        avkcli_writer_options(&wo, first, meta);
        wo.codec = codec ? codec_value : avk_file_reader_codec(first, NULL);
        wo.level = level_value;
        wo.threads = s.jobs > 1 ? s.jobs : 0;
        /* Appending, the level is the target file's codec's: append_path
         * checks it. */
        if (!codec && !append)
            rc = avkcli_check_level(PREFIX, wo.codec, wo.level);
    }
    if (rc == AVKCLI_OK) {
        s.out = strcmp(output, "-") == 0 ? "<stdout>" : output;
        const avk_schema *records =
            reader_schema ? reader_schema : avk_file_reader_schema(first);
        rc = append ? avkcli_append_open(output, records, &wo, cut_torn, &s.fw)
                    : avkcli_writer_open(output, records, &wo, &s.fw);
    }
    if (rc == AVKCLI_OK) {
        for (i = 0; i < npos; i++)
            total += avkcli_file_size(pos[i]);
        avkcli_progress_start(&s.prog, "cat", total, 0, quiet);
        for (i = 0; i < npos && rc == AVKCLI_OK && s.left; i++) {
            fr = first;
            avkcli_progress_end(&s.prog); /* messages of the open print cleanly */
            if (i > 0)
                rc = open_same(pos[i], pos[0], canon, reader_schema, s.jobs, &fr);
            if (rc == AVKCLI_OK)
                rc = copy_records(&s, pos[i], fr);
            if (i > 0)
                avk_file_reader_free(fr);
        }
        avkcli_progress_end(&s.prog);
        rc = append ? avkcli_append_finish(s.fw, output, rc)
                    : avkcli_writer_finish(s.fw, output, rc);
    }
    avk_file_reader_free(first);
    avk_arena_free(s.arena);
    avk_schema_free(reader_schema);
    free(meta);
    free(canon);
    free(pos);
    return rc;
}
