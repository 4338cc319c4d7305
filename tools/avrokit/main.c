/* avrokit command-line tool: global options, then dispatch to the command named first. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Every command: one cmd_<name>.c each. Keep the list sorted by name. */
static const avkcli_command commands[] = {
    {"schema", avkcli_cmd_schema, "check an Avro schema, print its canonical form or fingerprint"},
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
            "A FILE argument of '-' reads standard input. Exit status: 0 success, 1 invalid\n"
            "input or an I/O error, 2 a usage error.\n");
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
        printf(AVKCLI_PROG " %s\n", avk_version());
        return AVKCLI_OK;
    }
    return avkcli_dispatch(AVKCLI_PROG, commands, sizeof commands / sizeof commands[0], argc - 1,
                           argv + 1, usage);
}
