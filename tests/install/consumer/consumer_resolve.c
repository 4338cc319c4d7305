/* A user's program on resolving generated code: bytes written with point.avsc read into point_v2.avsc's struct (avrokit_generate with READER). */
#include <avrokit/avrokit.h>
#include <stdio.h>
#include <string.h>

#include "point_v2_from_point.h"

static int put_string(avk_writer *w, const char *s, avk_error *err)
{
    size_t n = strlen(s);
    return avk_writer_write_long(w, (int64_t)n, err) != AVK_OK ||
           avk_writer_write_raw(w, s, n, err) != AVK_OK;
}

/* One point.avsc record: x, y, label, tags, then the branch of next. */
static int put_point(avk_writer *w, int32_t x, int64_t y, const char *label, const char *tag,
                     int has_next, avk_error *err)
{
    if (avk_writer_write_int(w, x, err) != AVK_OK || avk_writer_write_long(w, y, err) != AVK_OK ||
        put_string(w, label, err))
        return 1;
    if (tag && (avk_writer_write_long(w, 1, err) != AVK_OK || put_string(w, tag, err)))
        return 1;
    return avk_writer_write_long(w, 0, err) != AVK_OK ||
           avk_writer_write_long(w, has_next ? 1 : 0, err) != AVK_OK;
}

static int same(avk_bytes b, const char *s)
{
    return b.len == strlen(s) && memcmp(b.data, s, b.len) == 0;
}

int main(void)
{
    pr_Point back;
    avk_writer w;
    avk_reader r;
    avk_arena *arena;
    avk_error err;
    const uint8_t *bytes;
    size_t len;
    if (avk_arena_new(NULL, &arena, &err) != AVK_OK ||
        avk_writer_init_memory(&w, NULL, &err) != AVK_OK) {
        fprintf(stderr, "consumer_resolve: %s\n", err.message);
        return 1;
    }
    /* The writer's y and tags are skipped, x is promoted from int to long,
     * and weight, which the writer lacks, takes its default. */
    if (put_point(&w, -3, 1700000000000, "head", "red", 1, &err) ||
        put_point(&w, 7, -1, "tail", NULL, 0, &err)) {
        fprintf(stderr, "consumer_resolve: encode: %s\n", err.message);
        return 1;
    }
    bytes = avk_writer_data(&w, &len);
    avk_reader_init_memory(&r, bytes, len);
    if (pr_Point_decode_from_point(&r, arena, NULL, &back, &err) != AVK_OK) {
        fprintf(stderr, "consumer_resolve: decode: %s\n", err.message);
        return 1;
    }
    if (avk_reader_offset(&r) != len || back.x != -3 || !same(back.label, "head") ||
        back.weight != 1.5 || !back.next || back.next->x != 7 || !same(back.next->label, "tail") ||
        back.next->weight != 1.5 || back.next->next) {
        fprintf(stderr, "consumer_resolve: resolved values differ\n");
        return 1;
    }
    printf("consumer_resolve ok: %zu bytes of point.avsc read as point_v2.avsc\n", len);
    avk_writer_destroy(&w);
    avk_arena_free(arena);
    return 0;
}
