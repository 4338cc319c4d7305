/* Fuzz target: a stream reader with fuzz-chosen refill sizes must agree with a memory reader and a reference model, op by op. */
#include <stdlib.h>
#include <string.h>

#include "avrokit/reader.h"
#include "fuzz.h"
#include "varint/kernels.h"

/* Input layout:
 *   byte 0           P - 1 in its low 4 bits: the refill pattern's length
 *   P bytes          refill sizes, used in turn (0: as much as asked)
 *   1 byte           stream buffer size, chosen from buffer_sizes
 *   1 byte           N, the number of ops
 *   2 N bytes        ops: (kind, argument)
 *   the rest         the data both readers read */

static const size_t buffer_sizes[] = {64, 65, 80, 100, 128, 255, 1024, 0};

typedef struct pattern_source {
    const uint8_t *data;
    size_t len, pos;
    const uint8_t *pattern;
    size_t pattern_len, next;
} pattern_source;

static avk_status pattern_read(void *ctx, void *buf, size_t cap, size_t *got, avk_error *err)
{
    pattern_source *s = (pattern_source *)ctx;
    size_t n = s->len - s->pos;
    size_t limit = s->pattern[s->next++ % s->pattern_len];
    (void)err;
    if (n > cap)
        n = cap;
    if (limit && n > limit)
        n = limit;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    *got = n;
    return AVK_OK;
}

enum {
    OP_LONG,
    OP_INT,
    OP_LONGS,
    OP_INTS,
    OP_RAW,
    OP_RAW_BIG,
    OP_SKIP,
    OP_SKIP_BIG,
    OP_BOOLEAN,
    OP_AT_END,
    OP_FILL,
    OP_COUNT
};

/* The model's status for a varint at p[0..rest) that the reference rejects. */
static avk_status varint_failure(const uint8_t *p, size_t rest, size_t max_len)
{
    size_t i;
    for (i = 0; i < rest && i < max_len; i++)
        if (p[i] < 0x80)
            return AVK_ERR_MALFORMED;
    return i == max_len ? AVK_ERR_MALFORMED : AVK_ERR_TRUNCATED;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t p_len, header, n_ops, i, off = 0, len;
    const uint8_t *pattern, *ops, *d;
    pattern_source src;
    avk_reader_options opts;
    avk_reader sr, mr;
    avk_error err;
    uint8_t *copy;

    if (size < 1)
        return 0;
    p_len = 1 + (data[0] & 15);
    if (size < 1 + p_len + 2)
        return 0;
    pattern = data + 1;
    n_ops = data[1 + p_len + 1];
    header = 1 + p_len + 2 + 2 * n_ops;
    if (size < header)
        return 0;
    ops = data + 1 + p_len + 2;
    len = size - header;
    /* An exact-size copy, so reading past the end is caught by ASan. */
    copy = (uint8_t *)malloc(len ? len : 1);
    memcpy(copy, data + header, len);
    d = copy;

    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.buffer_size = buffer_sizes[data[1 + p_len] % (sizeof buffer_sizes / sizeof buffer_sizes[0])];
    memset(&src, 0, sizeof src);
    src.data = d;
    src.len = len;
    src.pattern = pattern;
    src.pattern_len = p_len;
    AVKF_CHECK(avk_reader_init_source(&sr, pattern_read, &src, &opts, &err) == AVK_OK, "init");
    avk_reader_init_memory(&mr, d, len);

    for (i = 0; i < n_ops; i++) {
        int op = ops[2 * i] % OP_COUNT;
        size_t arg = ops[2 * i + 1];
        size_t rest = len - off;
        avk_status want = AVK_OK, ss = AVK_OK, ms = AVK_OK;
        avk_error serr, merr;
        avk_error_clear(&serr);
        avk_error_clear(&merr);

        switch (op) {
        case OP_LONG:
        case OP_INT: {
            int64_t rv = 0, sv = 0, mv = 0;
            size_t rc = 0, count;
            if (op == OP_LONG) {
                count = avki_ref_decode_longs(d + off, rest, &rv, 1, &rc);
                ss = avk_reader_read_long(&sr, &sv, &serr);
                ms = avk_reader_read_long(&mr, &mv, &merr);
            } else {
                int32_t r32 = 0, s32 = 0, m32 = 0;
                count = avki_ref_decode_ints(d + off, rest, &r32, 1, &rc);
                ss = avk_reader_read_int(&sr, &s32, &serr);
                ms = avk_reader_read_int(&mr, &m32, &merr);
                rv = r32;
                sv = s32;
                mv = m32;
            }
            want = count ? AVK_OK
                         : varint_failure(d + off, rest, op == OP_LONG ? AVK_VARINT_LONG_MAX
                                                                       : AVK_VARINT_INT_MAX);
            if (count && ss == AVK_OK && ms == AVK_OK) {
                AVKF_CHECK(sv == rv && mv == rv, "op %zu: values %lld (stream) %lld (memory), "
                           "reference %lld", i, (long long)sv, (long long)mv, (long long)rv);
                off += rc;
            }
            break;
        }
        case OP_LONGS:
        case OP_INTS: {
            int64_t r64[256], s64[256], m64[256];
            int32_t r32[256], s32[256], m32[256];
            size_t rc = 0, count, k;
            if (op == OP_LONGS) {
                count = avki_ref_decode_longs(d + off, rest, r64, arg, &rc);
                ss = avk_reader_read_longs(&sr, s64, arg, &serr);
                ms = avk_reader_read_longs(&mr, m64, arg, &merr);
                for (k = 0; k < count; k++)
                    AVKF_CHECK(s64[k] == r64[k] && m64[k] == r64[k], "op %zu: longs[%zu]", i, k);
            } else {
                count = avki_ref_decode_ints(d + off, rest, r32, arg, &rc);
                ss = avk_reader_read_ints(&sr, s32, arg, &serr);
                ms = avk_reader_read_ints(&mr, m32, arg, &merr);
                for (k = 0; k < count; k++)
                    AVKF_CHECK(s32[k] == r32[k] && m32[k] == r32[k], "op %zu: ints[%zu]", i, k);
            }
            want = count == arg ? AVK_OK
                                : varint_failure(d + off + rc, rest - rc,
                                                 op == OP_LONGS ? AVK_VARINT_LONG_MAX
                                                                : AVK_VARINT_INT_MAX);
            /* Bulk reads stand at the bad value after an error. */
            off += rc;
            if (want != AVK_OK) {
                AVKF_CHECK(avk_reader_offset(&sr) == off && avk_reader_offset(&mr) == off,
                           "op %zu: after a failed bulk read, offsets %llu (stream) %llu (memory), "
                           "expected %zu", i, (unsigned long long)avk_reader_offset(&sr),
                           (unsigned long long)avk_reader_offset(&mr), off);
            }
            break;
        }
        case OP_RAW:
        case OP_RAW_BIG: {
            size_t n = op == OP_RAW ? arg : arg * 8;
            uint8_t *sb = (uint8_t *)malloc(n ? n : 1), *mb = (uint8_t *)malloc(n ? n : 1);
            ss = avk_reader_read_raw(&sr, sb, n, &serr);
            ms = avk_reader_read_raw(&mr, mb, n, &merr);
            want = n <= rest ? AVK_OK : AVK_ERR_TRUNCATED;
            if (want == AVK_OK && ss == AVK_OK && ms == AVK_OK) {
                AVKF_CHECK(memcmp(sb, d + off, n) == 0 && memcmp(mb, d + off, n) == 0,
                           "op %zu: raw bytes", i);
                off += n;
            }
            free(sb);
            free(mb);
            break;
        }
        case OP_SKIP:
        case OP_SKIP_BIG: {
            size_t n = op == OP_SKIP ? arg : arg * 64;
            ss = avk_reader_skip(&sr, n, &serr);
            ms = avk_reader_skip(&mr, n, &merr);
            want = n <= rest ? AVK_OK : AVK_ERR_TRUNCATED;
            if (want == AVK_OK)
                off += n;
            break;
        }
        case OP_BOOLEAN: {
            int sb = -1, mb = -1;
            ss = avk_reader_read_boolean(&sr, &sb, &serr);
            ms = avk_reader_read_boolean(&mr, &mb, &merr);
            want = rest == 0 ? AVK_ERR_TRUNCATED : d[off] > 1 ? AVK_ERR_MALFORMED : AVK_OK;
            if (want == AVK_OK) {
                AVKF_CHECK(sb == d[off] && mb == d[off], "op %zu: boolean", i);
                off++;
            }
            break;
        }
        case OP_AT_END: {
            int se = -1, me = -1;
            ss = avk_reader_at_end(&sr, &se, &serr);
            ms = avk_reader_at_end(&mr, &me, &merr);
            AVKF_CHECK(se == (rest == 0) && me == (rest == 0), "op %zu: at_end %d %d, rest %zu", i,
                       se, me, rest);
            break;
        }
        default: { /* OP_FILL: at most 64, which every stream buffer holds */
            size_t n = arg % 65;
            ss = avk_reader_fill(&sr, n, &serr);
            ms = avk_reader_fill(&mr, n, &merr);
            want = n <= rest ? AVK_OK : AVK_ERR_TRUNCATED;
            if (want == AVK_OK)
                AVKF_CHECK((size_t)(sr.end - sr.pos) >= n && (size_t)(mr.end - mr.pos) >= n &&
                               memcmp(sr.pos, d + off, n) == 0 && memcmp(mr.pos, d + off, n) == 0,
                           "op %zu: fill %zu", i, n);
            break;
        }
        }

        AVKF_CHECK(ss == want && ms == want, "op %zu (kind %d, arg %zu) at %zu: stream %s, memory "
                   "%s, expected %s", i, op, arg, off, avk_status_name(ss), avk_status_name(ms),
                   avk_status_name(want));
        if (want != AVK_OK) {
            AVKF_CHECK(serr.status == want && merr.status == want, "op %zu: err.status", i);
            AVKF_CHECK((serr.offset == merr.offset),
                       "op %zu (kind %d, arg %zu) at %zu: error offsets %llu (stream) %llu (memory)",
                       i, op, arg, off, (unsigned long long)serr.offset,
                       (unsigned long long)merr.offset);
            AVKF_CHECK(merr.offset >= off && merr.offset <= len, "op %zu: memory error offset", i);
            break; /* the readers may stand at different places now */
        }
        AVKF_CHECK(avk_reader_offset(&sr) == off && avk_reader_offset(&mr) == off,
                   "op %zu (kind %d, arg %zu): offsets %llu (stream) %llu (memory), expected %zu", i,
                   op, arg, (unsigned long long)avk_reader_offset(&sr),
                   (unsigned long long)avk_reader_offset(&mr), off);
    }
    avk_reader_destroy(&sr);
    avk_reader_destroy(&mr);
    free(copy);
    return 0;
}
