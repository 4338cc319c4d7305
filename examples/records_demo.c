/* Records demo: builds Avro records with the builder, decodes them into generic values, skips them, and shows an error. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <avrokit/avrokit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

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
    fprintf(stderr, "%s: %s (%s at byte %llu)\n", what, err->message, avk_status_name(err->status),
            (unsigned long long)err->offset);
    return 1;
}

/* One Reading record through the builder: fields in schema order. */
static avk_status build_reading(avk_builder *b, const int64_t *f, size_t i, avk_error *err)
{
    static const char *notes[] = {"calibrated", "battery low", "moved"};
    avk_status st;
    if ((st = avk_builder_long(b, f[0], err)) || (st = avk_builder_long(b, f[1], err)) ||
        (st = avk_builder_long(b, f[2], err)) || (st = avk_builder_long(b, f[3], err)) ||
        (st = avk_builder_enum(b, i % 7 == 0 ? 1 : 0, err)))
        return st;
    if (i % 5 == 0) {
        const char *note = notes[i % 3];
        if ((st = avk_builder_union(b, 1, err)))
            return st;
        return avk_builder_string(b, note, strlen(note), err);
    }
    if ((st = avk_builder_union(b, 0, err)))
        return st;
    return avk_builder_null(b, err);
}

static void print_reading(const avk_value *v)
{
    const avk_value *f = v->u.fields;
    char when[40];
    const avk_value *note = f[5].u.branch.value;
    if (avk_timestamp_format(f[0].u.l, avk_type_logical(f[0].type), when, sizeof when) != AVK_OK)
        snprintf(when, sizeof when, "%lld", (long long)f[0].u.l);
    printf("  {time: %s, counter: %lld, delta: %lld, user: %lld, status: %s, note: ", when,
           (long long)f[1].u.l, (long long)f[2].u.l, (long long)f[3].u.l,
           avk_type_symbol(f[4].type, f[4].u.index));
    if (f[5].u.branch.index == 0)
        printf("null}\n");
    else
        printf("\"%.*s\"}\n", (int)note->u.bytes.len, (const char *)note->u.bytes.data);
}

int main(int argc, char **argv)
{
    const char *schema_path = argc > 1 ? argv[1] : "examples/data/reading.avsc";
    const char *data_path = argc > 2 ? argv[2] : "examples/data/readings.avrodata";
    size_t schema_len = 0, data_len = 0, n_readings, i, out_len;
    char *schema_text = read_file(schema_path, &schema_len);
    char *data = read_file(data_path, &data_len);
    avk_schema *schema = NULL;
    avk_plan *plan = NULL;
    avk_arena *arena = NULL;
    avk_builder *builder = NULL;
    avk_writer w;
    avk_reader r;
    avk_value v;
    avk_error err;
    int64_t *fields;
    int64_t count, check = 0, sum = 0;
    const uint8_t *out;
    double t0, t_build, t_decode, t_skip;
    int rc = 1;

    if (!schema_text || !data) {
        fprintf(stderr, "records_demo: cannot read %s or %s\n", schema_path, data_path);
        return 1;
    }
    /* readings.avrodata is an array<long>: four longs per reading. */
    avk_reader_init_memory(&r, data, data_len);
    if (avk_reader_read_long(&r, &count, &err) != AVK_OK || count <= 0 || count % 4 != 0)
        return fail("reading the bundled data", &err);
    fields = malloc((size_t)count * sizeof *fields);
    if (!fields || avk_reader_read_longs(&r, fields, (size_t)count, &err) != AVK_OK)
        return fail("reading the bundled data", &err);
    n_readings = (size_t)count / 4;

    if (avk_schema_parse(schema_text, schema_len, NULL, &schema, &err) != AVK_OK)
        return fail(schema_path, &err);
    if (avk_plan_new(avk_schema_root(schema), NULL, &plan, &err) != AVK_OK ||
        avk_arena_new(NULL, &arena, &err) != AVK_OK ||
        avk_writer_init_memory(&w, NULL, &err) != AVK_OK ||
        avk_builder_new(plan, &w, NULL, &builder, &err) != AVK_OK)
        return fail("setting up", &err);

    /* 1. Write every reading as a record, field by field. */
    t0 = now_ns();
    for (i = 0; i < n_readings; i++)
        if (build_reading(builder, fields + 4 * i, i, &err) != AVK_OK)
            return fail("building", &err);
    t_build = now_ns() - t0;
    out = avk_writer_data(&w, &out_len);

    /* 2. Decode them back into generic values, resetting the arena per record. */
    printf("== %zu Reading records (%zu bytes of Avro binary) ==\n", n_readings, out_len);
    avk_reader_init_memory(&r, out, out_len);
    t0 = now_ns();
    for (i = 0; i < n_readings; i++) {
        avk_arena_reset(arena);
        if (avk_plan_decode(plan, &r, arena, &v, &err) != AVK_OK)
            return fail("decoding", &err);
        sum += v.u.fields[0].u.l + v.u.fields[1].u.l + v.u.fields[2].u.l + v.u.fields[3].u.l;
        if (i < 3)
            print_reading(&v);
    }
    t_decode = now_ns() - t0;
    for (i = 0; i < (size_t)count; i++)
        check += fields[i];
    if (sum != check || r.pos != out + out_len) {
        fprintf(stderr, "records_demo: decoded values do not match what was written\n");
        goto done;
    }

    /* 3. Skip them all without building anything. */
    avk_reader_init_memory(&r, out, out_len);
    t0 = now_ns();
    for (i = 0; i < n_readings; i++)
        if (avk_plan_skip(plan, &r, &err) != AVK_OK)
            return fail("skipping", &err);
    t_skip = now_ns() - t0;

    printf("  ...\n  build %.1f ns/record, decode %.1f ns/record, skip %.1f ns/record;"
           " arena allocations in all: %zu\n",
           t_build / (double)n_readings, t_decode / (double)n_readings,
           t_skip / (double)n_readings, avk_arena_allocations(arena));

    /* 4. Damage one byte: the status enum of the first record gets index 9. */
    {
        uint8_t *bad = malloc(out_len);
        size_t enum_at;
        if (!bad)
            goto done;
        memcpy(bad, out, out_len);
        avk_reader_init_memory(&r, bad, out_len);
        for (i = 0; i < 4; i++) { /* step over the four longs */
            int64_t ignored;
            avk_reader_read_long(&r, &ignored, NULL);
        }
        enum_at = (size_t)(r.pos - bad);
        bad[enum_at] = 18; /* zigzag 9 */
        avk_reader_init_memory(&r, bad, out_len);
        avk_arena_reset(arena);
        if (avk_plan_decode(plan, &r, arena, &v, &err) == AVK_OK) {
            fprintf(stderr, "records_demo: the damaged record decoded\n");
            free(bad);
            goto done;
        }
        printf("  a damaged record: %s: %s\n", avk_status_name(err.status), err.message);
        free(bad);
    }
    rc = 0;
done:
    avk_builder_free(builder);
    avk_writer_destroy(&w);
    avk_arena_free(arena);
    avk_plan_free(plan);
    avk_schema_free(schema);
    free(fields);
    free(schema_text);
    free(data);
    return rc;
}
