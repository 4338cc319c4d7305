/* avki_json_equal on trees whose open containers pass its 64 local frames: deep children that are not the last. */
#include <stdio.h>
#include <stdlib.h>

#include "avkt.h"
#include "common/arena.h"
#include "json/json.h"

/* depth levels of [child, k] (arrays) or {"a": child, "k": k} (objects):
 * every deep child has a sibling after it, so each level keeps its frame
 * open while the comparison goes down. The innermost value is leaf; the
 * last sibling of level `last_at` (0: the outermost) is last_value, the
 * others 0. */
static char *nested(size_t depth, int objects, const char *leaf, size_t last_at, int last_value)
{
    size_t cap = depth * 16 + strlen(leaf) + 16, k = 0;
    char *s = (char *)malloc(cap);
    assert_non_null(s);
    for (size_t i = 0; i < depth; i++)
        k += (size_t)snprintf(s + k, cap - k, "%s", objects ? "{\"a\":" : "[");
    k += (size_t)snprintf(s + k, cap - k, "%s", leaf);
    for (size_t i = depth; i-- > 0;)
        k += (size_t)snprintf(s + k, cap - k, objects ? ",\"k\":%d}" : ",%d]",
                              i == last_at ? last_value : 0);
    return s;
}

static const avki_json *parse(avki_arena *a, const char *text)
{
    avki_json_limits lim = {100000};
    const avki_json *v = NULL;
    avk_error err;
    AVKT_OK(avki_json_parse(a, text, strlen(text), &lim, &v, &err));
    assert_non_null(v);
    return v;
}

/* 64 levels fit the local frames; 65 move them to the heap (malloc), 129
 * and 300 grow it again (realloc). Equal trees compare equal, and a
 * difference at the innermost leaf, or at the outermost or innermost
 * sibling, is found both ways, with the heap frames freed either way. */
static void test_deep_open_frames(void **state)
{
    static const size_t depths[] = {1, 63, 64, 65, 128, 129, 300};
    (void)state;
    for (int objects = 0; objects < 2; objects++) {
        for (size_t di = 0; di < sizeof depths / sizeof depths[0]; di++) {
            size_t depth = depths[di];
            avki_arena a;
            char *base = nested(depth, objects, "[1,2]", 0, 0);
            char *same = nested(depth, objects, "[1,2]", 0, 0);
            char *leaf = nested(depth, objects, "[1,3]", 0, 0);
            char *outer = nested(depth, objects, "[1,2]", 0, 7);
            char *inner = nested(depth, objects, "[1,2]", depth - 1, 7);
            const avki_json *x, *y, *l, *o, *in;
            avki_arena_init(&a, NULL, 0, 0);
            x = parse(&a, base);
            y = parse(&a, same);
            l = parse(&a, leaf);
            o = parse(&a, outer);
            in = parse(&a, inner);
            assert_true(avki_json_equal(x, x));
            assert_true(avki_json_equal(x, y));
            assert_false(avki_json_equal(x, l));
            assert_false(avki_json_equal(l, x));
            assert_false(avki_json_equal(x, o));
            assert_false(avki_json_equal(o, x));
            assert_false(avki_json_equal(x, in));
            assert_false(avki_json_equal(in, x));
            avki_arena_destroy(&a);
            free(base);
            free(same);
            free(leaf);
            free(outer);
            free(inner);
        }
    }
}

/* Objects deep in the frames: a key that differs at the innermost level
 * (same value, same position) makes the trees differ; members in another
 * order differ too (the comparison is by position, as the parser keeps
 * the text's order). */
static void test_deep_keys(void **state)
{
    avki_arena a;
    char *x_text = nested(200, 1, "{\"p\":1,\"q\":2}", 0, 0);
    char *y_text = nested(200, 1, "{\"p\":1,\"r\":2}", 0, 0);
    char *z_text = nested(200, 1, "{\"q\":2,\"p\":1}", 0, 0);
    const avki_json *x, *y, *z;
    (void)state;
    avki_arena_init(&a, NULL, 0, 0);
    x = parse(&a, x_text);
    y = parse(&a, y_text);
    z = parse(&a, z_text);
    assert_false(avki_json_equal(x, y));
    assert_false(avki_json_equal(y, x));
    assert_false(avki_json_equal(x, z));
    assert_true(avki_json_equal(z, z));
    avki_arena_destroy(&a);
    free(x_text);
    free(y_text);
    free(z_text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deep_open_frames),
        cmocka_unit_test(test_deep_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
