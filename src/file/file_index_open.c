/* The block index through its sidecar as a cache: used when current, extended when the file grew, rebuilt (and saved) otherwise. */
#define _GNU_SOURCE /* O_CLOEXEC, st_mtim */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "avrokit/reader.h"
#include "common/alloc_internal.h"
#include "common/error.h"
#include "file/file_index_internal.h"

/* Whether the 16 bytes at offset of fd are the marker. */
static int marker_at(int fd, uint64_t offset, const uint8_t *sync)
{
    uint8_t buf[AVK_FILE_SYNC_SIZE];
    size_t got;
    if (avki_pread_full(fd, buf, sizeof buf, offset, &got, NULL) != AVK_OK || got != sizeof buf)
        return 0;
    return memcmp(buf, sync, AVK_FILE_SYNC_SIZE) == 0;
}

/* Whether what old says of the start of the file is still there: the
 * header's marker, and the last block's count, size and marker. Three
 * small reads; blocks before the last are taken on trust (a file that only
 * grew by appending keeps them). */
static int start_intact(int fd, const avk_file_index *old)
{
    const avk_file_index_entry *last;
    uint8_t buf[20];
    size_t got, hl;
    int64_t count, size;
    avk_reader r;
    if (!marker_at(fd, old->header_size - AVK_FILE_SYNC_SIZE, old->sync))
        return 0;
    if (old->count == 0)
        return 1;
    last = &old->blocks[old->count - 1];
    hl = (size_t)(last->end - last->offset - last->size - AVK_FILE_SYNC_SIZE);
    if (avki_pread_full(fd, buf, hl, last->offset, &got, NULL) != AVK_OK || got != hl)
        return 0;
    avk_reader_init_memory(&r, buf, hl);
    if (avk_reader_read_long(&r, &count, NULL) != AVK_OK ||
        avk_reader_read_long(&r, &size, NULL) != AVK_OK || r.pos != r.end ||
        (uint64_t)count != last->count || (uint64_t)size != last->size)
        return 0;
    return marker_at(fd, last->end - AVK_FILE_SYNC_SIZE, old->sync);
}

/* Extends old (the index of the file's first old->file_size bytes) with
 * the blocks appended since, when the file's header is the one old
 * describes. Returns AVK_OK with *grown set when it did; AVK_OK with
 * *grown 0 when the sidecar turned out not to fit (rebuild); or an I/O or
 * memory error. */
static avk_status extend(avk_file_index *old, int fd, uint64_t size, int64_t mtime,
                         const avk_file_reader_options *opts, int *grown, avk_error *err)
{
    avk_file_reader *fr;
    avki_index_walk w;
    avk_error e;
    avk_status st;
    *grown = 0;
    if (lseek(fd, 0, SEEK_SET) != 0)
        return AVK_OK;
    /* The header must parse as it did: a header of another size or marker
     * means another file, whatever its first bytes. */
    st = avk_file_reader_open_fd(fd, opts, &fr, &e);
    if (st == AVK_ERR_NO_MEMORY || st == AVK_ERR_IO) {
        if (err)
            *err = e;
        return st;
    }
    if (st != AVK_OK)
        return AVK_OK; /* the rebuild reports it */
    if (avk_file_reader_header_size(fr) == old->header_size &&
        memcmp(avk_file_reader_sync(fr), old->sync, AVK_FILE_SYNC_SIZE) == 0) {
        memset(&w, 0, sizeof w);
        avki_index_walk_init(&w, fr, opts);
        w.fd = fd;
        w.file_len = size;
        st = avki_file_index_walk(old, &w, old->file_size, &e);
        if (st == AVK_OK) {
            old->mtime_ns = mtime;
            *grown = 1;
        } else if (st == AVK_ERR_NO_MEMORY || st == AVK_ERR_IO) {
            if (err)
                *err = e;
            avk_file_reader_free(fr);
            return st;
        }
        /* Damage after the old end: the rebuild tells whether the file
         * is damaged or the sidecar was of another file. */
    }
    avk_file_reader_free(fr);
    return AVK_OK;
}

static avk_status open_fd(const char *path, const char *sidecar, int fd,
                          const avk_file_reader_options *opts, const avk_allocator *alloc,
                          unsigned flags, avk_file_index **out, avk_file_index_info *info,
                          avk_error *err)
{
    struct stat st;
    avk_file_index *old = NULL;
    uint64_t size;
    int64_t mtime;
    avk_status s;
    if (fstat(fd, &st) != 0)
        return avki_error_errno(err, errno, "cannot stat %s", path);
    if (!S_ISREG(st.st_mode))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "%s: only a regular file can be indexed (not a pipe, terminal "
                              "or device)",
                              path);
    size = (uint64_t)st.st_size;
    mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    if (flags & AVK_FILE_INDEX_REBUILD) {
        info->sidecar = AVK_FILE_INDEX_SIDECAR_IGNORED;
    } else {
        s = avk_file_index_load(sidecar, alloc, &old, &info->sidecar_error);
        if (s == AVK_ERR_NO_MEMORY) {
            if (err)
                *err = info->sidecar_error;
            return s;
        }
        if (s != AVK_OK)
            old = NULL;
        if (s != AVK_OK && !(s == AVK_ERR_IO && info->sidecar_error.sys_errno == ENOENT))
            info->sidecar = AVK_FILE_INDEX_SIDECAR_BAD;
        else
            avk_error_clear(&info->sidecar_error); /* none, or read: nothing to say */
    }
    if (old) {
        info->sidecar = AVK_FILE_INDEX_SIDECAR_STALE;
        /* The sidecar's own record of the file, and one read to see that
         * the header still ends where it did with the same marker. */
        if (old->file_size == size && old->mtime_ns == mtime &&
            marker_at(fd, old->header_size - AVK_FILE_SYNC_SIZE, old->sync)) {
            info->sidecar = AVK_FILE_INDEX_SIDECAR_CURRENT;
            info->reused_blocks = old->count;
            *out = old;
            return AVK_OK;
        }
        if (size > old->file_size && start_intact(fd, old)) {
            size_t before = old->count;
            int grown;
            s = extend(old, fd, size, mtime, opts, &grown, err);
            if (s != AVK_OK) {
                avk_file_index_free(old);
                return s;
            }
            if (grown) {
                info->sidecar = AVK_FILE_INDEX_SIDECAR_GREW;
                info->reused_blocks = before;
                *out = old;
                return AVK_OK;
            }
        }
        avk_file_index_free(old);
    }
    if (lseek(fd, 0, SEEK_SET) != 0)
        return avki_error_errno(err, errno, "cannot seek in %s", path);
    return avk_file_index_build_fd(fd, opts, out, err);
}

avk_status avk_file_index_open_path(const char *path, const avk_file_reader_options *opts,
                                    unsigned flags, avk_file_index **out,
                                    avk_file_index_info *info, avk_error *err)
{
    avk_file_index_info local;
    avk_allocator a;
    char *sidecar;
    size_t cap;
    int fd;
    avk_status st;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    if (!out || !path)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_index_open_path: NULL %s", out ? "path" : "out");
    *out = NULL;
    if (strcmp(path, "-") == 0)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "standard input cannot be indexed: its blocks are read at their "
                              "offsets");
    /* The allocator field is in every size of the options the reader takes;
     * a smaller struct is refused when the reader opens. */
    a = avki_allocator_or_libc(opts && opts->struct_size >= offsetof(avk_file_reader_options,
                                                                     allocator) +
                                                               sizeof opts->allocator
                                   ? opts->allocator
                                   : NULL);
    cap = avk_file_index_sidecar_name(path, NULL, 0) + 1;
    sidecar = (char *)a.alloc(a.ctx, cap);
    if (!sidecar)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory for a file name");
    avk_file_index_sidecar_name(path, sidecar, cap);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        st = avki_error_errno(err, errno, "cannot open %s", path);
    } else {
        st = open_fd(path, sidecar, fd, opts, &a, flags, out, info, err);
        close(fd);
    }
    if (st == AVK_OK && (flags & AVK_FILE_INDEX_SAVE) &&
        info->sidecar != AVK_FILE_INDEX_SIDECAR_CURRENT) {
        info->save_status = avk_file_index_save(*out, sidecar, &info->save_error);
        info->saved = info->save_status == AVK_OK;
    }
    a.free(a.ctx, sidecar, cap);
    return st;
}
