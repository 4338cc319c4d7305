/* avrokit schema: check a schema, print its Parsing Canonical Form, or its fingerprint. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PREFIX AVKCLI_PROG " schema"

static int cmd_check(int argc, char **argv);
static int cmd_canonical(int argc, char **argv);
static int cmd_fingerprint(int argc, char **argv);

static const avkcli_command subcommands[] = {
    {"canonical", cmd_canonical, "print the Parsing Canonical Form of a schema"},
    {"check", cmd_check, "check that a schema is valid"},
    {"compat", avkcli_cmd_schema_compat,
     "can data written with one schema be read with another (--full: both ways)"},
    {"fingerprint", cmd_fingerprint, "print a schema's fingerprint (Rabin, MD5 or SHA-256) in hex"},
};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: " PREFIX " <subcommand> [options] FILE\n"
            "\n"
            "Parses FILE (an Avro schema in JSON, e.g. a .avsc file; '-' reads standard\n"
            "input; text starting with {, [ or \" that is not a file is the schema\n"
            "itself) and validates it: names, defaults, logical types.\n"
            "\n"
            "Subcommands:\n");
    avkcli_print_commands(out, subcommands, sizeof subcommands / sizeof subcommands[0]);
    fprintf(out,
            "\n"
            "Run '" PREFIX " <subcommand> --help' for its options. An invalid schema\n"
            "prints \"FILE: <what is wrong>\" to standard error and exits with status 1.\n");
}

int avkcli_cmd_schema(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return AVKCLI_USAGE;
    }
    if (avkcli_is_help(argv[1])) {
        usage(stdout);
        return AVKCLI_OK;
    }
    return avkcli_dispatch(PREFIX, subcommands, sizeof subcommands / sizeof subcommands[0],
                           argc - 1, argv + 1, usage);
}

/* ---- shared by the subcommands ------------------------------------------ */

#define MAX_FILES 1024 /* more than any command line a shell passes in one go needs */

typedef struct schema_args {
    const char *files[MAX_FILES];
    size_t nfiles;
    const char *algo; /* fingerprint only; NULL when not given */
    int help;
} schema_args;

/* Parses "[options] FILE..." (one FILE unless multi): -h/--help, --algo
 * NAME / --algo=NAME when with_algo, "--" ending the options; "-" is a
 * file (standard input). Returns AVKCLI_OK or a usage error (already
 * reported). */
static int parse_args(const char *prefix, int argc, char **argv, int with_algo, int multi,
                      schema_args *a)
{
    int i, options = 1;
    memset(a, 0, sizeof *a);
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (options && arg[0] == '-' && arg[1] != '\0') {
            if (strcmp(arg, "--") == 0) {
                options = 0;
            } else if (avkcli_is_help(arg)) {
                a->help = 1;
                return AVKCLI_OK;
            } else if (with_algo && strcmp(arg, "--algo") == 0) {
                if (i + 1 >= argc)
                    return avkcli_usage_error(prefix, "--algo needs a value: rabin, md5 or sha256");
                a->algo = argv[++i];
            } else if (with_algo && strncmp(arg, "--algo=", 7) == 0) {
                a->algo = arg + 7;
            } else {
                return avkcli_usage_error(prefix, "unknown option '%s'", arg);
            }
            continue;
        }
        if (a->nfiles && !multi)
            return avkcli_usage_error(prefix, "one FILE only; '%s' is extra", arg);
        if (a->nfiles == MAX_FILES)
            return avkcli_usage_error(prefix, "more than %d files", MAX_FILES);
        a->files[a->nfiles++] = arg;
    }
    if (!a->nfiles)
        return avkcli_usage_error(prefix, "missing FILE (use '-' for standard input)");
    return AVKCLI_OK;
}

#define KEEP_GOING (-1)

/* Parses a command's arguments and prints its help when asked. Returns
 * KEEP_GOING, or the exit status to return at once. */
static int start(const char *name, int argc, char **argv, int with_algo, int multi,
                 const char *help, schema_args *a)
{
    int rc = parse_args(name, argc, argv, with_algo, multi, a);
    if (rc != AVKCLI_OK)
        return rc;
    if (a->help) {
        if (help) /* else the caller prints its own */
            fputs(help, stdout);
        return AVKCLI_OK;
    }
    return KEEP_GOING;
}

/* Prints "VALUE" for one file, "VALUE<TAB>FILE" for each of several, as
 * count does. */
static int print_value(const schema_args *a, const char *file, const char *value, size_t len)
{
    avk_writer w;
    avk_error err;
    avk_status st;
    int rc = avkcli_stdout_open(&w);
    if (rc != AVKCLI_OK)
        return rc;
    st = avk_writer_write_raw(&w, value, len, &err);
    if (st == AVK_OK && a->nfiles > 1)
        st = avk_writer_write_raw(&w, "\t", 1, &err);
    if (st == AVK_OK && a->nfiles > 1)
        st = avk_writer_write_raw(&w, file, strlen(file), &err);
    if (st == AVK_OK)
        st = avk_writer_write_raw(&w, "\n", 1, &err);
    return avkcli_stdout_close(&w, st, &err);
}

/* Prints a help text whose two %s are the command's name as typed
 * ("avrokit canonical" or "avrokit schema canonical"). The text is one of
 * this file's constants, not input: the format check is off for this call. */
static void print_help(const char *help, const char *prefix)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    printf(help, prefix, prefix);
#pragma GCC diagnostic pop
}

/* ---- check -------------------------------------------------------------- */

static int cmd_check(int argc, char **argv)
{
    static const char *const help =
        "Usage: " PREFIX " check [options] FILE\n"
        "\n"
        "Checks that FILE ('-': standard input) holds a valid Avro schema: JSON syntax,\n"
        "types, names and namespaces, references, field defaults, logical types.\n"
        "Prints \"valid\" and exits 0, or prints \"FILE: <what is wrong>\" (with its place\n"
        "in the schema, e.g. User.fields[3].type) to standard error and exits 1.\n"
        "\n"
        "Options:\n"
        "  -h, --help   show this help and exit\n";
    schema_args a;
    avk_schema *s;
    int rc = start(PREFIX " check", argc, argv, 0, 0, help, &a);
    if (rc != KEEP_GOING)
        return rc;
    rc = avkcli_load_schema(a.files[0], &s);
    if (rc != AVKCLI_OK)
        return rc;
    avk_schema_free(s);
    if (puts("valid") < 0 || fflush(stdout) != 0) {
        fprintf(stderr, "%s: writing standard output failed\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    return AVKCLI_OK;
}

/* ---- canonical ---------------------------------------------------------- */

static int canonical(const char *prefix, int argc, char **argv)
{
    static const char *const help =
        "Usage: %s [options] FILE...\n"
        "\n"
        "Prints the Parsing Canonical Form of the schema in each FILE ('-': standard\n"
        "input; text starting with {, [ or \" is taken as the schema itself), as the\n"
        "Avro specification defines it, followed by a newline: full names, only the\n"
        "attributes that matter for reading data, fixed key order, no spaces. Two\n"
        "schemas with the same canonical form read and write the same bytes. With\n"
        "several files each line is \"FORM<TAB>FILE\"; a file that fails is reported\n"
        "and the others still printed (status 1).\n"
        "\n"
        "Options:\n"
        "  -h, --help   show this help and exit\n"
        "\n"
        "Example:\n"
        "  %s user.avsc\n";
    schema_args a;
    avk_schema *s;
    char *text;
    size_t i;
    int rc = start(prefix, argc, argv, 0, 1, NULL, &a), failed = 0;
    if (rc != KEEP_GOING && !a.help)
        return rc;
    if (a.help) {
        print_help(help, prefix);
        return AVKCLI_OK;
    }
    for (i = 0; i < a.nfiles; i++) {
        if (avkcli_load_schema(a.files[i], &s) != AVKCLI_OK) {
            failed = 1;
            continue;
        }
        text = avkcli_canonical(avk_schema_root(s));
        avk_schema_free(s);
        if (!text)
            return AVKCLI_FAIL;
        rc = print_value(&a, a.files[i], text, strlen(text));
        free(text);
        if (rc != AVKCLI_OK)
            return rc;
    }
    return failed ? AVKCLI_FAIL : AVKCLI_OK;
}

static int cmd_canonical(int argc, char **argv)
{
    return canonical(PREFIX " canonical", argc, argv);
}

int avkcli_cmd_canonical(int argc, char **argv)
{
    return canonical(AVKCLI_PROG " canonical", argc, argv);
}

/* ---- fingerprint -------------------------------------------------------- */

/* --algo: our short names and the specification's (any case). */
static int parse_algo(const char *prefix, const char *text, avk_fingerprint_algo *out)
{
    static const struct {
        const char *name;
        avk_fingerprint_algo algo;
    } algos[] = {{"rabin", AVK_FINGERPRINT_RABIN}, {"crc-64-avro", AVK_FINGERPRINT_RABIN},
                 {"md5", AVK_FINGERPRINT_MD5},     {"sha256", AVK_FINGERPRINT_SHA256},
                 {"sha-256", AVK_FINGERPRINT_SHA256}};
    size_t i, k;
    if (!text)
        return AVKCLI_OK;
    for (i = 0; i < sizeof algos / sizeof algos[0]; i++) {
        const char *n = algos[i].name;
        for (k = 0; n[k] && text[k] && (text[k] | 0x20) == n[k]; k++)
            ;
        if (!n[k] && !text[k]) {
            *out = algos[i].algo;
            return AVKCLI_OK;
        }
    }
    return avkcli_usage_error(prefix,
                              "unknown --algo '%s': use rabin (CRC-64-AVRO), md5 (MD5) or sha256 "
                              "(SHA-256)",
                              text);
}

static int fingerprint(const char *prefix, int argc, char **argv)
{
    static const char *const help =
        "Usage: %s [--algo NAME] FILE...\n"
        "\n"
        "Prints the fingerprint of the Parsing Canonical Form of the schema in each\n"
        "FILE ('-': standard input; text starting with {, [ or \" is taken as the\n"
        "schema itself) as lowercase hex, followed by a newline. With several files\n"
        "each line is \"HEX<TAB>FILE\"; a file that fails is reported and the others\n"
        "still printed (status 1).\n"
        "\n"
        "Options:\n"
        "  --algo NAME  rabin or CRC-64-AVRO (default): the 64-bit Rabin fingerprint;\n"
        "               md5 or MD5: 16 bytes; sha256 or SHA-256: 32 bytes (any case)\n"
        "  -h, --help   show this help and exit\n"
        "\n"
        "The Rabin fingerprint is printed as its 8 bytes in little-endian order, as\n"
        "the Avro specification's fingerprint tables show it and as single-object\n"
        "encoding stores it: \"int\" prints 8f5c393f1ad57572, the bytes of the 64-bit\n"
        "value 0x7275d51a3f395c8f. MD5 and SHA-256 print their digest bytes in order.\n"
        "\n"
        "Example:\n"
        "  %s --algo SHA-256 user.avsc\n";
    static const char hex[] = "0123456789abcdef";
    schema_args a;
    avk_fingerprint_algo algo = AVK_FINGERPRINT_RABIN;
    avk_schema *s;
    avk_error err;
    avk_status st;
    uint8_t fp[32];
    char text[2 * sizeof fp];
    size_t len = 0, i, f;
    int rc = start(prefix, argc, argv, 1, 1, NULL, &a), failed = 0;
    if (rc != KEEP_GOING && !a.help)
        return rc;
    if (a.help) {
        print_help(help, prefix);
        return AVKCLI_OK;
    }
    rc = parse_algo(prefix, a.algo, &algo);
    if (rc != AVKCLI_OK)
        return rc;
    for (f = 0; f < a.nfiles; f++) {
        if (avkcli_load_schema(a.files[f], &s) != AVKCLI_OK) {
            failed = 1;
            continue;
        }
        st = avk_type_fingerprint(avk_schema_root(s), algo, fp, &len, &err);
        avk_schema_free(s);
        if (st != AVK_OK) {
            fprintf(stderr, "%s: fingerprint: %s\n", avkcli_display_name(a.files[f]), err.message);
            failed = 1;
            continue;
        }
        for (i = 0; i < len && i < sizeof fp; i++) {
            text[2 * i] = hex[fp[i] >> 4];
            text[2 * i + 1] = hex[fp[i] & 15];
        }
        rc = print_value(&a, a.files[f], text, 2 * i);
        if (rc != AVKCLI_OK)
            return rc;
    }
    return failed ? AVKCLI_FAIL : AVKCLI_OK;
}

static int cmd_fingerprint(int argc, char **argv)
{
    return fingerprint(PREFIX " fingerprint", argc, argv);
}

int avkcli_cmd_fingerprint(int argc, char **argv)
{
    return fingerprint(AVKCLI_PROG " fingerprint", argc, argv);
}
