/* Block index sidecar files: the compact binary format (see file_index.h), written atomically and read back with every field checked. */
#define _GNU_SOURCE /* fsync, getpid, O_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if AVKI_WITH_DEFLATE || AVKI_WITH_SNAPPY
#include <libdeflate.h>
#endif

#include "common/alloc_internal.h"
#include "common/error.h"
#include "file/file_index_internal.h"
#include "io/writer_internal.h"

#define MAGIC "\x89" "AVKIDX\n"
#define MAGIC_SIZE 8
#define VERSION 1u
/* magic, version, flags, file size, mtime, header size, sync, blocks, records */
#define FIXED_SIZE (MAGIC_SIZE + 4 + 4 + 8 + 8 + 8 + AVK_FILE_SYNC_SIZE + 8 + 8)
#define CRC_SIZE 4
/* An entry is three varints of at least one byte. */
#define MIN_ENTRY 3
/* The most an entry takes: two full 64-bit varints and the header length. */
#define MAX_ENTRY (2 * 10 + 1)
/* A block's count and size varints take 2 to 20 bytes. */
#define MIN_BLOCK_HEADER 2
#define MAX_BLOCK_HEADER 20
/* The smallest container header: magic, an empty metadata map, the marker. */
#define MIN_FILE_HEADER (4 + 1 + AVK_FILE_SYNC_SIZE)
/* Sidecars larger than this are refused: at about 5 bytes a block, 1 GiB
 * indexes some 200 million blocks, 13 TB of data in 64 KiB blocks. */
#define MAX_SIDECAR ((uint64_t)1 << 30)

/* ---- CRC-32 -------------------------------------------------------------- */

uint32_t avki_index_crc32(uint32_t crc, const void *data, size_t len)
{
#if AVKI_WITH_DEFLATE || AVKI_WITH_SNAPPY
    return libdeflate_crc32(crc, data, len);
#else
    /* A build without libdeflate: the same CRC (reflected 0xEDB88320, as
     * zlib's), a bit at a time; sidecars are small, so speed does not
     * matter here. */
    const uint8_t *p = (const uint8_t *)data;
    size_t i;
    crc = ~crc;
    for (i = 0; i < len; i++) {
        int k;
        crc ^= p[i];
        for (k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
#endif
}

/* ---- writing ------------------------------------------------------------- */

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    int i;
    for (i = 0; i < 4; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static uint8_t *put_u64(uint8_t *p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* The sidecar's bytes in memory from idx's allocator (*cap: its size). */
static avk_status encode(const avk_file_index *idx, uint8_t **out, size_t *len, size_t *cap,
                         avk_error *err)
{
    size_t n, i;
    uint8_t *buf, *p;
    if (idx->count > (SIZE_MAX - FIXED_SIZE - CRC_SIZE) / MAX_ENTRY)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "an index of %zu blocks is too large to save", idx->count);
    n = FIXED_SIZE + idx->count * MAX_ENTRY + CRC_SIZE;
    buf = (uint8_t *)idx->alloc.alloc(idx->alloc.ctx, n);
    if (!buf)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory for a sidecar of %zu bytes", n);
    memcpy(buf, MAGIC, MAGIC_SIZE);
    p = put_u32(buf + MAGIC_SIZE, VERSION);
    p = put_u32(p, 0);
    p = put_u64(p, idx->file_size);
    p = put_u64(p, (uint64_t)idx->mtime_ns);
    p = put_u64(p, idx->header_size);
    memcpy(p, idx->sync, AVK_FILE_SYNC_SIZE);
    p += AVK_FILE_SYNC_SIZE;
    p = put_u64(p, (uint64_t)idx->count);
    p = put_u64(p, idx->records);
    for (i = 0; i < idx->count; i++) {
        const avk_file_index_entry *e = &idx->blocks[i];
        p = put_varint(p, e->count);
        p = put_varint(p, e->size);
        p = put_varint(p, e->end - e->offset - e->size - AVK_FILE_SYNC_SIZE);
    }
    p = put_u32(p, avki_index_crc32(0, buf, (size_t)(p - buf)));
    *out = buf;
    *len = (size_t)(p - buf);
    *cap = n;
    return AVK_OK;
}

static avk_status write_all(int fd, const uint8_t *p, size_t n, const char *name, avk_error *err)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return avki_error_errno(err, errno, "cannot write %s", name);
        if (w == 0) /* no progress: what a full disk gives a regular file */
            return avki_error_errno(err, ENOSPC, "cannot write %s", name);
        p += w;
        n -= (size_t)w;
    }
    return AVK_OK;
}

/* Creates a new file beside path (path.tmp-PID-N, never an existing one:
 * O_EXCL), mode 0666 less the umask. */
static avk_status create_temp(const char *path, char *tmp, size_t cap, int *fd, avk_error *err)
{
    static unsigned counter; /* several threads may save at once */
    int tries;
    for (tries = 0; tries < 100; tries++) {
        unsigned n = __atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED);
        snprintf(tmp, cap, "%s.tmp-%ld-%u", path, (long)getpid(), n);
        *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (*fd >= 0)
            return AVK_OK;
        if (errno != EEXIST)
            return avki_error_errno(err, errno, "cannot create %s", tmp);
    }
    return avki_error_errno(err, EEXIST, "cannot create a temporary file beside %s", path);
}

avk_status avk_file_index_save(const avk_file_index *idx, const char *sidecar_path,
                               avk_error *err)
{
    uint8_t *buf = NULL;
    char *tmp;
    size_t len = 0, cap = 0, tcap;
    int fd = -1;
    avk_status st;
    if (!idx || !sidecar_path)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_index_save: NULL %s", idx ? "path" : "index");
    tcap = strlen(sidecar_path) + 48;
    tmp = (char *)idx->alloc.alloc(idx->alloc.ctx, tcap);
    if (!tmp)
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory for a file name");
    st = encode(idx, &buf, &len, &cap, err);
    if (st != AVK_OK) {
        idx->alloc.free(idx->alloc.ctx, tmp, tcap);
        return st;
    }
    st = create_temp(sidecar_path, tmp, tcap, &fd, err);
    if (st == AVK_OK)
        st = write_all(fd, buf, len, tmp, err);
    /* The bytes reach the disk before the name does: a crash between the
     * two leaves the old sidecar (or none), never an empty one. */
    if (st == AVK_OK && avki_fsync(fd) != 0)
        st = avki_error_errno(err, errno, "cannot write %s to disk (fsync)", tmp);
    /* Linux releases the fd whatever close returns: never retried, and
     * EINTR is no error (the bytes are on disk already). */
    if (fd >= 0 && close(fd) != 0 && errno != EINTR && st == AVK_OK)
        st = avki_error_errno(err, errno, "cannot close %s", tmp);
    if (st == AVK_OK && rename(tmp, sidecar_path) != 0)
        st = avki_error_errno(err, errno, "cannot rename %s to %s", tmp, sidecar_path);
    if (st != AVK_OK && fd >= 0)
        unlink(tmp);
    idx->alloc.free(idx->alloc.ctx, buf, cap);
    idx->alloc.free(idx->alloc.ctx, tmp, tcap);
    return st;
}

size_t avk_file_index_sidecar_name(const char *path, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s%s", path ? path : "", AVK_FILE_INDEX_SUFFIX);
    return n < 0 ? 0 : (size_t)n;
}

/* ---- reading ------------------------------------------------------------- */

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* One unsigned varint at *p (before end): at most 10 bytes, the 10th
 * holding only the 64th bit. 0 on success (p moved), 1 when the bytes end
 * first, 2 when it is too long. */
static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
    uint64_t v = 0;
    const uint8_t *q = *p;
    int shift;
    for (shift = 0; shift < 70; shift += 7) {
        uint8_t b;
        if (q == end)
            return 1;
        b = *q++;
        if (shift == 63 && b > 1)
            return 2;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *p = q;
            *out = v;
            return 0;
        }
    }
    return 2;
}

static avk_status bad(avk_error *err, avk_status st, uint64_t offset, const char *what)
{
    return avki_error_set(err, st, offset, "not a usable avrokit index: %s (byte %llu)", what,
                          (unsigned long long)offset);
}

/* Reads the entries of data[FIXED_SIZE, len - CRC_SIZE) into idx (count of
 * them, already checked against the bytes), checking that they hold
 * together as blocks of a file of idx->file_size bytes. */
static avk_status read_entries(avk_file_index *idx, const uint8_t *data, size_t len,
                               uint64_t count, avk_error *err)
{
    const uint8_t *p = data + FIXED_SIZE, *end = data + len - CRC_SIZE;
    uint64_t off = idx->header_size, records = 0, i;
    for (i = 0; i < count; i++) {
        uint64_t v[3];
        const uint8_t *at = p;
        int k;
        avk_file_index_entry *e = &idx->blocks[i];
        for (k = 0; k < 3; k++) {
            int r = get_varint(&p, end, &v[k]);
            if (r == 1)
                return bad(err, AVK_ERR_TRUNCATED, (uint64_t)(p - data),
                           "it ends inside a block's entry");
            if (r == 2)
                return bad(err, AVK_ERR_MALFORMED, (uint64_t)(p - data),
                           "a varint longer than 64 bits");
        }
        /* Counts and sizes are Avro longs in the data file. */
        if (v[0] > INT64_MAX || v[1] > INT64_MAX || v[2] < MIN_BLOCK_HEADER ||
            v[2] > MAX_BLOCK_HEADER)
            return bad(err, AVK_ERR_MALFORMED, (uint64_t)(at - data),
                       "a block's count, size or header length is out of range");
        if (v[1] > idx->file_size || v[2] + AVK_FILE_SYNC_SIZE > idx->file_size - v[1] ||
            off > idx->file_size - v[1] - v[2] - AVK_FILE_SYNC_SIZE)
            return bad(err, AVK_ERR_MALFORMED, (uint64_t)(at - data),
                       "a block ends past the file's size");
        if (records > UINT64_MAX - v[0])
            return bad(err, AVK_ERR_MALFORMED, (uint64_t)(at - data),
                       "the record counts overflow");
        e->offset = off;
        e->first = records;
        e->count = v[0];
        e->size = v[1];
        e->end = off + v[2] + v[1] + AVK_FILE_SYNC_SIZE;
        records += v[0];
        off = e->end;
    }
    idx->count = (size_t)count;
    if (p != end)
        return bad(err, AVK_ERR_MALFORMED, (uint64_t)(p - data),
                   "bytes are left over after the last block's entry");
    if (off != idx->file_size)
        return bad(err, AVK_ERR_MALFORMED, (uint64_t)(p - data),
                   "its blocks do not end at the file's size");
    if (records != idx->records)
        return bad(err, AVK_ERR_MALFORMED, FIXED_SIZE - 8,
                   "its record total is not the sum of its blocks' counts");
    return AVK_OK;
}

avk_status avk_file_index_load_memory(const void *data_, size_t len, const avk_allocator *alloc,
                                      avk_file_index **out, avk_error *err)
{
    const uint8_t *data = (const uint8_t *)data_;
    const uint8_t *sync;
    avk_file_index *idx;
    uint64_t count;
    uint32_t version, flags;
    avk_status st;
    if (!out || (!data && len))
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_index_load_memory: NULL %s", out ? "data" : "out");
    *out = NULL;
    if (len < MAGIC_SIZE)
        return bad(err, len && memcmp(data, MAGIC, len) == 0 ? AVK_ERR_TRUNCATED
                                                              : AVK_ERR_MALFORMED,
                   len, "it is shorter than the magic");
    if (memcmp(data, MAGIC, MAGIC_SIZE) != 0)
        return bad(err, AVK_ERR_MALFORMED, 0, "the magic is wrong");
    if (len < FIXED_SIZE + CRC_SIZE)
        return bad(err, AVK_ERR_TRUNCATED, len, "it ends inside its fixed fields");
    version = get_u32(data + MAGIC_SIZE);
    flags = get_u32(data + MAGIC_SIZE + 4);
    if (version != VERSION || flags != 0)
        return avki_error_set(err, AVK_ERR_UNSUPPORTED, MAGIC_SIZE,
                              "the index is of format version %lu with flags 0x%lx; this "
                              "library reads version %u with no flags",
                              (unsigned long)version, (unsigned long)flags, VERSION);
    if (len > MAX_SIDECAR)
        return avki_error_set(err, AVK_ERR_LIMIT, AVK_OFFSET_UNKNOWN,
                              "an index of %zu bytes is above the limit of %llu", len,
                              (unsigned long long)MAX_SIDECAR);
    count = get_u64(data + FIXED_SIZE - 16);
    /* Each entry takes at least MIN_ENTRY bytes: a count the bytes cannot
     * hold is refused before anything is allocated for it. */
    if (count > (len - FIXED_SIZE - CRC_SIZE) / MIN_ENTRY)
        return bad(err, AVK_ERR_TRUNCATED, FIXED_SIZE - 16,
                   "its block count is more than its bytes can hold");
    if (get_u32(data + len - CRC_SIZE) != avki_index_crc32(0, data, len - CRC_SIZE))
        return avki_error_set(err, AVK_ERR_CHECKSUM, len - CRC_SIZE,
                              "the index's CRC-32 does not match its contents (it is damaged)");
    AVK_TRY(avki_file_index_new(alloc, &idx, err));
    idx->file_size = get_u64(data + 16);
    idx->mtime_ns = (int64_t)get_u64(data + 24);
    idx->header_size = get_u64(data + 32);
    sync = data + 40;
    memcpy(idx->sync, sync, AVK_FILE_SYNC_SIZE);
    idx->records = get_u64(data + FIXED_SIZE - 8);
    if (idx->header_size < MIN_FILE_HEADER || idx->header_size > idx->file_size) {
        avk_file_index_free(idx);
        return bad(err, AVK_ERR_MALFORMED, 32, "its header size does not fit its file size");
    }
    if (count > SIZE_MAX / sizeof *idx->blocks) { /* 32-bit machines */
        avk_file_index_free(idx);
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "an index of %llu blocks does not fit this machine's memory",
                              (unsigned long long)count);
    }
    if (count > 0) {
        idx->blocks = (avk_file_index_entry *)idx->alloc.alloc(
            idx->alloc.ctx, (size_t)count * sizeof *idx->blocks);
        if (!idx->blocks) {
            avk_file_index_free(idx);
            return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                                  "out of memory for the index of %llu blocks",
                                  (unsigned long long)count);
        }
        idx->cap = (size_t)count;
    }
    st = read_entries(idx, data, len, count, err);
    if (st != AVK_OK) {
        avk_file_index_free(idx);
        return st;
    }
    *out = idx;
    return AVK_OK;
}

avk_status avk_file_index_load(const char *sidecar_path, const avk_allocator *alloc,
                               avk_file_index **out, avk_error *err)
{
    struct stat st;
    avk_allocator a = avki_allocator_or_libc(alloc);
    uint8_t *buf;
    size_t got, len;
    avk_status s;
    int fd;
    if (!out || !sidecar_path)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, AVK_OFFSET_UNKNOWN,
                              "avk_file_index_load: NULL %s", out ? "path" : "out");
    *out = NULL;
    fd = open(sidecar_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return avki_error_errno(err, errno, "cannot open %s", sidecar_path);
    if (fstat(fd, &st) != 0) {
        s = avki_error_errno(err, errno, "cannot stat %s", sidecar_path);
        close(fd);
        return s;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > MAX_SIDECAR) {
        close(fd);
        return avki_error_set(err, S_ISREG(st.st_mode) ? AVK_ERR_LIMIT : AVK_ERR_MALFORMED,
                              AVK_OFFSET_UNKNOWN, "%s is %s", sidecar_path,
                              S_ISREG(st.st_mode) ? "larger than an index may be (1 GiB)"
                                                  : "not a regular file");
    }
    len = (size_t)st.st_size;
    buf = (uint8_t *)a.alloc(a.ctx, len ? len : 1);
    if (!buf) {
        close(fd);
        return avki_error_set(err, AVK_ERR_NO_MEMORY, AVK_OFFSET_UNKNOWN,
                              "out of memory for %zu bytes of %s", len, sidecar_path);
    }
    s = avki_pread_full(fd, buf, len, 0, &got, err);
    close(fd);
    if (s == AVK_OK)
        s = avk_file_index_load_memory(buf, got, &a, out, err);
    a.free(a.ctx, buf, len ? len : 1);
    return s;
}
