/* CLI appends (--append): records added in place to an existing container file, and taken off again when the command fails or is interrupted. */
/* POSIX: open, ftruncate, fsync, stat (the build is strict C11). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The file's size once opened (after a torn tail was cut), and an fd to
 * cut it back through: a failed or interrupted run cuts the file back to
 * it. One append at a time (the signal handler knows one). */
static struct {
    avk_file_writer *fw;
    uint64_t size;
    int fd;
} current = {NULL, 0, -1};

/* Whether the records' schema is the file's: the same Parsing Canonical
 * Form, and the same attributes the form leaves out (logical types and
 * their parameters, defaults, aliases, docs), since a timestamp-millis
 * value appended to a timestamp-micros field would be read 1000 times off. */
static int same_schema(const char *path, const avk_schema *file, const avk_schema *records)
{
    char *a = avkcli_canonical(avk_schema_root(file)), *b;
    int same;
    if (!a)
        return 0;
    b = avkcli_canonical(avk_schema_root(records));
    same = b && strcmp(a, b) == 0;
    if (b && !same)
        fprintf(stderr,
                "%s: the file's schema is not the schema of the records to append (their "
                "Parsing Canonical Forms differ):\n  file:    %s\n  records: %s\n",
                path, a, b);
    if (same && !avk_type_equal(avk_schema_root(file), avk_schema_root(records))) {
        fprintf(stderr, "%s: the file's schema and the schema of the records to append have "
                        "the same Parsing Canonical Form but differ in logical types, "
                        "defaults, aliases or docs: append needs the file's own schema\n",
                path);
        same = 0;
    }
    free(a);
    free(b);
    return same;
}

/* The schema is checked before the file is opened to append, so a
 * mismatch changes nothing (not even a torn tail). */
static int check_schema(const char *path, const avk_schema *schema)
{
    avk_file_reader *fr;
    int rc;
    if (avkcli_reader_open(path, NULL, &fr) != AVKCLI_OK)
        return AVKCLI_FAIL;
    rc = same_schema(path, avk_file_reader_schema(fr), schema) ? AVKCLI_OK : AVKCLI_FAIL;
    avk_file_reader_free(fr);
    return rc;
}

int avkcli_append_open(const char *path, const avk_schema *schema,
                       const avk_file_writer_options *opts, int cut_torn_tail,
                       avk_file_writer **out)
{
    avk_file_writer_options o = *opts;
    avk_file_writer *fw;
    avk_error err;
    struct stat sb;
    int fd;
    *out = NULL;
    if (strcmp(path, "-") == 0) {
        fprintf(stderr, "%s: --append needs a file, not standard output\n", AVKCLI_PROG);
        return AVKCLI_USAGE;
    }
    if (current.fw) {
        fprintf(stderr, "%s: one file appended to at a time\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    if (schema && check_schema(path, schema) != AVKCLI_OK)
        return AVKCLI_FAIL;
    if (cut_torn_tail)
        o.flags |= AVK_FILE_WRITER_TRUNCATE_TORN_TAIL;
    if (avk_file_writer_append_path(path, &o, &fw, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", AVKCLI_PROG, err.message);
        return AVKCLI_FAIL;
    }
    if (avk_file_writer_torn_tail(fw))
        fprintf(stderr, "%s: cut a torn tail of %llu bytes (the start of a block a writer did "
                        "not finish) before appending\n",
                path, (unsigned long long)avk_file_writer_torn_tail(fw));
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &sb) != 0) {
        fprintf(stderr, "%s: cannot open it to take a failed run's records off again: %s\n",
                path, strerror(errno));
        if (fd >= 0)
            close(fd);
        avk_file_writer_free(fw);
        return AVKCLI_FAIL;
    }
    current.fw = fw;
    current.size = (uint64_t)sb.st_size;
    current.fd = fd;
    avkcli_arm_cut(fd, current.size);
    *out = fw;
    return AVKCLI_OK;
}

/* Takes a failed run's blocks off again: the file ends where it ended
 * when it was opened. */
static void cut_back(const char *path, int fd, uint64_t size)
{
    int rc = ftruncate(fd, (off_t)size);
    if (rc == 0)
        rc = avkcli_fsync(fd);
    if (rc != 0)
        fprintf(stderr, "%s: cannot take off the records this run appended (cutting the file "
                        "at byte %llu): %s\n",
                path, (unsigned long long)size, strerror(errno));
    else
        fprintf(stderr, "%s: the records this run appended were taken off again: the file "
                        "ends at byte %llu, as before\n",
                path, (unsigned long long)size);
}

int avkcli_append_finish(avk_file_writer *fw, const char *path, int rc)
{
    avk_error err;
    if (!fw)
        return rc;
    /* Success means on disk: fsync before the exit status says so. */
    if (rc == AVKCLI_OK && avk_file_writer_fsync(fw, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        rc = AVKCLI_FAIL;
    }
    if (rc == AVKCLI_OK) {
        if (avk_file_writer_close(fw, &err) != AVK_OK) {
            fprintf(stderr, "%s: %s\n", path, err.message);
            rc = AVKCLI_FAIL;
        }
    } else {
        avk_file_writer_free(fw);
    }
    if (current.fw == fw) {
        if (rc != AVKCLI_OK)
            cut_back(path, current.fd, current.size);
        avkcli_arm_cut(-1, 0);
        close(current.fd);
        current.fw = NULL;
        current.fd = -1;
    }
    return rc;
}
