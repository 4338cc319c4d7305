/* CLI appends (--append): records added in place to an existing container file, and taken off again when the command fails. */
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

/* The file's size once opened (after a torn tail was cut): a failed run
 * cuts the file back to it. */
#define MAX_APPENDS 4
static struct {
    avk_file_writer *fw;
    uint64_t size;
} appends[MAX_APPENDS];

/* Whether the records' schema is the file's (the same Parsing Canonical
 * Form): records of another schema would be encoded against the wrong one. */
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
    free(a);
    free(b);
    return same;
}

int avkcli_append_open(const char *path, const avk_schema *schema,
                       const avk_file_writer_options *opts, int cut_torn_tail,
                       avk_file_writer **out)
{
    avk_file_writer_options o = *opts;
    avk_file_writer *fw;
    avk_error err;
    struct stat sb;
    int i;
    *out = NULL;
    if (strcmp(path, "-") == 0) {
        fprintf(stderr, "%s: --append needs a file, not standard output\n", AVKCLI_PROG);
        return AVKCLI_USAGE;
    }
    for (i = 0; i < MAX_APPENDS && appends[i].fw; i++) {
    }
    if (i == MAX_APPENDS) {
        fprintf(stderr, "%s: too many files appended to at once\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
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
    if ((schema && !same_schema(path, avk_file_writer_schema(fw), schema)) ||
        stat(path, &sb) != 0) {
        avk_file_writer_free(fw);
        return AVKCLI_FAIL;
    }
    appends[i].fw = fw;
    appends[i].size = (uint64_t)sb.st_size;
    *out = fw;
    return AVKCLI_OK;
}

/* Takes a failed run's blocks off again: the file ends where it ended
 * when it was opened. */
static int cut_back(const char *path, uint64_t size)
{
    int fd = open(path, O_WRONLY), rc = -1;
    if (fd >= 0) {
        rc = ftruncate(fd, (off_t)size);
        if (rc == 0)
            rc = fsync(fd);
        if (close(fd) != 0)
            rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "%s: cannot take off the records this run appended (cutting the file "
                        "at byte %llu): %s\n",
                path, (unsigned long long)size, strerror(errno));
        return AVKCLI_FAIL;
    }
    fprintf(stderr, "%s: the records this run appended were taken off again: the file ends "
                    "at byte %llu, as before\n",
            path, (unsigned long long)size);
    return AVKCLI_OK;
}

int avkcli_append_finish(avk_file_writer *fw, const char *path, int rc)
{
    avk_error err;
    uint64_t size = 0;
    int i;
    if (!fw)
        return rc;
    for (i = 0; i < MAX_APPENDS; i++)
        if (appends[i].fw == fw) {
            size = appends[i].size;
            appends[i].fw = NULL;
        }
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
    if (rc != AVKCLI_OK && size)
        cut_back(path, size);
    return rc;
}
