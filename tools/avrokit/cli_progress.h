/* A progress line on standard error for long CLI work: bytes and percent when the size is known, records and rate; throttled and only on a terminal. */
#ifndef AVKCLI_PROGRESS_H
#define AVKCLI_PROGRESS_H

#include <stdint.h>

/* Lives in caller storage. Everything is private except through the
 * functions below. */
typedef struct avkcli_progress {
    int enabled;          /* 0: every call does nothing */
    int drawn;            /* a line is on the screen (to clear) */
    const char *label;    /* "tojson", ... */
    uint64_t total_bytes; /* 0 when unknown */
    uint64_t total_records; /* 0 when unknown */
    double start;         /* seconds (monotonic clock) */
    double last;          /* when the line was last drawn */
} avkcli_progress;

/* Starts a progress line. Enabled only when quiet is 0 and standard error
 * is a terminal. total_bytes / total_records: what 100% means, 0 when not
 * known (then no percent is shown). */
void avkcli_progress_start(avkcli_progress *p, const char *label, uint64_t total_bytes,
                           uint64_t total_records, int quiet);

/* How often (in records) callers should look at the clock: a power of two
 * minus one, to be tested as (records & AVKCLI_PROGRESS_EVERY) == 0. Cheap
 * enough to test per record; the clock is read once per 4096 records. */
#define AVKCLI_PROGRESS_EVERY 4095u

/* 1 when it is time to call avkcli_progress_update (records done so far). */
static inline int avkcli_progress_due(const avkcli_progress *p, uint64_t records)
{
    return p->enabled && (records & AVKCLI_PROGRESS_EVERY) == 0;
}

/* Redraws the line if at least 0.1 s passed since the last drawing. bytes:
 * input bytes done so far (ignored when the total is unknown and 0). */
void avkcli_progress_update(avkcli_progress *p, uint64_t records, uint64_t bytes);

/* Clears the line (call before printing messages or at the end). */
void avkcli_progress_end(avkcli_progress *p);

#endif
