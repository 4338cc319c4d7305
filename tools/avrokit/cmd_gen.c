/* avrokit gen: generate C types, decoders and encoders for schemas (the generator is tools/gen). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gen_main.h"

#define PREFIX AVKCLI_PROG " gen"

static const char *const help =
    "Usage: " PREFIX " [options] SCHEMA.avsc... -o DIR\n"
    "\n"
    "Generates, for each schema file, DIR/<base>.h and DIR/<base>.c (<base>: the file\n"
    "name without directory and .avsc/.json, other characters than letters, digits\n"
    "and '_' turned into '_'): C structs for its types, and for each record, enum\n"
    "and fixed type and the root type, functions NAME_decode, _decode_limits, _skip,\n"
    "_encode, _to_value, _from_value, _schema_json and container file helpers\n"
    "(_file_reader_open/_next/_free, _file_write). Generated decoders give the same\n"
    "statuses, offsets, paths and messages as the library's generic decoder; the\n"
    "code compiles as C11 and C++17 and includes only avrokit's public headers.\n"
    "One difference: generated decoders recurse on the C stack, so values nested\n"
    "deeper than AVK_GEN_MAX_DEPTH (10000) levels are refused with AVK_ERR_LIMIT.\n"
    "A named type used by several schema files is generated once, in the files of\n"
    "the first one; the others include its header.\n"
    "\n"
    "Options:\n"
    "  -o DIR              where to write (existing directory; required)\n"
    "  --prefix P          start every generated global name with P_\n"
    "  --namespace-prefix  name types by their full name (com.x.User -> com_x_User)\n"
    "  --copy-strings      decoded strings and bytes are always arena copies (by\n"
    "                      default, views into the input of a memory reader)\n"
    "  --list              print one line per schema: SCHEMA, HEADER, SOURCE, the\n"
    "                      root's C type and function prefix, tab-separated\n"
    "  --reader R.avsc     resolution compiled in: the types and functions come from\n"
    "                      R.avsc (DIR/<rbase>.h/.c), and each SCHEMA.avsc is a\n"
    "                      writer schema: DIR/<rbase>_from_<wbase>.h/.c declare\n"
    "                      FN_decode_from_<wbase>, which reads that writer's data into\n"
    "                      the reader's types with Avro's resolution rules (as\n"
    "                      avk_plan_new_resolving does); --list adds a line per writer:\n"
    "                      resolve, WRITER, READER, HEADER, SOURCE, C type, function.\n"
    "                      A pair the library cannot resolve: exit 1, its message\n"
    "  -h, --help          show this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 a bad schema or an output that cannot be written,\n"
    "2 a usage error.\n"
    "\n"
    "Example:\n"
    "  " PREFIX " --prefix my user.avsc -o gen/\n"
    "  " PREFIX " --reader user_v2.avsc user_v1.avsc -o gen/\n";

static int is_identifier(const char *s)
{
    size_t i;
    if (!s[0] || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (i = 1; s[i]; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

int avkcli_cmd_gen(int argc, char **argv)
{
    int nsprefix = 0, copy = 0, list = 0, help_wanted, rc;
    const char *dir = NULL, *prefix = NULL, *reader = NULL;
    size_t npos;
    char **pos;
    gen_opts go;
    const avkcli_option opts[] = {
        {"--output", 'o', &dir, NULL, "a directory"},
        {"--prefix", 0, &prefix, NULL, "a C identifier"},
        {"--namespace-prefix", 0, NULL, &nsprefix, NULL},
        {"--copy-strings", 0, NULL, &copy, NULL},
        {"--list", 0, NULL, &list, NULL},
        {"--reader", 0, &reader, NULL, "a reader schema file"},
    };
    pos = (char **)malloc(sizeof *pos * (size_t)(argc + 1));
    if (!pos)
        return AVKCLI_FAIL;
    rc = avkcli_parse_options(PREFIX, argc, argv, opts, sizeof opts / sizeof opts[0], pos, &npos,
                              &help_wanted);
    if (rc == AVKCLI_OK && help_wanted) {
        fputs(help, stdout);
        free(pos);
        return AVKCLI_OK;
    }
    if (rc == AVKCLI_OK && npos == 0)
        rc = avkcli_usage_error(PREFIX, "missing SCHEMA.avsc");
    if (rc == AVKCLI_OK && !dir)
        rc = avkcli_usage_error(PREFIX, "missing -o DIR");
    if (rc == AVKCLI_OK && prefix && !is_identifier(prefix))
        rc = avkcli_usage_error(PREFIX, "--prefix '%s' is not a C identifier", prefix);
    if (rc != AVKCLI_OK) {
        free(pos);
        return rc;
    }
    memset(&go, 0, sizeof go);
    go.prefix = prefix;
    go.namespace_prefix = nsprefix;
    go.copy_strings = copy;
    if (reader)
        rc = gen_run_resolving(&go, reader, pos, npos, dir, list, stdout, stderr);
    else
        rc = gen_run(&go, pos, npos, dir, list, stdout, stderr);
    fflush(stdout);
    free(pos);
    return rc;
}
