/* avrokit command-line tool: global options, then dispatch to the command named first. */
#include <stdio.h>
#include <string.h>

#include "avrokit/codec.h"
#include "avrokit/kernel.h"
#include "avrokit/schema.h"
#include "cli.h"

/* Every command: one cmd_<name>.c each. Keep the list sorted by name. */
static const avkcli_command commands[] = {
    {"canonical", avkcli_cmd_canonical, "print the Parsing Canonical Form of schemas"},
    {"cat", avkcli_cmd_cat, "copy records of container files into one, with offset, limit, sampling"},
    {"concat", avkcli_cmd_concat, "join container files, copying blocks without re-encoding"},
    {"count", avkcli_cmd_count, "count the records of container files (no decoding)"},
    {"fingerprint", avkcli_cmd_fingerprint, "print schemas' fingerprints (Rabin, MD5, SHA-256)"},
    {"fragtojson", avkcli_cmd_fragtojson, "print raw binary datums (avro-tools' fragments) as Avro JSON lines"},
    {"frame", avkcli_cmd_frame, "write values as single-object, Confluent or raw messages"},
    {"fromjson", avkcli_cmd_fromjson, "write Avro JSON lines to a container file"},
    {"gen", avkcli_cmd_gen, "generate C types, decoders and encoders for schemas"},
    {"getmeta", avkcli_cmd_getmeta, "print a container file's metadata"},
    {"getschema", avkcli_cmd_getschema, "print the schema of a container file"},
    {"index", avkcli_cmd_index, "build the block index of container files (FILE.avkidx)"},
    {"jsontofrag", avkcli_cmd_jsontofrag, "write Avro JSON values as raw binary datums back to back"},
    {"random", avkcli_cmd_random, "write a container file of random records of a schema"},
    {"recodec", avkcli_cmd_recodec, "rewrite a container file with another codec"},
    {"repair", avkcli_cmd_repair, "copy the readable records of a damaged container file"},
    {"schema", avkcli_cmd_schema, "check schemas, their compatibility, canonical form, fingerprint"},
    {"tail", avkcli_cmd_tail, "print the last records of a container file as Avro JSON lines"},
    {"tojson", avkcli_cmd_tojson, "print the records of container files as Avro JSON lines"},
    {"unframe", avkcli_cmd_unframe, "print single-object, Confluent or raw messages as Avro JSON lines"},
};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: " AVKCLI_PROG " <command> [options] [arguments]\n"
            "       " AVKCLI_PROG " --help | --version\n"
            "\n"
            "Apache Avro tools built on the avrokit library.\n"
            "\n"
            "Commands:\n");
    avkcli_print_commands(out, commands, sizeof commands / sizeof commands[0]);
    fprintf(out,
            "\n"
            "Options:\n"
            "  -h, --help   show this help and exit\n"
            "  --version    print the version and exit\n"
            "\n"
            "Run '" AVKCLI_PROG " <command> --help' for a command's options.\n"
            "A FILE argument of '-' reads standard input, an output of '-' writes standard\n"
            "output. Progress is shown on standard error when it is a terminal (--quiet\n"
            "turns it off). Exit status: 0 success, 1 invalid\n"
            "input or an I/O error, 2 a usage error.\n");
}

/* The version, then the varint kernels: which one runs, and which of those
 * built in this CPU can run (performance depends on it); then the codecs
 * and fingerprints this build has (the AVK_WITH_* CMake options). */
static void print_version(void)
{
    static const struct {
        avk_fingerprint_algo algo;
        const char *name;
    } fingerprints[] = {{AVK_FINGERPRINT_RABIN, "rabin"},
                        {AVK_FINGERPRINT_MD5, "md5"},
                        {AVK_FINGERPRINT_SHA256, "sha256"}};
    size_t i;
    int c;
    printf(AVKCLI_PROG " %s\n", avk_version());
    printf("varint kernel: %s (set AVK_KERNEL to choose another)\n", avk_kernel_name());
    printf("kernels built:");
    for (i = 0; i < avk_kernel_count(); i++)
        printf(" %s%s", avk_kernel_name_at(i), avk_kernel_runnable_at(i) ? "" : " (not on this CPU)");
    printf("\ncodecs built:");
    for (c = 0; c < AVK_CODEC_COUNT; c++)
        if (avk_codec_available((avk_codec)c))
            printf(" %s", avk_codec_name((avk_codec)c));
    printf("\nfingerprints built:");
    for (i = 0; i < sizeof fingerprints / sizeof fingerprints[0]; i++)
        if (avk_fingerprint_available(fingerprints[i].algo))
            printf(" %s", fingerprints[i].name);
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return AVKCLI_USAGE;
    }
    if (avkcli_is_help(argv[1])) {
        usage(stdout);
        return AVKCLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        print_version();
        return AVKCLI_OK;
    }
    return avkcli_dispatch(AVKCLI_PROG, commands, sizeof commands / sizeof commands[0], argc - 1,
                           argv + 1, usage);
}
