/* Build demo: builds an Order (examples/data/order.avsc) by field name, encodes it, decodes it back, prints it as Avro JSON and shows a wrong call's error. */
#include <avrokit/avrokit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n + 1);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        if (buf)
            *len = (size_t)n;
    }
    fclose(f);
    return buf;
}

static int fail(const char *what, const avk_error *err)
{
    fprintf(stderr, "build_demo: %s: %s (%s)\n", what, err->message,
            avk_status_name(err->status));
    return 1;
}

/* One order. avk_value_init_tree sets up every field (nested records too,
 * defaults applied: the customer's email and the discount start as null),
 * so only what differs is set; each call checks the schema as it goes. */
static avk_status build_order(avk_value *order, const avk_type *t, avk_arena *arena,
                              avk_error *err)
{
    static const double weights[] = {0.25, 1.5};
    avk_value *customer, *line, *tag;
    uint8_t price[16];
    size_t price_len;
    avk_status st;
    if ((st = avk_decimal_from_string("19.99", 5, 2, price, sizeof price, &price_len)))
        return st;
    if ((st = avk_value_init_tree(order, t, arena, err)) ||
        (st = avk_value_set_long(order, "id", 1001, err)) ||
        (st = avk_value_set_long(order, "placed", 1767225600000, err)) || /* timestamp-millis */
        (st = avk_value_get_field(order, "customer", &customer, err)) ||
        (st = avk_value_set_string(customer, "id", "6f1c2a9e-0b5d-4e7a-9c3f-2d8e1b4a7c60",
                                   arena, err)) ||
        (st = avk_value_set_string(customer, "name", "Ada Lovelace", arena, err)) ||
        (st = avk_value_set_enum(customer, "tier", "GOLD", err)) ||
        /* An array of records: each append returns the new record. */
        (st = avk_value_append(order, "lines", arena, &line, err)) ||
        (st = avk_value_set_string(line, "sku", "BOOK-1843", arena, err)) ||
        (st = avk_value_set_int(line, "quantity", 2, err)) ||
        (st = avk_value_set_bytes(line, "unit_price", price, price_len, arena, err)) ||
        /* An array of doubles is a C array: appended in bulk. */
        (st = avk_value_append_items(order, "weights", weights, 2, arena, err)) ||
        (st = avk_value_put(order, "tags", "gift", arena, &tag, err)) ||
        (st = avk_value_set_string(tag, NULL, "yes", arena, err)) ||
        (st = avk_value_set_boolean(order, "paid", 1, err)) ||
        /* ["null", "float"]: choose the branch, then set it like a float field. */
        (st = avk_value_choose(order, "discount", "float", arena, NULL, err)) ||
        (st = avk_value_set_float(order, "discount", 0.1f, err)))
        return st;
    return AVK_OK;
}

int main(int argc, char **argv)
{
    const char *schema_path = argc > 1 ? argv[1] : "examples/data/order.avsc";
    size_t schema_len = 0, bin_len, json_len;
    char *schema_text = read_file(schema_path, &schema_len);
    avk_schema *schema = NULL;
    avk_plan *plan = NULL;
    avk_arena *arena = NULL;
    avk_writer w, json;
    avk_reader r;
    avk_value order, decoded;
    avk_error err;
    const uint8_t *bytes, *text;
    int rc = 1;

    if (!schema_text) {
        fprintf(stderr, "build_demo: cannot read %s\n", schema_path);
        return 1;
    }
    if (avk_schema_parse(schema_text, schema_len, NULL, &schema, &err) != AVK_OK)
        return fail(schema_path, &err);
    if (avk_plan_new(avk_schema_root(schema), NULL, &plan, &err) != AVK_OK ||
        avk_arena_new(NULL, &arena, &err) != AVK_OK ||
        avk_writer_init_memory(&w, NULL, &err) != AVK_OK ||
        avk_writer_init_memory(&json, NULL, &err) != AVK_OK)
        return fail("setting up", &err);

    if (build_order(&order, avk_schema_root(schema), arena, &err) != AVK_OK) {
        fail("building", &err);
        goto done;
    }
    if (avk_plan_encode(plan, &order, &w, &err) != AVK_OK) {
        fail("encoding", &err);
        goto done;
    }
    bytes = avk_writer_data(&w, &bin_len);
    avk_reader_init_memory(&r, bytes, bin_len);
    if (avk_plan_decode(plan, &r, arena, &decoded, &err) != AVK_OK) {
        fail("decoding", &err);
        goto done;
    }
    if (!avk_value_equal(&order, &decoded)) {
        fprintf(stderr, "build_demo: the decoded order differs from the built one\n");
        goto done;
    }
    if (avk_value_write_json(&decoded, AVK_JSON_PRETTY, &json, &err) != AVK_OK) {
        fail("writing JSON", &err);
        goto done;
    }
    text = avk_writer_data(&json, &json_len);
    printf("== an Order built by field name: %zu bytes of Avro binary, decoded back equal ==\n",
           bin_len);
    printf("%.*s\n", (int)json_len, (const char *)text);

    /* A wrong call fails where it is made, naming the field and both types. */
    if (avk_value_set_string(&order, "paid", "yes", arena, &err) == AVK_OK) {
        fprintf(stderr, "build_demo: a string was set into a boolean field\n");
        goto done;
    }
    printf("a wrong call: %s: %s\n", avk_status_name(err.status), err.message);
    rc = 0;
done:
    avk_writer_destroy(&json);
    avk_writer_destroy(&w);
    avk_arena_free(arena);
    avk_plan_free(plan);
    avk_schema_free(schema);
    free(schema_text);
    return rc;
}
