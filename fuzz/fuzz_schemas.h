/* The schemas fuzz_decode and fuzz_roundtrip choose from (every type, recursive and logical ones included), and their parse and plan helpers. */
#ifndef AVK_FUZZ_SCHEMAS_H
#define AVK_FUZZ_SCHEMAS_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "avrokit/plan.h"
#include "avrokit/schema.h"
#include "fuzz.h"

/* Written with ' for " (turned into JSON before parsing). fuzz/make_seeds.py
 * reads this list between the BEGIN and END markers to write seed inputs,
 * so keep it a plain list of string literals. Appending keeps the seeds'
 * first bytes meaning the same schema. */
static const char *const avkf_schemas[] = {
    /* AVKF_SCHEMAS_BEGIN */
    /* 0: every primitive as a record field */
    "{'type': 'record', 'name': 'Prims', 'fields': ["
    "{'name': 'n', 'type': 'null'}, {'name': 'b', 'type': 'boolean'},"
    "{'name': 'i', 'type': 'int'}, {'name': 'l', 'type': 'long'},"
    "{'name': 'f', 'type': 'float'}, {'name': 'd', 'type': 'double'},"
    "{'name': 'by', 'type': 'bytes'}, {'name': 's', 'type': 'string'},"
    "{'name': 'i2', 'type': 'int'}, {'name': 'l2', 'type': 'long'}, {'name': 'l3', 'type': 'long'}]}",
    /* 1: named types, nested and referenced again */
    "{'type': 'record', 'name': 'Named', 'fields': ["
    "{'name': 'e', 'type': {'type': 'enum', 'name': 'Suit', 'symbols': ['S', 'H', 'D', 'C']}},"
    "{'name': 'f', 'type': {'type': 'fixed', 'name': 'F4', 'size': 4}},"
    "{'name': 'r', 'type': {'type': 'record', 'name': 'Inner', 'fields': ["
    "{'name': 'x', 'type': 'int'}, {'name': 'e2', 'type': 'Suit'}]}},"
    "{'name': 'r2', 'type': 'Inner'}, {'name': 'f2', 'type': 'F4'}]}",
    /* 2: typed arrays of every fixed-size kind */
    "{'type': 'record', 'name': 'Typed', 'fields': ["
    "{'name': 'ab', 'type': {'type': 'array', 'items': 'boolean'}},"
    "{'name': 'ai', 'type': {'type': 'array', 'items': 'int'}},"
    "{'name': 'al', 'type': {'type': 'array', 'items': 'long'}},"
    "{'name': 'af', 'type': {'type': 'array', 'items': 'float'}},"
    "{'name': 'ad', 'type': {'type': 'array', 'items': 'double'}},"
    "{'name': 'ax', 'type': {'type': 'array', 'items': {'type': 'fixed', 'name': 'F3', 'size': 3}}},"
    "{'name': 'an', 'type': {'type': 'array', 'items': 'null'}}]}",
    /* 3: boxed arrays */
    "{'type': 'record', 'name': 'Boxed', 'fields': ["
    "{'name': 'as', 'type': {'type': 'array', 'items': 'string'}},"
    "{'name': 'ar', 'type': {'type': 'array', 'items': {'type': 'record', 'name': 'P', "
    "'fields': [{'name': 'x', 'type': 'int'}, {'name': 'y', 'type': 'bytes'}]}}},"
    "{'name': 'au', 'type': {'type': 'array', 'items': ['null', 'long', 'string']}},"
    "{'name': 'aa', 'type': {'type': 'array', 'items': {'type': 'array', 'items': 'int'}}}]}",
    /* 4: maps */
    "{'type': 'record', 'name': 'Maps', 'fields': ["
    "{'name': 'ml', 'type': {'type': 'map', 'values': 'long'}},"
    "{'name': 'mm', 'type': {'type': 'map', 'values': {'type': 'map', 'values': 'string'}}},"
    "{'name': 'mu', 'type': {'type': 'map', 'values': ['null', 'double']}},"
    "{'name': 'mn', 'type': {'type': 'map', 'values': 'null'}}]}",
    /* 5: a union of every kind */
    "['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string',"
    " {'type': 'record', 'name': 'R', 'fields': [{'name': 'x', 'type': 'int'}]},"
    " {'type': 'enum', 'name': 'E', 'symbols': ['A', 'B']},"
    " {'type': 'fixed', 'name': 'F2', 'size': 2},"
    " {'type': 'array', 'items': 'int'}, {'type': 'map', 'values': 'string'}]",
    /* 6: a linked list */
    "{'type': 'record', 'name': 'LongList', 'fields': [{'name': 'value', 'type': 'long'},"
    " {'name': 'next', 'type': ['null', 'LongList']}]}",
    /* 7: a tree through arrays and maps */
    "{'type': 'record', 'name': 'Tree', 'fields': [{'name': 'v', 'type': 'int'},"
    " {'name': 'kids', 'type': {'type': 'array', 'items': 'Tree'}},"
    " {'name': 'named', 'type': {'type': 'map', 'values': 'Tree'}}]}",
    /* 8: logical types */
    "{'type': 'record', 'name': 'Logical', 'fields': ["
    "{'name': 'dec', 'type': {'type': 'bytes', 'logicalType': 'decimal', 'precision': 10, 'scale': 2}},"
    "{'name': 'decf', 'type': {'type': 'fixed', 'name': 'D8', 'size': 8, 'logicalType': 'decimal', "
    "'precision': 18, 'scale': 4}},"
    "{'name': 'uuid', 'type': {'type': 'string', 'logicalType': 'uuid'}},"
    "{'name': 'date', 'type': {'type': 'int', 'logicalType': 'date'}},"
    "{'name': 'tm', 'type': {'type': 'int', 'logicalType': 'time-millis'}},"
    "{'name': 'tu', 'type': {'type': 'long', 'logicalType': 'time-micros'}},"
    "{'name': 'ts', 'type': {'type': 'long', 'logicalType': 'timestamp-millis'}},"
    "{'name': 'tsu', 'type': ['null', {'type': 'long', 'logicalType': 'timestamp-micros'}]},"
    "{'name': 'dur', 'type': {'type': 'fixed', 'name': 'Dur', 'size': 12, 'logicalType': 'duration'}}]}",
    /* 9: a bare string */
    "'string'",
    /* 10: a bare array of longs */
    "{'type': 'array', 'items': 'long'}",
    /* 11: zero-byte values: empty record, null items, fixed(0) */
    "{'type': 'record', 'name': 'Empties', 'fields': ["
    "{'name': 'e', 'type': {'type': 'record', 'name': 'Nothing', 'fields': []}},"
    "{'name': 'an', 'type': {'type': 'array', 'items': 'Nothing'}},"
    "{'name': 'az', 'type': {'type': 'array', 'items': {'type': 'fixed', 'name': 'Z', 'size': 0}}},"
    "{'name': 'mz', 'type': {'type': 'map', 'values': 'null'}}]}",
    /* 12: nested collections of unions of records */
    "{'type': 'map', 'values': {'type': 'array', 'items': ['null', "
    "{'type': 'record', 'name': 'Q', 'fields': [{'name': 's', 'type': 'string'}, "
    "{'name': 'd', 'type': 'double'}, {'name': 'b', 'type': 'boolean'}]}]}}",
    /* AVKF_SCHEMAS_END */
};

#define AVKF_SCHEMA_COUNT (sizeof avkf_schemas / sizeof avkf_schemas[0])

/* Schema i as JSON text (malloc'd; NULL when out of memory). */
static inline char *avkf_schema_json(size_t i)
{
    const char *sq = avkf_schemas[i];
    size_t n = strlen(sq), k;
    char *s = (char *)malloc(n + 1);
    if (!s)
        return NULL;
    for (k = 0; k <= n; k++)
        s[k] = sq[k] == '\'' ? '"' : sq[k];
    return s;
}

/* Schema i parsed; traps when it does not parse. */
static inline avk_schema *avkf_schema_parse(size_t i)
{
    avk_schema *s = NULL;
    avk_error err;
    avk_status st;
    char *json = avkf_schema_json(i);
    AVKF_CHECK(json != NULL, "out of memory");
    st = avk_schema_parse(json, strlen(json), NULL, &s, &err);
    AVKF_CHECK(st == AVK_OK, "fuzz schema %zu: %s", i, err.message);
    free(json);
    return s;
}

/* A plan for t with flags, limits (NULL: defaults) and encode block size
 * (0: the default); traps when it cannot be made. */
static inline avk_plan *avkf_plan_new(const avk_type *t, unsigned flags, const avk_limits *lim,
                                      size_t block_items)
{
    avk_plan_options o;
    avk_plan *p = NULL;
    avk_error err;
    avk_status st;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.flags = flags;
    if (lim)
        o.limits = *lim;
    o.block_items = block_items;
    st = avk_plan_new(t, &o, &p, &err);
    AVKF_CHECK(st == AVK_OK, "avk_plan_new: %s", err.message);
    return p;
}

#endif
