/* Block index of a container file: each block's offset, record count and sizes from its header alone, a sidecar file that keeps it, and seeking to record N. */
#ifndef AVROKIT_FILE_INDEX_H
#define AVROKIT_FILE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "avrokit/alloc.h"
#include "avrokit/file.h"
#include "avrokit/macros.h"
#include "avrokit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An index lists the blocks of one container file in file order. It is
 * built by one pass over the block headers: each block's count and size
 * are read, the data is jumped over (never decompressed; read only among
 * blocks under 4 KiB, whose headers come 32 KiB at a time) and the sync
 * marker after it compared, so building costs one small read per block
 * whatever the codec. With it, avk_file_reader_seek_record goes to
 * record N by reading only the block that holds it.
 *
 * An index is immutable once made: any number of threads may use one at
 * once (seek_record only reads it). It owns its memory: about 40 bytes a
 * block (a file of 64 KiB blocks: under 0.1% of its size; the worst, a
 * file of empty 18-byte blocks, about 2.3 times its size). */
typedef struct avk_file_index avk_file_index;

/* One block. Blocks follow each other: a block's end is the next one's
 * offset, the first starts at the header's size and the last ends at the
 * indexed size of the file. */
typedef struct avk_file_index_entry {
    uint64_t offset; /* file offset of the block (its count varint) */
    uint64_t first;  /* file-wide number of its first record (0-based) */
    uint64_t count;  /* records in it (0 is possible) */
    uint64_t size;   /* bytes of its data as stored (compressed) */
    uint64_t end;    /* file offset just after its sync marker */
} avk_file_index_entry;

/* ---- building ---------------------------------------------------------- */

/* Builds the index of a container file. The header is read and checked
 * through the reader (avk_file_reader_open_*, with opts: NULL means the
 * defaults; the limits that matter here are max_header_bytes,
 * max_meta_entries, max_block_bytes, max_block_data and
 * limits.max_empty_items). Then every block header is read and checked as
 * avk_file_reader_next_block checks it, with the same statuses, error
 * places (err->offset the block's offset, err->block its index, the
 * message starting "block N at byte X: ") and messages, block data
 * excepted (it is never read):
 * AVK_ERR_TRUNCATED (the file ends inside a count or size, inside the
 * data a size claims, or inside the sync marker after the data: a file
 * still being written fails here, the index is of whole files only);
 * AVK_ERR_MALFORMED (a varint longer than 10 bytes, a negative count or
 * size, a null-codec count larger than the block's bytes can hold at the
 * schema's smallest record); AVK_ERR_SYNC; AVK_ERR_LIMIT (a size above
 * max_block_bytes, a compressed block whose count times the smallest
 * record exceeds max_block_data, records of zero bytes beyond
 * max_empty_items); the open statuses of the reader for the header;
 * AVK_ERR_IO; AVK_ERR_NO_MEMORY; AVK_ERR_INVALID_ARGUMENT (NULL arguments;
 * "-", a pipe or anything else that cannot be read at an offset).
 * On failure *out is NULL.
 * - _path: a regular file, read with pread(2): one read of 36 bytes a
 *   block (the marker of one block and the varints of the next; 32 KiB
 *   after a block under 4 KiB, whose followers it likely holds).
 * - _fd: the same through a descriptor the caller keeps open, from its
 *   current position as avk_file_reader_open_fd reads it (offsets are
 *   still file offsets); the position is left where the header's reading
 *   left it.
 * - _memory: data[0..len), read in place; not kept after the call.
 * The file's size and modification time (from fstat before the walk; 0
 * for memory) are kept in the index, so a sidecar saved from it knows
 * which version of the file it describes.
 * Memory: 40 bytes a block, grown by doubling; a file's blocks take at
 * least 18 bytes each, so no input makes it more than about 4.5 times the
 * file's size (2.3 times once grown).
 *
 *     avk_file_index *idx;
 *     if (avk_file_index_build_path("data.avro", NULL, &idx, &err) != AVK_OK) ...
 *     printf("%llu records in %zu blocks\n",
 *            (unsigned long long)avk_file_index_records(idx), avk_file_index_block_count(idx));
 *     avk_file_index_free(idx);
 */
AVK_EXPORT avk_status avk_file_index_build_path(const char *path,
                                                const avk_file_reader_options *opts,
                                                avk_file_index **out, avk_error *err);
AVK_EXPORT avk_status avk_file_index_build_fd(int fd, const avk_file_reader_options *opts,
                                              avk_file_index **out, avk_error *err);
AVK_EXPORT avk_status avk_file_index_build_memory(const void *data, size_t len,
                                                  const avk_file_reader_options *opts,
                                                  avk_file_index **out, avk_error *err);

/* Frees an index. NULL is ignored. */
AVK_EXPORT void avk_file_index_free(avk_file_index *idx);

/* ---- reading it -------------------------------------------------------- */

/* Number of blocks. */
AVK_EXPORT size_t avk_file_index_block_count(const avk_file_index *idx);

/* Block i (0 for the first), owned by the index; NULL when i is not below
 * the block count. */
AVK_EXPORT const avk_file_index_entry *avk_file_index_block(const avk_file_index *idx, size_t i);

/* Records in all blocks. */
AVK_EXPORT uint64_t avk_file_index_records(const avk_file_index *idx);

/* The offset of the first block (the header's size in bytes) and the
 * file's 16-byte sync marker (owned by the index). */
AVK_EXPORT uint64_t avk_file_index_header_size(const avk_file_index *idx);
AVK_EXPORT const uint8_t *avk_file_index_sync(const avk_file_index *idx);

/* The size of the file the index describes: where its last block ends
 * (the header's size for a file with no blocks). */
AVK_EXPORT uint64_t avk_file_index_file_size(const avk_file_index *idx);

/* The file's modification time when it was indexed, in nanoseconds since
 * 1970 (0 for an index built from memory). */
AVK_EXPORT int64_t avk_file_index_mtime_ns(const avk_file_index *idx);

/* The block holding record n (0-based, file-wide), found by binary search:
 * its index, or the block count when n is not below avk_file_index_records
 * (blocks of 0 records never hold one). */
AVK_EXPORT size_t avk_file_index_find(const avk_file_index *idx, uint64_t n);

/* ---- seeking ----------------------------------------------------------- */

/* Moves fr so that its next avk_file_reader_next or skip returns record n
 * (0-based, file-wide) of the file idx was built from: seeks to the block
 * holding it (avk_file_reader_seek_block) and skips the records before n
 * in that block, so it costs at most one block's decompression and the
 * skipping of its records before n. n equal to avk_file_index_records
 * moves to the end of the indexed blocks: the next read reports
 * *more = 0 (or the blocks appended since the index was made).
 * Block indexes in the reader's later errors count from the block sought
 * to, as after any seek.
 * Returns AVK_OK; AVK_ERR_INVALID_ARGUMENT (NULL arguments; n above the
 * record count, with both numbers in the message; an index of another file,
 * told by a different sync marker or header size; a reader that cannot
 * seek, such as a pipe; a block that turns out to hold fewer records than
 * the index says: the index is not of this version of the file); any
 * status of avk_file_reader_skip for the records skipped, with the
 * reader's error then final as after any read error. */
AVK_EXPORT avk_status avk_file_reader_seek_record(avk_file_reader *fr, const avk_file_index *idx,
                                                  uint64_t n, avk_error *err);

/* ---- the sidecar file -------------------------------------------------- */

/* An index is saved beside its file as FILE.avkidx (avk_file_index_open_path
 * uses that name), a compact binary file, all integers little-endian:
 *
 *   offset  bytes  field
 *   0       8      magic "\x89" "AVKIDX" "\n"
 *   8       4      format version, 1
 *   12      4      flags, 0 (files with other bits are refused)
 *   16      8      size of the data file (where its last block ends)
 *   24      8      its modification time, nanoseconds since 1970 (signed)
 *   32      8      header size (offset of the first block)
 *   40      16     the sync marker
 *   56      8      block count B
 *   64      8      total records
 *   72      ...    B entries, each three unsigned LEB128 varints: the
 *                  block's record count, its stored data size, and the
 *                  bytes its count and size varints take in the data file
 *                  (2 to 20); offsets follow from these, block after
 *                  block from the header size
 *   end-4   4      CRC-32 (ISO-HDLC, as zlib's crc32) of every byte before it
 *
 * About 5 bytes a block. Loading checks everything: magic, version, flags,
 * the CRC, each varint (at most 10 bytes, no bits beyond 64), counts and
 * sizes not above INT64_MAX, offsets that do not overflow, blocks that end
 * exactly at the stated file size, a total equal to the sum of the counts,
 * no bytes left over, and the block count against the bytes that remain
 * (each entry takes at least 3) before anything is allocated for it. The
 * CRC guards against damage, not forgery: a reader still checks every
 * block it reads, so a lying sidecar makes seeking fail or land wrong,
 * never read out of bounds. */
#define AVK_FILE_INDEX_SUFFIX ".avkidx"

/* Writes idx to sidecar_path: into a new temporary file in the same
 * directory (sidecar_path plus ".tmp-" and a unique suffix, mode 0666 less
 * the umask), fsync'd, then renamed over sidecar_path; a failure removes
 * the temporary file and leaves any existing sidecar as it was. Returns
 * AVK_OK, AVK_ERR_IO (err->sys_errno: EACCES or EROFS for a directory that
 * cannot be written, ENOSPC, ...), AVK_ERR_NO_MEMORY or
 * AVK_ERR_INVALID_ARGUMENT. Thread-safe for different paths. */
AVK_EXPORT avk_status avk_file_index_save(const avk_file_index *idx, const char *sidecar_path,
                                          avk_error *err);

/* Reads a sidecar (any size up to 1 GiB; larger is AVK_ERR_LIMIT) into a
 * new index whose memory comes from alloc (NULL: the C library). The CRC
 * is checked before the entries are read, so damage anywhere, a cut
 * included, is AVK_ERR_CHECKSUM unless the fixed fields show it first.
 * Returns AVK_OK; AVK_ERR_MALFORMED (not a sidecar, a field or entry that
 * does not hold together; the message says which, with err->offset its
 * byte in the sidecar); AVK_ERR_TRUNCATED (cut inside the fixed fields, or
 * shorter than its block count needs); AVK_ERR_CHECKSUM (CRC mismatch);
 * AVK_ERR_UNSUPPORTED (another format version or unknown flags);
 * AVK_ERR_LIMIT; AVK_ERR_IO (err->sys_errno ENOENT when there is none);
 * AVK_ERR_NO_MEMORY; AVK_ERR_INVALID_ARGUMENT. On failure *out is NULL.
 * It says nothing of whether the sidecar still matches its file:
 * avk_file_index_open_path checks that. */
AVK_EXPORT avk_status avk_file_index_load(const char *sidecar_path, const avk_allocator *alloc,
                                          avk_file_index **out, avk_error *err);
/* The same from a sidecar's bytes in memory (data[0..len), not kept). */
AVK_EXPORT avk_status avk_file_index_load_memory(const void *data, size_t len,
                                                 const avk_allocator *alloc,
                                                 avk_file_index **out, avk_error *err);

/* The sidecar name avk_file_index_open_path uses for path: path followed by
 * AVK_FILE_INDEX_SUFFIX, written to out (cap bytes, NUL-terminated when
 * cap > 0). Returns the length of the full name as snprintf does: a result
 * of cap or more means it was cut. */
AVK_EXPORT size_t avk_file_index_sidecar_name(const char *path, char *out, size_t cap);

/* ---- the sidecar as a cache -------------------------------------------- */

/* open_path flags. */
#define AVK_FILE_INDEX_SAVE 0x1u    /* write the sidecar when the index was built or
                                       refreshed (not when loaded as it was) */
#define AVK_FILE_INDEX_REBUILD 0x2u /* ignore any sidecar: build from the file */

/* What happened to the sidecar. */
typedef enum avk_file_index_sidecar_state {
    AVK_FILE_INDEX_SIDECAR_NONE = 0,    /* there was none */
    AVK_FILE_INDEX_SIDECAR_CURRENT = 1, /* it matched the file and was used as it was */
    AVK_FILE_INDEX_SIDECAR_GREW = 2,    /* it matched the start of a file that has
                                           grown since (blocks appended): only the new
                                           blocks were read */
    AVK_FILE_INDEX_SIDECAR_STALE = 3,   /* it describes another version of the file
                                           (size, time, sync marker or header differ,
                                           or its blocks no longer match): rebuilt */
    AVK_FILE_INDEX_SIDECAR_BAD = 4,     /* it could not be read (damaged, cut, another
                                           format version; sidecar_error says why):
                                           rebuilt */
    AVK_FILE_INDEX_SIDECAR_IGNORED = 5  /* AVK_FILE_INDEX_REBUILD */
} avk_file_index_sidecar_state;

/* What avk_file_index_open_path did besides returning the index. */
typedef struct avk_file_index_info {
    avk_file_index_sidecar_state sidecar;
    avk_error sidecar_error; /* with AVK_FILE_INDEX_SIDECAR_BAD: why */
    size_t reused_blocks;    /* blocks taken from the sidecar rather than read
                                from the file: all of them when CURRENT, those
                                before the appended ones when GREW, else 0 */
    int saved;               /* the sidecar was written */
    avk_status save_status;  /* AVK_OK, or why it could not be written (with
                                AVK_FILE_INDEX_SAVE): the index is still
                                returned and good; e.g. AVK_ERR_IO with
                                save_error.sys_errno EACCES or EROFS for a
                                directory that cannot be written */
    avk_error save_error;
} avk_file_index_info;

/* The index of the file at path, through its sidecar path.avkidx when that
 * is up to date: the sidecar is used as it is when its file size and
 * modification time are the file's and the file still holds its sync
 * marker just before the first block (one 16-byte read: the header is not
 * parsed). When the file is larger, has the same header (parsed, compared
 * with the sidecar's size and marker) and the sidecar's last block is
 * still there unchanged (its count, size and marker read again), the file
 * grew by appending: only the blocks after it are read. Otherwise, or
 * with AVK_FILE_INDEX_REBUILD, the index is built as
 * avk_file_index_build_path builds it. With AVK_FILE_INDEX_SAVE an index
 * built or refreshed is saved (avk_file_index_save): failing to save is
 * not an error, the index is returned with info->save_status saying why.
 * A sidecar that cannot be read is not an error either (it is rebuilt,
 * and replaced with AVK_FILE_INDEX_SAVE).
 * opts as for build (its allocator is the index's). A sidecar does not
 * record the limits it was built with: its blocks are not checked again
 * against opts (a reader still checks each block it reads). info may be
 * NULL.
 * Returns the statuses of avk_file_index_build_path (for the file; a
 * refresh reports the new blocks' errors as a build would, with the
 * block's index counted from the file's first block). On failure *out is
 * NULL.
 * Not atomic against a writer changing the file meanwhile: the index
 * describes the file as it was when its size was taken, and a file
 * rewritten in place to the same size and modification time (with the
 * same sync marker) would be taken as unchanged: REBUILD then. */
AVK_EXPORT avk_status avk_file_index_open_path(const char *path,
                                               const avk_file_reader_options *opts,
                                               unsigned flags, avk_file_index **out,
                                               avk_file_index_info *info, avk_error *err);

#ifdef __cplusplus
}
#endif

#endif
