/* CLI output files: a temporary file beside the target, renamed over it only on success; devices, FIFOs and standard output written straight and never removed. */
/* POSIX with XSI: mkstemp, fchmod, fchown, fsync, realpath, sigaction (the build is strict C11). */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* An output being written. Commands write one at a time; a few slots
 * leave room for one that writes more. */
typedef struct output {
    int used;
    avk_file_writer *fw; /* a container writer's; NULL for a byte output */
    int fd;       /* ours to close; -1 for standard output */
    char *tmp;    /* the temporary file, or NULL when writing straight */
    char *target; /* what tmp becomes */
} output;

#define MAX_OUTPUTS 4
static output outputs[MAX_OUTPUTS];

/* Temporary names for the signal handler, which may only read plain
 * memory: a copy of each armed one. */
static char doomed[MAX_OUTPUTS][PATH_MAX];
static volatile sig_atomic_t armed[MAX_OUTPUTS];
/* An append in progress (--append): cut back to cut_size through cut_fd. */
static volatile sig_atomic_t cut_armed;
static int cut_fd = -1;
static off_t cut_size;

/* Ctrl-C or a kill while writing: the temporary file goes (an append is
 * cut back; ftruncate is async-signal-safe), then the signal does what it
 * would have done. */
static void on_signal(int sig)
{
    int i;
    for (i = 0; i < MAX_OUTPUTS; i++)
        if (armed[i])
            unlink(doomed[i]);
    if (cut_armed)
        (void)!ftruncate(cut_fd, cut_size);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_handlers(void);

static void arm(int slot, const char *tmp)
{
    if (strlen(tmp) >= sizeof doomed[0])
        return;
    memcpy(doomed[slot], tmp, strlen(tmp) + 1);
    armed[slot] = 1;
    install_handlers();
}

void avkcli_arm_cut(int fd, uint64_t size)
{
    cut_armed = 0;
    cut_fd = fd;
    cut_size = (off_t)size;
    if (fd >= 0) {
        cut_armed = 1;
        install_handlers();
    }
}

static void install_handlers(void)
{
    static int installed;
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    size_t i;
    if (installed)
        return;
    installed = 1;
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        /* A signal the caller ignores (nohup) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

int avkcli_fsync(int fd)
{
    int rc;
    do /* a signal during fsync says nothing of the data: again */
        rc = fsync(fd);
    while (rc != 0 && errno == EINTR);
    return rc;
}

static const char *shown(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdout>" : path;
}

/* Creates the temporary file for target in its directory, with mode; old
 * is the file it replaces (its owner is kept where permitted) or NULL. */
static int make_temp(const char *path, const char *target, mode_t mode, const struct stat *old,
                     char **tmp_out, int *fd_out)
{
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    /* The directory: "." for a bare name, "" before "/name" (the root). */
    int dir_len = slash ? (int)(slash - target) : 1;
    const char *dir = slash ? target : ".";
    /* Short enough for any file system's name limit (255). */
    int base_len = strlen(base) > 200 ? 200 : (int)strlen(base);
    size_t cap = (size_t)dir_len + (size_t)base_len + 32;
    char *tmp = (char *)malloc(cap);
    int fd;
    if (!tmp) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    snprintf(tmp, cap, "%.*s/.%.*s.avrokit-XXXXXX", dir_len, dir, base_len, base);
    fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "%s: cannot create a file in %.*s to write it: %s; nothing was changed\n",
                path, dir_len ? dir_len : 1, dir_len ? dir : "/", strerror(errno));
        free(tmp);
        return AVKCLI_FAIL;
    }
    /* Keep the owner and group where we may: root may; others may keep a
     * group they belong to (else the new file is theirs, as any new file).
     * Before fchmod, since a chown clears set-user-ID bits. */
    if (old && (old->st_uid != geteuid() || old->st_gid != getegid()) &&
        fchown(fd, old->st_uid, old->st_gid) != 0)
        (void)!fchown(fd, (uid_t)-1, old->st_gid);
    if (fchmod(fd, mode) != 0) {
        fprintf(stderr, "%s: cannot set the mode of %s: %s; nothing was changed\n", path, tmp,
                strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return AVKCLI_FAIL;
    }
    *tmp_out = tmp;
    *fd_out = fd;
    return AVKCLI_OK;
}

/* Where the records of path go: *fd and, for a regular file, the temporary
 * file *tmp and the *target it replaces. */
static int prepare(const char *path, int *fd, char **tmp, char **target)
{
    struct stat st, lst;
    mode_t mask;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "%s: is a directory\n", path);
            return AVKCLI_FAIL;
        }
        if (!S_ISREG(st.st_mode)) {
            /* A device, FIFO or socket: written straight, never truncated
             * nor removed (a FIFO waits here for its reader). */
            *fd = open(path, O_WRONLY | O_CLOEXEC);
            if (*fd < 0) {
                fprintf(stderr, "%s: cannot open it for writing: %s\n", path, strerror(errno));
                return AVKCLI_FAIL;
            }
            return AVKCLI_OK;
        }
        /* Through a symbolic link, the file it points to is replaced (a
         * rename over the link would replace the link). */
        *target = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) ? realpath(path, NULL)
                                                                  : strdup(path);
        if (!*target) {
            fprintf(stderr, "%s: cannot resolve it: %s\n", path, strerror(errno));
            return AVKCLI_FAIL;
        }
        return make_temp(path, *target, st.st_mode & 07777, &st, tmp, fd);
    }
    if (errno != ENOENT) {
        fprintf(stderr, "%s: cannot write it: %s\n", path, strerror(errno));
        return AVKCLI_FAIL;
    }
    if (lstat(path, &lst) == 0) {
        fprintf(stderr, "%s: is a symbolic link to a file that does not exist; not following it\n",
                path);
        return AVKCLI_FAIL;
    }
    *target = strdup(path);
    if (!*target) {
        fprintf(stderr, "%s: out of memory\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    /* The mode open(O_CREAT) with 0666 would give. */
    mask = umask(0);
    umask(mask);
    return make_temp(path, *target, (mode_t)0666 & ~mask, NULL, tmp, fd);
}

/* A free output slot, marked used; NULL (with a message) when all are. */
static output *claim(void)
{
    int i;
    for (i = 0; i < MAX_OUTPUTS; i++)
        if (!outputs[i].used) {
            memset(&outputs[i], 0, sizeof outputs[i]);
            outputs[i].used = 1;
            outputs[i].fd = -1;
            return &outputs[i];
        }
    fprintf(stderr, "%s: too many outputs open at once\n", AVKCLI_PROG);
    return NULL;
}

static int finish_slot(output *o, const char *path, int rc);

/* A slot with path opened for writing (not "-"): a temporary file beside
 * a regular file, armed for the signal handler, or a device written
 * straight. */
static int open_slot(const char *path, output **out)
{
    output *o;
    int rc;
    *out = NULL;
    if (path[0] == '\0') {
        fprintf(stderr, "%s: the output's file name is empty\n", AVKCLI_PROG);
        return AVKCLI_FAIL;
    }
    o = claim();
    if (!o)
        return AVKCLI_FAIL;
    rc = prepare(path, &o->fd, &o->tmp, &o->target);
    if (rc != AVKCLI_OK)
        return finish_slot(o, path, rc);
    if (o->tmp)
        arm((int)(o - outputs), o->tmp);
    *out = o;
    return AVKCLI_OK;
}

int avkcli_writer_open(const char *path, const avk_schema *schema,
                       const avk_file_writer_options *opts, avk_file_writer **out)
{
    avk_error err;
    output *o = NULL;
    int rc;
    *out = NULL;
    /* Commands check --level up front; this catches any that does not. */
    if (opts && avkcli_check_level(AVKCLI_PROG, opts->codec, opts->level) != AVKCLI_OK)
        return AVKCLI_USAGE;
    if (strcmp(path, "-") == 0) {
        if (avk_file_writer_open_path("-", schema, opts, out, &err) != AVK_OK) {
            fprintf(stderr, "<stdout>: %s\n", err.message);
            return AVKCLI_FAIL;
        }
        o = claim();
        if (o) { /* else not ours to finish: the library wrote standard output */
            o->fw = *out;
            o->fd = -1;
        }
        return AVKCLI_OK;
    }
    rc = open_slot(path, &o);
    if (rc != AVKCLI_OK)
        return rc;
    if (avk_file_writer_open_fd(o->fd, schema, opts, out, &err) != AVK_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return finish_slot(o, path, AVKCLI_FAIL);
    }
    o->fw = *out;
    return AVKCLI_OK;
}

int avkcli_output_open(const char *path, int *fd, int *handle)
{
    output *o;
    int rc;
    *fd = -1;
    *handle = -1;
    if (strcmp(path, "-") == 0) {
        *fd = STDOUT_FILENO;
        return AVKCLI_OK;
    }
    rc = open_slot(path, &o);
    if (rc != AVKCLI_OK)
        return rc;
    *fd = o->fd;
    *handle = (int)(o - outputs);
    return AVKCLI_OK;
}

int avkcli_output_finish(int handle, const char *path, int rc)
{
    if (handle < 0 || handle >= MAX_OUTPUTS || !outputs[handle].used)
        return rc; /* standard output: nothing to put in place */
    return finish_slot(&outputs[handle], path, rc);
}

/* The rename reaches the disk only with its directory: fsync it, so that
 * exit status 0 means the new file survives a power loss. EINVAL: a file
 * system that cannot sync directories, where nothing more can be done. */
static int sync_dir_of(const char *path, char *target)
{
    char *slash = strrchr(target, '/');
    const char *dir = ".";
    int fd, rc = 0, e = 0;
    if (slash == target)
        dir = "/";
    else if (slash) {
        *slash = '\0';
        dir = target;
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        rc = -1;
        e = errno;
    } else {
        rc = avkcli_fsync(fd);
        e = errno;
        close(fd);
        if (rc != 0 && e == EINVAL)
            rc = 0;
    }
    if (rc != 0)
        fprintf(stderr, "%s: the new file is in place, but syncing its directory %s failed "
                        "(%s): after a power loss the old file may come back\n",
                path, dir, strerror(e));
    if (slash && slash != target)
        *slash = '/';
    return rc == 0 ? AVKCLI_OK : AVKCLI_FAIL;
}

int avkcli_writer_finish(avk_file_writer *fw, const char *path, int rc)
{
    avk_error err;
    output *o = NULL;
    int i;
    if (!fw)
        return rc;
    for (i = 0; i < MAX_OUTPUTS && !o; i++)
        if (outputs[i].used && outputs[i].fw == fw)
            o = &outputs[i];
    if (rc == AVKCLI_OK) {
        if (avk_file_writer_close(fw, &err) != AVK_OK) {
            fprintf(stderr, "%s: %s\n", shown(path), err.message);
            rc = AVKCLI_FAIL;
        }
    } else {
        avk_file_writer_free(fw);
    }
    if (!o) /* not ours: nothing more to do */
        return rc;
    return finish_slot(o, path, rc);
}

/* The end of an output's slot: on rc AVKCLI_OK the temporary file is
 * fsynced, closed, renamed over its target and its directory synced; else
 * (or when that fails) it is removed. A device is closed; the slot freed. */
static int finish_slot(output *o, const char *path, int rc)
{
    if (o->fd >= 0) {
        /* The data reaches the disk before the new name does, so a crash
         * in between leaves the old file rather than an empty one. */
        if (rc == AVKCLI_OK && o->tmp) {
            if (avkcli_fsync(o->fd) != 0) {
                fprintf(stderr, "%s: writing it to disk (fsync) failed: %s\n", path,
                        strerror(errno));
                rc = AVKCLI_FAIL;
            }
        }
        /* Linux releases the fd whatever close returns, so it is never
         * retried, and EINTR is no error: the data is on disk already. */
        if (close(o->fd) != 0 && errno != EINTR && rc == AVKCLI_OK) {
            fprintf(stderr, "%s: closing it failed: %s\n", path, strerror(errno));
            rc = AVKCLI_FAIL;
        }
    }
    if (o->tmp) {
        if (rc == AVKCLI_OK && rename(o->tmp, o->target) != 0) {
            fprintf(stderr, "%s: cannot put the new file in place (renaming %s): %s\n", path,
                    o->tmp, strerror(errno));
            rc = AVKCLI_FAIL;
        }
        if (rc != AVKCLI_OK)
            unlink(o->tmp);
        else
            rc = sync_dir_of(path, o->target);
        armed[o - outputs] = 0;
    }
    free(o->tmp);
    free(o->target);
    memset(o, 0, sizeof *o);
    return rc;
}
