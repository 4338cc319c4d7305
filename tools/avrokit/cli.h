/* Shared pieces of the avrokit CLI: the command table, exit statuses, input reading, output. */
#ifndef AVKCLI_CLI_H
#define AVKCLI_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "avrokit/avrokit.h"

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
int avkcli_cmd_schema(int argc, char **argv);

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

#endif
