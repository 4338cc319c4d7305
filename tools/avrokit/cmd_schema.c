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
            "input) and validates it: names, defaults, logical types.\n"
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

typedef struct schema_args {
    const char *file;
    const char *algo; /* fingerprint only; NULL when not given */
    int help;
} schema_args;

/* Parses "[options] FILE": -h/--help, --algo NAME / --algo=NAME when
 * with_algo, "--" ending the options; "-" is a file (standard input).
 * Returns AVKCLI_OK or a usage error (already reported). */
static int parse_args(const char *prefix, int argc, char **argv, int with_algo, schema_args *a)
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
        if (a->file)
            return avkcli_usage_error(prefix, "one FILE only; '%s' is extra", arg);
        a->file = arg;
    }
    if (!a->file)
        return avkcli_usage_error(prefix, "missing FILE (use '-' for standard input)");
    return AVKCLI_OK;
}

/* Reads and parses a->file. On failure prints "FILE: <message>" and
 * returns AVKCLI_FAIL. */
static int load_schema(const char *path, avk_schema **out)
{
    char *text;
    size_t len;
    avk_error err;
    int rc = avkcli_read_input(path, &text, &len);
    *out = NULL;
    if (rc != AVKCLI_OK)
        return rc;
    if (avk_schema_parse(text, len, NULL, out, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", avkcli_display_name(path), err.message);
        rc = AVKCLI_FAIL;
    }
    free(text);
    return rc;
}

#define KEEP_GOING (-1)

/* Parses a command's arguments and prints its help when asked. Returns
 * KEEP_GOING, or the exit status to return at once. */
static int start(const char *name, int argc, char **argv, int with_algo, const char *help,
                 schema_args *a)
{
    int rc = parse_args(name, argc, argv, with_algo, a);
    if (rc != AVKCLI_OK)
        return rc;
    if (a->help) {
        fputs(help, stdout);
        return AVKCLI_OK;
    }
    return KEEP_GOING;
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
    int rc = start(PREFIX " check", argc, argv, 0, help, &a);
    if (rc != KEEP_GOING)
        return rc;
    rc = load_schema(a.file, &s);
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

static int cmd_canonical(int argc, char **argv)
{
    static const char *const help =
        "Usage: " PREFIX " canonical [options] FILE\n"
        "\n"
        "Prints the Parsing Canonical Form of the schema in FILE ('-': standard input),\n"
        "as the Avro specification defines it, followed by a newline: full names,\n"
        "only the attributes that matter for reading data, fixed key order, no spaces.\n"
        "Two schemas with the same canonical form read and write the same bytes.\n"
        "\n"
        "Options:\n"
        "  -h, --help   show this help and exit\n";
    schema_args a;
    avk_schema *s;
    avk_writer w;
    avk_error err;
    avk_status st;
    int rc = start(PREFIX " canonical", argc, argv, 0, help, &a);
    if (rc != KEEP_GOING)
        return rc;
    rc = load_schema(a.file, &s);
    if (rc != AVKCLI_OK)
        return rc;
    rc = avkcli_stdout_open(&w);
    if (rc == AVKCLI_OK) {
        st = avk_type_write_canonical(avk_schema_root(s), &w, &err);
        if (st == AVK_OK)
            st = avk_writer_write_raw(&w, "\n", 1, &err);
        rc = avkcli_stdout_close(&w, st, &err);
    }
    avk_schema_free(s);
    return rc;
}

/* ---- fingerprint -------------------------------------------------------- */

static int cmd_fingerprint(int argc, char **argv)
{
    static const char *const help =
        "Usage: " PREFIX " fingerprint [--algo rabin|md5|sha256] FILE\n"
        "\n"
        "Prints the fingerprint of the Parsing Canonical Form of the schema in FILE\n"
        "('-': standard input) as lowercase hex, followed by a newline.\n"
        "\n"
        "Options:\n"
        "  --algo NAME  rabin (default): the 64-bit Rabin fingerprint (CRC-64-AVRO);\n"
        "               md5: 16 bytes; sha256: 32 bytes\n"
        "  -h, --help   show this help and exit\n"
        "\n"
        "The Rabin fingerprint is printed as its 8 bytes in little-endian order, as\n"
        "the Avro specification's fingerprint tables show it and as single-object\n"
        "encoding stores it: \"int\" prints 8f5c393f1ad57572, the bytes of the 64-bit\n"
        "value 0x7275d51a3f395c8f. MD5 and SHA-256 print their digest bytes in order.\n";
    static const struct {
        const char *name;
        avk_fingerprint_algo algo;
    } algos[] = {{"rabin", AVK_FINGERPRINT_RABIN},
                 {"md5", AVK_FINGERPRINT_MD5},
                 {"sha256", AVK_FINGERPRINT_SHA256}};
    static const char hex[] = "0123456789abcdef";
    schema_args a;
    avk_fingerprint_algo algo = AVK_FINGERPRINT_RABIN;
    avk_schema *s;
    avk_writer w;
    avk_error err;
    avk_status st;
    uint8_t fp[32];
    char text[2 * sizeof fp + 1];
    size_t len = 0, i;
    int rc = start(PREFIX " fingerprint", argc, argv, 1, help, &a);
    if (rc != KEEP_GOING)
        return rc;
    if (a.algo) {
        for (i = 0; i < sizeof algos / sizeof algos[0]; i++)
            if (strcmp(a.algo, algos[i].name) == 0)
                break;
        if (i == sizeof algos / sizeof algos[0])
            return avkcli_usage_error(PREFIX " fingerprint",
                                      "unknown --algo '%s': use rabin, md5 or sha256", a.algo);
        algo = algos[i].algo;
    }
    rc = load_schema(a.file, &s);
    if (rc != AVKCLI_OK)
        return rc;
    st = avk_type_fingerprint(avk_schema_root(s), algo, fp, &len, &err);
    avk_schema_free(s);
    if (st != AVK_OK) {
        fprintf(stderr, "%s: fingerprint: %s\n", avkcli_display_name(a.file), err.message);
        return AVKCLI_FAIL;
    }
    for (i = 0; i < len && i < sizeof fp; i++) {
        text[2 * i] = hex[fp[i] >> 4];
        text[2 * i + 1] = hex[fp[i] & 15];
    }
    text[2 * i] = '\n';
    rc = avkcli_stdout_open(&w);
    if (rc == AVKCLI_OK) {
        st = avk_writer_write_raw(&w, text, 2 * i + 1, &err);
        rc = avkcli_stdout_close(&w, st, &err);
    }
    return rc;
}
