/* Generated code demo: reads a container file of orders through the functions `avrokit gen` wrote for examples/data/order.avsc, and checks the totals against the generic reader. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <avrokit/avrokit.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Written at build time by avrokit_generate(... SCHEMAS data/order.avsc
 * PREFIX shop) in examples/CMakeLists.txt: the structs shop_Order,
 * shop_Customer, shop_Line, ... and the shop_Order_* functions. */
#include "order.h"

#define ROUNDS 3

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(const char *what, const avk_error *err)
{
    fprintf(stderr, "gen_demo: %s: %s (%s)\n", what, err->message, avk_status_name(err->status));
    return 1;
}

/* A decimal's unscaled integer: big-endian two's complement (unit_price
 * has precision 9, so at most 4 bytes). */
static int64_t unscaled(const uint8_t *p, size_t len)
{
    uint64_t u = (len > 0 && (p[0] & 0x80)) ? UINT64_MAX : 0;
    for (size_t i = 0; i < len; i++)
        u = (u << 8) | p[i];
    return (int64_t)u;
}

/* What the demo adds up over every order. */
typedef struct totals {
    uint64_t orders, lines, gold, paid;
    int64_t quantity, cents; /* sums of quantities and of unit prices (cents) */
} totals;

static const char *const TIER_NAMES[] = {"BASIC", "SILVER", "GOLD"};

static void print_order(const shop_Order *o)
{
    char price[64] = "-";
    size_t len;
    if (o->lines.count > 0)
        avk_decimal_to_string(o->lines.items[0].unit_price.data, o->lines.items[0].unit_price.len, 2,
                              price, sizeof price, &len);
    printf("  order %lld: customer %.*s (%s), %zu lines (first: %.*s at %s), %s", (long long)o->id,
           (int)o->customer.name.len, (const char *)o->customer.name.data,
           TIER_NAMES[o->customer.tier], o->lines.count,
           o->lines.count ? (int)o->lines.items[0].sku.len : 0,
           o->lines.count ? (const char *)o->lines.items[0].sku.data : "", price,
           o->paid ? "paid" : "not paid");
    if (o->discount.present)
        printf(", discount %g", (double)o->discount.value);
    printf("\n");
}

/* Every order through the generated reader: plain C structs, no lookups. */
static int read_generated(const char *path, avk_arena *arena, totals *t, int print)
{
    shop_Order_file_reader *fr;
    shop_Order o;
    avk_error err;
    int more;
    if (shop_Order_file_reader_open(&fr, path, NULL, &err) != AVK_OK)
        return fail("open (generated)", &err);
    for (;;) {
        avk_arena_reset(arena);
        if (shop_Order_file_reader_next(fr, arena, &o, &more, &err) != AVK_OK) {
            shop_Order_file_reader_free(fr);
            return fail("read (generated)", &err);
        }
        if (!more)
            break;
        if (print && t->orders < 2)
            print_order(&o);
        t->orders++;
        t->gold += o.customer.tier == shop_Tier_GOLD;
        t->paid += o.paid;
        t->lines += o.lines.count;
        for (size_t i = 0; i < o.lines.count; i++) {
            t->quantity += o.lines.items[i].quantity;
            t->cents += unscaled(o.lines.items[i].unit_price.data, o.lines.items[i].unit_price.len);
        }
    }
    shop_Order_file_reader_free(fr);
    return 0;
}

/* The same through the generic reader: fields by index in avk_value trees. */
static int read_generic(const char *path, avk_arena *arena, totals *t)
{
    avk_file_reader *fr;
    avk_value v;
    avk_error err;
    int more;
    if (avk_file_reader_open_path(path, NULL, &fr, &err) != AVK_OK)
        return fail("open (generic)", &err);
    for (;;) {
        avk_arena_reset(arena);
        if (avk_file_reader_next(fr, arena, &v, &more, &err) != AVK_OK) {
            avk_file_reader_free(fr);
            return fail("read (generic)", &err);
        }
        if (!more)
            break;
        const avk_value *lines = &v.u.fields[3];
        const avk_value *items = (const avk_value *)lines->u.array.items;
        t->orders++;
        t->gold += v.u.fields[2].u.fields[3].u.index == 2;
        t->paid += v.u.fields[6].u.boolean;
        t->lines += lines->u.array.count;
        for (size_t i = 0; i < lines->u.array.count; i++) {
            t->quantity += items[i].u.fields[1].u.i;
            t->cents += unscaled(items[i].u.fields[2].u.bytes.data, items[i].u.fields[2].u.bytes.len);
        }
    }
    avk_file_reader_free(fr);
    return 0;
}

int main(int argc, char **argv)
{
    totals gen = {0}, generic = {0};
    avk_arena *arena;
    double best_gen = 0, best_generic = 0;
    int rc = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: gen_demo ORDERS.avro (a file of examples/data/order.avsc)\n");
        return 2;
    }
    if (avk_arena_new(NULL, &arena, NULL) != AVK_OK)
        return 1;
    printf("generated code for %s:\n", "examples/data/order.avsc");
    /* Best of ROUNDS each, alternating (the machine is shared; the first
     * round also reads the file into the page cache). */
    for (int round = 0; round < ROUNDS && rc == 0; round++) {
        totals a = {0}, b = {0};
        double t0 = now_s(), t1, t2;
        rc = read_generated(argv[1], arena, &a, round == 0);
        t1 = now_s();
        if (rc == 0)
            rc = read_generic(argv[1], arena, &b);
        t2 = now_s();
        if (round == 0 || t1 - t0 < best_gen)
            best_gen = t1 - t0;
        if (round == 0 || t2 - t1 < best_generic)
            best_generic = t2 - t1;
        gen = a;
        generic = b;
    }
    avk_arena_free(arena);
    if (rc)
        return rc;
    printf("  %llu orders, %llu lines (quantities sum to %lld, unit prices to %s%lld.%02lld), "
           "%llu GOLD customers, %llu paid\n",
           (unsigned long long)gen.orders, (unsigned long long)gen.lines, (long long)gen.quantity,
           gen.cents < 0 ? "-" : "", (long long)((gen.cents < 0 ? -gen.cents : gen.cents) / 100),
           (long long)((gen.cents < 0 ? -gen.cents : gen.cents) % 100),
           (unsigned long long)gen.gold, (unsigned long long)gen.paid);
    if (memcmp(&gen, &generic, sizeof gen) != 0) {
        fprintf(stderr, "gen_demo: the generic reader adds up to other totals\n");
        return 1;
    }
    printf("  the generic reader agrees; best of %d: %.1f ms generated, %.1f ms generic\n", ROUNDS,
           best_gen * 1e3, best_generic * 1e3);
    return 0;
}
