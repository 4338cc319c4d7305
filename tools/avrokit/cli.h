/* Shared pieces of the avrokit CLI: the command table, exit statuses, input reading, output. */
#ifndef AVKCLI_CLI_H
#define AVKCLI_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "avrokit/avrokit.h"
#include "avrokit/file.h"

/* Exit statuses, the same for every command. */
enum {
    AVKCLI_OK = 0,   /* success */
    AVKCLI_FAIL = 1, /* the input is invalid, or an I/O error */
    AVKCLI_USAGE = 2 /* bad command line */
};

/* A command or subcommand: run gets argv with argv[0] being its own name
 * ("schema", "check", ...) and returns an exit status. A new command is a
 * new cmd_<name>.c defining its run function, declared below and added to
 * the table in main.c; a subcommand goes into its command's own table. */
typedef int (*avkcli_run_fn)(int argc, char **argv);

typedef struct avkcli_command {
    const char *name;
    avkcli_run_fn run;
    const char *help; /* one line, shown in the parent's --help */
} avkcli_command;

/* Commands (one per cmd_<name>.c). */
int avkcli_cmd_canonical(int argc, char **argv);   /* schema canonical, top-level */
int avkcli_cmd_cat(int argc, char **argv);
int avkcli_cmd_concat(int argc, char **argv);
int avkcli_cmd_count(int argc, char **argv);
int avkcli_cmd_fingerprint(int argc, char **argv); /* schema fingerprint, top-level */
int avkcli_cmd_fragtojson(int argc, char **argv);
int avkcli_cmd_frame(int argc, char **argv);
int avkcli_cmd_fromjson(int argc, char **argv);
int avkcli_cmd_gen(int argc, char **argv);
int avkcli_cmd_getmeta(int argc, char **argv);
int avkcli_cmd_getschema(int argc, char **argv);
int avkcli_cmd_index(int argc, char **argv);
int avkcli_cmd_jsontofrag(int argc, char **argv);
int avkcli_cmd_random(int argc, char **argv);
int avkcli_cmd_recodec(int argc, char **argv);
int avkcli_cmd_repair(int argc, char **argv);
int avkcli_cmd_schema(int argc, char **argv);
int avkcli_cmd_schema_compat(int argc, char **argv); /* schema compat */
int avkcli_cmd_tail(int argc, char **argv);
int avkcli_cmd_tojson(int argc, char **argv);
int avkcli_cmd_unframe(int argc, char **argv);

/* The program name for messages ("avrokit"). */
#define AVKCLI_PROG "avrokit"

/* Largest input file read into memory: the schema parser's own default
 * limit on schema text, so anything the library would take is read. */
#define AVKCLI_MAX_INPUT ((size_t)64 << 20)

/* Runs the entry of cmds named argv[0] with the rest of the line (argv[0]
 * becomes the entry's name). prefix is the command path for messages
 * ("avrokit" or "avrokit schema"); usage prints the parent's help. An
 * unknown name is a usage error: a message to stderr and AVKCLI_USAGE. */
int avkcli_dispatch(const char *prefix, const avkcli_command *cmds, size_t count, int argc,
                    char **argv, void (*usage)(FILE *out));

/* Prints "  name   help" for every entry, aligned. */
void avkcli_print_commands(FILE *out, const avkcli_command *cmds, size_t count);

/* 1 when arg is -h or --help. */
int avkcli_is_help(const char *arg);

/* Prints "<prefix>: <message>" and "Try '<prefix> --help'." to stderr and
 * returns AVKCLI_USAGE. */
int avkcli_usage_error(const char *prefix, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Reads all of path ("-": standard input) into a malloc'd buffer (NUL
 * added after the last byte; free it with free). Inputs above
 * AVKCLI_MAX_INPUT are refused. On failure prints "<name>: <why>" to
 * stderr and returns AVKCLI_FAIL. */
int avkcli_read_input(const char *path, char **data, size_t *len);

/* The name to show for path in messages: "<stdin>" for "-". */
const char *avkcli_display_name(const char *path);

/* Standard output through an avk_writer: open, write, then close (flush
 * and destroy). close prints a message and returns AVKCLI_FAIL when the
 * flush fails (a closed pipe, a full disk). */
int avkcli_stdout_open(avk_writer *w);
int avkcli_stdout_close(avk_writer *w, avk_status st, const avk_error *err);

/* ---- options ------------------------------------------------------------ */

/* One option of a command. An option with value receives its argument
 * ("--name VALUE", "--name=VALUE", or "-x VALUE" for a short name) in
 * *value; one without sets *flag to 1. */
typedef struct avkcli_option {
    const char *name;   /* "--codec" */
    char short_name;    /* 'o' for "-o", or 0 */
    const char **value; /* NULL for a flag */
    int *flag;          /* for a flag */
    const char *what;   /* what the value is, for "needs a value" messages */
} avkcli_option;

/* An entry of an option table that stands for all the limit options of
 * reading commands (--max-depth N, --max-bytes N, --max-items N,
 * --max-empty-items N, --max-memory N, --max-block-bytes N,
 * --max-header-bytes N): put it in the table, and AVKCLI_LIMITS_HELP in
 * the help, and every file avkcli_reader_open opens gets those limits. */
#define AVKCLI_LIMITS_NAME "--max-<limit>"
#define AVKCLI_LIMIT_OPTIONS {AVKCLI_LIMITS_NAME, 0, NULL, NULL, "a size or count"}

#define AVKCLI_LIMITS_HELP                                                                     \
    "Limits on what the input may claim (0: the default; N may end in K, M, G or T,\n"          \
    "powers of 1024). A valid file beyond one fails with the limit named, never as damage:\n"   \
    "  --max-depth N         nesting of one value (default 1000000)\n"                         \
    "  --max-bytes N         one string or bytes value (default 256M)\n"                       \
    "  --max-items N         items of one array or map (default 64M)\n"                        \
    "  --max-empty-items N   zero-byte items (nulls, empty records) in one value (1M)\n"        \
    "  --max-memory N        memory one decoded record may take (default 1G)\n"                \
    "  --max-block-bytes N   one block, as stored and decompressed (default 1G)\n"             \
    "  --max-header-bytes N  the header's metadata (default 64M)\n"

/* -j N, --jobs N: threads that read (decompress and decode blocks ahead).
 * Output, errors and exit status are the same whatever N. Put
 * AVKCLI_JOBS_OPTION(var) in the option table and AVKCLI_JOBS_HELP in the
 * help; avkcli_parse_jobs turns the text (NULL or 0: the default, the
 * number of cores when the inputs hold 1 MiB or more, else 1) into *jobs,
 * and avkcli_jobs_apply sets a reader's threads and AVK_FILE_DECODE_AHEAD. */
#define AVKCLI_JOBS_OPTION(var) {"--jobs", 'j', &(var), NULL, "a number of threads"}
#define AVKCLI_JOBS_HELP                                                                       \
    "  -j, --jobs N          threads that read: decompress and decode blocks ahead\n"          \
    "                        (1: one thread; default: the number of cores for inputs\n"        \
    "                        of 1 MiB or more, else 1). The output is the same.\n"
int avkcli_parse_jobs(const char *prefix, const char *text, char **inputs, size_t ninputs,
                      unsigned *jobs);
void avkcli_jobs_apply(avk_file_reader_options *o, unsigned jobs);

/* Parses argv[1..argc) against opts: "-h"/"--help" set *help (and stop),
 * "--" ends the options, "-" alone is a positional argument (standard
 * input or output). Positional arguments are stored in pos (room for argc
 * entries), their number in *npos. An AVKCLI_LIMIT_OPTIONS entry takes the
 * limit options (their values are checked here). Returns AVKCLI_OK or a
 * usage error (already reported under prefix). */
int avkcli_parse_options(const char *prefix, int argc, char **argv, const avkcli_option *opts,
                         size_t nopts, char **pos, size_t *npos, int *help);

/* Number arguments of options: a non-negative decimal integer, an int, a
 * double in [lo, hi]. text NULL leaves *out alone and returns AVKCLI_OK.
 * Otherwise a usage error naming the option. */
int avkcli_parse_u64(const char *prefix, const char *option, const char *text, uint64_t *out);
int avkcli_parse_int(const char *prefix, const char *option, const char *text, int *out);
int avkcli_parse_double(const char *prefix, const char *option, const char *text, double lo,
                        double hi, double *out);

/* A codec name for --codec (the specification's names; lzma and zstd are
 * taken too). NULL leaves *out alone. Unknown: a usage error listing the
 * names. */
int avkcli_parse_codec(const char *prefix, const char *text, avk_codec *out);

/* Checks a compression level for codec up front (0: the codec's default;
 * deflate 1-12, zstandard its own range, bzip2 and xz 1-9; null and snappy
 * take any). A level the codec refuses is a usage error naming --level and
 * the range. */
int avkcli_check_level(const char *prefix, avk_codec codec, int level);

/* The limit options given on the command line (see AVKCLI_LIMIT_OPTIONS):
 * fills the limits of o that are still 0 (the library's defaults). */
void avkcli_limits_apply(avk_file_reader_options *o);

/* For a message of an AVK_ERR_LIMIT error: the option that raises the
 * limit it names ("--max-bytes"), or NULL. */
const char *avkcli_limit_flag(const char *message);

/* Used by avkcli_parse_options: when arg is a limit option, takes its value
 * (from arg after '=', or argv[*i + 1], moving *i), stores it, sets *rc
 * (AVKCLI_OK or a reported usage error) and returns 1; otherwise 0. */
int avkcli_limit_option(const char *prefix, const char *arg, int argc, char **argv, int *i,
                        int *rc);

/* ---- files ---------------------------------------------------------------- */

/* Prints "<file>: <message>" for an error from the library, adding the
 * byte offset when the message does not already give it, and for a limit
 * the option that raises it. */
void avkcli_report(const char *path, const avk_error *err);

/* Parses a schema given on the command line (--schema, --reader-schema,
 * schema files of the schema commands): a file that exists at arg is read
 * ("-": standard input); otherwise text whose first character that is not
 * a space is '{', '[' or '"' is the schema's JSON itself; anything else is
 * a file name (that does not exist). On failure prints "FILE: <message>"
 * ("<schema text>: ..." for JSON given inline) and returns AVKCLI_FAIL. */
int avkcli_load_schema(const char *arg, avk_schema **out);

/* The same for a file only (--schema-file, --reader-schema-file). */
int avkcli_load_schema_file(const char *path, avk_schema **out);

/* For commands taking both spellings (--schema S / --schema-file F):
 * loads the one given (usage error when both are), or sets *out NULL
 * when neither is. Returns AVKCLI_OK, AVKCLI_FAIL or AVKCLI_USAGE. */
int avkcli_load_schema_option(const char *prefix, const char *option, const char *text,
                              const char *file, avk_schema **out);

/* Opens a container file for reading; opts may be NULL. The limit options
 * of the command line apply (see AVKCLI_LIMIT_OPTIONS). On failure prints
 * the error (naming the file) and returns AVKCLI_FAIL; when a reader
 * schema cannot be resolved, every problem that stops it is listed. */
int avkcli_reader_open(const char *path, const avk_file_reader_options *opts,
                       avk_file_reader **out);

/* Refuses (with a message, returning AVKCLI_FAIL) an output that is one
 * of the inputs: opening it for writing would truncate the input before it
 * is read. "-" and files that do not exist yet are never the same. */
int avkcli_check_output(const char *output, char **inputs, size_t ninputs);

/* Size in bytes of a regular file at path, or 0 when unknown ("-", pipes). */
uint64_t avkcli_file_size(const char *path);

/* Writer options starting from the user metadata of fr (keys not starting
 * with "avro."), so that copies keep them; fr may be NULL for none. The
 * entries view fr's memory: keep fr open while the writer is opened. meta
 * needs room for avk_file_reader_meta_count(fr) entries (see
 * avkcli_meta_alloc). */
void avkcli_writer_options(avk_file_writer_options *o, const avk_file_reader *fr,
                           avk_file_meta *meta);

/* malloc'd room for the user metadata of fr (at least one entry); NULL
 * (with a message) when out of memory. */
avk_file_meta *avkcli_meta_alloc(const avk_file_reader *fr);

/* Creates a container file ("-": standard output) without harming what is
 * at path (cli_output.c):
 * - a regular file, existing or not: the records go to a new temporary
 *   file in the same directory (".NAME.avrokit-XXXXXX", with the mode an
 *   existing file has, else 0666 less the umask; owner and group kept
 *   where permitted), renamed over path by avkcli_writer_finish on
 *   success. Until then path is untouched; a failure removes only the
 *   temporary file. A symbolic link to a regular file: the file it points
 *   to is replaced, the link stays; a link to nothing is refused. Other
 *   hard links to an existing file keep its old contents.
 * - a device, FIFO or socket: written straight (opened without
 *   truncating), never removed; a directory is refused.
 * - a directory that cannot be written: an error before anything changes.
 * A level opts->codec refuses is a usage error (AVKCLI_USAGE). On failure
 * prints the error and returns AVKCLI_FAIL. */
int avkcli_writer_open(const char *path, const avk_schema *schema,
                       const avk_file_writer_options *opts, avk_file_writer **out);

/* Finishes a writer from avkcli_writer_open (fw NULL: returns rc). When rc
 * is AVKCLI_OK: closes it (flushing), then for a temporary file fsyncs it
 * (so that a crash cannot leave an empty file under the old name) and
 * renames it over the target; any failure is printed and gives
 * AVKCLI_FAIL. When rc is not AVKCLI_OK, or that failed: frees the writer
 * and removes the temporary file, so an existing file stays exactly as it
 * was; a device, FIFO or standard output is never removed. Returns the
 * final status. */
int avkcli_writer_finish(avk_file_writer *fw, const char *path, int rc);

/* A byte output (not a container file) at path, kept from harm as
 * avkcli_writer_open keeps one: *fd is where to write (standard output for
 * "-"), *handle what avkcli_output_finish takes. Prints any error; returns
 * AVKCLI_OK or AVKCLI_FAIL. */
int avkcli_output_open(const char *path, int *fd, int *handle);

/* Finishes an output of avkcli_output_open once everything is written to
 * its fd: as avkcli_writer_finish (fsync, rename, directory sync on
 * success; the temporary file removed otherwise). Returns the final
 * status. */
int avkcli_output_finish(int handle, const char *path, int rc);

/* --append (cli_append.c): opens the container file at path to add
 * records at its end (its own schema, codec and marker; opts' level,
 * block sizes and threads apply). schema, when not NULL, must be the file's
 * (the same Parsing Canonical Form). A torn tail is refused, or cut when
 * cut_torn_tail is set (and said on stderr). Prints any error; returns
 * AVKCLI_OK, AVKCLI_USAGE ("-") or AVKCLI_FAIL. */
int avkcli_append_open(const char *path, const avk_schema *schema,
                       const avk_file_writer_options *opts, int cut_torn_tail,
                       avk_file_writer **out);

/* fsync(2), again after EINTR; 0 or -1 with errno (cli_output.c). */
int avkcli_fsync(int fd);

/* While fd >= 0: a signal that ends the command (SIGINT, SIGTERM, SIGHUP)
 * first cuts the file open as fd back to size (cli_output.c); fd -1
 * disarms. */
void avkcli_arm_cut(int fd, uint64_t size);

/* Finishes a writer from avkcli_append_open: on rc AVKCLI_OK fsyncs and
 * closes it (so exit status 0 means the records are on disk); otherwise,
 * or when that fails, frees it and cuts the file back to its size when it
 * was opened, so a failed run adds nothing. Returns the final status. */
int avkcli_append_finish(avk_file_writer *fw, const char *path, int rc);

/* The Parsing Canonical Form of t in a malloc'd NUL-terminated string, or
 * NULL (with a message) when out of memory. */
char *avkcli_canonical(const avk_type *t);

/* A seed for random choices when the user gave none (from the system's
 * random source, or the clock). */
uint64_t avkcli_random_seed(void);

#endif
