/* JSON writer: a parsed tree back to compact text, and JSON string literals. */
#include <string.h>

#include "avrokit/writer.h"
#include "common/error.h"
#include "json/json.h"
#include "json/json_escape.h"

const char avki_json_escape_of[256] = {
    ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't',
    [0x00] = 'u', [0x01] = 'u', [0x02] = 'u', [0x03] = 'u', [0x04] = 'u', [0x05] = 'u',
    [0x06] = 'u', [0x07] = 'u', [0x0B] = 'u', [0x0E] = 'u', [0x0F] = 'u', [0x10] = 'u',
    [0x11] = 'u', [0x12] = 'u', [0x13] = 'u', [0x14] = 'u', [0x15] = 'u', [0x16] = 'u',
    [0x17] = 'u', [0x18] = 'u', [0x19] = 'u', [0x1A] = 'u', [0x1B] = 'u', [0x1C] = 'u',
    [0x1D] = 'u', [0x1E] = 'u', [0x1F] = 'u', ['"'] = '"', ['\\'] = '\\',
};

avk_status avki_json_write_string(avk_writer *w, const char *s, size_t len, avk_error *err)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len, *run;
    uint8_t esc[6];

    /* Common case: the worst case (every byte a 6-byte escape) fits the
     * free space, so write straight into the buffer; eight bytes at a
     * time while none of them needs an escape. */
    if (len < ((size_t)-1 - 2) / 6 && (size_t)(w->end - w->pos) >= len * 6 + 2) {
        uint8_t *d = w->pos;
        *d++ = '"';
        while (end - p >= 8) {
            uint64_t x;
            memcpy(&x, p, 8);
            if (!avki_json_needs_escape8(x)) {
                memcpy(d, p, 8);
                d += 8;
                p += 8;
                continue;
            }
            for (run = p + 8; p < run; p++) {
                unsigned char c = *p;
                if (avki_json_escape_of[c])
                    d += avki_json_put_escape(d, c);
                else
                    *d++ = c;
            }
        }
        for (; p < end; p++) {
            unsigned char c = *p;
            if (avki_json_escape_of[c])
                d += avki_json_put_escape(d, c);
            else
                *d++ = c;
        }
        *d++ = '"';
        w->pos = d;
        return AVK_OK;
    }

    /* Otherwise runs of plain bytes in bulk, escapes one by one. */
    AVK_TRY(avk_writer_write_raw(w, "\"", 1, err));
    run = p;
    for (; p < end; p++) {
        if (!avki_json_escape_of[*p])
            continue;
        if (p > run)
            AVK_TRY(avk_writer_write_raw(w, run, (size_t)(p - run), err));
        AVK_TRY(avk_writer_write_raw(w, esc, avki_json_put_escape(esc, *p), err));
        run = p + 1;
    }
    if (p > run)
        AVK_TRY(avk_writer_write_raw(w, run, (size_t)(p - run), err));
    return avk_writer_write_raw(w, "\"", 1, err);
}

/* An open array or object and the index of its next child. */
typedef struct frame {
    const avki_json *v;
    size_t next;
} frame;

#define LOCAL_FRAMES 64

/* Writes scalars and opens containers; containers are finished by the
 * loop in avki_json_write. */
static avk_status write_open(const avki_json *v, avk_writer *w, avk_error *err)
{
    switch (v->type) {
    case AVKI_JSON_NULL: return avk_writer_write_raw(w, "null", 4, err);
    case AVKI_JSON_FALSE: return avk_writer_write_raw(w, "false", 5, err);
    case AVKI_JSON_TRUE: return avk_writer_write_raw(w, "true", 4, err);
    case AVKI_JSON_NUMBER:
        return avk_writer_write_raw(w, v->u.number.text, v->u.number.len, err);
    case AVKI_JSON_STRING: return avki_json_write_string(w, v->u.string.ptr, v->u.string.len, err);
    case AVKI_JSON_ARRAY: return avk_writer_write_raw(w, "[", 1, err);
    case AVKI_JSON_OBJECT: return avk_writer_write_raw(w, "{", 1, err);
    }
    return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, avk_writer_offset(w),
                          "JSON node has unknown type %d", (int)v->type);
}

static int is_container(const avki_json *v)
{
    return v->type == AVKI_JSON_ARRAY || v->type == AVKI_JSON_OBJECT;
}

avk_status avki_json_write(const avki_json *v, avk_writer *w, avk_error *err)
{
    /* An explicit stack rather than recursion: a tree parsed with a large
     * max_depth must not exhaust the C stack. Beyond LOCAL_FRAMES levels
     * the stack grows with the writer's allocator. */
    frame local[LOCAL_FRAMES];
    frame *stack = local;
    size_t cap = LOCAL_FRAMES, depth = 0;
    avk_status st;

    if (!v)
        return avki_error_set(err, AVK_ERR_INVALID_ARGUMENT, avk_writer_offset(w),
                              "avki_json_write: NULL value");
    st = write_open(v, w, err);
    if (st != AVK_OK || !is_container(v))
        return st;
    stack[depth].v = v;
    stack[depth].next = 0;
    depth++;

    while (depth > 0) {
        frame *f = &stack[depth - 1];
        const avki_json *c = f->v, *child;
        size_t count = c->type == AVKI_JSON_ARRAY ? c->u.array.count : c->u.object.count;
        if (f->next == count) {
            st = avk_writer_write_raw(w, c->type == AVKI_JSON_ARRAY ? "]" : "}", 1, err);
            if (st != AVK_OK)
                goto out;
            depth--;
            continue;
        }
        if (f->next > 0 && (st = avk_writer_write_raw(w, ",", 1, err)) != AVK_OK)
            goto out;
        if (c->type == AVKI_JSON_ARRAY) {
            child = c->u.array.items[f->next];
        } else {
            const avki_json_member *m = &c->u.object.members[f->next];
            if ((st = avki_json_write_string(w, m->key, m->key_len, err)) != AVK_OK ||
                (st = avk_writer_write_raw(w, ":", 1, err)) != AVK_OK)
                goto out;
            child = m->value;
        }
        f->next++;
        if ((st = write_open(child, w, err)) != AVK_OK)
            goto out;
        if (!is_container(child))
            continue;
        if (depth == cap) {
            frame *ns;
            size_t ncap = cap * 2;
            if (stack == local) {
                ns = (frame *)w->alloc.alloc(w->alloc.ctx, ncap * sizeof *ns);
                if (ns)
                    memcpy(ns, local, sizeof local);
            } else {
                ns = (frame *)w->alloc.realloc(w->alloc.ctx, stack, cap * sizeof *ns,
                                               ncap * sizeof *ns);
            }
            if (!ns) {
                st = avki_error_set(err, AVK_ERR_NO_MEMORY, avk_writer_offset(w),
                                    "cannot allocate %zu levels of JSON writer stack", ncap);
                goto out;
            }
            stack = ns;
            cap = ncap;
        }
        stack[depth].v = child;
        stack[depth].next = 0;
        depth++;
    }
    st = AVK_OK;
out:
    if (stack != local)
        w->alloc.free(w->alloc.ctx, stack, cap * sizeof *stack);
    return st;
}
