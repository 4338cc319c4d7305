/* The CLI's progress line: throttled redraws of "label: bytes (percent) records rate" on a terminal's standard error. */
/* POSIX: isatty, fileno, clock_gettime (the build is strict C11). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli_progress.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void avkcli_progress_start(avkcli_progress *p, const char *label, uint64_t total_bytes,
                           uint64_t total_records, int quiet)
{
    p->enabled = !quiet && isatty(fileno(stderr));
    p->drawn = 0;
    p->label = label;
    p->total_bytes = total_bytes;
    p->total_records = total_records;
    p->start = p->enabled ? now() : 0;
    p->last = p->start;
}

/* "12.3 MiB" into buf. */
static void human_bytes(char *buf, size_t size, double v)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

void avkcli_progress_update(avkcli_progress *p, uint64_t records, uint64_t bytes)
{
    double t, elapsed, rate;
    char done[32], total[32], pct[16] = "";
    if (!p->enabled)
        return;
    t = now();
    /* At most 10 redraws a second: a terminal is slow next to the work. */
    if (t - p->last < 0.1)
        return;
    p->last = t;
    elapsed = t - p->start;
    rate = elapsed > 0 ? (double)records / elapsed : 0;
    if (p->total_bytes) {
        human_bytes(done, sizeof done, (double)bytes);
        human_bytes(total, sizeof total, (double)p->total_bytes);
        snprintf(pct, sizeof pct, "%5.1f%%",
                 100.0 * (double)(bytes > p->total_bytes ? p->total_bytes : bytes) /
                     (double)p->total_bytes);
        fprintf(stderr, "\r\033[K%s: %s %s / %s, %llu records, %.0f records/s", p->label, pct,
                done, total, (unsigned long long)records, rate);
    } else if (p->total_records) {
        snprintf(pct, sizeof pct, "%5.1f%%",
                 100.0 * (double)records / (double)p->total_records);
        fprintf(stderr, "\r\033[K%s: %s %llu / %llu records, %.0f records/s", p->label, pct,
                (unsigned long long)records, (unsigned long long)p->total_records, rate);
    } else {
        if (bytes) {
            human_bytes(done, sizeof done, (double)bytes);
            fprintf(stderr, "\r\033[K%s: %s, %llu records, %.0f records/s", p->label, done,
                    (unsigned long long)records, rate);
        } else {
            fprintf(stderr, "\r\033[K%s: %llu records, %.0f records/s", p->label,
                    (unsigned long long)records, rate);
        }
    }
    p->drawn = 1;
}

void avkcli_progress_end(avkcli_progress *p)
{
    if (p->enabled && p->drawn) {
        fputs("\r\033[K", stderr);
        p->drawn = 0;
    }
}
