/* A user's program on generated code: point.avsc through avrokit_generate of the installed package, encoded and decoded back. */
#include <avrokit/avrokit.h>
#include <stdio.h>
#include <string.h>

#include "point.h"

static avk_bytes text(const char *s)
{
    avk_bytes b;
    b.data = (const uint8_t *)s;
    b.len = strlen(s);
    return b;
}

static int same(avk_bytes b, const char *s)
{
    return b.len == strlen(s) && memcmp(b.data, s, b.len) == 0;
}

int main(void)
{
    avk_bytes tags[2];
    pt_Point tail, head, back;
    avk_writer w;
    avk_reader r;
    avk_arena *arena;
    avk_error err;
    const uint8_t *bytes;
    size_t len;
    tags[0] = text("red");
    tags[1] = text("big");
    memset(&tail, 0, sizeof tail);
    tail.x = -3;
    tail.y = 1700000000000;
    tail.label = text("tail");
    memset(&head, 0, sizeof head);
    head.x = 7;
    head.y = -1;
    head.label = text("head");
    head.tags.items = tags;
    head.tags.count = 2;
    head.next = &tail;
    if (avk_arena_new(NULL, &arena, &err) != AVK_OK ||
        avk_writer_init_memory(&w, NULL, &err) != AVK_OK ||
        pt_Point_encode(&head, &w, &err) != AVK_OK) {
        fprintf(stderr, "consumer_gen: encode: %s\n", err.message);
        return 1;
    }
    bytes = avk_writer_data(&w, &len);
    avk_reader_init_memory(&r, bytes, len);
    if (pt_Point_decode(&r, arena, &back, &err) != AVK_OK) {
        fprintf(stderr, "consumer_gen: decode: %s\n", err.message);
        return 1;
    }
    if (avk_reader_offset(&r) != len || back.x != 7 || back.y != -1 || !same(back.label, "head") ||
        back.tags.count != 2 || !same(back.tags.items[1], "big") || !back.next ||
        back.next->x != -3 || back.next->y != 1700000000000 || !same(back.next->label, "tail") ||
        back.next->tags.count != 0 || back.next->next) {
        fprintf(stderr, "consumer_gen: round trip failed\n");
        return 1;
    }
    printf("consumer_gen ok: a %s of %zu bytes round-trips through generated code\n",
           strstr(pt_Point_schema_json(), "\"Point\"") ? "Point" : "?", len);
    avk_writer_destroy(&w);
    avk_arena_free(arena);
    return 0;
}
