/* Value paths for errors: segments rendered by index and by name, shortened in the middle to fit. */
#include "common/value_path.h"

#include <stdio.h>
#include <string.h>

/* Field names longer than this are cut in a named path (a name may be
 * as long as the schema allows; the path has 255 bytes for everything). */
#define NAME_MAX_SHOWN 48

/* What a message leaves for prefixes that callers put in front of it
 * ("block 3 at byte 196892: record 5 of 6, byte 454 of the block's data: "),
 * so that they need not cut it. */
#define PREFIX_ROOM 80


static size_t step_text(avki_seg_kind kind, uint64_t index, const char *name, int named,
                        char *buf, size_t cap)
{
    unsigned long long i = (unsigned long long)index;
    int n;
    switch (kind) {
    case AVKI_SEG_NONE:
        buf[0] = 0;
        return 0;
    case AVKI_SEG_FIELD:
    case AVKI_SEG_WRITER_FIELD:
        if (named && name) {
            if (strlen(name) > NAME_MAX_SHOWN)
                n = snprintf(buf, cap, ".%.*s..", NAME_MAX_SHOWN - 2, name);
            else
                n = snprintf(buf, cap, ".%s", name);
        } else {
            n = snprintf(buf, cap, kind == AVKI_SEG_FIELD ? ".fields[%llu]" : ".writer_field[%llu]",
                         i);
        }
        break;
    case AVKI_SEG_ITEM:
        n = snprintf(buf, cap, named ? "[%llu]" : ".items[%llu]", i);
        break;
    case AVKI_SEG_KEY:
        n = snprintf(buf, cap, ".keys[%llu]", i);
        break;
    case AVKI_SEG_VALUE:
        n = snprintf(buf, cap, ".values[%llu]", i);
        break;
    case AVKI_SEG_BRANCH:
        n = snprintf(buf, cap, ".branch[%llu]", i);
        break;
    case AVKI_SEG_WRITER_BRANCH:
        n = snprintf(buf, cap, ".writer_branch[%llu]", i);
        break;
    case AVKI_SEG_MEMBER:
        n = snprintf(buf, cap, ".%s", name);
        break;
    case AVKI_SEG_MEMBER_AT:
        n = snprintf(buf, cap, ".%s[%llu]", name, i);
        break;
    case AVKI_SEG_INDEX:
        n = snprintf(buf, cap, "[%llu]", i);
        break;
    case AVKI_SEG_QUOTED:
        n = snprintf(buf, cap, "[\"%s\"]", name);
        break;
    case AVKI_SEG_TEXT:
        n = snprintf(buf, cap, "%s", name);
        break;
    default: /* AVKI_SEG_GAP */
        n = snprintf(buf, cap, "...(%llu levels)...", i);
        break;
    }
    if (n < 0)
        return 0;
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

static size_t seg_text(const avki_seg *s, int named, char *buf, size_t cap)
{
    size_t n = step_text(s->via, s->via_index, NULL, named, buf, cap);
    return n + step_text(s->kind, s->index, s->name, named, buf + n, cap - n);
}

typedef struct path_src {
    size_t count; /* of all parts */
    const avki_path_part *parts;
    size_t nparts;
    int named;
} path_src;

static size_t text_of(const path_src *p, size_t i, char *buf, size_t cap)
{
    avki_seg s = {AVKI_SEG_NONE, 0, NULL, AVKI_SEG_NONE, 0};
    size_t k = 0;
    while (k + 1 < p->nparts && i >= p->parts[k].count) {
        i -= p->parts[k].count;
        k++;
    }
    p->parts[k].at(p->parts[k].ctx, i, &s);
    return seg_text(&s, p->named, buf, cap);
}

/* Writes root and the segments into out[0..cap) (cap >= 64),
 * NUL-terminated; returns the length. */
static size_t render(const path_src *p, const char *root, char *out, size_t cap)
{
    /* Room for any segment that can fit whole: schema names are not cut
     * like the field names of values. */
    char seg[2 * AVK_ERROR_PATH_MAX];
    size_t len = 0, limit = cap - 1, i, head, tail, tail_len, head_limit, marker;
    size_t rl = strlen(root);
    if (rl > limit / 4)
        rl = limit / 4;
    memcpy(out, root, rl);
    len = rl;
    /* Everything, when it fits. */
    for (i = 0; i < p->count; i++) {
        size_t n = text_of(p, i, seg, sizeof seg);
        if (len + n > limit)
            break;
        memcpy(out + len, seg, n);
        len += n;
    }
    if (i == p->count) {
        out[len] = 0;
        return len;
    }
    /* The first segments up to two fifths of the room, the marker, then as
     * many of the last segments as fit. */
    head_limit = rl + (limit - rl) * 2 / 5;
    len = rl;
    for (head = 0; head < p->count; head++) {
        size_t n = text_of(p, head, seg, sizeof seg);
        if (len + n > head_limit)
            break;
        memcpy(out + len, seg, n);
        len += n;
    }
    /* The marker takes "...(" ")..." and " levels" (15 bytes) around a
     * count of at most count - head. */
    {
        char digits[24];
        marker = 15 + (size_t)snprintf(digits, sizeof digits, "%zu", p->count - head);
    }
    tail_len = 0;
    for (tail = 0; tail < p->count - head; tail++) {
        size_t n = text_of(p, p->count - 1 - tail, seg, sizeof seg);
        if (len + marker + tail_len + n > limit)
            break;
        tail_len += n;
    }
    len += (size_t)snprintf(out + len, cap - len, "...(%zu levels)...",
                            p->count - head - tail);
    for (i = p->count - tail; i < p->count; i++) {
        size_t n = text_of(p, i, seg, sizeof seg);
        memcpy(out + len, seg, n);
        len += n;
    }
    out[len] = 0;
    return len;
}

/* The report behind avki_path_report_parts and avki_path_report_schema:
 * prefix_room is what the message leaves for callers' prefixes. */
static void report(avk_error *err, const char *root, const avki_path_part *parts, size_t nparts,
                   size_t prefix_room)
{
    char reason[AVK_ERROR_MESSAGE_MAX], path[AVK_ERROR_MESSAGE_MAX];
    path_src p;
    size_t rlen, room, plen, k;
    if (!err)
        return;
    p.count = 0;
    for (k = 0; k < nparts; k++)
        p.count += parts[k].count;
    p.parts = parts;
    p.nparts = nparts;
    p.named = 0;
    render(&p, root, err->path, sizeof err->path);

    memcpy(reason, err->message, sizeof reason);
    reason[sizeof reason - 1] = 0;
    rlen = strlen(reason);
    /* The reason whole; the path gets what is left after prefix_room for
     * the callers above (the file reader puts the block and record in
     * front), but never less than a short head and tail. */
    room = sizeof err->message - 1 - 2 - prefix_room;
    room = rlen + 64 < room ? room - rlen : 64;
    p.named = 1;
    plen = render(&p, root, path, room + 1);
    /* "<path>: <reason>", cut at the buffer's end (only a reason longer than
     * the buffer loses its end). */
    memcpy(err->message, path, plen);
    memcpy(err->message + plen, ": ", 2);
    if (rlen > sizeof err->message - 1 - plen - 2)
        rlen = sizeof err->message - 1 - plen - 2;
    memcpy(err->message + plen + 2, reason, rlen);
    err->message[plen + 2 + rlen] = 0;
}

void avki_path_report_parts(avk_error *err, const char *root, const avki_path_part *parts,
                            size_t nparts)
{
    report(err, root, parts, nparts, PREFIX_ROOM);
}

void avki_path_report_schema(avk_error *err, const char *root, const avki_path_part *part)
{
    report(err, root, part, 1, 0);
}

size_t avki_path_render(const char *root, const avki_path_part *parts, size_t nparts, int named,
                        char *buf, size_t cap)
{
    path_src p;
    size_t k;
    p.count = 0;
    for (k = 0; k < nparts; k++)
        p.count += parts[k].count;
    p.parts = parts;
    p.nparts = nparts;
    p.named = named;
    return render(&p, root, buf, cap);
}

void avki_path_report(avk_error *err, const char *root, size_t count, avki_seg_at_fn at,
                      const void *ctx)
{
    avki_path_part part;
    part.count = count;
    part.at = at;
    part.ctx = ctx;
    avki_path_report_parts(err, root, &part, 1);
}

void avki_seg_array_at(const void *ctx, size_t i, avki_seg *out)
{
    *out = ((const avki_seg *)ctx)[i];
}

static void stack_at(const void *ctx, size_t i, avki_seg *out)
{
    const avki_path_stack *s = (const avki_path_stack *)ctx;
    if (i < AVKI_PATH_STACK_MAX) {
        *out = s->segs[i];
        return;
    }
    /* What was not kept shows as "...", as the schema parser always wrote it. */
    memset(out, 0, sizeof *out);
    out->kind = AVKI_SEG_TEXT;
    out->name = "...";
}

avki_path_part avki_path_stack_part(const avki_path_stack *s)
{
    avki_path_part part;
    part.count = s->depth <= AVKI_PATH_STACK_MAX ? s->depth : AVKI_PATH_STACK_MAX + 1;
    part.at = stack_at;
    part.ctx = s;
    return part;
}

avk_status avki_place_front(avki_place *p, avki_seg_kind kind, uint64_t index, const char *name,
                            avk_status st)
{
    size_t n = p->ntail < AVKI_TAIL_MAX ? p->ntail : AVKI_TAIL_MAX - 1;
    memmove(p->tail + 1, p->tail, n * sizeof p->tail[0]);
    memset(&p->tail[0], 0, sizeof p->tail[0]);
    p->tail[0].kind = kind;
    p->tail[0].index = index;
    p->tail[0].name = name;
    p->ntail = n + 1;
    return st;
}

static void place_at(const void *ctx, size_t i, avki_seg *out)
{
    const avki_place *p = (const avki_place *)ctx;
    size_t below = p->nframes ? p->nframes - 1 : 0;
    memset(out, 0, sizeof *out);
    if (i < below) {
        p->frame(p->walker, i, 0, out);
        return;
    }
    if (i == below) {
        if (p->nframes)
            p->frame(p->walker, i, 1, out);
        if (p->ntail) {
            out->kind = p->tail[0].kind;
            out->index = p->tail[0].index;
            out->name = p->tail[0].name;
        }
        return;
    }
    *out = p->tail[i - below];
}

avki_path_part avki_place_part(const avki_place *p)
{
    avki_path_part part;
    size_t below = p->nframes ? p->nframes - 1 : 0;
    int top = 0;
    if (p->nframes) {
        avki_seg s;
        memset(&s, 0, sizeof s);
        p->frame(p->walker, below, 1, &s);
        top = s.via != AVKI_SEG_NONE;
    }
    part.count = below + (top || p->ntail ? 1 : 0) + (p->ntail > 1 ? p->ntail - 1 : 0);
    part.at = place_at;
    part.ctx = p;
    return part;
}
