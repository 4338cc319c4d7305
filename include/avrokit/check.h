/* Hostile-input checks: the length, block and item checks of the library's own decoder, with its statuses, offsets, messages and paths, for generated decoders. */
#ifndef AVROKIT_CHECK_H
#define AVROKIT_CHECK_H

/*
 * Stable API for generated code. A decoder generated for one schema (or
 * written by hand) that calls these functions refuses exactly the inputs
 * avk_plan_decode refuses, and reports each with the same status, byte
 * offset, err->path and message: the functions below are the ones the
 * library's decoder and skipper call. Their names, arguments, statuses
 * and message texts change only with the major version.
 *
 * The checks come in the order the decoder makes them:
 * - a string, bytes or map key length: avk_check_length, right after the
 *   length is read and before any byte of the payload is touched;
 * - an array or map block: avk_check_read_block reads its header, then
 *   avk_check_items checks the count against the limits, and
 *   avk_check_items_take says how many items to make room for now, so a
 *   lying count never makes anything allocate ahead of the input; after
 *   its items, avk_check_block_end checks the block's byte size;
 * - a failure deep in a value: each level puts its place in front of an
 *   avk_check_path while returning, and the outermost caller reports it
 *   with avk_check_path_report.
 * The reason of any other error is set with avk_error_set (status.h).
 *
 * Thread safety: none of them keeps state; each works on what it is given.
 *
 * What a generated decoder of record User { string name; array<long> tags; }
 * checks (lim: limits filled by avk_check_limits; reading the values left
 * out):
 *
 *     static avk_status tags(avk_reader *r, const avk_limits *lim, avk_error *err)
 *     {
 *         uint64_t n = 0, empty = 0;
 *         for (;;) {
 *             uint64_t off = avk_reader_offset(r), count, end, take;
 *             avk_status st = avk_check_read_block(r, off, &count, &end, err);
 *             if (st != AVK_OK || count == 0)
 *                 return st;
 *             st = avk_check_items(lim, n, count, 1, &empty, off, err);
 *             while (st == AVK_OK && count > 0) {
 *                 st = avk_check_items_take(r, count, 1, 1, off, &take, err);
 *                 if (st != AVK_OK)
 *                     break;
 *                 ... // room for take more longs, then read them
 *                 n += take;
 *                 count -= take;
 *             }
 *             if (st == AVK_OK)
 *                 st = avk_check_block_end(r, off, end, err);
 *             if (st != AVK_OK)
 *                 return st;
 *         }
 *     }
 *     // The record: a field that fails puts its place in front.
 *     static avk_status user(avk_reader *r, const avk_limits *lim, avk_check_path *at,
 *                            avk_error *err)
 *     {
 *         uint64_t off = avk_reader_offset(r);
 *         int64_t len;
 *         avk_status st = avk_reader_read_long(r, &len, err);
 *         if (st == AVK_OK)
 *             st = avk_check_length(len, lim->max_bytes, avk_check_remaining(r), off,
 *                                   "string", err);
 *         if (st == AVK_OK) // then the payload
 *             st = avk_reader_skip(r, (uint64_t)len, err);
 *         if (st != AVK_OK)
 *             return avk_check_path_front(at, AVK_PATH_FIELD, 0, "name", st);
 *         st = tags(r, lim, err);
 *         return st == AVK_OK ? st : avk_check_path_front(at, AVK_PATH_FIELD, 1, "tags", st);
 *     }
 *
 * At the top: avk_check_path_init(&at) before user(), and when it fails,
 * avk_check_path_report(&err, "User", &at).
 */

#include <stddef.h>
#include <stdint.h>

#include "avrokit/macros.h"
#include "avrokit/plan.h"
#include "avrokit/reader.h"
#include "avrokit/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- limits ------------------------------------------------------------ */

/* Replaces each 0 in *limits by the library's default for it, as
 * avk_plan_new does for a plan's limits; the checks below take limits so
 * filled. */
AVK_EXPORT void avk_check_limits(avk_limits *limits);

/* ---- lengths ----------------------------------------------------------- */

/* The bytes r still holds when they are all the input there is (a memory
 * reader), for avk_check_length; UINT64_MAX for a stream reader, which
 * cannot know what is still to come (its payloads fail as TRUNCATED when
 * read instead, as the library's decoder's do). */
AVK_INLINE uint64_t avk_check_remaining(const avk_reader *r)
{
    return r->source ? UINT64_MAX : (uint64_t)(r->end - r->pos);
}

/* The error of a length avk_check_length refuses (cold; call that). */
AVK_EXPORT avk_status avk_check_length_error(int64_t n, uint64_t max_bytes, uint64_t remaining,
                                             uint64_t offset, const char *what, avk_error *err) AVK_COLD;

/* Checks a length n read from the input at byte offset (where its varint
 * starts) before its payload: a string, bytes or map key length, what
 * naming it in the message ("string", "bytes"). max_bytes is the limit
 * (avk_limits.max_bytes), remaining what avk_check_remaining says.
 * Returns AVK_OK, or with err filled (path cleared):
 * AVK_ERR_MALFORMED   n is negative ("negative string length -3");
 * AVK_ERR_LIMIT       n is above max_bytes;
 * AVK_ERR_TRUNCATED   n is above remaining.
 * Inline: the decoder calls it for every string. */
AVK_INLINE avk_status avk_check_length(int64_t n, uint64_t max_bytes, uint64_t remaining,
                                       uint64_t offset, const char *what, avk_error *err)
{
    if (AVK_LIKELY(n >= 0 && (uint64_t)n <= max_bytes && (uint64_t)n <= remaining))
        return AVK_OK;
    return avk_check_length_error(n, max_bytes, remaining, offset, what, err);
}

/* ---- blocks of arrays and maps ------------------------------------------ */

/* The error of a block header avk_check_read_block refuses: count is
 * INT64_MIN, or size is negative (cold). */
AVK_EXPORT avk_status avk_check_block_error(int64_t count, int64_t size, uint64_t offset,
                                            avk_error *err)
    AVK_COLD;

/* Reads the header of an array or map block that starts at byte offset:
 * *count items (0: the array or map ends here) and, for a block written
 * with its byte size (a negative count), *end is the offset where its
 * items must end; UINT64_MAX otherwise. A size beyond the input is not
 * refused here (a stream could not know): the items run out instead.
 * Returns AVK_OK; AVK_ERR_MALFORMED for a count of -2^63 or a negative
 * size; or the reader's statuses (AVK_ERR_TRUNCATED, AVK_ERR_MALFORMED for
 * a bad varint, AVK_ERR_IO). */
AVK_INLINE avk_status avk_check_read_block(avk_reader *r, uint64_t offset, uint64_t *count,
                                           uint64_t *end, avk_error *err)
{
    int64_t n;
    avk_status st = avk_reader_read_long(r, &n, err);
    *count = 0; /* set on every path, so callers' compilers see it set */
    *end = UINT64_MAX;
    if (AVK_UNLIKELY(st != AVK_OK))
        return st;
    if (n < 0) {
        int64_t size;
        if (AVK_UNLIKELY(n == INT64_MIN))
            return avk_check_block_error(n, 0, offset, err);
        n = -n;
        st = avk_reader_read_long(r, &size, err);
        if (AVK_UNLIKELY(st != AVK_OK))
            return st;
        if (AVK_UNLIKELY(size < 0))
            return avk_check_block_error(n, size, offset, err);
        *end = avk_reader_offset(r) + (uint64_t)size;
    }
    *count = (uint64_t)n;
    return AVK_OK;
}

/* The error of a block avk_check_block_end refuses (cold). */
AVK_EXPORT avk_status avk_check_block_end_error(uint64_t offset, uint64_t end, uint64_t at,
                                                avk_error *err)
    AVK_COLD;

/* Checks, once a block's items are read, that they ended where its byte
 * size said: end from avk_check_read_block (UINT64_MAX: no size was given,
 * nothing to check), offset where the block's header started. A size that
 * disagrees is AVK_ERR_MALFORMED at offset: a skipper trusting it would
 * land elsewhere than a decoder. */
AVK_INLINE avk_status avk_check_block_end(const avk_reader *r, uint64_t offset, uint64_t end,
                                          avk_error *err)
{
    if (AVK_UNLIKELY(end != UINT64_MAX && avk_reader_offset(r) != end))
        return avk_check_block_end_error(offset, end, avk_reader_offset(r), err);
    return AVK_OK;
}

/* The error of a block avk_check_items refuses: over max_items (empty 0)
 * or over max_empty_items (empty 1) (cold). */
AVK_EXPORT avk_status avk_check_items_error(const avk_limits *limits, int empty, uint64_t offset,
                                            avk_error *err) AVK_COLD;

/* Checks a block of count items of one array or map (before: the items
 * of its earlier blocks) whose header is at byte offset, before anything
 * is allocated for them. min_size is the fewest bytes one item takes (a
 * map entry: its key's length byte at least); items of 0 bytes (null, an
 * empty record) cost no input, so they are added to *empty, the count of
 * such items in the whole value being decoded (start it at 0 per value).
 * limits: the plan's (avk_limits with its defaults; 0 is not "default"
 * here). Returns AVK_OK, or AVK_ERR_LIMIT ("collection of more than
 * max_items (N) items", "more than max_empty_items (N) zero-byte items"). */
AVK_INLINE avk_status avk_check_items(const avk_limits *limits, uint64_t before, uint64_t count,
                                      uint64_t min_size, uint64_t *empty, uint64_t offset,
                                      avk_error *err)
{
    if (AVK_UNLIKELY(count > limits->max_items - before || before > limits->max_items))
        return avk_check_items_error(limits, 0, offset, err);
    if (min_size == 0) {
        *empty += count;
        if (AVK_UNLIKELY(*empty > limits->max_empty_items))
            return avk_check_items_error(limits, 1, offset, err);
    }
    return AVK_OK;
}

/* How many of a block's count items (checked by avk_check_items) to make
 * room for now, in *take, reading from r. All of them when the bytes r
 * holds can carry them at min_size each (or min_size is 0). Otherwise,
 * from a memory reader: when no item can be malformed (may_be_malformed 0:
 * floats, doubles, fixed) the block cannot be complete and this returns
 * AVK_ERR_TRUNCATED ("block of N items needs at least B bytes but only R
 * remain") at offset; else as many as the bytes can carry (at least 1), so
 * the first item that does not fit, or a malformed one before it, gives
 * the status a stream reader gives. From a stream reader: what is
 * buffered can carry, at least 4096 items (or count): a lying count costs
 * at most about twice the memory of the items that really arrive. Call it
 * again for the rest of the block as the items are read. */
AVK_EXPORT avk_status avk_check_items_take(const avk_reader *r, uint64_t count, uint64_t min_size,
                                           int may_be_malformed, uint64_t offset, uint64_t *take,
                                           avk_error *err);

/* ---- where an error happened ------------------------------------------- */

/* One step from a value to a part of it. */
typedef enum avk_path_kind {
    AVK_PATH_FIELD = 1, /* record field: index and name ("User.fields[1]", "User.tags") */
    AVK_PATH_ITEM,      /* array item: index (".items[7]", "[7]") */
    AVK_PATH_KEY,       /* map key: index of the entry (".keys[2]") */
    AVK_PATH_VALUE,     /* map value: index of the entry (".values[2]") */
    AVK_PATH_BRANCH,    /* union branch: index (".branch[1]") */
    /* Resolving decoders (writer data read with a reader schema): */
    AVK_PATH_WRITER_FIELD, /* a writer field the reader lacks, being skipped:
                              index and name (".writer_field[2]", ".old") */
    AVK_PATH_WRITER_BRANCH /* the writer's branch of a union read as a
                              non-union (".writer_branch[1]") */
} avk_path_kind;

typedef struct avk_path_seg {
    avk_path_kind kind;
    uint64_t index;
    const char *name; /* fields: the field's name, or NULL */
} avk_path_seg;

/* Segments an avk_check_path keeps. */
#define AVK_CHECK_PATH_MAX 32

/* The place of an error, built while returning from it: the innermost
 * level first (segs[0]), each caller putting its own in front. Past
 * AVK_CHECK_PATH_MAX segments the outer ones are counted but not kept,
 * and the report shows them as "...(N levels)...". */
typedef struct avk_check_path {
    avk_path_seg segs[AVK_CHECK_PATH_MAX]; /* innermost first */
    size_t count;                          /* segments put in front, kept or not */
} avk_check_path;

static inline void avk_check_path_init(avk_check_path *p)
{
    p->count = 0;
}

/* Puts a segment in front of p (the caller's own place in the value the
 * failure happened below) and returns st, so a failing level can
 * `return avk_check_path_front(p, AVK_PATH_FIELD, 1, "tags", st);`. */
AVK_INLINE avk_status avk_check_path_front(avk_check_path *p, avk_path_kind kind, uint64_t index,
                                           const char *name, avk_status st)
{
    if (p->count < AVK_CHECK_PATH_MAX) {
        p->segs[p->count].kind = kind;
        p->segs[p->count].index = index;
        p->segs[p->count].name = name;
    }
    p->count++;
    return st;
}

/* Finishes err (NULL ignored) for an error at p below the root value,
 * whose type is labelled root as the decoder labels it (a named type's
 * full name, "com.example.User"; else the kind, "array"). On entry
 * err->message holds the reason; on return, as from avk_plan_decode:
 * err->path is root and the segments by index ("User.fields[1].items[7]")
 * and err->message root and the segments by name, ": " and the reason
 * ("User.tags[7]: ..."); a path too long for its buffer keeps both ends
 * around "...(N levels)...". Status and offset are left as they are. */
AVK_EXPORT void avk_check_path_report(avk_error *err, const char *root,
                                      const avk_check_path *p) AVK_COLD;

#ifdef __cplusplus
}
#endif
#endif
