/* Unit tests for parallel decoding of container files: work on blocks (next_work, the records cursor) and decoding ahead, each against plain sequential reading of the same input. */
#define _DEFAULT_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "avkt.h"
#include "avrokit/file.h"
#include "failalloc.h"
#include "guard.h"

/*
 * Every reading here is done twice: once the plain way (avk_file_reader_next
 * or skip, threads 0), once the way under test (next_work with a work
 * function, on 0 to 8 threads; or next with AVK_FILE_DECODE_AHEAD). Each
 * writes a text log: one line per record (its bytes re-encoded, as length
 * and hash), one per status returned (name, offset, block, path, message),
 * and the end; on_skip calls go to a second log. The two logs, and the
 * stats, must be equal.
 */

static const unsigned THREADS[] = {0, 1, 2, 3, 8};
#define N_THREADS (sizeof THREADS / sizeof THREADS[0])

static const avk_codec ALL_CODECS[] = {AVK_CODEC_NULL,      AVK_CODEC_DEFLATE, AVK_CODEC_SNAPPY,
                                       AVK_CODEC_ZSTANDARD, AVK_CODEC_BZIP2,   AVK_CODEC_XZ};
#define N_CODECS (sizeof ALL_CODECS / sizeof ALL_CODECS[0])

static const uint8_t SYNC[16] = {0x53, 0x79, 0x6e, 0x63, 0x01, 0x02, 0x03, 0x04,
                                 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87};

/* What the failing test was doing, for messages. */
static char g_where[512];

static void nap_us(unsigned us)
{
    struct timespec ts;
    ts.tv_sec = 0;
    ts.tv_nsec = (long)us * 1000;
    nanosleep(&ts, NULL);
}

/* ---- byte strings (thread-safe: libc only, no cmocka asserts) ----------------------------- */

typedef struct bb {
    uint8_t *p;
    size_t len, cap;
} bb;

static void bb_put(bb *b, const void *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->p = (uint8_t *)realloc(b->p, cap);
        if (!b->p)
            abort();
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void bb_printf(bb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void bb_printf(bb *b, const char *fmt, ...)
{
    char tmp[1400];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    if ((size_t)n >= sizeof tmp)
        n = (int)sizeof tmp - 1;
    bb_put(b, tmp, (size_t)n);
}

static void bb_long(bb *b, int64_t v)
{
    uint8_t tmp[10];
    bb_put(b, tmp, avk_varint_encode_long(tmp, v));
}

static void bb_str(bb *b, const char *s)
{
    bb_long(b, (int64_t)strlen(s));
    bb_put(b, s, strlen(s));
}

static void bb_free(bb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static avk_status bb_sink(void *ctx, const void *data, size_t len, avk_error *err)
{
    (void)err;
    bb_put((bb *)ctx, data, len);
    return AVK_OK;
}

#define FNV0 0xcbf29ce484222325ULL

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const uint8_t *s = (const uint8_t *)p;
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}


/* ---- temporary files ---------------------------------------------------------------------- */

static void tmp_path(char path[64])
{
    int fd;
    snprintf(path, 64, "/tmp/avk_file_work_test_XXXXXX");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

static void write_whole(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(d, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* ---- inputs: memory (guard page), path, fd, pipe ------------------------------------------ */

enum { IN_MEM, IN_PATH, IN_FD, IN_PIPE, N_INPUTS };
#define HOW(h) (1u << (h))
#define ALL_HOWS (HOW(IN_MEM) | HOW(IN_PATH) | HOW(IN_FD) | HOW(IN_PIPE))
static const char *const IN_NAMES[] = {"memory", "path", "fd", "pipe"};

typedef struct input {
    const uint8_t *data;
    size_t len;
    avkt_guard g;
    int fd;
    int pipefd[2];
    pthread_t writer;
    int has_writer;
} input;

/* Feeds a pipe from another thread, so inputs of any size fit; stops when
 * the reading end is closed (SIGPIPE is ignored). */
static void *pipe_writer(void *arg)
{
    input *in = (input *)arg;
    size_t off = 0;
    while (off < in->len) {
        ssize_t w = write(in->pipefd[1], in->data + off, in->len - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    close(in->pipefd[1]);
    return NULL;
}

static avk_status input_open(input *in, int how, const void *data, size_t len, const char *path,
                             const avk_file_reader_options *o, avk_file_reader **fr,
                             avk_error *err)
{
    memset(in, 0, sizeof *in);
    in->fd = -1;
    in->pipefd[0] = in->pipefd[1] = -1;
    *fr = NULL;
    switch (how) {
    case IN_MEM:
        avkt_guard_copy(&in->g, data, len);
        return avk_file_reader_open_memory(in->g.data, len, o, fr, err);
    case IN_PATH:
        return avk_file_reader_open_path(path, o, fr, err);
    case IN_FD:
        in->fd = open(path, O_RDONLY);
        assert_true(in->fd >= 0);
        return avk_file_reader_open_fd(in->fd, o, fr, err);
    default:
        assert_int_equal(pipe(in->pipefd), 0);
        in->data = (const uint8_t *)data;
        in->len = len;
        assert_int_equal(pthread_create(&in->writer, NULL, pipe_writer, in), 0);
        in->has_writer = 1;
        return avk_file_reader_open_fd(in->pipefd[0], o, fr, err);
    }
}

/* After the reader is freed. */
static void input_close(input *in)
{
    avkt_guard_free(&in->g);
    if (in->fd >= 0)
        close(in->fd);
    if (in->pipefd[0] >= 0)
        close(in->pipefd[0]);
    if (in->has_writer)
        pthread_join(in->writer, NULL);
    memset(in, 0, sizeof *in);
}

/* ---- logs --------------------------------------------------------------------------------- */

static void log_record(bb *log, const uint8_t *p, size_t n)
{
    bb_printf(log, "R %zu %016llx\n", n, (unsigned long long)fnv(p, n, FNV0));
}

/* A status returned; next: the block offset after it (LIMIT in skip mode,
 * where the header says where reading goes on), or -1. */
static void log_status(bb *log, avk_status st, const avk_error *e, long long next)
{
    bb_printf(log, "E %s status=%s off=%llu blk=%lld path='%s' msg='%s'", avk_status_name(st),
              avk_status_name(e->status), (unsigned long long)e->offset, (long long)e->block,
              e->path, e->message);
    if (next >= 0)
        bb_printf(log, " next=%lld", next);
    bb_put(log, "\n", 1);
}

/* on_skip: the call, on the reader's thread. */
typedef struct skiplog {
    bb b;
    pthread_t owner;
} skiplog;

static void log_skip(void *ctx, const avk_error *why, uint64_t from, uint64_t to)
{
    skiplog *s = (skiplog *)ctx;
    bb_printf(&s->b, "S %s off=%llu blk=%lld msg='%s' from=%llu to=%llu%s\n",
              avk_status_name(why->status), (unsigned long long)why->offset,
              (long long)why->block, why->message, (unsigned long long)from,
              (unsigned long long)to,
              pthread_equal(pthread_self(), s->owner) ? "" : " (NOT ON THE READER'S THREAD)");
}

static size_t line_len(const bb *b, size_t at)
{
    size_t n = 0;
    while (at + n < b->len && b->p[at + n] != '\n' && n < 600)
        n++;
    return n;
}

/* 0 when got is want; else 1, with the first line where they differ
 * (both) in out. */
static int logs_differ(const bb *want, const bb *got, char *out, size_t cap)
{
    size_t i = 0, line = 1, start = 0, n = want->len < got->len ? want->len : got->len;
    while (i < n && want->p[i] == got->p[i]) {
        if (want->p[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    if (i == want->len && i == got->len)
        return 0;
    snprintf(out, cap, "line %zu differs:\n  want: %.*s\n  got:  %.*s", line,
             start < want->len ? (int)line_len(want, start) : 5,
             start < want->len ? (const char *)want->p + start : "<end>",
             start < got->len ? (int)line_len(got, start) : 5,
             start < got->len ? (const char *)got->p + start : "<end>");
    return 1;
}

static void logs_equal(const char *what, const bb *want, const bb *got)
{
    char d[1600];
    if (logs_differ(want, got, d, sizeof d))
        fail_msg("%s: %s: %s", g_where, what, d);
}

/* Lines starting with kind and a space ("R " records, "E " statuses), or
 * "R" alone (records skipped). */
static size_t count_lines(const bb *b, char kind)
{
    size_t i, n = 0;
    for (i = 0; i < b->len; i++)
        if ((i == 0 || b->p[i - 1] == '\n') && b->p[i] == (uint8_t)kind && i + 1 < b->len &&
            (b->p[i + 1] == ' ' || b->p[i + 1] == '\n'))
            n++;
    return n;
}

static void stats_equal(const avk_file_reader_stats *want, const avk_file_reader_stats *got)
{
    if (memcmp(want, got, sizeof *want) != 0)
        fail_msg("%s: stats differ: want blocks %llu records %llu stored %llu data %llu bad "
                 "%llu/%llu, got %llu %llu %llu %llu %llu/%llu",
                 g_where, (unsigned long long)want->blocks, (unsigned long long)want->records,
                 (unsigned long long)want->bytes_stored, (unsigned long long)want->bytes_data,
                 (unsigned long long)want->bad_blocks, (unsigned long long)want->bad_bytes,
                 (unsigned long long)got->blocks, (unsigned long long)got->records,
                 (unsigned long long)got->bytes_stored, (unsigned long long)got->bytes_data,
                 (unsigned long long)got->bad_blocks, (unsigned long long)got->bad_bytes);
}

static void errors_equal(const avk_error *a, const avk_error *b)
{
    if (a->status != b->status || a->offset != b->offset || a->block != b->block ||
        strcmp(a->message, b->message) != 0 || strcmp(a->path, b->path) != 0)
        fail_msg("%s: the error changed: %s at %llu/%lld '%s', then %s at %llu/%lld '%s'",
                 g_where, avk_status_name(a->status), (unsigned long long)a->offset,
                 (long long)a->block, a->message, avk_status_name(b->status),
                 (unsigned long long)b->offset, (long long)b->block, b->message);
}

/* ---- the work ----------------------------------------------------------------------------- */

enum {
    W_DECODE, /* records_next, each value re-encoded and logged */
    W_SKIP,   /* records_skip, each logged as "R" */
    W_LAST    /* records_next, the record's bytes (records_last) logged */
};

/* A slot's results: written by the work (on any thread), read by the test
 * once next_work hands the block on. */
typedef struct wslot {
    avk_arena *arena;
    avk_writer w;
    int w_ready;
    bb out;          /* log lines of the records taken */
    int64_t n;       /* records taken */
    uint64_t sum;    /* checksum of the above, made by the work */
    avk_file_block blk;
    const uint8_t *data;
    size_t data_len;
    uint64_t data_hash;
    int64_t d0;      /* avk_file_records_done at the start (the reader's record
                        in a block next left partly read, else 0) */
    int64_t done;    /* avk_file_records_done at the end */
    atomic_int in_use;
} wslot;

typedef struct wctx {
    wslot *slots;
    unsigned nslots;
    int mode;
    int counted;      /* take exactly blk.count records (no call after the last) */
    int64_t take_max; /* take at most this many per block (0: all) */
    const avk_plan *enc;
    const avk_file_reader *fr;
    const avk_allocator *alloc; /* the arenas' (NULL: libc) */
    int64_t fail_block;         /* the work fails on its own at this block index (-1: never) */
    int64_t fail_after;         /* ... after taking this many records */
    avk_status fail_status;
    unsigned delay_us;          /* sleep in the work on every third block */
    int64_t slow_block;         /* ... and 20 ms on this block (-1: none) */
    int probe_args;             /* call records_* with bad arguments first */
    atomic_long calls, problems;
    atomic_long elsewhere; /* calls not on the thread that made the context */
    pthread_t owner;
    pthread_mutex_t mu;
    char problem[400];
} wctx;

static void problem(wctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(wctx *c, const char *fmt, ...)
{
    va_list ap;
    if (atomic_fetch_add(&c->problems, 1) != 0)
        return;
    pthread_mutex_lock(&c->mu);
    va_start(ap, fmt);
    vsnprintf(c->problem, sizeof c->problem, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&c->mu);
}

static void wctx_init(wctx *c, int mode)
{
    memset(c, 0, sizeof *c);
    c->mode = mode;
    c->fail_block = -1;
    c->slow_block = -1;
    atomic_init(&c->calls, 0);
    atomic_init(&c->problems, 0);
    atomic_init(&c->elsewhere, 0);
    c->owner = pthread_self();
    pthread_mutex_init(&c->mu, NULL);
}

/* The slots, once the reader is open (before the first next_work). */
static void wctx_ready(wctx *c, const avk_file_reader *fr, const avk_plan *enc)
{
    unsigned i;
    c->fr = fr;
    c->enc = enc;
    c->nslots = avk_file_reader_slots(fr);
    assert_true(c->nslots >= 1);
    c->slots = (wslot *)calloc(c->nslots, sizeof *c->slots);
    assert_non_null(c->slots);
    for (i = 0; i < c->nslots; i++)
        atomic_init(&c->slots[i].in_use, 0);
}

/* Slots whose blocks were dropped (seek, next_block, next) are free again. */
static void wctx_release_all(wctx *c)
{
    unsigned i;
    for (i = 0; i < c->nslots; i++)
        atomic_store(&c->slots[i].in_use, 0);
}

static void wctx_check(wctx *c)
{
    long p = atomic_load(&c->problems);
    if (p)
        fail_msg("%s: %ld problems in the work; the first: %s", g_where, p, c->problem);
}

static void wctx_destroy(wctx *c)
{
    unsigned i;
    for (i = 0; c->slots && i < c->nslots; i++) {
        avk_arena_free(c->slots[i].arena);
        avk_writer_destroy(&c->slots[i].w);
        bb_free(&c->slots[i].out);
    }
    free(c->slots);
    pthread_mutex_destroy(&c->mu);
    memset(c, 0, sizeof *c);
}

static uint64_t slot_sum(const wslot *s)
{
    uint64_t h = fnv(s->out.p, s->out.len, FNV0);
    h = fnv(&s->n, sizeof s->n, h);
    h = fnv(&s->blk.offset, sizeof s->blk.offset, h);
    h = fnv(&s->d0, sizeof s->d0, h);
    return fnv(&s->done, sizeof s->done, h);
}

static avk_status own_error(avk_error *err, avk_status st, const avk_file_block *blk)
{
    if (err) {
        memset(err, 0, sizeof *err);
        err->status = st;
        err->offset = 4242;
        err->block = 77;
        snprintf(err->message, sizeof err->message, "the work refuses block %llu",
                 (unsigned long long)blk->index);
    }
    return st;
}

/* Bad arguments to the cursor: refused, and the cursor unharmed. */
static void probe_args(wctx *c, avk_file_records *rc)
{
    avk_arena *a = NULL;
    avk_value v;
    avk_error e;
    int more = 7;
    if (avk_arena_new(NULL, &a, NULL) != AVK_OK) {
        problem(c, "arena");
        return;
    }
    if (avk_file_records_next(rc, NULL, &v, &more, &e) != AVK_ERR_INVALID_ARGUMENT ||
        e.status != AVK_ERR_INVALID_ARGUMENT || e.message[0] == 0)
        problem(c, "records_next with a NULL arena");
    if (avk_file_records_next(rc, a, NULL, &more, &e) != AVK_ERR_INVALID_ARGUMENT)
        problem(c, "records_next with a NULL out");
    if (avk_file_records_next(rc, a, &v, NULL, NULL) != AVK_ERR_INVALID_ARGUMENT)
        problem(c, "records_next with a NULL more");
    if (avk_file_records_next(NULL, a, &v, &more, NULL) != AVK_ERR_INVALID_ARGUMENT)
        problem(c, "records_next with NULL records");
    if (avk_file_records_skip(rc, NULL, &e) != AVK_ERR_INVALID_ARGUMENT)
        problem(c, "records_skip with a NULL more");
    if (avk_file_records_skip(NULL, &more, NULL) != AVK_ERR_INVALID_ARGUMENT)
        problem(c, "records_skip with NULL records");
    if (avk_file_records_done(rc) != 0)
        problem(c, "the refused calls took records");
    avk_arena_free(a);
}

static avk_status work_fn(void *ctx, unsigned slot, avk_file_records *rc, avk_error *err)
{
    wctx *c = (wctx *)ctx;
    wslot *s;
    const avk_file_block *blk;
    const uint8_t *d;
    size_t len = 99;
    avk_status st = AVK_OK;
    atomic_fetch_add(&c->calls, 1);
    if (!pthread_equal(pthread_self(), c->owner))
        atomic_fetch_add(&c->elsewhere, 1);
    if (slot >= c->nslots) {
        problem(c, "work called with slot %u, slots %u", slot, c->nslots);
        return own_error(err, AVK_ERR_INVALID_ARGUMENT, avk_file_records_block(rc));
    }
    s = &c->slots[slot];
    if (atomic_exchange(&s->in_use, 1))
        problem(c, "slot %u given to a block while its last block was not handed on", slot);
    s->out.len = 0;
    s->n = 0;
    s->done = -1;
    blk = avk_file_records_block(rc);
    s->blk = *blk;
    d = avk_file_records_data(rc, &len);
    s->data = d;
    s->data_len = len;
    s->data_hash = fnv(d, len, FNV0);
    if (avk_file_records_plan(rc) != avk_file_reader_plan(c->fr))
        problem(c, "records_plan is not the reader's plan");
    s->d0 = avk_file_records_done(rc);
    if (s->d0 < 0 || s->d0 > blk->count)
        problem(c, "records_done is %lld before any record of %lld", (long long)s->d0,
                (long long)blk->count);
    if (c->probe_args)
        probe_args(c, rc);
    if (c->delay_us && blk->index % 3 == 0)
        nap_us(c->delay_us);
    if ((int64_t)blk->index == c->slow_block)
        nap_us(20000);
    for (;;) {
        avk_value v;
        int more = -1;
        if ((int64_t)blk->index == c->fail_block && s->n == c->fail_after) {
            st = own_error(err, c->fail_status, blk);
            break;
        }
        if (c->counted && s->d0 + s->n == blk->count)
            break;
        if (c->take_max && s->n == c->take_max)
            break;
        if (c->mode == W_SKIP) {
            st = avk_file_records_skip(rc, &more, err);
        } else {
            if (!s->arena) {
                avk_arena_options ao;
                avk_arena_options_init(&ao);
                ao.allocator = c->alloc;
                st = avk_arena_new(&ao, &s->arena, err);
                if (st != AVK_OK)
                    break;
            }
            st = avk_file_records_next(rc, s->arena, &v, &more, err);
        }
        if (st != AVK_OK)
            break;
        if (more != 0 && more != 1)
            problem(c, "more is %d", more);
        if (!more)
            break;
        s->n++;
        if (avk_file_records_done(rc) != s->d0 + s->n)
            problem(c, "records_done is %lld after %lld records from %lld",
                    (long long)avk_file_records_done(rc), (long long)s->n, (long long)s->d0);
        if (c->mode == W_DECODE) {
            const uint8_t *p;
            size_t n;
            avk_error e2;
            if (!s->w_ready) {
                if (avk_writer_init_memory(&s->w, NULL, &e2) != AVK_OK) {
                    problem(c, "writer");
                    break;
                }
                s->w_ready = 1;
            }
            avk_writer_reset(&s->w);
            if (avk_plan_encode(c->enc, &v, &s->w, &e2) != AVK_OK)
                problem(c, "encode: %s", e2.message);
            p = avk_writer_data(&s->w, &n);
            log_record(&s->out, p, n);
        } else if (c->mode == W_LAST) {
            const uint8_t *p = avk_file_records_last(rc, &len);
            log_record(&s->out, p, len);
        } else {
            (void)avk_file_records_last(rc, &len);
            if (len == 0 && s->data_len != 0) /* (records of "null" take no bytes) */
                problem(c, "records_last is empty after a skip");
            bb_put(&s->out, "R\n", 2);
        }
        if (s->arena)
            avk_arena_reset(s->arena);
    }
    s->done = avk_file_records_done(rc);
    s->sum = slot_sum(s);
    return st;
}

/* ---- reading both ways -------------------------------------------------------------------- */

/* The plan records are re-encoded with: their type is the reader schema's
 * or the file's. */
static avk_plan *enc_plan(const avk_file_reader *fr, const avk_schema *reader_schema)
{
    const avk_type *t = avk_schema_root(reader_schema ? reader_schema : avk_file_reader_schema(fr));
    return avkt_plan_new(t, 0, NULL, 0);
}

/* Plain reading to the end (going on after each LIMIT in skip mode); a
 * final error is returned again by the next call. */
static void read_seq(avk_file_reader *fr, const avk_plan *enc, int skip_records, int skip_mode,
                     bb *log)
{
    avk_arena *a = NULL;
    avk_writer w;
    long guard = 0;
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
    for (;;) {
        avk_value v;
        avk_error err, err2;
        int more = -1;
        avk_status st;
        assert_true(guard++ < 50000000);
        st = skip_records ? avk_file_reader_skip(fr, &more, &err)
                          : avk_file_reader_next(fr, a, &v, &more, &err);
        if (st == AVK_OK && more == 1) {
            if (skip_records) {
                bb_put(log, "R\n", 2);
            } else {
                const uint8_t *p;
                size_t n;
                avk_writer_reset(&w);
                if (avk_plan_encode(enc, &v, &w, &err) != AVK_OK)
                    fail_msg("%s: record %ld does not encode: %s", g_where, guard, err.message);
                p = avk_writer_data(&w, &n);
                log_record(log, p, n);
                avk_arena_reset(a);
            }
            continue;
        }
        assert_int_equal(more, 0);
        if (st == AVK_OK) {
            bb_put(log, "END\n", 4);
            AVKT_OK(avk_file_reader_next(fr, a, &v, &more, &err));
            assert_int_equal(more, 0);
            break;
        }
        log_status(log, st, &err,
                   st == AVK_ERR_LIMIT && skip_mode ? (long long)avk_file_reader_block_offset(fr)
                                                    : -1);
        if (st == AVK_ERR_LIMIT && skip_mode)
            continue;
        AVKT_ASSERT_STATUS(avk_file_reader_next(fr, a, &v, &more, &err2), st);
        errors_equal(&err, &err2);
        break;
    }
    avk_writer_destroy(&w);
    avk_arena_free(a);
}

/* Checks the slot next_work handed on: its count and checksum. */
static void check_slot(const wctx *c, unsigned slot, int64_t records)
{
    const wslot *s;
    if (slot >= c->nslots)
        fail_msg("%s: next_work gave slot %u, slots %u", g_where, slot, c->nslots);
    s = &c->slots[slot];
    if (s->n != records || s->done != s->d0 + records)
        fail_msg("%s: next_work says %lld records, the work took %lld (done %lld from %lld)",
                 g_where, (long long)records, (long long)s->n, (long long)s->done,
                 (long long)s->d0);
    if (slot_sum(s) != s->sum)
        fail_msg("%s: slot %u changed after next_work handed it on", g_where, slot);
}

/* One next_work call as a log entry (records of the slot handed on, then
 * the status): returns 1 while reading goes on. */
static int work_step(avk_file_reader *fr, wctx *c, int skip_mode, bb *log, unsigned caller_nap,
                     unsigned *prev)
{
    unsigned slot = 12345;
    int64_t recs = -7;
    int more = -1;
    avk_error err, err2;
    avk_status st;
    if (*prev != AVK_FILE_NO_SLOT)
        atomic_store(&c->slots[*prev].in_use, 0); /* that block is gone with this call */
    *prev = AVK_FILE_NO_SLOT;
    st = avk_file_reader_next_work(fr, &slot, &recs, &more, &err);
    if (slot != AVK_FILE_NO_SLOT) {
        check_slot(c, slot, recs);
        bb_put(log, c->slots[slot].out.p, c->slots[slot].out.len);
        if (caller_nap)
            nap_us(caller_nap); /* the workers go on meanwhile */
        check_slot(c, slot, recs);
        *prev = slot;
    } else if (recs != 0) {
        fail_msg("%s: no slot but %lld records", g_where, (long long)recs);
    }
    if (st == AVK_OK && more == 1) {
        if (slot == AVK_FILE_NO_SLOT)
            fail_msg("%s: a block without a slot", g_where);
        return 1;
    }
    assert_int_equal(more, 0);
    if (st == AVK_OK) {
        assert_int_equal(slot, AVK_FILE_NO_SLOT);
        bb_put(log, "END\n", 4);
        AVKT_OK(avk_file_reader_next_work(fr, &slot, &recs, &more, &err));
        assert_int_equal(more, 0);
        assert_int_equal(slot, AVK_FILE_NO_SLOT);
        return 0;
    }
    log_status(log, st, &err,
               st == AVK_ERR_LIMIT && skip_mode ? (long long)avk_file_reader_block_offset(fr)
                                                : -1);
    if (st == AVK_ERR_LIMIT && skip_mode)
        return 1;
    /* Final: the same again, without a block. */
    if (*prev != AVK_FILE_NO_SLOT)
        atomic_store(&c->slots[*prev].in_use, 0);
    *prev = AVK_FILE_NO_SLOT;
    slot = 3;
    recs = 3;
    more = 3;
    AVKT_ASSERT_STATUS(avk_file_reader_next_work(fr, &slot, &recs, &more, &err2), st);
    errors_equal(&err, &err2);
    assert_int_equal(slot, AVK_FILE_NO_SLOT);
    AVKT_ASSERT_I64_EQ(recs, 0);
    assert_int_equal(more, 0);
    return 0;
}

static void read_work(avk_file_reader *fr, wctx *c, int skip_mode, bb *log, unsigned caller_nap)
{
    unsigned prev = AVK_FILE_NO_SLOT;
    long guard = 0;
    assert_int_equal(avk_file_reader_slots(fr), c->nslots);
    while (work_step(fr, c, skip_mode, log, caller_nap, &prev))
        assert_true(guard++ < 10000000);
}

/* ---- one input read every way ------------------------------------------------------------- */

typedef struct ccase {
    const char *name;
    const void *data;
    size_t len;
    avk_file_reader_options o; /* flags, limits, reader schema... (no threads, no work) */
    int mode;                  /* W_* */
    int counted;
    unsigned hows;             /* HOW(IN_*) */
    const unsigned *threads;
    size_t nthreads;
    int ahead;                 /* also next with AVK_FILE_DECODE_AHEAD on 2 and 4 threads */
    unsigned delay_us, caller_nap;
    long want_records;         /* records the plain reading must give (-1: any) */
} ccase;

static ccase ccase_make(const char *name, const void *data, size_t len)
{
    ccase k;
    memset(&k, 0, sizeof k);
    k.name = name;
    k.data = data;
    k.len = len;
    avk_file_reader_options_init(&k.o);
    k.mode = W_DECODE;
    k.hows = HOW(IN_MEM);
    k.threads = THREADS;
    k.nthreads = N_THREADS;
    k.want_records = -1;
    return k;
}

/* Opens how the case says with options o; when opening fails the log says
 * so and *fr is NULL. */
static void open_logged(const ccase *k, int how, const char *path, avk_file_reader_options *o,
                        skiplog *sk, input *in, avk_file_reader **fr, bb *log)
{
    avk_error err;
    avk_status st;
    sk->owner = pthread_self();
    o->on_skip = log_skip;
    o->on_skip_ctx = sk;
    st = input_open(in, how, k->data, k->len, path, o, fr, &err);
    if (st != AVK_OK) {
        assert_null(*fr);
        bb_put(log, "O ", 2); /* opening failed: */
        log_status(log, st, &err, -1);
    }
}

static void run_case(const ccase *k)
{
    char path[64] = "";
    int how;
    int skip_mode = (k->o.flags & AVK_FILE_SKIP_BAD_BLOCKS) != 0;
    if (k->hows & (HOW(IN_PATH) | HOW(IN_FD))) {
        tmp_path(path);
        write_whole(path, k->data, k->len);
    }
    for (how = 0; how < N_INPUTS; how++) {
        avk_file_reader_options o;
        avk_file_reader_stats want_stats, got_stats;
        avk_file_reader *fr = NULL;
        avk_plan *enc = NULL;
        memset(&got_stats, 0, sizeof got_stats);
        skiplog want_skips, got_skips;
        bb want;
        input in;
        size_t ti;
        if (!(k->hows & HOW(how)))
            continue;
        memset(&want, 0, sizeof want);
        memset(&want_skips, 0, sizeof want_skips);
        memset(&want_stats, 0, sizeof want_stats);
        /* The plain reading. */
        o = k->o;
        o.threads = 0;
        o.work = NULL;
        o.flags &= ~AVK_FILE_DECODE_AHEAD;
        snprintf(g_where, sizeof g_where, "%s, %s, plain", k->name, IN_NAMES[how]);
        open_logged(k, how, path, &o, &want_skips, &in, &fr, &want);
        if (fr) {
            enc = enc_plan(fr, o.reader_schema);
            read_seq(fr, enc, k->mode == W_SKIP, skip_mode, &want);
            avk_file_reader_get_stats(fr, &want_stats);
            avk_file_reader_free(fr);
            avk_plan_free(enc); /* its types were the reader's */
            enc = NULL;
        }
        input_close(&in);
        if (k->want_records >= 0 && count_lines(&want, 'R') != (size_t)k->want_records)
            fail_msg("%s: %zu records, expected %ld", g_where, count_lines(&want, 'R'),
                     k->want_records);
        /* The work, on each thread count. */
        for (ti = 0; ti < k->nthreads; ti++) {
            wctx c;
            bb got;
            memset(&got, 0, sizeof got);
            memset(&got_skips, 0, sizeof got_skips);
            o = k->o;
            o.threads = k->threads[ti];
            o.work = work_fn;
            o.work_ctx = &c;
            wctx_init(&c, k->mode);
            c.counted = k->counted;
            c.delay_us = k->delay_us;
            snprintf(g_where, sizeof g_where, "%s, %s, work %s%s on %u threads", k->name,
                     IN_NAMES[how], k->mode == W_DECODE ? "decode" : k->mode == W_SKIP ? "skip" : "last",
                     k->counted ? " (counted)" : "", o.threads);
            open_logged(k, how, path, &o, &got_skips, &in, &fr, &got);
            if (fr) {
                enc = enc_plan(fr, o.reader_schema);
                wctx_ready(&c, fr, enc);
                read_work(fr, &c, skip_mode, &got, k->caller_nap);
                avk_file_reader_get_stats(fr, &got_stats);
                avk_file_reader_free(fr);
                avk_plan_free(enc);
                enc = NULL;
            }
            input_close(&in);
            wctx_check(&c);
            logs_equal("records and statuses", &want, &got);
            logs_equal("on_skip calls", &want_skips.b, &got_skips.b);
            if (count_lines(&got, 'O') == 0) /* (opened) */
                stats_equal(&want_stats, &got_stats);
            wctx_destroy(&c);
            bb_free(&got);
            bb_free(&got_skips.b);
        }
        /* Decoding ahead: next as it is, on 2 and 4 threads. */
        if (k->ahead && k->mode != W_LAST) {
            unsigned th;
            for (th = 2; th <= 4; th += 2) {
                bb got;
                memset(&got, 0, sizeof got);
                memset(&got_skips, 0, sizeof got_skips);
                o = k->o;
                o.threads = th;
                o.flags |= AVK_FILE_DECODE_AHEAD;
                snprintf(g_where, sizeof g_where, "%s, %s, decoding ahead on %u threads",
                         k->name, IN_NAMES[how], th);
                open_logged(k, how, path, &o, &got_skips, &in, &fr, &got);
                if (fr) {
                    enc = enc_plan(fr, o.reader_schema);
                    read_seq(fr, enc, k->mode == W_SKIP, skip_mode, &got);
                    avk_file_reader_get_stats(fr, &got_stats);
                    avk_file_reader_free(fr);
                    avk_plan_free(enc);
                    enc = NULL;
                }
                input_close(&in);
                logs_equal("records and statuses", &want, &got);
                logs_equal("on_skip calls", &want_skips.b, &got_skips.b);
                if (count_lines(&got, 'O') == 0)
                    stats_equal(&want_stats, &got_stats);
                bb_free(&got);
                bb_free(&got_skips.b);
            }
        }
        bb_free(&want);
        bb_free(&want_skips.b);
    }
    if (path[0])
        unlink(path);
}

/* ---- files -------------------------------------------------------------------------------- */

static const char REC_SCHEMA[] =
    "{'type': 'record', 'name': 'R', 'namespace': 'test.work', 'fields': ["
    " {'name': 'id', 'type': 'long'},"
    " {'name': 'name', 'type': 'string'},"
    " {'name': 'ok', 'type': 'boolean'},"
    " {'name': 'score', 'type': 'double'},"
    " {'name': 'tags', 'type': {'type': 'array', 'items': 'string'}},"
    " {'name': 'attrs', 'type': {'type': 'map', 'values': 'int'}},"
    " {'name': 'opt', 'type': ['null', 'string']},"
    " {'name': 'kind', 'type': {'type': 'enum', 'name': 'K', 'symbols': ['A', 'B', 'C']}},"
    " {'name': 'fx', 'type': {'type': 'fixed', 'name': 'F4', 'size': 4}},"
    " {'name': 'blob', 'type': 'bytes'}]}";

/* Read as: fields reordered, id promoted to double, some dropped, one
 * added with its default, the enum widened. */
static const char REC_READER[] =
    "{'type': 'record', 'name': 'R', 'namespace': 'test.work', 'fields': ["
    " {'name': 'name', 'type': 'string'},"
    " {'name': 'id', 'type': 'double'},"
    " {'name': 'added', 'type': 'int', 'default': 7},"
    " {'name': 'tags', 'type': {'type': 'array', 'items': 'string'}},"
    " {'name': 'opt', 'type': ['null', 'string'], 'default': null},"
    " {'name': 'kind', 'type': {'type': 'enum', 'name': 'K', 'symbols': ['A', 'B', 'C', 'D']}}]}";

static avk_bytes arena_bytes(avk_arena *a, const void *s, size_t n)
{
    avk_bytes b;
    uint8_t *p = (uint8_t *)avk_arena_alloc(a, n + 1, 1);
    assert_non_null(p);
    if (n)
        memcpy(p, s, n);
    p[n] = 0;
    b.data = p;
    b.len = n;
    return b;
}

static void make_record(const avk_type *t, avk_arena *a, int i, avk_value *v)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    avk_value *f;
    char tmp[160];
    uint8_t raw[20];
    size_t k, n;
    AVKT_OK(avk_value_init(v, t, 0, a, NULL));
    f = v->u.fields;
    f[0].u.l = (int64_t)i * 1000003 - 5000000;
    snprintf(tmp, sizeof tmp, "name-%d-%.*s", i, i % 50, letters);
    f[1].u.bytes = arena_bytes(a, tmp, strlen(tmp));
    f[2].u.boolean = i & 1;
    f[3].u.d = i * 0.25 - 3.0;
    n = (size_t)(i % 4);
    AVKT_OK(avk_value_init(&f[4], f[4].type, n, a, NULL));
    for (k = 0; k < n; k++) {
        snprintf(tmp, sizeof tmp, "t%d-%zu", i, k);
        ((avk_value *)f[4].u.array.items)[k].u.bytes = arena_bytes(a, tmp, strlen(tmp));
    }
    n = (size_t)(i % 3);
    AVKT_OK(avk_value_init(&f[5], f[5].type, n, a, NULL));
    for (k = 0; k < n; k++) {
        snprintf(tmp, sizeof tmp, "k%zu", k);
        f[5].u.map.keys[k] = arena_bytes(a, tmp, strlen(tmp));
        f[5].u.map.values[k].u.i = i * 31 + (int)k;
    }
    AVKT_OK(avk_value_set_branch(&f[6], i % 3 == 0 ? 0u : 1u, a, NULL));
    if (i % 3 != 0) {
        snprintf(tmp, sizeof tmp, "opt%d", i);
        f[6].u.branch.value->u.bytes = arena_bytes(a, tmp, strlen(tmp));
    }
    f[7].u.index = (uint32_t)(i % 3);
    for (k = 0; k < 4; k++)
        raw[k] = (uint8_t)(i + (int)k * 64);
    f[8].u.bytes = arena_bytes(a, raw, 4);
    n = (size_t)(i % 17);
    for (k = 0; k < n; k++)
        raw[k] = (uint8_t)(i * 7 + (int)k);
    f[9].u.bytes = arena_bytes(a, raw, n);
}

static avk_file_writer_options wopts(avk_codec c, size_t block_bytes, uint64_t block_records)
{
    avk_file_writer_options o;
    avk_file_writer_options_init(&o);
    o.codec = c;
    o.block_bytes = block_bytes;
    o.block_records = block_records;
    o.sync = SYNC;
    return o;
}

/* Records 0..n-1 of REC_SCHEMA in a file. */
static void write_rec_file(const avk_schema *s, avk_codec codec, size_t block_bytes,
                           uint64_t block_records, int n, bb *out)
{
    avk_file_writer_options o = wopts(codec, block_bytes, block_records);
    avk_file_writer *fw = NULL;
    avk_arena *a = NULL;
    avk_error err;
    int i;
    memset(out, 0, sizeof *out);
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    AVKT_OK(avk_file_writer_open_sink(bb_sink, out, s, &o, &fw, &err));
    for (i = 0; i < n; i++) {
        avk_value v;
        make_record(avk_schema_root(s), a, i, &v);
        AVKT_OK(avk_file_writer_append(fw, &v, &err));
        avk_arena_reset(a);
    }
    AVKT_OK(avk_file_writer_close(fw, &err));
    avk_arena_free(a);
}

/* Files built byte by byte, records of schema "long" (record j is lv(j)). */
static int64_t lv(int j)
{
    return (int64_t)j * 1000 - 3;
}

#define CRAFT_MAX 64

typedef struct craft {
    bb b;
    size_t nb;
    uint64_t off[CRAFT_MAX];
    int next;
    avk_codec codec;
} craft;

static void craft_header(craft *c, const char *schema, avk_codec codec)
{
    memset(c, 0, sizeof *c);
    c->codec = codec;
    bb_put(&c->b, "Obj\x01", 4);
    bb_long(&c->b, codec == AVK_CODEC_NULL ? 1 : 2);
    bb_str(&c->b, "avro.schema");
    bb_str(&c->b, schema);
    if (codec != AVK_CODEC_NULL) {
        bb_str(&c->b, "avro.codec");
        bb_str(&c->b, avk_codec_name(codec));
    }
    bb_long(&c->b, 0);
    bb_put(&c->b, SYNC, 16);
}

/* A block of raw parts: count, size, data, the marker (NULL: none). */
static void craft_raw(craft *c, int64_t count, int64_t size, const void *data, size_t n,
                      const uint8_t *sync)
{
    assert_true(c->nb < CRAFT_MAX);
    c->off[c->nb++] = c->b.len;
    bb_long(&c->b, count);
    bb_long(&c->b, size);
    bb_put(&c->b, data, n);
    if (sync)
        bb_put(&c->b, sync, 16);
}

/* A block of the given uncompressed bytes, compressed with the file's codec;
 * cut: keep only this many compressed bytes (size says so too; 0: all). */
static void craft_data(craft *c, int64_t count, const void *raw, size_t n, const uint8_t *sync,
                       size_t cut)
{
    avk_buffer z;
    avk_buffer_init(&z, NULL);
    AVKT_OK(avk_codec_compress(c->codec, 0, n ? (const uint8_t *)raw : (const uint8_t *)"", n,
                               &z, NULL));
    if (cut && cut < z.len)
        z.len = cut;
    craft_raw(c, count, (int64_t)z.len, z.data, z.len, sync);
    avk_buffer_destroy(&z);
}

static void longs_data(bb *d, int first, int n)
{
    int j;
    for (j = first; j < first + n; j++)
        bb_long(d, lv(j));
}

/* A good block of the next n records. */
static void craft_block(craft *c, int n)
{
    bb d;
    memset(&d, 0, sizeof d);
    longs_data(&d, c->next, n);
    craft_data(c, n, d.p, d.len, SYNC, 0);
    c->next += n;
    bb_free(&d);
}

static void craft_free(craft *c)
{
    bb_free(&c->b);
}

static size_t available_codecs(avk_codec *out)
{
    size_t i, n = 0;
    for (i = 0; i < N_CODECS; i++)
        if (avk_codec_available(ALL_CODECS[i]))
            out[n++] = ALL_CODECS[i];
    return n;
}

/* ---- 1. next_work gives what next gives --------------------------------------------------- */

static void test_work_matches_next(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    avk_schema *rs = AVKT_PARSE(REC_READER);
    avk_codec codecs[N_CODECS];
    size_t nc = available_codecs(codecs), ci;
    (void)state;
    assert_true(nc >= 4); /* null, deflate, snappy, zstandard at least */
    for (ci = 0; ci < nc; ci++) {
        char name[128];
        bb f;
        ccase k;
        int variant;
        /* Many blocks of 7 records; many blocks cut by size; one record; a
         * file with no block at all. */
        for (variant = 0; variant < 4; variant++) {
            static const int counts[] = {300, 200, 1, 0};
            write_rec_file(s, codecs[ci], variant == 1 ? 512 : 0, variant == 0 ? 7 : 0,
                           counts[variant], &f);
            snprintf(name, sizeof name, "%s, %d records, variant %d", avk_codec_name(codecs[ci]),
                     counts[variant], variant);
            k = ccase_make(name, f.p, f.len);
            k.hows = ALL_HOWS;
            k.want_records = counts[variant];
            k.ahead = 1;
            run_case(&k);
            if (variant < 2) {
                /* Resolved into a reader schema; skipped; the records' own
                 * bytes; taken by count; in skip mode (nothing to skip). */
                k.hows = HOW(IN_MEM) | HOW(IN_PATH);
                k.o.reader_schema = rs;
                run_case(&k);
                k.o.reader_schema = NULL;
                k.mode = W_SKIP;
                run_case(&k);
                k.mode = W_LAST;
                k.ahead = 0;
                run_case(&k);
                k.mode = W_DECODE;
                k.counted = 1;
                k.o.flags = AVK_FILE_SKIP_BAD_BLOCKS;
                run_case(&k);
            }
            bb_free(&f);
        }
        /* Empty blocks (count 0) first, between and last. */
        {
            craft c;
            craft_header(&c, "\"long\"", codecs[ci]);
            craft_block(&c, 0);
            craft_block(&c, 3);
            craft_block(&c, 0);
            craft_block(&c, 0);
            craft_block(&c, 1);
            craft_block(&c, 5);
            craft_block(&c, 0);
            snprintf(name, sizeof name, "%s, empty blocks", avk_codec_name(codecs[ci]));
            k = ccase_make(name, c.b.p, c.b.len);
            k.hows = ALL_HOWS;
            k.want_records = 9;
            k.ahead = 1;
            run_case(&k);
            k.mode = W_LAST;
            k.ahead = 0;
            run_case(&k);
            craft_free(&c);
        }
    }
    avk_schema_free(rs);
    avk_schema_free(s);
}

/* ---- damaged files ------------------------------------------------------------------------ */

enum {
    D_RECORD,      /* a record that does not decode (an 11-byte varint) */
    D_COUNT_BIG,   /* count 4 for 3 records */
    D_COUNT_HUGE,  /* count 2^40 */
    D_COUNT_SMALL, /* count 2 for 3 records: bytes left over */
    D_COUNT_ZERO,  /* count 0 with data */
    D_SYNC,        /* marker's last byte wrong */
    D_SYNC_ZERO,   /* marker all zeros */
    D_NEG_COUNT,
    D_NEG_SIZE,
    D_SIZE_PAST,   /* size past the end of the file */
    D_GARBAGE,     /* 16 bytes of 0xff as the data */
    D_CUT_DATA,    /* compressed data cut in half */
    D_CRC,         /* snappy: CRC mismatch */
    D_TRUNC_END,   /* the file ends inside B4's data */
    D_TRUNC_SYNC,  /* the file ends inside B4's marker */
    N_DAMAGE
};
static const char *const DAMAGE_NAMES[] = {
    "record", "count-big", "count-huge", "count-small", "count-zero", "sync", "sync-zero",
    "neg-count", "neg-size", "size-past", "garbage", "cut-data", "crc", "trunc-end", "trunc-sync"};

/* B0 (3), B1 (3), a damaged B2, B3 (2), B4 (4). 0 when the damage does not
 * apply to the codec. */
static int craft_damaged(craft *c, avk_codec codec, int kind)
{
    static const uint8_t bad_sync[16] = {0x53, 0x79, 0x6e, 0x63, 0x01, 0x02, 0x03, 0x04,
                                         0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x88};
    static const uint8_t zeros[16] = {0};
    static const uint8_t ff[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    bb d;
    if (kind == D_CRC && codec != AVK_CODEC_SNAPPY)
        return 0;
    if (kind == D_CUT_DATA && codec == AVK_CODEC_NULL)
        return 0;
    memset(&d, 0, sizeof d);
    craft_header(c, "\"long\"", codec);
    craft_block(c, 3);
    craft_block(c, 3);
    longs_data(&d, 6, 3);
    switch (kind) {
    case D_RECORD:
        d.len = 0;
        bb_long(&d, lv(6));
        bb_put(&d, ff, 10);
        bb_put(&d, "\x01", 1);
        craft_data(c, 2, d.p, d.len, SYNC, 0);
        break;
    case D_COUNT_BIG:
        craft_data(c, 4, d.p, d.len, SYNC, 0);
        break;
    case D_COUNT_HUGE:
        craft_data(c, (int64_t)1 << 40, d.p, d.len, SYNC, 0);
        break;
    case D_COUNT_SMALL:
        craft_data(c, 2, d.p, d.len, SYNC, 0);
        break;
    case D_COUNT_ZERO:
        craft_data(c, 0, d.p, d.len, SYNC, 0);
        break;
    case D_SYNC:
        craft_data(c, 3, d.p, d.len, bad_sync, 0);
        break;
    case D_SYNC_ZERO:
        craft_data(c, 3, d.p, d.len, zeros, 0);
        break;
    case D_NEG_COUNT:
        craft_data(c, -3, d.p, d.len, SYNC, 0);
        break;
    case D_NEG_SIZE:
        craft_raw(c, 3, -5, d.p, d.len, SYNC);
        break;
    case D_SIZE_PAST:
        craft_raw(c, 3, (int64_t)d.len + 400, d.p, d.len, SYNC);
        break;
    case D_GARBAGE:
        craft_raw(c, 3, 16, ff, 16, SYNC);
        break;
    case D_CUT_DATA: {
        avk_buffer z;
        avk_buffer_init(&z, NULL);
        AVKT_OK(avk_codec_compress(codec, 0, d.p, d.len, &z, NULL));
        craft_raw(c, 3, (int64_t)(z.len / 2), z.data, z.len / 2, SYNC);
        avk_buffer_destroy(&z);
        break;
    }
    case D_CRC: {
        avk_buffer z;
        avk_buffer_init(&z, NULL);
        AVKT_OK(avk_codec_compress(codec, 0, d.p, d.len, &z, NULL));
        z.data[z.len - 1] ^= 0x40;
        craft_raw(c, 3, (int64_t)z.len, z.data, z.len, SYNC);
        avk_buffer_destroy(&z);
        break;
    }
    default:
        craft_data(c, 3, d.p, d.len, SYNC, 0);
        break;
    }
    c->next = 100;
    craft_block(c, 2);
    craft_block(c, 4);
    if (kind == D_TRUNC_END)
        c->b.len = c->off[4] + 3;
    if (kind == D_TRUNC_SYNC)
        c->b.len -= 5;
    bb_free(&d);
    return 1;
}

static void test_work_damaged(void **state)
{
    avk_codec codecs[N_CODECS];
    size_t nc = available_codecs(codecs), ci;
    avk_schema *dbl = AVKT_PARSE("'double'");
    int kind, skip;
    (void)state;
    for (ci = 0; ci < nc; ci++) {
        for (kind = 0; kind < N_DAMAGE; kind++) {
            craft c;
            char name[128];
            if (!craft_damaged(&c, codecs[ci], kind))
                continue;
            for (skip = 0; skip < 2; skip++) {
                ccase k;
                snprintf(name, sizeof name, "%s, damage %s, %s mode", avk_codec_name(codecs[ci]),
                         DAMAGE_NAMES[kind], skip ? "skip" : "strict");
                k = ccase_make(name, c.b.p, c.b.len);
                k.o.flags = skip ? AVK_FILE_SKIP_BAD_BLOCKS : 0;
                k.hows = HOW(IN_MEM) | HOW(IN_PATH) | HOW(IN_PIPE);
                k.ahead = 1;
                run_case(&k);
                /* Fewer ways on the other work modes. */
                k.hows = HOW(IN_MEM) | (codecs[ci] == AVK_CODEC_DEFLATE ? HOW(IN_PATH) : 0);
                k.ahead = 0;
                k.mode = W_SKIP;
                run_case(&k);
                k.mode = W_LAST;
                run_case(&k);
                k.mode = W_DECODE;
                k.counted = 1;
                run_case(&k);
                k.counted = 0;
                k.o.reader_schema = dbl;
                run_case(&k);
            }
            craft_free(&c);
        }
    }
    avk_schema_free(dbl);
}

/* Every prefix of a small multi-block file, strict and skipping. */
static void test_work_every_prefix(void **state)
{
    static const avk_codec cs[] = {AVK_CODEC_NULL, AVK_CODEC_DEFLATE, AVK_CODEC_SNAPPY,
                                   AVK_CODEC_ZSTANDARD};
    static const unsigned few[] = {0, 2, 3};
    static const unsigned eight[] = {8};
    size_t ci, len;
    int skip;
    (void)state;
    for (ci = 0; ci < sizeof cs / sizeof cs[0]; ci++) {
        craft c;
        size_t header;
        if (!avk_codec_available(cs[ci]))
            continue;
        craft_header(&c, "\"long\"", cs[ci]);
        header = c.b.len;
        craft_block(&c, 3);
        craft_block(&c, 0);
        craft_block(&c, 2);
        craft_block(&c, 1);
        craft_block(&c, 4);
        for (len = header; len <= c.b.len; len++) {
            for (skip = 0; skip < 2; skip++) {
                char name[128];
                ccase k;
                snprintf(name, sizeof name, "%s, prefix %zu of %zu, %s mode",
                         avk_codec_name(cs[ci]), len, c.b.len, skip ? "skip" : "strict");
                k = ccase_make(name, c.b.p, len);
                k.o.flags = skip ? AVK_FILE_SKIP_BAD_BLOCKS : 0;
                k.threads = few;
                k.nthreads = 3;
                k.ahead = len % 3 == 0;
                run_case(&k);
                if (len % 5 == 0) {
                    k.threads = eight;
                    k.nthreads = 1;
                    k.ahead = 0;
                    k.hows = HOW(IN_PATH) | HOW(IN_PIPE);
                    run_case(&k);
                }
            }
        }
        craft_free(&c);
    }
}

/* Limits: returned, and in skip mode reading goes on after them. */
static void test_work_limits(void **state)
{
    craft c;
    bb d;
    int skip, mode;
    (void)state;
    memset(&d, 0, sizeof d);
    for (skip = 0; skip < 2; skip++) {
        for (mode = W_DECODE; mode <= W_SKIP; mode++) {
            ccase k;
            char name[128];
            /* A string over max_bytes in B1 (its second record). */
            craft_header(&c, "\"string\"", AVK_CODEC_NULL);
            d.len = 0;
            bb_str(&d, "ab");
            bb_str(&d, "cd");
            craft_raw(&c, 2, (int64_t)d.len, d.p, d.len, SYNC);
            d.len = 0;
            bb_str(&d, "x");
            bb_str(&d, "abcdefgh");
            bb_str(&d, "y");
            craft_raw(&c, 3, (int64_t)d.len, d.p, d.len, SYNC);
            d.len = 0;
            bb_str(&d, "ok");
            craft_raw(&c, 1, (int64_t)d.len, d.p, d.len, SYNC);
            snprintf(name, sizeof name, "max_bytes, %s mode, work %d", skip ? "skip" : "strict",
                     mode);
            k = ccase_make(name, c.b.p, c.b.len);
            k.o.flags = skip ? AVK_FILE_SKIP_BAD_BLOCKS : 0;
            k.o.limits.max_bytes = 4;
            k.mode = mode;
            k.hows = HOW(IN_MEM) | HOW(IN_PATH) | HOW(IN_PIPE);
            k.ahead = 1;
            run_case(&k);
            k.o.limits.max_bytes = 0;
            run_case(&k);
            craft_free(&c);

            /* A block above max_block_bytes; one above max_block_data. */
            {
                static const avk_codec cs[] = {AVK_CODEC_NULL, AVK_CODEC_DEFLATE,
                                               AVK_CODEC_ZSTANDARD};
                size_t ci;
                for (ci = 0; ci < 3; ci++) {
                    craft_header(&c, "\"long\"", cs[ci]);
                    craft_block(&c, 3);
                    craft_block(&c, 3);
                    craft_block(&c, 200);
                    craft_block(&c, 1);
                    craft_block(&c, 2);
                    snprintf(name, sizeof name, "%s block limits, %s mode, work %d",
                             avk_codec_name(cs[ci]), skip ? "skip" : "strict", mode);
                    k = ccase_make(name, c.b.p, c.b.len);
                    k.o.flags = skip ? AVK_FILE_SKIP_BAD_BLOCKS : 0;
                    k.mode = mode;
                    k.hows = HOW(IN_MEM) | HOW(IN_PATH);
                    k.ahead = 1;
                    k.o.max_block_bytes = 100;
                    run_case(&k);
                    k.o.max_block_bytes = 0;
                    k.o.max_block_data = 64;
                    run_case(&k);
                    craft_free(&c);
                }
            }

            /* Records of zero bytes over max_empty_items. */
            craft_header(&c, "\"null\"", AVK_CODEC_NULL);
            craft_raw(&c, 1, 0, NULL, 0, SYNC);
            craft_raw(&c, 5, 0, NULL, 0, SYNC);
            craft_raw(&c, 2, 0, NULL, 0, SYNC);
            snprintf(name, sizeof name, "max_empty_items, %s mode, work %d",
                     skip ? "skip" : "strict", mode);
            k = ccase_make(name, c.b.p, c.b.len);
            k.o.flags = skip ? AVK_FILE_SKIP_BAD_BLOCKS : 0;
            k.o.limits.max_empty_items = 2;
            k.mode = mode;
            k.ahead = 1;
            run_case(&k);
            craft_free(&c);
        }
    }
    bb_free(&d);
}

/* A string length beyond its block (and above max_bytes) is the data lying,
 * not a limit: MALFORMED, damage in skip mode, as next says (file_test's
 * test_lying_length_is_damage). Every thread count, strict and skipping,
 * every work mode; all differences are listed. */
static void test_work_lying_length(void **state)
{
    static const avk_codec cs[] = {AVK_CODEC_NULL, AVK_CODEC_DEFLATE};
    char report[2048], first[1600];
    size_t rlen = 0, ci, ti;
    int skip, mode;
    (void)state;
    report[0] = 0;
    first[0] = 0;
    for (ci = 0; ci < 2; ci++) {
        craft c;
        bb d;
        memset(&d, 0, sizeof d);
        craft_header(&c, "\"string\"", cs[ci]);
        bb_str(&d, "x");
        bb_long(&d, (int64_t)1 << 40); /* above the default max_bytes and the block */
        bb_put(&d, "ab", 2);
        craft_data(&c, 2, d.p, d.len, SYNC, 0);
        d.len = 0;
        bb_str(&d, "ok");
        craft_data(&c, 1, d.p, d.len, SYNC, 0);
        bb_free(&d);
        for (skip = 0; skip < 2; skip++) {
            for (mode = W_DECODE; mode <= W_SKIP; mode++) {
                avk_file_reader_options o;
                avk_file_reader *fr = NULL;
                avk_plan *enc;
                skiplog want_skips;
                bb want;
                memset(&want, 0, sizeof want);
                memset(&want_skips, 0, sizeof want_skips);
                want_skips.owner = pthread_self();
                avk_file_reader_options_init(&o);
                o.flags = skip ? AVK_FILE_SKIP_BAD_BLOCKS : 0;
                o.on_skip = log_skip;
                o.on_skip_ctx = &want_skips;
                snprintf(g_where, sizeof g_where, "lying length, plain");
                AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, NULL));
                enc = enc_plan(fr, NULL);
                read_seq(fr, enc, mode == W_SKIP, skip, &want);
                avk_file_reader_free(fr);
                avk_plan_free(enc);
                /* (the plain reading: as file_test says) */
                assert_int_equal(count_lines(&want, 'E'), skip ? 0 : 1);
                assert_true(strstr((const char *)want.p, "LIMIT") == NULL);
                for (ti = 0; ti < N_THREADS; ti++) {
                    skiplog got_skips;
                    wctx wc;
                    bb got;
                    char diff[1600];
                    memset(&got, 0, sizeof got);
                    memset(&got_skips, 0, sizeof got_skips);
                    got_skips.owner = pthread_self();
                    o.threads = THREADS[ti];
                    o.on_skip_ctx = &got_skips;
                    o.work = work_fn;
                    o.work_ctx = &wc;
                    wctx_init(&wc, mode);
                    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, NULL));
                    enc = enc_plan(fr, NULL);
                    wctx_ready(&wc, fr, enc);
                    read_work(fr, &wc, skip, &got, 0);
                    avk_file_reader_free(fr);
                    avk_plan_free(enc);
                    wctx_check(&wc);
                    if ((logs_differ(&want, &got, diff, sizeof diff) ||
                         logs_differ(&want_skips.b, &got_skips.b, diff, sizeof diff)) &&
                        rlen < sizeof report - 1) {
                        if (!first[0])
                            snprintf(first, sizeof first, "%s", diff);
                        rlen += (size_t)snprintf(report + rlen, sizeof report - rlen,
                                                 "\n  %s, %s mode, work %s, %u threads",
                                                 avk_codec_name(cs[ci]), skip ? "skip" : "strict",
                                                 mode == W_DECODE ? "decoding" : "skipping",
                                                 THREADS[ti]);
                    }
                    if (rlen >= sizeof report)
                        rlen = sizeof report - 1;
                    wctx_destroy(&wc);
                    bb_free(&got);
                    bb_free(&got_skips.b);
                }
                bb_free(&want);
                bb_free(&want_skips.b);
            }
        }
        craft_free(&c);
    }
    if (rlen) {
        print_error("next_work does not read a lying length as next does, in:%s\n", report);
        fail_msg("next_work does not read a lying length as next does; the first: %s", first);
    }
}

/* A record the reader schema cannot take (a union's null read as "long"):
 * RESOLUTION, final in both modes, the same with work. */
static void test_work_resolution_error(void **state)
{
    avk_schema *rs = AVKT_PARSE("'long'");
    avk_codec codecs[N_CODECS];
    size_t nc = available_codecs(codecs), ci;
    int skip, mode;
    (void)state;
    for (ci = 0; ci < nc; ci++) {
        craft c;
        bb d;
        memset(&d, 0, sizeof d);
        craft_header(&c, "[\"null\", \"long\"]", codecs[ci]);
        bb_long(&d, 1);
        bb_long(&d, lv(0));
        bb_long(&d, 1);
        bb_long(&d, lv(1));
        craft_data(&c, 2, d.p, d.len, SYNC, 0);
        d.len = 0;
        bb_long(&d, 1);
        bb_long(&d, lv(2));
        bb_long(&d, 0);
        bb_long(&d, 1);
        bb_long(&d, lv(3));
        craft_data(&c, 3, d.p, d.len, SYNC, 0);
        d.len = 0;
        bb_long(&d, 1);
        bb_long(&d, lv(4));
        craft_data(&c, 1, d.p, d.len, SYNC, 0);
        bb_free(&d);
        for (skip = 0; skip < 2; skip++) {
            for (mode = W_DECODE; mode <= W_SKIP; mode++) {
                char name[128];
                ccase k;
                snprintf(name, sizeof name, "%s, resolution, %s mode, work %d",
                         avk_codec_name(codecs[ci]), skip ? "skip" : "strict", mode);
                k = ccase_make(name, c.b.p, c.b.len);
                k.o.flags = skip ? AVK_FILE_SKIP_BAD_BLOCKS : 0;
                k.o.reader_schema = rs;
                k.mode = mode;
                k.hows = HOW(IN_MEM) | HOW(IN_PIPE);
                k.ahead = mode != W_SKIP; /* (skipping ahead: test_decode_ahead_skip) */
                k.want_records = mode == W_SKIP ? 6 : 3;
                run_case(&k);
            }
        }
        craft_free(&c);
    }
    avk_schema_free(rs);
}

/* avk_file_records_last after a failed next: still the last record taken
 * (the header: "the record the last successful next or skip took"). */
typedef struct last_ctx {
    int failures;      /* failed calls seen */
    int mismatches;
    char what[600];
} last_ctx;

static avk_status last_work(void *ctx, unsigned slot, avk_file_records *rc, avk_error *err)
{
    last_ctx *lc = (last_ctx *)ctx;
    uint8_t prev[64];
    size_t prev_len = 0, len;
    avk_arena *a = NULL;
    avk_status st;
    (void)slot;
    if (avk_arena_new(NULL, &a, err) != AVK_OK)
        return AVK_ERR_NO_MEMORY;
    for (;;) {
        avk_value v;
        int more;
        const uint8_t *p;
        st = avk_file_records_next(rc, a, &v, &more, err);
        p = avk_file_records_last(rc, &len);
        if (st != AVK_OK) {
            lc->failures++;
            if (len != prev_len || (len && memcmp(p, prev, len) != 0)) {
                size_t i, at = 0;
                if (lc->mismatches++ == 0) {
                    at = (size_t)snprintf(lc->what, sizeof lc->what,
                                          "block %llu, after %s at record %lld: records_last "
                                          "gives %zu bytes (",
                                          (unsigned long long)avk_file_records_block(rc)->index,
                                          avk_status_name(st),
                                          (long long)avk_file_records_done(rc), len);
                    for (i = 0; i < len && i < 24 && at < sizeof lc->what - 8; i++)
                        at += (size_t)snprintf(lc->what + at, sizeof lc->what - at, "%02x",
                                               p[i]);
                    snprintf(lc->what + at, sizeof lc->what - at,
                             "), the last record taken was %zu bytes", prev_len);
                }
            }
            break;
        }
        if (!more)
            break;
        if (len > sizeof prev)
            abort();
        memcpy(prev, p, len);
        prev_len = len;
    }
    avk_arena_free(a);
    return st;
}

typedef struct first_ctx {
    int calls;
    int64_t done0;
    uint8_t before[64], after[64];
    size_t before_len, after_len;
} first_ctx;

/* Notes records_last before and after the first next of the first block. */
static avk_status first_work(void *ctx, unsigned slot, avk_file_records *rc, avk_error *err)
{
    first_ctx *fc = (first_ctx *)ctx;
    avk_arena *a = NULL;
    avk_status st = AVK_OK;
    const uint8_t *p;
    size_t len;
    int more;
    (void)slot;
    if (fc->calls++ != 0)
        return AVK_OK;
    fc->done0 = avk_file_records_done(rc);
    p = avk_file_records_last(rc, &len);
    fc->before_len = len;
    memcpy(fc->before, p, len < sizeof fc->before ? len : sizeof fc->before);
    if (avk_arena_new(NULL, &a, err) != AVK_OK)
        return AVK_ERR_NO_MEMORY;
    for (;;) {
        avk_value v;
        st = avk_file_records_next(rc, a, &v, &more, err);
        if (st != AVK_OK || !more)
            break;
        if (avk_file_records_done(rc) == fc->done0 + 1) {
            p = avk_file_records_last(rc, &len);
            fc->after_len = len;
            memcpy(fc->after, p, len < sizeof fc->after ? len : sizeof fc->after);
        }
    }
    avk_arena_free(a);
    return st;
}

/* records_last is the last record taken: after a failed next, and on a
 * cursor that starts inside a block. All differences are listed. */
static void test_records_last(void **state)
{
    static const int kinds[] = {D_RECORD, D_COUNT_BIG, D_COUNT_SMALL};
    char report[1500];
    size_t ki, rlen = 0;
    (void)state;
    report[0] = 0;
    for (ki = 0; ki < 3; ki++) {
        avk_file_reader_options o;
        avk_file_reader *fr = NULL;
        last_ctx lc;
        craft c;
        unsigned slot;
        int64_t recs;
        int more;
        assert_true(craft_damaged(&c, AVK_CODEC_NULL, kinds[ki]));
        memset(&lc, 0, sizeof lc);
        avk_file_reader_options_init(&o);
        o.work = last_work;
        o.work_ctx = &lc;
        AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, NULL));
        while (avk_file_reader_next_work(fr, &slot, &recs, &more, NULL) == AVK_OK && more)
            ;
        avk_file_reader_free(fr);
        assert_int_equal(lc.failures, 1);
        if (lc.mismatches)
            rlen += (size_t)snprintf(report + rlen, sizeof report - rlen, "\n  %s: %s",
                                     DAMAGE_NAMES[kinds[ki]], lc.what);
        if (rlen >= sizeof report)
            rlen = sizeof report - 1;
        craft_free(&c);
    }
    /* A cursor on the rest of a block next left partly read (2 of its 3
     * records taken): before its first next, records_last is nothing or
     * the reader's last record (lv(1)), not both records; after it, lv(2). */
    {
        avk_file_reader_options o;
        avk_file_reader *fr = NULL;
        avk_arena *a = NULL;
        first_ctx fc;
        craft c;
        avk_value v;
        unsigned slot;
        int64_t recs;
        int more, k;
        uint8_t want[10];
        size_t wn;
        craft_header(&c, "\"long\"", AVK_CODEC_NULL);
        craft_block(&c, 3);
        craft_block(&c, 3);
        memset(&fc, 0, sizeof fc);
        avk_file_reader_options_init(&o);
        o.work = first_work;
        o.work_ctx = &fc;
        AVKT_OK(avk_arena_new(NULL, &a, NULL));
        AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, NULL));
        for (k = 0; k < 2; k++) {
            AVKT_OK(avk_file_reader_next(fr, a, &v, &more, NULL));
            AVKT_ASSERT_I64_EQ(v.u.l, lv(k));
        }
        AVKT_OK(avk_file_reader_next_work(fr, &slot, &recs, &more, NULL));
        assert_int_equal(more, 1);
        AVKT_ASSERT_I64_EQ(recs, 1);
        assert_int_equal(fc.calls, 1);
        AVKT_ASSERT_I64_EQ(fc.done0, 2);
        wn = avk_varint_encode_long(want, lv(2));
        avkt_assert_bytes(fc.after, fc.after_len, want, wn);
        wn = avk_varint_encode_long(want, lv(1));
        if (fc.before_len != 0 && !(fc.before_len == wn && memcmp(fc.before, want, wn) == 0))
            rlen += (size_t)snprintf(report + rlen, sizeof report - rlen,
                                     "\n  on the rest of a block (next took 2 of its 3 records): "
                                     "records_last gives %zu bytes before any next (the "
                                     "reader's last record is %zu bytes)",
                                     fc.before_len, wn);
        if (rlen >= sizeof report)
            rlen = sizeof report - 1;
        avk_file_reader_free(fr);
        avk_arena_free(a);
        craft_free(&c);
    }
    if (rlen)
        fail_msg("avk_file_records_last is not the last record taken:%s", report);
}

/* ---- a work that fails on its own --------------------------------------------------------- */

/* Reads a deflate file of 6 blocks whose work fails at block 2 after one
 * record, with status st. */
static void test_work_own_error(void **state)
{
    static const avk_status sts[] = {AVK_ERR_INVALID_ARGUMENT, AVK_ERR_MALFORMED, AVK_ERR_LIMIT};
    craft c;
    size_t si, ti;
    int skip, k;
    (void)state;
    craft_header(&c, "\"long\"", AVK_CODEC_DEFLATE);
    for (k = 0; k < 6; k++)
        craft_block(&c, 3);
    for (si = 0; si < 3; si++) {
        for (skip = 0; skip < 2; skip++) {
            for (ti = 0; ti < N_THREADS; ti++) {
                avk_file_reader_options o;
                avk_file_reader_stats rs;
                avk_file_reader *fr = NULL;
                avk_arena *a = NULL;
                skiplog sk;
                wctx wc;
                avk_error err, err2;
                avk_value v;
                unsigned slot, prev = AVK_FILE_NO_SLOT;
                int64_t recs;
                int more, blocks = 0;
                avk_status st;
                bb log;
                memset(&log, 0, sizeof log);
                memset(&sk, 0, sizeof sk);
                sk.owner = pthread_self();
                snprintf(g_where, sizeof g_where, "own %s, %s mode, %u threads",
                         avk_status_name(sts[si]), skip ? "skip" : "strict", THREADS[ti]);
                avk_file_reader_options_init(&o);
                o.threads = THREADS[ti];
                o.flags = skip ? AVK_FILE_SKIP_BAD_BLOCKS : 0;
                o.on_skip = log_skip;
                o.on_skip_ctx = &sk;
                o.work = work_fn;
                o.work_ctx = &wc;
                wctx_init(&wc, W_DECODE);
                wc.fail_block = 2;
                wc.fail_after = 1;
                wc.fail_status = sts[si];
                AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, &err));
                {
                    avk_plan *enc = enc_plan(fr, NULL);
                    wctx_ready(&wc, fr, enc);
                    /* Blocks 0 and 1. */
                    for (k = 0; k < 2; k++) {
                        assert_int_equal(work_step(fr, &wc, skip, &log, 0, &prev), 1);
                        blocks++;
                    }
                    atomic_store(&wc.slots[prev].in_use, 0);
                    prev = AVK_FILE_NO_SLOT;
                    st = avk_file_reader_next_work(fr, &slot, &recs, &more, &err);
                    assert_true(slot < wc.nslots);
                    AVKT_ASSERT_I64_EQ(recs, 1); /* the record before the failure */
                    check_slot(&wc, slot, 1);
                    atomic_store(&wc.slots[slot].in_use, 0);
                    if (sts[si] == AVK_ERR_MALFORMED && skip) {
                        /* Damage: reported, the block handed on, reading goes on. */
                        AVKT_OK(st);
                        assert_int_equal(more, 1);
                        if (sk.b.len == 0)
                            fail_msg("%s: no on_skip call", g_where);
                        {
                            char want[512];
                            snprintf(want, sizeof want,
                                     "S MALFORMED off=4242 blk=77 msg='the work refuses block 2' "
                                     "from=%llu to=%llu\n",
                                     (unsigned long long)c.off[2], (unsigned long long)c.off[3]);
                            assert_string_equal((const char *)sk.b.p, want);
                        }
                        while (work_step(fr, &wc, skip, &log, 0, &prev))
                            blocks++;
                        assert_int_equal(blocks, 5);
                        avk_file_reader_get_stats(fr, &rs);
                        AVKT_ASSERT_I64_EQ(rs.bad_blocks, 1);
                        AVKT_ASSERT_I64_EQ(rs.bad_bytes, c.off[3] - c.off[2]);
                        AVKT_ASSERT_I64_EQ(rs.records, 3 * 5 + 1);
                    } else if (sts[si] == AVK_ERR_LIMIT && skip) {
                        /* A limit: returned, then reading goes on. */
                        AVKT_ASSERT_STATUS(st, AVK_ERR_LIMIT);
                        assert_int_equal(more, 0);
                        assert_string_equal(err.message, "the work refuses block 2");
                        AVKT_ASSERT_I64_EQ(avk_file_reader_block_offset(fr), c.off[3]);
                        while (work_step(fr, &wc, skip, &log, 0, &prev))
                            blocks++;
                        assert_int_equal(blocks, 5);
                        assert_int_equal(sk.b.len, 0);
                        avk_file_reader_get_stats(fr, &rs);
                        AVKT_ASSERT_I64_EQ(rs.bad_blocks, 0);
                        AVKT_ASSERT_I64_EQ(rs.records, 3 * 5 + 1);
                    } else {
                        /* Final, as the work said it, and sticky. */
                        AVKT_ASSERT_STATUS(st, sts[si]);
                        assert_int_equal(more, 0);
                        assert_int_equal(err.status, sts[si]);
                        assert_string_equal(err.message, "the work refuses block 2");
                        AVKT_ASSERT_I64_EQ(err.offset, 4242);
                        AVKT_ASSERT_I64_EQ(err.block, 77);
                        AVKT_ASSERT_STATUS(
                            avk_file_reader_next_work(fr, &slot, &recs, &more, &err2), sts[si]);
                        errors_equal(&err, &err2);
                        assert_int_equal(slot, AVK_FILE_NO_SLOT);
                        AVKT_OK(avk_arena_new(NULL, &a, NULL));
                        AVKT_ASSERT_STATUS(avk_file_reader_next(fr, a, &v, &more, &err2),
                                           sts[si]);
                        errors_equal(&err, &err2);
                        avk_arena_free(a);
                        a = NULL;
                        AVKT_ASSERT_STATUS(avk_file_reader_skip(fr, &more, &err2), sts[si]);
                        avk_file_reader_get_stats(fr, &rs);
                        AVKT_ASSERT_I64_EQ(rs.records, 3 * 2 + 1);
                        assert_int_equal(sk.b.len, 0);
                    }
                    avk_file_reader_free(fr);
                    wctx_check(&wc);
                    wctx_destroy(&wc);
                    avk_plan_free(enc);
                }
                bb_free(&log);
                bb_free(&sk.b);
            }
        }
    }
    craft_free(&c);
}

/* A work that takes only some records of each block: the rest is not
 * read, nor called left over; stats count what it took. */
static void test_work_partial(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    bb f;
    size_t ti;
    (void)state;
    write_rec_file(s, AVK_CODEC_ZSTANDARD, 0, 5, 52, &f); /* 10 blocks of 5, one of 2 */
    for (ti = 0; ti < N_THREADS; ti++) {
        avk_file_reader_options o;
        avk_file_reader_stats rs;
        avk_file_reader *fr = NULL;
        avk_plan *enc;
        wctx wc;
        bb log;
        avk_file_reader_options_init(&o);
        o.threads = THREADS[ti];
        o.work = work_fn;
        o.work_ctx = &wc;
        memset(&log, 0, sizeof log);
        snprintf(g_where, sizeof g_where, "partial work, %u threads", THREADS[ti]);
        wctx_init(&wc, W_DECODE);
        wc.take_max = 2;
        AVKT_OK(avk_file_reader_open_memory(f.p, f.len, &o, &fr, NULL));
        enc = enc_plan(fr, NULL);
        wctx_ready(&wc, fr, enc);
        read_work(fr, &wc, 0, &log, 0);
        assert_int_equal(count_lines(&log, 'R'), 11 * 2);
        if (count_lines(&log, 'E') != 0)
            fail_msg("%s: %s", g_where, (const char *)log.p);
        avk_file_reader_get_stats(fr, &rs);
        AVKT_ASSERT_I64_EQ(rs.records, 22);
        AVKT_ASSERT_I64_EQ(rs.blocks, 11);
        avk_file_reader_free(fr);
        wctx_check(&wc);
        wctx_destroy(&wc);
        avk_plan_free(enc);
        bb_free(&log);
    }
    bb_free(&f);
    avk_schema_free(s);
}

/* ---- 2. the records cursor ---------------------------------------------------------------- */

/* A work that skips counts what skip counts; block, data, done and plan
 * say what next_block and avk_file_block_decompress say. */
static void test_records_accessors(void **state)
{
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    avk_codec codecs[N_CODECS];
    size_t nc = available_codecs(codecs), ci, ti;
    (void)state;
    for (ci = 0; ci < nc; ci++) {
        bb f;
        write_rec_file(s, codecs[ci], 700, 0, 120, &f);
        for (ti = 0; ti < N_THREADS; ti++) {
            int mode;
            for (mode = W_DECODE; mode <= W_SKIP; mode++) {
                avk_file_reader_options o;
                avk_file_reader *fr = NULL, *plain = NULL;
                avk_plan *enc;
                avk_buffer buf;
                wctx wc;
                unsigned prev = AVK_FILE_NO_SLOT;
                uint64_t total = 0, skipped = 0;
                int more, nblocks = 0;
                avk_buffer_init(&buf, NULL);
                avk_file_reader_options_init(&o);
                o.threads = THREADS[ti];
                o.work = work_fn;
                o.work_ctx = &wc;
                snprintf(g_where, sizeof g_where, "accessors, %s, %u threads, mode %d",
                         avk_codec_name(codecs[ci]), THREADS[ti], mode);
                wctx_init(&wc, mode);
                wc.probe_args = mode == W_SKIP;
                AVKT_OK(avk_file_reader_open_memory(f.p, f.len, &o, &fr, NULL));
                AVKT_OK(avk_file_reader_open_memory(f.p, f.len, NULL, &plain, NULL));
                enc = enc_plan(fr, NULL);
                wctx_ready(&wc, fr, enc);
                for (;;) {
                    avk_file_block blk;
                    unsigned slot;
                    int64_t recs;
                    const wslot *ws;
                    if (prev != AVK_FILE_NO_SLOT)
                        atomic_store(&wc.slots[prev].in_use, 0);
                    AVKT_OK(avk_file_reader_next_work(fr, &slot, &recs, &more, NULL));
                    AVKT_OK(avk_file_reader_next_block(plain, &blk, &more, NULL));
                    if (!more) {
                        assert_int_equal(slot, AVK_FILE_NO_SLOT);
                        break;
                    }
                    check_slot(&wc, slot, recs);
                    prev = slot;
                    ws = &wc.slots[slot];
                    AVKT_ASSERT_I64_EQ(ws->blk.offset, blk.offset);
                    AVKT_ASSERT_I64_EQ(ws->blk.index, blk.index);
                    AVKT_ASSERT_I64_EQ(ws->blk.index, nblocks);
                    AVKT_ASSERT_I64_EQ(ws->blk.count, blk.count);
                    AVKT_ASSERT_I64_EQ(ws->blk.size, blk.size);
                    AVKT_ASSERT_I64_EQ(ws->blk.end, blk.end);
                    AVKT_ASSERT_I64_EQ(recs, blk.count);
                    AVKT_ASSERT_I64_EQ(ws->d0, 0);
                    AVKT_ASSERT_I64_EQ(ws->done, blk.count);
                    AVKT_OK(avk_file_block_decompress(plain, &blk, &buf, NULL));
                    AVKT_ASSERT_I64_EQ(ws->data_len, buf.len);
                    if (ws->data_hash != fnv(buf.data, buf.len, FNV0))
                        fail_msg("%s: block %d: records_data differs from the block decompressed",
                                 g_where, nblocks);
                    /* Memory input of the null codec: the data is the input. */
                    if (codecs[ci] == AVK_CODEC_NULL)
                        assert_ptr_equal(ws->data, blk.data);
                    total += (uint64_t)recs;
                    nblocks++;
                }
                assert_true(nblocks > 10);
                assert_int_equal(total, 120);
                /* Without threads the work runs on the caller's thread;
                 * with, (also) on the workers. */
                if (THREADS[ti] < 2)
                    assert_true(atomic_load(&wc.elsewhere) == 0);
                assert_true(atomic_load(&wc.calls) == nblocks);
                /* Skipping with the reader counts the same. */
                avk_file_reader_free(plain);
                AVKT_OK(avk_file_reader_open_memory(f.p, f.len, NULL, &plain, NULL));
                for (;;) {
                    AVKT_OK(avk_file_reader_skip(plain, &more, NULL));
                    if (!more)
                        break;
                    skipped++;
                }
                AVKT_ASSERT_I64_EQ(skipped, total);
                {
                    avk_file_reader_stats a, b;
                    avk_file_reader_get_stats(fr, &a);
                    avk_file_reader_get_stats(plain, &b);
                    stats_equal(&b, &a);
                }
                avk_file_reader_free(fr);
                avk_file_reader_free(plain);
                wctx_check(&wc);
                wctx_destroy(&wc);
                avk_plan_free(enc);
                avk_buffer_destroy(&buf);
            }
        }
        bb_free(&f);
    }
    avk_schema_free(s);
}

/* ---- 3. slots ----------------------------------------------------------------------------- */

static void test_work_slots(void **state)
{
    static const unsigned th[] = {0, 1, 2, 3, 8, 63, 64, 65, 1000};
    static const unsigned want[] = {1, 1, 5, 7, 17, 127, 129, 129, 129};
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    size_t i;
    int ci;
    wctx wc;
    (void)state;
    for (ci = 0; ci < 2; ci++) {
        craft c;
        craft_header(&c, "\"long\"", ci ? AVK_CODEC_DEFLATE : AVK_CODEC_NULL);
        craft_block(&c, 2);
        for (i = 0; i < sizeof th / sizeof th[0]; i++) {
            avk_file_reader_options o;
            avk_file_reader *fr = NULL;
            avk_file_reader_options_init(&o);
            o.threads = th[i];
            o.work = work_fn;
            o.work_ctx = &wc;
            AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, NULL));
            if (avk_file_reader_slots(fr) != want[i])
                fail_msg("%u threads: %u slots, expected %u", th[i], avk_file_reader_slots(fr),
                         want[i]);
            avk_file_reader_free(fr);
        }
        craft_free(&c);
    }
    /* Slow works: the workers take blocks (the work runs off the caller's
     * thread), and the caller still gets every block in order. */
    {
        avk_file_reader_options o;
        avk_file_reader *fr = NULL;
        avk_plan *enc;
        bb f, log;
        memset(&log, 0, sizeof log);
        write_rec_file(s, AVK_CODEC_DEFLATE, 0, 2, 40, &f);
        avk_file_reader_options_init(&o);
        o.threads = 3;
        o.work = work_fn;
        o.work_ctx = &wc;
        wctx_init(&wc, W_DECODE);
        wc.delay_us = 3000;
        snprintf(g_where, sizeof g_where, "slow works");
        AVKT_OK(avk_file_reader_open_memory(f.p, f.len, &o, &fr, NULL));
        enc = enc_plan(fr, NULL);
        wctx_ready(&wc, fr, enc);
        read_work(fr, &wc, 0, &log, 0);
        assert_int_equal(count_lines(&log, 'R'), 40);
        assert_true(atomic_load(&wc.calls) == 20);
        assert_true(atomic_load(&wc.elsewhere) > 0);
        avk_file_reader_free(fr);
        wctx_check(&wc);
        wctx_destroy(&wc);
        avk_plan_free(enc);
        bb_free(&log);
        bb_free(&f);
    }
    /* A slow caller and slow works on many blocks: every slot handed on
     * stays as its work left it until the next call, and no slot serves
     * two blocks at once. */
    {
        static const unsigned many[] = {2, 3, 8};
        bb f;
        ccase k;
        write_rec_file(s, AVK_CODEC_DEFLATE, 0, 3, 150, &f);
        k = ccase_make("slow caller", f.p, f.len);
        k.threads = many;
        k.nthreads = 3;
        k.caller_nap = 300;
        k.hows = HOW(IN_MEM) | HOW(IN_PIPE);
        run_case(&k);
        k.caller_nap = 0;
        k.delay_us = 500;
        k.name = "slow work";
        run_case(&k);
        bb_free(&f);
        write_rec_file(s, AVK_CODEC_NULL, 0, 3, 150, &f);
        k = ccase_make("slow caller, null codec", f.p, f.len);
        k.threads = many;
        k.nthreads = 3;
        k.caller_nap = 200;
        k.delay_us = 200;
        run_case(&k);
        bb_free(&f);
    }
    avk_schema_free(s);
}

/* ---- 4. decoding ahead -------------------------------------------------------------------- */

static const char STR_SCHEMA[] =
    "{'type': 'record', 'name': 'S', 'fields': ["
    " {'name': 'i', 'type': 'long'}, {'name': 's', 'type': 'string'}]}";

/* The string of record i: small, or big_len bytes. */
static size_t str_of(int i, size_t big_len, char *buf, size_t cap)
{
    size_t n;
    if (big_len) {
        n = big_len < cap ? big_len : cap;
        memset(buf, 'a' + i % 26, n);
        snprintf(buf, 16, "<%d>", i);
        buf[strlen(buf)] = '|';
        return n;
    }
    n = (size_t)snprintf(buf, cap, "s%d", i);
    memset(buf + n, 'a' + i % 26, (size_t)(i % 13));
    return n + (size_t)(i % 13);
}

static void write_str_file(const avk_schema *s, avk_codec codec, uint64_t block_records, int n,
                           size_t big_len, bb *out)
{
    avk_file_writer_options o = wopts(codec, (size_t)256 << 20, block_records);
    avk_file_writer *fw = NULL;
    avk_arena *a = NULL;
    avk_error err;
    char *buf = (char *)malloc(big_len + 64);
    int i;
    assert_non_null(buf);
    memset(out, 0, sizeof *out);
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    AVKT_OK(avk_file_writer_open_sink(bb_sink, out, s, &o, &fw, &err));
    for (i = 0; i < n; i++) {
        avk_value v;
        size_t len = str_of(i, big_len, buf, big_len + 64);
        AVKT_OK(avk_value_init(&v, avk_schema_root(s), 0, a, NULL));
        v.u.fields[0].u.l = i;
        v.u.fields[1].u.bytes.data = (const uint8_t *)buf;
        v.u.fields[1].u.bytes.len = len;
        AVKT_OK(avk_file_writer_append(fw, &v, &err));
        avk_arena_reset(a);
    }
    AVKT_OK(avk_file_writer_close(fw, &err));
    avk_arena_free(a);
    free(buf);
}

/* Whether value v is record i (full: compare all its string; else its
 * ends). */
static int str_ok(const avk_value *v, int i, size_t big_len, char *buf, size_t cap, int full)
{
    size_t n = str_of(i, big_len, buf, cap);
    const avk_bytes *b = &v->u.fields[1].u.bytes;
    if (v->u.fields[0].u.l != i || b->len != n)
        return 0;
    if (full || n <= 64)
        return memcmp(b->data, buf, n) == 0;
    return memcmp(b->data, buf, 32) == 0 && memcmp(b->data + n - 32, buf + n - 32, 32) == 0;
}

/* Reads the file with next (skip_records: skip), checking every record
 * against what was written and that the records of the current block stay
 * valid until the call that moves past it. first_of: block starts (by
 * record index), nblocks of them. */
static void read_checked(const bb *f, const avk_file_reader_options *o, int n, size_t big_len,
                         const int *first_of, int nblocks, avk_file_reader_stats *stats)
{
    avk_file_reader *fr = NULL;
    avk_arena *a = NULL;
    avk_value *kept = (avk_value *)malloc(sizeof *kept * (size_t)n);
    size_t cap = big_len + 64;
    char *buf = (char *)malloc(cap);
    int i = 0, blk = 0, more, block_start = 0;
    assert_non_null(kept);
    assert_non_null(buf);
    AVKT_OK(avk_arena_new(NULL, &a, NULL));
    AVKT_OK(avk_file_reader_open_memory(f->p, f->len, o, &fr, NULL));
    for (;;) {
        avk_error err;
        avk_status st;
        int j;
        /* Earlier records of this block: still there. */
        if (i > block_start) {
            int probe[3];
            probe[0] = block_start;
            probe[1] = i - 1;
            probe[2] = block_start + (int)((unsigned)(i * 2654435761u) % (unsigned)(i - block_start));
            for (j = 0; j < 3; j++)
                if (!str_ok(&kept[probe[j]], probe[j], big_len, buf, cap, 0))
                    fail_msg("%s: record %d changed before its block was left (at %d)",
                             g_where, probe[j], i);
            if ((i - block_start) % 8192 == 0 || (big_len && i - block_start < 64))
                for (j = block_start; j < i; j++)
                    if (!str_ok(&kept[j], j, big_len, buf, cap, 0))
                        fail_msg("%s: record %d changed before its block was left (at %d)",
                                 g_where, j, i);
        }
        st = avk_file_reader_next(fr, a, &kept[i < n ? i : n - 1], &more, &err);
        if (st != AVK_OK)
            fail_msg("%s: record %d: %s (%s)", g_where, i, avk_status_name(st), err.message);
        if (blk + 1 < nblocks && i == first_of[blk + 1]) {
            /* This call moved into the next block: the last one's records
             * may go; the caller's arena goes with them. */
            blk++;
            block_start = i;
        }
        if (!more)
            break;
        assert_true(i < n);
        if (!str_ok(&kept[i], i, big_len, buf, cap, 1))
            fail_msg("%s: record %d is not what was written", g_where, i);
        i++;
    }
    assert_int_equal(i, n);
    avk_file_reader_get_stats(fr, stats);
    avk_file_reader_free(fr);
    avk_arena_free(a);
    free(kept);
    free(buf);
}

static void test_decode_ahead_big_blocks(void **state)
{
    avk_schema *s = AVKT_PARSE(STR_SCHEMA);
    static const avk_codec cs[] = {AVK_CODEC_NULL, AVK_CODEC_ZSTANDARD};
    size_t ci;
    (void)state;
    for (ci = 0; ci < 2; ci++) {
        int variant;
        if (!avk_codec_available(cs[ci]))
            continue;
        for (variant = 0; variant < 3; variant++) {
            /* 0: 200,000 small records in one block (over the 65,536 held
             * ahead), then 7 in a second; 1 and 2: 40 strings of 1 MiB in
             * one block, 3 in a second, with their bytes copied into the
             * values (over the 32 MiB held ahead) or viewed. */
            int n = variant == 0 ? 200007 : 43;
            int per = variant == 0 ? 200000 : 40;
            size_t big = variant == 0 ? 0 : (size_t)1 << 20;
            int first_of[2];
            avk_file_reader_stats want, got;
            avk_file_reader_options o;
            unsigned th;
            bb f;
            first_of[0] = 0;
            first_of[1] = per;
            write_str_file(s, cs[ci], (uint64_t)per, n, big, &f);
            avk_file_reader_options_init(&o);
            if (variant == 1)
                o.plan_flags = AVK_PLAN_COPY_STRINGS;
            snprintf(g_where, sizeof g_where, "%s, variant %d, plain", avk_codec_name(cs[ci]),
                     variant);
            read_checked(&f, &o, n, big, first_of, 2, &want);
            AVKT_ASSERT_I64_EQ(want.blocks, 2);
            for (th = 2; th <= 4; th += 2) {
                o.threads = th;
                o.flags = AVK_FILE_DECODE_AHEAD;
                snprintf(g_where, sizeof g_where, "%s, variant %d, ahead on %u threads",
                         avk_codec_name(cs[ci]), variant, th);
                read_checked(&f, &o, n, big, first_of, 2, &got);
                stats_equal(&want, &got);
                /* Skipping, and work on the same blocks: the same counts. */
                if (variant != 1) {
                    char name[128];
                    ccase k;
                    snprintf(name, sizeof name, "%s, variant %d, skipped",
                             avk_codec_name(cs[ci]), variant);
                    k = ccase_make(name, f.p, f.len);
                    static const unsigned two[] = {2};
                    k.o.plan_flags = o.plan_flags;
                    k.mode = W_SKIP;
                    k.threads = two;
                    k.nthreads = 1;
                    k.ahead = 1;
                    k.want_records = n;
                    if (th == 2)
                        run_case(&k);
                }
            }
            bb_free(&f);
        }
    }
    avk_schema_free(s);
}

/* Skipping with AVK_FILE_DECODE_AHEAD counts what skipping without does
 * ("next and skip return the same records, statuses, errors, stats and
 * on_skip calls as without"): records that skip but do not decode (a union
 * branch the reader schema lacks; invalid UTF-8 under AVK_PLAN_CHECK_UTF8)
 * must not stop it. All differences are listed. */
static void test_decode_ahead_skip(void **state)
{
    avk_schema *lng = AVKT_PARSE("'long'");
    char report[2048], first[1600];
    size_t rlen = 0;
    int which, skip;
    unsigned th;
    (void)state;
    report[0] = first[0] = 0;
    for (which = 0; which < 2; which++) {
        craft c;
        bb d;
        memset(&d, 0, sizeof d);
        if (which == 0) {
            craft_header(&c, "[\"null\", \"long\"]", AVK_CODEC_DEFLATE);
            bb_long(&d, 1);
            bb_long(&d, lv(0));
            craft_data(&c, 1, d.p, d.len, SYNC, 0);
            d.len = 0;
            bb_long(&d, 1);
            bb_long(&d, lv(1));
            bb_long(&d, 0); /* null: not a long */
            bb_long(&d, 1);
            bb_long(&d, lv(2));
            craft_data(&c, 3, d.p, d.len, SYNC, 0);
        } else {
            craft_header(&c, "\"string\"", AVK_CODEC_DEFLATE);
            bb_str(&d, "ok");
            craft_data(&c, 1, d.p, d.len, SYNC, 0);
            d.len = 0;
            bb_str(&d, "fine");
            bb_str(&d, "\xff\xfe"); /* not UTF-8 */
            bb_str(&d, "also fine");
            craft_data(&c, 3, d.p, d.len, SYNC, 0);
        }
        d.len = 0;
        if (which == 0) {
            bb_long(&d, 1);
            bb_long(&d, lv(3));
        } else {
            bb_str(&d, "last");
        }
        craft_data(&c, 1, d.p, d.len, SYNC, 0);
        bb_free(&d);
        for (skip = 0; skip < 2; skip++) {
            avk_file_reader_options o;
            avk_file_reader *fr = NULL;
            skiplog want_skips;
            bb want;
            memset(&want, 0, sizeof want);
            memset(&want_skips, 0, sizeof want_skips);
            want_skips.owner = pthread_self();
            avk_file_reader_options_init(&o);
            o.flags = skip ? AVK_FILE_SKIP_BAD_BLOCKS : 0;
            o.on_skip = log_skip;
            o.on_skip_ctx = &want_skips;
            if (which == 0)
                o.reader_schema = lng;
            else
                o.plan_flags = AVK_PLAN_CHECK_UTF8;
            snprintf(g_where, sizeof g_where, "skip ahead, plain");
            AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, NULL));
            read_seq(fr, NULL, 1, skip, &want);
            avk_file_reader_free(fr);
            assert_string_equal((const char *)want.p, "R\nR\nR\nR\nR\nEND\n");
            for (th = 2; th <= 4; th += 2) {
                skiplog got_skips;
                char diff[1600];
                bb got;
                memset(&got, 0, sizeof got);
                memset(&got_skips, 0, sizeof got_skips);
                got_skips.owner = pthread_self();
                o.threads = th;
                o.flags |= AVK_FILE_DECODE_AHEAD;
                o.on_skip_ctx = &got_skips;
                AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, NULL));
                read_seq(fr, NULL, 1, skip, &got);
                avk_file_reader_free(fr);
                if ((logs_differ(&want, &got, diff, sizeof diff) ||
                     logs_differ(&want_skips.b, &got_skips.b, diff, sizeof diff)) &&
                    rlen < sizeof report - 1) {
                    if (!first[0])
                        snprintf(first, sizeof first, "%s", diff);
                    rlen += (size_t)snprintf(report + rlen, sizeof report - rlen,
                                             "\n  %s, %s mode, %u threads",
                                             which ? "invalid UTF-8 under CHECK_UTF8"
                                                   : "a union branch the reader lacks",
                                             skip ? "skip" : "strict", th);
                    if (rlen >= sizeof report)
                        rlen = sizeof report - 1;
                }
                bb_free(&got);
                bb_free(&got_skips.b);
            }
            bb_free(&want);
            bb_free(&want_skips.b);
        }
        craft_free(&c);
    }
    avk_schema_free(lng);
    if (rlen) {
        print_error("avk_file_reader_skip with AVK_FILE_DECODE_AHEAD differs, in:%s\n", report);
        fail_msg("avk_file_reader_skip with AVK_FILE_DECODE_AHEAD differs from without; the "
                 "first: %s",
                 first);
    }
}

/* ---- 5. seeking and mixing ---------------------------------------------------------------- */

/* Plain reading of the file from a block (seek_block) or from a sync
 * search (seek_sync), on a fresh reader. */
static void plain_from(const bb *f, int by_sync, uint64_t at, bb *log,
                       avk_file_reader_stats *stats)
{
    avk_file_reader *fr = NULL;
    avk_plan *enc;
    AVKT_OK(avk_file_reader_open_memory(f->p, f->len, NULL, &fr, NULL));
    enc = enc_plan(fr, NULL);
    if (by_sync)
        AVKT_OK(avk_file_reader_seek_sync(fr, at, NULL));
    else
        AVKT_OK(avk_file_reader_seek_block(fr, at, NULL));
    read_seq(fr, enc, 0, 0, log);
    avk_file_reader_get_stats(fr, stats);
    avk_file_reader_free(fr);
    avk_plan_free(enc);
}

static void test_work_seek(void **state)
{
    static const unsigned th[] = {0, 2, 3};
    static const avk_codec cs[] = {AVK_CODEC_NULL, AVK_CODEC_DEFLATE};
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    size_t ci, ti;
    char path[64];
    (void)state;
    tmp_path(path);
    for (ci = 0; ci < 2; ci++) {
        uint64_t offs[64];
        size_t nb = 0, b;
        bb f;
        write_rec_file(s, cs[ci], 0, 4, 60, &f); /* 15 blocks */
        write_whole(path, f.p, f.len);
        {
            avk_file_reader *fr = NULL;
            avk_file_block blk;
            int more;
            AVKT_OK(avk_file_reader_open_memory(f.p, f.len, NULL, &fr, NULL));
            for (;;) {
                AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, NULL));
                if (!more)
                    break;
                offs[nb++] = blk.offset;
            }
            avk_file_reader_free(fr);
            assert_int_equal(nb, 15);
            offs[nb] = f.len; /* the end: nothing follows */
        }
        for (ti = 0; ti < 3; ti++) {
            int how;
            for (how = IN_MEM; how <= IN_PATH; how++) {
                avk_file_reader_options o;
                avk_file_reader *fr = NULL;
                avk_plan *enc;
                input in;
                wctx wc;
                uint64_t at;
                avk_file_reader_options_init(&o);
                o.threads = th[ti];
                o.work = work_fn;
                o.work_ctx = &wc;
                wctx_init(&wc, W_DECODE);
                AVKT_OK(input_open(&in, how, f.p, f.len, path, &o, &fr, NULL));
                enc = enc_plan(fr, NULL);
                wctx_ready(&wc, fr, enc);
                /* To each block (and the end), after reading 3 blocks. */
                for (b = 0; b <= nb; b++) {
                    avk_file_reader_stats want_stats;
                    bb want, got, scratch;
                    unsigned prev = AVK_FILE_NO_SLOT;
                    int k;
                    memset(&want, 0, sizeof want);
                    memset(&got, 0, sizeof got);
                    memset(&scratch, 0, sizeof scratch);
                    snprintf(g_where, sizeof g_where, "%s, %s, %u threads, seek_block to %zu",
                             avk_codec_name(cs[ci]), IN_NAMES[how], th[ti], b);
                    AVKT_OK(avk_file_reader_seek_block(fr, offs[(b * 7) % nb], NULL));
                    wctx_release_all(&wc);
                    for (k = 0; k < 3; k++)
                        work_step(fr, &wc, 0, &scratch, 0, &prev);
                    AVKT_OK(avk_file_reader_seek_block(fr, offs[b], NULL));
                    wctx_release_all(&wc);
                    prev = AVK_FILE_NO_SLOT;
                    AVKT_ASSERT_I64_EQ(avk_file_reader_block_offset(fr), offs[b]);
                    read_work(fr, &wc, 0, &got, 0);
                    plain_from(&f, 0, offs[b], &want, &want_stats);
                    logs_equal("records after seek_block", &want, &got);
                    assert_int_equal(count_lines(&got, 'R'), (nb - b) * 4);
                    bb_free(&want);
                    bb_free(&got);
                    bb_free(&scratch);
                }
                /* seek_sync at offsets all over the file. */
                for (at = 0; at <= f.len + 3; at += 1 + at % 37) {
                    avk_file_reader_stats want_stats;
                    bb want, got;
                    memset(&want, 0, sizeof want);
                    memset(&got, 0, sizeof got);
                    snprintf(g_where, sizeof g_where, "%s, %s, %u threads, seek_sync to %llu",
                             avk_codec_name(cs[ci]), IN_NAMES[how], th[ti],
                             (unsigned long long)at);
                    AVKT_OK(avk_file_reader_seek_sync(fr, at, NULL));
                    wctx_release_all(&wc);
                    read_work(fr, &wc, 0, &got, 0);
                    plain_from(&f, 1, at, &want, &want_stats);
                    logs_equal("records after seek_sync", &want, &got);
                    bb_free(&want);
                    bb_free(&got);
                }
                avk_file_reader_free(fr);
                input_close(&in);
                wctx_check(&wc);
                wctx_destroy(&wc);
                avk_plan_free(enc);
            }
        }
        bb_free(&f);
    }
    unlink(path);
    avk_schema_free(s);
}

/* next_work, next_block and next mixed, against a reader without work
 * doing, for each next_work, next for the rest of a block next left partly
 * read, else next_block (and decoding the block itself). Blocks hold 3
 * records. */
static void test_work_mixed_calls(void **state)
{
    static const char ops[] = "NNWBBWWNWBNNNNNWWBWNWWBBBBWWWWWWWWWWWWWWWW";
    static const unsigned th[] = {0, 2, 3, 8};
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    avk_codec cs[2] = {AVK_CODEC_DEFLATE, AVK_CODEC_NULL};
    char path[64];
    size_t ci, ti, oi;
    (void)state;
    tmp_path(path);
    for (ci = 0; ci < 2; ci++) {
        bb f;
        write_rec_file(s, cs[ci], 0, 3, 75, &f); /* 25 blocks */
        write_whole(path, f.p, f.len);
        for (ti = 0; ti < 4; ti++) {
            int how;
            for (how = IN_MEM; how < N_INPUTS; how++) {
                int side;
                bb logs[2];
                for (side = 0; side < 2; side++) {
                    avk_file_reader_options o;
                    avk_file_reader *fr = NULL;
                    avk_plan *enc;
                    avk_arena *a = NULL;
                    avk_writer w;
                    avk_buffer buf;
                    input in;
                    wctx wc;
                    unsigned prev = AVK_FILE_NO_SLOT;
                    int left = 0; /* records next left in its block */
                    bb *log = &logs[side];
                    memset(log, 0, sizeof *log);
                    avk_file_reader_options_init(&o);
                    o.threads = side ? th[ti] : 0;
                    if (side) {
                        o.work = work_fn;
                        o.work_ctx = &wc;
                    }
                    wctx_init(&wc, W_DECODE);
                    snprintf(g_where, sizeof g_where, "mixed, %s, %s, %u threads",
                             avk_codec_name(cs[ci]), IN_NAMES[how], o.threads);
                    AVKT_OK(input_open(&in, how, f.p, f.len, path, &o, &fr, NULL));
                    enc = enc_plan(fr, NULL);
                    if (side)
                        wctx_ready(&wc, fr, enc);
                    AVKT_OK(avk_arena_new(NULL, &a, NULL));
                    AVKT_OK(avk_writer_init_memory(&w, NULL, NULL));
                    avk_buffer_init(&buf, NULL);
                    for (oi = 0; ops[oi]; oi++) {
                        avk_file_block blk;
                        avk_value v;
                        int more;
                        const uint8_t *p;
                        size_t n;
                        bb_printf(log, "%c\n", ops[oi]);
                        /* Any call moves past the block handed on last. */
                        if (prev != AVK_FILE_NO_SLOT)
                            atomic_store(&wc.slots[prev].in_use, 0);
                        prev = AVK_FILE_NO_SLOT;
                        if (ops[oi] == 'N' || (ops[oi] == 'W' && !side && left > 0)) {
                            int times = ops[oi] == 'N' ? 1 : left;
                            while (times-- > 0) {
                                AVKT_OK(avk_file_reader_next(fr, a, &v, &more, NULL));
                                if (more) {
                                    left = left == 0 ? 2 : left - 1;
                                    avk_writer_reset(&w);
                                    AVKT_OK(avk_plan_encode(enc, &v, &w, NULL));
                                    p = avk_writer_data(&w, &n);
                                    log_record(log, p, n);
                                }
                            }
                        } else if (ops[oi] == 'B' || !side) {
                            left = 0;
                            AVKT_OK(avk_file_reader_next_block(fr, &blk, &more, NULL));
                            if (more && ops[oi] == 'B') {
                                bb_printf(log, "B %llu %lld %zu\n", (unsigned long long)blk.offset,
                                          (long long)blk.count, blk.size);
                            } else if (more) {
                                avk_reader r;
                                int64_t k;
                                AVKT_OK(avk_file_block_decompress(fr, &blk, &buf, NULL));
                                avk_reader_init_memory(&r, buf.data, buf.len);
                                for (k = 0; k < blk.count; k++) {
                                    AVKT_OK(avk_plan_decode(avk_file_reader_plan(fr), &r, a, &v,
                                                            NULL));
                                    avk_writer_reset(&w);
                                    AVKT_OK(avk_plan_encode(enc, &v, &w, NULL));
                                    p = avk_writer_data(&w, &n);
                                    log_record(log, p, n);
                                }
                            }
                        } else {
                            unsigned slot;
                            int64_t recs;
                            left = 0;
                            AVKT_OK(avk_file_reader_next_work(fr, &slot, &recs, &more, NULL));
                            if (more) {
                                check_slot(&wc, slot, recs);
                                bb_put(log, wc.slots[slot].out.p, wc.slots[slot].out.len);
                                prev = slot;
                            }
                        }
                        if (!more)
                            bb_put(log, "end\n", 4);
                        if (ops[oi] == 'W' && side) {
                            bb_printf(log, "at %llu\n",
                                      (unsigned long long)avk_file_reader_block_offset(fr));
                            continue;
                        }
                        if (side) {
                            /* Blocks next and next_block took were worked on
                             * but never handed on: their slots are free. */
                            wctx_release_all(&wc);
                            prev = AVK_FILE_NO_SLOT;
                        }
                        bb_printf(log, "at %llu\n",
                                  (unsigned long long)avk_file_reader_block_offset(fr));
                        avk_arena_reset(a);
                    }
                    {
                        avk_file_reader_stats st;
                        avk_file_reader_get_stats(fr, &st);
                        bb_printf(log, "blocks %llu\n", (unsigned long long)st.blocks);
                    }
                    avk_file_reader_free(fr);
                    input_close(&in);
                    if (side) {
                        wctx_check(&wc);
                        wctx_destroy(&wc);
                    } else {
                        pthread_mutex_destroy(&wc.mu);
                    }
                    avk_plan_free(enc);
                    avk_arena_free(a);
                    avk_writer_destroy(&w);
                    avk_buffer_destroy(&buf);
                }
                logs_equal("mixed calls", &logs[0], &logs[1]);
                assert_true(count_lines(&logs[0], 'R') > 40);
                bb_free(&logs[0]);
                bb_free(&logs[1]);
            }
        }
        bb_free(&f);
    }
    unlink(path);
    avk_schema_free(s);
}

/* ---- 6. failing allocations --------------------------------------------------------------- */

static void test_work_failing_allocator(void **state)
{
    static const avk_codec cs[] = {AVK_CODEC_NULL, AVK_CODEC_DEFLATE, AVK_CODEC_ZSTANDARD};
    static const unsigned th[] = {0, 2, 3};
    avk_schema *s = AVKT_PARSE(REC_SCHEMA);
    char path[64];
    size_t ci, ti;
    (void)state;
    tmp_path(path);
    for (ci = 0; ci < 3; ci++) {
        bb f;
        if (!avk_codec_available(cs[ci]))
            continue;
        write_rec_file(s, cs[ci], 0, 4, 14, &f);
        write_whole(path, f.p, f.len);
        for (ti = 0; ti < 3; ti++) {
            int how;
            for (how = IN_MEM; how <= IN_PATH; how++) {
                long n;
                int done = 0;
                for (n = 1; !done && n < 100000; n++) {
                    avkt_failalloc fa;
                    avkt_locked_alloc la;
                    avk_file_reader_options o;
                    avk_file_reader *fr = NULL;
                    avk_plan *enc = NULL;
                    input in;
                    wctx wc;
                    avk_error err;
                    avk_status st;
                    unsigned prev = AVK_FILE_NO_SLOT;
                    int64_t got = 0;
                    avkt_failalloc_init(&fa, n);
                    avkt_locked_alloc_init(&la, &fa.allocator);
                    avk_file_reader_options_init(&o);
                    o.allocator = &la.allocator;
                    o.threads = th[ti];
                    o.work = work_fn;
                    o.work_ctx = &wc;
                    wctx_init(&wc, W_DECODE);
                    wc.alloc = &la.allocator; /* the work's arenas too */
                    snprintf(g_where, sizeof g_where,
                             "failing allocation %ld, %s, %s, %u threads", n,
                             avk_codec_name(cs[ci]), IN_NAMES[how], th[ti]);
                    memset(&err, 0, sizeof err);
                    st = input_open(&in, how, f.p, f.len, path, &o, &fr, &err);
                    if (st == AVK_OK) {
                        enc = enc_plan(fr, NULL);
                        wctx_ready(&wc, fr, enc);
                    }
                    while (st == AVK_OK) {
                        unsigned slot;
                        int64_t recs;
                        int more;
                        if (prev != AVK_FILE_NO_SLOT)
                            atomic_store(&wc.slots[prev].in_use, 0);
                        prev = AVK_FILE_NO_SLOT;
                        st = avk_file_reader_next_work(fr, &slot, &recs, &more, &err);
                        if (slot != AVK_FILE_NO_SLOT) {
                            check_slot(&wc, slot, recs);
                            got += recs;
                            prev = slot;
                        }
                        if (st == AVK_OK && !more)
                            break;
                    }
                    if (st == AVK_OK) {
                        AVKT_ASSERT_I64_EQ(got, 14);
                        /* (the read-ahead's ring, a worker or the relaxed plan
                         * that cannot be had is not an error) */
                        if (fa.failures == 0)
                            done = 1;
                    } else {
                        if (st != AVK_ERR_NO_MEMORY || err.status != AVK_ERR_NO_MEMORY ||
                            err.message[0] == 0)
                            fail_msg("%s: %s (%s: %s)", g_where, avk_status_name(st),
                                     avk_status_name(err.status), err.message);
                        if (fr) {
                            avk_error e2;
                            unsigned slot;
                            int64_t recs;
                            int more;
                            AVKT_ASSERT_STATUS(
                                avk_file_reader_next_work(fr, &slot, &recs, &more, &e2),
                                AVK_ERR_NO_MEMORY);
                        }
                    }
                    avk_file_reader_free(fr);
                    input_close(&in);
                    wctx_check(&wc);
                    wctx_destroy(&wc);
                    avk_plan_free(enc);
                    pthread_mutex_destroy(&la.mu);
                    if (fa.live_blocks != 0 || fa.size_mismatches != 0 || fa.bad_frees != 0)
                        fail_msg("%s: %ld blocks leaked, %ld size mismatches, %ld bad frees",
                                 g_where, fa.live_blocks, fa.size_mismatches, fa.bad_frees);
                }
                assert_true(done);
                assert_true(n > 5); /* (allocations were failed, not none) */
            }
        }
        bb_free(&f);
    }
    unlink(path);
    avk_schema_free(s);
}

/* ---- 7. bad calls ------------------------------------------------------------------------- */

static void test_work_bad_calls(void **state)
{
    avk_file_reader_options o;
    avk_file_reader *fr = NULL;
    avk_error err;
    unsigned slot;
    int64_t recs;
    int more, i;
    wctx wc;
    craft c;
    (void)state;
    craft_header(&c, "\"long\"", AVK_CODEC_DEFLATE);
    craft_block(&c, 3);
    craft_block(&c, 2);
    /* A reader without work: threads 0 and 2, decoding ahead or not, and
     * options of the size before work was added (work then ignored). */
    for (i = 0; i < 4; i++) {
        avk_file_reader_options_init(&o);
        o.threads = i == 0 ? 0 : 2;
        o.flags = i == 2 ? AVK_FILE_DECODE_AHEAD : 0;
        if (i == 3) {
            o.work = work_fn;
            o.work_ctx = &wc;
            o.struct_size = offsetof(avk_file_reader_options, work);
        }
        AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, NULL));
        slot = 5;
        recs = 5;
        more = 5;
        memset(&err, 0, sizeof err);
        AVKT_ASSERT_STATUS(avk_file_reader_next_work(fr, &slot, &recs, &more, &err),
                           AVK_ERR_INVALID_ARGUMENT);
        assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
        assert_true(strstr(err.message, "work") != NULL);
        assert_int_equal(slot, AVK_FILE_NO_SLOT);
        AVKT_ASSERT_I64_EQ(recs, 0);
        assert_int_equal(more, 0);
        AVKT_ASSERT_STATUS(avk_file_reader_next_work(fr, &slot, &recs, &more, NULL),
                           AVK_ERR_INVALID_ARGUMENT);
        /* ... and the reader still reads. */
        {
            int n = 0;
            for (;;) {
                AVKT_OK(avk_file_reader_skip(fr, &more, NULL));
                if (!more)
                    break;
                n++;
            }
            assert_int_equal(n, 5);
        }
        avk_file_reader_free(fr);
    }
    /* NULL arguments. */
    avk_file_reader_options_init(&o);
    o.work = work_fn;
    o.work_ctx = &wc;
    wctx_init(&wc, W_SKIP);
    AVKT_OK(avk_file_reader_open_memory(c.b.p, c.b.len, &o, &fr, NULL));
    wctx_ready(&wc, fr, NULL);
    wc.probe_args = 1;
    memset(&err, 0, sizeof err);
    AVKT_ASSERT_STATUS(avk_file_reader_next_work(NULL, &slot, &recs, &more, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    assert_int_equal(err.status, AVK_ERR_INVALID_ARGUMENT);
    assert_true(err.message[0] != 0);
    AVKT_ASSERT_STATUS(avk_file_reader_next_work(fr, NULL, &recs, &more, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_file_reader_next_work(fr, &slot, NULL, &more, &err),
                       AVK_ERR_INVALID_ARGUMENT);
    AVKT_ASSERT_STATUS(avk_file_reader_next_work(fr, &slot, &recs, NULL, NULL),
                       AVK_ERR_INVALID_ARGUMENT);
    /* None of those moved it: both blocks come (the work probing its
     * cursor with bad arguments first). */
    {
        bb log;
        memset(&log, 0, sizeof log);
        snprintf(g_where, sizeof g_where, "after bad calls");
        read_work(fr, &wc, 0, &log, 0);
        assert_string_equal((const char *)log.p, "R\nR\nR\nR\nR\nEND\n");
        bb_free(&log);
    }
    assert_true(atomic_load(&wc.calls) == 2);
    avk_file_reader_free(fr);
    wctx_check(&wc);
    wctx_destroy(&wc);
    craft_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(avkt_test_kernel_choice),
        cmocka_unit_test(test_work_matches_next),
        cmocka_unit_test(test_work_damaged),
        cmocka_unit_test(test_work_every_prefix),
        cmocka_unit_test(test_work_limits),
        cmocka_unit_test(test_work_lying_length),
        cmocka_unit_test(test_work_resolution_error),
        cmocka_unit_test(test_records_last),
        cmocka_unit_test(test_work_own_error),
        cmocka_unit_test(test_work_partial),
        cmocka_unit_test(test_records_accessors),
        cmocka_unit_test(test_work_slots),
        cmocka_unit_test(test_decode_ahead_big_blocks),
        cmocka_unit_test(test_decode_ahead_skip),
        cmocka_unit_test(test_work_seek),
        cmocka_unit_test(test_work_mixed_calls),
        cmocka_unit_test(test_work_failing_allocator),
        cmocka_unit_test(test_work_bad_calls),
    };
    signal(SIGPIPE, SIG_IGN); /* a pipe's reader may stop early */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
